"""Tests of relu_frames_nb.network: loaders, interval bounds, the combining rule, end to end."""

from __future__ import annotations

import importlib.util
import json
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.domains import Ball, PositiveBall, Samples, Shell
from relu_frames_nb.errors import DimensionMismatchError, InputError
from relu_frames_nb.network import Network, check_network, preactivation_bounds, relu_box
from relu_frames_nb.network import check as check_mod
from relu_frames_nb.verdict import Status

HAVE_BOX = importlib.util.find_spec("relu_frames_nb.domains.polyhedral") is not None


def _exact_available() -> bool:
    try:
        from relu_frames_nb.exact import exact_verdict  # noqa: F401
    except ImportError:
        return False
    return True


def _random_net(widths, *, bias=-0.5, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((m, n)) / np.sqrt(n), np.full(m, bias)) for n, m in zip(widths[:-1], widths[1:])]


# -- loaders -----------------------------------------------------------------------------------


def test_from_list_and_relu_layers_forward():
    layers = _random_net((3, 7, 9), bias=-0.1)
    net = Network(layers)
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
    # b = None means zeros; weights are read-only
    assert np.all(Network([(W1, None)]).weights[0][1] == 0)
    with pytest.raises(ValueError):
        net.weights[0][0][0, 0] = 1.0


def test_state_dict_with_several_linear_layers_and_other_entries():
    rng = np.random.default_rng(2)
    state = OrderedDict(
        [
            ("fc1.weight", rng.standard_normal((6, 4))),
            ("fc1.bias", rng.standard_normal(6)),
            ("bn.weight", np.ones(6)),  # 1-D: a normalisation layer, ignored and named
            ("bn.running_mean", np.zeros(6)),
            ("bn.num_batches_tracked", np.array(3)),
            ("fc2.weight", rng.standard_normal((8, 6))),  # no bias
            ("out.weight", rng.standard_normal((2, 8))),
            ("out.bias", np.zeros(2)),
        ]
    )
    net = Network.from_state_dict(state)
    assert net.widths == (4, 6, 8, 2)
    np.testing.assert_array_equal(net.weights[0][1], state["fc1.bias"])
    np.testing.assert_array_equal(net.weights[1][1], np.zeros(8))
    assert "bn.weight" in net.note and "bn.running_mean" in net.note
    assert net[:-1].widths == (4, 6, 8)


class _FakeTensor:
    """Duck-typed torch tensor: .detach().cpu().numpy()."""

    def __init__(self, a):
        self.a = np.asarray(a)
        self.ndim = self.a.ndim

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a


def test_state_dict_tensors_and_errors():
    state = {"0.weight": _FakeTensor(np.eye(3)), "0.bias": _FakeTensor(np.zeros(3))}
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
        Network([(np.ones((3, 2)), None), (np.ones((4, 5)), None)])
    with pytest.raises(DimensionMismatchError, match="layer 1 bias must be a vector of length 3"):
        Network([(np.ones((3, 2)), np.ones(2))])
    with pytest.raises(InputError, match="at least one layer"):
        Network([])
    with pytest.raises(InputError, match=r"\(W, b\) pair"):
        Network([np.ones((3, 2))])
    with pytest.raises(InputError, match="2-D"):
        Network([(np.ones(3), None)])
    with pytest.raises(InputError, match="finite"):
        Network([(np.array([[np.nan, 1.0]]), None)])


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


def _box_domain(lo, hi):
    from relu_frames_nb.domains.polyhedral import Box

    return Box(lo, hi)


DOMAINS = {
    "ball": lambda n: Ball(n, 1.5),
    "positive-ball": lambda n: PositiveBall(n, 2.0),
    "shell": lambda n: Shell(n, 0.5, 1.0),
    "samples": lambda n: Samples(np.random.default_rng(5).standard_normal((50, n))),
}
if HAVE_BOX:
    from relu_frames_nb.domains.polyhedral import Hull, Polytope

    DOMAINS["box"] = lambda n: _box_domain(-np.arange(1, n + 1) / n, np.ones(n))
    DOMAINS["polytope"] = lambda n: Polytope(np.vstack([np.eye(n), -np.eye(n), np.ones((1, n))]), np.r_[np.ones(2 * n), 1.5])
    DOMAINS["hull"] = lambda n: Hull(np.random.default_rng(5).standard_normal((30, n)))


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
    """Make the exact verdict answer from ``answers`` (a list of callables layer, K -> result), in order."""
    calls = []

    def fake(layer, K, *, time_limit, progress):
        calls.append((layer, K))
        return answers[len(calls) - 1](layer, K)

    monkeypatch.setattr(check_mod, "_exact", fake)
    if not HAVE_BOX:
        monkeypatch.setattr(check_mod, "_box", lambda lo, hi: ("box", np.array(lo), np.array(hi)))
    return calls


