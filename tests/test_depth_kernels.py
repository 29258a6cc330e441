"""The circuit search's NNLS kernels (relu_frames_nb._util.kernels.gram_nnls) against SciPy's NNLS.

The half-space depth search (relu_frames_nb.paper.depth) can solve its least-squares problems with the
compiled kernel (numba), the same algorithm in numpy, or SciPy's NNLS (the solver before the kernel). Every
verdict is proved outside the solver, so the three must agree on every layer; on these layers they also take
the same path (node counts). Brute force: each kernel against exhaustive Tukey enumeration below ("auto" compiles
only from dimension COMPILED_MIN_DIM on, so tests/test_depth.py runs SciPy's NNLS on its small layers).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import nnls

from relu_frames_nb._util import kernels
from relu_frames_nb.errors import InputError
from relu_frames_nb.paper.depth import halfspace_depth_at_least
from relu_frames_nb.paper.zero_bias import tukey_depth_origin

KERNELS = ["numba", "numpy", "scipy"] if kernels.HAVE_NUMBA else ["numpy", "scipy"]


def _lifted(W, alpha):
    """A biased layer on R^n as a depth question: the lifted rows and the kept point -e_{n+1}."""
    m, n = W.shape
    cap = np.zeros((1, n + 1))
    cap[0, n] = -1.0
    return np.vstack([np.hstack([W, -alpha[:, None]]), cap]), [m]


def _layers():
    """(name, points, k, kept): zero-bias Gaussian layers at m = 7n and 5n, and biased layers on R^n."""
    out = []
    for n in range(4, 9):
        for seed in range(4):
            ratio = 7 if seed < 3 else 5
            W = np.random.default_rng(100 * n + seed).standard_normal((ratio * n, n))
            out.append((f"zero bias n={n} m={ratio * n} seed={seed}", W, n - 1, None))
    for n in range(3, 7):
        for seed in range(3):
            rng = np.random.default_rng(500 + 10 * n + seed)
            W = rng.standard_normal((6 * n, n))
            alpha = rng.normal(-0.3, 0.4, 6 * n)
            points, kept = _lifted(W, alpha)
            out.append((f"bias on R^n n={n} seed={seed}", points, n - 1, kept))
    return out


def _check(res, points, kept):
    """The certificate of a verdict holds: a shallow answer's direction separates the rows not removed."""
    if res.status == "shallow":
        rest = np.setdiff1d(np.arange(points.shape[0]), res.removal)
        assert len(res.removal) <= res.k and np.all(points[rest] @ res.direction < 0)
        assert not set(kept or []) & set(res.removal)


def test_the_kernels_give_the_same_verdicts_on_32_layers():
    layers = _layers()
    assert len(layers) >= 30
    statuses = set()
    for name, points, k, kept in layers:
        got = {kern: halfspace_depth_at_least(points, k, kept=kept, kernel=kern, time_limit=120) for kern in KERNELS}
        for kern, res in got.items():
            assert res.status in ("deep", "shallow"), (name, kern, res.status)
            _check(res, points, kept)
        assert len({res.status for res in got.values()}) == 1, (name, {kk: r.status for kk, r in got.items()})
        # the same algorithm compiled and interpreted takes the same path; SciPy's did too on every one of these
        assert len({res.nodes for res in got.values()}) == 1, (name, {kk: r.nodes for kk, r in got.items()})
        statuses.add(got["scipy"].status)
    assert statuses == {"deep", "shallow"}  # both answers occur


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_kernels_agree_with_exhaustive_enumeration(n):
    for seed in range(3):
        W = np.random.default_rng(900 + 10 * n + seed).standard_normal((4 * n, n))
        d = tukey_depth_origin(W).depth
        for k in range(max(0, d - 1), d + 1):
            for kern in KERNELS:
                res = halfspace_depth_at_least(W, k, kernel=kern)
                assert res.status == ("deep" if d > k else "shallow"), (n, seed, k, d, kern)
                _check(res, W, None)


