r"""Sampling-based bias estimation (Thm "Sampling-based Bias Estimation", Algorithm 1 of App. C1).

For samples :math:`X_N \subset K`,
:math:`\alpha_j = \min\{\langle x, \phi_j\rangle : x \in X_N,\ j \in J^*(x)\}`, vectorised in
chunks: ``t`` = the value of the ``n``-th element of :math:`J^*(x)` per row (for a full-spark
frame the ``n``-th largest coefficient), then
``alpha = min(alpha, where(G >= t, G, inf).min(axis=0))``. Where :math:`J^*(x)` is not
unique, ``G >= t`` selects the union of all most correlated bases, the conservative choice.
Rows that cannot change anything are skipped without partitioning them (see
:func:`sampling_bias`). Everything works with the *unnormalized* coefficients; the
covering-radius correction is then :math:`\rho\,\|\phi_i\|`.

The module holds the engine (a running minimum over reproducible sample blocks, with
history, early stopping and progress) and the public :func:`sampling_bias` and
:func:`block_rows`. Most correlated bases themselves are in
:mod:`~relu_frames_nb.paper.bias.correlated`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._util.progress import Progress, as_progress
from ..._util.tolerances import SECONDS_PER_FLOP, TIE_TOL
from ..._util.validation import as_bias, as_count, as_matrix, as_nonnegative, as_seed_sequence, as_time_limit
from ...domains import CoveringRadius, Domain, as_domain, covering_radius, paper_correction
from ...errors import InputError, TooExpensiveError
from ...frames import DEFAULT_RANK_TOL, Frame, as_frame
from ...pipeline.context import Context
from ._common import INIT_CHOICES, SPARK_CHECK_LIMIT, coefficients, mcb_core, nth_largest, spark_status, unit_rows
from .estimate import ESTIMATE, GUARANTEED, ON_SAMPLES, BiasEstimate

__all__ = ["sampling_bias", "block_rows", "SPARK_CHECK_LIMIT"]

#: largest number of rows processed at once when ``chunk_size`` is chosen automatically
#: (keeps the coefficient block in cache; measured best between 1024 and 4096 rows)
_MAX_AUTO_CHUNK = 4096

_EPS = float(np.finfo(float).eps)
_TINY = float(np.finfo(float).tiny)
_CORRECTION_CHOICES = ("paper", "guaranteed", "heuristic")


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
        self.unit = unit_rows(F)
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
            Gs = coefficients(Xc, self.PT)
        elif rows.size == 0:
            return rows, np.empty((0, self.m))
        else:
            Gs = coefficients(Xc[rows], self.PT)
        if self.full_spark:
            t = nth_largest(Gs, n)
        else:
            J = mcb_core(Gs, self.unit, False, self.rank_tol)
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


def _domain_blocks(dom: Domain, N: int, ss: np.random.SeedSequence):
    """Yield ``(start, samples)`` blocks: the points of a finite set, or reproducible random blocks."""
    if dom.finite:
        pts = dom.points
        B = block_rows(dom.n)
        for start in range(0, pts.shape[0], B):
            yield start, pts[start : start + B]
        return
    B = block_rows(dom.n)
    for b, start in enumerate(range(0, N, B)):
        cnt = min(B, N - start)
        child = as_seed_sequence(ss, key=(b,))
        # always a full block, then cut: the samples for N are a prefix of those for N' > N
        X = np.asarray(dom.sample(B, seed=np.random.default_rng(child)), dtype=float)
        if X.shape != (B, dom.n):  # pragma: no cover - user-defined domains only
            raise InputError(f"K.sample must return an array of shape ({B}, {dom.n}); got {X.shape}.")
        yield start, X[:cnt]


def _init_points(init: str, F: Frame, dom: Domain) -> np.ndarray | None:
    """The paper's initialization: the normalized frame vectors scaled into ``K``."""
    if init == "none" or (init == "auto" and dom.finite):
        return None
    scale = dom.radius if np.isfinite(dom.radius) else 1.0
    P = unit_rows(F) * scale
    if init == "auto":
        P = P[np.asarray(dom.contains(P), dtype=bool)]
        if P.shape[0] == 0:
            return None
    return P


def _parse_init(init: Any, m: int):
    if isinstance(init, str):
        if init not in INIT_CHOICES:
            raise InputError(f"init must be one of {INIT_CHOICES} or an array of length {m}; got {init!r}.")
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


