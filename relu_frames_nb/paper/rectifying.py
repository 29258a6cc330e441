r"""Alpha-rectifying tests, the maximal domain, and collision witnesses.

A frame is :math:`\alpha`-rectifying at ``x`` when the active sub-frame
:math:`\Phi_{I_x^\alpha}`, :math:`I_x^\alpha = \{i : \langle x, \phi_i\rangle \ge \alpha_i\}`,
spans :math:`\mathbb{R}^n` (Def. "alpha-rectifying"). By Thm "Maximal domain" this is the
same as ``x`` lying in the maximal domain :math:`K^*_\alpha`, the union over bases ``J``
of the intersections of the half-spaces :math:`\Omega_i^\alpha`, ``i in J``.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from .._util.budget import Budget
from .._util.format import count_text
from .._util.lp import null_space
from .._util.pairs import PAIR_RTOL, collides
from .._util.patterns import DEFAULT_MAX_MEMORY, certificate_size, group_patterns, spanning_mask, spans_rows
from .._util.progress import Progress, as_progress
from .._util.tolerances import MIN_TIMED_SECONDS, NORM_RTOL, RANK_RTOL, UNIT_SV_TOL, WELL_SEPARATED_PAIR
from .._util.validation import as_count, as_nonnegative, as_points, as_time_limit
from ..domains import Domain, as_domain
from ..errors import TooExpensiveError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer, as_layer
from ..pipeline.context import Context
from ..pipeline.tolerances import DIVISOR_FLOOR
from .stability import active_lower_bound

__all__ = [
    "is_rectifying",
    "in_maximal_domain",
    "RectifyingCheck",
    "check_rectifying",
    "Collision",
    "find_collision",
]


def _full_spark(layer: ReLULayer, full_spark: bool | None) -> bool:
    if full_spark is not None:
        return bool(full_spark)
    try:
        return layer.frame.is_full_spark(max_subsets=200_000)
    except TooExpensiveError:
        return False  # fall back to the exact rank test per active pattern


def is_rectifying(
    layer: ReLULayer,
    X: Any,
    *,
    tol: float = 0.0,
    full_spark: bool | None = None,
    return_bound: bool = False,
    max_memory: int = DEFAULT_MAX_MEMORY,
    progress: bool | None = None,
    budget: Budget | None = None,
):
    r"""Per point, whether the active sub-frame spans :math:`\mathbb{R}^n`.

    Parameters
    ----------
    layer : ReLULayer
        The layer :math:`\mathrm{ReLU}(\Phi x - \alpha)`.
    X : array_like, shape (N, n) or (n,)
        Points.
    tol : float, default 0
        An element counts as active when :math:`\langle x, \phi_i\rangle \ge \alpha_i - tol`.
    full_spark : bool, optional
        Whether the frame is full spark. Then the test is a count, :math:`|I_x| \ge n`
        (Corollary on spark). By default the spark is computed when that is cheap;
        otherwise the exact rank test decides (see Notes).
    return_bound : bool, default False
        Also return the lower frame bound of each active sub-frame (smallest eigenvalue
        of :math:`\Phi^T \mathrm{diag}(1_{I_x}) \Phi`; 0 where it does not span).
    max_memory : int, default 64 MiB
        Bound in bytes of the working arrays: the points are processed in chunks of about
        ``max_memory / (10 m)`` rows. The result does not depend on it.
    progress : None, bool or callable
        The package's progress protocol (:mod:`relu_frames_nb._util.progress`): a bar on stderr (by
        default only when the run is expected to take more than about 2 s and stderr is a
        terminal), or a callable receiving one dict per update.
    budget : Budget, optional
        The budget of a check (:class:`relu_frames_nb._util.budget.Budget`): its deadline is looked at
        between chunks of points, which are then sized to take a fraction of a second each, and
        ``BudgetExhausted`` is raised once it has passed (no partial answer).

    Returns
    -------
    ok : ndarray of bool, shape (N,) (or a bool for one point)
    bound : ndarray, shape (N,) (or a float), only with ``return_bound=True``

    Notes
    -----
    Without full spark, fewer than ``n`` active elements never span; most other points are
    proven rectifying by a Gram matrix of about ``1.25 n`` of their active (unit) rows
    (adding rows never lowers the smallest singular value, so this sub-frame spanning with a
    wide margin proves the whole active sub-frame passes the rank test); the rest get the
    exact rank test (an SVD, relative tolerance ``1e-10``), once per distinct active pattern.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    >>> rf.is_rectifying(L, [[0.0, -1.0], [0.0, 1.0]]).tolist()
    [True, False]
    """
    layer = as_layer(layer)
    tol = as_nonnegative(tol, "tol")
    max_memory = as_count(max_memory, "max_memory", minimum=1024)
    progress = as_progress(bool(progress) if isinstance(progress, np.bool_) else progress)
    pts, single = as_points(X, layer.n, "X")
    N = pts.shape[0]
    if N == 0:
        empty = np.zeros(0, dtype=bool)
        return (empty, np.zeros(0)) if return_bound else empty
    if budget is not None:
        budget.check()
    fs = not return_bound and _full_spark(layer, full_spark)
    ok = np.zeros(N, dtype=bool)
    bar = _bar(layer, N, fs, progress)
    deadline = math.inf if budget is None else budget.deadline
    try:
        for c0, ok_c in _rectifying_chunks(layer, pts, tol, fs, max_memory, bar, deadline=deadline):
            ok[c0 : c0 + ok_c.size] = ok_c
            if budget is not None:
                budget.check()  # raises once the deadline has passed
    finally:
        bar.close()
    if return_bound:

        bound = np.where(ok, np.maximum(active_lower_bound(layer, pts, tol=tol), 0.0), 0.0)
        return (bool(ok[0]), float(bound[0])) if single else (ok, bound)
    return bool(ok[0]) if single else ok


#: rough speed of the rectifying test, in multiplications per second (the progress bar's estimate)
_FLOPS = 2e9
#: the first chunk under a deadline assumes ten times slower (a busy machine, a Cholesky factorisation per
#: point: 56 points of a 2000 x 200 layer took 1.2 to 6 s at load 5); later chunks follow the time measured
_FIRST_FLOPS = 2e8
#: seconds one chunk of points should take when a deadline is watched (the deadline is looked at between chunks)
_CHUNK_SECONDS = 0.25


def _work_per_point(n: int, m: int, full_spark: bool) -> float:
    """Rough multiplications per point: the coefficients, plus for the rank test one Gram matrix of ~n rows."""
    return float(m * n + (0 if full_spark else certificate_size(n, m) * n * n))


def _bar(layer: ReLULayer, N: int, full_spark: bool, progress: Any) -> Progress:
    work = N * _work_per_point(layer.n, layer.m, full_spark)
    return Progress(progress, N, expected_seconds=work / _FLOPS, unit="points", desc="is_rectifying", leave=False)


def _rectifying_chunks(layer: ReLULayer, pts: np.ndarray, tol: float, full_spark: bool, max_memory: int, bar: Progress,
                       *, deadline: float = math.inf):  # fmt: skip
    """Yield ``(start, ok)`` for consecutive blocks of points, each within ``max_memory``.

    With a finite ``deadline`` (a ``time.perf_counter`` reading) no block but the first starts after
    it (a caller always gets some answer), and the blocks are sized to take about
    :data:`_CHUNK_SECONDS` each (first from a cautious cost model, then from the time the previous
    block took), so the caller sees the clock often; a 2000 x 200 layer took 10 s for one block of
    2000 points. The answers do not depend on the blocks.
    """
    N, m, n = pts.shape[0], layer.m, layer.n
    cap = int(max(1, min(N, max_memory // (10 * m + 8 * n))))
    timed = math.isfinite(deadline)
    chunk = cap
    if timed:
        chunk = int(max(1, min(cap, _CHUNK_SECONDS * _FIRST_FLOPS // max(_work_per_point(n, m, full_spark), 1.0))))
    phi = layer.frame.vectors
    c0 = 0
    while c0 < N:
        if timed and c0 > 0 and time.perf_counter() >= deadline:
            return
        t0 = time.perf_counter()
        mask = layer.active_set(pts[c0 : c0 + chunk], tol=tol)
        if full_spark:
            ok = mask.sum(axis=1) >= n
            bar.update(mask.shape[0])
        else:
            ok = spanning_mask(phi, mask, DEFAULT_RANK_TOL, max_memory=max_memory, progress=bar)
        yield c0, ok
        c0 += ok.size
        if timed:  # the next block from the pace of this one (at most twice as many points)
            took = max(time.perf_counter() - t0, MIN_TIMED_SECONDS)
            chunk = int(max(1, min(cap, 2 * chunk, chunk * _CHUNK_SECONDS / took)))


def _is_rectifying_per_pattern(layer: ReLULayer, X: Any, *, tol: float = 0.0) -> np.ndarray:
    """The reference implementation (one SVD per distinct active pattern, all points at once), for tests and benchmarks."""
    layer = as_layer(layer)
    pts, _ = as_points(X, layer.n, "X")
    mask = layer.active_set(pts, tol=tol)
    if pts.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    first, inverse = group_patterns(mask)
    phi = layer.frame.vectors
    ok_p = np.array([spans_rows(phi, np.flatnonzero(mask[r]), DEFAULT_RANK_TOL)[0] for r in first], dtype=bool)
    return ok_p[inverse]


def in_maximal_domain(layer: ReLULayer, X: Any, *, max_bases: int = 200_000) -> np.ndarray:
    r"""Membership in the maximal domain :math:`K^*_\alpha` by its definition (Thm "Maximal domain").

    Enumerates every basis :math:`\Phi_J` of the frame and tests whether ``x`` lies in
    :math:`\bigcap_{i \in J} \Omega_i^\alpha` for some ``J``. This is an independent route
    to the same answer as :func:`is_rectifying`, exact but exponential in ``n``.

    Raises
    ------
    TooExpensiveError
        If ``C(m, n) > max_bases``.
    """
    layer = as_layer(layer)
    pts, single = as_points(X, layer.n, "X")
    m, n = layer.m, layer.n
    if comb(m, n) > max_bases:
        raise TooExpensiveError(
            f"enumerating the bases checks C({m}, {n}) = {count_text(comb(m, n))} subsets; max_bases is "
            f"{count_text(max_bases)}. "
            "Use is_rectifying (the same test by rank) or raise max_bases."
        )
    subsets = np.array(list(itertools.combinations(range(m), n)), dtype=np.intp)
    unit = layer.frame.vectors / layer.frame.norms[:, None]
    sv = np.linalg.svd(unit[subsets], compute_uv=False)
    bases = subsets[sv[:, -1] > RANK_RTOL * sv[:, 0]]
    member = np.zeros((m, bases.shape[0]), dtype=np.float64)
    member[bases, np.arange(bases.shape[0])[:, None]] = 1.0
    active = layer.active_set(pts).astype(np.float64)
    inside = np.any(active @ member >= n - 0.5, axis=1)
    return bool(inside[0]) if single else inside


@dataclass(frozen=True)
class RectifyingCheck:
    """Result of :func:`check_rectifying` on a domain.

    ``kind`` is ``"exact"`` when the domain is a finite sample set (every point checked),
    else ``"sampled"`` (a failure is a proof of non-rectification; success is evidence only).
    ``complete`` is False when the time limit stopped the check after ``n_checked`` of the
    ``n_requested`` points (then an exact check is no longer exact: ``kind`` says
    ``"partial"``).
    """

    rectifying: bool
    n_checked: int
    n_failed: int
    kind: str
    failures: np.ndarray  # (k, n) some points where the test fails
    complete: bool = True
    n_requested: int = -1
    seconds: float = 0.0

    @property
    def fraction(self) -> float:
        """Fraction of checked points where the frame is rectifying."""
        return 1.0 - self.n_failed / self.n_checked if self.n_checked else float("nan")

    def describe(self) -> str:
        """One sentence for people, saying how far the check got."""
        where = f"{self.n_checked} of {self.n_requested} points" if not self.complete else f"all {self.n_checked} points"
        head = f"not rectifying at {self.n_failed} of" if self.n_failed else "rectifying at"
        text = f"{head} {where} checked"
        if not self.complete:
            text += f" (stopped by the time limit after {self.seconds:.1f} s: undetermined on the rest)"
        return text


def _probe_points(layer: ReLULayer, K: Domain, n_samples: int, seed: Any) -> np.ndarray:
    if K.finite:
        return np.array(K.points)
    X = K.sample(n_samples, seed=seed)
    if not K.bounded:
        # far-away points matter on an unbounded domain: the bias stops mattering there
        # (Prop. "redundancy"); keep those of the scaled points that lie in K
        scale = 10.0 * (1.0 + float(np.max(np.abs(layer.alpha))))
        far = np.vstack([scale * X[: max(1, n_samples // 4)], 100 * scale * X[: max(1, n_samples // 4)]])
        X = np.vstack([X, far[np.asarray(K.contains(far), dtype=bool)]])
    return X


def check_rectifying(
    layer: ReLULayer,
    K: Any,
    *,
    n_samples: int = 100_000,
    seed: Any = 0,
    keep: int = 10,
    time_limit: float | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    progress: bool | None = None,
    ctx: Any = None,
) -> RectifyingCheck:
    """Test the alpha-rectifying property on a domain (all points of a finite set, else samples).

    With ``time_limit`` (seconds) the points are checked block by block until the limit is
    reached; the result then says how far it got (``complete=False``, ``n_checked`` of
    ``n_requested``): a failure found is still a proof of non-rectification, but "rectifying"
    is only evidence on the points checked. ``max_memory`` bounds the working arrays
    (see :func:`is_rectifying`). ``ctx`` (a :class:`~relu_frames_nb.pipeline.Context`), when
    given, supplies the seed and caps the time by what the check has left.
    """
    time_limit, seed = Context.for_tool(ctx, time_limit, seed)
    layer = as_layer(layer)
    K = as_domain(K, layer.n)
    n_samples = as_count(n_samples, "n_samples")
    max_memory = as_count(max_memory, "max_memory", minimum=1024)
    time_limit = as_time_limit(time_limit)
    progress = as_progress(bool(progress) if isinstance(progress, np.bool_) else progress)
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    X = _probe_points(layer, K, n_samples, seed)
    N = X.shape[0]
    fs = _full_spark(layer, None)
    done, n_bad, failures = 0, 0, []
    bar = _bar(layer, N, fs, progress)
    try:
        for c0, ok in _rectifying_chunks(layer, X, 0.0, fs, max_memory, bar, deadline=deadline):
            bad = X[c0 : c0 + ok.size][~ok]
            n_bad += bad.shape[0]
            failures.append(bad[: max(0, keep - sum(f.shape[0] for f in failures))])
            done = c0 + ok.size
    finally:
        bar.close()
    complete = done == N
    kind = ("exact" if K.finite else "sampled") if complete else "partial"
    fail = np.vstack(failures) if failures else np.zeros((0, layer.n))
    return RectifyingCheck(n_bad == 0, done, n_bad, kind, fail, complete, N, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------
# Collisions: the constructive proof of Thm "Injectivity of ReLU layers II"
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Collision:
    """Outcome of :func:`find_collision`.

    Attributes
    ----------
    found : bool
        Whether a verified pair was found.
    x, y : ndarray or None
        Two distinct points of ``K`` with ``layer(x) == layer(y)`` (up to ``tol``).
    output : ndarray or None
        Their common output.
    certainty : str
        ``"verified"`` (pair found and checked), ``"exact"`` (finite domain: no two
        points share an output), or ``"sampled"`` (nothing found among the points checked:
        evidence, not a proof).
    n_checked : int
        Number of points examined.
    method : str
        How the pair was built (``"null-space"``, ``"rotation"``, ``"reflection"``, ``"pair"``).
    """

    found: bool
    x: np.ndarray | None
    y: np.ndarray | None
    output: np.ndarray | None
    certainty: str
    n_checked: int
    method: str = ""

    def __bool__(self) -> bool:
        return self.found

    def __iter__(self):
        if not self.found:
            raise ValueError("no collision was found; check .found before unpacking.")
        return iter((self.x, self.y))


def _verify(layer, K, x, y) -> bool:
    """The package's one pair check, and certain membership of both points."""
    return collides(layer.frame.vectors, layer.alpha, x, y) and bool(K.contains_certified(x)) and bool(
        K.contains_certified(y)
    )


