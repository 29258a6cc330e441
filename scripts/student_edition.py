"""Write the student edition of the notebook chain: a folder to hand out, with everything a student needs.

Usage (from the repository root; ``bash scripts/student_edition.sh [OUT]`` sets up ``.venv`` and calls this)::

    python scripts/student_edition.py                  # into student-edition/
    python scripts/student_edition.py OUT              # into OUT (emptied first if it is a student edition)
    python scripts/student_edition.py --repository https://github.com/ORG/COURSE   # where it will be published

For every notebook ``notebooks/NN_slug.ipynb`` of the chain the copy

* drops the cells tagged ``solution`` (and with them their outputs and the ``ex.solution(...)``
  marking that makes a checker strict in the teacher's edition);
* keeps the exercise, ``answer`` and ``check`` cells, but clears the stored outputs of the
  ``answer`` and ``check`` cells (the teacher's run printed "correct — ..." there), and gives them
  nbgrader's cell metadata (for a teacher who grades with nbgrader; ``scripts/grade.py`` reads the tags);
* drops the cells tagged ``kit-only`` (how to run the repository's scripts), puts the student's way to
  start in their place in ``00_index``, and says in each "Exercises" introduction how exercises are
  checked, with no mention of worked solutions;
* keeps every other cell and its stored outputs (figures, tables), so the copy reads as before.

The checkers go along, except the checks that compute the answer they compare with, whether with a
private helper or with the library's public calls the notebooks teach (:data:`EDITION_CHECKS`): those,
and the private helpers that compute the answers, are left out, and the edition checks these exercises
with ``exercises/_selfcheck.py`` against an answer key stored as data (``exercises/_keys.json``: salted
hashes of the accepted answers, see that module for what this does and does not hide). Problem data
made from a hidden answer (9.1's output z) is given as numbers in the same file.

The folder is self-contained: ``exercises/`` (the checkers the notebooks import), the library as a
wheel built from this checkout (``wheels/``), ``requirements.txt`` (the wheel with its notebook
extras; also what Binder installs when the folder is published as a repository of its own),
``start.sh`` (a virtual environment, then JupyterLab at the index) and a README. The ``.py`` twins are
not copied: they hold the solutions.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
if str(NOTEBOOKS) not in sys.path:
    sys.path.insert(0, str(NOTEBOOKS))
import exercises as T  # noqa: E402  (the checkers' tolerances, T.ON_BOUNDARY ...: the key accepts what they accept)
from exercises.tags import ANSWER, CHECK, EXERCISE, SOLUTION  # noqa: E402  (notebooks/exercises/tags.py: the cell tags)

DEFAULT_OUT = ROOT / "student-edition"
MARKER = ".student-edition"  # marks a folder this script wrote (only such a folder is emptied)

#: cells whose stored outputs come from the teacher's run of the solution
CLEARED_TAGS = (ANSWER, CHECK)
CHECK_CALL = re.compile(r"check_(\d+)_(\d+)\s*\(")

#: cells about the repository's own scripts (setting up the kit, running its tests): not in the edition
KIT_ONLY = "kit-only"

#: how a student starts, in place of the kit-only cells of 00_index
START = """\
## Starting

This is the student edition of the course: the notebooks, the checkers of their exercises
(`exercises/`) and the library (`wheels/`). See `README.md` in this folder:

* **on your machine** (Linux or macOS, Python >= 3.10): `bash start.sh` in this folder sets up `.venv`
  and opens this notebook in JupyterLab (on Windows: `py -m venv .venv`,
  `.venv\\Scripts\\pip install -r requirements.txt`, `.venv\\Scripts\\jupyter lab 00_index.ipynb`);
* **on Binder**: the link in `README.md`, if your teacher published the folder.

Every notebook runs in under a minute or two at its default size. Each one ends with exercises: write
your answer, run the check below it, and it tells you what is right or wrong with your answer.
"""

#: the introduction of every notebook's exercises, in the edition
EXERCISES_INTRO = """\
## Exercises

Each exercise has a cell for your answer (`answer_N_k = None`: replace `None`) and a check cell below
it. Run the check: it says "not yet answered", or what is wrong with your answer (without giving the
answer away), or what it verified when the answer is right. The checkers are in `exercises/`.
"""

#: a placeholder until the teacher passes --repository
REPOSITORY_PLACEHOLDER = "https://github.com/<owner>/<repo>"

README = """\
# Student edition: injectivity of ReLU layers

