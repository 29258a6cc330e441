"""Checkers of the exercises of ``04_maximal_domain``.

4.1 the largest ball on which a layer is rectifying (the distance from 0 to the complement of K*);
4.2 membership in the maximal domain: a basis of active elements (Theorem "maximal domain");
4.3 a bias with only n non-positive entries that is rectifying on the unit ball (Prop. "K", part 3).

The exact radius of 4.1 is computed here by candidates (0, the feet of the perpendiculars from 0
on the lines <x, phi_i> = alpha_i, their intersections) and the cells next to each candidate
(the exact planar geometry of ``exercises.nb02``), independently of the LP version in the notebook.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import PAST_EXACT, THREE_DECIMALS, element_numbers, elements, report
from . import vec as _vec
from .nb02 import _unit_rows

__all__ = ["layer_4_1", "frame_4_2", "ALPHA_4_2", "X_4_2", "check_4_1", "check_4_2", "check_4_3"]


# ---------------------------------------------------------------------------------------------
# 4.1 — the largest ball
# ---------------------------------------------------------------------------------------------


def layer_4_1() -> rf.ReLULayer:
    """Unit rows at 70, -55, 100, -175, 30 degrees; alpha = (-0.05, -1.25, -0.25, -0.5, -0.15)."""
    return rf.ReLULayer(_unit_rows([70, -55, 100, -175, 30]), [-0.05, -1.25, -0.25, -0.5, -0.15])


def _largest_ball(L: rf.ReLULayer):
    """``(r*, p, d)``: r* = dist(0, complement of K*_alpha), attained at p; p + t d is not rectifying."""
    from .nb02 import _nonspanning_direction, _vertices
    phi, a = L.frame.vectors, L.alpha
    feet = a[:, None] * phi / np.sum(phi**2, axis=1)[:, None]
    best = (np.inf, None, None)
    for p in np.vstack([np.zeros((1, 2)), feet, _vertices(L)]):
        if np.linalg.norm(p) < best[0]:
            d = _nonspanning_direction(L, p)
            if d is not None:
                best = (float(np.linalg.norm(p)), p, d)
    return best


def check_4_1(answer):
    """``answer``: the largest r such that layer_4_1 is rectifying on the ball B_r, rounded down to 3 decimals
    (a radius that is too large breaks the property; up to THREE_DECIMALS too small is accepted)."""

    def verify(r):
        L = layer_4_1()
        r = float(r)
        if not r > 0:
            return False, f"r should be positive; got {r:.4g}"
        r_star, p, d = _largest_ball(L)
        if r > r_star * (1 + PAST_EXACT):
            # a witness near the student's circle, not the nearest one (its norm would be the answer)
            X = rf.Ball(2, r).sample(4000, seed=0)
            bad = X[~rf.is_rectifying(L, X)]
            if not len(bad):
                return False, ("your radius is too large: some points of B_r are not rectifying (look next to the "
                               "lines <x, phi_i> = alpha_i closest to the origin)")  # fmt: skip
            w = bad[np.argmax(np.linalg.norm(bad, axis=1))]
            active = np.flatnonzero(L.active_set(w))
            return False, (f"your radius is too large: x = {_vec(w)} lies in B_r, and its active elements "
                           f"{elements(active)} do not span")  # fmt: skip
        if r < r_star - THREE_DECIMALS:
            return False, "the layer is still rectifying (and injective) on a slightly larger ball: r can be larger"
        return True, (f"r* = {r_star:.4f}: the nearest non-rectifying points are next to {_vec(p)}; the layer is "
                      "rectifying on B_r* and on no larger ball")  # fmt: skip

    return report("4.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 4.2 — a basis of active elements
# ---------------------------------------------------------------------------------------------

ALPHA_4_2 = (0.1, 0.1, 0.1, -0.4, 0.0, -0.1)
X_4_2 = (0.6, 0.5, -0.3)


def frame_4_2() -> rf.Frame:
    """Six vectors in R^3; the third lies in the plane of the first two."""
    return rf.Frame([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [np.sqrt(0.5), np.sqrt(0.5), 0.0], [0.0, 0.0, 1.0],
                     [-1.0, -1.0, -1.0], [1.0, -1.0, 0.5]])  # fmt: skip


def check_4_2(answer):
    """``answer``: three element numbers (counted from 1, like the text) of a basis all of whose half-spaces contain X_4_2."""

    def verify(ans):
        F, a, x = frame_4_2(), np.asarray(ALPHA_4_2), np.asarray(X_4_2)
        J, problem = element_numbers(ans, F.m)
        if problem:
            return False, problem
        if len(J) != 3:
            return False, f"give three different element numbers between 1 and {F.m}; got {len(J)}"
        c = F.vectors @ x

        def works(B):
            return all(c[j] >= a[j] for j in B) and F.spans(list(B))

        if not works(J) and all(j + 1 < F.m for j in J) and works([j + 1 for j in J]):
            return False, "counted from 0? the exercises number the elements from 1, like the text"
        off = [j for j in J if c[j] < a[j]]
        if off:
            j = off[0]
            return False, f"φ_{j + 1} is not active at x: <x, phi_{j + 1}> = {c[j]:.4g} < alpha_{j + 1} = {a[j]:.4g}"
        if not F.spans(J):
            return False, (f"the elements {elements(J)} are active but do not form a basis (rank "
                           f"{np.linalg.matrix_rank(F.vectors[J])}): φ_3 lies in the plane of φ_1 and φ_2")  # fmt: skip
        return True, (f"x lies in the half-spaces of the basis {elements(J)}, so x is in K*_alpha (and "
                      "rf.in_maximal_domain agrees)")  # fmt: skip

    return report("4.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 4.3 — only n non-positive biases
# ---------------------------------------------------------------------------------------------


def check_4_3(answer):
    """``answer``: a bias for the regular pentagon (rf.zoo.regular_polygon(5)) with exactly 2 entries <= 0 and
    3 entries > 0, for which the layer is rectifying (injective) on the closed unit ball."""

    def verify(ans):
        F = rf.zoo.regular_polygon(5)
        a = np.asarray(ans, dtype=float)
        if a.shape != (5,):
            return False, f"give 5 entries, one per element of the pentagon; got shape {a.shape}"
        nonpos = np.flatnonzero(a <= 0)
        if len(nonpos) < 2:
            return False, (f"at x = 0 only the elements with alpha_i <= 0 are active, here {elements(nonpos)}: fewer than "
                           "n = 2, so the layer is not rectifying at the origin")  # fmt: skip
        if len(nonpos) > 2:
            return False, f"{len(nonpos)} entries are <= 0; the exercise asks for exactly n = 2"
        v = rf.check(rf.ReLULayer(F, a), rf.Ball(2))
        if v.status == "not injective":
            x, y = v.pair
            active = np.flatnonzero(rf.ReLULayer(F, a).active_set(x))
            return False, (f"not rectifying on the ball: at x = {_vec(x)} only the elements {elements(active)} are active "
                           f"(they do not span), and x and y = {_vec(y)} have the same output")  # fmt: skip
        if v.status != "injective":
            return False, f"could not decide this bias ({v.text})"
        return True, (f"rectifying on the ball with only the elements {elements(nonpos)} at alpha <= 0 "
                      f"(rf.check: {v.method})")  # fmt: skip

    return report("4.3", answer, verify)
