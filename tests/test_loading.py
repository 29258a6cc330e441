"""relu_frames_nb.loading: unusual PyTorch files are read exactly or refused as bad input (exit 2), never a crash (exit 4)."""

import json
import warnings

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb import cli
from relu_frames_nb.errors import InputError
from relu_frames_nb.loading import load_layer, load_model

torch = pytest.importorskip("torch")

W = [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]


def _save(path, state):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's notes on beta sparse layouts and deprecated quantization
        torch.save(state, path)
    return path


def _cli_json(path, capsys):
    rc = cli.main(["check", str(path), "--json", "--quiet", "--time-limit", "5"])
    return rc, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "key",
    [0, None, ("fc", 1), 2.5],
    ids=["int", "None", "tuple", "float"],
)
def test_a_state_dict_key_that_is_not_a_name_is_bad_input(tmp_path, capsys, key):
    path = _save(tmp_path / "odd.pt", {key: torch.eye(2), "fc.weight": torch.eye(2)})
    with pytest.raises(InputError, match=f"keys are parameter names .*got the {type(key).__name__} key"):
        load_model(path)
    rc, out = _cli_json(path, capsys)  # was exit 4: AttributeError, 'int' object has no attribute 'endswith'
    assert rc == cli.EXIT_BAD_INPUT and out["error_kind"] == "bad input" and "parameter names" in out["error"]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"])
def test_low_precision_floats_are_read_exactly(tmp_path, capsys, dtype):
    low = getattr(torch, dtype, None)
    if low is None:
        pytest.skip(f"this torch has no {dtype}")
    rng = np.random.default_rng(0)
    weight = torch.tensor(rng.standard_normal((6, 2))).to(low)
    bias = torch.tensor(rng.uniform(0.1, 0.3, 6)).to(low)
    path = _save(tmp_path / "low.pt", {"fc.weight": weight, "fc.bias": bias})
    L = load_layer(path)
    # each low-precision value is a float32 value, and float32 -> float64 is exact
    np.testing.assert_array_equal(L.frame.vectors, weight.to(torch.float32).numpy().astype(np.float64))
    np.testing.assert_array_equal(L.alpha, -bias.to(torch.float32).numpy().astype(np.float64))
    rc, out = _cli_json(path, capsys)  # bfloat16 was exit 4: TypeError, unsupported ScalarType BFloat16
    assert rc in (cli.EXIT_INJECTIVE, cli.EXIT_NOT_INJECTIVE, cli.EXIT_UNDETERMINED) and out["status"] != "error"


@pytest.mark.parametrize("layout", ["to_sparse", "to_sparse_csr"])
def test_sparse_tensors_are_read_as_the_same_dense_matrix(tmp_path, layout):
    dense = torch.tensor(W)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sparse = getattr(dense, layout)()
    path = _save(tmp_path / "sparse.pt", {"fc.weight": sparse, "fc.bias": torch.zeros(3)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch validates sparse tensors on a weights_only load, and says so
        L = load_layer(path)
    np.testing.assert_array_equal(L.frame.vectors, np.array(W))


def test_tensors_without_exact_values_are_refused_by_name(tmp_path, capsys):
    cases = {
        "meta": (torch.empty(3, 2, device="meta"), "meta tensor"),
        "complex": (torch.tensor(W).to(torch.complex64), "complex"),
        "huge_int": (torch.tensor([[2**60, 0], [0, 1], [1, 1]]), "at most 2\\^53"),
    }
    if hasattr(torch, "quantize_per_tensor"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cases["qint8"] = (torch.quantize_per_tensor(torch.tensor(W), 0.1, 0, torch.qint8), "quantized .*qint8")
    for name, (tensor, match) in cases.items():
        try:
            path = _save(tmp_path / f"{name}.pt", {"fc.weight": tensor, "fc.bias": torch.zeros(3)})
        except Exception:  # noqa: BLE001 - a torch that cannot save this kind of tensor: nothing to read
            continue
        with pytest.raises(InputError, match=match), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load_model(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rc, out = _cli_json(path, capsys)
        assert rc == cli.EXIT_BAD_INPUT and out["error_kind"] == "bad input", (name, out)


def test_a_checkpoint_or_a_file_without_a_linear_layer_says_what_it_holds(tmp_path):
    path = _save(tmp_path / "ckpt.pt", {"model": {"fc.weight": torch.eye(2)}, "epoch": 3})
    with pytest.raises(InputError, match="'model' is itself a dict"):
        load_model(path)
    path = _save(tmp_path / "scalar.pt", {"fc.weight": torch.tensor(3.0)})
    with pytest.raises(InputError, match="2-D '\\*.weight' entry"):
        load_model(path)
    path = _save(tmp_path / "tensor.pt", torch.eye(2))
    with pytest.raises(InputError, match="must hold a state dict; got Tensor"):
        load_model(path)


def test_a_real_state_dict_gives_the_same_network_as_its_weights(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 12))
    path = _save(tmp_path / "net.pt", model.state_dict())
    net, kind = load_model(path, last="linear")
    ref = rf.Network.from_weights(
        [(lin.weight.detach().double().numpy(), lin.bias.detach().double().numpy()) for lin in (model[0], model[2])],
        last="linear",
    )
    x = np.random.default_rng(1).standard_normal((5, 3))
    assert kind == "b" and net.names == ("0", "2")
    np.testing.assert_allclose(net(x), ref(x), rtol=0, atol=0)


def test_the_cli_keeps_only_the_loader_it_uses():
    from relu_frames_nb import loading

    assert cli.load_model is loading.load_model  # tests monkeypatch cli.load_model
    assert not hasattr(cli, "load_weights") and not hasattr(cli, "_torch_state")
