import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError, TooExpensiveError
from relu_frames_nb.paper.rectifying import (
    check_rectifying,
    find_collision,
    in_maximal_domain,
    is_rectifying,
)

SQ3 = np.sqrt(3.0)


def _rank_test(layer, X):
    mask = layer.active_set(X)
    return np.array([np.linalg.matrix_rank(layer.frame.vectors[row]) == layer.n if row.any() else False for row in mask])


def test_rank_test_matches_numpy(frame):
    rng = np.random.default_rng(0)
    for alpha in (0.0, -0.3, rng.normal(0, 0.3, frame.m)):
        L = rf.ReLULayer(frame, alpha)
        X = rng.standard_normal((400, frame.n))
        np.testing.assert_array_equal(is_rectifying(L, X), _rank_test(L, X))
        # forcing the exact rank path gives the same answer
        np.testing.assert_array_equal(is_rectifying(L, X, full_spark=False), _rank_test(L, X))


def test_single_point_returns_bool(triangle):
    L = rf.ReLULayer(triangle, 0.0)
    assert is_rectifying(L, [0.0, -1.0]) is True
    assert is_rectifying(L, [0.0, 1.0]) is False


def test_full_spark_count_equals_rank_on_random_frames():
    # Corollary on spark: for full-spark frames |I_x| >= n is the whole test
    for seed in range(5):
        F = rf.zoo.random_sphere(9, 3, seed=seed)
        assert F.is_full_spark()
        L = rf.ReLULayer(F, np.random.default_rng(seed).normal(0, 0.5, 9))
        X = rf.Ball(3).sample(3000, seed=seed)
        np.testing.assert_array_equal(L.active_set(X).sum(1) >= 3, _rank_test(L, X))


def test_maximal_domain_agrees_with_rectifying_on_paper_examples(mb2_points):
    grid = np.stack(np.meshgrid(np.linspace(-1.5, 1.5, 61), np.linspace(-1.5, 1.5, 61)), -1).reshape(-1, 2)
    cases = [
        (rf.zoo.mercedes_benz(), 0.0),
        (rf.zoo.mercedes_benz(), -0.5),
        (rf.zoo.example_a(), 0.0),
        (rf.zoo.example_a(), 0.1),
        (rf.zoo.plus_minus_basis(2), 0.0),
        (rf.zoo.standard_basis(2), 0.0),
        (rf.zoo.random_sphere(6, 2, seed=3), np.random.default_rng(3).normal(0, 0.5, 6)),
    ]
    for F, alpha in cases:
        L = rf.ReLULayer(F, alpha)
        X = np.vstack([grid, mb2_points, F.vectors])
        np.testing.assert_array_equal(in_maximal_domain(L, X), is_rectifying(L, X))
    # Example "mb2": both points are in K*_0
    assert in_maximal_domain(rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), mb2_points).all()


def test_standard_basis_zero_rectifying_on_positive_orthant_only():
    # Example "basis": never rectifying on R^n, but 0-rectifying on R^n_+
    L = rf.ReLULayer(rf.zoo.standard_basis(3), 0.0)
    assert is_rectifying(L, rf.PositiveBall(3).sample(2000, seed=0)).all()
    assert not is_rectifying(L, rf.RealSpace(3).sample(2000, seed=0)).all()


def test_plus_minus_basis_is_zero_rectifying_everywhere():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(4), 0.0)
    assert is_rectifying(L, rf.RealSpace(4).sample(5000, seed=1)).all()


def test_triangle_ball_bias_minus_half():
    # Example "mb": (-1/2)-rectifying on B; any larger constant bias fails somewhere
    F = rf.zoo.mercedes_benz()
    X = rf.Ball(2).sample(50_000, seed=2)
    assert is_rectifying(rf.ReLULayer(F, -0.5), X).all()
    assert not is_rectifying(rf.ReLULayer(F, -0.49), X).all()


def test_lemma_Br_normalized_frames_are_minus_r_rectifying():
    for seed in range(4):
        F = rf.zoo.random_sphere(5, 3, seed=seed)
        X = rf.Ball(3, 2.5).sample(5000, seed=seed)
        assert is_rectifying(rf.ReLULayer(F, -2.5), X).all()
    # sharp for bases: -r + eps fails at -r * phi_i
    B = rf.zoo.standard_basis(3)
    assert not is_rectifying(rf.ReLULayer(B, -2.5 + 1e-6), -2.5 * B.vectors).any()


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 8), st.integers(0, 10_000), st.floats(-0.5, 0.5))
def test_monotone_in_bias_and_domain(m, seed, shift):
    # Prop. "inclusive": rectifying for alpha' stays rectifying for alpha <= alpha'
    rng = np.random.default_rng(seed)
    F = rf.zoo.random_sphere(m, 2, seed=seed)
    alpha = rng.normal(0, 0.5, m)
    X = rng.standard_normal((300, 2))
    ok_hi = is_rectifying(rf.ReLULayer(F, alpha), X)
    ok_lo = is_rectifying(rf.ReLULayer(F, alpha - abs(shift)), X)
    assert np.all(ok_lo | ~ok_hi)


