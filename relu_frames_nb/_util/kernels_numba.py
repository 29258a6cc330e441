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


# ---------------------------------------------------------------------------------
# the circuit search's NNLS (kernels._gram_nnls, step by step, in loops)
# ---------------------------------------------------------------------------------


@_numba.njit(cache=True, nogil=True)
def _cholesky_solve_ok(A, k, b, y, L):  # pragma: no cover - compiled
    """``y[:k] = A[:k, :k]^-1 b`` by the Cholesky factor (in ``L``, at least k x k, only its lower triangle written
    and read); False (y undefined) when not positive definite.
    """
    for j in range(k):
        d = A[j, j]
        for q in range(j):
            d -= L[j, q] * L[j, q]
        if not d > 0.0:
            return False
        d = np.sqrt(d)
        L[j, j] = d
        for i in range(j + 1, k):
            t = A[i, j]
            for q in range(j):
                t -= L[i, q] * L[j, q]
            L[i, j] = t / d
    for i in range(k):
        t = b[i]
        for q in range(i):
            t -= L[i, q] * y[q]
        y[i] = t / L[i, i]
    for i in range(k - 1, -1, -1):
        t = y[i]
        for q in range(i + 1, k):
            t -= L[q, i] * y[q]
        y[i] = t / L[i, i]
    return True


@_numba.njit(cache=True, nogil=True)
def _cholesky_solve(A, k, b):  # pragma: no cover - compiled
    """``A[:k, :k]^-1 b`` by the Cholesky factor; LinAlgError when not positive definite."""
    y = np.empty(k)
    if not _cholesky_solve_ok(A, k, b, y, np.empty((k, k))):
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    return y


@_numba.njit(cache=True, nogil=True)
def _gradient(x, passive, w, Gp, idx, p, grad):  # pragma: no cover - compiled
    """The NNLS gradient at ``x`` into ``grad``: ``1 - sum(x)`` minus the weighted Gram rows of the passive columns."""
    total = 0.0
    for i in range(p):
        total += x[i]
    for i in range(p):
        grad[i] = 1.0 - total
    for i in range(p):
        if passive[i]:
            v = x[i] * w[i]
            gi = Gp[idx[i]]
            for c in range(p):
                grad[c] -= w[c] * v * gi[idx[c]]


@_numba.njit(cache=True, nogil=True)
def _gram_nnls_ok(idx, w, Gp, U, maxiter, ulps, zero, start):  # pragma: no cover - compiled
    """:func:`_gram_nnls_numba` with a flag in place of the exception: ``(x, residual, iterations, ok)``.

    ``start`` (uint8, one per column; none set: the cold start of Lawson and Hanson) is a warm start: the passive
    set begins as these columns, minus those whose least-squares weight is not positive (dropped all at once,
    solved again), or empty when their system is singular. Lawson and Hanson's loop then goes on from that
    feasible point: the answer is an NNLS solution as well, but where there are several, possibly another.
    """
    p = idx.shape[0]
    n = U.shape[0]
    x = np.zeros(p)
    passive = np.zeros(p, dtype=np.bool_)
    blocked = np.zeros(p, dtype=np.bool_)
    grad = np.ones(p)
    ones = np.ones(p)
    Pl = np.empty(p, dtype=np.int64)  # the passive positions, in increasing order
    A = np.empty((n + 1, n + 1))  # never more than n + 1 passive columns (see the main loop)
    L = np.empty((n + 1, n + 1))
    s = np.empty(p)
    wmax = 0.0
    for i in range(p):
        if w[i] * w[i] > wmax:
            wmax = w[i] * w[i]
    tol = ulps * p * 2.0**-52 * (wmax + 1.0)
    it = 0
    k = 0
    warm = False
    for i in range(p):
        if start[i]:
            passive[i] = True
            warm = True
    while warm and it <= maxiter:
        it += 1
        k = 0
        for i in range(p):
            if passive[i]:
                Pl[k] = i
                k += 1
        if k == 0 or k > n + 1:
            passive[:] = False
            break
        for a in range(k):
            ga = Gp[idx[Pl[a]]]
            for c in range(k):
                A[a, c] = ga[idx[Pl[c]]] * (w[Pl[a]] * w[Pl[c]]) + 1.0
        if not _cholesky_solve_ok(A, k, ones, s, L):
            passive[:] = False  # a singular start: cold
            break
        drop = False
        for q in range(k):
            if not s[q] > zero:
                passive[Pl[q]] = False
                drop = True
        if not drop:
            for q in range(k):
                x[Pl[q]] = s[q]
            _gradient(x, passive, w, Gp, idx, p, grad)
            break
    while it <= maxiter:
        k = 0
        for i in range(p):
            k += passive[i]
        if k > n:  # n + 1 independent passive columns span the space: nothing to add
            break
        j = -1
        best = tol
        for i in range(p):
            if not passive[i] and not blocked[i] and grad[i] > best:
                best = grad[i]
                j = i
        if j < 0:
            break
        passive[j] = True
        first = True
        moved = False
        while True:
            it += 1
            if it > maxiter:  # the limit: the caller gets no answer
                break
            k = 0
            for i in range(p):
                if passive[i]:
                    Pl[k] = i
                    k += 1
            for a in range(k):
                ga = Gp[idx[Pl[a]]]
                for c in range(k):
                    A[a, c] = ga[idx[Pl[c]]] * (w[Pl[a]] * w[Pl[c]]) + 1.0
            if not _cholesky_solve_ok(A, k, ones, s, L):
                return x, 0.0, it, False
            if first:
                first = False
                sj = 0.0
                for q in range(k):
                    if Pl[q] == j:
                        sj = s[q]
                if not sj > 0.0:  # no descent along the new column: aside until the point moves
                    passive[j] = False
                    blocked[j] = True
                    break
            qmin = -1
            alpha = 2.0
            for q in range(k):
                if s[q] <= 0.0:
                    xq = x[Pl[q]]
                    r = xq / (xq - s[q])
                    if qmin < 0 or r < alpha:
                        alpha = r
                        qmin = q
            moved = True
            if qmin < 0:
                for q in range(k):
                    x[Pl[q]] = s[q]
                break
            for q in range(k):
                i = Pl[q]
                v = x[i] + alpha * (s[q] - x[i])
                if q == qmin or v <= zero:
                    x[i] = 0.0
                    passive[i] = False
                else:
                    x[i] = v
        if moved:
            blocked[:] = False
            _gradient(x, passive, w, Gp, idx, p, grad)
    r = np.zeros(n)
    total = 0.0
    for i in range(p):
        if passive[i]:
            total += x[i]
            v = x[i] * w[i]
            for a in range(n):
                r[a] += U[a, idx[i]] * v
    res = (total - 1.0) ** 2
    for a in range(n):
        res += r[a] * r[a]
    return x, np.sqrt(res), it, True


