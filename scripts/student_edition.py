"""Write the student edition of the notebook chain: the notebooks without their worked solutions.

Usage (from the repository root; ``bash scripts/student_edition.sh [OUT]`` sets up ``.venv`` and calls this)::

    python scripts/student_edition.py                  # into student-edition/
    python scripts/student_edition.py OUT              # into OUT (emptied first if it is a student edition)

For every notebook ``notebooks/NN_slug.ipynb`` of the chain the copy

* drops the cells tagged ``solution`` (and with them their outputs and the ``ex.solution(...)``
  marking that makes a checker strict in the teacher's edition);
* keeps the exercise, ``answer`` and ``check`` cells, but clears the stored outputs of the
  ``answer`` and ``check`` cells (the teacher's run printed "correct — ..." there);
* keeps every other cell and its stored outputs (figures, tables), so the copy reads as before.

``notebooks/exercises/`` (the checkers the notebooks import) is copied along, and a short
README tells the students what to do. The ``.py`` twins are not copied: they hold the solutions.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))
from exercises.tags import ANSWER, CHECK, EXERCISE, SOLUTION  # noqa: E402  (notebooks/exercises/tags.py: the cell tags)

DEFAULT_OUT = ROOT / "student-edition"
MARKER = ".student-edition"  # marks a folder this script wrote (only such a folder is emptied)

#: cells whose stored outputs come from the teacher's run of the solution
CLEARED_TAGS = (ANSWER, CHECK)
CHECK_CALL = re.compile(r"check_(\d+)_(\d+)\s*\(")

README = """\
# Student edition

These are the notebooks of the relu_frames_nb course without the worked solutions.
Start at `00_index.ipynb`. Each notebook from 01 on ends with exercises: write your answer in the
cell that says `answer_N_k = None`, then run the check cell below it. The check says
"not yet answered" until you replace `None`, then tells you what is wrong or what it verified.

The checkers live in `exercises/`; keep that folder next to the notebooks.
"""


def tags(cell) -> list[str]:
    """The cell's tags (empty when it has none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def exercise_id(cell) -> str | None:
    """``"5.1"`` for a check cell calling ``check_5_1(...)``, else None."""
    m = CHECK_CALL.search(cell.source)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def add_nbgrader_metadata(nb, exercises: list[str] | None = None):
    """Give the exercise cells of ``nb`` nbgrader's metadata, in place, from their tags; returns ``nb``.

    The answer cell is an nbgrader answer cell (``solution``), the check cell an autograded test
    cell worth one point (``grade``, locked: the autograder restores its source), the task's markdown
    is locked. Other cells are the student's to run and change. The k-th task, answer and check
    belong to the k-th exercise: ``exercises`` (ids such as ``"5.1"``, in order) when given, as for a
    student's copy whose cells may have been rewritten, else read from the check cells' calls.
    ``scripts/grade.py`` grades by these.
    """
    if exercises is None:
        exercises = [exercise_id(c) for c in nb.cells if CHECK in tags(c)]
        if None in exercises:  # its grade is stored under the exercise's name
            raise ValueError("a check cell does not call a checker check_N_k(...)")
    seen = {EXERCISE: 0, ANSWER: 0, CHECK: 0}
    for cell in nb.cells:
        t = tags(cell)
        kind = next((k for k in (CHECK, ANSWER, EXERCISE) if k in t), None)
        if kind is None:
            continue
        k = seen[kind]
        seen[kind] += 1
        grade_id = f"{kind}_" + (exercises[k].replace(".", "_") if k < len(exercises) else f"extra{k}")
        if kind == CHECK:
            meta = {"grade": True, "solution": False, "locked": True, "points": 1, "task": False}
        else:
            meta = {"grade": False, "solution": kind == ANSWER, "locked": kind == EXERCISE, "task": False}
        cell.metadata["nbgrader"] = {**meta, "grade_id": grade_id, "schema_version": 3}
    return nb


def student_notebook(nb):
    """A copy of ``nb`` without ``solution`` cells, with cleared ``answer``/``check`` outputs; (notebook, removed count)."""
    import copy

    nb = copy.deepcopy(nb)
    kept, removed = [], 0
    for cell in nb.cells:
        t = tags(cell)
        if SOLUTION in t:
            removed += 1
            continue
        if cell.cell_type == "code" and any(tag in t for tag in CLEARED_TAGS):
            cell.outputs = []
            cell.execution_count = None
        kept.append(cell)
    nb.cells = kept
    return add_nbgrader_metadata(nb), removed


def chain(src: Path) -> list[Path]:
    """The notebooks of the chain, ``NN_slug.ipynb``, in order."""
    return sorted(Path(src).glob("[0-9][0-9]_*.ipynb"))


def write_student_edition(out: Path, src: Path = NOTEBOOKS) -> dict[str, int]:
    """Write the student edition of the chain in ``src`` into ``out``; return {notebook: solution cells removed}."""
    import nbformat

    out, src = Path(out).resolve(), Path(src).resolve()
    if out == src:
        raise SystemExit(f"student_edition: refusing to write into the notebooks folder itself ({out})")
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise SystemExit(f"student_edition: {out} exists and is not a student edition; choose an empty folder")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by scripts/student_edition.py; emptied when it is written again\n")
    report: dict[str, int] = {}
    paths = chain(src)
    if not paths:
        raise SystemExit(f"student_edition: no notebook NN_slug.ipynb in {src}")
    for path in paths:
        nb, removed = student_notebook(nbformat.read(path, as_version=4))
        nbformat.write(nb, out / path.name)
        report[path.stem] = removed
    exercises = src / "exercises"
    if exercises.is_dir():
        shutil.copytree(exercises, out / "exercises", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (out / "README.md").write_text(README)
    return report


def main(argv: list[str] | None = None) -> int:
    """Write the student edition and print what was removed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help="output folder (default student-edition/)")
    ap.add_argument("--src", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    report = write_student_edition(args.out, args.src)
    total = sum(report.values())
    with_ex = [name for name, n in report.items() if n]
    print(f"[student-edition] {len(report)} notebooks in {Path(args.out).resolve()}: {total} solution cells removed"
          f" ({', '.join(with_ex) if with_ex else 'no notebook has solutions'})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
