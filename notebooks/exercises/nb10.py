"""Checkers for the exercises of 10_stability (local constant, a second layer on a box, the global constant)."""

from __future__ import annotations

from typing import Any

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_RTOL, THREE_DIGITS_RTOL, Feedback, report

__all__ = ["layer_10_1", "X0_10_1", "layer1_10_2", "frame2_10_2", "box_10_2", "check_10_1", "check_10_2", "check_10_3"]

X0_10_1 = np.array([0.3, -0.4])  # the point of exercise 10.1
STEP_10_2 = 0.01  # resolution asked for in exercise 10.2


def layer_10_1() -> rf.ReLULayer:
    """The layer of exercises 10.1 and 10.3: 6 random unit vectors in R^2, polytope bias on the unit disc."""
    F = rf.zoo.random_sphere(6, 2, seed=5)
    return rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(2)).values)


def layer1_10_2() -> rf.ReLULayer:
    """Layer 1 of exercise 10.2: 5 random unit vectors in R^2, polytope bias on the unit disc."""
    F = rf.zoo.random_sphere(5, 2, seed=2)
    return rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(2)).values)


def frame2_10_2() -> rf.Frame:
    """The frame of layer 2 in exercise 10.2: 15 random unit vectors in R^5."""
    return rf.zoo.random_sphere(15, 5, seed=3)


def box_10_2() -> rf.Box:
    """The box [0, u] of exercise 10.2, u_i = |phi_i| - alpha_i: it contains the image of the unit disc under layer 1."""
    L1 = layer1_10_2()
    return rf.Box(np.zeros(L1.m), np.linalg.norm(L1.frame.vectors, axis=1) - L1.alpha)


def check_10_1(answer: Any) -> Feedback:
    """Exercise 10.1: ``(kappa, eps)`` — the local constant 1/A_J and its radius at X0_10_1."""

    def verify(ans):
        if not isinstance(ans, (tuple, list)) or len(ans) != 2:
            return False, "answer_10_1 should be a pair (kappa, eps)"
        kappa, eps = float(ans[0]), float(ans[1])
        L = layer_10_1()
        s = rf.local_stability(L, X0_10_1)
        msgs = []
        if not np.isclose(kappa, s.kappa, rtol=CLOSE_RTOL):
            A_all = rf.active_bounds(L, X0_10_1)[0]
            if np.isclose(kappa, 1 / L.frame.bounds[0], rtol=CLOSE_RTOL):
                msgs.append("kappa: you used the lower frame bound of the whole frame; use the strictly active sub-frame")
            elif np.isclose(kappa, s.lower_frame_bound, rtol=CLOSE_RTOL):
                msgs.append("kappa: that is A_J itself; the constant is its inverse 1/A_J")
            elif np.isclose(kappa, 1 / A_all, rtol=CLOSE_RTOL):
                msgs.append("kappa: close, but use the strictly active elements <x0, phi_i> > alpha_i only")
            else:
                side = "too large" if kappa > s.kappa else "too small"
                msgs.append(
                    f"kappa is {side}: it is 1/A_J with A_J the smallest eigenvalue of the sum of phi_i phi_i^T "
                    f"over the strictly active i"
                )
        if not np.isclose(eps, s.eps, rtol=CLOSE_RTOL):
            if np.isclose(eps, s.eps_pattern, rtol=CLOSE_RTOL):
                msgs.append("eps: that is the distance to the nearest hyperplane of *any* element; only those of J matter")
            else:
                msgs.append(
                    f"eps is {'too large' if eps > s.eps else 'too small'}: it is the distance from x0 to the "
                    f"nearest hyperplane <x, phi_i> = alpha_i with i in J"
                )
        if msgs:
            return False, "; ".join(msgs)
        return True, (
            f"kappa = 1/A_J = {s.kappa:.4f} with J = {(s.J + 1).tolist()} (strictly active), valid in the ball of "
            f"radius eps = {s.eps:.4f} around x0"
        )

    return report("10.1", answer, verify)


