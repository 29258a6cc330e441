"""Active patterns: grouping outputs by their active set, and the linear algebra on them.

Private helpers shared by :mod:`~relu_frames_nb.paper.reconstruction`,
:mod:`~relu_frames_nb.paper.left_inverse`, :mod:`~relu_frames_nb.paper.frame_algorithm`,
:mod:`~relu_frames_nb.paper.rectifying` and :mod:`~relu_frames_nb.paper.stability`: an active pattern is a
row of a boolean ``(N, m)`` matrix (which frame elements are active at a point or in an output);
rows are packed into 64-bit words to group equal patterns and to test containment, and each
distinct pattern is factorized once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DimensionMismatchError, InputError, NotInjectiveError
from .tolerances import CERT_RATIO, DUAL_ATOL, NORMAL_EQ_MIN_RATIO
from .validation import to_float_array

# NORMAL_EQ_MIN_RATIO, DUAL_ATOL and CERT_RATIO live in relu_frames_nb._util.tolerances (imported above)
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


def _gram_stack(phi: np.ndarray, patterns: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """``S_J = Phi^T diag(1_J) Phi`` per bool row ``J``: from the table when given, else ``(c, n, m) @ (m, n)``."""
    P = patterns.astype(float)
    n = phi.shape[1]
    if table is not None:
        return (P @ table).reshape(-1, n, n)
    return np.matmul(phi.T[None, :, :] * P[:, None, :], phi)


def _gram_chunk(m: int, n: int) -> tuple[bool, int]:
    """Whether the ``(m, n^2)`` table fits in one block, and how many patterns to process at once."""
    small = m * n * n <= CHUNK_ELEMS
    return small, max(1, CHUNK_ELEMS // (n * n if small else n * m + n * n))


def pattern_spectra(phi: np.ndarray, patterns: np.ndarray, w_in: float = 1.0, w_out: float = 0.0) -> np.ndarray:
    r"""Extreme eigenvalues of :math:`w_{in} S_J + w_{out} S_{I \setminus J}` per bool row ``J``: ``(U, 2)``."""
    m, n = phi.shape
    small, chunk = _gram_chunk(m, n)
    table = outer_table(phi) if small else None
    full = phi.T @ phi
    out = np.empty((patterns.shape[0], 2))
    for c0 in range(0, patterns.shape[0], chunk):
        S = _gram_stack(phi, patterns[c0 : c0 + chunk], table)
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
        small, chunk = _gram_chunk(phi.shape[0], n)
        table = outer_table(phi) if small else None
        target = np.where(mask, Z + alpha, 0.0)
        exact[:] = False
        for p0 in range(0, U, chunk):
            p1 = min(U, p0 + chunk)
            S = _gram_stack(phi, patterns[p0:p1], table)
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


# ---------------------------------------------------------------------------------
# Spanning tests for many active sets at once
# ---------------------------------------------------------------------------------

#: Up to this dimension the Gram matrices are tested with one batched ``eigvalsh``; above it
#: with one Cholesky factorization each (no eigenvalues needed).
_EIGVALSH_MAX_N = 48
#: Default bound in bytes of the working arrays of :func:`spanning_mask`.
DEFAULT_MAX_MEMORY = 64 * 2**20


def certificate_size(n: int, m: int) -> int:
    """Rows drawn into a certificate sub-frame: ``n`` plus a margin that makes it well conditioned."""
    return int(min(m, n + max(8, n // 16)))


def _gram_certified(S: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Per Gram matrix ``S[b]`` (n x n), whether ``lambda_min(S[b]) > c[b]`` is certain (up to ``c/2``)."""
    n = S.shape[1]
    if S.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    if n <= _EIGVALSH_MAX_N:
        return np.linalg.eigvalsh(S)[:, 0] > c
    from scipy.linalg.lapack import dpotrf

    out = np.zeros(S.shape[0], dtype=bool)
    eye = np.eye(n)
    for b in range(S.shape[0]):
        _, info = dpotrf(S[b] - c[b] * eye, lower=1, clean=0, overwrite_a=1)
        out[b] = info == 0
    return out


