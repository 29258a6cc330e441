"""Budgets for long work: a deadline, a memory allowance and progress, shared by every stage.

A :class:`Budget` is created once at the front door (:func:`relu_frames_nb.check`) and handed
down. Loops call :meth:`Budget.check`, which moves the progress bar and raises
:class:`BudgetExhausted` once the deadline has passed; the stage that catches it reports what it
reached. Array work is cut into chunks that fit the memory allowance (:meth:`Budget.rows`).
A stage that cannot look at the clock (one call into a solver) gets the remaining time as its
own limit (:meth:`Budget.remaining`).
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..errors import InputError
from .progress import Progress, as_progress
from .validation import as_count, as_positive, as_time_limit

__all__ = ["Budget", "BudgetExhausted", "MemoryLimit", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY", "NO_LIMIT_ABOVE"]

#: seconds for one check, everywhere (API, command line, explorers use less)
DEFAULT_TIME_LIMIT = 30.0
#: bytes of working memory one check may use
DEFAULT_MEMORY = 2 * 1024**3
#: a time limit above this many seconds (about 32 years) means no limit: the clocks of the operating
#: system's waits (threads, pipes, sleep) overflow a little above 9.2e9 s, so such a deadline is never
#: handed down as a number
NO_LIMIT_ABOVE = 1e9
#: most threads one check may be given (``workers``): more is a typo, not a machine
MAX_THREADS = 1024


class BudgetExhausted(Exception):
    """The deadline passed during ``stage`` (internal: caught by the stage runner)."""

    def __init__(self, stage: str = "") -> None:
        super().__init__(f"time limit reached during {stage or 'the check'}")
        self.stage = stage


class MemoryLimit(MemoryError):
    """Work that would not fit the memory allowance, said before allocating (the stage that meets it gives up:
    "undetermined — memory limit"; a caller that only knows MemoryError reads it as running out of memory).

    ``needed`` and ``allowed`` are in bytes; the message says both, in GB.
    """

    def __init__(self, what: str, needed: float, allowed: float) -> None:
        super().__init__(f"{what} would need {_gb(needed)} of memory, more than the allowance of {_gb(allowed)}")
        self.what, self.needed, self.allowed = what, float(needed), float(allowed)


def _gb(nbytes: float) -> str:
    """Bytes for people: ``"3.77 TiB"``, ``"512 MiB"``."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024.0 or unit == "PiB":
            return f"{value:.0f} B" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024.0
    return f"{value:.3g} PiB"  # pragma: no cover - the loop returns


class Budget:
    """A deadline, a memory allowance and a progress display.

    Parameters
    ----------
    time_limit : float or None
        Seconds from now; None (or inf, or more than :data:`NO_LIMIT_ABOVE`) means no limit.
    memory : float
        Bytes of working memory (default 2 GiB).
    progress : None, bool or callable
        The package's progress protocol (see :mod:`relu_frames_nb._util.progress`); the bar counts seconds.
    desc : str
        Label of the bar.
    workers : int
        Threads a stage may run at once (the compiled depth search's subtrees); the time limit is wall time
        for all of them together.
    """

    def __init__(
        self, time_limit: Any = DEFAULT_TIME_LIMIT, *, memory: Any = DEFAULT_MEMORY, progress: Any = False, desc: str = "check",
        workers: Any = 1,
    ) -> None:
        self.t0 = time.perf_counter()
        seconds = as_time_limit(time_limit)
        limit = math.inf if seconds is None or seconds > NO_LIMIT_ABOVE else seconds
        self.time_limit = limit
        self.deadline = self.t0 + limit
        self.memory = float(as_positive(memory, "memory_limit"))
        self.workers = as_count(workers, "workers", minimum=1)
        if self.workers > MAX_THREADS:
            raise InputError(f"workers must be at most {MAX_THREADS} threads; got {self.workers}.")
        self.stage_name = ""
        self.stages: list[str] = []
        progress = as_progress(progress)
        total = limit if math.isfinite(limit) else 0.0
        self._progress = Progress(progress, round(total, 1), expected_seconds=min(limit, 60.0), unit="s", desc=desc,
                                  info={"stage": "start"}, leave=False)  # fmt: skip
        self._parent: Budget | None = None

    # -- time -------------------------------------------------------------------------
    def elapsed(self) -> float:
        """Seconds since the budget was created."""
        return time.perf_counter() - self.t0

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, 0 once expired)."""
        return max(0.0, self.deadline - time.perf_counter())

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return time.perf_counter() >= self.deadline

    def check(self, stage: str | None = None, **info: Any) -> None:
        """Move the progress display; raise :class:`BudgetExhausted` once the deadline has passed."""
        if stage is not None and stage != self.stage_name:
            self.stage(stage)
        root = self._root()
        root._progress.set(round(root.elapsed(), 1), **({"stage": self.stage_name} | info))
        if self.expired():
            raise BudgetExhausted(self.stage_name)

    def stage(self, name: str, **info: Any) -> None:
        """Enter a named stage (shown with the progress and kept for the report)."""
        self.stage_name = name
        root = self._root()
        if root is not self:
            root.stage_name = name
        if not root.stages or root.stages[-1] != name:
            root.stages.append(name)
        root._progress.set(round(root.elapsed(), 1), force=True, stage=name, **info)

    def share(self, *, fraction: float = 1.0, seconds: float | None = None) -> Budget:
        """A budget for one stage: a fraction of the time left (and/or at most ``seconds``), the same memory."""
        child = Budget.__new__(Budget)
        child.t0 = time.perf_counter()
        left = self.remaining()
        limit = left * fraction if fraction > 0 else 0.0  # (inf * 0 would be nan)
        if seconds is not None:
            limit = min(limit, seconds)
        if limit > NO_LIMIT_ABOVE:
            limit = math.inf
        child.time_limit = limit
        child.deadline = min(self.deadline, child.t0 + limit)
        child.memory = self.memory
        child.workers = self.workers
        child.stage_name = self.stage_name
        child.stages = self.stages
        child._progress = self._progress
        child._parent = self
        return child

    def _root(self) -> Budget:
        b = self
        while b._parent is not None:
            b = b._parent
        return b

    # -- memory -------------------------------------------------------------------------
    def rows(self, bytes_per_row: float, *, fraction: float = 0.25, minimum: int = 1, maximum: int | None = None) -> int:
        """How many rows of ``bytes_per_row`` bytes fit in ``fraction`` of the memory allowance."""
        k = self.memory * fraction // max(float(bytes_per_row), 1.0)
        k = max(minimum, int(min(k, 2**62)))  # (a row of a fraction of a byte: no overflow)
        return k if maximum is None else min(k, maximum)

    def fits(self, nbytes: float, *, fraction: float = 1.0) -> bool:
        """Whether ``nbytes`` fit in ``fraction`` of the memory allowance."""
        return float(nbytes) <= self.memory * fraction

    def need(self, nbytes: float, what: str, *, fraction: float = 1.0) -> None:
        """Raise :class:`MemoryLimit` unless ``nbytes`` (for ``what``) fit in ``fraction`` of the allowance."""
        if not self.fits(nbytes, fraction=fraction):
            raise MemoryLimit(what, nbytes, self.memory * fraction)

    def close(self) -> None:
        """Close the progress display (only the budget that created it does)."""
        if self._parent is None:
            self._progress.close()

    def __enter__(self) -> Budget:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def unlimited() -> Budget:
    """A budget without a deadline, silent, with the default memory (for direct calls of the algorithms)."""
    return Budget(None, progress=False)
