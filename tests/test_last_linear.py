"""A network whose last layer is affine (a classifier's logits), issue 18: "the model as it is"."""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.cli import load_model, main


def _net(rng, widths, last="linear"):
    pairs = [(rng.standard_normal((b, a)), rng.standard_normal(b)) for a, b in zip(widths[:-1], widths[1:])]
    return rf.Network.from_weights(pairs, last=last), pairs


def test_the_forward_pass_keeps_the_logits():
    rng = np.random.default_rng(0)
    net, pairs = _net(rng, (3, 7, 4))
    X = rng.standard_normal((20, 3))
    (W1, b1), (W2, b2) = pairs
    np.testing.assert_allclose(net(X), np.maximum(X @ W1.T + b1, 0) @ W2.T + b2, rtol=1e-12)
    assert np.any(net(X) < 0) and repr(net).endswith("last layer linear)")
    # the ReLU form is the same map up to the invertible s -> (ReLU(s), ReLU(-s))
    R = net.relu_form()
    assert not R.last_linear and R.widths == (3, 7, 8)
    out = R(X)
    np.testing.assert_allclose(out[:, :4] - out[:, 4:], net(X), rtol=1e-12, atol=1e-12)
    # slicing keeps the flag only with the last layer
    assert net[1:].last_linear and net[:].last_linear and not net[:1].last_linear
    assert rf.Network.from_weights(pairs).relu_form() is not None and not rf.Network.from_weights(pairs).last_linear
    with pytest.raises(rf.InputError, match="last must be"):
        rf.Network.from_weights(pairs, last="softmax")


@pytest.mark.parametrize("seed", range(6))
def test_the_verdict_is_the_verdict_of_the_model_as_it_is(seed):
    # small networks 2 -> w -> r with an affine last layer: every reported pair collides in the logits,
    # and a one-unit output (r = 1 < n = 2) can never be injective on a disc
    rng = np.random.default_rng(seed)
    width = int(rng.integers(3, 7))
    r = 1 if seed % 2 else 2
    net, _ = _net(rng, (2, width, r))
    v = rf.check(net, rf.Ball(2), time_limit=30)
    assert v.details["last_layer"] == "linear" and "affine" in v.notes[0]
    if r == 1:
        assert v.status == "not injective"
    if v.pair is not None:
        x, y = v.pair
        assert np.linalg.norm(x) <= 1 and np.linalg.norm(y) <= 1 and np.linalg.norm(x - y) > 0
        fx, fy = net(x), net(y)
        assert np.max(np.abs(fx - fy)) <= 1e-9 * (1 + np.max(np.abs(fx)))
        np.testing.assert_allclose(v.output, fx)
    if v.status == "injective":
        # no sampled pair of far-apart points shares the logits (an independent, rough look)
        X = rng.uniform(-0.7, 0.7, size=(3000, 2))
        X = X[np.linalg.norm(X, axis=1) <= 1]
        Y = net(X)
        D_out = np.linalg.norm(Y[:, None] - Y[None], axis=2)
        D_in = np.linalg.norm(X[:, None] - X[None], axis=2)
        assert not np.any((D_out < 1e-12) & (D_in > 1e-3))


def test_logits_can_be_injective_where_a_relu_after_them_is_not():
    # layer 1 keeps every unit active on the disc (injective); layer 2 reads two of them shifted by -5:
    # as logits an injective affine map, with a ReLU after it the constant 0
    W1 = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    W2, b2 = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]), np.full(2, -5.0)
    pairs = [(W1, 2 * np.ones(4)), (W2, b2)]
    assert rf.check(rf.Network.from_weights(pairs), rf.Ball(2), time_limit=30).status == "not injective"
    v = rf.check(rf.Network.from_weights(pairs, last="linear"), rf.Ball(2), time_limit=30)
    assert v.status == "injective" and v.certificate is not None
    # and a single unit of logits is never injective on a disc
    v = rf.check(rf.Network.from_weights([(W1, np.ones(4)), (np.ones((1, 4)), np.zeros(1))], last="linear"), rf.Ball(2))
    assert v.status == "not injective"


def test_sklearn_output_layer_is_affine():
    class Fitted:
        activation = "relu"
        out_activation_ = "softmax"
        coefs_ = [np.array([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])]
        intercepts_ = [np.ones(3), np.zeros(2)]

    net = rf.Network.from_sklearn(Fitted(), include_output=True)
    assert net.last_linear and "affine" in net.note and "softmax" in net.note
    assert not rf.Network.from_sklearn(Fitted()).last_linear


def test_the_cli_reads_the_last_layer_as_told(tmp_path, capsys):
    rng = np.random.default_rng(3)
    W1, b1 = rng.standard_normal((6, 2)), np.ones(6)
    W2, b2 = rng.standard_normal((1, 6)), np.zeros(1)
    path = tmp_path / "clf.npz"
    np.savez(path, **{"fc1.weight": W1, "fc1.bias": b1, "fc2.weight": W2, "fc2.bias": b2})
    net, _ = load_model(path)
    assert not net.last_linear and "the file does not say" in net.note
    net, _ = load_model(path, last="linear")
    assert net.last_linear and "--last-linear" in net.note
    code = main(["check", str(path), "--domain", "ball:1", "--last-linear", "--quiet", "--json", "--time-limit", "30"])
    out = capsys.readouterr().out
    import json

    d = json.loads(out)
    assert d["status"] == "not injective" and code != 0  # a disc into a line
    assert d["details"]["last_layer"] == "linear"
    assert main(["check", str(path), "--last-linear", "--last-relu"]) != 0
    assert "not allowed with argument --last-linear" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(5))
def test_a_decoder_with_an_injective_last_layer_gets_the_verdict_of_its_relu_layers(seed):
    # latent 3 -> 8 (ReLU) -> 12 (affine, full column rank): injective on a box exactly when layer 1 is
    rng = np.random.default_rng(50 + seed)
    W1, b1 = rng.standard_normal((8, 3)), rng.standard_normal(8) * 0.5 + (2.5 if seed < 3 else 0.0)
    W2, b2 = rng.standard_normal((12, 8)), rng.standard_normal(12)
    K = rf.Box(-1, 1, n=3)
    net = rf.Network.from_weights([(W1, b1), (W2, b2)], last="linear")
    v = rf.check(net, K, time_limit=30)
    alone = rf.check(rf.ReLULayer.from_weights(W1, b1), K, time_limit=30)
    assert v.status == alone.status != "undetermined"
    assert len(v.layers) == 2 and v.layers[1].status == "injective" and "full column rank 8" in v.layers[1].text
    if v.pair is not None:
        x, y = v.pair
        assert np.all(np.abs(x) <= 1) and np.all(np.abs(y) <= 1) and np.linalg.norm(x - y) > 0
        assert np.max(np.abs(net(x) - net(y))) <= 1e-9 * (1 + np.max(np.abs(net(x))))
    else:
        assert v.certificate is not None and "full column rank" in v.certificate.statement
