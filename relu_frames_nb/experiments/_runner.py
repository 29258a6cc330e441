"""The machinery shared by the experiments: validation, ``.npz`` persistence, a cache of
finished tasks, and a task runner on any :class:`concurrent.futures.Executor` or Dask ``Client``.

Private to :mod:`relu_frames_nb.experiments`. Each experiment splits its work into
independent tasks ``(name, spec, cost)``; :func:`run_experiment` runs those not in the cache
(longest first, in this process, on a local process pool or on the executor given), reports
progress, and returns the results by name with the run's ``info``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .._util.children import die_with_parent
from .._util.progress import Progress
from .._util.threads import limit_blas_threads
from .._util.validation import as_count
from ..errors import InputError

#: the two sizes of every experiment
SIZES = ("fast", "full")
#: experiment number, the first entry of every seed key
EXP_ID = {"propinj": 1, "isinj": 2, "conv": 3, "threshold": 4}
#: version of the files written (results and cache shards)
FORMAT = 1
#: largest number of local worker processes accepted (more is a typo, not a machine)
MAX_WORKERS = 1024
#: seconds to wait for one terminated worker process to exit before it is killed
_STOP_GRACE = 2.0
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")

# ---------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------


def check_size(size: Any) -> str:
    if size not in SIZES:
        raise InputError(f"size must be 'fast' or 'full'; got {size!r}.")
    return size


def check_executor(executor: Any) -> Executor | None:
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InputError(
            f"executor must be a concurrent.futures.Executor or a dask.distributed Client; got {type(executor).__name__}."
        )
    return executor


def check_workers(max_workers: Any, name: str = "max_workers") -> int | None:
    """None, or a number of local worker processes from 1 to :data:`MAX_WORKERS`."""
    if max_workers is None:
        return None
    if isinstance(max_workers, bool) or not isinstance(max_workers, (int, np.integer)) or not 1 <= max_workers <= MAX_WORKERS:
        raise InputError(f"{name} must be an integer from 1 to {MAX_WORKERS}; got {max_workers!r}.")
    return int(max_workers)


def check_ints(values: Any, name: str, minimum: int) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise InputError(f"{name} must be a sequence of integers >= {minimum}; got {values!r}.") from None
    out = tuple(as_count(v, name, minimum=minimum) for v in items)
    if not out:
        raise InputError(f"{name} must not be empty.")
    return out


# ---------------------------------------------------------------------------------
# .npz persistence (no pickles)
# ---------------------------------------------------------------------------------


def write_npz(path: Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    payload = {k: np.asarray(v) for k, v in arrays.items()}
    payload["_meta"] = np.array(json.dumps(meta, sort_keys=True))
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, **payload)
    os.replace(tmp, path)


def read_npz(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    with np.load(Path(path), allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files if k != "_meta"}
        meta = json.loads(str(f["_meta"])) if "_meta" in f.files else {}
    return arrays, meta


def frozen(a: Any, dtype: Any = None) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


#: result classes by kind, filled as they are defined (for :func:`load_result`)
RESULT_KINDS: dict[str, type] = {}


class Result:
    """Shared save/load of the result dataclasses (fields: arrays, ``params``, ``info``)."""

    _kind = ""
    _array_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._kind:
            RESULT_KINDS[cls._kind] = cls

    def __post_init__(self) -> None:
        for k in self._array_fields:
            object.__setattr__(self, k, frozen(getattr(self, k)))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the result to ``path`` (``.npz``; the suffix is added if missing).

        Parameters
        ----------
        path : str or path-like
            Target file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        p = Path(path)
        if p.suffix != ".npz":
            p = p.with_name(p.name + ".npz")
        meta = {"kind": self._kind, "format": FORMAT, "params": self.params, "info": self.info}
        write_npz(p, {k: getattr(self, k) for k in self._array_fields}, meta)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike):
        """Read a result written by :meth:`save` (``np.load(..., allow_pickle=False)``).

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file.

        Returns
        -------
        The result.

        Raises
        ------
        InputError
            If the file does not hold a result of this kind.
        """
        p = Path(path)
        if not p.exists():
            raise InputError(f"path must be an existing .npz result file; got {str(p)!r} (no such file).")
        try:
            arrays, meta = read_npz(p)
        except Exception as exc:
            raise InputError(f"path must be a readable .npz result file; got {str(p)!r} ({exc}).") from None
        if meta.get("kind") != cls._kind:
            raise InputError(f"file must hold a {cls._kind!r} result; got kind {meta.get('kind')!r} in {str(p)!r}.")
        missing = [k for k in cls._array_fields if k not in arrays]
        if missing:
            raise InputError(f"file {str(p)!r} lacks the arrays {missing}; it was written by another version.")
        return cls(**{k: arrays[k] for k in cls._array_fields}, params=meta.get("params", {}), info=meta.get("info", {}))


def load_result(path: str | os.PathLike):
    """Load any experiment result saved with ``save`` (the kind is read from the file).

    Parameters
    ----------
    path : str or path-like
        A ``.npz`` file written by :meth:`PropinjResult.save`, :meth:`IsinjResult.save` or
        :meth:`ConvResult.save`.

    Returns
    -------
    PropinjResult or IsinjResult or ConvResult
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"path must be an existing .npz result file; got {str(p)!r} (no such file).")
    try:
        _, meta = read_npz(p)
    except Exception as exc:
        raise InputError(f"path must be a readable .npz result file; got {str(p)!r} ({exc}).") from None
    kinds = RESULT_KINDS
    if meta.get("kind") not in kinds:
        raise InputError(f"file must hold an experiment result; got kind {meta.get('kind')!r} in {str(p)!r}.")
    return kinds[meta["kind"]].load(p)


