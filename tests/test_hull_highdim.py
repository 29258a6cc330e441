"""Hulls of data sets in more than 120 dimensions: membership proved in floating point, and pairs found there.

Above ``_CERTIFY_MAX_DIM`` dimensions the exact rational solve is too slow, and ``Hull`` proves
membership with rigorous error bounds instead (a verified inverse bound of a simplex of data
points absorbs the residual of LP weights that are positive on every point). These tests check
that proof against points whose position is known by construction (inside: explicit positive
weights; outside: beyond the extreme point of a linear functional, by a relative 1e-9), at scales
10^-6 to 10^6, on full-dimensional and on flat hulls; then the direction a hull offers for the
search of colliding pairs, and the whole network check that uses it.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.pairs import network_collision
from relu_frames_nb.domains.hull import _CERTIFY_MAX_DIM


def _full(seed=0, N=300, n=_CERTIFY_MAX_DIM + 10):
    return np.random.default_rng(seed).standard_normal((N, n))


def _flat(seed=0, N=300, n=_CERTIFY_MAX_DIM + 40, d=_CERTIFY_MAX_DIM + 10, blank=12):
    """N points of R^n on a d-dimensional affine subspace; the first ``blank`` coordinates are 0 in every point."""
    rng = np.random.default_rng(seed)
    B = np.linalg.qr(rng.standard_normal((n - blank, d)))[0]
    X = np.zeros((N, n))
    X[:, blank:] = 0.3 + rng.standard_normal((N, d)) @ B.T
    return X


def _outside(X, rng, excess):
    """A point beyond the extreme point of a random linear functional, by ``excess`` of its range."""
    w = rng.standard_normal(X.shape[1])
    c = X.mean(axis=0)
    far = X[np.argmax(X @ w)]
    y = c + (1.0 + excess) * (far - c)
    assert y @ w > np.max(X @ w)  # outside, whatever the rounding: the functional proves it
    return y


@pytest.mark.parametrize("make", [_full, _flat])
@pytest.mark.parametrize("scale", [1.0, 1e-6, 1e6, 2.0**-30])
def test_inside_by_construction_is_certified_and_outside_never(make, scale):
    X = make() * scale
    K = rf.Hull(X)
    rng = np.random.default_rng(1)
    N = X.shape[0]
    inside = [X.mean(axis=0)] + [rng.dirichlet(np.full(N, 5.0)) @ X for _ in range(3)]
    assert np.all(K.contains_certified(np.array(inside)))
    outside = [_outside(X, rng, e) for e in (1e-9, 1e-3, 1.0)]
    assert not np.any(K.contains_certified(np.array(outside)))
    # a data point is a vertex (points in general position): on the boundary, never certified
    assert not K.contains_certified(X[0])


def test_flat_hull_refuses_points_off_its_span_and_off_its_blank_coordinates():
    X = _flat()
    K = rf.Hull(X)
    assert not K.full_dimensional and K.affine_dimension > _CERTIFY_MAX_DIM
    c = X.mean(axis=0)
    off = np.zeros(X.shape[1])
    off[0] = 1e-9  # a coordinate that is 0 in every point
    assert K.contains_certified(c)
    assert not K.contains_certified(c + off)
    coords, _ = K.in_affine_coordinates()
    normal = np.random.default_rng(2).standard_normal(X.shape[1])
    normal -= coords.direction(coords.rows(normal[None, :])[0])  # orthogonal to the span
    assert not K.contains_certified(c + 1e-6 * normal / np.linalg.norm(normal))


@pytest.mark.parametrize("make", [_full, _flat])
def test_fibre_direction_is_a_null_direction_that_stays_inside(make):
    X = make()
    K = rf.Hull(X)
    coords, _ = K.in_affine_coordinates()
    J = np.random.default_rng(3).standard_normal((coords.d - 20, X.shape[1]))
    v = K.fibre_direction(J, seed=0)
    assert v is not None and np.linalg.norm(v) > 1e-3 * K.radius
    assert np.linalg.norm(J @ v) <= 1e-10 * np.linalg.norm(J) * np.linalg.norm(v)
    lo, hi = K.bounding_box()
    assert np.all(v[lo == hi] == 0.0)  # blank coordinates stay exactly blank
    c = K.interior_point()
    assert np.all(K.contains_certified(np.array([c + v, c - v])))
    # rows that span the hull's directions leave no such direction
    assert K.fibre_direction(np.vstack([J, np.random.default_rng(4).standard_normal((40, X.shape[1]))]), seed=0) is None
    # other domains offer none (the pair search then steps along a null vector)
    assert rf.Box(-1, 1, n=3).fibre_direction(np.ones((1, 3))) is None


def test_network_folding_a_flat_hull_in_high_dimension_gets_a_verified_pair():
    """An expansive first layer and a narrowing second one (fewer rows than the hull's dimension):
    the pair at the hull's centroid is found before any layer is checked on its own."""
    X = _flat(seed=5)
    n = X.shape[1]
    rng = np.random.default_rng(6)
    W1, b1 = rng.standard_normal((2 * n, n)) / np.sqrt(n), 0.1 * rng.standard_normal(2 * n)
    W2, b2 = rng.standard_normal((60, 2 * n)) / np.sqrt(2 * n), 0.1 * rng.standard_normal(60)
    net = rf.Network.from_weights([(W1, b1), (W2, b2)])
    K = rf.Hull(X)
    v = rf.check(net, K, time_limit=None)
    assert v.status == rf.Status.NOT_INJECTIVE
    x, y = v.pair
    assert np.all(K.contains_certified(np.array([x, y])))
    assert network_collision([(W1, -b1), (W2, -b2)], x, y) == v.pair_layer == 2
    assert not np.array_equal(x, y)
    assert v.layers[-1].method == "pair at the interior point"
    assert "not checked" in v.layers[0].text


def test_layer_with_too_few_rows_for_a_flat_hull_gets_a_wide_verified_pair():
    """Fewer rows than the hull's dimension: the pair is the centroid and a step that every row is blind to."""
    X = _flat(seed=7)
    n = X.shape[1]
    W = np.random.default_rng(8).standard_normal((_CERTIFY_MAX_DIM - 30, n))
    L = rf.ReLULayer.from_weights(W, 0.1 * np.ones(W.shape[0]))
    K = rf.Hull(X)
    v = rf.check(L, K, time_limit=None)
    assert v.status == rf.Status.NOT_INJECTIVE, v.report()
    x, y = v.pair
    assert np.all(K.contains_certified(np.array([x, y])))
    assert network_collision([(W, -0.1 * np.ones(W.shape[0]))], x, y) == 1
    assert np.linalg.norm(x - y) > 1e-3 * K.radius  # a wide pair, not one at the rounding's edge
    assert np.all(x[:12] == 0.0) and np.all(y[:12] == 0.0)  # the blank coordinates stay exactly blank


def test_large_data_sets_run_no_lp_of_their_size(monkeypatch):
    """Above ``_LP_POINTS`` points neither LP runs (their size would outgrow the budget): honest False / None."""
    from relu_frames_nb.domains import hull

    monkeypatch.setattr(hull, "_LP_POINTS", 200)
    monkeypatch.setattr(hull, "linprog_quiet", lambda *a, **k: pytest.fail("an LP ran"))
    K = rf.Hull(_full())  # 300 points
    assert not K.contains_certified(K.interior_point())
    assert K.fibre_direction(np.ones((3, K.n))) is None


def test_the_chunked_factorisation_keeps_the_singular_values(monkeypatch):
    from relu_frames_nb.domains import hull

    X = _flat(seed=9, N=500)
    c = X.mean(axis=0)
    direct = np.linalg.svd(X - c, compute_uv=False)
    monkeypatch.setattr(hull, "CHUNK_ENTRIES", 60 * X.shape[1])  # several chunks of rows
    chunked = np.linalg.svd(hull._triangle(X, c, 1.0), compute_uv=False)
    assert np.allclose(chunked, direct, rtol=1e-10, atol=1e-12 * direct[0])
    assert rf.Hull(X).affine_dimension == int(np.sum(direct > 1e-10 * direct[0]))


def test_large_data_sets_keep_a_valid_inner_radius_and_row_norms(monkeypatch):
    """The nearest point is sought in a subset's hull (the bound still holds for all points); norms in chunks."""
    from scipy.optimize import nnls

    from relu_frames_nb.domains import base, hull

    rng = np.random.default_rng(13)
    X = rng.standard_normal((600, 5)) + np.array([4.0, 0, 0, 0, 0])  # a cloud away from the origin
    E = np.vstack([X.T, np.full((1, 600), 1e3)])
    lam, _ = nnls(E, np.r_[np.zeros(5), 1e3], maxiter=10_000)
    exact = np.linalg.norm(X.T @ (lam / lam.sum()))  # the distance from the origin to the whole hull
    monkeypatch.setattr(hull, "_NNLS_POINTS", 100)
    r = rf.Hull(X).inner_radius
    assert 0.999 * exact < r <= exact * (1 + 1e-9)  # the grown subset finds the nearest point
    monkeypatch.setattr(base, "_NORM_CHUNK", 50)  # 10 rows per chunk
    np.testing.assert_allclose(base.robust_norms(X), np.linalg.norm(X, axis=1), rtol=1e-15)


def test_samples_of_a_large_data_set_by_the_sparse_product(monkeypatch):
    """Above ``SPARSE_SAMPLE_POINTS`` points the samples are one sparse product of redrawn distinct indices: they
    lie in the hull, are seeded, and spread like the dense path's (the threshold lowered so that a small hull
    takes that path)."""
    from relu_frames_nb.domains import hull as hull_module

    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 5))
    K = rf.Hull(X)
    dense = K.sample(3000, seed=4)
    monkeypatch.setattr(hull_module, "SPARSE_SAMPLE_POINTS", 100)
    S = K.sample(3000, seed=4)
    assert S.shape == (3000, 5) and np.all(K.contains(S))
    np.testing.assert_array_equal(S, K.sample(3000, seed=4))
    assert not np.array_equal(S, dense)  # the other path was taken
    # the same distribution: the mean and the spread agree with the dense path's to sampling error
    np.testing.assert_allclose(S.mean(axis=0), dense.mean(axis=0), atol=0.03)
    np.testing.assert_allclose(S.std(axis=0), dense.std(axis=0), rtol=0.1)


