"""Tests for relu_frames_nb.paper.reference: the literal transcriptions agree with the fast implementations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import (
    DegenerateHullError,
    DimensionMismatchError,
    InputError,
    NotAFrameError,
    NotInjectiveError,
    NotOmnidirectionalError,
    TooExpensiveError,
)
from relu_frames_nb.paper import reference

SEED = 20240808


def random_layer(m: int, n: int, seed: int, scale: float = 0.4) -> rf.ReLULayer:
    F = rf.zoo.random_sphere(m, n, seed=SEED + seed)
    return rf.ReLULayer(F, scale * np.random.default_rng(seed).standard_normal(m))


def test_not_imported_by_the_package():
    import relu_frames_nb

    assert "reference" not in relu_frames_nb.__all__
    assert set(reference.__all__) == {
        "is_admissible", "arrangement_face_points", "admissible_sets", "algorithm_1", "algorithm_2",
        "formula_i", "algorithm_3", "algorithm_4", "algorithm_5",
    }  # fmt: skip


# ------------------------------------------------------------------ App. A
@pytest.mark.parametrize(("m", "n", "seed"), [(5, 2, 1), (6, 2, 2), (6, 3, 3)])
def test_admissible_sets_are_the_active_sets(m, n, seed):
    L = random_layer(m, n, seed)
    modified, bruna = reference.admissible_sets(L)
    for J, x in modified.items():  # every witness has active set J
        assert tuple(np.flatnonzero(L.active_set(x, tol=1e-9))) == J
    pts = np.vstack([rf.RealSpace(n).sample(2000, seed=seed) * 100.0,
                     reference.arrangement_face_points(L.frame, L.alpha)])  # fmt: skip
    seen = {tuple(np.flatnonzero(row)) for row in L.active_set(pts, tol=1e-9)}
    assert seen == set(modified)
    assert bruna <= set(modified)
    spans = all(L.frame.spans(list(J)) for J in modified)
    assert spans == bool(rf.is_rectifying(L, np.array(list(modified.values()))).all())


def test_bruna_misses_sets_when_hyperplanes_coincide():
    modified, bruna = reference.admissible_sets(rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0))
    assert len(modified) == 9 and len(bruna) == 4
    assert set(modified) - bruna == {(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3), (0, 1, 2, 3)}


def test_is_admissible_inputs_and_infeasible():
    F = rf.zoo.plus_minus_basis(2)
    # e1 and -e1 both active with alpha = 1: <x, e1> >= 1 and <x, -e1> >= 1 is infeasible
    assert reference.is_admissible(F, 1.0, [0, 2]) == (False, None)
    ok, x = reference.is_admissible(F.vectors.tolist(), np.zeros(4), np.array([True, True, False, False]))
    assert ok and x.shape == (2,) and np.all(x > 0)
    ok, x = reference.is_admissible(rf.ReLULayer(F, 0.0), 0.0, [])  # nothing active: impossible around 0
    assert not ok
    assert reference.is_admissible(F, -0.5, [])[0] is False
    assert reference.is_admissible(F, 0.5, [])[0] is True


def test_zero_bias_admissible_spans_is_injectivity():
    for seed in range(6):
        F = rf.zoo.random_sphere(5 + seed % 3, 2, seed=seed)
        modified, _ = reference.admissible_sets(rf.ReLULayer(F, 0.0))
        assert all(F.spans(list(J)) for J in modified) == rf.zero_bias_injective(F).injective


def test_arrangement_face_points_on_every_face():
    P = reference.arrangement_face_points(rf.zoo.standard_basis(2), [0.0, 0.0], eps=1e-3)
    assert P.shape == (9, 2)
    assert np.abs(P).max() <= 1e-3 + 1e-15
    signs = {tuple(np.sign(np.round(p, 12)).astype(int)) for p in P}
    assert signs == set(itertools.product([-1, 0, 1], repeat=2))


# ------------------------------------------------------------------ App. C1
@pytest.mark.parametrize(("m", "n"), [(9, 2), (15, 3)])
def test_algorithm_1_is_sampling_bias(m, n):
    F = rf.zoo.random_sphere(m, n, seed=SEED)
    X = rf.Ball(n).sample(3000, seed=SEED + 1)
    init = rf.polytope_bias(F, "boundary").values
    np.testing.assert_allclose(reference.algorithm_1(F, X, init),
                               rf.sampling_bias(F, X, init=init, progress=False).values, rtol=0, atol=1e-14)  # fmt: skip
    literal = reference.algorithm_1(F.vectors, X, np.full(m, np.inf))
    lib = rf.sampling_bias(F, X, init="none", progress=False).values
    np.testing.assert_allclose(literal, lib, rtol=0, atol=1e-14)
    assert np.array_equal(np.isinf(literal), np.isinf(lib))


def test_algorithm_1_scalar_and_unnormalized():
    F = rf.Frame(rf.zoo.random_sphere(8, 2, seed=1).vectors * np.arange(1, 9)[:, None])
    X = rf.Ball(2).sample(500, seed=2)
    np.testing.assert_allclose(reference.algorithm_1(F, X, np.inf),
                               rf.sampling_bias(F, X, init="none", progress=False).values, rtol=0, atol=1e-13)  # fmt: skip
    # a single sample as a 1-D vector
    assert reference.algorithm_1(F, X[0], 10.0).shape == (8,)


# ------------------------------------------------------------------ App. C2
def test_formula_i_is_polytope_bias_boundary():
    for F in [rf.zoo.random_sphere(12, 3, seed=SEED), rf.zoo.platonic("cube"), rf.zoo.regular_polygon(7)]:
        np.testing.assert_allclose(reference.formula_i(F), rf.polytope_bias(F, "boundary").values, atol=1e-12)
    F = rf.Frame(rf.zoo.random_sphere(10, 3, seed=4).vectors * np.linspace(0.5, 3.0, 10)[:, None])  # unnormalized
    np.testing.assert_allclose(reference.formula_i(F), rf.polytope_bias(F, "boundary").values, atol=1e-12)
    P = rf.inscribing_polytope(F)  # a polytope is accepted as well
    np.testing.assert_allclose(reference.formula_i(P), reference.formula_i(F))


def test_algorithm_2_is_smaller_than_formula_i():
    F = rf.zoo.random_sphere(12, 3, seed=SEED)
    alg2, fi = reference.algorithm_2(F), reference.formula_i(F)
    assert np.all(alg2 <= fi + 1e-12)
    assert np.any(alg2 < fi - 1e-6)
    # both are rectifying on the boundary of the polytope
    P = rf.inscribing_polytope(F)
    U = rf.Sphere(3).sample(5000, seed=1)
    jj = P.locate(U)
    Xb = U * (P.offsets[jj] / np.einsum("ij,ij->i", P.normals[jj], U))[:, None]
    for a in (alg2, fi):
        assert rf.is_rectifying(rf.ReLULayer(F, a), Xb).all()


def test_algorithm_2_equals_formula_i_on_simplicial_regular():
    F = rf.zoo.platonic("icosahedron")  # every facet a regular triangle: all pairs are neighbours
    np.testing.assert_allclose(reference.algorithm_2(F), reference.formula_i(F), atol=1e-12)


def test_algorithm_3_tetrahedron():
    F = rf.zoo.platonic("tetrahedron")
    literal = reference.algorithm_3(F)
    np.testing.assert_allclose(literal, rf.polytope_bias(F, rf.Sphere(3)).values, atol=1e-6)
    np.testing.assert_allclose(literal, -1 / np.sqrt(3), atol=1e-6)


def test_algorithm_3_random_and_nonnegative():
    F = rf.zoo.random_sphere(10, 3, seed=SEED)
    np.testing.assert_allclose(reference.algorithm_3(F), rf.polytope_bias(F, rf.Sphere(3)).values, atol=1e-6)
    F = rf.zoo.platonic("icosahedron")  # alpha_boundary >= 0: kept as it is, no program solved
    np.testing.assert_allclose(reference.algorithm_3(F), reference.formula_i(F))


# ------------------------------------------------------------------ App. C3
def test_algorithm_4_is_relu_dual():
    F = rf.zoo.random_sphere(14, 3, seed=SEED + 3)
    for J in ([3, 0, 11, 7], [5, 1, 2], np.arange(14), np.arange(14) % 2 == 0):
        np.testing.assert_allclose(reference.algorithm_4(F, J), rf.relu_dual(F, J), atol=1e-12)


def test_algorithm_5_is_reconstruct():
    F = rf.zoo.random_sphere(14, 3, seed=SEED + 3)
    L = rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(3)).values)
    X = rf.Ball(3).sample(300, seed=SEED + 4)
    Z = L(X)
    literal = reference.algorithm_5(F.vectors, L.alpha, Z)
    np.testing.assert_allclose(literal, X, atol=1e-10)
    np.testing.assert_allclose(rf.reconstruct(L, Z), literal, atol=1e-10)
    np.testing.assert_allclose(reference.algorithm_5(F, L.alpha, Z[0]), X[0], atol=1e-10)


# ------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: reference.is_admissible([[1.0, 0.0], [0.0, 1.0]], [0.0], [0]), DimensionMismatchError, "alpha"),
        (lambda: reference.is_admissible(rf.zoo.standard_basis(2), 0.0, [2]), InputError, "indices in"),
        (lambda: reference.is_admissible(rf.zoo.standard_basis(2), 0.0, [0.5]), InputError, "integer"),
        (lambda: reference.is_admissible(rf.zoo.standard_basis(2), 0.0, "01"), InputError, "J must"),
        (lambda: reference.is_admissible(rf.zoo.standard_basis(2), 0.0, [0], strict="yes"), InputError, "strict"),
        (lambda: reference.is_admissible([[1.0, 0.0]], 0.0, [0]), NotAFrameError, "at least 2 vectors"),
        (lambda: reference.is_admissible(rf.zoo.standard_basis(2), np.nan, [0]), InputError, "finite"),
        (lambda: reference.arrangement_face_points(rf.zoo.standard_basis(2), 0.0, eps=0.0), InputError, "eps"),
        (lambda: reference.arrangement_face_points(rf.zoo.random_sphere(60, 6, seed=0), 0.0), TooExpensiveError, "points"),
        (lambda: reference.admissible_sets(rf.zoo.standard_basis(2)), InputError, "ReLULayer"),
        (
            lambda: reference.admissible_sets(rf.ReLULayer(rf.zoo.random_sphere(17, 2, seed=0), 0.0)),
            TooExpensiveError,
            "max_m",
        ),
        (lambda: reference.admissible_sets(rf.ReLULayer(rf.zoo.standard_basis(2), 0.0), max_m=0), InputError, "max_m"),
        (lambda: reference.algorithm_1(rf.zoo.standard_basis(2), [[1.0, 2.0, 3.0]], 0.0), DimensionMismatchError, "X"),
        (lambda: reference.algorithm_1(rf.zoo.standard_basis(2), [[1.0, 2.0]], [0.0]), DimensionMismatchError, "alpha0"),
        (lambda: reference.algorithm_1(rf.zoo.standard_basis(2), [[1.0, 2.0]], -np.inf), InputError, "alpha0"),
        (lambda: reference.algorithm_1(rf.zoo.standard_basis(2), [[1.0, 2.0]], "none"), InputError, "alpha0"),
        (lambda: reference.algorithm_1(rf.zoo.standard_basis(2), [[1.0, 2.0]], None), InputError, "alpha0"),
        (lambda: reference.algorithm_2(rf.zoo.standard_basis(2)), DegenerateHullError, "at least"),
        (lambda: reference.formula_i([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), NotOmnidirectionalError, "omnidirectional"),
        (lambda: reference.algorithm_3([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), NotOmnidirectionalError, "complete"),
        (lambda: reference.algorithm_3(rf.zoo.mercedes_benz(), n_starts=0), InputError, "n_starts"),
        (lambda: reference.algorithm_4(rf.zoo.plus_minus_basis(2), [0, 2]), NotAFrameError, "span"),
        (lambda: reference.algorithm_4(rf.zoo.plus_minus_basis(2), []), NotAFrameError, "span"),
        (lambda: reference.algorithm_4(rf.zoo.plus_minus_basis(2), [0, 0, 1]), InputError, "repeat"),
        (lambda: reference.algorithm_5(rf.zoo.mercedes_benz(), 0.0, [1.0, 0.0]), DimensionMismatchError, "z"),
        (lambda: reference.algorithm_5(rf.zoo.mercedes_benz(), 0.0, [1.0, -1.0, 0.0]), InputError, "non-negative"),
        (lambda: reference.algorithm_5(rf.zoo.mercedes_benz(), 0.0, [1.0, 0.0, 0.0]), NotInjectiveError, "span"),
        (lambda: reference.algorithm_5(rf.zoo.mercedes_benz(), [0.0, 0.0], [1.0, 1.0, 0.0]), DimensionMismatchError, "alpha"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        reference.algorithm_4(rf.zoo.plus_minus_basis(2), [0, 2])
    with pytest.raises(ValueError):
        reference.admissible_sets(rf.ReLULayer(rf.zoo.random_sphere(17, 2, seed=0), 0.0))
