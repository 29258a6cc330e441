r"""Figure "propinj" (evolution towards injectivity): :func:`propinj` and :class:`PropinjResult`.

Private module of :mod:`relu_frames_nb.experiments`, which re-exports the public names.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .._util import kernels as _kernels
from .._util.validation import as_choice, as_count, as_positive, as_seed, as_seed_sequence
from ..domains import Ball
from ..errors import InputError
from ..frames import Frame
from ..paper.bias.correlated import sampling_bias
from ._runner import EXP_ID, Cache, Result, check_executor, check_ints, check_size, run_experiment

__all__ = ["PropinjResult", "propinj"]


_PROPINJ_SIZES = {
    "full": {"n_trials": 1000, "n_iterations": 10_000, "n_test": 10_000, "trials_per_task": 50},
    "fast": {"n_trials": 16, "n_iterations": 1000, "n_test": 1000, "trials_per_task": 8},
}


@dataclass(frozen=True, eq=False)
class PropinjResult(Result):
    r"""Result of :func:`propinj` (Figure "propinj").

    Attributes
    ----------
    n, m : ndarray of int, shape (C,)
        Dimension and number of frame vectors of each configuration.
    redundancy : ndarray, shape (C,)
        Nominal redundancy ``q`` (``m = round(q n)``).
    iterations : ndarray of int, shape (H,)
        Iterations ``k`` (samples processed) at which the estimate was evaluated; ``0`` is the
        initial value.
    proportions : ndarray of float32, shape (C, T, H)
        Per configuration, trial and iteration: the proportion of the test set on which the
        frame is :math:`\alpha^{(k)}`-rectifying.
    params, info : dict
        Parameters and run details.
    """

    n: np.ndarray
    m: np.ndarray
    redundancy: np.ndarray
    iterations: np.ndarray
    proportions: np.ndarray
    params: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    _kind = "propinj"
    _array_fields = ("n", "m", "redundancy", "iterations", "proportions")

    @property
    def mean(self) -> np.ndarray:
        """Mean over trials, shape ``(C, H)``."""
        return self.proportions.mean(axis=1, dtype=np.float64)

    @property
    def std(self) -> np.ndarray:
        """Standard deviation over trials, shape ``(C, H)``."""
        return self.proportions.std(axis=1, dtype=np.float64)

    def quantiles(self, q: Sequence[float] = (0.1, 0.5, 0.9)) -> np.ndarray:
        """Quantiles over trials, shape ``(C, len(q), H)``.

        Parameters
        ----------
        q : sequence of float
            Probabilities in [0, 1].

        Returns
        -------
        ndarray
        """
        qs = np.asarray(q, dtype=float)
        if qs.ndim != 1 or np.any((qs < 0) | (qs > 1)):
            raise InputError(f"q must be a sequence of probabilities in [0, 1]; got {q!r}.")
        return np.moveaxis(np.quantile(self.proportions, qs, axis=1), 0, 1)

    def iterations_to_full(self) -> np.ndarray:
        """Per configuration and trial, the first iteration with proportion 1 (``inf`` if never), shape ``(C, T)``."""
        full = self.proportions >= 1.0
        first = np.argmax(full, axis=2)
        out = self.iterations[first].astype(float)
        out[~full.any(axis=2)] = np.inf
        return out


def _propinj_task(spec: dict) -> dict:
    """A block of trials of one configuration (runs in a worker)."""
    t0, c0 = time.perf_counter(), time.process_time()
    n, m, K, M = spec["n"], spec["m"], spec["n_iterations"], spec["n_test"]
    kernel = _kernels.resolve_kernel(spec.get("kernel", "auto"))
    ball = Ball(n)
    rows = []
    steps = None
    for t in range(spec["t0"], spec["t1"]):
        rng = np.random.default_rng(as_seed_sequence(spec["seed"], key=(EXP_ID["propinj"], n, m, t, 0)))
        F = Frame(ball.sample(m, seed=rng))
        X = ball.sample(K, seed=rng)
        Y = ball.sample(M, seed=rng)
        est = sampling_bias(F, X, init=spec["init"], history=True, full_spark=True)
        A = est.history  # (H, m), non-increasing down the rows
        steps = est.history_steps
        H = A.shape[0]
        GY = Y @ F.vectors.T
        # full spark (almost surely for random frames): rectifying iff >= n elements active
        rect = _kernels.first_rectifying(A, GY, n, kernel=kernel)
        counts = np.bincount(rect, minlength=H + 1)[:H]
        rows.append((np.cumsum(counts) / M).astype(np.float32))
    return {
        "proportions": np.stack(rows),
        "iterations": np.asarray(steps, np.int64),
        "_meta": {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0},
    }


def propinj(
    *,
    size: str = "fast",
    dimensions: Sequence[int] = (3, 30),
    redundancies: Sequence[float] = (2.0, 3.3, 9.0),
    n_trials: int | None = None,
    n_iterations: int | None = None,
    n_test: int | None = None,
    init: str = "none",
    trials_per_task: int | None = None,
    seed: int = 0,
    executor: Executor | None = None,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: Any = None,
) -> PropinjResult:
    r"""Figure "propinj": proportion of a test set where the layer with :math:`\alpha^{(k)}` is rectifying.

    Following the paper literally, the frame vectors, the samples :math:`X_N` and the test
    points :math:`Y_M` are i.i.d. uniform in the unit ball (the frame is not normalized). For
    each trial the estimate :math:`\alpha^{(k)}` of
    :func:`~relu_frames_nb.paper.bias.correlated.sampling_bias` is recorded at about 200
    geometrically spaced iterations ``k``; a test point ``y`` is rectifying when at least
    ``n`` elements are active, :math:`\langle y, \phi_i\rangle \ge \alpha^{(k)}_i` (random
    frames are full spark almost surely). Elements in no most correlated basis so far keep
    :math:`+\infty` and count as inactive.

    Parameters
    ----------
    size : {"fast", "full"}, default "fast"
        ``"full"``: 1000 trials, ``10^4`` iterations, ``M = 10^4`` test points.
        ``"fast"``: 16 trials, ``10^3`` iterations, ``M = 10^3``.
    dimensions : sequence of int, default (3, 30)
        Dimensions ``n``.
    redundancies : sequence of float, default (2, 3.3, 9)
        Redundancies ``q``; ``m = round(q n)``.
    n_trials, n_iterations, n_test : int, optional
        Override the size's trials, iterations (samples) and test points.
    init : {"none", "frame", "auto"}, default "none"
        Initial value of the estimate (see ``sampling_bias``); ``"none"`` starts at
        :math:`+\infty`, so iteration 0 has proportion 0.
    trials_per_task : int, optional
        Trials per parallel task (and per cache shard).
    seed : int, default 0
        Root seed; trial ``t`` of ``(n, m)`` has its own key.
    executor, max_workers, cache_dir, progress
        As in :func:`isinj`.

    Returns
    -------
    PropinjResult

    Examples
    --------
    >>> from relu_frames_nb.experiments import propinj
    >>> res = propinj(dimensions=[2], redundancies=[3], n_trials=4, n_iterations=200, n_test=100, max_workers=1)
    >>> res.proportions.shape[:2], float(res.mean[0, 0])
    ((1, 4), 0.0)
    """
    size = check_size(size)
    preset = _PROPINJ_SIZES[size]
    dims = check_ints(dimensions, "dimensions", 1)
    try:
        reds = tuple(as_positive(q, "redundancies") for q in redundancies)
    except TypeError:
        raise InputError(f"redundancies must be a sequence of numbers >= 1; got {redundancies!r}.") from None
    if not reds or min(reds) < 1:
        raise InputError(f"redundancies must be numbers >= 1 (m >= n); got {redundancies!r}.")
    params = {
        "size": size,
        "dimensions": list(dims),
        "redundancies": list(reds),
        "n_trials": as_count(preset["n_trials"] if n_trials is None else n_trials, "n_trials"),
        "n_iterations": as_count(preset["n_iterations"] if n_iterations is None else n_iterations, "n_iterations"),
        "n_test": as_count(preset["n_test"] if n_test is None else n_test, "n_test"),
        "init": as_choice(init, "init", ("none", "frame", "auto")),
        "seed": as_seed(seed),
        "frames": "uniform in the unit ball (not normalized)",
        "samples": "uniform in the unit ball",
        "history": "sampling_bias(history=True): about 200 geometric steps",
    }
    per = as_count(preset["trials_per_task"] if trials_per_task is None else trials_per_task, "trials_per_task")
    executor = check_executor(executor)
    cache = Cache(cache_dir, "propinj", params, required=("proportions", "iterations"))
    configs = [(n, max(n, int(round(q * n))), q) for n in dims for q in reds]
    T = params["n_trials"]
    tasks = []
    for n, m, _ in configs:
        for t0 in range(0, T, per):
            t1 = min(T, t0 + per)
            spec = dict(params, n=n, m=m, t0=t0, t1=t1)
            tasks.append(
                (f"n{n:03d}_m{m:04d}_t{t0:05d}-{t1:05d}", spec, (t1 - t0) * m * (params["n_iterations"] + params["n_test"]))
            )
    results, info = run_experiment(
        _propinj_task, tasks, executor=executor, max_workers=max_workers, cache=cache, progress=progress, desc="propinj"
    )
    props, iters = [], None
    for n, m, _ in configs:
        blocks = [results[name]["proportions"] for name, spec, _ in tasks if spec["n"] == n and spec["m"] == m]
        props.append(np.concatenate(blocks))
        iters = results[tasks[0][0]]["iterations"]
    return PropinjResult(
        n=np.array([c[0] for c in configs]),
        m=np.array([c[1] for c in configs]),
        redundancy=np.array([c[2] for c in configs], dtype=float),
        iterations=iters,
        proportions=np.stack(props),
        params=params,
        info=info,
    )
