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
if str(SCRIPT.parent) not in sys.path:
    sys.path.insert(0, str(SCRIPT.parent))


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


#: words of the teacher's edition a student must not meet: solutions, the repository's scripts and folders
TEACHER_WORDS = ("worked solution", "collapsed", "ex.solution(", "scripts/", "notebooks/exercises", "bash scripts",
                 "repository root", "voila.json")  # fmt: skip


def test_the_edition_has_every_notebook_the_checkers_and_no_solution(edition):
    import student_edition as se

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
        expected = [c for c in teacher.cells if not {"solution", "kit-only"} & set(_tags(c))]
        if any("kit-only" in _tags(c) for c in teacher.cells) and path.stem == "00_index":
            start = next(i for i, c in enumerate(teacher.cells) if "kit-only" in _tags(c))
            assert student.cells[start].source == se.START
            del student.cells[start]
        assert len(student.cells) == len(expected), path.name
        for t, s in zip(expected, student.cells):
            if t.source.lstrip().startswith("## Exercises"):
                assert s.source == se.EXERCISES_INTRO.rstrip("\n")
                continue
            assert s.source == t.source.replace("notebooks/exercises/", "exercises/"), path.name
            if s.cell_type != "code":
                continue
            if {"answer", "check"} & set(_tags(s)):
                assert s.outputs == [] and s.execution_count is None  # the teacher's "correct — ..." is gone
            else:
                assert s.outputs == t.outputs  # figures and tables stay as they were


def test_the_edition_speaks_to_students_only(edition):
    """No teacher text, no solution's source, no path into the repository, in any cell of any notebook."""
    for path in _chain():
        teacher = nbformat.read(path, as_version=4)
        student = nbformat.read(edition / path.name, as_version=4)
        text = "\n".join(c.source for c in student.cells)
        leaks = [w for w in TEACHER_WORDS if w in text]
        assert not leaks, f"{path.name}: teacher text in the student edition: {leaks}"
        for sol in (c for c in teacher.cells if "solution" in _tags(c)):
            lines = [ln.strip() for ln in sol.source.splitlines()]
            distinctive = [ln for ln in lines if len(ln) > 30 and not ln.startswith("#") and ln not in text]
            own = [ln for ln in lines if len(ln) > 30 and not ln.startswith("#")]
            assert len(distinctive) == len(own), f"{path.name}: a solution's line is in the edition"
    readme = (edition / "README.md").read_text()
    assert not [w for w in TEACHER_WORDS if w in readme]