def _make_progress(progress: Any, total: int, expected_seconds: float) -> Progress:
    progress = as_progress(bool(progress) if isinstance(progress, np.bool_) else progress)
    return Progress(progress, total, expected_seconds=expected_seconds, unit="samples", desc="sampling_bias", leave=False)


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
    timed_out: bool = False
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
    time_limit: float | None = None,
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
    init_cut = False
    kept: list[np.ndarray] = []
    if init_points is not None:
        n_init = init_points.shape[0]
        for i0 in range(0, n_init, chunk):  # in chunks: m initial points would make an m x m block
            if time_limit is not None and time.perf_counter() - t0 > time_limit:
                n_init, init_points, init_cut = i0, init_points[:i0], True
                break
            Xi = init_points[i0 : i0 + chunk]
            rows, M = eng.masked(Xi)
            eng.commit(Xi, rows, M, None)
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
    bar = _make_progress(progress, N, SECONDS_PER_FLOP * N * m * (n + 4))
    processed = 0
    stopped = False
    timed_out = init_cut
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
                bar.update(k)
                if stop_q is not None:
                    stopped = True
                    break
                if time_limit is not None and processed < N and time.perf_counter() - t0 > time_limit:
                    timed_out = True
                    break
            if stopped or timed_out:
                break
    finally:
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
        timed_out=timed_out,
    )


def _domain_arg(K: Any, n: int) -> Domain:
    if isinstance(K, Domain):
        return as_domain(K, n, "K")
    return as_domain(as_matrix(K, "K"), n, "K")  # an array of points is a data set


# =====================================================================================
# public: sampling-based bias estimation
# =====================================================================================


def sampling_bias(
    frame: Any,
    K: Any,
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
    tie_tol: float = TIE_TOL,
    time_limit: float | None = None,
    ctx: Any = None,
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
    K : Domain or array_like, shape (N, n)
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
    tie_tol : float, default TIE_TOL (1e-12)
        Coefficients within ``tie_tol`` (absolute) below the smallest coefficient of
        :math:`J^*(x)` count as tied with it and are folded in too. Symmetric frames have exact
        ties that rounding would otherwise break arbitrarily; folding them in only lowers the
        estimate, which keeps every guarantee. ``0`` follows the theorem literally.
    time_limit : float, optional
        Seconds after which no further chunk is started. The estimate is then the one of the
        samples processed so far (``n_samples`` says how many, ``info["time_limit_hit"]`` is
        True): for a finite data set it is no longer a guarantee but ``"on-samples"``.
    ctx : relu_frames_nb.pipeline.Context, optional
        The context of a check: when given, its seed replaces ``seed`` and its remaining time
        caps ``time_limit``.

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
    >>> from relu_frames_nb.paper.bias.sampling import sampling_bias
    >>> est = sampling_bias(rf.zoo.mercedes_benz(), rf.Ball(2), n_samples=100_000, init="none")
    >>> est.guarantee, est.n_samples
    ('on-samples', 100000)
    >>> bool(np.all((est.values >= -0.5) & (est.values < -0.495)))  # the exact value is -1/2
    True
    >>> sampling_bias(rf.zoo.mercedes_benz(), rf.Ball(2), n_samples=1000).values  # init="auto"
    array([-0.5, -0.5, -0.5])
    """
    time_limit, seed = Context.for_tool(ctx, time_limit, seed)
    F = as_frame(frame)
    dom = _domain_arg(K, F.n)
    n_samples = as_count(n_samples, "n_samples")
    ss = as_seed_sequence(seed)
    init_kind, init_alpha = _parse_init(init, F.m)
    corr_kind, corr_value = _parse_correction(correction)
    if chunk_size is not None:
        chunk_size = as_count(chunk_size, "chunk_size")
    max_memory = as_count(max_memory, "max_memory", minimum=1024)
    es = _parse_early_stop(early_stop)
    time_limit = as_time_limit(time_limit)
    tie_tol = as_nonnegative(tie_tol, "tie_tol")
    finite = dom.finite
    N = dom.points.shape[0] if finite else n_samples
    hist_pos = _history_positions(history, N)
    fs, fs_how = spark_status(F, full_spark, SPARK_CHECK_LIMIT)
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
        time_limit=time_limit,
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
        "time_limit_hit": run.timed_out,
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
