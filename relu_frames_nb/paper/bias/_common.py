"""Private helpers of the bias estimators: most correlated bases as batched kernels.

Shared by :mod:`~relu_frames_nb.paper.bias.correlated` (most correlated bases, maximal constant bias)
and :mod:`~relu_frames_nb.paper.bias.sampling` (the sampling engine). Notation: the rows of ``Phi`` are
the frame vectors and ``G = X @ Phi.T`` the frame coefficients of the points ``X``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InputError, TooExpensiveError
from ...frames import Frame

#: ``C(m, n)`` up to which the spark of a frame is computed to decide the full-spark fast path.
SPARK_CHECK_LIMIT = 200_000
#: the named initial values of the sampling estimate
INIT_CHOICES = ("auto", "frame", "none")


def unit_rows(F: Frame) -> np.ndarray:
    return F.vectors / F.norms[:, None]


def coefficients(X: np.ndarray, PT: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
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


def nth_largest(G: np.ndarray, n: int) -> np.ndarray:
    """The ``n``-th largest value of each row of ``G`` (shape ``(R,)``)."""
    m = G.shape[1]
    if n == m:
        return G.min(axis=1)
    return np.partition(G, m - n, axis=1)[:, m - n]


def independent_ordered(unit: np.ndarray, J: np.ndarray, rank_tol: float) -> np.ndarray:
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


def greedy_bases(G: np.ndarray, unit: np.ndarray, rank_tol: float) -> np.ndarray:
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


def top_n_sorted(G: np.ndarray, n: int) -> np.ndarray:
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


def mcb_core(G: np.ndarray, unit: np.ndarray, full_spark: bool, rank_tol: float) -> np.ndarray:
    """Most correlated bases for coefficient rows ``G``: fast top-n path, greedy where needed."""
    n = unit.shape[1]
    J = top_n_sorted(G, n)
    if full_spark or G.shape[0] == 0:
        return J
    bad = np.flatnonzero(~independent_ordered(unit, J, rank_tol))
    if bad.size:
        J[bad] = greedy_bases(G[bad], unit, rank_tol)
    return J


def spark_status(F: Frame, full_spark: Any, limit: int) -> tuple[bool, str]:
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
