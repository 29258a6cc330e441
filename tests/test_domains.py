import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import DimensionMismatchError, InputError, TooExpensiveError

DOMAINS = [
    rf.Ball(3, 2.0),
    rf.Sphere(2, 1.5),
    rf.Shell(3, 0.5, 1.0),
    rf.PositiveBall(2, 1.0),
    rf.RealSpace(4),
    rf.Samples(np.random.default_rng(0).standard_normal((30, 2))),
]


@pytest.mark.parametrize("K", DOMAINS, ids=repr)
def test_samples_lie_in_domain_and_are_seeded(K):
    X = K.sample(2000, seed=5)
    assert X.shape == (2000, K.n)
    assert K.contains(X).all()
    np.testing.assert_array_equal(X, K.sample(2000, seed=5))
    assert np.all(np.linalg.norm(X, axis=1) <= K.radius + 1e-12)


def test_radius_and_boundedness():
    assert rf.Ball(3, 2.0).radius == 2.0 and rf.Ball(3).bounded
    assert not rf.RealSpace(2).bounded
    S = rf.Samples([[3.0, 4.0], [0.0, 1.0]])
    assert S.radius == 5.0


def test_membership_edges():
    assert rf.Ball(2).contains([1.0, 0.0]) and not rf.Ball(2).contains([1.01, 0.0])
    assert rf.Sphere(2).contains([0.0, 1.0]) and not rf.Sphere(2).contains([0.0, 0.9])
    sh = rf.Shell(2, 0.5, 1.0)
    assert sh.contains([0.5, 0.0]) and not sh.contains([0.4, 0.0]) and not sh.contains([1.1, 0])
    pb = rf.PositiveBall(2)
    assert pb.contains([0.5, 0.0]) and not pb.contains([-0.1, 0.5])
    S = rf.Samples([[1.0, 2.0]])
    assert S.contains([1.0, 2.0]) and not S.contains([1.0, 2.1])


def test_uniform_ball_radial_distribution():
    # P(|x| <= t) = t^n for the uniform distribution on the unit ball
    X = rf.Ball(3).sample(200_000, seed=1)
    frac = np.mean(np.linalg.norm(X, axis=1) <= 0.5)
    assert abs(frac - 0.125) < 0.005
    # shell: P(|x| <= t) = (t^n - s^n) / (r^n - s^n)
    Y = rf.Shell(2, 0.5, 1.0).sample(200_000, seed=2)
    frac = np.mean(np.linalg.norm(Y, axis=1) <= 0.75)
    assert abs(frac - (0.75**2 - 0.25) / 0.75) < 0.005


def test_bad_domains():
    with pytest.raises(InputError, match="s must be smaller"):
        rf.Shell(2, 1.0, 0.5)
    with pytest.raises(InputError, match="s must be smaller"):
        rf.Shell(2, 1.0, 1.0)
    with pytest.raises(InputError, match="r must be positive"):
        rf.Ball(2, -1.0)
    with pytest.raises(InputError, match="s must be non-negative"):
        rf.Shell(2, -0.1, 1.0)
    with pytest.raises(InputError, match="n must be an integer"):
        rf.Ball(2.5)
    with pytest.raises(InputError):
        rf.Sphere(0)
    with pytest.raises(InputError):
        rf.Samples(np.ones(3))
    with pytest.raises(InputError):
        rf.Samples([[np.nan, 1.0]])
    with pytest.raises(DimensionMismatchError):
        rf.Ball(2).contains(np.ones((3, 3)))
    with pytest.raises(InputError, match="N must be"):
        rf.Ball(2).sample(-1)
    with pytest.raises(InputError, match="seed"):
        rf.Ball(2).sample(3, seed="abc")


def test_covering_radius_guaranteed_bounds_truth():
    # on the circle the exact covering radius of m equally spaced points is a chord: 2 sin(pi / (2m))
    m = 40
    t = 2 * np.pi * np.arange(m) / m
    X = np.column_stack([np.cos(t), np.sin(t)])
    exact = 2 * np.sin(np.pi / (2 * m))
    g = rf.covering_radius(X, rf.Sphere(2), kind="guaranteed")
    h = rf.covering_radius(X, rf.Sphere(2), kind="heuristic", n_probes=50_000)
    assert g.kind == "guaranteed" and g.is_guarantee and not h.is_guarantee
    assert exact <= g.value <= exact + 0.01
    assert exact - 1e-3 <= h.value <= exact + 1e-12


def test_covering_radius_of_samples_domain_is_exact():
    P = np.random.default_rng(0).standard_normal((50, 2))
    c = rf.covering_radius(P[:25], rf.Samples(P))
    assert c.kind == "exact"
    from scipy.spatial.distance import cdist

    np.testing.assert_allclose(c.value, cdist(P, P[:25]).min(axis=1).max())


def test_covering_radius_refuses_huge_grids():
    X = rf.Ball(6).sample(100, seed=0)
    with pytest.raises(TooExpensiveError):
        rf.covering_radius(X, rf.Ball(6), kind="guaranteed", grid_step=0.01)
    assert rf.covering_radius(X, rf.Ball(6)).kind == "heuristic"


def test_paper_correction():
    np.testing.assert_allclose(rf.paper_correction(3, 10**6), 0.05 * (np.log(1e6) / 1e6) ** (1 / 3))
    with pytest.raises(InputError):
        rf.paper_correction(3, 1)


def test_covering_radius_grid_fits_exactly_max_points():
    # the default grid is the finest that fits in max_points, also when max_points is a perfect cube
    X = rf.zoo.random_sphere(12, 3, seed=0).vectors
    c = rf.covering_radius(X, rf.Sphere(3), kind="guaranteed", max_points=1_000_000)
    assert c.kind == "guaranteed" and c.value > 0