def _candidates(layer: ReLULayer, x0: np.ndarray):
    """Yield candidate pairs (method, y1, y2) near a non-rectifying point x0."""
    phi, alpha = layer.frame.vectors, layer.alpha
    coeff = phi @ x0
    active = coeff >= alpha
    V = null_space(phi[active], layer.n, limit=None if layer.n <= 64 else 8)
    if V.shape[1] == 0:
        return
    inactive_gap = alpha[~active] - coeff[~active]  # > 0
    phi_in = phi[~active]
    # (a) straight line through x0 inside the fibre: y = x0 +- eps r, r in V.
    for j in range(V.shape[1]):
        r = V[:, j]
        speed = np.abs(phi_in @ r)
        eps = 0.5 * np.min(inactive_gap / np.maximum(speed, DIVISOR_FLOOR)) if inactive_gap.size else 1.0
        eps = min(eps, 0.25 * max(np.linalg.norm(x0), 1.0))
        for _ in range(40):
            yield "null-space", x0 + eps * r, x0 - eps * r
            eps *= 0.5
    # (b) reflection of x0 across the hyperplane orthogonal to a direction u of V: the active rows
    #     lie in that hyperplane (their values do not change) and |y| = |x0| (spheres and shells)
    nx = np.linalg.norm(x0)
    if nx > 0:
        for j in range(V.shape[1]):
            u_ = V[:, j]
            if abs(u_ @ x0) > NORM_RTOL * nx:
                yield "reflection", x0, x0 - 2.0 * (u_ @ x0) * u_
        # (c) the same inside the plane of two directions of V: reflect across the part of V orthogonal to x0
        P = V - np.outer(x0 / nx, (x0 / nx) @ V)
        u, s, _ = np.linalg.svd(P, full_matrices=False)
        for j in np.flatnonzero(s > UNIT_SV_TOL):
            r = V @ (V.T @ u[:, j])
            r /= np.linalg.norm(r)
            if abs(r @ x0) > NORM_RTOL * nx:
                yield "reflection", x0, x0 - 2.0 * (r @ x0) * r


