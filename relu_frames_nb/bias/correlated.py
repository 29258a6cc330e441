r"""Approach A of the paper: most correlated bases, the maximal constant bias and the
sampling-based bias estimation (Thm "Sampling-based Bias Estimation", Algorithm 1 of App. C1),
plus an exact zero-bias injectivity test through the Tukey depth of the origin.

Notation: the rows of ``Phi`` are the frame vectors :math:`\phi_i` and ``G = X @ Phi.T`` are the
frame coefficients of the points ``X`` (rows). Everything works with the *unnormalized*
coefficients :math:`\langle x, \phi_i\rangle` of the frame as given; the covering-radius
correction is then :math:`\rho\,\|\phi_i\|` (the paper's extension of the theorem to frames that
are not normalized).

Most correlated bases
    :math:`J^*(x)` maximizes :math:`\min_{j \in J}\langle x, \phi_j\rangle` over the bases
    :math:`\Phi_J` (Def. "most correlated basis"). The bases of a frame are the bases of a linear
    matroid, so the greedy rule is exact for *any* frame: sort the coefficients in decreasing
    order and keep :math:`\phi_i` whenever it raises the rank, until ``n`` are kept. For a
    full-spark frame this is the set of the ``n`` largest coefficients.

Sampling-based bias estimation
    :math:`\alpha_j = \min\{\langle x, \phi_j\rangle : x \in X_N,\ j \in J^*(x)\}`, vectorised in
    chunks: ``t`` = the value of the ``n``-th element of :math:`J^*(x)` per row (for a full-spark
    frame the ``n``-th largest coefficient), then
    ``alpha = min(alpha, where(G >= t, G, inf).min(axis=0))``. Where :math:`J^*(x)` is not
    unique, ``G >= t`` selects the union of all most correlated bases, the conservative choice.
    Rows that cannot change anything are skipped without partitioning them (see
    :func:`sampling_bias`).
"""

from __future__ import annotations

import itertools
import sys
import time
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from .._validation import as_bias, as_count, as_matrix, as_nonnegative, as_points, as_positive
from ..domains import CoveringRadius, Domain, Samples, as_domain, covering_radius, paper_correction
from ..errors import InputError, TooExpensiveError
from ..frames import DEFAULT_RANK_TOL, Frame, as_frame
from .estimate import ESTIMATE, GUARANTEED, ON_SAMPLES, BiasEstimate

__all__ = [
    "most_correlated_basis",
    "max_constant_bias",
    "sampling_bias",
    "TukeyDepth",
    "tukey_depth_origin",
    "zero_bias_injective",
    "block_rows",
    "SPARK_CHECK_LIMIT",
]

#: ``C(m, n)`` up to which the spark of a frame is computed to decide the full-spark fast path.
SPARK_CHECK_LIMIT = 200_000

#: largest number of rows processed at once when ``chunk_size`` is chosen automatically
#: (keeps the coefficient block in cache; measured best between 1024 and 4096 rows)
_MAX_AUTO_CHUNK = 4096

_EPS = float(np.finfo(float).eps)
_TINY = float(np.finfo(float).tiny)
_INIT_CHOICES = ("auto", "frame", "none")
_CORRECTION_CHOICES = ("paper", "guaranteed", "heuristic")


# =====================================================================================
# small helpers
# =====================================================================================


def _unit_rows(F: Frame) -> np.ndarray:
    return F.vectors / F.norms[:, None]


