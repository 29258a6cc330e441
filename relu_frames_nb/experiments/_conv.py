r"""Figure "conv" (approximation of the maximal bias): :func:`conv` and :class:`ConvResult`.

Private module of :mod:`relu_frames_nb.experiments`, which re-exports the public names.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._util.tolerances import KNOWN_VALUE_ATOL, SAMPLING_ABOVE_TOL
from .._util.validation import as_choice, as_count, as_seed, as_seed_sequence
from ..domains import Sphere
from ..paper.bias.correlated import sampling_bias
from ..paper.bias.polytope import polytope_bias
from ..zoo import platonic
from ._runner import EXP_ID, Cache, Result, check_executor, check_size, run_experiment

__all__ = ["ConvResult", "conv", "TETRAHEDRON_ALPHA_S"]

#: exact maximal bias of the tetrahedron frame on the sphere (the paper prints +1/sqrt(3))
TETRAHEDRON_ALPHA_S = -1.0 / np.sqrt(3.0)


_CONV_SIZES = {
    "full": {"n_trials": 100, "n_iterations": 100_000, "n_snapshots": 1000, "trials_per_task": 10},
    "fast": {"n_trials": 8, "n_iterations": 10_000, "n_snapshots": 200, "trials_per_task": 4},
}


@dataclass(frozen=True, eq=False)
class ConvResult(Result):
    r"""Result of :func:`conv` (Figure "conv").

    Attributes
    ----------
    iterations : ndarray of int, shape (H,)
        Iterations at which the estimate was recorded (0 is the initial value).
    distances : ndarray, shape (T, H)
        :math:`\|\alpha^{(k)} - \alpha^{\mathbb{S}}\|` per trial (``inf`` while some element
        has not been in a most correlated basis yet).
    final : ndarray, shape (T, m)
        The estimate after the last iteration, per trial.
    alpha_s : ndarray, shape (m,)
        The exact maximal bias on the sphere (polytope bias estimation).
    params, info : dict
        Parameters and run details (``info["alpha_s_method"]``).
    """

    iterations: np.ndarray
    distances: np.ndarray
    final: np.ndarray
    alpha_s: np.ndarray
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    _kind = "conv"
    _array_fields = ("iterations", "distances", "final", "alpha_s")

    @property
    def mean(self) -> np.ndarray:
        """Mean distance over trials, shape ``(H,)`` (``inf`` until every trial is finite)."""
        return self.distances.mean(axis=0)

    @property
    def std(self) -> np.ndarray:
        """Standard deviation over trials where finite, shape ``(H,)``."""
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(self.mean), self.distances.std(axis=0), np.nan)

    @property
    def non_increasing(self) -> bool:
        """Whether every trial's distance never increases."""
        d = self.distances
        with np.errstate(invalid="ignore"):
            step = np.where(np.isinf(d[:, :-1]) & np.isinf(d[:, 1:]), 0.0, d[:, 1:] - d[:, :-1])
        return bool(np.all(step <= 0))

    @property
    def from_above(self) -> bool:
        """Whether every final estimate is ``>= alpha_s`` (up to ``SAMPLING_ABOVE_TOL``): sampling nears alpha_s from above."""
        return bool(np.all(self.final >= self.alpha_s - SAMPLING_ABOVE_TOL))


