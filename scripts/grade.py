"""Grade a class's notebooks with nbgrader and write a gradebook: student x exercise, with the checkers' feedback.

Usage (from the repository root; ``bash scripts/grade.sh SUBMISSIONS [OUT]`` sets up ``.venv`` and calls this)::

    python scripts/grade.py SUBMISSIONS                # into grading/
    python scripts/grade.py SUBMISSIONS --out OUT      # into OUT (emptied first if this script wrote it)

``SUBMISSIONS`` holds one folder per student, named by the student's id, with the notebooks of the
student edition the student worked in (``05_maximal_bias.ipynb``, ...; any subset of the chain)::

    SUBMISSIONS/ada/05_maximal_bias.ipynb
    SUBMISSIONS/ada/13_real_network.ipynb
    SUBMISSIONS/ben/05_maximal_bias.ipynb

What happens, with nbgrader doing the grading:

1. every notebook of the chain that someone submitted becomes an nbgrader assignment of its own
   (id = the notebook's name): its source is the student edition of the notebook (the same cells the
   students got, see ``scripts/student_edition.py``), whose answer cells are nbgrader answer cells and
   whose check cells are nbgrader's autograded test cells worth one point each; the checkers
   (``exercises/``) are copied along and overwrite anything a student sent in their place;
2. ``nbgrader generate_assignment`` records the assignments in the gradebook database;
3. ``nbgrader autograde`` runs every submission top to bottom in a fresh kernel. nbgrader sets
   ``NBGRADER_EXECUTION=autograde``, and then a checker raises when the answer is not right, so a
   test cell has an error exactly when the exercise is not solved (or not answered). A cell of the
   student's that crashes costs only the exercises that depend on it;
4. the scores are read from nbgrader's gradebook database and the feedback lines from the
   autograded notebooks, and written as ``OUT/gradebook.csv`` (one row per student: total and the
   points of every exercise), ``OUT/feedback.csv`` (one row per student and exercise: points and the
   checker's line) and ``OUT/gradebook.html`` (the table, each cell with its feedback).

nbgrader's own course folder stays in ``OUT/nbgrader`` (``gradebook.db``, ``autograded/``), so
nbgrader's tools (``nbgrader generate_feedback``, the formgrader) work on it afterwards.
"""

from __future__ import annotations

import argparse
import csv
import html
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from student_edition import add_nbgrader_metadata, chain, exercise_id, exercises_of, student_notebook, tags  # noqa: E402

if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))
from exercises.tags import ANSWER, CHECK  # noqa: E402  (notebooks/exercises/tags.py)

DEFAULT_OUT = ROOT / "grading"
MARKER = ".gradebook"  # marks a folder this script wrote (only such a folder is emptied)
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class GradingError(Exception):
    """The submissions cannot be graded as given (the message says why)."""


@dataclass
class Result:
    """One student's result on one exercise."""

    points: float
    max_points: float
    feedback: str