@pytest.mark.parametrize("kern", [k for k in KERNELS if k != "scipy"])
def test_gram_nnls_finds_scipys_solution(kern):
    # the circuit search's problems: columns (w_j u_j, 1) of unit points, right-hand side e_{n+1}
    rng = np.random.default_rng(4)
    for trial in range(60):
        n = int(rng.integers(2, 10))
        N = int(rng.integers(2, 12 * n))
        U = rng.standard_normal((N, n))
        U /= np.linalg.norm(U, axis=1)[:, None]
        Ut = np.ascontiguousarray(U.T)
        Gp = U @ U.T
        idx = np.sort(rng.choice(N, int(rng.integers(2, N + 1)), replace=False)).astype(np.int64)
        w = np.where(rng.random(idx.size) < 0.2, 20.0, 1.0)
        got = kernels.gram_nnls(idx, w, Gp, Ut, 50 * idx.size, kernel=kern)
        assert got is not None, trial
        x, res = got
        M = np.vstack([Ut[:, idx] * w, np.ones(idx.size)])
        b = np.zeros(n + 1)
        b[-1] = 1.0
        x0, r0 = nnls(M, b, maxiter=50 * idx.size)
        assert np.all(x >= 0) and np.count_nonzero(x) <= n + 1  # independent columns in R^{n+1}
        assert abs(res - r0) <= 1e-9, (trial, res, r0)
        assert abs(res - np.linalg.norm(M @ x - b)) <= 1e-12  # the residual is the solution's own
        assert np.flatnonzero(x > 1e-12).tolist() == np.flatnonzero(x0 > 1e-12).tolist(), trial


def test_a_small_bias_gives_the_same_verdict_with_every_kernel():
    # the lifted rows (w, -1e-3 z) nearly lie in a hyperplane: the compiled kernel once added a seventh column to
    # six passive ones in R^6, and its rounded solution held 7 points, a "circuit" no proof accepts (undetermined)
    rng = np.random.default_rng(6)
    W, z = rng.standard_normal((22, 4)), rng.standard_normal(22)
    points, kept = _lifted(W, 1e-3 * z)
    for kern in KERNELS:
        assert halfspace_depth_at_least(points, 3, kept=kept, kernel=kern).status == "deep", kern


def test_the_iteration_limit_gives_no_answer():
    rng = np.random.default_rng(5)
    U = rng.standard_normal((40, 5))
    U /= np.linalg.norm(U, axis=1)[:, None]
    idx = np.arange(40, dtype=np.int64)
    args = (idx, np.ones(40), U @ U.T, np.ascontiguousarray(U.T))
    for kern in [k for k in KERNELS if k != "scipy"]:
        assert kernels.gram_nnls(*args, 200, kernel=kern)[1] < 1e-12  # the origin is captured after 6 solves
        assert kernels.gram_nnls(*args, 6, kernel=kern) is not None
        for limit in (1, 3, 5):
            assert kernels.gram_nnls(*args, limit, kernel=kern) is None


def test_kernel_choice(monkeypatch):
    square = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=float)
    with pytest.raises(InputError, match="kernel must be"):
        halfspace_depth_at_least(square, 1, kernel="fortran")
    monkeypatch.setattr(kernels, "HAVE_NUMBA", False)  # as with RELU_FRAMES_NO_NUMBA=1
    with pytest.raises(InputError, match="kernel must be"):
        halfspace_depth_at_least(square, 1, kernel="numba")
    assert halfspace_depth_at_least(square, 1, kernel="auto").deep  # SciPy's NNLS
    assert halfspace_depth_at_least(square, 2, kernel="numpy").status == "shallow"


