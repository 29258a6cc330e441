"""Witnesses from the reweighted LP relaxation (:func:`relu_frames_nb.exact._search.reweighted_search`).

The relaxation's point is checked against sampled points of the domain (it must do at least as well
on its own objective), the stage against brute force on boxes and hulls in 2 and 3 dimensions (cells of
the arrangement, one LP per sign pattern), and every pair it reports by the package's one pair check in
the caller's coordinates.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb._util.pairs import collides
from relu_frames_nb.domains.polyhedral import Box, Hull, Polytope
from relu_frames_nb.exact import solve_exact
from relu_frames_nb.exact._regions import PolyRegion, region_for
from relu_frames_nb.pipeline.normal import normalise


def excess(Phi, a, w, margin, Z):
    return np.maximum(Z @ Phi.T - a + margin, 0.0) @ w


def domains(n, rng):
    X = rng.standard_normal((4 * n, n))
    A = np.vstack([np.eye(n), -np.eye(n), rng.standard_normal((2 * n, n))])  # bounded: a box cut by 2n planes
    return [Box(-1, 1, n=n), Hull(X), Polytope(A, np.r_[np.full(2 * n, 2.0), np.ones(2 * n)])]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_relaxed_point_lies_in_k_and_beats_every_sample(n):
    rng = np.random.default_rng(n)
    for K in domains(n, rng):
        R = PolyRegion.from_domain(K)
        Phi = rng.standard_normal((4 * n, n))
        a = rng.uniform(-0.5, 0.5, 4 * n)
        w = rng.uniform(0.2, 2.0, 4 * n)
        z = R.relaxed_point(Phi, a, w, 1e-6)
        assert z is not None and z.shape == (n,)
        assert K.contains(z + 0.0, tol=1e-7)
        S = K.sample(3000, seed=1)
        assert excess(Phi, a, w, 1e-6, z[None])[0] <= excess(Phi, a, w, 1e-6, S).min() + 1e-7


def test_round_regions_have_no_relaxation():
    Phi = np.eye(3)
    R = region_for(rf.Ball(3), Phi)
    assert R.relaxed_point(Phi, np.zeros(3), np.ones(3), 1e-6) is None


def patterns(W, alpha, K):
    """Active sets of the open cells of the arrangement that meet the interior of the polytope ``K``."""
    D = K.outer_polytope()
    m, n = W.shape
    ne = D.n_extra
    out = []
    for S in itertools.product([False, True], repeat=m):
        sgn = np.where(np.array(S), -1.0, 1.0)
        # sgn_i (<w_i, x> - alpha_i) + t <= 0, facets with margin t, maximise t
        rows = [np.hstack([sgn[:, None] * W, np.zeros((m, ne)), np.ones((m, 1))])]
        rhs = [sgn * alpha]
        if D.A_ub.shape[0]:
            rows.append(np.hstack([D.A_ub, np.ones((D.A_ub.shape[0], 1))]))
            rhs.append(D.b_ub)
        A_eq = np.hstack([D.A_eq, np.zeros((D.A_eq.shape[0], 1))]) if D.A_eq.shape[0] else None
        if ne:  # a hull: every weight at least t (the interior of the hull)
            rows.append(np.hstack([np.zeros((ne, n)), -np.eye(ne), np.ones((ne, 1))]))
            rhs.append(np.zeros(ne))
            bounds = list(zip(D.lower[:n], D.upper[:n])) + [(None, 1.0)] * ne + [(None, 1.0)]
        else:  # t away from the bounding box too (the box's own facets)
            rows += [np.hstack([np.eye(n), np.ones((n, 1))]), np.hstack([-np.eye(n), np.ones((n, 1))])]
            rhs += [D.upper[:n], -D.lower[:n]]
            bounds = [(None, None)] * n + [(None, 1.0)]
        res = linprog(np.r_[np.zeros(n + ne), -1.0], A_ub=np.vstack(rows), b_ub=np.concatenate(rhs), A_eq=A_eq,
                      b_eq=D.b_eq if A_eq is not None else None, bounds=bounds, method="highs")  # fmt: skip
        if res.status == 0 and res.x[-1] > 1e-7:
            out.append(np.array(S))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_against_cell_enumeration_without_samples(seed):
    """With no samples the pairs of non-injective layers come from the relaxation (or later stages);
    every verdict agrees with the cells of the arrangement."""
    rng = np.random.default_rng(100 + seed)
    n = 2 + seed % 2
    m = int(rng.integers(n + 1, 7))
    W = rng.standard_normal((m, n))
    alpha = rng.uniform(-1.0, 0.5, m)
    K = Box(-1, 1, n=n) if seed % 3 else Hull(rng.standard_normal((3 * n, n)))
    pats = patterns(W, alpha, K)
    assert pats
    expected = "not injective" if any(S.sum() == 0 or np.linalg.matrix_rank(W[S]) < n for S in pats) else "injective"
    P = normalise(W, alpha, K)
    res = solve_exact(P.W, P.alpha, P.K, budget=Budget(20), rng=np.random.default_rng(seed), n_samples=0)
    assert res.status == expected, res.text
    if expected == "not injective":
        x, y = (P.to_user(p) for p in res.pair)
        assert not np.array_equal(x, y) and collides(W, alpha, x, y)
        assert K.contains_certified(x) and K.contains_certified(y)


def test_the_relaxation_finds_the_witnesses_samples_miss():
    """Layers with a thin cell of few active rows (n = 6): the stage finds pairs that 0 samples cannot, and
    says so in the method; each pair is checked in the caller's coordinates."""
    found = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((30, 6))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        for K in (Box(-1, 1, n=6), Hull(rng.standard_normal((24, 6)))):
            L = rf.ReLULayer(W, -0.05)
            P = normalise(W, L.alpha, K)
            res = solve_exact(P.W, P.alpha, P.K, budget=Budget(20), rng=np.random.default_rng(0), n_samples=0)
            if res.method == "LP relaxation":
                assert res.status == "not injective"
                x, y = (P.to_user(p) for p in res.pair)
                assert not np.array_equal(x, y) and collides(W, L.alpha, x, y)
                assert K.contains_certified(x) and K.contains_certified(y)
                found += 1
    assert found >= 3


