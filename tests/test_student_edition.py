"""scripts/student_edition.py: the chain without worked solutions, run headlessly as a student gets it.

Every notebook of the chain that has exercise cells is written to the student edition and
executed top to bottom (nbclient, working directory = the student folder, as
scripts/build_notebooks.py runs the chain): it must run without an error, and every check
cell must say "not yet answered" (the answers are still ``None``). A synthetic chain covers the
same path whatever the notebooks hold today.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "student_edition.py"
NOTEBOOKS = ROOT / "notebooks"
NOT_ANSWERED = "not yet answered"


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _chain() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _has_exercises(path: Path) -> bool:
    nb = nbformat.read(path, as_version=4)
    return any({"exercise", "check", "solution"} & set(_tags(c)) for c in nb.cells)


EXERCISE_NOTEBOOKS = [p.stem for p in _chain() if _has_exercises(p)]


def _write(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(out), *extra], capture_output=True, text=True, cwd=ROOT, check=True)


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student") / "student-edition"
    proc = _write(out)
    assert "[student-edition]" in proc.stdout
    return out


def _execute(path: Path, cwd: Path, monkeypatch) -> object:
    monkeypatch.delenv("RELU_FRAMES_FULL", raising=False)  # the default sizes
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend, as in Jupyter
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    client.execute()  # raises CellExecutionError, with the traceback, if a cell fails
    return nb


def _text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(str(out["data"].get("text/plain", "")))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(parts)


def _assert_student_checks(nb, name: str) -> int:
    """Every check cell printed "not yet answered" and nothing failed; returns the number of checks."""
    checks = [c for c in nb.cells if c.cell_type == "code" and "check" in _tags(c)]
    exercises = [c for c in nb.cells if "exercise" in _tags(c)]
    assert checks, f"{name}: exercise cells but no check cell"
    assert len(checks) == len(exercises), f"{name}: {len(exercises)} exercises but {len(checks)} check cells"
    for cell in checks:
        text = _text(cell)
        assert NOT_ANSWERED in text, f"{name}: a check cell did not say {NOT_ANSWERED!r}:\n{cell.source}\n--> {text!r}"
        assert "could not check" not in text and "Error" not in text, f"{name}: {text!r}"
    for cell in nb.cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    return len(checks)


# ---------------------------------------------------------------------------------------------
# the edition of the real chain
# ---------------------------------------------------------------------------------------------


def test_the_edition_has_every_notebook_the_checkers_and_no_solution(edition):
    names = sorted(p.name for p in edition.glob("*.ipynb"))
    assert names == [p.name for p in _chain()]
    assert (edition / "exercises" / "__init__.py").read_text() == (NOTEBOOKS / "exercises" / "__init__.py").read_text()
    assert not list(edition.glob("*.py")), "the py:percent twins hold the solutions: not handed out"
    assert not list((edition / "exercises").rglob("__pycache__"))
    assert "not yet answered" in (edition / "README.md").read_text()
    for path in _chain():
        teacher = nbformat.read(path, as_version=4)
        student = nbformat.read(edition / path.name, as_version=4)
        assert not any("solution" in _tags(c) for c in student.cells)
        assert not any("ex.solution(" in c.source for c in student.cells), path.name
        expected = [c for c in teacher.cells if "solution" not in _tags(c)]
        assert [c.source for c in student.cells] == [c.source for c in expected], path.name
        for t, s in zip(expected, student.cells):
            if s.cell_type != "code":
                continue
            if {"answer", "check"} & set(_tags(s)):
                assert s.outputs == [] and s.execution_count is None  # the teacher's "correct — ..." is gone
            else:
                assert s.outputs == t.outputs  # figures and tables stay as they were


def test_writing_again_replaces_the_edition_but_never_a_foreign_folder(edition, tmp_path):
    (edition / "stale.txt").write_text("x")
    _write(edition)
    assert not (edition / "stale.txt").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("precious")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(foreign)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode != 0 and "not a student edition" in proc.stderr
    assert (foreign / "keep.txt").read_text() == "precious"


if EXERCISE_NOTEBOOKS:
    _PARAMS = EXERCISE_NOTEBOOKS
else:  # said, not silent: the synthetic chain below still covers the path
    _PARAMS = [pytest.param("none", marks=pytest.mark.skip(reason="no notebook of the chain has exercise cells yet"))]


@pytest.mark.parametrize("name", _PARAMS)
def test_student_notebook_runs_and_every_check_says_not_yet_answered(edition, name, monkeypatch):
    nb = _execute(edition / f"{name}.ipynb", edition, monkeypatch)
    _assert_student_checks(nb, name)


# ---------------------------------------------------------------------------------------------
# a synthetic chain: the same path, independent of today's notebooks
# ---------------------------------------------------------------------------------------------

CHECKER = '''\
"""Checkers of the synthetic notebook 01."""

from . import report


def check_1_1(answer):
    return report("1.1", answer, lambda a: (float(a) == -0.5, "the largest bias is -1/2" if float(a) == -0.5 else "too large"))
'''


def test_a_synthetic_chain_loses_its_solutions_and_runs_as_a_student_gets_it(tmp_path, monkeypatch):
    src = tmp_path / "notebooks"
    (src / "exercises").mkdir(parents=True)
    shutil.copy(NOTEBOOKS / "exercises" / "__init__.py", src / "exercises" / "__init__.py")
    (src / "exercises" / "nb01.py").write_text(CHECKER)
    solution = new_code_cell("answer_1_1 = -0.5\nex.solution('1.1')", metadata={"tags": ["solution"]})
    solution.outputs = [new_output("stream", name="stdout", text="worked solution\n")]
    check = new_code_cell("ex.nb01.check_1_1(answer_1_1);", metadata={"tags": ["check"]})
    check.outputs = [new_output("stream", name="stdout", text="Exercise 1.1: correct — the largest bias is -1/2\n")]
    figure = new_code_cell("print('a figure')")
    figure.outputs = [new_output("stream", name="stdout", text="a figure\n")]
    nb = new_notebook(
        cells=[
            new_code_cell("import exercises as ex"),
            figure,
            new_markdown_cell("### Exercise 1.1 — The largest bias\n\nFind it.", metadata={"tags": ["exercise"]}),
            new_code_cell("answer_1_1 = None", metadata={"tags": ["answer"]}),
            solution,
            check,
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src / "01_demo.ipynb")
    out = tmp_path / "handout"
    proc = _write(out, "--src", str(src))
    assert "1 solution cells removed" in proc.stdout and "01_demo" in proc.stdout
    student = nbformat.read(out / "01_demo.ipynb", as_version=4)
    assert [c.source.split("\n")[0] for c in student.cells] == [
        "import exercises as ex",
        "print('a figure')",
        "### Exercise 1.1 — The largest bias",
        "answer_1_1 = None",
        "ex.nb01.check_1_1(answer_1_1);",
    ]
    assert student.cells[1].outputs[0]["text"] == "a figure\n"  # other outputs are kept
    assert student.cells[4].outputs == []  # the teacher's "correct" is not handed out
    assert json.dumps(student).count("worked solution") == 0
    ran = _execute(out / "01_demo.ipynb", out, monkeypatch)
    assert _assert_student_checks(ran, "01_demo") == 1
    # the teacher's edition (with the solution) passes its check; the student's answer is checked when given
    teacher = _execute(src / "01_demo.ipynb", src, monkeypatch)
    assert "correct" in _text(teacher.cells[5]) and NOT_ANSWERED not in _text(teacher.cells[5])
    assert os.path.isdir(out / "exercises")
