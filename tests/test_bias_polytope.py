"""Tests of the polytope bias estimation (Approach B, Prop. "pbeall", App. B and C2)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import nnls
from scipy.spatial import ConvexHull

import relu_frames_nb as rf
from relu_frames_nb.errors import (
    DegenerateHullError,
    DimensionMismatchError,
    InputError,
    NotAFrameError,
    NotOmnidirectionalError,
    TooExpensiveError,
)
from relu_frames_nb.paper.bias.polytope import (
    InscribingPolytope,
    _printed_ball_formula,
    _project_onto_cones,
    complete_omnidirectional,
    inscribing_polytope,
    is_omnidirectional,
    max_facet_count,
    polytope_bias,
    polytope_bias_exterior,
)
from relu_frames_nb.paper.rectifying import is_rectifying

SQ3, SQ5 = np.sqrt(3.0), np.sqrt(5.0)


def rectifying(frame, alpha, X) -> np.ndarray:
    """Per point: the active sub-frame spans R^n. Free elements (+inf) get a bias that
    keeps them inactive everywhere: the hardest choice."""
    alpha = np.where(np.isposinf(alpha), 1e6, alpha)
    return is_rectifying(rf.ReLULayer(frame, alpha), X)


def omni_random(m: int, n: int, seed: int, *, gaussian: bool = False) -> rf.Frame:
    F = rf.zoo.gaussian(m, n, seed=seed) if gaussian else rf.zoo.random_sphere(m, n, seed=seed)
    return complete_omnidirectional(F)


def half_space_frame(m: int, n: int, seed: int) -> rf.Frame:
    """Random vectors all in the open half-space <u, x> > 0 (not omnidirectional)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    u = rng.standard_normal(n)
    X *= np.sign(X @ u)[:, None]
    return rf.Frame(X)


def near(points: np.ndarray, N: int, radius: float, seed: int) -> np.ndarray:
    """``N`` unit vectors within about ``radius`` of the unit vector ``points``."""
    rng = np.random.default_rng(seed)
    Y = points + radius * rng.uniform(-1, 1, (N, points.size))
    return Y / np.linalg.norm(Y, axis=1, keepdims=True)


# ---------------------------------------------------------------------------------
# facet counts: the upper bound theorem
# ---------------------------------------------------------------------------------


def test_max_facet_count_closed_forms():
    for m in range(4, 30):
        assert max_facet_count(m, 2) == m
        assert max_facet_count(m, 3) == 2 * m - 4
        if m >= 5:
            assert max_facet_count(m, 4) == m * (m - 3) // 2
    assert max_facet_count(3, 3) == 0
    assert max_facet_count(7, 6) == 7  # a simplex has n + 1 facets
    assert max_facet_count(12, 6) == comb(9, 3) + comb(8, 2)


@pytest.mark.parametrize("n,m", [(2, 9), (3, 15), (4, 20), (5, 25), (6, 18)])
def test_max_facet_count_bounds_random_hulls(n, m):
    for seed in range(3):
        X = np.asarray(rf.zoo.random_sphere(m, n, seed=seed).vectors)
        assert ConvexHull(X).simplices.shape[0] <= max_facet_count(m, n)


