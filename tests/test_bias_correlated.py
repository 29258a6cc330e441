"""Tests of relu_frames_nb.paper.bias.correlated: most correlated bases, maximal constant bias,
sampling-based bias estimation (Thm "Sampling-based Bias Estimation", App. C1), and the exact
zero-bias injectivity test through the Tukey depth of the origin."""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relu_frames_nb as rf
from relu_frames_nb.errors import DimensionMismatchError, InputError, TooExpensiveError
from relu_frames_nb.paper.bias.correlated import (
    SPARK_CHECK_LIMIT,
    TukeyDepth,
    block_rows,
    max_constant_bias,
    most_correlated_basis,
    sampling_bias,
    tukey_depth_origin,
    zero_bias_injective,
)
from relu_frames_nb.paper.bias.estimate import ESTIMATE, GUARANTEED, ON_SAMPLES
from relu_frames_nb.paper.zero_bias import _depth_general

SQ3 = np.sqrt(3.0)


# ----------------------------------------------------------------------------- helpers
def brute_force_value(Phi: np.ndarray, x: np.ndarray) -> float:
    """max over bases J of min_{j in J} <x, phi_j>, by enumerating every n-subset."""
    m, n = Phi.shape
    g = Phi @ x
    best = -np.inf
    for J in itertools.combinations(range(m), n):
        if np.linalg.matrix_rank(Phi[list(J)], tol=1e-9) == n:
            best = max(best, g[list(J)].min())
    return best


def rank_ok(Phi: np.ndarray, X: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Per point: the active sub-frame {i: <x, phi_i> >= alpha_i} spans R^n.

    Rank test via the smallest eigenvalue of the active frame operator sum_{i active} phi_i phi_i^T
    of the normalized vectors (numpy only, batched).
    """
    U = Phi / np.linalg.norm(Phi, axis=1, keepdims=True)
    act = (X @ Phi.T >= alpha).astype(float)
    S = np.einsum("ki,ij,il->kjl", act, U, U)
    return np.linalg.eigvalsh(S)[:, 0] > 1e-9


def rectifying_everywhere(F: rf.Frame, X: np.ndarray, values: np.ndarray) -> bool:
    """Both our own rank test and the package's is_rectifying (irrelevant elements: never active)."""
    alpha = np.where(np.isfinite(values), values, 1e300)
    own = bool(rank_ok(F.vectors, X, alpha).all())
    from relu_frames_nb.paper.rectifying import is_rectifying

    pkg = bool(np.all(is_rectifying(rf.ReLULayer(F, alpha), X, full_spark=False)))
    assert own == pkg
    return own


REPEATED = rf.Frame([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [2.0, 0.0]])
NON_FULL_SPARK = {
    "example-a": rf.zoo.example_a,
    "plus-minus-3": lambda: rf.zoo.plus_minus_basis(3),
    "repeated-parallel": lambda: REPEATED,
    "icosahedron": lambda: rf.zoo.platonic("icosahedron"),
}


# =========================================================== most_correlated_basis
@pytest.mark.parametrize("name", sorted(NON_FULL_SPARK))
@pytest.mark.parametrize("full_spark", [None, False])
def test_mcb_matches_brute_force_on_non_full_spark_frames(name, full_spark):
    F = NON_FULL_SPARK[name]()
    X = np.random.default_rng(0).standard_normal((40 if F.m > 8 else 150, F.n))
    J = most_correlated_basis(F, X, full_spark=full_spark)
    G = X @ F.vectors.T
    got = np.take_along_axis(G, J, axis=1)
    assert np.all(np.diff(got, axis=1) <= 0), "sorted by decreasing coefficient"
    for x, j, g in zip(X, J, got):
        assert np.linalg.matrix_rank(F.vectors[j]) == F.n
        assert g.min() == pytest.approx(brute_force_value(F.vectors, x), abs=1e-12)


def test_mcb_greedy_fallback_skips_dependent_top_vectors():
    # x = (1, 0.1): the two largest coefficients belong to the parallel vectors 0, 4 (and 1)
    J, tie = most_correlated_basis(REPEATED, [1.0, 0.1], return_ties=True)
    assert J.tolist() == [4, 2]
    assert tie  # phi_0 (coefficient 1 >= 0.1) could replace phi_4: another maximizer
    # asserting full spark (wrongly) returns the dependent top-2
    assert sorted(most_correlated_basis(REPEATED, [1.0, 0.1], full_spark=True).tolist()) == [0, 4]


@st.composite
def small_frames(draw):
    n = draw(st.integers(1, 3))
    m = draw(st.integers(n, 6))
    # small integer entries: repeated, parallel and otherwise dependent vectors are common
    entries = draw(st.lists(st.integers(-2, 2), min_size=m * n, max_size=m * n))
    Phi = np.array(entries, dtype=float).reshape(m, n)
    Phi = Phi[np.linalg.norm(Phi, axis=1) > 0]
    if Phi.shape[0] < n or np.linalg.matrix_rank(Phi) < n:
        Phi = np.vstack([Phi, np.eye(n)])
    pts = draw(st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=1, max_size=5))
    return Phi, np.array(pts, dtype=float) + 0.01 * np.arange(1, n + 1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_frames())