The notebooks of the relu_frames_nb course, to work through in order from `00_index.ipynb`, with
their exercises and checkers. Everything needed is in this folder.

## Install and start

On Linux or macOS with Python >= 3.10:

```bash
bash start.sh
```

creates a virtual environment in `.venv` (the first time: about two minutes, from the package
index), installs the library from `wheels/` with JupyterLab, and opens `00_index.ipynb`. By hand, or
on Windows:

```bash
python3 -m venv .venv
.venv/bin/pip install -r requirements.txt      # Windows: .venv\\Scripts\\pip install -r requirements.txt
.venv/bin/jupyter lab 00_index.ipynb           # Windows: .venv\\Scripts\\jupyter lab 00_index.ipynb
```

On Binder (nothing to install): {binder}

## Exercises and how they are checked

Notebooks 01-13 end with exercises. For each one:

1. read the task (`### Exercise N.k`);
2. write your answer in the cell that says `answer_N_k = None`;
3. run the check cell below it. It prints one line: `not yet answered`, `not yet right — ...` with
   what is wrong with your answer (it never prints the answer), or `correct — ...` with what it
   verified.

Elements of a frame are numbered from 1, as in the paper: $\\phi_1, \\dots, \\phi_m$. Keep the
folder `exercises/` next to the notebooks; do not edit the check cells. When you hand in, hand in
the notebooks (`NN_slug.ipynb`) as they are: your teacher re-runs them with the same checkers.
"""

BINDER_TODO = ("your teacher publishes this folder as a GitHub repository and gives you its Binder link "
               "(`https://mybinder.org/v2/gh/<owner>/<repo>/HEAD?urlpath=lab/tree/00_index.ipynb`).")

START_SH = """\
#!/usr/bin/env bash
# Set up .venv (once) and open the course's index in JupyterLab.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/jupyter ]; then
  echo "[start] creating .venv and installing the course (about two minutes, once)"
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
fi
extra=()
[ "$(id -u)" -ne 0 ] || extra+=(--allow-root)
exec .venv/bin/jupyter lab 00_index.ipynb "${extra[@]}" "$@"
"""


def binder_link(repository: str | None) -> str:
    """The README's Binder line for the edition published at ``repository`` (a GitHub URL), or what to do."""
    if not repository:
        return BINDER_TODO
    m = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repository.strip())
    if not m:
        raise SystemExit(f"student_edition: --repository must be https://github.com/OWNER/REPO, got {repository!r}")
    url = f"https://mybinder.org/v2/gh/{m.group(1)}/{m.group(2)}/HEAD?urlpath=lab/tree/00_index.ipynb"
    return f"[![Binder](https://mybinder.org/badge_logo.svg)]({url}) `{url}`"


def tags(cell) -> list[str]:
    """The cell's tags (empty when it has none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def exercise_id(cell) -> str | None:
    """``"5.1"`` for a check cell calling ``check_5_1(...)``, else None."""
    m = CHECK_CALL.search(cell.source)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def exercises_of(nb) -> list[str | None]:
    """The exercise ids of ``nb``'s check cells, in order (None for a check cell that calls no checker)."""
    return [exercise_id(c) for c in nb.cells if CHECK in tags(c)]


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
        exercises = exercises_of(nb)
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


def student_notebook(nb, name: str = ""):
    """The student edition of notebook ``nb`` (named ``name``, e.g. ``"00_index"``); (notebook, solutions removed).

    No ``solution`` or ``kit-only`` cell, the exercises' introduction for students, cleared
    ``answer``/``check`` outputs, nbgrader's metadata on the exercise cells.
    """
    import copy

    from nbformat.v4 import new_markdown_cell

    nb = copy.deepcopy(nb)
    kept, removed, started = [], 0, False
    for cell in nb.cells:
        t = tags(cell)
        if SOLUTION in t:
            removed += 1
            continue
        if KIT_ONLY in t:
            if name == "00_index" and not started:
                kept.append(new_markdown_cell(START))
                started = True
            continue
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## Exercises"):
            cell.source = EXERCISES_INTRO.rstrip("\n")
        if cell.cell_type == "code":
            cell.source = cell.source.replace("notebooks/exercises/", "exercises/")
            if any(tag in t for tag in CLEARED_TAGS):
                cell.outputs = []
                cell.execution_count = None
        kept.append(cell)
    nb.cells = kept
    return add_nbgrader_metadata(nb), removed