def find_collision(
    layer: ReLULayer,
    K: Any,
    *,
    n_samples: int = 20_000,
    seed: Any = 0,
    points: Any = None,
    max_tries: int = 200,
    time_limit: float | None = None,
    ctx: Any = None,
) -> Collision:
    r"""Look for two distinct points of ``K`` with the same output.

    Non-rectifying points are searched among samples of ``K`` (or among ``points``). At
    such a point ``x0`` the active sub-frame misses a direction ``r``; moving along
    ``r`` leaves every active coefficient unchanged and, for a small step, keeps every
    inactive one inactive, so ``x0 + eps r`` and ``x0 - eps r`` collide (proof of Thm
    "Injectivity of ReLU layers II"). On curved domains (sphere, shell boundary) the
    pair is a reflection across a hyperplane that holds every active frame vector (exact, and it
    keeps the norm). For a finite data set
    (:class:`Samples`) the search is exact: points with identical outputs are compared
    directly. Every returned pair passes the package's one pair check
    (:func:`relu_frames_nb._util.pairs.collides`: equal outputs relative to the pair's separation)
    and both points are certainly in ``K`` (:meth:`~relu_frames_nb.domains.Domain.contains_certified`).
    With ``time_limit`` (seconds) the search over failing points stops when the time is up (a
    pair found is still a proof; none found says nothing). ``ctx`` (a
    :class:`~relu_frames_nb.pipeline.Context`), when given, supplies the seed and caps the time
    by what the check has left.

    Returns
    -------
    Collision
        ``found`` tells whether a verified pair exists; ``certainty`` how sure a negative
        answer is.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    >>> c = rf.find_collision(L, rf.Ball(2))
    >>> c.found and np.allclose(L(c.x), L(c.y)) and not np.allclose(c.x, c.y)
    True
    """
    time_limit, seed = Context.for_tool(ctx, time_limit, seed)
    layer = as_layer(layer)
    K = as_domain(K, layer.n)
    n_samples = as_count(n_samples, "n_samples")
    seconds = as_time_limit(time_limit)
    deadline = math.inf if seconds is None else time.perf_counter() + seconds
    X = _probe_points(layer, K, n_samples, seed) if points is None else as_points(points, layer.n, "points")[0]
    if K.finite or points is not None:
        pair = _equal_output_pair(layer, X, K)
        if pair is not None:
            return Collision(True, pair[0], pair[1], layer(pair[0]), "verified", X.shape[0], "pair")
        if K.finite:
            return Collision(False, None, None, None, "exact", X.shape[0])
    # the rectifying test under the deadline: only the points it reached are searched
    fs = _full_spark(layer, None)
    bar = _bar(layer, X.shape[0], fs, False)
    bad_parts = [X[c0 : c0 + ok.size][~ok] for c0, ok in _rectifying_chunks(layer, X, 0.0, fs, DEFAULT_MAX_MEMORY, bar,
                                                                            deadline=deadline)]  # fmt: skip
    bad = np.vstack(bad_parts) if bad_parts else np.zeros((0, layer.n))
    if bad.shape[0]:
        # prefer points far from every switching hyperplane: more room for the construction
        gaps = _hyperplane_gaps(layer, bad)
        gaps /= np.maximum(np.linalg.norm(bad, axis=1), DIVISOR_FLOOR)
        # the widest verified pair among the first few points that give one (a wide pair is easier to see)
        best, best_sep, found = None, 0.0, 0
        for x0 in bad[np.argsort(-gaps)][: as_count(max_tries, "max_tries")]:
            if time.perf_counter() > deadline or found >= 8:
                break
            for method, y1, y2 in _candidates(layer, x0):
                if time.perf_counter() > deadline:  # a membership proof can take an LP per point
                    break
                if _verify(layer, K, y1, y2):
                    size = max(float(np.linalg.norm(y1)), float(np.linalg.norm(y2)), DIVISOR_FLOOR)
                    sep = float(np.linalg.norm(y1 - y2)) / size
                    found += 1
                    if sep > best_sep:
                        best, best_sep = (method, y1, y2), sep
                    break
            if best_sep >= WELL_SEPARATED_PAIR:
                break
        if best is not None:
            method, y1, y2 = best
            return Collision(True, y1, y2, layer(y1), "verified", X.shape[0], method)
    return Collision(False, None, None, None, "sampled", X.shape[0])


