import json
import subprocess
import sys
import types

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.cli import (
    EXIT_BAD_INPUT,
    EXIT_INJECTIVE,
    EXIT_NOT_INJECTIVE,
    EXIT_UNDETERMINED,
    check_layer,
    load_layer,
    parse_domain,
)
from relu_frames_nb.errors import InputError

SQ3 = np.sqrt(3.0)


@pytest.fixture
def triangle_files(tmp_path):
    W = rf.zoo.mercedes_benz().vectors
    np.save(tmp_path / "W.npy", W)
    np.savetxt(tmp_path / "W.csv", W, delimiter=",")
    np.savez(tmp_path / "layer.npz", W=W, b=np.full(3, 0.5))  # PyTorch b = 0.5 -> alpha = -0.5
    np.savez(tmp_path / "alpha.npz", weight=W, alpha=np.zeros(3))
    return tmp_path


def test_load_formats_agree(triangle_files):
    t = triangle_files
    a = load_layer(t / "W.npy", bias="0.5")
    b = load_layer(t / "W.csv", bias="0.5,0.5,0.5")
    c = load_layer(t / "layer.npz")
    for L in (a, b, c):
        np.testing.assert_allclose(L.frame.vectors, rf.zoo.mercedes_benz().vectors, atol=1e-15)
        np.testing.assert_allclose(L.alpha, -0.5)
    np.testing.assert_allclose(load_layer(t / "alpha.npz").alpha, 0.0)
    np.testing.assert_allclose(load_layer(t / "W.npy", bias="alpha:-0.25").alpha, -0.25)
    np.save(t / "b.npy", np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(load_layer(t / "W.npy", bias=str(t / "b.npy")).alpha, [-1, -2, -3])


def test_load_refuses_bad_files(tmp_path):
    (tmp_path / "bad.npy").write_bytes(b"not an array")
    (tmp_path / "bad.csv").write_text("1,2\nx,y\n")
    np.save(tmp_path / "vec.npy", np.ones(3))
    np.savez(tmp_path / "two.npz", A=np.ones((3, 2)), B=np.ones((4, 2)))
    obj = np.empty(2, dtype=object)
    np.save(tmp_path / "obj.npy", obj, allow_pickle=True)
    for name in ("bad.npy", "bad.csv", "vec.npy", "two.npz", "obj.npy", "missing.npy"):
        with pytest.raises(InputError):
            load_layer(tmp_path / name)
    np.save(tmp_path / "W.npy", np.eye(2))
    with pytest.raises(InputError, match="b must be a vector of length 2"):
        load_layer(tmp_path / "W.npy", bias="1,2,3")
    with pytest.raises(InputError, match="--bias"):
        load_layer(tmp_path / "W.npy", bias="one,two")
    (tmp_path / "W.txt").write_text("1 0\n0 0\n")
    with pytest.raises(InputError):
        load_layer(tmp_path / "W.txt")  # zero row: not a frame


def test_parse_domain():
    assert parse_domain("ball:2", 3) == rf.Ball(3, 2.0)
    assert parse_domain("sphere", 2) == rf.Sphere(2)
    assert parse_domain("shell:0.5,1", 2) == rf.Shell(2, 0.5, 1.0)
    assert parse_domain("positive-ball:1", 2) == rf.PositiveBall(2)
    assert parse_domain("real-space", 2) == rf.RealSpace(2)
    for bad in ("cube:1", "shell:1", "shell:1,0.5", "ball:-1", "ball:x", "", "samples:"):
        with pytest.raises(InputError):
            parse_domain(bad, 2)


def test_samples_domain(tmp_path):
    np.save(tmp_path / "X.npy", np.ones((5, 3)))
    assert isinstance(parse_domain(f"samples:{tmp_path / 'X.npy'}", 3), rf.Samples)
    with pytest.raises(InputError, match="must have 2 columns"):
        parse_domain(f"samples:{tmp_path / 'X.npy'}", 2)


def test_torch_state_dict_loader_with_a_stub(tmp_path, monkeypatch):
    """The loader's logic (weights_only=True, key choice, bias convention) without torch installed."""
    calls = {}
    W1 = np.vstack([np.eye(2), -np.eye(2)])
    b1 = np.array([0.1, 0.2, 0.3, 0.4])
    state = {"enc.weight": W1, "enc.bias": b1, "dec.weight": np.ones((2, 4)), "dec.bias": np.zeros(2)}

    def fake_load(path, map_location=None, weights_only=False):
        calls["weights_only"] = weights_only
        return state

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(load=fake_load))
    (tmp_path / "model.pt").write_bytes(b"stub")
    with pytest.raises(InputError, match="--layer"):
        load_layer(tmp_path / "model.pt")
    L = load_layer(tmp_path / "model.pt", layer_name="enc")
    assert calls["weights_only"] is True
    np.testing.assert_allclose(L.frame.vectors, W1)
    np.testing.assert_allclose(L.alpha, -b1)