def test_mcb_greedy_equals_brute_force_hypothesis(data):
    Phi, X = data
    F = rf.Frame(Phi)
    J = most_correlated_basis(F, X, full_spark=False)
    G = X @ Phi.T
    for x, j, g in zip(X, J, G):
        assert len(set(j.tolist())) == F.n
        assert np.linalg.matrix_rank(Phi[j], tol=1e-9) == F.n
        assert g[j].min() == pytest.approx(brute_force_value(Phi, x), abs=1e-9)


def test_mcb_full_spark_fast_path_and_shapes():
    F = rf.zoo.gaussian(12, 4, seed=2)
    X = np.random.default_rng(1).standard_normal((300, 4))
    J0 = most_correlated_basis(F, X)
    J1 = most_correlated_basis(F, X, full_spark=True)
    J2 = most_correlated_basis(F, X, full_spark=False)
    assert J0.shape == (300, 4) and J0.dtype.kind == "i"
    assert np.array_equal(J0, J1) and np.array_equal(J0, J2)
    top = np.argsort(-(X @ F.vectors.T), axis=1)[:, :4]
    assert np.array_equal(J0, top)
    single = most_correlated_basis(F, X[0])
    assert single.shape == (4,) and np.array_equal(single, J0[0])


def test_mcb_ties():
    J, ties = most_correlated_basis(rf.zoo.plus_minus_basis(2), [[1.0, 0.0], [1.0, 0.5]], return_ties=True)
    assert ties.tolist() == [True, False]
    assert J[1].tolist() == [0, 1]
    # Mercedes-Benz at phi_1: the two other coefficients are both -1/2
    _, tie = most_correlated_basis(rf.zoo.mercedes_benz(), [0.0, 1.0], return_ties=True)
    assert tie
    _, tie = most_correlated_basis(rf.zoo.mercedes_benz(), [0.1, 1.0], return_ties=True)
    assert not tie
    # a basis has a unique basis
    _, t = most_correlated_basis(rf.zoo.standard_basis(3), np.ones((2, 3)), return_ties=True)
    assert not t.any()
    # a tolerance turns near ties into ties
    _, tie = most_correlated_basis(rf.zoo.plus_minus_basis(2), [1.0, 1e-9], return_ties=True, tie_tol=1e-6)
    assert tie


@pytest.mark.parametrize(
    "X, kwargs, exc",
    [
        ([[np.nan, 0.0]], {}, InputError),
        ([[1.0, 0.0, 0.0]], {}, DimensionMismatchError),
        ([[[1.0, 0.0]]], {}, InputError),
        ([[1.0, 0.0]], {"tie_tol": -1.0}, InputError),
        ([[1.0, 0.0]], {"full_spark": "yes"}, InputError),
        ([[1.0, 0.0]], {"return_ties": 1}, InputError),
    ],
)
def test_mcb_bad_input(X, kwargs, exc):
    with pytest.raises(exc):
        most_correlated_basis(rf.zoo.mercedes_benz(), X, **kwargs)


def test_mcb_bad_frame():
    with pytest.raises(ValueError, match="frame"):
        most_correlated_basis([[1.0, 1.0], [2.0, 2.0]], [[1.0, 0.0]])


# ================================================================ max_constant_bias
def test_max_constant_bias_triangle_approaches_minus_half_from_above():
    F = rf.zoo.mercedes_benz()
    vals = [max_constant_bias(F, rf.Sphere(2), n_samples=N, seed=3) for N in (100, 1000, 10_000, 100_000)]
    assert all(v >= -0.5 - 1e-12 for v in vals)
    assert all(a >= b for a, b in zip(vals, vals[1:])), "more samples never raise the estimate (nested samples)"
    assert vals[-1] - (-0.5) < 1e-3
    ball = max_constant_bias(F, rf.Ball(2), n_samples=1_000_000, seed=3)
    assert -0.5 - 1e-12 <= ball < -0.5 + 1e-3


