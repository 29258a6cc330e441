"""Checkers for the exercises of 11_appendix (admissible sets, the omnidirectionality LP, formula (i))."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linprog

import relu_frames_nb as rf
from relu_frames_nb.paper import reference

from . import CLOSE_ATOL, CLOSE_RTOL, FORMULA_ATOL, ZERO_ANSWER, Feedback, report

__all__ = ["layer_11_1", "frame_11_2", "frame_11_3", "check_11_1", "check_11_2", "check_11_3"]


def layer_11_1() -> rf.ReLULayer:
    """The layer of exercise 11.1: the +- basis of R^2 (e1, e2, -e1, -e2) with bias (0, 0, 0, 0.3)."""
    return rf.ReLULayer(rf.zoo.plus_minus_basis(2), [0.0, 0.0, 0.0, 0.3])


def frame_11_2() -> rf.Frame:
    """The frame of exercise 11.2: 6 random unit vectors in R^3."""
    return rf.zoo.random_sphere(6, 3, seed=2)


def frame_11_3() -> rf.Frame:
    """The frame of exercise 11.3: 11 random unit vectors in R^3."""
    return rf.zoo.random_sphere(11, 3, seed=21)


def check_11_1(answer: Any) -> Feedback:
    """Exercise 11.1: ``(n_modified, n_open, injective)`` for ``layer_11_1()`` on R^2."""

    def verify(ans):
        if not isinstance(ans, (tuple, list)) or len(ans) != 3:
            return False, "answer_11_1 should be a triple (number of admissible sets, number of open cells, injective)"
        n_mod, n_open, inj = int(ans[0]), int(ans[1]), bool(ans[2])
        L = layer_11_1()
        modified, bruna = reference.admissible_sets(L)
        spans = {J: L.frame.spans(list(J)) for J in modified}
        msgs = []
        if n_mod != len(modified):
            if n_mod == len(bruna):
                msgs.append("that number counts Bruna's open cells; the modified condition allows equality on J")
            else:
                msgs.append(f"the number of admissible sets (modified) is {'too large' if n_mod > len(modified) else 'too small'}"
                            f": every admissible J is the active set I_x of some x")  # fmt: skip
        if n_open != len(bruna):
            msgs.append(
                f"the number of open cells is {'too large' if n_open > len(bruna) else 'too small'}: two of the "
                f"hyperplanes coincide (<x, e1> = 0 and <x, -e1> = 0), which removes cells"
            )
        if inj != all(spans.values()):
            msgs.append("injectivity: your verdict does not follow from the admissible sets; check for each whether it spans R^2")
        if msgs:
            return False, "; ".join(msgs)
        return True, (
            f"{len(modified)} admissible sets, {len(bruna)} open cells; "
            f"{'every one spans: injective' if inj else 'some do not span: not injective'} on R^2"
        )

    return report("11.1", answer, verify)


def _omni_t_star(F: rf.Frame) -> float:
    """t* = max t subject to D c = 0, sum c = 1, c_i >= t (the kit's omnidirectionality LP)."""
    m, n = F.m, F.n
    A_eq = np.vstack([np.c_[F.vectors.T, np.zeros(n)], np.r_[np.ones(m), 0.0]])
    res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-np.eye(m), np.ones(m)], b_ub=np.zeros(m), A_eq=A_eq,
                  b_eq=np.r_[np.zeros(n), 1.0], bounds=(None, None), method="highs")  # fmt: skip
    return float(-res.fun)


def check_11_2(answer: Any) -> Feedback:
    """Exercise 11.2: the optimal value t* of the omnidirectionality LP for ``frame_11_2()``."""

    def verify(ans):
        t = float(ans)
        F = frame_11_2()
        right = _omni_t_star(F)
        omni = rf.is_omnidirectional(F)
        if np.isclose(t, right, rtol=CLOSE_RTOL, atol=CLOSE_ATOL):
            return True, (
                f"t* = {right:+.6f} {'>' if right > 0 else '<='} 0: the frame is "
                f"{'' if omni else 'not '}omnidirectional (the hull test agrees)"
            )
        if abs(t) < ZERO_ANSWER:
            return False, (
                "t = 0 is what the printed program min ||Dc|| over c > 0 suggests for every frame; solve the LP "
                "max t subject to Dc = 0, sum c = 1, c_i >= t (variables c and t, t free in sign)"
            )
        if np.sign(t) != np.sign(right):
            return False, "wrong sign: did you bound t or c below by 0? c (and t) must be free in sign"
        return False, f"{'too large' if t > right else 'too small'}: check the constraints Dc = 0 and sum c = 1"

    return report("11.2", answer, verify)


def check_11_3(answer: Any) -> Feedback:
    """Exercise 11.3: the polytope bias on the boundary of P_Phi by formula (i), for ``frame_11_3()``."""

    def verify(ans):
        F = frame_11_3()
        a = np.asarray(ans, dtype=float).ravel()
        if a.size != F.m:
            return False, f"the bias needs {F.m} entries, one per frame vector; yours has {a.size}"
        P = rf.inscribing_polytope(F)
        right = rf.polytope_bias(P, "boundary").values
        if np.allclose(a, right, atol=FORMULA_ATOL):
            return True, (
                f"formula (i): per element the smallest <phi_l, phi_i> over the facets containing it, "
                f"in [{a.min():.4f}, {a.max():.4f}]"
            )
        if np.allclose(a, reference.algorithm_2(P), atol=FORMULA_ATOL):
            lower = np.flatnonzero(a < right - CLOSE_ATOL) + 1
            return False, (
                f"this is Algorithm 2 (minimum over all pairs of each facet); formula (i) takes only the pairs "
                f"that contain phi_i and is larger for elements {lower.tolist()}"
            )
        high = np.flatnonzero(a > right + FORMULA_ATOL) + 1
        if high.size:
            return False, (
                f"too large for elements {high.tolist()}: some facet containing phi_i has a vertex phi_l with a "
                f"smaller <phi_l, phi_i>"
            )
        low = np.flatnonzero(a < right - FORMULA_ATOL) + 1
        return False, f"too small for elements {low.tolist()}: take the minimum only over facets that contain phi_i"

    return report("11.3", answer, verify)
