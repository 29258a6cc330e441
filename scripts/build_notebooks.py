"""Produce the committed notebooks: sync each py:percent source to its .ipynb and execute it headlessly.

Usage (from the repository root; ``bash scripts/notebooks.sh`` sets up ``.venv`` and calls this)::

    python scripts/build_notebooks.py                 # every notebook, outputs written in place
    python scripts/build_notebooks.py 05 07           # only the notebooks whose name starts with 05 / 07
    python scripts/build_notebooks.py --out DIR       # execute, write the results to DIR (the sources stay as they are)

The notebooks are executed the way nbval runs them (nbclient, kernel ``python3``, working directory
``notebooks/``), never saved from a browser. Widget state is stored in the notebook metadata, so
widgets render on nbviewer; 3-D viewers and explorers also carry a static PNG in their output. Each
kernel first runs ``scripts/_figure_audit.py``: a figure's PNG records the size of its smallest text,
which ``tests/test_figure_text.py`` checks as the book shows it.

At the default size (``RELU_FRAMES_FULL`` unset) every notebook must run in ``--per-notebook``
seconds (60) and the chain in ``--budget`` seconds (300); the script prints the run times and fails
when a budget is exceeded. With ``RELU_FRAMES_FULL=1`` or ``--no-budget`` (the Binder check in the
test suite: a run time is a benchmark's business, never a test's) the budgets are only reported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def sources(prefixes: list[str]) -> list[Path]:
    """The py:percent sources of the chain (``NN_slug.py``), filtered by name prefixes."""
    found = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    if prefixes:
        found = [p for p in found if any(p.name.startswith(pre) for pre in prefixes)]
        if not found:
            raise SystemExit(f"build_notebooks: no notebook source matches {prefixes}")
    return found


def execute(source: Path, timeout: int) -> tuple[object, float]:
    """Read a py:percent source, execute it in ``notebooks/``, return (notebook, seconds)."""
    import jupytext
    import nbclient

    nb = jupytext.read(source)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.metadata.pop("jupytext", None)  # pairing comes from notebooks/jupytext.toml
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})  # fmt: skip
    t0 = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    """Execute the selected notebooks; 0 when all ran within budget, 1 otherwise."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefixes", nargs="*", help="only notebooks whose file name starts with one of these")
    ap.add_argument("--out", type=Path, help="write executed notebooks here instead of next to their sources")
    ap.add_argument("--per-notebook", type=float, default=60.0, help="seconds allowed per notebook (default size)")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds allowed for the whole chain (default size)")
    ap.add_argument("--cell-timeout", type=int, default=1800, help="nbclient timeout per cell, seconds")
    ap.add_argument("--no-budget", action="store_true",
                    help="print the run times without failing on them (tests and CI: shared machines under load)")  # fmt: skip
    args = ap.parse_args(argv)

    import nbformat

    full = os.environ.get("RELU_FRAMES_FULL", "").strip() not in ("", "0")
    # every kernel runs scripts/_figure_audit.py first (an IPython start-up file): its PNGs record their smallest text
    audit = tempfile.TemporaryDirectory(prefix="rfnb-ipython-")
    startup = Path(audit.name) / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "_figure_audit.py", startup / "00-rfnb-figure-audit.py")
    os.environ["IPYTHONDIR"] = audit.name
    out = args.out.resolve() if args.out else NOTEBOOKS
    out.mkdir(parents=True, exist_ok=True)
    times: list[tuple[str, float]] = []
    failed: list[str] = []
    for src in sources(args.prefixes):
        print(f"executing {src.name} ...", flush=True)
        try:
            nb, seconds = execute(src, args.cell_timeout)
        except Exception as exc:  # report every notebook, then fail
            failed.append(f"{src.name}: {type(exc).__name__}")
            print(f"  FAILED: {type(exc).__name__}\n" + "\n".join(str(exc).strip().splitlines()[-25:]), flush=True)
            continue
        nbformat.write(nb, out / f"{src.stem}.ipynb")
        times.append((src.stem, seconds))
        print(f"  {seconds:6.1f} s", flush=True)

    total = sum(t for _, t in times)
    print("\nrun times (%s size, headless):" % ("paper" if full else "default"))
    for name, t in times:
        flag = "  OVER BUDGET" if not full and t > args.per_notebook else ""
        print(f"  {name:40s} {t:6.1f} s{flag}")
    print(f"  {'total':40s} {total:6.1f} s" + ("  OVER BUDGET" if not full and total > args.budget else ""))
    if failed:
        print("\nfailed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    if not full and not args.no_budget and (total > args.budget or any(t > args.per_notebook for _, t in times)):
        print(f"\nbudget exceeded: {args.per_notebook:g} s per notebook, {args.budget:g} s for the chain", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
