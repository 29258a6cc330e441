"""Checkers for the exercises of 09_reconstruction (inverting a layer, the rate of the frame algorithm)."""

from __future__ import annotations

from typing import Any

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_RTOL, MEASURED_RTOL, ON_BOUNDARY, ROUNDING_NOISE, VECTOR_ATOL, Feedback, report

__all__ = ["layer_9_1", "output_9_1", "X_9_2", "check_9_1", "check_9_2"]

_X_9_1 = np.array([0.7, -1.1, 0.4])  # the input behind output_9_1() (in B_2)
X_9_2 = np.array([1.2, -1.2, 0.6])  # the input of exercise 9.2


def layer_9_1() -> rf.ReLULayer:
    """The layer of exercises 9.1 and 9.2: 9 random unit vectors in R^3, polytope bias on the ball B_2."""
    F = rf.zoo.random_sphere(9, 3, seed=11)
    return rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(3, 2.0)).values)


def output_9_1() -> np.ndarray:
    """The output z = C_alpha(x) of exercise 9.1 (x unknown, in B_2)."""
    return layer_9_1()(_X_9_1)


def check_9_1(answer: Any) -> Feedback:
    """Exercise 9.1: the input x in B_2 with ``layer_9_1()(x) == output_9_1()``."""

    def verify(ans):
        x = np.asarray(ans, dtype=float).ravel()
        if x.shape != (3,):
            return False, f"x should be a point of R^3 (3 numbers); yours has {x.size}"
        L, z = layer_9_1(), output_9_1()
        miss = float(np.abs(L(x) - z).max())
        if miss > VECTOR_ATOL:
            J = np.flatnonzero(z > 0)
            return False, (
                f"C_alpha(x) differs from z by up to {miss:.2e}; read J = {{i : z_i > 0}} = {(J + 1).tolist()} "
                f"from z, add the bias back on J and apply a dual frame of Phi_J (rf.reconstruct does this)"
            )
        if np.linalg.norm(x) > 2 + ON_BOUNDARY:
            return False, (
                f"C_alpha(x) = z, but ||x|| = {np.linalg.norm(x):.3f} > 2: the layer is injective on B_2 only, "
                f"and the input asked for lies in B_2"
            )
        return True, f"x = {np.round(x, 6)} gives the output z (to {miss:.0e}); it is the only such point of B_2"

    return report("9.1", answer, verify)


def _measured_rate(L: rf.ReLULayer, x: np.ndarray, lam: float) -> float:
    r = rf.relu_frame_algorithm(L, L(x), x_true=x, lam=lam, lam0=0.0, tol=0.0, n_iter=300)
    e = r.errors
    e = e[e > ROUNDING_NOISE * np.linalg.norm(x)]  # before rounding noise
    h = len(e) // 2
    return float((e[-1] / e[h]) ** (1 / (len(e) - 1 - h)))


def check_9_2(answer: Any) -> Feedback:
    """Exercise 9.2: the contraction factor per step of the plain frame algorithm with lam = 1/B at X_9_2."""

    def verify(ans):
        kappa = float(ans)
        L = layer_9_1()
        A, B = L.frame.bounds
        act = np.flatnonzero(L(X_9_2) > 0)
        ev = np.linalg.eigvalsh(L.frame.vectors[act].T @ L.frame.vectors[act])
        right = float(max(abs(1 - ev[0] / B), abs(1 - ev[-1] / B)))
        measured = _measured_rate(L, X_9_2, 1 / B)
        if np.isclose(kappa, right, rtol=CLOSE_RTOL) or np.isclose(kappa, measured, rtol=MEASURED_RTOL):
            return True, (
                f"kappa = 1 - lambda_min(S_x)/B = {right:.6f}; the run contracts by {measured:.6f} per step "
                f"(|I_x| = {act.size} active vectors)"
            )
        if np.isclose(kappa, 1 - 2 * ev[0] / (A + B), rtol=CLOSE_RTOL):
            return False, "that is the rate for the default step 2/(A+B); here the step is lambda = 1/B"
        if np.isclose(kappa, 1 - A / B, rtol=CLOSE_RTOL):
            return False, (
                "you used the lower bound A of the whole frame; the plain iteration only sees the active "
                "sub-frame Phi_{I_x}: use the smallest eigenvalue of its Gram matrix"
            )
        side = "too large (slower than the run)" if kappa > measured else "too small (faster than the run)"
        return False, (f"{side}; compare with the error curve of the run: which eigenvalue of I - lambda S_x "
                       "dominates once the fast directions have died out?")  # fmt: skip

    return report("9.2", answer, verify)
