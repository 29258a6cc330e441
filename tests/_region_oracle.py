"""Reference for small networks: exact injectivity on a polytope by enumerating the linear regions.

Independent of the package (numpy and ``scipy.optimize.linprog`` only). A network ``N`` given by
``(W, b)`` pairs in PyTorch's convention (a ReLU after every layer, or none after the last one)
on a polytope ``K = {x : G x <= g}`` in R^n, n = 2 or 3:

1. The linear regions: activation patterns grown unit by unit, layer by layer; a pattern is kept
   when its polyhedron inside ``K`` has an inscribed ball of positive radius (one LP: the Chebyshev
   centre). On each region ``N(x) = A x + c``.
2. A region whose ``A`` has rank below ``n`` folds: its centre and a step along a null direction
   (half the inscribed radius) collide.
3. Two regions ``i < j``: ``x`` in one, ``y`` in the other with ``A_i x + c_i = A_j y + c_j``, and
   ``(x - y)_t`` maximised for ``t`` and both signs (``2 n`` LPs). An optimum above ``GAP`` is a
   colliding pair. Regions whose output boxes (LPs) do not meet are skipped.

``N`` is injective on ``K`` iff neither finds a pair (up to ``GAP``). Every pair returned has been
recomputed by evaluating ``N``. Slow and simple on purpose: it is the reference the tests trust.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

#: a colliding pair must be farther apart than this (max-norm) to count
GAP = 1e-6
#: a region counts when its inscribed radius exceeds this
INTERIOR = 1e-9
#: rank tolerance of a region's affine map (relative to its largest singular value)
RANK_RTOL = 1e-9


def forward(weights, x, *, last_linear=False):
    h = np.asarray(x, dtype=float)
    for k, (W, b) in enumerate(weights):
        h = np.asarray(W) @ h + np.asarray(b)
        if not (last_linear and k == len(weights) - 1):
            h = np.maximum(h, 0.0)
    return h


def collide(weights, x, y, *, last_linear=False) -> bool:
    """Whether ``x != y`` have the same output (evaluated directly)."""
    a, b = forward(weights, x, last_linear=last_linear), forward(weights, y, last_linear=last_linear)
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    return bool(np.max(np.abs(x - y)) > GAP / 10 and np.max(np.abs(a - b), initial=0.0) <= 1e-7 * scale)


def _chebyshev(G, g):
    """(radius, centre) of the largest ball in {G x <= g}; radius <= 0 when there is none."""
    n = G.shape[1]
    norms = np.linalg.norm(G, axis=1)
    c = np.r_[np.zeros(n), -1.0]
    r = linprog(c, A_ub=np.c_[G, norms], b_ub=g, bounds=[(None, None)] * n + [(0, 10.0)], method="highs")
    if r.status != 0:
        return -1.0, None
    return float(r.x[-1]), r.x[:n]


def regions(weights, G, g, *, last_linear=False):
    """The linear regions: list of ``(G_r, g_r, A, c, centre, radius)`` with ``N(x) = A x + c`` on ``{G_r x <= g_r}``."""
    n = G.shape[1]
    cur = [(np.asarray(G, float), np.asarray(g, float), np.eye(n), np.zeros(n))]  # (rows, offsets, H, h): input of layer
    L = len(weights)
    for k, (W, b) in enumerate(weights):
        W, b = np.asarray(W, float), np.asarray(b, float)
        if last_linear and k == L - 1:
            cur = [(Gr, gr, W @ H, W @ h + b) for Gr, gr, H, h in cur]
            break
        nxt = []
        for Gr, gr, H, h in cur:
            P, p = W @ H, W @ h + b
            # split unit by unit
            parts = [(Gr, gr, np.zeros(W.shape[0], bool))]
            for i in range(W.shape[0]):
                new = []
                for Gq, gq, s in parts:
                    for on in (True, False):
                        row, off = (-P[i], p[i]) if on else (P[i], -p[i])
                        G2, g2 = np.vstack([Gq, row]), np.r_[gq, off]
                        rad, _ = _chebyshev(G2, g2)
                        if rad > INTERIOR:
                            s2 = s.copy()
                            s2[i] = on
                            new.append((G2, g2, s2))
                parts = new
            for Gq, gq, s in parts:
                nxt.append((Gq, gq, P * s[:, None], p * s))
        cur = nxt
    out = []
    for Gr, gr, A, c in cur:
        rad, ctr = _chebyshev(Gr, gr)
        out.append((Gr, gr, A, c, ctr, rad))
    return out


def _out_box(Gr, gr, A, c):
    box = np.zeros((A.shape[0], 2))
    for i in range(A.shape[0]):
        for j, sg in enumerate((1.0, -1.0)):
            r = linprog(sg * A[i], A_ub=Gr, b_ub=gr, bounds=[(None, None)] * A.shape[1], method="highs")
            box[i, j] = sg * r.fun + c[i]
    return box  # (min, max)


def decide(weights, G, g, *, last_linear=False):
    """``(injective, pair, n_regions)``: the exact answer on ``{G x <= g}`` and a verified colliding pair when not."""
    G, g = np.asarray(G, float), np.asarray(g, float)
    n = G.shape[1]
    regs = regions(weights, G, g, last_linear=last_linear)
    # 2. folds inside one region
    for _G, _g, A, _c, ctr, rad in regs:
        s = np.linalg.svd(A, compute_uv=False) if A.size else np.zeros(0)
        if A.shape[0] < n or s.size == 0 or s[-1] <= RANK_RTOL * max(s[0], 1e-300):
            v = np.linalg.svd(A)[2][-1] if A.shape[0] else np.eye(n)[0]
            y = ctr + 0.5 * rad * v / np.linalg.norm(v)
            assert collide(weights, ctr, y, last_linear=last_linear), "a rank-deficient region must fold"
            return False, (ctr, y), len(regs)
    # 3. pairs of regions
    boxes = [_out_box(Gr, gr, A, c) for Gr, gr, A, c, _, _ in regs]
    for i, j in itertools.combinations(range(len(regs)), 2):
        bi, bj = boxes[i], boxes[j]
        if np.any(bi[:, 0] > bj[:, 1] + 1e-9) or np.any(bj[:, 0] > bi[:, 1] + 1e-9):
            continue
        G1, g1, A1, c1, _, _ = regs[i]
        G2, g2, A2, c2, _, _ = regs[j]
        A_ub = np.block([[G1, np.zeros((len(g1), n))], [np.zeros((len(g2), n)), G2]])
        b_ub = np.r_[g1, g2]
        A_eq, b_eq = np.hstack([A1, -A2]), c2 - c1
        for t, sg in itertools.product(range(n), (1.0, -1.0)):
            obj = np.zeros(2 * n)
            obj[t], obj[n + t] = -sg, sg  # maximise sg (x - y)_t
            r = linprog(obj, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=[(None, None)] * (2 * n), method="highs")
            if r.status == 2:
                break  # no common output
            if r.status == 0 and -r.fun > GAP:
                x, y = r.x[:n], r.x[n:]
                assert collide(weights, x, y, last_linear=last_linear), (i, j, -r.fun)
                return False, (x, y), len(regs)
    return True, None, len(regs)


def box_rows(lo, hi):
    """``(G, g)`` of the box ``[lo, hi]``."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = lo.size
    return np.vstack([np.eye(n), -np.eye(n)]), np.r_[hi, -lo]
