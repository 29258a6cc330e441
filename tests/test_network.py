"""Tests of relu_frames_nb.network: loaders, interval bounds, the combining rule, end to end."""

from __future__ import annotations

import json
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._layer_check import check_weights as real_check_weights
from relu_frames_nb._util.budget import Budget
from relu_frames_nb._util.pairs import collides, network_collision
from relu_frames_nb.domains import Ball, PositiveBall, Samples, Shell
from relu_frames_nb.domains.polyhedral import Box, Hull, Polytope
from relu_frames_nb.errors import DimensionMismatchError, InputError
from relu_frames_nb.network import Network, check_network, preactivation_bounds, relu_box
from relu_frames_nb.network import check as check_mod
from relu_frames_nb.network.image import ImageResult
from relu_frames_nb.pipeline.normal import normalise
from relu_frames_nb.verdict import Status, Verdict
from tests._torch_standins import Tensor


def _random_net(widths, *, bias=-0.5, seed=0):
    """(W, b) pairs in PyTorch's convention ReLU(W x + b)."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((m, n)) / np.sqrt(n), np.full(m, bias)) for n, m in zip(widths[:-1], widths[1:])]


def _alpha_layers(net):
    return [(np.asarray(W), -np.asarray(b)) for W, b in net.weights]


def _assert_network_pair(net, K, pair):
    """The package's one pair check for a network, and certain membership of both points in K."""
    x, y = pair
    assert network_collision(_alpha_layers(net), x, y) is not None
    assert bool(np.all(K.contains_certified(x))) and bool(np.all(K.contains_certified(y)))


# -- loaders -----------------------------------------------------------------------------------


def test_from_list_and_relu_layers_forward():
    layers = _random_net((3, 7, 9), bias=-0.1)
    net = Network.from_weights(layers)
    assert len(net) == 2 and net.n == 3 and net.widths == (3, 7, 9)
    assert repr(net) == "Network(3 -> 7 -> 9)"
    X = np.random.default_rng(1).standard_normal((10, 3))
    (W1, b1), (W2, b2) = layers
    expected = np.maximum(np.maximum(X @ W1.T + b1, 0) @ W2.T + b2, 0)
    np.testing.assert_allclose(net(X), expected)
    np.testing.assert_allclose(net(X[0]), expected[0])
    # the same network from ReLULayers (paper convention alpha = -b)
    net2 = Network([rf.ReLULayer.from_weights(W1, b1), rf.ReLULayer(W2, -b2)])
    np.testing.assert_allclose(net2(X), expected)
    assert [W.shape for W, _ in net] == [(7, 3), (9, 7)]
    assert isinstance(net[:1], Network) and len(net[:1]) == 1
    assert net.layer(0).m == 7
    # ReLULayers may be mixed into from_weights
    np.testing.assert_allclose(Network.from_weights([(W1, b1), rf.ReLULayer(W2, -b2)])(X), expected)
    # a raw (W, b) pair is refused by the constructor: the bias convention is never guessed
    with pytest.raises(InputError, match="ReLULayer") as err:
        Network(layers)
    assert "from_weights" in str(err.value)
    # b = None means zeros; weights are read-only
    assert np.all(Network.from_weights([(W1, None)]).weights[0][1] == 0)
    with pytest.raises(ValueError):
        net.weights[0][0][0, 0] = 1.0


def test_state_dict_with_several_linear_layers_and_other_entries():
    rng = np.random.default_rng(2)
    state = OrderedDict(
        [
            ("fc1.weight", rng.standard_normal((6, 4))),
            ("fc1.bias", rng.standard_normal(6)),
            ("fc2.weight", rng.standard_normal((8, 6))),  # no bias
            ("out.weight", rng.standard_normal((2, 8))),
            ("out.bias", np.zeros(2)),
        ]
    )
    net = Network.from_state_dict(state)
    assert net.widths == (4, 6, 8, 2)
    np.testing.assert_array_equal(net.weights[0][1], state["fc1.bias"])
    np.testing.assert_array_equal(net.weights[1][1], np.zeros(8))
    assert net[:-1].widths == (4, 6, 8)
    # a normalisation layer's entries are refused by name, not dropped (tests/test_state_dict_strict.py)
    bn = OrderedDict([*list(state.items())[:2], ("bn.weight", np.ones(6)), ("bn.running_mean", np.zeros(6)),
                      ("bn.num_batches_tracked", np.array(3)), *list(state.items())[2:]])  # fmt: skip
    with pytest.raises(InputError, match=r"state\['bn.running_mean'\] belongs to a normalisation layer"):
        Network.from_state_dict(bn)


