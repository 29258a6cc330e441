"""Network.from_torch by tracing: every operation's forward against torch's (float64), refusals by name, shapes."""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError
from relu_frames_nb.network.graph import Graph

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

RTOL = 1e-9  # the bound on the relative error of a read network's forward


def _agree(net, module, shape, n=20, seed=0):
    """The network's forward equals the float64 module's on random inputs (relative to the largest output)."""
    X = np.random.default_rng(seed).standard_normal((n,) + tuple(shape))
    model = module.double().eval()
    with torch.no_grad():
        want = model(torch.from_numpy(X)).reshape(n, -1).numpy()
    got = net(X.reshape(n, -1))
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= RTOL * max(np.abs(want).max(), 1e-300)


def _read(module, shape=None, **kw):
    torch.manual_seed(0)
    return rf.Network.from_torch(module.eval(), include_output=True, input_shape=shape, **kw)


class Block(nn.Module):  # a residual MLP block with its own forward
    def __init__(self, n=5):
        super().__init__()
        self.fc1, self.fc2, self.out = nn.Linear(n, 7), nn.Linear(7, n), nn.Linear(n, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        y = torch.relu(x + self.fc2(h))
        return self.out(y - 0.5 * x)


class Cat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(4, 3), nn.Linear(4, 5), nn.Linear(5, 2)

    def forward(self, x):
        deep = self.c(F.relu(self.b(x))).relu()
        return torch.cat([F.relu(self.a(x)), deep, x], dim=1)


class Own(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return F.relu(self.fc(x))


def _bn(m, channels):
    torch.manual_seed(1)
    m.running_mean.copy_(torch.randn(channels))
    m.running_var.copy_(torch.rand(channels) + 0.3)
    m.weight.data.copy_(torch.randn(channels))
    m.bias.data.copy_(torch.randn(channels))
    return m


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda: nn.Sequential(nn.Linear(6, 9), nn.ReLU(), nn.Linear(9, 4)), (6,)),
        (lambda: nn.Sequential(nn.Conv1d(2, 3, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(12, 4)), (2, 8)),
        (lambda: nn.Sequential(nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2), nn.ReLU()), (2, 7, 7)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding="same"), nn.ReLU(), nn.Conv2d(2, 2, 3, padding="valid")), (1, 5, 5)),
        (lambda: nn.Sequential(nn.Linear(5, 6), _bn(nn.BatchNorm1d(6), 6), nn.ReLU()), (5,)),
        (lambda: nn.Sequential(nn.Conv2d(1, 3, 3), _bn(nn.BatchNorm2d(3), 3), nn.ReLU()), (1, 6, 6)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.AvgPool2d(3, stride=2, padding=1)), (1, 6, 6)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.AvgPool2d(2, count_include_pad=False, padding=1)), (1, 5, 5)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(8, 3)), (1, 7, 7)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.MaxPool2d(2)), (1, 6, 6)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=2)), (1, 7, 7)),
        (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)), (1, 6, 6)),
        (lambda: nn.Sequential(nn.Linear(4, 6), nn.LeakyReLU(0.1), nn.Linear(6, 2)), (4,)),
        (lambda: nn.Sequential(nn.Conv2d(1, 3, 2), nn.PReLU(3), nn.Flatten(), nn.Linear(27, 4), nn.PReLU()), (1, 4, 4)),
        (lambda: Block(), (5,)),
        (lambda: Cat(), (4,)),
        (lambda: Own(), (6,)),
    ],
    ids=["linear", "conv1d", "conv2d-s2-p1-d2-g2", "conv-same-valid", "bn1d", "bn2d", "avgpool", "avgpool-nopad",
         "adaptive-avg", "maxpool2x2", "maxpool3x3s2", "maxpool-ceil", "leaky", "prelu", "residual", "cat", "own-forward"],
)  # fmt: skip
def test_each_operation_reads_exactly(make, shape):
    torch.manual_seed(0)
    module = make()
    net = _read(module, shape)
    _agree(net, module, shape)


def test_a_small_cnn_with_batchnorm_and_pooling_and_what_the_note_says():
    torch.manual_seed(2)
    cnn = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), _bn(nn.BatchNorm2d(3), 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(3 * 4 * 4, 5))  # fmt: skip
    net = _read(cnn, (1, 8, 8))
    assert net.last_linear and net.n == 64
    _agree(net, cnn, (1, 8, 8))
    assert "max pool '3'" in net.note and "b + ReLU(a - b)" in net.note
    hidden = rf.Network.from_torch(cnn, input_shape=(1, 8, 8))  # the logits left out, as before
    assert not hidden.last_linear and len(hidden) == len(net) - 1 and "not checked" in hidden.note


def test_a_residual_says_what_it_carries():
    net = _read(Block(), (5,))
    assert "5 values of 'x' carried through layer 1 as ReLU(v) - ReLU(-v) for 'add'" in net.note


class Gelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(4, 1)

    def forward(self, x):
        return self.att(x, x, x)[0]


@pytest.mark.parametrize(
    "module,shape,words",
    [
        (nn.Sequential(nn.Linear(3, 3), nn.GELU()), (3,), ["nn.GELU", "'1'", "not piecewise linear"]),
        (nn.Sequential(nn.Linear(3, 3), nn.Sigmoid()), (3,), ["nn.Sigmoid", "not piecewise linear"]),
        (nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2), nn.Softmax(dim=1)), (3,), ["nn.Softmax"]),
        (Gelu(), (3,), ["torch.sigmoid", "'sigmoid'"]),
        (Attn(), (4,), ["nn.MultiheadAttention", "'att'"]),
        (nn.Sequential(nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect"), nn.ReLU()), (1, 4, 4), ["nn.Conv2d", "reflect"]),
    ],
    ids=["gelu", "sigmoid", "softmax", "functional-sigmoid", "attention", "reflect"],
)
def test_unsupported_operations_are_refused_by_name_and_place(module, shape, words):
    with pytest.raises(InputError) as err:
        rf.Network.from_torch(module.eval(), input_shape=shape)
    for word in words:
        assert word in str(err.value)
    assert "nothing is dropped" in str(err.value)


