"""scripts/grade.py: a class graded in sandboxes, with the teacher's checkers run outside the students' kernels.

A fake class of three works through the student edition of ``01_frames_and_relu_layers`` (the
chain's quickest notebook with exercises): ada solves everything (her answers are the worked
solutions), ben solves the first exercise, gets the second wrong, leaves the third open and
rewrites its check cell to print "correct", cyd's first answer cell crashes.
(The cheating patterns have their own tests: tests/test_grade_sandbox.py.) A fourth folder holds
a file that is not a notebook. The gradebook must say exactly that.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
NOTEBOOK = "01_frames_and_relu_layers"
for p in (SCRIPTS, ROOT / "notebooks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import grade  # noqa: E402  (scripts/grade.py)
import student_edition  # noqa: E402  (scripts/student_edition.py)


def _solutions(teacher) -> dict[str, str]:
    """``{"1.1": source}``: the worked solutions, without the teacher's ``ex.solution(...)`` marking."""
    out = {}
    for c in teacher.cells:
        if "solution" in student_edition.tags(c):
            ex = re.search(r'ex\.solution\("([\d.]+)"', c.source).group(1)
            out[ex] = re.sub(r"ex\.solution\([^\n]*\)\n?", "", c.source)
    return out


def _submission(teacher, answers: dict[str, str], checks: dict[str, str] | None = None):
    """The student edition of ``teacher`` with the answer (and check) cells replaced as given."""
    nb, _ = student_edition.student_notebook(teacher)
    for cell in nb.cells:
        t = student_edition.tags(cell)
        if "answer" in t:
            ex = re.search(r"answer_(\d+)_(\d+)", cell.source)
            cell.source = answers.get(f"{ex.group(1)}.{ex.group(2)}", cell.source)
        elif "check" in t and checks and (ex := student_edition.exercise_id(cell)) in checks:
            cell.source = checks[ex]
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    teacher = nbformat.read(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
    sol = _solutions(teacher)
    assert sorted(sol) == ["1.1", "1.2", "1.3"]
    klass = tmp_path_factory.mktemp("class")
    subs = {
        "ada": _submission(teacher, sol),
        "ben": _submission(teacher, {"1.1": sol["1.1"], "1.2": "answer_1_2 = [1, 2, 3, 4]"},
                           checks={"1.3": 'print("Exercise 1.3: correct")'}),  # fmt: skip
        "cyd": _submission(teacher, {"1.1": 'raise RuntimeError("my cell crashed")', "1.2": sol["1.2"], "1.3": sol["1.3"]}),
    }
    for student, nb in subs.items():
        (klass / student).mkdir()
        nbformat.write(nb, klass / student / f"{NOTEBOOK}.ipynb")
    (klass / "dan").mkdir()
    (klass / "dan" / f"{NOTEBOOK}.ipynb").write_text("{ this is not json")
    (klass / "dan" / "notes.ipynb").write_text("{}")
    out = tmp_path_factory.mktemp("grading") / "out"
    proc = subprocess.run([sys.executable, str(SCRIPTS / "grade.py"), str(klass), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out, proc.stdout


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_the_gradebook_scores_the_class(graded):
    out, stdout = graded
    rows = {r["student"]: r for r in _rows(out / "gradebook.csv")}
    assert list(rows) == ["ada", "ben", "cyd", "dan"]
    scores = {s: [r["1.1"], r["1.2"], r["1.3"], r["total"]] for s, r in rows.items()}
    assert scores == {"ada": ["1", "1", "1", "3"], "ben": ["1", "0", "0", "1"], "cyd": ["0", "1", "1", "2"],
                      "dan": ["0", "0", "0", "0"]}  # fmt: skip
    assert all(r["max"] == "3" for r in rows.values())
    assert "ada: 3 / 3" in stdout and "cyd: 2 / 3" in stdout


def test_the_feedback_is_the_checkers(graded):
    out, stdout = graded
    fb = {(r["student"], r["exercise"]): r["feedback"] for r in _rows(out / "feedback.csv")}
    assert len(fb) == 12
    for ex in ("1.1", "1.2", "1.3"):
        assert fb["ada", ex].startswith(f"Exercise {ex}: correct")
    assert fb["ben", "1.2"].startswith("Exercise 1.2: not yet right — ")
    # ben's own check cell printed "correct": check cells are not run in the sandbox, the teacher's checker ran elsewhere
    assert fb["ben", "1.3"].startswith("Exercise 1.3: not yet answered")
    assert fb["cyd", "1.1"] == ("your answer cell raised RuntimeError: my cell crashed; Exercise 1.1: not yet answered — "
                                "replace None with your answer and run this cell again")
    assert fb["cyd", "1.2"].startswith("Exercise 1.2: correct")
    assert "could not be read as a notebook" in fb["dan", "1.1"]
    assert "dan: notes.ipynb is not a notebook of the chain; not graded" in stdout


def test_the_html_table_has_every_cell_with_its_feedback(graded):
    out, _ = graded
    page = (out / "gradebook.html").read_text(encoding="utf-8")
    assert page.count("<td class='tot'>") == 4  # one row per student
    assert page.count('<td class="ok">') == 3 + 1 + 2 and page.count('<td class="no">') == 2 + 1 + 3
    assert "my cell crashed" in page and "not yet right" in page
    assert "<script" not in page and "http" not in page  # self-contained, no outside request
    assert sorted(p.name for p in out.iterdir()) == [grade.MARKER, "feedback.csv", "gradebook.csv", "gradebook.html", "lms.csv"]


def test_grading_again_replaces_its_own_folder_only(graded, tmp_path):
    out, _ = graded
    assert (out / grade.MARKER).exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep me")
    (tmp_path / "class" / "ada").mkdir(parents=True)
    (tmp_path / "class" / "ada" / f"{NOTEBOOK}.ipynb").write_text("{}")
    with pytest.raises(grade.GradingError, match="not written by scripts/grade.py"):
        grade.grade(tmp_path / "class", foreign, progress=lambda *_: None)
    assert (foreign / "thesis.tex").read_text() == "keep me"


def test_bad_submission_folders_are_clear_errors(tmp_path):
    run = [sys.executable, str(SCRIPTS / "grade.py")]
    proc = subprocess.run([*run, str(tmp_path / "nowhere")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "is not a folder of submissions" in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = subprocess.run([*run, str(tmp_path / "empty")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "no submission in" in proc.stderr
    (tmp_path / "odd" / "bad name!").mkdir(parents=True)
    (tmp_path / "odd" / "bad name!" / f"{NOTEBOOK}.ipynb").write_text("{}")
    (tmp_path / "odd" / "eve").mkdir()
    (tmp_path / "odd" / "eve" / f"{NOTEBOOK}.ipynb").write_text("{}")
    subs, notes = grade.read_submissions(tmp_path / "odd", {NOTEBOOK: Path("x")})
    assert list(subs) == ["eve"] and "a student id is letters" in notes[0]


def test_the_checkers_raise_only_under_the_autograder(monkeypatch, capsys):
    import exercises

    def verify(ans):
        return ans == 1, "one is right" if ans == 1 else "one is right, not this"

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert not exercises.report("9.9", 2, verify).correct  # the student edition only prints
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(exercises.NotYetRight, match="not yet right — one is right, not this"):
        exercises.report("9.9", 2, verify)
    with pytest.raises(exercises.NotYetRight, match="not yet answered"):
        exercises.report("9.9", None, verify)
    assert exercises.report("9.9", 1, verify).correct
    assert "Exercise 9.9: correct" in capsys.readouterr().out


def test_nbgrader_metadata_follows_the_tags_not_the_students_text():
    MetadataValidator = pytest.importorskip("nbgrader.nbgraderformat").MetadataValidator

    teacher = nbformat.read(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
    nb, _ = student_edition.student_notebook(teacher)
    MetadataValidator().validate_nb(nb)  # raises on metadata nbgrader would refuse
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert ids == [f"{kind}_1_{k}" for k in (1, 2, 3) for kind in ("exercise", "answer", "check")]
    checks = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [c.metadata["nbgrader"]["points"] for c in checks] == [1, 1, 1]
    for cell in nb.cells:  # the student rewrites every answer: the ids stay
        if "answer" in student_edition.tags(cell):
            cell.source = "x = 1"
            del cell.metadata["nbgrader"]
    again = [c.metadata["nbgrader"]["grade_id"] for c in student_edition.add_nbgrader_metadata(nb).cells
             if "nbgrader" in c.metadata]  # fmt: skip
    assert again == ids
    checks[0].source = "print('no checker here')"
    with pytest.raises(ValueError, match="does not call a checker"):
        student_edition.add_nbgrader_metadata(nb)


def test_a_submission_whose_run_fails_costs_only_itself(tmp_path, monkeypatch):
    teacher = nbformat.read(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
    sol = _solutions(teacher)
    klass = tmp_path / "class"
    for student in ("ada", "eve"):
        (klass / student).mkdir(parents=True)
        nbformat.write(_submission(teacher, sol), klass / student / f"{NOTEBOOK}.ipynb")
    real = grade.run_submission

    def flaky(nb, box, *args, **kwargs):
        if box.name.startswith("eve-"):
            return grade.Run(died="DeadKernelError: Kernel died")
        return real(nb, box, *args, **kwargs)

    monkeypatch.setattr(grade, "run_submission", flaky)
    book = grade.grade(klass, tmp_path / "out", progress=lambda *_: None)
    assert book.total("ada") == 3 and book.total("eve") == 0
    assert all(r.feedback.startswith("the run stopped: DeadKernelError: Kernel died; Exercise ")
               for r in book.results["eve"].values())  # fmt: skip


def test_the_cell_timeout_is_the_teachers_else_the_notebooks_own_need():
    # notebook 13 trains networks: its honest cells ran past 60 s at load 5-6 and were interrupted
    assert grade.cell_timeout("13_real_network", None) == 180
    assert grade.cell_timeout("01_frames_and_relu_layers", None) == grade.DEFAULT_CELL_TIMEOUT == 60
    assert grade.cell_timeout("13_real_network", 30) == 30  # the teacher's --timeout wins
    assert grade.cell_timeout("05_maximal_bias", 90) == 90
