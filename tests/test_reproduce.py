"""Tests of the ``reproduce`` sub-command: figures and data written, resume, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb.experiments as ex
from relu_frames_nb import reproduce as rp
from relu_frames_nb.errors import InputError

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def tiny_sizes(monkeypatch):
    """Shrink the fast sizes so that the command runs in about a second."""
    monkeypatch.setitem(ex._ISINJ_SIZES, "fast", {"n_values": (2, 3), "m_max": 9, "n_samples": 3000, "exact_max_subsets": 1000})
    monkeypatch.setitem(ex._PROPINJ_SIZES, "fast", {"n_trials": 4, "n_iterations": 200, "n_test": 100, "trials_per_task": 2})
    monkeypatch.setitem(ex._CONV_SIZES, "fast", {"n_trials": 2, "n_iterations": 2000, "n_snapshots": 50, "trials_per_task": 1})
    monkeypatch.setitem(
        ex._THRESHOLD_SIZES,
        "fast",
        {"n_values": (3, 4), "points": 5, "layers": 8, "layers_large": 4, "time_limit": 60.0, "ball_max_n": 3},
    )


def test_reproduce_writes_figures_and_data(tmp_path, tiny_sizes, capsys):
    out = tmp_path / "out"
    rc = rp.main(["--out", str(out), "--workers", "1", "--quiet"])
    assert rc == 0
    text = capsys.readouterr().out
    for name in rp.FIGURES:
        png = out / f"{name}.png"
        assert png.read_bytes()[:8] == PNG and png.stat().st_size > 10_000
        res = ex.load_result(out / f"{name}.npz")
        assert res._kind == name
        assert f"{name}: " in text
    assert "sampling over-estimates on" in text and "non-increasing: True" in text
    assert "Crossing of 1/2 (m/n): n=3: " in text and "0 undetermined" in text
    assert len(list((out / "cache").glob("*/*.npz"))) > 3


def test_reproduce_resumes_from_cache(tmp_path, tiny_sizes, capsys):
    args = ["conv", "isinj", "--out", str(tmp_path), "--workers", "1", "--quiet"]
    assert rp.main(args) == 0
    first = ex.load_result(tmp_path / "isinj.npz")
    capsys.readouterr()
    assert rp.main(args) == 0
    text = capsys.readouterr().out
    assert "tasks computed 0" in text
    again = ex.load_result(tmp_path / "isinj.npz")
    np.testing.assert_array_equal(first.proportion, again.proportion)
    assert rp.main([*args, "--no-cache", "--seed", "1"]) == 0
    assert "tasks computed 0" not in capsys.readouterr().out


def test_reproduce_library_function(tmp_path, tiny_sizes):
    rep = rp.reproduce(["propinj"], out=tmp_path, max_workers=1, cache=False)
    assert set(rep) == {"propinj"} and rep["propinj"]["png"].exists()
    assert not (tmp_path / "cache").exists()
    with pytest.raises(InputError, match="figures must be among"):
        rp.reproduce(["fig9"], out=tmp_path)
    with pytest.raises(InputError, match="size must be"):
        rp.reproduce(["conv"], size="medium", out=tmp_path)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fig9"], "figures must be among"),
        (["--workers", "0"], "--workers must be a positive integer"),
        (["--workers", "two"], "invalid int value"),
        (["--seed", "-3"], "--seed must be a non-negative integer"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_reproduce_bad_arguments(argv, message, capsys, tmp_path):
    rc = rp.main([*argv, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err


def test_reproduce_help(capsys):
    assert rp.main(["--help"]) == 0
    assert "--full" in capsys.readouterr().out


def test_plot_functions_check_their_input():
    with pytest.raises(InputError, match="PropinjResult"):
        rp.plot_propinj(object())
    with pytest.raises(InputError, match="IsinjResult"):
        rp.plot_isinj(None)
    with pytest.raises(InputError, match="ConvResult"):
        rp.plot_conv([1, 2])


def test_plot_functions_draw_into_a_given_figure_with_options(tmp_path, tiny_sizes):
    from matplotlib.figure import Figure

    from relu_frames_nb.viz import experiments as vx

    cv = ex.conv(size="fast", max_workers=1, progress=False)
    fig = Figure(figsize=(8, 3))
    assert vx.plot_conv(cv, fig=fig, band="minmax", xscale="linear", tag="fig:conv") is fig
    assert fig.axes[1].get_xscale() == "linear" and fig.axes[1].get_title().startswith("[fig:conv]")
    fig.savefig(tmp_path / "conv.png", dpi=40)
    with pytest.raises(InputError, match="band"):
        vx.plot_conv(cv, band="iqr")
    pr = ex.propinj(size="fast", max_workers=1, progress=False)
    fig = vx.plot_propinj(pr, quantiles=False)
    assert len(fig.axes[0].lines) == int((pr.n == pr.n[0]).sum())  # one mean line per redundancy, no quantiles


def test_module_entry_point(tmp_path):
    """``python -m relu_frames_nb reproduce`` with options first, and a bad figure name."""
    out = tmp_path / "o"
    ok = subprocess.run(
        [sys.executable, "-m", "relu_frames_nb", "reproduce", "--out", str(out), "--workers", "1", "--quiet", "conv"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    assert (out / "conv.png").exists() and (out / "conv.npz").exists()
    bad = subprocess.run(
        [sys.executable, "-m", "relu_frames_nb", "reproduce", "nope", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2
    assert "figures must be among" in bad.stderr and "Traceback" not in bad.stderr


def test_cache_heals_foreign_incomplete_and_nan_shards(tmp_path, tiny_sizes, capsys):
    args = ["conv", "--out", str(tmp_path), "--workers", "1", "--quiet"]
    assert rp.main(args) == 0
    with np.load(tmp_path / "conv.npz", allow_pickle=False) as f:
        first = {k: f[k] for k in f.files if k != "_meta"}
    shards = sorted((tmp_path / "cache").glob("conv-*/*.npz"))
    assert len(shards) >= 2
    capsys.readouterr()
    # a valid shard of another task in the place of the first; the second loses an array; the third holds NaN
    shards[0].write_bytes(shards[1].read_bytes())
    with np.load(shards[1], allow_pickle=False) as f:
        kept = {k: f[k] for k in f.files}
    dropped = next(k for k in kept if k != "_meta")
    np.savez_compressed(shards[1], **{k: v for k, v in kept.items() if k != dropped})
    if len(shards) > 2:
        with np.load(shards[2], allow_pickle=False) as f:
            arrs = {k: f[k] for k in f.files}
        key = next(k for k, v in arrs.items() if k != "_meta" and np.issubdtype(v.dtype, np.floating))
        arrs[key] = np.full_like(arrs[key], np.nan)
        np.savez_compressed(shards[2], **arrs)
    assert rp.main(args) == 0
    captured = capsys.readouterr()
    assert "written for another task" in captured.err and f"missing {dropped}" in captured.err
    assert str(shards[0]) in captured.err  # the file is named
    if len(shards) > 2:
        assert "holds NaN" in captured.err
    with np.load(tmp_path / "conv.npz", allow_pickle=False) as f:
        for k, v in first.items():  # the healed shards were recomputed to the same numbers
            np.testing.assert_array_equal(f[k], v)


def _rewrite_shard(path, change):
    """Apply ``change`` to the arrays of a shard (its ``_meta`` included) and write it back in place."""
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    change(arrays)
    np.savez_compressed(path, **arrays)


def test_cache_heals_inf_cut_and_unrecorded_shapes_shards(tmp_path, tiny_sizes, monkeypatch, capsys):
    monkeypatch.setitem(ex._CONV_SIZES["fast"], "n_trials", 3)
    args = ["conv", "--out", str(tmp_path), "--workers", "1", "--quiet"]
    assert rp.main(args) == 0
    with np.load(tmp_path / "conv.npz", allow_pickle=False) as f:
        first = {k: f[k] for k in f.files if k != "_meta"}
    shards = sorted((tmp_path / "cache").glob("conv-*/*.npz"))
    assert len(shards) == 3
    assert rp.main(args) == 0  # undamaged shards are used as they are, though "distances" holds inf by design
    assert "tasks computed 0" in capsys.readouterr().out

    def add_inf(arrays):  # "final" is finite when written
        arrays["final"] = arrays["final"].copy()
        arrays["final"].flat[0] = np.inf

    def cut(arrays):
        arrays["iterations"] = arrays["iterations"][: arrays["iterations"].size // 2]

    def forget_shapes(arrays):  # a shard as written before shapes were recorded
        meta = json.loads(str(arrays["_meta"]))
        meta.pop("shapes", None)
        arrays["_meta"] = np.array(json.dumps(meta))

    for shard, change in zip(shards, (add_inf, cut, forget_shapes)):
        _rewrite_shard(shard, change)
    assert rp.main(args) == 0
    captured = capsys.readouterr()
    assert "tasks computed 3" in captured.out
    assert f"{shards[0]} (holds +inf in final)" in captured.err
    assert f"{shards[1]} (iterations has shape (25,); it was written with shape (51,))" in captured.err
    assert f"{shards[2]} (no record of the array shapes" in captured.err
    with np.load(tmp_path / "conv.npz", allow_pickle=False) as f:
        for k, v in first.items():
            np.testing.assert_array_equal(f[k], v)


def test_cache_accepts_the_non_finite_values_a_task_wrote_and_no_others(tmp_path):
    from relu_frames_nb.experiments._runner import Cache

    cache = Cache(tmp_path, "demo", {})
    spec = {"seed": 1}
    written = {"up": np.array([1.0, np.inf]), "down": np.array([-np.inf, 2.0]), "gap": np.array([np.nan, 3.0])}
    cache.save("t", written, spec)
    hit = cache.load("t", spec)
    assert hit is not None and not cache.healed
    for k, v in written.items():
        np.testing.assert_array_equal(hit[k], v)
    for key, value, reason in [("up", -np.inf, "holds -inf in up"), ("down", np.nan, "holds NaN in down"),
                               ("gap", np.inf, "holds +inf in gap")]:  # fmt: skip
        cache.save("t", written, spec)

        def spoil(arrays, key=key, value=value):
            arrays[key] = np.append(arrays[key][:1], value)

        _rewrite_shard(cache.dir / "t.npz", spoil)
        assert cache.load("t", spec) is None
        assert cache.healed[-1].endswith(f"({reason})")


def test_pool_workers_exit_when_the_parent_is_killed(tmp_path):
    script = (
        "import os, sys, time\n"
        "from relu_frames_nb.experiments._runner import default_executor\n"
        "pool = default_executor(max_workers=2)\n"
        "futs = [pool.submit(time.sleep, 0.2) for _ in range(2)]\n"
        "[f.result() for f in futs]\n"
        "print(' '.join(str(p) for p in pool._processes), flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2
    import os
    import time

    deadline = time.time() + 10
    alive = pids
    while alive and time.time() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if os.path.exists(f"/proc/{p}") and "Z" not in open(f"/proc/{p}/stat").read().split()[2]]
    assert not alive, f"worker processes left behind: {alive}"