#: the checks of the teacher's modules that compute the answer they compare with, the private helpers doing it, and
#: problem data made from a hidden answer: the edition leaves them out and imports the same-named public ones from
#: ``exercises/_selfcheck.py`` (an answer key, and the data as numbers)
EDITION_CHECKS = {
    "nb01": ("check_1_2",),
    "nb03": ("check_3_1", "check_3_3"),
    "nb02": ("check_2_2", "check_2_3", "_outer_radius", "_vertices", "_nonspanning_direction"),
    "nb04": ("check_4_1", "_largest_ball"),
    "nb05": ("check_5_1", "check_5_2", "check_5_3", "_max_constant_bias_ball", "_k_sharp_5_3"),
    "nb06": ("check_6_1", "check_6_2"),
    "nb07": ("check_7_1", "check_7_3"),
    "nb08": ("check_8_1", "check_8_2"),
    "nb09": ("check_9_2", "_measured_rate", "output_9_1", "_X_9_1"),
    "nb10": ("check_10_1", "check_10_3", "_A_alpha", "_A_alpha_grid", "_A_ALPHA"),
    "nb11": ("check_11_1", "check_11_2", "check_11_3", "_omni_t_star"),
    "nb12": ("check_12_1", "check_12_2"),
    "nb13": ("check_13_2", "noisy_code_13_2", "_target_13_2", "_DIGIT_13_2"),
}

#: the answer helpers of the teacher's checkers: none of these names is in the edition
ANSWER_HELPERS = tuple(sorted({n for names in EDITION_CHECKS.values() for n in names if n.startswith("_")}))


def edition_module(source: str, drop: tuple[str, ...]) -> str:
    """The source of a checker module without the top-level definitions named in ``drop``; the checks among them
    are imported from ``_selfcheck`` instead.
    """
    import ast

    lines = source.splitlines(keepends=True)
    cut: list[tuple[int, int]] = []
    found: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names = {node.name}
        else:
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
        if names & set(drop):
            found |= names
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            cut.append((first - 1, node.end_lineno))
    missing = set(drop) - found
    if missing:
        raise SystemExit(f"student_edition: the checker module has no {sorted(missing)}; update EDITION_CHECKS")
    for a, b in sorted(cut, reverse=True):
        del lines[a:b]
    checks = [n for n in drop if not n.startswith("_")]  # the checks, and problem data given as data (output_9_1)
    text = "".join(lines).rstrip("\n") + "\n"
    text = re.sub(r"\n{4,}", "\n\n\n", text)
    return text + ("\n\n# the student edition checks these exercises against an answer key (exercises/_selfcheck.py)\n"
                   f"from ._selfcheck import {', '.join(checks)}  # noqa: E402,F401\n")