def test_the_edition_is_self_contained(edition, tmp_path):
    readme = (edition / "README.md").read_text()
    for what in ("bash start.sh", "pip install -r requirements.txt", "jupyter lab 00_index.ipynb", "Binder",
                 "numbered from 1", "not yet right"):  # fmt: skip
        assert what in readme, what
    wheels = list((edition / "wheels").glob("relu_frames_nb-*-py3-none-any.whl"))
    assert len(wheels) == 1
    req = [ln for ln in (edition / "requirements.txt").read_text().splitlines() if ln and not ln.startswith("#")]
    assert req == [f"./wheels/{wheels[0].name}[notebooks]"]
    # the wheel holds the library (pure Python: importable from the zip) and nothing of the repository
    import zipfile

    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "relu_frames_nb/__init__.py" in names and "relu_frames_nb/checking.py" in names
    assert not [n for n in names if n.startswith(("notebooks/", "tests/", "scripts/"))]
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import relu_frames_nb as rf; "
             "assert rf.__file__.startswith(sys.argv[1]); print(rf.check(rf.ReLULayer([[1.0], [-1.0]], 0.0), rf.Ball(1)).status)")
    proc = subprocess.run([sys.executable, "-I", "-c", probe, str(wheels[0])], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "injective", proc.stderr
    start = edition / "start.sh"
    assert os.access(start, os.X_OK)
    assert subprocess.run(["bash", "-n", str(start)]).returncode == 0
    assert "requirements.txt" in start.read_text() and "00_index.ipynb" in start.read_text()


#: the teacher's private helpers that compute answers (issue 31 named them): never in the edition
ANSWER_HELPERS = ("_max_constant_bias_ball", "_largest_ball", "_outer_radius", "_A_alpha", "_omni_t_star", "_k_sharp_5_3",
                  "_measured_rate")


def _teacher_values() -> dict[str, object]:
    """The answers the helpers compute, from the teacher's checkers (the values a student must not find)."""
    if str(NOTEBOOKS) not in sys.path:
        sys.path.insert(0, str(NOTEBOOKS))
    from exercises import nb02, nb04, nb05, nb10, nb11

    L = nb10.layer_10_1()
    A = nb10._A_alpha(L)
    _, active, in_J = nb05._k_sharp_5_3()
    exact = active.sum(axis=1) == 2
    return {
        "2.2": nb02._outer_radius(nb02.layer_2_2())[0],
        "4.1": nb04._largest_ball(nb04.layer_4_1())[0],
        "5.1": nb05._max_constant_bias_ball(nb05.frame_5_1())[0],
        "5.3": [i + 1 for i in range(in_J.shape[1]) if not (in_J[:, i] & exact).any()],
        "10.3": L.frame.bounds[1] / A**2,
        "11.2": nb11._omni_t_star(nb11.frame_11_2()),
    }


def _edition_checkers(edition: Path) -> str:
    code = """
import json, sys
sys.path.insert(0, sys.argv[1])
import exercises as ex
print(json.dumps({f"nb{k:02d}": sorted(vars(getattr(ex, f"nb{k:02d}"))) for k in range(1, 14)}))
"""
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(edition)], capture_output=True, text=True, cwd=edition)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_editions_checkers_hold_no_answer_helper_and_no_answer(edition):
    """No helper that computes an answer (by name, in any file or in the imported modules), and no answer value."""
    files = {p: p.read_text(encoding="utf-8") for p in (edition / "exercises").rglob("*") if p.is_file()}
    for name in ANSWER_HELPERS:
        assert not [p.name for p, text in files.items() if name in text], name
    names = json.loads(_edition_checkers(edition))
    assert not [(m, n) for m, ns in names.items() for n in ns if any(n.startswith(h) for h in ANSWER_HELPERS)]
    for m, ns in names.items():  # every exercise keeps its check
        assert sum(n.startswith("check_") for n in ns) >= 2, m
    values = _teacher_values()
    assert round(values["5.1"], 5) == -0.34202  # the value issue 31 found by calling the helper
    everything = "\n".join(files.values()) + "\n".join(
        "\n".join(c.source for c in nbformat.read(p, as_version=4).cells if {"answer", "check"} & set(_tags(c)))
        for p in edition.glob("*.ipynb"))  # fmt: skip
    for ex, v in values.items():
        if isinstance(v, float):
            for text in (f"{v:.4f}", f"{v:.5g}", f"{abs(v):.4f}", repr(v)):
                assert text not in everything, (ex, text)
    assert '"5.3"' in files[edition / "exercises" / "_keys.json"]
    assert "[4]" not in files[edition / "exercises" / "_keys.json"]
    # nor an answer said in words: 2.3's verdicts were a literal success message in the checker's source
    assert not [p.name for p, text in files.items() if "b: not injective" in text]
    # nor an answer as problem data: 9.1's hidden input was a literal beside the output it makes (the edition has z only)
    assert not [p.name for p, text in files.items() if "_X_9_1" in text or "0.7, -1.1, 0.4" in text]


#: the exercises whose teacher's check computes the answer it compares with: checked by key in the edition
COMPUTING = ("1.2", "2.2", "2.3", "3.1", "3.3", "4.1", "5.1", "5.2", "5.3", "6.1", "6.2", "7.1", "7.3", "8.1", "8.2", "9.2",
             "10.1", "10.3", "11.1", "11.2", "11.3", "12.1", "12.2", "13.2")

