"""Tests of relu_frames_nb.experiments (fast sizes only): reproducibility across executors,
resume from cache, early decisions, numba/numpy kernels, persistence and the known answers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import relu_frames_nb.experiments as ex
from relu_frames_nb._util import kernels as _kernels
from relu_frames_nb._util.validation import as_seed_sequence
from relu_frames_nb.domains import paper_correction
from relu_frames_nb.errors import InputError
from relu_frames_nb.experiments import _isinj
from relu_frames_nb.experiments._runner import EXP_ID
from relu_frames_nb.paper.bias.correlated import sampling_bias, tukey_depth_origin
from relu_frames_nb.zoo import gaussian

SMALL = dict(n_values=[2, 3, 4], m_max=14, n_samples=6000, chunk_size=1024, block_budget=25)
PROP_SMALL = dict(dimensions=[2, 4], redundancies=[2, 5], n_trials=6, n_iterations=300, n_test=200, trials_per_task=3)
CONV_SMALL = dict(n_trials=4, n_iterations=3000, n_snapshots=100, trials_per_task=2)


class CountingExecutor(ThreadPoolExecutor):
    """A thread pool that counts submissions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.submitted = 0

    def submit(self, fn, *args, **kwargs):
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def assert_same_isinj(a: ex.IsinjResult, b: ex.IsinjResult) -> None:
    for k in a._array_fields:
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)


@pytest.fixture(scope="module")
def small_isinj() -> ex.IsinjResult:
    return ex.isinj(**SMALL, max_workers=1)


# ---------------------------------------------------------------------------------- isinj


def test_isinj_shapes_and_known_structure(small_isinj):
    r = small_isinj
    expected = [(n, m) for n in (2, 3, 4) for m in range(n, 15)]
    assert list(zip(r.n.tolist(), r.m.tolist())) == expected
    assert r.proportion.shape == (len(expected), 3)
    assert np.all((r.proportion >= 0) & (r.proportion <= 1))
    assert r.offsets[-1] == r.estimates.size == r.m.sum()
    # a redundancy below 2 is never injective for zero bias: exact verdict, and sampling agrees
    low = r.m < 2 * r.n
    assert np.all(r.exact_injective[low] == 0) and np.all(r.exact_source[low] == ex.EXACT_REDUNDANCY)
    assert not np.any(r.injective[low, 0])
    # small n: every exact verdict is computed
    assert np.all(r.exact_injective >= 0)
    assert r.info["tasks"] == r.info["computed"] > 3
    s = r.summary()
    assert s["configurations"] == len(expected)
    assert s["agree"] + s["overestimated"] + s["conservative"] == s["exact_known"]


def test_isinj_exact_column_matches_tukey(small_isinj):
    """The exact verdicts are those of tukey_depth_origin on the very frames of the experiment."""
    r = small_isinj
    for k in np.flatnonzero(r.exact_source == ex.EXACT_TUKEY)[::5]:
        n, m = int(r.n[k]), int(r.m[k])
        rng = np.random.default_rng(as_seed_sequence(0, key=(EXP_ID["isinj"], n, m, 0, 0)))
        res = tukey_depth_origin(gaussian(m, n, seed=rng))
        assert r.tukey_depth[k] == res.depth
        assert r.exact_injective[k] == int(res.injective)


def test_isinj_estimate_equals_sampling_bias():
    """The filtered float32 kernel gives the exact alpha^(N) of Thm 'Sampling-based Bias Estimation'."""
    n, m, N = 3, 11, 5000
    r = ex.isinj(
        n_values=[n], m_max=m, n_samples=N, sample_sharing="configuration", early_decision=False, chunk_size=700, max_workers=1
    )
    frng = np.random.default_rng(as_seed_sequence(0, key=(EXP_ID["isinj"], n, m, 0, 0)))
    F = gaussian(m, n, seed=frng)
    X = np.random.default_rng(as_seed_sequence(0, key=(EXP_ID["isinj"], n, m, 0, 1))).standard_normal((N, n))
    ref = sampling_bias(F, X, init="none", tie_tol=0.0, full_spark=True)
    np.testing.assert_allclose(r.estimate(n, m), ref.values, rtol=1e-12, atol=1e-12)
    # and the verdicts follow from it with the correction rho* ||phi_i||
    biases = np.stack([np.sqrt(v) * frng.standard_normal(m) for v in (0.0, 0.1, 1.0)])
    rho = paper_correction(n, N)
    expect = (biases <= ref.values - rho * F.norms).mean(axis=1)
    np.testing.assert_allclose(r.proportion[r.m == m][0], expect)


