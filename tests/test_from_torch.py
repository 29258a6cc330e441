"""Network.from_torch: an nn.Sequential of Linear and ReLU read without importing torch.

Stand-ins with torch's class names, attributes and tensor methods (``detach``, ``cpu``, ``numpy``,
``named_children``) check the reading; where torch is installed the same is checked on real modules.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError
from tests._torch_standins import Tensor


class Module:
    def named_children(self):
        return iter(())


class Linear(Module):
    def __init__(self, n_in, n_out, rng, bias=True):
        self.weight = Tensor(rng.standard_normal((n_out, n_in)))
        self.bias = Tensor(rng.standard_normal(n_out)) if bias else None


class ReLU(Module):
    pass


class Flatten(Module):
    pass


class Dropout(Module):
    pass


class Conv2d(Module):
    pass


class MaxPool2d(Module):
    pass


class Sequential(Module):
    def __init__(self, *mods):
        self.mods = mods

    def named_children(self):
        return ((str(i), m) for i, m in enumerate(self.mods))


class Net(Module):  # a module with its own forward
    def named_children(self):
        return iter([("fc", ReLU())])


def _forward(seq, X):
    """The stand-in's forward pass in numpy (Flatten, Dropout: identity; Linear; ReLU)."""
    for m in seq.mods:
        if isinstance(m, Sequential):
            X = _forward(m, X)
        elif isinstance(m, Linear):
            X = X @ m.weight.a.T + (0 if m.bias is None else m.bias.a)
        elif isinstance(m, ReLU):
            X = np.maximum(X, 0)
    return X


def test_a_classifier_reads_its_hidden_layers_and_says_what_it_left_out():
    rng = np.random.default_rng(0)
    hidden = Sequential(Linear(6, 12, rng), ReLU(), Dropout(), Linear(12, 9, rng, bias=False), ReLU())
    model = Sequential(Flatten(), hidden, Linear(9, 3, rng))
    net = rf.Network.from_torch(model)
    assert net.widths == (6, 12, 9)
    X = rng.standard_normal((50, 6))
    np.testing.assert_allclose(net(X), _forward(Sequential(Flatten(), hidden), X), rtol=1e-12)
    assert "1.2 (Dropout)" in net.note and "0 (Flatten)" in net.note
    assert "output layer 2 (Linear, 3 units, no ReLU) is not checked" in net.note
    with_out = rf.Network.from_torch(model, include_output=True)
    assert with_out.widths == (6, 12, 9, 3) and with_out.last_linear and "checked as the affine map it is" in with_out.note
    np.testing.assert_allclose(with_out(X), _forward(model, X), rtol=1e-12)  # the logits, negative values kept
    assert np.any(with_out(X) < 0)
    v = rf.check(net, rf.Box(-1, 1, n=6), time_limit=30)
    assert v.status in ("injective", "not injective")  # 6 -> 12 -> 9 with random weights: decided quickly


def test_modules_that_are_not_a_chain_of_linear_and_relu_are_refused():
    rng = np.random.default_rng(1)
    cases = [
        (Sequential(Conv2d(), ReLU()), "needs the image shape: pass input_shape"),
        (Sequential(ReLU(), Linear(2, 3, rng)), "a ReLU must follow a Linear"),
        (Sequential(Linear(2, 3, rng), Linear(3, 3, rng), ReLU()), "must be followed by a ReLU; got Linear"),
        (Sequential(Linear(2, 3, rng)), "a linear model"),
        (Sequential(), "empty module"),
        (Net(), "with its own forward"),
        (Sequential(Linear(2, 3, rng), ReLU(), MaxPool2d(), Linear(3, 2, rng), ReLU()), "got MaxPool2d"),
    ]
    for module, message in cases:
        with pytest.raises(InputError, match=message):
            rf.Network.from_torch(module)


def test_real_torch_modules_when_torch_is_installed():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 2))
    net = rf.Network.from_torch(model)
    X = torch.randn(20, 4)
    np.testing.assert_allclose(net(X.numpy()), torch.relu(model[1](X)).detach().numpy(), rtol=1e-5, atol=1e-6)


