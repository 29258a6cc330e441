r"""A certificate without counting: rows that are active at every point of ``K`` and span.

A row with :math:`\langle x, \phi_i\rangle - \alpha_i \ge 0` at every point ``x`` of ``K`` has the output
:math:`\langle x, \phi_i\rangle - \alpha_i` on ``K``: an affine function. When such rows span the domain's
directions, their outputs alone determine ``x`` (an injective affine map), so the layer is injective on
``K`` -- on any ``K``, convex or not, and for the bias as given (no tolerance is absorbed). It settles
cases that sit exactly on the counting certificates' threshold (the identity on :math:`[0, 1]^n`, the
standard basis on the positive ball at zero bias), where a certificate at the bias raised by ``eps``
fails.

The minimum over ``K`` is **proved**, never estimated within a tolerance:

* a box (a polyhedral domain described by its coordinate bounds alone): the minimum
  :math:`\sum_j \min(w_j lo_j, w_j hi_j)` at a corner, decided by a rigorous bound of the rounding of
  the float sum, and exactly (floats are dyadic rationals, :mod:`fractions`) where that bound cannot
  decide;
* a bounded domain defined by the norm (ball, shell, sphere, positive ball: ``Domain.radial``): ``K``
  lies in the ball of radius ``r`` (and in :math:`x \ge 0`), where the minimum is :math:`-r \|w\|`
  (:math:`-r \|\min(w, 0)\|`); the norm is bounded with its rounding included, and the comparison
  :math:`\alpha_i \le -r \|v\|` is decided exactly (:math:`\alpha_i \le 0` and
  :math:`\alpha_i^2 \ge r^2 \|v\|^2` in rationals) where the bounds cannot decide;
* any other domain: no proof (nothing is returned).

**Antiparallel rows** (:func:`covering_pairs`). Rows :math:`\phi_j = -c\, \phi_i` (``c > 0``, exactly) are
active where :math:`t = \langle x, \phi_i\rangle \ge \alpha_i` and where :math:`t \le -\alpha_j / c`; when
:math:`c \alpha_i + \alpha_j \le 0` (exactly) there is no gap between the two: at every point of every domain
one of them is active, and their outputs give ``t``. Such a pair stands for its direction like a row active
everywhere (a linear layer written as the ReLU rows ``[W; -W]``, or ``e_1, -e_1`` at zero bias).

Spanning is decided with a clear gap (:data:`SPAN_GAP`): the smallest singular value of the unit rows,
in the domain's own affine coordinates, above ``1e-6`` times the largest, far above the rounding of the
rows and of the SVD; a smaller one proves nothing here.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from .._util.tolerances import ANTIPARALLEL_COS_TOL, ANTIPARALLEL_PROJECTION_TOL, SPAN_GAP
from ..domains.base import certified_norm_bounds, robust_norms
from ._hyperplanes import HyperplaneInfo
from ._result import ExactResult, make_result
from ._state import Run

__all__ = ["always_active_rows", "covering_pairs", "clearly_spans", "always_active_proof", "always_active_result",
           "SPAN_GAP", "METHOD"]  # fmt: skip

#: the method's name in results and certificates
METHOD = "always active rows"
#: at most this many numbers are compared exactly (in rationals) for rows the float bounds leave open
MAX_EXACT_ENTRIES = 2_000_000
#: the antiparallel pairs are looked for among at most this many rows
MAX_PAIR_ROWS = 200_000

_U = 2.0**-53
_TINY = 2.0**-1074


# ---------------------------------------------------------------------------------
# rows active at every point
# ---------------------------------------------------------------------------------


def always_active_rows(W: np.ndarray, alpha: np.ndarray, K) -> tuple[np.ndarray, str] | None:
    r"""The rows proved active at every point of ``K`` (:math:`\min_K \langle x, w_i\rangle \ge \alpha_i`), and how.

    Returns ``(indices, how)`` (``indices`` possibly empty) when ``K`` offers a proof of its minimum (a box, a
    bounded domain defined by the norm), None otherwise. ``how`` names the argument in a few words.
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    if W.shape[0] == 0 or not (np.all(np.isfinite(W)) and np.all(np.isfinite(alpha))):
        return None
    box = _box_bounds(K)
    if box is not None:
        ok = _box_always_active(W, alpha, *box)
        return np.flatnonzero(ok), "the minimum over the box, at a corner, is ≥ the bias: compared exactly"
    rad = K.radial() if not K.finite else None
    if rad is not None and np.isfinite(rad.r) and rad.r > 0:
        ok = _ball_always_active(W, alpha, float(rad.r), bool(rad.nonnegative))
        low = "−r‖min(φ_i, 0)‖ over B_r ∩ R^n_+" if rad.nonnegative else "−r‖φ_i‖ over the ball B_r"
        return np.flatnonzero(ok), f"the minimum {low} ⊇ K is ≥ the bias: compared exactly"
    return None