def test_capture_nnls_reads_the_bit_masks_like_the_numpy_path():
    rng = np.random.default_rng(6)
    U = rng.standard_normal((30, 4))
    U /= np.linalg.norm(U, axis=1)[:, None]
    Ut, Gp = np.ascontiguousarray(U.T), U @ U.T
    for trial in range(40):
        pool = int(rng.integers(0, 2**30)) if trial else 1 << 7  # the first: one point only
        fixed = int(rng.integers(0, 2**30)) & pool if trial % 2 else 0
        got = {kern: kernels.capture_nnls(pool.to_bytes(4, "little"), fixed.to_bytes(4, "little"), 30, 20.0, Gp, Ut,
                                          kernel=kern) for kern in KERNELS if kern != "scipy"}  # fmt: skip
        if trial == 0:
            assert all(g is None for g in got.values())
            continue
        idx0 = [i for i in range(30) if pool >> i & 1]
        for idx, x, res in got.values():
            assert idx.tolist() == idx0
            w = np.where([fixed >> i & 1 for i in idx0], 20.0, 1.0)
            M = np.vstack([Ut[:, idx] * w, np.ones(len(idx0))])
            assert abs(res - np.linalg.norm(M @ x - np.eye(5)[4])) <= 1e-12
        supports = {kern: np.flatnonzero(g[1] > 1e-12).tolist() for kern, g in got.items()}
        assert len({tuple(s) for s in supports.values()}) == 1, (trial, supports)


# ---------------------------------------------------------------------------------
# the whole search compiled (kernel="numba": paper.depth._CompiledSearch, an oracle whose circuits are proved after)
# ---------------------------------------------------------------------------------

needs_numba = pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba is not installed")


def _random_layers():
    """Seeded random layers n = 3..9 near the threshold (deep and shallow), zero bias and biased on R^n."""
    out = []
    for n in range(3, 10):
        for seed in range(3):
            rng = np.random.default_rng(7000 + 10 * n + seed)
            ratio = (4, 5, 7)[seed]
            W = rng.standard_normal((ratio * n, n))
            out.append((f"zero bias n={n} m={ratio * n}", W, n - 1, None))
        if n <= 7:
            rng = np.random.default_rng(7500 + n)
            points, kept = _lifted(rng.standard_normal((6 * n, n)), rng.normal(-0.3, 0.4, 6 * n))
            out.append((f"bias on R^n n={n}", points, n - 1, kept))
    return out


@needs_numba
def test_the_compiled_search_gives_the_python_searchs_verdicts():
    statuses = set()
    for name, points, k, kept in _layers() + _random_layers():
        compiled = halfspace_depth_at_least(points, k, kept=kept, kernel="numba", time_limit=120)
        assert compiled.status in ("deep", "shallow"), (name, compiled.status)
        assert compiled.nodes > 0 and compiled.circuits > 0
        _check(compiled, points, kept)
        for kern in ("scipy", "numpy"):
            res = halfspace_depth_at_least(points, k, kept=kept, kernel=kern, time_limit=120)
            assert res.status == compiled.status, (name, kern, res.status, compiled.status)
        statuses.add(compiled.status)
    assert statuses == {"deep", "shallow"}


@needs_numba
@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_compiled_search_agrees_with_exhaustive_enumeration(n):
    for seed in range(4):
        W = np.random.default_rng(9100 + 10 * n + seed).standard_normal((4 * n, n))
        d = tukey_depth_origin(W).depth
        for k in range(max(0, d - 2), d + 2):
            res = halfspace_depth_at_least(W, k, kernel="numba")
            assert res.status == ("deep" if d > k else "shallow"), (n, seed, k, d)
            _check(res, W, None)


@needs_numba
def test_the_compiled_search_proves_every_circuit_it_used(monkeypatch):
    import relu_frames_nb.paper.depth as depth_module

    W = np.random.default_rng(207).standard_normal((56, 8))
    assert halfspace_depth_at_least(W, 7, kernel="numba").status == "deep"
    seen = []
    real = depth_module.circuits_certified

    def reject_one(Vs):
        ok = real(Vs)
        seen.append(len(Vs))
        ok[len(Vs) // 2] = False  # one circuit of every batch fails its proof
        return ok

    monkeypatch.setattr(depth_module, "circuits_certified", reject_one)
    res = halfspace_depth_at_least(W, 7, kernel="numba")
    assert seen and res.status == "undetermined", res  # the Python search ran into rejected circuits as well
    # the compiled search's oracle alone: "closed", but marked as failed (never "deep")
    P, P0, k, kept, deadline = depth_module._prepare(W, 7, None, None, 0.0)
    oracle = depth_module._CompiledSearch(P, P0, k, kept, deadline)
    assert oracle.run() is None and oracle.failed and oracle.nodes > 0


@needs_numba
def test_a_small_circuit_that_fails_its_exact_proof_falls_back(monkeypatch):
    import relu_frames_nb.paper.depth as depth_module

    # +-e1 is a circuit of two points: proved by small_circuit_certified, here made to fail
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.3, -1.0], [-0.2, -1.0]])
    assert halfspace_depth_at_least(W, 1, kernel="numba").status == "deep"
    calls = []

    def never(V):
        calls.append(V.shape)
        return False

    monkeypatch.setattr(depth_module, "small_circuit_certified", never)
    res = halfspace_depth_at_least(W, 1, kernel="numba")
    assert calls and res.status != "deep"