def test_isinj_scaled_frames_keep_exact_filter():
    """The float32 margins scale with the norms: a large-norm frame still gives the exact estimate."""
    n, m, N = 4, 9, 3000
    rng = np.random.default_rng(5)
    Phi = 1e3 * rng.standard_normal((m, n))
    X = rng.standard_normal((N, n))
    est = np.full(m, np.inf)
    af = est.copy()
    seg = np.array([0, m], dtype=np.int64)
    for a in range(0, N, 512):
        Xc = X[a : a + 512]
        G32 = Xc.astype(np.float32) @ Phi.astype(np.float32).T
        xmax = float(np.linalg.norm(Xc, axis=1).max())
        dcoef = np.array([_kernels.float32_margin(n) * np.linalg.norm(Phi, axis=1).max()])
        _kernels.update_block(
            G32, Xc, Phi, seg, n, af, est, np.full(m, -np.inf), dcoef, xmax, np.array([m]), np.ones(1, bool),
            prune=False, kernel=_kernels.resolve_kernel("auto"),
        )  # fmt: skip
    ref = sampling_bias(Phi, X, init="none", tie_tol=0.0, full_spark=True)
    np.testing.assert_allclose(est, ref.values, rtol=1e-12)


def test_isinj_early_decision_same_verdicts(small_isinj):
    full = ex.isinj(**SMALL, early_decision=False, max_workers=1)
    np.testing.assert_array_equal(small_isinj.proportion, full.proportion)
    np.testing.assert_array_equal(small_isinj.exact_injective, full.exact_injective)
    decided = np.isnan(small_isinj.estimates)
    assert decided.any() and not np.isnan(full.estimates).any()
    np.testing.assert_array_equal(small_isinj.estimates[~decided], full.estimates[~decided])
    assert np.all(full.samples_used == SMALL["n_samples"])
    assert np.any(small_isinj.samples_used < SMALL["n_samples"])  # some frames stopped early


@pytest.mark.skipif(not _kernels.HAVE_NUMBA, reason="numba not installed")
def test_isinj_numba_and_numpy_identical(small_isinj):
    assert small_isinj.info["kernel"] == "numba"
    r = ex.isinj(**SMALL, kernel="numpy", max_workers=1)
    assert r.info["kernel"] == "numpy"
    assert_same_isinj(small_isinj, r)


def test_isinj_same_with_two_workers(small_isinj):
    r = ex.isinj(**SMALL, max_workers=2)
    assert_same_isinj(small_isinj, r)
    assert r.info["executor"].startswith("local processes")


def test_isinj_same_with_any_executor(small_isinj):
    with CountingExecutor(max_workers=3) as pool:
        r = ex.isinj(**SMALL, executor=pool)
    assert pool.submitted == r.info["tasks"]
    assert_same_isinj(small_isinj, r)


def test_isinj_same_with_dask(small_isinj):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        r = ex.isinj(**SMALL, executor=client.get_executor())
    assert_same_isinj(small_isinj, r)


def test_isinj_resume_computes_only_missing(tmp_path, small_isinj):
    with CountingExecutor(max_workers=2) as pool:
        first = ex.isinj(**SMALL, executor=pool, cache_dir=tmp_path)
        assert pool.submitted == first.info["tasks"]
    shards = sorted(tmp_path.glob("isinj-*/*.npz"))
    assert len(shards) == first.info["tasks"]
    for p in shards[1:4]:  # an interrupted run: three shards missing
        p.unlink()
    shards[4].write_bytes(b"truncated")  # and one cut short
    with CountingExecutor(max_workers=2) as pool:
        again = ex.isinj(**SMALL, executor=pool, cache_dir=tmp_path)
        assert pool.submitted == 4
    assert again.info["cached"] == first.info["tasks"] - 4
    assert_same_isinj(small_isinj, again)
    with CountingExecutor(max_workers=2) as pool:  # other parameters: another cache entry
        ex.isinj(**dict(SMALL, n_samples=3000), executor=pool, cache_dir=tmp_path)
        assert pool.submitted == first.info["tasks"]