def _conv_reference(x, K, b, stride, pad):
    """A direct loop: PyTorch's Conv2d (cross-correlation with zero padding) of one image (C, H, W)."""
    c_out, c_in, kh, kw = K.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    Ho, Wo = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    out = np.zeros((c_out, Ho, Wo))
    for o in range(c_out):
        for i in range(Ho):
            for j in range(Wo):
                out[o, i, j] = np.sum(K[o] * xp[:, i * stride : i * stride + kh, j * stride : j * stride + kw]) + b[o]
    return out


@pytest.mark.parametrize("stride,pad", [(1, 0), (2, 1), (1, 2)])
def test_a_convolution_is_unrolled_into_the_dense_layer_of_the_same_map(stride, pad):
    from relu_frames_nb.network.model import conv2d_matrix

    rng = np.random.default_rng(stride + 3 * pad)
    K, b = rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)
    A, bias, shape = conv2d_matrix(K, b, (2, 6, 5), stride=stride, padding=pad)
    for _ in range(5):
        x = rng.standard_normal((2, 6, 5))
        ref = _conv_reference(x, K, b, stride, pad)
        assert shape == ref.shape
        np.testing.assert_allclose(A @ x.ravel() + bias, ref.ravel(), rtol=1e-12, atol=1e-12)


def test_a_small_convolutional_network_is_read_and_checked():
    # stand-ins: Conv2d(1 -> 2, 3x3) + ReLU on 5 x 5 images, Flatten, Linear(18 -> 30) + ReLU
    rng = np.random.default_rng(7)

    class Conv(Module):
        def __init__(self):
            self.weight, self.bias = Tensor(rng.standard_normal((2, 1, 3, 3))), Tensor(rng.standard_normal(2))
            self.stride, self.padding, self.dilation, self.groups, self.padding_mode = (1, 1), (0, 0), (1, 1), 1, "zeros"

    Conv.__name__ = "Conv2d"
    conv = Conv()
    model = Sequential(conv, ReLU(), Flatten(), Linear(18, 30, rng), ReLU())
    with pytest.raises(InputError, match="input_shape"):
        rf.Network.from_torch(model)
    net = rf.Network.from_torch(model, input_shape=(1, 5, 5))
    assert net.widths == (25, 18, 30) and "unrolled" in net.note
    X = rng.standard_normal((10, 1, 5, 5))
    first = np.stack([_conv_reference(x, conv.weight.a, conv.bias.a, 1, 0) for x in X]).reshape(10, -1)
    np.testing.assert_allclose(net.forward(X.reshape(10, -1), upto=1), np.maximum(first, 0), rtol=1e-12, atol=1e-12)
    # 18 units read 25 pixels: never injective on the pixel box; the pair is a real collision of the network
    v = rf.check(net, rf.Box(0, 1, n=25), time_limit=30)
    assert v.status == "not injective"
    x, y = v.pair
    np.testing.assert_allclose(net(x), net(y), rtol=1e-9, atol=1e-12)
    with pytest.raises(InputError, match="dilation"):
        conv.dilation = (2, 2)
        rf.Network.from_torch(model, input_shape=(1, 5, 5))


def test_real_torch_convolutions_when_torch_is_installed():
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, stride=2, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(3 * 4 * 4, 20), torch.nn.ReLU(), torch.nn.Linear(20, 10))  # fmt: skip
    net = rf.Network.from_torch(model, input_shape=(1, 8, 8))
    X = torch.rand(16, 1, 8, 8)
    want = torch.relu(model[3](torch.relu(model[0](X)).flatten(1))).detach().numpy()
    np.testing.assert_allclose(net(X.numpy().reshape(16, -1)), want, rtol=1e-5, atol=1e-6)
    with_out = rf.Network.from_torch(model, input_shape=(1, 8, 8), include_output=True)
    np.testing.assert_allclose(with_out(X.numpy().reshape(16, -1)), model(X).detach().numpy(), rtol=1e-5, atol=1e-5)


# -- a state dict with convolutions (what a .pt file holds): strides and paddings given or inferred ----------------
def _cnn_state(rng, c_out=3, k=3):
    return {"conv1.weight": rng.standard_normal((c_out, 1, k, k)), "conv1.bias": rng.standard_normal(c_out),
            "fc.weight": rng.standard_normal((20, c_out * 4 * 4)), "fc.bias": rng.standard_normal(20)}  # fmt: skip