def answer_keys(salt: str | None = None) -> dict:
    """The answer key of the edition's self-checks (``exercises/_keys.json``), from the teacher's checkers.

    For each exercise: the salted hashes of the canonical texts of every answer the teacher's checker accepts when
    written as the task asks, and of some known wrong answers with their hints.
    """
    import importlib
    import secrets

    from exercises import _selfcheck as sc

    salt = salt or secrets.token_hex(16)
    nb = {m: importlib.import_module(f"exercises.{m}") for m in EDITION_CHECKS}
    keys: dict[str, dict] = {}

    def put(ex: str, accepted: list[str], wrong: dict[str, str] | None = None) -> None:
        acc = {sc.digest(salt, ex, t) for t in accepted}
        bad = {sc.digest(salt, ex, t): hint for hint, texts in (wrong or {}).items() for t in texts}
        keys[ex] = {"accepted": sorted(acc), "wrong": {h: m for h, m in sorted(bad.items()) if h not in acc}}

    s_star = nb["nb02"]._outer_radius(nb["nb02"].layer_2_2())[0]
    put("2.2", sc.grid_texts(s_star - T.PAST_EXACT, s_star + T.THREE_DECIMALS, decimals=3))
    r_star = nb["nb04"]._largest_ball(nb["nb04"].layer_4_1())[0]
    put("4.1", sc.grid_texts(r_star - T.THREE_DECIMALS, r_star * (1 + T.PAST_EXACT), decimals=3))
    a_c = nb["nb05"]._max_constant_bias_ball(nb["nb05"].frame_5_1())[0]
    put("5.1", sc.grid_texts(a_c - T.THREE_DECIMALS, a_c + T.PAST_EXACT, decimals=3))
    _, active, in_J = nb["nb05"]._k_sharp_5_3()
    exact_n = active.sum(axis=1) == 2
    put("5.3", [sc.elements_text([i for i in range(in_J.shape[1]) if not (in_J[:, i] & exact_n).any()])])
    L = nb["nb10"].layer_10_1()
    A, B = nb["nb10"]._A_alpha(L), L.frame.bounds[1]

    def around(v: float, rtol: float, digits: int) -> list[str]:
        return sc.grid_texts(v - rtol * abs(v), v + rtol * abs(v), digits=digits)

    put("10.3", around(B / A**2, T.THREE_DIGITS_RTOL, 3), {  # the misreadings the teacher's checker names
        "1/A_alpha bounds pairs with a common active set only; across active sets the proof gives B/A_alpha^2":
            around(1 / A, T.THREE_DIGITS_RTOL, 3),
        "almost: the lower frame bound enters squared (Cauchy-Schwarz step of the proof)": around(B / A, T.THREE_DIGITS_RTOL, 3),
        "2m/A_0 is Puthawala et al.'s constant for bias 0 on R^n; here use the bound proved in §1":
            around(2 * L.m / A, T.THREE_DIGITS_RTOL, 3),
    })  # fmt: skip
    t_star = nb["nb11"]._omni_t_star(nb["nb11"].frame_11_2())
    tol = T.CLOSE_ATOL + T.CLOSE_RTOL * abs(t_star)
    put("11.2", sc.grid_texts(t_star - tol, t_star + tol, digits=7))
    _more_keys(nb, put, sc)
    # problem data the edition gives as numbers: 9.1's output z (the module computes it from the hidden input)
    data = {"output_9_1": [float(v) for v in importlib.import_module("exercises.nb09").output_9_1()]}
    data.update(_key_13_2(put, sc))
    return {"salt": salt, "exercises": keys, "data": data}


def _key_13_2(put, sc) -> dict:
    """13.2: the noisy code as data (made on the notebook's layer, rebuilt from its recipe), and the digit's key.

    The key is the digit's 64 pixels as whole grey levels (the data set stores them so), the hint the reading that
    takes every positive entry of the noisy code as active. Returns the edition's data: the code, and the layer's
    fingerprint (its rows times a fixed vector, and its bias) that the edition compares the student's layer with.
    """
    import numpy as np
    from exercises import nb13

    objects = nb13._grading_objects(nb13._reference_arrays())["13.2"]
    L, V = objects["layer"], objects["basis"]
    z = nb13.noisy_code_13_2(L, V)
    x, _ = nb13._target_13_2(V)
    W, alpha = L.frame.vectors, L.alpha
    on = z > 0
    naive = np.linalg.lstsq(W[on], z[on] + alpha[on], rcond=None)[0] @ V.T

    def grey(img):
        return sc.vector_text(np.clip(np.rint(img), 0, 16), 0)

    put("13.2", [grey(x)], {
        "this is the image read with every positive entry of the noisy code as active: some of those entries are "
        "zeros of the clean code with noise on them, and their rows bend the reconstruction. Which entries are "
        "too small to be a real activation, given the noise level NOISE_13_2?": [grey(naive)],
    })  # fmt: skip
    probe = np.random.default_rng(1302).standard_normal(L.n)
    return {"code_13_2": [float(v) for v in z],
            "layer_13_2": {"rows_times_probe": [float(v) for v in W @ probe], "alpha": [float(v) for v in alpha]}}  # fmt: skip


def _accepted(check, candidates: list) -> list:
    """The candidates the teacher's ``check`` calls correct (run silently)."""
    import exercises

    exercises._QUIET[0] = True
    try:
        return [c for c in candidates if check(c).correct]
    finally:
        exercises._QUIET[0] = False


