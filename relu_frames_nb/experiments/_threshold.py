r"""The injectivity threshold of random ReLU layers: :func:`threshold` and :class:`ThresholdResult`.

Private module of :mod:`relu_frames_nb.experiments`, which re-exports the public names.

For a Gaussian layer :math:`\mathrm{ReLU}(Wx - \alpha)` with ``m`` rows in :math:`\mathbb{R}^n`, the
question "injective on :math:`\mathbb{R}^n`?" is a half-space depth question
(:mod:`relu_frames_nb.paper.depth`): with zero bias, whether every closed half-space through 0 holds at least
``n`` rows; with a bias, the same for the lifted rows :math:`(w_i, -\alpha_i)` with the point
:math:`-e_{n+1}` kept out. Each layer is decided by the exact branch and bound: "injective" is a
proof that the depth exceeds ``n - 1`` (every bound from a circuit verified exactly), "not injective"
a direction, checked with its rounding bounded, where at most ``n - 1`` rows are active (by
Thm "Injectivity I" the active rows cannot span there). The step from "depth >= n" to "injective"
needs the rows in general position (no ``n`` of them in one hyperplane), which Gaussian rows are with
probability one; the probability estimated is therefore that of injectivity.
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from typing import Any, Iterable, Sequence

import numpy as np

from .._util.tolerances import LOGISTIC_RIDGE, LOGISTIC_STEP_TOL
from .._util.validation import as_count, as_positive, as_seed, as_seed_sequence
from ..checking import check
from ..domains import Ball
from ..errors import InputError
from ..layer import ReLULayer
from ..paper.depth import halfspace_depth_at_least
from ._runner import EXP_ID, Cache, Result, check_executor, check_ints, check_size, run_experiment

__all__ = [
    "ThresholdResult",
    "threshold",
    "THRESHOLD_ANCHORS",
    "INJECTIVE",
    "NOT_INJECTIVE",
    "UNDETERMINED",
    "NOT_RUN",
    "wilson_interval",
]

#: status codes of :attr:`ThresholdResult.status`
INJECTIVE, NOT_INJECTIVE, UNDETERMINED, NOT_RUN = 1, 0, -1, -2

#: asymptotic results on the threshold m/n of zero-bias Gaussian layers (n -> infinity), for the plots
THRESHOLD_ANCHORS = (
    (3.4, "Puthawala et al. 2022: not injective below"),
    (6.698, "Maillard et al. 2023: full-RSB threshold"),
    (7.65, "Maillard et al. 2023: rigorous upper bound"),
    (8.34, "Euler-characteristic prediction (refuted)"),
    (10.5, "Puthawala et al. 2022: injective above"),
)

_THRESHOLD_SIZES = {
    "fast": {
        "n_values": (3, 4, 5, 6, 8),
        "points": 17,
        "layers": 100,
        "layers_large": 40,
        "time_limit": 60.0,
        "ball_max_n": 4,
    },
    "full": {
        "n_values": (3, 4, 5, 6, 8, 10, 12),
        "points": 33,
        "layers": 200,
        "layers_large": 40,
        "time_limit": 600.0,
        "ball_max_n": 4,
    },
}

#: from this dimension on, ``layers_large`` layers per point, 15 ratios from 3 to 10, zero bias only
LARGE_FROM = 10

#: expected seconds of one task below :data:`LARGE_FROM`: a task is a run of consecutive layers of one
#: configuration, as many as fit in this time by :func:`_layer_seconds` (a whole configuration at n = 3);
#: from :data:`LARGE_FROM` on, where one layer can take minutes, every task is one layer
_TASK_SECONDS = 2.0


def _layer_seconds(n: int, m: int, with_bias: bool, n_ball: int) -> float:
    """Expected seconds of all questions of one layer (two cores, load about 2).

    Fitted to the shipped full run (:func:`threshold_full_run`): the zero-bias depth search takes
    about 1.5 ms at n = 3 near m/n = 6 and grows about 2.5 times per dimension (0.15 s at n = 8,
    6 s at n = 12), less away from the threshold; the biased question on R^n costs about as much,
    each ball question about three times as much.
    """
    per_question = 0.0015 * 2.5 ** (n - 3) * math.exp(-abs(m / n - 6) / 2)
    return per_question * (1 + with_bias + 3 * n_ball)


def _batches(n: int, layers: int, seconds_per_layer: float) -> list[tuple[int, int]]:
    """The layers ``0 .. layers - 1`` of a configuration in dimension ``n`` cut into tasks ``(first, count)``.

    One layer per task from :data:`LARGE_FROM` on, else runs of about :data:`_TASK_SECONDS` each.
    """
    if n >= LARGE_FROM:
        per = 1
    else:
        per = int(min(layers, max(1, _TASK_SECONDS // seconds_per_layer if seconds_per_layer > 0 else layers)))
    return [(first, min(per, layers - first)) for first in range(0, layers, per)]


def wilson_interval(k: Any, n: Any, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    r"""Wilson score interval of a binomial proportion ``k / n`` (level 95 % for ``z = 1.96``).

    Parameters
    ----------
    k, n : array_like of int
        Successes and trials (``0 <= k <= n``); ``n = 0`` gives the interval ``[0, 1]``.
    z : float, default 1.96
        Normal quantile.

    Returns
    -------
    (low, high) : ndarrays

    Examples
    --------
    >>> lo, hi = wilson_interval(50, 100)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.404, 0.596)
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise InputError("k must lie between 0 and n.")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.maximum(n, 1), 0.5)
        den = 1 + z**2 / np.maximum(n, 1)
        centre = (p + z**2 / (2 * np.maximum(n, 1))) / den
        half = z * np.sqrt(p * (1 - p) / np.maximum(n, 1) + z**2 / (4 * np.maximum(n, 1) ** 2)) / den
    lo = np.where((n > 0) & (k > 0), np.clip(centre - half, 0, 1), 0.0)  # exactly 0 and 1 at the ends
    hi = np.where((n > 0) & (k < n), np.clip(centre + half, 0, 1), 1.0)
    return lo, hi


