"""Paper-scale experiments: Figure "isinj" and "propinj" wall times against their targets.

Targets (issue 5): the full Figure "isinj" (3,915 frames, N = 5e5 samples each) in at most
10 minutes on this machine, Figure "propinj" with 1000 trials in at most 10 minutes.

Baseline (measured in the same run): the straightforward vectorised numpy version of the
sampling estimate, per configuration ``X @ Phi.T``, ``np.partition`` and a masked minimum,
timed on a few large configurations, fitted with ``t = N (a n + b m + c n m)`` and
extrapolated to all 3,915 configurations (serial, one process).

``python -m benchmarks experiments`` measures a subset at full fidelity and extrapolates
(labelled so); ``python -m benchmarks --full experiments`` runs both figures completely.
"""

from __future__ import annotations

import os
import time

import numpy as np

from benchmarks._common import Target, at_least, at_most, full_mode
from relu_frames_nb import experiments as ex
from relu_frames_nb._util import kernels as _kernels

N_FULL = 500_000
ISINJ_CONFIGS = [(n, m) for n in range(2, 31) for m in range(n, 151)]
QUICK_DIMS = [3, 9, 15, 21, 27]
BASELINE_CONFIGS = [(30, 150), (15, 150), (30, 60), (6, 100)]


def baseline_config(n: int, m: int, N: int = N_FULL, chunk: int = 4096, seed: int = 0) -> np.ndarray:
    """The straightforward vectorised estimate: matmul, np.partition, masked minimum (one configuration)."""
    rng = np.random.default_rng(seed)
    Phi = rng.standard_normal((m, n))
    alpha = np.full(m, np.inf)
    for a in range(0, N, chunk):
        X = rng.standard_normal((min(chunk, N - a), n))
        G = X @ Phi.T
        t = np.partition(G, m - n, axis=1)[:, m - n]
        alpha = np.minimum(alpha, np.where(G >= t[:, None], G, np.inf).min(axis=0))
    return alpha


def baseline_isinj() -> tuple[float, float]:
    """Extrapolated serial seconds of the baseline for all configurations, and its seconds for (30, 150)."""
    rows, times = [], []
    for n, m in BASELINE_CONFIGS:
        t0 = time.perf_counter()
        baseline_config(n, m)
        dt = time.perf_counter() - t0
        rows.append([N_FULL * n, N_FULL * m, N_FULL * n * m])
        times.append(dt)
        print(f"  baseline (n={n}, m={m}), N={N_FULL}: {dt:.2f} s", flush=True)
    coef, *_ = np.linalg.lstsq(np.array(rows, float), np.array(times), rcond=None)
    coef = np.maximum(coef, 0)
    total = sum(coef @ np.array([N_FULL * n, N_FULL * m, N_FULL * n * m], float) for n, m in ISINJ_CONFIGS)
    return float(total), float(times[0])


def model_share(dims: list[int]) -> float:
    """Share of the baseline cost model covered by the dimensions ``dims``."""
    cost = {(n, m): n + m + n * m / 8 for n, m in ISINJ_CONFIGS}
    return sum(v for (n, _), v in cost.items() if n in dims) / sum(cost.values())


def naive_propinj_trial(n: int, m: int, K: int = 10_000, M: int = 10_000, seed: int = 0) -> None:
    """Straightforward propinj trial: the estimate at every grid step, then a boolean count per step."""
    from relu_frames_nb import Ball
    from relu_frames_nb.paper.bias.correlated import sampling_bias

    rng = np.random.default_rng(seed)
    ball = Ball(n)
    Phi = ball.sample(m, seed=rng)
    X, Y = ball.sample(K, seed=rng), ball.sample(M, seed=rng)
    est = sampling_bias(Phi, X, init="none", history=True, full_spark=True)
    GY = Y @ Phi.T
    [np.mean((GY >= a).sum(axis=1) >= n) for a in est.history]


def main() -> list[Target]:
    full = full_mode()
    workers = os.cpu_count() or 1
    print(f"machine: {workers} CPUs, load average {os.getloadavg()[0]:.2f}; kernel: {_kernels.resolve_kernel('auto')}")
    targets: list[Target] = []

    # --- Figure "isinj"
    base_total, base_big = baseline_isinj()
    print(f"baseline, extrapolated to {len(ISINJ_CONFIGS)} configurations: {base_total:.0f} s serial ({base_total / 60:.1f} min)")
    t0 = time.perf_counter()
    if full:
        res = ex.isinj(size="full", progress=False)
        wall = time.perf_counter() - t0
        label = "measured"
    else:
        res = ex.isinj(size="full", n_values=QUICK_DIMS, progress=False)
        part = time.perf_counter() - t0
        share = model_share(QUICK_DIMS)
        wall = part / share
        label = f"extrapolated from n in {QUICK_DIMS} ({part:.1f} s for {share:.0%} of the work; --full measures it)"
    print(f"isinj at paper fidelity: {wall:.0f} s wall ({label}); {res.info['task_seconds']:.0f} s in tasks")
    print(f"  summary: {res.summary()}")
    targets.append(at_most("isinj full figure wall time", wall, 600.0, " s"))
    targets.append(at_least("isinj speed-up vs vectorised numpy baseline (serial)", base_total / wall, 6.0, "x"))
    print(f"  ratio baseline / ours: {base_total / wall:.1f}x (baseline on (30,150): {base_big:.2f} s per frame)")

    # --- Figure "propinj"
    T = 1000 if full else 100
    t0 = time.perf_counter()
    pres = ex.propinj(size="full", n_trials=T, progress=False)
    part = time.perf_counter() - t0
    wall_p = part * 1000 / T
    label = "measured" if full else f"extrapolated from {T} trials ({part:.1f} s)"
    print(f"propinj, 1000 trials at paper fidelity: {wall_p:.0f} s wall ({label})")
    print(f"  mean proportion at the last iteration: {np.round(pres.mean[:, -1], 4).tolist()}")
    t0 = time.perf_counter()
    for n, m in [(3, 6), (3, 10), (3, 27), (30, 60), (30, 99), (30, 270)]:
        naive_propinj_trial(n, m)
    naive = (time.perf_counter() - t0) * 1000 / workers
    print(f"  straightforward propinj (one trial per configuration, x1000 / {workers} workers): {naive:.0f} s")
    targets.append(at_most("propinj 1000 trials wall time", wall_p, 600.0, " s"))
    targets.append(at_least("propinj speed-up vs straightforward evaluation", naive / wall_p, 1.0, "x"))

    # --- Figure "conv" (cheap: always full)
    t0 = time.perf_counter()
    cres = ex.conv(size="full", progress=False)
    print(
        f"conv, 100 trials x 1e5 iterations: {time.perf_counter() - t0:.1f} s; final mean distance {cres.mean[-1]:.3g}, "
        f"non-increasing {cres.non_increasing}, from above {cres.from_above}"
    )
    for t in targets:
        print(t.line())
    return targets


if __name__ == "__main__":
    main()
