"""Later layers of low-dimensional networks on their true image, across the pieces (issue 18).

``rf.check(net, K)`` on small networks whose input has 2 or 3 dimensions, with the check across
the pieces of the image (:mod:`relu_frames_nb.network.pieces`) and without it (the baseline, run
in the same process by switching the stage off): how many networks get a verdict, and the time.
Two families, each from a fixed seed: 2 -> w1 -> w2 on the box [-1, 1]^2 (the tests' networks,
widths 3-6 and 5-10) and 3 -> 8 -> 16 on the unit ball (the shape of notebook 13's PCA network).
Targets: more verdicts with the stage than without, and every check within its limit + 10 % + 5 s.
"""

from __future__ import annotations

import time

import numpy as np

import relu_frames_nb as rf
import relu_frames_nb.network.image as image_stage
from benchmarks._common import Target, at_least, at_most, full_mode

LIMIT = 30.0


def _two(seed: int) -> rf.Network:
    rng = np.random.default_rng(seed)
    w1, w2 = int(rng.integers(3, 7)), int(rng.integers(5, 11))
    W1, b1 = rng.normal(size=(w1, 2)), rng.normal(size=w1) * 0.3 + 0.4
    W2, b2 = rng.normal(size=(w2, w1)), rng.normal(size=w2) * 0.5 + 1.0
    return rf.Network.from_weights([(W1, b1), (W2, b2)])


def _three(seed: int) -> rf.Network:
    rng = np.random.default_rng(1000 + seed)
    W1 = rng.normal(size=(8, 3))
    W1 /= np.linalg.norm(W1, axis=1, keepdims=True)
    W2, b2 = rng.normal(size=(16, 8)), rng.normal(size=16) * 0.3 + 0.8
    return rf.Network.from_weights([(W1, np.full(8, 0.4)), (W2, b2)])


def _run(nets, K, enabled: bool) -> tuple[int, float, float]:
    saved = image_stage.MAX_DIM
    image_stage.MAX_DIM = saved if enabled else 0
    try:
        decided, total, worst = 0, 0.0, 0.0
        for net in nets:
            t = time.perf_counter()
            v = rf.check(net, K, time_limit=LIMIT)
            dt = time.perf_counter() - t
            decided += v.status != "undetermined"
            total, worst = total + dt, max(worst, dt)
        return decided, total, worst
    finally:
        image_stage.MAX_DIM = saved


def main() -> list[Target]:
    n_two, n_three = (32, 16) if full_mode() else (12, 6)
    families = {
        f"2 -> w1 -> w2 on the box ({n_two} networks)": ([_two(s) for s in range(n_two)], rf.Box(-np.ones(2), np.ones(2))),
        f"3 -> 8 -> 16 on the ball ({n_three} networks)": ([_three(s) for s in range(n_three)], rf.Ball(3)),
    }
    targets = []
    gained, worst_all = 0, 0.0
    print(f"{'family':42s} {'decided':>8s} {'baseline':>9s} {'time':>8s} {'baseline':>9s} {'ratio':>6s}")
    for name, (nets, K) in families.items():
        base = _run(nets, K, enabled=False)
        new = _run(nets, K, enabled=True)
        gained += new[0] - base[0]
        worst_all = max(worst_all, new[2])
        print(f"{name:42s} {new[0]:>8d} {base[0]:>9d} {new[1]:>7.1f}s {base[1]:>8.1f}s {new[1] / max(base[1], 1e-9):>6.2f}")
    targets.append(at_least("networks decided by the pieces beyond the baseline", gained, 1))
    targets.append(at_most("slowest check (limit 30 s)", worst_all, 1.1 * LIMIT + 5, "s"))
    return targets


if __name__ == "__main__":
    for t in main():
        print(t)