def _more_keys(nb: dict, put, sc) -> None:
    """The keys of the checks whose teacher's version computes its answer with the library's public calls."""
    import importlib
    import itertools
    import json

    import numpy as np

    import relu_frames_nb as rf

    nb01, nb02, nb05, nb07, nb11, nb12 = (importlib.import_module(f"exercises.{m}")
                                          for m in ("nb01", "nb02", "nb05", "nb07", "nb11", "nb12"))  # fmt: skip
    # 1.2: every set of rows is a candidate; the rows of the PyTorch reading (<x, w_i> >= b_i) get their hint
    W, b, x = np.asarray(nb01.W_1_2), np.asarray(nb01.B_1_2), np.asarray(nb01.X_1_2)
    subsets = [list(c) for k in range(len(b) + 1) for c in itertools.combinations(range(1, len(b) + 1), k)]
    right = _accepted(nb01.check_1_2, subsets)
    put("1.2", [sc.elements_text([i - 1 for i in r]) for r in right], {
        "these are the rows with <x, w_i> >= b_i; if you compared with b_i: the paper's bias is alpha = -b "
        "(ReLU(Wx + b) = ReLU(Wx - alpha)), so compare <x, w_i> with -b_i": [sc.elements_text(np.flatnonzero(W @ x >= b))],
    })  # fmt: skip
    # 2.3: the three verdicts; a wrong answer is told how many of them are wrong, not which
    truth = [rf.check(layer, K).status == "injective" for layer, K in nb02.layers_2_3().values()]
    wrong: dict[str, list[str]] = {}
    for guess in itertools.product([False, True], repeat=len(truth)):
        n = sum(g != t for g, t in zip(guess, truth))
        if n:
            hint = (f"{'one' if n == 1 else n} of the three verdicts {'is' if n == 1 else 'are'} not right; for each layer "
                    "rf.check(layer, K) gives the verdict and its reason (.text): read it, and explain it with the "
                    "frame and the bias")  # fmt: skip
            wrong.setdefault(hint, []).append(json.dumps(list(guess)))
    put("2.3", [json.dumps(truth)], wrong)
    # 5.2: every basis of three elements the teacher's check accepts
    triples = [list(c) for c in itertools.combinations(range(1, nb05.frame_5_2().m + 1), 3)]
    put("5.2", [sc.elements_text([i - 1 for i in r]) for r in _accepted(nb05.check_5_2, triples)])
    # 7.1: the completion of App. B, section 2 and its polytope bias on the donut (the misreadings with their hints)
    F71c = rf.complete_omnidirectional(nb07.frame_7_1())
    s, r = nb07.SHELL_7_1
    bias = rf.polytope_bias(F71c, rf.Shell(3, s, r)).values
    a_S = rf.polytope_bias(F71c, rf.Sphere(3)).values
    put("7.1 frame", sc.vector_texts(F71c.vectors[-1], T.VECTOR_ATOL, 6))
    put("7.1", sc.vector_texts(bias, T.VECTOR_ATOL, 6), {
        "this is the printed formula (iii), r^-1 min{s, alpha_S}; see the erratum in section 4":
            sc.vector_texts(np.minimum(s, a_S) / r, T.VECTOR_ATOL, 6),
        "this is the bias on the unit sphere; scale it to the donut (whether r a or s a applies depends on the sign of a)":
            sc.vector_texts(a_S, T.VECTOR_ATOL, 6),
    })  # fmt: skip
    # 7.3: the largest hole radius (7 digits, np.isclose's tolerance); the misreadings at 3 digits
    P = rf.inscribing_polytope(nb07.frame_7_3())
    holes = np.sqrt(2 - 2 * P.offsets)
    rho = float(holes.max())
    tol = T.NUMPY_ATOL + T.CLOSE_RTOL * rho
    put("7.3", sc.grid_texts(rho - tol, rho + tol, digits=7))
    put("7.3 misreadings", [], {
        "that is the smallest hole radius; the covering radius is the largest one": [sc.significant_text(holes.min(), 3)],
        "that is a facet offset b_F; the hole radius of a facet is sqrt(2 - 2 b_F)":
            [sc.significant_text(P.offsets.min(), 3), sc.significant_text(P.offsets.max(), 3)],
        "that is the angular (geodesic) radius of the largest cap; the kit's radius is Euclidean":
            [sc.significant_text(np.arccos(P.offsets.min()), 3)],
    })  # fmt: skip
    # 11.3: formula (i) entry by entry, and Algorithm 2 with its hint
    from relu_frames_nb.paper import reference

    P = rf.inscribing_polytope(nb11.frame_11_3())
    put("11.3", sc.vector_texts(rf.polytope_bias(P, "boundary").values, T.FORMULA_ATOL, 8), {
        "this is Algorithm 2 (minimum over all pairs of each facet); formula (i) takes only the pairs that contain phi_i":
            sc.vector_texts(reference.algorithm_2(P), T.FORMULA_ATOL, 8),
    })  # fmt: skip
    # 12.1: the pentagon's largest bias on the sphere, read to 3 decimals (or given in full, to 6)
    best = float(rf.polytope_bias(rf.zoo.get("pentagon"), rf.Sphere(2)).values.min())
    put("12.1", sc.grid_texts(best - nb12._SLIDER_TOL, best + T.CLOSE_ATOL, decimals=3)
        + sorted({sc.decimals_text(best + d, 6) for d in (-T.CLOSE_ATOL, 0.0, T.CLOSE_ATOL)}))  # fmt: skip
    _counts_and_constants(put, sc)


