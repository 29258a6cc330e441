"""Tests of the polyhedral domains Box, Polytope and Hull."""

from __future__ import annotations

import numpy as np
import pytest

from relu_frames_nb.domains import Domain, parse_domain
from relu_frames_nb.domains.polyhedral import Box, Hull, LinearDescription, Polytope
from relu_frames_nb.errors import DimensionMismatchError, InputError


def satisfies(desc: LinearDescription, x: np.ndarray, w: np.ndarray, tol=1e-9) -> bool:
    z = np.r_[x, w]
    ok = np.all(z >= desc.lower - tol) and np.all(z <= desc.upper + tol)
    if desc.A_ub.shape[0]:
        ok &= np.all(desc.A_ub @ z <= desc.b_ub + tol)
    if desc.A_eq.shape[0]:
        ok &= np.allclose(desc.A_eq @ z, desc.b_eq, atol=tol)
    return bool(ok)


# ---------------------------------------------------------------------------------
# Box
# ---------------------------------------------------------------------------------


def test_box_basics():
    K = Box(0, 1, n=3)
    assert isinstance(K, Domain) and K.polyhedral and K.open_or_convex and not K.finite
    assert K.n == 3 and K.full_dimensional and K.nonnegative and K.uniform
    assert K.describe() == "the box [0, 1]^3" and K.spec == "box:0,1"
    assert parse_domain(K.spec, 3) == K
    assert repr(K) == "Box(lo=0, hi=1, n=3)"
    assert K.radius == pytest.approx(np.sqrt(3)) and K.inner_radius == 0.0
    assert Box(1, 2, n=4).inner_radius == pytest.approx(2.0)
    assert Box([-1, 2], [1, 3]).inner_radius == pytest.approx(2.0)
    X = K.sample(500, seed=0)
    assert X.shape == (500, 3) and K.contains(X).all()
    assert np.array_equal(K.sample(5, seed=1), K.sample(5, seed=1))
    assert K.contains([0.5, 0.0, 1.0]) and not K.contains([0.5, -0.1, 1.0])
    assert np.allclose(K.interior_point(), 0.5)
    lo, hi = K.bounding_box()
    assert np.array_equal(lo, np.zeros(3)) and np.array_equal(hi, np.ones(3))
    d = K.linear_description()
    assert d.n == 3 and d.n_extra == 0 and d.n_vars == 3 and satisfies(d, X[0], np.zeros(0))


def test_box_per_coordinate_and_degenerate():
    K = Box([0, -1, 2], [1, 1, 2])
    assert K.n == 3 and not K.full_dimensional and not K.uniform
    assert "R^3" in K.describe() and "Box(" in repr(K)
    with pytest.raises(InputError, match="box:FILE"):
        _ = K.spec
    assert K.contains(K.sample(50, seed=0)).all()


def test_box_identity_and_immutability():
    assert Box(0, 1, n=2) == Box([0, 0], [1, 1])
    assert hash(Box(0, 1, n=2)) == hash(Box([0.0, 0.0], [1.0, 1.0]))
    assert Box(0, 1, n=2) != Box(0, 2, n=2) and Box(0, 1, n=2) != "box"
    K = Box(0, 1, n=2)
    with pytest.raises(AttributeError):
        K.lo = np.zeros(2)
    with pytest.raises(ValueError):
        K.lo[0] = 5.0


@pytest.mark.parametrize(
    "args, kwargs, err, match",
    [
        ((1, 0), {"n": 2}, InputError, "lo must be <= hi"),
        ((0, 1), {}, InputError, "n must be given"),
        (([0, 0], [1, 1, 1]), {}, DimensionMismatchError, "same length"),
        (([0, 0], [1, 1]), {"n": 3}, DimensionMismatchError, "length n = 3"),
        ((0, np.inf), {"n": 2}, InputError, "finite"),
        (("a", 1), {"n": 2}, InputError, "numeric"),
        (([[0]], 1), {"n": 1}, InputError, "1-D"),
        ((0, 1), {"n": 0}, InputError, "n must be an integer >= 1"),
    ],
)
def test_box_bad_input(args, kwargs, err, match):
    with pytest.raises(err, match=match):
        Box(*args, **kwargs)


# ---------------------------------------------------------------------------------
# Polytope
# ---------------------------------------------------------------------------------


def triangle():
    return Polytope([[1, 0], [0, 1], [-1, -1]], [1, 1, 1])