# ---------------------------------------------------------------------------------
# running independent tasks: executor, cache, progress
# ---------------------------------------------------------------------------------


#: the non-finite values a shard records per array: meta key, name in messages, test
_NON_FINITE = (
    ("nan_keys", "NaN", np.isnan),
    ("posinf_keys", "+inf", np.isposinf),
    ("neginf_keys", "-inf", np.isneginf),
)


def _holds(a: Any, test: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Whether the float array ``a`` holds a value that ``test`` flags (never for other dtypes)."""
    a = np.asarray(a)
    return bool(np.issubdtype(a.dtype, np.floating) and test(a).any())


#: the meta entry of a shard recording where each array held NaN, +inf or -inf (a digest of the places)
_PLACES = "non_finite_places"


def _places(a: Any, test: Callable[[np.ndarray], np.ndarray]) -> str:
    """A digest of the places where ``test`` flags the float array ``a`` (shape included)."""
    mask = np.ascontiguousarray(test(np.asarray(a)), dtype=bool)
    return hashlib.sha256(repr(mask.shape).encode() + np.packbits(mask.reshape(-1)).tobytes()).hexdigest()[:16]


class Cache:
    """One directory of ``.npz`` shards per experiment and parameter set."""

    def __init__(self, root: str | os.PathLike | None, experiment: str, params: dict, *, required: tuple[str, ...] = ()) -> None:
        self.dir: Path | None = None
        #: arrays a shard must hold for the experiment to use it
        self.required = tuple(required)
        #: shards found unusable and recomputed, with the reason
        self.healed: list[str] = []
        if root is None:
            return
        text = json.dumps({"format": FORMAT, "experiment": experiment, **params}, sort_keys=True)
        key = hashlib.sha256(text.encode()).hexdigest()[:12]
        self.dir = Path(root) / f"{experiment}-{key}"
        self.dir.mkdir(parents=True, exist_ok=True)
        pfile = self.dir / "params.json"
        if not pfile.exists():
            pfile.write_text(text + "\n")

    @staticmethod
    def task_key(spec: dict) -> str:
        """A fingerprint of one task's parameters, stored in its shard and checked on load."""
        text = json.dumps(spec, sort_keys=True, default=lambda v: np.asarray(v).tolist())
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def load(self, name: str, spec: dict | None = None) -> dict | None:
        """The cached result of task ``name``, or None when there is none or it cannot be trusted.

        A shard is recomputed (and listed in :attr:`healed` with the reason) when it is not a file
        (a folder in its place, say), cannot be read (``np.load(allow_pickle=False)`` and JSON
        only), has no record of what was written, belongs to another task (its stored task key
        differs), lacks one of the arrays it was saved with or one the experiment needs
        (:attr:`required`), has no record of its array shapes (written by an older version),
        holds an array whose shape differs from the recorded one (cut short, say), or holds NaN,
        +inf or -inf in a place of an array where there was no such value when it was written.
        """
        if self.dir is None:
            return None
        p = self.dir / f"{name}.npz"
        if not (p.exists() or p.is_symlink()):
            return None
        if not p.is_file():
            return self._heal(p, "not a file")
        try:
            arrays, meta = read_npz(p)
            reason = self._damage(arrays, meta, spec)
        except Exception as exc:  # a shard cut short by a crash, or garbage: compute it again
            return self._heal(p, f"unreadable: {type(exc).__name__}")
        if reason is not None:
            return self._heal(p, reason)
        arrays["_meta"] = meta
        return arrays

    def _damage(self, arrays: dict[str, np.ndarray], meta: Any, spec: dict | None) -> str | None:
        """Why the shard's ``arrays`` and record ``meta`` cannot be trusted, or None when they can."""
        if not isinstance(meta, dict):
            return "no record of what was written"
        if spec is not None and meta.get("task_key") != self.task_key(spec):
            return "written for another task"
        keys = meta.get("keys", list(arrays))
        if not isinstance(keys, list):
            return "no record of the arrays written"
        missing = sorted((set(map(str, keys)) | set(self.required)) - set(arrays))
        if missing:
            return f"missing {', '.join(missing)}"
        shapes = meta.get("shapes")
        if not isinstance(shapes, dict):
            return "no record of the array shapes; written by an older version"
        for k, a in sorted(arrays.items()):
            if k not in shapes:
                return f"{k} was not among the arrays written"
            if list(a.shape) != shapes[k]:
                written = tuple(shapes[k]) if isinstance(shapes[k], list) else shapes[k]
                return f"{k} has shape {a.shape}; it was written with shape {written}"
        for record, label, test in _NON_FINITE:
            allowed = set(meta.get(record, ()))  # arrays that held such values when the task wrote them
            bad = [k for k, a in sorted(arrays.items()) if k not in allowed and _holds(a, test)]
            if bad:
                return f"holds {label} in {', '.join(bad)}"
        places = meta.get(_PLACES)
        if not isinstance(places, dict):
            return "no record of where its non-finite values were; written by an older version"
        for record, label, test in _NON_FINITE:
            for k in sorted(meta.get(record, ())):
                if k in arrays and _places(arrays[k], test) != places.get(f"{record}:{k}"):
                    return f"holds {label} in {k} at places where the task wrote none (or lost one)"
        return None

    def _heal(self, path: Path, reason: str) -> None:
        self.healed.append(f"{path} ({reason})")
        return None

    def save(self, name: str, result: dict, spec: dict | None = None) -> None:
        """Write task ``name``'s result with its task key, the names and shapes of its arrays, and
        which arrays hold NaN, +inf or -inf (what :meth:`load` checks the shard against).
        """
        if self.dir is None:
            return
        target = self.dir / f"{name}.npz"
        if target.is_symlink() or (target.exists() and not target.is_file()):  # a folder in a shard's place
            target.unlink() if target.is_symlink() or not target.is_dir() else shutil.rmtree(target)
        arrays = {k: np.asarray(v) for k, v in result.items() if k != "_meta"}
        meta = dict(result.get("_meta", {}), keys=sorted(arrays), shapes={k: list(a.shape) for k, a in arrays.items()})
        meta[_PLACES] = {}
        for record, _, test in _NON_FINITE:
            meta[record] = sorted(k for k, a in arrays.items() if _holds(a, test))
            meta[_PLACES].update({f"{record}:{k}": _places(arrays[k], test) for k in meta[record]})
        if spec is not None:
            meta["task_key"] = self.task_key(spec)
        write_npz(self.dir / f"{name}.npz", arrays, meta)


def _worker_init(parent: int) -> None:
    """Worker initializer: exit with the parent, one BLAS thread per process."""
    die_with_parent(parent)
    _limit_blas_threads()


def _limit_blas_threads() -> None:
    """One BLAS thread per process (the environment variables, and threadpoolctl if available)."""
    for var in _THREAD_VARS:
        os.environ.setdefault(var, "1")
    limit_blas_threads()


@contextmanager
def _single_threaded_children():
    """Set the BLAS thread variables to 1 while worker processes are being started."""
    old = {v: os.environ.get(v) for v in _THREAD_VARS}
    for v in _THREAD_VARS:
        if old[v] is None:
            os.environ[v] = "1"
    try:
        yield
    finally:
        for v, val in old.items():
            if val is None:
                os.environ.pop(v, None)


def default_executor(*, max_workers: int | None = None) -> ProcessPoolExecutor:
    """A local process pool (``spawn``) with one BLAS thread per worker.

    Parameters
    ----------
    max_workers : int, optional
        Number of worker processes (default ``os.cpu_count()``).

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
        Workers are started lazily, on the first submissions; submit inside
        ``with`` of the pool as usual and shut it down when done.
    """
    import multiprocessing

    workers = (os.cpu_count() or 1) if max_workers is None else check_workers(max_workers)
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )


