"""The leak probe: a hint must say what is wrong, never what is right.

:func:`exercises.solution` calls :func:`probe` with the worked solution's value. The probe makes a
few wrong answers from that value (:func:`wrong_answers`, or the checker module's own list when it
defines ``_wrong_answers_N_k(value)``), runs the checker on each without printing anything, and
asserts that

* the checker does not call it correct (scalars, counts and the hook's answers: the generic
  perturbations of a point or a set may well be another right answer, and are then skipped);
* no message shows the value (:func:`leaks`): a number of the value printed to 2-6 significant
  digits (3-6 for the entries of an array), or, for a single number, a bound within half a percent
  of it, unless the same number is the student's own;
  an element (``φ_k``, ``phi_k``, ``element k``) that belongs to the value but not to the wrong
  answer.

It raises AssertionError naming the exercise, the wrong answer and the message.
"""

from __future__ import annotations

import importlib
import re
import time
from typing import Any, Iterator

import numpy as np

__all__ = ["probe", "wrong_answers", "leaks", "numbers_in"]

#: at most this many wrong answers per exercise (some checkers run an exact verdict)
MAX_WRONG = 4

#: seconds each probe took, by exercise, and the messages it read (for a reviewer; never printed)
TIMES: dict[str, float] = {}
MESSAGES: dict[str, list[tuple[Any, str, str]]] = {}