def test_a_module_in_training_mode_is_refused():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())
    with pytest.raises(InputError, match=r"'1' \(BatchNorm1d\).*model.eval\(\)"):
        rf.Network.from_torch(model)
    with pytest.raises(InputError, match="Dropout.*eval"):
        rf.Network.from_torch(nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.ReLU()))
    bn = nn.BatchNorm1d(4, track_running_stats=False).eval()
    with pytest.raises(InputError, match="nn.BatchNorm1d.*track_running_stats"):
        rf.Network.from_torch(nn.Sequential(nn.Linear(3, 4), bn, nn.ReLU()).eval())
    rf.Network.from_torch(model.eval())  # once in eval mode it is read


def test_input_shapes_accepted_and_mismatches_refused():
    torch.manual_seed(3)
    mlp = nn.Sequential(nn.Linear(6, 5), nn.ReLU()).eval()
    assert rf.Network.from_torch(mlp, input_shape=(6,)).n == 6
    assert rf.Network.from_torch(mlp).n == 6  # from the first Linear
    img = nn.Sequential(nn.Flatten(), nn.Linear(12, 5), nn.ReLU()).eval()
    assert rf.Network.from_torch(img, input_shape=(3, 4)).n == 12  # (H, W): one channel
    cnn = nn.Sequential(nn.Conv2d(2, 3, 3), nn.ReLU()).eval()
    net = rf.Network.from_torch(cnn, input_shape=(2, 5, 5))
    assert net.widths == (50, 27)
    _agree(net, cnn, (2, 5, 5))
    with pytest.raises(InputError, match="input_shape must be given"):
        rf.Network.from_torch(cnn)
    for bad in [(5,), (2, 3)]:  # never reinterpreted to fit
        with pytest.raises(InputError, match="must fit the module's weights"):
            rf.Network.from_torch(mlp, input_shape=bad)
    with pytest.raises(InputError, match="must fit"):
        rf.Network.from_torch(cnn, input_shape=(5, 5))  # one channel; the weights want two


def test_a_module_whose_forward_the_tracer_cannot_follow_is_refused():
    class Branch(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return F.relu(self.fc(x)) if x.sum() > 0 else x

    with pytest.raises(InputError, match="cannot be traced"):
        rf.Network.from_torch(Branch().eval())


def test_a_layer_above_the_memory_limit_is_refused_with_its_size():
    cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU()).eval()
    with pytest.raises(InputError, match=r"256 x 64 matrix.*memory limit"):
        rf.Network.from_torch(cnn, input_shape=(1, 8, 8), memory_limit=100_000)


def test_a_pair_of_the_traced_network_collides_in_the_torch_module():
    torch.manual_seed(4)

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(2, 3), nn.Linear(3, 2)

        def forward(self, x):
            return F.relu(self.fc2(F.relu(self.fc1(x))) - x)  # a residual; dead units make it collapse somewhere

    module = Tiny().eval()
    net = rf.Network.from_torch(module)
    v = rf.check(net, rf.Box(0, 1, n=2), time_limit=30)
    assert v.status == "not injective" and "carried" in net.note
    if v.pair is not None:  # a pair of the network read is a pair of the module itself
        x, y = (torch.tensor(np.asarray(p, dtype=float)).reshape(1, 2) for p in v.pair)
        with torch.no_grad():
            fx, fy = module.double()(x), module.double()(y)
        assert not np.allclose(v.pair[0], v.pair[1])
        np.testing.assert_allclose(fx.numpy(), fy.numpy(), rtol=1e-7, atol=1e-9)


def test_the_graph_reduction_matches_the_graph_on_random_graphs():
    rng = np.random.default_rng(5)
    for _ in range(60):
        g = Graph()
        vals = [g.input(int(rng.integers(2, 5)))]
        for j in range(int(rng.integers(1, 7))):
            v = vals[int(rng.integers(len(vals)))]
            kind = rng.choice(["affine", "relu", "leaky", "max", "combine", "concat"])
            same = [u for u in vals if g.size(u) == g.size(v)]
            u = same[int(rng.integers(len(same)))]
            if kind == "affine":
                m = int(rng.integers(1, 5))
                vals.append(g.affine(v, matrix=rng.standard_normal((m, g.size(v))), offset=rng.standard_normal(m), name=f"a{j}"))
            elif kind == "relu":
                vals.append(g.relu(v, name=f"r{j}"))
            elif kind == "leaky":
                vals.append(g.leaky(v, rng.random(g.size(v)), name=f"l{j}"))
            elif kind == "max":
                vals.append(g.maximum(v, u, name=f"m{j}"))
            elif kind == "combine":
                vals.append(g.combine([v, u], [1.0, -0.5], name=f"c{j}"))
            else:
                vals.append(g.concat([v, u], name=f"k{j}"))
        g.set_output(vals[-1])
        net = g.compile()
        X = 3 * rng.standard_normal((30, g.size(vals[0])))
        want = g.evaluate(X)
        assert np.abs(net.forward(X) - want).max() <= 1e-12 * max(1.0, np.abs(want).max())
