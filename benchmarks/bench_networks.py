"""Whole networks (issue 30), measured against the previous commit in the same run.

``python -m benchmarks networks`` (``--quick``: few networks, short limits; ``--against REV``: another commit to
compare with, default ``HEAD~1``). The package at ``REV`` is exported with ``git archive`` into a temporary folder
(no worktree, nothing in the checkout changes) and every case runs twice in fresh processes, once with this
checkout's package and once with that one, alternating, so that both see the same machine load.

* **Small random networks**: 2-3 layers, input 2-3, widths 3-12, weights N(0, 1), biases N(0.5, 0.5^2) (the generator
  of ``tests/test_network_exact.py``), on the box [-1, 1]^n, each with a time limit (30 s; ``--quick``: 10 s). Printed:
  decided / undetermined / crashed (an exception, or no answer), and the seconds (median, max). Targets: >= 95 %
  decided, no crash.
* **MNIST-size torch models**, built here from fixed seeds (He initialisation; the BatchNorm's statistics from a few
  forward passes in training mode): an MLP 784 -> 256 -> 128 -> 10, a CNN (Conv2d 1 -> 4, 3 x 3, BatchNorm2d, ReLU,
  MaxPool2d 2, Linear -> 10), a residual MLP (784 -> 128, then h + fc2(relu(fc1(h))) with 64 hidden units, ReLU,
  Linear -> 10) and a decoder 16 -> 128 -> 784 (affine output). Each is exported to ONNX (TorchScript exporter, no
  constant folding, so the file keeps its BatchNormalization) and checked by ``python -m relu_frames_nb check FILE.onnx
  --json`` on the hull of 1,000 digits-like images (:func:`benchmarks.bench_mnist.digits28`; the decoder on the hull of
  500 Gaussian codes) with a time limit (30 s; ``--quick``: 10 s). Printed: the wall time against ``1.1 limit + 5 s``,
  the process's memory high-water mark (VmHWM) against 2 GiB, and the answers of both commits.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._common import _CLI_CHILD, Target, at_least, at_most

ROOT = Path(__file__).resolve().parents[1]

#: one child per network set and commit: checks the networks of a .npz one by one, one JSON line per network
_SMALL_CHILD = r"""
import json, sys, time, traceback
import numpy as np
import relu_frames_nb as rf
from relu_frames_nb.domains import parse_domain
data, limit = np.load(sys.argv[1]), float(sys.argv[2])
for i in range(int(data["count"])):
    L = int(data[f"n{i}_layers"])
    pairs = [(data[f"n{i}_W{k}"], data[f"n{i}_b{k}"]) for k in range(L)]
    net = rf.Network.from_weights(pairs)
    t0 = time.perf_counter()
    try:
        v = rf.check(net, parse_domain("box:-1,1", net.n), time_limit=limit)
        out = {"status": str(v.status.value), "error": ""}
    except Exception as exc:
        out = {"status": "crashed", "error": f"{type(exc).__name__}: {exc}"[:300]}
    out.update(i=i, seconds=time.perf_counter() - t0)
    print(json.dumps(out), flush=True)
"""


def quick_mode() -> bool:
    """True for ``--quick``: a few networks and short limits, to see that the benchmark works."""
    return os.environ.get("RELU_FRAMES_BENCH_QUICK", "") not in ("", "0", "false", "no")


def against() -> str:
    """The commit to compare with (``--against REV``; default ``HEAD~1``)."""
    return os.environ.get("RELU_FRAMES_BENCH_AGAINST", "") or "HEAD~1"


def export_package(rev: str, dest: Path) -> str:
    """The package ``relu_frames_nb`` as of ``rev`` under ``dest`` (``git archive``); returns the commit's short name."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True)
    sha = sha.stdout.strip()
    tar = dest / "pkg.tar"
    with open(tar, "wb") as fh:
        subprocess.run(["git", "archive", "--format=tar", rev, "relu_frames_nb"], cwd=ROOT, stdout=fh, check=True)
    with tarfile.open(tar) as tf:
        tf.extractall(dest, filter="data")
    tar.unlink()
    return sha


# ---------------------------------------------------------------------------------
# small random networks
# ---------------------------------------------------------------------------------


def small_networks(count: int, seed: int = 30) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """``count`` networks of 2-3 layers, input 2-3, widths 3-12 (weights N(0, 1), biases N(0.5, 0.25))."""
    rng = np.random.default_rng(seed)
    nets = []
    for _ in range(count):
        n, layers = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        widths = [n] + [int(rng.integers(3, 13)) for _ in range(layers)]
        nets.append([(rng.normal(size=(b, a)), rng.normal(size=b) * 0.5 + 0.5) for a, b in zip(widths[:-1], widths[1:])])
    return nets


