"""Exercise checkers for the notebook chain (course material, not the library's API).

Every notebook 01-13 ends with exercises. Each exercise is four cells told apart by their
tags, whose names are spelled once, in :mod:`exercises.tags` (which also says what each cell
holds): the task, the student's ``answer_N_k = None``, the worked solution ending with
``ex.solution("N.k", answer_N_k)``, and the check ``ex.nbNN.check_N_k(answer_N_k)`` that prints feedback.

A checker says "not yet answered" for ``None``, explains what is wrong otherwise (e.g.
"your bias is too large: the layer is not injective at x = ..."), and says what was
verified when the answer is right. In the teacher's edition (the solution ran, so
:func:`solution` marked the exercise) a wrong answer raises, so a broken solution fails
the notebook's tests; in the student edition it only prints. Under nbgrader's autograder
(``NBGRADER_EXECUTION=autograde``, for a teacher who grades with nbgrader) a check that is not passed
raises :class:`NotYetRight`, so nbgrader scores the test cell 0, and 1 when the answer is right.
``scripts/grade.py`` does not rely on this: it takes the answers out of each student's sandbox as data
and runs the checkers on them in a process of its own.

Every tolerance of the checkers is named once, in the block below (``ON_BOUNDARY``, ``SAME_OUTPUT``, ...), with
what it is for; the checkers, the self-checks and ``scripts/student_edition.py``'s answer key take them from here.

Per-notebook checkers live in the modules ``nb01`` ... ``nb13`` of this package; they use
:func:`report` so that every message has the same shape. Frame elements are numbered from 1 in
every task and message, as in the text (:func:`elements` names them: ``{φ_1, φ_3}``).

The package is handed out with the student edition, without the checks that compute their answer and
the private helpers (``_name``) that do: ``scripts/student_edition.py`` puts the self-checks of
:mod:`exercises._selfcheck` (an answer key of salted hashes) in their place. A hint says what is wrong
and where to look, not the value: :func:`solution`, given the worked solution's value, runs the
checker on a few wrong answers made from it and raises if a message gives the value away
(:mod:`exercises._probe`).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Feedback", "NotYetRight", "report", "solution", "NOT_ANSWERED", "close", "vec", "elements", "element_numbers",
           "pair_problem"]

# ---------------------------------------------------------------------------------------------
# the checkers' tolerances, by name (every checker, the self-checks and the answer key's builder use these;
# values as the checkers have always used them)
# ---------------------------------------------------------------------------------------------

#: a point on the boundary of a domain counts as inside up to this (a ball's radius + ON_BOUNDARY, ``K.contains``)
ON_BOUNDARY = 1e-9
#: a line <x, phi_i> = alpha_i passes through a point up to this (relative to the size of the bias and the point)
ON_LINE = 1e-9
#: two points (or a point and the origin) closer than this are one point: a colliding pair needs two
SAME_POINT = 1e-9
#: two points of exercise 12.3 (often read off the explorer) closer than this are one point
SAME_POINT_EXPLORER = 1e-6
#: two outputs agree up to this (relative to max(1, |L(x)|) for a pair; in 12.3 absolute, element by element)
SAME_OUTPUT = 1e-9
#: below this a number is zero: a direction's norm, a determinant, the gap between two computed coefficients
ZERO = 1e-12
#: an answer asked to 3 decimals may lie this far on the safe side of the exact value (rounded up or down)
THREE_DECIMALS = 1e-3
#: how far past the exact value (computed in floating point) an answer asked to 3 decimals may lie
PAST_EXACT = 1e-6
#: a number found another way (another solver, a formula by hand) agrees up to CLOSE_RTOL |v| + CLOSE_ATOL
CLOSE_RTOL = 1e-6
#: the absolute part of that agreement (and how far above the exact bias 12.1's answer may lie)
CLOSE_ATOL = 1e-9
#: numpy's own absolute tolerance of ``np.isclose``, which the checks that give it only rtol (7.3, 9.2, 10.1) keep
NUMPY_ATOL = 1e-8
#: a vector computed as the worked solution does (the same call or formula) agrees up to this, entry by entry
VECTOR_ATOL = 1e-8
#: exercise 11.3: formula (i) by hand against the library, entry by entry
FORMULA_ATOL = 1e-10
#: exercise 3.1: alpha_i / |phi_i| by hand, relative and absolute tolerance
RATIO_RTOL = 1e-9
RATIO_ATOL = 1e-12
#: a known misreading (the smallest hole radius, a facet offset, ...) is recognised within this relative distance
MISREADING_RTOL = 1e-3
#: exercise 9.2: the rate measured on the run stands for the prediction up to this (relative)
MEASURED_RTOL = 1e-4
#: exercise 10.3 asks for three digits: within 1 %
THREE_DIGITS_RTOL = 1e-2
#: exercise 9.2: errors below this fraction of |x| are rounding noise, left out of the measured rate
ROUNDING_NOISE = 1e-13
#: exercise 11.2: an answer this close to 0 is read as the misreading t = 0
ZERO_ANSWER = 1e-6
#: exercise 12.2: a bias read off the explorer's table is right within this
TABLE_READING = 1e-3
#: a number is on the grid of 3 decimals (or a grid step is found) up to this
GRID = 1e-9
#: exercise 13.2 in the student edition: the layer the stored code was made on is the student's ``L_span`` when their
#: fingerprints agree within this (relative; training on another BLAS may change the last digits, which moves the
#: reconstruction by far less than a grey level)
SAME_LAYER_RTOL = 1e-4


def said(tol: float) -> str:
    """A tolerance as a message writes it: ``1e-9``, not Python's ``1e-09``."""
    return f"{tol:.0e}".replace("e-0", "e-").replace("e+0", "e+")


