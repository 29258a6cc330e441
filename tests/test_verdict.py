import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError

SQ3 = np.sqrt(3.0)


def test_polytope_proof_needs_strict_inequality_off_convex_domains():
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Sphere(3)).values
    on_bound = rf.decide(rf.ReLULayer(F, pbe), rf.Sphere(3), n_samples=500)
    below = rf.decide(rf.ReLULayer(F, pbe - 1e-6), rf.Sphere(3), n_samples=500)
    assert below.status == "injective" and below.method == "polytope bias" and below.margin > 0
    # the sphere is not convex: alpha equal to the bound is no proof (Thm Injectivity I needs beta < alpha)
    assert on_bound.method != "polytope bias"
    ball = rf.decide(rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(3)).values), rf.Ball(3), n_samples=500)
    assert ball.status == "injective" and ball.method == "polytope bias"


def test_collision_is_verified():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.4)
    v = rf.decide(L, rf.Ball(2))
    assert v.status == "not injective" and v.method == "collision" and v.margin < 0
    np.testing.assert_allclose(L(v.collision.x), L(v.collision.y), atol=1e-9)


def test_finite_sets_are_exact():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    pts = np.array([[0.5, SQ3 / 2], [-0.5, SQ3 / 2], [0.0, -1.0]])
    assert rf.decide(L, rf.Samples(pts)).status == "not injective"
    v = rf.decide(L, rf.Samples(pts[1:]))
    assert v.status == "injective" and v.method == "exact (finite set)"


def test_tukey_depth_proves_injectivity_for_nonpositive_bias_on_Rn():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), -0.2)
    v = rf.decide(L, rf.RealSpace(3), n_samples=500)
    assert v.status == "injective" and v.method == "Tukey depth"


def test_undetermined_when_no_evidence():
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Ball(3)).values
    # a hair above the guarantee: sampling finds no failing point, and there is no proof
    L = rf.ReLULayer(F, pbe + 1e-7)
    v = rf.decide(L, rf.Ball(3), n_samples=300, exact=False)
    assert v.status == "undetermined" and v.text.startswith("undetermined")
    # the exact verdict settles it: the ball's bias is 0 here, so at x = 0 nothing is active
    v = rf.decide(L, rf.Ball(3), n_samples=300)
    assert v.status == "not injective" and v.method.startswith("exact") and v.exact is not None
    x, y = v.collision.x, v.collision.y
    assert not np.allclose(x, y, rtol=0, atol=0) and np.allclose(L(x), L(y)) and rf.Ball(3).contains(np.vstack([x, y])).all()


def test_bad_arguments():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(InputError):
        rf.decide(L, rf.Ball(3))
    with pytest.raises(InputError):
        rf.decide(L, rf.Ball(2), n_samples=0)
    with pytest.raises(InputError):
        rf.decide(rf.zoo.mercedes_benz(), rf.Ball(2))


def test_verdicts_are_monotone_in_the_domain():
    # a zero-bias layer proven injective on R^2 (Tukey depth) is injective on every subset of R^2
    L = rf.ReLULayer(rf.zoo.regular_polygon(8), 0.0)
    on_space = rf.decide(L, rf.RealSpace(2))
    assert on_space.status == "injective"
    for K in (rf.Ball(2), rf.Shell(2, 0.5, 1.0), rf.PositiveBall(2, 3.0)):
        v = rf.decide(L, K)
        assert v.status == "injective", (K, v.text)