#: library calls that compute an exercise's answer when a checker makes them (the notebooks teach them)
ANSWER_CALLS = ("polytope_bias", "tukey_depth_origin", "zero_bias_injective", "local_stability", "admissible_sets",
                "algorithm_2", "global_bounds", "inscribing_polytope", "complete_omnidirectional", "most_correlated_basis",
                "sampling_bias", "active_set")  # fmt: skip

#: checks of the edition that still make such a call, and why that is no answer (or that it is still to be done)
STILL_CALLING = {
    "1.3": "active_set at the student's own point, to say which elements are active there",
    "4.3": "active_set at a colliding point of the student's bias",
    "2.2": "self-check: active_set at a sampled point that proves the student's radius too small",
    "4.1": "self-check: active_set at a sampled point that proves the student's radius too large",
    "13.3": "active_set at the student's own image",
    "3.2": "active_set at the student's own point, for the student's own frame",
    "7.2": "polytope_bias: the bias the task starts from (its answer is the raise d, proved by two exact verdicts)",
}  # fmt: skip


def _calls_in_checks(source: str) -> dict[str, set[str]]:
    """``{exercise: names of the functions its check_N_k calls}`` for the checks defined in ``source``."""
    import ast

    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            called = {c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", "")
                      for c in ast.walk(node) if isinstance(c, ast.Call)}  # fmt: skip
            out[node.name[len("check_"):].replace("_", ".")] = called
    return out


def test_no_check_of_the_edition_computes_its_answer(edition):
    """The exercises whose teacher's check computes the answer are checked by key, and no other check of the edition
    calls the library for an answer (the old edition had checks 1.2, 5.2, 7.1, 7.3, 11.3, 12.1 ... that did)."""
    code = """
import json, sys
sys.path.insert(0, sys.argv[1])
import exercises as ex
print(json.dumps({e: getattr(getattr(ex, "nb%02d" % int(e.split(".")[0])), "check_" + e.replace(".", "_")).__module__
                  for e in sys.argv[2:]}))
"""
    proc = subprocess.run([sys.executable, "-I", "-B", "-c", code, str(edition), *COMPUTING], capture_output=True, text=True,
                          cwd=edition)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    own = {e for e, m in json.loads(proc.stdout).items() if m != "exercises._selfcheck"}
    assert not own, f"the edition's checks of {sorted(own)} are the teacher's, which compute the answer"
    calling = {}
    for path in sorted((edition / "exercises").glob("*.py")):
        for e, called in _calls_in_checks(path.read_text(encoding="utf-8")).items():
            if set(ANSWER_CALLS) & called:
                calling[e] = sorted(set(ANSWER_CALLS) & called)
    assert not set(calling) & set(COMPUTING) - {"2.2", "4.1"}, calling
    assert set(calling) <= set(STILL_CALLING), {e: c for e, c in calling.items() if e not in STILL_CALLING}


