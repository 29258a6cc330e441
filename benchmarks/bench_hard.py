"""Hard layers (issue 17): zero bias near the threshold, and biased layers on five domains.

Two measurements, each beside the share decided by the exact engine *without* the half-space depth
stage (``method="milp"``: the pipeline before issue 17, run in the same process on a subset):

1. **Zero bias at m/n = 7** (Gaussian rows, ``rf.check(layer, RealSpace(n))``): the share decided
   within 60 s at n = 10 and n = 12 (targets 90 % and 80 % of 20 layers), within 10 minutes at
   n = 16 (target 50 %), and the growth of the time from n = 6 to 20 (median of a few layers, capped).
2. **Biased layers on five domains** (ball, box [-1, 1]^n, shell 0.5 <= |x| <= 1, positive ball, hull
   of 4n Gaussian points): unit rows, m in [3n, 8n], a constant bias near the transition (the sampled
   maximal constant bias capped at 0 plus a uniform shift in [-0.2, 0.02]); the share decided within
   60 s each at n <= 8 (shells separately), n = 10..12, n = 16 (m = 5n), and within 5 minutes at n = 24.
   At n = 16 the boxes and hulls are checked again with the reweighted LP relaxation's witness search
   switched off (same process), the share that gives printed beside.

Issue 32 raised the targets: zero bias at m = 7n decided at n = 14 (90 % within 60 s), n = 16 (70 % within
120 s) and n = 20 (50 % within 10 minutes); the compiled search's CPU per node at least 5 times below the
search with SciPy's NNLS at n = 16 (same process); biased n = 16 all within 60 s, n = 24 80 % within 5 minutes.

``python -m benchmarks hard`` runs a small sample of each (minutes); ``--full`` the sizes of the
targets (hours on two cores).
"""

from __future__ import annotations

import time

import numpy as np

import relu_frames_nb as rf
from benchmarks._common import Target, at_least, full_mode
from relu_frames_nb._util.budget import Budget
from relu_frames_nb.domains import Box, Hull, PositiveBall, Shell
from relu_frames_nb.exact import _search, solve_exact
from relu_frames_nb.paper.depth import halfspace_depth_at_least

DOMAINS = ("ball", "box", "shell", "positive ball", "hull")


def _domain(kind: str, n: int, rng) -> rf.Domain:
    if kind == "ball":
        return rf.Ball(n)
    if kind == "box":
        return Box(-1, 1, n=n)
    if kind == "shell":
        return Shell(n, 0.5, 1.0)
    if kind == "positive ball":
        return PositiveBall(n)
    return Hull(rng.standard_normal((4 * n, n)))


def decided(v) -> bool:
    return str(v.status) in ("injective", "not injective")


def without_depth(L: rf.ReLULayer, K: rf.Domain, limit: float, depth: bool | str = False):
    """The exact engine as before issue 17 (no half-space depth stage), same process, same limit.

    ``depth="directions"``: the engine before the search over removal sets on the domain (the depth
    questions on directions only).
    """
    return solve_exact(L.frame.vectors, np.asarray(L.alpha, float), K, budget=Budget(limit), depth=depth)


def zero_bias_layer(n: int, t: int) -> rf.ReLULayer:
    m = 7 * n
    return rf.ReLULayer(np.random.default_rng([17, n, t]).standard_normal((m, n)), 0.0)


