"""Checkers of the exercises of ``06_sampling``.

6.1 a bias proven by sampling (Approach A with a guaranteed covering radius), not too conservative;
6.2 the Tukey depth of the origin by hand, with a direction that attains it;
6.3 a colliding pair for a layer in dimension 5 that passes 20 000 samples.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import ZERO, elements, pair_problem, report
from . import vec as _vec

__all__ = ["frame_6_1", "TOLERANCE_6_1", "frame_6_2", "layer_6_3", "check_6_1", "check_6_2", "check_6_3"]


# ---------------------------------------------------------------------------------------------
# 6.1 — a proven bias
# ---------------------------------------------------------------------------------------------

#: how far below the sampled estimate (200 000 samples) an entry may lie
TOLERANCE_6_1 = 0.05


def frame_6_1() -> rf.Frame:
    """Five unit vectors at 10, 60, 100, 150 and 280 degrees."""
    t = np.radians([10.0, 60.0, 100.0, 150.0, 280.0])
    return rf.Frame(np.column_stack([np.cos(t), np.sin(t)]))


def _on_ball_6_1(F: rf.Frame, a: np.ndarray):
    """``rf.check`` of ``F`` with the bias ``a`` on the ball: ``(verdict, None)`` when it proves injectivity, else
    ``(verdict, feedback)`` for exercise 6.1 (shared with the student edition's self-check)."""
    v = rf.check(rf.ReLULayer(F, a), rf.Ball(2))
    if v.status == "not injective":
        x, y = v.pair
        return v, (False, f"your bias is too large: the layer is not injective at x = {_vec(x)} (y = {_vec(y)} has "
                          "the same output); did you subtract the covering radius?")  # fmt: skip
    if v.status != "injective":
        return v, (False, f"could not decide this bias ({v.text})")
    return v, None


def check_6_1(answer):
    """``answer``: a bias (5 entries) for which frame_6_1 is rectifying on the closed unit ball, every entry at most
    TOLERANCE_6_1 below the sampled estimate with 200 000 samples."""

    def verify(ans):
        F = frame_6_1()
        a = np.asarray(ans, dtype=float)
        if a.shape != (F.m,):
            return False, f"give {F.m} entries, one per frame vector; got shape {a.shape}"
        v, failed = _on_ball_6_1(F, a)
        if failed:
            return failed
        ref = rf.sampling_bias(F, rf.Ball(2), n_samples=200_000, seed=0, progress=False).values
        low = np.flatnonzero(a < ref - TOLERANCE_6_1)
        if low.size:  # the estimate itself is not printed: it pins the entry
            return False, (f"rectifying, but too conservative: the entries of {elements(low)} lie more than "
                           f"{TOLERANCE_6_1} below the sampled estimate; a finer covering bound or more samples help")
        return True, f"proven rectifying on the ball (rf.check: {v.method}), within {TOLERANCE_6_1} of sampling"

    return report("6.1", answer, verify)


def _wrong_answers_6_1(value):
    """For the leak probe: a bias raised by 0.1 (not injective) and one lowered by 0.1 (too conservative)."""
    a = np.asarray(value, dtype=float)
    return [a + 0.1, a - 0.1]


# ---------------------------------------------------------------------------------------------
# 6.2 — the Tukey depth by hand
# ---------------------------------------------------------------------------------------------


def frame_6_2() -> rf.Frame:
    """Eight random unit vectors in R^3 (rf.zoo.random_sphere(8, 3, seed=601))."""
    return rf.zoo.random_sphere(8, 3, seed=601)


def _depth_at_6_2(F: rf.Frame, ans):
    """An answer ``(depth, u)`` to exercise 6.2 read and held to its own u: ``(depth, u, None)``, or ``(depth, u, feedback)``
    when u is not a non-zero vector of R^3 or the count at u is not the depth given (shared with the edition's self-check)."""
    depth, u = ans
    depth, u = int(depth), np.asarray(u, dtype=float)
    if u.shape != (3,) or np.linalg.norm(u) < ZERO:
        return depth, u, (False, f"u should be a non-zero vector of R^3; got {u!r}")
    count = int(np.count_nonzero(F.vectors @ u >= 0))
    if count != depth:
        return depth, u, (False, f"at your u, {count} rows have <u, phi_i> >= 0, not {depth}")
    return depth, u, None


def check_6_2(answer):
    """``answer``: ``(depth, u)``: the Tukey depth of the origin among the rows of frame_6_2, and a direction u with
    exactly ``depth`` rows having <u, phi_i> >= 0."""

    def verify(ans):
        F = frame_6_2()
        depth, u, failed = _depth_at_6_2(F, ans)
        if failed:
            return failed
        truth = rf.tukey_depth_origin(F)
        if depth > truth.depth:
            return False, ("there is a direction with fewer rows in its closed half-space {<u, .> >= 0}: the depth is "
                           "the least count over all directions u (the pairs S of section 5 give every candidate)")  # fmt: skip
        return True, (f"depth {depth}, attained at u = {_vec(u)}; since {depth} < n = 3 the zero-bias layer is not "
                      "injective (the active rows at u do not span)")  # fmt: skip

    return report("6.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 6.3 — a collision that sampling misses
# ---------------------------------------------------------------------------------------------


def layer_6_3() -> rf.ReLULayer:
    """20 Gaussian rows in R^5 (rf.zoo.gaussian(20, 5, seed=9)), bias -0.05 in every entry."""
    return rf.ReLULayer(rf.zoo.gaussian(20, 5, seed=9), -0.05)


def check_6_3(answer):
    """``answer``: two distinct points of the closed unit ball of R^5 with the same output under layer_6_3."""

    def verify(ans):
        problem, (x, y, _) = pair_problem(ans, layer_6_3(), rf.Ball(5))
        if problem:
            return False, problem
        return True, (f"x and y (|x - y| = {np.linalg.norm(x - y):.2g}) share their output: the layer is not "
                      "injective on the ball, although random samples of the ball hardly ever show it")  # fmt: skip

    return report("6.3", answer, verify)
