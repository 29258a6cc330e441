"""The numba versions of the kernels in :mod:`relu_frames_nb._util.kernels` (imported on first use).

Kept apart so that importing the package or :mod:`relu_frames_nb.experiments` does not
import numba (about 0.2 s); compiled functions are cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as _numba
import numpy as np

# The float32 filter runs on order-preserving int32 keys of the float32 values
# (``key = bits ^ ((bits >> 31) & 0x7FFFFFFF)``): LLVM vectorizes the integer masked
# maximum and count (about 0.15 ns per coefficient), not their float versions.
# The key order refines the float order (it only splits -0.0 < +0.0); thresholds are
# normalized to +0.0, which keeps both passes conservative.

_MASK = np.int32(0x7FFFFFFF)
_IMIN = np.int32(-(2**31))
_S31 = np.int32(31)


@_numba.njit(cache=True, nogil=True)
def _row_max_below(g, thr):  # pragma: no cover - compiled
    gp = _IMIN
    for i in range(g.shape[0]):
        v = g[i]
        k = np.int32(v ^ ((v >> _S31) & _MASK))
        x = k if k < thr[i] else _IMIN
        gp = gp if gp > x else x
    return gp


@_numba.njit(cache=True, nogil=True)
def _row_count_above(g, hi):  # pragma: no cover - compiled
    cnt = 0
    for i in range(g.shape[0]):
        v = g[i]
        k = np.int32(v ^ ((v >> _S31) & _MASK))
        cnt += k > hi
    return cnt


@_numba.njit(cache=True, nogil=True)
def _f32_up_key(x, buf):  # pragma: no cover - compiled
    """Key of the smallest float32 >= x (with -0.0 normalized to +0.0)."""
    y = np.float32(x)
    if np.float64(y) < x:
        y = np.nextafter(y, np.float32(np.inf))
    buf[0] = y + np.float32(0.0)
    v = buf.view(np.int32)[0]
    return v ^ ((v >> 31) & _MASK)


@_numba.njit(cache=True, nogil=True)
def _key_value(k, ibuf):  # pragma: no cover - compiled
    ibuf[0] = k ^ ((k >> 31) & _MASK)
    return np.float64(ibuf.view(np.float32)[0])


@_numba.njit(cache=True, nogil=True)
def _update_block_numba(
    G32, X, Phi, seg, n, alpha_f, est, dec_thr, dcoef, thr, xmax, undecided, active, prune
):  # pragma: no cover - compiled
    Gi = G32.view(np.int32)
    C = G32.shape[0]
    K = seg.shape[0] - 1
    dim = X.shape[1]
    mmax = 0
    for c in range(K):
        if seg[c + 1] - seg[c] > mmax:
            mmax = seg[c + 1] - seg[c]
    gc = np.empty(mmax)
    tmp = np.empty(mmax)
    fbuf = np.empty(1, dtype=np.float32)
    ibuf = np.empty(1, dtype=np.int32)
    n_exact = 0
    ninf = -np.inf
    for r in range(C):
        g = Gi[r]
        for c in range(K):
            if not active[c]:
                continue
            a = seg[c]
            b = seg[c + 1]
            m = b - a
            gs = g[a:b]
            gp = _row_max_below(gs, thr[a:b])
            if gp == _IMIN:
                continue
            d = dcoef[c] * xmax
            hi = _f32_up_key(_key_value(gp, ibuf) + 2.0 * d, fbuf)
            if _row_count_above(gs, hi) >= n:
                continue
            n_exact += 1
            for i in range(m):
                acc = X[r, 0] * Phi[a + i, 0]
                for k in range(1, dim):
                    acc = acc + X[r, k] * Phi[a + i, k]
                gc[i] = acc
                tmp[i] = acc
            t = np.partition(tmp[:m], m - n)[m - n]
            for i in range(m):
                v = gc[i]
                if v >= t and v < est[a + i]:
                    est[a + i] = v
                    if alpha_f[a + i] > ninf:
                        if prune and v < dec_thr[a + i]:
                            alpha_f[a + i] = ninf
                            thr[a + i] = _IMIN
                            undecided[c] -= 1
                        else:
                            alpha_f[a + i] = v
                            thr[a + i] = _f32_up_key(v + d, fbuf)
    return n_exact


@_numba.njit(cache=True, nogil=True)
def _first_rectifying_numba(W, R, S, GY, n):  # pragma: no cover - compiled
    M, m = GY.shape
    P = W.shape[1]
    H = S.max()
    out = np.empty(M, dtype=np.int64)
    hist = np.zeros(H + 1, dtype=np.int64)
    for y in range(M):
        hist[:] = 0
        for i in range(m):
            col = W[i]
            g = GY[y, i]
            pos = 0
            step = P >> 1
            while step > 0:  # power-of-two search: pos = #{distinct values <= g}
                pos += step * (col[pos + step - 1] <= g)
                step >>= 1
            hist[S[i, R[i] - pos]] += 1
        acc = 0
        k = 0
        while True:  # n-th smallest first-activation index
            acc += hist[k]
            if acc >= n:
                break
            k += 1
        out[y] = k
    return out
