"""The front door rf.check: one Verdict for layers and networks, proofs at every scale, no guessed convention."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb._util.pairs import collides
from relu_frames_nb.errors import InputError
from relu_frames_nb.exact import solve_exact

SQ3 = np.sqrt(3.0)


def _norm(v):
    s = np.max(np.abs(v))
    return 0.0 if s == 0 else s * np.linalg.norm(v / s)


def pair_is_a_collision(W, alpha, K, v):
    """Independent of the library's pair check: both points in K, distinct, equal outputs to rounding."""
    x, y = v.pair
    assert K.contains_certified(x) and K.contains_certified(y)
    assert _norm(x - y) > 1e-6 * max(_norm(x), _norm(y))
    c = 2.0 ** -np.frexp(np.max(np.abs(np.r_[x, y])))[1]  # exact rescaling, so that tiny numbers do not underflow
    r = 2.0 ** -np.frexp(np.max(np.abs(np.c_[W, alpha]), axis=1))[1]
    Ws, a = W * r[:, None], alpha * r * c
    px, py = Ws @ (c * x) - a, Ws @ (c * y) - a
    size = np.abs(Ws) @ (np.abs(c * x) + np.abs(c * y)) + 2 * np.abs(a)
    assert np.all(np.abs(np.maximum(px, 0) - np.maximum(py, 0)) <= 1e-13 * W.shape[1] * size)
    return True


# ---------------------------------------------------------------------------------
# the verdict of one layer (the paper's tests, then the exact stage)
# ---------------------------------------------------------------------------------


def test_polytope_proof_needs_strict_inequality_off_convex_domains():
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Sphere(3)).values
    on_bound = rf.check(rf.ReLULayer(F, pbe), rf.Sphere(3), n_samples=500)
    below = rf.check(rf.ReLULayer(F, pbe - 1e-6), rf.Sphere(3), n_samples=500)
    assert below.status == "injective" and below.method == "polytope bias" and below.details["polytope_margin"] > 0
    assert below.certificate.kind == "polytope bias"
    # the sphere is not convex: alpha equal to the bound is no proof (Thm Injectivity I needs beta < alpha)
    assert on_bound.method != "polytope bias"
    ball = rf.check(rf.ReLULayer(F, rf.polytope_bias(F, rf.Ball(3)).values), rf.Ball(3), n_samples=500)
    assert ball.status == "injective" and ball.method == "polytope bias"


def test_collision_is_verified():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.4)
    v = rf.check(L, rf.Ball(2))
    assert v.status == "not injective" and v.method == "collision" and v.details["polytope_margin"] < 0
    assert pair_is_a_collision(L.frame.vectors, L.alpha, rf.Ball(2), v)
    np.testing.assert_array_equal(v.output, L(v.pair[0]))


def test_finite_sets_are_exact():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    pts = np.array([[0.5, SQ3 / 2], [-0.5, SQ3 / 2], [0.0, -1.0]])
    assert rf.check(L, rf.Samples(pts)).status == "not injective"
    v = rf.check(L, rf.Samples(pts[1:]))
    assert v.status == "injective" and v.method == "finite set" and v.certificate.kind == "finite set"
    assert rf.check(L, pts[1:]).status == "injective"  # an array is a data set


def test_tukey_depth_proves_injectivity_for_nonpositive_bias_on_Rn():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), -0.2)
    v = rf.check(L, rf.RealSpace(3), n_samples=500)
    assert v.status == "injective" and v.method == "Tukey depth" and v.certificate.domain == "R^3"


def test_what_the_paper_tests_leave_open_is_settled_at_the_interior_point():
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Ball(3)).values
    # a hair above the guarantee: sampling finds no failing point, and the paper's tests prove nothing
    L = rf.ReLULayer(F, pbe + 1e-7)
    v = rf.check(L, rf.Ball(3), n_samples=300, method="fast")
    assert v.details["points_failing"] == 0 and "polytope_margin" in v.details
    # the ball's bias is 0 here, so at x = 0 nothing is active: the stage "interior point" settles it (issue 30), in
    # the fast list after the paper's own tests, and in the others before the exact engine
    for method in ("fast", "auto", "exact"):
        v = rf.check(L, rf.Ball(3), n_samples=300, method=method)
        assert v.status == "not injective" and v.method == "interior point"
        assert pair_is_a_collision(L.frame.vectors, L.alpha, rf.Ball(3), v)
    # the exact engine alone settles it too
    ex = solve_exact(L.frame.vectors, L.alpha, rf.Ball(3), budget=Budget(60.0))
    assert ex.status == "not injective" and ex.pair is not None


