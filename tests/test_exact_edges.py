"""Edge cases of the exact stage: antiparallel rows (a crash of the round regions' cuts), layers on the threshold
that rows active everywhere decide exactly (:mod:`relu_frames_nb.exact._always`), witnesses on the sphere, and the
invariance of these verdicts under the exact rescalings of the problem."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb._util.pairs import collides
from relu_frames_nb.exact import solve_exact
from relu_frames_nb.exact._always import (
    METHOD,
    always_active_proof,
    always_active_rows,
    clearly_spans,
    covering_pairs,
)
from relu_frames_nb.exact._regions import RoundRegion
from relu_frames_nb.pipeline.normal import normalise

#: e1, -e1, e2, -e2
PM = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
#: each pair's thresholds meet: e1 is active where x1 >= -0.3, -e1 where x1 <= -0.3
TOUCHING = np.array([-0.3, 0.3, -0.3, 0.3])


def exact(model, K, **kwargs):
    return rf.check(model, K, method="exact", **kwargs)


def engine(W, alpha, K, **kwargs):
    """The engine alone on the normal form (as the front door calls it), e.g. with ``method="milp"``."""
    P = normalise(np.asarray(W, float), np.asarray(alpha, float), K)
    return solve_exact(P.W, P.alpha, P.K, budget=Budget(kwargs.pop("time_limit", 20)), rng=np.random.default_rng(0),
                       **kwargs)  # fmt: skip


def assert_pair(W, alpha, K, pair):
    x, y = (np.asarray(p, float) for p in pair)
    assert not np.array_equal(x, y)
    assert collides(np.asarray(W, float), np.asarray(alpha, float), x, y)
    assert K.contains_certified(x) and K.contains_certified(y)


def recover_pm(out, alpha):
    """``x`` from the output of the rows ``PM`` when each pair's thresholds leave no gap (the hand proof).

    Row ``2k`` gives ``x_k - alpha_2k`` where ``x_k >= alpha_2k``; row ``2k + 1`` gives ``-x_k - alpha_2k+1`` where
    ``x_k <= -alpha_2k+1``; with ``alpha_2k + alpha_2k+1 <= 0`` every ``x_k`` is in one of the two ranges.
    """
    x = np.empty(2)
    for k in range(2):
        x[k] = out[2 * k] + alpha[2 * k] if out[2 * k] > 0 else -(out[2 * k + 1] + alpha[2 * k + 1])
    return x


# ---------------------------------------------------------------------------------
# 1. antiparallel rows: the cut that was a number
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("K", [rf.Ball(2), rf.Shell(2, 0.5, 1.0)], ids=["ball", "shell"])
def test_antiparallel_rows_on_round_domains_are_injective(K):
    """Rows e1, -e1, e2, -e2 whose thresholds meet raised ValueError from ``RoundRegion.outer`` (a margin had
    been added as a cut). They are injective: each coordinate is read off one row of its pair (brute force below)."""
    L = rf.ReLULayer(PM, TOUCHING)
    X = K.sample(2000, seed=1)
    for x in X:  # the output determines x: the proof, checked at every sample
        np.testing.assert_allclose(recover_pm(L(x), TOUCHING), x, atol=1e-12)
    for method in ("exact", "auto"):
        v = rf.check(L, K, method=method)
        assert v.status == "injective", v.text
    v = exact(L, K)
    assert v.method == f"exact ({METHOD})" and v.certificate is not None and v.certificate.tolerances == {}


@pytest.mark.parametrize("K", [rf.Ball(2), rf.Shell(2, 0.5, 1.0)], ids=["ball", "shell"])
def test_antiparallel_rows_milp_path_does_not_crash(K):
    """The MILP loop itself (which the certificate above now settles before): no crash, and no false verdict.

    At the thresholds a certificate at the bias raised by eps cannot hold, so "undetermined" is its honest answer.
    """
    res = engine(PM, TOUCHING, K, method="milp")
    assert res.status in ("injective", "undetermined"), res.text
    assert res.pair is None


def test_antiparallel_network_reproducer():
    """A linear last layer is checked as the ReLU rows [W; -W] with biases [b; -b]: antiparallel pairs that touch."""
    net = rf.Network.from_weights([(np.r_[np.eye(3), -np.ones((1, 3))], 0.1 * np.ones(4))], last="linear")
    v = rf.check(net, rf.Ball(3))
    assert v.status == "injective", v.text  # an affine map x -> W x + b with W of rank 3


def test_round_region_rejects_a_cut_that_is_no_direction():
    region = RoundRegion(3, 1.0, np.eye(3))
    with pytest.raises(ValueError, match="non-zero finite direction"):
        region.add_cut(0.15)
    with pytest.raises(ValueError, match="non-zero finite direction"):
        region.add_cut(np.zeros(3))
    region.add_cut(np.array([2.0, 0.0, 0.0]))
    D = region.outer()
    assert D.A_ub.shape[1] == D.n_vars


# ---------------------------------------------------------------------------------
# 2. easy cases that were "undetermined"
# ---------------------------------------------------------------------------------

#: name -> (weights, bias, domain, status); every "injective" case is proved by hand in ``test_easy_cases``
CASES = {
    # x >= 0 on the box: both rows are active everywhere, the output is x itself
    "identity on [0, 1]^2": (np.eye(2), np.zeros(2), rf.Box([0, 0], [1, 1]), "injective"),
    # the same on the positive ball
    "e1, e2 on the positive ball": (np.eye(2), np.zeros(2), rf.PositiveBall(2), "injective"),
    # antiparallel pairs at zero bias: x_k >= 0 or x_k <= 0, one row of each pair is active
    "±e1, ±e2 at zero bias on [-1, 1]^2": (PM, np.zeros(4), rf.Box([-1, -1], [1, 1]), "injective"),
    # thresholds that meet at x_k = -0.5: e_k active for x_k >= -0.5, -e_k for x_k <= -0.5
    "±e1, ±e2 touching on [-1, 1]^2": (PM, np.array([-0.5, 0.5, -0.5, 0.5]), rf.Box([-1, -1], [1, 1]), "injective"),
    # e_k active where x_k >= -1: everywhere on the box (on its boundary exactly at the threshold); -e_k never
    "±e1, ±e2 at -1 and 1.5 on [-1, 1]^2": (PM, np.array([-1.0, 1.5, -1.0, 1.5]), rf.Box([-1, -1], [1, 1]), "injective"),
    # near phi_1 on the sphere only phi_1 is active (the others are at 120 degrees and cos 120° = -0.5 < -0.45):
    # x and its reflection across the line of phi_1 collide
    "Mercedes-Benz on the sphere at -0.45": (rf.zoo.mercedes_benz().vectors, np.full(3, -0.45), rf.Sphere(2), "not injective"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_easy_cases(name):
    W, alpha, K, status = CASES[name]
    L = rf.ReLULayer(W, alpha)
    v = exact(L, K)
    assert v.status == status, v.text
    if status == "injective":
        assert v.method == f"exact ({METHOD})", v.text
        assert v.certificate is not None and v.certificate.tolerances == {}
        # brute force: the active rows span at every sample point, and x is read off the output
        for x in K.sample(500, seed=2):
            pre = W @ x - alpha
            assert np.linalg.matrix_rank(W[pre >= 0]) == 2
        if W.shape[0] == 4:
            for x in K.sample(500, seed=3):
                np.testing.assert_allclose(recover_pm(L(x), alpha), x, atol=1e-12)
    else:
        assert_pair(W, alpha, K, v.pair)
    # method="auto" agrees (the fast tests or the exact stage)
    assert rf.check(L, K).status == status


def test_threshold_cases_were_undetermined_for_the_counting_certificates():
    """The counting stages alone (method="milp"/"hyperplanes") stay honest on the threshold: never a false verdict."""
    for name in ("identity on [0, 1]^2", "e1, e2 on the positive ball", "±e1, ±e2 at zero bias on [-1, 1]^2"):
        W, alpha, K, _ = CASES[name]
        for method in ("milp", "hyperplanes"):
            res = engine(W, alpha, K, method=method)
            assert res.status in ("injective", "undetermined"), (name, res.text)


def test_mercedes_benz_sphere_exact_matches_auto():
    """The exact stage builds the pair on the sphere itself (a reflection within the fibre), as the fast tests do."""
    W, alpha, K, _ = CASES["Mercedes-Benz on the sphere at -0.45"]
    L = rf.ReLULayer(W, alpha)
    auto, ex = rf.check(L, K, method="auto"), exact(L, K)
    assert auto.status == ex.status == "not injective"
    assert ex.method.startswith("exact")
    for v in (auto, ex):
        assert_pair(W, alpha, K, v.pair)
        x, y = v.pair
        np.testing.assert_allclose(L(x), L(y), rtol=1e-12, atol=1e-12)
    # every search of the engine finds it: the MILP's and the hyperplanes' cells reach the sphere too
    for method in ("milp", "hyperplanes"):
        res = engine(W, alpha, K, method=method)
        assert res.status == "not injective", res.text


def test_sphere_cell_point_lies_on_the_sphere_in_the_cell():
    """A cell that meets the sphere gives a point on it with the margin; one inside the ball gives none."""
    region = RoundRegion(2, 1.0, np.eye(2), s=1.0, sphere=True)
    Phi_Z = np.array([[0.0, 1.0], [-1.0, 0.0]])  # x2 < -0.2 and x1 > 0.1
    z, margin = region.cell_point(Phi_Z, np.array([-0.2, -0.1]))
    assert z is not None and margin > 0
    assert abs(np.linalg.norm(z) - 1.0) <= 1e-15
    assert np.all(Phi_Z @ z - np.array([-0.2, -0.1]) <= -margin)
    # |x1| < 0.1 and |x2| < 0.1 lies inside the ball: no point of the sphere
    Phi_Z = np.vstack([np.eye(2), -np.eye(2)])
    z, _ = region.cell_point(Phi_Z, np.full(4, 0.1))
    assert z is None


# ---------------------------------------------------------------------------------
# the certificate's parts: exact on the threshold, silent where it cannot prove
# ---------------------------------------------------------------------------------


def test_box_minimum_is_compared_exactly():
    """A bias on the threshold (or one float past it) is decided in rationals, not within a tolerance."""
    K = rf.Box([-1.0, 0.25], [1.0, 3.0])
    w = np.array([[0.1, 0.3]])
    true = -Fraction(0.1) + Fraction(0.3) * Fraction(0.25)  # the minimum over the box, at the corner (-1, 0.25)
    below = float(true)
    if Fraction(below) > true:
        below = float(np.nextafter(below, -np.inf))
    above = float(np.nextafter(below, np.inf))
    assert Fraction(below) <= true < Fraction(above)
    assert always_active_rows(w, np.array([below]), K)[0].tolist() == [0]
    assert always_active_rows(w, np.array([above]), K)[0].tolist() == []


def test_ball_minimum_is_compared_exactly():
    w = np.array([[0.75, 0.0], [0.6, 0.8]])
    K = rf.Ball(2, 2.0)
    got, _ = always_active_rows(w, np.array([-1.5, -2.0]), K)
    assert got.tolist() == [0]  # -1.5 is exactly -2 * 0.75; 0.6^2 + 0.8^2 != 1 in binary, so no claim there
    got, _ = always_active_rows(w, np.array([np.nextafter(-1.5, 0.0), -2.0 - 1e-15]), K)
    assert got.tolist() == [1]
    # the positive ball: only the negative part of a row counts
    got, _ = always_active_rows(np.array([[1.0, -0.5], [2.0, 3.0]]), np.array([-0.5, 0.0]), rf.PositiveBall(2))
    assert got.tolist() == [0, 1]
    got, _ = always_active_rows(np.array([[1.0, -0.5]]), np.array([np.nextafter(-0.5, 0.0)]), rf.PositiveBall(2))
    assert got.tolist() == []


def test_no_proof_where_the_domain_offers_none():
    P = rf.Polytope(np.vstack([np.eye(2), -np.eye(2)]), np.ones(4))
    assert always_active_rows(np.eye(2), -np.full(2, 5.0), P) is None
    assert always_active_rows(np.eye(2), -np.full(2, 5.0), rf.RealSpace(2)) is None


def test_covering_pairs_are_exact():
    W = np.array([[1.0, 2.0], [-3.0, -6.0], [0.0, 1.0], [0.0, -1.0], [1.0, 2.0 + 2e-16 * 8]])
    assert covering_pairs(W, np.array([0.5, -1.5, 0.0, 0.0, 0.0])).tolist() == [[0, 1], [2, 3]]
    # one step past the meeting point: a gap between the thresholds
    assert covering_pairs(W, np.array([0.5, np.nextafter(-1.5, 0.0), 0.0, 0.0, 0.0])).tolist() == [[2, 3]]
    # nearly antiparallel (row 4 against row 1) is not antiparallel
    assert [1, 4] not in covering_pairs(W, np.zeros(5)).tolist()


def test_spanning_needs_a_clear_gap():
    assert clearly_spans(np.eye(2), 2)
    assert not clearly_spans(np.array([[1.0, 0.0], [1.0, 1e-9]]), 2)
    assert not clearly_spans(np.array([[1.0, 0.0], [0.0, 0.0]]), 2)


def test_rows_that_do_not_span_prove_nothing():
    # e1 is active on all of [0, 1]^2; e2 - e1 is not: no proof, and the verdict comes from elsewhere
    W = np.array([[1.0, 0.0], [-1.0, 1.0]])
    assert always_active_proof(W, np.zeros(2), rf.Box([0, 0], [1, 1])) is None
    v = exact(rf.ReLULayer(W, np.zeros(2)), rf.Box([0, 0], [1, 1]))
    assert v.method != f"exact ({METHOD})"


def test_degenerate_box_spans_in_its_own_coordinates():
    # the box fixes x2 = 0.5: e1 alone spans its directions; e1 is active on it (x1 >= 0)
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    K = rf.Box([0.0, 0.5], [1.0, 0.5])
    v = exact(rf.ReLULayer(W, np.array([0.0, 1.0, 5.0])), K)
    assert v.status == "injective" and v.method == f"exact ({METHOD})", v.text


# ---------------------------------------------------------------------------------
# 3. the verdicts do not change under rescalings of the problem
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(-3, 4))
@pytest.mark.parametrize("name", sorted(CASES))
def test_verdicts_survive_rescaling(name, k):
    """Bias and domain scaled together by 10^k (x -> 10^k x), and a row with its bias scaled by 10^k (the first row by
    10^k, the last by 10^-k): the same problem, so the same verdict, by the same method."""
    W, alpha, K, status = CASES[name]
    c = 10.0**k
    base = exact(rf.ReLULayer(W, alpha), K)
    v = exact(rf.ReLULayer(W, alpha * c), K.scaled(c))
    assert v.status == status == base.status, (c, v.text)
    scale = np.ones(W.shape[0])
    scale[0], scale[-1] = c, 1.0 / c
    W2, a2 = W * scale[:, None], alpha * scale
    v2 = exact(rf.ReLULayer(W2, a2), K)
    assert v2.status == status, (c, v2.text)
    if status == "injective":
        assert v.method == v2.method == base.method == f"exact ({METHOD})"
    else:
        assert_pair(W, alpha * c, K.scaled(c), v.pair)
        assert_pair(W2, a2, K, v2.pair)