@pytest.mark.parametrize("n,m", [(4, 10), (4, 13), (6, 12)])
def test_max_facet_count_attained_by_cyclic_polytope(n, m):
    # points on the trigonometric moment curve are unit vectors (after /sqrt(n/2)) and
    # span a cyclic (neighbourly) polytope: the bound is attained
    t = np.sort(np.random.default_rng(0).uniform(0, 2 * np.pi, m))
    X = np.column_stack([f(k * t) for k in range(1, n // 2 + 1) for f in (np.cos, np.sin)]) / np.sqrt(n / 2)
    P = inscribing_polytope(X)
    assert P.is_simplicial
    assert P.n_facets == max_facet_count(m, n)


# ---------------------------------------------------------------------------------
# the inscribing polytope
# ---------------------------------------------------------------------------------

PLATONIC = {  # facets, vertices per facet
    "tetrahedron": (4, 3),
    "cube": (6, 4),
    "octahedron": (8, 3),
    "dodecahedron": (12, 5),
    "icosahedron": (20, 3),
}


@pytest.mark.parametrize("name", sorted(PLATONIC))
def test_platonic_facets(name):
    P = inscribing_polytope(rf.zoo.platonic(name))
    n_facets, size = PLATONIC[name]
    assert P.n_facets == n_facets
    assert np.all(P.facet_sizes == size)
    assert P.is_simplicial == (size == 3)
    assert P.is_omnidirectional
    # each simplex is a triangle; a k-gon is split into k - 2 of them
    assert P.n_simplices == n_facets * (size - 2)
    _check_facet_structure(P)


def _check_facet_structure(P: InscribingPolytope) -> None:
    X = P.points
    np.testing.assert_allclose(np.linalg.norm(P.normals, axis=1), 1.0)
    for j, verts in enumerate(P.facets):
        inner = X @ P.normals[j]
        np.testing.assert_allclose(inner[verts], P.offsets[j], atol=1e-10)
        others = np.setdiff1d(np.arange(P.m), verts)
        assert np.all(inner[others] < P.offsets[j] - 1e-9)
        assert np.linalg.matrix_rank(X[verts]) == P.n  # Lemma "facet": the vertices form a frame
    inc = P.incidence.toarray()
    assert inc.shape == (P.n_facets, P.m)
    np.testing.assert_array_equal(inc.sum(axis=1), P.facet_sizes)
    for i in range(P.m):
        np.testing.assert_array_equal(P.facets_of(i), np.flatnonzero(inc[:, i]))
        assert P.facets_of(i).size >= P.n
    # every simplex lies in its facet
    for s, f in zip(P.simplices, P.simplex_facet):
        assert set(s.tolist()) <= set(P.facet(f).tolist())


@pytest.mark.parametrize("n,m,seed", [(2, 8, 0), (3, 14, 1), (4, 20, 2), (5, 24, 3)])
def test_random_polytope_structure(n, m, seed):
    P = inscribing_polytope(omni_random(m, n, seed, gaussian=True))
    assert P.is_simplicial  # i.i.d. points: simplicial with probability one
    assert P.n_facets == P.n_simplices
    _check_facet_structure(P)


def test_simplices_mode_keeps_the_triangulation():
    P = inscribing_polytope(rf.zoo.platonic("dodecahedron"), facets="simplices")
    assert P.mode == "simplices" and P.n_facets == P.n_simplices == 36 and P.is_simplicial


def test_locate_finds_the_cone():
    F = omni_random(15, 3, seed=4)
    P = inscribing_polytope(F)
    X = rf.Sphere(3).sample(300, seed=5)
    for x, j in zip(X, P.locate(X)):
        c, res = nnls(P.points[P.facet(j)].T, x)
        assert res < 1e-9


def test_degenerate_hulls_raise_clear_errors():
    with pytest.raises(DegenerateHullError, match="at least n \\+ 1"):
        inscribing_polytope(rf.zoo.standard_basis(3))
    # four unit vectors on a circle of latitude: they span R^3 but the hull is flat
    t = np.linspace(0, 2 * np.pi, 4, endpoint=False)
    flat = np.column_stack([0.6 * np.cos(t), 0.6 * np.sin(t), np.full(4, 0.8)])
    with pytest.raises(DegenerateHullError, match="affine hyperplane") as info:
        inscribing_polytope(flat)
    assert "QH" not in str(info.value) and "complete_omnidirectional" in str(info.value)
    dup = [[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    with pytest.raises(DegenerateHullError, match="duplicate") as info:
        inscribing_polytope(dup)
    assert "0 ~ 1" in str(info.value) or "1 ~ 0" in str(info.value)
    with pytest.raises(DegenerateHullError, match="n >= 2"):
        inscribing_polytope([[1.0], [-1.0], [2.0]])
    assert issubclass(DegenerateHullError, ValueError)


def test_too_expensive_refuses_with_hint():
    F = rf.zoo.random_sphere(40, 6, seed=0)
    with pytest.raises(TooExpensiveError, match="max_facets") as info:
        inscribing_polytope(F, max_facets=1000)
    assert f"{max_facet_count(40, 6):,}" in str(info.value)
    with pytest.raises(TooExpensiveError):
        polytope_bias(F, rf.Sphere(6), max_facets=1000)
    assert inscribing_polytope(F, max_facets=max_facet_count(40, 6)).n_facets > 0


def test_polytope_accessors_validate():
    P = inscribing_polytope(rf.zoo.platonic("cube"))
    with pytest.raises(InputError, match="facet index"):
        P.facet(6)
    with pytest.raises(InputError, match="vertex index"):
        P.facets_of(8)
    np.testing.assert_array_equal(P.facet(-1), P.facets[-1])
    with pytest.raises(InputError, match="facets"):
        inscribing_polytope(rf.zoo.platonic("cube"), facets="triangles")
    with pytest.raises(InputError, match="max_facets"):
        inscribing_polytope(rf.zoo.platonic("cube"), max_facets=0)
    with pytest.raises(InputError, match="finite"):
        inscribing_polytope([[np.nan, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    with pytest.raises(NotAFrameError):
        inscribing_polytope([[1.0, 1.0], [2.0, 2.0], [-1.0, -1.0]])
    assert "InscribingPolytope(m=8, n=3" in repr(P)


# ---------------------------------------------------------------------------------
# omnidirectionality (App. B)
# ---------------------------------------------------------------------------------


def test_omnidirectional_known_cases():
    assert is_omnidirectional(rf.zoo.mercedes_benz())
    assert is_omnidirectional(rf.zoo.plus_minus_basis(4))
    assert not is_omnidirectional(rf.zoo.standard_basis(3))
    # 0 lies on a facet (the segment from e1 to -e1): not interior
    on_facet = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    for method in ("auto", "hull", "lp"):
        assert not is_omnidirectional(on_facet, method=method)
        assert is_omnidirectional(rf.zoo.example_a(), method=method)
    with pytest.raises(InputError, match="method"):
        is_omnidirectional(rf.zoo.mercedes_benz(), method="qp")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_hull_and_lp_routes_agree(n):
    verdicts = []
    for seed in range(8):
        for F in (rf.zoo.random_sphere(n + 2 + seed, n, seed=seed), half_space_frame(3 * n, n, seed)):
            hull = is_omnidirectional(F, method="hull")
            lp = is_omnidirectional(F, method="lp")
            assert hull == lp
            verdicts.append(hull)
        assert not is_omnidirectional(half_space_frame(3 * n, n, seed))
    assert any(verdicts) and not all(verdicts)


def test_lp_route_when_the_hull_is_too_expensive():
    F = rf.zoo.random_sphere(40, 6, seed=1)
    assert is_omnidirectional(F, max_facets=10) == is_omnidirectional(F)
    with pytest.raises(TooExpensiveError):
        is_omnidirectional(F, method="hull", max_facets=10)
    assert not is_omnidirectional(half_space_frame(40, 6, 1), max_facets=10)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_completion_lemma(n):
    for seed in range(4):
        F = half_space_frame(2 * n, n, seed)
        G = complete_omnidirectional(F)
        assert G.m == F.m + 1
        np.testing.assert_array_equal(G.vectors[:-1], F.vectors)
        s = F.vectors.sum(axis=0)
        np.testing.assert_allclose(G.vectors[-1], -s / np.linalg.norm(s))
        assert is_omnidirectional(G, method="hull") and is_omnidirectional(G, method="lp")
    # a basis (m = n) is completed too
    assert is_omnidirectional(complete_omnidirectional(rf.zoo.standard_basis(n)))


def test_completion_keeps_omnidirectional_frames():
    for F in (rf.zoo.plus_minus_basis(3), rf.zoo.platonic("tetrahedron"), rf.zoo.mercedes_benz()):
        assert complete_omnidirectional(F) is F  # sum is 0: nothing to add
    F = rf.zoo.example_a()  # omnidirectional, sum != 0
    assert complete_omnidirectional(F) is F


# ---------------------------------------------------------------------------------
# the batched projection onto simplicial cones
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 6, 8])
def test_batched_cone_projection_matches_nnls(n):
    rng = np.random.default_rng(n)
    N = 400
    B = rng.standard_normal((N, n, n))
    B[: N // 4] += 3.0 * rng.standard_normal((1, 1, n))  # clustered, ill-conditioned cones
    v = rng.standard_normal((N, n))
    v[N // 2 :] = -B[N // 2 :, 0]  # the PBE case: minus a generator
    G, h = B @ B.transpose(0, 2, 1), np.einsum("pij,pj->pi", B, v)
    c = _project_onto_cones(G, h)
    assert np.all(c >= 0)
    np.testing.assert_allclose(np.sum(c * h, axis=1), np.linalg.norm(np.einsum("pi,pij->pj", c, B), axis=1) ** 2)
    for p in range(N):
        ref = nnls(B[p].T, v[p])[0]
        np.testing.assert_allclose(c[p] @ B[p], ref @ B[p], atol=1e-9)


def test_batched_cone_projection_falls_back_when_out_of_sweeps():
    rng = np.random.default_rng(7)
    B = rng.standard_normal((50, 5, 5))
    v = rng.standard_normal((50, 5))
    G, h = B @ B.transpose(0, 2, 1), np.einsum("pij,pj->pi", B, v)
    c = _project_onto_cones(G, h, max_iter=0)  # everything through scipy's nnls
    np.testing.assert_allclose(c, _project_onto_cones(G, h), atol=1e-8)
    for p in range(50):
        np.testing.assert_allclose(c[p], nnls(B[p].T, v[p])[0], atol=1e-8)


# ---------------------------------------------------------------------------------
# known answers (DESIGN item 6) and basic properties
# ---------------------------------------------------------------------------------


def test_known_answers():
    tet = rf.zoo.platonic("tetrahedron")
    np.testing.assert_allclose(polytope_bias(tet, rf.Sphere(3)).values, -1 / SQ3)  # paper: +1/sqrt(3)
    np.testing.assert_allclose(polytope_bias(tet, "boundary").values, -1 / 3)
    np.testing.assert_allclose(polytope_bias(rf.zoo.platonic("icosahedron"), rf.Sphere(3)).values, 1 / SQ5)
    np.testing.assert_allclose(polytope_bias(rf.zoo.plus_minus_basis(3), rf.Sphere(3)).values, 0.0, atol=1e-15)
    np.testing.assert_allclose(polytope_bias(rf.zoo.mercedes_benz(), rf.Ball(2)).values, -0.5)
    np.testing.assert_allclose(polytope_bias(rf.zoo.platonic("dodecahedron"), rf.Sphere(3)).values, 1 / 3)
    np.testing.assert_allclose(polytope_bias(rf.zoo.platonic("cube"), rf.Sphere(3)).values, -1 / 3)
    # scaling: a sphere of radius r, a ball, a shell
    np.testing.assert_allclose(polytope_bias(tet, rf.Sphere(3, 2.5)).values, -2.5 / SQ3)
    np.testing.assert_allclose(polytope_bias(tet, rf.Shell(3, 1.0, 2.0)).values, -2 / SQ3)
    ico = rf.zoo.platonic("icosahedron")
    np.testing.assert_allclose(polytope_bias(ico, rf.Shell(3, 0.5, 2.0)).values, 0.5 / SQ5)
    np.testing.assert_allclose(polytope_bias(ico, rf.Ball(3, 2.0)).values, 0.0)


def test_estimate_metadata():
    F = omni_random(14, 3, seed=2)
    est = polytope_bias(F, rf.Ball(3, 2.0))
    assert est.guarantee == "guaranteed" and est.is_guarantee and est.method == "polytope"
    assert est.domain == rf.Ball(3, 2.0) and est.info["case"] == "ball" and est.info["mode"] == "exact"
    P = est.info["polytope"]
    for i in range(F.m):
        assert i in P.facet(est.facets[i])
    assert est.argmin.shape == (F.m, 3)


@pytest.mark.parametrize("name", ["tetrahedron", "icosahedron", "cube", "dodecahedron", "octahedron"])
def test_argmin_attains_the_value(name):
    F = rf.zoo.platonic(name)
    for K in (rf.Sphere(3, 2.0), rf.Shell(3, 0.5, 1.5), "boundary"):
        est = polytope_bias(F, K)
        P = est.info["polytope"]
        X = est.argmin
        np.testing.assert_allclose(np.sum(X * P.points, axis=1), est.values, atol=1e-12)
        if not isinstance(K, str):
            assert np.all(K.contains(X))
        for i in range(F.m):  # the point lies in the cone of the reported facet
            _, res = nnls(P.points[P.facet(est.facets[i])].T, X[i])
            assert res < 1e-9


def test_unnormalized_frames_scale_back():
    F = omni_random(12, 3, seed=3)
    d = np.random.default_rng(0).uniform(0.2, 5.0, F.m)
    G = rf.Frame(F.vectors * d[:, None])
    for K in (rf.Sphere(3), rf.Ball(3, 2.0), "boundary", rf.PositiveBall(3)):
        np.testing.assert_allclose(polytope_bias(G, K).values, polytope_bias(F, K).values * d)


@pytest.mark.parametrize("n,m", [(2, 6), (3, 12), (4, 18), (5, 20)])
def test_lemma_Br_lower_bound(n, m):
    # any normalized frame is (-r)-rectifying on B_r: the PBE can never be smaller
    for seed in range(3):
        F = omni_random(m, n, seed)
        for r in (0.5, 2.0):
            v = polytope_bias(F, rf.Ball(n, r)).values
            assert np.all(v >= -r - 1e-12) and np.all(v <= 0)
        s = polytope_bias(F, rf.Sphere(n)).values
        b = polytope_bias(F, "boundary").values
        assert np.all(s <= b + 1e-15) and np.all(s >= -1 - 1e-12)
        np.testing.assert_array_equal(s[b >= 0], b[b >= 0])  # Prop. (ii): equal when non-negative


def test_formula_i_is_tighter_than_algorithm_2():
    strictly = 0
    for seed in range(5):
        F = omni_random(12, 3, seed)
        P = inscribing_polytope(F)
        X = P.points
        beta = np.array([(X[f] @ X[f].T).min() for f in P.facets])  # Algorithm 2
        alg2 = np.array([beta[P.facets_of(i)].min() for i in range(P.m)])
        ours = polytope_bias(P, "boundary").values
        assert np.all(ours >= alg2 - 1e-15)
        strictly += int(np.sum(ours > alg2 + 1e-9))
        Y = _boundary_samples(P, 20_000, seed)
        assert np.all(rectifying(F, ours, Y))
    assert strictly > 0


def _boundary_samples(P: InscribingPolytope, N: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    simp = P.simplices[rng.integers(0, P.n_simplices, N)]
    w = rng.dirichlet(np.ones(P.n), N)
    return np.einsum("pk,pkj->pj", w, P.points[simp])


# ---------------------------------------------------------------------------------
# dense-sampling validation: the guarantee holds at every sample
# ---------------------------------------------------------------------------------

DOMAINS = {
    "sphere": lambda n: rf.Sphere(n, 1.5),
    "ball": lambda n: rf.Ball(n, 2.0),
    "shell": lambda n: rf.Shell(n, 0.5, 1.0),
    "positive-ball": lambda n: rf.PositiveBall(n, 1.0),
}


@pytest.mark.parametrize("n,m", [(2, 7), (3, 12), (4, 20)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rectifying_at_every_sample(n, m, seed):
    F = omni_random(m, n, seed, gaussian=seed == 2)
    P = inscribing_polytope(F)
    for name, make in DOMAINS.items():
        K = make(n)
        est = polytope_bias(P, K)
        X = K.sample(100_000, seed=100 + seed)
        ok = rectifying(F, est.values, X)
        assert ok.all(), f"{name}: {np.sum(~ok)} non-rectifying samples"


@pytest.mark.parametrize("n,m,seed", [(3, 12, 0), (3, 20, 1), (4, 16, 2)])
def test_sphere_values_are_tight_per_facet(n, m, seed):
    # every facet vertex is active at every point of the facet's cone, and the sampled
    # minima come close to the computed values (nothing is too small)
    F = omni_random(m, n, seed)
    P = inscribing_polytope(F)
    est = polytope_bias(P, rf.Sphere(n))
    X = rf.Sphere(n).sample(200_000, seed=seed)
    loc = P.locate(X)
    seen = np.full(P.m, np.inf)
    inner = X @ P.points.T
    for j in range(P.n_facets):
        verts = P.facet(j)
        vals = inner[loc == j][:, verts]
        if vals.size:
            assert np.all(vals >= est.values[verts] - 1e-12)
            seen[verts] = np.minimum(seen[verts], vals.min(axis=0))
    gap = seen - est.values
    assert np.all(gap >= -1e-12) and gap.max() < (0.05 if n == 3 else 0.15)


def test_simplices_mode_is_valid_and_never_smaller():
    cube = rf.zoo.platonic("cube")
    ex = polytope_bias(cube, rf.Sphere(3)).values
    si = polytope_bias(cube, rf.Sphere(3), facets="simplices")
    assert si.info["mode"] == "simplices"
    assert np.all(si.values >= ex - 1e-12) and np.any(si.values > ex + 1e-6)
    X = rf.Sphere(3).sample(100_000, seed=3)
    assert rectifying(cube, si.values, X).all()
    F = omni_random(14, 3, seed=5)  # simplicial: identical
    np.testing.assert_allclose(
        polytope_bias(F, rf.Ball(3), facets="simplices").values, polytope_bias(F, rf.Ball(3)).values
    )


# ---------------------------------------------------------------------------------
# maximality (Lemma "err") and the errata
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tetrahedron", "octahedron", "icosahedron"])
def test_maximality_for_regular_simplicial_frames(name):
    F = rf.zoo.platonic(name)
    est = polytope_bias(F, rf.Sphere(3))
    assert est.info["is_simplicial"]
    for i in range(F.m):
        Y = near(est.argmin[i], 20_000, 2e-3, seed=i)
        assert rectifying(F, est.values, Y).all()
        raised = est.values.copy()
        raised[i] += 1e-3
        assert not rectifying(F, raised, Y).all(), f"raising element {i} kept the frame rectifying"


def test_printed_ball_formula_fails():
    # B_2 for the triangle: printed r^-1 min{s, alpha_S} = -1/4, correct 2 * (-1/2) = -1
    tri = rf.zoo.mercedes_benz()
    a_S = polytope_bias(tri, rf.Sphere(2)).values
    K = rf.Ball(2, 2.0)
    X = K.sample(50_000, seed=0)
    printed = _printed_ball_formula(a_S, r=2.0, s=0.0)
    np.testing.assert_allclose(printed, -0.25)
    assert not rectifying(tri, printed, X).all()
    assert rectifying(tri, polytope_bias(tri, K).values, X).all()
    # the shell D_{1,1/2} for the icosahedron: printed min{1/2, 1/sqrt5} = 0.447, correct 0.224
    ico = rf.zoo.platonic("icosahedron")
    a_S = polytope_bias(ico, rf.Sphere(3)).values
    K = rf.Shell(3, 0.5, 1.0)
    X = K.sample(50_000, seed=1)
    assert not rectifying(ico, _printed_ball_formula(a_S, r=1.0, s=0.5), X).all()
    correct = polytope_bias(ico, K).values
    np.testing.assert_allclose(correct, 0.5 / SQ5)
    assert rectifying(ico, correct, X).all()


# ---------------------------------------------------------------------------------
# the non-negative ball (iv)
# ---------------------------------------------------------------------------------


def test_positive_ball_relevant_facets():
    for seed in range(4):
        F = omni_random(16, 3, seed)
        est = polytope_bias(F, rf.PositiveBall(3, 2.0))
        P = est.info["polytope"]
        relevant = est.info["relevant_facets"]
        # cones of facets hit by non-negative points are relevant
        X = rf.PositiveBall(3).sample(50_000, seed=seed)
        assert relevant[np.unique(P.locate(X))].all()
        # irrelevant facets exist: the printed program (opt++) would have kept them all
        assert relevant.sum() < P.n_facets
        # elements in no relevant facet are free; the others are the ball values or larger
        in_plus = np.zeros(P.m, dtype=bool)
        in_plus[P.incidence.toarray()[relevant].any(axis=0)] = True
        assert np.all(np.isinf(est.values[~in_plus])) and np.all(np.isfinite(est.values[in_plus]))
        ball = polytope_bias(F, rf.Ball(3, 2.0)).values
        assert np.all(est.values[in_plus] >= ball[in_plus] - 1e-12)
        paper = est.info["paper_values"]
        np.testing.assert_allclose(paper[in_plus], ball[in_plus])
        assert np.all(np.isnan(est.argmin[~in_plus])) and np.all(est.facets[~in_plus] == -1)


def test_positive_ball_is_tighter_than_printed_iv_somewhere():
    tighter = 0
    for seed in range(6):
        F = omni_random(10, 3, seed)
        est = polytope_bias(F, rf.PositiveBall(3))
        fin = np.isfinite(est.values)
        tighter += int(np.sum(est.values[fin] > est.info["paper_values"][fin] + 1e-9))
        X = rf.PositiveBall(3).sample(50_000, seed=seed)
        assert rectifying(F, est.values, X).all()
    assert tighter > 0


# ---------------------------------------------------------------------------------
# the exterior of a ball (v) and the whole space
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("s", [0.5, 2.0])
def test_exterior(s):
    ico = rf.zoo.platonic("icosahedron")
    est = polytope_bias_exterior(ico, s)
    np.testing.assert_allclose(est.values, s / SQ5)
    np.testing.assert_allclose(polytope_bias(ico, rf.Exterior(3, s)).values, est.values)
    assert est.info["case"] == "exterior" and est.is_guarantee
    assert est.domain == rf.Exterior(3, s) and "enclosing" not in est.info
    X = rf.Shell(3, s, 50 * s).sample(100_000, seed=2)
    assert rectifying(ico, est.values, X).all()
    # the printed reading (scaled frame s*phi with bias s*alpha) fails for s < 1
    printed_ok = rectifying(rf.Frame(s * ico.vectors), est.values, X).all()
    assert printed_ok == (s >= 1)


def test_the_exterior_is_a_domain_not_a_tuple():
    ico = rf.zoo.platonic("icosahedron")
    with pytest.raises(InputError, match="Exterior.*got the tuple"):
        polytope_bias(ico, ("exterior", 2.0))
    new = polytope_bias(ico, rf.Exterior(3, 2.0))
    assert new.domain == rf.Exterior(3, 2.0)
    by_domain = polytope_bias_exterior(ico, rf.Exterior(3, 2.0))
    np.testing.assert_array_equal(by_domain.values, new.values)
    assert polytope_bias_exterior(ico, 0.0).domain == rf.RealSpace(3)
    with pytest.raises(InputError, match="exterior"):
        polytope_bias_exterior(ico, rf.Ball(3))
    with pytest.raises(DimensionMismatchError):
        polytope_bias_exterior(ico, rf.Exterior(2, 1.0))


def test_exterior_refuses_negative_boundary_bias():
    with pytest.raises(InputError, match="non-negative boundary bias"):
        polytope_bias_exterior(rf.zoo.platonic("tetrahedron"), 1.0)
    with pytest.raises(InputError, match="s"):
        polytope_bias_exterior(rf.zoo.platonic("icosahedron"), -1.0)


def test_real_space():
    pm = rf.zoo.plus_minus_basis(3)
    est = polytope_bias(pm, rf.RealSpace(3))
    np.testing.assert_array_equal(est.values, 0.0)
    X = rf.RealSpace(3).sample(20_000, seed=0) * 100
    assert rectifying(pm, est.values, X).all()
    with pytest.raises(InputError, match="RealSpace"):
        polytope_bias(rf.zoo.platonic("tetrahedron"), rf.RealSpace(3))


# ---------------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------------


def test_not_omnidirectional_errors_mention_the_completion():
    for F in (rf.zoo.standard_basis(3), half_space_frame(9, 3, 0)):
        with pytest.raises(NotOmnidirectionalError, match="complete_omnidirectional"):
            polytope_bias(F, rf.Sphere(3))
    on_facet = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    with pytest.raises(NotOmnidirectionalError, match="complete_omnidirectional"):
        polytope_bias(on_facet, rf.Ball(2))
    with pytest.raises(NotOmnidirectionalError):
        inscribing_polytope(on_facet).locate([1.0, 0.0])
    assert issubclass(NotOmnidirectionalError, ValueError)


def test_bad_domains_and_options():
    F = rf.zoo.platonic("icosahedron")
    with pytest.raises(InputError, match="K must be"):
        polytope_bias(F, "sphere")
    with pytest.raises(InputError, match="K must be"):
        polytope_bias(F, ("interior", 1.0))
    with pytest.raises(InputError, match="K must be"):
        polytope_bias(F, 3.0)
    with pytest.raises(InputError, match="sampling"):
        polytope_bias(F, rf.Samples(np.eye(3)))
    with pytest.raises(DimensionMismatchError, match="K must be a domain in R\\^3"):
        polytope_bias(F, rf.Sphere(2))
    with pytest.raises(InputError, match="facets"):
        polytope_bias(F, rf.Sphere(3), facets="bogus")
    with pytest.raises(InputError, match="max_facets"):
        polytope_bias(F, rf.Sphere(3), max_facets=-5)
    with pytest.raises(InputError, match="tol"):
        polytope_bias(F, rf.Sphere(3), tol=float("nan"))
    with pytest.raises(InputError, match="frame vectors"):
        polytope_bias([[np.nan, 1.0], [1.0, 0.0], [-1.0, -1.0]], rf.Ball(2))
    with pytest.raises(NotAFrameError):
        polytope_bias([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0], [-1.0, -1.0, 0.0], [0.0, 0.0, 1.0]], rf.Ball(3))
    P = inscribing_polytope(F)
    with pytest.raises(InputError, match="facets must match"):
        polytope_bias(P, rf.Sphere(3), facets="simplices")
    np.testing.assert_array_equal(polytope_bias(P, rf.Sphere(3)).values, polytope_bias(F, rf.Sphere(3)).values)
    assert issubclass(InputError, ValueError)


def test_boundary_string_is_case_insensitive():
    F = rf.zoo.mercedes_benz()
    np.testing.assert_array_equal(polytope_bias(F, " Boundary ").values, polytope_bias(F, "boundary").values)
    np.testing.assert_allclose(polytope_bias(F, "boundary").values, -0.5)


# ---------------------------------------------------------------------------------
# property-based: Thm "PBE" on random frames
# ---------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=st.integers(2, 4), extra=st.integers(1, 10), seed=st.integers(0, 2**31 - 1), r=st.floats(0.1, 10.0))
def test_pbe_property(n, extra, seed, r):
    F = omni_random(n + extra, n, seed, gaussian=True)
    P = inscribing_polytope(F)
    unit = polytope_bias(P, rf.Sphere(n)).values / F.norms
    ball = polytope_bias(P, rf.Ball(n, r)).values / F.norms
    # Prop. (iii) corrected and Lemma "B_r"
    np.testing.assert_allclose(ball, r * np.minimum(unit, 0.0), atol=1e-12)
    assert np.all(ball >= -r - 1e-12)
    # Thm "PBE": at every point of a facet cone all vertices of the facet are active
    X = rf.Sphere(n).sample(3000, seed=seed % 1000)
    loc = P.locate(X)
    inner = X @ P.points.T
    for j in np.unique(loc):
        verts = P.facet(j)
        assert np.all(inner[loc == j][:, verts] >= unit[verts] - 1e-12)


def _brute_force_sphere(P: InscribingPolytope, i: int) -> float:
    """min over the facets F containing i of min_{y in cone(F) ∩ S} <y, phi_i>, one nnls per facet."""
    X = P.points
    best = np.inf
    for j in P.facets_of(i):
        verts = X[P.facet(j)]
        vmin = float((verts @ X[i]).min())
        if vmin >= 0:
            best = min(best, vmin)
        else:
            c = nnls(verts.T, -X[i])[0]
            best = min(best, -float(np.linalg.norm(c @ verts)))
    return best


@pytest.mark.parametrize("m,n", [(12, 3), (800, 3), (60, 5)])
def test_sphere_matches_brute_force(m, n):
    # small m uses the full Gram matrix, large m the per-facet inner products
    P = inscribing_polytope(omni_random(m, n, seed=m))
    values = polytope_bias(P, rf.Sphere(n)).values
    for i in np.random.default_rng(0).choice(m, size=min(m, 25), replace=False):
        assert values[i] == pytest.approx(_brute_force_sphere(P, i), abs=1e-10)


def test_non_simplicial_facets_match_brute_force():
    # a prism over a regular hexagon: rectangles (4 vertices) on the sides, hexagons on top and bottom
    t = np.arange(6) * np.pi / 3
    prism = np.vstack([np.column_stack([np.cos(t), np.sin(t), np.full(6, z)]) for z in (-0.4, 0.4)])
    P = inscribing_polytope(prism)
    assert not P.is_simplicial and sorted(set(P.facet_sizes.tolist())) == [4, 6]
    for K in (rf.Sphere(3), rf.Ball(3, 2.0)):
        values = polytope_bias(P, K).values
        ref = np.array([_brute_force_sphere(P, i) for i in range(P.m)])
        expected = ref if isinstance(K, rf.Sphere) else 2.0 * np.minimum(ref, 0.0)
        np.testing.assert_allclose(values, expected * np.linalg.norm(prism, axis=1), atol=1e-10)
    X = rf.Ball(3, 2.0).sample(100_000, seed=0)
    assert rectifying(rf.Frame(prism), polytope_bias(prism, rf.Ball(3, 2.0)).values, X).all()


# ---------------------------------------------------------------------------------
# other domains: the enclosing shell (from inner_radius and radius) is a proof on K
# ---------------------------------------------------------------------------------


def test_radial_domains_are_their_own_case():
    ico = rf.zoo.platonic("icosahedron")
    for K, case in [
        (rf.Ball(3, 2.0), "ball"),
        (rf.Sphere(3, 2.0), "sphere"),
        (rf.Shell(3, 0.5, 2.0), "shell"),
        (rf.PositiveBall(3, 2.0), "positive-ball"),
        (rf.RealSpace(3), "real-space"),
    ]:
        est = polytope_bias(ico, K)
        assert est.info["case"] == case and est.domain == K and "enclosing" not in est.info


def test_box_is_handled_as_its_enclosing_shell():
    polyhedral = pytest.importorskip("relu_frames_nb.domains.polyhedral")
    ico = rf.zoo.platonic("icosahedron")
    box = polyhedral.Box(-0.5, 0.5, n=3)
    est = polytope_bias(ico, box)
    ball = polytope_bias(ico, rf.Ball(3, box.radius))
    np.testing.assert_array_equal(est.values, ball.values)
    assert est.domain is box and est.is_guarantee and est.info["case"] == "ball"
    assert "enclosing" in est.info and "box" in est.info["note"]
    assert rectifying(ico, est.values, box.sample(20_000, seed=0)).all()
    # a box away from the origin in the orthant: the shell inner <= |x| <= radius in R^3_+
    pos = polyhedral.Box([0.2, 0.1, 0.3], [1.0, 0.8, 0.9])
    est = polytope_bias(ico, pos)
    assert est.info["case"] == "positive-ball" and est.info["enclosing"].endswith("orthant")
    assert np.all(est.values >= polytope_bias(ico, rf.PositiveBall(3, pos.radius)).values - 1e-12)
    assert rectifying(ico, est.values, pos.sample(20_000, seed=1)).all()


class _Annulus(rf.Domain):
    """A domain that only states its radii (no radial class): a thin annulus in the plane."""

    n = 2
    open_or_convex = False

    @property
    def radius(self):
        return 1.0

    @property
    def inner_radius(self):
        return 0.5

    def sample(self, N, *, seed=None):
        return rf.Shell(2, 0.5, 1.0).sample(N, seed=seed)

    def _contains(self, X, tol):
        return rf.Shell(2, 0.5, 1.0).contains(X, tol=tol)

    def describe(self):
        return "an annulus"


def test_any_domain_is_read_from_its_radii():
    F = rf.zoo.regular_polygon(7)
    est = polytope_bias(F, _Annulus())
    np.testing.assert_array_equal(est.values, polytope_bias(F, rf.Shell(2, 0.5, 1.0)).values)
    assert est.info["case"] == "shell" and "annulus" in est.info["note"]