def test_bad_arguments():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    with pytest.raises(InputError):
        rf.check(L, rf.Ball(3))
    with pytest.raises(InputError):
        rf.check(L, rf.Ball(2), n_samples=0)
    with pytest.raises(InputError, match="ReLULayer"):
        rf.check(rf.zoo.mercedes_benz(), rf.Ball(2))
    with pytest.raises(InputError, match="method"):
        rf.check(L, rf.Ball(2), method="quick")
    with pytest.raises(InputError, match="time_limit"):
        rf.check(L, rf.Ball(2), time_limit=-1)
    with pytest.raises(InputError, match="progress"):
        rf.check(L, rf.Ball(2), progress="yes")


def test_fuzz_polytope_keyword_and_max_candidates_are_validated():
    # fuzz round: check(L, K, polytope='x') raised AttributeError, max_candidates=-1 numpy's message
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45)
    with pytest.raises(InputError, match="polytope must be a BiasEstimate"):
        rf.check(L, rf.Ball(2), polytope="x")
    with pytest.raises(InputError, match="max_candidates"):
        rf.check(L, rf.Ball(2), max_candidates=-1)


def test_fuzz_time_limit_zero_is_one_answer_everywhere():
    # fuzz round: time_limit=0 was refused by two entry points and accepted by two
    L = rf.ReLULayer(rf.zoo.platonic("icosahedron"), 0.1)
    answers = {rf.check(L, rf.Ball(3), time_limit=0, method=m).status for m in ("auto", "fast", "exact")}
    assert answers == {"undetermined"}
    net = rf.Network.from_weights([(np.eye(2), np.zeros(2))])
    assert rf.check(net, rf.Ball(2), time_limit=0).status == "undetermined"
    # a finite set is compared directly, but even that stops at the deadline
    assert rf.check(L, rf.Ball(3).sample(20, seed=0), time_limit=0).status == "undetermined"


def test_verdicts_are_monotone_in_the_domain():
    # a zero-bias layer proven injective on R^2 (Tukey depth) is injective on every subset of R^2
    L = rf.ReLULayer(rf.zoo.regular_polygon(8), 0.0)
    on_space = rf.check(L, rf.RealSpace(2))
    assert on_space.status == "injective"
    for K in (rf.Ball(2), rf.Shell(2, 0.5, 1.0), rf.PositiveBall(2, 3.0)):
        v = rf.check(L, K)
        assert v.status == "injective", (K, v.text)


def test_verdict_reads_as_text_json_and_html():
    import json

    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    d = json.loads(json.dumps(v.to_dict()))
    assert d["status"] == "not injective" and d["exit_code"] == 1 and len(d["pair"]) == 2
    assert v.report().startswith("not injective")
    html = v._repr_html_()
    assert "not injective" in html and "<table>" in html


# ---------------------------------------------------------------------------------
# one front door: the old entry points are gone, no convention is guessed
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["decide", "exact_verdict", "check_network"])
def test_the_old_entry_points_are_gone(name):
    # no release had them: rf.check is the one door, for a layer and a network alike
    assert not hasattr(rf, name)
    assert name not in rf.__all__ and name not in dir(rf)
    with pytest.raises(AttributeError):
        getattr(rf, name)
    import relu_frames_nb.checking as checking

    assert not hasattr(checking, name) and name not in checking.__all__


def test_the_internal_network_check_stays():
    from relu_frames_nb.network import check_network

    assert callable(check_network) and check_network.__module__ == "relu_frames_nb.network.check"


RAW = (rf.zoo.mercedes_benz().vectors, 0.5 * np.ones(3))


@pytest.mark.parametrize(
    "call",
    [
        lambda: rf.check(RAW, rf.Ball(2)),
        lambda: rf.Network([RAW]),
        lambda: rf.local_invertibility(RAW, rf.Ball(2).sample(10, seed=0)),
    ],
)
def test_a_raw_pair_is_refused_with_both_conventions_named(call):
    with pytest.raises(InputError) as info:
        call()
    text = str(info.value)
    assert "rf.ReLULayer(W, alpha)" in text and "rf.ReLULayer.from_weights(W, b)" in text