def _close_texts(v: float, sc, rtol: float = T.CLOSE_RTOL, atol: float = T.NUMPY_ATOL) -> list[str]:
    """The 7-digit texts of the numbers np.isclose calls equal to ``v`` (with its default atol)."""
    tol = atol + rtol * abs(v)
    return sc.grid_texts(v - tol, v + tol, digits=7)


def _counts_and_constants(put, sc) -> None:
    """The keys of 3.1, 3.3, 6.1, 6.2, 8.1, 8.2, 9.2, 10.1, 11.1, 12.2 (the teacher's checks compute them with public calls)."""
    import importlib
    import json
    import math

    import numpy as np

    import relu_frames_nb as rf
    from relu_frames_nb.paper import reference

    nb03, nb06, nb08, nb09, nb10, nb11 = (importlib.import_module(f"exercises.{m}")
                                          for m in ("nb03", "nb06", "nb08", "nb09", "nb10", "nb11"))  # fmt: skip
    # 3.1: each entry alpha_i / |phi_i| (np.allclose with rtol 1e-9, atol 1e-12), at 8 decimals
    F, alpha = nb03.frame_3_1(), np.asarray(nb03.ALPHA_3_1)
    for i, v in enumerate(alpha / F.norms):
        tol = T.RATIO_ATOL + T.RATIO_RTOL * abs(v)
        put(f"3.1 φ_{i + 1}", sorted({sc.decimals_text(v + d, 8) for d in (-tol, 0.0, tol)}))
    put("3.1 multiplied", [], {"multiplied": sc.vector_texts(alpha * F.norms, T.RATIO_RTOL, 8)})
    # 3.3: each entry at least the lemma's bias alpha - eps M (M = 1 on the unit ball), 3 decimals rounded down; a larger
    # bias is held to injectivity by rf.check, which the self-check runs itself
    lemma = -0.5 - nb03.EPS_3_3 * 1.0
    put("3.3", sc.grid_texts(lemma, lemma + 1.0, decimals=3))
    # 6.1: each entry of a proven bias at most TOLERANCE_6_1 below the sampled estimate (3 decimals, rounded down); a
    # proven bias lies below the estimate (a larger one is not injective, which the self-check proves first)
    F = nb06.frame_6_1()
    ref = rf.sampling_bias(F, rf.Ball(2), n_samples=200_000, seed=0, progress=False).values
    for i, v in enumerate(ref):
        put(f"6.1 φ_{i + 1}", sc.grid_texts(math.floor((v - nb06.TOLERANCE_6_1) * 1000) / 1000, v + 0.1, decimals=3))
    # 6.2 and 8.1: Tukey depths
    put("6.2", [str(rf.tukey_depth_origin(nb06.frame_6_2()).depth)])
    F81 = nb08.frame_8_1()
    d81 = rf.zero_bias_injective(F81).depth
    put("8.1", [str(d81)], {
        "too large: some direction u has fewer frame vectors with <u, phi_i> >= 0 than your depth (the depth is the "
        "minimum of that count over all directions u)": [str(d) for d in range(d81 + 1, F81.m + 1)],
        "too small: every direction u has more frame vectors with <u, phi_i> >= 0; count the closed half-space (>= 0, "
        "not > 0) and take the minimum over u": [str(d) for d in range(0, d81)],
    })  # fmt: skip
    # 8.2: the fraction for each m, and the teacher's hint for every other fraction k / TRIALS_8_2
    for m in nb08.M_8_2:
        inj = [bool(rf.zero_bias_injective(nb08.frame_8_2(m, k)).injective) for k in range(nb08.TRIALS_8_2)]
        frac = float(np.mean(inj))
        fracs = [k / nb08.TRIALS_8_2 for k in range(nb08.TRIALS_8_2 + 1)]
        wrong = {}
        if not all(inj):
            wrong[f"too high: e.g. frame k = {inj.index(False)} is not injective (Tukey depth below 3)"] = [
                sc.decimals_text(f, 6) for f in fracs if f > frac]
        wrong[f"too low: e.g. frame k = {inj.index(True) if any(inj) else 0} is injective (Tukey depth at least 3)"] = [
            sc.decimals_text(f, 6) for f in fracs if f < frac]
        put(f"8.2 m={m}", sorted({sc.decimals_text(frac + d, 6) for d in (-T.CLOSE_ATOL, 0.0, T.CLOSE_ATOL)}), wrong)
    # 9.2: 1 - lambda_min(S_x)/B, or the rate measured on the run (rtol 1e-4); two misreadings
    L = nb09.layer_9_1()
    A, B = L.frame.bounds
    act = np.flatnonzero(L(nb09.X_9_2) > 0)
    ev = np.linalg.eigvalsh(L.frame.vectors[act].T @ L.frame.vectors[act])
    measured = nb09._measured_rate(L, nb09.X_9_2, 1 / B)
    put("9.2", _close_texts(float(max(abs(1 - ev[0] / B), abs(1 - ev[-1] / B))), sc)
        + _close_texts(measured, sc, rtol=T.MEASURED_RTOL), {
        "that is the rate for the default step 2/(A+B); here the step is lambda = 1/B": _close_texts(1 - 2 * ev[0] / (A + B), sc),
        "you used the lower bound A of the whole frame; the plain iteration only sees the active sub-frame Phi_{I_x}: use "
        "the smallest eigenvalue of its Gram matrix": _close_texts(1 - A / B, sc),
    })  # fmt: skip
    # 10.1: kappa = 1/A_J and eps, with the misreadings the teacher's check names
    L = nb10.layer_10_1()
    st = rf.local_stability(L, nb10.X0_10_1)
    put("10.1 kappa", _close_texts(st.kappa, sc), {
        "kappa: you used the lower frame bound of the whole frame; use the strictly active sub-frame":
            _close_texts(1 / L.frame.bounds[0], sc),
        "kappa: that is A_J itself; the constant is its inverse 1/A_J": _close_texts(st.lower_frame_bound, sc),
        "kappa: close, but use the strictly active elements <x0, phi_i> > alpha_i only":
            _close_texts(1 / rf.active_bounds(L, nb10.X0_10_1)[0], sc),
    })  # fmt: skip
    put("10.1 eps", _close_texts(st.eps, sc), {
        "eps: that is the distance to the nearest hyperplane of *any* element; only those of J matter":
            _close_texts(st.eps_pattern, sc),
    })  # fmt: skip
    # 11.1: the two counts and the verdict
    L = nb11.layer_11_1()
    modified, bruna = reference.admissible_sets(L)
    inj = all(L.frame.spans(list(J)) for J in modified)
    counts = range(0, 4 * (len(modified) + len(bruna)) + 8)
    put("11.1 admissible", [str(len(modified))], {
        "that number counts Bruna's open cells; the modified condition allows equality on J": [str(len(bruna))],
        "the number of admissible sets (modified) is too large: every admissible J is the active set I_x of some x":
            [str(k) for k in counts if k > len(modified) and k != len(bruna)],
        "the number of admissible sets (modified) is too small: every admissible J is the active set I_x of some x":
            [str(k) for k in counts if k < len(modified) and k != len(bruna)],
    })  # fmt: skip
    put("11.1 open", [str(len(bruna))], {
        f"the number of open cells is too {side}: two of the hyperplanes coincide (<x, e1> = 0 and <x, -e1> = 0), which "
        "removes cells": [str(k) for k in counts if (k > len(bruna)) == (side == "large") and k != len(bruna)]
        for side in ("large", "small")
    })  # fmt: skip
    put("11.1 injective", [json.dumps(inj)], {
        "injectivity: your verdict does not follow from the admissible sets; check for each whether it spans R^2":
            [json.dumps(not inj)],
    })  # fmt: skip
    # 12.2: the cube's vertex bias on the sphere (within 1e-3, 3 decimals) and its facets at a vertex
    cube = rf.zoo.get("cube")
    pbe = float(rf.polytope_bias(cube, rf.Sphere(3)).values[0])
    P = rf.inscribing_polytope(cube)
    put("12.2 bias", sc.grid_texts(pbe - T.TABLE_READING, pbe + T.TABLE_READING, decimals=3),
        {" (check the sign)": sc.grid_texts(-pbe - T.TABLE_READING, -pbe + T.TABLE_READING, decimals=3)})  # fmt: skip
    put("12.2 facets", [str(len(P.facets_of(0)))])


