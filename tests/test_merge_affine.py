"""Layers that are affine on their input set fold into the next (issue 18: deeper layers on their true input set)."""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.network.check import merge_affine


def _stable_first_layer(rng, n, width):
    """A first layer whose units all keep their sign on the unit ball (biases far from the rows' reach)."""
    W = rng.standard_normal((width, n))
    r = np.linalg.norm(W, axis=1)
    sign = np.where(rng.random(width) < 0.75, 1.0, -1.0)
    sign[: n] = 1.0  # at least n active units
    return W, sign * (r + rng.uniform(0.1, 1.0, width))


@pytest.mark.parametrize("seed", range(8))
def test_the_folded_network_is_the_same_map_on_the_domain(seed):
    rng = np.random.default_rng(seed)
    n, w1, w2 = 2, int(rng.integers(3, 7)), int(rng.integers(2, 7))
    W1, b1 = _stable_first_layer(rng, n, w1)
    W2, b2 = rng.standard_normal((w2, w1)), rng.standard_normal(w2)
    net = rf.Network.from_weights([(W1, b1), (W2, b2)])
    merged, folded = merge_affine(net, rf.Ball(n))
    assert len(merged) == 1 and len(folded) == 1 and "always active" in folded[0]
    X = rf.Ball(n).sample(500, seed=seed)
    np.testing.assert_allclose(merged(X), net(X), rtol=1e-12, atol=1e-12)
    # on a larger ball some unit changes sign: nothing folds there
    big = rf.Ball(n, 100.0)
    assert merge_affine(net, big)[0] is net


@pytest.mark.parametrize("seed", range(8))
def test_a_narrow_layer_after_an_affine_one_is_decided_on_its_true_input_set(seed):
    # 2 -> w1 (affine on the disc, into a 2-D plane of R^w1) -> 2: the box around the image is w1-dimensional,
    # where 2 rows never span; folded, the question is a 2 -> 2 layer on the disc itself
    rng = np.random.default_rng(100 + seed)
    W1, b1 = _stable_first_layer(rng, 2, 5)
    W2 = rng.standard_normal((3, 5))
    b2 = rng.standard_normal(3) * 0.3
    net = rf.Network.from_weights([(W1, b1), (W2, b2)])
    v = rf.check(net, rf.Ball(2), time_limit=30)
    assert v.status != "undetermined" and v.details.get("folded")
    merged, _ = merge_affine(net, rf.Ball(2))
    single = rf.check(rf.ReLULayer.from_weights(*merged.weights[0]), rf.Ball(2), time_limit=30)
    assert v.status == single.status
    if v.pair is not None:
        x, y = v.pair
        assert np.linalg.norm(x) <= 1 and np.linalg.norm(y) <= 1 and np.linalg.norm(x - y) > 0
        assert np.max(np.abs(net(x) - net(y))) <= 1e-9 * (1 + np.max(np.abs(net(x))))
    else:  # injective: a dense grid of the disc shows no two far-apart points with the same output
        g = np.linspace(-1, 1, 61)
        X = np.array([(a, c) for a in g for c in g if a * a + c * c <= 1])
        Y = net(X)
        D_out = np.linalg.norm(Y[:, None] - Y[None], axis=2)
        D_in = np.linalg.norm(X[:, None] - X[None], axis=2)
        assert not np.any((D_out < 1e-12) & (D_in > 1e-6))
