"""The exact half-space depth branch and bound (relu_frames_nb.paper.depth) against independent computations.

* data-depth (PyPI, a C++ implementation of the exact algorithms of Dyckerhoff and Mozharovskyi) for
  n <= 5: ``depth > k`` exactly when the search says "deep";
* brute force in the plane (every cell of the arrangement of lines through 0);
* the package's own exhaustive Tukey enumeration (zero_bias.tukey_depth_origin);
* the exact stage on R^n with a bias (the kept lifting point) against the MILP on the faces of the cube.
"""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
import relu_frames_nb.paper.depth as depth_module
from relu_frames_nb._util.rational import barycentric
from relu_frames_nb.paper.depth import circuit_certified, circuits_certified, halfspace_depth_at_least
from relu_frames_nb.paper.zero_bias import tukey_depth_origin
from relu_frames_nb.pipeline.normal import normalise

halfspace = pytest.importorskip("depth.model.multivariate.Halfspace").halfspace


def _data_depth(W):
    """The Tukey depth of 0 among the rows of W, as a count, by data-depth."""
    m, n = W.shape
    return int(round(float(halfspace(np.zeros((1, n)), np.asarray(W, float), exact=True, method="recursive")[0]) * m))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("ratio", [2, 3, 5])
def test_agrees_with_data_depth(n, ratio):
    for seed in range(6):
        W = np.random.default_rng(1000 * n + 10 * ratio + seed).standard_normal((ratio * n, n))
        d = _data_depth(W)
        assert d == tukey_depth_origin(W).depth  # the two exact computations agree first
        for k in range(max(0, d - 2), d + 2):
            res = halfspace_depth_at_least(W, k)
            assert res.status == ("deep" if d > k else "shallow"), (n, ratio, seed, k, d)
            if res.status == "shallow":
                rest = np.setdiff1d(np.arange(W.shape[0]), res.removal)
                assert len(res.removal) <= k and np.all(W[rest] @ res.direction < 0)


def _plane_depth(W):
    """Brute force in R^2: the count at every cell of the arrangement of the lines w_i^perp."""
    ang = np.arctan2(W[:, 1], W[:, 0])
    crit = np.sort(np.mod(np.r_[ang + np.pi / 2, ang - np.pi / 2], 2 * np.pi))
    mids = (crit + np.roll(crit, -1) + 2 * np.pi * (np.arange(crit.size) == crit.size - 1)) / 2
    X = np.c_[np.cos(mids), np.sin(mids)]
    return int(np.min((X @ W.T >= 0).sum(axis=1)))


def test_agrees_with_brute_force_in_the_plane():
    for seed in range(40):
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((int(rng.integers(3, 14)), 2))
        d = _plane_depth(W)
        assert halfspace_depth_at_least(W, d - 1).deep if d >= 1 else True
        assert halfspace_depth_at_least(W, d).status == "shallow"


def test_kept_points_are_never_removed():
    # the square's four points: depth 2; keeping +e1 negative forbids the directions that would remove it
    square = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=float)
    assert halfspace_depth_at_least(square, 1).deep
    res = halfspace_depth_at_least(square, 2, kept=[0])
    assert res.status == "shallow" and 0 not in res.removal and square[0] @ res.direction < 0


def test_circuits_are_certified_exactly_like_rational_arithmetic():
    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(2, 9))
        V = rng.standard_normal((n + 1, n))
        lam = barycentric(V, np.zeros(n))
        assert circuit_certified(V) == (lam is not None and all(v >= 0 for v in lam))
    # 0 within 1e-13 of a facet: decided exactly either way
    V = np.array([[1.0, 0.0], [-1.0, 1e-13], [0.0, 1.0]])
    assert circuit_certified(V) == all(v >= 0 for v in barycentric(V, np.zeros(2)))


def test_the_batched_enclosure_decides_like_the_single_one():
    rng = np.random.default_rng(8)
    for n in (2, 5, 9):
        Vs = rng.standard_normal((300, n + 1, n))
        Vs[0, 1] = Vs[0, 0]  # a singular simplex (two equal points) in the batch
        Vs[1] = np.vstack([np.eye(n), -np.ones((1, n)) / n])  # 0 = the centroid-like point: inside
        Vs[1, :, 0] *= 1e-13  # ... of a very flat simplex
        got = circuits_certified(Vs)
        truth = [(lam is not None and all(v >= 0 for v in lam)) for lam in (barycentric(V, np.zeros(n)) for V in Vs)]
        assert got.tolist() == truth
        assert got.tolist() == [circuit_certified(V) for V in Vs]
        assert 0 < got.sum() < len(got)  # both answers occur
    assert circuits_certified(np.zeros((0, 4, 3))).shape == (0,)