def test_max_constant_bias_exact_on_samples():
    F = rf.zoo.mercedes_benz()
    assert max_constant_bias(F, [[0.0, 1.0]]) == pytest.approx(-0.5, abs=1e-15)
    assert max_constant_bias(F, [[0.0, -1.0]]) == pytest.approx(0.5, abs=1e-15)  # coefficients -1, 1/2, 1/2
    X = np.random.default_rng(0).standard_normal((50, 2))
    G = X @ F.vectors.T
    expected = np.sort(G, axis=1)[:, -2].min()  # full spark: 2nd largest coefficient per point
    assert max_constant_bias(F, X) == expected
    with pytest.raises(InputError):
        max_constant_bias(F, rf.Ball(2), init="bogus")


# ==================================================================== sampling_bias
def test_triangle_ball_approaches_minus_half_from_above():
    F = rf.zoo.mercedes_benz()
    est = sampling_bias(F, rf.Ball(2), n_samples=4_000_000, init="none", seed=1)
    assert np.all(est.values >= -0.5 - 1e-12)
    assert np.all(est.values < -0.5 + 1e-3)
    assert est.method == "sampling" and est.guarantee == ON_SAMPLES and est.n_samples == 4_000_000
    assert est.correction == 0.0 and est.correction_kind == "none"
    # the paper's initialization with the frame vectors hits the exact value at once
    est = sampling_bias(F, rf.Ball(2), n_samples=10)
    np.testing.assert_allclose(est.values, -0.5, atol=1e-15)
    assert est.info["n_init"] == 3


def test_example_a_alpha_flat_tends_to_zero():
    # Example "a": alpha_flat_B = 0. Samples give an over-estimate, so it tends to 0 from above
    # (the infimum is approached near the origin, where every coefficient is small).
    F = rf.zoo.example_a()
    est = sampling_bias(F, rf.Ball(2), n_samples=200_000, init="none", seed=0)
    fin = est.values[np.isfinite(est.values)]
    assert fin.size == 5
    assert np.all(fin >= -1e-12) and np.all(fin < 1e-2)
    assert est.info["full_spark"] == "refuted"
    # with the origin in the data set, the value is exactly 0
    assert np.array_equal(sampling_bias(F, np.zeros((1, 2))).values, np.zeros(5))


def test_tetrahedron_sphere_tends_to_minus_one_over_sqrt3():
    F = rf.zoo.platonic("tetrahedron")
    target = -1.0 / SQ3  # the paper prints +1/sqrt(3)
    mins = []
    for N in (1000, 10_000, 100_000):
        est = sampling_bias(F, rf.Sphere(3), n_samples=N, init="none", seed=7)
        assert np.all(est.values >= target - 1e-12)
        mins.append(est.values)
    for a, b in zip(mins, mins[1:]):
        assert np.all(b <= a), "monotone non-increasing in N"
    assert np.max(mins[-1]) - target < 0.02


def test_history_is_monotone_and_ends_at_values():
    F = rf.zoo.platonic("tetrahedron")
    est = sampling_bias(F, rf.Sphere(3), n_samples=50_000, init="none", history=True, seed=1)
    H, steps = est.history, est.history_steps
    assert H.shape == (steps.size, 4) and steps[0] == 0 and steps[-1] == 50_000
    assert np.all(np.diff(steps) > 0)
    assert np.all(np.isinf(H[0]))
    assert np.all(H[1:] <= H[:-1])
    assert np.array_equal(H[-1], est.values)
    est2 = sampling_bias(F, rf.Sphere(3), n_samples=50_000, init="none", history=5000, seed=1)
    assert est2.history_steps.tolist() == list(range(0, 50_001, 5000))
    # snapshots at the same sample count agree between the two schedules
    for k, s in enumerate(est2.history_steps):
        if s in steps:
            assert np.array_equal(est2.history[k], H[np.flatnonzero(steps == s)[0]])


@pytest.mark.parametrize(
    "make",
    [
        lambda: rf.zoo.gaussian(12, 3, seed=0),
        lambda: rf.zoo.random_sphere(9, 4, seed=1),
        rf.zoo.example_a,
        lambda: REPEATED,
        lambda: rf.zoo.plus_minus_basis(3),
    ],
)
def test_theorem_every_sample_is_rectifying(make):
    F = make()
    X = np.random.default_rng(5).standard_normal((3000, F.n)) * 0.7
    est = sampling_bias(F, X)
    assert est.guarantee == GUARANTEED  # a finite data set is its own domain
    assert rectifying_everywhere(F, X, est.values)
    # each finite value is attained at the recorded sample. The value is an entry of a BLAS
    # matrix product, the check a single dot product: they may differ by their rounding errors,
    # each at most n eps ||x|| ||phi|| (not bit for bit: that failed for some BLAS kernels)
    for j in np.flatnonzero(np.isfinite(est.values))[:4]:
        k = est.info["argmin_index"][j]
        margin = 2 * F.n * np.finfo(float).eps * np.linalg.norm(X[k]) * np.linalg.norm(F.vectors[j])
        assert abs((X[k] @ F.vectors[j]) - est.values[j]) <= margin
        np.testing.assert_array_equal(est.argmin[j], X[k])