def run_tasks(
    fn: Callable[[dict], dict],
    tasks: list[tuple[str, dict, float]],
    *,
    executor: Executor | None,
    max_workers: int | None,
    cache: Cache,
    progress: Any,
    desc: str,
    cached_only: bool = False,
) -> tuple[dict[str, dict], dict]:
    """Run ``fn(spec)`` for every ``(name, spec, cost)`` not in the cache; return results by name.

    With ``cached_only`` nothing is run: the results are the cached tasks' alone, and ``not_run``
    counts the others (a look at a long run while it is still going, or after it was stopped).
    """
    results: dict[str, dict] = {}
    todo = []
    for name, spec, cost in tasks:
        hit = cache.load(name, spec)
        if hit is not None:
            results[name] = hit
        else:
            todo.append((name, spec, cost))
    todo.sort(key=lambda t: -t[2])  # longest first: better balance
    stats = {"tasks": len(tasks), "cached": len(tasks) - len(todo), "computed": len(todo), "healed": list(cache.healed)}
    if cached_only:
        stats.update(computed=0, not_run=len(todo), seconds=0.0)
        return results, stats
    bar = Progress(progress, len(tasks), initial=len(tasks) - len(todo), desc=desc, unit="task", smoothing=0.05)
    t0 = time.perf_counter()
    try:
        workers = check_workers(max_workers)
        if executor is None and (workers == 1 or len(todo) <= 1):
            for name, spec, _ in todo:
                res = fn(spec)
                cache.save(name, res, spec)
                results[name] = res
                bar.update()
        elif todo:
            own = executor is None
            pool = default_executor(max_workers=workers) if own else executor
            client = _dask_client(pool)
            futures: dict[Any, tuple[str, dict]] = {}
            try:
                with _single_threaded_children() if own else nullcontext():
                    for name, spec, _ in todo:
                        fut = pool.submit(fn, spec, pure=False) if client is not None else pool.submit(fn, spec)
                        futures[fut] = (name, spec)
                for fut in _completed(futures, client):
                    res = fut.result()
                    name, spec = futures[fut]
                    cache.save(name, res, spec)  # each finished task is kept at once: an interrupted run resumes
                    results[name] = res
                    bar.update()
            except BaseException:
                _cancel(futures, client)
                if own:
                    _stop_pool(pool)
                raise
            else:
                if own:
                    pool.shutdown(wait=True)
    finally:
        bar.close()
    stats["seconds"] = time.perf_counter() - t0
    return results, stats


