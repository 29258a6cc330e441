"""`python -m relu_frames_nb check`: loading, the Verdict it prints, bad input, interrupts, the fuzz round."""

import json
import os
import signal
import subprocess
import sys
import time
import types

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.cli import (
    EXIT_BAD_INPUT,
    EXIT_INJECTIVE,
    EXIT_INTERRUPTED,
    EXIT_NOT_INJECTIVE,
    EXIT_UNDETERMINED,
)
from relu_frames_nb.errors import InputError
from relu_frames_nb.loading import load_layer, load_model, load_weights
from tests.conftest import sigint_as_in_a_terminal

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
    assert load_weights(t / "layer.npz")[2] == "b" and load_weights(t / "alpha.npz")[2] == "alpha"


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
    layer = load_layer(tmp_path / "W.txt")  # zero row: not a frame, but a layer all the same (issue 18)
    assert isinstance(layer, rf.ReLULayer) and not layer.is_frame
    with pytest.raises(rf.NotAFrameError, match="not a frame"):
        _ = layer.frame
    model, _ = load_model(tmp_path / "W.txt")
    assert isinstance(model, rf.ReLULayer) and model.m == 2
    with pytest.raises(InputError, match="--last-linear / --last-relu apply to a file with several"):
        load_model(tmp_path / "W.txt", last="linear")


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
    net, kind = load_model(tmp_path / "model.pt")  # the whole file: a network, in the state dict's order
    assert isinstance(net, rf.Network) and net.names == ("enc", "dec") and kind == "b"


def _run(*args, **kw):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True, **kw)
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
    assert rc == EXIT_BAD_INPUT and json.loads(out)["status"] == "error"


def test_check_prints_the_verdict_as_json(triangle_files):
    t = triangle_files
    # alpha = -1/2 on the unit ball: injective, guaranteed by the polytope bias (Example "mb")
    rc, out, err = _run("check", t / "layer.npz", "--domain", "ball:1", "--json", "--quiet")
    rep = json.loads(out)
    assert rc == EXIT_INJECTIVE and rep["status"] == "injective" and rep["exit_code"] == 0, err
    assert rep["certificate"]["kind"] == "polytope bias" and "PyTorch" in rep["details"]["bias"]
    np.testing.assert_allclose(rep["details"]["polytope_bias"], [-0.5] * 3, atol=1e-12)
    expected = set(rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2)).to_dict())
    assert set(rep) == expected  # the command prints Verdict.to_dict()
    # alpha = 0: not injective, with a collision pair that really collides
    rc, out, _ = _run("check", t / "W.npy", "--domain", "ball:1", "--json", "--quiet")
    rep = json.loads(out)
    assert rc == EXIT_NOT_INJECTIVE and rep["status"] == "not injective"
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    x, y = (np.array(p) for p in rep["pair"])
    np.testing.assert_allclose(L(x), L(y), rtol=0, atol=1e-15)
    assert np.linalg.norm(x - y) > 1e-6 and rf.Ball(2).contains_certified(np.vstack([x, y])).all()
    # text: the verdict line first
    rc, out, _ = _run("check", t / "layer.npz", "--quiet")
    assert rc == EXIT_INJECTIVE and out.startswith("injective on the ball B(r=1)")


def test_check_undetermined_and_finite_sets(tmp_path):
    F = rf.zoo.platonic("icosahedron")
    pbe = rf.polytope_bias(F, rf.Sphere(3)).values
    np.savez(tmp_path / "ico.npz", W=F.vectors, alpha=pbe + 1e-9)
    rc, out, _ = _run("check", tmp_path / "ico.npz", "--domain", "sphere:1", "--json", "--quiet", "--time-limit", "5")
    assert rc in (EXIT_UNDETERMINED, EXIT_NOT_INJECTIVE) and json.loads(out)["status"] in ("undetermined", "not injective")
    # finite data set: exact in both directions (Example "mb2")
    pts = np.array([[0.5, SQ3 / 2], [-0.5, SQ3 / 2], [0.0, -1.0]])
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    np.save(tmp_path / "X3.npy", pts)
    np.save(tmp_path / "X2.npy", pts[1:])
    assert _run("check", tmp_path / "W.npy", "--domain", f"samples:{tmp_path / 'X3.npy'}", "--quiet")[0] == EXIT_NOT_INJECTIVE
    assert _run("check", tmp_path / "W.npy", "--domain", f"samples:{tmp_path / 'X2.npy'}", "--quiet")[0] == EXIT_INJECTIVE


