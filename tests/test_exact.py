"""Tests of the exact stage of ``rf.check`` (``method="exact"``) and of its engine
(:func:`relu_frames_nb.exact.solve_exact`): brute force on small cases, known answers, properties of
certificates and pairs, special domains, output silencing, limits, bad input."""

from __future__ import annotations

import dataclasses
import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb._util.lp import min_norm_point, quiet
from relu_frames_nb._util.pairs import collides
from relu_frames_nb.domains.polyhedral import Box, Hull, Polytope
from relu_frames_nb.errors import DimensionMismatchError, InputError, NotAFrameError
from relu_frames_nb.exact import ExactResult, solve_exact
from relu_frames_nb.exact._milp import solve_count
from relu_frames_nb.exact._regions import PolyRegion
from relu_frames_nb.pipeline.normal import normalise

STATUSES = ("injective", "not injective", "undetermined")


# ---------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------


def unit_layer(n, m, alpha, seed):
    W = np.random.default_rng(seed).standard_normal((m, n))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    return rf.ReLULayer(W, alpha)


def exact(model, K, **kwargs):
    """The exact stage alone, through the front door."""
    return rf.check(model, K, method="exact", **kwargs)


def engine(L, K, *, time_limit=20, seed=0, **kwargs):
    """The engine on the normal form of ``(L, K)`` (unit-size rows and domain), and that normal form."""
    P = normalise(np.asarray(L.frame.vectors), np.asarray(L.alpha), K)
    res = solve_exact(P.W, P.alpha, P.K, budget=Budget(time_limit), rng=np.random.default_rng(seed), **kwargs)
    return res, P


def weights(L):
    return np.asarray(L.frame.vectors, dtype=float), np.asarray(L.alpha, dtype=float)


def assert_pair(W, alpha, K, pair):
    """The package's one pair check: distinct, colliding outputs, both points certainly in ``K``."""
    x, y = pair
    assert not np.array_equal(x, y)
    assert collides(W, alpha, x, y)
    assert bool(np.all(K.contains_certified(x))) and bool(np.all(K.contains_certified(y)))


def check_pair(v: rf.Verdict, L, K):
    """A "not injective" verdict's pair, checked in the caller's coordinates, and its output."""
    W, alpha = weights(L)
    assert_pair(W, alpha, K, v.pair)
    x, y = v.pair
    np.testing.assert_allclose(L(x), L(y), rtol=1e-12, atol=1e-12)
    assert v.output is not None
    np.testing.assert_allclose(v.output, L(x), rtol=1e-12, atol=1e-15)


def check_engine_pair(res: ExactResult, P, L, K):
    """An engine pair, checked in the normal form and (mapped back exactly) in the caller's coordinates."""
    assert_pair(P.W, P.alpha, P.K, res.pair)
    W, alpha = weights(L)
    assert_pair(W, alpha, K, tuple(P.to_user(p) for p in res.pair))


def non_spanning_fraction(L, X):
    act = L.active_set(X)
    n = L.n
    bad = 0
    for row in np.unique(act, axis=0):
        rows = L.frame.vectors[row]
        if rows.shape[0] < n or np.linalg.matrix_rank(rows) < n:
            bad += int(np.all(act == row, axis=1).sum())
    return bad / X.shape[0]


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


# ---------------------------------------------------------------------------------
# known answers
# ---------------------------------------------------------------------------------


def test_mercedes_benz_known_answers():
    F = rf.zoo.mercedes_benz()
    K = rf.Ball(2)
    L = rf.ReLULayer(F, -0.45)
    v = exact(L, K)
    assert v.status == "not injective" and v.method.startswith("exact")
    check_pair(v, L, K)
    assert v.details["exact"]["n_active"] == 1 and v.details["exact"]["rank"] == 1
    assert v.text.startswith("not injective")
    v = exact(rf.ReLULayer(F, -0.55), K)
    assert v.status == "injective" and "boundary" not in v.text and "threshold" not in v.text
    assert v.certificate is not None and v.certificate.h == 1