def test_theorem_with_guaranteed_covering_radius_holds_on_fresh_points():
    F = rf.zoo.gaussian(7, 2, seed=3)
    est = sampling_bias(F, rf.Ball(2), n_samples=3000, correction="guaranteed", seed=0)
    assert est.guarantee == GUARANTEED and est.correction_kind == "guaranteed"
    assert 0 < est.correction < 0.2
    raw = sampling_bias(F, rf.Ball(2), n_samples=3000, seed=0).values
    np.testing.assert_allclose(est.values, raw - est.correction * F.norms)
    fresh = rf.Ball(2).sample(100_000, seed=99)
    assert rectifying_everywhere(F, fresh, est.values)


@pytest.mark.parametrize(
    "m, n, K, chunk",
    [
        (60, 6, rf.Ball(6), 1000),
        (300, 4, rf.Ball(4), 777),  # m >= 256: wider counters
        (40, 3, rf.PositiveBall(3), 500),  # elements that stay irrelevant (+inf) for a while
        (12, 2, rf.Shell(2, 0.5, 3.0), 1),
    ],
)
def test_filter_matches_one_shot_computation_bitwise(m, n, K, chunk):
    F = rf.zoo.random_sphere(m, n, seed=4)
    X = K.sample(40_000 if chunk > 1 else 3000, seed=8)
    est = sampling_bias(F, X, chunk_size=chunk, tie_tol=0.0)
    G = X @ F.vectors.T
    t = np.partition(G, m - n, axis=1)[:, m - n]
    ref = np.where(G >= t[:, None], G, np.inf).min(axis=0)
    assert np.array_equal(est.values, ref)
    assert est.info["rows_kept"] < X.shape[0]  # the skipping filter did skip rows
    if isinstance(K, rf.PositiveBall):
        assert np.isinf(ref).any() and np.isfinite(ref).any()


def test_exact_jstar_path_equals_full_spark_path_on_a_full_spark_frame():
    F = rf.zoo.gaussian(15, 3, seed=6)
    a = sampling_bias(F, rf.Ball(3), n_samples=20_000, full_spark=True)
    b = sampling_bias(F, rf.Ball(3), n_samples=20_000, full_spark=False)
    assert np.array_equal(a.values, b.values)
    assert a.info["full_spark"] == "given-true" and b.info["full_spark"] == "given-false"
    c = sampling_bias(F, rf.Ball(3), n_samples=20_000)
    assert c.info["full_spark"] == "verified" and np.array_equal(a.values, c.values)


def test_large_frame_assumes_full_spark_and_says_so():
    F = rf.zoo.random_sphere(80, 20, seed=0)
    est = sampling_bias(F, rf.Ball(20), n_samples=2000)
    assert est.info["full_spark"] == "assumed"
    assert SPARK_CHECK_LIMIT < 10**18


@pytest.mark.parametrize("chunk_size", [1, 7, 1000, 65536 * 2])
def test_chunk_size_invariance(chunk_size):
    F = rf.zoo.gaussian(20, 4, seed=9)
    kw = dict(n_samples=150_000, seed=11, history=10_000, early_stop=None)
    ref = sampling_bias(F, rf.Ball(4), **kw)
    if chunk_size == 1:
        kw["n_samples"] = 3000
        kw["history"] = 500
        ref = sampling_bias(F, rf.Ball(4), **kw)
    est = sampling_bias(F, rf.Ball(4), chunk_size=chunk_size, **kw)
    assert np.array_equal(est.values, ref.values)
    assert np.array_equal(est.argmin, ref.argmin, equal_nan=True)
    assert np.array_equal(est.history, ref.history)
    assert np.array_equal(est.info["argmin_index"], ref.info["argmin_index"])