def test_the_same_weights_get_the_same_answer_through_layer_and_network():
    # the case: read as the paper's alpha by one door and as PyTorch's b by the other
    W, b = rf.zoo.mercedes_benz().vectors, 0.5 * np.ones(3)  # PyTorch b = 0.5: alpha = -0.5 (injective on the ball)
    layer = rf.check(rf.ReLULayer.from_weights(W, b), rf.Ball(2))
    net = rf.check(rf.Network.from_weights([(W, b)]), rf.Ball(2))
    assert layer.status == net.status == "injective"
    assert "PyTorch" in net.details["bias"] and "paper" in layer.details["bias"]
    # and the paper's alpha = 0.5 is a different layer: not injective, by both doors
    assert rf.check(rf.ReLULayer(W, 0.5), rf.Ball(2)).status == "not injective"
    assert rf.check(rf.Network.from_weights([(W, -b)]), rf.Ball(2)).status == "not injective"


def test_weights_with_zero_rows_make_a_layer_and_get_the_network_answer():
    # fuzz round: the auto check raised NotAFrameError on zero rows where the exact stage answered
    W = np.vstack([rf.zoo.mercedes_benz().vectors, np.zeros((1, 2))])
    L = rf.ReLULayer(W, -0.5)
    assert not L.is_frame and L.m == 4
    with pytest.raises(rf.NotAFrameError, match="not a frame.*rf.check"):
        _ = L.frame
    v = rf.check(rf.Network.from_weights([(W, np.full(4, 0.5))]), rf.Ball(2))
    assert v.status == rf.check(L, rf.Ball(2)).status == rf.check(rf.ReLULayer(W[:3], -0.5), rf.Ball(2)).status
    assert v.status == "injective"


@pytest.mark.parametrize("shape", [(3, 8), (12, 6)])
def test_any_trained_layer_is_a_layer(shape):
    # issue 18: fewer rows than inputs, or a rank deficiency (dead inputs), make a layer; what needs a frame says so
    rng = np.random.default_rng(1)
    W = rng.standard_normal(shape)
    if shape[0] > shape[1]:
        W[:, -2:] = 0.0  # two inputs no row reads: rank 4 < 6
    b = rng.standard_normal(shape[0])
    L = rf.ReLULayer.from_weights(W, b)
    assert not L.is_frame and "not a frame" in repr(L)
    assert np.array_equal(L.weights, W) and np.array_equal(L.alpha, -b)
    x = rng.standard_normal(shape[1])
    assert np.allclose(L(x), np.maximum(W @ x + b, 0.0))
    with pytest.raises(rf.NotAFrameError, match="not a frame"):
        rf.reconstruct(L, L(x))
    v = rf.check(L, rf.Box(-1, 1, n=shape[1]), time_limit=20)
    assert v.status == "not injective"
    x1, x2 = v.pair
    assert np.max(np.abs(L(x1) - L(x2))) <= 1e-9 * (1 + np.max(np.abs(L(x1))))
    assert np.linalg.norm(x1 - x2) > 0 and np.all(np.abs(x1) <= 1) and np.all(np.abs(x2) <= 1)
    # the same answer as the one-layer network of the same weights
    assert rf.check(rf.Network.from_weights([(W, b)]), rf.Box(-1, 1, n=shape[1]), time_limit=20).status == v.status
    with pytest.raises(rf.NotAFrameError):
        rf.PReLULayer(W, 0.0)


# ---------------------------------------------------------------------------------
# a proof at every scale
# ---------------------------------------------------------------------------------

