"""scripts/grade.py: a grade that a submission cannot game.

A small course (one notebook, two exercises, made here) is graded for a class of two honest students,
a student who answered nothing, and one cheater per pattern issue 31 found or asked for. Each cheater
scores 0, and the honest students get what they earned, whoever was graded before them:

* popping NBGRADER_EXECUTION (it switched the checkers off under nbgrader);
* redefining the checkers in an answer cell;
* rewriting the course's ``exercises/__init__.py`` (its own copy, and the teacher's);
* reading the teacher's notebook with the solutions;
* writing a file outside its copy;
* an infinite loop (timed out, and said so);
* a memory hog (stopped by its limit);
* a fork bomb (bounded here: it forks twice the process limit; stopped by the limit when the grader runs as root).

The class is graded once, with bubblewrap when it runs here (CI installs it), and a smaller class
in the plain ``process`` mode.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

import grade  # noqa: E402  (scripts/grade.py)
import student_edition  # noqa: E402

NOTEBOOK = "01_tiny"
TIMEOUT = 5  # seconds per cell: the infinite loop costs this much
MEMORY_MB = 2048

CHECKERS = '''\
"""The teacher's checkers of the tiny course: 1.1 is 42, 1.2 is the elements [1, 3]."""

from . import report


def _the_answer():  # the teacher's helper
    return 42.0


def check_1_1(answer):
    return report("1.1", answer, lambda a: (float(a) == _the_answer(), "the number of the course" if float(a) == 42.0
                                             else "not the number"))


def check_1_2(answer):
    return report("1.2", answer, lambda a: (sorted(a) == [1, 3], "the odd ones" if sorted(a) == [1, 3] else "not those"))