def test_mercedes_benz_at_the_threshold():
    """alpha = -1/2 is the maximal bias on the ball: injective, but only the polytope bias can say so.

    The exact engine certifies at the bias raised by its solver tolerance ``eps`` and finds no pair
    with a margin, so at the threshold it is honestly "undetermined" (it reports that the bias sits
    on the threshold; a certificate for the bias lowered by ``boundary_tol`` is a proof for a
    neighbouring problem only). The polytope bias (``alpha <= polytope bias`` on a convex domain,
    Thm PBE + Injectivity I) is exact at the threshold, so ``rf.check`` with the fast tests says
    "injective".
    """
    F = rf.zoo.mercedes_benz()
    K = rf.Ball(2)
    L = rf.ReLULayer(F, -0.5)
    for method in ("auto", "fast"):
        v = rf.check(L, K, method=method)
        assert v.status == "injective" and v.method == "polytope bias", v.text
        assert v.certificate is not None and v.certificate.kind == "polytope bias"
    v = exact(L, K)
    assert v.status == "undetermined" and "threshold" in v.text, v.text
    # the engine, both of its methods: on the threshold, with the boundary retry reported in the text
    for method in ("hyperplanes", "milp"):
        res, _ = engine(L, K, method=method)
        assert res.status == "undetermined" and res.method == method, res.text
        assert "threshold" in res.text and any("boundary case" in s for s in res.notes)
        # with the boundary retry off, still "undetermined", and nothing said about a threshold
        res, _ = engine(L, K, method=method, boundary_tol=0.0)
        assert res.status == "undetermined" and "threshold" not in res.text, res.text
    # just above the threshold: never "injective", whatever the method; the text names the threshold
    L = rf.ReLULayer(F, -0.5 + 1e-7)
    for method in ("auto", "exact"):
        v = rf.check(L, K, method=method)
        assert v.status == "undetermined" and "threshold" in v.text, v.text
    assert rf.check(L, K, method="fast").status == "undetermined"


def test_engine_eps_is_the_certificate_margin():
    """A certificate is solved at the bias raised by ``eps``: a raise past the threshold leaves no proof."""
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.55)
    res, _ = engine(L, rf.Ball(2), method="milp")
    assert res.status == "injective" and res.lower_bound > res.h == 1
    # normal form: rows x 1/2 and domain x 1/2, so the bias -0.55 becomes -0.1375 and the threshold -0.125
    res, _ = engine(L, rf.Ball(2), method="milp", eps=0.05, boundary_tol=0.0)
    assert res.status == "undetermined" and res.pair is None, res.text


def test_result_fields():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    v = exact(L, rf.Ball(2))
    assert isinstance(v, rf.Verdict)
    assert v.status in STATUSES and v.decided and v.exit_code == 0
    assert v.text.startswith(v.status)
    ex = v.details["exact"]
    assert ex["h"] == 1 and ex["h_method"].startswith("exact")
    assert v.certificate.h == 1 and v.certificate.h_method == ex["h_method"]
    assert v.certificate.lower_bound == v.lower_bound == ex["lower_bound"] > 1
    assert v.bounds == (ex["lower_bound"], ex["upper_bound"])
    assert v.pair is None and v.output is None
    assert v.seconds >= 0 and ex["solves"] >= 1
    assert v.domain == rf.Ball(2).describe()
    assert isinstance(v.notes, tuple)
    with pytest.raises(AttributeError):  # frozen
        v.status = "x"
    # the engine's own result
    res, P = engine(L, rf.Ball(2))
    assert isinstance(res, ExactResult) and res.status == "injective" and res.decided
    assert res.h == 1 and res.pair is None and res.n_solves >= 1 and res.domain == P.K
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.status = "x"


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
    expected = "not injective" if not_inj else "injective"
    # the MILP's optimum is the fewest active rows over the open cells (generic arrangement)
    norms = np.linalg.norm(W, axis=1)
    Phi, a = W / norms[:, None], alpha / norms
    K = Box(lo, hi)
    res = solve_count(Phi, a + 1e-9, PolyRegion.from_domain(K), time_limit=10)
    assert res.status in ("optimal", "trivial")
    assert res.lower == true_min == res.value
    L = rf.ReLULayer(W, alpha)
    # the front door
    v = exact(L, K, time_limit=20)
    assert v.status == expected, v.text
    if v.status == "not injective":
        check_pair(v, L, K)
    # the engine, each method
    for method in ("milp", "hyperplanes"):
        res, P = engine(L, K, method=method, seed=seed)
        assert res.status == expected, (method, res.text)
        if res.status == "not injective":
            check_engine_pair(res, P, L, K)
        elif method == "milp":
            assert res.lower_bound <= true_min