def _box_bounds(K) -> tuple[np.ndarray, np.ndarray] | None:
    """``(lo, hi)`` when ``K`` is exactly the box ``lo <= x <= hi`` (asked of the domain, not of its class)."""
    if not K.polyhedral or K.finite:
        return None
    P = K.outer_polytope()
    if P is None or not P.is_box or P.n != K.n:
        return None
    lo, hi = np.asarray(P.lower, dtype=float), np.asarray(P.upper, dtype=float)
    if lo.shape != (K.n,) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        return None
    return lo, hi


def _box_always_active(W: np.ndarray, alpha: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    r"""Per row: :math:`\sum_j \min(w_j lo_j, w_j hi_j) \ge \alpha_i`, proved (rounding bound, else exact)."""
    m, n = W.shape
    with np.errstate(over="ignore", invalid="ignore"):
        T = np.minimum(W * lo, W * hi)  # each product within a factor (1 + u) of the exact one
        s = T.sum(axis=1)
        # |fl(sum) - sum of exact products| <= gamma_{n+1} * sum |T| (any summation order), plus underflow
        err = 2.0 * (n + 2) * _U * np.abs(T).sum(axis=1) + 4.0 * (n + 1) * _TINY
        diff = s - alpha  # rounded to within u |diff|: the factor 2 on err covers it
        yes = np.isfinite(diff) & np.isfinite(err) & (diff > 2.0 * err)
        no = np.isfinite(diff) & np.isfinite(err) & (diff < -2.0 * err)
    ok = yes.copy()
    open_rows = np.flatnonzero(~(yes | no))
    budget = MAX_EXACT_ENTRIES // max(n, 1)
    for i in open_rows[:budget]:  # rows on (or within rounding of) the threshold: the exact minimum
        w = W[i]
        total = Fraction(0)
        for j in np.flatnonzero(w):
            corner = lo[j] if w[j] > 0 else hi[j]
            total += Fraction(float(w[j])) * Fraction(float(corner))
        ok[i] = total >= Fraction(float(alpha[i]))
    return ok


def _ball_always_active(W: np.ndarray, alpha: np.ndarray, r: float, nonnegative: bool) -> np.ndarray:
    r"""Per row: :math:`\alpha_i \le -r \|v_i\|` with ``v = w`` (``min(w, 0)`` on ``x >= 0``), proved."""
    V = np.minimum(W, 0.0) if nonnegative else W
    n_lo, n_hi = certified_norm_bounds(V)  # intervals that contain the norms, rounding included
    with np.errstate(over="ignore", under="ignore"):
        up = np.where(n_hi == 0, 0.0, np.nextafter(r * n_hi, np.inf))  # >= r |v| (one rounding, one step up)
        down = np.nextafter(r * n_lo, -np.inf)  # <= r |v|
    yes = alpha <= -up
    no = alpha > -np.minimum(down, up)
    ok = yes.copy()
    open_rows = np.flatnonzero(~(yes | no))
    budget = MAX_EXACT_ENTRIES // max(W.shape[1], 1)
    r2 = Fraction(r) ** 2
    for i in open_rows[:budget]:
        a = Fraction(float(alpha[i]))
        if a > 0:
            continue
        sq = sum((Fraction(float(v)) ** 2 for v in V[i] if v != 0), Fraction(0))
        ok[i] = a * a >= r2 * sq  # alpha <= 0 and alpha^2 >= r^2 |v|^2, exactly
    return ok


# ---------------------------------------------------------------------------------
# antiparallel rows without a gap between their thresholds
# ---------------------------------------------------------------------------------


def covering_pairs(W: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    r"""Pairs ``(i, j)`` with :math:`w_j = -c\, w_i` (``c > 0``) and :math:`c \alpha_i + \alpha_j \le 0`, both exactly.

    At every point one of the two rows is active (see the module docstring). Candidates come from one
    random projection of the unit rows (antiparallel rows project to opposite values), then the Gram entry;
    each is confirmed in rationals. Shape ``(k, 2)``.
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    m, n = W.shape
    none = np.zeros((0, 2), dtype=np.intp)
    if m < 2 or m > MAX_PAIR_ROWS or not (np.all(np.isfinite(W)) and np.all(np.isfinite(alpha))):
        return none
    norms = robust_norms(W)
    live = np.flatnonzero(norms > 0)
    if live.size < 2:
        return none
    U = W[live] / norms[live, None]
    g = np.random.default_rng(0).standard_normal(n)
    g /= np.linalg.norm(g)
    t = U @ g
    order = np.argsort(t, kind="stable")
    ts = t[order]
    tol = ANTIPARALLEL_PROJECTION_TOL
    # for each row, the rows whose projection lies within tol of the opposite value
    lo = np.searchsorted(ts, -t - tol, side="left")
    hi = np.searchsorted(ts, -t + tol, side="right")
    found = []
    work = 20 * live.size  # a projection with many near-coincidences: no more candidates after that many
    for a in np.flatnonzero(hi > lo):
        cand = order[lo[a] : hi[a]]
        cand = cand[cand > a]
        work -= cand.size
        if work < 0:
            break
        for b in cand[U[cand] @ U[a] <= -1.0 + ANTIPARALLEL_COS_TOL]:
            i, j = int(live[a]), int(live[b])
            if _no_gap(W[i], W[j], alpha[i], alpha[j]):
                found.append((i, j))
    return np.array(found, dtype=np.intp).reshape(-1, 2) if found else none


def _no_gap(wi: np.ndarray, wj: np.ndarray, ai: float, aj: float) -> bool:
    """``wj = -c wi`` with ``c > 0`` and ``c ai + aj <= 0``, in rationals."""
    k = int(np.argmax(np.abs(wi)))
    if wi[k] == 0 or wj[k] == 0 or np.sign(wi[k]) == np.sign(wj[k]):
        return False
    c = -Fraction(float(wj[k])) / Fraction(float(wi[k]))
    for x, y in zip(wi, wj):
        if Fraction(float(y)) != -c * Fraction(float(x)):
            return False
    return c * Fraction(float(ai)) + Fraction(float(aj)) <= 0


# ---------------------------------------------------------------------------------
# spanning, and the stage
# ---------------------------------------------------------------------------------


def clearly_spans(R: np.ndarray, d: int) -> bool:
    """True when the rows ``R`` (shape ``(k, d)``) span ``R^d`` with a clear gap (:data:`SPAN_GAP`).

    Zero rows are left out, the others scaled to unit norm (which does not change the span).
    """
    R = np.asarray(R, dtype=float).reshape(-1, d)
    if d == 0:
        return True
    if not np.all(np.isfinite(R)):
        return False
    norms = robust_norms(R) if R.shape[0] else np.zeros(0)
    R = R[norms > 0] / norms[norms > 0, None]
    if R.shape[0] < d:
        return False
    s = np.linalg.svd(R, compute_uv=False)
    return bool(s[-1] > SPAN_GAP * s[0])


def always_active_proof(W: np.ndarray, alpha: np.ndarray, K, coords=None) -> tuple[str, int] | None:
    r"""A proof that ``ReLU(W x - alpha)`` is injective on ``K`` from rows active everywhere, or None.

    ``coords`` (:class:`~relu_frames_nb.domains.Coordinates`, the domain's affine coordinates; the identity
    when None) give the directions the rows must span. Returns ``(proof, lower)``: a one-line proof and a
    lower bound on the number of rows active at every point.
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    d = W.shape[1] if coords is None else coords.d

    def reduced(idx):
        rows = W[idx]
        return rows if coords is None else coords.rows(rows)

    def varying(idx):  # the rows that are not constant on the domain (the others tell nothing about x)
        idx = np.asarray(idx, dtype=np.intp)
        return idx[robust_norms(reduced(idx)) > 0] if idx.size else idx

    got = always_active_rows(W, alpha, K)
    S = varying(got[0]) if got is not None else np.zeros(0, dtype=np.intp)
    if got is not None and S.size and clearly_spans(reduced(S), d):
        rows = _rows_text(S)
        return (f"{rows} active at every point of the domain ({got[1]}) and span R^{d}: on the domain the output "
                "restricted to them is an injective affine map", int(S.size))  # fmt: skip
    pairs = covering_pairs(W, alpha)
    pairs = pairs[np.isin(pairs[:, 0], varying(pairs[:, 0]))]
    if pairs.shape[0] == 0:
        return None
    covered = set(S.tolist())
    keep = [p for p in pairs.tolist() if p[0] not in covered and p[1] not in covered]
    used: set[int] = set()
    disjoint = []
    for i, j in keep:
        if i not in used and j not in used:
            disjoint.append((i, j))
            used.update((i, j))
    directions = np.r_[S, np.array([p[0] for p in keep], dtype=np.intp)].astype(np.intp)
    if not clearly_spans(reduced(directions), d):
        return None
    parts = []
    if S.size:
        parts.append(f"{_rows_text(S)} active at every point of the domain ({got[1]})")
    parts.append(f"of each of {len(keep)} pair(s) of antiparallel rows one is active at every point (the two thresholds "
                 "leave no gap: c α_i + α_j ≤ 0 for φ_j = −c φ_i, exact)")  # fmt: skip
    proof = "; ".join(parts) + (f"; these directions span R^{d}, and on them the output determines ⟨x, φ⟩: an injective "
                                "map of x")  # fmt: skip
    return proof, int(S.size + len(disjoint))


def _rows_text(S: np.ndarray) -> str:
    return "1 row is" if S.size == 1 else f"{S.size} rows are"


def always_active_result(run: Run, t0: float) -> ExactResult | None:
    """The engine's stage "always active rows": an "injective" result, or None when it proves nothing.

    It works on the engine's input (``run.W``, ``run.alpha``, ``run.K``: exact power-of-two rescalings of the
    caller's problem, in the caller's coordinates), and asks the rows to span the domain's own affine
    coordinates (``run.coords``). Cheap: a few vector operations, rationals only for rows on a threshold.
    """
    got = always_active_proof(run.W, run.alpha, run.K, run.coords)
    if got is None:
        return None
    proof, lower = got
    info = HyperplaneInfo(0, True, "not needed: rows active at every point span")
    text = f"injective on {run.K.describe()} — proof: {proof}"
    return make_result(run.K, "injective", lower, run.upper, info, None, time.perf_counter() - t0, run.n_solves, METHOD,
                       run.notes, text)  # fmt: skip
