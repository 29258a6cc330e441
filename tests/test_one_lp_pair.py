"""The stage "interior point" (issue 30: "undetermined where one LP finds a pair").

At K's interior point (a data set's mean, a box's centre) the rows that are active there may have rank below the
dimension of K: then a direction of K that they do not see gives two points on either side with the same output.
Before the stage, a layer 60 -> 100 on the hull of 1000 points of affine dimension 40 stayed undetermined with
``method="fast"`` ("not rectifying at 4000 of 4000 points, but no colliding pair was verified"), and the same at
784 -> 1024 on a hull of dimension 578 with every method at a 10 s limit (37-41 s spent; the membership proofs of
sample points took 15 s each).
"""

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._layer_check import STAGES, InteriorPoint
from relu_frames_nb._util.pairs import collides


def _hull_layer(n=60, m=100, d=40, N=1000, active=30, seed=0):
    """Points in a ``d``-dimensional affine subspace of R^n; ``active`` rows on at their mean, the others off."""
    rng = np.random.default_rng(seed)
    B = np.linalg.qr(rng.standard_normal((n, d)))[0]
    X = rng.standard_normal(n) + rng.uniform(-1, 1, (N, d)) @ B.T
    W = rng.standard_normal((m, n))
    pre = W @ X.mean(axis=0)
    alpha = pre + 0.1 * np.abs(W @ B).sum(axis=1)  # off at the mean, on somewhere in the hull
    on = rng.choice(m, active, replace=False)
    alpha[on] = pre[on] - 1.0
    return W, alpha, X


def _assert_verified_pair(v, W, alpha, K):
    x, y = v.pair
    assert collides(W, alpha, x, y)
    assert K.contains_certified(x) and K.contains_certified(y)
    np.testing.assert_array_equal(v.output, np.maximum(W @ x - alpha, 0.0))


def test_the_stage_is_in_every_list_and_on_the_page():
    d = rf.describe_stages()
    for method in ("auto", "fast", "exact"):
        assert "interior point" in [r["name"] for r in d["methods"][method]]
        assert sum(isinstance(s, InteriorPoint) for s in STAGES[method]) == 1


def test_a_hull_where_the_fast_tests_stayed_undetermined():
    W, alpha, X = _hull_layer()
    K = rf.Hull(X)
    v = rf.check(rf.ReLULayer(W, alpha), K, method="fast", n_samples=200, time_limit=20)
    assert v.status == "not injective" and v.method == "interior point"
    _assert_verified_pair(v, W, alpha, K)
    info = v.details["interior_point"]
    assert info["rank"] == info["n_active"] == 30 and info["dim"] == 40
    # plain words, and the rank is said of this one point
    assert "the data's mean" in v.text and "rank 30 < 40" in v.text and "at the interior point" in v.text


@pytest.mark.parametrize("k", [-6, 0, 5])
def test_the_same_verdict_at_every_scale(k):
    W, alpha, X = _hull_layer(n=30, m=50, d=20, N=300, active=12, seed=1)
    c = 10.0**k
    K = rf.Hull(c * X)
    v = rf.check(rf.ReLULayer(W, c * alpha), K, method="exact", time_limit=120)
    assert v.status == "not injective" and v.method == "interior point"
    _assert_verified_pair(v, W, c * alpha, K)


def test_a_box_centre_with_rows_on_their_threshold():
    # box [0, 1]^6 (centre 1/2): rows 1-2 active, row 3 exactly on its threshold at the centre, the others off;
    # rank 3 < 6, and the pair must leave row 3 where it is (on its threshold) or the outputs would differ
    rng = np.random.default_rng(3)
    n = 6
    W = np.vstack([rng.standard_normal((3, n)), rng.standard_normal((9, n))])
    c = np.full(n, 0.5)
    alpha = W @ c
    alpha[:2] -= 1.0
    alpha[3:] += 0.3 * np.abs(W[3:]).sum(axis=1)  # off everywhere near the centre
    K = rf.Box(np.zeros(n), np.ones(n))
    v = rf.check(rf.ReLULayer(W, alpha), K, method="exact", time_limit=60)
    assert v.status == "not injective" and v.method == "interior point"
    _assert_verified_pair(v, W, alpha, K)
    x, y = v.pair
    assert W[2] @ x == pytest.approx(alpha[2], abs=1e-12) and W[2] @ y == pytest.approx(alpha[2], abs=1e-12)
    assert v.details["interior_point"] == {"n_active": 3, "rank": 3, "dim": 6}
    assert "its centre" in v.text


def test_the_stage_steps_aside_where_the_rows_span_or_never_span():
    # every row active at the centre of the ball and spanning: nothing to find there (the check proves injectivity)
    F = rf.zoo.mercedes_benz()
    v = rf.check(rf.ReLULayer(F, -0.6), rf.Ball(2), method="exact")
    assert v.status == "injective" and "interior point" in v.details["stages"]
    # weights of rank 1 < 2: the exact stage's own pair along their null space, as before
    W = np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0]])
    v = rf.check(rf.ReLULayer(W, np.array([1.0, 1.0, 1.0])), rf.Ball(2), method="exact")
    assert v.status == "not injective" and v.method == "exact (null space)"
