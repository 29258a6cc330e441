"""notebooks/exercises: hints that point without giving the answer, and no answer helper handed out.

The exercises package goes to the students with the student edition. Its modules may hold the
problems (frames, layers, data, constants) and the checkers, nothing that computes an answer; and
a wrong answer's message must not show the value. :func:`exercises.solution` probes every checker
with wrong answers made from the worked solution when the notebooks run; here the probe itself is
tested on fake checkers, one that leaks and one that does not.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))

ex = importlib.import_module("exercises")
probe_mod = importlib.import_module("exercises._probe")

MODULES = sorted(p.stem for p in (NOTEBOOKS / "exercises").glob("nb[0-9][0-9].py"))

#: what a public name of an exercises module may be: problem data and setup, or a checker
ALLOWED = re.compile(
    r"^(check_\d+_\d+"  # the checkers
    r"|(frame|frames|layer|layers|layer\d|frame\d|data|output|box|noisy_code)\w*_\d+_\d+"  # problem data and setup
    r"|sampled_test_8_3"  # the sampled test that exercise 8.3 is about (it accepts or rejects a seed, nothing more)
    r"|[A-Z][A-Z0-9_]*)$"  # constants: COEFFICIENTS_1_1, X_4_2, EPS_3_3, ...
)

#: functions that computed an answer and were handed out before: they are private now
OFFENDERS = {
    "nb02": "nonspanning_direction",
    "nb04": "largest_ball",
    "nb05": "max_constant_bias_ball",
    "nb11": "omni_t_star",
}

#: words in a public function's summary line that would say it solves something
ANSWER_WORDS = re.compile(r"\b(largest|smallest|maximal|minimal|max|min|exact|optimal|solve|solution|answer)\b", re.I)


def _public(module) -> dict:
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return {n: getattr(module, n) for n in names}


# ---------------------------------------------------------------------------------------------
# no answer helper in the handed-out package
# ---------------------------------------------------------------------------------------------


def test_every_module_is_found():
    assert MODULES == [f"nb{k:02d}" for k in range(1, 14)]


@pytest.mark.parametrize("name", MODULES)
def test_public_names_are_problem_data_and_checkers(name):
    module = importlib.import_module(f"exercises.{name}")
    assert set(module.__all__) <= set(vars(module)), f"{name}: __all__ names something the module lacks"
    for public in _public(module):
        assert ALLOWED.match(public), f"exercises.{name}.{public} is neither problem data nor a checker"
    defined_here = [n for n, obj in vars(module).items() if inspect.isfunction(obj) and obj.__module__ == module.__name__]
    for fname in defined_here:  # every public function is exported, and its summary does not promise an answer
        if fname.startswith("_"):
            continue
        assert fname in module.__all__, f"exercises.{name}.{fname} is public but not in __all__: make it private"
        if fname.startswith("check_"):
            continue
        summary = (inspect.getdoc(getattr(module, fname)) or "").split("\n")[0]
        assert not ANSWER_WORDS.search(summary), f"exercises.{name}.{fname} looks like an answer helper: {summary!r}"


@pytest.mark.parametrize(("name", "helper"), sorted(OFFENDERS.items()))
def test_the_known_answer_helpers_are_private(name, helper):
    module = importlib.import_module(f"exercises.{name}")
    assert not hasattr(module, helper), f"exercises.{name}.{helper} is handed out"
    assert helper not in module.__all__
    assert callable(getattr(module, f"_{helper}"))  # still there for the checker


def test_no_non_solution_cell_of_the_chain_calls_a_private_helper():
    """The student edition keeps every cell but the solutions: none of them may reach an answer helper."""
    pattern = re.compile(r"ex\.nb\d\d\._\w+")
    for source in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")):
        cells = re.split(r"^# %%", source.read_text(), flags=re.M)
        for cell in cells:
            header = cell.split("\n", 1)[0]
            if '"solution"' in header:
                continue
            assert not pattern.search(cell), f"{source.name}: a cell that students get calls {pattern.search(cell).group(0)}"


def test_the_package_names_elements_from_one_and_has_no_index_set():
    assert ex.elements([0, 2]) == "{φ_1, φ_3}"
    assert not hasattr(ex, "index_set")
    assert ex.element_numbers([3, 1], 4) == ([0, 2], None)
    idx, problem = ex.element_numbers([0, 2], 4)
    assert idx == [] and "counted from 0?" in problem
    assert ex.element_numbers([5], 4)[1] is not None and "counted from 0" not in ex.element_numbers([5], 4)[1]


def test_no_checker_message_numbers_elements_from_zero():
    """The old spellings of 0-based element numbers are gone from every module."""
    for path in sorted((NOTEBOOKS / "exercises").glob("nb*.py")):
        text = path.read_text()
        for old in ("(from 0)", "index_set", "counted from 1; code counts", "phi_{i}", "phi_{j}"):
            assert old not in text, f"{path.name} still has {old!r}"


# ---------------------------------------------------------------------------------------------
# the probe
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def fake(monkeypatch):
    """An exercise 99.1 whose checker the test supplies (module ``exercises.nb99``)."""
    module = types.ModuleType("exercises.nb99")
    monkeypatch.setitem(sys.modules, "exercises.nb99", module)
    monkeypatch.setattr(ex, "_SOLVED", set(ex._SOLVED))
    return module


def _bias_checker(leaky: bool, truth: float = -0.3420201):
    def check_99_1(answer):
        def verify(r):
            r = float(r)
            if abs(r - truth) <= 1e-3:
                return True, f"alpha_c = {truth:.5f}"
            if r > truth:
                return False, "your bias is too large" + (f": the largest is {truth:.4f}" if leaky else "")
            t = (r + truth) / 2
            return False, "still rectifying for " + (f"the larger bias {t:.5f}" if leaky else "a slightly larger bias")

        return ex.report("99.1", answer, verify)

    return check_99_1


def test_the_probe_passes_a_checker_that_keeps_the_value(fake, capsys):
    fake.check_99_1 = _bias_checker(leaky=False)
    ex.solution("99.1", -0.342)
    assert capsys.readouterr().out == ""  # silent: nbval compares the solution cell's output
    assert "99.1" in ex._SOLVED
    assert probe_mod.probe("99.1", -0.342) == 4


def test_the_probe_catches_a_checker_that_prints_the_value(fake, capsys):
    fake.check_99_1 = _bias_checker(leaky=True)
    with pytest.raises(AssertionError, match=r"exercise 99\.1: the hint .* gives the answer away .*0\.342"):
        ex.solution("99.1", -0.342)
    assert capsys.readouterr().out == ""
    assert "99.1" not in ex._SOLVED


def test_the_probe_catches_a_bound_between_the_answer_and_the_truth(fake):
    def check_99_1(answer):
        def verify(r):
            if abs(float(r) - 0.5) < 1e-3:
                return True, "right"
            return False, f"rectifying at {(float(r) + 0.5) / 2:.4f} too" if float(r) < 0.5 else "too large"

        return ex.report("99.1", answer, verify)

    fake.check_99_1 = check_99_1
    fake._wrong_answers_99_1 = lambda v: [v - 0.004]  # a small step: the midpoint is within 0.4 % of 0.5
    with pytest.raises(AssertionError, match="gives the answer away"):
        ex.solution("99.1", 0.5)


def test_the_probe_catches_a_checker_that_names_the_missing_element(fake):
    right = [2, 5]

    def check(leaky):
        def check_99_1(answer):
            def verify(ans):
                got, problem = ex.element_numbers(ans, 6)
                if problem:
                    return False, problem
                if got == [k - 1 for k in right]:
                    return True, f"redundant: {ex.elements(got)}"
                missing = sorted(set(k - 1 for k in right) - set(got))
                if missing:
                    return False, f"you missed {ex.elements(missing)}" if leaky else "one redundant element is missing"
                return False, f"{ex.elements(sorted(set(got) - {k - 1 for k in right}))} is not redundant"

            return ex.report("99.1", answer, verify)

        return check_99_1

    fake.check_99_1 = check(leaky=False)
    ex.solution("99.1", list(right))
    fake.check_99_1 = check(leaky=True)
    with pytest.raises(AssertionError, match="names the element φ_5"):
        ex.solution("99.1", list(right))


def test_the_probe_rejects_a_checker_that_accepts_a_wrong_number(fake):
    fake.check_99_1 = lambda answer: ex.report("99.1", answer, lambda r: (True, "fine"))
    with pytest.raises(AssertionError, match="judged correct"):
        ex.solution("99.1", 0.25)


def test_a_hook_replaces_the_generic_wrong_answers(fake):
    seen = []

    def check_99_1(answer):
        seen.append(answer)
        return ex.report("99.1", answer, lambda a: (a == "b", "try again"))

    fake.check_99_1 = check_99_1
    fake._wrong_answers_99_1 = lambda value: ["a", "c"]
    assert probe_mod.probe("99.1", "b") == 2 and seen == ["a", "c"]


def test_the_checker_gets_its_context(fake):
    fake.check_99_1 = lambda answer, *, scale: ex.report("99.1", answer, lambda a: (a == 2 * scale, "no"))
    ex.solution("99.1", 6, scale=3)


def test_the_solution_without_a_value_only_marks_the_exercise(fake, capsys):
    ex.solution("99.1")
    assert "99.1" in ex._SOLVED and capsys.readouterr().out == ""


def test_wrong_answers_by_kind():
    nums = [w for w, _ in probe_mod.wrong_answers(-0.342)]
    assert all(abs(w + 0.342) > 1e-3 for w in nums) and len(nums) == 4
    assert [w for w, _ in probe_mod.wrong_answers([2, 5])] == [[2], [1, 2, 5], [1, 4]]
    assert probe_mod.wrong_answers(True) == [(False, True)]
    assert [w for w, _ in probe_mod.wrong_answers(3)] == [4, 2]
    pair = probe_mod.wrong_answers((0.5, np.array([1.0, 2.0])))
    assert len(pair) == 2 and pair[0][0][0] != 0.5 and not np.array_equal(pair[1][0][1], [1.0, 2.0])


@pytest.mark.parametrize(
    ("message", "value", "wrong", "leak"),
    [
        ("the largest bias is -0.342", -0.342, -0.3, True),
        ("the largest bias is -0.34", -0.342, -0.3, True),
        ("the largest bias is -0.34197", -0.342, -0.3, True),  # the exact value behind a rounded answer
        ("at α = -0.344 the layer is not injective", -0.342, -0.344, False),  # the student's own number
        ("at x = (0.5, -0.25) only φ_4 is active", -0.342, -0.3, False),
        ("you gave 3 elements", 0.75, 0.9, False),
        ("entry 2 is off", [2, 5], [5], False),  # "entry 2" is not an element's name
        ("φ_2 is missing", [2, 5], [5], True),
        ("phi_2 is missing", [2, 5], [5], True),
        ("element 2 is missing", [2, 5], [5], True),
        ("φ_25 is not redundant", [2, 5], [5, 25], False),
        ("the first entry 1.234 is off", np.array([1.2341, 0.5]), np.array([1.4, 0.5]), True),
        ("off by 1.2", np.array([1.2341, 0.5]), np.array([1.4, 0.5]), False),  # two digits of an array entry: too common
    ],
)
def test_what_counts_as_a_leak(message, value, wrong, leak):
    assert bool(probe_mod.leaks(message, value, wrong)) is leak


def test_numbers_in_reads_precision():
    got = probe_mod.numbers_in("x = (0.25, -1.5e-3), R^2, φ_3, 12")
    assert [(v, d) for v, d, _ in got] == [(0.25, 2), (-0.0015, 2), (12.0, 2)]


# ---------------------------------------------------------------------------------------------
# hints that gave too much away or said too little (issue 31)
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def quiet():
    """The teacher's checkers, returning their feedback without printing it."""
    ex._QUIET[0] = True
    yield ex
    ex._QUIET[0] = False


