"""Tests for relu_frames_nb.paper.stability (Section "Stability of the reconstruction", Lemma "image")."""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import DimensionMismatchError, InputError, NotAFrameError, NotInjectiveError
from relu_frames_nb.paper.stability import (
    active_bounds,
    active_lower_bound,
    active_upper_bound,
    global_bounds,
    image_radius,
    local_stability,
    measured_lipschitz,
)

SQ3 = np.sqrt(3.0)


def random_layer(m: int, n: int, seed: int, alpha=None) -> rf.ReLULayer:
    F = rf.zoo.random_sphere(m, n, seed=seed)
    if alpha is None:
        alpha = np.random.default_rng(seed + 1).uniform(-0.3, 0.2, m)
    return rf.ReLULayer(F, alpha)


def direct_bounds(L: rf.ReLULayer, x: np.ndarray, strict: bool = False) -> tuple[float, float]:
    pre = L.frame.vectors @ x - L.alpha
    J = pre > 0 if strict else pre >= 0
    w = np.linalg.eigvalsh(L.frame.vectors[J].T @ L.frame.vectors[J]) if J.any() else np.zeros(L.n)
    return max(w[0], 0.0), max(w[-1], 0.0)


# -------------------------------------------------------------- active bounds
@pytest.mark.parametrize("strict", [False, True])
def test_active_bounds_match_direct_eigenvalues(strict):
    L = random_layer(25, 4, seed=0)
    X = rf.Ball(4).sample(300, seed=1)
    A, B = active_bounds(L, X, strict=strict)
    ref = np.array([direct_bounds(L, x, strict) for x in X])
    np.testing.assert_allclose(A, ref[:, 0], atol=1e-12)
    np.testing.assert_allclose(B, ref[:, 1], atol=1e-12)
    np.testing.assert_allclose(active_lower_bound(L, X, strict=strict), A)
    np.testing.assert_allclose(active_upper_bound(L, X, strict=strict), B)


def test_active_bounds_agree_with_rectifying_module():
    from relu_frames_nb.paper.rectifying import is_rectifying

    L = random_layer(30, 3, seed=2)
    X = rf.Ball(3).sample(200, seed=3)
    ok, bound = is_rectifying(L, X, return_bound=True)
    np.testing.assert_allclose(active_lower_bound(L, X)[ok], bound[ok], atol=1e-12)


def test_active_bounds_single_point_and_tolerance():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
    A, B = active_bounds(L, [1.0, 0.0])  # e_2 and -e_2 are active with equality: S = diag(1, 2)
    assert isinstance(A, float) and (A, B) == (1.0, 2.0)
    A, B = active_bounds(L, [1.0, 0.0], strict=True)
    assert A == pytest.approx(0.0, abs=1e-15) and B == 1.0
    assert active_lower_bound(L, [1.0, -1e-9], tol=1e-8) == 1.0
    with pytest.raises(InputError):
        active_bounds(L, [1.0, 0.0], tol=-1.0)
    with pytest.raises(DimensionMismatchError):
        active_bounds(L, [1.0, 0.0, 0.0])
    with pytest.raises(InputError, match="ReLULayer"):
        active_bounds(rf.zoo.mercedes_benz(), [1.0, 0.0])
    assert active_bounds(L, np.zeros((0, 2)))[0].shape == (0,)


