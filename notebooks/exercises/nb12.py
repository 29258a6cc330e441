"""Checkers of the exercises of ``12_playground``.

12.1 the largest constant bias of the regular pentagon frame on the unit sphere (2-D explorer);
12.2 the polytope bias of the cube frame's vertices on the sphere, and the facets at a vertex (3-D explorer);
12.3 a colliding pair of your own for the Mercedes-Benz layer at alpha = -0.45 on the unit ball.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_ATOL, ON_BOUNDARY, SAME_OUTPUT, SAME_POINT_EXPLORER, TABLE_READING, ZERO, elements, report, said

__all__ = ["OFFSET_12_3", "check_12_1", "check_12_2", "check_12_3"]

#: the constant bias of exercise 12.3 (above the maximal bias -1/2 of the Mercedes-Benz frame on the ball)
OFFSET_12_3 = -0.45

#: how close to the exact value a bias read off a slider must be
_SLIDER_TOL = 0.005


def _vec(v) -> str:
    return "(" + ", ".join(f"{float(c) if abs(float(c)) > ZERO else 0.0:.4g}" for c in np.ravel(v)) + ")"


def _number(answer, what: str) -> float:
    if isinstance(answer, bool) or np.ndim(answer) != 0:
        raise ValueError(f"{what} should be one number; got {answer!r}")
    value = float(answer)
    if not np.isfinite(value):
        raise ValueError(f"{what} should be a finite number; got {answer!r}")
    return value


def _collision_on(layer: rf.ReLULayer, K) -> rf.Collision | None:
    """A verified colliding pair of ``layer`` on the 2-D domain ``K`` (searched on its boundary), or None."""
    from relu_frames_nb.viz.plane import boundary_points

    c = rf.find_collision(layer, K, points=boundary_points(layer, K))
    return c if c.found else None


# ---------------------------------------------------------------------------------------------
# 12.1 — the pentagon on the sphere
# ---------------------------------------------------------------------------------------------


def check_12_1(answer):
    """``answer``: the largest constant bias for which the pentagon layer is injective on the unit sphere."""

    def verify(ans):
        a = _number(ans, "the bias")
        P, S = rf.zoo.get("pentagon"), rf.Sphere(2)
        best = float(rf.polytope_bias(P, S).values.min())  # cos 72°: a guarantee, and here the maximal bias
        if best - _SLIDER_TOL <= a <= best + CLOSE_ATOL:
            return True, (f"α* = {best:.4f} = cos 72°: up to it the polytope bias proves the layer injective on the "
                          "sphere, above it the explorer finds two points with one output. On the ball the answer is 0: "
                          "with α > 0 a whole neighbourhood of the origin goes to 0")  # fmt: skip
        if a > best:
            c = _collision_on(rf.ReLULayer(P, a), S)
            pair = (f": x = {_vec(c.x)} and y = {_vec(c.y)} on the sphere have the same output {_vec(c.output)}"
                    if c is not None else "")  # fmt: skip
            close = " (only just: round down, not up)" if a - best <= _SLIDER_TOL else ""
            return False, f"your bias is too large{close}: at α = {a:.4g} the layer is not injective on the sphere{pair}"
        return False, (f"at α = {a:.4g} the layer is injective on the sphere, but that is not the largest such bias: "
                       "a slightly larger α is injective too. Raise the offset slider with the domain set to 'sphere' "
                       "until the verdict flips")  # fmt: skip

    return report("12.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 12.2 — the cube in space
# ---------------------------------------------------------------------------------------------


def _pair_12_2(ans):
    """An answer ``(bias, facets)`` to exercise 12.2 read: ``(bias, facets, None)``, or ``(None, None, feedback)``
    (shared with the edition's self-check)."""
    try:
        bias, n_facets = ans
    except (TypeError, ValueError):
        return None, None, (False, f"give a pair (bias, number of facets), e.g. (0.25, 4); got {ans!r}")
    b = _number(bias, "the bias")
    if isinstance(n_facets, bool) or int(n_facets) != n_facets:
        return None, None, (False, f"the number of facets should be a whole number; got {n_facets!r}")
    return b, n_facets, None


def check_12_2(answer):
    """``answer``: ``(bias, facets)`` — the polytope bias of a vertex of the cube frame on the unit sphere
    (the same for all eight) and the number of facets of its polytope at a vertex."""

    def verify(ans):
        b, n_facets, failed = _pair_12_2(ans)
        if failed:
            return failed
        cube = rf.zoo.get("cube")
        pbe = rf.polytope_bias(cube, rf.Sphere(3)).values
        P = rf.inscribing_polytope(cube)
        per_vertex = {len(P.facets_of(i)) for i in range(cube.m)}  # the same at every vertex (symmetry)
        facets = per_vertex.pop()
        right_bias = bool(np.allclose(pbe, pbe[0])) and abs(b - float(pbe[0])) <= TABLE_READING
        notes = []
        if not right_bias:
            hint = " (check the sign)" if abs(b + float(pbe[0])) <= TABLE_READING else ""
            notes.append(f"{b:.4g} is not the polytope bias of the cube's vertices on the sphere{hint}: choose 'cube' in "
                         "the explorer's frame menu and 'sphere' in its domain menu, the table lists it")  # fmt: skip
        if int(n_facets) != facets:
            notes.append(f"a vertex of the cube does not lie in {int(n_facets)} of its square facets: pick a vertex in "
                         "the menu and count the highlighted facets")  # fmt: skip
        if notes:
            return False, "; ".join(notes)
        return True, (f"every vertex gets {float(pbe[0]):.4f} = -1/3 on the sphere, read off its {facets} facets; "
                      "compare the icosahedron's +1/√5 in section 2")  # fmt: skip

    return report("12.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 12.3 — a colliding pair of your own
# ---------------------------------------------------------------------------------------------


def check_12_3(answer):
    """``answer``: ``(x, y)`` — two different points of the closed unit ball with the same output of
    ``ReLU(Φ x − α)`` for the Mercedes-Benz frame and ``α = OFFSET_12_3``."""

    def verify(ans):
        try:
            x, y = (np.asarray(v, dtype=float) for v in ans)
        except (TypeError, ValueError):
            return False, f"give a pair (x, y) of points of R^2; got {ans!r}"
        if x.shape != (2,) or y.shape != (2,):
            return False, f"x and y should be points of R^2 (shape (2,)); got shapes {x.shape} and {y.shape}"
        L = rf.ReLULayer(rf.zoo.mercedes_benz(), OFFSET_12_3)
        outside = [(n, p) for n, p in (("x", x), ("y", y)) if np.linalg.norm(p) > 1.0 + ON_BOUNDARY]
        if outside:
            n, p = outside[0]
            return False, f"{n} = {_vec(p)} lies outside the unit ball (|{n}| = {np.linalg.norm(p):.4g})"
        if np.linalg.norm(x - y) <= SAME_POINT_EXPLORER:
            return False, "x and y are the same point: a collision needs two different inputs"
        zx, zy = L(x), L(y)
        diff = np.flatnonzero(np.abs(zx - zy) > SAME_OUTPUT)
        if diff.size:
            gap = float(np.max(np.abs(zx - zy)))
            return False, (f"C_α x = {_vec(zx)} but C_α y = {_vec(zy)} (4 digits shown): they differ by up to {gap:.2g} "
                           f"at the elements {elements(diff)}, more than the {said(SAME_OUTPUT)} this check allows "
                           "(points read off the explorer are rounded: compute the pair). Where only one element is "
                           "active, move "
                           "orthogonally to it")  # fmt: skip
        active = np.flatnonzero(zx > 0)
        return True, (f"x ≠ y in the ball with C_α x = C_α y = {_vec(zx)} (active: "
                      f"{elements(active) if active.size else 'none'}): at α = {OFFSET_12_3} > -1/2 the layer is "
                      "not injective on the ball")  # fmt: skip

    return report("12.3", answer, verify)
