"""Network.from_state_dict reads every key of a state dict exactly or refuses it by name (issue 30).

A state dict does not say where a normalisation layer sits relative to the ReLU, nor its eps:
before, its keys were named in a note and dropped, and the check answered for another network
(a "verified" pair that does not collide in the real model).
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError
from relu_frames_nb.loading import load_model


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def _bn_model(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    model.train()
    model(torch.randn(64, 4) * 3 + 1)  # running statistics that are not the identity
    return model.eval()


def test_a_batchnorm_state_dict_is_refused_by_the_api_naming_the_key():
    torch = pytest.importorskip("torch")
    state = _bn_model(torch).state_dict()
    # before: Network(4 -> 8 -> 3), the BatchNorm named in a note and dropped
    with pytest.raises(InputError, match=r"state\['1\.running_mean'\] belongs to a normalisation layer \(BatchNorm\)") as err:
        rf.Network.from_state_dict(state)
    assert "eps" in str(err.value) and "from_torch" in str(err.value)


def test_a_batchnorm_state_dict_is_bad_input_for_the_command_line(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "bn.pt"
    torch.save(_bn_model(torch).state_dict(), path)
    # before: exit 1 with a "verified" pair that does not collide in the eval-mode model
    rc, out, err = _run("check", path, "--domain", "box:-1,1", "--quiet", "--time-limit", "20")
    assert rc == 2 and out == "" and "1.running_mean" in err and "BatchNorm" in err
    rc, out, _ = _run("check", path, "--domain", "box:-1,1", "--quiet", "--json", "--time-limit", "20")
    assert rc == 2 and "1.running_mean" in json.loads(out)["error"]


def test_a_single_linear_layer_with_a_batchnorm_is_refused_too(tmp_path):
    """One 2-D weight makes the file a single layer (the loader's other path): its other keys count as well."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU()).eval()
    path = tmp_path / "one.pt"
    torch.save(model.state_dict(), path)
    with pytest.raises(InputError, match=r"state\['1\..*'\] belongs to a normalisation layer \(BatchNorm\)"):
        load_model(path)
    rc, _, err = _run("check", path, "--domain", "ball:1", "--quiet")
    assert rc == 2 and "BatchNorm" in err


@pytest.mark.parametrize(
    "extra, kind",
    [
        ({"ln.weight": np.ones(6), "ln.bias": np.zeros(6)}, "1-D"),  # LayerNorm / BatchNorm without statistics / PReLU
        ({"act.weight": np.full(1, 0.25)}, "1-D"),  # a PReLU's slope
        ({"emb.pos": np.zeros((1, 4))}, "not the weight or bias of a linear or convolutional layer"),
        ({"orphan.bias": np.zeros(6)}, "no weight"),
        ({"fc1.weight_g": np.ones((6, 1))}, "not the weight or bias"),  # weight normalisation
        ({"stats": 3}, "not the weight or bias"),
    ],
)
def test_every_other_key_is_refused_by_name(extra, kind):
    rng = np.random.default_rng(0)
    state = {"fc1.weight": rng.standard_normal((6, 4)), "fc1.bias": np.zeros(6), **extra,
             "fc2.weight": rng.standard_normal((3, 6))}  # fmt: skip
    with pytest.raises(InputError, match=kind) as err:
        rf.Network.from_state_dict(state)
    assert f"state[{next(iter(extra))!r}]" in str(err.value)


def test_batchnorm_keys_beside_a_convolution_are_refused():
    rng = np.random.default_rng(0)
    state = {"conv.weight": rng.standard_normal((2, 1, 3, 3)), "conv.bias": np.zeros(2), "bn.weight": np.ones(2),
             "bn.bias": np.zeros(2), "bn.running_mean": np.zeros(2), "bn.running_var": np.ones(2),
             "bn.num_batches_tracked": np.array(5), "fc.weight": rng.standard_normal((4, 2 * 6 * 6))}  # fmt: skip
    with pytest.raises(InputError, match=r"state\['bn\.\w+'\] belongs to a normalisation layer \(BatchNorm\)"):
        rf.Network.from_state_dict(state, input_shape=(1, 8, 8))


def test_a_plain_state_dict_still_loads_exactly():
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Dropout(), torch.nn.Linear(8, 3)).eval()
    net = rf.Network.from_state_dict(model.state_dict(), last="linear")
    x = torch.randn(5, 4, dtype=torch.float64)
    np.testing.assert_allclose(net(x.numpy()), model.double()(x).detach().numpy(), rtol=1e-12, atol=1e-12)
    assert "ignored" not in net.note
