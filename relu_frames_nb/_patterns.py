"""Active patterns: grouping outputs by their active set, and the linear algebra on them.

Private helpers shared by :mod:`~relu_frames_nb.reconstruction`,
:mod:`~relu_frames_nb.left_inverse`, :mod:`~relu_frames_nb.frame_algorithm`,
:mod:`~relu_frames_nb.rectifying` and :mod:`~relu_frames_nb.stability`: an active pattern is a
row of a boolean ``(N, m)`` matrix (which frame elements are active at a point or in an output);
rows are packed into 64-bit words to group equal patterns and to test containment, and each
distinct pattern is factorized once.
"""

from __future__ import annotations

import numpy as np

from .errors import NotInjectiveError

#: The normal equations of an active pattern are solved only when
#: ``lambda_min / lambda_max`` of :math:`\Phi_J^T\Phi_J` exceeds this (relative error of order
#: ``1e6 * machine epsilon`` at worst); worse-conditioned patterns use an SVD.
NORMAL_EQ_MIN_RATIO = 1e-6
#: Up to this many distinct active patterns, each gets its own SVD-based pseudo-inverse.
EXACT_PATTERN_LIMIT = 64
#: Float64 elements per temporary block (32 MB).
CHUNK_ELEMS = 1 << 22


def pattern_words(mask: np.ndarray) -> np.ndarray:
    """The rows of a bool matrix packed into 64-bit words, shape ``(N, ceil(m / 64))``."""
    N = mask.shape[0]
    packed = np.packbits(mask, axis=1)
    width = packed.shape[1]
    W = max(8, -(-width // 8) * 8)
    buf = np.zeros((N, W), dtype=np.uint8)
    buf[:, :width] = packed
    return buf.view(np.uint64)


def pattern_keys(mask: np.ndarray) -> np.ndarray:
    """One hashable, sortable key per row of a bool matrix (packed bits)."""
    words = pattern_words(mask)
    if words.shape[1] == 1:
        return words.reshape(-1)
    return np.ascontiguousarray(words).view(np.dtype((np.void, 8 * words.shape[1]))).reshape(-1)


def group_patterns(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row index of the first occurrence of each distinct row and, per row, its pattern number."""
    _, first, inverse = np.unique(pattern_keys(mask), return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def outer_table(phi: np.ndarray) -> np.ndarray:
    """``(m, n*n)`` table of the rank-one operators phi_i phi_i^T, so S_J = mask @ table."""
    m, n = phi.shape
    return (phi[:, :, None] * phi[:, None, :]).reshape(m, n * n)


def spans_rows(phi: np.ndarray, idx: np.ndarray, rank_tol: float) -> tuple[bool, int]:
    """Whether ``phi[idx]`` spans (relative singular-value test on unit rows, as in Frame) and its rank."""
    n = phi.shape[1]
    if idx.size == 0:
        return False, 0
    sub = phi[idx]
    unit = sub / np.linalg.norm(sub, axis=1, keepdims=True)
    sv = np.linalg.svd(unit, compute_uv=False)
    rank = int(np.sum(sv > rank_tol * sv[0]))
    return rank == n, rank


def dual_matrix(phi: np.ndarray, idx: np.ndarray, rank_tol: float) -> np.ndarray | None:
    """Canonical dual synthesis matrix ``pinv(Phi_J)`` of shape ``(n, |J|)``, or None if Phi_J does not span."""
    if idx.size < phi.shape[1] or not spans_rows(phi, idx, rank_tol)[0]:
        return None
    return np.linalg.pinv(phi[idx])


def pattern_spectra(phi: np.ndarray, patterns: np.ndarray, w_in: float = 1.0, w_out: float = 0.0) -> np.ndarray:
    r"""Extreme eigenvalues of :math:`w_{in} S_J + w_{out} S_{I \setminus J}` per bool row ``J``: ``(U, 2)``."""
    m, n = phi.shape
    table = outer_table(phi)
    full = phi.T @ phi
    out = np.empty((patterns.shape[0], 2))
    chunk = max(1, CHUNK_ELEMS // (n * n))
    for c0 in range(0, patterns.shape[0], chunk):
        S = (patterns[c0 : c0 + chunk].astype(float) @ table).reshape(-1, n, n)
        if w_out != 0.0 or w_in != 1.0:
            S = (w_in - w_out) * S + w_out * full
        w = np.linalg.eigvalsh(S)
        out[c0 : c0 + chunk, 0] = w[:, 0]
        out[c0 : c0 + chunk, 1] = w[:, -1]
    return out


def solve_active(
    phi: np.ndarray, alpha: np.ndarray, Z: np.ndarray, mask: np.ndarray, rank_tol: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""Rows :math:`x_r = \Phi_{J_r}^{+}(z_r + \alpha)_{J_r}`, ``J_r = mask[r]``; also the rows that failed.

    Rows are grouped by pattern. With few patterns each one gets an SVD pseudo-inverse;
    with many, the normal equations of every pattern are formed with one matrix product
    and solved in a batch, and the rare ill-conditioned patterns go through the SVD.
    """
    N, m = Z.shape
    n = phi.shape[1]
    X = np.zeros((N, n))
    if N == 0:
        return X, np.zeros(0, dtype=np.intp)
    first, inverse = group_patterns(mask)
    U = first.size
    patterns = mask[first]
    sizes = patterns.sum(axis=1)
    order = np.argsort(inverse, kind="stable")
    starts = np.zeros(U + 1, dtype=np.intp)
    np.cumsum(np.bincount(inverse, minlength=U), out=starts[1:])
    failed = sizes < n
    exact = ~failed
    if U > EXACT_PATTERN_LIMIT:
        table = outer_table(phi)
        target = np.where(mask, Z + alpha, 0.0)
        chunk = max(1, CHUNK_ELEMS // (n * n))
        exact[:] = False
        for p0 in range(0, U, chunk):
            p1 = min(U, p0 + chunk)
            S = (patterns[p0:p1].astype(float) @ table).reshape(-1, n, n)
            w = np.linalg.eigvalsh(S)
            good = (w[:, 0] > NORMAL_EQ_MIN_RATIO * w[:, -1]) & ~failed[p0:p1]
            exact[p0:p1] = ~good & ~failed[p0:p1]
            rows = order[starts[p0] : starts[p1]]
            loc = inverse[rows] - p0
            keep = good[loc]
            rows, loc = rows[keep], loc[keep]
            for r0 in range(0, rows.size, chunk):
                rr, ll = rows[r0 : r0 + chunk], loc[r0 : r0 + chunk]
                X[rr] = np.linalg.solve(S[ll], (target[rr] @ phi)[:, :, None])[:, :, 0]
    for p in np.flatnonzero(exact):
        idx = np.flatnonzero(patterns[p])
        D = dual_matrix(phi, idx, rank_tol)
        if D is None:
            failed[p] = True
            continue
        rows = order[starts[p] : starts[p + 1]]
        X[rows] = (Z[rows][:, idx] + alpha[idx]) @ D.T
    return X, np.flatnonzero(failed[inverse])


def not_recoverable(phi: np.ndarray, mask: np.ndarray, failed: np.ndarray, N: int, rank_tol: float, name: str):
    r = int(failed[0])
    idx = np.flatnonzero(mask[r])
    rank = spans_rows(phi, idx, rank_tol)[1]
    n = phi.shape[1]
    return NotInjectiveError(
        f"{name}: the positive coordinates J = {{i : z_i > 0}} do not span R^{n} in {failed.size} of {N} row(s); "
        f"first failing row {r} has |J| = {idx.size} (rank {rank}). These inputs cannot be recovered: either the "
        "layer is not injective there (the active sub-frame does not span) or the input lies exactly on a "
        "hyperplane <x, phi_i> = alpha_i, where an active element gives z_i = 0. No partial result is returned."
    )