def test_lower_bounds_are_eigenvalues():
    rng = np.random.default_rng(4)
    F = rf.zoo.gaussian(7, 3, seed=4)
    L = rf.ReLULayer(F, rng.normal(0, 0.5, 7))
    X = rng.standard_normal((100, 3))
    ok, bound = is_rectifying(L, X, return_bound=True)
    for x, o, b in zip(X, ok, bound):
        act = F.vectors[L.active_set(x)]
        expected = np.linalg.eigvalsh(act.T @ act)[0] if o else 0.0
        np.testing.assert_allclose(b, expected, atol=1e-12)
    np.testing.assert_allclose(rf.active_lower_bound(L, X)[ok], bound[ok], atol=1e-12)


def test_maximal_domain_refuses_large_enumerations():
    L = rf.ReLULayer(rf.zoo.random_sphere(60, 8, seed=0), 0.0)
    with pytest.raises(TooExpensiveError):
        in_maximal_domain(L, np.zeros(8))


def test_check_rectifying_reports():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    r = check_rectifying(L, rf.Ball(2), n_samples=5000)
    assert not r.rectifying and r.n_failed > 0 and r.kind == "sampled" and 0 < r.fraction < 1
    assert not is_rectifying(L, r.failures).any()
    s = check_rectifying(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Samples(rf.Ball(2).sample(100, seed=1)))
    assert s.rectifying and s.kind == "exact" and s.fraction == 1.0


@pytest.mark.parametrize(
    "K", [rf.Ball(2), rf.Sphere(2), rf.Shell(2, 0.5, 1.0), rf.PositiveBall(2), rf.RealSpace(2), rf.Sphere(2, 3.0)], ids=repr
)
def test_collision_for_triangle_zero_bias(K):
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    c = find_collision(L, K)
    assert c.found and c.certainty == "verified"
    x, y = c
    assert K.contains(x, tol=1e-12) and K.contains(y, tol=1e-12)
    assert np.linalg.norm(x - y) > 1e-4
    np.testing.assert_allclose(L(x), L(y), atol=1e-9)
    np.testing.assert_allclose(L(x), c.output)


def test_collision_example_mb2(mb2_points):
    # Example "mb2": x1, x2 in K*_0 collide although the frame is 0-rectifying at both
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    assert is_rectifying(L, mb2_points).all()
    np.testing.assert_allclose(L(mb2_points[0]), L(mb2_points[1]), atol=1e-15)
    c = find_collision(L, rf.Samples(mb2_points))
    assert c.found and c.method == "pair"
    assert {tuple(np.round(c.x, 12)), tuple(np.round(c.y, 12))} == {tuple(np.round(p, 12)) for p in mb2_points}


def test_no_collision_when_rectifying_on_ball():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    c = find_collision(L, rf.Ball(2))
    assert not c.found and c.certainty == "sampled" and not c
    with pytest.raises(ValueError):
        tuple(c)
    exact = find_collision(L, rf.Samples(rf.Ball(2).sample(300, seed=0)))
    assert not exact.found and exact.certainty == "exact"


@pytest.mark.parametrize("seed", range(6))
def test_collisions_on_random_3d_layers(seed):
    rng = np.random.default_rng(seed)
    F = rf.zoo.random_sphere(5, 3, seed=seed)
    L = rf.ReLULayer(F, rng.normal(0.2, 0.2, 5))
    for K in (rf.Ball(3), rf.Sphere(3), rf.Shell(3, 0.5, 1.0)):
        if check_rectifying(L, K, n_samples=20_000).rectifying:
            continue
        c = find_collision(L, K)
        assert c.found, (seed, K)
        np.testing.assert_allclose(L(c.x), L(c.y), atol=1e-9)
        assert K.contains(c.x, tol=1e-12) and K.contains(c.y, tol=1e-12)


def test_redundancy_below_two_never_injective_on_Rn():
    # Prop. "redundancy": m < 2n cannot be rectifying on R^n, whatever the bias
    for seed in range(3):
        F = rf.zoo.random_sphere(5, 3, seed=seed)
        L = rf.ReLULayer(F, np.random.default_rng(seed).normal(0, 1, 5))
        assert find_collision(L, rf.RealSpace(3)).found


def test_bad_inputs():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(InputError, match="layer must be a ReLULayer"):
        is_rectifying(rf.zoo.mercedes_benz(), [0, 1])
    with pytest.raises(InputError, match="X must"):
        is_rectifying(L, [[0, 1, 2]])
    with pytest.raises(InputError):
        is_rectifying(L, [0, 1], tol=-1)
    with pytest.raises(InputError):
        find_collision(L, rf.Ball(3))
    with pytest.raises(InputError):
        find_collision(L, rf.Ball(2), n_samples=0)


def test_find_collision_has_no_tol_keyword():
    # the one pair check (relu_frames_nb._util.pairs.collides) replaced it; no release had the keyword
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(TypeError, match="tol"):
        find_collision(L, rf.Ball(2), tol=1e-9)
    assert find_collision(L, rf.Ball(2)).found