def _res(status, pair=None, lb=np.nan, ub=np.nan):
    return lambda layer, K: SimpleNamespace(status=status, pair=pair, lower_bound=lb, upper_bound=ub, text=f"stub {status}")


def test_all_certified_proves_injective(monkeypatch):
    net = Network(_random_net((3, 12, 30), seed=8))
    calls = _stub(monkeypatch, [_res("injective", lb=5, ub=5), _res("injective", lb=4, ub=6)])
    v = check_network(net, Ball(3))
    assert v.status == Status.INJECTIVE and v.pair is None
    assert [c.status for c in v.layers] == ["injective", "injective"]
    assert len(calls) == 2 and calls[0][1] == Ball(3)
    assert v.layers[0].lower_bound == 5
    json.dumps(v.to_dict())


def test_undetermined_layer_makes_network_undetermined(monkeypatch):
    net = Network(_random_net((3, 12, 30), seed=8))
    _stub(monkeypatch, [_res("injective"), _res("undetermined", lb=2, ub=4)])
    v = check_network(net, Ball(3))
    assert v.status == Status.UNDETERMINED
    assert "2" in v.text and v.layers[1].status == "undetermined"
    d = v.to_dict()
    assert d["layers"][0]["lower_bound"] is None  # NaN -> None
    json.dumps(d)