def test_check_zero_bias_real_space_exact(tmp_path):
    np.save(tmp_path / "pm.npy", rf.zoo.plus_minus_basis(3).vectors)
    rc, out, _ = _run("check", tmp_path / "pm.npy", "--domain", "real-space", "--json", "--quiet")
    assert rc == EXIT_INJECTIVE and json.loads(out)["method"] == "Tukey depth"
    np.save(tmp_path / "mb.npy", rf.zoo.mercedes_benz().vectors)
    rc, out, _ = _run("check", tmp_path / "mb.npy", "--bias", "alpha:-1", "--domain", "real-space", "--quiet")
    assert rc == EXIT_NOT_INJECTIVE  # m < 2n: never injective on R^n
    W = np.random.default_rng(101).standard_normal((70, 10))  # the exact depth search, in two threads
    np.save(tmp_path / "g.npy", W)
    rc, out, _ = _run("check", tmp_path / "g.npy", "--bias", "alpha:0", "--domain", "real-space", "--method", "exact",
                      "--workers", "2", "--json", "--quiet")  # fmt: skip
    assert rc in (EXIT_INJECTIVE, EXIT_NOT_INJECTIVE) and "removal sets" in json.loads(out)["text"]
    rc, _, err = _run("check", tmp_path / "g.npy", "--workers", "0", "--quiet")
    assert rc == 2 and "--workers" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------
# the fuzz round's findings
# ---------------------------------------------------------------------------------


def test_fuzz_decimal_box_bounds_are_numbers_not_a_file(tmp_path):
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    rc, out, err = _run("check", tmp_path / "W.npy", "--domain", "box:-0.5,0.5", "--json", "--quiet")
    assert rc in (0, 1, 3) and json.loads(out)["domain"] == "the box [-0.5, 0.5]^2", err


@pytest.mark.parametrize("spec", ["ball:1e300", "box:-1e308,1e308", "ball:1e-300"])
def test_fuzz_extreme_domains_are_checked_not_refused(tmp_path, spec):
    np.save(tmp_path / "W.npy", np.random.default_rng(0).standard_normal((9, 3)))
    rc, out, err = _run("check", tmp_path / "W.npy", "--domain", spec, "--json", "--quiet")
    rep = json.loads(out)
    assert rc == EXIT_NOT_INJECTIVE and rep["status"] == "not injective", err  # as on ball:1 (zero bias)


def test_fuzz_a_cube_with_huge_bounds_is_bounded(tmp_path):
    np.savez(tmp_path / "P.npz", A=np.vstack([np.eye(3), -np.eye(3)]), b=np.full(6, 1e300))
    K = rf.parse_domain(f"polytope:{tmp_path / 'P.npz'}", 3)
    assert K.bounded and K.radius == pytest.approx(np.sqrt(3) * 1e300)
    np.save(tmp_path / "W.npy", np.random.default_rng(0).standard_normal((9, 3)))
    rc, out, err = _run("check", tmp_path / "W.npy", "--domain", f"polytope:{tmp_path / 'P.npz'}", "--json", "--quiet")
    assert rc == EXIT_NOT_INJECTIVE, err


def test_fuzz_a_directory_or_fifo_is_named_as_such(tmp_path):
    (tmp_path / "d.npy").mkdir()
    rc, _, err = _run("check", tmp_path / "d.npy")
    assert rc == EXIT_BAD_INPUT and "directory" in err
    os.mkfifo(tmp_path / "f.npy")
    rc, _, err = _run("check", tmp_path / "f.npy")
    assert rc == EXIT_BAD_INPUT and "FIFO" in err