def test_a_pair_in_a_flat_hull_of_sixty_dimensions_is_certified_in_floating_point():
    # the exact rational membership proof of one point of a 120-dimensional hull took 40 s that no budget could
    # stop; above _CERTIFY_MAX_DIM the floating-point proof with error bounds takes its place, so the pair that
    # the data's mean offers (fewer active rows there than the hull has dimensions) is reported
    rng = np.random.default_rng(0)
    n, d, m = 100, 60, 150
    B = np.linalg.qr(rng.standard_normal((n, d)))[0]
    X = 0.5 + (rng.random((400, d)) - 0.5) @ B.T
    W = rng.standard_normal((m, n)) / np.sqrt(n)
    alpha = np.quantile(W @ X.mean(axis=0), 0.7)  # 45 rows active at the mean, in a 60-dimensional hull
    L = rf.ReLULayer(W, np.full(m, alpha))
    K = rf.Hull(X)
    assert K.affine_dimension == d > _CERTIFY_MAX_DIM
    v = rf.check(L, K, time_limit=60)
    assert v.status == "not injective"
    x, y = v.pair
    assert np.all(K.contains_certified(np.vstack([x, y])))
    np.testing.assert_allclose(L(x), L(y), rtol=1e-9, atol=1e-12)
    assert np.max(np.abs(x - y)) > 0