@_numba.njit(cache=True, nogil=True)
def _gram_nnls_numba(idx, w, Gp, U, maxiter, ulps, zero):  # pragma: no cover - compiled
    x, res, it, ok = _gram_nnls_ok(idx, w, Gp, U, maxiter, ulps, zero, np.zeros(idx.shape[0], dtype=np.uint8))
    if not ok:
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    return x, res, it


@_numba.njit(cache=True, nogil=True)
def _capture_numba(pool, fixed, npts, weight, Gp, U, ulps, zero):  # pragma: no cover - compiled
    """kernels.capture_nnls: the points of the bit masks read here, then :func:`_gram_nnls_numba`."""
    idx = np.empty(npts, dtype=np.int64)
    w = np.empty(npts)
    p = 0
    for i in range(npts):
        if (pool[i >> 3] >> (i & 7)) & 1:
            idx[p] = i
            w[p] = weight if (fixed[i >> 3] >> (i & 7)) & 1 else 1.0
            p += 1
    if p < 2:
        return idx[:p], np.zeros(p), 0.0, 0
    x, res, it = _gram_nnls_numba(idx[:p], w[:p], Gp, U, 50 * p, ulps, zero)
    return idx[:p], x, res, it


# ---------------------------------------------------------------------------------
# the whole branch and bound of paper/depth.py (_Search.run), compiled: an untrusted oracle
# ---------------------------------------------------------------------------------
# Points 0..m-1 are the rows, m..2m-1 their negatives; sets are uint8 arrays. The search runs in slices of
# nodes and keeps its whole state in the arrays it is given (an explicit stack), so that the caller can look
# at its clock and call its tick between slices and resume. Every circuit it uses is stored once (a hash
# table on its bit mask) and returned: the caller proves them all before it believes "closed".

#: slice outcomes
SEARCH_RUNNING, SEARCH_FOUND, SEARCH_CLOSED = 0, 1, 2
# the fields of the state vector
_DEPTH, _EXPAND, _NODES, _FAILED, _NCIRC = 0, 1, 2, 3, 4


