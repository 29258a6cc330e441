"""The threshold experiment on a ``dask.distributed`` cluster: 1 worker against 2, and the cost of one task.

``python -m benchmarks scaleout`` starts a ``LocalCluster`` (worker processes, one thread each,
one BLAS thread each) with 1 and then 2 workers and runs the same fixed workload on each through
``threshold(executor=client)``: n = 10, zero bias, 15 ratios m/n from 3 to 10, 4 layers each, so 60
tasks of one layer (``--full``: 8 layers, 120 tasks). It prints the wall times, their ratio, the
tasks' own seconds (how busy the workers were) and checks that both runs give the same verdicts.

It also measures what the scheduler costs per task, for the design of large runs: 2000 trivial
tasks submitted at once and collected with ``as_completed`` (as the experiments do), and the bytes
of one task's spec and of one layer's result.

The machine is shared: the load average is printed before each measurement, read the ratio with it.
"""

from __future__ import annotations

import os
import pickle
import time

import numpy as np

from benchmarks._common import Target, at_least, full_mode
from relu_frames_nb import experiments as ex

#: the fixed workload (zero bias only: at n = 10 every task is one layer)
WORKLOAD = dict(n_values=[10], bias_max_n=0, ball_max_n=0, seed=11, time_limit=600.0)
#: trivial tasks submitted to measure the scheduler's cost per task
TRIVIAL_TASKS = 2000
#: the 1 -> 2 worker speed-up this benchmark expects on two idle cores
SPEEDUP_TARGET = 1.6


def _noop(i: int) -> int:
    return i


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def _cluster(workers: int):
    from distributed import Client, LocalCluster

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # the worker processes inherit it: one BLAS thread each
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    return cluster, Client(cluster)


def _run(workers: int, layers: int) -> tuple[float, ex.ThresholdResult]:
    cluster, client = _cluster(workers)
    try:
        client.wait_for_workers(workers)
        client.run(lambda: __import__("relu_frames_nb.experiments._threshold"))  # imports paid before the clock
        print(f"  {workers} worker(s): {_load()}", flush=True)
        t0 = time.perf_counter()
        res = ex.threshold(executor=client, layers_large=layers, **WORKLOAD)
        wall = time.perf_counter() - t0
    finally:
        client.close()
        cluster.close()
    busy = res.info["task_seconds"] / (workers * wall)
    cores = res.info["task_cpu_seconds"] / wall  # what the other work on the machine left to the workers
    print(f"  {workers} worker(s): {wall:.1f} s wall for {res.info['tasks']} tasks; {res.info['task_seconds']:.1f} s in "
          f"tasks ({busy:.0%} of the workers' time), {res.info['task_cpu_seconds']:.1f} s CPU, so {cores:.2f} cores "
          "used", flush=True)  # fmt: skip
    return wall, res


def _scheduler_cost(workers: int = 2) -> dict:
    from distributed import as_completed

    cluster, client = _cluster(workers)
    try:
        client.wait_for_workers(workers)
        client.gather(client.map(_noop, range(10), pure=False))  # warm up
        print(f"  scheduler cost: {_load()}", flush=True)
        t0 = time.perf_counter()
        futures = client.map(_noop, range(TRIVIAL_TASKS), pure=False)
        t_submit = time.perf_counter() - t0
        done = sum(1 for _ in as_completed(futures))
        t_all = time.perf_counter() - t0
        t1 = time.perf_counter()
        client.gather(client.map(_noop, range(TRIVIAL_TASKS), pure=False))
        t_gather = time.perf_counter() - t1
    finally:
        client.close()
        cluster.close()
    assert done == TRIVIAL_TASKS
    return {"submit_s": t_submit, "total_s": t_all, "per_task_ms": 1000 * t_all / TRIVIAL_TASKS, "gather_s": t_gather}


def _sizes() -> dict:
    """Bytes of one task's spec (what a worker receives) and of one layer's result (what comes back)."""
    from relu_frames_nb.experiments import _threshold as thr

    res = ex.threshold(n_values=[3], points=2, layers=1, bias_max_n=0, ball_max_n=0, max_workers=1)
    spec = dict(res.params, n=16, m=112, layers=40, with_bias=False, with_ball=False, first=7, count=1)
    out = thr._threshold_task(dict(spec, n=3, m=21))  # a cheap layer: the result's size does not depend on n
    return {"spec_bytes": len(pickle.dumps(spec)), "result_bytes": len(pickle.dumps(out))}


def main() -> list[Target]:
    layers = 8 if full_mode() else 4
    print(f"machine: {os.cpu_count()} CPUs, shared with other work ({_load()})")
    print(f"workload: threshold n = 10, zero bias, 15 ratios x {layers} layers, one layer per task")
    wall1, res1 = _run(1, layers)
    wall2, res2 = _run(2, layers)
    same = bool(np.array_equal(res1.status, res2.status))
    ratio = wall1 / wall2
    print(f"scale-out 1 -> 2 workers: {wall1:.1f} s -> {wall2:.1f} s, ratio {ratio:.2f}; same verdicts: {same}")
    cost = _scheduler_cost()
    print(f"scheduler: {TRIVIAL_TASKS} trivial tasks in {cost['total_s']:.2f} s (submitted in {cost['submit_s']:.2f} s), "
          f"{cost['per_task_ms']:.2f} ms per task on 2 local workers; collected by one gather: "
          f"{cost['gather_s']:.2f} s")  # fmt: skip
    sizes = _sizes()
    print(f"data per task: spec {sizes['spec_bytes']} bytes pickled, one layer's result {sizes['result_bytes']} bytes")
    return [
        at_least("threshold scale-out 1 -> 2 dask workers", ratio, SPEEDUP_TARGET, "x"),
        Target("threshold verdicts equal on 1 and 2 workers", float(same), 1.0, same),
    ]


if __name__ == "__main__":
    main()