def test_max_memory_does_not_change_results():
    F = rf.zoo.gaussian(30, 5, seed=1)
    a = sampling_bias(F, rf.Shell(5, 0.5), n_samples=70_000, max_memory=2**14)
    b = sampling_bias(F, rf.Shell(5, 0.5), n_samples=70_000, max_memory=2**28)
    assert a.info["chunk_size"] < b.info["chunk_size"]
    assert np.array_equal(a.values, b.values)


def test_seed_reproducibility():
    F = rf.zoo.gaussian(10, 3, seed=2)
    a = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=123)
    b = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=123)
    c = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=124)
    d = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=np.random.SeedSequence(123))
    assert np.array_equal(a.values, b.values) and np.array_equal(a.values, d.values)
    assert not np.array_equal(a.values, c.values)
    e = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=None)
    f = sampling_bias(F, rf.Ball(3), n_samples=5000, seed=np.random.SeedSequence(e.info["seed_entropy"]))
    assert np.array_equal(e.values, f.values)


def test_samples_are_nested_across_n_samples():
    assert block_rows(3) == 65536
    F = rf.zoo.gaussian(10, 3, seed=2)
    small = sampling_bias(F, rf.Ball(3), n_samples=70_000, init="none")
    big = sampling_bias(F, rf.Ball(3), n_samples=140_000, init="none", history=70_000)
    assert big.history_steps.tolist() == [0, 70_000, 140_000]
    assert np.array_equal(big.history[1], small.values)  # the first 70000 samples are the same