def _save_networks(nets: list, path: Path) -> None:
    arrays = {"count": np.array(len(nets))}
    for i, pairs in enumerate(nets):
        arrays[f"n{i}_layers"] = np.array(len(pairs))
        for k, (W, b) in enumerate(pairs):
            arrays[f"n{i}_W{k}"], arrays[f"n{i}_b{k}"] = W, b
    np.savez(path, **arrays)


def run_small(pkg: Path, nets_file: Path, count: int, limit: float) -> list[dict]:
    """The small networks checked by the package under ``pkg`` in one child; a network with no answer counts as crashed."""
    env = dict(os.environ, PYTHONPATH=str(pkg))
    cap = count * (1.1 * limit + 5) + 60  # every network at the watchdog's bound, and the imports
    try:
        res = subprocess.run([sys.executable, "-c", _SMALL_CHILD, str(nets_file), str(limit)], capture_output=True, text=True,
                             env=env, cwd=pkg, timeout=cap)  # fmt: skip
        out, err = res.stdout, res.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = "timed out"
    rows = {}
    for line in out.splitlines():
        try:
            row = json.loads(line)
            rows[row["i"]] = row
        except (json.JSONDecodeError, KeyError):
            continue
    tail = err.strip().splitlines()[-1] if err.strip() else ""
    missing = {"status": "crashed", "seconds": float("nan"), "error": f"no answer ({tail})"}
    return [rows.get(i, {"i": i, **missing}) for i in range(count)]


def _summary(rows: list[dict]) -> dict:
    secs = [r["seconds"] for r in rows if np.isfinite(r["seconds"])]
    return {
        "decided": sum(r["status"] in ("injective", "not injective") for r in rows),
        "undetermined": sum(r["status"] == "undetermined" for r in rows),
        "crashed": sum(r["status"] == "crashed" for r in rows),
        "median": statistics.median(secs) if secs else float("nan"),
        "max": max(secs) if secs else float("nan"),
    }


# ---------------------------------------------------------------------------------
# MNIST-size torch models
# ---------------------------------------------------------------------------------


def torch_models(tmp: Path) -> dict:
    """The four models as ONNX files in ``tmp`` with their domains: ``{name: (file, domain spec)}``."""
    import warnings

    import torch
    from torch import nn

    from benchmarks.bench_mnist import digits28

    torch.manual_seed(30)
    X = digits28(1000, seed=30)
    np.save(tmp / "digits.npy", X)
    codes = np.random.default_rng(30).standard_normal((500, 16))
    np.save(tmp / "codes.npy", codes)

    def he(model):
        for mod in model.modules():
            if isinstance(mod, (nn.Linear, nn.Conv2d)):
                nn.init.kaiming_normal_(mod.weight, nonlinearity="relu")
                nn.init.normal_(mod.bias, std=0.01)
        return model

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4)
            self.pool, self.fc = nn.MaxPool2d(2), nn.Linear(4 * 14 * 14, 10)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(torch.relu(self.bn(self.conv(x)))), 1))

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc0, self.fc1 = nn.Linear(784, 128), nn.Linear(128, 64)
            self.fc2, self.out = nn.Linear(64, 128), nn.Linear(128, 10)

        def forward(self, x):
            h = torch.relu(self.fc0(x))
            return self.out(torch.relu(h + self.fc2(torch.relu(self.fc1(h)))))

    mlp = he(nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)))
    cnn = he(CNN())
    cnn.train()
    with torch.no_grad():  # the BatchNorm's running statistics from the data (forward passes in training mode)
        for k in range(5):
            cnn(torch.tensor(X[200 * k : 200 * (k + 1)], dtype=torch.float32).reshape(-1, 1, 28, 28))
    models = {
        "MLP 784-256-128-10": (mlp, (784,), "hull:digits.npy"),
        "CNN conv-BN-ReLU-maxpool-fc": (cnn, (1, 28, 28), "hull:digits.npy"),
        "residual MLP 784-128(+64)-10": (he(Residual()), (784,), "hull:digits.npy"),
        "decoder 16-128-784": (he(nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 784))), (16,), "hull:codes.npy"),
    }
    out = {}
    for i, (name, (model, shape, domain)) in enumerate(models.items()):
        path = tmp / f"model{i}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model.eval(), torch.zeros(1, *shape), str(path), dynamo=False, do_constant_folding=False)
        out[name] = (path, domain)
    return out