#: the text a checker prints for an answer left as ``None``
NOT_ANSWERED = "not yet answered"

_SOLVED: set[str] = set()

#: set while :func:`solution` probes a checker: :func:`report` then neither prints nor raises
_QUIET: list[bool] = [False]

_NO_VALUE = object()


class NotYetRight(AssertionError):
    """Raised by a check under nbgrader's autograder when the answer is missing or not right."""


@dataclass(frozen=True)
class Feedback:
    """What a checker found: ``status`` is ``"not yet answered"``, ``"correct"`` or ``"not yet right"``."""

    exercise: str
    status: str
    message: str

    @property
    def correct(self) -> bool:
        """True when the answer passed every check."""
        return self.status == "correct"

    def __str__(self) -> str:
        return f"Exercise {self.exercise}: {self.status}" + (f" — {self.message}" if self.message else "")

    def _ipython_display_(self) -> None:  # the checker already printed the line: show it once
        pass


def solution(exercise: str, value: Any = _NO_VALUE, **context: Any) -> None:
    """Mark ``exercise`` as solved by the worked solution (teacher's edition): its checker must then pass.

    With the solution's ``value`` the checker is first probed, silently, with a few wrong answers
    made from it (``context``: the keyword arguments the checker takes besides the answer); an
    AssertionError names the exercise and the message when a hint gives the value away.
    """
    exercise = str(exercise)
    _SOLVED.discard(exercise)  # a wrong answer must not raise while probing
    if value is not _NO_VALUE:
        from ._probe import probe

        probe(exercise, value, **context)
    _SOLVED.add(exercise)


def report(exercise: str, answer: Any, verify: Callable[[Any], tuple[bool, str]]) -> Feedback:
    """Run ``verify(answer) -> (ok, message)`` and print one line of feedback.

    ``None`` gives "not yet answered"; an exception raised while checking is reported as
    feedback ("could not check your answer: ..."), never as a crash in the student edition.
    """
    if answer is None:
        fb = Feedback(exercise, NOT_ANSWERED, "replace None with your answer and run this cell again")
    else:
        try:
            ok, message = verify(answer)
        except Exception as exc:  # the student's answer may be of any shape
            ok, message = False, f"could not check your answer ({type(exc).__name__}: {exc})"
        fb = Feedback(exercise, "correct" if ok else "not yet right", message)
    if _QUIET[0]:  # the leak probe reads the feedback; nothing is shown
        return fb
    print(fb)
    if exercise in _SOLVED and not fb.correct:
        raise AssertionError(f"the worked solution of exercise {exercise} does not pass its check: {fb.message}")
    if os.environ.get("NBGRADER_EXECUTION") == "autograde" and not fb.correct:
        raise NotYetRight(str(fb))  # nbgrader scores a test cell by whether it raised
    return fb