def test_memory_stays_bounded_for_a_million_samples():
    F = rf.zoo.random_sphere(10, 3, seed=5)
    tracemalloc.start()
    try:
        est = sampling_bias(F, rf.Ball(3), n_samples=1_000_000, max_memory=16 * 2**20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert est.n_samples == 1_000_000
    assert peak < 16 * 2**20  # the samples alone would take 24 MiB


def test_float32_samples():
    F = rf.zoo.gaussian(25, 4, seed=3)
    X32 = rf.Ball(4).sample(20_000, seed=1).astype(np.float32)
    a = sampling_bias(F, X32)
    b = sampling_bias(F, X32.astype(np.float64))
    assert np.array_equal(a.values, b.values)
    assert a.domain.points.dtype == np.float64
    # the decision it reports is exact for the float32 points (taken as float64 numbers)
    assert rectifying_everywhere(F, X32.astype(np.float64), a.values)


def test_unnormalized_frame_scales():
    F = rf.zoo.random_sphere(8, 3, seed=0)
    w = np.array([1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 4.0, 0.25])
    Fw = rf.Frame(F.vectors * w[:, None])
    X = rf.Sphere(3).sample(5000, seed=2)
    a = sampling_bias(F, X, tie_tol=0.0)
    b = sampling_bias(Fw, X, tie_tol=0.0)
    # J* depends on the unnormalized coefficients, so values need not scale; but both are valid
    assert rectifying_everywhere(Fw, X, b.values)
    assert rectifying_everywhere(F, X, a.values)
    c = sampling_bias(Fw, rf.Ball(3), n_samples=2000, correction=0.1)
    d = sampling_bias(Fw, rf.Ball(3), n_samples=2000)
    np.testing.assert_allclose(c.values, d.values - 0.1 * Fw.norms)
    assert c.guarantee == GUARANTEED and c.correction_kind == "guaranteed"


def test_corrections_and_guarantees():
    F = rf.zoo.random_sphere(9, 3, seed=1)
    raw = sampling_bias(F, rf.Ball(3), n_samples=4000)
    paper = sampling_bias(F, rf.Ball(3), n_samples=4000, correction="paper")
    rho = rf.paper_correction(3, 4000)
    assert paper.correction == pytest.approx(rho) and paper.correction_kind == "heuristic"
    assert paper.guarantee == ESTIMATE
    np.testing.assert_allclose(paper.values, raw.values - rho)
    heur = sampling_bias(F, rf.Ball(3), n_samples=4000, correction="heuristic")
    assert heur.guarantee == ESTIMATE and heur.correction > 0
    cr = rf.CoveringRadius(0.3, "heuristic")
    assert sampling_bias(F, rf.Ball(3), n_samples=4000, correction=cr).guarantee == ESTIMATE
    cr = rf.CoveringRadius(0.3, "guaranteed")
    assert sampling_bias(F, rf.Ball(3), n_samples=4000, correction=cr).guarantee == GUARANTEED
    # a finite data set stays guaranteed whatever is subtracted
    X = rf.Ball(3).sample(100, seed=0)
    assert sampling_bias(F, X, correction="paper").guarantee == GUARANTEED
    g = sampling_bias(F, rf.Samples(X), correction="guaranteed")
    assert g.correction == 0.0 and g.guarantee == GUARANTEED
    with pytest.raises(InputError, match="bounded"):
        sampling_bias(F, rf.RealSpace(3), n_samples=100, correction="guaranteed")
    with pytest.raises(TooExpensiveError, match="max_memory"):
        sampling_bias(F, rf.Ball(3), n_samples=10**6, correction="guaranteed", max_memory=2**20)


def test_irrelevant_elements_stay_infinite():
    F = rf.zoo.plus_minus_basis(2)
    est = sampling_bias(F, rf.PositiveBall(2), n_samples=5000, init="none")
    assert np.isinf(est.values[2:]).all() and np.isfinite(est.values[:2]).all()
    assert est.irrelevant.tolist() == [False, False, True, True]
    assert np.isnan(est.argmin[2:]).all() and (est.info["argmin_index"][2:] == -1).all()
    assert est.values[:2].min() >= 0


def test_init_options():
    F = rf.zoo.mercedes_benz()
    none = sampling_bias(F, rf.Sphere(2), n_samples=500, init="none")
    frame = sampling_bias(F, rf.Sphere(2), n_samples=500, init="frame")
    np.testing.assert_allclose(frame.values, -0.5, atol=1e-15)
    assert np.all(none.values > -0.5)
    assert (frame.info["argmin_index"] == -1).all()  # attained at the initial points
    a0 = np.array([-0.2, -1.0, 5.0])
    arr = sampling_bias(F, rf.Sphere(2), n_samples=500, init=a0)
    np.testing.assert_array_equal(arr.values, np.minimum(a0, none.values))
    assert np.isnan(arr.argmin[1]).all()
    # "auto" keeps only frame vectors inside K: none of -e_i lies in the positive ball
    pm = rf.zoo.plus_minus_basis(2)
    auto = sampling_bias(pm, rf.PositiveBall(2), n_samples=10, init="auto")
    assert auto.info["n_init"] == 2
    # "auto" on a finite data set adds nothing
    X = rf.Sphere(2).sample(50, seed=1)
    assert sampling_bias(F, X).info["n_init"] == 0
    assert np.array_equal(sampling_bias(F, X).values, sampling_bias(F, X, init="none").values)


def test_early_stop():
    F = rf.zoo.gaussian(10, 2, seed=4)
    est = sampling_bias(F, rf.Ball(2), n_samples=1_000_000, early_stop=(1e-3, 20_000), init="none")
    assert est.converged is True and est.n_samples < 1_000_000
    same = sampling_bias(F, rf.Ball(2), n_samples=1_000_000, early_stop=(1e-3, 20_000), init="none", chunk_size=333)
    assert same.n_samples == est.n_samples and np.array_equal(same.values, est.values)
    # the values are those of a plain run over the same number of samples
    plain = sampling_bias(F, rf.Ball(2), n_samples=est.n_samples, init="none")
    assert np.array_equal(plain.values, est.values)
    never = sampling_bias(F, rf.Ball(2), n_samples=20_000, early_stop=(0.0, 10**7))
    assert never.converged is False and never.n_samples == 20_000
    assert sampling_bias(F, rf.Ball(2), n_samples=100).converged is None
    # an early stop on a finite data set leaves points unused: no longer a guarantee for the set
    X = rf.Ball(2).sample(200_000, seed=3)
    part = sampling_bias(F, X, early_stop=(1e-3, 20_000), init="none")
    assert part.converged and part.n_samples < 200_000 and part.guarantee == ON_SAMPLES
    assert sampling_bias(F, X, init="none").guarantee == GUARANTEED


def test_other_domains_run():
    F = rf.zoo.gaussian(14, 3, seed=0)
    for K in (rf.RealSpace(3), rf.Shell(3, 0.5, 2.0), rf.PositiveBall(3), rf.Sphere(3, 2.0)):
        est = sampling_bias(F, K, n_samples=3000, seed=1, init="none")
        fin = np.isfinite(est.values)
        assert fin.any() and np.all(est.info["argmin_index"][fin] >= 0)
        assert np.all(K.contains(est.argmin[fin]))  # the attaining samples lie in K
        attained = np.einsum("ij,ij->i", est.argmin[fin], F.vectors[fin])
        np.testing.assert_allclose(attained, est.values[fin], rtol=1e-14, atol=1e-15)


def test_progress_flag(capsys):
    F = rf.zoo.gaussian(10, 3, seed=0)
    a = sampling_bias(F, rf.Ball(3), n_samples=3000, progress=True)
    b = sampling_bias(F, rf.Ball(3), n_samples=3000, progress=False)
    assert np.array_equal(a.values, b.values)
    out = capsys.readouterr()
    assert out.out == ""  # never prints to stdout


@pytest.mark.parametrize(
    "args, kwargs, exc, match",
    [
        (([[np.nan, 0.0], [0.0, 1.0]],), {}, InputError, "K"),
        (([[1.0, 0.0, 0.0]],), {}, DimensionMismatchError, "K"),
        (([1.0, 0.0],), {}, InputError, "K"),
        ((rf.Ball(3),), {}, DimensionMismatchError, "K"),
        ((rf.Ball(2),), {"n_samples": -5}, InputError, "n_samples"),
        ((rf.Ball(2),), {"n_samples": 10.0}, InputError, "n_samples"),
        ((rf.Ball(2),), {"init": "frames"}, InputError, "init"),
        ((rf.Ball(2),), {"init": [1.0, 2.0]}, InputError, "init"),
        ((rf.Ball(2),), {"correction": "exact"}, InputError, "correction"),
        ((rf.Ball(2),), {"correction": -0.1}, InputError, "correction"),
        ((rf.Ball(2),), {"chunk_size": 0}, InputError, "chunk_size"),
        ((rf.Ball(2),), {"max_memory": 10}, InputError, "max_memory"),
        ((rf.Ball(2),), {"early_stop": 0.1}, InputError, "early_stop"),
        ((rf.Ball(2),), {"early_stop": (0.1, 0)}, InputError, "patience"),
        ((rf.Ball(2),), {"history": 0}, InputError, "history"),
        ((rf.Ball(2),), {"seed": "a"}, InputError, "seed"),
        ((rf.Ball(2),), {"seed": -1}, InputError, "seed"),
        ((rf.Ball(2),), {"progress": "yes"}, InputError, "progress"),
        ((rf.Ball(2),), {"full_spark": 1}, InputError, "full_spark"),
        ((rf.Ball(2),), {"tie_tol": -1}, InputError, "tie_tol"),
        ((None,), {}, InputError, "K"),
        (("abc",), {}, InputError, "K"),
    ],
)
def test_sampling_bias_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        sampling_bias(rf.zoo.mercedes_benz(), *args, **kwargs)
    assert issubclass(exc, ValueError)


def test_sampling_bias_bad_frame():
    with pytest.raises(ValueError):
        sampling_bias([[np.nan, 1.0], [1.0, 0.0]], rf.Ball(2))


# ==================================================================== Tukey depth
def dense_depth(Phi: np.ndarray, n_dirs: int, seed: int) -> int:
    X = rf.Sphere(Phi.shape[1]).sample(n_dirs, seed=seed)
    return int(np.count_nonzero(X @ Phi.T >= 0, axis=1).min())


@pytest.mark.parametrize("n, m", [(2, 3), (2, 5), (2, 7), (3, 4), (3, 6), (3, 8)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tukey_depth_matches_dense_directions(n, m, seed):
    F = rf.zoo.random_sphere(m, n, seed=seed)
    res = tukey_depth_origin(F)
    assert isinstance(res, TukeyDepth) and res.method == "exact" and res.full_spark
    dense = dense_depth(F.vectors, 400_000, seed)
    assert dense >= res.depth
    assert dense == res.depth  # small m: random directions hit every cell
    # the witness attains the depth exactly, and is a unit vector
    assert np.count_nonzero(F.vectors @ res.witness >= 0) == res.depth
    assert np.linalg.norm(res.witness) == pytest.approx(1.0)
    assert res.injective == (res.depth >= n) == bool(res)
    assert res.n_rays == 2 * len(list(itertools.combinations(range(m), n - 1)))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_plus_minus_basis_depth_n_injective(n):
    res = zero_bias_injective(rf.zoo.plus_minus_basis(n))
    assert res.depth == n and res.injective and not res.full_spark
    assert np.count_nonzero(rf.zoo.plus_minus_basis(n).vectors @ res.witness >= 0) == n


def test_basis_depth_zero():
    for n in (1, 2, 3, 4):
        res = tukey_depth_origin(rf.zoo.standard_basis(n))
        assert res.depth == 0 and not res.injective
        assert np.all(np.eye(n) @ res.witness < 0)


def test_random_frames_below_redundancy_two_never_injective():
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 5))
        m = int(rng.integers(n, 2 * n))
        F = rf.zoo.gaussian(m, n, seed=seed)
        res = zero_bias_injective(F)
        assert not res.injective and res.depth <= m // 2
        act = F.vectors @ res.witness >= 0
        assert np.linalg.matrix_rank(F.vectors[act]) < n if act.any() else True


def test_known_frames():
    assert zero_bias_injective(rf.zoo.regular_polygon(5)).depth == 2
    mb = zero_bias_injective(rf.zoo.mercedes_benz())
    assert mb.depth == 1 and not mb
    ico = tukey_depth_origin(rf.zoo.platonic("icosahedron"))  # antipodal pairs: not full spark
    assert ico.depth == 6 and ico.injective and not ico.full_spark
    a = tukey_depth_origin(rf.zoo.example_a())
    assert a.depth == 2 and a.injective


def test_not_full_spark_frames_need_the_rank_not_the_count():
    # e1 three times, e2, -e2: at x = (-1, 0.1) only e2 is active, which does not span
    Phi = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    res = tukey_depth_origin(Phi)
    assert res.depth == 1 and not res.injective and not res.full_spark
    act = Phi @ res.witness >= 0
    assert np.linalg.matrix_rank(Phi[act]) < 2
    # repeated vectors pointing both ways: depth 2 and injective
    Phi2 = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    res2 = tukey_depth_origin(Phi2)
    assert res2.injective and res2.depth == 2
    # e1, 2*e1 and e2, -e2 (m = 4 = 2n) with two parallel vectors: depth 1 at x = (-1, 0.1)
    res3 = tukey_depth_origin([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert res3.depth == 1 and not res3.injective


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_general_path_agrees_with_fast_path(seed):
    F = rf.zoo.random_sphere(7, 3, seed=seed)
    fast = tukey_depth_origin(F)
    depth, x, _ = _depth_general(F.vectors / F.norms[:, None], 1e-10, [10**6])
    assert depth == fast.depth
    assert np.count_nonzero(F.vectors @ x >= 0) == depth


def test_tukey_refuses_large_and_validates():
    with pytest.raises(TooExpensiveError, match="max_subsets"):
        tukey_depth_origin(rf.zoo.gaussian(30, 6, seed=0), max_subsets=1000)
    with pytest.raises(TooExpensiveError, match="max_general"):
        tukey_depth_origin(rf.zoo.plus_minus_basis(4), max_general=5)
    with pytest.raises(InputError, match="max_subsets"):
        zero_bias_injective(rf.zoo.mercedes_benz(), max_subsets=0)
    with pytest.raises(ValueError):
        tukey_depth_origin([[1.0, 0.0], [np.inf, 1.0]])


def test_honest_limits_sampling_accepts_zero_bias_that_is_not_injective():
    # A random Gaussian frame with redundancy 5 in R^6 (seed found by search): the cells where
    # fewer than n = 6 elements are active are so small that 10^5 uniform samples miss them, so
    # sampling "admits" alpha = 0, while the exact test finds depth 5 and a counterexample.
    # (Also checked outside the test suite in R^8, m = 40, seed 0: depth 6, sampling admits 0;
    # the exact test then takes minutes.)
    F = rf.zoo.gaussian(30, 6, seed=3)
    est = sampling_bias(F, rf.Ball(6), n_samples=100_000, seed=3)
    assert est.admits(0.0).all()  # sampling says alpha = 0 is fine: it is not
    exact = zero_bias_injective(F)
    assert exact.full_spark and not exact.injective and exact.depth == 5
    act = F.vectors @ exact.witness >= 0
    assert act.sum() == 5 and np.linalg.matrix_rank(F.vectors[act]) < 6  # a real counterexample
    # and the sampled bias is indeed violated there: the witness is not rectifying for alpha = 0
    assert not rank_ok(F.vectors, exact.witness[None, :], np.zeros(30))[0]


# ---------------------------------------------------------------------------------
# the domain argument is K, by position or by name; no other name for it
# ---------------------------------------------------------------------------------


def test_sampling_bias_takes_K_only():
    F = rf.zoo.gaussian(7, 3, seed=1)
    new = sampling_bias(F, K=rf.Ball(3), n_samples=2000)
    np.testing.assert_array_equal(sampling_bias(F, rf.Ball(3), n_samples=2000).values, new.values)
    with pytest.raises(TypeError, match="K_or_X"):
        sampling_bias(F, K_or_X=rf.Ball(3), n_samples=2000)


def test_max_constant_bias_takes_K_only():
    F = rf.zoo.gaussian(7, 3, seed=1)
    X = rf.Ball(3).sample(500, seed=3)
    assert max_constant_bias(F, K=X) == max_constant_bias(F, X)
    with pytest.raises(TypeError, match="K_or_X"):
        max_constant_bias(F, K_or_X=X)