def run_cli_with(pkg: Path, args: list, cwd: Path, limit: float) -> dict:
    """``python -m relu_frames_nb`` of the package under ``pkg``: wall time, peak memory (MiB), status, exit code."""
    t0 = time.perf_counter()
    try:
        res = subprocess.run([sys.executable, "-c", _CLI_CHILD, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                             env=dict(os.environ, PYTHONPATH=str(pkg)), timeout=3 * limit + 60)  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"elapsed": time.perf_counter() - t0, "peak_mib": float("nan"), "status": "no answer (killed)", "code": -9}
    elapsed = time.perf_counter() - t0
    try:
        info = json.loads(res.stderr.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        info = {}
    try:
        out = json.loads(res.stdout)
        status = out["status"] if out["status"] != "error" else f"error: {out.get('error', '')[:70]}"
    except (json.JSONDecodeError, KeyError):
        status = f"no JSON (exit {res.returncode})"
    return {"elapsed": elapsed, "peak_mib": info.get("peak_mib", float("nan")), "status": status, "code": res.returncode}


# ---------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------


def main() -> list[Target]:
    quick = quick_mode()
    count, small_limit, limit = (6, 10.0, 10.0) if quick else (30, 30.0, 30.0)
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "before").mkdir()
        sha = export_package(against(), tmp / "before")
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "relu_frames_nb"], cwd=ROOT, capture_output=True,
                                    text=True).stdout.strip())  # fmt: skip
        now_name = f"{head}{'+' if dirty else ''}"
        versions = {"now": ROOT, "before": tmp / "before"}
        print(f"now: this checkout ({now_name}{', with uncommitted changes' if dirty else ''}); before: {sha} "
              f"({against()}); {'quick' if quick else 'full'} mode; load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip

        # -- small random networks
        nets_file = tmp / "small.npz"
        _save_networks(small_networks(count), nets_file)
        small = {name: run_small(pkg, nets_file, count, small_limit) for name, pkg in versions.items()}
        print(f"\nsmall random networks: {count}, 2-3 layers, input 2-3, widths 3-12, box [-1, 1]^n, limit {small_limit:g} s")
        print(f"{'':8} {'decided':>8} {'undet.':>7} {'crashed':>8} {'median s':>9} {'max s':>7}")
        sums = {}
        for name in versions:
            s = sums[name] = _summary(small[name])
            print(f"{name:8} {s['decided']:>8} {s['undetermined']:>7} {s['crashed']:>8} {s['median']:>9.2f} {s['max']:>7.2f}")
        ratio = sums["now"]["median"] / sums["before"]["median"] if sums["before"]["median"] > 0 else float("nan")
        print(f"median seconds now / before: {ratio:.2f}")
        for r in small["now"]:
            if r["status"] != "injective" and r["status"] != "not injective":
                print(f"  network {r['i']}: {r['status']} {r.get('error', '')}")
        share = sums["now"]["decided"] / count
        targets.append(at_least("networks: small random networks decided", 100 * share, 95.0, " %"))
        targets.append(at_most("networks: small random networks crashed", sums["now"]["crashed"], 0.0))

        # -- MNIST-size torch models through the command line
        models = torch_models(tmp)
        print(f"\nMNIST-size torch models (ONNX, command line, limit {limit:g} s; bound {1.1 * limit + 5:g} s, 2048 MiB)")
        print(f"{'model':<30} {'domain':<16} {'now s':>6} {'MiB':>6} {'answer now':<16} {'before s':>8} {'MiB':>6} "
              f"{'answer before':<16} {'ratio':>5}")  # fmt: skip
        for name, (path, domain) in models.items():
            args = ["check", path.name, "--domain", domain, "--time-limit", str(limit), "--json", "--quiet"]
            r = {v: run_cli_with(pkg, args, tmp, limit) for v, pkg in versions.items()}
            n, b = r["now"], r["before"]
            print(f"{name:<30} {domain:<16} {n['elapsed']:>6.1f} {n['peak_mib']:>6.0f} {n['status'][:16]:<16} "
                  f"{b['elapsed']:>8.1f} {b['peak_mib']:>6.0f} {b['status'][:16]:<16} {n['elapsed'] / b['elapsed']:>5.2f}",
                  flush=True)  # fmt: skip
            targets.append(at_most(f"networks: {name}, elapsed (limit {limit:g} s)", n["elapsed"], 1.1 * limit + 5, " s"))
            targets.append(at_most(f"networks: {name}, peak memory", n["peak_mib"], 2048.0, " MiB"))
            ok = n["code"] in (0, 1, 3)
            targets.append(Target(f"networks: {name}, an answer", float(ok), 1.0, ok, "", "exit 0, 1 or 3"))
    held = sum(t.holds for t in targets)
    print(f"bench_networks: {held}/{len(targets)} targets hold")
    return targets


if __name__ == "__main__":
    for flag, var in (("--quick", "RELU_FRAMES_BENCH_QUICK"),):
        if flag in sys.argv:
            os.environ[var] = "1"
    if "--against" in sys.argv:
        os.environ["RELU_FRAMES_BENCH_AGAINST"] = sys.argv[sys.argv.index("--against") + 1]
    main()
