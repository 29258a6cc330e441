"""Exact verdicts: the share of random layers decided, and the time per layer.

A fixed seeded suite of random unit-norm layers: n = 3..12, m drawn in [3n, 10n], a
constant bias drawn around the transition (the sampled maximal constant bias on the
domain, an over-estimate of the true threshold, capped at 0, plus a uniform shift in [-0.2, 0.02]: the
threshold measured by bisection lies about 0.06 (ball) to 0.16 (box) below the estimate
for n = 8), on the unit ball and on the box [-1, 1]^n (alternating). "Decided"
means injective with a certificate or not injective with a verified pair.

Targets (issue 11): n <= 8 at least 95% decided, each within 10 s; n = 9..12 at least 80%,
each within 60 s. Next to it: the share ``rf.check(..., method="fast")`` (polytope bias,
collision search, Tukey test: what was decided before the exact verdict) decides on the
same layers.

Run with ``python -m benchmarks exact`` (fast: 4 layers per n) or with ``--full``
(12 layers per n, 120 in all).
"""

from __future__ import annotations

import time

import numpy as np

import relu_frames_nb as rf
from benchmarks._common import Target, at_least, full_mode
from relu_frames_nb.domains import Box


def exact_stage(L, K, *, time_limit):
    """The exact stage alone, through the front door."""
    return rf.check(L, K, method="exact", time_limit=time_limit, progress=False)


def suite(per_n: int, seed: int = 2024):
    """``(name, layer, domain, time_limit)`` for the seeded suite."""
    from relu_frames_nb.paper.bias.correlated import max_constant_bias

    rng = np.random.default_rng(seed)
    k = 0
    for n in range(3, 13):
        for _ in range(per_n):
            m = int(rng.integers(3 * n, 10 * n + 1))
            W = rng.standard_normal((m, n))
            W /= np.linalg.norm(W, axis=1, keepdims=True)
            K = rf.Ball(n) if k % 2 == 0 else Box(-1, 1, n=n)
            est = max_constant_bias(W, K, n_samples=20_000, seed=int(rng.integers(2**31)))
            # both domains contain 0, where no row is active when alpha > 0: the threshold is <= 0
            alpha = float(min(est, 0.0) + rng.uniform(-0.2, 0.02))
            limit = 10.0 if n <= 8 else 60.0
            yield f"n={n} m={m} {'ball' if k % 2 == 0 else 'box'} α={alpha:+.3f}", rf.ReLULayer(W, alpha), K, limit
            k += 1


def run(per_n: int, *, with_decide: bool = True) -> list[dict]:
    rows = []
    for name, L, K, limit in suite(per_n):
        t0 = time.perf_counter()
        v = exact_stage(L, K, time_limit=limit)
        sec = time.perf_counter() - t0
        dec = None
        if with_decide:
            try:
                dec = rf.check(L, K, method="fast", progress=False).status  # the fast tests only, as before issue 11
            except Exception as exc:  # a crash counts as undecided
                dec = f"error: {type(exc).__name__}"
        rows.append({"name": name, "n": L.n, "status": v.status, "seconds": sec, "limit": limit, "decide": dec,
                     "bounds": (v.lower_bound, v.upper_bound), "h": v.details.get("exact", {}).get("h")})  # fmt: skip
        h = v.details.get("exact", {}).get("h")
        print(f"{name:<34} {v.status:<14} {sec:6.2f} s  bounds [{v.lower_bound}, {v.upper_bound}] h={h}  decide: {dec}",
              flush=True)  # fmt: skip
    return rows


def growth(dims: tuple[int, ...], *, seed: int = 7, time_limit: float = 60.0) -> list[dict]:
    """Time of the exact verdict against the sampling estimate on the same layer, m = 5n."""
    rows = []
    rng = np.random.default_rng(seed)
    for n in dims:
        m = 5 * n
        W = rng.standard_normal((m, n))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        K = rf.Ball(n)
        t0 = time.perf_counter()
        est = rf.sampling_bias(W, K, n_samples=100_000, seed=0, progress=False)
        t_samp = time.perf_counter() - t0
        alpha = float(np.min(est.values[np.isfinite(est.values)])) - 0.05  # near the transition
        t0 = time.perf_counter()
        v = exact_stage(rf.ReLULayer(W, alpha), K, time_limit=time_limit)
        t_exact = time.perf_counter() - t0
        rows.append({"n": n, "m": m, "exact": t_exact, "sampling": t_samp, "status": v.status})
        print(f"n={n:>2} m={m:>3}: exact verdict {t_exact:7.2f} s ({v.status}, {v.method}), sampling estimate "
              f"(1e5 samples) {t_samp:5.2f} s, ratio exact/sampling {t_exact / t_samp:7.1f}", flush=True)  # fmt: skip
    return rows


def main() -> list[Target]:
    per_n = 12 if full_mode() else 4
    growth((4, 8, 12, 16, 24) if full_mode() else (4, 8, 12))
    rows = run(per_n)
    targets = []
    for label, sel, share, limit in (
        ("n <= 8", lambda r: r["n"] <= 8, 0.95, 10.0),
        ("n = 9..12", lambda r: r["n"] >= 9, 0.80, 60.0),
    ):
        part = [r for r in rows if sel(r)]
        decided = [r for r in part if r["status"] != "undetermined" and r["seconds"] <= limit + 1.0]
        before = [r for r in part if r["decide"] in ("injective", "not injective")]
        frac = len(decided) / len(part)
        times = np.array([r["seconds"] for r in part])
        print(
            f"{label}: exact verdict decided {len(decided)}/{len(part)} ({frac:.0%}), median {np.median(times):.2f} s, "
            f"max {times.max():.1f} s; decide (before issue 11) decided {len(before)}/{len(part)}"
        )
        targets.append(at_least(f"exact verdict decided, {label} (within {limit:g} s each)", 100 * frac, 100 * share, "%"))
    return targets


if __name__ == "__main__":
    for t in main():
        print(t.line())