# ---------------------------------------------------------------------------------
# properties: certificates survive dense sampling, pairs collide
# ---------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
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
    v = exact(L, K, time_limit=20, seed=seed)
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
        v = exact(L, rf.Ball(2))
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
    v = exact(L, rf.Ball(6), time_limit=30)
    assert v.status == "injective" and v.lower_bound > v.details["exact"]["h"] == 5
    assert v.certificate.lower_bound > v.certificate.h == 5
    v = exact(L, Box(-1, 1, n=6), time_limit=30)
    assert v.decided
    L = unit_layer(6, 30, 0.1, 1)
    v = exact(L, rf.Ball(6), time_limit=30)
    assert v.status == "not injective"
    check_pair(v, L, rf.Ball(6))


def test_monotone_in_the_domain():
    """A proof on a superset is a proof; a pair in a subset is a pair."""
    L = unit_layer(4, 16, -0.3, 3)
    big = exact(L, Box(-1, 1, n=4))
    small = exact(L, rf.Ball(4))
    if big.status == "injective":
        assert small.status == "injective"
    if small.status == "not injective":
        assert big.status == "not injective"


def test_polytope_and_hull():
    L = unit_layer(3, 12, -0.2, 4)
    P = Polytope(np.vstack([np.eye(3), -np.eye(3), np.ones((1, 3))]), np.r_[np.ones(6), 1.5])
    v = exact(L, P)
    assert v.decided
    if v.status == "not injective":
        check_pair(v, L, P)
    X = np.random.default_rng(0).standard_normal((25, 3))
    H = Hull(X)
    v = exact(L, H)
    assert v.decided
    if v.status == "not injective":
        check_pair(v, L, H)


def test_hull_in_a_subspace_and_degenerate_box():
    rng = np.random.default_rng(5)
    L = unit_layer(4, 14, -0.25, 5)
    X = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 4))
    v = exact(L, Hull(X))
    assert v.decided and any("affine hull" in s for s in v.notes)
    if v.status == "not injective":
        check_pair(v, L, Hull(X))
    B = Box([-1, -1, 0.3, -1], [1, 1, 0.3, 1])
    v = exact(L, B)
    assert v.decided and any("fixes 1 coordinate" in s for s in v.notes)
    if v.status == "not injective":
        check_pair(v, L, B)
    point = Box([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4])
    v = exact(L, point)
    assert v.status == "injective" and v.method == "exact (single point)"


def test_rank_deficient_weights():
    """Weights that do not span are not a frame, but a layer: the same verdict alone and as a one-layer network."""
    rng = np.random.default_rng(1)
    W = np.hstack([rng.standard_normal((10, 3)), np.zeros((10, 1))])
    alpha = np.full(10, -0.3)
    K = rf.Ball(4)
    L = rf.ReLULayer(W, alpha)
    with pytest.raises(NotAFrameError):
        _ = L.frame
    alone = exact(L, K)
    assert alone.status == "not injective" and alone.method == "exact (null space)"
    assert_pair(W, alpha, K, alone.pair)
    v = exact(rf.Network.from_weights([(W, -alpha)]), K)
    assert v.status == "not injective" and v.method == "network"
    assert v.layers[0].method == "exact (null space)" and v.pair_layer == 1
    x, y = v.pair
    out = lambda z: np.maximum(W @ z + 0.3, 0)  # noqa: E731
    assert np.allclose(out(x), out(y)) and K.contains(x) and K.contains(y) and not np.allclose(x, y)
    assert_pair(W, alpha, K, v.pair)