def check_10_2(answer: Any) -> Feedback:
    """Exercise 10.2: the largest constant bias (within 0.01) making layer 2 injective on the box of the image."""

    def verify(ans):
        b = float(ans)
        Psi, box = frame2_10_2(), box_10_2()
        at = rf.check(rf.ReLULayer(Psi, b), box, method="exact", time_limit=60)
        if at.status != "injective":
            more = f": x = {np.round(at.pair[0], 3)} and y = {np.round(at.pair[1], 3)} in the box collide" if at.pair else ""
            return False, f"with bias {b:g} layer 2 is {at.status} on the box{more}; the bias is too large"
        above = rf.check(rf.ReLULayer(Psi, b + STEP_10_2), box, method="exact", time_limit=60)
        if above.status == "injective":
            return False, f"bias {b:g} is injective on the box, but so is {b + STEP_10_2:g}: you can raise it further"
        if above.status != "not injective":
            return False, f"bias {b:g} is injective on the box, but {b + STEP_10_2:g} could not be decided ({above.text})"
        X = layer1_10_2()(rf.Ball(2).sample(2000, seed=0))
        assert np.all(box.contains(X))
        return True, (
            f"injective at {b:g} (certificate: at least {at.lower_bound} active vectors everywhere on the box), "
            f"not at {b + STEP_10_2:g}; the box contains the image of the disc, so the network is injective on the disc"
        )

    return report("10.2", answer, verify)


def _wrong_answers_10_2(value):
    """For the leak probe: a bias 0.05 too large and one 0.05 too small (each costs one or two exact verdicts)."""
    return [float(value) + 0.05, float(value) - 0.05]


_A_ALPHA: dict = {}  # the checker's reference A_alpha, computed once (the leak probe calls the checker again)


def _A_alpha(L: rf.ReLULayer) -> float:
    key = (L.frame.vectors.tobytes(), np.asarray(L.alpha).tobytes())
    if key not in _A_ALPHA:
        _A_ALPHA[key] = _A_alpha_grid(L)
    return _A_ALPHA[key]


def _A_alpha_grid(L: rf.ReLULayer) -> float:
    t = np.linspace(-1.0, 1.0, 801)
    G = np.stack(np.meshgrid(t, t), axis=-1).reshape(-1, 2)
    G = np.vstack([G[np.linalg.norm(G, axis=1) <= 1], rf.Ball(2).sample(50_000, seed=1)])
    return rf.global_bounds(L, G).lower


def check_10_3(answer: Any) -> Feedback:
    """Exercise 10.3: the stability constant B / A_alpha^2 of ``layer_10_1()`` on the unit disc."""

    def verify(ans):
        kappa = float(ans)
        L = layer_10_1()
        A, B = _A_alpha(L), L.frame.bounds[1]
        right = B / A**2
        if np.isclose(kappa, right, rtol=THREE_DIGITS_RTOL):
            Y, Z = rf.Ball(2).sample(20_000, seed=2), rf.Ball(2).sample(20_000, seed=3)
            worst = float(rf.measured_lipschitz(L, Y, Z).max())
            return True, f"kappa = B/A_alpha^2 = {B:.3f}/{A:.4f}^2 = {right:.3f}; random pairs reach at most {worst:.3f}"
        if np.isclose(kappa, 1 / A, rtol=THREE_DIGITS_RTOL):
            return False, ("1/A_alpha bounds pairs with a common active set only; across active sets the proof gives B/A_alpha^2")
        if np.isclose(kappa, B / A, rtol=THREE_DIGITS_RTOL):
            return False, "almost: the lower frame bound enters squared (Cauchy-Schwarz step of the proof)"
        if np.isclose(kappa, 2 * L.m / A, rtol=THREE_DIGITS_RTOL):
            return False, "2m/A_0 is Puthawala et al.'s constant for bias 0 on R^n; here use the bound proved in §1"
        side = "too large" if kappa > right else "too small"
        return False, f"{side}: compute A_alpha with rf.global_bounds on the disc and B from the frame"

    return report("10.3", answer, verify)