_NUMBER = re.compile(r"(?<![\w.^])[-+]?(\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def _checker(exercise: str):
    notebook, k = exercise.split(".")
    module = importlib.import_module(f"{__package__}.nb{int(notebook):02d}")
    return module, getattr(module, f"check_{notebook}_{k}")


# ---------------------------------------------------------------------------------------------
# wrong answers made from a right one
# ---------------------------------------------------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_float(v: Any) -> bool:
    return isinstance(v, (float, np.floating))


def _is_elements(v: Any) -> bool:
    """A list or set of element numbers (counted from 1): whole numbers, not booleans."""
    return isinstance(v, (list, set, frozenset)) and len(v) > 0 and all(_is_int(k) and k >= 1 for k in v)


def wrong_answers(value: Any) -> list[tuple[Any, bool]]:
    """Wrong answers made from ``value``, each with whether the checker must reject it.

    Numbers: 12 % off either way and a small step (2 % + 0.003) beyond a rounding tolerance;
    whole numbers: one more and one less; booleans: the other one; element numbers: one dropped,
    one added, all shifted to counting from 0; arrays: a scaled copy and one entry moved; a pair
    or tuple: one part replaced by its own first wrong answer.
    """
    if isinstance(value, (bool, np.bool_)):
        return [(not bool(value), True)]
    if _is_int(value):
        return [(int(value) + 1, True), (int(value) - 1, True)]
    if _is_float(value):
        v = float(value)
        step = 0.02 * abs(v) + 0.003
        return [(v * 0.88, True), (v * 1.12, True), (v - step, True), (v + step, True)] if v else [(0.05, True), (-0.05, True)]
    if _is_elements(value):
        nums = sorted(int(k) for k in value)
        extra = next(k for k in range(1, max(nums) + 2) if k not in nums)
        out = [(nums[:-1], True), (sorted(nums + [extra]), True)]
        out.append(([k - 1 for k in nums], False))  # read from 0: may be another right answer
        return out
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
        moved = value.copy().ravel()
        moved[0] += 0.1 * (abs(moved[0]) + 0.1)
        return [(value * 1.1, False), (moved.reshape(value.shape), False)]
    if isinstance(value, dict):
        out = []
        for key, v in value.items():
            for w, must in wrong_answers(v)[:1]:
                out.append(({**value, key: w}, must))
        return out
    if isinstance(value, (tuple, list)):
        out = []
        for i, part in enumerate(value):
            for w, must in wrong_answers(part)[:1]:
                new = list(value)
                new[i] = w
                out.append((type(value)(new) if isinstance(value, tuple) else new, must))
        return out
    return []  # a frame, a string: only the hook knows a wrong one


# ---------------------------------------------------------------------------------------------
# what a message must not contain
# ---------------------------------------------------------------------------------------------


def _leaves(value: Any) -> Iterator[tuple[float, bool]]:
    """The numbers in ``value`` with whether each is a scalar answer (not an entry of an array)."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return
    if isinstance(value, (int, float, np.integer, np.floating)):
        yield float(value), True
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "fiu":
            for v in value.ravel()[:200]:
                yield float(v), False
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for v in value:
            yield from _leaves(v)
    # anything else (a frame, a layer) is given data or built from it, not a number to hide


def numbers_in(message: str) -> list[tuple[float, int, float]]:
    """The numbers printed in ``message``: ``(value, significant digits, unit of the last digit)``."""
    out = []
    for m in _NUMBER.finditer(message):
        text = m.group(0)
        mantissa, _, exp = text.lower().partition("e")
        digits = mantissa.lstrip("+-").replace(".", "").lstrip("0")
        decimals = len(mantissa.partition(".")[2])
        unit = 10.0 ** (-decimals + (int(exp) if exp else 0))
        try:
            out.append((float(text), len(digits), unit))
        except ValueError:
            continue
    return out


def _shows(token: tuple[float, int, float], v: float, scalar: bool) -> bool:
    """Whether a printed number is ``v`` (up to its printed precision, or within half a percent: a bound)."""
    t, digits, unit = token
    if float(v).is_integer() or v == 0 or digits < (2 if scalar else 3):
        return False
    gap = abs(abs(t) - abs(v))
    return gap <= unit / 2 * (1 + 1e-9) or (scalar and digits >= 3 and gap <= 5e-3 * abs(v))


def _element_names(k: int) -> re.Pattern:
    return re.compile(rf"(φ_?\{{?|phi_\{{?|\belements? |\brows? ){k}(?![\d.])")


def leaks(message: str, value: Any, wrong: Any) -> list[str]:
    """What of ``value`` the message for the wrong answer ``wrong`` shows (empty: nothing)."""
    found = []
    own = [t for t, _ in _leaves(wrong)]
    for token in numbers_in(message):
        t, _, unit = token
        if any(abs(abs(t) - abs(w)) <= unit / 2 * (1 + 1e-9) for w in own):
            continue  # the student's own number
        for v, scalar in _leaves(value):
            if _shows(token, v, scalar):
                found.append(f"the number {t:g} shows the value {v:.6g}")
                break
    if _is_elements(value):
        had = {int(k) for k in wrong if _is_int(k)} if isinstance(wrong, (list, set, frozenset, tuple)) else set()
        for k in sorted({int(k) for k in value} - had):
            if _element_names(k).search(message):
                found.append(f"it names the element φ_{k} that the answer lacks")
    return found


# ---------------------------------------------------------------------------------------------
# the probe
# ---------------------------------------------------------------------------------------------


def _silently(check, answer: Any, context: dict):
    from . import _QUIET

    _QUIET[0] = True
    try:
        return check(answer, **context)
    finally:
        _QUIET[0] = False


def probe(exercise: str, value: Any, **context: Any) -> int:
    """Run the checker of ``exercise`` on wrong answers made from ``value``; returns how many were tried.

    Raises AssertionError when a message shows the value or a must-reject answer is called correct.
    """
    t0 = time.perf_counter()
    module, check = _checker(exercise)
    hook = getattr(module, f"_wrong_answers_{exercise.replace('.', '_')}", None)
    cases = [(w, True) for w in hook(value)] if hook is not None else wrong_answers(value)
    tried = 0
    MESSAGES[exercise] = []
    for wrong, must in cases[:MAX_WRONG]:
        fb = _silently(check, wrong, context)
        MESSAGES[exercise].append((wrong, fb.status, fb.message))
        tried += 1
        if fb.correct:
            if must:
                raise AssertionError(f"exercise {exercise}: the wrong answer {wrong!r} is judged correct: {fb.message}")
            continue
        found = leaks(fb.message, value, wrong)
        if found:
            raise AssertionError(f"exercise {exercise}: the hint for the wrong answer {wrong!r} gives the answer away "
                                 f"({'; '.join(found)}): {fb.message}")  # fmt: skip
    TIMES[exercise] = time.perf_counter() - t0
    return tried