def zero_bias(n: int, layers: int, limit: float, baseline_layers: int) -> dict:
    """Share of zero-bias layers at m = 7n decided on R^n within ``limit``; the same without the depth stage."""
    now, before, secs = 0, 0, []
    for t in range(layers):
        L = zero_bias_layer(n, t)
        t0 = time.perf_counter()
        v = rf.check(L, rf.RealSpace(n), time_limit=limit, progress=False)
        sec = time.perf_counter() - t0
        secs.append(sec)
        ok = decided(v) and sec <= limit + 1.0
        now += ok
        line = f"zero bias n={n:>2} m={7 * n:>3} layer {t:>2}: {v.status:<14} {v.method:<18} {sec:7.2f} s"
        if t < baseline_layers:
            t0 = time.perf_counter()
            b = without_depth(L, rf.RealSpace(n), limit)
            bsec = time.perf_counter() - t0
            before += decided(b) and bsec <= limit + 1.0
            line += f"   without depth: {b.status:<14} {bsec:7.2f} s"
        print(line, flush=True)
    print(
        f"zero bias n={n}: decided {now}/{layers} within {limit:g} s (median {np.median(secs):.1f} s, max {max(secs):.1f} s); "
        f"without the depth stage {before}/{baseline_layers}",
        flush=True,
    )
    return {"n": n, "share": now / layers, "before": before / max(baseline_layers, 1), "median": float(np.median(secs))}