SELF_CHECKS_OF_PUBLIC_CALLS = """
import json, sys
import numpy as np
import relu_frames_nb as rf
from relu_frames_nb.paper import reference
sys.path.insert(0, sys.argv[1])
import exercises as ex
ex._QUIET[0] = True
F71c = rf.complete_omnidirectional(ex.nb07.frame_7_1())
a_S = rf.polytope_bias(F71c, rf.Sphere(3)).values
P73 = rf.inscribing_polytope(ex.nb07.frame_7_3())
holes = np.sqrt(2 - 2 * P73.offsets)
P113 = rf.inscribing_polytope(ex.nb11.frame_11_3())
a113 = rf.polytope_bias(P113, "boundary").values
cases = [  # (exercise, answer, right)
    ("1.2", [1, 3], True), ("1.2", [3, 4], False), ("1.2", [1], False),
    ("2.3", [True, False, True], True), ("2.3", [True, True, True], False),
    ("5.2", [2, 4, 6], True), ("5.2", [3, 4, 5], False),
    ("7.1", (F71c, rf.polytope_bias(F71c, rf.Shell(3, 0.5, 2.0)).values), True), ("7.1", (F71c, a_S), False),
    ("7.3", float(holes.max()), True), ("7.3", float(holes.min()), False),
    ("11.3", a113, True), ("11.3", a113 + 1e-11, True), ("11.3", reference.algorithm_2(P113), False),
    ("12.1", float(rf.polytope_bias(rf.zoo.get("pentagon"), rf.Sphere(2)).values.min()), True), ("12.1", 0.309, True),
    ("12.1", 0.31, False), ("12.1", 0.2, False),
]
F31 = ex.nb03.frame_3_1()
a31 = np.asarray(ex.nb03.ALPHA_3_1) / F31.norms
d81 = rf.zero_bias_injective(ex.nb08.frame_8_1()).depth
t62 = rf.tukey_depth_origin(ex.nb06.frame_6_2())
L92 = ex.nb09.layer_9_1()
I92 = np.flatnonzero(L92(ex.nb09.X_9_2) > 0)
ev92 = np.linalg.eigvalsh(L92.frame.vectors[I92].T @ L92.frame.vectors[I92])
A92, B92 = L92.frame.bounds
s101 = rf.local_stability(ex.nb10.layer_10_1(), ex.nb10.X0_10_1)
mod, bru = reference.admissible_sets(ex.nb11.layer_11_1())
cases += [
    ("3.1", a31, True), ("3.1", a31 * F31.norms**2, False), ("3.3", -0.55, True), ("3.3", [-0.55, -0.6, -0.55], False),
    ("6.2", (t62.depth, t62.witness), True), ("6.2", (t62.depth + 1, t62.witness), False),
    ("8.1", d81, True), ("8.1", d81 + 1, False),
    ("9.2", 1 - ev92[0] / B92, True), ("9.2", 1 - 2 * ev92[0] / (A92 + B92), False),
    ("10.1", (s101.kappa, s101.eps), True), ("10.1", (s101.lower_frame_bound, s101.eps), False),
    ("11.1", (len(mod), len(bru), False), True), ("11.1", (len(bru), len(bru), False), False),
    ("12.2", (-1 / 3, 3), True), ("12.2", (1 / 3, 3), False),
]
out = []
for e, a, right in cases:
    fb = getattr(getattr(ex, "nb%02d" % int(e.split(".")[0])), "check_" + e.replace(".", "_"))(a)
    out.append([e, right, fb.correct, fb.message])
print(json.dumps(out))
"""


def test_the_self_checks_of_the_public_calls_accept_the_answers_and_name_the_misreadings(edition):
    """1.2, 2.3, 3.1, 3.3, 5.2, 6.2, 7.1, 7.3, 8.1, 9.2, 10.1, 11.1, 11.3, 12.1, 12.2 (the teacher's checks compute the
    answer with the library; 6.1 and 8.2, whose reference costs 200 000 samples or 160 depths, are not run here):
    right answers pass the key, the misreadings the teacher's checks name get the same hint, and no hint shows a value."""
    proc = subprocess.run([sys.executable, "-I", "-B", "-c", SELF_CHECKS_OF_PUBLIC_CALLS, str(edition)],
                          capture_output=True, text=True, cwd=edition)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert [(e, ok) for e, right, ok, _ in got if ok != right] == []
    said: dict[str, str] = {}
    for e, right, _, m in got:  # the first wrong answer's message
        if not right:
            said.setdefault(e, m)
    assert said["1.2"].startswith("these are the rows with <x, w_i> >= b_i")  # the PyTorch reading, from the key
    assert "verdicts is not right" in said["2.3"] and "bias on the unit sphere" in said["7.1"]
    assert "smallest hole radius" in said["7.3"] and "Algorithm 2" in said["11.3"] and "too large" in said["12.1"]
    assert "{φ_2} are lower than needed" in said["3.3"]
    assert "multiplied by the norms" in said["3.1"] and "too large" in said["8.1"] and "default step" in said["9.2"]
    assert "A_J itself" in said["10.1"] and "Bruna's open cells" in said["11.1"] and "check the sign" in said["12.2"]
    assert not [m for e, m in said.items() if "0.309" in m or "1.101" in m], said


