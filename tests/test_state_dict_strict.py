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


# -- strides and paddings: inferred layer by layer (polynomial), refused when they cannot be --------------------------
def _convs(rng, n, c_in, c, k):
    state = {}
    for i in range(n):
        state[f"c{i}.weight"] = rng.standard_normal((c, c_in if i == 0 else c, k, k)) / k
        state[f"c{i}.bias"] = np.zeros(c)
    return state


def test_nine_seven_by_seven_convolutions_load():
    """Before: every choice for every convolution at once (8^9 = 134 million), stalled until the watchdog stopped it."""
    rng = np.random.default_rng(0)
    state = _convs(rng, 9, 3, 3, 7)
    state["fc.weight"] = rng.standard_normal((5, 3 * 12 * 12))  # only padding 3, stride 1 keeps 12 x 12 through nine 7 x 7
    net = rf.Network.from_state_dict(state, input_shape=(3, 12, 12), last="linear")
    assert net.widths == (432,) * 10 + (5,) and "stride 1, padding 3 (inferred)" in net.note
    one = _convs(rng, 9, 1, 2, 7)  # the input_shape=(1, 10, 10)
    one["fc.weight"] = rng.standard_normal((4, 2 * 10 * 10))
    assert rf.Network.from_state_dict(one, input_shape=(1, 10, 10)).widths == (100,) + (200,) * 9 + (4,)
    del one["fc.weight"]  # nothing after the convolutions fixes their size: the fitting choices are counted, not listed
    with pytest.raises(InputError, match=r"\d{4,} choices of strides and paddings .*choices that fit: \[") as err:
        rf.Network.from_state_dict(one, input_shape=(1, 10, 10))
    assert str(err.value).count("), (") <= 6 * 9


@pytest.mark.parametrize("conv", [(0, 0), ((1, 0), 0), (-1, 1), (1, -1), (1, (0, -2))])
def test_a_stride_below_one_or_a_negative_padding_is_refused(conv):
    """Before: stride 0 raised ZeroDivisionError (an internal error, exit 4, from the command line)."""
    from relu_frames_nb.network.model import conv2d_matrix

    state = {"c.weight": np.ones((2, 1, 3, 3)), "fc.weight": np.ones((4, 18))}
    with pytest.raises(InputError, match=r"stride must be .*>= 1|padding must be .*>= 0"):
        rf.Network.from_state_dict(state, input_shape=(1, 6, 6), conv={"c": conv})
    with pytest.raises(InputError, match=r"stride must be .*>= 1|padding must be .*>= 0"):
        conv2d_matrix(np.ones((2, 1, 3, 3)), None, (1, 6, 6), stride=conv[0], padding=conv[1])


def test_a_stride_of_zero_from_the_command_line_is_bad_input(tmp_path):
    path = tmp_path / "cnn.npz"
    np.savez(path, **{"c.weight": np.ones((2, 1, 3, 3)), "fc.weight": np.ones((4, 18)), "out.weight": np.ones((3, 4))})
    rc, out, err = _run("check", path, "--input-shape", "1,6,6", "--conv", "c:0:1", "--quiet")
    assert rc == 2 and "stride" in err


def test_an_input_shape_with_other_channels_is_refused_by_name():
    state = {"conv1.weight": np.ones((2, 3, 3, 3)), "fc.weight": np.ones((4, 2 * 4 * 4))}
    with pytest.raises(InputError, match=r"input_shape \(1, 6, 6\) has 1 channel; conv1 takes 3"):
        rf.Network.from_state_dict(state, input_shape=(1, 6, 6))
    chained = {"a.weight": np.ones((2, 1, 3, 3)), "b.weight": np.ones((2, 5, 3, 3)), "fc.weight": np.ones((4, 8))}
    with pytest.raises(InputError, match="b takes 5 input channels; a gives 2"):
        rf.Network.from_state_dict(chained, input_shape=(1, 6, 6))


def test_another_input_size_that_fits_the_weights_is_said():
    """A network built for 1 x 6 x 6 (stride 2, padding 1) also fits 1 x 3 x 3 with stride 1, padding 1.

    Nothing in a state dict tells the two apart (the weights are the same numbers either way): the
    reading follows input_shape, and the note names the other sizes that fit, with their strides.
    """
    rng = np.random.default_rng(1)
    state = {"conv1.weight": rng.standard_normal((2, 1, 3, 3)), "fc.weight": rng.standard_normal((4, 2 * 3 * 3))}
    net = rf.Network.from_state_dict(state, input_shape=(1, 3, 3))
    assert net.widths == (9, 18, 4) and "stride 1, padding 1 (inferred)" in net.note
    assert "1 x 6 x 6 (conv1 stride 2, padding 1)" in net.note and "does not say which input size" in net.note
    given = rf.Network.from_state_dict(state, input_shape=(1, 6, 6), conv={"conv1": (2, 1)})
    assert given.widths == (36, 18, 4) and "does not say which input size" not in given.note


@pytest.mark.parametrize("shape", [(6,), (2, 3), (1, 2, 3), (3, 2, 1)])
def test_input_shape_of_a_network_of_linear_layers_holds_its_inputs(shape):
    state = {"a.weight": np.ones((4, 6)), "b.weight": np.ones((3, 4))}
    assert rf.Network.from_state_dict(state, input_shape=shape).widths == (6, 4, 3)


@pytest.mark.parametrize("shape", [(9,), (1, 3, 3), (3, 3), (0, 6), (6, 1, 1, 1)])
def test_an_input_shape_that_does_not_hold_the_inputs_is_refused(shape):
    """Before: (1, 3, 3) for a 6-input network of linear layers was ignored without a word."""
    state = {"a.weight": np.ones((4, 6)), "b.weight": np.ones((3, 4))}
    with pytest.raises(InputError, match="input_shape"):
        rf.Network.from_state_dict(state, input_shape=shape)


def test_input_shape_one_number_from_the_command_line(tmp_path):
    path = tmp_path / "mlp.npz"
    np.savez(path, **{"a.weight": np.eye(6), "a.bias": np.ones(6), "b.weight": np.ones((3, 6))})
    rc, _, err = _run("check", path, "--input-shape", "6", "--quiet", "--time-limit", "20")
    assert rc in (0, 1, 3), err
    rc, _, err = _run("check", path, "--input-shape", "1,3,3", "--quiet")
    assert rc == 2 and "input_shape" in err