def test_isinj_interrupted_run_resumes(tmp_path, monkeypatch):
    calls = []
    real = _isinj._isinj_task

    def flaky(spec):
        calls.append(spec["ms"][0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(_isinj, "_isinj_task", flaky)
    with pytest.raises(KeyboardInterrupt):
        ex.isinj(**SMALL, max_workers=1, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("isinj-*/*.npz"))) == 2
    calls.clear()
    monkeypatch.setattr(_isinj, "_isinj_task", lambda spec: (calls.append(1), real(spec))[1])
    r = ex.isinj(**SMALL, max_workers=1, cache_dir=tmp_path)
    assert len(calls) == r.info["tasks"] - 2 and r.info["cached"] == 2


def test_isinj_overestimate_marks():
    r = ex.IsinjResult(
        n=[5, 5, 5, 5],
        m=[20, 21, 22, 23],
        variances=[0.0, 1.0],
        proportion=[[1.0, 0.5], [1.0, 1.0], [0.9, 0.2], [0.5, 0.5]],
        samples_used=[10, 10, 10, 10],
        exact_injective=[0, 1, 1, -1],
        tukey_depth=[4, 6, 5, -1],
        exact_source=[1, 1, 1, 0],
        estimates=np.zeros(86),
        offsets=np.cumsum([0, 20, 21, 22, 23]),
        params={"n_samples": 10},
    )
    np.testing.assert_array_equal(r.overestimated, [True, False, False, False])
    np.testing.assert_array_equal(r.conservative, [False, False, True, False])
    g = r.grid(r.proportion[:, 0])
    assert g.shape == (6, 24) and g[5, 21] == 1.0 and np.isnan(g[4, 21])
    s = r.summary()
    assert (s["overestimated"], s["conservative"], s["agree"], s["exact_known"]) == (1, 1, 1, 3)
    with pytest.raises(InputError):
        r.estimate(2, 3)
    with pytest.raises(InputError):
        r.grid([1.0, 2.0])


# ---------------------------------------------------------------------------------- propinj


@pytest.fixture(scope="module")
def small_propinj() -> ex.PropinjResult:
    return ex.propinj(**PROP_SMALL, max_workers=1)


def test_propinj_shapes_and_monotone(small_propinj):
    r = small_propinj
    assert r.n.tolist() == [2, 2, 4, 4] and r.m.tolist() == [4, 10, 8, 20]
    C, T, H = r.proportions.shape
    assert (C, T) == (4, 6) and H == r.iterations.size
    assert r.iterations[0] == 0 and r.iterations[-1] == 300
    assert np.all(r.proportions[:, :, 0] == 0)  # alpha^(0) = +inf: nothing active
    assert np.all(np.diff(r.proportions, axis=2) >= 0)  # the estimate only decreases
    assert np.all(r.proportions <= 1) and np.all(r.mean[:, -1] > 0.8)
    assert r.quantiles((0.1, 0.5, 0.9)).shape == (4, 3, H)
    assert r.std.shape == (4, H) and r.iterations_to_full().shape == (4, 6)


def test_propinj_reproducible_across_workers_and_kernels(small_propinj):
    r2 = ex.propinj(**PROP_SMALL, max_workers=2)
    np.testing.assert_array_equal(small_propinj.proportions, r2.proportions)
    with CountingExecutor(max_workers=2) as pool:
        r3 = ex.propinj(**dict(PROP_SMALL, trials_per_task=2), executor=pool)
    np.testing.assert_array_equal(small_propinj.proportions, r3.proportions)  # independent of blocking


def test_first_rectifying_kernels_agree():
    rng = np.random.default_rng(3)
    H, m, M, n = 37, 12, 400, 3
    A = np.sort(rng.standard_normal((H, m)), axis=0)[::-1].copy()
    A[:5] = np.inf
    A[10:14] = A[9]  # plateaus
    GY = rng.standard_normal((M, m)) * 1.5
    ref = _kernels.first_rectifying(A, GY, n, kernel="numpy")
    brute = np.array([next((g for g in range(H) if np.sum(GY[y] >= A[g]) >= n), H) for y in range(M)])
    np.testing.assert_array_equal(ref, brute)
    if _kernels.HAVE_NUMBA:
        np.testing.assert_array_equal(_kernels.first_rectifying(A, GY, n, kernel="numba"), brute)


# ---------------------------------------------------------------------------------- conv


def test_conv_tetrahedron_distances():
    r = ex.conv(**CONV_SMALL, max_workers=1)
    np.testing.assert_allclose(r.alpha_s, -1 / np.sqrt(3))
    assert r.distances.shape == (4, r.iterations.size)
    assert r.non_increasing and r.from_above
    assert np.all(r.distances >= 0)
    fin = np.isfinite(r.distances)
    d = np.where(fin, r.distances, np.inf)
    assert np.all(np.diff(d, axis=1)[fin[:, 1:]] <= 0)
    assert np.all(r.distances[:, -1] < 0.1)
    assert np.all(np.isinf(r.distances[:, 0]))  # init "none"
    assert "polytope_bias" in r.info["alpha_s_method"]
    r2 = ex.conv(**dict(CONV_SMALL, trials_per_task=4), max_workers=2)
    np.testing.assert_array_equal(r.distances, r2.distances)


# ---------------------------------------------------------------------------------- persistence


def test_save_load_roundtrip(tmp_path, small_isinj, small_propinj):
    c = ex.conv(**CONV_SMALL, max_workers=1)
    for res in (small_isinj, small_propinj, c):
        p = res.save(tmp_path / res._kind)  # suffix added
        assert p.suffix == ".npz"
        with np.load(p, allow_pickle=False) as f:  # no pickles inside
            assert all(f[k].dtype != object for k in f.files)
        back = type(res).load(p)
        again = ex.load_result(p)
        assert type(again) is type(res)
        for k in res._array_fields:
            np.testing.assert_array_equal(getattr(back, k), getattr(res, k))
            assert not getattr(back, k).flags.writeable
        assert back.params == res.params
    with pytest.raises(InputError, match="must hold a 'conv' result"):
        ex.ConvResult.load(tmp_path / "isinj.npz")
    with pytest.raises(InputError, match="no such file"):
        ex.load_result(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(InputError, match="readable"):
        ex.load_result(tmp_path / "junk.npz")


# ---------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"size": "huge"}, "size must be"),
        ({"n_values": [1, 2]}, "n_values"),
        ({"n_values": [5], "m_max": 4}, "m_max must be at least"),
        ({"n_samples": 1}, "n_samples"),
        ({"variances": [-1.0]}, "variances"),
        ({"correction_scaling": "sometimes"}, "correction_scaling"),
        ({"sample_sharing": "never"}, "sample_sharing"),
        ({"kernel": "cuda"}, "kernel"),
        ({"seed": -1}, "seed"),
        ({"executor": object()}, "executor must be"),
        ({"max_workers": 0, "n_values": [2, 3], "m_max": 5, "n_samples": 100}, "max_workers"),
    ],
)
def test_isinj_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ex.isinj(**kwargs)