def test_real_space():
    L = unit_layer(3, 10, -0.2, 2)
    v = exact(L, rf.RealSpace(3))
    assert v.decided
    if v.status == "not injective":
        x, y = v.pair
        assert np.allclose(L(x), L(y)) and not np.allclose(x, y)
        check_pair(v, L, rf.RealSpace(3))
    # zero bias: compare with the Tukey-depth test of the fast stage on R^n
    for seed in range(4):
        L0 = unit_layer(3, 9, 0.0, seed)
        v = exact(L0, rf.RealSpace(3))
        ref = rf.check(L0, rf.RealSpace(3), method="fast")
        if ref.status in ("injective", "not injective"):
            assert v.status == ref.status, (v.text, ref.text)
        # zero bias: the ball gives the same answer as R^n (active sets are scale invariant)
        assert exact(L0, rf.Ball(3)).status == v.status


def test_real_space_positive_bias_everywhere_inactive_region():
    # alpha > 0: the origin has no active row at all
    L = unit_layer(3, 10, 0.2, 2)
    v = exact(L, rf.RealSpace(3))
    assert v.status == "not injective"
    check_pair(v, L, rf.RealSpace(3))


def test_sphere_only_certificates():
    L = unit_layer(3, 20, -0.2, 1)
    v = exact(L, rf.Sphere(3))
    assert v.status in ("injective", "undetermined")
    # a positive bias: the exact stage builds a pair on the sphere itself (a reflection within the fibre)
    L = unit_layer(3, 8, 0.3, 1)
    v = exact(L, rf.Sphere(3), time_limit=5)
    assert v.status == "not injective"
    check_pair(v, L, rf.Sphere(3))


def test_samples_domain():
    L = unit_layer(3, 12, -0.1, 0)
    X = np.random.default_rng(0).standard_normal((50, 3))
    v = exact(L, X)
    assert v.method == "finite set" and v.status == "injective"
    assert any("locally invertible at" in s for s in v.notes)
    # two distinct points with the same output: all rows inactive at both
    L2 = rf.ReLULayer(rf.zoo.mercedes_benz(), 5.0)
    K2 = rf.Samples(np.array([[0.0, 0.0], [0.1, 0.0]]))
    v = exact(L2, K2)
    assert v.status == "not injective" and v.pair is not None
    check_pair(v, L2, K2)


def test_non_full_spark_frame_uses_hyperplanes():
    F = rf.zoo.plus_minus_basis(3)
    res, _ = engine(rf.ReLULayer(F, -0.2), rf.Ball(3), method="hyperplanes")
    assert res.h == 4 and res.status == "injective" and res.method == "hyperplanes"
    # through the front door the antiparallel pairs decide it first (one row of each pair is always active)
    v = exact(rf.ReLULayer(F, -0.2), rf.Ball(3))
    assert v.status == "injective" and v.method == "exact (always active rows)"
    assert v.certificate.tolerances == {} and v.certificate.h is None
    v = exact(rf.ReLULayer(F, 0.1), rf.Ball(3))
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
    exact(L, rf.Ball(12), time_limit=3)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_time_limit_gives_undetermined_with_bounds():
    L = unit_layer(14, 140, -0.03, 7)  # (at -0.09 the search over removal sets proves it within the second)
    v = exact(L, rf.Ball(14), time_limit=1.0)
    assert v.status == "undetermined", v.text
    # (how closely the limit is kept is measured by benchmarks/bench_budget.py, not asserted here)
    assert v.upper_bound is not None
    assert v.text.startswith("undetermined") and "between" in v.text
    # a zero time limit is allowed: nothing can be decided
    v = exact(L, rf.Ball(14), time_limit=0)
    assert v.status == "undetermined" and v.pair is None and v.certificate is None