# ------------------------------------------------------------ local stability
def pairs_in_ball(x0: np.ndarray, radius: float, N: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    B = rf.Ball(x0.size, radius)
    return x0 + 0.999 * B.sample(N, seed=seed), x0 + 0.999 * B.sample(N, seed=seed + 1)


@pytest.mark.parametrize("seed", range(6))
def test_local_stability_bound_holds_in_the_eps_ball(seed):
    L = random_layer(20, 3, seed=seed)
    x0 = rf.Ball(3).sample(50, seed=seed + 10)
    x0 = x0[np.argmax(active_lower_bound(L, x0, strict=True))]
    s = local_stability(L, x0)
    assert s.eps > 0 and s.eps >= s.eps_pattern
    Y, Z = pairs_in_ball(x0, s.eps, 2000, seed)
    ratios = measured_lipschitz(L, Y, Z)
    assert np.all(ratios <= s.kappa * (1 + 1e-9))


def test_local_stability_is_attained_along_the_worst_direction():
    L = random_layer(20, 3, seed=7)
    X = rf.Ball(3).sample(100, seed=8)
    x0 = X[np.argmax(np.abs(L.preactivation(X)).min(axis=1))]  # far from every hyperplane
    s = local_stability(L, x0)
    assert s.eps_pattern > 1e-3
    t = 0.4 * s.eps_pattern
    y, z = x0 + t * s.direction, x0 - t * s.direction
    ratio = measured_lipschitz(L, y, z)
    assert ratio == pytest.approx(s.kappa, rel=1e-9)
    # and random directions inside the pattern ball never beat it
    Y, Z = pairs_in_ball(x0, s.eps_pattern, 500, seed=9)
    assert measured_lipschitz(L, Y, Z).max() <= s.kappa * (1 + 1e-9)


def test_local_stability_eps_is_the_distance_to_the_nearest_hyperplane_of_J():
    L = random_layer(15, 2, seed=11)
    x0 = np.array([0.3, -0.2])
    s = local_stability(L, x0)
    pre = L.preactivation(x0)
    assert s.eps == pytest.approx(np.min(pre[s.J] / L.frame.norms[s.J]))
    assert s.eps_pattern == pytest.approx(np.min(np.abs(pre) / L.frame.norms))
    np.testing.assert_array_equal(s.J, np.flatnonzero(pre > 0))
    # beyond eps, the closest element of J switches off: the guarantee radius is sharp for J
    i = s.J[np.argmin(pre[s.J] / L.frame.norms[s.J])]
    u = L.frame.vectors[i] / L.frame.norms[i]
    assert L.preactivation(x0 - 1.001 * s.eps * u)[i] < 0 < L.preactivation(x0 - 0.999 * s.eps * u)[i]


def test_local_stability_with_a_given_J():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), -0.5)
    x0 = np.array([0.2, 0.1])  # all four active: -e_1 with margin 0.3, -e_2 with 0.4
    s = local_stability(L, x0, J=[0, 1])
    assert s.kappa == 1.0 and s.eps == pytest.approx(0.6)
    s_all = local_stability(L, x0)
    assert s_all.lower_frame_bound == pytest.approx(2.0) and s_all.kappa == pytest.approx(0.5)
    assert s_all.eps == pytest.approx(0.3)
    np.testing.assert_array_equal(s_all.J, [0, 1, 2, 3])


def test_local_stability_boundary_element_gives_eps_zero():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
    s = local_stability(L, [1.0, 0.0], J=[0, 1])  # e_2 is active with equality
    assert s.eps == 0.0 and s.kappa == 1.0
    with pytest.raises(NotInjectiveError, match="strictly active"):
        local_stability(L, [1.0, 0.0])  # only e_1 strictly active


def test_local_stability_refuses():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(NotInjectiveError):
        local_stability(L, [0.0, 1.0])
    with pytest.raises(InputError, match="inactive"):
        local_stability(L, [0.5, 0.2], J=[0, 1])  # phi_2 inactive there
    with pytest.raises(NotAFrameError):
        local_stability(L, [0.5, 0.2], J=[0])
    with pytest.raises(InputError, match="one point"):
        local_stability(L, [[0.5, 0.2], [0.1, 0.1]])
    with pytest.raises(DimensionMismatchError):
        local_stability(L, [0.5, 0.2, 0.0])