def test_the_editions_self_checks_accept_the_answers_and_reveal_none(edition):
    """The answers written as the tasks ask pass the edition's key; wrong ones get a hint without the value."""
    import math

    v = _teacher_values()
    right = {"2.2": math.ceil(v["2.2"] * 1000) / 1000, "4.1": math.floor(v["4.1"] * 1000) / 1000,
             "5.1": math.floor(v["5.1"] * 1000) / 1000, "5.3": v["5.3"], "10.3": v["10.3"], "11.2": v["11.2"]}  # fmt: skip
    wrong = {"2.2": right["2.2"] + 0.01, "4.1": right["4.1"] - 0.01, "5.1": right["5.1"] - 0.01, "5.3": [1, 2],
             "10.3": right["10.3"] * 1.1, "11.2": right["11.2"] * 1.001}  # fmt: skip
    code = """
import json, sys
sys.path.insert(0, sys.argv[1])
import exercises as ex
from exercises import _QUIET
_QUIET[0] = True
out = {}
for which, answers in json.loads(sys.argv[2]).items():
    for e, a in answers.items():
        fb = getattr(getattr(ex, f"nb{int(e.split('.')[0]):02d}"), "check_" + e.replace(".", "_"))(a)
        out[f"{which} {e}"] = [fb.correct, fb.message]
print(json.dumps(out))
"""
    arg = json.dumps({"right": right, "wrong": wrong})
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(edition), arg], capture_output=True, text=True, cwd=edition)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    for e in right:
        assert got[f"right {e}"][0], (e, got[f"right {e}"])
        ok, message = got[f"wrong {e}"]
        assert not ok and "not yet" not in message, (e, message)
        if isinstance(v[e], float):
            assert f"{v[e]:.3f}" not in message and f"{v[e]:.3g}" not in message, (e, message)
    assert "round your" in got["wrong 2.2"][1] or "smaller" in got["wrong 2.2"][1]


SELF_CHECK_13_2 = """
import json, sys
import numpy as np
import relu_frames_nb as rf
sys.path.insert(0, sys.argv[1])
import exercises as ex
ex._QUIET[0] = True
nb13 = ex.nb13
g = nb13._grading_objects(nb13._reference_arrays())["13.2"]
L, V = g["layer"], g["basis"]
z = nb13.noisy_code_13_2(L, V)
right = rf.reconstruct(L, np.where(z > 3 * nb13.NOISE_13_2, z, 0.0)) @ V.T
naive = np.linalg.lstsq(L.frame.vectors[z > 0], (z + L.alpha)[z > 0], rcond=None)[0] @ V.T
off = right.copy()
off[27] += 1.0
out = {name: [fb.correct, fb.message] for name, fb in
       (("right", nb13.check_13_2(right, layer=L, basis=V)), ("naive", nb13.check_13_2(naive, layer=L, basis=V)),
        ("off", nb13.check_13_2(off, layer=L, basis=V)), ("short", nb13.check_13_2(right[:8], layer=L, basis=V)))}
try:
    nb13.noisy_code_13_2(rf.ReLULayer.from_weights(1.01 * L.frame.vectors, -L.alpha))
except ValueError as exc:
    out["another layer"] = str(exc)
out["code"], out["images"] = z.tolist(), {"right": right.tolist(), "naive": naive.tolist()}
out["names"] = sorted(vars(nb13))
print(json.dumps(out))
"""