def test_progress_callable_and_bar(capsys):
    seen = []
    exact(unit_layer(4, 12, -0.2, 0), rf.Ball(4), progress=seen.append)
    assert seen and all(isinstance(s, dict) and {"done", "total", "unit", "desc"} <= set(s) for s in seen)
    assert all(s["unit"] == "s" and 0 <= s["done"] for s in seen)
    assert any("stage" in s for s in seen)
    # the exact stage reports the bounds it has reached (None until known)
    assert any("lower" in s and "upper" in s for s in seen)
    exact(unit_layer(4, 12, -0.2, 0), rf.Ball(4), progress=True)
    assert capsys.readouterr().out == ""  # the bar is on stderr


def test_progress_every_update_names_its_stage():
    seen = []
    exact(unit_layer(4, 12, -0.2, 0), rf.Ball(4), progress=seen.append)
    assert seen and all("stage" in s for s in seen), seen[:2]


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
        ({"time_limit": -1}, "time_limit must be non-negative"),
        ({"time_limit": "1"}, "time_limit must be a real number"),
        ({"method": "milp"}, "method must be"),
        ({"method": "hyperplanes"}, "method must be"),
        ({"seed": -1}, "seed"),
        ({"n_samples": 1.5}, "n_samples must be an integer"),
    ],
)
def test_bad_options(kwargs, match):
    kwargs = {"method": "exact", **kwargs}
    with pytest.raises(InputError, match=match):
        rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2), **kwargs)


@pytest.mark.parametrize("option", ["eps", "tol"])
def test_removed_options_are_refused(option):
    """``eps`` and the boundary ``tol`` of the old exact entry point are not options of the public check."""
    with pytest.raises(TypeError, match=option):
        rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2), method="exact", **{option: 0.0})


def test_bad_layer_and_domain():
    with pytest.raises(InputError, match="model must be a ReLULayer or a Network"):
        exact("W", rf.Ball(2))
    with pytest.raises(DimensionMismatchError, match="R\\^2"):
        exact(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(3))
    # a raw (W, alpha) pair is refused: its bias convention would have to be guessed
    for raw in [(np.eye(2), [1.0, 2.0]), (np.eye(2), [1.0, 2.0, 3.0])]:
        with pytest.raises(InputError, match=r"rf\.ReLULayer\(W, alpha\)") as err:
            exact(raw, rf.Ball(2))
        assert "rf.ReLULayer.from_weights" in str(err.value)
    # a bias of the wrong length, in either convention
    with pytest.raises(InputError, match="alpha"):
        rf.ReLULayer(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="bias"):
        rf.Network.from_weights([(np.eye(2), [1.0, 2.0, 3.0])])
    v = exact(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.domains.Exterior(2, 1.0))
    assert v.status == "undetermined" and "handles" in v.text


def test_samples_pairs_found_across_rounding_cells():
    """Two outputs that agree up to a rounding are a collision, even when they straddle a power of two."""
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    L = rf.ReLULayer(W, [0.0, 10.0, 10.0])  # only the first row can be on: output (x1, 0, 0)
    lo, hi = np.nextafter(0.5, 0.0), np.nextafter(0.5, 1.0)  # on either side of 1/2
    X = np.array([[hi, 0.0], [lo, 1.0], [2.0, 3.0]])
    v = exact(L, rf.Samples(X))
    assert v.status == "not injective" and v.method == "finite set"
    a, b = v.pair
    assert not np.array_equal(a, b) and np.allclose(L(a), L(b))
    check_pair(v, L, rf.Samples(X))
    # local invertibility: one active row never spans the plane
    assert any("locally invertible at 0 of 3 data points" in s for s in v.notes)
    assert v.details["local_invertibility"]["fraction"] == 0.0
    # outputs apart by far more than a rounding are distinct: the data set is injective
    X = np.array([[0.5 + 1e-9, 0.0], [0.5 - 1e-9, 1.0], [2.0, 3.0]])
    v = exact(L, rf.Samples(X))
    assert v.status == "injective" and v.pair is None