def write_edition_checkers(src_exercises: Path, out_exercises: Path) -> list[str]:
    """Copy the checkers into the edition, each module of :data:`EDITION_CHECKS` without its answer helpers, with
    the answer key; returns the exercises checked by key (none for a chain whose checkers are not the course's: no
    ``_selfcheck.py`` or none of those modules).
    """
    import json

    shutil.copytree(src_exercises, out_exercises, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    present = {m: d for m, d in EDITION_CHECKS.items() if (src_exercises / f"{m}.py").exists()}
    if not present or not (src_exercises / "_selfcheck.py").exists():  # not the course's checkers (a chain of one's own)
        return []
    if set(present) != set(EDITION_CHECKS):
        raise SystemExit(f"student_edition: {src_exercises} has only some of the modules {sorted(EDITION_CHECKS)}")
    for m, drop in present.items():
        path = out_exercises / f"{m}.py"
        path.write_text(edition_module(path.read_text(encoding="utf-8"), drop), encoding="utf-8")
    keys = answer_keys()
    (out_exercises / "_keys.json").write_text(json.dumps(keys, indent=1) + "\n", encoding="utf-8")
    return sorted(keys["exercises"])


def chain(src: Path) -> list[Path]:
    """The notebooks of the chain, ``NN_slug.ipynb``, in order."""
    return sorted(Path(src).glob("[0-9][0-9]_*.ipynb"))


def build_wheel(out: Path) -> Path:
    """The library as a wheel in ``out`` (built from this checkout, no network); returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "--wheel-dir", str(out), str(ROOT)], capture_output=True, text=True)  # fmt: skip
    wheels = sorted(out.glob("relu_frames_nb-*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        raise SystemExit(f"student_edition: building the library's wheel failed:\n{proc.stdout}{proc.stderr}")
    return wheels[0]


def write_student_edition(out: Path, src: Path = NOTEBOOKS, *, repository: str | None = None,
                          wheel: bool = True) -> dict[str, int]:  # fmt: skip
    """Write the student edition of the chain in ``src`` into ``out``; return {notebook: solution cells removed}.

    ``repository``: the GitHub URL the edition will be published at (its README then has the Binder
    link); ``wheel=False`` leaves out ``wheels/`` and ``requirements.txt`` (for tests of the notebooks alone).
    """
    import nbformat

    out, src = Path(out).resolve(), Path(src).resolve()
    if out == src:
        raise SystemExit(f"student_edition: refusing to write into the notebooks folder itself ({out})")
    binder = binder_link(repository)
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
        nb, removed = student_notebook(nbformat.read(path, as_version=4), path.stem)
        nbformat.write(nb, out / path.name)
        report[path.stem] = removed
    exercises = src / "exercises"
    if exercises.is_dir():
        write_edition_checkers(exercises, out / "exercises")
    (out / "README.md").write_text(README.format(binder=binder))
    if wheel:
        whl = build_wheel(out / "wheels")
        (out / "requirements.txt").write_text(
            "# the course's library (built from the kit) with JupyterLab and the notebooks' plotting extras\n"
            f"./wheels/{whl.name}[notebooks]\n"
        )
        (out / "start.sh").write_text(START_SH)
        (out / "start.sh").chmod(0o755)
    return report


def main(argv: list[str] | None = None) -> int:
    """Write the student edition and print what was removed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help="output folder (default student-edition/)")
    ap.add_argument("--repository", help="the GitHub URL the edition will be published at (for its Binder link)")
    ap.add_argument("--no-wheel", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--src", type=Path, default=NOTEBOOKS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    report = write_student_edition(args.out, args.src, repository=args.repository, wheel=not args.no_wheel)
    total = sum(report.values())
    with_ex = [name for name, n in report.items() if n]
    print(f"[student-edition] {len(report)} notebooks in {Path(args.out).resolve()}: {total} solution cells removed"
          f" ({', '.join(with_ex) if with_ex else 'no notebook has solutions'})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