def _coefficients(X: np.ndarray, PT: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``X @ PT`` with the same BLAS kernel whatever the number of rows.

    OpenBLAS computes one row with a different kernel (gemv) than several rows (gemm), which
    can change the last bit. A single row is therefore computed as part of a two-row product,
    so that results do not depend on how the points are split into chunks.
    """
    if X.shape[0] == 1:
        res = np.matmul(np.vstack([X, X]), PT)[:1]
        if out is not None:
            out[...] = res
            return out
        return res
    if out is None:
        return np.matmul(X, PT)
    return np.matmul(X, PT, out=out)


def _nth_largest(G: np.ndarray, n: int) -> np.ndarray:
    """The ``n``-th largest value of each row of ``G`` (shape ``(R,)``)."""
    m = G.shape[1]
    if n == m:
        return G.min(axis=1)
    return np.partition(G, m - n, axis=1)[:, m - n]


def _independent_ordered(unit: np.ndarray, J: np.ndarray, rank_tol: float) -> np.ndarray:
    """For index rows ``J`` (R, n): True where the vectors ``unit[J[r]]`` are independent.

    The test is the one the greedy rule applies: the Gram-Schmidt residual of each vector (in
    the given order) against the previous ones, i.e. ``|diag(R)|`` of a QR factorization, must
    exceed ``rank_tol``.
    """
    if J.shape[0] == 0:
        return np.ones(0, dtype=bool)
    A = unit[J]  # (R, n, n): rows are the vectors in order
    R = np.linalg.qr(np.swapaxes(A, 1, 2), mode="r")
    d = np.abs(np.diagonal(R, axis1=1, axis2=2))
    return d.min(axis=1) > rank_tol


def _greedy_bases(G: np.ndarray, unit: np.ndarray, rank_tol: float) -> np.ndarray:
    """Exact most correlated bases by the matroid greedy rule, batched over rows of ``G``.

    Returns ``J`` of shape ``(R, n)``, each row sorted by decreasing coefficient (ties by index).
    """
    R, m = G.shape
    n = unit.shape[1]
    J = np.full((R, n), -1, dtype=np.intp)
    if R == 0:
        return J
    order = np.argsort(-G, axis=1, kind="stable")
    Q = np.zeros((R, n, n))
    k = np.zeros(R, dtype=np.intp)
    for p in range(m):
        act = np.flatnonzero(k < n)
        if act.size == 0:
            break
        idx = order[act, p]
        v = unit[idx]
        Qa = Q[act]
        for _ in range(2):  # classical Gram-Schmidt, twice, is enough for stability
            c = np.einsum("akn,an->ak", Qa, v)
            v = v - np.einsum("ak,akn->an", c, Qa)
        nr = np.linalg.norm(v, axis=1)
        acc = nr > rank_tol
        rows, pos = act[acc], k[act[acc]]
        Q[rows, pos] = v[acc] / nr[acc, None]
        J[rows, pos] = idx[acc]
        k[rows] += 1
    if np.any(k < n):  # pragma: no cover - only for frames that barely span
        raise InputError(
            "frame must span R^n numerically for the greedy rule; some points found only "
            f"{int(k.min())} independent vectors at rank_tol={rank_tol:g}. Lower rank_tol."
        )
    return J


def _top_n_sorted(G: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` largest entries per row, sorted by decreasing value."""
    R, m = G.shape
    if n == m:
        top = np.broadcast_to(np.arange(m), (R, m)).copy()
    else:
        top = np.argpartition(-G, n - 1, axis=1)[:, :n]
        top.sort(axis=1)  # index order first, so that the stable sort breaks ties by index
    vals = np.take_along_axis(G, top, axis=1)
    o = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(top, o, axis=1)


def _mcb_core(G: np.ndarray, unit: np.ndarray, full_spark: bool, rank_tol: float) -> np.ndarray:
    """Most correlated bases for coefficient rows ``G``: fast top-n path, greedy where needed."""
    n = unit.shape[1]
    J = _top_n_sorted(G, n)
    if full_spark or G.shape[0] == 0:
        return J
    bad = np.flatnonzero(~_independent_ordered(unit, J, rank_tol))
    if bad.size:
        J[bad] = _greedy_bases(G[bad], unit, rank_tol)
    return J


def _spark_status(F: Frame, full_spark: Any, limit: int) -> tuple[bool, str]:
    """(is the frame treated as full spark, how that was decided)."""
    if full_spark is not None:
        if not isinstance(full_spark, (bool, np.bool_)):
            raise InputError(f"full_spark must be True, False or None; got {full_spark!r}.")
        return bool(full_spark), "given"
    try:
        fs = F.is_full_spark(max_subsets=limit)
    except TooExpensiveError:
        return True, "assumed"
    return fs, "verified" if fs else "refuted"


def _check_tol(x: Any, name: str) -> float:
    return as_nonnegative(x, name)


# =====================================================================================
# most correlated bases
# =====================================================================================


def most_correlated_basis(
    frame: Any,
    X: Any,
    *,
    full_spark: bool | None = None,
    return_ties: bool = False,
    tie_tol: float = 1e-12,
    rank_tol: float = DEFAULT_RANK_TOL,
):
    r"""Indices of a most correlated basis :math:`J^*(x)` for each point (Def. "most correlated basis").

    :math:`J^*(x)` maximizes :math:`\min_{j\in J}\langle x, \phi_j\rangle` over all bases
    :math:`\Phi_J`. The result is exact for any frame: the bases of a frame form a matroid, so the
    greedy rule (sort the coefficients in decreasing order, keep :math:`\phi_i` when it raises the
    rank, stop at ``n``) finds a maximizer. Fast path: the ``n`` largest coefficients
    (``np.argpartition``), whose independence is checked per point unless the frame is known to be
    full spark; only the points that fail go through the greedy rule.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame (rows are the vectors :math:`\phi_i`, not necessarily normalized).
    X : array_like, shape (N, n) or (n,)
        Points.
    full_spark : bool, optional
        ``True`` skips the independence check (you assert the frame is full spark), ``False``
        checks every point. By default the spark is computed when ``C(m, n)`` is at most
        :data:`SPARK_CHECK_LIMIT` (the result is cached on the frame), otherwise every point is
        checked.
    return_ties : bool, default False
        Also return, per point, whether :math:`J^*(x)` is not unique.
    tie_tol : float, default 1e-12
        Absolute tolerance on coefficients for the tie test: :math:`J^*(x)` is reported as not
        unique when a coefficient outside it is ``>= min_{j in J*} <x, phi_j> - tie_tol``
        (then swapping that element in gives another maximizer; with repeated or parallel
        vectors this happens even when the ``n`` largest coefficients differ).
    rank_tol : float, default 1e-10
        A vector raises the rank when the norm of its unit vector's residual against the vectors
        kept so far exceeds ``rank_tol``.

    Returns
    -------
    J : ndarray of int, shape (N, n) or (n,)
        The indices of :math:`J^*(x)`, sorted by decreasing coefficient. Among equal coefficients
        the choice is arbitrary; use ``return_ties`` to detect it.
    ties : ndarray of bool, shape (N,) or bool
        Only with ``return_ties=True``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.bias.correlated import most_correlated_basis
    >>> F = rf.zoo.mercedes_benz()
    >>> most_correlated_basis(F, [0.5, 0.8]).tolist()
    [0, 2]
    >>> J, tie = most_correlated_basis(rf.zoo.plus_minus_basis(2), [1.0, 0.0], return_ties=True)
    >>> J.tolist(), bool(tie)
    ([0, 1], True)
    """
    F = as_frame(frame)
    pts, single = as_points(X, F.n, "X")
    tie_tol = _check_tol(tie_tol, "tie_tol")
    rank_tol = as_positive(rank_tol, "rank_tol")
    if not isinstance(return_ties, (bool, np.bool_)):
        raise InputError(f"return_ties must be True or False; got {return_ties!r}.")
    if full_spark is None:
        try:
            fs = F.is_full_spark(max_subsets=SPARK_CHECK_LIMIT)
        except TooExpensiveError:
            fs = False  # check each point
    else:
        fs, _ = _spark_status(F, full_spark, SPARK_CHECK_LIMIT)
    unit = _unit_rows(F)
    G = _coefficients(pts, F.vectors.T)
    J = _mcb_core(G, unit, fs, rank_tol)
    if not return_ties:
        return J[0] if single else J
    r = np.arange(G.shape[0])
    vstar = G[r, J[:, -1]]
    if F.m > F.n:
        Gm = G.copy()
        Gm[r[:, None], J] = -np.inf
        ties = Gm.max(axis=1) >= vstar - tie_tol
    else:
        ties = np.zeros(G.shape[0], dtype=bool)
    if single:
        return J[0], bool(ties[0])
    return J, ties


# =====================================================================================
# the sampling engine
# =====================================================================================


def block_rows(n: int) -> int:
    """Number of samples drawn per random block in dimension ``n``.

    Samples are drawn block by block, block ``b`` from the seed sequence
    ``SeedSequence(seed, spawn_key=(b,))``, so the samples (and hence every result) depend on
    ``seed`` and ``n`` only, never on ``chunk_size`` or ``max_memory``. Each block is drawn
    whole and cut, so the samples for ``N`` are the first ``N`` of those for any larger count
    (estimates are monotone in ``n_samples`` for a fixed seed). A block holds at most ``2**19``
    numbers (4 MiB): 65536 samples for ``n <= 8``, fewer in higher dimension.
    """
    n = as_count(n, "n")
    rows = 1 << max(0, int(np.floor(np.log2(2**19 / n))))
    return int(min(65536, max(256, rows)))


class _Engine:
    """The running minimum ``alpha`` and where it is attained (one chunk at a time)."""

    def __init__(self, F: Frame, full_spark: bool, rank_tol: float, tie_tol: float, chunk: int, alpha0: np.ndarray) -> None:
        self.tie_tol = tie_tol
        self.P = np.ascontiguousarray(F.vectors)
        self.PT = np.ascontiguousarray(F.vectors.T)
        self.phimax = float(F.norms.max())
        self.unit = _unit_rows(F)
        self.m, self.n = F.m, F.n
        self.full_spark = full_spark
        self.rank_tol = rank_tol
        self.alpha = np.array(alpha0, dtype=float)
        self.arg_point = np.full((self.m, self.n), np.nan)
        self.arg_index = np.full(self.m, -1, dtype=np.int64)
        self._chunk = chunk
        self._GT = np.empty((self.m, chunk))
        self._B = np.zeros((self.m, chunk), dtype=bool)
        self._cnt_dtype = np.uint8 if self.m < 256 else (np.uint16 if self.m < 65536 else np.intp)
        self.rows_kept = 0

    def _screen(self, Xc: np.ndarray, fin: np.ndarray) -> np.ndarray:
        """Rows that may update ``alpha`` (full-spark frames, some ``alpha`` finite).

        Works on the transposed coefficient block ``Phi @ Xc.T`` (shape ``(m, k)``): counting
        along axis 0 adds contiguous rows, about 15x cheaper than counting along rows of
        ``Xc @ Phi.T``. Its entries may differ in the last bits from ``Xc @ Phi.T``, which
        defines the result, so the thresholds carry a margin bounding both rounding errors,
        ``2 n eps max||x|| max||phi||`` (with ``sqrt(n) max|x_l|`` for ``max||x||``); the screen is
        therefore conservative.
        """
        k = Xc.shape[0]
        m, n, tol = self.m, self.n, self.tie_tol
        if k == self._chunk:
            GT = np.matmul(self.P, Xc.T, out=self._GT)
            B = self._B
        else:
            GT = np.matmul(self.P, Xc.T)
            B = np.empty((m, k), dtype=bool)
        xmax = np.sqrt(n) * max(float(Xc.max()), -float(Xc.min()))  # >= every ||x||, no temporaries
        margin = 2.0 * n * _EPS * xmax * self.phimax + _TINY
        if fin.all():
            thr = _shift_up(self.alpha.max(), tol, strict=False) + 2.0 * margin
            np.greater_equal(GT, thr, out=B)
        else:
            thr = _shift_up(GT[~fin].max(axis=0) + margin, tol, strict=True)
            np.maximum(thr, _shift_up(self.alpha[fin].max(), tol, strict=False), out=thr)
            thr += 2.0 * margin
            np.greater_equal(GT, thr[None, :], out=B)
        cnt = np.add.reduce(B.view(np.uint8), axis=0, dtype=self._cnt_dtype)
        return np.flatnonzero(cnt < n)

    def masked(self, Xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the chunk that may update ``alpha`` and their masked coefficients.

        The mask of row ``k`` is ``G[k] >= t_k - tie_tol`` where ``t_k`` is the smallest
        coefficient of the most correlated basis of the row and ``G = Xc @ Phi.T``. An entry
        ``(k, j)`` changes ``alpha_j`` only if it is in the mask and ``G[k, j] < alpha_j``. For a
        full-spark frame ``t_k`` is the ``n``-th largest coefficient, so a row with at least
        ``n`` entries ``>= s_k`` has ``t_k >= s_k``. With ``s_k - tie_tol >= max(finite alpha)``
        and ``s_k - tie_tol >`` the row's largest coefficient on elements whose alpha is still
        ``+inf``, no entry of the row can update anything, and it is skipped unpartitioned
        (:meth:`_screen`). The coefficients of the remaining rows are computed as
        ``Xc[rows] @ Phi.T``.
        """
        k = Xc.shape[0]
        n, tol = self.n, self.tie_tol
        rows = None
        if self.full_spark:
            fin = np.isfinite(self.alpha)
            if fin.any():
                rows = self._screen(Xc, fin)
        if rows is None:
            rows = np.arange(k)
            Gs = _coefficients(Xc, self.PT)
        elif rows.size == 0:
            return rows, np.empty((0, self.m))
        else:
            Gs = _coefficients(Xc[rows], self.PT)
        if self.full_spark:
            t = _nth_largest(Gs, n)
        else:
            J = _mcb_core(Gs, self.unit, False, self.rank_tol)
            t = Gs[np.arange(Gs.shape[0]), J[:, -1]]
        if tol > 0:
            t = t - tol
        M = np.where(Gs >= t[:, None], Gs, np.inf)
        self.rows_kept += rows.size
        return rows, M

    def commit(self, Xc: np.ndarray, rows: np.ndarray, M: np.ndarray, offset: int | None) -> None:
        """Fold the masked rows into ``alpha`` (first sample attaining a minimum wins)."""
        if rows.size == 0:
            return
        jrow = M.argmin(axis=0)
        vals = M[jrow, np.arange(self.m)]
        upd = vals < self.alpha
        if not upd.any():
            return
        self.alpha[upd] = vals[upd]
        src = rows[jrow[upd]]
        self.arg_point[upd] = Xc[src]
        self.arg_index[upd] = -1 if offset is None else offset + src


def _shift_up(a, tol: float, *, strict: bool):
    """Smallest floats ``s >= a + tol`` (``> a`` if strict) with ``fl(s - tol) >= a`` (``> a``)."""
    a = np.asarray(a, dtype=float)
    s = a + tol
    if strict:
        s = np.nextafter(s, np.inf)
    for _ in range(64):
        d = s - tol
        bad = (d <= a) if strict else (d < a)
        if not np.any(bad):
            break
        s = np.where(bad, np.nextafter(s, np.inf), s)
    return s if s.ndim else float(s)


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2**63)))
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise InputError(f"seed must be a non-negative int, None, a SeedSequence or a Generator; got {seed!r}.")
    return np.random.SeedSequence(int(seed))


def _domain_blocks(dom: Domain, N: int, ss: np.random.SeedSequence):
    """Yield ``(start, samples)`` blocks: the points of a finite set, or reproducible random blocks."""
    if isinstance(dom, Samples):
        pts = dom.points
        B = block_rows(dom.n)
        for start in range(0, pts.shape[0], B):
            yield start, pts[start : start + B]
        return
    B = block_rows(dom.n)
    for b, start in enumerate(range(0, N, B)):
        cnt = min(B, N - start)
        child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, b), pool_size=ss.pool_size)
        # always a full block, then cut: the samples for N are a prefix of those for N' > N
        X = np.asarray(dom.sample(B, seed=np.random.default_rng(child)), dtype=float)
        if X.shape != (B, dom.n):  # pragma: no cover - user-defined domains only
            raise InputError(f"K.sample must return an array of shape ({B}, {dom.n}); got {X.shape}.")
        yield start, X[:cnt]


def _init_points(init: str, F: Frame, dom: Domain) -> np.ndarray | None:
    """The paper's initialization: the normalized frame vectors scaled into ``K``."""
    if init == "none" or (init == "auto" and isinstance(dom, Samples)):
        return None
    scale = dom.radius if np.isfinite(dom.radius) else 1.0
    P = _unit_rows(F) * scale
    if init == "auto":
        P = P[np.asarray(dom.contains(P), dtype=bool)]
        if P.shape[0] == 0:
            return None
    return P


def _parse_init(init: Any, m: int):
    if isinstance(init, str):
        if init not in _INIT_CHOICES:
            raise InputError(f"init must be one of {_INIT_CHOICES} or an array of length {m}; got {init!r}.")
        return init, None
    if init is None:
        return "none", None
    return "array", as_bias(init, m, "init")


def _parse_correction(correction: Any):
    """Return ``(kind, value)`` with kind in {'none', 'value', 'radius', 'paper', 'guaranteed', 'heuristic'}."""
    if correction is None:
        return "none", 0.0
    if isinstance(correction, CoveringRadius):
        return "radius", correction
    if isinstance(correction, str):
        if correction not in _CORRECTION_CHOICES:
            raise InputError(
                f"correction must be None, a covering radius (float), or one of {_CORRECTION_CHOICES}; got {correction!r}."
            )
        return correction, None
    return "value", as_nonnegative(correction, "correction")


def _parse_early_stop(early_stop: Any):
    if early_stop is None:
        return None
    try:
        tol, patience = early_stop
    except (TypeError, ValueError):
        raise InputError(f"early_stop must be None or a pair (tol, patience_samples); got {early_stop!r}.") from None
    return as_nonnegative(tol, "early_stop tol"), as_count(patience, "early_stop patience_samples")


def _history_positions(history: Any, N: int) -> np.ndarray | None:
    if history is False or history is None:
        return None
    if history is True:
        pos = np.unique(np.round(np.geomspace(1, N, num=min(N, 200))).astype(np.int64))
    else:
        step = as_count(history, "history")
        pos = np.arange(step, N + 1, step, dtype=np.int64)
    if pos.size == 0 or pos[-1] != N:
        pos = np.append(pos, N)
    return pos


def _moved(ref: np.ndarray, cur: np.ndarray, tol: float) -> bool:
    both_inf = np.isinf(ref) & np.isinf(cur)
    with np.errstate(invalid="ignore"):
        d = np.where(both_inf, 0.0, ref - cur)
    return bool(np.max(d) > tol)


def _make_progress(progress: Any, total: int, expected_seconds: float):
    if progress is None:
        show = expected_seconds > 2.0 and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    elif isinstance(progress, (bool, np.bool_)):
        show = bool(progress)
    else:
        raise InputError(f"progress must be True, False or None; got {progress!r}.")
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    return tqdm(total=total, unit="samples", desc="sampling_bias", leave=False)


@dataclass
class _RunResult:
    alpha: np.ndarray
    arg_point: np.ndarray
    arg_index: np.ndarray
    processed: int
    stopped: bool
    history: np.ndarray | None
    history_steps: np.ndarray | None
    used_points: np.ndarray | None
    rows_kept: int
    chunk: int
    n_init: int
    seconds: float
    info: dict = field(default_factory=dict)


def _run(
    F: Frame,
    dom: Domain,
    N: int,
    ss: np.random.SeedSequence,
    *,
    full_spark: bool,
    tie_tol: float,
    init_points: np.ndarray | None,
    alpha0: np.ndarray,
    chunk_size: int | None,
    max_memory: int,
    early_stop,
    hist_pos: np.ndarray | None,
    keep_points: bool,
    progress: Any,
) -> _RunResult:
    m, n = F.m, F.n
    if chunk_size is None:
        per_row = 8 * (5 * m + n)
        chunk = int(min(_MAX_AUTO_CHUNK, max(16, max_memory // per_row)))
    else:
        chunk = chunk_size
    chunk = max(1, min(chunk, block_rows(n), N))  # chunks never straddle a block
    eng = _Engine(F, full_spark, DEFAULT_RANK_TOL, tie_tol, chunk, alpha0)
    t0 = time.perf_counter()
    n_init = 0
    kept: list[np.ndarray] = []
    if init_points is not None:
        n_init = init_points.shape[0]
        rows, M = eng.masked(init_points)
        eng.commit(init_points, rows, M, None)
        if keep_points:
            kept.append(init_points)
    snaps: list[np.ndarray] = []
    steps: list[int] = []
    if hist_pos is not None:
        snaps.append(eng.alpha.copy())
        steps.append(0)
    hp = 0  # next history position to record
    es_every = None
    if early_stop is not None:
        es_tol, es_patience = early_stop
        es_every = max(1, es_patience // 4)
        es_ref = eng.alpha.copy()
        es_ref_pos = 0
    bar = _make_progress(progress, N, 1e-10 * N * m * (n + 4))
    processed = 0
    stopped = False
    try:
        for _, Xb in _domain_blocks(dom, N, ss):
            for cs in range(0, Xb.shape[0], chunk):
                Xc = Xb[cs : cs + chunk]
                k = Xc.shape[0]
                rows, M = eng.masked(Xc)
                # checkpoints inside (processed, processed + k]
                qs: list[tuple[int, str]] = []
                if hist_pos is not None:
                    while hp < hist_pos.size and hist_pos[hp] <= processed + k:
                        qs.append((int(hist_pos[hp] - processed), "h"))
                        hp += 1
                if es_every is not None:
                    first = (processed // es_every + 1) * es_every
                    qs.extend((int(p - processed), "e") for p in range(first, processed + k + 1, es_every))
                stop_q = None
                if qs:
                    qs.sort()
                    cum = np.minimum.accumulate(M, axis=0) if rows.size else None
                    for q, kind in qs:
                        kk = int(np.searchsorted(rows, q, side="left"))
                        state = eng.alpha if kk == 0 else np.minimum(eng.alpha, cum[kk - 1])
                        if kind == "h":
                            if not steps or steps[-1] != processed + q:
                                snaps.append(np.array(state))
                                steps.append(processed + q)
                        else:
                            if _moved(es_ref, state, es_tol):
                                es_ref = np.array(state)
                                es_ref_pos = processed + q
                            elif processed + q - es_ref_pos >= es_patience:
                                stop_q = q
                                break
                if stop_q is not None:
                    kk = int(np.searchsorted(rows, stop_q, side="left"))
                    rows, M = rows[:kk], M[:kk]
                    k = stop_q
                    Xc = Xc[:k]
                eng.commit(Xc, rows, M, processed)
                if keep_points:
                    kept.append(np.array(Xc))
                processed += k
                if bar is not None:
                    bar.update(k)
                if stop_q is not None:
                    stopped = True
                    break
            if stopped:
                break
    finally:
        if bar is not None:
            bar.close()
    if hist_pos is not None and (not steps or steps[-1] != processed):
        snaps.append(eng.alpha.copy())
        steps.append(processed)
    return _RunResult(
        alpha=eng.alpha,
        arg_point=eng.arg_point,
        arg_index=eng.arg_index,
        processed=processed,
        stopped=stopped,
        history=np.array(snaps) if hist_pos is not None else None,
        history_steps=np.array(steps, dtype=np.int64) if hist_pos is not None else None,
        used_points=np.vstack(kept) if keep_points and kept else None,
        rows_kept=eng.rows_kept,
        chunk=chunk,
        n_init=n_init,
        seconds=time.perf_counter() - t0,
    )


def _domain_arg(K_or_X: Any, n: int) -> Domain:
    if isinstance(K_or_X, Domain):
        return as_domain(K_or_X, n, "K_or_X")
    arr = as_matrix(K_or_X, "K_or_X")
    return as_domain(Samples(arr), n, "K_or_X")


# =====================================================================================
# public: sampling-based bias estimation
# =====================================================================================


def sampling_bias(
    frame: Any,
    K_or_X: Any,
    *,
    n_samples: int = 100_000,
    seed: Any = 0,
    init: Any = "auto",
    correction: Any = None,
    chunk_size: int | None = None,
    max_memory: int = 64 * 2**20,
    early_stop: Any = None,
    history: Any = False,
    progress: bool | None = None,
    full_spark: bool | None = None,
    tie_tol: float = 1e-12,
) -> BiasEstimate:
    r"""Sampling-based bias estimation (Thm "Sampling-based Bias Estimation", Algorithm 1).

    For samples :math:`X_N \subset K`,

    .. math:: \alpha_j = \min\{\langle x, \phi_j\rangle : x \in X_N,\ j \in J^*(x)\}

    (and :math:`+\infty` for elements that are in no most correlated basis: they are irrelevant,
    any bias works for them). The frame is then :math:`\alpha`-rectifying on :math:`X_N`, and
    :math:`(\alpha - \rho\,\|\phi_j\|)`-rectifying on ``K`` when every point of ``K`` is within
    :math:`\rho` of a sample (the covering radius).

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame; its vectors need not be normalized (the unnormalized coefficients are used).
    K_or_X : Domain or array_like, shape (N, n)
        A domain to sample from (:class:`~relu_frames_nb.domains.Ball`, ``Sphere``, ...) or a finite
        data set (an array, or :class:`~relu_frames_nb.domains.Samples`), which is used whole: the
        result is then exact for that set.
    n_samples : int, default 100000
        Number of random samples drawn from ``K`` (ignored for a finite data set).
    seed : int, SeedSequence, Generator or None, default 0
        Seed of the samples. Block ``b`` of :func:`block_rows` samples is drawn from
        ``SeedSequence(seed, spawn_key=(b,))``: the samples do not depend on ``chunk_size`` or
        ``max_memory``, and neither do the results (up to BLAS rounding for some shapes, see
        Notes).
    init : {"auto", "frame", "none"} or array_like, shape (m,), default "auto"
        Initial value :math:`\alpha^{(0)}`. ``"frame"`` processes the normalized frame vectors,
        scaled to the radius of ``K`` (norm 1 if unbounded), as the first samples (the paper's
        suggestion); ``"auto"`` does so for those of them that lie in ``K`` (never for a finite
        data set); ``"none"`` starts from :math:`+\infty`; an array is used as
        :math:`\alpha^{(0)}` itself. Extra points only lower the estimate, which never breaks a
        guarantee.
    correction : None, float, CoveringRadius or {"paper", "guaranteed", "heuristic"}, default None
        Covering-radius correction :math:`\rho`, subtracted as :math:`\rho\,\|\phi_j\|`:

        * ``None``: no correction; rectifying on the samples (``guarantee="on-samples"``),
          or on ``K`` itself when ``K`` is a finite data set used whole (``"guaranteed"``);
        * a float: a covering radius you vouch for (``"guaranteed"``);
        * ``"paper"``: the paper's heuristic :math:`0.05(\log N/N)^{1/n}` (``"estimate"``);
        * ``"guaranteed"``: a proven upper bound from
          :func:`~relu_frames_nb.domains.covering_radius` on the samples used (low dimension
          only; the samples must fit in ``max_memory``);
        * ``"heuristic"``: a probe estimate of the covering radius (``"estimate"``).
    chunk_size : int, optional
        Rows processed at once. By default chosen from ``max_memory`` (at most 4096, which keeps
        the coefficient block in cache).
    max_memory : int, default 64 MiB
        Bound in bytes for the working arrays (sample generation takes a few blocks of 4 MiB on top).
    early_stop : (float, int), optional
        ``(tol, patience_samples)``: stop when no entry of the estimate has moved by more than
        ``tol`` during the last ``patience_samples`` samples (checked every
        ``patience_samples // 4`` samples, at fixed sample counts).
    history : bool or int, default False
        Record snapshots of the estimate: ``True`` at about 200 geometrically spaced sample
        counts, an int ``s`` every ``s`` samples. Snapshot 0 is the initial value.
    progress : bool, optional
        Show a tqdm progress bar. By default only for runs expected to take more than about 2 s
        when stderr is a terminal.
    full_spark : bool, optional
        Whether the frame is full spark (then :math:`J^*(x)` is the top ``n`` coefficients).
        By default the spark is computed when ``C(m, n) <= SPARK_CHECK_LIMIT``; otherwise full
        spark is *assumed* (true with probability one for random frames) and
        ``info["full_spark"] == "assumed"`` says so. For frames that are not full spark the exact
        :math:`J^*(x)` (greedy rule) is used.
    tie_tol : float, default 1e-12
        Coefficients within ``tie_tol`` (absolute) below the smallest coefficient of
        :math:`J^*(x)` count as tied with it and are folded in too. Symmetric frames have exact
        ties that rounding would otherwise break arbitrarily; folding them in only lowers the
        estimate, which keeps every guarantee. ``0`` follows the theorem literally.

    Returns
    -------
    BiasEstimate
        ``method="sampling"``, ``values`` (+inf for irrelevant elements), ``guarantee``,
        ``n_samples`` (samples processed, without the initial points), ``correction``,
        ``correction_kind``, ``argmin`` (a sample attaining each value), ``history`` and
        ``history_steps``, ``converged`` (with ``early_stop``), and ``info`` with
        ``full_spark``, ``n_init``, ``chunk_size``, ``block_rows``, ``argmin_index`` (index of the
        attaining sample, -1 for an initial point), ``rows_kept`` (rows that were partitioned),
        ``seed_entropy`` and ``seconds``.

    Raises
    ------
    InputError
        For invalid arguments (named in the message).
    TooExpensiveError
        For ``correction="guaranteed"`` or ``"heuristic"`` when the samples do not fit in
        ``max_memory``, or when a guaranteed covering radius needs too fine a grid.

    Notes
    -----
    Vectorised Algorithm 1: per chunk, ``G = X @ Phi.T``; ``t`` = the smallest coefficient of
    :math:`J^*(x)` per row; ``alpha = min(alpha, min over rows of where(G >= t, G, inf))``. After the
    first chunks most rows cannot change anything: an entry ``(k, j)`` matters only if
    ``t_k <= G[k, j] < alpha_j``, so a row with at least ``n`` coefficients ``>= max(alpha)`` is
    skipped before any partition. The count is taken on the transposed block ``Phi @ X.T``
    (column sums of a boolean block are cheap) with a margin covering rounding, and the rows kept
    are recomputed as ``X[rows] @ Phi.T``. The result is the minimum over all samples, so it does
    not depend on how they are split, up to one caveat on floating point: the values are BLAS
    results, and OpenBLAS gives a row the same bits whatever the other rows of the product for
    the small shapes we checked (e.g. ``n <= 30``, where results match a one-shot ``X @ Phi.T``
    bit for bit), but not for every shape (e.g. ``n = 64, m = 300``), where ``chunk_size`` can
    change the last bit of a value. The ``m x chunk`` blocks are sized from ``max_memory``;
    samples are drawn in blocks of :func:`block_rows` rows, so ``10**7`` samples in low
    dimension take a few MiB.

    Examples
    --------
    >>> import numpy as np
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.bias.correlated import sampling_bias
    >>> est = sampling_bias(rf.zoo.mercedes_benz(), rf.Ball(2), n_samples=100_000, init="none")
    >>> est.guarantee, est.n_samples
    ('on-samples', 100000)
    >>> bool(np.all((est.values >= -0.5) & (est.values < -0.495)))  # the exact value is -1/2
    True
    >>> sampling_bias(rf.zoo.mercedes_benz(), rf.Ball(2), n_samples=1000).values  # init="auto"
    array([-0.5, -0.5, -0.5])
    """
    F = as_frame(frame)
    dom = _domain_arg(K_or_X, F.n)
    n_samples = as_count(n_samples, "n_samples")
    ss = _seed_sequence(seed)
    init_kind, init_alpha = _parse_init(init, F.m)
    corr_kind, corr_value = _parse_correction(correction)
    if chunk_size is not None:
        chunk_size = as_count(chunk_size, "chunk_size")
    max_memory = as_count(max_memory, "max_memory", minimum=1024)
    es = _parse_early_stop(early_stop)
    tie_tol = _check_tol(tie_tol, "tie_tol")
    finite = isinstance(dom, Samples)
    N = dom.points.shape[0] if finite else n_samples
    hist_pos = _history_positions(history, N)
    fs, fs_how = _spark_status(F, full_spark, SPARK_CHECK_LIMIT)
    keep = corr_kind in ("guaranteed", "heuristic") and not finite
    if corr_kind == "guaranteed" and not dom.bounded:
        raise InputError(f"correction='guaranteed' needs a bounded domain; got {dom!r}. Use a float or 'paper'.")
    if keep and 8 * N * F.n > max_memory:
        raise TooExpensiveError(
            f"correction={correction!r} needs all {N} samples in memory ({8 * N * F.n / 2**20:.3g} MiB); "
            f"max_memory is {max_memory / 2**20:.3g} MiB. Raise max_memory, use fewer samples, or pass "
            "a covering radius as a float."
        )
    init_pts = None
    if init_kind in ("auto", "frame"):
        init_pts = _init_points(init_kind, F, dom)
    alpha0 = init_alpha if init_alpha is not None else np.full(F.m, np.inf)

    run = _run(
        F,
        dom,
        N,
        ss,
        full_spark=fs,
        tie_tol=tie_tol,
        init_points=init_pts,
        alpha0=alpha0,
        chunk_size=chunk_size,
        max_memory=max_memory,
        early_stop=es,
        hist_pos=hist_pos,
        keep_points=keep,
        progress=progress,
    )

    info: dict[str, Any] = {
        "full_spark": fs_how if fs_how != "given" else ("given-true" if fs else "given-false"),
        "n_init": run.n_init,
        "init": init_kind,
        "chunk_size": run.chunk,
        "block_rows": block_rows(F.n),
        "argmin_index": run.arg_index,
        "rows_kept": run.rows_kept,
        "seed_entropy": ss.entropy,
        "seconds": run.seconds,
    }
    # ----------------------------------------------------------------- correction
    rho = 0.0
    ckind = "none"
    if corr_kind == "value":
        rho, ckind = corr_value, "guaranteed"
    elif corr_kind == "radius":
        rho = float(corr_value.value)
        ckind = "guaranteed" if corr_value.is_guarantee else "heuristic"
        info["covering_radius"] = corr_value
    elif corr_kind == "paper":
        rho, ckind = paper_correction(F.n, max(run.processed, 2)), "heuristic"
    elif corr_kind in ("guaranteed", "heuristic"):
        pts = dom.points if finite else run.used_points
        if pts is None or pts.shape[0] == 0:  # pragma: no cover - n_samples >= 1
            raise InputError("correction needs at least one sample.")
        cr = covering_radius(pts, dom, kind=corr_kind, seed=0)
        rho = float(cr.value)
        ckind = "guaranteed" if cr.is_guarantee else "heuristic"
        info["covering_radius"] = cr
    if not np.isfinite(rho):
        raise InputError(f"the covering radius of an unbounded domain is infinite; got {dom!r}. Use a float.")
    values = run.alpha.copy()
    fin = np.isfinite(values)
    if rho > 0:
        values[fin] = values[fin] - rho * F.norms[fin]
    if finite and run.processed == N:  # every point of the data set was used (no early stop)
        guarantee = GUARANTEED
    elif ckind == "guaranteed":
        guarantee = GUARANTEED
    elif ckind == "heuristic":
        guarantee = ESTIMATE
    else:
        guarantee = ON_SAMPLES
    return BiasEstimate(
        values=values,
        method="sampling",
        domain=dom,
        guarantee=guarantee,
        n_samples=run.processed,
        correction=rho,
        correction_kind=ckind,
        history=run.history,
        history_steps=run.history_steps,
        argmin=run.arg_point,
        converged=(run.stopped if es is not None else None),
        info=info,
    )


def max_constant_bias(
    frame: Any,
    K_or_X: Any,
    *,
    n_samples: int = 100_000,
    seed: Any = 0,
    init: Any = "none",
    full_spark: bool | None = None,
    tie_tol: float = 1e-12,
) -> float:
    r"""The maximal constant bias :math:`\alpha_c` (Prop. "maximal constant bias").

    .. math:: \alpha_c = \inf_{x\in K}\ \min_{j\in J^*(x)}\langle x, \phi_j\rangle,

    the largest ``r`` such that the frame is :math:`\mathbf{r}`-rectifying on ``K``. It equals
    the smallest entry of the sampling estimate, so it is computed by the same engine.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame (unnormalized coefficients are used).
    K_or_X : Domain or array_like, shape (N, n)
        A finite data set (exact value for that set) or a domain to sample from (the value is
        then an over-estimate that converges from above as ``n_samples`` grows).
    n_samples : int, default 100000
        Samples drawn from a domain.
    seed : int, SeedSequence, Generator or None, default 0
        Seed of the samples (see :func:`sampling_bias`).
    init : {"none", "auto", "frame"}, default "none"
        Extra points processed first, as in :func:`sampling_bias`.
    full_spark : bool, optional
        As in :func:`sampling_bias`.
    tie_tol : float, default 1e-12
        As in :func:`sampling_bias`.

    Returns
    -------
    float

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.bias.correlated import max_constant_bias
    >>> a = max_constant_bias(rf.zoo.mercedes_benz(), rf.Sphere(2), n_samples=50_000)
    >>> -0.5 <= a < -0.499
    True
    >>> max_constant_bias(rf.zoo.mercedes_benz(), [[0.0, 1.0], [1.0, 0.0]])
    -0.5
    """
    if not isinstance(init, str) or init not in _INIT_CHOICES:
        raise InputError(f"init must be one of {_INIT_CHOICES}; got {init!r}.")
    est = sampling_bias(
        frame,
        K_or_X,
        n_samples=n_samples,
        seed=seed,
        init=init,
        full_spark=full_spark,
        tie_tol=tie_tol,
        progress=False,
    )
    return float(np.min(est.values))


# =====================================================================================
# exact zero-bias test: Tukey depth of the origin
# =====================================================================================


@dataclass(frozen=True, eq=False)
class TukeyDepth:
    r"""Tukey (half-space) depth of the origin among the frame vectors, and what it implies.

    Attributes
    ----------
    depth : int
        :math:`\min_{x \ne 0} \#\{i : \langle x, \phi_i\rangle \ge 0\}`.
    injective : bool
        Whether the zero-bias layer :math:`\mathrm{ReLU}(\Phi x)` is injective on
        :math:`\mathbb{R}^n` (for a full-spark frame: ``depth >= n``). The object is truthy
        exactly when injective.
    witness : ndarray, shape (n,)
        A unit vector with exactly ``depth`` elements :math:`\langle x, \phi_i\rangle \ge 0`
        (or, for a frame that is not full spark and not injective although ``depth >= n``, a
        point whose active sub-frame does not span). When not injective, the active sub-frame
        at ``witness`` does not span.
    n : int
        Dimension.
    m : int
        Number of frame vectors.
    n_rays : int
        Number of candidate rays, ``2 * C(m, n - 1)``.
    full_spark : bool
        Whether the frame is full spark (then ``injective`` is ``depth >= n``).
    method : str
        ``"exact"``.
    """

    depth: int
    injective: bool
    witness: np.ndarray
    n: int
    m: int
    n_rays: int
    full_spark: bool = True
    method: str = "exact"

    def __bool__(self) -> bool:
        return bool(self.injective)

    def __repr__(self) -> str:
        return f"TukeyDepth(depth={self.depth}, n={self.n}, m={self.m}, injective={self.injective}, method={self.method!r})"


def _null_vectors(S: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit null vectors of a stack of ``(B, n-1, n)`` unit-row matrices, and independence flags."""
    B, k, n = S.shape
    Q = np.zeros((B, k, n))
    ok = np.ones(B, dtype=bool)
    for i in range(k):
        v = S[:, i].copy()
        for _ in range(2):
            if i:
                c = np.einsum("bjn,bn->bj", Q[:, :i], v)
                v -= np.einsum("bj,bjn->bn", c, Q[:, :i])
        nr = np.linalg.norm(v, axis=1)
        ok &= nr > tol
        Q[:, i] = v / np.where(nr > 0, nr, 1.0)[:, None]
    # the standard basis vector with the largest residual gives the complement direction
    P = np.eye(n)[None] - np.einsum("bkn,bkl->bnl", Q, Q)
    j = np.argmax(np.einsum("bnn->bn", P), axis=1)
    r = P[np.arange(B), :, j]
    for _ in range(2):
        c = np.einsum("bkn,bn->bk", Q, r)
        r = r - np.einsum("bk,bkn->bn", c, Q)
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    return r, ok


def _perturb_off_ray(V: np.ndarray, r: np.ndarray, w: np.ndarray, target: int, zero: np.ndarray) -> np.ndarray:
    """Return ``r + eps * w`` normalized, ``eps`` small enough to keep the signs off ``zero``.

    The elements not in ``zero`` (non-zero on ``r``) keep their sign; ``w`` decides the signs of
    the elements in ``zero``.
    """
    a = np.abs(V[~zero] @ r)
    b = np.abs(V[~zero] @ w)
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = float(np.min(np.where(b > 0, a / b, np.inf))) if a.size else np.inf
    eps = min(0.5 * lim, 1.0 / max(float(np.linalg.norm(w)), 1e-300))
    x = r
    for _ in range(80):
        x = r + eps * w
        x = x / np.linalg.norm(x)
        c = V @ x
        if int(np.count_nonzero(c >= 0)) == target and np.all(c != 0):
            return x
        eps *= 0.5
    return x  # pragma: no cover - numerically degenerate frames only


def _orth_complement(r: np.ndarray) -> np.ndarray:
    """An orthonormal basis (columns, shape (d, d-1)) of the hyperplane orthogonal to ``r``."""
    _, _, vt = np.linalg.svd(r[None, :])
    return vt[1:].T


def _depth_general(V: np.ndarray, tol: float, budget: list) -> tuple[int, np.ndarray, list]:
    """Exact depth of the origin among the rows of ``V`` (a frame for R^d, any spark).

    Returns ``(depth, witness, flats)``: a unit witness in an open cell with exactly ``depth``
    elements ``>= 0``, and the distinct index sets ``H`` (rank d-1 flats) met at the top level.
    Rays whose zero set ``Z`` is larger than ``d - 1`` recurse into the arrangement of ``Z`` in the
    hyperplane orthogonal to the ray. ``budget`` is a one-element list counting subsets left.
    """
    k, d = V.shape
    if d == 1:
        pos = int(np.count_nonzero(V[:, 0] > 0))
        neg = k - pos
        return min(pos, neg), np.array([1.0 if pos <= neg else -1.0]), []
    best, best_x = k + 1, None
    seen: dict = {}
    for S in itertools.combinations(range(k), d - 1):
        budget[0] -= 1
        if budget[0] < 0:
            raise TooExpensiveError("budget")
        US = V[list(S)]
        sv = np.linalg.svd(US, compute_uv=False)
        if sv[-1] <= tol * max(sv[0], 1.0):
            continue
        r = _orth_complement(US[0])[:, 0] if d == 2 else np.linalg.svd(US)[2][-1]
        D = V @ r
        zero = np.abs(D) <= tol
        key = tuple(np.flatnonzero(zero).tolist())
        if key in seen:
            continue
        Z = np.flatnonzero(zero)
        if Z.size == d - 1:
            sub, w = 0, -np.linalg.pinv(V[Z]) @ np.ones(d - 1)
        else:
            U = _orth_complement(r)
            sub, wz, _ = _depth_general(V[Z] @ U, tol, budget)
            w = U @ wz
        seen[key] = True
        for s in (1.0, -1.0):
            cnt = int(np.count_nonzero(s * D[~zero] > 0)) + sub
            if cnt < best:
                best, best_x = cnt, _perturb_off_ray(V, s * r, w, cnt, zero)
    return best, best_x, [np.array(key, dtype=np.intp) for key in seen]


def _outside_flat_negative(V: np.ndarray, H: np.ndarray) -> np.ndarray | None:
    """A point where every row of ``V`` outside the flat ``H`` is negative, or None (an LP)."""
    from scipy.optimize import linprog

    W = np.delete(V, H, axis=0)
    res = linprog(np.zeros(V.shape[1]), A_ub=W, b_ub=-np.ones(W.shape[0]), bounds=[(None, None)] * V.shape[1], method="highs")
    if res.status == 0:
        return res.x / np.linalg.norm(res.x)
    return None


def _null_vectors_fast(S: np.ndarray) -> np.ndarray:
    """Unit null vectors of ``(B, n-1, n)`` stacks: one batched solve, Gram-Schmidt where it fails."""
    B, k, n = S.shape
    try:
        y = np.linalg.solve(S[:, :, :-1], -S[:, :, -1:])[..., 0]
        r = np.concatenate([y, np.ones((B, 1))], axis=1)
        r /= np.linalg.norm(r, axis=1, keepdims=True)
        res = np.abs(np.einsum("bkn,bn->bk", S, r)).max(axis=1)
        bad = ~(res <= 1e-12)
    except np.linalg.LinAlgError:  # an exactly singular block: dependent vectors, redo all
        r = np.empty((B, n))
        bad = np.ones(B, dtype=bool)
    if bad.any():
        r[bad] = _null_vectors(S[bad], 0.0)[0]
    return r


def _tukey_fast(unit: np.ndarray, batch: int, tol: float):
    """Vectorised enumeration for full-spark frames; returns None when the frame is not full spark.

    The vectors are first turned by a fixed random rotation (the depth is rotation invariant),
    so that dropping the last coordinate gives a solvable ``(n-1) x (n-1)`` system for every
    independent ``S``. A dependent ``S`` need not be detected itself: every frame that is not
    full spark has an independent ``S'`` of ``n - 1`` vectors with another frame vector in its
    span (extend a circuit minus one element), and that vector vanishes on ``r_{S'}``. All
    subsets are examined, so that is always found before a result is returned.
    """
    m, n = unit.shape
    rot = np.linalg.qr(np.random.default_rng(12345).standard_normal((n, n)))[0]
    V = unit @ rot  # v_i = rot^T phi_i, so <y, v_i> = <rot y, phi_i>
    best = m + 1
    best_S: tuple = ()
    best_r = None
    combos = itertools.combinations(range(m), n - 1)
    rest = m - (n - 1)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, batch)), dtype=np.intp)
        if flat.size == 0:
            break
        idx = flat.reshape(-1, n - 1)
        r = _null_vectors_fast(V[idx])
        D = r @ V.T
        D[np.arange(idx.shape[0])[:, None], idx] = np.nan
        if np.any(np.abs(D) <= tol):
            return None
        cp = np.count_nonzero(D > 0, axis=1)
        cm = rest - cp
        c = np.minimum(cp, cm)
        b = int(np.argmin(c))
        if c[b] < best:
            best = int(c[b])
            best_S = tuple(idx[b].tolist())
            best_r = rot @ (r[b] if cp[b] <= cm[b] else -r[b])
    zero = np.zeros(m, dtype=bool)
    zero[list(best_S)] = True
    w = -np.linalg.pinv(unit[list(best_S)]) @ np.ones(n - 1)
    return best, _perturb_off_ray(unit, best_r, w, best, zero)


def tukey_depth_origin(
    frame: Any,
    *,
    max_subsets: int = 2_000_000,
    batch: int = 8192,
    tol: float = 1e-10,
    max_general: int = 20_000,
) -> TukeyDepth:
    r"""Exact Tukey (half-space) depth of the origin among the frame vectors, and zero-bias injectivity.

    The depth is :math:`d = \min_{x\ne 0}\#\{i : \langle x, \phi_i\rangle \ge 0\}`. The zero-bias
    layer :math:`\mathrm{ReLU}(\Phi x)` is injective on :math:`\mathbb{R}^n` iff the active
    sub-frame spans at every ``x`` (Thm "Injectivity II"); for a full-spark frame that is
    :math:`d \ge n`.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame. Full-spark frames take the fast vectorised path; other frames (the
        (+-) basis, repeated or parallel vectors) a slower exact path, see Notes.
    max_subsets : int, default 2000000
        Refuse when ``C(m, n - 1)`` exceeds this.
    batch : int, default 8192
        Subsets processed at once on the fast path.
    tol : float, default 1e-10
        A unit vector whose distance to the span of ``n - 1`` others is at most ``tol`` counts as
        lying in it.
    max_general : int, default 20000
        Refuse frames that are not full spark when the slower exact path would examine more than
        this many subsets.

    Returns
    -------
    TukeyDepth

    Raises
    ------
    TooExpensiveError
        If ``C(m, n - 1) > max_subsets``, or the frame is not full spark and the exact path for
        such frames exceeds ``max_general`` subsets.

    Notes
    -----
    The count is constant on the open cells of the arrangement of the hyperplanes
    :math:`\phi_i^\perp` and its minimum is attained on an open cell (on a face, elements that
    vanish count as active). The closure of each cell is a pointed cone whose extreme rays are
    :math:`\pm r_S`, the unit null vectors of ``n - 1`` independent frame vectors ``S``. For a
    full-spark frame, no other element vanishes on :math:`r_S` and a small perturbation makes
    all of ``S`` negative, hence

    .. math:: d = \min_{|S| = n-1}\ \min\big(\#\{i\notin S: \langle r_S,\phi_i\rangle>0\},
              \#\{i\notin S: \langle r_S,\phi_i\rangle<0\}\big),

    :math:`2\binom{m}{n-1}` rays in all. Independence of every ``S`` and non-vanishing of the
    other elements on :math:`r_S` is exactly the full-spark property, so it is verified on the
    way. Otherwise the elements ``Z`` vanishing on a ray contribute the depth of the origin
    among ``Z`` inside :math:`r_S^\perp` (a recursion in dimension ``n - 1``), and injectivity is
    decided by the criterion: not injective iff for some flat ``H`` of rank ``n - 1`` spanned by
    frame vectors all other frame vectors can be made negative at once (one LP per flat).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.bias.correlated import tukey_depth_origin
    >>> res = tukey_depth_origin(rf.zoo.regular_polygon(5))
    >>> res.depth, res.injective
    (2, True)
    >>> res = tukey_depth_origin(rf.zoo.plus_minus_basis(3))  # not full spark: exact slow path
    >>> res.depth, res.injective
    (3, True)
    """
    F = as_frame(frame)
    max_subsets = as_count(max_subsets, "max_subsets")
    batch = as_count(batch, "batch")
    tol = as_positive(tol, "tol")
    max_general = as_count(max_general, "max_general")
    m, n = F.m, F.n
    total = comb(m, n - 1)
    if total > max_subsets:
        raise TooExpensiveError(
            f"the exact Tukey depth checks C(m, n-1) = C({m}, {n - 1}) = {total:.3g} subsets; "
            f"max_subsets is {max_subsets:.3g}. Raise max_subsets, or use sampling_bias (an "
            "over-estimate in high dimension)."
        )
    unit = _unit_rows(F)
    if n == 1:
        depth, x, _ = _depth_general(unit, tol, [1])
        return TukeyDepth(depth, depth >= 1, x, n, m, 2, full_spark=True)
    fast = _tukey_fast(unit, batch, tol)
    if fast is not None:
        depth, x = fast
        return TukeyDepth(depth, depth >= n, x, n, m, 2 * total, full_spark=True)
    # ---- not full spark: exact recursion for the depth, one LP per flat for injectivity
    budget = [max_general]
    try:
        depth, x, flats = _depth_general(unit, tol, budget)
    except TooExpensiveError:
        raise TooExpensiveError(
            f"frame is not full spark, and its exact Tukey depth needs more than max_general={max_general} "
            "subset checks. Raise max_general, or perturb the frame slightly to make it full spark."
        ) from None
    injective = depth >= n
    if injective:
        for H in flats:
            y = _outside_flat_negative(unit, H)
            if y is not None:
                injective, x = False, y
                break
    return TukeyDepth(depth, bool(injective), x, n, m, 2 * total, full_spark=False)


def zero_bias_injective(frame: Any, *, max_subsets: int = 2_000_000) -> TukeyDepth:
    r"""Exact test that :math:`\mathrm{ReLU}(\Phi x)` (bias 0) is injective on :math:`\mathbb{R}^n`.

    For a full-spark frame: injective iff the Tukey depth of the origin among the frame vectors
    is at least ``n`` (see :func:`tukey_depth_origin`, which also handles other frames). The
    result is truthy exactly when the layer is injective; when it is not, ``witness`` is a point
    whose active sub-frame does not span.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame.
    max_subsets : int, default 2000000
        Refuse when ``C(m, n - 1)`` exceeds this.

    Returns
    -------
    TukeyDepth

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.bias.correlated import zero_bias_injective
    >>> bool(zero_bias_injective(rf.zoo.regular_polygon(5)))
    True
    >>> res = zero_bias_injective(rf.zoo.mercedes_benz())
    >>> res.injective, res.depth
    (False, 1)
    """
    return tukey_depth_origin(frame, max_subsets=max_subsets)
