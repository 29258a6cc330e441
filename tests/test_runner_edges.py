"""The experiments' own edges: command-line limits, damaged cache shards, Ctrl-C, a Dask cluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import relu_frames_nb.experiments as ex
from relu_frames_nb import reproduce as rp
from relu_frames_nb.errors import InputError
from relu_frames_nb.experiments._runner import Cache
from tests.conftest import sigint_as_in_a_terminal

TINY = dict(n_values=[3], points=3, layers=4, bias_max_n=0, ball_max_n=0, seed=5)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workers", "99999999999999999999"], "--workers must be an integer from 1 to"),
        (["--workers", "5000"], "--workers must be an integer from 1 to"),
        (["--n", "14,x"], "--n must be"),
        (["--n", "1"], "--n must be"),
    ],
)
def test_out_of_range_options_exit_2(argv, message, tmp_path, capsys):
    rc = rp.main(["threshold", *argv, "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # refused before any work


def test_empty_out_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rp.main(["threshold", "--out", "", "--quiet"]) == 2
    assert "--out must not be empty" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
    with pytest.raises(InputError, match="out must not be empty"):
        rp.reproduce(["threshold"], out="  ")


def _shards(cache_dir):
    return sorted(p for p in cache_dir.glob("threshold-*/*.npz"))


def test_damaged_threshold_shards_are_recomputed(tmp_path):
    clean = ex.threshold(max_workers=1, **TINY)
    cache_dir = tmp_path / "cache"
    ex.threshold(max_workers=1, cache_dir=cache_dir, **TINY)
    shards = _shards(cache_dir)
    assert len(shards) == 3
    # a folder in place of the first shard
    shards[0].unlink()
    shards[0].mkdir()
    (shards[0] / "junk").write_text("x")
    # the second shard rewritten without "status" (its record of keys and shapes edited to match)
    with np.load(shards[1], allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    import json

    meta = json.loads(str(arrays.pop("_meta")))
    arrays.pop("status")
    meta["keys"].remove("status")
    meta["shapes"].pop("status")
    np.savez_compressed(shards[1], _meta=np.array(json.dumps(meta)), **arrays)
    # the third cut short
    data = shards[2].read_bytes()
    shards[2].write_bytes(data[: len(data) // 2])
    again = ex.threshold(max_workers=1, cache_dir=cache_dir, **TINY)
    assert again.info["computed"] == 3 and len(again.info["healed"]) == 3
    np.testing.assert_array_equal(again.status, clean.status)
    assert all(p.is_file() for p in _shards(cache_dir))
    third = ex.threshold(max_workers=1, cache_dir=cache_dir, **TINY)
    assert third.info["computed"] == 0 and not third.info["healed"]


def test_a_shard_with_an_unreadable_record_is_recomputed(tmp_path):
    cache = Cache(tmp_path, "demo", {})
    spec = {"seed": 1}
    cache.save("t", {"x": np.arange(3.0)}, spec)
    np.savez_compressed(cache.dir / "t.npz", x=np.arange(3.0), _meta=np.array("[1, 2]"))  # JSON, not a record
    assert cache.load("t", spec) is None and cache.healed
    np.savez_compressed(cache.dir / "t.npz", x=np.arange(3.0), _meta=np.array("{not json"))
    assert cache.load("t", spec) is None and len(cache.healed) == 2


def test_a_new_non_finite_value_beside_those_written_is_damage(tmp_path):
    """An array that held inf or NaN somewhere when written may not gain one elsewhere."""
    cache = Cache(tmp_path, "demo", {})
    spec = {"seed": 1}
    est = np.array([np.nan, 0.25, 0.5, np.inf])
    cache.save("t", {"est": est}, spec)
    hit = cache.load("t", spec)
    assert hit is not None and not cache.healed
    np.testing.assert_array_equal(hit["est"], est)
    for value in (np.inf, np.nan, -np.inf):
        spoilt = est.copy()
        spoilt[1] = value
        cache.save("t", {"est": est}, spec)
        meta_kept = _swap_array(cache.dir / "t.npz", "est", spoilt)
        assert meta_kept
        assert cache.load("t", spec) is None, value
        assert "est" in cache.healed[-1]


def _swap_array(path, key, value):
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    arrays[key] = value
    np.savez_compressed(path, **arrays)
    return "_meta" in arrays


def test_an_inf_in_a_cached_isinj_estimate_is_recomputed(tmp_path):
    kw = dict(n_values=[2], m_max=5, n_samples=2000, exact_max_subsets=100, max_workers=1, seed=2)
    clean = ex.isinj(**kw)
    cache_dir = tmp_path / "cache"
    ex.isinj(cache_dir=cache_dir, **kw)
    shards = sorted(cache_dir.glob("isinj-*/*.npz"))
    assert shards
    with np.load(shards[0], allow_pickle=False) as f:
        est_key = next(k for k in f.files if k != "_meta" and np.issubdtype(f[k].dtype, np.floating)
                       and np.isfinite(f[k]).any())  # fmt: skip
        est = f[est_key].copy()
    flat = est.reshape(-1)
    flat[np.flatnonzero(np.isfinite(flat))[0]] = np.inf
    _swap_array(shards[0], est_key, est)
    again = ex.isinj(cache_dir=cache_dir, **kw)
    assert again.info["computed"] >= 1 and any(str(shards[0]) in h for h in again.info["healed"])
    for name in clean._array_fields:
        np.testing.assert_array_equal(getattr(again, name), getattr(clean, name))


def test_ctrl_c_stops_a_threshold_run(tmp_path):
    """SIGINT during a run with worker processes: the command exits with 130 and leaves no workers."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "relu_frames_nb", "reproduce", "threshold", "--n", "8,10", "--workers", "2",
         "--out", str(tmp_path), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=sigint_as_in_a_terminal,  # a suite run in the background would hand the command SIGINT ignored
    )  # fmt: skip
    try:
        assert proc.stdout.readline().startswith("reproducing threshold")
        time.sleep(3.0)  # the workers are started and busy
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err