def test_witness_at_layer_one_proves_not_injective(monkeypatch):
    # two points of the ball with the same first-layer output
    W1 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    b1 = np.array([0.0, 0.0, -0.5, 0.0])  # x_3 <= 0.5 keeps unit 3 off
    net = Network([(W1, b1), (np.eye(4), np.zeros(4))])
    x, y = np.array([0.2, 0.2, -0.9]), np.array([0.2, 0.2, -0.95])  # units 3 and 4 off at both
    assert np.allclose(net(x), net(y))
    calls = _stub(monkeypatch, [_res("not injective", pair=(x, y), lb=2, ub=2)])
    v = check_network(net, Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 1
    assert len(calls) == 1 and len(v.layers) == 1
    assert "not checked" in v.lines[-1]
    np.testing.assert_allclose(net(v.pair[0]), net(v.pair[1]))


def test_unverifiable_layer_one_pair_is_not_trusted(monkeypatch):
    net = Network(_random_net((3, 12, 30), seed=8))
    w = net.weights[0][0][0]
    bogus = (0.9 * w / np.linalg.norm(w), -0.9 * w / np.linalg.norm(w))  # unit 1 is on at one only
    assert not np.allclose(net.forward(bogus[0], upto=1), net.forward(bogus[1], upto=1))
    _stub(monkeypatch, [_res("not injective", pair=bogus), _res("injective")])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: None)
    v = check_network(net, Ball(3))
    assert v.status == Status.UNDETERMINED and v.pair is None
    assert v.layers[0].status == "undetermined" and v.layers[0].layer_status == "not injective"


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
    net = Network([(W1, b1), (W2, b2)])
    assert np.allclose(net(x1), net(x2))
    _stub(monkeypatch, [_res("injective"), _res("not injective", pair=(h1, h2))])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: pytest.fail("lifting should have succeeded"))
    v = check_network(net, Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 2
    assert "lifted" in v.layers[1].text
    np.testing.assert_allclose(v.pair[0], x1, atol=1e-9)
    np.testing.assert_allclose(v.pair[1], x2, atol=1e-9)


def test_witness_at_layer_two_outside_the_image_is_undetermined(monkeypatch):
    (W1, b1), (W2, b2) = _random_net((3, 12, 30), bias=-0.3, seed=11)
    net = Network([(W1, b1), (W2, b2)])
    rng = np.random.default_rng(12)
    y1 = rng.random(12)  # a point of the enclosure that is not an image of layer 1
    _stub(monkeypatch, [_res("injective"), _res("not injective", pair=(y1, y1 + 0.01))])
    monkeypatch.setattr(check_mod, "_local_pair", lambda *a, **k: None)
    v = check_network(net, Ball(3))
    assert v.status == Status.UNDETERMINED and v.pair is None
    assert v.layers[1].status == "undetermined" and v.layers[1].layer_status == "not injective"
    assert "true image" in v.layers[1].text


def test_rank_deficient_first_layer_is_a_verdict_not_an_error(monkeypatch):
    monkeypatch.setattr(check_mod, "_exact", lambda *a, **k: pytest.fail("no exact verdict for a rank-deficient layer"))
    W = np.random.default_rng(13).standard_normal((2, 3))  # 3 -> 2: cannot span R^3
    v = check_network([(W, np.zeros(2))], Ball(3))
    assert v.status == Status.NOT_INJECTIVE and v.layers[0].method == "rank"
    x, y = v.pair
    assert Ball(3).contains(x) and Ball(3).contains(y) and np.linalg.norm(x - y) > 1e-3
    np.testing.assert_allclose(W @ x, W @ y, atol=1e-12)


def test_rank_deficient_later_layer(monkeypatch):
    # layer 1 affine on the ball (every unit on): its image is the 3-plane b1 + range(W1) of R^12,
    # and the centre of the enclosure is b1, the image of 0
    (W1, b1), _ = _random_net((3, 12, 30), bias=3.0, seed=9)
    rng = np.random.default_rng(17)
    d = W1 @ np.array([1.0, -1.0, 0.5])
    d /= np.linalg.norm(d)
    W2 = rng.standard_normal((30, 12))
    W2 -= np.outer(W2 @ d, d)  # rank 11, null vector in the image's directions: the pair lifts
    _stub(monkeypatch, [_res("injective")])
    v = check_network([(W1, b1), (W2, np.zeros(30))], Ball(3))
    assert v.layers[1].method == "rank" and v.layers[1].layer_status == "not injective"
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 2 and "lifted" in v.layers[1].text
    np.testing.assert_allclose(W2 @ (W1 @ (v.pair[0] - v.pair[1])), 0, atol=1e-9)
    # a null vector transverse to the image: not injective on the enclosure, nothing in the image
    W2 = rng.standard_normal((30, 12))
    W2[:, -1] = W2[:, :-1] @ np.ones(11)
    _stub(monkeypatch, [_res("injective")])
    v = check_network([(W1, b1), (W2, np.zeros(30))], Ball(3))
    assert v.layers[1].layer_status == "not injective" and v.layers[1].pair is not None
    assert v.status == Status.UNDETERMINED and v.layers[1].status == "undetermined"


def test_zero_rows_and_dead_units_are_handled(monkeypatch):
    calls = _stub(monkeypatch, [_res("injective"), _res("injective")])
    rng = np.random.default_rng(14)
    W1 = np.vstack([rng.standard_normal((8, 3)), np.zeros((1, 3)), [[0.0, 0.0, 1.0]]])
    b1 = np.r_[np.full(8, -0.2), 0.7, -5.0]  # a constant unit (0.7) and a dead one
    W2 = rng.standard_normal((20, 10))
    v = check_network([(W1, b1), (W2, np.full(20, -0.1))], Ball(3))
    assert v.status == Status.INJECTIVE
    layer1, K1 = calls[0]
    assert layer1.m == 9  # the zero row is left out
    layer2, _ = calls[1]
    assert layer2.n == 8  # the constant and the dead coordinates are folded into the bias
    assert "2 coordinate(s) constant" in v.layers[1].domain


def test_finite_domain_is_exact_by_forward_pass():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    X = np.array([[-1.0, -2.0], [-2.0, -1.0], [0.5, 0.5]])  # the first two both map to 0
    v = check_network([(W, np.zeros(3))], X)
    assert v.status == Status.NOT_INJECTIVE and v.pair_layer == 1
    v = check_network([(W, np.zeros(3))], X[1:])
    assert v.status == Status.INJECTIVE and "exact" in v.text


def test_bad_arguments():
    net = Network(_random_net((3, 5)))
    with pytest.raises(DimensionMismatchError):
        check_network(net, Ball(4))
    with pytest.raises(InputError):
        check_network(net, Ball(3), time_limit=0)


# -- end to end, with the exact verdict -----------------------------------------------------------

needs_exact = pytest.mark.skipif(not (_exact_available() and HAVE_BOX), reason="relu_frames_nb.exact not available yet")


@needs_exact
def test_end_to_end_injective_two_layers():
    rng = np.random.default_rng(15)
    W1 = rng.standard_normal((12, 3))
    W1 /= np.linalg.norm(W1, axis=1, keepdims=True)
    W2 = rng.standard_normal((30, 12))
    W2 /= np.linalg.norm(W2, axis=1, keepdims=True)
    # alpha = -b very negative: every unit is on over the ball and over the enclosure [0.5, 2.5]^12
    net = Network([(W1, np.full(12, 1.5)), (W2, np.full(30, 9.0))])
    v = net.check(Ball(3), time_limit=60)
    assert v.status == Status.INJECTIVE, v.report()
    assert [c.status for c in v.layers] == ["injective", "injective"]
    json.dumps(v.to_dict())


@needs_exact
def test_end_to_end_not_injective_at_layer_one():
    rng = np.random.default_rng(16)
    W1 = rng.standard_normal((12, 3))
    W1 /= np.linalg.norm(W1, axis=1, keepdims=True)
    W2 = rng.standard_normal((30, 12))
    net = Network([(W1, np.full(12, -0.6)), (W2, np.full(30, 3.0))])  # few units on: layer 1 fails somewhere
    v = net.check(Ball(3), time_limit=60)
    assert v.status == Status.NOT_INJECTIVE, v.report()
    x, y = v.pair
    assert Ball(3).contains(x) and Ball(3).contains(y) and not np.allclose(x, y)
    np.testing.assert_allclose(net(x), net(y), atol=1e-8 * max(1, np.abs(net(x)).max()))
    json.dumps(v.to_dict())