def test_fuzz_an_npz_with_both_biases_or_a_loose_vector_is_refused(tmp_path):
    W = rf.zoo.mercedes_benz().vectors
    np.savez(tmp_path / "both.npz", W=W, b=np.ones(3), alpha=np.ones(3))
    with pytest.raises(InputError, match="one bias"):
        load_weights(tmp_path / "both.npz")
    np.savez(tmp_path / "loose.npz", W, np.ones(3))  # arr_0 = W, arr_1 = an unnamed vector
    with pytest.raises(InputError, match="arr_1"):
        load_weights(tmp_path / "loose.npz")


def _net_npz(path, names, widths, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, (n_in, n_out) in zip(names, widths):
        arrays[f"{name}.weight"] = rng.standard_normal((n_out, n_in))
        arrays[f"{name}.bias"] = np.zeros(n_out)
    np.savez(path, **arrays)
    return arrays


def test_fuzz_bias_with_a_network_file_is_refused(tmp_path):
    _net_npz(tmp_path / "net.npz", ["fc1", "fc2"], [(2, 6), (6, 12)])
    rc, out, _ = _run("check", tmp_path / "net.npz", "--bias", "0.1", "--json")
    assert rc == EXIT_BAD_INPUT and "--bias applies to one layer" in json.loads(out)["error"]


def test_fuzz_layers_are_composed_in_the_order_of_their_names_and_named(tmp_path):
    # saved in the order fc1, fc10, fc2 (a sorted dict): numbers must compare as numbers
    arrays = _net_npz(tmp_path / "x.npz", ["fc1", "fc2", "fc10"], [(3, 3), (3, 3), (3, 3)])
    np.savez(tmp_path / "net.npz", **{k: arrays[k] for k in sorted(arrays)})
    net, _ = load_model(tmp_path / "net.npz")
    assert net.names == ("fc1", "fc2", "fc10")
    np.testing.assert_array_equal(net.weights[2][0], arrays["fc10.weight"])
    rc, out, _ = _run("check", tmp_path / "net.npz", "--json", "--quiet", "--time-limit", "5")
    rep = json.loads(out)
    assert rep["details"]["layer_names"] == ["fc1", "fc2", "fc10"]
    assert [ly["details"]["layer"] for ly in rep["layers"]][0] == "layer 1 (fc1)"


def test_fuzz_a_scalar_weight_beside_a_matrix_is_refused(tmp_path):
    np.savez(tmp_path / "net.npz", **{"fc1.weight": np.array(2.0), "fc2.weight": np.ones((4, 2)), "fc3.weight": np.ones((3, 4))})
    rc, out, _ = _run("check", tmp_path / "net.npz", "--json")
    assert rc == EXIT_BAD_INPUT and "0-D" in json.loads(out)["error"]


# ---------------------------------------------------------------------------------
# interrupts and children
# ---------------------------------------------------------------------------------


def _slow_layer(tmp_path):
    """A layer whose exact stage runs long: 24 dimensions, 120 rows, a bias that leaves no witness to the cheap
    searches (at -0.05 the LP relaxation finds one in a few seconds), in a forked MILP child."""
    W = np.random.default_rng(0).standard_normal((120, 24))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    np.savez(tmp_path / "slow.npz", W=W, alpha=np.full(120, -0.2))
    return tmp_path / "slow.npz"


def _start(path, *extra):
    # the compiled depth search is compiled (and cached on disk) here first, as the set-up does, so that the check
    # spends its 40 s on the search for a pair, not on a compilation
    from relu_frames_nb.paper.depth import compile_search

    compile_search()
    env = dict(os.environ, RFNB_MILP_CHILD="always")
    return subprocess.Popen([sys.executable, "-m", "relu_frames_nb", "check", str(path), "--domain", "box:-1,1",
                             "--method", "exact", "--time-limit", "40", "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=sigint_as_in_a_terminal)  # fmt: skip


def _children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid):
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for_child(proc, seconds=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        kids = _children(proc.pid)
        if kids:
            return kids
        if proc.poll() is not None:
            return []
        time.sleep(0.1)
    return []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig, json_flag", [(signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGINT, False)])
def test_interrupt_prints_one_line_and_its_own_exit_code(tmp_path, sig, json_flag):
    proc = _start(_slow_layer(tmp_path), *(["--json"] if json_flag else []))
    kids = _wait_for_child(proc)
    assert kids, proc.communicate()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED and "Traceback" not in err
    if json_flag:
        rep = json.loads(out)
        assert rep["status"] == "interrupted" and rep["exit_code"] == EXIT_INTERRUPTED
    else:
        assert err.strip().startswith("interrupted:") and err.strip().count("\n") == 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30 and any(_alive(k) for k in kids):
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids)  # the MILP child went with it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_milp_child_dies_with_its_parent(tmp_path):
    proc = _start(_slow_layer(tmp_path))
    kids = _wait_for_child(proc)
    assert kids
    proc.kill()
    proc.wait()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30 and any(_alive(k) for k in kids):
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids)


def test_save_pair_draws_the_pair(tmp_path):
    # issue 18: --save-pair FILE draws a colliding pair (images when the input is a square number of pixels)
    import json
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    W = rng.standard_normal((40, 64))
    W[:, :8] = 1e-23  # eight pixels never read
    np.savez(tmp_path / "l64.npz", W=W, b=np.zeros(40))
    run = lambda *a: subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", *map(str, a), "--quiet", "--json"],  # noqa: E731
                                    capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    proc = run("l64.npz", "--domain", "box:0,1", "--save-pair", "pair.png")
    rep = json.loads(proc.stdout)
    assert rep["status"] == "not injective" and rep["details"]["pair_figure"] == "pair.png"
    assert (tmp_path / "pair.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert rep["details"]["dead_inputs"]["unread"] == list(range(8))
    # no pair: nothing written, and the verdict says so
    np.savez(tmp_path / "id.npz", W=np.vstack([np.eye(3), -np.eye(3)]), b=np.ones(6))
    proc = run("id.npz", "--domain", "ball:1", "--save-pair", "none.png")
    rep = json.loads(proc.stdout)
    assert rep["status"] == "injective" and not (tmp_path / "none.png").exists()
    assert any("no pair to draw" in note for note in rep["notes"])
    assert run("id.npz", "--save-pair", "pair.txt").returncode == 2


def test_reading_the_files_counts_against_the_time_limit(triangle_files, monkeypatch, capsys):
    """A hull of 60,000 images takes seconds to read and factor: the check gets only what is left."""
    from relu_frames_nb import cli

    now = types.SimpleNamespace(t=100.0)
    fake_time = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
    fake_time.perf_counter = lambda: now.t
    monkeypatch.setattr(cli, "time", fake_time)
    real_parse, seen = cli.parse_domain, {}

    def slow_parse(*args, **kw):
        now.t += 12.0  # reading the domain took 12 s of the fake clock
        return real_parse(*args, **kw)

    def fake_check(model, K, **kw):
        seen["time_limit"] = kw["time_limit"]
        return rf.check(model, K, time_limit=None)

    monkeypatch.setattr(cli, "parse_domain", slow_parse)
    monkeypatch.setattr(cli, "check", fake_check)
    rc = cli.main(["check", str(triangle_files / "layer.npz"), "--domain", "ball:1", "--time-limit", "30", "--quiet"])
    assert rc == EXIT_INJECTIVE, capsys.readouterr().err
    assert seen["time_limit"] == pytest.approx(18.0)


# ---------------------------------------------------------------------------------
# the answer reaches standard output whatever happens to file descriptor 1 (issue 29)
# ---------------------------------------------------------------------------------

#: a check that sits in a HiGHS call past the watchdog: the silencer points descriptor 1 at /dev/null
_SILENCED_CHILD = """
import sys, time
from relu_frames_nb import cli; from relu_frames_nb._util import lp as _lp

def check_in_a_silenced_solve(*args, **kwargs):
    with _lp.quiet():
        time.sleep(120)

cli.check = check_in_a_silenced_solve
sys.exit(cli.main(sys.argv[1:]))
"""


class _Busy:
    """``n`` processes spinning on a core each, stopped on exit (the machine under load)."""

    def __init__(self, n):
        self.n, self.procs = n, []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


@pytest.mark.parametrize("busy", [0, 3])
def test_the_watchdog_answer_arrives_while_a_solver_is_silenced(triangle_files, busy):
    """It was lost: the watchdog printed into /dev/null during _lp.quiet(), exit 3 with 0 bytes (the 784-d hull)."""
    args = ["check", str(triangle_files / "layer.npz"), "--time-limit", "0", "--quiet"]
    with _Busy(busy):
        proc = subprocess.run([sys.executable, "-c", _SILENCED_CHILD, *args, "--json"], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        text = subprocess.run([sys.executable, "-c", _SILENCED_CHILD, *args], capture_output=True, text=True, timeout=300)
    rep = json.loads(proc.stdout)
    assert proc.returncode == EXIT_UNDETERMINED and rep["status"] == "undetermined", proc.stderr
    assert rep["details"]["stopped_by"] == "watchdog" and "overran its time limit" in rep["text"]
    assert text.returncode == EXIT_UNDETERMINED and text.stdout.startswith("undetermined — the check overran")


def test_a_real_check_answers_in_json_beside_three_busy_processes(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "l12.npz", W=rng.standard_normal((60, 12)), b=np.full(60, -0.1))
    with _Busy(3):
        proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", "check", str(tmp_path / "l12.npz"), "--method",
                               "exact", "--time-limit", "1", "--json", "--quiet"], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
    rep = json.loads(proc.stdout)
    assert rep["status"] in ("injective", "not injective", "undetermined") and rep["exit_code"] == proc.returncode


@pytest.mark.parametrize("limit", ["1e10", "1e300"])
def test_a_huge_time_limit_keeps_the_watchdog(tmp_path, limit):
    """It printed an OverflowError traceback from the watchdog's thread (threading.Timer's interval), then ran unwatched."""
    from relu_frames_nb import cli

    assert cli.watchdog_delay(float(limit)) <= 366 * 24 * 3600.0 and cli.watchdog_delay(10.0) == pytest.approx(16.0)
    np.savez(tmp_path / "mb.npz", W=rf.zoo.mercedes_benz().vectors, b=np.full(3, 0.6))  # alpha = -0.6 < -1/2: injective
    rc, out, err = _run("check", tmp_path / "mb.npz", "--time-limit", limit, "--json", "--quiet")
    assert rc == EXIT_INJECTIVE and json.loads(out)["status"] == "injective"
    assert "Traceback" not in err and "OverflowError" not in err, err


@pytest.mark.parametrize("json_flag", [True, False])
def test_running_out_of_memory_is_undetermined_not_an_internal_error(triangle_files, monkeypatch, capsys, json_flag):
    from relu_frames_nb import cli

    def greedy(*args, **kwargs):
        raise MemoryError("Unable to allocate 3.77 TiB for an array with shape (1000000, 520000)")

    monkeypatch.setattr(cli, "check", greedy)
    args = ["check", str(triangle_files / "layer.npz"), "--memory-limit", "0.5", "--quiet", *(["--json"] if json_flag else [])]
    rc = cli.main(args)
    out = capsys.readouterr().out
    assert rc == EXIT_UNDETERMINED  # was 4 (internal error, "out of memory")
    if json_flag:
        rep = json.loads(out)
        assert rep["status"] == "undetermined" and rep["exit_code"] == EXIT_UNDETERMINED
        assert rep["text"].startswith("undetermined — memory limit") and rep["details"]["stopped_by"] == "memory limit"
        assert rep["details"]["memory_limit_gb"] == 0.5
    else:
        assert out.startswith("undetermined — memory limit") and "--memory-limit 0.5 GB" in out