@needs_numba
def test_the_compiled_search_stops_at_its_time_limit_and_at_a_raising_tick():
    W = np.random.default_rng(3).standard_normal((98, 14))  # n = 14 at m = 7n: far more than a second
    res = halfspace_depth_at_least(W, 13, kernel="numba", time_limit=1)
    assert res.status == "undetermined" and res.nodes > 0
    ticks = []

    def tick(nodes):
        ticks.append(nodes)
        if len(ticks) == 3:
            raise TimeoutError

    res = halfspace_depth_at_least(W, 13, kernel="numba", tick=tick)
    assert res.status == "undetermined" and ticks == [64, 128, 192] and res.nodes == 192


@needs_numba
def test_the_compiled_search_takes_the_python_searchs_path():
    # the same NNLS (compiled, cold starts) and the same branching rule: the same nodes and circuits as the Python
    # search around the compiled NNLS
    import relu_frames_nb.paper.depth as depth_module

    for name, points, k, kept in _layers()[::3]:
        P, P0, k, kept_mask, deadline = depth_module._prepare(points, k, kept, None, 0.0)
        search = depth_module._Search(P, P0, k, kept_mask, deadline, None, "numba")
        T = search.run(0, kept_mask)
        compiled = halfspace_depth_at_least(points, k, kept=kept, kernel="numba")
        assert compiled.nodes == search.nodes and compiled.circuits == len(search.verified), name
        assert (T is None) == (compiled.status == "deep"), name


@needs_numba
@pytest.mark.parametrize("warm", [1, 2, 3])
def test_warm_starts_change_the_path_not_the_verdicts(monkeypatch, warm):
    import relu_frames_nb.paper.depth as depth_module

    monkeypatch.setattr(depth_module, "COMPILED_WARM_START", warm)
    for name, points, k, kept in _layers()[::2] + _random_layers()[::2]:
        res = halfspace_depth_at_least(points, k, kept=kept, kernel="numba", time_limit=120)
        ref = halfspace_depth_at_least(points, k, kept=kept, kernel="scipy", time_limit=120)
        assert res.status == ref.status, (name, warm, res.status, ref.status)
        _check(res, points, kept)


def _reject_first_batch(monkeypatch) -> list[int]:
    """Plant a failed proof in the first batch of circuits only (the Python search's proofs after it all pass);
    returns the list of batch sizes proved, filled as the search goes."""
    import relu_frames_nb.paper.depth as depth_module

    real, calls = depth_module.circuits_certified, []

    def reject_first_batch(Vs):
        ok = real(Vs)
        calls.append(len(Vs))
        if len(calls) == 1:
            ok[0] = False
        return ok

    monkeypatch.setattr(depth_module, "circuits_certified", reject_first_batch)
    return calls


@needs_numba
def test_after_a_failed_proof_the_python_search_decides(monkeypatch):
    W = np.random.default_rng(207).standard_normal((56, 8))
    calls = _reject_first_batch(monkeypatch)  # the compiled search's first batch
    res = halfspace_depth_at_least(W, 7, kernel="numba")
    assert len(calls) >= 2 and res.status == "deep"
    assert res.nodes > halfspace_depth_at_least(W, 7, kernel="scipy").nodes  # the two searches' nodes, summed


# ---------------------------------------------------------------------------------
# the compiled search's subtrees in threads (workers > 1: paper.depth._ParallelSearch), under one budget
# ---------------------------------------------------------------------------------