# --------------------------------------------------------------- global bounds
def test_global_bounds_bracket_ratios_of_pairs_with_common_patterns():
    L = random_layer(30, 3, seed=12)
    X = rf.Ball(3).sample(400, seed=13)
    X = X[np.abs(L.preactivation(X)).min(axis=1) > 1e-2]
    rng = np.random.default_rng(14)
    Y = X + 1e-3 * rng.standard_normal(X.shape)  # same active pattern (margin 1e-2 >> 1e-3 * |phi|)
    same = np.all(L.active_set(X) == L.active_set(Y), axis=1)
    assert same.mean() > 0.95
    g = global_bounds(L, np.vstack([X, Y]))
    assert g.kind == "exact" and g.n_samples == 2 * X.shape[0]
    inv = 1.0 / measured_lipschitz(L, X[same], Y[same])  # ||C y - C z||^2 / ||y - z||^2
    assert g.lower > 0
    assert np.all(inv >= g.lower * (1 - 1e-9)) and np.all(inv <= g.upper * (1 + 1e-9))
    assert g.upper <= L.frame.bounds[1] + 1e-12


def test_global_bounds_of_a_domain_are_sampled_estimates():
    L = random_layer(20, 3, seed=15)
    g = global_bounds(L, rf.Ball(3), n_samples=3000, seed=1)
    assert g.kind == "sampled estimate" and g.n_samples == 3000 and g.n_patterns > 10
    A, B = active_bounds(L, rf.Ball(3).sample(3000, seed=1))
    assert g.lower == pytest.approx(A.min()) and g.upper == pytest.approx(B.max())
    assert active_lower_bound(L, g.argmin) == pytest.approx(g.lower)
    assert active_upper_bound(L, g.argmax) == pytest.approx(g.upper)
    # more samples can only lower the estimated A and raise the estimated B
    g2 = global_bounds(L, np.vstack([rf.Ball(3).sample(3000, seed=1), rf.Ball(3).sample(3000, seed=2)]))
    assert g2.lower <= g.lower and g2.upper >= g.upper


def test_global_bounds_count_non_spanning_samples():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    X = np.array([[0.0, 1.0], [0.0, -1.0], [0.5, 0.2]])
    g = global_bounds(L, rf.Samples(X))
    assert g.kind == "exact" and g.n_not_spanning == 1 and g.lower == 0.0
    np.testing.assert_array_equal(g.argmin, [0.0, 1.0])
    with pytest.raises(DimensionMismatchError):
        global_bounds(L, rf.Ball(3))
    with pytest.raises(InputError):
        global_bounds(L, rf.Ball(2), n_samples=0)


def test_reluframe_inequality_erratum_for_nonzero_bias():
    """Eq. (reluframe) ||C x||^2 <= B_alpha ||x||^2 fails for alpha = -1/2 on the triangle frame."""
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    x = np.array([0.0, 1.0])  # phi_1
    np.testing.assert_allclose(L(x), [1.5, 0.0, 0.0], atol=1e-15)
    B_alpha = global_bounds(L, rf.Ball(2), n_samples=5000).upper
    assert B_alpha == pytest.approx(1.5)
    assert np.sum(L(x) ** 2) == pytest.approx(2.25)
    assert np.sum(L(x) ** 2) > B_alpha * np.sum(x**2)
    # with alpha = 0 it holds on samples
    L0 = rf.ReLULayer(rf.zoo.random_sphere(20, 3, seed=16), 0.0)
    X = rf.Ball(3).sample(2000, seed=17)
    A, B = active_bounds(L0, X)
    nx, ncx = np.sum(X**2, axis=1), np.sum(L0(X) ** 2, axis=1)
    assert np.all(A * nx <= ncx * (1 + 1e-12)) and np.all(ncx <= B * nx * (1 + 1e-12))