def _shown_point(message: str) -> np.ndarray | None:
    if "x = (" not in message:
        return None
    return np.array([float(v) for v in message.split("x = (")[1].split(")")[0].split(",")])


@pytest.mark.parametrize("check", ["teacher", "edition"])
def test_a_bias_too_large_gets_no_point_next_to_where_alpha_c_is_reached(quiet, check):
    """5.1: a too large bias is told so; a point is shown only when many directions fail, and never next to the point
    where alpha_c is reached (the teacher's checker and the edition's self-check, whose too-large path needs no key)."""
    nb05 = importlib.import_module("exercises.nb05")
    selfcheck = importlib.import_module("exercises._selfcheck")
    check_5_1 = nb05.check_5_1 if check == "teacher" else selfcheck.check_5_1
    a_c, x = nb05._max_constant_bias_ball(nb05.frame_5_1())
    fb = check_5_1(round(a_c + 0.002, 3))
    assert not fb.correct and "too large" in fb.message and _shown_point(fb.message) is None, fb.message
    shown = 0
    for step in (0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3):
        fb = check_5_1(round(a_c + step, 3))
        assert not fb.correct and "too large" in fb.message, fb.message
        p = _shown_point(fb.message)
        if p is not None:
            shown += 1
            assert np.linalg.norm(p - x) > 0.1, (step, fb.message)
    assert shown  # far from the answer a point is shown (and the test above has something to look at)