W9 = np.random.default_rng(0).standard_normal((9, 3))
CASES = {
    # name: (weights, alpha, domain, expected status)
    "zero bias, ball": (W9, np.zeros(9), rf.Ball(3), "not injective"),
    "zero bias, box [1, 2]": (W9, np.zeros(9), rf.Box(1, 2, n=3), "injective"),
    "octagon, zero bias": (rf.zoo.regular_polygon(8).vectors, np.zeros(8), rf.Ball(2), "injective"),
    "triangle below its bias": (rf.zoo.mercedes_benz().vectors, -0.6 * np.ones(3), rf.Ball(2), "injective"),
    "triangle above its bias": (rf.zoo.mercedes_benz().vectors, -0.45 * np.ones(3), rf.Ball(2), "not injective"),
    "hull, biased": (W9, -0.3 * np.ones(9), rf.Hull(np.random.default_rng(1).standard_normal((30, 3))), None),
}
POWERS = (-200, -100, -30, -8, 0, 8, 30, 100, 150)


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict_is_invariant_when_the_domain_and_the_bias_are_scaled(name):
    W, alpha, K, expected = CASES[name]
    base = rf.check(rf.ReLULayer(W, alpha), K).status
    if expected is not None:
        assert base == expected
    for k in POWERS:
        c = 10.0**k
        v = rf.check(rf.ReLULayer(W, c * alpha), K.scaled(c))
        assert v.status == base, (k, v.text)
        if v.pair is not None:
            assert pair_is_a_collision(W, c * alpha, K.scaled(c), v)


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict_is_invariant_when_the_weights_and_the_bias_are_scaled(name):
    W, alpha, K, _ = CASES[name]
    base = rf.check(rf.ReLULayer(W, alpha), K).status
    for k in POWERS:
        c = 10.0**k
        v = rf.check(rf.ReLULayer(c * W, c * alpha), K)
        assert v.status == base, (k, v.text)
        if v.pair is not None:
            assert pair_is_a_collision(c * W, c * alpha, K, v)


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict_is_invariant_under_a_permutation_of_the_rows(name):
    W, alpha, K, _ = CASES[name]
    perm = np.random.default_rng(3).permutation(W.shape[0])
    assert rf.check(rf.ReLULayer(W[perm], alpha[perm]), K).status == rf.check(rf.ReLULayer(W, alpha), K).status


@pytest.mark.parametrize("spec", ["ball:1e-10", "ball:1", "box:1e-8,2e-8", "box:1e-300,2e-300", "box:1,2"])
def test_zero_bias_answers_do_not_depend_on_the_domain_scale(spec):
    # the nine wrong proofs: a zero-bias layer's answer cannot depend on the size of the domain
    L = rf.ReLULayer(W9, 0.0)
    K = rf.parse_domain(spec, 3)
    unit = rf.parse_domain("ball:1" if spec.startswith("ball") else "box:1,2", 3)
    assert rf.check(L, K).status == rf.check(L, unit).status


@pytest.mark.parametrize("c", [1e150, 1e-200])
def test_hulls_of_scaled_points(c):
    X = np.random.default_rng(5).standard_normal((20, 3))
    L = rf.ReLULayer(W9, 0.0)
    assert rf.check(L, rf.Hull(c * X)).status == rf.check(L, rf.Hull(X)).status


def test_tiny_first_layer_of_an_injective_network():
    # the issue: [I; -I] * 1e-200 then [I6; -I6] is injective, and was called "not injective, rank 0 < 3"
    I3, I6 = np.eye(3), np.eye(6)
    net = rf.Network.from_weights([(np.vstack([I3, -I3]) * 1e-200, np.zeros(6)), (np.vstack([I6, -I6]), np.zeros(12))])
    v = rf.check(net, rf.Ball(3))
    assert v.status == "injective", v.report()


def test_a_pair_on_a_tiny_layer_collides_in_its_active_rows():
    # the issue: a pair reported on a layer scaled by 1e-10 had outputs that differ in their active rows
    W = 1e-10 * rf.zoo.mercedes_benz().vectors
    v = rf.check(rf.ReLULayer(W, 0.0), rf.Ball(2))
    assert v.status == "not injective" and pair_is_a_collision(W, np.zeros(3), rf.Ball(2), v)
    x, y = v.pair
    active = W @ x > 0
    np.testing.assert_allclose((W @ x)[active], (W @ y)[active], rtol=1e-12, atol=0)


def test_a_bias_on_the_threshold_is_never_called_injective():
    # the Mercedes-Benz frame on the unit ball has maximal bias exactly -1/2: -1/2 + 1e-7 is not injective
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5 + 1e-7)
    for method in ("auto", "exact"):
        v = rf.check(L, rf.Ball(2), method=method)
        assert v.status != "injective", v.text
        if v.status == "undetermined":
            assert "threshold" in v.text
        else:
            assert pair_is_a_collision(L.frame.vectors, L.alpha, rf.Ball(2), v)