def test_polytope_basics():
    K = triangle()
    assert K.polyhedral and K.open_or_convex and K.full_dimensional and K.n == 2
    lo, hi = K.bounding_box()
    assert np.allclose(lo, [-2, -2]) and np.allclose(hi, [1, 1])
    assert K.contains(K.interior_point())
    assert K.chebyshev_radius > 0
    # vertices (1, 1), (1, -2), (-2, 1): radius sqrt(5), exact
    assert K.radius == pytest.approx(np.sqrt(5)) and K.radius_exact
    assert K.inner_radius == 0.0
    assert Polytope([[1, 0], [0, 1], [-1, -1]], [-1, 1, 3]).inner_radius == pytest.approx(1.0)
    X = K.sample(300, seed=0)
    assert X.shape == (300, 2) and K.contains(X).all()
    d = K.linear_description()
    assert all(satisfies(d, x, np.zeros(0)) for x in X[:20])
    assert K == triangle() and hash(K) == hash(triangle())
    assert "polytope" in K.describe()
    with pytest.raises(InputError, match="polytope:FILE"):
        _ = K.spec


def test_polytope_thin_uses_hit_and_run():
    # a thin slab: rejection from the bounding box would accept too little
    A = np.vstack([np.eye(3), -np.eye(3), [[1, -1, 0]], [[-1, 1, 0]]])
    b = np.r_[np.ones(6), 1e-3, 1e-3]
    K = Polytope(A, b)
    X = K.sample(200, seed=3)
    assert X.shape == (200, 3) and K.contains(X, tol=1e-9).all()
    assert np.array_equal(X, K.sample(200, seed=3))


def test_polytope_not_full_dimensional():
    K = Polytope([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, 1])  # a segment
    assert not K.full_dimensional and K.chebyshev_radius == 0.0
    assert K.contains([0.0, 0.5])


@pytest.mark.parametrize(
    "A, b, match",
    [
        ([[1, 0]], [1], "bounded"),
        ([[1, 0], [-1, 0], [0, 1], [0, -1]], [-1, -1, 1, 1], "non-empty"),
        ([[0, 0], [1, 0]], [1, 1], "non-zero rows"),
        ([[1, 0], [0, 1]], [1, 1, 1], "length 2"),
        ([1, 0], [1], "2-D"),
    ],
)
def test_polytope_bad_input(A, b, match):
    with pytest.raises(InputError, match=match):
        Polytope(A, b)


# ---------------------------------------------------------------------------------
# Hull
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 8])
def test_hull_basics(n):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((40, n)) + 2.0
    K = Hull(X)
    assert K.polyhedral and K.full_dimensional and K.n == n and K.affine_dimension == n
    assert K.radius == pytest.approx(np.max(np.linalg.norm(X, axis=1)))
    S = K.sample(100, seed=0)
    assert K.contains(S).all() and K.contains(X).all()
    assert not K.contains(X.max(axis=0) + 1.0)
    assert K.contains(K.interior_point())
    d = K.linear_description()
    assert d.n_extra == 40 and satisfies(d, X[3], np.eye(40)[3])
    lam = np.full(40, 1 / 40)
    assert satisfies(d, X.T @ lam, lam)
    # inner radius: a valid lower bound of min |x| (checked against the samples and the points)
    r0 = K.inner_radius
    assert 0 < r0 <= np.min(np.linalg.norm(np.vstack([X, S]), axis=1)) + 1e-9
    assert K == Hull(X) and hash(K) == hash(Hull(X)) and K != Hull(X + 1)


def test_hull_inner_radius_and_membership_against_lp():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 2)) + np.array([3.0, 0.0])
    K = Hull(X)
    # exact distance of the hull from the origin by brute force over edges (2-D)
    from scipy.spatial import ConvexHull

    hull = ConvexHull(X)
    best = np.inf
    for i, j in hull.simplices:
        a, b = X[i], X[j]
        t = np.clip(-(a @ (b - a)) / ((b - a) @ (b - a)), 0, 1)
        best = min(best, np.linalg.norm(a + t * (b - a)))
    assert K.inner_radius == pytest.approx(best, rel=1e-6, abs=1e-9)
    # the LP membership test (used in high dimension) agrees with the facets
    Q = rng.standard_normal((40, 2)) * 2 + np.array([3.0, 0.0])
    by_facets = K.contains(Q)
    by_lp = np.array([K._lp_distance(q) <= 1e-9 * max(1, K.radius) for q in Q])
    assert np.array_equal(by_facets, by_lp)


def test_hull_low_dimensional_and_source():
    X = np.random.default_rng(1).standard_normal((20, 2)) @ np.ones((2, 4))
    K = Hull(X, source="data.npy")
    assert not K.full_dimensional and K.affine_dimension == 1
    assert "affine dimension 1" in K.describe()
    assert K.spec == "hull:data.npy"
    with pytest.raises(InputError, match="hull:FILE"):
        _ = Hull(X).spec
    assert Hull([[1.0, 2.0]]).affine_dimension == 0


@pytest.mark.parametrize("X, match", [([], "non-empty 2-D"), ([1, 2, 3], "2-D"), ([[np.nan, 1.0]], "finite")])
def test_hull_bad_input(X, match):
    with pytest.raises(InputError, match=match):
        Hull(X)