@dataclass
class Gradebook:
    """Everything graded: ``results[student][exercise]``, the exercises in chain order, and notes."""

    students: list[str]
    exercises: list[str]
    results: dict[str, dict[str, Result]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def total(self, student: str) -> float:
        """The points of ``student`` over every exercise."""
        return sum(r.points for r in self.results.get(student, {}).values())

    @property
    def max_total(self) -> float:
        """The points of a class that solved everything."""
        return float(len(self.exercises))


# ---------------------------------------------------------------------------------------------
# the submissions
# ---------------------------------------------------------------------------------------------


def read_submissions(folder: Path, known: dict[str, Path]) -> tuple[dict[str, dict[str, Path]], list[str]]:
    """``{student: {notebook stem: path}}`` from ``folder/<student>/<NN_slug>.ipynb``, and notes on what was skipped."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GradingError(f"{folder} is not a folder of submissions (one sub-folder per student)")
    subs: dict[str, dict[str, Path]] = {}
    notes: list[str] = []
    for student_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        student = student_dir.name
        if not STUDENT_ID.match(student):
            notes.append(f"skipped the folder {student!r}: a student id is letters, digits, '_', '.', '-'")
            continue
        found = {}
        for path in sorted(student_dir.glob("*.ipynb")):
            if path.stem in known:
                found[path.stem] = path
            else:
                notes.append(f"{student}: {path.name} is not a notebook of the chain; not graded")
        if found:
            subs[student] = found
        else:
            notes.append(f"{student}: no notebook of the chain in {student_dir}")
    if not subs:
        raise GradingError(f"no submission in {folder}: expected {folder}/<student>/<NN_slug>.ipynb")
    return subs, notes


# ---------------------------------------------------------------------------------------------
# nbgrader
# ---------------------------------------------------------------------------------------------


def _nbgrader(course: Path, *args: str, timeout: int) -> None:
    cmd = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={course}", "--Execute.timeout=" + str(timeout),
           "--log-level=WARN"]  # fmt: skip
    # nbgrader runs the `alembic` command of its environment and reads nbgrader_config.py from the working directory
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=course, env=env)
    if proc.returncode != 0:
        raise GradingError(f"nbgrader {args[0]} failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")


def _error(cell) -> str | None:
    """``"Name: value"`` of the error a code cell raised, or None."""
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            return f"{o.get('ename')}: {o.get('evalue')}"
    return None


def _feedback_lines(nb) -> dict[str, str]:
    """``{exercise: the checker's line (or the error that stopped it)}`` from an autograded notebook."""
    out = {}
    crashed = {}  # exercise -> the error of its answer cell
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type == "code" and grade_id.startswith(ANSWER + "_") and (err := _error(cell)):
            crashed[grade_id[len(ANSWER) + 1:].replace("_", ".")] = err
    for cell in nb.cells:
        if cell.cell_type != "code" or CHECK not in tags(cell) or not (ex := exercise_id(cell)):
            continue
        printed, error = [], None
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                printed.append(o.get("text", ""))
            elif o.get("output_type") == "error":
                error = f"{o.get('ename')}: {o.get('evalue')}"
        lines = [ln.strip() for ln in "".join(printed).splitlines() if ln.strip()]
        feedback = next((ln for ln in reversed(lines) if ln.startswith("Exercise ")), lines[-1] if lines else "")
        if ex in crashed:
            feedback = f"your answer cell raised {crashed[ex]}; " + (feedback or "the check could not run")
        elif error and not feedback:
            feedback = f"the check could not run ({error}); an earlier cell may have failed"
        out[ex] = feedback
    return out


def grade(submissions: Path, out: Path, *, src: Path = NOTEBOOKS, timeout: int = 600, progress=print) -> Gradebook:
    """Grade ``submissions`` (see the module's docstring) into ``out``; returns the :class:`Gradebook`."""
    import nbformat
    from nbgrader.api import Gradebook as NbGraderDB
    from nbgrader.api import MissingEntry

    t0 = time.perf_counter()
    known = {p.stem: p for p in chain(src)}
    subs, notes = read_submissions(Path(submissions), known)
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise GradingError(f"{out} exists and was not written by scripts/grade.py; choose an empty folder")
        shutil.rmtree(out)
    course = out / "nbgrader"
    course.mkdir(parents=True)
    (out / MARKER).write_text("written by scripts/grade.py; emptied when it grades again\n")
    (course / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = 'relu_frames_nb'\n")

    assignments = sorted({stem for found in subs.values() for stem in found})
    exercises: list[str] = []
    ids: dict[str, list[str]] = {}
    unreadable: dict[tuple[str, str], str] = {}
    for a in assignments:
        nb, _ = student_notebook(nbformat.read(known[a], as_version=4))  # with nbgrader's metadata
        ids[a] = exercises_of(nb)
        exercises += ids[a]
        source = course / "source" / a
        source.mkdir(parents=True)
        nbformat.write(nb, source / f"{a}.ipynb")
        shutil.copytree(src / "exercises", source / "exercises", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        progress(f"[grade] {a}: {len(ids[a])} exercises")
        _nbgrader(course, "generate_assignment", a, "--force", timeout=timeout)
        for student, found in subs.items():
            if a not in found:
                continue
            try:  # nbgrader would stop the whole run on a file that is not a notebook
                submitted = nbformat.read(found[a], as_version=4)
                nbformat.validate(submitted)
            except Exception as exc:  # any reason the file is not a notebook
                unreadable[student, a] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                continue
            dest = course / "submitted" / student / a
            dest.mkdir(parents=True)
            nbformat.write(add_nbgrader_metadata(submitted, ids[a]), dest / f"{a}.ipynb")
        graded = [st for st, found in subs.items() if a in found and (st, a) not in unreadable]
        for k, student in enumerate(graded, 1):  # one run per student: a submission nbgrader chokes on costs only itself
            t1 = time.perf_counter()
            try:
                _nbgrader(course, "autograde", a, f"--student={student}", "--force", timeout=timeout)
            except GradingError as exc:
                lines = [ln.strip() for ln in str(exc).splitlines() if "error" in ln.lower()]
                unreadable[student, a] = f"nbgrader could not grade it: {lines[-1] if lines else str(exc).splitlines()[0]}"
            progress(f"[grade] {a}: {student} ({k}/{len(graded)}) in {time.perf_counter() - t1:.0f} s")

    book = Gradebook(students=sorted(subs), exercises=exercises, notes=notes)
    with NbGraderDB(f"sqlite:///{course / 'gradebook.db'}") as db:
        for student, found in subs.items():
            row = book.results.setdefault(student, {})
            for a in assignments:
                if a not in found:
                    for ex in ids[a]:
                        row[ex] = Result(0.0, 1.0, "not submitted")
                    continue
                if (student, a) in unreadable:
                    why = unreadable[student, a]
                    text = why if why.startswith("nbgrader") else f"{a}.ipynb could not be read as a notebook ({why})"
                    for ex in ids[a]:
                        row[ex] = Result(0.0, 1.0, text)
                    continue
                graded = course / "autograded" / student / a / f"{a}.ipynb"
                lines = _feedback_lines(nbformat.read(graded, as_version=4)) if graded.exists() else {}
                for ex in ids[a]:
                    try:
                        g = db.find_grade("check_" + ex.replace(".", "_"), a, a, student)
                        points, max_points = float(g.score), float(g.max_score)
                    except MissingEntry:
                        points, max_points = 0.0, 1.0
                    row[ex] = Result(points, max_points, lines.get(ex, "no output (the notebook did not run to this cell)"))
    book.seconds = time.perf_counter() - t0
    write_csv(book, out)
    write_html(book, out / "gradebook.html")
    return book


# ---------------------------------------------------------------------------------------------
# the gradebook files
# ---------------------------------------------------------------------------------------------


def _points(x: float) -> str:
    return f"{x:g}"


def write_csv(book: Gradebook, out: Path) -> None:
    """``gradebook.csv`` (student, total, max, one column per exercise) and ``feedback.csv`` (one row per answer)."""
    with open(out / "gradebook.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "total", "max", *book.exercises])
        for s in book.students:
            w.writerow([s, _points(book.total(s)), _points(book.max_total),
                        *(_points(book.results[s][e].points) for e in book.exercises)])  # fmt: skip
    with open(out / "feedback.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "exercise", "points", "max", "feedback"])
        for s in book.students:
            for e in book.exercises:
                r = book.results[s][e]
                w.writerow([s, e, _points(r.points), _points(r.max_points), r.feedback])


def write_html(book: Gradebook, path: Path) -> None:
    """One self-contained page: the table student x exercise, each cell with its points and feedback."""
    esc = html.escape
    head = "".join(f"<th>{esc(e)}</th>" for e in book.exercises)
    rows = []
    for s in book.students:
        cells = []
        for e in book.exercises:
            r = book.results[s][e]
            cls = "ok" if r.points >= r.max_points else ("part" if r.points > 0 else "no")
            cells.append(f'<td class="{cls}"><b>{_points(r.points)}</b><div class="fb">{esc(r.feedback)}</div></td>')
        rows.append(f"<tr><th>{esc(s)}</th><td class='tot'>{_points(book.total(s))} / {_points(book.max_total)}</td>"
                    + "".join(cells) + "</tr>")  # fmt: skip
    notes = "".join(f"<li>{esc(n)}</li>" for n in book.notes)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Gradebook</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #bbb; padding: 4px 6px; vertical-align: top; text-align: left; }}
td.ok {{ background: #d9f2d9; }} td.part {{ background: #fff2cc; }} td.no {{ background: #f8d7d7; }}
td.tot {{ font-weight: bold; white-space: nowrap; }}
.fb {{ font-size: 0.8em; max-width: 22em; color: #333; }}
</style></head><body>
<h1>Gradebook</h1>
<p>{len(book.students)} students, {len(book.exercises)} exercises, one point each; graded by nbgrader
(autograde) with the notebooks' own checkers in {book.seconds:.0f} s.</p>
<table>
<thead><tr><th>student</th><th>total</th>{head}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
{f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""}
</body></html>
"""
    path.write_text(page, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Grade and print where the gradebook is; exit 2 with a message when the submissions cannot be graded."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("submissions", type=Path, help="a folder with one sub-folder of notebooks per student")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default grading/)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a single cell may run (default 600)")
    ap.add_argument("--src", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        book = grade(args.submissions, args.out, src=args.src, timeout=args.timeout)
    except GradingError as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    out = args.out.resolve()
    print(f"[grade] {len(book.students)} students x {len(book.exercises)} exercises in {book.seconds:.0f} s")
    for s in book.students:
        print(f"  {s}: {_points(book.total(s))} / {_points(book.max_total)}")
    for n in book.notes:
        print(f"  note: {n}")
    print(f"[grade] {out / 'gradebook.csv'}, {out / 'feedback.csv'}, {out / 'gradebook.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