def _fraction_barycentric(V, y):
    """Barycentric coordinates of y in the simplex V by Gauss-Jordan on Fractions (independent of the library)."""
    d = V.shape[1]
    A = [[Fraction(float(V[j, i])) for j in range(d + 1)] + [Fraction(float(y[i]))] for i in range(d)]
    A.append([Fraction(1)] * (d + 2))
    for c in range(d + 1):
        p = next(r for r in range(c, d + 1) if A[r][c] != 0)
        A[c], A[p] = A[p], A[c]
        A[c] = [v / A[c][c] for v in A[c]]
        for r in range(d + 1):
            if r != c and A[r][c] != 0:
                f = A[r][c]
                A[r] = [a - f * b for a, b in zip(A[r], A[c])]
    return [row[-1] for row in A]


def test_pairs_in_a_hull_are_inside_it_exactly():
    # the issue: a pair on the hull of 50 points in R^12 (m = 36) had a point outside conv(X) by 4e-8
    from scipy.optimize import linprog

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 12))
    K = rf.Hull(X)
    found = 0
    for seed in range(4):
        W = np.random.default_rng(seed).standard_normal((36, 12))
        L = rf.ReLULayer(W, 0.4)
        v = rf.check(L, K, time_limit=30)
        if v.pair is None:
            continue
        found += 1
        assert pair_is_a_collision(W, L.alpha, K, v)
        for p in v.pair:  # exact membership: a simplex of data points holding p, solved in rationals here
            res = linprog(np.zeros(50), A_eq=np.vstack([X.T, np.ones((1, 50))]), b_eq=np.r_[p, 1.0], bounds=[(0, None)] * 50,
                          method="highs")  # fmt: skip
            support = np.argsort(-res.x)[:13]
            lam = _fraction_barycentric(X[support], p)
            assert all(v_ >= 0 for v_ in lam)
    assert found >= 1


# ---------------------------------------------------------------------------------
# certificates are checked in the caller's coordinates
# ---------------------------------------------------------------------------------


def test_a_wrong_certificate_is_caught_before_it_is_reported(monkeypatch):
    from relu_frames_nb import _layer_check
    from relu_frames_nb.pipeline import Evidence
    from relu_frames_nb.verdict import Certificate, Status

    def lying(stages, problem, ctx):
        return Evidence(Status.INJECTIVE, "polytope bias", "a bug", certificate=Certificate("polytope bias", "bug"))

    monkeypatch.setattr(_layer_check, "run_stages", lying)
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), rf.Ball(2))  # not injective: 0 has one active row
    assert v.status == "undetermined" and "internal inconsistency" in v.text


def test_a_pair_that_fails_in_the_callers_coordinates_is_not_reported(monkeypatch):
    from relu_frames_nb import _layer_check
    from relu_frames_nb.pipeline import Evidence
    from relu_frames_nb.verdict import Status

    def wrong_pair(stages, problem, ctx):
        return Evidence(Status.NOT_INJECTIVE, "collision", "a bug", pair=(np.array([0.1, 0.2]), np.array([0.3, -0.2])))

    monkeypatch.setattr(_layer_check, "run_stages", wrong_pair)
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    assert v.status == "undetermined" and v.pair is None and "did not pass" in v.text
    assert collides is not None


def test_dead_inputs_are_named():
    # issue 18: pixel-space models ignore the border pixels (weights ~1e-23); the verdict says which inputs
    rng = np.random.default_rng(4)
    W = rng.standard_normal((30, 8))
    W[:, [2, 5]] = 1e-23
    v = rf.check(rf.ReLULayer(W, -0.5), rf.Box(0, 1, n=8), time_limit=20)
    assert v.status == "not injective" and v.details["dead_inputs"] == {"unread": [2, 5]}
    assert any("2 of the 8 inputs are never read" in note and "2, 5" in note for note in v.notes)
    X = rng.random((40, 8))
    X[:, 3] = 0.0
    v = rf.check(rf.ReLULayer(W, -0.5), X, time_limit=20)
    assert v.details["dead_inputs"] == {"unread": [2, 5], "constant": [3]}
    # a layer that reads every input says nothing of the kind
    v = rf.check(rf.ReLULayer(rng.standard_normal((30, 8)), -0.5), rf.Box(0, 1, n=8), time_limit=20)
    assert "dead_inputs" not in v.details