def close(a: float, b: float, *, rtol: float = CLOSE_RTOL, atol: float = CLOSE_ATOL) -> bool:
    """``|a - b| <= atol + rtol |b|`` for numbers."""
    return abs(float(a) - float(b)) <= atol + rtol * abs(float(b))


def vec(v: Any) -> str:
    """A vector for feedback lines, 4 significant digits."""
    import numpy as np

    return "(" + ", ".join(f"{float(c):.4g}" for c in np.ravel(v)) + ")"


def elements(ix: Any) -> str:
    """Frame elements for feedback lines, numbered from 1 as in the text: code indices ``[0, 2]`` give ``{φ_1, φ_3}``."""
    return "{" + ", ".join(f"φ_{int(i) + 1}" for i in ix) + "}"


def element_numbers(ans: Any, m: int) -> tuple[list[int], str | None]:
    """A student's element numbers (counted from 1, as in the text) as sorted 0-based code indices.

    Returns ``(indices, problem)``; ``problem`` is a message when a number is not one of 1 ... m
    (with a word about counting from 0 when the answer holds a 0), else None.
    """
    import numpy as np

    raw = np.atleast_1d(np.asarray(list(ans) if isinstance(ans, (set, frozenset)) else ans)).ravel()
    if raw.size and (raw.dtype == bool or not np.all(np.equal(np.mod(raw.astype(float), 1), 0))):
        return [], f"give element numbers (whole numbers 1 ... {m}); got {ans!r}"
    nums = sorted({int(k) for k in raw})
    if any(k < 1 or k > m for k in nums):
        zero = " (counted from 0? the exercises number the elements from 1, like the text)" if 0 in nums else ""
        return [], f"the elements are numbered 1 ... {m}; got {nums}{zero}"
    return [k - 1 for k in nums], None


def pair_problem(ans: Any, L: Any, K: Any) -> tuple[str | None, tuple]:
    """What is wrong with ``ans`` as a colliding pair of ``L`` in ``K`` (None if nothing), and ``(x, y, L(x))``.

    Checks, in this order, with messages for a student: two points of the right dimension, both
    in ``K``, distinct, with the same output.
    """
    import numpy as np

    x, y = (np.asarray(v, dtype=float) for v in ans)
    n = K.n
    if x.shape != (n,) or y.shape != (n,):
        return f"give two points of R^{n}; got shapes {x.shape} and {y.shape}", (x, y, None)
    for name, v in (("x", x), ("y", y)):
        if not K.contains(v, tol=ON_BOUNDARY):
            return f"{name} = {vec(v)} is outside {K.describe()} (norm {np.linalg.norm(v):.6g})", (x, y, None)
    if np.linalg.norm(x - y) <= SAME_POINT:
        return "x and y are the same point; a collision needs two different inputs", (x, y, None)
    Lx, Ly = L(x), L(y)
    diff = float(np.max(np.abs(Lx - Ly)))
    if diff > SAME_OUTPUT * max(1.0, float(np.max(np.abs(Lx)))):
        return (f"these two points do not collide: the outputs {vec(Lx)} and {vec(Ly)} differ by up to {diff:.3g}",
                (x, y, Lx))  # fmt: skip
    return None, (x, y, Lx)


def __getattr__(name: str) -> Any:  # ex.nb03 imports exercises/nb03.py on first use
    if name.startswith("nb") and name[2:].isdigit():
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