def _seeded_layers():
    """Seeded random zero-bias layers n = 3..10 at m = 4n, 5n and 7n (deep and shallow)."""
    return [(f"zero bias n={n} m={r * n}", np.random.default_rng(7700 + 10 * n + r).standard_normal((r * n, n)), n - 1, None)
            for n in range(3, 11) for r in (4, 5, 7)]  # fmt: skip


@needs_numba
@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_subtrees_give_the_verdicts_of_one_thread(workers):
    statuses = set()
    for name, points, k, kept in _layers() + _random_layers() + _seeded_layers():
        one = halfspace_depth_at_least(points, k, kept=kept, kernel="numba", time_limit=120)
        many = halfspace_depth_at_least(points, k, kept=kept, kernel="numba", time_limit=120, workers=workers)
        assert one.status in ("deep", "shallow"), (name, one.status)
        assert many.status == one.status, (name, workers, many.status, one.status)
        assert many.nodes > 0 and many.circuits > 0
        _check(many, points, kept)
        statuses.add(many.status)
    assert statuses == {"deep", "shallow"}


@needs_numba
def test_one_worker_is_the_one_compiled_search(monkeypatch):
    import relu_frames_nb.paper.depth as depth_module

    def refuse(*args, **kwargs):
        raise AssertionError("workers=1 must not start the parallel search")

    monkeypatch.setattr(depth_module, "_ParallelSearch", refuse)
    for name, points, k, kept in _layers()[::4]:
        P, P0, kk, kept_mask, deadline = depth_module._prepare(points, k, kept, None, 0.0)
        oracle = depth_module._CompiledSearch(P, P0, kk, kept_mask, deadline)
        oracle.run()
        res = halfspace_depth_at_least(points, k, kept=kept, kernel="numba", workers=1)
        assert (res.nodes, res.circuits) == (oracle.nodes, oracle.circuits), name


@needs_numba
def test_parallel_subtrees_agree_with_exhaustive_enumeration():
    for n in (3, 4, 5):
        for seed in range(3):
            W = np.random.default_rng(9300 + 10 * n + seed).standard_normal((4 * n, n))
            d = tukey_depth_origin(W).depth
            for k in range(max(0, d - 2), d + 2):
                res = halfspace_depth_at_least(W, k, kernel="numba", workers=2)
                assert res.status == ("deep" if d > k else "shallow"), (n, seed, k, d)
                _check(res, W, None)


def test_workers_must_be_a_positive_integer():
    square = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=float)
    for bad in (0, -1, 1.5, 2.0, True, "2", None):
        with pytest.raises(InputError, match="workers must be"):
            halfspace_depth_at_least(square, 1, workers=bad)
    # the Python searches run in the calling thread: workers is ignored there (same verdict, same path)
    for kern in ("numpy", "scipy"):
        one, two = (halfspace_depth_at_least(square, 1, kernel=kern, workers=w) for w in (1, 2))
        assert one.status == two.status == "deep" and one.nodes == two.nodes


@needs_numba
def test_parallel_subtrees_stop_at_a_raising_tick_and_at_the_time_limit():
    import threading

    W = np.random.default_rng(3).standard_normal((98, 14))  # n = 14 at m = 7n: far more than a second
    res = halfspace_depth_at_least(W, 13, kernel="numba", time_limit=1, workers=2)
    assert res.status == "undetermined" and res.nodes > 0
    callers, ticks = set(), []

    def tick(nodes):
        callers.add(threading.get_ident())
        ticks.append(nodes)
        if len(ticks) == 3:
            raise TimeoutError

    before = threading.active_count()
    res = halfspace_depth_at_least(W, 13, kernel="numba", tick=tick, workers=2)
    assert res.status == "undetermined" and len(ticks) == 3 and callers == {threading.get_ident()}
    assert ticks == sorted(ticks) and res.nodes >= ticks[-1] >= 3 * 64 - 64
    assert threading.active_count() == before  # every worker thread has stopped

    class Budget(Exception):
        pass

    def out_of_budget(nodes):
        raise Budget

    with pytest.raises(Budget):  # what the tick raises reaches the caller, after the workers stopped
        halfspace_depth_at_least(W, 13, kernel="numba", tick=out_of_budget, workers=2)
    assert threading.active_count() == before


