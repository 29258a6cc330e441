"""Real layer sizes (issue "Sizes"): the spanning test of large layers and the memory of large m.

Measured in one run:

(a) ``is_rectifying`` on a random 2000 x 200 layer (W Gaussian / sqrt(n), b ~ N(-0.05, 0.05)),
    1000 samples of the unit ball (4000 with ``--full``), against the old path in the same
    process (one SVD per distinct active pattern, ``rectifying._is_rectifying_per_pattern``):
    same answers, and the new path (group intersections certified by one small Gram matrix,
    SVD only for what is left) must be >= 3x faster;
(b) peak memory (max resident set size, measured in a fresh subprocess) of the large-m checks
    on a 20000 x 3 and a 10^5 x 3 layer: ``is_rectifying`` on 50000 ball samples,
    ``find_collision`` on the ball and on 1000 data points, and ``sampling_bias`` with 200000
    samples under a 30 s time limit: each must stay <= 1024 MiB (they took 15 GB and a
    ``MemoryError`` before);
(c) with ``--full`` only: the wall time of ``rf.check`` on the 2000 x 200 layer and the
    unit ball (target <= 60 s; it depends on code outside the spanning test, e.g. the exact
    stage of the check).

BLAS threads are left as they are (OpenBLAS default). On a loaded 2-core machine, threaded
BLAS on many small matrices slows both paths of (a) by up to 10x; the ratio is what counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

import relu_frames_nb as rf
from benchmarks._common import Target, at_least, at_most, best_of, full_mode
from relu_frames_nb.paper.rectifying import _is_rectifying_per_pattern


def random_layer(m: int, n: int, seed: int = 0) -> rf.ReLULayer:
    """The layer of the issue: W Gaussian / sqrt(n), PyTorch bias b ~ N(-0.05, 0.05)."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((m, n)) / np.sqrt(n)
    b = rng.normal(-0.05, 0.05, m)
    return rf.ReLULayer.from_weights(W, b)


def bench_spanning() -> list[Target]:
    L = random_layer(2000, 200)
    N = 4000 if full_mode() else 1000
    X = rf.Ball(200).sample(N, seed=0)
    from relu_frames_nb._util.threads import one_blas_thread

    with one_blas_thread():  # as the command line runs them: many small factorizations
        old, new = _is_rectifying_per_pattern(L, X), rf.is_rectifying(L, X)
        t_old = best_of(lambda: _is_rectifying_per_pattern(L, X))
        t_new = best_of(lambda: rf.is_rectifying(L, X))
    same = bool(np.array_equal(old, new))
    ratio = t_old / max(t_new, 1e-9)
    print(f"(a) is_rectifying 2000x200, {N} points: per-pattern SVD {t_old:.2f} s, new {t_new:.2f} s -> {ratio:.1f}x, "
          f"same answers: {same}")  # fmt: skip
    return [at_least("sizes: is_rectifying 2000x200 speed-up", ratio, 3.0, "x"),
            Target("sizes: is_rectifying 2000x200 same answers", float(same), 1.0, same, "", "identical")]  # fmt: skip


_CHILD = r"""
import json, resource, sys, time
import numpy as np
import relu_frames_nb as rf
from relu_frames_nb.paper.bias.sampling import sampling_bias
m, n, stage = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0)
L = rf.ReLULayer.from_weights(rng.standard_normal((m, n)) / np.sqrt(n), rng.normal(-0.05, 0.05, m))
K = rf.Ball(n)
t0 = time.perf_counter()
if stage == "is_rectifying":
    out = float(rf.is_rectifying(L, K.sample(50_000, seed=0)).mean())
elif stage == "find_collision":
    out = rf.find_collision(L, K).certainty
elif stage == "data":
    out = rf.find_collision(L, rf.Samples(K.sample(1000, seed=3))).certainty
else:
    est = sampling_bias(L.frame, K, n_samples=200_000, time_limit=30.0, progress=False)
    out = f"{est.n_samples} samples" + (" (time limit)" if est.info["time_limit_hit"] else "")
# VmHWM: this process image's own high-water mark. ru_maxrss would also count the parent's
# resident set at fork time (Linux carries it over an exec), i.e. whatever ran before in the runner.
with open("/proc/self/status") as fh:
    hwm = [line for line in fh if line.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_mib": peak, "seconds": time.perf_counter() - t0, "out": out}))
"""


def _child(m: int, n: int, stage: str) -> dict:
    res = subprocess.run([sys.executable, "-c", _CHILD, str(m), str(n), stage], capture_output=True, text=True, timeout=900)
    if res.returncode != 0:
        return {"peak_mib": float("inf"), "seconds": float("nan"), "out": res.stderr.strip().splitlines()[-1:]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def bench_memory() -> list[Target]:
    targets = []
    for m, n in ((20_000, 3), (100_000, 3)):
        for stage in ("is_rectifying", "find_collision", "data", "sampling_bias"):
            r = _child(m, n, stage)
            print(f"(b) {m}x{n} {stage}: peak {r['peak_mib']:.0f} MiB, {r['seconds']:.1f} s ({r['out']})")
            targets.append(at_most(f"sizes: {m}x{n} {stage} peak memory", r["peak_mib"], 1024.0, " MiB"))
    return targets


def bench_check() -> list[Target]:
    L = random_layer(2000, 200)
    t0 = time.perf_counter()
    v = rf.check(L, rf.Ball(200), progress=False)
    sec = time.perf_counter() - t0
    print(f"(c) rf.check 2000x200 on the unit ball: {sec:.1f} s, {v.status}")
    return [at_most("sizes: check 2000x200 ball", sec, 60.0, " s")]


def main() -> list[Target]:
    targets = [*bench_spanning(), *bench_memory()]
    if full_mode():
        targets += bench_check()
    held = [t.name for t in targets if t.holds]
    missed = [t.name for t in targets if not t.holds]
    print(f"bench_sizes: {len(held)}/{len(targets)} targets hold" + (f"; missed: {', '.join(missed)}" if missed else ""))
    return targets


if __name__ == "__main__":
    main()
