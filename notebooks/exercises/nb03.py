"""Checkers of the exercises of ``03_properties_of_frames``.

3.1 the bias of the normalized frame (Lemma "normalized");
3.2 2n elements are enough only for antipodal pairs: break the +- basis by a small perturbation;
3.3 the bias that Lemma "perturbation" guarantees for a perturbed triangle frame.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_ATOL, RATIO_ATOL, RATIO_RTOL, SAME_POINT, elements, report
from . import vec as _vec

__all__ = ["frame_3_1", "ALPHA_3_1", "EPS_3_2", "frame_3_3", "EPS_3_3", "check_3_1", "check_3_2", "check_3_3"]


# ---------------------------------------------------------------------------------------------
# 3.1 — normalizing
# ---------------------------------------------------------------------------------------------

ALPHA_3_1 = (0.6, -0.5, 1.0, -2.0, 0.4)


def frame_3_1() -> rf.Frame:
    """Five vectors in R^2 that are not unit-norm (the rows)."""
    return rf.Frame([[3.0, 0.0], [1.0, 2.0], [-2.0, 2.0], [-1.0, -3.0], [2.0, -2.0]])


def check_3_1(answer):
    """``answer``: the bias alpha' of the normalized frame that gives the same active sets everywhere."""

    def verify(ans):
        F, alpha = frame_3_1(), np.asarray(ALPHA_3_1)
        a = np.broadcast_to(np.asarray(ans, dtype=float), alpha.shape)
        right = alpha / F.norms
        if np.allclose(a, right, rtol=RATIO_RTOL, atol=RATIO_ATOL):
            return True, f"alpha' = alpha_i / |phi_i| = {_vec(right)}: the active sets agree at every x"
        if np.allclose(a, alpha * F.norms, rtol=RATIO_RTOL, atol=RATIO_ATOL):
            return False, "you multiplied by the norms; <x, phi_i> >= alpha_i is <x, phi_i/|phi_i|> >= alpha_i/|phi_i|"
        off = np.flatnonzero(~np.isclose(a, right, rtol=RATIO_RTOL, atol=RATIO_ATOL))
        # no point x is printed: one between the two thresholds would pin the right entry
        return False, (f"the entries of {elements(off)} are off: along such an element there are points where it is "
                       "active for the original layer but not for the normalized one with your bias (or the other way "
                       "round); write <x, phi_i> >= alpha_i with the unit vector phi_i/|phi_i|")  # fmt: skip

    return report("3.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 3.2 — perturbing the +- basis
# ---------------------------------------------------------------------------------------------

#: how far each row may move from the +- basis (e1, e2, e3, -e1, -e2, -e3)
EPS_3_2 = 0.1


def check_3_2(answer):
    """``answer``: ``(frame, x)``: six rows within EPS_3_2 of the +- basis of R^3, and a point where
    the zero-bias layer of that frame is not rectifying."""

    def verify(ans):
        Phi, x = ans
        Phi = np.asarray(getattr(Phi, "vectors", Phi), dtype=float)
        x = np.asarray(x, dtype=float)
        if Phi.shape != (6, 3) or x.shape != (3,):
            return False, f"give a 6 x 3 frame (rows) and a point of R^3; got shapes {Phi.shape} and {x.shape}"
        moved = np.linalg.norm(Phi - rf.zoo.plus_minus_basis(3).vectors, axis=1)
        if np.any(moved >= EPS_3_2):
            i = int(np.argmax(moved))
            return False, f"row {i + 1} moved by {moved[i]:.3g} from the +- basis; stay below {EPS_3_2}"
        if np.linalg.norm(x) < SAME_POINT:
            return False, "at x = 0 every element is active with zero bias; take x != 0"
        L = rf.ReLULayer(Phi, 0.0)
        active = np.flatnonzero(L.active_set(x))
        if rf.is_rectifying(L, x):
            return False, (f"at x = {_vec(x)} the active rows {elements(active)} span R^3; look for a direction where "
                           "only two of the six coefficients are >= 0 (follow their count along a path)")  # fmt: skip
        return True, (f"at x = {_vec(x)} only the rows {elements(active)} are active and they do not span: "
                      "with m = 2n the property needs exactly antipodal pairs, and a small perturbation breaks it")  # fmt: skip

    return report("3.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 3.3 — the perturbation lemma
# ---------------------------------------------------------------------------------------------

#: every row of frame_3_3 is within EPS_3_3 of the triangle frame, which is (-1/2)-rectifying on B
EPS_3_3 = 0.05


def frame_3_3() -> rf.Frame:
    """A perturbed triangle (Mercedes-Benz) frame: each row within 0.05 of the original one."""
    return rf.Frame([[-0.047, 0.987], [-0.82, -0.482], [0.817, -0.5]])


def _on_ball_3_3(F: rf.Frame, a: np.ndarray) -> tuple[bool, str]:
    """The feedback of exercise 3.3 for a bias ``a`` that passed the lemma's bound: ``rf.check`` on the ball decides it
    (shared with the student edition's self-check)."""
    v = rf.check(rf.ReLULayer(F, a), rf.Ball(2))
    if v.status == "not injective":
        x, y = v.pair
        return False, (f"your bias is too large: the perturbed layer is not injective on the ball, x = {_vec(x)} "
                       f"and y = {_vec(y)} (|x - y| = {np.linalg.norm(x - y):.2g}) have the same output")  # fmt: skip
    if v.status != "injective":
        return False, f"could not decide this bias ({v.text})"
    return True, (f"rectifying on the ball with {_vec(a)} (rf.check: {v.method}); the unperturbed "
                  "bias -1/2 is not enough for this frame")  # fmt: skip


def check_3_3(answer):
    """``answer``: a bias (number or 3 entries), at least the lemma's alpha - eps M, rectifying on B for frame_3_3."""

    def verify(ans):
        F = frame_3_3()
        assert np.all(np.linalg.norm(F.vectors - rf.zoo.mercedes_benz().vectors, axis=1) < EPS_3_3)
        a = np.broadcast_to(np.asarray(ans, dtype=float), (3,)).copy()
        lemma = -0.5 - EPS_3_3 * 1.0
        if np.any(a < lemma - CLOSE_ATOL):
            low = np.flatnonzero(a < lemma - CLOSE_ATOL)
            return False, (f"the entries of {elements(low)} are lower than needed: Lemma \"perturbation\" guarantees a "
                           "larger bias for this frame (read off its alpha, eps and M)")  # fmt: skip
        return _on_ball_3_3(F, a)

    return report("3.3", answer, verify)


def _wrong_answers_3_3(value):
    """For the leak probe: biases below the lemma's, and one above the triangle's own -1/2 (not injective)."""
    a = float(np.min(value))
    return [a - 0.02, a * 1.12, -0.45]