@pytest.mark.parametrize(
    "fn, kwargs, match",
    [
        (ex.propinj, {"redundancies": [0.5]}, "redundancies"),
        (ex.propinj, {"dimensions": []}, "dimensions"),
        (ex.propinj, {"init": "zero"}, "init"),
        (ex.propinj, {"n_trials": 0}, "n_trials"),
        (ex.conv, {"n_iterations": 2.5}, "n_iterations"),
        (ex.conv, {"size": None}, "size"),
    ],
)
def test_other_bad_arguments(fn, kwargs, match):
    with pytest.raises(InputError, match=match):
        fn(**kwargs)


# ---------------------------------------------------------------------------------- witnesses


def test_witness_is_a_certificate():
    from relu_frames_nb import zoo

    rng = np.random.default_rng(11)
    found = 0
    for n, m in [(5, 14), (6, 18), (7, 16), (4, 12), (6, 15), (3, 9)]:
        Phi = rng.standard_normal((m, n))
        u = _isinj._nonrectifying_witness(Phi)
        truth = tukey_depth_origin(Phi)
        if u is not None:
            found += 1
            assert np.count_nonzero(Phi @ u >= 0) < n  # the active sub-frame at u cannot span
            assert not truth.injective
    assert found >= 3
    assert _isinj._nonrectifying_witness(zoo.regular_polygon(7).vectors) is None  # injective: never a witness
    assert _isinj._nonrectifying_witness(zoo.mercedes_benz().vectors) is not None


def test_isinj_witnesses_only_where_no_exact_verdict():
    r = ex.isinj(n_values=[6, 7], m_max=30, n_samples=4000, exact_max_subsets=2000, max_workers=1)
    w = r.exact_source == ex.EXACT_WITNESS
    assert w.any()
    assert np.all(r.exact_injective[w] == 0) and np.all(r.injective[w, 0])  # each is a marked over-estimate
    assert np.all(r.overestimated[w])
    assert np.all(r.m[w] <= ex.REDUNDANCY_UPPER * r.n[w])
    off = ex.isinj(n_values=[6, 7], m_max=30, n_samples=4000, exact_max_subsets=2000, witness_max_lps=0, max_workers=1)
    assert not np.any(off.exact_source == ex.EXACT_WITNESS)
    np.testing.assert_array_equal(off.proportion, r.proportion)
