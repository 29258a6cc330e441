"""Shared helpers of the benchmarks: the :class:`Target` record and timing utilities."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
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


#: the command line in a child process that reports its own memory high-water mark (VmHWM) on stderr
_CLI_CHILD = r"""
import json, sys
from relu_frames_nb.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as fh:
    hwm = [line for line in fh if line.startswith("VmHWM:")]
sys.stderr.write("\n" + json.dumps({"peak_mib": int(hwm[0].split()[1]) / 1024 if hwm else float("nan"), "code": code}) + "\n")
sys.exit(code)
"""


def run_cli(args: list, cwd: Path) -> dict:
    """``python -m relu_frames_nb`` with ``args`` in a fresh process (as a user runs it, in ``cwd``).

    Returns the wall time, the process's peak memory in MiB, the verdict's status (from ``--json``
    output; a line saying why when there is none) and the exit code.
    """
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", _CLI_CHILD, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                         env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])))  # fmt: skip
    elapsed = time.perf_counter() - t0
    tail = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "{}"
    try:
        info = json.loads(tail)
    except json.JSONDecodeError:
        info = {"peak_mib": float("nan")}
    try:
        status = json.loads(res.stdout)["status"]
    except (json.JSONDecodeError, KeyError):
        status = f"no JSON (exit {res.returncode})"
    return {"elapsed": elapsed, "peak_mib": info.get("peak_mib", float("nan")), "status": status, "code": res.returncode}