def test_a_state_dict_with_a_convolution_is_unrolled_and_its_stride_inferred():
    from relu_frames_nb.network.model import conv2d_matrix

    rng = np.random.default_rng(3)
    state = _cnn_state(rng)  # on 8 x 8 images only stride 2 with padding 1 gives fc's 3 x 4 x 4 = 48 inputs
    with pytest.raises(InputError, match="input_shape"):
        rf.Network.from_state_dict(state)
    net = rf.Network.from_state_dict(state, input_shape=(1, 8, 8))
    assert net.widths == (64, 48, 20) and net.names == ("conv1", "fc")
    assert "stride 2, padding 1 (inferred)" in net.note and "layers found: conv1, fc" in net.note
    A, b, _ = conv2d_matrix(state["conv1.weight"], state["conv1.bias"], (1, 8, 8), stride=2, padding=1)
    X = rng.standard_normal((5, 64))
    np.testing.assert_allclose(net(X), np.maximum(np.maximum(X @ A.T + b, 0) @ state["fc.weight"].T + state["fc.bias"], 0))
    # given, it is used (and said); a choice that does not fit fc is refused, as is an ambiguous one
    assert "(given)" in rf.Network.from_state_dict(state, input_shape=(1, 8, 8), conv={"conv1": (2, 1)}).note
    with pytest.raises(InputError, match="no stride and padding"):
        rf.Network.from_state_dict(state, input_shape=(1, 8, 8), conv={"conv1": (1, 0)})
    alone = {"conv1.weight": rng.standard_normal((2, 1, 3, 3)), "conv1.bias": np.zeros(2)}  # nothing after it to fit
    with pytest.raises(InputError, match="4 choices"):
        rf.Network.from_state_dict(alone, input_shape=(1, 6, 6))
    assert rf.Network.from_state_dict(alone, input_shape=(1, 6, 6), conv={"conv1": (1, 0)}).widths == (36, 32)
    with pytest.raises(InputError, match="pair"):
        rf.Network.from_state_dict(alone, input_shape=(1, 6, 6), conv={"conv1": 1})
    with pytest.raises(InputError, match="not convolutions"):
        rf.Network.from_state_dict(state, input_shape=(1, 8, 8), conv={"fc": (1, 0)})
    with pytest.raises(InputError, match="none"):
        rf.Network.from_state_dict({"a.weight": np.ones((3, 2)), "b.weight": np.ones((2, 3))}, conv={"a": (1, 0)})


def test_a_pt_file_with_a_convolution_is_checked_from_the_command_line(tmp_path):
    torch = pytest.importorskip("torch")
    import json
    import subprocess
    import sys

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, stride=2, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(48, 20), torch.nn.ReLU())  # fmt: skip
    torch.save(model.state_dict(), tmp_path / "cnn.pt")
    net = rf.Network.from_torch(model, input_shape=(1, 8, 8))
    cmd = [sys.executable, "-m", "relu_frames_nb", "check", "cnn.pt", "--domain", "box:0,1", "--quiet", "--json",
           "--time-limit", "30"]  # fmt: skip
    missing = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "--input-shape" in missing.stdout + missing.stderr  # --json: the error as JSON
    proc = subprocess.run(cmd + ["--input-shape", "8,8"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1, 3), proc.stderr
    out = json.loads(proc.stdout)
    assert out["details"]["widths"] == [64, 48, 20]
    assert any("stride 2, padding 1 (inferred)" in note and "layers found: 0, 3" in note for note in out["notes"])
    given = subprocess.run(cmd + ["--input-shape", "1,8,8", "--conv", "0:2:1"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
    assert json.loads(given.stdout)["status"] == out["status"]
    if out["status"] == "not injective":  # a pair is a pair of the torch model itself
        x, y = (np.asarray(p, dtype=float) for p in out["pair"])
        fx, fy = (model(torch.tensor(v, dtype=torch.float64 if False else torch.float32).reshape(1, 1, 8, 8)) for v in (x, y))
        np.testing.assert_allclose(net(x), net(y), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(fx.detach().numpy(), fy.detach().numpy(), rtol=1e-4, atol=1e-5)