@_numba.njit(cache=True, nogil=True)
def _circuit_id(support, s, npts, cwords, csupp, csize, table, st):  # pragma: no cover - compiled
    """The index of the circuit ``support[:s]`` in the store, added if new; ``(index, new)``."""
    W = cwords.shape[1]
    words = np.zeros(W, dtype=np.uint64)
    for q in range(s):
        i = support[q]
        words[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    h = np.uint64(1469598103934665603)
    for a in range(W):
        h = (h ^ words[a]) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        c = table[slot]
        if c < 0:
            break
        same = True
        for a in range(W):
            if cwords[c, a] != words[a]:
                same = False
                break
        if same:
            return c, False
        slot = (slot + 1) & mask
    c = st[_NCIRC]
    st[_NCIRC] = c + 1
    table[slot] = c
    for a in range(W):
        cwords[c, a] = words[a]
    csize[c] = s
    for q in range(s):
        csupp[c, q] = support[q]
    return c, True


@_numba.njit(cache=True, nogil=True)
def _search_capture(pool, fixed, m, n, weight, Gp, U, ulps, zero, restol, count, cok, cwords, csupp, csize, table, st,
                    idx, w, support, warm, mark, start):  # pragma: no cover - compiled  # fmt: skip
    """_Search.capture: the circuit found by the NNLS on the points of ``pool`` (index in the store) or -1.

    ``warm`` (a circuit of the store, or -1) starts the NNLS from its points that are in the pool.
    """
    npts = 2 * m
    if warm >= 0:
        for q in range(csize[warm]):
            mark[csupp[warm, q]] = 1
    p = 0
    for i in range(npts):
        if pool[i]:
            idx[p] = i
            w[p] = weight if fixed[i] else 1.0
            start[p] = mark[i]
            p += 1
    if warm >= 0:
        for q in range(csize[warm]):
            mark[csupp[warm, q]] = 0
    if p < 2:
        return -1
    x, res, it, ok = _gram_nnls_ok(idx[:p], w[:p], Gp, U, 50 * p, ulps, zero, start[:p])
    if not ok or it > 50 * p or not res <= restol:
        return -1
    s = 0
    for q in range(p):
        if x[q] > zero:
            support[s] = idx[q]
            s += 1
    c, new = _circuit_id(support, s, npts, cwords, csupp, csize, table, st)
    if new:
        # n + 1 points: proved later by the caller; fewer: proved exactly by the caller; more: never a circuit
        cok[c] = 1 if 0 < s <= n + 1 else 0
        if cok[c]:
            for q in range(s):
                count[support[q]] += 1.0
    if not cok[c]:
        st[_FAILED] = 1
        return -1
    return c


@_numba.njit(cache=True, nogil=True)
def _search_signed(removed, kept, rest, m, n, weight, Gp, U, ulps, zero, restol, count, cok, cwords, csupp, csize, table,
                   st, pool, fixed, idx, w, support, warm, mark, start):  # pragma: no cover - compiled  # fmt: skip
    """_Search.signed: a circuit of points of ``rest`` (rows) and negated removed rows, at least one row."""
    for i in range(m):
        pool[i] = rest[i]
        fixed[i] = kept[i] & rest[i]
        pool[m + i] = removed[i]
        fixed[m + i] = removed[i]
    c = _search_capture(pool, fixed, m, n, weight, Gp, U, ulps, zero, restol, count, cok, cwords, csupp, csize, table,
                        st, idx, w, support, warm, mark, start)  # fmt: skip
    if c >= 0:
        rows = False
        for q in range(csize[c]):
            if csupp[c, q] < m:
                rows = True
                break
        if not rows:  # negatives only: no constraint on the rows; ask without them
            for i in range(m):
                pool[m + i] = 0
                fixed[m + i] = 0
            c = _search_capture(pool, fixed, m, n, weight, Gp, U, ulps, zero, restol, count, cok, cwords, csupp, csize,
                                table, st, idx, w, support, -1, mark, start)  # fmt: skip
    return c


@_numba.njit(cache=True, nogil=True)
def search_slice(rem, kep, kk, order, olen, opos, seq, st, k, max_nodes, weight, Gp, U, ulps, zero, restol, count, cok,
                 cwords, csupp, csize, table, warmstart):  # pragma: no cover - compiled  # fmt: skip
    """Run the branch and bound of ``_Search.run`` until ``st[_NODES]`` reaches ``max_nodes``, a removal set is
    found (at the top of the stack) or the tree is closed: SEARCH_RUNNING, SEARCH_FOUND or SEARCH_CLOSED.

    Level ``L`` of the stack is a node: removed rows ``rem[L]``, kept rows ``kep[L]``, its children
    ``order[L, :olen[L]]`` of which ``opos[L]`` were started, and ``kk[L]`` the kept rows for the next child
    (each child keeps the earlier ones). ``st[_EXPAND]`` says that the top level is a node not yet looked at.
    ``seq[L]`` holds the circuits found at the node in order (-1 for none): with ``warmstart``, the NNLS of a
    child's ``j``-th circuit starts from its parent's ``j``-th.
    """
    m = rem.shape[1]
    n = U.shape[0]  # U holds the unit points of R^n as columns
    npts = 2 * m
    pool = np.zeros(npts, dtype=np.uint8)
    fixed = np.zeros(npts, dtype=np.uint8)
    idx = np.empty(npts, dtype=np.int64)
    w = np.empty(npts)
    support = np.empty(npts, dtype=np.int64)
    rest = np.zeros(m, dtype=np.uint8)
    free = np.zeros(m, dtype=np.uint8)
    used = np.zeros(m, dtype=np.uint8)
    bestset = np.zeros(m, dtype=np.uint8)
    mark = np.zeros(npts, dtype=np.uint8)
    start = np.zeros(npts, dtype=np.uint8)
    width = seq.shape[1]
    while True:
        d = st[_DEPTH]
        if st[_EXPAND]:
            if st[_NODES] >= max_nodes:
                return SEARCH_RUNNING
            st[_NODES] += 1
            st[_EXPAND] = 0
            removed = rem[d]
            kept = kep[d]
            t = 0
            for i in range(m):
                t += removed[i]
                rest[i] = 1 - removed[i]
            for j in range(width):
                seq[d, j] = -1
            warm = seq[d - 1, 0] if (warmstart & 1) and d > 0 else -1
            first = _search_signed(removed, kept, rest, m, n, weight, Gp, U, ulps, zero, restol, count, cok, cwords,
                                   csupp, csize, table, st, pool, fixed, idx, w, support, warm, mark, start)  # fmt: skip
            seq[d, 0] = first
            if first < 0:
                if st[_FAILED]:
                    st[_DEPTH] = d - 1  # closed without a proof (the caller proves nothing from this search)
                    if d == 0:
                        return SEARCH_CLOSED
                    continue
                return SEARCH_FOUND  # nothing captures the origin: rem[d] is a removal set
            closed = t >= k
            nbest = m + 1
            if not closed:
                for i in range(m):
                    free[i] = 1 - (removed[i] | kept[i])
                    used[i] = 0
                g = 0
                c = first
                while c >= 0:
                    nf = 0
                    for q in range(csize[c]):
                        i = csupp[c, q]
                        if i < m and free[i]:
                            nf += 1
                    if nf == 0:  # kept rows and negated removed rows only: no removal breaks it
                        closed = True
                        break
                    if nf < nbest:
                        nbest = nf
                        for i in range(m):
                            bestset[i] = 0
                        for q in range(csize[c]):
                            i = csupp[c, q]
                            if i < m and free[i]:
                                bestset[i] = 1
                    g += 1
                    if t + g > k:  # disjoint free parts, each needs its own removal
                        closed = True
                        break
                    for q in range(csize[c]):
                        i = csupp[c, q]
                        if i < m and free[i]:
                            used[i] = 1
                    for i in range(m):
                        rest[i] = (free[i] & (1 - used[i])) | kept[i]
                    warm = seq[d - 1, g] if (warmstart & 2) and d > 0 and g < width else -1
                    c = _search_signed(removed, kept, rest, m, n, weight, Gp, U, ulps, zero, restol, count, cok,
                                       cwords, csupp, csize, table, st, pool, fixed, idx, w, support, warm, mark,
                                       start)  # fmt: skip
                    if g < width:
                        seq[d, g] = c
            if closed:
                st[_DEPTH] = d - 1
                if d == 0:
                    return SEARCH_CLOSED
                continue
            # the children: the points of the smallest free part, the busiest (most circuits) first, ties by index
            nb = 0
            for i in range(m):
                if bestset[i]:
                    j = nb
                    while j > 0 and count[order[d, j - 1]] < count[i]:
                        order[d, j] = order[d, j - 1]
                        j -= 1
                    order[d, j] = i
                    nb += 1
            olen[d] = nb
            opos[d] = 0
            for i in range(m):
                kk[d, i] = kept[i]
        else:
            if opos[d] >= olen[d]:  # every child closed: so is this node
                st[_DEPTH] = d - 1
                if d == 0:
                    return SEARCH_CLOSED
                continue
            i = order[d, opos[d]]
            opos[d] += 1
            for a in range(m):
                rem[d + 1, a] = rem[d, a]
                kep[d + 1, a] = kk[d, a]
            rem[d + 1, i] = 1
            kk[d, i] = 1  # the later children keep it
            st[_DEPTH] = d + 1
            st[_EXPAND] = 1


@_numba.njit(cache=True, nogil=True)
def rehash_circuits(cwords, ncirc, table):  # pragma: no cover - compiled
    """Fill the (empty, -1) hash table ``table`` with the first ``ncirc`` circuits of the store."""
    W = cwords.shape[1]
    mask = table.shape[0] - 1
    for c in range(ncirc):
        h = np.uint64(1469598103934665603)
        for a in range(W):
            h = (h ^ cwords[c, a]) * np.uint64(1099511628211)
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = c