@needs_numba
def test_a_failed_proof_never_gives_deep_with_parallel_subtrees(monkeypatch):
    import relu_frames_nb.paper.depth as depth_module

    W = np.random.default_rng(207).standard_normal((56, 8))
    assert halfspace_depth_at_least(W, 7, kernel="numba", workers=2).status == "deep"
    real = depth_module.circuits_certified

    def reject_one(Vs):
        ok = real(Vs)
        ok[len(Vs) // 2] = False  # one circuit of every batch fails its proof
        return ok

    monkeypatch.setattr(depth_module, "circuits_certified", reject_one)
    assert halfspace_depth_at_least(W, 7, kernel="numba", workers=2).status == "undetermined"
    P, P0, k, kept, deadline = depth_module._prepare(W, 7, None, None, 0.0)
    oracle = depth_module._ParallelSearch(P, P0, k, kept, deadline, None, 2)
    assert oracle.run() is None and oracle.failed and oracle.nodes > 0  # the threads' oracle alone: never "deep"

    import threading

    in_workers = []

    def reject_in_a_worker(Vs):
        ok = real(Vs)
        if threading.current_thread() is not threading.main_thread():  # the proofs of a subtree, not of the first levels
            in_workers.append(len(Vs))
            ok[-1] = False
        return ok

    monkeypatch.setattr(depth_module, "circuits_certified", reject_in_a_worker)
    oracle = depth_module._ParallelSearch(P, P0, k, kept, deadline, None, 2)
    assert oracle.run() is None and oracle.failed and in_workers
    seen = len(in_workers)
    res = halfspace_depth_at_least(W, 7, kernel="numba", workers=2)
    # a subtree's proof failed: the Python search (in this thread, whose proofs pass) decided, its nodes added
    assert len(in_workers) > seen and res.status == "deep"
    assert res.nodes > halfspace_depth_at_least(W, 7, kernel="scipy").nodes  # the two searches' nodes, summed


@needs_numba
def test_after_a_failed_proof_in_a_subtree_the_python_search_decides(monkeypatch):
    W = np.random.default_rng(207).standard_normal((56, 8))
    calls = _reject_first_batch(monkeypatch)
    res = halfspace_depth_at_least(W, 7, kernel="numba", workers=2)
    assert len(calls) >= 2 and res.status == "deep"


def test_compile_search_compiles_every_path_once_and_says_when_it_cannot(monkeypatch):
    from relu_frames_nb.paper import depth

    if kernels.HAVE_NUMBA:
        nb = kernels._nb()
        assert depth.compile_search() is True
        # the compiled search, its circuit rehash and the Python search's compiled least squares: nothing left to
        # compile inside a check
        assert nb.search_slice.signatures and nb.rehash_circuits.signatures and nb._capture_numba.signatures
    monkeypatch.setattr(depth._kernels, "HAVE_NUMBA", False)
    assert depth.compile_search() is False


def test_rf_check_hands_its_workers_to_the_depth_search_and_keeps_the_verdict(monkeypatch):
    import relu_frames_nb as rf
    from relu_frames_nb.exact import _homogeneous

    seen = []

    def spy(*args, **kwargs):
        seen.append(kwargs.get("workers"))
        return halfspace_depth_at_least(*args, **kwargs)

    monkeypatch.setattr(_homogeneous, "halfspace_depth_at_least", spy)
    verdicts = {}
    for t, m in ((0, 60), (1, 70)):  # n = 10 near and above the crossing (m/n = 6 and 7)
        W = np.random.default_rng(100 + t).standard_normal((m, 10))
        for workers in (1, 2):
            v = rf.check(rf.ReLULayer(W, 0.0), rf.RealSpace(10), method="exact", time_limit=120, workers=workers)
            verdicts[t, workers] = v.status
        assert verdicts[t, 1] == verdicts[t, 2] != "undetermined"
    assert seen == [1, 2, 1, 2]
    for bad in (0, -1, 2.5, "2", 10**6):
        with pytest.raises(InputError, match="workers"):
            rf.check(rf.ReLULayer(np.eye(2), 0.0), rf.RealSpace(2), workers=bad)
