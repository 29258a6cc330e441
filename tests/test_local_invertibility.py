"""Local invertibility on data sets, and rank-deficient trained layers: a verdict, not an error."""

import json
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb as rf


def _rank61(seed=0, N=300):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((128, 64))
    W[:, :3] = 0.0  # three pixels never seen: their weights never moved
    b = rng.normal(0.0, 0.1, 128)
    X = np.abs(rng.standard_normal((N, 64))) * 4
    X[:, :3] = 0.0
    return W, -b, X


def test_local_invertibility_matches_a_rank_test_per_point():
    W, alpha, X = _rank61()
    with pytest.raises(rf.InputError, match="from_weights"):  # a raw pair: the bias convention is not known
        rf.local_invertibility((W, alpha), X)
    r = rf.local_invertibility(rf.Network.from_weights([(W, -alpha)]), X)
    assert r.span_dim == 61 and r.n == 64 and 0 < r.fraction < 1
    V = rf.local_invertibility.__globals__["data_span"](X)
    for i in range(0, 300, 7):  # brute force: the rank of the active rows restricted to the span
        act = X[i] @ W.T >= alpha
        assert r.invertible[i] == (np.linalg.matrix_rank(W[act] @ V) == 61)
    assert set(r.failing) == set(np.flatnonzero(~r.invertible)) and "61-dimensional span" in r.text


def test_full_rank_data_is_the_rectifying_test():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.3)
    X = rf.Ball(2).sample(500, seed=3)
    np.testing.assert_array_equal(rf.local_invertibility(L, X).invertible, rf.is_rectifying(L, X))


def test_rank_deficient_weights_are_a_verdict_with_a_verified_pair():
    W, alpha, X = _rank61()
    net = rf.Network.from_weights([(W, -alpha)])
    v = rf.check(net, rf.Box(0.0, 16.0, n=64), time_limit=20)
    assert v.status == "not injective" and v.exit_code == 1 and "rank 61" in v.report()
    x, y = v.pair
    out = lambda z: np.maximum(W @ z - alpha, 0)  # noqa: E731
    assert not np.allclose(x, y) and np.allclose(out(x), out(y), rtol=0, atol=1e-12)
    assert rf.Box(0.0, 16.0, n=64).contains_certified(np.vstack([x, y])).all()
    data = rf.check(net, rf.Samples(X), time_limit=20)
    assert data.status == "injective" and 0 < data.details["local_invertibility"]["fraction"] < 1


@pytest.mark.parametrize("domain", ["box:0,16", "samples:{X}"])
def test_cli_rank_deficient_is_not_bad_input(tmp_path, domain):
    W, alpha, X = _rank61(N=120)
    np.savez(tmp_path / "layer.npz", W=W, alpha=alpha)
    np.save(tmp_path / "X.npy", X)
    spec = domain.format(X=tmp_path / "X.npy")
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", str(tmp_path / "layer.npz"), "--domain", spec,
                           "--json", "--quiet", "--time-limit", "20"], capture_output=True, text=True)  # fmt: skip
    rep = json.loads(proc.stdout)
    assert proc.returncode in (0, 1) and rep["exit_code"] == proc.returncode
    if domain.startswith("box"):  # a layer that is not a frame: its details say the rank
        assert rep["details"]["weights_rank"] == 61
    else:  # on the data: exact, with local invertibility in the data's 61-dimensional span
        assert "61-dimensional span" in rep["details"]["local_invertibility"]["text"]


def test_a_time_limit_leaves_patterns_untested_and_says_so():
    # issue 18: 10,000 points of a wide layer took minutes of rank tests; with a limit the common patterns come first
    rng = np.random.default_rng(5)
    W = rng.standard_normal((40, 8))
    X = rng.standard_normal((3000, 8))
    full = rf.local_invertibility(rf.ReLULayer(W, 0.0), X)
    assert full.tested is None and full.n_tested == 3000
    none = rf.local_invertibility(rf.ReLULayer(W, 0.0), X, time_limit=0.0)
    assert none.tested is not None and none.n_tested < 3000 and "time limit" in none.text
    # what was tested agrees with the full run; untested points are not claimed invertible
    assert np.array_equal(none.invertible[none.tested], full.invertible[none.tested])
    assert not none.invertible[~none.tested].any()
    with pytest.raises(rf.InputError):
        rf.local_invertibility(rf.ReLULayer(W, 0.0), X, time_limit=-1)
