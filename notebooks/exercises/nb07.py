"""Checkers for the exercises of 07_polytope_bias (polytope bias, exact verdict, hole radii)."""

from __future__ import annotations

from typing import Any

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_RTOL, MISREADING_RTOL, VECTOR_ATOL, Feedback, report

__all__ = ["frame_7_1", "frame_7_2", "frame_7_3", "check_7_1", "check_7_2", "check_7_3"]

SHELL_7_1 = (0.5, 2.0)  # s, r of the donut D_{r,s} in exercise 7.1
STEP_7_2 = 0.01  # resolution asked for in exercise 7.2


def frame_7_1() -> rf.Frame:
    """The frame of exercise 7.1: 10 random unit vectors in R^3 (not omnidirectional)."""
    return rf.zoo.random_sphere(10, 3, seed=7)


def frame_7_2() -> rf.Frame:
    """The frame of exercise 7.2: 10 random unit vectors in R^3 (omnidirectional)."""
    return rf.zoo.random_sphere(10, 3, seed=8)


def frame_7_3() -> rf.Frame:
    """The frame of exercise 7.3: 16 random unit vectors in R^3."""
    return rf.zoo.random_sphere(16, 3, seed=9)


def _vector(answer: Any, m: int, name: str) -> np.ndarray:
    a = np.asarray(answer, dtype=float).ravel()
    if a.size != m:
        raise ValueError(f"{name} should have {m} entries, one per frame vector; yours has {a.size}")
    return a


def _completed_7_1(ans):
    """An answer ``(frame, bias)`` to exercise 7.1 read: ``(completed frame, bias, None)``, or ``(None, None, feedback)``
    when the frame is not the given one plus one vector, or not omnidirectional (shared with the edition's self-check)."""
    if not isinstance(ans, (tuple, list)) or len(ans) != 2:
        return None, None, (False, "answer_7_1 should be a pair (completed_frame, bias)")
    frame, bias = ans
    Fc = frame if isinstance(frame, rf.Frame) else rf.Frame(np.asarray(frame, dtype=float))
    F0 = frame_7_1()
    if Fc.m != F0.m + 1 or not np.allclose(Fc.vectors[: F0.m], F0.vectors):
        return None, None, (False, f"the frame should be the 10 given vectors followed by one more (11 rows); yours has "
                                   f"{Fc.m} rows" + ("" if Fc.m != F0.m + 1 else " but its first 10 are not the given ones"))
    if not rf.is_omnidirectional(Fc):
        return None, None, (False, "your completed frame is still not omnidirectional: App. B, §2 says which one vector "
                                   "completes a frame")  # fmt: skip
    return Fc, bias, None


def check_7_1(answer: Any) -> Feedback:
    """Exercise 7.1: ``(frame, bias)`` — the completed frame and its polytope bias on D_{2,1/2}."""

    def verify(ans):
        Fc, bias, failed = _completed_7_1(ans)
        if failed:
            return failed
        s, r = SHELL_7_1
        K = rf.Shell(3, s, r)
        b = _vector(bias, Fc.m, "the bias")
        right = rf.polytope_bias(Fc, K).values
        if np.allclose(b, right, atol=VECTOR_ATOL):
            chk = rf.check_rectifying(rf.ReLULayer(Fc, b), K, n_samples=20_000, seed=1)
            return True, (
                f"the polytope bias on D_{{{r:g},{s:g}}}, in [{b.min():+.4f}, {b.max():+.4f}]; rectifying at "
                f"{chk.n_checked} samples of the donut"
            )
        aS = rf.polytope_bias(Fc, rf.Sphere(3)).values
        if np.allclose(b, np.minimum(s, aS) / r, atol=VECTOR_ATOL):
            return False, "this is the printed formula (iii), r^-1 min{s, alpha_S}; see the erratum in section 4"
        if np.allclose(b, aS, atol=VECTOR_ATOL):
            return False, ("this is the bias on the unit sphere; scale it to the donut (whether r a or s a applies depends "
                           "on the sign of a)")
        chk = rf.check_rectifying(rf.ReLULayer(Fc, b), K, n_samples=20_000, seed=1)
        if not chk.rectifying:
            x = chk.failures[0] if getattr(chk, "failures", None) is not None and len(chk.failures) else None
            where = f" at x = {np.round(x, 3)}" if x is not None else ""
            high = np.flatnonzero(b > right + VECTOR_ATOL) + 1
            return False, (
                f"your bias is too large (elements {high.tolist()} exceed the polytope bias): the layer is "
                f"not rectifying on the donut{where}, so not injective there"
            )
        low = np.flatnonzero(b < right - VECTOR_ATOL) + 1
        return False, (
            f"your bias is rectifying but smaller than the polytope bias for elements {low.tolist()}: "
            f"take the minimum of <y, phi_i> over cone(F) ∩ D_(r,s) only over facets F containing phi_i"
        )

    return report("7.1", answer, verify)