def test_state_dict_tensors_and_errors():
    state = {"0.weight": Tensor(np.eye(3)), "0.bias": Tensor(np.zeros(3))}
    assert Network.from_state_dict(state).widths == (3, 3)
    with pytest.raises(InputError, match="convolution"):
        Network.from_state_dict({"conv.weight": np.zeros((2, 1, 3, 3))})
    with pytest.raises(InputError, match="linear layer"):
        Network.from_state_dict({"bn.weight": np.ones(3)})
    with pytest.raises(InputError, match="mapping"):
        Network.from_state_dict([np.eye(2)])
    with pytest.raises(DimensionMismatchError, match="layer 2 weight must have 4 columns"):
        Network.from_state_dict({"a.weight": np.ones((4, 2)), "b.weight": np.ones((3, 5))})


def test_shape_errors():
    with pytest.raises(DimensionMismatchError, match="layer 2 weight must have 3 columns"):
        Network.from_weights([(np.ones((3, 2)), None), (np.ones((4, 5)), None)])
    with pytest.raises(DimensionMismatchError, match="layer 2 weight must have 3 columns"):
        Network([rf.ReLULayer(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 0.0), rf.ReLULayer(np.eye(5), 0.0)])
    with pytest.raises(DimensionMismatchError, match="layer 1 bias must be a vector of length 3"):
        Network.from_weights([(np.ones((3, 2)), np.ones(2))])
    with pytest.raises(InputError, match="at least one layer"):
        Network([])
    with pytest.raises(InputError, match="at least one"):
        Network.from_weights([])
    with pytest.raises(InputError, match=r"\(W, b\) pair"):
        Network.from_weights([np.ones((3, 2))])
    with pytest.raises(InputError, match="layer 1 must be a ReLULayer"):
        Network([np.ones((3, 2))])
    with pytest.raises(InputError, match="2-D"):
        Network.from_weights([(np.ones(3), None)])
    with pytest.raises(InputError, match="finite"):
        Network.from_weights([(np.array([[np.nan, 1.0]]), None)])


def test_from_sklearn_like_object():
    rng = np.random.default_rng(3)
    model = SimpleNamespace(
        activation="relu",
        out_activation_="softmax",
        coefs_=[rng.standard_normal((4, 10)), rng.standard_normal((10, 12)), rng.standard_normal((12, 3))],
        intercepts_=[rng.standard_normal(10), rng.standard_normal(12), rng.standard_normal(3)],
    )
    net = Network.from_sklearn(model)
    assert net.widths == (4, 10, 12)
    np.testing.assert_array_equal(net.weights[0][0], model.coefs_[0].T)
    np.testing.assert_array_equal(net.weights[1][1], model.intercepts_[1])
    assert "softmax" in net.note and "not checked" in net.note
    assert Network.from_sklearn(model, include_output=True).widths == (4, 10, 12, 3)
    with pytest.raises(InputError, match="relu"):
        Network.from_sklearn(SimpleNamespace(**{**vars(model), "activation": "tanh"}))
    with pytest.raises(InputError, match="fit"):
        Network.from_sklearn(SimpleNamespace(activation="relu"))
    with pytest.raises(InputError, match="hidden layer"):
        Network.from_sklearn(SimpleNamespace(coefs_=[np.ones((2, 1))], intercepts_=[np.zeros(1)]))


def test_real_sklearn_mlp():
    sk = pytest.importorskip("sklearn.neural_network")
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(int)
    model = sk.MLPClassifier(hidden_layer_sizes=(8,), max_iter=50, random_state=0).fit(X, y)
    net = Network.from_sklearn(model)
    assert net.widths == (3, 8)
    np.testing.assert_allclose(net(X), np.maximum(X @ model.coefs_[0] + model.intercepts_[0], 0))


# -- interval bounds ---------------------------------------------------------------------------


