"""Run every ``benchmarks/bench_*.py``: ``python -m benchmarks [--full] [--quick] [--against REV] [NAME ...]``.

Each module's ``main()`` prints its measurements and returns its targets; this runner
prints them again in one table and ends with a line saying which targets hold.
Exit status 0 when every target holds, 1 otherwise (2 when a benchmark crashed).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time
import traceback
from pathlib import Path

from benchmarks._common import Target


def _normalize(name: str, out) -> list[Target]:
    if out is None:
        return []
    if isinstance(out, (Target, tuple, dict, bool)):
        out = [out]
    targets = []
    for i, item in enumerate(out):
        if isinstance(item, Target):
            targets.append(item)
        elif isinstance(item, bool):
            targets.append(Target(f"{name}[{i}]", float(item), 1.0, item))
        elif isinstance(item, dict):
            targets.append(
                Target(
                    str(item.get("name", f"{name}[{i}]")),
                    float(item.get("value", float("nan"))),
                    float(item.get("target", float("nan"))),
                    bool(item["holds"]),
                    str(item.get("unit", "")),
                    str(item.get("text", "")),
                )
            )
        elif isinstance(item, tuple) and len(item) == 2:
            targets.append(Target(str(item[0]), float("nan"), float("nan"), bool(item[1])))
        elif isinstance(item, tuple) and len(item) >= 4:
            targets.append(Target(str(item[0]), float(item[1]), float(item[2]), bool(item[3])))
        else:
            raise TypeError(f"{name}.main() returned an item of unknown form: {item!r}")
    return targets


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    if "--full" in argv:
        argv.remove("--full")
        os.environ["RELU_FRAMES_BENCH_FULL"] = "1"
    if "--quick" in argv:  # benchmarks that offer a quick run (a few cases, short limits) read it
        argv.remove("--quick")
        os.environ["RELU_FRAMES_BENCH_QUICK"] = "1"
    if "--against" in argv:  # the commit that benchmarks comparing with an earlier one measure (default HEAD~1)
        i = argv.index("--against")
        if i + 1 >= len(argv):
            print("error: --against needs a commit (e.g. HEAD~1)", file=sys.stderr)
            return 2
        os.environ["RELU_FRAMES_BENCH_AGAINST"] = argv[i + 1]
        del argv[i : i + 2]
    here = Path(__file__).resolve().parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    if argv:
        unknown = [a for a in argv if a not in names and f"bench_{a}" not in names]
        if unknown:
            print(f"error: unknown benchmark(s) {unknown}; available: {names}", file=sys.stderr)
            return 2
        names = [n for n in names if n in argv or n[len("bench_") :] in argv]
    all_targets: list[Target] = []
    crashed: list[str] = []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.perf_counter()
        try:
            mod = importlib.import_module(f"benchmarks.{name}")
            all_targets += _normalize(name, mod.main())
        except Exception:
            traceback.print_exc()
            crashed.append(name)
        print(f"--- {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    print("\n=== targets ===")
    for t in all_targets:
        print(t.line())
    held = [t.name for t in all_targets if t.holds]
    missed = [t.name for t in all_targets if not t.holds]
    summary = f"targets: {len(held)}/{len(all_targets)} hold"
    if missed:
        summary += f"; missed: {', '.join(missed)}"
    if crashed:
        summary += f"; crashed: {', '.join(crashed)}"
    print(summary)
    return 2 if crashed else (0 if not missed else 1)


if __name__ == "__main__":
    sys.exit(main())