def _point_chunk(layer: ReLULayer, max_memory: int | None = None) -> int:
    """Points per block so that a few ``(block, m)`` float arrays stay within ``max_memory``."""
    return int(max(1, (max_memory or DEFAULT_MAX_MEMORY) // (24 * layer.m)))


def _hyperplane_gaps(layer: ReLULayer, X: np.ndarray) -> np.ndarray:
    """Per point, the distance to the nearest switching hyperplane (in blocks of rows)."""
    out = np.empty(X.shape[0])
    step = _point_chunk(layer)
    for c0 in range(0, X.shape[0], step):
        pre = X[c0 : c0 + step] @ layer.frame.vectors.T - layer.alpha
        out[c0 : c0 + step] = np.min(np.abs(pre) / layer.frame.norms, axis=1)
    return out


def _output_keys(layer: ReLULayer, X: np.ndarray, tol: float = PAIR_RTOL) -> np.ndarray:
    """One key per point, equal for points whose outputs agree after rounding to ``tol`` times the scale.

    Small outputs (``N m`` within one block) give the rounded output rows themselves; larger
    ones a 64-bit hash of them, computed block by block (equal rows have equal hashes; a hash
    collision is harmless, every pair is verified).
    """
    N = X.shape[0]
    step = _point_chunk(layer)
    scale = 1.0
    for c0 in range(0, N, step):
        Z = layer(X[c0 : c0 + step])
        if Z.size:
            scale = max(scale, float(np.max(np.abs(Z))))
    q = max(tol * scale, DIVISOR_FLOOR)
    if N <= step:
        return np.round(layer(X) / q).astype(np.int64)
    mult = np.random.default_rng(0).integers(1, 2**62, size=layer.m, dtype=np.int64) | 1
    keys = np.empty(N, dtype=np.int64)
    with np.errstate(over="ignore"):
        for c0 in range(0, N, step):
            R = np.round(layer(X[c0 : c0 + step]) / q).astype(np.int64)
            keys[c0 : c0 + step] = R @ mult  # wraps modulo 2^64
    return keys


def _equal_output_pair(layer, X, K):
    """Two distinct rows of X with equal outputs (grouping on rounded outputs, then the one pair check)."""
    keys = _output_keys(layer, X)
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    for g in np.flatnonzero(counts > 1):
        rows = np.flatnonzero(inverse == g)
        for a, b in itertools.combinations(rows[:50], 2):
            if _verify(layer, K, X[a], X[b]):
                return X[a], X[b]
    return None