def _dask_client(executor: Any) -> Any:
    """``executor`` if it is a ``distributed.Client`` (its futures are not ``concurrent.futures``), else None."""
    if type(executor).__module__.split(".")[0] != "distributed":
        return None
    from distributed import Client

    return executor if isinstance(executor, Client) else None


def _completed(futures: dict, client: Any):
    """The futures as they finish (Dask's own ``as_completed`` on a cluster)."""
    if client is not None:
        from distributed import as_completed

        yield from as_completed(list(futures))
        return
    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        yield from done


def _cancel(futures: dict, client: Any) -> None:
    """Cancel the tasks not finished (on a cluster, the scheduler forgets them)."""
    if client is not None:
        try:
            client.cancel(list(futures), force=True)
        except Exception:  # pragma: no cover - the scheduler may be gone already
            pass
        return
    for fut in futures:
        fut.cancel()


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a local pool now: pending tasks dropped, the running ones' processes terminated.

    ``shutdown(wait=True)`` would wait for the running tasks (minutes at large ``n``), and the
    workers ignore Ctrl-C (the parent handles it), so they are ended here, by their ids.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(_STOP_GRACE)
        if proc.is_alive():  # pragma: no cover - SIGTERM ignored
            proc.kill()
            proc.join(_STOP_GRACE)


def executor_name(executor: Executor | None, max_workers: int | None) -> str:
    if executor is None:
        return f"local processes ({max_workers or os.cpu_count()})" if max_workers != 1 else "in-process"
    return type(executor).__name__


def run_experiment(
    fn: Callable[[dict], dict],
    tasks: list[tuple[str, dict, float]],
    *,
    executor: Executor | None,
    max_workers: int | None,
    cache: Cache,
    progress: Any,
    desc: str,
    cached_only: bool = False,
) -> tuple[dict[str, dict], dict]:
    """Run the tasks (see :func:`run_tasks`); return the results by name and the run's ``info``.

    ``info`` holds ``wall_seconds``, ``task_seconds`` and ``task_cpu_seconds`` (sums of the
    ``seconds`` and ``cpu_seconds`` each task reports in its ``_meta``, cached tasks included),
    ``executor`` and the task counts (``tasks``, ``cached``, ``computed``, ``seconds``). Each
    experiment adds its own entries.
    """
    t0 = time.perf_counter()
    results, stats = run_tasks(
        fn, tasks, executor=executor, max_workers=max_workers, cache=cache, progress=progress, desc=desc,
        cached_only=cached_only,
    )
    metas = [r.get("_meta", {}) for r in results.values()]
    info = {
        "wall_seconds": time.perf_counter() - t0,
        "task_seconds": sum(float(meta.get("seconds", 0.0)) for meta in metas),
        "task_cpu_seconds": sum(float(meta.get("cpu_seconds", 0.0)) for meta in metas),
        "executor": executor_name(executor, max_workers),
        **stats,
    }
    return results, info