def test_real_torch_state_dict(tmp_path):
    torch = pytest.importorskip("torch")
    lin = torch.nn.Linear(2, 6)
    torch.save(lin.state_dict(), tmp_path / "lin.pt")
    L = load_layer(tmp_path / "lin.pt")
    np.testing.assert_allclose(L.alpha, -lin.bias.detach().numpy(), rtol=1e-6)


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_bad_input_exit_code_and_no_traceback(tmp_path):
    rc, out, err = _run("check", tmp_path / "missing.npy")
    assert rc == EXIT_BAD_INPUT and "Traceback" not in err and "no such file" in err
    rc, out, err = _run("check")
    assert rc == EXIT_BAD_INPUT and "Traceback" not in err
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    rc, out, err = _run("check", tmp_path / "W.npy", "--domain", "cube")
    assert rc == EXIT_BAD_INPUT and "--domain" in err and "Traceback" not in err
    rc, out, err = _run("check", tmp_path / "missing.npy", "--json")
    assert rc == EXIT_BAD_INPUT and json.loads(out)["verdict"] == "error"


def test_check_verdicts_triangle(triangle_files):
    t = triangle_files
    # alpha = -1/2 on the unit ball: injective, guaranteed by the polytope bias (Example "mb")
    rc, out, err = _run("check", t / "layer.npz", "--domain", "ball:1", "--samples", "20000", "--json")
    rep = json.loads(out)
    assert rc == EXIT_INJECTIVE and rep["verdict"] == "injective", err
    np.testing.assert_allclose(rep["polytope_bias"], [-0.5] * 3, atol=1e-12)
    # alpha = 0: not injective, with a collision pair that really collides
    rc, out, _ = _run("check", t / "W.npy", "--domain", "ball:1", "--samples", "20000", "--json")
    rep = json.loads(out)
    assert rc == EXIT_NOT_INJECTIVE and rep["verdict"] == "not injective"
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    x, y = np.array(rep["collision"]["x"]), np.array(rep["collision"]["y"])
    np.testing.assert_allclose(L(x), L(y), atol=1e-9)
    assert np.linalg.norm(x - y) > 1e-4 and np.linalg.norm(x) <= 1 + 1e-12 and np.linalg.norm(y) <= 1 + 1e-12
    # text output has one line per element
    rc, out, _ = _run("check", t / "layer.npz", "--samples", "5000")
    assert rc == EXIT_INJECTIVE and "INJECTIVE" in out and out.count("\n") >= 6


def test_check_layer_undetermined_and_exact_sets():
    # a tiny margin above the polytope bias: no guarantee, and sampling cannot find the thin failure region
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Sphere(3)).values
    rep = check_layer(rf.ReLULayer(F, pbe + 1e-9), rf.Sphere(3), n_samples=2000)
    assert rep.verdict in ("undetermined", "not injective") and rep.exit_code in (EXIT_UNDETERMINED, EXIT_NOT_INJECTIVE)
    # finite data set: exact in both directions (Example "mb2")
    pts = np.array([[0.5, SQ3 / 2], [-0.5, SQ3 / 2], [0.0, -1.0]])
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    assert check_layer(L, rf.Samples(pts)).verdict == "not injective"
    assert check_layer(L, rf.Samples(pts[1:])).verdict == "injective"


def test_check_zero_bias_real_space_exact():
    L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), 0.0)
    rep = check_layer(L, rf.RealSpace(3), n_samples=2000)
    assert rep.verdict == "injective" and rep.details["method"] == "Tukey depth"
    # alpha <= 0 keeps the property (Prop. "inclusive"); the triangle frame (m < 2n) is never injective on R^n
    assert check_layer(L.with_bias(-0.3), rf.RealSpace(3), n_samples=2000).verdict == "injective"
    assert check_layer(rf.ReLULayer(rf.zoo.mercedes_benz(), -1.0), rf.RealSpace(2), n_samples=2000).verdict == "not injective"