DOMAINS = {
    "ball": lambda n: Ball(n, 1.5),
    "positive-ball": lambda n: PositiveBall(n, 2.0),
    "shell": lambda n: Shell(n, 0.5, 1.0),
    "samples": lambda n: Samples(np.random.default_rng(5).standard_normal((50, n))),
    "box": lambda n: Box(-np.arange(1, n + 1) / n, np.ones(n)),
    "polytope": lambda n: Polytope(np.vstack([np.eye(n), -np.eye(n), np.ones((1, n))]), np.r_[np.ones(2 * n), 1.5]),
    "hull": lambda n: Hull(np.random.default_rng(5).standard_normal((30, n))),
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_interval_bounds_enclose_dense_samples(name):
    n = 3
    K = DOMAINS[name](n)
    (W1, b1), (W2, b2) = _random_net((n, 9, 6), bias=-0.2, seed=6)
    lo1, hi1 = relu_box(W1, b1, K)
    lo2, hi2 = relu_box(W2, b2, (lo1, hi1))
    X = K.sample(20_000, seed=7) if not isinstance(K, Samples) else K.points
    H1 = np.maximum(X @ W1.T + b1, 0)
    H2 = np.maximum(H1 @ W2.T + b2, 0)
    eps = 1e-12
    assert np.all(H1 >= lo1 - eps) and np.all(H1 <= hi1 + eps)
    assert np.all(H2 >= lo2 - eps) and np.all(H2 <= hi2 + eps)
    # layer 1's bounds are attained (or nearly) on the domain: not absurdly loose
    P = X @ W1.T + b1
    lower, upper = preactivation_bounds(W1, b1, K)
    assert np.all(P.max(axis=0) <= upper + eps)
    if name in ("ball", "samples", "box", "polytope"):
        assert np.all(upper - P.max(axis=0) <= 0.05 * (1 + np.abs(upper)))


def test_interval_bounds_box_closed_form_and_unbounded():
    W = np.array([[1.0, -2.0], [0.0, 3.0]])
    b = np.array([0.5, -1.0])
    lower, upper = preactivation_bounds(W, b, (np.array([-1.0, 0.0]), np.array([2.0, 1.0])))
    np.testing.assert_allclose(lower, [-1 - 2 + 0.5, -1.0])
    np.testing.assert_allclose(upper, [2 + 0 + 0.5, 2.0])
    lower, upper = preactivation_bounds(W, b, rf.RealSpace(2))
    assert np.all(np.isinf(upper))


# -- the combining rule, with stubbed per-layer verdicts ---------------------------------------


def _stub(monkeypatch, answers):
    """Make the per-layer check answer from ``answers``, in order.

    Each answer is a callable ``(W, alpha, K, **options) -> Verdict`` (the signature of
    :func:`relu_frames_nb._layer_check.check_weights`: the layer in the paper's convention, in its
    own free input coordinates); ``_real`` runs the real check.
    """
    calls = []

    def fake(W, alpha, K, *, method, budget, seed=0, **kwargs):
        calls.append((np.array(W), np.array(alpha), K))
        return answers[len(calls) - 1](W, alpha, K, method=method, budget=budget, seed=seed, **kwargs)

    monkeypatch.setattr(check_mod, "check_weights", fake)
    # the combining rule is tested with the layer checks above alone: the true-image check says nothing
    monkeypatch.setattr(check_mod, "check_on_image", lambda *a, **k: ImageResult("undetermined", "stub: not run"))
    return calls


def _res(status, pair=None, lb=None, ub=None):
    """A stub verdict; a pair is given in the layer's own free input coordinates (a callable of K may build it)."""

    def answer(W, alpha, K, **kwargs):
        p = pair(K) if callable(pair) else pair
        bounds = None if lb is None and ub is None else (lb, ub)
        where = K.describe()
        return Verdict(status, "stub", f"{status} on {where} — stub {status}", where, pair=p, bounds=bounds)

    return answer


def _real(W, alpha, K, **kwargs):
    return real_check_weights(W, alpha, K, **kwargs)


def test_all_certified_proves_injective(monkeypatch):
    net = Network.from_weights(_random_net((3, 12, 30), seed=8))
    calls = _stub(monkeypatch, [_res("injective", lb=5, ub=5), _res("injective", lb=4, ub=6)])
    v = rf.check(net, Ball(3))
    assert v.status == Status.INJECTIVE and v.pair is None and v.method == "network"
    assert v.certificate is not None and v.certificate.kind == "every layer"
    assert [c.status for c in v.layers] == ["injective", "injective"]
    assert [c.details["layer_status"] for c in v.layers] == ["injective", "injective"]
    assert [c.details["layer"] for c in v.layers] == ["layer 1", "layer 2"]
    assert len(calls) == 2 and calls[0][2] == Ball(3)
    # layer 1 is handed over in the paper's convention: alpha = -b
    np.testing.assert_array_equal(calls[0][0], net.weights[0][0])
    np.testing.assert_array_equal(calls[0][1], -net.weights[0][1])
    assert v.layers[0].lower_bound == 5 and v.layers[1].bounds == (4, 6)
    json.dumps(v.to_dict(), allow_nan=False)
    # the internal entry point (a budget instead of a time limit) gives the same verdict
    calls.clear()
    v2 = check_network(net, Ball(3), method="auto", budget=Budget(30), seed=0)
    assert v2.status == v.status and len(calls) == 2


def test_undetermined_layer_makes_network_undetermined(monkeypatch):
    net = Network.from_weights(_random_net((3, 12, 30), seed=8))
    _stub(monkeypatch, [_res("injective"), _res("undetermined", lb=2, ub=4)])
    v = rf.check(net, Ball(3))
    assert v.status == Status.UNDETERMINED and v.pair is None and v.certificate is None
    assert "layer 2" in v.text and v.layers[1].status == "undetermined"
    assert "layer 1 certified" in v.text
    d = v.to_dict()
    assert d["layers"][0]["bounds"] is None  # nothing reached: None, not NaN
    assert d["layers"][1]["bounds"] == [2, 4]
    json.dumps(d, allow_nan=False)


def test_witness_at_layer_one_proves_not_injective(monkeypatch):
    # two points of the ball with the same first-layer output
    W1 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    b1 = np.array([0.0, 0.0, -0.5, 0.0])  # x_3 <= 0.5 keeps unit 3 off
    net = Network.from_weights([(W1, b1), (np.eye(4), np.zeros(4))])
    x, y = np.array([0.2, 0.2, -0.9]), np.array([0.2, 0.2, -0.95])  # units 3 and 4 off at both
    assert np.allclose(net(x), net(y))
    calls = _stub(monkeypatch, [_res("not injective", pair=(x, y), lb=2, ub=2)])
    v = rf.check(net, Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 1
    assert len(calls) == 1 and len(v.layers) == 1
    assert any("not checked" in line for line in v.report().splitlines())
    np.testing.assert_allclose(net(v.pair[0]), net(v.pair[1]))
    _assert_network_pair(net, Ball(3), v.pair)
    np.testing.assert_allclose(v.output, net(v.pair[0]))
    np.testing.assert_array_equal(v.layers[0].details["layer_pair"][0], x)


def test_unverifiable_layer_one_pair_is_not_trusted(monkeypatch):
    net = Network.from_weights(_random_net((3, 12, 30), seed=8))
    w = net.weights[0][0][0]
    bogus = (0.9 * w / np.linalg.norm(w), -0.9 * w / np.linalg.norm(w))  # unit 1 is on at one only
    assert not np.allclose(net.forward(bogus[0], upto=1), net.forward(bogus[1], upto=1))
    _stub(monkeypatch, [_res("not injective", pair=bogus), _res("injective")])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: None)
    v = rf.check(net, Ball(3))
    assert v.status == Status.UNDETERMINED and v.pair is None
    assert v.layers[0].status == "undetermined" and v.layers[0].details["layer_status"] == "not injective"
    assert v.layers[0].pair is None and v.layers[0].details["layer_pair"] is not None
    assert "could not be verified" in v.layers[0].text


def test_witness_at_layer_two_in_the_image_is_lifted(monkeypatch):
    # layer 1 injective on the ball; layer 2 collides two of its images
    (W1, b1), _ = _random_net((3, 12, 30), bias=3.0, seed=9)  # every unit on: injective
    x1, x2 = np.array([0.3, -0.2, 0.1]), np.array([-0.1, 0.4, 0.2])
    h1, h2 = np.maximum(W1 @ x1 + b1, 0), np.maximum(W1 @ x2 + b1, 0)
    # layer 2 (full rank): 29 rows orthogonal to h1 - h2, and the row h1 - h2 switched off at both
    rng = np.random.default_rng(10)
    d = (h1 - h2) / np.linalg.norm(h1 - h2)
    W2 = rng.standard_normal((29, 12))
    W2 -= np.outer(W2 @ d, d)
    W2 = np.vstack([W2, d])
    b2 = np.r_[np.zeros(29), -(max(d @ h1, d @ h2) + 1.0)]
    assert np.linalg.matrix_rank(W2) == 12
    net = Network.from_weights([(W1, b1), (W2, b2)])
    assert np.allclose(net(x1), net(x2))
    # every unit of layer 1 varies over the ball: layer 2's free coordinates are all 12
    _no_folding(monkeypatch)  # layer 1 is affine on the ball: the lifting is tested with the layers kept apart
    _stub(monkeypatch, [_res("injective"), _res("not injective", pair=(h1, h2))])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: pytest.fail("lifting should have succeeded"))
    v = rf.check(net, Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 2
    assert "lifted" in v.layers[1].text
    np.testing.assert_allclose(v.pair[0], x1, atol=1e-9)
    np.testing.assert_allclose(v.pair[1], x2, atol=1e-9)
    _assert_network_pair(net, Ball(3), v.pair)


def test_witness_at_layer_two_outside_the_image_is_undetermined(monkeypatch):
    (W1, b1), (W2, b2) = _random_net((3, 12, 30), bias=-0.3, seed=11)
    net = Network.from_weights([(W1, b1), (W2, b2)])

    def outside(K):  # two points of the enclosure (layer 2's free coordinates) that are not images of layer 1
        y1, y2 = K.sample(2, seed=12)
        return y1, y2

    _stub(monkeypatch, [_res("injective"), _res("not injective", pair=outside)])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: None)
    v = rf.check(net, Ball(3))
    assert v.status == Status.UNDETERMINED and v.pair is None
    assert v.layers[1].status == "undetermined" and v.layers[1].details["layer_status"] == "not injective"
    assert "true image" in v.layers[1].text


