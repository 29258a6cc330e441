"""Every registered domain passes the same checks (in the spirit of scikit-learn's check_estimator).

A new domain class registers itself (``class X(Domain, spec="x")``) and must add an example below;
the test that lists the registry fails until it does.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf

RNG = np.random.default_rng(0)
_POINTS = RNG.standard_normal((12, 3))


def _examples(tmp):
    """Examples per spelling: several shapes each, and how to write them to a file when the spelling needs one."""
    np.save(tmp / "pts.npy", _POINTS)
    np.save(tmp / "box.npy", np.array([[-1.0, 0.0, 2.0], [1.0, 1.0, 3.0]]))
    A = np.vstack([np.eye(3), -np.ones((1, 3))])
    np.savez(tmp / "poly.npz", A=A, b=np.array([1.0, 1.0, 1.0, 1.0]))
    return {
        "ball": [rf.Ball(3, 2.0), rf.Ball(3, 1e-8)],
        "sphere": [rf.Sphere(3, 1.5)],
        "shell": [rf.Shell(3, 0.5, 2.0), rf.Shell(3, 0.0, 1.0)],
        "positive-ball": [rf.PositiveBall(3, 2.0)],
        "real-space": [rf.RealSpace(3)],
        "exterior": [rf.Exterior(3, 1.0)],
        "box": [rf.Box(-1, 1, n=3), rf.parse_domain(f"box:{tmp / 'box.npy'}", 3), rf.Box([0.0, 1.0, -2.0], [0.0, 2.0, 2.0])],
        "polytope": [rf.parse_domain(f"polytope:{tmp / 'poly.npz'}", 3)],
        "hull": [rf.parse_domain(f"hull:{tmp / 'pts.npy'}", 3), rf.Hull(_POINTS[:3])],
        "samples": [rf.parse_domain(f"samples:{tmp / 'pts.npy'}", 3)],
    }


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    return _examples(tmp_path_factory.mktemp("domains"))


def test_every_registered_domain_has_an_example(examples):
    assert set(rf.Domain.registered()) == set(examples)
    for name, klass in rf.Domain.registered().items():
        assert all(type(K) is klass for K in examples[name]), name


def _all(examples):
    return [K for name in sorted(examples) for K in examples[name]]


CASES = [(name, i) for name, count in (("ball", 2), ("sphere", 1), ("shell", 2), ("positive-ball", 1), ("real-space", 1),
                                       ("exterior", 1), ("box", 3), ("polytope", 1), ("hull", 2), ("samples", 1))
         for i in range(count)]  # fmt: skip


@pytest.fixture(params=CASES, ids=[f"{n}-{i}" for n, i in CASES])
def K(request, examples):
    name, i = request.param
    return examples[name][i]


def test_samples_are_members(K):
    X = K.sample(200, seed=1)
    assert X.shape == (200, 3)
    assert np.all(K.contains(X)), repr(K)
    np.testing.assert_array_equal(X, K.sample(200, seed=1))  # seeded


def test_spec_reads_back(K):
    if getattr(K, "source", "") is None and K.spec_name in ("hull", "samples", "polytope", "box") and not (
        K.spec_name == "box" and K.uniform
    ):
        with pytest.raises(rf.InputError, match="spelling"):  # built in memory: no file to name
            _ = K.spec
        return
    back = rf.Domain.from_spec(K.spec, K.n)
    assert type(back) is type(K) and back.describe() == K.describe()
    X = K.sample(50, seed=2)
    np.testing.assert_array_equal(back.contains(X), K.contains(X))


def test_support_bounds_the_samples(K):
    W = RNG.standard_normal((7, 3))
    lo, hi = K.support(W)
    G = K.sample(500, seed=3) @ W.T
    scale = 1e-9 * (1 + np.abs(G).max())
    assert np.all(G >= lo - scale) and np.all(G <= hi + scale)


def _contains_samples(K, P) -> None:
    X = K.sample(300, seed=4)
    tol = 1e-9 * (1 + np.abs(X).max())
    assert np.all(X >= P.lower[: P.n] - tol) and np.all(X <= P.upper[: P.n] + tol)
    if P.n_extra == 0 and P.A_ub.shape[0]:
        assert np.all(X @ P.A_ub.T <= P.b_ub + tol)


@pytest.mark.parametrize("compact", [False, True], ids=["outer", "compact"])
def test_outer_polytope_contains_the_samples(K, compact):
    P = K.compact_outer_polytope() if compact else K.outer_polytope()
    if P is None:
        assert not K.bounded
        return
    _contains_samples(K, P)
    assert K.polyhedral == (P is not None and K.polyhedral)  # polyhedral domains are their own outer polytope


def test_a_low_dimensional_hull_is_given_by_its_facets_and_contains_every_point():
    X = np.random.default_rng(0).normal(size=(500, 3))
    K = rf.Hull(X)
    P = K.compact_outer_polytope()
    assert P.n_extra == 0 and P.A_ub.shape[0] >= 4
    assert np.all(X @ P.A_ub.T <= P.b_ub)  # every data point, with no tolerance: the margin is built in
    assert np.all(P.b_ub - (X @ P.A_ub.T).max(axis=0) < 1e-9)  # and hardly more than the hull


def test_interior_point_and_certified_membership(K):
    c = K.interior_point()
    assert K.contains(c)
    X = K.sample(100, seed=5)
    cert = K.contains_certified(X)
    assert np.all(K.contains(X[cert]))  # certain members are members
    if K.full_dimensional and not K.finite:
        assert K.contains_certified(c), repr(K)
        outside = c + 10 * (1 + np.abs(c).max()) * K.radius * np.ones(3) if K.bounded else None
        if outside is not None:
            assert not K.contains_certified(outside) and not K.contains(outside)
    if K.finite:
        assert np.all(cert)  # data points are members bit for bit


def test_scaling_maps_the_domain_exactly(K):
    for c in (0.25, 8.0):
        Kc = K.scaled(c)
        X = K.sample(50, seed=6)
        assert np.all(Kc.contains(c * X))
        if K.bounded:
            assert Kc.radius == pytest.approx(c * K.radius, rel=1e-12)


def test_margin_and_rays(K):
    c = K.interior_point()
    m = K.margin(c)
    if m is not None and K.full_dimensional and not K.finite:
        assert m > 0
    u = RNG.standard_normal(3)
    p = K.move_inside(u)
    if p is not None:
        assert K.contains(p) and np.allclose(np.cross(p, u), 0, atol=1e-9 * np.linalg.norm(p) * np.linalg.norm(u))


def test_radial_description_matches_the_radii(K):
    rad = K.radial()
    if rad is None:
        return
    assert rad.s == pytest.approx(K.inner_radius) and rad.r == pytest.approx(K.radius)
    assert rad.nonnegative == K.nonnegative


def test_affine_coordinates_map_into_the_domain(K):
    coords, Kr = K.in_affine_coordinates()
    if Kr is None:
        return
    assert Kr.full_dimensional or Kr.finite or not K.full_dimensional
    Z = Kr.sample(40, seed=7)
    assert np.all(K.contains(coords.point(Z)))
    W = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(coords.rows(W) @ Z.T + coords.offset(W)[:, None], W @ coords.point(Z).T, atol=1e-10)


def test_cone_signs_cover_the_directions(K):
    signs = K.cone_signs()
    if signs is None:
        return
    assert len(signs) == K.n
    X = K.sample(200, seed=8)
    for j, allowed in enumerate(signs):
        s = np.sign(X[:, j])
        assert np.all((s == 0) | np.isin(s, allowed)), (repr(K), j)
