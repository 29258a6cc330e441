"""Real layer sizes: the fast and memory-bounded paths give the answers of the plain ones.

No timings here (see ``benchmarks/bench_sizes.py``): every test compares a new path with the
old one (or with itself under several ``max_memory`` values) on random cases, including
frames that are not full spark (repeated rows, rows in a hyperplane).
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util import patterns as _patterns
from relu_frames_nb._util.patterns import certify_spanning, pattern_spectra, spanning_mask, spans_rows
from relu_frames_nb.paper import rectifying
from relu_frames_nb.paper.bias.sampling import sampling_bias
from relu_frames_nb.paper.rectifying import _is_rectifying_per_pattern, check_rectifying, find_collision, is_rectifying

MEMORIES = (1024, 20_000, 300_000, 2**30)


def _frame(rng, m, n, kind):
    W = rng.standard_normal((m, n))
    if kind == "repeated":  # repeated rows and scaled copies: not full spark
        W = np.vstack([W, W[: m // 2], 2.0 * W[: m // 3]])
    elif kind == "hyperplane":  # many rows in one hyperplane: large active sets that do not span
        H = rng.standard_normal((2 * m, n))
        H[:, -1] = 0.0
        W = np.vstack([W[: max(1, n // 2)], H])
    return W


def _cases():
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 7))
        m = int(rng.integers(n, 5 * n))
        kind = ("gaussian", "repeated", "hyperplane")[seed % 3]
        yield seed, _frame(rng, m, n, kind), rng


@pytest.mark.parametrize("seed, W, rng", list(_cases()))
def test_spanning_mask_equals_one_svd_per_pattern(seed, W, rng):
    mask = rng.random((400, W.shape[0])) < rng.uniform(0.2, 0.9)
    mask[:50] = mask[0]  # equal rows
    mask[50:60, : W.shape[1]] = True  # at least n rows
    expected = np.array([spans_rows(W, np.flatnonzero(r), 1e-10)[0] for r in mask])
    for mem in MEMORIES:
        np.testing.assert_array_equal(spanning_mask(W, mask, 1e-10, max_memory=mem), expected)


@pytest.mark.parametrize("m, n", [(120, 20), (150, 60), (200, 60)])
def test_spanning_mask_in_higher_dimension(m, n):
    # n = 20 uses the batched eigvalsh, n = 60 one Cholesky per Gram matrix
    rng = np.random.default_rng(m + n)
    W = _frame(rng, m, n, "gaussian")
    W[-n // 2 :] = W[: n // 2]  # some repeated rows
    mask = rng.random((60, W.shape[0])) < 0.7
    mask[:10, n - 1 :] = False  # at most n - 1 rows: never spans
    expected = np.array([spans_rows(W, np.flatnonzero(r), 1e-10)[0] for r in mask])
    np.testing.assert_array_equal(spanning_mask(W, mask, 1e-10), expected)
    assert expected.any() and not expected.all()


def test_certificate_never_claims_a_set_that_does_not_span():
    rng = np.random.default_rng(0)
    n = 5
    H = rng.standard_normal((400, n))
    H[:, -1] = 0.0  # every row in one hyperplane
    U = H / np.linalg.norm(H, axis=1, keepdims=True)
    mask = rng.random((200, 400)) < 0.8
    assert not certify_spanning(U, mask, 1e-10).any()
    # and a well-spread random frame: almost every large active set is certified
    G = rng.standard_normal((400, n))
    G /= np.linalg.norm(G, axis=1, keepdims=True)
    assert certify_spanning(G, mask, 1e-10).mean() > 0.95


@pytest.mark.parametrize("seed, W, rng", list(_cases())[::2])
def test_is_rectifying_equals_the_per_pattern_path_for_every_max_memory(seed, W, rng):
    L = rf.ReLULayer(rf.Frame(W), rng.normal(0.2, 0.5, W.shape[0]))
    X = 1.5 * rng.standard_normal((1500, W.shape[1]))
    X[:100] = X[0]  # repeated points
    expected = _is_rectifying_per_pattern(L, X)
    for mem in MEMORIES:
        np.testing.assert_array_equal(is_rectifying(L, X, full_spark=False, max_memory=mem), expected)
    np.testing.assert_array_equal(is_rectifying(L, X), expected)


def test_is_rectifying_on_a_wide_random_layer():
    rng = np.random.default_rng(3)
    m, n = 400, 40
    L = rf.ReLULayer.from_weights(rng.standard_normal((m, n)) / np.sqrt(n), rng.normal(-0.6, 0.2, m))
    X = rf.Ball(n, 3.0).sample(300, seed=1) * np.linspace(0.0, 1.0, 300)[:, None]  # norms from 0 to 3
    expected = _is_rectifying_per_pattern(L, X)
    assert expected.any() and not expected.all()
    for mem in (4096, 2**20, 2**28):
        np.testing.assert_array_equal(is_rectifying(L, X, max_memory=mem), expected)


def test_pattern_spectra_without_the_table(monkeypatch):
    rng = np.random.default_rng(1)
    phi = rng.standard_normal((50, 6))
    pats = rng.random((300, 50)) < 0.5
    with_table = pattern_spectra(phi, pats)
    monkeypatch.setattr(_patterns, "CHUNK_ELEMS", 1000)  # the (m, n^2) table no longer fits
    np.testing.assert_allclose(pattern_spectra(phi, pats), with_table, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pattern_spectra(phi, pats, 0.5, 0.1), _table_spectra(phi, pats, 0.5, 0.1), rtol=1e-10, atol=1e-12)


def _table_spectra(phi, pats, w_in, w_out):
    out = []
    for p in pats:
        S = w_in * phi[p].T @ phi[p] + w_out * phi[~p].T @ phi[~p]
        w = np.linalg.eigvalsh(S)
        out.append([w[0], w[-1]])
    return np.array(out)


def test_sampling_bias_with_many_initial_points_is_independent_of_max_memory():
    # m initial points (the normalized frame) once made an m x m block
    F = rf.zoo.gaussian(3000, 3, seed=2)
    ref = sampling_bias(F, rf.Ball(3), n_samples=5000, init="frame", max_memory=2**30)
    for mem in (2**16, 2**20, 2**24):
        est = sampling_bias(F, rf.Ball(3), n_samples=5000, init="frame", max_memory=mem)
        np.testing.assert_array_equal(est.values, ref.values)
        np.testing.assert_array_equal(est.info["argmin_index"], ref.info["argmin_index"])


def test_equal_outputs_on_a_data_set_by_blocks(monkeypatch):
    rng = np.random.default_rng(4)
    L = rf.ReLULayer(rf.zoo.gaussian(30, 3, seed=4), 0.8)
    X = rng.standard_normal((500, 3)) * 0.3  # many points with every element inactive: equal outputs
    dense = find_collision(L, rf.Samples(X))
    monkeypatch.setattr(rectifying, "DEFAULT_MAX_MEMORY", 24 * 30 * 7)  # blocks of 7 points: hashed keys
    blocked = find_collision(L, rf.Samples(X))
    assert dense.found and blocked.found
    assert np.allclose(L(blocked.x), L(blocked.y)) and not np.allclose(blocked.x, blocked.y)
    Y = rng.standard_normal((200, 3)) * 3
    L2 = rf.ReLULayer(rf.zoo.gaussian(30, 3, seed=5), -5.0)  # everything active: injective on any set
    assert not find_collision(L2, rf.Samples(Y)).found


def test_check_rectifying_reports_how_far_a_time_limit_got():
    L = rf.ReLULayer(rf.zoo.gaussian(60, 4, seed=0), 0.3)
    full = check_rectifying(L, rf.Ball(4), n_samples=4000)
    assert full.complete and full.n_checked == full.n_requested == 4000 and full.kind == "sampled"
    part = check_rectifying(L, rf.Ball(4), n_samples=4000, time_limit=0.0, max_memory=60 * 10 * 100)
    assert not part.complete and 0 < part.n_checked < 4000 and part.kind == "partial"
    assert "time limit" in part.describe() and f"{part.n_checked} of 4000" in part.describe()
    assert part.n_failed == int(np.sum(~is_rectifying(L, rf.Ball(4).sample(4000, seed=0)[: part.n_checked])))


def test_sampling_bias_time_limit_reports_what_it_reached():
    F = rf.zoo.gaussian(40, 3, seed=1)
    est = sampling_bias(F, rf.Ball(3), n_samples=300_000, time_limit=0.0, chunk_size=256)
    assert est.info["time_limit_hit"] and 0 < est.n_samples < 300_000
    prefix = sampling_bias(F, rf.Ball(3), n_samples=est.n_samples, chunk_size=256)
    np.testing.assert_array_equal(est.values, prefix.values)  # the estimate of the samples it reached
    full = sampling_bias(F, rf.Ball(3), n_samples=3000, time_limit=1e9)
    assert not full.info["time_limit_hit"] and full.n_samples == 3000
    X = rf.Ball(3).sample(20_000, seed=2)
    part = sampling_bias(F, X, time_limit=0.0, chunk_size=128)
    assert part.guarantee == "on-samples" and part.n_samples < 20_000
