"""Network.from_torch: an nn.Sequential of Linear and ReLU read without importing torch.

Stand-ins with torch's class names, attributes and tensor methods (``detach``, ``cpu``, ``numpy``,
``named_children``) check the reading; where torch is installed the same is checked on real modules.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError


class Tensor:
    def __init__(self, a):
        self.a = np.asarray(a, float)

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a


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
        (Sequential(Conv2d(), ReLU()), "got Conv2d"),
        (Sequential(ReLU(), Linear(2, 3, rng)), "a ReLU must follow a Linear"),
        (Sequential(Linear(2, 3, rng), Linear(3, 3, rng), ReLU()), "must be followed by a ReLU; got Linear"),
        (Sequential(Linear(2, 3, rng)), "a linear model"),
        (Sequential(), "empty module"),
        (Net(), "with its own forward"),
        (Sequential(Linear(2, 3, rng), ReLU(), Flatten(), Linear(3, 2, rng), ReLU()), "got Flatten"),
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