def _m_values(n: int, points: int, large: bool) -> list[int]:
    """The numbers of rows of dimension ``n``: ratios m/n from 2 to 10 (3 to 10 for large n)."""
    lo, hi, k = (3.0, 10.0, 15) if large else (2.0, 10.0, points)
    ms = np.unique(np.round(np.linspace(lo * n, hi * n, k)).astype(int))
    return [int(m) for m in ms]


def _decide(W: np.ndarray, alpha: np.ndarray, time_limit: float) -> tuple[int, int, float]:
    """Status code, nodes and seconds of the exact depth question for one layer on R^n."""
    m, n = W.shape
    if not np.any(alpha):
        res = halfspace_depth_at_least(W, n - 1, time_limit=time_limit)
    else:
        lifted = np.hstack([W, -alpha[:, None]])
        cap = np.zeros((1, n + 1))
        cap[0, n] = -1.0
        res = halfspace_depth_at_least(np.vstack([lifted, cap]), n - 1, kept=[m], time_limit=time_limit)
        if res.status == "shallow" and not res.direction[-1] > 0:  # pragma: no cover - the kept point forbids it
            return UNDETERMINED, res.nodes, res.seconds
    code = {"deep": INJECTIVE, "shallow": NOT_INJECTIVE}.get(res.status, UNDETERMINED)
    return code, res.nodes, res.seconds


def _columns(ball_variances: Sequence[float]) -> list[str]:
    return ["zero bias", "bias, R^n"] + [f"bias {v:g}, ball" for v in ball_variances]


def _ball_verdict(W: np.ndarray, alpha: np.ndarray, time_limit: float) -> tuple[int, float]:
    """Status code and seconds of ``rf.check`` on the unit ball (the exact engine)."""
    t0 = time.perf_counter()
    v = check(ReLULayer(W, alpha), Ball(W.shape[1]), method="exact", time_limit=time_limit)  # as rigorous, faster
    code = {"injective": INJECTIVE, "not injective": NOT_INJECTIVE}.get(str(v.status), UNDETERMINED)
    return code, time.perf_counter() - t0