def depth_kernels(cases=((12, 0), (12, 1), (12, 2), (14, 0), (14, 1)), limit: float = 120.0) -> list[dict]:
    """CPU time of the depth search on zero-bias layers at m = 7n with SciPy's NNLS (before) and the compiled kernel,
    in this process (``time.process_time``), printed as ratios (per layer, and per node: a layer that times out
    stops on the wall clock) with the load.

    Run by hand (about 10 minutes): ``python -c "from benchmarks.bench_hard import depth_kernels; depth_kernels()"``.
    """
    import os

    halfspace_depth_at_least(np.eye(2), 0, kernel="auto")  # compile (or load) the kernel outside the measurement
    rows = []
    for n, t in cases:
        W = zero_bias_layer(n, t).frame.vectors
        got = {}
        for kern in ("scipy", "auto"):
            c0 = time.process_time()
            res = halfspace_depth_at_least(W, n - 1, time_limit=limit, kernel=kern)
            got[kern] = (res, time.process_time() - c0)
        (old, c_old), (new, c_new) = got["scipy"], got["auto"]
        rows.append({"n": n, "t": t, "old": c_old, "new": c_new, "status": (old.status, new.status),
                     "nodes": (old.nodes, new.nodes)})  # fmt: skip
        print(f"depth kernel n={n} m={7 * n} layer {t}: scipy {old.status} {old.nodes} nodes {c_old:6.1f} s cpu;  "
              f"compiled {new.status} {new.nodes} nodes {c_new:6.1f} s cpu;  ratio {c_old / c_new:4.2f}, per node "
              f"{(c_old / max(old.nodes, 1)) / (c_new / max(new.nodes, 1)):4.2f}  "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    return rows


def _python_search_numba(W: np.ndarray, k: int, limit: float):
    """The search as before the compiled one: Python around the compiled NNLS (``_Search`` with kernel "numba").

    ``(status, nodes)``; a removal set counts as "shallow" without its LP check (a measurement, not a verdict).
    """
    from relu_frames_nb.paper import depth

    t0 = time.perf_counter()
    P, P0, k, kept, deadline = depth._prepare(W, k, None, limit, t0)
    search = depth._Search(P, P0, k, kept, deadline, None, "numba")
    try:
        T = search.run(0, kept)
    except TimeoutError:
        return "undetermined", search.nodes
    search.flush()
    if T is None:
        return ("undetermined" if search.failed else "deep"), search.nodes
    return "shallow", search.nodes


def compiled_search(cases=((10, 4), (12, 4), (14, 3)), limit: float = 120.0) -> list[dict]:
    """CPU time per decision of the depth search compiled whole (``kernel="numba"``) against SciPy's NNLS and the
    Python search around the compiled NNLS (the "numba" kernel before), on fresh zero-bias Gaussian layers at
    m = 7n, in this process (``time.process_time``), with the ratios and the load. A search stopped by its time
    limit (on the wall clock, so the load decides how much CPU it had) is compared by its CPU time per node.

    Run by hand (about 20 minutes): ``python -c "from benchmarks.bench_hard import compiled_search; compiled_search()"``.
    """
    import os

    halfspace_depth_at_least(np.eye(2), 0, kernel="numba")  # compile (or load) the kernels outside the measurement
    _python_search_numba(np.eye(2), 0, limit)
    rows = []
    for n, layers in cases:
        for t in range(layers):
            W = np.random.default_rng([32, n, t]).standard_normal((7 * n, n))
            got = {}
            for name in ("scipy", "numba NNLS", "compiled"):
                c0 = time.process_time()
                if name == "numba NNLS":
                    status, nodes = _python_search_numba(W, n - 1, limit)
                else:
                    res = halfspace_depth_at_least(W, n - 1, time_limit=limit, kernel="scipy" if name == "scipy" else "numba")
                    status, nodes = res.status, res.nodes
                got[name] = (status, nodes, time.process_time() - c0)
            rows.append({"n": n, "t": t, **{name: v for name, v in got.items()}})
            c_new = got["compiled"][2]

            def per_node(name, got=got, c_new=c_new):  # a search stopped by the clock: compare the CPU time per node
                return (got[name][2] / max(got[name][1], 1)) / (c_new / max(got["compiled"][1], 1))

            print(f"compiled search n={n} m={7 * n} layer {t}: "
                  + ";  ".join(f"{name} {st} {nd} nodes {c:6.2f} s cpu" for name, (st, nd, c) in got.items())
                  + f";  ratio scipy/compiled {got['scipy'][2] / c_new:5.2f}, numba NNLS/compiled "
                  f"{got['numba NNLS'][2] / c_new:5.2f}; per node {per_node('scipy'):5.2f}, {per_node('numba NNLS'):5.2f}"
                  f"  (load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    return rows


def parallel_subtrees(cases=((12, 0), (12, 1), (12, 2), (14, 0), (14, 1)), limit: float = 120.0) -> list[dict]:
    """Wall and CPU time of the compiled depth search in one thread (``workers=1``) against its first-level subtrees
    in two threads (``workers=2``), on the zero-bias layers at m = 7n of :func:`zero_bias_layer`, in this process
    (CPU time: ``time.process_time``, every thread), with the ratios and the load (the wall ratio says something
    only when a second core is free).

    Run by hand (a few minutes): ``python -c "from benchmarks.bench_hard import parallel_subtrees; parallel_subtrees()"``.
    """
    import os

    halfspace_depth_at_least(np.eye(2), 0, kernel="numba")  # compile (or load) the kernels outside the measurement
    rows = []
    for n, t in cases:
        W = zero_bias_layer(n, t).frame.vectors
        got = {}
        for workers in (1, 2):
            w0, c0 = time.perf_counter(), time.process_time()
            res = halfspace_depth_at_least(W, n - 1, time_limit=limit, kernel="numba", workers=workers)
            got[workers] = (res.status, res.nodes, time.perf_counter() - w0, time.process_time() - c0)
        rows.append({"n": n, "t": t, **{f"workers={w}": v for w, v in got.items()}})
        (s1, n1, w1, c1), (s2, n2, w2, c2) = got[1], got[2]
        print(f"parallel subtrees n={n} m={7 * n} layer {t}: 1 thread {s1} {n1} nodes {w1:6.2f} s wall {c1:6.2f} s cpu;  "
              f"2 threads {s2} {n2} nodes {w2:6.2f} s wall {c2:6.2f} s cpu;  wall 1/2 {w1 / w2:4.2f}, cpu 2/1 {c2 / c1:4.2f}"
              f"  (load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    return rows


def growth(dims, *, reps: int, cap: float) -> list[dict]:
    """Median seconds of the depth search (zero bias, m = 7n) per dimension, with a cap per layer."""
    rows = []
    for n in dims:
        secs, und = [], 0
        for t in range(reps):
            W = zero_bias_layer(n, 100 + t).frame.vectors
            res = halfspace_depth_at_least(W, n - 1, time_limit=cap)
            secs.append(res.seconds)
            und += res.status == "undetermined"
        rows.append({"n": n, "median": float(np.median(secs)), "max": float(max(secs)), "undetermined": und, "reps": reps})
        print(f"growth n={n:>2} m={7 * n:>3}: median {np.median(secs):8.2f} s, max {max(secs):8.2f} s, "
              f"undetermined {und}/{reps} (cap {cap:g} s)", flush=True)  # fmt: skip
        if und == reps:
            break
    return rows


def biased_suite(dims, per_domain: int, seed: int = 17):
    """``(n, kind, layer, domain)``: unit rows, m in [3n, 8n] (5n from n = 16), a bias near the transition."""
    from relu_frames_nb.paper.bias.correlated import max_constant_bias

    rng = np.random.default_rng(seed)
    for n in dims:
        for kind in DOMAINS:
            for _ in range(per_domain):
                m = 5 * n if n >= 16 else int(rng.integers(3 * n, 8 * n + 1))
                W = rng.standard_normal((m, n))
                W /= np.linalg.norm(W, axis=1, keepdims=True)
                K = _domain(kind, n, rng)
                est = max_constant_bias(W, K, n_samples=20_000, seed=int(rng.integers(2**31)))
                alpha = float(min(est, 0.0) + rng.uniform(-0.2, 0.02))
                yield n, kind, rf.ReLULayer(W, alpha), K


def without_relaxation(L: rf.ReLULayer, K: rf.Domain, limit: float):
    """``rf.check`` with the reweighted LP relaxation's witness search switched off, same process."""
    starts = _search.REWEIGHT_STARTS
    _search.REWEIGHT_STARTS = 0
    try:
        return rf.check(L, K, time_limit=limit, progress=False)
    finally:
        _search.REWEIGHT_STARTS = starts


def biased(dims, per_domain: int, limit: float, baseline: bool, relaxation: bool = False) -> list[dict]:
    """``relaxation``: on boxes and hulls also the check without the LP relaxation's witnesses (same process)."""
    rows = []
    for n, kind, L, K in biased_suite(dims, per_domain):
        t0 = time.perf_counter()
        v = rf.check(L, K, time_limit=limit, progress=False)
        sec = time.perf_counter() - t0
        row = {"n": n, "kind": kind, "ok": decided(v) and sec <= limit + 1.0, "seconds": sec, "before": None,
               "directions": None, "relaxation": None}  # fmt: skip
        line = f"n={n:>2} m={L.m:>3} {kind:<13} α={float(L.alpha[0]):+.3f}: {v.status:<14} {v.method:<24} {sec:6.1f} s"
        if relaxation and kind in ("box", "hull"):
            t0 = time.perf_counter()
            b = without_relaxation(L, K, limit)
            bsec = time.perf_counter() - t0
            row["relaxation"] = decided(b) and bsec <= limit + 1.0
            line += f"   without the LP relaxation: {b.status:<14} {bsec:6.1f} s"
        for key, depth, label in (("directions", "directions", "directions only"), ("before", False, "without depth")):
            if not baseline:
                break
            t0 = time.perf_counter()
            b = without_depth(L, K, limit, depth)
            bsec = time.perf_counter() - t0
            row[key] = decided(b) and bsec <= limit + 1.0
            line += f"   {label}: {b.status:<14} {bsec:6.1f} s"
        print(line, flush=True)
        rows.append(row)
    return rows


def _share(rows, sel, key: str = "before") -> tuple[float, float | None, int]:
    part = [r for r in rows if sel(r)]
    if not part:
        return float("nan"), None, 0
    now = sum(r["ok"] for r in part) / len(part)
    base = [r[key] for r in part if r[key] is not None]
    return now, (sum(base) / len(base) if base else None), len(part)


def main() -> list[Target]:
    full = full_mode()
    targets = []
    # 1. zero bias at m = 7n
    growth((6, 8, 10, 12, 14, 16, 18, 20) if full else (6, 8, 10, 12), reps=5 if full else 3, cap=600.0 if full else 60.0)
    for n, layers, limit, share, base in (
        (10, 20 if full else 6, 60.0, 0.90, 4 if full else 2),
        (12, 20 if full else 6, 60.0, 0.80, 4 if full else 2),
    ):
        r = zero_bias(n, layers, limit, base)
        targets.append(at_least(f"zero bias m=7n, n={n}: decided within {limit:g} s (without depth: {r['before']:.0%})",
                                100 * r["share"], 100 * share, "%"))  # fmt: skip
    # issue 32: the sizes beyond n = 12, through rf.check (a quick run asks three layers at n = 14 only)
    for n, layers, limit, share in ((14, 10 if full else 3, 60.0, 90), (16, 10 if full else 0, 120.0, 70),
                                    (20, 4 if full else 0, 600.0, 50)):  # fmt: skip
        if layers:
            r = zero_bias(n, layers, limit, 0)
            text = f"zero bias m=7n, n={n}: decided within {limit:g} s (issue 32)"
            targets.append(at_least(text, 100 * r["share"], share, "%"))
    # issue 32: CPU per decision of the compiled search against the search before the kernels (SciPy's NNLS), same
    # process; at n = 16 the SciPy search rarely ends within the limit, so the ratio is per node of the same tree
    rows = compiled_search(((16, 2),) if full else ((12, 2),), limit=600.0 if full else 120.0)
    ratio = min((r["scipy"][2] / max(r["scipy"][1], 1)) / (r["compiled"][2] / max(r["compiled"][1], 1)) for r in rows)
    n_cpu = rows[0]["n"]
    targets.append(at_least(f"zero bias m=7n, n={n_cpu}: CPU per node, SciPy search / compiled search (issue 32: >= 5 at n = 16)",
                            ratio, 5.0, "x"))  # fmt: skip
    # 2. biased layers on five domains
    rows = biased((4, 6, 8, 10, 11, 12) if full else (6, 10, 12), 4 if full else 1, 60.0, baseline=True)
    for label, sel, share in (
        ("n <= 8, shells excluded", lambda r: r["n"] <= 8 and r["kind"] != "shell", 1.0),
        ("n <= 8 shells", lambda r: r["n"] <= 8 and r["kind"] == "shell", 1.0),
        ("n = 10..12, five domains", lambda r: 10 <= r["n"] <= 12, 0.95),
    ):
        now, before, k = _share(rows, sel)
        _, directions, _ = _share(rows, sel, "directions")
        if k:
            text = (f"biased {label}: decided within 60 s ({k} layers; without depth: {before:.0%}; "
                    f"directions only: {directions:.0%})")  # fmt: skip
            targets.append(at_least(text, 100 * now, 100 * share, "%"))
    if full:
        rows16 = biased((16,), 4, 60.0, baseline=False, relaxation=True)
        now, _, k = _share(rows16, lambda r: True)
        without = sum(r["ok"] if r["relaxation"] is None else r["relaxation"] for r in rows16) / max(k, 1)
        targets.append(at_least(f"biased n = 16, m = 5n: decided within 60 s ({k} layers; boxes and hulls without "
                                f"the LP relaxation: {without:.0%}; issue 32: all)", 100 * now, 100, "%"))  # fmt: skip
        rows24 = biased((24,), 2, 300.0, baseline=False)
        now, _, k = _share(rows24, lambda r: True)
        targets.append(at_least(f"biased n = 24, m = 5n: decided within 300 s ({k} layers; issue 32)", 100 * now, 80, "%"))
    return targets


if __name__ == "__main__":
    for t in main():
        print(t.line())
