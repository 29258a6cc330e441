"""``near=`` / ``--near X.npy`` (issue 30): the search for a colliding pair starts at a given input.

The layer ``ReLU(±x_i - 1/2)`` on [-1, 1]^2 and the network whose output is ``(ReLU(x_1 - 1/2), ReLU(x_2 - 1/2))``
(an injective first layer, then a narrowing one) are not injective; at ``x0 = (0.8, 0.1)`` one unit is active, so
moving ``x_2`` alone changes nothing: a pair within a short distance of ``x0`` exists, and ``near=x0`` must find one.
"""

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.pairs import collides, network_collision
from relu_frames_nb.domains import parse_domain
from relu_frames_nb.errors import InputError

X0 = np.array([0.8, 0.1])
SIGNS = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
#: the distance from x0 to the switching line x_2 = 1/2 is 0.4: a pair started at x0 lies within it
NEAR = 0.4


def _box():
    return parse_domain("box:-1,1", 2)


def _layer():
    return rf.ReLULayer(SIGNS, 0.5)


def _net():
    W2 = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0]])
    return rf.Network.from_weights([(SIGNS, np.zeros(4)), (W2, np.array([-0.5, -0.5]))])


def test_a_layer_pair_near_the_given_point():
    L = _layer()
    v = rf.check(L, _box(), near=X0, time_limit=30)
    assert v.status == "not injective"
    x, y = v.pair
    assert collides(L.weights, L.alpha, x, y) and not np.array_equal(x, y)
    dist = [float(np.linalg.norm(p - X0)) for p in (x, y)]
    assert max(dist) < NEAR
    assert v.details["near"]["distance"] == pytest.approx(max(dist))
    assert any(n.startswith("near=") for n in v.notes)


def test_a_network_pair_near_the_given_point():
    net = _net()
    v = rf.check(net, _box(), near=X0, time_limit=30)
    assert v.status == "not injective"
    x, y = v.pair
    layers = [(np.asarray(W), -np.asarray(b)) for W, b in net.weights]
    assert network_collision(layers, x, y) == 2  # the pair collides after layer 2 (the first layer is injective)
    np.testing.assert_allclose(net(x), net(y), atol=1e-12)
    assert max(float(np.linalg.norm(p - X0)) for p in (x, y)) < NEAR
    assert v.details["near"]["distance"] < NEAR
    assert "near=" in v.layers[-1].text or "near=" in v.layers[0].text  # the line says where the pair was found


def test_near_never_makes_a_verdict_weaker():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    plain = rf.check(L, rf.Ball(2), time_limit=30)
    near = rf.check(L, rf.Ball(2), near=[0.1, -0.2], time_limit=30)
    assert plain.status == near.status == "injective"
    assert near.details["near"] == {"distance": None, "pair": False}


def test_on_a_data_set_near_only_measures_the_distance():
    X = np.array([[0.8, 0.1], [0.8, 0.2], [-0.3, 0.4]])
    v = rf.check(_layer(), X, near=[0.0, 0.0], time_limit=30)
    assert v.status == "not injective"
    assert v.details["near"]["distance"] == pytest.approx(max(np.linalg.norm(p) for p in v.pair))


@pytest.mark.parametrize("model", [_layer(), _net()], ids=["layer", "network"])
@pytest.mark.parametrize(
    "x0, said",
    [
        (np.zeros(3), "shape (2,)"),
        (np.zeros((2, 2)), "shape (2,)"),
        (np.array([np.nan, 0.0]), "finite"),
        (np.array([np.inf, 0.0]), "finite"),
        (np.array([2.0, 0.0]), "outside"),
        ("a string", "near must"),
    ],
)
def test_bad_points_are_refused(model, x0, said):
    with pytest.raises(InputError, match="near must") as err:
        rf.check(model, _box(), near=x0, time_limit=5)
    assert said in str(err.value)


def _cli(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout


def test_the_command_line_flag(tmp_path):
    np.save(tmp_path / "W.npy", SIGNS)
    np.save(tmp_path / "x0.npy", X0)
    np.save(tmp_path / "x0_image.npy", X0.reshape(1, 2))  # any shape of the input's size, read row by row
    base = [tmp_path / "W.npy", "--bias", "alpha:0.5", "--domain", "box:-1,1", "--json", "--quiet", "--time-limit", "30"]
    for name in ("x0.npy", "x0_image.npy"):
        rc, out = _cli(*base, "--near", tmp_path / name)
        v = json.loads(out)
        assert rc == 1 and v["status"] == "not injective"
        x, y = (np.array(p) for p in v["pair"])
        assert collides(SIGNS, np.full(4, 0.5), x, y)
        assert v["details"]["near"]["distance"] < NEAR
        assert max(np.linalg.norm(x - X0), np.linalg.norm(y - X0)) < NEAR


def test_the_command_line_refuses_bad_files_by_name(tmp_path):
    np.save(tmp_path / "W.npy", SIGNS)
    np.save(tmp_path / "three.npy", np.zeros(3))
    np.save(tmp_path / "nan.npy", np.array([np.nan, 0.0]))
    np.save(tmp_path / "outside.npy", np.array([3.0, 0.0]))
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    (tmp_path / "pickled.npy").write_bytes(pickle.dumps([0.8, 0.1]))
    base = [tmp_path / "W.npy", "--bias", "alpha:0.5", "--domain", "box:-1,1", "--json", "--quiet", "--time-limit", "10"]
    cases = (
        ("three.npy", "got shape (3,)"),
        ("nan.npy", "finite"),
        ("outside.npy", "outside"),
        ("objects.npy", "objects.npy"),
        ("pickled.npy", "pickled.npy"),
        ("missing.npy", "does not exist"),
    )
    for name, said in cases:
        rc, out = _cli(*base, "--near", tmp_path / name)
        v = json.loads(out)
        assert rc == 2 and v["error_kind"] == "bad input", (name, v)
        assert said in v["error"], (name, v["error"])
        if name != "outside.npy":
            assert "--near" in v["error"]


def test_the_option_is_in_the_help():
    rc, out = _cli("--help")
    assert rc == 0 and "--near FILE.npy" in out