def test_the_self_check_of_13_2_has_the_code_as_data_and_the_digit_as_a_hash(edition):
    """13.2's teacher's check compares with digit 1500 of the data set, which the edition must not name: the edition gives
    the noisy code as data (made on the notebook's layer, refused for another one) and accepts the digit by its key."""
    if str(NOTEBOOKS) not in sys.path:
        sys.path.insert(0, str(NOTEBOOKS))
    import numpy as np
    from exercises import nb13

    proc = subprocess.run([sys.executable, "-I", "-B", "-c", SELF_CHECK_13_2, str(edition)], capture_output=True, text=True,
                          cwd=edition)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    g = nb13._grading_objects(nb13._reference_arrays())["13.2"]
    np.testing.assert_array_equal(got["code"], nb13.noisy_code_13_2(g["layer"], g["basis"]))  # the teacher's code, exactly
    assert got["right"][0] and not got["naive"][0] and not got["off"][0] and not got["short"][0], got
    assert "every positive entry" in got["naive"][1] and "rounded pixel by pixel" in got["off"][1]
    assert "64 pixels" in got["short"][1] and "another one" in got["another layer"]
    assert not {"_DIGIT_13_2", "_target_13_2"} & set(got["names"])
    text = (edition / "exercises" / "nb13.py").read_text(encoding="utf-8")
    assert "1500" not in text and "_DIGIT_13_2" not in text
    import exercises

    exercises._QUIET[0] = True
    try:  # the teacher's grader judges the two images the same way
        assert nb13.check_13_2(got["images"]["right"], **g).correct and not nb13.check_13_2(got["images"]["naive"], **g).correct
    finally:
        exercises._QUIET[0] = False


def test_the_binder_link_is_written_once_the_repository_is_known(tmp_path):
    out = tmp_path / "published"
    _write(out, "--repository", "https://github.com/ada-lab/relu-course", "--no-wheel")
    readme = (out / "README.md").read_text()
    url = "https://mybinder.org/v2/gh/ada-lab/relu-course/HEAD?urlpath=lab/tree/00_index.ipynb"
    assert url in readme and "<owner>" not in readme
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "x"), "--repository", "gitlab.com/a/b"],
                          capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert proc.returncode != 0 and "must be https://github.com/OWNER/REPO" in proc.stderr


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


# ---------------------------------------------------------------------------------------------
# scripts/lab.sh: two kits, one light set-up
# ---------------------------------------------------------------------------------------------