def test_rank_deficient_first_layer_is_a_verdict_not_an_error():
    W = np.random.default_rng(13).standard_normal((2, 3))  # 3 -> 2: cannot span R^3
    net = Network.from_weights([(W, np.zeros(2))])
    v = rf.check(net, Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.layers[0].method == "exact (null space)"
    assert v.layers[0].details["layer_status"] == "not injective" and v.pair_layer == 1
    x, y = v.pair
    assert Ball(3).contains(x) and Ball(3).contains(y) and np.linalg.norm(x - y) > 1e-3
    np.testing.assert_allclose(W @ x, W @ y, atol=1e-12)
    _assert_network_pair(net, Ball(3), v.pair)


def test_rank_deficient_later_layer(monkeypatch):
    # layer 1 affine on the ball (every unit on): its image is the 3-plane b1 + range(W1) of R^12,
    # and the centre of the enclosure is b1, the image of 0
    (W1, b1), _ = _random_net((3, 12, 30), bias=3.0, seed=9)
    rng = np.random.default_rng(17)
    d = W1 @ np.array([1.0, -1.0, 0.5])
    d /= np.linalg.norm(d)
    W2 = rng.standard_normal((30, 12))
    W2 -= np.outer(W2 @ d, d)  # rank 11, null vector in the image's directions: the pair lifts
    _no_folding(monkeypatch)
    _stub(monkeypatch, [_res("injective"), _real])
    net = Network.from_weights([(W1, b1), (W2, np.zeros(30))])
    v = rf.check(net, Ball(3))
    assert v.layers[1].method == "exact (null space)" and v.layers[1].details["layer_status"] == "not injective"
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 2 and "lifted" in v.layers[1].text
    np.testing.assert_allclose(W2 @ (W1 @ (v.pair[0] - v.pair[1])), 0, atol=1e-9)
    _assert_network_pair(net, Ball(3), v.pair)
    # a null vector transverse to the image: not injective on the enclosure, nothing in the image; layer by
    # layer cannot tell, the two copies of the whole network can
    W2 = rng.standard_normal((30, 12))
    W2[:, -1] = W2[:, :-1] @ np.ones(11)
    _stub(monkeypatch, [_res("injective"), _real])
    v = rf.check(Network.from_weights([(W1, b1), (W2, np.zeros(30))]), Ball(3))
    assert v.layers[1].details["layer_status"] == "not injective" and v.layers[1].details.get("layer_pair") is not None
    assert v.layers[1].status == "undetermined" and v.layers[1].pair is None
    assert v.status == Status.INJECTIVE and "two_copy" in v.details
    # independently: every unit of layer 1 is on over the ball (bias 3 exceeds each row's norm), so on K the
    # network is the single layer ReLU(W2 W1 x + W2 b1), which the layer's own exact check decides
    assert np.min(b1 - np.linalg.norm(W1, axis=1)) > 0
    single = rf.check(rf.ReLULayer(W2 @ W1, -(W2 @ b1)), Ball(3), method="exact")
    assert single.status == Status.INJECTIVE


def test_zero_rows_and_dead_units_are_handled(monkeypatch):
    calls = _stub(monkeypatch, [_res("injective"), _res("injective")])
    rng = np.random.default_rng(14)
    W1 = np.vstack([rng.standard_normal((8, 3)), np.zeros((1, 3)), [[0.0, 0.0, 1.0]]])
    b1 = np.r_[np.full(8, -0.2), 0.7, -5.0]  # a constant unit (0.7) and a dead one
    W2 = rng.standard_normal((20, 10))
    b2 = np.full(20, -0.1)
    v = rf.check(Network.from_weights([(W1, b1), (W2, b2)]), Ball(3))
    assert v.status == Status.INJECTIVE
    W1_seen, alpha1_seen, K1 = calls[0]
    # the zero row is left out by the normal form of the layer check
    P = normalise(W1_seen, alpha1_seen, K1)
    assert P.m == 10 and P.W.shape[0] == 9 and any("1 zero row(s) left out" in s for s in P.notes)
    W2_seen, alpha2_seen, _ = calls[1]
    assert W2_seen.shape == (20, 8)  # the constant and the dead coordinates are folded into the bias
    np.testing.assert_allclose(alpha2_seen, -(b2 + 0.7 * W2[:, 8]))
    assert "2 coordinate(s) constant" in v.layers[1].domain


def test_finite_domain_is_exact_by_forward_pass():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    X = np.array([[-1.0, -2.0], [-2.0, -1.0], [0.5, 0.5]])  # the first two both map to 0
    net = Network.from_weights([(W, np.zeros(3))])
    v = rf.check(net, X)
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 1 and v.method == "finite set"
    assert collides(W, np.zeros(3), *v.pair)
    v = rf.check(net, X[1:])
    assert v.status == Status.INJECTIVE and "exact" in v.text
    assert v.certificate is not None and v.certificate.kind == "finite set"
    two = Network.from_weights([(W, np.zeros(3)), (np.eye(3), np.ones(3))])
    assert [c.details["input_set"] for c in rf.check(two, X[1:]).layers] == ["K", "image"]  # the points' own images


def test_bad_arguments():
    pairs = _random_net((3, 5))
    net = Network.from_weights(pairs)
    with pytest.raises(DimensionMismatchError):
        rf.check(net, Ball(4))
    with pytest.raises(InputError):
        rf.check(net, Ball(3), time_limit=-1)
    # raw pairs are refused by the front door, with the way out named
    with pytest.raises(InputError, match=r"rf\.Network\.from_weights"):
        rf.check(pairs, Ball(3))
    with pytest.raises(InputError, match=r"rf\.ReLULayer\.from_weights"):
        rf.check(pairs[0], Ball(3))
    # Network.check is gone: rf.check is the one front door
    assert not hasattr(net, "check")


# -- end to end, with the real layer checks ------------------------------------------------------


def _no_folding(monkeypatch):
    """Layers affine on their input set stay apart (to test the layer-by-layer path on such networks)."""
    monkeypatch.setattr(check_mod, "merge_affine", lambda net, K: (net, []))


def test_end_to_end_injective_two_layers(monkeypatch):
    rng = np.random.default_rng(15)
    W1 = rng.standard_normal((12, 3))
    W1 /= np.linalg.norm(W1, axis=1, keepdims=True)
    W2 = rng.standard_normal((30, 12))
    W2 /= np.linalg.norm(W2, axis=1, keepdims=True)
    # alpha = -b very negative: every unit is on over the ball and over the enclosure [0.5, 2.5]^12
    net = Network.from_weights([(W1, np.full(12, 1.5)), (W2, np.full(30, 9.0))])
    v = rf.check(net, Ball(3), time_limit=60)
    # layer 1 is affine on the ball: folded into layer 2, one layer 3 -> 30 checked on the ball itself
    assert v.status == Status.INJECTIVE, v.report()
    assert [c.status for c in v.layers] == ["injective"] and v.details["folded"]
    assert v.certificate is not None and "folded" in v.notes[0]
    json.dumps(v.to_dict(), allow_nan=False)
    # kept apart, layer 2 is certified on the box enclosing the image of layer 1
    _no_folding(monkeypatch)
    v = rf.check(net, Ball(3), time_limit=60)
    assert v.status == Status.INJECTIVE, v.report()
    assert [c.status for c in v.layers] == ["injective", "injective"]
    assert all(c.certificate is not None for c in v.layers)


def test_end_to_end_not_injective_at_layer_one():
    rng = np.random.default_rng(16)
    W1 = rng.standard_normal((12, 3))
    W1 /= np.linalg.norm(W1, axis=1, keepdims=True)
    W2 = rng.standard_normal((30, 12))
    net = Network.from_weights([(W1, np.full(12, -0.6)), (W2, np.full(30, 3.0))])  # few units on: layer 1 fails
    v = rf.check(net, Ball(3), time_limit=60)
    assert v.status == Status.NOT_INJECTIVE, v.report()
    x, y = v.pair
    assert Ball(3).contains(x) and Ball(3).contains(y) and not np.allclose(x, y)
    np.testing.assert_allclose(net(x), net(y), atol=1e-8 * max(1, np.abs(net(x)).max()))
    _assert_network_pair(net, Ball(3), v.pair)
    json.dumps(v.to_dict(), allow_nan=False)


def test_equal_rows_are_the_groups_that_unique_finds():
    from relu_frames_nb.network.check import _equal_rows

    rng = np.random.default_rng(11)
    keys = rng.integers(-3, 4, (400, 5))  # small values: many equal rows
    keys[[7, 90, 300]] = keys[3]
    keys[:, 0] = rng.integers(-(2**62), 2**62, 400)  # big entries: the hash wraps around
    keys[[7, 90, 300], 0] = keys[3, 0]
    mine = sorted(tuple(sorted(g.tolist())) for g in _equal_rows(keys))
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    theirs = sorted(tuple(np.flatnonzero(inverse.reshape(-1) == g).tolist()) for g in np.flatnonzero(counts > 1))
    assert mine == theirs and (3, 7, 90, 300) in mine
    assert list(_equal_rows(keys[:1])) == []


def test_an_unrolled_convolution_is_multiplied_as_a_sparse_matrix(monkeypatch):
    from relu_frames_nb.network import model

    rng = np.random.default_rng(12)
    A, b, _ = model.conv2d_matrix(rng.random((4, 1, 3, 3)), np.full(4, -0.1), (1, 16, 16), padding=1)
    W2 = rng.standard_normal((10, A.shape[0]))
    net = Network.from_weights([(A, b), (W2, np.zeros(10))])
    X = rng.random((50, 256))
    dense = np.maximum(np.maximum(X @ A.T + b, 0.0) @ W2.T, 0.0)
    np.testing.assert_allclose(net(X), dense, rtol=1e-12, atol=1e-12 * np.abs(dense).max())
    assert net._sparse is not None and net._sparse[0] is not None  # 9 of 256 entries per row are non-zero
    assert net._sparse[1] is None  # a dense layer stays dense
    # the verdict on data is the one of the dense products, with and without a collision in the data
    X2 = np.vstack([X, -X[:3]])  # a non-negative kernel sees no positive response: one output for the three
    monkeypatch.setattr(model, "SPARSE_DENSITY", 0.0)
    dense_net = Network.from_weights([(A, b), (W2, np.zeros(10))])
    assert dense_net(X[:1]).shape == (1, 10) and dense_net._sparse == [None, None]
    for data in (X, X2):
        v, w = rf.check(net, data, time_limit=None), rf.check(dense_net, data, time_limit=None)
        assert v.status == w.status == ("injective" if data is X else "not injective") and v.pair_layer == w.pair_layer
        if v.pair is not None:
            assert all(np.array_equal(p, q) for p, q in zip(v.pair, w.pair))