# ---------------------------------------------------------------- image radius
@pytest.mark.parametrize("alpha", [0.0, 0.15, -0.3, "mixed"])
def test_image_radius_contains_the_image(alpha):
    m, n = 25, 3
    a = np.random.default_rng(18).uniform(-0.4, 0.3, m) if alpha == "mixed" else alpha
    L = rf.ReLULayer(rf.zoo.random_sphere(m, n, seed=19), a)
    X = rf.Ball(n, 2.0).sample(20_000, seed=20)
    R = image_radius(L, X)  # B_alpha over exactly these points: a guarantee for them
    assert np.linalg.norm(L(X), axis=1).max() <= R * (1 + 1e-12)
    R_frame = image_radius(L, rf.Ball(n, 2.0), B_alpha=L.frame.bounds[1])  # guaranteed on the ball
    assert R <= R_frame * (1 + 1e-12)
    assert np.linalg.norm(L(rf.Ball(n, 2.0).sample(20_000, seed=21)), axis=1).max() <= R_frame


def test_image_radius_is_attained_for_the_plus_minus_basis():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), 0.0)
    K = rf.Sphere(3, 1.5)
    R = image_radius(L, K, n_samples=500)
    assert R == pytest.approx(1.5)
    np.testing.assert_allclose(np.linalg.norm(L(K.sample(500, seed=0)), axis=1), 1.5)


def test_image_radius_is_not_minimal_for_the_triangle():
    """The Lemma calls sqrt(B_alpha) M minimal; for the triangle with alpha = 0 the image has radius 1."""
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    R = image_radius(L, rf.Ball(2), n_samples=20_000)
    assert R == pytest.approx(np.sqrt(1.5))
    t = np.linspace(0, 2 * np.pi, 100_001)
    sup = np.linalg.norm(L(np.column_stack([np.cos(t), np.sin(t)])), axis=1).max()
    assert sup == pytest.approx(1.0, abs=1e-9) and sup < R - 0.2


def test_image_radius_erratum_negative_bias():
    """Lemma "image" as printed is violated for alpha < 0; the corrected radius holds."""
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    printed = np.sqrt(1.5) * 1.0
    x = np.array([0.0, 1.0])
    assert np.linalg.norm(L(x)) == pytest.approx(1.5)
    assert np.linalg.norm(L(x)) > printed
    R = image_radius(L, rf.Ball(2), n_samples=2000)
    assert R == pytest.approx(printed + np.sqrt(3) * 0.5)
    X = rf.Ball(2).sample(20_000, seed=22)
    assert np.linalg.norm(L(X), axis=1).max() <= R


def test_image_radius_validation():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(InputError, match="bounded"):
        image_radius(L, rf.RealSpace(2))
    with pytest.raises(DimensionMismatchError):
        image_radius(L, rf.Ball(3))
    with pytest.raises(InputError):
        image_radius(L, rf.Ball(2), B_alpha=-1.0)
    assert image_radius(L, rf.Ball(2, 2.0), B_alpha=4.0) == pytest.approx(4.0)


# ---------------------------------------------------------- measured_lipschitz
def test_measured_lipschitz_values_and_specials(mb2_points):
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    x1, x2 = mb2_points
    np.testing.assert_allclose(L(x1), L(x2))  # Example "mb2": a collision
    r = measured_lipschitz(L, [x1, x1, [0.5, -0.5]], [x2, x1, [0.6, -0.4]])
    assert r[0] == np.inf and np.isnan(r[1]) and np.isfinite(r[2])
    y, z = np.array([0.5, -0.5]), np.array([0.6, -0.4])
    assert r[2] == pytest.approx(np.sum((y - z) ** 2) / np.sum((L(y) - L(z)) ** 2))
    assert isinstance(measured_lipschitz(L, y, z), float)
    with pytest.raises(DimensionMismatchError):
        measured_lipschitz(L, [y, y], [z])


def test_global_bounds_takes_K_only():
    L = rf.ReLULayer(rf.zoo.gaussian(9, 3, seed=2), -0.1)
    new = global_bounds(L, K=rf.Ball(3), n_samples=500)
    by_position = global_bounds(L, rf.Ball(3), n_samples=500)
    assert (by_position.lower, by_position.upper, by_position.n_not_spanning) == (new.lower, new.upper, new.n_not_spanning)
    with pytest.raises(TypeError, match="K_or_X"):
        global_bounds(L, K_or_X=rf.Ball(3), n_samples=500)
