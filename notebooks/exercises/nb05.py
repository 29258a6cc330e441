"""Checkers of the exercises of ``05_maximal_bias``.

5.1 the largest constant bias of a five-vector frame on the unit ball (Prop. "maximal constant bias");
5.2 a most correlated basis by hand, for a frame with parallel vectors (the greedy rule);
5.3 which elements are redundant on a data set (K_i-sharp empty: the data set is not bias-exact).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

import relu_frames_nb as rf

from . import index_set as _set
from . import report
from . import vec as _vec

__all__ = ["frame_5_1", "frame_5_2", "X_5_2", "frame_5_3", "data_5_3", "check_5_1", "check_5_2", "check_5_3",
           "max_constant_bias_ball"]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# 5.1 — the largest constant bias on the ball
# ---------------------------------------------------------------------------------------------


def frame_5_1() -> rf.Frame:
    """Five unit vectors at 20, 70, 110, 205 and 330 degrees."""
    t = np.radians([20.0, 70.0, 110.0, 205.0, 330.0])
    return rf.Frame(np.column_stack([np.cos(t), np.sin(t)]))


def max_constant_bias_ball(F: rf.Frame):
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
    to 3 decimals (a bias that is too large breaks the property; up to 1e-3 too small is accepted)."""

    def verify(r):
        F = frame_5_1()
        r = float(r)
        a_c, x = max_constant_bias_ball(F)
        if r > a_c + 1e-6:
            active = np.flatnonzero(F.vectors @ x >= r)
            return False, (f"your bias is too large: at x = {_vec(x)} only the elements {_set(active)} are active "
                           f"(coefficients {_vec(F.vectors @ x)}), so the layer is not injective there")  # fmt: skip
        if r < a_c - 1e-3:
            t = (r + a_c) / 2
            assert rf.check(rf.ReLULayer(F, t), rf.Ball(2)).status == "injective"
            return False, f"the layer is still rectifying for the larger constant bias {t:.5f}"
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
    """``answer``: J*(X_5_2) for frame_5_2, three row indices (from 0)."""

    def verify(ans):
        F, x = frame_5_2(), np.asarray(X_5_2)
        J = sorted(int(j) for j in ans)
        if len(J) != 3 or len(set(J)) != 3 or not all(0 <= j < F.m for j in J):
            return False, f"give three different row indices between 0 and {F.m - 1}; got {J}"
        c = F.vectors @ x
        if not F.spans(J):
            return False, (f"the rows {J} do not form a basis (rank {np.linalg.matrix_rank(F.vectors[J])}); the "
                           "greedy rule skips a vector that depends on the ones kept")  # fmt: skip
        best = max(min(c[list(B)]) for B in combinations(range(F.m), 3) if F.spans(B))
        weakest = float(min(c[J]))
        if weakest < best - 1e-12:
            return False, (f"{_set(J)} is a basis, but its weakest coefficient {weakest:.4g} is below the best "
                           f"possible, {best:.4g}")  # fmt: skip
        return True, (f"{_set(J)} is a most correlated basis: its weakest coefficient {weakest:.4g} is the largest "
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
    """``answer``: the elements (row indices from 0) whose set K_i-sharp contains no point of data_5_3."""

    def verify(ans):
        X, active, in_J = _k_sharp_5_3()
        exact_n = active.sum(axis=1) == 2
        right = [i for i in range(in_J.shape[1]) if not np.any(in_J[:, i] & exact_n)]
        got = sorted({int(i) for i in ans})
        if got == right:
            return True, (f"K_i♯ is empty for {_set(right)}: wherever such an element is in J*(x), a third element is "
                          "active too; the data set is not bias-exact")  # fmt: skip
        parts = []
        for i in sorted(set(got) - set(right)):
            k = int(np.flatnonzero(in_J[:, i] & exact_n)[0]) if 0 <= i < in_J.shape[1] else None
            parts.append(f"phi_{i} is not redundant: at x = {_vec(X[k])} it is in J*(x) and only "
                         f"{_set(np.flatnonzero(active[k]))} are active" if k is not None else f"there is no phi_{i}")
        for i in sorted(set(right) - set(got)):
            k = int(np.flatnonzero(in_J[:, i])[0])
            parts.append(f"you missed phi_{i}: wherever it is in J*(x) a third element is active, e.g. at "
                         f"x = {_vec(X[k])} the active elements are {_set(np.flatnonzero(active[k]))}")
        return False, "; ".join(parts)

    return report("5.3", answer, verify)