def _conv_task(spec: dict) -> dict:
    """A block of trials of the tetrahedron experiment (runs in a worker)."""
    t0, c0 = time.perf_counter(), time.process_time()
    F = platonic("tetrahedron")
    alpha_s = np.asarray(spec["alpha_s"], dtype=float)
    K = spec["n_iterations"]
    step = max(1, K // spec["n_snapshots"])
    dist, final = [], []
    for t in range(spec["t0"], spec["t1"]):
        ss = as_seed_sequence(spec["seed"], key=(EXP_ID["conv"], 3, F.m, t, 1))
        est = sampling_bias(F, Sphere(3), n_samples=K, seed=ss, init=spec["init"], history=step)
        A = est.history
        with np.errstate(invalid="ignore"):
            diff = A - alpha_s[None, :]
        d = np.where(np.all(np.isfinite(A), axis=1), np.linalg.norm(np.where(np.isfinite(diff), diff, 0.0), axis=1), np.inf)
        dist.append(d)
        final.append(est.values)
        steps = est.history_steps
    return {
        "distances": np.stack(dist),
        "final": np.stack(final),
        "iterations": np.asarray(steps, np.int64),
        "_meta": {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0},
    }


def conv(
    *,
    size: str = "fast",
    n_trials: int | None = None,
    n_iterations: int | None = None,
    n_snapshots: int | None = None,
    init: str = "none",
    trials_per_task: int | None = None,
    seed: int = 0,
    executor: Executor | None = None,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: Any = None,
) -> ConvResult:
    r"""Figure "conv": distance of the sampled estimate to the tetrahedron's maximal bias on the sphere.

    The exact value comes from the polytope bias estimation,
    :math:`\alpha^{\mathbb{S}} = -1/\sqrt 3` for every element (the paper prints
    :math:`+1/\sqrt 3`; the minimum of the third largest coefficient over the sphere is attained
    at the direction opposite an edge midpoint, where it is :math:`-1/\sqrt3`). Samples are
    uniform on the sphere. Every trial's distance is non-increasing, and the estimate stays
    above :math:`\alpha^{\mathbb{S}}`: sampling approaches the maximal bias from above, slowly.

    Parameters
    ----------
    size : {"fast", "full"}, default "fast"
        ``"full"``: 100 trials of ``10^5`` iterations, 1000 snapshots each; ``"fast"``: 8 trials
        of ``10^4`` iterations, 200 snapshots.
    n_trials, n_iterations, n_snapshots : int, optional
        Override the size's settings.
    init : {"none", "frame", "auto"}, default "none"
        Initial value (see ``sampling_bias``).
    trials_per_task : int, optional
        Trials per parallel task.
    seed : int, default 0
        Root seed.
    executor, max_workers, cache_dir, progress
        As in :func:`isinj`.

    Returns
    -------
    ConvResult

    Examples
    --------
    >>> from relu_frames_nb.experiments import conv
    >>> res = conv(n_trials=2, n_iterations=2000, max_workers=1)
    >>> res.non_increasing, res.from_above
    (True, True)
    """
    size = check_size(size)
    preset = _CONV_SIZES[size]
    params = {
        "size": size,
        "n_trials": as_count(preset["n_trials"] if n_trials is None else n_trials, "n_trials"),
        "n_iterations": as_count(preset["n_iterations"] if n_iterations is None else n_iterations, "n_iterations"),
        "n_snapshots": as_count(preset["n_snapshots"] if n_snapshots is None else n_snapshots, "n_snapshots"),
        "init": as_choice(init, "init", ("none", "frame", "auto")),
        "seed": as_seed(seed),
        "frame": "tetrahedron",
        "domain": "Sphere(3)",
    }
    per = as_count(preset["trials_per_task"] if trials_per_task is None else trials_per_task, "trials_per_task")
    executor = check_executor(executor)
    alpha_s, method = _tetrahedron_alpha_s()
    cache = Cache(cache_dir, "conv", params, required=("distances", "final", "iterations"))
    T = params["n_trials"]
    tasks = []
    for t0 in range(0, T, per):
        t1 = min(T, t0 + per)
        spec = dict(params, t0=t0, t1=t1, alpha_s=alpha_s.tolist())
        tasks.append((f"t{t0:05d}-{t1:05d}", spec, float(t1 - t0)))
    results, info = run_experiment(
        _conv_task, tasks, executor=executor, max_workers=max_workers, cache=cache, progress=progress, desc="conv"
    )
    dist = np.concatenate([results[name]["distances"] for name, _, _ in tasks])
    final = np.concatenate([results[name]["final"] for name, _, _ in tasks])
    info["alpha_s_method"] = method
    return ConvResult(
        iterations=results[tasks[0][0]]["iterations"],
        distances=dist,
        final=final,
        alpha_s=alpha_s,
        params=params,
        info=info,
    )


def _tetrahedron_alpha_s() -> tuple[np.ndarray, str]:
    """The exact maximal bias of the tetrahedron on the sphere (polytope bias), checked against -1/sqrt(3)."""
    values = np.asarray(polytope_bias(platonic("tetrahedron"), Sphere(3)).values, dtype=float)
    if not np.allclose(values, TETRAHEDRON_ALPHA_S, atol=KNOWN_VALUE_ATOL):  # pragma: no cover - a regression elsewhere
        raise RuntimeError(f"polytope_bias of the tetrahedron on the sphere should be -1/sqrt(3); got {values}.")
    return values, "polytope_bias(tetrahedron, Sphere(3))"
