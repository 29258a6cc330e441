"""`check` on a whole network: an .npz (or state dict) with several linear layers, reported per layer."""

import json
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb as rf


def _net(tmp_path, b2):
    rng = np.random.default_rng(0)
    W1, W2 = rng.standard_normal((12, 3)) / np.sqrt(3), rng.standard_normal((30, 12)) / np.sqrt(12)
    path = tmp_path / "net.npz"
    np.savez(path, **{"fc1.weight": W1, "fc1.bias": np.full(12, 0.3), "fc2.weight": W2, "fc2.bias": np.full(30, b2)})
    return path, (W1, np.full(12, 0.3)), (W2, np.full(30, b2))


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_check_whole_network_certified_per_layer(tmp_path):
    path, *_ = _net(tmp_path, 1.0)
    rc, out, err = _run("check", path, "--domain", "ball:1", "--json", "--quiet")
    rep = json.loads(out)
    assert rc == 0 and rep["status"] == "injective" and [ly["status"] for ly in rep["layers"]] == ["injective"] * 2
    assert err == ""  # --quiet: no progress, and nothing of HiGHS on the terminal


def test_check_whole_network_witness_is_a_real_collision(tmp_path):
    rng = np.random.default_rng(1)
    W1, W2 = rng.standard_normal((12, 3)), rng.standard_normal((30, 12))
    path = tmp_path / "bad.npz"
    np.savez(path, **{"a.weight": W1, "a.bias": np.full(12, -2.0), "b.weight": W2, "b.bias": np.zeros(30)})
    rc, out, _ = _run("check", path, "--domain", "ball:1", "--json", "--quiet")
    rep = json.loads(out)
    assert rc == 1 and rep["status"] == "not injective"
    x, y = (np.array(p) for p in rep["pair"])
    net = rf.Network.from_weights([(W1, np.full(12, -2.0)), (W2, np.zeros(30))])
    assert not np.allclose(x, y) and np.linalg.norm(x) <= 1 + 1e-9 and np.linalg.norm(y) <= 1 + 1e-9
    np.testing.assert_allclose(net(x), net(y), rtol=1e-12, atol=1e-12)
    assert rf.Ball(3).contains_certified(np.vstack([x, y])).all()


def test_layer_option_still_checks_one_layer(tmp_path):
    path, (W1, b1), _ = _net(tmp_path, 1.0)
    rc, out, err = _run("check", path, "--layer", "fc1", "--json", "--quiet")
    assert rc == 2 and "PyTorch state dict" in json.loads(out)["error"]  # --layer is for .pt/.pth state dicts


def test_the_spark_refusal_formats_a_count_beyond_any_float():
    """C(1568, 784) ~ 2e470 overflowed the '.3g' format: a CNN's `check --last-linear` (a 784 -> 1568 convolution) exited 4."""
    from math import comb

    F = rf.Frame(np.random.default_rng(0).standard_normal((1568, 784)))
    with pytest.raises(rf.TooExpensiveError, match=r"C\(1568, 784\) = 2\.09e\+470 subsets; max_subsets is 2e\+05"):
        F.spark(max_subsets=200_000)
    assert f"{comb(60, 30):.3g}" in _refusal(rf.Frame(np.random.default_rng(0).standard_normal((60, 30))))


def _refusal(F):
    with pytest.raises(rf.TooExpensiveError) as info:
        F.spark(max_subsets=10)
    return str(info.value)