def _fake_venv(tmp_path: Path, *extras: str) -> Path:
    """A stand-in .venv: its python is the test's, its jupyter says where it was opened; stamps for ``extras``."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv / "bin" / "jupyter").write_text('#!/bin/sh\necho "opened $PWD $*"\n')
    for exe in ("python", "jupyter"):
        (venv / "bin" / exe).chmod(0o755)
    digest = subprocess.run(["sha256sum", str(ROOT / "pyproject.toml")], capture_output=True, text=True).stdout[:16]
    for e in extras:
        (venv / f".installed-{digest}-{e}").touch()
    return venv


def test_setup_accepts_a_venv_that_already_has_more(tmp_path):
    venv = _fake_venv(tmp_path, "notebooks_test")
    env = {**os.environ, "VENV": str(venv), "PIP_NO_INDEX": "1"}
    run = subprocess.run(["bash", str(ROOT / "scripts" / "_setup.sh"), "notebooks"], capture_output=True, text=True, env=env)
    assert run.returncode == 0 and "installing" not in run.stdout, run.stdout + run.stderr
    assert sorted(p.name.rsplit("-", 1)[1] for p in venv.glob(".installed-*")) == ["notebooks_test"]
    # a lighter install does not satisfy a fuller request: test.sh's set-up installs (here a stub python records it)
    stamp = next(venv.glob(".installed-*"))
    stamp.rename(stamp.with_name(stamp.name.replace("notebooks_test", "notebooks")))
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$@" >> "{venv}/pip.log"\n')
    run = subprocess.run(["bash", str(ROOT / "scripts" / "_setup.sh"), "notebooks,test"], capture_output=True, text=True, env=env)
    assert run.returncode == 0 and "installing relu_frames_nb[notebooks,test]" in run.stdout, run.stdout + run.stderr
    assert "install --quiet -e .[notebooks,test]" in (venv / "pip.log").read_text()


def test_lab_opens_the_student_edition_and_the_teachers_notebooks_on_request(tmp_path):
    venv = _fake_venv(tmp_path, "notebooks")
    edition = tmp_path / "kit"
    env = {**os.environ, "VENV": str(venv), "EDITION": str(edition)}
    run = subprocess.run(["bash", str(ROOT / "scripts" / "lab.sh")], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"opened {edition} lab 00_index.ipynb" in run.stdout
    assert (edition / "exercises" / "_keys.json").exists() and not list(edition.glob("*.py"))
    (edition / "mine.txt").write_text("my work")  # opened again: the edition (and the student's work) is kept
    run = subprocess.run(["bash", str(ROOT / "scripts" / "lab.sh")], capture_output=True, text=True, env=env, timeout=300)
    assert "writing the student edition" not in run.stdout and (edition / "mine.txt").exists()
    run = subprocess.run(["bash", str(ROOT / "scripts" / "lab.sh"), "--teacher"], capture_output=True, text=True, env=env)
    assert run.returncode == 0 and f"opened {ROOT / 'notebooks'} lab 00_index.ipynb" in run.stdout, run.stdout + run.stderr


def test_student_edition_sets_up_only_what_the_edition_needs(tmp_path):
    """scripts/student_edition.sh asks for the `notebooks` extra, not the test tools (which pull a deep-learning stack)."""
    venv = _fake_venv(tmp_path, "notebooks")
    log = venv / "calls.log"
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n')  # records what it is asked to run
    env = {**os.environ, "VENV": str(venv), "PIP_NO_INDEX": "1"}
    out = tmp_path / "edition"
    run = subprocess.run(["bash", str(ROOT / "scripts" / "student_edition.sh"), str(out), "--no-wheel"],
                         capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert run.returncode == 0 and "installing" not in run.stdout, run.stdout + run.stderr
    calls = log.read_text().splitlines()
    assert not [c for c in calls if "install" in c], calls
    assert calls[-1] == f"scripts/student_edition.py {out} --no-wheel", calls


def test_the_course_lab_has_no_news_pop_up(tmp_path):
    """scripts/lab.sh puts scripts/lab-config on JUPYTER_CONFIG_PATH, which turns JupyterLab's announcements off."""
    venv = _fake_venv(tmp_path, "notebooks")
    (venv / "bin" / "jupyter").write_text('#!/bin/sh\necho "config path $JUPYTER_CONFIG_PATH"\n')
    env = {**os.environ, "VENV": str(venv), "JUPYTER_CONFIG_PATH": "/somewhere/mine"}
    run = subprocess.run(["bash", str(ROOT / "scripts" / "lab.sh"), "--teacher"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"config path {ROOT / 'scripts' / 'lab-config'}:/somewhere/mine" in run.stdout
    pytest.importorskip("jupyterlab_server")
    read = ("import json; from jupyterlab_server.config import get_static_page_config; "
            "print(json.dumps(get_static_page_config().get('disabledExtensions', {})))")  # fmt: skip
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(ROOT / "scripts" / "lab-config")}
    proc = subprocess.run([sys.executable, "-c", read], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["@jupyterlab/apputils-extension:announcements"] is True


def _extra_requirements(extra: str) -> set[str]:
    """The distributions an extra of pyproject.toml asks for, its self-references followed."""
    import re

    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    found: set[str] = set()
    for req in extras[extra]:
        inner = re.fullmatch(r"relu_frames_nb\[(.+)\]", req)
        if inner:
            for e in inner.group(1).split(","):
                found |= _extra_requirements(e.strip())
        else:
            found.add(re.split(r"[<>=~!\[ ;]", req, maxsplit=1)[0].lower())
    return found


@pytest.mark.parametrize("extra", ["notebooks", "app"])
def test_the_light_extras_pull_no_test_or_deep_learning_tools(extra):
    """lab.sh, student_edition.sh (`notebooks`) and app.sh (`app`) install no torch, data-depth, test or book tools."""
    heavy = {"torch", "onnx", "onnxruntime", "data-depth", "pytest", "nbval", "hypothesis", "playwright", "sphinx", "dask"}
    assert not _extra_requirements(extra) & heavy, _extra_requirements(extra) & heavy
    script = {"notebooks": "lab.sh", "app": "app.sh"}[extra]
    assert f'_setup.sh "{extra}"' in (ROOT / "scripts" / script).read_text()