def test_the_bias_convention_hint_says_what_the_rows_are(quiet):
    nb01 = importlib.import_module("exercises.nb01")
    W, b, x = np.asarray(nb01.W_1_2), np.asarray(nb01.B_1_2), np.asarray(nb01.X_1_2)
    rows = (np.flatnonzero(W @ x >= b) + 1).tolist()
    fb = nb01.check_1_2(rows)
    assert not fb.correct and fb.message.startswith("these are the rows with <x, w_i> >= b_i; if you compared with b_i")


def test_wrong_rows_are_not_told_about_the_bias_convention(quiet):
    """1.2: only the rows of the PyTorch reading (<x, w_i> >= b_i) get the words on alpha = -b; any other wrong set of rows
    is told what is wrong with its rows."""
    from itertools import combinations

    nb01 = importlib.import_module("exercises.nb01")
    W, b, x = np.asarray(nb01.W_1_2), np.asarray(nb01.B_1_2), np.asarray(nb01.X_1_2)
    pytorch = (np.flatnonzero(W @ x >= b) + 1).tolist()
    told = 0
    for k in range(len(b) + 1):
        for rows in map(list, combinations(range(1, len(b) + 1), k)):
            fb = nb01.check_1_2(rows)
            if fb.correct or rows == pytorch or "counted from 0" in fb.message:
                continue
            told += 1
            assert not re.search(r"-b|b_i|convention|PyTorch|ReLU\(Wx", fb.message), (rows, fb.message)
    assert told >= 10