'''


def _course(root: Path) -> Path:
    """The teacher's tree: notebooks/01_tiny.ipynb with worked solutions and notebooks/exercises/."""
    src = root / "notebooks"
    (src / "exercises").mkdir(parents=True)
    for name in ("__init__.py", "tags.py"):
        shutil.copy(ROOT / "notebooks" / "exercises" / name, src / "exercises" / name)
    (src / "exercises" / "nb01.py").write_text(CHECKERS)
    cells = [new_code_cell("import exercises as ex")]
    for k, solution in ((1, "answer_1_1 = 42"), (2, "answer_1_2 = [1, 3]")):
        cells += [
            new_markdown_cell(f"### Exercise 1.{k} — task", metadata={"tags": ["exercise"]}),
            new_code_cell(f"answer_1_{k} = None", metadata={"tags": ["answer"]}),
            new_code_cell(f'{solution}\nex.solution("1.{k}")', metadata={"tags": ["solution"]}),
            new_code_cell(f"ex.nb01.check_1_{k}(answer_1_{k})", metadata={"tags": ["check"]}),
        ]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src / f"{NOTEBOOK}.ipynb")
    return src


def _submission(src: Path, answers: dict[str, str], before: str = ""):
    """The student edition of the tiny notebook with the answer cells written as given, and a cell of code before them."""
    nb, _ = student_edition.student_notebook(nbformat.read(src / f"{NOTEBOOK}.ipynb", as_version=4))
    for cell in nb.cells:
        if "answer" in student_edition.tags(cell):
            k = cell.source.split("=")[0].strip()[-1]
            cell.source = answers.get(f"1.{k}", cell.source)
    if before:
        nb.cells.insert(1, new_code_cell(before))
    return nb


def _class(root: Path, src: Path, outside: Path) -> dict:
    teacher_nb = src / f"{NOTEBOOK}.ipynb"
    fake = ("from .tags import *\\nclass F:\\n  correct = True\\n"
            "def report(*a, **k):\\n  print('correct — tampered')\\n  return F()\\n")
    tamper = (f"import exercises\nfrom pathlib import Path\nfake = \"{fake}\"\n"
              "Path(exercises.__file__).write_text(fake)\n"
              f"try:\n    Path({str(src / 'exercises' / '__init__.py')!r}).write_text(fake)\n"
              "except OSError as e:\n    print(e)\n")
    return {
        "ada": ({"1.1": "answer_1_1 = 42", "1.2": "answer_1_2 = {1, 3}"}, ""),
        "ben": ({"1.1": "answer_1_1 = 41.0", "1.2": "import numpy as np\nanswer_1_2 = np.array([3, 1])"}, ""),
        "envpop": ({}, "import os\nos.environ.pop('NBGRADER_EXECUTION', None)"),
        "patcher": ({"1.1": "answer_1_1 = 0\nex.nb01.check_1_1 = lambda a: ex.Feedback('1.1', 'correct', '')\n"
                            "ex.report = lambda *a, **k: ex.Feedback('1.1', 'correct', '')",
                     "1.2": "answer_1_2 = [2]\nex.nb01.check_1_2 = ex.nb01.check_1_1"}, ""),  # fmt: skip
        "tamper": ({"1.1": "answer_1_1 = 7"}, tamper),
        "reader": ({"1.1": "import json\nteacher = json.load(open(" + repr(str(teacher_nb)) + "))\n"
                           "for c in teacher['cells']:\n"
                           "    if 'solution' in c['metadata'].get('tags', []):\n"
                           "        exec(''.join(c['source']).split('ex.solution')[0])"}, ""),  # fmt: skip
        "writer": ({}, f"from pathlib import Path\nPath({str(outside)!r}).write_text('graded by me')"),
        "looper": ({"1.1": "while True:\n    pass", "1.2": "answer_1_2 = None"}, ""),
        "hog": ({"1.1": "hog = bytearray(16 * 2**30)\nanswer_1_1 = 42"}, ""),
        "forker": ({"1.1": "import os, time\nfor _ in range(2 * grade_max):\n    if os.fork() == 0:\n        time.sleep(5)\n"
                           "        os._exit(0)\nanswer_1_1 = 42"}, f"grade_max = {grade.MAX_PROCESSES}"),  # fmt: skip
        "zed": ({}, ""),  # answered nothing; graded after the tamperer
    }


def _grade_class(tmp: Path, students: list[str] | None, sandbox: str):
    src = _course(tmp)
    outside = tmp / "outside.txt"
    klass = tmp / "class"
    for student, (answers, before) in _class(tmp, src, outside).items():
        if students and student not in students:
            continue
        (klass / student).mkdir(parents=True)
        nbformat.write(_submission(src, answers, before), klass / student / f"{NOTEBOOK}.ipynb")
    init = (src / "exercises" / "__init__.py").read_text()
    book = grade.grade(klass, tmp / "out", src=src, timeout=TIMEOUT, memory_mb=MEMORY_MB, sandbox=sandbox,
                       progress=lambda *_: None)  # fmt: skip
    return book, src, outside, init


def _bwrap_works() -> bool:
    try:
        return grade.sandbox_mode("auto") == "bwrap"
    except grade.GradingError:
        return False


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if not _bwrap_works():
        if os.environ.get("RFNB_REQUIRE_SANDBOX") == "1":
            pytest.fail("bubblewrap does not run here, and RFNB_REQUIRE_SANDBOX=1 (CI) requires it")
        pytest.skip("bubblewrap does not run here (apt-get install bubblewrap); .ci/run installs it")
    tmp = tmp_path_factory.mktemp("sandboxed")
    book, src, outside, init = _grade_class(tmp, None, "auto")
    assert book.sandbox == "bwrap"
    return book, src, outside, init, tmp / "out"


def _scores(book) -> dict[str, list[float]]:
    return {s: [book.results[s][e].points for e in book.exercises] for s in book.students}


def _fb(book, student: str, exercise: str) -> str:
    return book.results[student][exercise].feedback


def test_honest_students_get_what_they_earned_whoever_came_before(graded):
    book = graded[0]
    assert book.exercises == ["1.1", "1.2"]
    scores = _scores(book)
    assert scores["ada"] == [1, 1] and scores["ben"] == [0, 1] and scores["zed"] == [0, 0]
    assert _fb(book, "ada", "1.1") == "Exercise 1.1: correct — the number of the course"
    assert _fb(book, "ben", "1.1") == "Exercise 1.1: not yet right — not the number"
    assert _fb(book, "zed", "1.1").startswith("Exercise 1.1: not yet answered")
    cheaters = set(book.students) - {"ada", "ben", "zed"}
    assert {s for s in cheaters if book.total(s) > 0} == set()


def test_popping_the_autograders_variable_changes_nothing(graded):
    book = graded[0]
    assert book.total("envpop") == 0
    assert _fb(book, "envpop", "1.1").startswith("Exercise 1.1: not yet answered")


def test_redefining_the_checkers_in_an_answer_cell_changes_nothing(graded):
    book = graded[0]
    assert book.total("patcher") == 0
    assert _fb(book, "patcher", "1.1") == "Exercise 1.1: not yet right — not the number"
    assert _fb(book, "patcher", "1.2") == "Exercise 1.2: not yet right — not those"


def test_tampering_with_the_course_files_costs_only_the_tamperer(graded):
    book, src, _, init, _ = graded
    assert book.total("tamper") == 0 and book.total("zed") == 0  # zed, graded next, answered nothing
    assert "tampered" not in _fb(book, "zed", "1.1") and "tampered" not in _fb(book, "tamper", "1.1")
    assert (src / "exercises" / "__init__.py").read_text() == init  # the teacher's checkers are untouched


def test_the_teachers_solutions_cannot_be_read(graded):
    book = graded[0]
    assert book.total("reader") == 0
    assert "your answer cell raised FileNotFoundError" in _fb(book, "reader", "1.1")


def test_nothing_is_written_outside_the_copy(graded):
    book, _, outside, _, out = graded
    assert book.total("writer") == 0 and not outside.exists()
    rows = list(csv.DictReader(open(out / "gradebook.csv", newline="", encoding="utf-8")))
    assert {r["student"]: r["total"] for r in rows}["ada"] == "2"  # only the grader wrote the gradebook


def test_an_infinite_loop_is_timed_out_and_said_so(graded):
    book = graded[0]
    assert book.total("looper") == 0
    assert _fb(book, "looper", "1.1").startswith(f"your answer cell timed out after {TIMEOUT} s; Exercise 1.1: not yet answered")


def test_a_memory_hog_is_stopped_by_its_limit(graded):
    book = graded[0]
    assert book.total("hog") == 0
    fb = _fb(book, "hog", "1.1")
    assert "your answer cell raised MemoryError" in fb and f"memory limit ({MEMORY_MB} MB)" in fb, fb


def test_a_fork_bomb_is_stopped_by_the_process_limit(graded):
    if os.geteuid() != 0:
        pytest.skip("the process limit is set when the grader runs as root (the sandbox then runs as nobody)")
    book = graded[0]
    assert book.total("forker") == 0
    fb = _fb(book, "forker", "1.1")
    assert "your answer cell raised BlockingIOError" in fb and f"process limit ({grade.MAX_PROCESSES}" in fb, fb


def test_the_lms_export_has_points_and_max_points_per_exercise(graded):
    out = graded[4]
    rows = list(csv.DictReader(open(out / "lms.csv", newline="", encoding="utf-8")))
    ada = next(r for r in rows if r["student_id"] == "ada")
    assert ada == {"student_id": "ada", "1.1 points": "1", "1.1 max points": "1", "1.2 points": "1", "1.2 max points": "1",
                   "total points": "2", "total max points": "2"}  # fmt: skip
    assert len(rows) == 11


def test_the_process_mode_grades_outside_the_students_process_too(tmp_path):
    book, *_ = _grade_class(tmp_path, ["ada", "patcher", "looper"], "process")
    assert book.sandbox == "process"
    assert _scores(book) == {"ada": [1, 1], "looper": [0, 0], "patcher": [0, 0]}
    assert _fb(book, "looper", "1.1").startswith(f"your answer cell timed out after {TIMEOUT} s")


def test_the_scorer_reads_answers_as_data_only(tmp_path):
    src = _course(tmp_path)
    got = grade.score_in_clean_process(src, {"answer_1_1": 42, "answer_1_2": {"__unsupported__": "Frame"}}, ["1.1", "1.2"],
                                       timeout=60)  # fmt: skip
    assert got["1.1"][0] is True
    assert got["1.2"] == [False, "Exercise 1.2: not yet right — your answer is a Frame; answers are graded as numbers, "
                                 "strings, lists of them (or NumPy arrays)"]  # fmt: skip
    proc = subprocess.run([sys.executable, str(SCRIPTS / "grade.py"), str(tmp_path), "--sandbox", "nope"],
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
