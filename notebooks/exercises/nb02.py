"""Checkers of the exercises of ``02_injectivity``.

2.1 two points of the unit ball with the same output (a colliding pair);
2.2 the smallest donut on which a layer with positive biases is rectifying;
2.3 three layers, three verdicts (``rf.check``).

The planar geometry used by the checkers is exact: a point ``p`` lies in the closure of the
set of non-rectifying points iff one of the open cells of the line arrangement
``<x, phi_i> = alpha_i`` next to ``p`` has an active set that does not span. The cells next to
``p`` are read off the directions around ``p``. The student edition leaves this geometry out: with it,
the 2.2 radius is a loop over the arrangement's vertices.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import ON_LINE, PAST_EXACT, THREE_DECIMALS, ZERO, elements, pair_problem, report
from . import vec as _vec

__all__ = ["layer_2_1", "layer_2_2", "layers_2_3", "check_2_1", "check_2_2", "check_2_3"]


def _unit_rows(degrees) -> np.ndarray:
    t = np.radians(np.asarray(degrees, dtype=float))
    return np.column_stack([np.cos(t), np.sin(t)])


# ---------------------------------------------------------------------------------------------
# exact planar geometry (shared with nb04)
# ---------------------------------------------------------------------------------------------


def _nonspanning_direction(layer: rf.ReLULayer, p, tol: float = ON_LINE):
    """A unit direction ``d`` with ``p + t d`` non-rectifying for all small ``t > 0``, or None.

    None means that ``p`` is not in the closure of the non-rectifying points. Lines through
    ``p`` split the directions into open arcs; on each arc the active set just beside ``p`` is
    constant, so one direction per arc decides.
    """
    phi, a = layer.frame.vectors, layer.alpha
    p = np.asarray(p, dtype=float)
    g = phi @ p - a
    through = np.abs(g) <= tol * max(1.0, float(np.max(np.abs(a))), float(np.linalg.norm(p)))
    if through.any():
        normals = np.arctan2(phi[through, 1], phi[through, 0])
        crit = np.sort(np.mod(np.concatenate([normals + np.pi / 2, normals - np.pi / 2]), 2 * np.pi))
        gaps = np.diff(np.append(crit, crit[0] + 2 * np.pi))
        mids = crit + gaps / 2
    else:
        mids = np.array([0.0])
    for t in mids:
        d = np.array([np.cos(t), np.sin(t)])
        active = (~through & (g > 0)) | (through & (phi @ d > 0))
        if not (active.any() and np.linalg.matrix_rank(phi[active]) == 2):
            return d
    return None


def _vertices(layer: rf.ReLULayer) -> np.ndarray:
    phi, a = layer.frame.vectors, layer.alpha
    m = len(a)
    pts = [np.linalg.solve(phi[[i, j]], a[[i, j]]) for i in range(m) for j in range(i + 1, m)
           if abs(np.linalg.det(phi[[i, j]])) > ZERO]  # fmt: skip
    return np.array(pts).reshape(-1, 2)


# ---------------------------------------------------------------------------------------------
# 2.1 — a colliding pair
# ---------------------------------------------------------------------------------------------


def layer_2_1() -> rf.ReLULayer:
    """Unit rows at 172, -160, -100, 52, 128 degrees; alpha = (-0.44, -0.47, -0.32, -0.18, -0.38)."""
    return rf.ReLULayer(_unit_rows([172, -160, -100, 52, 128]), [-0.44, -0.47, -0.32, -0.18, -0.38])


def check_2_1(answer):
    """``answer``: a pair ``(x, y)`` of distinct points of the closed unit ball with ``L(x) = L(y)``."""

    def verify(ans):
        problem, (x, y, Lx) = pair_problem(ans, layer_2_1(), rf.Ball(2))
        if problem:
            return False, problem
        return True, (f"x = {_vec(x)} and y = {_vec(y)} (|x - y| = {np.linalg.norm(x - y):.3g}) share the output "
                      f"{_vec(Lx)}: the layer is not injective on the ball")  # fmt: skip

    return report("2.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 2.2 — the smallest donut
# ---------------------------------------------------------------------------------------------


def layer_2_2() -> rf.ReLULayer:
    """Unit rows at 0, 55, 120, 185, 240, 300 degrees; alpha = (0.2, 0.15, 0.25, 0.1, 0.2, 0.3)."""
    return rf.ReLULayer(_unit_rows([0, 55, 120, 185, 240, 300]), [0.2, 0.15, 0.25, 0.1, 0.2, 0.3])


def _outer_radius(L: rf.ReLULayer):
    """max |x| over the closure of the non-rectifying points (bounded here), and where it is attained.

    The closure is a union of bounded closed polygons (cells of the line arrangement), so the
    largest norm is attained at a vertex: an intersection of two lines next to a non-spanning cell.
    """
    best, where, d_best = 0.0, None, None
    for v in _vertices(L):
        d = _nonspanning_direction(L, v)
        if d is not None and np.linalg.norm(v) > best:
            best, where, d_best = float(np.linalg.norm(v)), v, d
    return best, where, d_best


def check_2_2(answer):
    """``answer``: the smallest s such that layer_2_2 is rectifying on {s <= |x| <= 1}, rounded up to 3 decimals
    (a radius that is too small breaks the property; up to THREE_DECIMALS too large is accepted)."""

    def verify(s):
        L = layer_2_2()
        s = float(s)
        if not 0.0 < s < 1.0:
            return False, f"s should lie between 0 and 1; got {s:.4g}"
        s_star, v, d = _outer_radius(L)
        if s < s_star - PAST_EXACT:
            # a witness just outside the student's circle, not the outermost one (its norm would be the answer)
            X = rf.Shell(2, s, 1.0).sample(4000, seed=0)
            bad = X[~rf.is_rectifying(L, X)]
            if not len(bad):
                return False, ("your radius is too small: some points with |x| >= s are not rectifying (look at the "
                               "corners of the cells whose active elements do not span)")  # fmt: skip
            w = bad[np.argmin(np.linalg.norm(bad, axis=1))]
            active = np.flatnonzero(L.active_set(w))
            return False, (f"your radius is too small: x = {_vec(w)} lies in the donut, but only the elements "
                           f"{elements(active)} are active there, and they do not span")  # fmt: skip
        if s > s_star + THREE_DECIMALS:
            return False, "the layer is still rectifying on a slightly larger donut (a smaller s): s can be smaller"
        return True, (f"s = {s:.4f}: the last non-rectifying points reach norm {s_star:.4f}, at the corner {_vec(v)} "
                      "of a cell whose active rows do not span")  # fmt: skip

    return report("2.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 2.3 — three verdicts
# ---------------------------------------------------------------------------------------------


def layers_2_3() -> dict:
    """Three layers with their domains: ``{name: (layer, domain)}``."""
    tri = rf.zoo.mercedes_benz()
    return {
        "a": (rf.ReLULayer(tri, -0.5), rf.Ball(2)),
        "b": (rf.ReLULayer(tri, [-0.5, -0.5, -0.49]), rf.Ball(2)),
        "c": (rf.ReLULayer(_unit_rows([45, 135, 225, 315]), -0.1), rf.Ball(2, 2.0)),
    }


def check_2_3(answer):
    """``answer``: three booleans (True = injective), for the layers a, b, c of layers_2_3 in this order."""

    def verify(ans):
        got = [bool(v) for v in ans]
        cases = layers_2_3()
        if len(got) != len(cases):
            return False, f"give {len(cases)} verdicts (True = injective), one per layer a, b, c; got {len(got)}"
        wrong = 0
        for name, (layer, K) in cases.items():
            v = rf.check(layer, K)
            if not v.decided:
                return False, f"layer {name}: the kit could not decide it ({v.text})"
            wrong += got[list(cases).index(name)] != (v.status == "injective")
        if wrong:  # which one is not said: with two choices per layer that would be the answer
            return False, (f"{'one' if wrong == 1 else wrong} of the three verdicts {'is' if wrong == 1 else 'are'} not "
                           "right; for each layer rf.check(layer, K) gives the verdict and its reason (.text): read "
                           "it, and explain it with the frame and the bias")  # fmt: skip
        # said from the answer itself: a literal here would put the three verdicts in the student edition's source
        said = ", ".join(f"{name}: {'injective' if g else 'not injective'}" for name, g in zip(cases, got))
        return True, f"{said}; rf.check(layer, K).text gives each reason"

    return report("2.3", answer, verify)
