"""Brute force for small networks on a 2-dimensional box: colliding image points by cells and LPs.

Independent of the package: the cells are the distinct activation patterns of every unit on a
fine grid, each a polygon on which the network is affine; for every pair of cells, linear
programs look for ``x`` in one and ``y`` in the other with the same output of layer ``k`` and
the images of the layers before as far apart as possible. A positive separation is a colliding
pair of distinct image points: layer ``k`` is not injective on the image.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog


def _patterns(ws, k, lo, hi, n=201):
    g = np.linspace(lo, hi, n)
    X = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    H, pats = X, []
    for W, b in ws[: k + 1]:
        P = H @ np.asarray(W).T + b
        pats.append(P > 0)
        H = np.maximum(P, 0.0)
    return np.unique(np.concatenate(pats, axis=1), axis=0)


def _cell(ws, k, pattern):
    """Rows ``G x <= g`` of the cell, the map of the layers before (``Z x + z``) and of layer k (``A x + a``)."""
    H, h = np.eye(2), np.zeros(2)
    G, g, pos = [], [], 0
    Z = z = None
    for j, (W, b) in enumerate(ws[: k + 1]):
        if j == k:
            Z, z = H, h
        P, p = np.asarray(W) @ H, np.asarray(W) @ h + b
        s = pattern[pos : pos + P.shape[0]]
        pos += P.shape[0]
        G += [-P[i] if s[i] else P[i] for i in range(P.shape[0])]
        g += [p[i] if s[i] else -p[i] for i in range(P.shape[0])]
        H, h = P * s[:, None], p * s
    return np.array(G), np.array(g), Z, z, H, h


def _output_box(G, g, A, a, lo, hi):
    """The exact range of each output of layer k over the cell (two LPs per output)."""
    out = np.zeros((A.shape[0], 2))
    for i in range(A.shape[0]):
        for j, sg in enumerate((1.0, -1.0)):
            r = linprog(sg * A[i], A_ub=G, b_ub=g, bounds=[(lo, hi)] * 2, method="highs")
            out[i, j] = sg * r.fun + a[i] if r.status == 0 else (np.inf if j == 0 else -np.inf)
    return out  # columns: min, max


def largest_collision(ws, k, lo=-1.0, hi=1.0):
    """The largest max-norm distance of two image points with the same output of layer ``k``, and the inputs."""
    cells = [_cell(ws, k, p) for p in _patterns(ws, k, lo, hi)]
    boxes = [_output_box(G, g, A, a, lo, hi) for G, g, _, _, A, a in cells]
    best, pair = 0.0, None
    for (c1, b1), (c2, b2) in itertools.combinations_with_replacement(list(zip(cells, boxes)), 2):
        if np.any(b1[:, 0] > b2[:, 1] + 1e-9) or np.any(b2[:, 0] > b1[:, 1] + 1e-9):
            continue  # some output never takes a common value on the two cells
        (G1, g1, Z1, z1, A1, a1), (G2, g2, Z2, z2, A2, a2) = c1, c2
        A_ub = np.block([[G1, np.zeros((len(g1), 2))], [np.zeros((len(g2), 2)), G2]])
        b_ub = np.r_[g1, g2]
        A_eq, b_eq = np.hstack([A1, -A2]), a2 - a1
        for t in range(Z1.shape[0]):
            for sg in (1.0, -1.0):
                c = -sg * np.r_[Z1[t], -Z2[t]]
                r = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=[(lo, hi)] * 4, method="highs")
                if r.status == 2:
                    break  # no common output at all
                if r.status == 0:
                    gap = -r.fun + sg * (z1[t] - z2[t])
                    if gap > best:
                        best, pair = gap, (r.x[:2], r.x[2:])
            else:
                continue
            break
    return best, pair
