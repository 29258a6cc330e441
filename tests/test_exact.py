"""Tests of the exact verdict (relu_frames_nb.exact): brute force on small cases, known answers,
properties of certificates and witnesses, special domains, output silencing, limits, bad input."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import relu_frames_nb as rf
from relu_frames_nb.domains.polyhedral import Box, Hull, Polytope
from relu_frames_nb.errors import InputError
from relu_frames_nb.exact import PAIR_RTOL, ExactVerdict, exact_verdict
from relu_frames_nb._lp import min_norm_point, quiet
from relu_frames_nb.exact._milp import solve_count
from relu_frames_nb.exact._regions import PolyRegion

STATUSES = ("injective", "not injective", "undetermined")


# ---------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------


def unit_layer(n, m, alpha, seed):
    W = np.random.default_rng(seed).standard_normal((m, n))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    return rf.ReLULayer(W, alpha)


def realized_patterns(W, alpha, lo, hi):
    """Active sets of the open cells of the arrangement that meet the open box (one LP per sign pattern)."""
    m, n = W.shape
    out = []
    for S in itertools.product([False, True], repeat=m):
        S = np.array(S)
        sgn = np.where(S, -1.0, 1.0)
        A = np.vstack(
            [
                np.hstack([sgn[:, None] * W, np.ones((m, 1))]),
                np.hstack([np.eye(n), np.ones((n, 1))]),
                np.hstack([-np.eye(n), np.ones((n, 1))]),
            ]
        )
        b = np.r_[sgn * alpha, hi, -lo]
        res = linprog(np.r_[np.zeros(n), -1.0], A_ub=A, b_ub=b, bounds=[(None, None)] * n + [(None, 1.0)], method="highs")
        if res.status == 0 and res.x[-1] > 1e-7:
            out.append(S)
    return out


def check_pair(v: ExactVerdict, L, K):
    x, y = v.pair
    assert np.linalg.norm(x - y) > 0
    assert K.contains(x) and K.contains(y)
    out_x, out_y = L(x), L(y)
    assert np.max(np.abs(out_x - out_y)) <= PAIR_RTOL * max(1.0, np.max(np.abs(out_x)))
    assert np.array_equal(v.witness, x)


def non_spanning_fraction(L, X):
    act = L.active_set(X)
    n = L.n
    bad = 0
    for row in np.unique(act, axis=0):
        rows = L.frame.vectors[row]
        if rows.shape[0] < n or np.linalg.matrix_rank(rows) < n:
            bad += int(np.all(act == row, axis=1).sum())
    return bad / X.shape[0]


# ---------------------------------------------------------------------------------
# known answers
# ---------------------------------------------------------------------------------


def test_mercedes_benz_known_answers():
    F = rf.zoo.mercedes_benz()
    K = rf.Ball(2)
    v = exact_verdict(rf.ReLULayer(F, -0.45), K)
    assert v.status == "not injective"
    check_pair(v, rf.ReLULayer(F, -0.45), K)
    assert v.n_active == 1 and v.rank == 1
    assert v.text.startswith("not injective")
    v = exact_verdict(rf.ReLULayer(F, -0.55), K)
    assert v.status == "injective" and "boundary" not in v.text
    # exactly the maximal bias: injective, a boundary case (shown up to a stated tolerance)
    for method in ("hyperplanes", "milp"):
        v = exact_verdict(rf.ReLULayer(F, -0.5), K, method=method)
        assert v.status == "injective", v.text
        assert "boundary case" in v.text
    # with the boundary pass off, the honest answer at the threshold is "undetermined"
    v = exact_verdict(rf.ReLULayer(F, -0.5), K, tol=0.0)
    assert v.status == "undetermined"


def test_result_fields():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    v = exact_verdict(L, rf.Ball(2))
    assert isinstance(v, ExactVerdict)
    assert v.status in STATUSES and v.decided
    assert v.text.startswith(v.status)
    assert v.h == 1 and v.h_method.startswith("exact")
    assert v.pair is None and v.witness is None
    assert v.seconds >= 0 and v.n_solves >= 1
    assert v.domain == rf.Ball(2)
    assert isinstance(v.notes, tuple)
    with pytest.raises(AttributeError):
        v.status = "x"


# ---------------------------------------------------------------------------------
# brute force: cells of the arrangement in a box, n = 2, 3
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(16))
def test_against_cell_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = 2 + seed % 2
    m = int(rng.integers(n, 7))
    W = rng.standard_normal((m, n))
    alpha = rng.uniform(-1.0, 0.5, m)
    lo, hi = -np.ones(n), np.ones(n)
    pats = realized_patterns(W, alpha, lo, hi)
    true_min = min(int(S.sum()) for S in pats)
    not_inj = any(S.sum() == 0 or np.linalg.matrix_rank(W[S]) < n for S in pats)
    # the MILP's optimum is the fewest active rows over the open cells (generic arrangement)
    norms = np.linalg.norm(W, axis=1)
    Phi, a = W / norms[:, None], alpha / norms
    K = Box(lo, hi)
    res = solve_count(Phi, a + 1e-9, PolyRegion(K), time_limit=10)
    assert res.status in ("optimal", "trivial")
    assert res.lower == true_min == res.value
    L = rf.ReLULayer(W, alpha)
    for method in ("milp", "hyperplanes"):
        v = exact_verdict(L, K, method=method, time_limit=20)
        assert v.status == ("not injective" if not_inj else "injective"), (method, v.text)
        if v.status == "not injective":
            check_pair(v, L, K)
        elif method == "milp":
            assert v.lower_bound <= true_min


# ---------------------------------------------------------------------------------
# properties: certificates survive dense sampling, witnesses collide
# ---------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 4),
    extra=st.integers(0, 8),
    bias=st.floats(-0.7, 0.2),
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["ball", "box", "positive-ball", "shell"]),
)
def test_property_certificates_and_witnesses(n, extra, bias, seed, kind):
    m = n + extra
    L = unit_layer(n, m, bias, seed)
    K = {
        "ball": rf.Ball(n),
        "box": Box(-1, 1, n=n),
        "positive-ball": rf.PositiveBall(n),
        "shell": rf.Shell(n, 0.5, 1.0),
    }[kind]
    v = exact_verdict(L, K, time_limit=20, n_samples=300, seed=seed)
    assert v.status in STATUSES
    if v.status == "not injective":
        check_pair(v, L, K)
    elif v.status == "injective":
        X = K.sample(6000, seed=seed + 1)
        assert non_spanning_fraction(L, X) == 0.0, v.text
        if v.lower_bound is not None and v.upper_bound is not None:
            assert v.lower_bound <= v.upper_bound


def test_dense_grid_on_the_disc():
    """n = 2: a certificate must hold on a fine polar grid of the disc."""
    r = np.sqrt(np.linspace(0, 1, 300))
    t = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    X = (r[:, None, None] * np.stack([np.cos(t), np.sin(t)], axis=-1)[None]).reshape(-1, 2)
    for seed in range(6):
        L = unit_layer(2, 7, -0.3, seed)
        v = exact_verdict(L, rf.Ball(2))
        if v.status == "injective":
            assert non_spanning_fraction(L, X) == 0.0
        else:
            assert v.status == "not injective"
            check_pair(v, L, rf.Ball(2))


# ---------------------------------------------------------------------------------
# domains and special cases
# ---------------------------------------------------------------------------------


def test_random_layer_ball_and_box():
    L = unit_layer(6, 30, -0.2, 1)
    v = exact_verdict(L, rf.Ball(6), time_limit=30)
    assert v.status == "injective" and v.lower_bound > v.h == 5
    v = exact_verdict(L, Box(-1, 1, n=6), time_limit=30)
    assert v.decided
    L = unit_layer(6, 30, 0.1, 1)
    v = exact_verdict(L, rf.Ball(6), time_limit=30)
    assert v.status == "not injective"
    check_pair(v, L, rf.Ball(6))


def test_monotone_in_the_domain():
    """A proof on a superset is a proof; a witness in a subset is a witness."""
    L = unit_layer(4, 16, -0.3, 3)
    big = exact_verdict(L, Box(-1, 1, n=4))
    small = exact_verdict(L, rf.Ball(4))
    if big.status == "injective":
        assert small.status == "injective"
    if small.status == "not injective":
        assert big.status == "not injective"


def test_polytope_and_hull():
    L = unit_layer(3, 12, -0.2, 4)
    P = Polytope(np.vstack([np.eye(3), -np.eye(3), np.ones((1, 3))]), np.r_[np.ones(6), 1.5])
    v = exact_verdict(L, P)
    assert v.decided
    if v.status == "not injective":
        check_pair(v, L, P)
    X = np.random.default_rng(0).standard_normal((25, 3))
    H = Hull(X)
    v = exact_verdict(L, H)
    assert v.decided
    if v.status == "not injective":
        check_pair(v, L, H)


def test_hull_in_a_subspace_and_degenerate_box():
    rng = np.random.default_rng(5)
    L = unit_layer(4, 14, -0.25, 5)
    X = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 4))
    v = exact_verdict(L, Hull(X))
    assert v.decided and any("affine hull" in s for s in v.notes)
    if v.status == "not injective":
        check_pair(v, L, Hull(X))
    B = Box([-1, -1, 0.3, -1], [1, 1, 0.3, 1])
    v = exact_verdict(L, B)
    assert v.decided and any("fixes 1 coordinate" in s for s in v.notes)
    if v.status == "not injective":
        check_pair(v, L, B)
    point = Box([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    assert exact_verdict(L, point).status == "injective"


def test_rank_deficient_weights():
    rng = np.random.default_rng(1)
    W = np.hstack([rng.standard_normal((10, 3)), np.zeros((10, 1))])
    K = rf.Ball(4)
    v = exact_verdict((W, np.full(10, -0.3)), K)
    assert v.status == "not injective" and v.method == "null space"
    x, y = v.pair
    out = lambda z: np.maximum(W @ z + 0.3, 0)  # noqa: E731
    assert np.allclose(out(x), out(y)) and K.contains(x) and K.contains(y) and not np.allclose(x, y)


def test_real_space():
    L = unit_layer(3, 10, -0.2, 2)
    v = exact_verdict(L, rf.RealSpace(3))
    assert v.decided
    if v.status == "not injective":
        x, y = v.pair
        assert np.allclose(L(x), L(y)) and not np.allclose(x, y)
    # zero bias: compare with the Tukey-depth test of decide on R^n
    for seed in range(4):
        L0 = unit_layer(3, 9, 0.0, seed)
        v = exact_verdict(L0, rf.RealSpace(3))
        ref = rf.decide(L0, rf.RealSpace(3))
        if ref.status in ("injective", "not injective"):
            assert v.status == ref.status, (v.text, ref.text)
        # zero bias: the ball gives the same answer as R^n (active sets are scale invariant)
        assert exact_verdict(L0, rf.Ball(3)).status == v.status


def test_real_space_positive_bias_everywhere_inactive_region():
    # alpha > 0: the origin has no active row at all
    L = unit_layer(3, 10, 0.2, 2)
    v = exact_verdict(L, rf.RealSpace(3))
    assert v.status == "not injective"


def test_sphere_only_certificates():
    L = unit_layer(3, 20, -0.2, 1)
    v = exact_verdict(L, rf.Sphere(3))
    assert v.status in ("injective", "undetermined")
    L = unit_layer(3, 8, 0.3, 1)
    v = exact_verdict(L, rf.Sphere(3), time_limit=5)
    assert v.status == "undetermined" and v.pair is None


def test_samples_domain():
    L = unit_layer(3, 12, -0.1, 0)
    X = np.random.default_rng(0).standard_normal((50, 3))
    v = exact_verdict(L, X)
    assert v.method == "finite set" and v.status == "injective"
    assert any("local invertibility" in s for s in v.notes)
    # two distinct points with the same output: all rows inactive at both
    L2 = rf.ReLULayer(rf.zoo.mercedes_benz(), 5.0)
    v = exact_verdict(L2, rf.Samples(np.array([[0.0, 0.0], [0.1, 0.0]])))
    assert v.status == "not injective" and v.pair is not None


def test_non_full_spark_frame_uses_hyperplanes():
    F = rf.zoo.plus_minus_basis(3)
    v = exact_verdict(rf.ReLULayer(F, -0.2), rf.Ball(3))
    assert v.h == 4 and v.status == "injective"
    v = exact_verdict(rf.ReLULayer(F, 0.1), rf.Ball(3))
    assert v.status == "not injective"
    check_pair(v, rf.ReLULayer(F, 0.1), rf.Ball(3))


# ---------------------------------------------------------------------------------
# silence, time limit, progress
# ---------------------------------------------------------------------------------


def test_quiet_silences_file_descriptors(capfd):
    print("before", flush=True)
    with quiet():
        os.write(1, b"from C on fd 1\n")
        os.write(2, b"from C on fd 2\n")
    print("after", flush=True)
    out, err = capfd.readouterr()
    assert out == "before\nafter\n" and err == ""


def test_highs_prints_nothing(capfd):
    L = unit_layer(12, 60, -0.1, 1)  # this solve makes HiGHS print from C++ on this SciPy
    exact_verdict(L, rf.Ball(12), time_limit=3)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_time_limit_gives_undetermined_with_bounds():
    L = unit_layer(14, 140, -0.09, 7)
    v = exact_verdict(L, rf.Ball(14), time_limit=1.0, n_samples=200)
    assert v.status == "undetermined", v.text
    assert v.seconds < 5
    assert v.upper_bound is not None
    assert v.text.startswith("undetermined") and "between" in v.text


def test_progress_callable_and_bar(capsys):
    seen = []
    exact_verdict(unit_layer(4, 12, -0.2, 0), rf.Ball(4), progress=seen.append)
    assert seen and all(isinstance(s, dict) and "stage" in s and "seconds" in s for s in seen)
    exact_verdict(unit_layer(4, 12, -0.2, 0), rf.Ball(4), progress=True)
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------------------------
# helpers and bad input
# ---------------------------------------------------------------------------------


def test_min_norm_point_against_lp():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, k = int(rng.integers(1, 5)), int(rng.integers(1, 9))
        A, b = rng.standard_normal((k, n)), rng.standard_normal(k) * 2
        p = min_norm_point(A, b)
        res = linprog(np.zeros(n), A_ub=A, b_ub=b, bounds=[(None, None)] * n, method="highs")
        assert (p is not None) == (res.status == 0)
        if p is not None:
            assert np.all(A @ p <= b + 1e-8)
            # optimality: no feasible point is shorter (checked on a shrunken ball by LP in the direction -p)
            res = linprog(p, A_ub=A, b_ub=b, bounds=[(None, None)] * n, method="highs")
            assert res.status != 0 or res.fun >= p @ p - 1e-7


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"time_limit": 0}, "time_limit must be positive"),
        ({"time_limit": "1"}, "time_limit must be a real number"),
        ({"method": "fast"}, "method must be"),
        ({"eps": -1}, "eps must be non-negative"),
        ({"seed": -1}, "seed"),
        ({"n_samples": 1.5}, "n_samples must be an integer"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2), **kwargs)


def test_bad_layer_and_domain():
    with pytest.raises(InputError, match="layer must be a ReLULayer"):
        exact_verdict("W", rf.Ball(2))
    with pytest.raises(InputError, match="R\\^2"):
        exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(3))
    with pytest.raises(InputError, match="alpha"):
        exact_verdict((np.eye(2), [1.0, 2.0, 3.0]), rf.Ball(2))
    v = exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.domains.Exterior(2, 1.0))
    assert v.status == "undetermined" and "handles" in v.text


def test_samples_pairs_found_across_rounding_cells():
    """Two outputs within the tolerance are a collision even when they straddle a rounding boundary."""
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    L = rf.ReLULayer(W, [0.0, 10.0, 10.0])  # only the first row can be on: output (x1, 0, 0)
    X = np.array([[0.5 + 1e-13, 0.0], [0.5 - 1e-13, 1.0], [2.0, 3.0]])
    v = exact_verdict(L, rf.Samples(X))
    assert v.status == "not injective"
    a, b = v.pair
    assert not np.array_equal(a, b) and np.allclose(L(a), L(b))
    # local invertibility: one active row never spans the plane
    assert any("0.0% of the 3 points" in s for s in v.notes)


def test_to_dict_is_json():
    import json

    v = exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    d = json.loads(json.dumps(v.to_dict()))
    assert d["status"] == "not injective" and len(d["pair"]) == 2 and d["text"] == v.text


def test_near_zero_negative_bias_uses_the_zero_bias_certificate():
    L = unit_layer(4, 30, -0.01, 2)
    K = rf.Ball(4)
    v = exact_verdict(L, K)
    assert v.status == "injective" and "at zero bias" in v.text
    assert v.lower_bound == v.h + 1
    assert non_spanning_fraction(L, K.sample(20000, seed=0)) == 0.0
    # a positive bias is not covered by the zero-bias certificate
    v = exact_verdict(L.with_bias(0.01), K)
    assert v.status == "not injective"


def test_large_models_are_solved_in_a_child_that_is_killed_at_the_limit(monkeypatch):
    import time

    from relu_frames_nb.exact import _milp

    # the child process gives the same answers as the solver in this process
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45)
    direct = rf.exact_verdict(L, rf.Box(-1.0, 1.0, n=2), time_limit=20, method="milp")
    monkeypatch.setattr(_milp, "SUBPROCESS_BINARIES", 0)
    child = rf.exact_verdict(L, rf.Box(-1.0, 1.0, n=2), time_limit=20, method="milp")
    assert child.status == direct.status == "not injective"
    monkeypatch.undo()
    # a 20000 x 3 layer: HiGHS alone overran its limit by minutes on such models
    rng = np.random.default_rng(0)
    big = rf.ReLULayer.from_weights(rng.standard_normal((20000, 3)), rng.normal(-0.05, 0.05, 20000))
    t0 = time.perf_counter()
    v = rf.exact_verdict(big, rf.Ball(3), time_limit=3)
    assert time.perf_counter() - t0 < 3 + 3 + 20  # limit, kill grace, model building
    assert v.status in ("undetermined", "not injective", "injective")