def test_to_dict_is_json():
    import json

    v = exact(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    d = json.loads(json.dumps(v.to_dict(), allow_nan=False))
    assert d["status"] == "not injective" and len(d["pair"]) == 2 and d["text"] == v.text
    assert d["exit_code"] == 1 and d["details"]["exact"]["status"] == "not injective"


def test_near_zero_negative_bias_uses_the_zero_bias_certificate():
    L = unit_layer(4, 30, -0.01, 2)
    K = rf.Ball(4)
    v = exact(L, K)
    # the zero-bias question, by the half-space depth (or the MILP on the faces of the cube)
    assert v.status == "injective" and "at zero bias" in v.text and v.method in ("exact (depth)", "exact (zero bias)")
    assert v.lower_bound == v.details["exact"]["h"] + 1
    assert non_spanning_fraction(L, K.sample(20000, seed=0)) == 0.0
    # a positive bias is not covered by the zero-bias certificate
    v = exact(L.with_bias(0.01), K)
    assert v.status == "not injective"
    check_pair(v, L.with_bias(0.01), K)


def test_large_models_are_solved_in_a_child_that_is_killed_at_the_limit(monkeypatch):

    from relu_frames_nb.exact import _milp

    # the child process gives the same answers as the solver in this process (the MILP forced)
    K = Box(-1.0, 1.0, n=2)
    # (the box lies in the ball of radius sqrt 2, where every bias below -sqrt(2)/2 is injective)
    for alpha, expected in ((-0.45, "not injective"), (-0.75, "injective")):
        L = rf.ReLULayer(rf.zoo.mercedes_benz(), alpha)
        direct, _ = engine(L, K, method="milp")
        monkeypatch.setattr(_milp, "SUBPROCESS_BINARIES", 0)
        child, _ = engine(L, K, method="milp")
        monkeypatch.undo()
        assert child.status == direct.status == expected, (child.text, direct.text)
        assert child.lower_bound == direct.lower_bound
        if expected == "injective":
            assert child.n_solves >= 1 and child.method == "milp"
    # a 20000 x 3 layer: HiGHS alone overran its limit by minutes on such models
    rng = np.random.default_rng(0)
    big = rf.ReLULayer.from_weights(rng.standard_normal((20000, 3)), rng.normal(-0.05, 0.05, 20000))
    v = exact(big, rf.Ball(3), time_limit=3)  # its wall time against the limit: benchmarks/bench_budget.py
    assert v.status in STATUSES


def test_a_zero_bias_cover_whose_candidate_is_no_point_of_k_is_passed_over():
    # at zero bias the direction (-1, 0) keeps only one row active (not injective on R^2), but at the bias
    # -0.05 every point of the box keeps one of rows 1, 2 and one of rows 3, 4 active (injective). The
    # zero-bias cover's MILP meets that direction as a candidate that is no point of K: it must be passed
    # over (it once crashed the engine), and the layer still decided
    from relu_frames_nb._util.budget import Budget
    from relu_frames_nb.exact import solve_exact

    W = np.array([[1, 0], [-1, 0], [0.02, 1], [0.02, -1]], dtype=float)
    res = solve_exact(W, np.full(4, -0.05), rf.Box(-1, 1, n=2), budget=Budget(30), depth=False)
    assert res.status == "injective"
    X = rf.Box(-1, 1, n=2).sample(20_000, seed=0)
    act = X @ W.T >= -0.05
    assert np.all(act[:, :2].any(axis=1) & act[:, 2:].any(axis=1))  # the claim, at sampled points
    assert rf.check(rf.ReLULayer(W, 0.0), rf.RealSpace(2)).status == "not injective"