def _exact(frame: rf.Frame, bias: np.ndarray, K) -> Any:
    return rf.check(rf.ReLULayer(frame, bias), K, method="exact", time_limit=60)


def check_7_2(answer: Any) -> Feedback:
    """Exercise 7.2: the largest raise ``d`` (within 0.01) of the polytope bias on B keeping the layer injective."""

    def verify(ans):
        d = float(ans)
        F = frame_7_2()
        base = rf.polytope_bias(F, rf.Ball(3)).values
        at = _exact(F, base + d, rf.Ball(3))
        if at.status != "injective":
            more = f": x = {np.round(at.pair[0], 3)} and y = {np.round(at.pair[1], 3)} have the same output" if at.pair else ""
            return False, f"with d = {d:g} the layer is {at.status} on the ball{more}; d is too large"
        above = _exact(F, base + d + STEP_7_2, rf.Ball(3))
        if above.status == "injective":
            return False, (
                f"d = {d:g} is injective, but so is d + {STEP_7_2:g} (exact verdict: {above.method}); "
                f"you can raise the bias further"
            )
        if above.status != "not injective":
            return False, f"injective at d = {d:g}, but d + {STEP_7_2:g} could not be decided ({above.text})"
        return True, (
            f"injective at d = {d:g} (at least {at.lower_bound} > h = {at.details['exact']['h']} vectors active "
            f"everywhere), not injective at d + {STEP_7_2:g} (verified colliding pair): the polytope bias was "
            f"{d:.3f} short of the limit"
        )

    return report("7.2", answer, verify)


def _wrong_answers_7_2(value):
    """For the leak probe: a raise 0.05 too large and one 0.05 too small (each costs one or two exact verdicts)."""
    return [float(value) + 0.05, float(value) - 0.05]


def check_7_3(answer: Any) -> Feedback:
    """Exercise 7.3: the covering radius of the frame for the sphere, from the hole radii of the facets."""

    def verify(ans):
        rho = float(ans)
        F = frame_7_3()
        P = rf.inscribing_polytope(F)
        holes = np.sqrt(2 - 2 * P.offsets)
        right = float(holes.max())
        if np.isclose(rho, right, rtol=CLOSE_RTOL):
            probe = rf.covering_radius(P.points, rf.Sphere(3), kind="heuristic", n_probes=200_000, seed=0).value
            return True, f"rho = {right:.4f}, the largest of {P.n_facets} hole radii (a dense probe finds {probe:.4f})"
        if np.isclose(rho, holes.min(), rtol=MISREADING_RTOL):
            return False, "that is the smallest hole radius; the covering radius is the largest one"
        if np.isclose(rho, P.offsets.min(), rtol=MISREADING_RTOL) or np.isclose(rho, P.offsets.max(), rtol=MISREADING_RTOL):
            return False, "that is a facet offset b_F; the hole radius of a facet is sqrt(2 - 2 b_F)"
        if np.isclose(rho, np.arccos(P.offsets.min()), rtol=MISREADING_RTOL):
            return False, "that is the angular (geodesic) radius of the largest cap; the kit's radius is Euclidean"
        side = "too large" if rho > right else "too small"
        return False, f"{side}: the covering radius is the largest hole radius over the facets of the inscribing polytope (§6)"

    return report("7.3", answer, verify)