def _threshold_task(spec: dict) -> dict:
    """The layers ``first .. first + count - 1`` of configuration ``(n, m)`` (runs in a worker).

    Each layer is drawn from the seed and its key ``(n, m, layer)``: the task's data is its spec, no
    array is shipped, and the verdicts do not depend on how the layers are cut into tasks.

    Columns: zero bias on R^n; the bias ``z`` on R^n (the same answer for every ``sigma * z``: on R^n a
    bias's scale is the domain's, ``ReLU(W sigma y - sigma z) = sigma ReLU(W y - z)``); and the bias
    ``sigma * z`` on the unit ball for each ball variance. A layer injective on R^n is injective on the
    ball (monotonicity), so only the others go to the exact engine on the ball.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    n, m, first, L = spec["n"], spec["m"], spec["first"], spec["count"]
    ball_vars = [float(v) for v in spec["ball_variances"]] if spec["with_ball"] else []
    C = 2 + len(spec["ball_variances"])
    status = np.full((C, L), NOT_RUN, np.int8)
    seconds = np.zeros((C, L), np.float32)
    nodes = np.zeros((C, L), np.int64)
    exp = EXP_ID["threshold"]
    for t in range(L):
        rng = np.random.default_rng(as_seed_sequence(spec["seed"], key=(exp, n, m, first + t, 0)))
        W = rng.standard_normal((m, n))
        z = rng.standard_normal(m)  # one bias direction per layer, scaled per variance (common random numbers)
        status[0, t], nodes[0, t], seconds[0, t] = _decide(W, np.zeros(m), spec["time_limit"])
        if not spec["with_bias"]:
            continue
        status[1, t], nodes[1, t], seconds[1, t] = _decide(W, z, spec["time_limit"])
        for j, v in enumerate(ball_vars):
            if status[1, t] == INJECTIVE:  # injective on R^n, hence on its subset the ball
                status[2 + j, t] = INJECTIVE
            else:
                status[2 + j, t], seconds[2 + j, t] = _ball_verdict(W, math.sqrt(v) * z, spec["time_limit"])
    return {
        "status": status,
        "seconds": seconds,
        "nodes": nodes,
        "_meta": {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0},
    }


@dataclass(frozen=True, eq=False)
class ThresholdResult(Result):
    r"""Result of :func:`threshold`: exact verdicts of random layers on :math:`\mathbb{R}^n`.

    Attributes
    ----------
    n, m : ndarray of int, shape (K,)
        Dimension and number of rows of each configuration.
    columns : ndarray of str, shape (C,)
        The questions asked of every layer: ``"zero bias"`` (on R^n, the literature's question),
        ``"bias, R^n"`` (a Gaussian bias on R^n: one answer for every variance, see
        :func:`threshold`) and ``"bias <variance>, ball"`` (the paper's Figure "isinj" setting:
        the bias with that variance on the unit ball).
    status : ndarray of int8, shape (K, C, L)
        Per configuration, column and layer: 1 injective (proof), 0 not injective (verified
        direction or pair), -1 undetermined (time limit), -2 not run (biased columns above
        ``bias_max_n``, or fewer layers at large ``n``).
    seconds : ndarray of float32, shape (K, C, L)
        Time of each decision (0 where the ball's answer came from R^n).
    nodes : ndarray of int, shape (K, C, L)
        Nodes of each branch and bound (0 for the ball's exact engine).
    params, info : dict
        Parameters and run details.
    """

    n: np.ndarray
    m: np.ndarray
    columns: np.ndarray
    status: np.ndarray
    seconds: np.ndarray
    nodes: np.ndarray
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    _kind = "threshold"
    _array_fields = ("n", "m", "columns", "status", "seconds", "nodes")

    @classmethod
    def combine(cls, *results: ThresholdResult) -> ThresholdResult:
        """One result holding the configurations of several runs (e.g. the shipped full run and a run of n = 14).

        The runs must come from the same seed and ask the same columns, and no configuration ``(n, m)`` may be
        in two of them; configurations are sorted by ``(n, m)``, and a run with fewer layers per
        configuration is padded with "not run". ``params`` are the first run's with the union of the
        dimensions, and every run's own in ``params["parts"]``; ``info["parts"]`` keeps every run's info.
        """
        if not results or not all(isinstance(r, cls) for r in results):
            raise InputError("combine takes one or more ThresholdResult; got "
                             f"{[type(r).__name__ for r in results]}.")  # fmt: skip
        first = results[0]
        for r in results[1:]:
            if r.columns.tolist() != first.columns.tolist():
                raise InputError(f"the runs ask different columns: {first.columns.tolist()} and {r.columns.tolist()}.")
            if r.params.get("seed") != first.params.get("seed"):
                raise InputError(f"the runs come from different seeds ({first.params.get('seed')} and "
                                 f"{r.params.get('seed')}): their layers are not the experiment's.")  # fmt: skip
        keys = [(int(n), int(m)) for r in results for n, m in zip(r.n, r.m)]
        if len(set(keys)) != len(keys):
            twice = sorted({k for k in keys if keys.count(k) > 1})
            raise InputError(f"configurations (n, m) in more than one run: {twice[:5]}; combine disjoint runs.")
        L = max(r.status.shape[2] for r in results)

        def pad(a: np.ndarray, fill: Any) -> np.ndarray:
            out = np.full(a.shape[:2] + (L,), fill, a.dtype)
            out[:, :, : a.shape[2]] = a
            return out

        order = np.lexsort((np.array([k[1] for k in keys]), np.array([k[0] for k in keys])))
        cat = {name: np.concatenate([pad(getattr(r, name), fill) for r in results])[order]
               for name, fill in (("status", NOT_RUN), ("seconds", 0.0), ("nodes", 0))}  # fmt: skip
        params = dict(first.params, n_values=sorted({int(n) for r in results for n in r.n}),
                      parts=[dict(r.params) for r in results])  # fmt: skip
        info = {"parts": [dict(r.info) for r in results],
                "wall_seconds": float(sum(r.info.get("wall_seconds", 0.0) for r in results))}  # fmt: skip
        return cls(n=np.concatenate([r.n for r in results])[order], m=np.concatenate([r.m for r in results])[order],
                   columns=first.columns.copy(), params=params, info=info, **cat)  # fmt: skip

    @property
    def ratio(self) -> np.ndarray:
        """The ratio m / n of each configuration."""
        return self.m / self.n

    def layer(self, n: int, m: int, t: int) -> tuple[np.ndarray, np.ndarray]:
        """The weights ``W`` (shape ``(m, n)``) and the bias direction ``z`` of layer ``t`` of configuration ``(n, m)``.

        Drawn again from the run's seed, so every verdict can be checked independently (e.g. with
        :func:`relu_frames_nb.check`); the zero-bias question is about ``ReLU(W x)``, the biased ones
        about ``ReLU(W x - sigma z)``.
        """
        n, m, t = as_count(n, "n"), as_count(m, "m"), as_count(t, "t", minimum=0)
        hit = np.flatnonzero((self.n == n) & (self.m == m))
        if hit.size == 0:
            raise InputError(f"(n, m) must be a configuration of this result; got ({n}, {m}).")
        if not t < int((self.status[hit[0], 0] != NOT_RUN).sum()):
            raise InputError(f"t must be a layer of configuration ({n}, {m}); got {t}.")
        rng = np.random.default_rng(as_seed_sequence(self.params["seed"], key=(EXP_ID["threshold"], n, m, t, 0)))
        W = rng.standard_normal((m, n))
        return W, rng.standard_normal(m)

    def _column(self, column: str) -> int:
        hits = np.flatnonzero(self.columns == column)
        if hits.size == 0:
            raise InputError(f"column must be one of {self.columns.tolist()}; got {column!r}.")
        return int(hits[0])

    def counts(self, column: str = "zero bias") -> dict[str, np.ndarray]:
        """Per configuration: layers ``injective``, ``not_injective``, ``undetermined`` and ``run``."""
        s = self.status[:, self._column(column), :]
        inj = (s == INJECTIVE).sum(axis=1)
        no = (s == NOT_INJECTIVE).sum(axis=1)
        und = (s == UNDETERMINED).sum(axis=1)
        return {"injective": inj, "not_injective": no, "undetermined": und, "run": inj + no + und}

    def probability(self, column: str = "zero bias") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Estimated probability of injectivity per configuration and a 95 % interval that covers the undetermined.

        Returns
        -------
        (p, low, high) : ndarrays, shape (K,)
            ``p``: injective layers among the decided ones (NaN when none was run); ``low``: the Wilson
            lower bound with every undetermined layer counted as not injective; ``high``: the Wilson
            upper bound with every undetermined layer counted as injective. Without undetermined
            layers this is the Wilson interval.
        """
        c = self.counts(column)
        decided = c["injective"] + c["not_injective"]
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(decided > 0, c["injective"] / np.maximum(decided, 1), np.nan)
        low, _ = wilson_interval(c["injective"], c["run"])
        _, high = wilson_interval(c["injective"] + c["undetermined"], c["run"])
        return p, low, high

    def crossing(self, n: int, column: str = "zero bias") -> dict:
        r"""The ratio m/n where the probability of injectivity is 1/2, for dimension ``n``.

        A logistic regression of the decided layers' verdicts on m/n (maximum likelihood by Newton's
        method), with a standard error by the delta method; and, as a check that needs no model, the
        linear interpolation of the observed proportions at their first crossing of 1/2.

        Returns
        -------
        dict
            ``q50`` and ``se`` (logistic), ``slope`` (per unit of m/n), ``interpolated``,
            ``undetermined`` (layers of this dimension not decided), ``layers`` (decided).
        """
        n = as_count(n, "n", minimum=1)
        sel = self.n == n
        if not sel.any():
            raise InputError(f"n must be a dimension of this result ({sorted(set(self.n.tolist()))}); got {n}.")
        c = self.counts(column)
        q = self.ratio[sel]
        k = c["injective"][sel].astype(float)
        tot = (c["injective"] + c["not_injective"])[sel].astype(float)
        keep = tot > 0
        q, k, tot = q[keep], k[keep], tot[keep]
        out = {
            "n": n,
            "column": str(column),
            "undetermined": int(c["undetermined"][sel].sum()),
            "layers": int(tot.sum()),
            "interpolated": _interpolated_crossing(q, k / np.maximum(tot, 1)),
        }
        out.update(_logistic_crossing(q, k, tot))
        return out

    def trend(self, column: str = "zero bias", *, n_min: int = 4, order: int = 1) -> dict:
        r"""Fit ``q50(n) = q_inf + c / n`` (``order=1``) or ``q_inf + c / n + c2 / n^2`` (``order=2``) to the crossings.

        Weighted least squares over the dimensions ``n >= n_min`` with a finite crossing (weights
        ``1 / se^2`` of :meth:`crossing`).

        Returns
        -------
        dict
            ``q_inf`` and its standard error ``se`` (from the crossings' errors alone), ``c`` and
            ``c2`` (NaN for ``order=1``), ``chi2`` and ``dof`` (the fit's chi-square and degrees of freedom)
            and ``se_scaled``: ``se`` times ``sqrt(chi2 / dof)`` when that exceeds 1 (a fit whose
            residuals are larger than the crossings' errors allow is given an error that covers
            them; with ``dof = 0`` it is ``se``), and the crossings ``per_n`` used. With fewer
            dimensions than ``order + 1``, every number is NaN.
        """
        if order not in (1, 2):
            raise InputError(f"order must be 1 (q_inf + c/n) or 2 (q_inf + c/n + c2/n^2); got {order!r}.")
        per = [self.crossing(int(n), column) for n in sorted(set(self.n.tolist())) if n >= n_min]
        per = [c for c in per if np.isfinite(c["q50"]) and c["se"] > 0]
        out: dict[str, Any] = {"per_n": per, "n_min": n_min, "order": order}
        if len(per) < order + 1:
            return dict(out, q_inf=math.nan, se=math.nan, c=math.nan, c2=math.nan, chi2=math.nan, dof=0,
                        se_scaled=math.nan)  # fmt: skip
        x = np.array([1.0 / c["n"] for c in per])
        y = np.array([c["q50"] for c in per])
        w = np.array([1.0 / c["se"] ** 2 for c in per])
        A = np.vander(x, order + 1, increasing=True)  # columns 1, 1/n (, 1/n^2)
        cov = np.linalg.inv(A.T @ (A * w[:, None]))
        beta = cov @ (A.T @ (w * y))
        chi2 = float(np.sum(w * (y - A @ beta) ** 2))
        dof = len(per) - order - 1
        se = float(math.sqrt(cov[0, 0]))
        scaled = se * math.sqrt(max(1.0, chi2 / dof)) if dof > 0 else se
        return dict(out, q_inf=float(beta[0]), se=se, c=float(beta[1]), c2=float(beta[2]) if order == 2 else math.nan,
                    chi2=chi2, dof=dof, se_scaled=scaled)  # fmt: skip

    def growth(self, column: str = "zero bias") -> list[dict]:
        """Per dimension: layers run, decided share, median and largest seconds of one decision."""
        j = self._column(column)
        rows = []
        for n in sorted(set(self.n.tolist())):
            s = self.status[self.n == n, j, :]
            t = self.seconds[self.n == n, j, :][s != NOT_RUN]
            run = int((s != NOT_RUN).sum())
            if run == 0:
                continue
            rows.append(
                {
                    "n": int(n),
                    "layers": run,
                    "decided": float(((s == INJECTIVE) | (s == NOT_INJECTIVE)).sum() / run),
                    "median_seconds": float(np.median(t)),
                    "max_seconds": float(t.max()),
                }
            )
        return rows

    def summary(self) -> dict:
        """Counts for reports: layers run, decided and undetermined per column, the crossings at zero bias."""
        out: dict[str, Any] = {"configurations": int(self.n.size)}
        for col in self.columns.tolist():
            c = self.counts(col)
            out[col] = {
                "layers": int(c["run"].sum()),
                "injective": int(c["injective"].sum()),
                "not_injective": int(c["not_injective"].sum()),
                "undetermined": int(c["undetermined"].sum()),
            }
        if "zero bias" in self.columns.tolist():
            out["q50"] = {int(n): round(self.crossing(int(n))["q50"], 3) for n in sorted(set(self.n.tolist()))}
        return out


def _interpolated_crossing(q: np.ndarray, p: np.ndarray) -> float:
    """Where the piecewise linear curve of ``p`` over ``q`` first reaches 1/2 (NaN if it never does)."""
    above = np.flatnonzero(p >= 0.5)
    if above.size == 0:
        return math.nan
    i = int(above[0])
    if i == 0:
        return float(q[0]) if p[0] == 0.5 else math.nan
    q0, q1, p0, p1 = q[i - 1], q[i], p[i - 1], p[i]
    return float(q0 + (0.5 - p0) * (q1 - q0) / (p1 - p0))


def _logistic_crossing(q: np.ndarray, k: np.ndarray, tot: np.ndarray) -> dict:
    """Binomial logistic regression ``logit p = b0 + b1 q`` by Newton's method; ``q50 = -b0 / b1``."""
    nan = {"q50": math.nan, "se": math.nan, "slope": math.nan}
    if q.size < 2 or np.all(k == 0) or np.all(k == tot):
        return nan
    X = np.c_[np.ones_like(q), q - q.mean()]  # centred: a better conditioned Newton step
    beta = np.zeros(2)
    ridge = LOGISTIC_RIDGE * np.eye(2)  # keeps the step finite when the classes are (almost) separated
    for _ in range(100):
        eta = np.clip(X @ beta, -30, 30)
        p = 1 / (1 + np.exp(-eta))
        H = X.T @ (X * (tot * p * (1 - p))[:, None]) + ridge
        g = X.T @ (k - tot * p)
        step = np.linalg.solve(H, g)
        beta = beta + step
        if np.max(np.abs(step)) < LOGISTIC_STEP_TOL:
            break
    eta = np.clip(X @ beta, -30, 30)
    p = 1 / (1 + np.exp(-eta))
    H = X.T @ (X * (tot * p * (1 - p))[:, None]) + ridge
    if not beta[1] > 0:
        return nan
    cov = np.linalg.inv(H)
    q50 = q.mean() - beta[0] / beta[1]
    grad = np.array([-1 / beta[1], beta[0] / beta[1] ** 2])
    se = float(math.sqrt(max(grad @ cov @ grad, 0.0)))
    return {"q50": float(q50), "se": se, "slope": float(beta[1])}


def threshold(
    *,
    size: str = "fast",
    n_values: Iterable[int] | None = None,
    points: int | None = None,
    layers: int | None = None,
    layers_large: int | None = None,
    ball_variances: Sequence[float] = (0.1, 1.0),
    bias_max_n: int = 8,
    ball_max_n: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    executor: Executor | None = None,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: Any = None,
    cached_only: bool = False,
) -> ThresholdResult:
    r"""The probability that a Gaussian ReLU layer is injective on :math:`\mathbb{R}^n`, against m/n, exactly.

    For every dimension ``n`` and number of rows ``m`` (ratios m/n from 2 to 10; from 3 to 10 with 15
    points for ``n >= 10``), ``layers`` weight matrices ``W`` with i.i.d. standard normal entries and one
    standard normal vector ``z`` each. Every layer is asked (the :attr:`ThresholdResult.columns`):

    * ``"zero bias"``: is ReLU(Wx) injective on R^n? -- the question of the literature;
    * ``"bias, R^n"``: is ReLU(Wx - z) injective on R^n? On R^n the scale of a bias is the scale of the
      domain (:math:`\mathrm{ReLU}(W\sigma y - \sigma z) = \sigma\,\mathrm{ReLU}(Wy - z)`), so this is the
      answer for the bias :math:`\sigma z` at every :math:`\sigma > 0`;
    * ``"bias <v>, ball"`` for each ``v`` in ``ball_variances``: is ReLU(Wx - sqrt(v) z) injective on
      the unit ball? -- the setting of the paper's Figure "isinj" (up to ``ball_max_n``).

    The R^n questions are decided by the half-space depth branch and bound (see the module
    docstring): a proof, a verified direction with fewer than ``n`` active rows, or "undetermined"
    when ``time_limit`` runs out -- counted and shown as such. A layer injective on R^n is injective on
    the ball; the others go to :func:`relu_frames_nb.check` on the ball (a certificate or a verified
    pair, or "undetermined").

    Parameters
    ----------
    size : {"fast", "full"}, default "fast"
        ``"fast"``: n = 3, 4, 5, 6, 8, 17 ratios, 100 layers per point, the ball columns up to
        n = 4, 60 s per question (minutes on two cores). ``"full"``: also n = 10, 12 (40 layers per
        point, zero bias only), 33 ratios and 200 layers per point for n <= 8, 600 s per question
        (45 minutes on two cores; its result ships with the kit: :func:`threshold_full_run`). The
        options below override single settings.
    n_values : iterable of int, optional
        Dimensions (each >= 2).
    points : int, optional
        Ratios per dimension below ``n = 10`` (distinct integers m; small ``n`` may have fewer).
    layers, layers_large : int, optional
        Layers per configuration for ``n < 10`` and ``n >= 10``.
    ball_variances : sequence of float, default (0.1, 1)
        Bias variances of the ball columns (the paper's 0.1 and 1).
    bias_max_n : int, default 8
        Largest dimension with the column ``"bias, R^n"``.
    ball_max_n : int, optional
        Largest dimension with the ball columns (4; the exact engine on the ball costs about ten
        times the depth search, a minute per configuration of 200 layers at n = 6).
    time_limit : float, optional
        Seconds per layer and question.
    seed : int, default 0
        Root seed; the layers of configuration ``(n, m)`` are keyed by ``(n, m, layer)``.
    executor, max_workers, cache_dir, progress
        As for :func:`isinj` (a Dask ``Client`` or its ``get_executor()`` runs the tasks in parallel).
        A task is a run of consecutive layers of one configuration, about two seconds of work; from
        n = 10 on, one layer. ``cache_dir`` keeps every finished task, so an interrupted run resumes
        with all the layers decided before it stopped.
    cached_only : bool, default False
        Run nothing: assemble the result from the layers already in ``cache_dir`` (of a run still
        going, or one that was stopped); every other layer is "not run" and ``info["not_run"]`` counts
        the tasks missing. Needs ``cache_dir``.

    Returns
    -------
    ThresholdResult

    Notes
    -----
    The anchors :data:`THRESHOLD_ANCHORS` are asymptotic (``n -> infinity``). At the sizes here the
    crossing of 1/2 lies below them and rises with ``n`` (about 4.5 at ``n = 4``, 5.6 at ``n = 8``);
    a fit in ``1/n`` is an extrapolation from a handful of small dimensions, no more.

    Examples
    --------
    >>> from relu_frames_nb.experiments import threshold
    >>> res = threshold(n_values=[3], points=5, layers=20, bias_max_n=0, ball_max_n=0, max_workers=1)
    >>> res.m.tolist(), int(res.counts()["undetermined"].sum())
    ([6, 12, 18, 24, 30], 0)
    """
    size = check_size(size)
    preset = _THRESHOLD_SIZES[size]
    n_vals = check_ints(preset["n_values"] if n_values is None else n_values, "n_values", 2)
    pts = as_count(preset["points"] if points is None else points, "points", minimum=2)
    L = as_count(preset["layers"] if layers is None else layers, "layers")
    L_large = as_count(preset["layers_large"] if layers_large is None else layers_large, "layers_large")
    var = tuple(as_positive(v, "ball_variances") for v in ball_variances)
    params = {
        "size": size,
        "n_values": sorted(set(n_vals)),
        "points": pts,
        "layers": L,
        "layers_large": L_large,
        "large_from": LARGE_FROM,
        "ball_variances": list(var),
        "bias_max_n": as_count(bias_max_n, "bias_max_n", minimum=0),
        "ball_max_n": as_count(preset["ball_max_n"] if ball_max_n is None else ball_max_n, "ball_max_n", minimum=0),
        "time_limit": as_positive(preset["time_limit"] if time_limit is None else time_limit, "time_limit"),
        "seed": as_seed(seed),
        "weights": "i.i.d. standard normal entries",
        "bias": "sigma * z, z standard normal, one z per layer; the ball is the unit ball",
    }
    executor = check_executor(executor)
    if cached_only and cache_dir is None:
        raise InputError("cached_only=True assembles the result from cache_dir; give the cache_dir of the run.")
    # the dimensions are not part of a task's key: a run with ``--n 14`` and a later one with ``--n 14,16`` (or
    # the default sizes) share every layer they both ask, so changing the dimensions resumes, not restarts
    shared = {key: value for key, value in params.items() if key != "n_values"}
    cache = Cache(cache_dir, "threshold", shared, required=("status", "seconds", "nodes"))
    configs, tasks = [], []
    for n in params["n_values"]:
        large = n >= LARGE_FROM
        for m in _m_values(n, pts, large):
            spec = dict(shared, n=n, m=m, layers=L_large if large else L, with_bias=n <= params["bias_max_n"],
                        with_ball=n <= min(params["bias_max_n"], params["ball_max_n"]))  # fmt: skip
            configs.append(spec)
            # a task is a run of layers (one layer at large n), cached as it finishes: an interrupted run resumes
            each = _layer_seconds(n, m, spec["with_bias"], len(var) if spec["with_ball"] else 0)
            for first, count in _batches(n, spec["layers"], each):
                name = f"n{n:02d}_m{m:03d}_t{first:03d}-{first + count - 1:03d}"
                tasks.append((name, dict(spec, first=first, count=count), count * each))
    results, info = run_experiment(
        _threshold_task, tasks, executor=executor, max_workers=max_workers, cache=cache, progress=progress,
        desc="threshold", cached_only=bool(cached_only),
    )
    info["configurations"] = len(configs)
    Lmax = max(spec["layers"] for spec in configs)
    K, V = len(configs), 2 + len(var)
    index = {(spec["n"], spec["m"]): i for i, spec in enumerate(configs)}
    status = np.full((K, V, Lmax), NOT_RUN, np.int8)
    seconds = np.zeros((K, V, Lmax), np.float32)
    nodes = np.zeros((K, V, Lmax), np.int64)
    for name, spec, _ in tasks:
        if name not in results:  # cached_only: a task not run yet stays "not run"
            continue
        r, i, part = results[name], index[spec["n"], spec["m"]], slice(spec["first"], spec["first"] + spec["count"])
        status[i, :, part], seconds[i, :, part], nodes[i, :, part] = r["status"], r["seconds"], r["nodes"]
    return ThresholdResult(
        n=np.array([spec["n"] for spec in configs], np.int64),
        m=np.array([spec["m"] for spec in configs], np.int64),
        columns=np.array(_columns(var)),
        status=status,
        seconds=seconds,
        nodes=nodes,
        params=params,
        info=info,
    )


#: the file of :func:`threshold_full_run`, inside the package
FULL_RUN_FILE = "threshold_full.npz"
#: the file of :func:`threshold_n14_run`, inside the package
N14_RUN_FILE = "threshold_n14.npz"


def threshold_full_run() -> ThresholdResult:
    r"""The full-size run of :func:`threshold`, as shipped with the kit.

    ``python -m relu_frames_nb reproduce threshold --full`` (seed 0): n = 3, 4, 5, 6, 8 with 33 ratios
    and 200 layers per point (zero bias, a Gaussian bias on :math:`\mathbb{R}^n`, and the ball columns
    up to n = 4), n = 10 and 12 with 15 ratios and 40 layers per point (zero bias); 32,600 zero-bias
    layers in all, every one decided. It took 44 minutes 41 seconds on two cores (the project's
    sandbox, ``info["wall_seconds"]``), so it ships as data; :meth:`ThresholdResult.layer` redraws any
    of its layers from the seed, and a test and notebook 08 decide some of them again.

    Returns
    -------
    ThresholdResult
    """
    with as_file(files(__package__).joinpath("data", FULL_RUN_FILE)) as path:
        return ThresholdResult.load(path)


def threshold_n14_run() -> ThresholdResult:
    r"""The run of :func:`threshold` at n = 14, as shipped with the kit: the full preset's settings for that dimension.

    ``python -m relu_frames_nb reproduce threshold --full --n 14`` (seed 0): 15 ratios m/n from 3 to 10 and 40
    zero-bias layers per point, each decided by the compiled depth search (or counted "undetermined" at the preset's
    time limit). ``info`` holds the run's times; ``info["not_run"]`` counts tasks not computed when it was saved
    (0 for a complete run). Its layers are disjoint from :func:`threshold_full_run`'s, and
    ``ThresholdResult.combine(threshold_full_run(), threshold_n14_run())`` is the figure with n = 3 to 14.

    Returns
    -------
    ThresholdResult
    """
    with as_file(files(__package__).joinpath("data", N14_RUN_FILE)) as path:
        return ThresholdResult.load(path)
