"""Shared helpers of the benchmarks: the :class:`Target` record and timing utilities."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Target:
    """One measured figure next to its target.

    ``value`` and ``target`` are numbers in ``unit``; ``holds`` says whether the target is met.
    ``text`` is the human-readable target, e.g. ``"<= 600 s"`` or ``">= 10x"``.
    """

    name: str
    value: float
    target: float
    holds: bool
    unit: str = ""
    text: str = ""

    def line(self) -> str:
        tgt = self.text or f"{self.target:g}{self.unit}"
        return f"{self.name}: {self.value:.4g}{self.unit} (target {tgt}) -> {'OK' if self.holds else 'MISSED'}"


def at_most(name: str, value: float, limit: float, unit: str = "") -> Target:
    """A target ``value <= limit``."""
    return Target(name, float(value), float(limit), bool(value <= limit), unit, f"<= {limit:g}{unit}")


def at_least(name: str, value: float, limit: float, unit: str = "") -> Target:
    """A target ``value >= limit``."""
    return Target(name, float(value), float(limit), bool(value >= limit), unit, f">= {limit:g}{unit}")


def full_mode() -> bool:
    """True when the benchmarks run at full (paper) scale: ``python -m benchmarks --full``."""
    return os.environ.get("RELU_FRAMES_BENCH_FULL", "") not in ("", "0", "false", "no")


def best_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
