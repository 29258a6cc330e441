"""Checkers of the exercises of ``05_maximal_bias``.

5.1 the largest constant bias of a five-vector frame on the unit ball (Prop. "maximal constant bias");
5.2 a most correlated basis by hand, for a frame with parallel vectors (the greedy rule);
5.3 which elements are redundant on a data set (K_i-sharp empty: the data set is not bias-exact).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

import relu_frames_nb as rf

from . import PAST_EXACT, THREE_DECIMALS, ZERO, element_numbers, elements, report
from . import vec as _vec

__all__ = ["frame_5_1", "frame_5_2", "X_5_2", "frame_5_3", "data_5_3", "check_5_1", "check_5_2", "check_5_3"]


# ---------------------------------------------------------------------------------------------
# 5.1 — the largest constant bias on the ball
# ---------------------------------------------------------------------------------------------


def frame_5_1() -> rf.Frame:
    """Five unit vectors at 20, 70, 110, 205 and 330 degrees."""
    t = np.radians([20.0, 70.0, 110.0, 205.0, 330.0])
    return rf.Frame(np.column_stack([np.cos(t), np.sin(t)]))


#: below this fraction of the circle's directions failing, the 5.1 hint names no direction (it would point at the answer)
SMALL_5_1 = 0.05


def _max_constant_bias_ball(F: rf.Frame):
    """Exact alpha_c on the closed unit ball of R^2, and a point where it is attained.

    alpha_c = min(0, min over unit u of f(u)), f(u) = the weakest coefficient of J*(u) (f(0) = 0).
    f is made of pieces cos(t - t_j); its local minima are at t_j + pi (a piece at its lowest) or
    where two pieces cross, t = (t_i + t_j)/2 mod pi.
    """
    th = np.arctan2(F.vectors[:, 1], F.vectors[:, 0])
    cand = [th + np.pi] + [np.array([(a + b) / 2, (a + b) / 2 + np.pi]) for a, b in combinations(th, 2)]
    t = np.concatenate(cand)
    U = np.column_stack([np.cos(t), np.sin(t)])
    J = rf.most_correlated_basis(F, U)
    f = np.take_along_axis(U @ F.vectors.T, J, axis=1).min(axis=1)
    k = int(np.argmin(f))
    return (float(f[k]), U[k]) if f[k] < 0 else (0.0, np.zeros(2))


def check_5_1(answer):
    """``answer``: the largest r such that frame_5_1 is (r, ..., r)-rectifying on the closed unit ball, rounded down
    to 3 decimals (a bias that is too large breaks the property; up to THREE_DECIMALS too small is accepted)."""

    def verify(r):
        F = frame_5_1()
        r = float(r)
        a_c, x = _max_constant_bias_ball(F)
        if r > a_c + PAST_EXACT:
            if r > 0:
                return False, "your bias is too large: at x = 0 every coefficient is 0 < r, so no element is active there"
            # a witness where the student's bias only just fails, not where alpha_c is attained (that would give it)
            t = np.linspace(0.0, 2 * np.pi, 3600, endpoint=False)
            U = np.column_stack([np.cos(t), np.sin(t)])
            second = np.sort(U @ F.vectors.T, axis=1)[:, -2]
            bad = np.flatnonzero(second < r)
            if bad.size < SMALL_5_1 * t.size:  # the failing directions are few: any of them sits next to where alpha_c is
                return False, ("your bias is too large: in a few directions of the unit circle fewer than two coefficients "
                               "are >= r (look where the second largest coefficient is smallest)")  # fmt: skip
            w = U[bad[np.argmax(second[bad])]]
            active = np.flatnonzero(F.vectors @ w >= r)
            return False, (f"your bias is too large: at x = {_vec(w)} only the elements {elements(active)} are active, "
                           "so the layer is not injective there")  # fmt: skip
        if r < a_c - THREE_DECIMALS:
            return False, "the layer is still rectifying for a slightly larger constant bias: r can be larger"
        return True, f"alpha_c = {a_c:.5f}, attained at x = {_vec(x)}, where the second largest coefficient is alpha_c"

    return report("5.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 5.2 — a most correlated basis by hand
# ---------------------------------------------------------------------------------------------

X_5_2 = (0.9, 0.5, 0.1)


def frame_5_2() -> rf.Frame:
    """Seven vectors in R^3; phi_0 and phi_1 are parallel, phi_3 lies in the plane of phi_0 and phi_2."""
    return rf.Frame([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [np.sqrt(0.5), np.sqrt(0.5), 0.0],
                     [0.0, 0.0, 1.0], [1 / np.sqrt(3)] * 3, [-1.0, 0.5, 0.2]])  # fmt: skip


def check_5_2(answer):
    """``answer``: J*(X_5_2) for frame_5_2, three element numbers (counted from 1, like the text)."""

    def verify(ans):
        F, x = frame_5_2(), np.asarray(X_5_2)
        J, problem = element_numbers(ans, F.m)
        if problem:
            return False, problem
        if len(J) != 3:
            return False, f"give three different element numbers between 1 and {F.m}; got {len(J)}"
        c = F.vectors @ x
        best = max(min(c[list(B)]) for B in combinations(range(F.m), 3) if F.spans(B))

        def works(B):
            return F.spans(list(B)) and min(c[list(B)]) >= best - ZERO

        if not works(J) and all(j + 1 < F.m for j in J) and works([j + 1 for j in J]):
            return False, "counted from 0? the exercises number the elements from 1, like the text"
        if not F.spans(J):
            return False, (f"the elements {elements(J)} do not form a basis (rank {np.linalg.matrix_rank(F.vectors[J])}); "
                           "the greedy rule skips a vector that depends on the ones kept")  # fmt: skip
        weakest = float(min(c[J]))
        if weakest < best - ZERO:
            return False, (f"{elements(J)} is a basis, but another basis has a larger weakest coefficient than your "
                           f"{weakest:.4g}: keep the largest coefficients, skipping only the dependent ones")  # fmt: skip
        return True, (f"{elements(J)} is a most correlated basis: its weakest coefficient {weakest:.4g} is the largest "
                      "any basis reaches (the three largest coefficients do not form a basis)")  # fmt: skip

    return report("5.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 5.3 — redundant elements on a data set
# ---------------------------------------------------------------------------------------------


def frame_5_3() -> rf.Frame:
    """Six random unit vectors in R^2 (rf.zoo.random_sphere(6, 2, seed=703))."""
    return rf.zoo.random_sphere(6, 2, seed=703)


def data_5_3() -> np.ndarray:
    """A data set of 400 points of the unit ball (rf.Ball(2).sample(400, seed=3))."""
    return rf.Ball(2).sample(400, seed=3)


def _k_sharp_5_3():
    F, X = frame_5_3(), data_5_3()
    J, ties = rf.most_correlated_basis(F, X, return_ties=True)
    assert not ties.any()
    flat = rf.sampling_bias(F, X, progress=False)
    active = rf.ReLULayer(F, flat.finite(fill=1e9)).active_set(X)
    in_J = np.stack([np.any(J == i, axis=1) for i in range(F.m)], axis=1)
    return X, active, in_J


def check_5_3(answer):
    """``answer``: the elements (numbers counted from 1, like the text) whose set K_i-sharp contains no point of data_5_3."""

    def verify(ans):
        X, active, in_J = _k_sharp_5_3()
        exact_n = active.sum(axis=1) == 2
        right = [i for i in range(in_J.shape[1]) if not np.any(in_J[:, i] & exact_n)]
        got, problem = element_numbers(ans, in_J.shape[1])
        if problem:
            return False, problem
        if got == right:
            return True, (f"K_i♯ is empty for {elements(right)}: wherever such an element is in J*(x), a third element "
                          "is active too; the data set is not bias-exact")  # fmt: skip
        if [i + 1 for i in got] == right:
            return False, "counted from 0? the exercises number the elements from 1, like the text"
        parts = []
        for i in sorted(set(got) - set(right)):
            k = int(np.flatnonzero(in_J[:, i] & exact_n)[0])
            parts.append(f"φ_{i + 1} is not redundant: at x = {_vec(X[k])} it is in J*(x) and only "
                         f"{elements(np.flatnonzero(active[k]))} are active")  # fmt: skip
        missing = len(set(right) - set(got))
        if missing:  # which one is not said: that is the answer
            parts.append(f"{'one redundant element is' if missing == 1 else f'{missing} redundant elements are'} missing: "
                         "an element is redundant when, at every data point where it is in J*(x), a third element is "
                         "active too")  # fmt: skip
        return False, "; ".join(parts)

    return report("5.3", answer, verify)