def test_threshold_on_a_dask_cluster_equals_the_local_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(
        ex._THRESHOLD_SIZES, "fast",
        {"n_values": (5,), "points": 3, "layers": 4, "layers_large": 2, "time_limit": 60.0, "ball_max_n": 0},
    )  # fmt: skip
    distributed = pytest.importorskip("distributed")
    local = ex.threshold(max_workers=1, **TINY)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = ex.threshold(executor=client, cache_dir=tmp_path / "c", **TINY)
        np.testing.assert_array_equal(remote.status, local.status)
        assert remote.info["computed"] == 3 and "Client" in remote.info["executor"]
        assert len(_shards(tmp_path / "c")) == 3  # each finished task cached: the run resumes
        # the command line with --scheduler and --n
        rc = rp.main(["threshold", "--scheduler", cluster.scheduler_address, "--n", "3", "--out", str(tmp_path / "o"),
                      "--quiet"])  # fmt: skip
        assert rc == 0, capsys.readouterr().err
    res = ex.load_result(tmp_path / "o" / "threshold.npz")
    assert res.n.tolist() and set(res.n.tolist()) == {3}
    ref = ex.threshold(max_workers=1, n_values=[3])  # the tiny fast preset above, at n = 3
    np.testing.assert_array_equal(res.status, ref.status)


