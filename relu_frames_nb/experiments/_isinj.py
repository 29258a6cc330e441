r"""Figure "isinj" (effect of redundancy): :func:`isinj` and :class:`IsinjResult`.

Private module of :mod:`relu_frames_nb.experiments`, which re-exports the public names.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from math import comb
from typing import Any, Iterable, Sequence

import numpy as np

from .._util import kernels as _kernels
from .._util.tolerances import NONRECTIFYING_ACTIVE_RTOL
from .._util.validation import as_choice, as_count, as_nonnegative, as_seed, as_seed_sequence
from ..domains import paper_correction
from ..errors import InputError, TooExpensiveError
from ..paper.bias.correlated import tukey_depth_origin
from ..zoo import gaussian
from ._runner import EXP_ID, Cache, Result, check_executor, check_ints, check_size, run_experiment

__all__ = ["IsinjResult", "isinj", "EXACT_NONE", "EXACT_TUKEY", "EXACT_REDUNDANCY", "EXACT_REFUSED", "EXACT_WITNESS"]

#: proven asymptotic bound: q >= 9.091 injective (Section "Redundancy"); witnesses are sought below it
REDUNDANCY_UPPER = 9.091


_ISINJ_SIZES = {
    "full": {"n_values": tuple(range(2, 31)), "m_max": 150, "n_samples": 500_000, "exact_max_subsets": 1_000_000},
    "fast": {"n_values": tuple(range(2, 9)), "m_max": 40, "n_samples": 20_000, "exact_max_subsets": 100_000},
}

#: exact_source codes of :class:`IsinjResult`: not attempted, Tukey depth, redundancy < 2, refused,
#: a certified witness of non-injectivity found by the LP search
EXACT_NONE, EXACT_TUKEY, EXACT_REDUNDANCY, EXACT_REFUSED, EXACT_WITNESS = 0, 1, 2, 3, 4


@dataclass(frozen=True, eq=False)
class IsinjResult(Result):
    r"""Result of :func:`isinj` (Figure "isinj"), one row per configuration ``(n, m)``.

    Attributes
    ----------
    n, m : ndarray of int, shape (K,)
        Dimension and number of frame vectors of each configuration.
    variances : ndarray, shape (V,)
        Bias variances :math:`\sigma^2` (the paper: 0, 0.1, 1).
    proportion : ndarray, shape (K, V)
        Proportion of bias entries with :math:`\alpha_i \le \alpha^{(N)}_i - \rho^* w_i`
        (1 means the sampled test calls the layer injective).
    samples_used : ndarray of int, shape (K,)
        Samples processed before the verdict was fixed (``n_samples`` unless every entry
        had failed earlier).
    exact_injective : ndarray of int8, shape (K,)
        Exact zero-bias verdict on :math:`\mathbb{R}^n`: 1 injective, 0 not, -1 not computed.
    tukey_depth : ndarray of int, shape (K,)
        Tukey depth of the origin among the frame vectors (-1 when not computed).
    exact_source : ndarray of int8, shape (K,)
        0 not attempted (``C(m, n - 1)`` above the limit), 1 Tukey depth (``depth >= n``),
        2 redundancy below 2 (never injective), 3 refused (the frame is numerically not full
        spark and the slower exact path for such frames exceeded its budget), 4 a witness: a
        point where fewer than ``n`` elements are active for zero bias, found by an LP search
        (a proof of non-injectivity; where none is found nothing is claimed).
    estimates : ndarray, shape (sum m,)
        :math:`\alpha^{(N)}` of every frame, concatenated (``offsets``); ``+inf`` for
        elements in no most correlated basis, NaN for entries that were decided early (their
        estimate fell below every bias under test; the exact value was not needed).
    offsets : ndarray of int, shape (K + 1,)
        Slices of ``estimates``.
    params : dict
        Parameters of the run (JSON).
    info : dict
        Run details: kernel, wall and CPU seconds, tasks computed and cached, ...
    """

    n: np.ndarray
    m: np.ndarray
    variances: np.ndarray
    proportion: np.ndarray
    samples_used: np.ndarray
    exact_injective: np.ndarray
    tukey_depth: np.ndarray
    exact_source: np.ndarray
    estimates: np.ndarray
    offsets: np.ndarray
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    _kind = "isinj"
    _array_fields = (
        "n",
        "m",
        "variances",
        "proportion",
        "samples_used",
        "exact_injective",
        "tukey_depth",
        "exact_source",
        "estimates",
        "offsets",
    )

    @property
    def injective(self) -> np.ndarray:
        """Sampled verdict per configuration and variance, shape ``(K, V)``: every entry passes."""
        return self.proportion >= 1.0

    @property
    def zero_variance(self) -> int:
        """Column of the zero-bias setting (variance 0), or -1 if absent."""
        hits = np.flatnonzero(self.variances == 0)
        return int(hits[0]) if hits.size else -1

    @property
    def overestimated(self) -> np.ndarray:
        """Configurations where sampling says injective (zero bias) but the exact test says not.

        This is the known limit of sampling: in higher dimension random samples miss the
        worst directions, so the estimated bias is too large.
        """
        j = self.zero_variance
        if j < 0:
            return np.zeros(self.n.shape, bool)
        return self.injective[:, j] & (self.exact_injective == 0)

    @property
    def conservative(self) -> np.ndarray:
        r"""Configurations where the exact test says injective (zero bias) but the sampled test not.

        The correction :math:`\rho^*` can make the sampled test fail where the layer is injective.
        """
        j = self.zero_variance
        if j < 0:
            return np.zeros(self.n.shape, bool)
        return ~self.injective[:, j] & (self.exact_injective == 1)

    def estimate(self, n: int, m: int) -> np.ndarray:
        r"""The estimate :math:`\alpha^{(N)}` of configuration ``(n, m)``.

        Parameters
        ----------
        n, m : int
            The configuration.

        Returns
        -------
        ndarray, shape (m,)
        """
        hit = np.flatnonzero((self.n == n) & (self.m == m))
        if hit.size == 0:
            raise InputError(f"(n, m) must be a configuration of this result; got ({n}, {m}).")
        k = int(hit[0])
        return np.array(self.estimates[self.offsets[k] : self.offsets[k + 1]])

    def grid(self, values: Any, *, fill: float = np.nan) -> np.ndarray:
        """Arrange per-configuration values on the ``(n, m)`` grid.

        Parameters
        ----------
        values : array_like, shape (K,)
            One value per configuration (e.g. ``proportion[:, 0]``).
        fill : float, default NaN
            Value for grid cells without a configuration.

        Returns
        -------
        ndarray, shape (max n + 1, max m + 1)
            ``out[n, m]`` is the value of configuration ``(n, m)``.
        """
        v = np.asarray(values, dtype=float)
        if v.shape != self.n.shape:
            raise InputError(f"values must have one entry per configuration, shape {self.n.shape}; got {v.shape}.")
        out = np.full((int(self.n.max()) + 1, int(self.m.max()) + 1), fill, dtype=float)
        out[self.n, self.m] = v
        return out

    def summary(self) -> dict:
        """Counts for reports: configurations, injective per variance, agreement with the exact test."""
        j = self.zero_variance
        known = self.exact_injective >= 0
        out = {
            "configurations": int(self.n.size),
            "injective": {f"{v:g}": int(self.injective[:, i].sum()) for i, v in enumerate(self.variances)},
            "exact_known": int(known.sum()),
            "exact_injective": int((self.exact_injective == 1).sum()),
            "exact_refused": int((self.exact_source == EXACT_REFUSED).sum()),
            "witnesses": int((self.exact_source == EXACT_WITNESS).sum()),
            "overestimated": int(self.overestimated.sum()),
            "conservative": int(self.conservative.sum()),
            "stopped_early": int((self.samples_used < self.params.get("n_samples", np.inf)).sum()),
        }
        if j >= 0 and known.any():
            out["agree"] = int((self.injective[known, j] == (self.exact_injective[known] == 1)).sum())
        return out


def _isinj_blocks(n: int, m_values: Sequence[int], budget: int) -> list[list[int]]:
    blocks, cur, tot = [], [], 0
    for m in m_values:
        if cur and tot + m > budget:
            blocks.append(cur)
            cur, tot = [], 0
        cur.append(m)
        tot += m
    if cur:
        blocks.append(cur)
    return blocks


def _nonrectifying_witness(Phi: np.ndarray, *, max_lps: int = 8, tol: float = NONRECTIFYING_ACTIVE_RTOL) -> np.ndarray | None:
    r"""A point ``u`` with fewer than ``n`` elements active for zero bias, or None (heuristic search).

    Looks for an open half-space containing at least ``m - n + 1`` of the normalized frame
    vectors, i.e. ``u`` with :math:`\langle u, \phi_i\rangle < 0` for all but at most ``n - 1``
    elements: the L1 relaxation ``min sum s_i`` s.t. :math:`\langle u, \hat\phi_i\rangle - s_i
    \le -1`, ``s >= 0`` (linprog, HiGHS), then dropping the most violated elements and solving
    again (the usual heuristic for a maximum feasible subsystem). A returned ``u`` is checked:
    fewer than ``n`` coefficients are ``>= -tol * max |coefficient|``, so the layer
    :math:`\mathrm{ReLU}(\Phi x)` is not injective (Thm "Injectivity II": its active sub-frame at
    ``u`` cannot span). ``None`` proves nothing.
    """
    from scipy.optimize import linprog

    m, n = Phi.shape
    U = Phi / np.linalg.norm(Phi, axis=1, keepdims=True)
    keep = np.arange(m)
    step = max(1, -(-(n - 1) // 6))  # about six rounds exhaust the n - 1 elements that may be dropped
    for _ in range(max_lps):
        k = keep.size
        res = linprog(
            np.concatenate([np.zeros(n), np.ones(k)]),
            A_ub=np.hstack([U[keep], -np.eye(k)]),
            b_ub=-np.ones(k),
            bounds=[(-1e4, 1e4)] * n + [(0, None)] * k,
            method="highs",
        )
        if res.x is None:
            return None
        u = res.x[:n]
        g = Phi @ u
        if np.count_nonzero(g >= -tol * np.abs(g).max()) <= n - 1:
            return u
        room = keep.size - (m - n + 1)  # elements that may still be dropped
        if room <= 0:
            return None
        keep = np.delete(keep, np.argsort(res.x[n:])[-min(step, room) :])
    return None


def _isinj_task(spec: dict) -> dict:
    """Compute one block of configurations of one dimension (runs in a worker)."""
    t0, c0 = time.perf_counter(), time.process_time()
    n, ms, N, seed = spec["n"], list(spec["ms"]), spec["n_samples"], spec["seed"]
    variances = np.asarray(spec["variances"], dtype=float)
    kernel = _kernels.resolve_kernel(spec["kernel"])
    exp = EXP_ID["isinj"]
    k, V = len(ms), variances.size
    rho = paper_correction(n, N, factor=spec["correction_factor"])
    frames, biases = [], []
    for m in ms:
        rng = np.random.default_rng(as_seed_sequence(seed, key=(exp, n, m, 0, 0)))
        frames.append(gaussian(m, n, seed=rng))
        biases.append(np.stack([np.sqrt(v) * rng.standard_normal(m) for v in variances]))
    # exact zero-bias verdicts on the same frames
    exact = np.full(k, -1, np.int8)
    depth = np.full(k, -1, np.int32)
    source = np.zeros(k, np.int8)
    for j, (m, F) in enumerate(zip(ms, frames)):
        if m < 2 * n:  # a redundancy of two is necessary for alpha = 0 on R^n (Section "Redundancy")
            exact[j], source[j] = 0, EXACT_REDUNDANCY
        elif comb(m, n - 1) <= spec["exact_max_subsets"]:
            try:
                res = tukey_depth_origin(F, max_subsets=spec["exact_max_subsets"])
            except TooExpensiveError:  # numerically not full spark and too large for the slow exact path
                source[j] = EXACT_REFUSED
                continue
            exact[j], depth[j], source[j] = int(bool(res.injective)), res.depth, EXACT_TUKEY
    t_exact = time.perf_counter() - t0
    # the sampled estimate, one sample stream per group of frames
    if spec["sample_sharing"] == "dimension":
        groups = [(list(range(k)), as_seed_sequence(seed, key=(exp, n, 0, 0, 1)))]
    else:
        groups = [([j], as_seed_sequence(seed, key=(exp, n, ms[j], 0, 1))) for j in range(k)]
    est_out = [None] * k
    dec_out = [None] * k
    used = np.zeros(k, np.int64)
    n_exact_rows = 0
    for members, ss in groups:
        n_exact_rows += _isinj_group(
            n,
            [frames[j] for j in members],
            [biases[j] for j in members],
            ss,
            N,
            rho,
            spec,
            kernel,
            members,
            est_out,
            dec_out,
            used,
        )
    proportion = np.zeros((k, V))
    for j in range(k):
        w = frames[j].norms if spec["correction_scaling"] == "norms" else np.ones(ms[j])
        e, dec = est_out[j], dec_out[j]
        with np.errstate(invalid="ignore"):
            ok = ~dec[None, :] & (biases[j] <= (e - rho * w)[None, :])
        proportion[j] = ok.mean(axis=1)
        est_out[j] = np.where(dec, np.nan, e)
    # where sampling calls the zero-bias layer injective and no exact verdict exists: look for a witness
    t_w = time.perf_counter()
    zero = np.flatnonzero(variances == 0)
    if spec["witness_max_lps"] > 0 and zero.size:
        for j, m in enumerate(ms):
            if exact[j] < 0 and proportion[j, zero[0]] >= 1.0 and m <= REDUNDANCY_UPPER * n:
                if _nonrectifying_witness(frames[j].vectors, max_lps=spec["witness_max_lps"]) is not None:
                    exact[j], source[j] = 0, EXACT_WITNESS
    return {
        "ms": np.asarray(ms, np.int64),
        "proportion": proportion,
        "samples_used": used,
        "exact": exact,
        "depth": depth,
        "source": source,
        "est": np.concatenate(est_out),
        "_meta": {
            "kernel": kernel,
            "seconds": time.perf_counter() - t0,
            "cpu_seconds": time.process_time() - c0,
            "exact_seconds": t_exact,
            "witness_seconds": time.perf_counter() - t_w,
            "exact_rows": int(n_exact_rows),
        },
    }


def _isinj_group(n, frames, biases, ss, N, rho, spec, kernel, members, est_out, dec_out, used) -> int:
    """The filtered sampling estimate for frames sharing one sample stream (in place)."""
    prune = bool(spec["early_decision"])
    chunk = int(spec["chunk_size"])
    margin = _kernels.float32_margin(n)
    state = []  # per frame: dict of arrays; compacted into stacks below
    for F, B in zip(frames, biases):
        w = F.norms
        corr = rho * (w if spec["correction_scaling"] == "norms" else np.ones(F.m))
        state.append(
            {
                "Phi": np.ascontiguousarray(F.vectors),
                "est": np.full(F.m, np.inf),
                "af": np.full(F.m, np.inf),
                "dec_thr": B.min(axis=0) + corr,
                "dcoef": margin * float(w.max()),
                "und": F.m,
            }
        )
    act = list(range(len(frames)))
    rng = np.random.default_rng(ss)
    done = 0
    n_exact = 0

    def stack(idx):
        Phi = np.vstack([state[i]["Phi"] for i in idx])
        seg = np.concatenate([[0], np.cumsum([state[i]["Phi"].shape[0] for i in idx])]).astype(np.int64)
        return (
            Phi,
            Phi.astype(np.float32),
            seg,
            np.concatenate([state[i]["af"] for i in idx]),
            np.concatenate([state[i]["est"] for i in idx]),
            np.concatenate([state[i]["dec_thr"] for i in idx]),
            np.array([state[i]["dcoef"] for i in idx]),
            np.array([state[i]["und"] for i in idx], dtype=np.int64),
        )

    def unstack(idx, seg, af, est, und):
        for c, i in enumerate(idx):
            a, b = seg[c], seg[c + 1]
            state[i]["af"], state[i]["est"], state[i]["und"] = af[a:b].copy(), est[a:b].copy(), int(und[c])

    Phi, Phi32, seg, af, est, dec_thr, dcoef, und = stack(act)
    while done < N and act:
        c = min(chunk, N - done)
        X = rng.standard_normal((c, n))
        G32 = X.astype(np.float32) @ Phi32.T
        xmax = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))
        active = np.ones(len(act), bool)
        n_exact += _kernels.update_block(
            G32, X, Phi, seg, n, af, est, dec_thr, dcoef, xmax, und, active, prune=prune, kernel=kernel
        )
        done += c
        for i in act:
            used[members[i]] = done
        if prune and np.any(und == 0):
            unstack(act, seg, af, est, und)
            act = [i for c_, i in enumerate(act) if und[c_] > 0]
            if act:
                Phi, Phi32, seg, af, est, dec_thr, dcoef, und = stack(act)
    if act:
        unstack(act, seg, af, est, und)
    for i, s in enumerate(state):
        est_out[members[i]] = s["est"]
        dec_out[members[i]] = np.isneginf(s["af"])
    return n_exact


def isinj(
    *,
    size: str = "fast",
    n_values: Iterable[int] | None = None,
    m_max: int | None = None,
    n_samples: int | None = None,
    variances: Sequence[float] = (0.0, 0.1, 1.0),
    correction_factor: float = 0.05,
    correction_scaling: str = "norms",
    sample_sharing: str = "dimension",
    early_decision: bool = True,
    exact_max_subsets: int | None = None,
    witness_max_lps: int = 8,
    kernel: str = "auto",
    chunk_size: int = 2048,
    block_budget: int = 3000,
    seed: int = 0,
    executor: Executor | None = None,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: Any = None,
) -> IsinjResult:
    r"""Figure "isinj": injectivity of random ReLU layers against redundancy.

    For every configuration ``n in n_values``, ``n <= m <= m_max``: a Gaussian frame
    (i.i.d. standard normal entries), ``N`` standard normal samples, the sampled estimate
    :math:`\alpha^{(N)}` (Thm "Sampling-based Bias Estimation"), the paper's correction
    :math:`\rho^*(n, N) = 0.05 (\log N / N)^{1/n}`, and for each variance :math:`\sigma^2` a bias
    with i.i.d. :math:`N(0, \sigma^2)` entries. Output: the proportion of entries with
    :math:`\alpha_i \le \alpha^{(N)}_i - \rho^* w_i`. Alongside, the exact zero-bias verdict on
    :math:`\mathbb{R}^n` for the same frames where ``C(m, n - 1) <= exact_max_subsets``
    (Tukey depth of the origin ``>= n``), "not injective" wherever ``m < 2n``, and, where the
    sampled test calls the zero-bias layer injective but no exact verdict is affordable, a
    search for a certified witness of non-injectivity (``witness_max_lps``): these cells show
    where sampling over-estimates the bias in higher dimension.

    Parameters
    ----------
    size : {"fast", "full"}, default "fast"
        ``"full"``: the paper's ``2 <= n <= 30``, ``m <= 150`` (3,915 frames), ``N = 5 * 10^5``,
        exact verdicts up to ``10^6`` subsets. ``"fast"``: ``2 <= n <= 8``, ``m <= 40``,
        ``N = 2 * 10^4``. The options below override single settings.
    n_values : iterable of int, optional
        Dimensions (each ``>= 2``).
    m_max : int, optional
        Largest number of frame vectors (``m`` runs from ``n`` to ``m_max``).
    n_samples : int, optional
        Samples ``N`` per configuration.
    variances : sequence of float, default (0, 0.1, 1)
        Bias variances; all three share the frame and the samples.
    correction_factor : float, default 0.05
        The factor of :math:`\rho^*`.
    correction_scaling : {"norms", "none"}, default "norms"
        ``"norms"`` subtracts :math:`\rho^*\|\phi_i\|` as the theorem's extension to frames
        that are not normalized requires (the Gaussian frame vectors have norm about
        :math:`\sqrt n`); ``"none"`` subtracts :math:`\rho^*` itself, as the text reads literally.
    sample_sharing : {"dimension", "configuration"}, default "dimension"
        ``"dimension"``: the frames of one dimension share one sample stream (common random
        numbers: each configuration still sees ``N`` i.i.d. samples, and drawing them, the most
        expensive scalar work, is done once per block instead of once per frame);
        ``"configuration"``: independent samples per frame.
    early_decision : bool, default True
        Stop following entries whose estimate fell below every bias under test (their verdict
        can no longer change), and stop a frame whose entries have all failed. Verdicts are the
        same as without; ``estimates`` are then NaN for the decided entries.
    exact_max_subsets : int, optional
        Largest ``C(m, n - 1)`` for the exact Tukey-depth test.
    witness_max_lps : int, default 8
        Where the sampled test calls a zero-bias layer injective, no exact verdict is
        affordable and ``m <= 9.091 n``, search for a point with fewer than ``n`` active
        elements (at most this many small LPs); a point found proves the layer is not
        injective and marks sampling's over-estimate. 0 switches the search off.
    kernel : {"auto", "numba", "numpy"}, default "auto"
        Implementation of the filtered kernel (identical results; numba is much faster).
    chunk_size : int, default 2048
        Samples per chunk (also the granularity of early stops).
    block_budget : int, default 3000
        Frames of one dimension are grouped into tasks with at most this many vectors in all.
    seed : int, default 0
        Root seed; every frame, bias and sample stream has its own key under it.
    executor : concurrent.futures.Executor, optional
        Where the tasks run (e.g. ``dask.distributed.Client(...).get_executor()``). Default: a
        local process pool with ``max_workers`` processes.
    max_workers : int, optional
        Size of the default pool (``os.cpu_count()``); 1 runs in this process.
    cache_dir : str or path-like, optional
        Directory for finished tasks (``.npz`` shards); a rerun computes only what is missing.
    progress : bool or callable, optional
        ``True`` shows a tqdm bar; a callable receives ``(done, total)`` after each task.

    Returns
    -------
    IsinjResult

    Notes
    -----
    At paper scale (seed 0) the sampled zero-bias test passes from about ``m = 3.4 n`` on at
    ``n = 30``, well below the conjectured ``6.698 n``; the exact verdicts agree with it where
    they are affordable (small ``n``, ``m < 2n``), while certified witnesses show hundreds of
    frames between roughly ``3.4 n`` and ``6.7 n`` (``n >= 7``) that pass the sampled test but are
    not injective: there, random samples miss the thin cones where fewer than ``n`` elements are
    active, and the correction :math:`\rho^*` does not make up for it (``overestimated``).

    Examples
    --------
    >>> from relu_frames_nb.experiments import isinj
    >>> res = isinj(n_values=[2, 3], m_max=8, n_samples=2000, max_workers=1)
    >>> res.n.size, res.proportion.shape
    (13, (13, 3))
    >>> bool(res.overestimated.any())
    False
    """
    size = check_size(size)
    preset = _ISINJ_SIZES[size]
    n_vals = check_ints(preset["n_values"] if n_values is None else n_values, "n_values", 2)
    m_max = as_count(preset["m_max"] if m_max is None else m_max, "m_max")
    if m_max < max(n_vals):
        raise InputError(f"m_max must be at least the largest dimension {max(n_vals)}; got {m_max}.")
    N = as_count(preset["n_samples"] if n_samples is None else n_samples, "n_samples", minimum=2)
    var = tuple(as_nonnegative(v, "variances") for v in variances)
    if not var:
        raise InputError("variances must not be empty.")
    params = {
        "size": size,
        "n_values": list(n_vals),
        "m_max": m_max,
        "n_samples": N,
        "variances": list(var),
        "correction_factor": as_nonnegative(correction_factor, "correction_factor"),
        "correction_scaling": as_choice(correction_scaling, "correction_scaling", ("norms", "none")),
        "sample_sharing": as_choice(sample_sharing, "sample_sharing", ("dimension", "configuration")),
        "early_decision": bool(early_decision),
        "exact_max_subsets": as_count(
            preset["exact_max_subsets"] if exact_max_subsets is None else exact_max_subsets, "exact_max_subsets", minimum=0
        ),
        "witness_max_lps": as_count(witness_max_lps, "witness_max_lps", minimum=0),
        "chunk_size": as_count(chunk_size, "chunk_size"),
        "block_budget": as_count(block_budget, "block_budget"),
        "seed": as_seed(seed),
        "samples": "standard normal",
        "frames": "i.i.d. standard normal entries",
    }
    kernel = as_choice(kernel, "kernel", ("auto", "numba", "numpy"))
    _kernels.resolve_kernel(kernel)  # an explicit "numba" must be available here; "auto" resolves on each worker
    executor = check_executor(executor)
    cache = Cache(cache_dir, "isinj", params, required=("ms", "proportion", "samples_used", "exact", "depth", "source", "est"))
    tasks = []
    for n in sorted(set(n_vals)):
        for ms in _isinj_blocks(n, range(n, m_max + 1), params["block_budget"]):
            spec = dict(params, n=n, ms=ms, kernel=kernel)
            cost = sum(m * (1 + n / 8) * (1.0 if m >= 4 * n else 0.3) for m in ms) * N
            cost += sum(comb(m, n - 1) * m * 50 for m in ms if m >= 2 * n and comb(m, n - 1) <= params["exact_max_subsets"])
            tasks.append((f"n{n:02d}_m{ms[0]:03d}-{ms[-1]:03d}", spec, cost))
    results, info = run_experiment(
        _isinj_task, tasks, executor=executor, max_workers=max_workers, cache=cache, progress=progress, desc="isinj"
    )
    ns, ms_all, prop, used, exact, depth, source, est = [], [], [], [], [], [], [], []
    exact_rows, kernels_used = 0, set()
    for name, spec, _ in tasks:
        r = results[name]
        ns.append(np.full(r["ms"].size, spec["n"]))
        ms_all.append(r["ms"])
        prop.append(r["proportion"])
        used.append(r["samples_used"])
        exact.append(r["exact"])
        depth.append(r["depth"])
        source.append(r["source"])
        est.append(r["est"])
        meta = r.get("_meta", {})
        exact_rows += int(meta.get("exact_rows", 0))
        kernels_used.add(meta.get("kernel", "?"))
    m_arr = np.concatenate(ms_all)
    info.update(kernel=",".join(sorted(kernels_used)), exact_rows=exact_rows)
    return IsinjResult(
        n=np.concatenate(ns),
        m=m_arr,
        variances=np.array(var),
        proportion=np.concatenate(prop),
        samples_used=np.concatenate(used),
        exact_injective=np.concatenate(exact),
        tukey_depth=np.concatenate(depth),
        exact_source=np.concatenate(source),
        estimates=np.concatenate(est),
        offsets=np.concatenate([[0], np.cumsum(m_arr)]).astype(np.int64),
        params=params,
        info=info,
    )
