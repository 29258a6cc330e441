r"""Private fused kernels of the paper-scale experiments (owned by ``experiments.py``).

The hot loop of Figure "isinj" is the sampling-based bias estimation of App. C1 over
``N = 5 * 10^5`` samples for thousands of frames. Its straightforward form computes
``G = X @ Phi.T``, the ``n``-th largest coefficient per row (``np.partition``) and a
masked minimum: about 1 µs per sample for ``m = 150``. Here the same estimate is obtained
exactly with a filter that proves, for most samples, that they cannot change any entry
still under test:

* ``G`` is computed in float32 (half the cost of the matrix product and of the memory
  traffic); with the forward error bound of a dot product
  :math:`|\tilde g_i - g_i| \le \gamma_{n+2} \|x\| \|\phi_i\|` every float32 decision is
  made with a safety margin ``delta`` per row;
* a sample ``x`` can lower an entry only if some ``i`` with ``g_i < alpha_i`` lies among
  the ``n`` largest coefficients. With ``g* = max{g_i : g_i < alpha_i}`` this is the case
  iff fewer than ``n`` coefficients exceed ``g*``: two passes over the row, no sort;
* only the samples that pass the filter (few, once the estimate has settled) are
  recomputed in float64 in a fixed summation order (the *canonical* coefficients,
  bit-identical in the numba and numpy paths) and processed exactly.

Entries whose estimate has dropped below every bias under test are *decided* (the
estimate only decreases, so their verdict can no longer change): they leave the filter,
and a configuration whose entries are all decided stops drawing samples.

Both paths (numba if importable, numpy otherwise) give identical results; the tests
check it.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from ..errors import InputError
from .tolerances import UNIT_ZERO_TOL

__all__ = [
    "HAVE_NUMBA",
    "resolve_kernel",
    "canonical_coefficients",
    "float32_margin",
    "f32_up",
    "update_block",
]

#: whether the optional accelerator is installed (imported only when a kernel runs)
HAVE_NUMBA = os.environ.get("RELU_FRAMES_NO_NUMBA", "") in ("", "0") and importlib.util.find_spec("numba") is not None


def _nb():
    """The numba kernels (imports numba and loads or compiles them on first use)."""
    from . import kernels_numba as _kernels_numba

    return _kernels_numba


_U32 = 2.0**-24
_U64 = 2.0**-53


def resolve_kernel(kernel: str) -> str:
    """``"auto"`` -> ``"numba"`` when numba is importable, else ``"numpy"``."""
    if kernel == "auto":
        return "numba" if HAVE_NUMBA else "numpy"
    if kernel == "numba" and not HAVE_NUMBA:
        raise InputError("kernel must be 'auto' or 'numpy' when numba is not installed; got 'numba'. pip install numba.")
    return kernel


def float32_margin(n: int) -> float:
    r"""Factor ``c`` with ``|g32_i - g64_i| <= c ||x|| ||phi_i||`` for coefficients in dimension ``n``.

    Two input roundings to float32, ``n`` products and ``n - 1`` additions give the
    classical bound :math:`\gamma_{n+2} = (n+2)u / (1 - (n+2)u)` with :math:`u = 2^{-24}`
    (Cauchy-Schwarz turns :math:`\sum_k |x_k \phi_{ik}|` into :math:`\|x\|\|\phi_i\|`); the
    canonical float64 values add :math:`\gamma_n` in double precision. A factor 2 covers any
    summation order or FMA use of the BLAS.
    """
    k = n + 2
    return 2.0 * (k * _U32 / (1.0 - k * _U32) + k * _U64)


def canonical_coefficients(X: np.ndarray, Phi: np.ndarray) -> np.ndarray:
    """``X @ Phi.T`` in float64, summed left to right over the coordinates (no FMA).

    The same order is used by the numba kernel, so both paths see bit-identical values.
    """
    out = X[:, 0:1] * Phi[:, 0]
    for k in range(1, X.shape[1]):
        out = out + X[:, k : k + 1] * Phi[:, k]
    return out


# ---------------------------------------------------------------------------------
# float32 thresholds rounded upwards (so that float32 comparisons stay conservative)
# ---------------------------------------------------------------------------------


def f32_up(x: np.ndarray) -> np.ndarray:
    """The smallest float32 values ``>= x`` (elementwise; infinities are kept)."""
    x = np.asarray(x, dtype=np.float64)
    y = x.astype(np.float32)
    low = y.astype(np.float64) < x
    if np.any(low):
        y[low] = np.nextafter(y[low], np.float32(np.inf))
    return y


def _thresholds(alpha_f, seg, dcoef, dmax):
    """Per entry ``f32_up(alpha_f + d_c)`` with ``d_c = dcoef[c] * max ||x||`` of the chunk."""
    d = np.repeat(dcoef * dmax, np.diff(seg))
    with np.errstate(invalid="ignore"):
        return f32_up(alpha_f + d)


# ---------------------------------------------------------------------------------
# numpy path
# ---------------------------------------------------------------------------------


def _update_block_numpy(G32, X, Phi, seg, n, alpha_f, est, dec_thr, dcoef, xmax, undecided, active, prune):
    n_exact = 0
    thr = _thresholds(alpha_f, seg, dcoef, xmax)
    for c in range(seg.shape[0] - 1):
        if not active[c]:
            continue
        a, b = int(seg[c]), int(seg[c + 1])
        m = b - a
        g = G32[:, a:b]
        gp = np.where(g < thr[None, a:b], g, np.float32(-np.inf)).max(axis=1)
        has = gp > -np.inf
        hi = f32_up(gp.astype(np.float64) + 2.0 * dcoef[c] * xmax)
        cnt = np.count_nonzero(g > hi[:, None], axis=1)
        rows = np.flatnonzero(has & (cnt < n))
        if rows.size == 0:
            continue
        n_exact += rows.size
        gc = canonical_coefficients(X[rows], Phi[a:b])
        t = np.partition(gc, m - n, axis=1)[:, m - n]
        masked = np.where(gc >= t[:, None], gc, np.inf).min(axis=0)
        e = est[a:b]
        af = alpha_f[a:b]
        lower = masked < e
        e[lower] = masked[lower]
        und = af > -np.inf
        if prune:
            newly = lower & und & (e < dec_thr[a:b])
            keep = lower & und & ~newly
            af[keep] = e[keep]
            af[newly] = -np.inf
            undecided[c] -= int(np.count_nonzero(newly))
        else:
            af[lower] = e[lower]
    return n_exact


# ---------------------------------------------------------------------------------
# numba path
# ---------------------------------------------------------------------------------


def _keys(y: np.ndarray) -> np.ndarray:
    """Order-preserving int32 keys of float32 values (-0.0 normalized to +0.0)."""
    b = (np.asarray(y, dtype=np.float32) + np.float32(0.0)).view(np.int32)
    return b ^ ((b >> 31) & np.int32(0x7FFFFFFF))


def update_block(G32, X, Phi, seg, n, alpha_f, est, dec_thr, dcoef, xmax, undecided, active, *, prune, kernel):
    """Process one chunk of samples for a stack of frames sharing the samples.

    Parameters
    ----------
    G32 : ndarray, shape (C, S), float32
        ``float32(X) @ float32(Phi).T`` for the stacked frames (``S = sum m``).
    X : ndarray, shape (C, n), float64
        The samples of the chunk.
    Phi : ndarray, shape (S, n), float64
        The stacked frame vectors; frame ``c`` is ``Phi[seg[c]:seg[c+1]]``.
    seg : ndarray of int64, shape (K + 1,)
        Segment offsets.
    n : int
        Dimension (size of a most correlated basis).
    alpha_f, est, dec_thr : ndarray, shape (S,)
        Filter values (``est`` for undecided entries, ``-inf`` for decided ones), the
        running estimate, and the decision thresholds. Updated in place.
    dcoef : ndarray, shape (K,)
        Per frame, ``float32_margin(n) * max_i ||phi_i||``.
    xmax : float
        Largest sample norm of the chunk (the margin is ``dcoef * xmax``).
    undecided : ndarray of int64, shape (K,)
        Number of undecided entries per frame (updated in place when ``prune``).
    active : ndarray of bool, shape (K,)
        Frames still being processed.
    prune : bool
        Whether entries below their decision threshold leave the filter.
    kernel : {"numba", "numpy"}

    Returns
    -------
    int
        Number of (sample, frame) pairs that were processed exactly in float64.
    """
    if kernel == "numba":
        thr = _keys(_thresholds(alpha_f, seg, dcoef, xmax))
        return int(
            _nb()._update_block_numba(
                G32, X, Phi, seg, n, alpha_f, est, dec_thr, dcoef, thr, float(xmax), undecided, active, prune
            )
        )
    return _update_block_numpy(G32, X, Phi, seg, n, alpha_f, est, dec_thr, dcoef, float(xmax), undecided, active, prune)


# ---------------------------------------------------------------------------------
# Figure "propinj": first snapshot at which each test point is rectifying
# ---------------------------------------------------------------------------------


def _first_rectifying_numpy(A: np.ndarray, GY: np.ndarray, n: int) -> np.ndarray:
    H, m = A.shape
    first = np.empty(GY.shape, dtype=np.int64)
    for i in range(m):  # snapshots with A[g, i] > GY[:, i] come first (A is non-increasing in g)
        first[:, i] = H - np.searchsorted(A[::-1, i], GY[:, i], side="right")
    return np.partition(first, n - 1, axis=1)[:, n - 1]


def _compress_columns(A: np.ndarray):
    """Distinct values of each non-increasing column of ``A`` (ascending, +inf padded) and where they start."""
    H, m = A.shape
    change = np.ones((H, m), dtype=bool)
    change[1:] = A[1:] != A[:-1]
    R = change.sum(axis=0)
    P = 1 << int(R.max()).bit_length()  # > max R: every column ends with a +inf pad
    W = np.full((m, P), np.inf)
    S = np.full((m, P + 1), H, dtype=np.int64)
    for i in range(m):
        idx = np.flatnonzero(change[:, i])
        W[i, : idx.size] = A[idx[::-1], i]
        S[i, : idx.size] = idx
    return W, R.astype(np.int64), S


def first_rectifying(A: np.ndarray, GY: np.ndarray, n: int, *, kernel: str) -> np.ndarray:
    """Index of the first snapshot at which each test point has at least ``n`` active elements.

    Parameters
    ----------
    A : ndarray, shape (H, m)
        Snapshots of the estimate, non-increasing down the rows.
    GY : ndarray, shape (M, m)
        Frame coefficients of the test points.
    n : int
        Number of active elements needed (full-spark frame).
    kernel : {"numba", "numpy"}

    Returns
    -------
    ndarray of int64, shape (M,)
        ``H`` where the point never becomes rectifying.
    """
    if kernel == "numba":
        W, R, S = _compress_columns(A)
        return _nb()._first_rectifying_numba(W, R, S, np.ascontiguousarray(GY), n)
    return _first_rectifying_numpy(A, GY, n)


# ---------------------------------------------------------------------------------
# the circuit search of the half-space depth (paper/depth.py): one NNLS per call
# ---------------------------------------------------------------------------------

#: the NNLS of the circuit search stops when no gradient entry exceeds this many units in the last place of the
#: largest Gram entry, times the number of columns (as Lawson and Hanson's test, on the normal equations)
GRAM_NNLS_ULPS = 10.0


def _cholesky_solve_numpy(A, b):
    """``A^-1 b`` for a symmetric positive definite ``A`` by its Cholesky factor (LinAlgError when not definite)."""
    L = np.linalg.cholesky(A)
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


def _gram_nnls(idx, w, Gp, U, maxiter):
    r"""Lawson--Hanson NNLS of the circuit search, on the normal equations.

    The columns are :math:`a_j = (w_j u_j, 1)` for the unit points :math:`u_j` (columns ``idx`` of ``U``,
    of shape ``(n, N)``) and the right-hand side is :math:`e_{n+1}`, so that the Gram matrix is
    :math:`w_i w_j G_{ij} + 1` with ``Gp = U^T U`` computed once per search (only the rows of passive
    points are read), and :math:`A^T b` is a vector of ones. Lawson and Hanson's active-set method
    (*Solving Least Squares Problems*, 1974, ch. 23), each passive subproblem solved from the Gram matrix
    by Cholesky; a column whose first solve gives it no positive weight is set aside until the point
    moves (their guard against cycling), and none is added to ``n + 1`` passive ones (they span the
    space, so the residual is zero up to rounding; one more would make the system singular, and its
    rounded solution can hold ``n + 2`` points, which no circuit proof accepts). The residual is computed
    from the columns themselves, not from the Gram matrix (which would square it). Returns ``(x,
    residual, iterations)``; ``iterations > maxiter`` means the iteration limit was reached.
    ``kernels_numba._gram_nnls_numba`` is the same algorithm step by step, in loops (the same choices,
    ties to the first index; sums may round differently in the last place).
    """
    p = idx.shape[0]
    ones = np.ones(p)
    x = np.zeros(p)
    passive = np.zeros(p, dtype=np.bool_)
    blocked = np.zeros(p, dtype=np.bool_)
    grad = ones.copy()
    tol = GRAM_NNLS_ULPS * p * 2.0**-52 * (np.max(w * w) + 1.0)  # the largest Gram entry is on the diagonal
    it = 0
    while it <= maxiter:
        if np.count_nonzero(passive) > U.shape[0]:  # n + 1 independent columns span the space: nothing to add
            break
        g = np.where(passive | blocked, -np.inf, grad)
        j = np.argmax(g)
        if not g[j] > tol:
            break
        passive[j] = True
        first = True
        moved = False
        while True:
            it += 1
            if it > maxiter:  # the limit: the caller gets no answer
                break
            P = np.flatnonzero(passive)
            IP = idx[P]
            s = _cholesky_solve_numpy(Gp[IP][:, IP] * np.outer(w[P], w[P]) + 1.0, ones[: P.shape[0]])
            if first:
                first = False
                if not s[np.flatnonzero(P == j)[0]] > 0.0:  # no descent along the new column: aside until the point moves
                    passive[j] = False
                    blocked[j] = True
                    break
            xP = x[P]
            neg = s <= 0.0
            if not neg.any():
                x[P] = s
                moved = True
                break
            # the longest step that keeps the passive coefficients non-negative; it zeroes the one at qmin
            ratio = np.where(neg, xP / np.where(neg, xP - s, 1.0), 2.0)
            qmin = np.argmin(ratio)
            xP = xP + ratio[qmin] * (s - xP)
            out = xP <= UNIT_ZERO_TOL
            out[qmin] = True
            xP[out] = 0.0
            x[P] = xP
            passive[P[out]] = False
            moved = True
        if moved:
            blocked[:] = False
            P = np.flatnonzero(passive)  # the gradient A^T (b - A x), from the passive columns only
            grad = ones - x.sum()
            if P.shape[0] > 0:
                grad = grad - w * ((x[P] * w[P]) @ Gp[idx[P]][:, idx])
    P = np.flatnonzero(passive)
    r = U[:, idx[P]] @ (x[P] * w[P]) if P.shape[0] > 0 else np.zeros(U.shape[0])
    last = x.sum() - 1.0
    return x, np.sqrt(r @ r + last * last), it


def gram_nnls(idx: np.ndarray, w: np.ndarray, Gp: np.ndarray, U: np.ndarray, maxiter: int, *, kernel: str):
    """The NNLS of the circuit search (:func:`_gram_nnls`): ``(x, residual)``, or None when it did not converge
    (iteration limit, or a singular passive system).

    ``kernel`` is ``"numba"`` (compiled) or ``"numpy"`` (the same code, interpreted).
    """
    try:
        if kernel == "numba":
            x, res, it = _nb()._gram_nnls_numba(idx, w, Gp, U, maxiter, GRAM_NNLS_ULPS, UNIT_ZERO_TOL)
        else:
            x, res, it = _gram_nnls(idx, w, Gp, U, maxiter)
    except np.linalg.LinAlgError:
        return None
    if it > maxiter:
        return None
    return x, float(res)


def capture_nnls(pool: bytes, fixed: bytes, npts: int, weight: float, Gp: np.ndarray, U: np.ndarray, *, kernel: str):
    """The circuit search's NNLS on the points of a bit mask: ``(idx, x, residual)`` or None.

    ``pool`` and ``fixed`` are bit masks of the ``npts`` points (little-endian bytes); the points of ``pool``
    (``idx``, increasing) are the columns, those also in ``fixed`` weighted by ``weight``, and :func:`gram_nnls`
    solves the problem with at most ``50 * len(idx)`` solves. None when ``pool`` has fewer than two points or
    the solver gives no answer. With ``kernel="numba"`` the masks are read in the compiled call.
    """
    if kernel == "numba":
        try:
            idx, x, res, it = _nb()._capture_numba(
                np.frombuffer(pool, np.uint8), np.frombuffer(fixed, np.uint8), npts, weight, Gp, U, GRAM_NNLS_ULPS,
                UNIT_ZERO_TOL,
            )  # fmt: skip
        except np.linalg.LinAlgError:
            return None
        if idx.size < 2 or it > 50 * idx.size:
            return None
        return idx, x, float(res)
    bits = np.unpackbits(np.frombuffer(pool, np.uint8), count=npts, bitorder="little")
    idx = bits.nonzero()[0]
    if idx.size < 2:
        return None
    on = np.unpackbits(np.frombuffer(fixed, np.uint8), count=npts, bitorder="little")[idx].view(bool)
    got = gram_nnls(idx, np.where(on, weight, 1.0), Gp, U, 50 * idx.size, kernel=kernel)
    return None if got is None else (idx, *got)
