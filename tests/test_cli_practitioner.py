"""The command line's practitioner items (issue 30): box:FILE in --help, --save-pair's folder checked first,
dead units on the data, unusual .pt tensors as bad input."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb import cli
from relu_frames_nb.network.model import dead_unit_report


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_box_file_is_in_the_help():
    rc, out, _ = _run("check", "--help")
    assert rc == 0 and "box:FILE" in " ".join(out.split())  # before: "box:LO,HI | FILE", the FILE without its name


def test_save_pair_into_a_missing_folder_is_refused_before_the_check(tmp_path, monkeypatch, capsys):
    np.save(tmp_path / "W.npy", np.eye(2))

    def no_check(*a, **k):
        raise AssertionError("the check ran before --save-pair's folder was looked at")

    monkeypatch.setattr(cli, "check", no_check)
    for target, said in ((tmp_path / "missing" / "pair.png", "does not exist"), (tmp_path / "pair.txt", ".png, .pdf or .svg"),
                         (tmp_path, ".png")):  # fmt: skip
        rc = cli.main(["check", str(tmp_path / "W.npy"), "--quiet", "--save-pair", str(target)])
        assert rc == cli.EXIT_BAD_INPUT and said in capsys.readouterr().err


def _mlp(tmp_path):
    rng = np.random.default_rng(0)
    W1 = rng.standard_normal((16, 3))
    b1 = np.zeros(16)
    b1[[2, 5, 11]] = -50.0  # never active on data of norm <= 5
    W2 = rng.standard_normal((8, 16))
    b2 = np.zeros(8)
    b2[7] = -1e6
    X = rng.standard_normal((200, 3))
    np.save(tmp_path / "X.npy", X)
    path = tmp_path / "net.npz"
    np.savez(path, **{"fc1.weight": W1, "fc1.bias": b1, "fc2.weight": W2, "fc2.bias": b2})
    return path, rf.Network.from_weights([(W1, b1), (W2, b2)]), X


def test_dead_units_on_the_data_in_the_text_and_the_json(tmp_path):
    path, net, X = _mlp(tmp_path)
    dead = net.dead_units(X)
    for k in (0, 1):  # against the outputs of each layer
        H = net.forward(X, upto=k + 1)
        assert np.all(H[:, dead[k]] == 0) and np.all(np.delete(H, dead[k], axis=1).max(axis=0) > 0)
    assert dead[0].tolist() == [2, 5, 11] and 7 in dead[1]
    second = f"{dead[1].size} of 8 units of layer fc2 {'is' if dead[1].size == 1 else 'are'} never active"
    for spec in ("samples", "hull"):
        rc, out, err = _run("check", path, "--domain", f"{spec}:{tmp_path / 'X.npy'}", "--quiet", "--time-limit", "20")
        assert rc in (0, 1, 3), err
        assert "3 of 16 units of layer fc1 are never active on the 200 data points (the first: 2, 5, 11)" in out
        assert second in out
        rc, out, err = _run("check", path, "--domain", f"{spec}:{tmp_path / 'X.npy'}", "--quiet", "--json",
                            "--time-limit", "20")  # fmt: skip
        rep = json.loads(out)["details"]["dead_units"]
        assert rep["n_points"] == 200 and [(ly["layer"], ly["dead"], ly["first"]) for ly in rep["layers"]] == [
            ("fc1", 3, [2, 5, 11]), ("fc2", dead[1].size, dead[1].tolist())]
    rc, out, _ = _run("check", path, "--domain", "ball:1", "--quiet", "--time-limit", "20")
    assert "never active" not in out  # not a data set: no report


def test_dead_units_of_one_layer_through_the_api():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((10, 2))
    alpha = np.zeros(10)
    alpha[[0, 9]] = 100.0  # ReLU(W x - alpha): these two never fire on small data
    X = rng.uniform(-1, 1, (50, 2))
    details, text = dead_unit_report(rf.ReLULayer(W, alpha), X)
    assert details["layers"][0]["first"] == [0, 9] and "2 of 10 units of the layer are never active on the 50" in text
    v = rf.check(rf.ReLULayer(W, alpha), rf.Samples(X), time_limit=20)
    assert v.details["dead_units"]["layers"][0]["dead"] == 2 and any("never active" in n for n in v.notes)
    assert v.to_dict()["details"]["dead_units"]["n_points"] == 50


def test_a_last_linear_layer_has_no_dead_units_to_report():
    net = rf.Network.from_weights([(np.eye(2), None), (-np.ones((3, 2)), None)], last="linear")
    assert [d.tolist() for d in net.dead_units(np.abs(np.random.default_rng(0).standard_normal((5, 2))))] == [[]]


def test_sparse_tensors_from_the_command_line_are_read(tmp_path):
    torch = pytest.importorskip("torch")
    W = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    for layout in ("to_sparse", "to_sparse_csr"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.save({"fc.weight": getattr(W, layout)(), "fc.bias": torch.full((3,), 0.5)}, tmp_path / "s.pt")
        rc, out, err = _run("check", tmp_path / "s.pt", "--quiet", "--json", "--time-limit", "20")
        assert rc in (0, 1, 3) and json.loads(out)["status"] != "error", err


def test_the_null_space_text_gives_the_rank_at_one_point_as_such():
    """Before: "the rows that can be active on the domain have rank 2 < 6", the rank of the rows active at x only."""
    rng = np.random.default_rng(0)
    W = rng.standard_normal((4, 6))
    b = np.array([1.0, 1.0, -1.0, -1.0])  # at the centre only two rows are active, all four can be
    v = rf.check(rf.ReLULayer.from_weights(W, b), rf.Ball(6), time_limit=20)
    assert v.status == "not injective", v.text
    assert "rows that can be active" not in v.text and "at x, 2 rows are active, of rank 2" in v.text