def test_an_interrupted_threshold_run_resumes_with_every_finished_layer(tmp_path, monkeypatch):
    """Each task is one layer here (as from n = 10 on, where one layer can take minutes): a run stopped
    after 7 layers keeps those 7."""
    from relu_frames_nb.experiments import _threshold as thr

    kw = dict(n_values=[3], points=3, layers=5, bias_max_n=0, ball_max_n=0, seed=7, max_workers=1)
    clean = ex.threshold(**kw)  # cut into tasks as usual: one task per configuration at n = 3
    monkeypatch.setattr(thr, "_TASK_SECONDS", 0.0)  # one layer per task
    real, calls, stop = thr._decide, [], {"after": 7}

    def counting(W, alpha, time_limit):
        if stop["after"] is not None and len(calls) == stop["after"]:
            raise KeyboardInterrupt  # Ctrl-C while the 8th layer is being decided
        calls.append(W.shape)
        return real(W, alpha, time_limit)

    monkeypatch.setattr(thr, "_decide", counting)
    cache_dir = tmp_path / "cache"
    with pytest.raises(KeyboardInterrupt):
        ex.threshold(cache_dir=cache_dir, **kw)
    assert len(_shards(cache_dir)) == 7
    calls.clear()
    stop["after"] = None
    again = ex.threshold(cache_dir=cache_dir, **kw)
    assert len(calls) == 15 - 7  # only the layers not finished before the stop
    assert again.info["cached"] == 7 and again.info["computed"] == 8 and again.info["configurations"] == 3
    for name in clean._array_fields:
        if name != "seconds":
            np.testing.assert_array_equal(getattr(again, name), getattr(clean, name))
    assert again.m.tolist() == clean.m.tolist()


def test_threshold_tasks_are_single_layers_at_large_n():
    from relu_frames_nb.experiments._threshold import _batches, _layer_seconds

    for n in (10, 12, 14, 16):
        assert _batches(n, 40, _layer_seconds(n, 3 * n, False, 0)) == [(t, 1) for t in range(40)]
    assert _batches(3, 200, _layer_seconds(3, 18, True, 0)) == [(0, 200)]  # n = 3: one task per configuration
    cuts = _batches(8, 200, _layer_seconds(8, 48, True, 0))
    assert 1 < len(cuts) < 200 and sum(c for _, c in cuts) == 200
    assert [f for f, _ in cuts] == list(range(0, 200, cuts[0][1]))


def _drop_array(path, key):
    """Rewrite a shard without ``key``, its record of keys and shapes edited to match (no trace left)."""
    import json

    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("_meta")))
    arrays.pop(key)
    meta["keys"].remove(key)
    meta["shapes"].pop(key)
    np.savez_compressed(path, _meta=np.array(json.dumps(meta)), **arrays)


@pytest.mark.parametrize(
    "experiment, kwargs, key",
    [
        ("propinj", dict(dimensions=[2], redundancies=[2.0], n_trials=2, n_iterations=50, n_test=20, trials_per_task=1),
         "proportions"),
        ("conv", dict(n_trials=2, n_iterations=200, n_snapshots=5, trials_per_task=1), "distances"),
    ],
)  # fmt: skip
def test_a_propinj_or_conv_shard_missing_an_array_is_recomputed(tmp_path, experiment, kwargs, key):
    fn = getattr(ex, experiment)
    clean = fn(max_workers=1, seed=4, **kwargs)
    cache_dir = tmp_path / "cache"
    fn(max_workers=1, seed=4, cache_dir=cache_dir, **kwargs)
    shard = sorted(cache_dir.glob(f"{experiment}-*/*.npz"))[0]
    _drop_array(shard, key)
    again = fn(max_workers=1, seed=4, cache_dir=cache_dir, **kwargs)
    assert again.info["computed"] == 1 and any(str(shard) in h and key in h for h in again.info["healed"])
    for name in clean._array_fields:
        np.testing.assert_array_equal(getattr(again, name), getattr(clean, name))


def test_cached_only_runs_nothing_and_is_refused_where_it_means_nothing(tmp_path, capsys):
    out = tmp_path / "o"
    assert rp.main(["isinj", "--cached-only", "--out", str(out), "--quiet"]) == 2
    assert rp.main(["threshold", "--cached-only", "--no-cache", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("cached_only draws the threshold figure from its cache") == 2 and not out.exists()
    assert rp.main(["threshold", "--n", "3", "--cached-only", "--out", str(out), "--quiet"]) == 0  # an empty cache
    said = capsys.readouterr().out
    assert "tasks computed 0, cached 0, not run " in said and (out / "threshold.png").is_file()
    assert not list((out / "cache").glob("threshold-*/*.npz"))
