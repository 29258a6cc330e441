"""Torch-trained models checked as a practitioner would (issue 30): a CNN with BatchNorm and max pooling, and a
residual MLP, each trained for a few steps, exported to ONNX and checked by ``python -m relu_frames_nb check``; the
same modules through ``rf.Network.from_torch``. Whatever the verdict, it must be an answer (exit 0, 1 or 3 with a
JSON verdict), and a reported pair must collide in the torch module itself, evaluated in float64.
"""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

import relu_frames_nb as rf  # noqa: E402
from relu_frames_nb.domains import parse_domain  # noqa: E402

nn = torch.nn

#: the outputs of a pair agree to this, relative to their size (float64 evaluation of float32 weights)
OUTPUT_RTOL = 1e-9


class CNN(nn.Module):
    """Conv2d -> BatchNorm2d -> ReLU -> MaxPool2d -> Linear on 8 x 8 images (10 logits)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def features(self, x):
        return torch.flatten(self.pool(torch.relu(self.bn(self.conv(x)))), 1)

    def forward(self, x):
        return self.fc(self.features(x))


class Residual(nn.Module):
    """x + fc2(relu(fc1(x))), then ReLU, then a linear map."""

    def __init__(self, n: int = 3, hidden: int = 8, out: int = 2) -> None:
        super().__init__()
        self.fc1, self.fc2, self.out = nn.Linear(n, hidden), nn.Linear(hidden, n), nn.Linear(n, out)

    def features(self, x):
        return torch.relu(x + self.fc2(torch.relu(self.fc1(x))))

    def forward(self, x):
        return self.out(self.features(x))


def _train(model, X, y, steps: int = 30):
    """A few steps of Adam on a cross-entropy (classes) or squared loss (targets); returns the module in eval mode."""
    torch.manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss() if y.dtype == torch.long else nn.MSELoss()
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(model(X), y).backward()
        opt.step()
    return model.eval()


@pytest.fixture(scope="module")
def cnn():
    datasets = pytest.importorskip("sklearn.datasets")
    digits = datasets.load_digits()
    X = torch.tensor(digits.data[:300] / 16.0, dtype=torch.float32).reshape(-1, 1, 8, 8)
    y = torch.tensor(digits.target[:300], dtype=torch.long)
    torch.manual_seed(1)
    model = _train(CNN(), X, y)
    assert not model.bn.training and torch.any(model.bn.running_var != 1)  # the BatchNorm has statistics to fold
    return model, (1, 8, 8)


@pytest.fixture(scope="module")
def residual():
    g = torch.Generator().manual_seed(2)
    X = torch.rand(200, 3, generator=g)
    y = torch.stack([X[:, 0] - X[:, 1], X[:, 2] * 2], dim=1)
    torch.manual_seed(3)
    return _train(Residual(), X, y), (3,)


def _export(model, shape, path):
    """The module as an ONNX file: torch's TorchScript exporter (``dynamo=False``, which needs no onnxscript).

    Without constant folding: with it, the exporter folds the BatchNorm into the convolution in float32, and the file
    is another map than the module (1e-7 apart); without it the file keeps the BatchNormalization node, which the
    reader folds in float64 (the file then agrees with the module to rounding).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation notice
        torch.onnx.export(model, torch.zeros(1, *shape), str(path), dynamo=False, do_constant_folding=False)
    return path


def _collides_in_torch(model, shape, x, y, *, features: bool = False) -> bool:
    """Two distinct inputs with the same output of the module itself (float64, relative to the outputs' size);
    ``features``: of the module without its output map (what ``from_torch`` reads by default)."""
    m = model.double().eval()
    f = m.features if features else m
    try:
        with torch.no_grad():
            a, b = (f(torch.tensor(np.asarray(p, dtype=float)).reshape(1, *shape)).numpy().ravel() for p in (x, y))
    finally:
        model.float()
    scale = max(1.0, float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    return bool(not np.array_equal(x, y) and np.max(np.abs(a - b)) <= OUTPUT_RTOL * scale)


def _cli(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", *map(str, args)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("name", ["cnn", "residual"])
def test_the_command_line_answers_on_the_onnx_file(name, request, tmp_path):
    model, shape = request.getfixturevalue(name)
    path = _export(model, shape, tmp_path / f"{name}.onnx")
    rc, out, err = _cli(path, "--domain", "box:0,1", "--json", "--quiet", "--time-limit", "20")
    assert rc in (0, 1, 3), (rc, out, err)
    v = json.loads(out)
    assert v["exit_code"] == rc and v["status"] in ("injective", "not injective", "undetermined")
    if v["pair"] is not None:
        x, y = (np.array(p) for p in v["pair"])
        assert np.all((x >= 0) & (x <= 1) & (y >= 0) & (y <= 1))
        assert _collides_in_torch(model, shape, x, y)
    # both end in fewer outputs than inputs (10 < 64, 2 < 3): no continuous map does that injectively on an open set
    assert v["status"] != "injective"
    if name == "residual":  # found in a fraction of a second (the CNN's pair takes some 15 s, at the last layer)
        assert rc == 1 and v["status"] == "not injective"


@pytest.mark.parametrize("name", ["cnn", "residual"])
def test_the_api_answers_on_the_traced_module(name, request):
    model, shape = request.getfixturevalue(name)
    net = rf.Network.from_torch(model.eval(), input_shape=shape, include_output=True)  # the logits, as the ONNX file
    assert net.last_linear
    K = parse_domain("box:0,1", net.n)
    v = rf.check(net, K, time_limit=20)
    assert v.status != "injective"  # fewer outputs than inputs, as on the command line
    if v.pair is not None:
        assert K.contains_certified(v.pair[0]) and K.contains_certified(v.pair[1])
        assert _collides_in_torch(model, shape, *v.pair)
    if name == "residual":
        assert v.status == "not injective" and v.pair_layer == 2


@pytest.mark.parametrize("name", ["cnn", "residual"])
def test_the_api_answers_on_the_features(name, request):
    model, shape = request.getfixturevalue(name)
    net = rf.Network.from_torch(model.eval(), input_shape=shape)  # by default the ReLU features, without the output map
    assert not net.last_linear
    K = parse_domain("box:0,1", net.n)
    v = rf.check(net, K, time_limit=5)
    assert v.status in ("injective", "not injective", "undetermined") and v.exit_code in (0, 1, 3)
    if v.pair is not None:
        assert K.contains_certified(v.pair[0]) and K.contains_certified(v.pair[1])
        assert _collides_in_torch(model, shape, *v.pair, features=True)


def test_the_onnx_file_and_the_traced_module_are_the_same_map(cnn, residual, tmp_path):
    for name, (model, shape) in (("cnn", cnn), ("residual", residual)):
        path = _export(model, shape, tmp_path / f"{name}.onnx")
        if name == "cnn":
            assert "BatchNormalization" in [node.op_type for node in onnx.load(str(path)).graph.node]
        a, b = rf.Network.from_onnx(path), rf.Network.from_torch(model, input_shape=shape, include_output=True)
        X = np.random.default_rng(0).random((20, a.n))
        m = model.double()
        try:
            with torch.no_grad():
                ref = m(torch.tensor(X).reshape(-1, *shape)).numpy()
        finally:
            model.float()
        np.testing.assert_allclose(a(X), ref, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(b(X), ref, rtol=1e-9, atol=1e-9)