def test_a_point_on_a_face_of_a_hull_is_pulled_inside_before_the_pair():
    """A hull in R^8 says nothing of its boundary's distance (margin None): a witness point at one of its
    vertices, outside by rounding (an LP's answer), is moved towards the interior point first, so both
    points of the pair are proved members (before, the pair was dropped)."""
    from relu_frames_nb.exact._witness import build_pair

    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 8))
    K = Hull(X)
    v0 = X[int(np.argmax(X @ np.ones(8)))]  # a vertex: the maximiser of a linear functional
    p0 = v0 + 1e-12 * (v0 - K.interior_point())  # and just outside it, as an LP's vertex after rounding
    assert K.margin(p0) is None and not K.contains_certified(p0)
    W = rng.standard_normal((20, 8))
    alpha = W @ p0 + np.r_[np.full(3, -0.1), np.full(17, 0.5)]  # three rows active at p0, rank 3 < 8
    built = build_pair(W, alpha, K, p0, K.interior_point())
    assert built is not None
    z1, z2, n_act, rank = built
    assert n_act <= 3 and rank < 8
    assert K.contains_certified(z1) and K.contains_certified(z2)
    assert not np.array_equal(z1, z2) and collides(W, alpha, z1, z2)


def test_each_witness_names_the_search_that_found_it():
    """A pair the samples find says "samples" (it used to carry the name of a MILP that never ran); one the
    relaxation finds with no samples says "LP relaxation"; through rf.check, the stage before the engine that
    finds this one (the rows active at the box's centre do not span) says "interior point"."""
    W = np.random.default_rng(0).standard_normal((12, 4))
    L = rf.ReLULayer(W, 0.3)  # every row off near the centre: the samples find a pair at once
    v = rf.check(L, Box(-1, 1, n=4), method="exact", time_limit=20)
    assert v.status == "not injective" and v.method == "interior point"
    P = normalise(W, L.alpha, Box(-1, 1, n=4))
    res = solve_exact(P.W, P.alpha, P.K, budget=Budget(20), rng=np.random.default_rng(0))
    assert res.status == "not injective" and res.method == "samples"
    res = solve_exact(P.W, P.alpha, P.K, budget=Budget(20), rng=np.random.default_rng(0), n_samples=0)
    assert res.status == "not injective" and res.method == "LP relaxation"