def certify_spanning(
    unit: np.ndarray, mask: np.ndarray, rank_tol: float, *, seed: int = 0, max_memory: int = DEFAULT_MAX_MEMORY
) -> np.ndarray:
    r"""Per row of ``mask``: True where a sub-frame of the active unit rows provably spans.

    For ``J`` a subset of the active set ``I``, :math:`\sigma_{min}(U_I) \ge \sigma_{min}(U_J)`
    (adding rows can only raise the smallest singular value) and
    :math:`\sigma_{max}(U_I) \le \sqrt{|I|}` (unit rows). So when
    :math:`\lambda_{min}(U_J^T U_J) > c = ` ``CERT_RATIO * |J|`` (tested with a margin covering
    rounding: the certified bound is ``c / 2``) and ``c / 2 > (2 rank_tol)^2 m >= (2 rank_tol)^2 |I|``, the relative
    singular-value test of :func:`spans_rows` on all of ``I`` answers True, with a gap of orders
    of magnitude. ``J`` is about :func:`certificate_size` active rows taken from a window of a
    fixed random permutation of the rows (seeded: reproducible), so one Gram matrix of size
    ``n x n`` from ``|J| ~ 1.25 n`` rows replaces an SVD of ``|I| x n``. False means "not
    certified" (the exact test decides), never "does not span".
    """
    N, m = mask.shape
    n = unit.shape[1]
    out = np.zeros(N, dtype=bool)
    if N == 0 or m < n:
        return out
    k = certificate_size(n, m)
    r = min(m, 4 * k)  # window of candidates: enough active ones whenever about 1/4 of the rows are active
    rng = np.random.default_rng(seed)
    perm = rng.permutation(m)
    per_row = 8 * (r + 2 * k * n + 2 * n * n) + 16 * r
    B = int(max(1, min(N, max_memory // per_row)))
    offsets = rng.integers(0, m, size=N)
    for b0 in range(0, N, B):
        rows = np.arange(b0, min(N, b0 + B))
        cand = perm[(offsets[rows, None] + np.arange(r)[None, :]) % m]  # (B, r) distinct rows each
        act = mask[rows[:, None], cand]
        pos = np.argsort(~act, axis=1, kind="stable")[:, :k]  # the first k active candidates
        sel = np.take_along_axis(cand, pos, axis=1)
        w = np.take_along_axis(act, pos, axis=1).astype(float)
        A = unit[sel] * w[:, :, None]  # (B, k, n); inactive picks weigh 0
        S = np.matmul(A.transpose(0, 2, 1), A)
        t = np.maximum(w.sum(axis=1), 1.0)
        c = CERT_RATIO * t
        ok = _gram_certified(S, c)
        ok &= 0.5 * c > 4.0 * rank_tol**2 * m  # |I| <= m, for a row or any superset of it
        out[rows] = ok
    return out


def _certify_groups(
    unit: np.ndarray, mask: np.ndarray, rows: np.ndarray, g0: int, k: int, rank_tol: float, seed: int, max_memory: int
) -> np.ndarray:
    """Certified rows among ``mask[rows]``: groups of ``g0`` consecutive rows, halved on failure."""
    cert = np.zeros(rows.size, dtype=bool)
    groups = [(a, min(rows.size, a + g0)) for a in range(0, rows.size, g0)]
    while groups:
        multi = [(a, b) for a, b in groups if b - a > 1]
        single = [a for a, b in groups if b - a == 1]
        nxt: list[tuple[int, int]] = []
        if single:
            idx = np.array(single)
            cert[idx] = certify_spanning(unit, mask[rows[idx]], rank_tol, seed=seed, max_memory=max_memory)
        if multi:
            inter = np.stack([np.logical_and.reduce(mask[rows[a:b]], axis=0) for a, b in multi])
            big = inter.sum(axis=1) >= k
            good = np.zeros(len(multi), dtype=bool)
            if big.any():
                good[big] = certify_spanning(unit, inter[big], rank_tol, seed=seed, max_memory=max_memory)
            for (a, b), g in zip(multi, good):
                if g:
                    cert[a:b] = True
                else:
                    mid = (a + b) // 2
                    nxt += [(a, mid), (mid, b)]
        groups = nxt
    return cert


def spanning_mask(
    phi: np.ndarray,
    mask: np.ndarray,
    rank_tol: float,
    *,
    max_memory: int = DEFAULT_MAX_MEMORY,
    seed: int = 0,
    progress=None,
) -> np.ndarray:
    """Per row of ``mask``: ``spans_rows(phi, flatnonzero(row), rank_tol)[0]``, for many rows at once.

    Fewer than ``n`` active rows never span. Spanning is monotone (a superset of a spanning
    set spans, with a smallest singular value at least as large), so the *intersection* of the
    active sets of a group of rows is certified once for the whole group
    (:func:`certify_spanning`, one Gram matrix of about ``n`` rows); groups that fail are split
    in halves (divide and conquer) down to single rows. The group size starts where the
    intersection is expected to keep about ``2 n`` rows (from the mean active fraction). Only
    the rows left uncertified (typically those that do not span, or are badly conditioned) go
    through the exact SVD test, once per distinct pattern.
    The answer is the exact test's (a certificate holds only with a margin of orders of
    magnitude over the SVD test's threshold). ``progress`` (optional) gets ``update(k)`` calls.
    """
    N, m = mask.shape
    n = phi.shape[1]
    counts = mask.sum(axis=1)
    ok = np.zeros(N, dtype=bool)
    todo = np.flatnonzero(counts >= n)
    if todo.size == 0:
        if progress is not None:
            progress.update(N)
        return ok
    unit = phi / np.linalg.norm(phi, axis=1, keepdims=True)
    if progress is not None:
        progress.update(N - todo.size)
    k = certificate_size(n, m)
    frac = float(counts[todo].mean()) / m
    g0 = 1
    while g0 < 1024 and m * frac ** (2 * g0) >= 2 * k:
        g0 *= 2
    step = max(g0, min(todo.size, 4096) // g0 * g0)
    for s0 in range(0, todo.size, step):
        rows = todo[s0 : s0 + step]
        cert = _certify_groups(unit, mask, rows, g0, k, rank_tol, seed + s0, max_memory)
        ok[rows[cert]] = True
        rest = rows[~cert]
        if rest.size:
            first, inverse = group_patterns(mask[rest])
            ok_p = np.array([spans_rows(phi, np.flatnonzero(mask[rest[f]]), rank_tol)[0] for f in first], dtype=bool)
            ok[rest] = ok_p[inverse]
        if progress is not None:
            progress.update(rows.size)
    return ok


def as_dual(dual: Any, n: int, k: int, phi_J: np.ndarray, *, check: bool, name: str = "dual") -> np.ndarray:
    """A synthesis matrix ``(n, k)`` from a Frame (rows = dual vectors) or an ``(n, k)`` array."""
    if hasattr(dual, "vectors") and hasattr(dual, "redundancy"):  # a Frame (asked, not imported: utilities sit below it)
        D = np.array(dual.vectors).T
    else:
        D = to_float_array(dual, name)
    if D.shape != (n, k):
        raise DimensionMismatchError(
            f"{name} must be the ({n}, {k}) synthesis matrix (columns are the dual vectors, as returned by "
            f"relu_dual) or a Frame of {k} vectors in R^{n}; got shape {D.shape}."
        )
    if check:
        err = float(np.max(np.abs(D @ phi_J - np.eye(n)))) if k else np.inf
        if not err <= DUAL_ATOL:
            raise InputError(
                f"{name} must be a dual frame of Phi_J (D @ Phi_J = I); got max |D @ Phi_J - I| = {err:.3g}. "
                "If you passed the dual vectors as rows, pass a Frame or the transpose; "
                "use check_dual=False to synthesize with a non-dual collection on purpose."
            )
    return D