def test_deep_is_said_only_after_every_circuit_passed(monkeypatch):
    # the circuits are proved in batches after being used; were none of them provable, the search that
    # closed its nodes on them must not say "deep"
    W = np.random.default_rng(3).standard_normal((28, 4))
    assert halfspace_depth_at_least(W, 3).deep  # (depth >= 4 at m = 7n: checked against data-depth below)
    assert _data_depth(W) > 3
    monkeypatch.setattr(depth_module, "circuits_certified", lambda Vs: np.zeros(len(Vs), dtype=bool))
    monkeypatch.setattr(depth_module, "CHECK_BATCH", 7)
    res = halfspace_depth_at_least(W, 3)
    assert res.status == "undetermined"
    monkeypatch.setattr(depth_module, "CHECK_BATCH", 10**9)  # only the final flush sees them
    assert halfspace_depth_at_least(W, 3).status == "undetermined"


@pytest.mark.parametrize("n", [4, 6, 8])
def test_the_exact_stage_decides_zero_bias_by_depth(n):
    W = np.random.default_rng(n).standard_normal((7 * n, n))
    L = rf.ReLULayer(W, 0.0)
    truth = tukey_depth_origin(W).depth >= n if n <= 6 else None
    for K in (rf.RealSpace(n), rf.Ball(n), rf.Box(-1, 1, n=n)):
        v = rf.check(L, K, method="exact", time_limit=60)
        assert v.decided, v.text
        if truth is not None:
            assert (v.status == "injective") == truth
        if v.status == "injective":
            assert v.method == "exact (depth)" and v.certificate.domain == f"R^{n}"


def test_a_bias_on_real_space_agrees_with_the_milp_on_the_faces():
    from relu_frames_nb._util.budget import Budget
    from relu_frames_nb.exact import solve_exact

    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 4))
        W = rng.standard_normal((int(rng.integers(2 * n, 6 * n)), n))
        alpha = rng.normal(-0.3, 0.4, W.shape[0])
        P = normalise(W, alpha, rf.RealSpace(n))
        by_depth = solve_exact(P.W, P.alpha, P.K, budget=Budget(30), method="auto")
        by_milp = solve_exact(P.W, P.alpha, P.K, budget=Budget(30), method="milp")
        if by_depth.decided and by_milp.decided:
            assert by_depth.status == by_milp.status, (seed, by_depth.text, by_milp.text)


@pytest.mark.parametrize("seed", range(6))
def test_the_answer_does_not_change_when_rows_are_scaled_by_powers_of_ten(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    W = rng.standard_normal((int(rng.integers(3 * n, 6 * n)), n))
    d = _data_depth(W)
    scales = 10.0 ** rng.integers(-250, 251, W.shape[0])
    for k in (d - 1, d):
        if k < 0:
            continue
        plain = halfspace_depth_at_least(W, k)
        scaled = halfspace_depth_at_least(W * scales[:, None], k)
        assert plain.status == scaled.status == ("deep" if d > k else "shallow"), (seed, k, d)
        if scaled.status == "shallow":  # the direction is checked on the scaled rows themselves
            rest = np.setdiff1d(np.arange(W.shape[0]), scaled.removal)
            assert np.all((W * scales[:, None])[rest] @ scaled.direction < 0)


def test_nnls_solve_agrees_with_scipy_and_falls_back_to_the_public_function(monkeypatch):
    """The searches call SciPy's compiled NNLS without its checks; answers equal the public function's, the
    iteration limit raises as it does, and a SciPy without the private routine gets the public one."""
    from scipy.optimize import nnls

    from relu_frames_nb._util import lp as _lp

    rng = np.random.default_rng(0)
    for _ in range(50):
        A = rng.standard_normal((9, int(rng.integers(1, 40))))
        b = rng.standard_normal(9)
        x, r = _lp.nnls_solve(A, b, 50 * A.shape[1])
        x0, r0 = nnls(A, b, maxiter=50 * A.shape[1])
        np.testing.assert_allclose(x, x0, rtol=0, atol=1e-12)
        assert abs(r - r0) <= 1e-12
    A = rng.standard_normal((9, 30))
    with pytest.raises(RuntimeError):
        _lp.nnls_solve(A, rng.standard_normal(9), 1)
    private = pytest.importorskip("scipy.optimize._slsqplib")
    assert _lp._NNLS[0] is private.nnls  # this SciPy has the routine: the searches use it
    monkeypatch.delattr(private, "nnls")
    monkeypatch.setattr(_lp, "_NNLS", [])
    x, r = _lp.nnls_solve(A, b, 1500)
    assert _lp._NNLS[0].__name__ == "public"
    np.testing.assert_allclose(x, nnls(A, b, maxiter=1500)[0], rtol=0, atol=1e-12)
