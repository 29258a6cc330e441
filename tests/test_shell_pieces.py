"""Shells with a positive bias: the convex pieces that cover the shell, against brute force.

A positive bias switches rows off near the centre, inside the hole, so the ball around the shell
cannot be certified and no witness exists there; the exact stage solves the convex pieces
``±z_j >= s / sqrt(n)`` instead. Checked: in the plane every verdict against the cells of the line
arrangement that meet the annulus (enumerated exactly), in R^3 every certificate against a dense
grid of the inner sphere (where the fewest rows are active when every bias is >= 0), and the pieces
cover the shell.
"""

from __future__ import annotations

import itertools

import numpy as np

import relu_frames_nb as rf
from relu_frames_nb.exact._regions import RoundRegion, shell_pieces

S, R = 0.5, 1.0


def _cell_meets_annulus(W, a, active):
    """Whether the closed cell with this active pattern meets s <= |x| <= r (plane, exact enough)."""
    A = np.vstack([-W[active], W[~active]])  # A x <= b
    b = np.r_[-a[active], a[~active]]
    lines = [(row, rhs) for row, rhs in zip(A, b)] + [(np.array(e), R) for e in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    pts = []
    for (p, c), (q, d) in itertools.combinations(lines, 2):
        M = np.array([p, q])
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        x = np.linalg.solve(M, [c, d])
        if np.all(A @ x <= b + 1e-9) and np.all(np.abs(x) <= R + 1e-9):
            pts.append(x)
    if not pts:
        return False
    pts = np.array(pts)
    norms = np.linalg.norm(pts, axis=1)
    # the clipped cell is the hull of pts: it meets the disc iff its min-norm point is within R, and
    # then it meets the annulus iff some vertex has norm >= s (convexity, see the test module docstring)
    from scipy.optimize import nnls

    k = len(pts)
    lam, res = nnls(np.vstack([pts.T * 1.0, np.ones((1, k))]) , np.r_[0.0, 0.0, 1.0])
    if res < 1e-12:
        closest = 0.0
    else:  # the min-norm point of the hull, by a few Frank-Wolfe steps (2-D, small)
        w = np.full(k, 1.0 / k)
        for _ in range(2000):
            x = w @ pts
            j = int(np.argmin(pts @ x))
            step = pts[j] - x
            den = step @ step
            if den == 0:
                break
            t = min(1.0, max(0.0, -(x @ step) / den))
            w = (1 - t) * w
            w[j] += t
        closest = float(np.linalg.norm(w @ pts))
    return closest <= R and norms.max() >= S


def _plane_injective_on_shell(W, a):
    m = W.shape[0]
    for i, j in itertools.combinations(range(m), 2):
        M = W[[i, j]]
        p = np.linalg.solve(M, a[[i, j]])
        Minv = np.linalg.inv(M)
        for s in itertools.product((-1.0, 1.0), repeat=2):
            v = Minv @ np.array(s)
            x = p + 1e-7 * v / np.linalg.norm(v)
            active = W @ x - a > 0
            if np.linalg.matrix_rank(W[active]) < 2 and _cell_meets_annulus(W, a, active):
                return False
    return True


def test_plane_verdicts_agree_with_the_cells_that_meet_the_annulus():
    seen = set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        m = int(rng.integers(5, 11))
        W = rng.standard_normal((m, 2))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        a = rng.uniform(0.0, 0.1) * np.ones(m) if seed % 2 else rng.uniform(-0.05, 0.1, m)
        v = rf.check(rf.ReLULayer(W, a), rf.Shell(2, S, R), time_limit=60)
        assert v.status in ("injective", "not injective"), (seed, v.text)
        assert (v.status == "injective") == _plane_injective_on_shell(W, a), (seed, v.text)
        seen.add(v.status)
    assert seen == {"injective", "not injective"}


def test_certificates_in_three_dimensions_hold_on_the_inner_sphere():
    rng = np.random.default_rng(7)
    U = rng.standard_normal((400_000, 3))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    certified = 0
    for seed in range(12):
        g = np.random.default_rng(100 + seed)
        m = int(g.integers(9, 19))
        W = g.standard_normal((m, 3))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        a = np.full(m, g.uniform(0.005, 0.05))
        v = rf.check(rf.ReLULayer(W, a), rf.Shell(3, S, R), time_limit=60)
        assert v.status != "undetermined", (seed, v.text)
        if v.status == "injective":
            certified += 1
            # every bias >= 0: rows only switch on moving outwards, so the inner sphere is the worst
            counts = ((S * U) @ W.T >= a).sum(axis=1)
            assert counts.min() >= 3, seed
    assert certified >= 3


def test_the_pieces_cover_the_shell_and_miss_the_centre():
    region = RoundRegion(4, R, np.eye(4), s=S)
    pieces = shell_pieces(region)
    assert len(pieces) == 8
    X = np.random.default_rng(0).standard_normal((20_000, 4))
    X *= (S + (R - S) * np.random.default_rng(1).random(20_000))[:, None] / np.linalg.norm(X, axis=1, keepdims=True)
    X = np.vstack([X, S * np.full((1, 4), 0.5)])  # the diagonal point, where the pieces' bound is tight
    inside = np.zeros(len(X), bool)
    for _, piece in pieces:
        A, b = piece.extra
        inside |= np.all(X @ A.T <= b, axis=1)
        assert np.all(np.linalg.norm(X[np.all(X @ A.T <= b, axis=1)], axis=1) >= S / 2 * 0.999)
    assert inside.all()