def test_a_pair_that_differs_below_the_shown_digits_is_told_the_tolerance(quiet):
    """12.3: outputs that agree to the 4 digits shown but differ get the gap and the tolerance the check applies."""
    import relu_frames_nb as rf

    nb12 = importlib.import_module("exercises.nb12")
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), nb12.OFFSET_12_3)
    x = np.array([0.0, -0.2])
    y = x + 1e-5 * np.asarray(L.frame.vectors[np.argmax(L(x))])  # the largest output moves by 1e-5: the 4 digits agree
    fb = nb12.check_12_3((x, y))
    assert not fb.correct and "(4 digits shown)" in fb.message and "more than the 1e-9 this check allows" in fb.message
    assert "differ by up to 1e-05" in fb.message, fb.message
    assert ex.said(ex.SAME_OUTPUT) == "1e-9"


def test_the_checkers_take_their_tolerances_by_name():
    """No float below 1e-3 in the checkers, the shared helpers or the self-checks outside the block of named tolerances
    at the top of exercises/__init__.py, each with its comment (the leak probe, which reads messages, is no checker)."""
    import ast

    found, named = [], []
    for path in sorted((NOTEBOOKS / "exercises").glob("*.py")):
        if path.name == "_probe.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        block = set()
        if path.name == "__init__.py":  # module-level NAME = <float>: the named tolerances
            for node in tree.body:
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant)):  # fmt: skip
                    block.add(id(node.value))
                    named.append((node.targets[0].id, node.lineno))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and 0 < abs(node.value) < 1e-3:
                if id(node) not in block:
                    found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert not found, found
    lines = (NOTEBOOKS / "exercises" / "__init__.py").read_text(encoding="utf-8").splitlines()
    tolerances = [(n, i) for n, i in named if isinstance(getattr(ex, n), float)]
    assert len(tolerances) >= 20
    for name, lineno in tolerances:  # each with its comment on the line above (or shared with the name above)
        above = lines[lineno - 2]
        assert above.startswith("#:") or re.match(r"^[A-Z_]+ = ", above), name
