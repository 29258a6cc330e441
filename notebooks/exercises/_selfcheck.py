"""Self-checks of the student edition: right or wrong, without the answer in the edition.

The teacher's checkers of some exercises compute the answer to compare with (the largest ball, the
largest constant bias, ...). The student edition (``scripts/student_edition.py``) leaves those
computations out and puts the checks of this module in their place. Each one

* first looks for what it can show without knowing the answer: a point that proves a radius or a bias
  too large (found by sampling, as the teacher's checker does), the shape of the answer, a reading
  that counts from 0;
* then compares the answer with an answer key stored as data in ``_keys.json``: salted SHA-256 hashes
  of the answers the teacher's checker accepts, written as the task asks (3 decimals, or 3/7
  significant digits, or a sorted list of element numbers), and of a few known wrong answers with
  their hints. The edition's files hold no answer value and no function that computes one.

What this guarantees, and what it does not: reading the edition shows no answer, and the answers
that pass here are the ones the teacher's grader accepts when they are written as the task asks (the
grader checks the exact bounds, so an answer not written that way may be judged differently). A
key of a few thousand possible values can be found by trying them all, as a self-check that says
"right" can always be asked again and again: the grade does not come from here, but from the
teacher's checkers run outside the student's notebook (``scripts/grade.py``).
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from . import Feedback, element_numbers, elements, report
from . import vec as _vec

KEYS_FILE = Path(__file__).with_name("_keys.json")


# ---------------------------------------------------------------------------------------------
# the answer key: hashes of the accepted (and of some known wrong) answers, written canonically
# ---------------------------------------------------------------------------------------------


def digest(salt: str, exercise: str, text: str) -> str:
    """The key's hash of the canonical text ``text`` of an answer to ``exercise``."""
    return hashlib.sha256(f"{salt}|{exercise}|{text}".encode()).hexdigest()


def decimals_text(x: float, decimals: int) -> str:
    """``x`` written with ``decimals`` decimals (``-0.000`` written ``0.000``)."""
    t = f"{float(x):.{decimals}f}"
    return t[1:] if t.startswith("-") and float(t) == 0 else t


def significant_text(x: float, digits: int) -> str:
    """``x`` written with ``digits`` significant digits, in scientific notation."""
    return f"{float(x):.{digits - 1}e}"


def elements_text(indices) -> str:
    """0-based element indices as the key writes them: the sorted numbers counted from 1."""
    return json.dumps(sorted(int(i) + 1 for i in indices))


def grid_texts(lo: float, hi: float, *, decimals: int | None = None, digits: int | None = None) -> list[str]:
    """Every canonical text of a number between ``lo`` and ``hi`` (3 decimals, or ``digits`` significant digits).

    With ``digits``, the interval is widened by half a step, so that every number of ``[lo, hi]``,
    rounded to ``digits`` significant digits, is in the list.
    """
    if decimals is not None:
        step = 10.0**-decimals
        ks = range(math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) + 1)
        return sorted({decimals_text(k * step, decimals) for k in ks})
    out = set()
    for v in (lo, hi):
        if v == 0:
            continue
        step = 10.0 ** (math.floor(math.log10(abs(v))) - (digits - 1))
        ks = range(math.floor((lo - step / 2) / step), math.ceil((hi + step / 2) / step) + 1)
        out |= {significant_text(k * step, digits) for k in ks if lo - step / 2 <= k * step <= hi + step / 2}
    return sorted(out)


@lru_cache(maxsize=1)
def _keys() -> dict:
    if not KEYS_FILE.exists():
        return {}
    return json.loads(KEYS_FILE.read_text(encoding="utf-8"))


def key_says(exercise: str, text: str) -> tuple[bool | None, str]:
    """``(True, "")`` when ``text`` is an accepted answer, ``(False, hint)`` for a known wrong one, ``(False, "")``
    otherwise, and ``(None, "")`` when the edition has no key for ``exercise``."""
    key = _keys().get("exercises", {}).get(exercise)
    if key is None:
        return None, ""
    h = digest(_keys()["salt"], exercise, text)
    if h in key["accepted"]:
        return True, ""
    return False, key.get("wrong", {}).get(h, "")


def _no_key(exercise: str) -> tuple[bool, str]:
    return False, (f"this edition has no answer key for exercise {exercise} (exercises/_keys.json is missing); "
                   "your teacher's grader checks it")  # fmt: skip


def _number(x: Any, what: str) -> float:
    if isinstance(x, (bool, np.bool_)) or np.ndim(x) != 0:
        raise ValueError(f"{what} should be one number; got {x!r}")
    v = float(x)
    if not np.isfinite(v):
        raise ValueError(f"{what} should be a finite number; got {x!r}")
    return v


def _on_grid(x: float, decimals: int) -> bool:
    return abs(x - round(x, decimals)) <= 1e-9


def _three_decimals(exercise: str, value: float, what: str, rounding: str, right: str, wrong: str) -> tuple[bool, str]:
    """The common end of the radius and bias checks: rounded to 3 decimals as asked, then compared with the key."""
    if not _on_grid(value, 3):
        return False, f"round your {what} {rounding} to 3 decimals, as the task asks"
    ok, _ = key_says(exercise, decimals_text(value, 3))
    if ok is None:
        return _no_key(exercise)
    return (True, right) if ok else (False, wrong)


# ---------------------------------------------------------------------------------------------
# the checks that replace the teacher's in the student edition
# ---------------------------------------------------------------------------------------------


def check_2_2(answer):
    """``answer``: the smallest s such that layer_2_2 is rectifying on {s <= |x| <= 1}, rounded up to 3 decimals."""
    import relu_frames_nb as rf

    from . import nb02

    def verify(s):
        L, s = nb02.layer_2_2(), _number(s, "s")
        if not 0.0 < s < 1.0:
            return False, f"s should lie between 0 and 1; got {s:.4g}"
        X = rf.Shell(2, s, 1.0).sample(4000, seed=0)
        bad = X[~rf.is_rectifying(L, X)]
        if len(bad):
            w = bad[np.argmin(np.linalg.norm(bad, axis=1))]
            return False, (f"your radius is too small: x = {_vec(w)} lies in the donut, but only the elements "
                           f"{elements(np.flatnonzero(L.active_set(w)))} are active there, and they do not span")  # fmt: skip
        return _three_decimals("2.2", s, "radius", "up",
                               f"s = {s:.3f}: no sampled point of the donut is non-rectifying, and s is the smallest such radius",
                               ("no sampled point of your donut is non-rectifying, but s is not the smallest radius: it can "
                       "be smaller (or a sample missed the corner of a non-spanning cell: look at those corners)"))  # fmt: skip

    return report("2.2", answer, verify)


def check_4_1(answer):
    """``answer``: the largest r such that layer_4_1 is rectifying on the ball B_r, rounded down to 3 decimals."""
    import relu_frames_nb as rf

    from . import nb04

    def verify(r):
        L, r = nb04.layer_4_1(), _number(r, "r")
        if not r > 0:
            return False, f"r should be positive; got {r:.4g}"
        X = rf.Ball(2, r).sample(4000, seed=0)
        bad = X[~rf.is_rectifying(L, X)]
        if len(bad):
            w = bad[np.argmax(np.linalg.norm(bad, axis=1))]
            return False, (f"your radius is too large: x = {_vec(w)} lies in B_r, and its active elements "
                           f"{elements(np.flatnonzero(L.active_set(w)))} do not span")  # fmt: skip
        return _three_decimals("4.1", r, "radius", "down",
                               f"r = {r:.3f}: the layer is rectifying on B_r, and on no ball more than 1e-3 larger",
                               ("no sampled point of B_r is non-rectifying, but r is not the largest radius: r can be larger "
                       "(or a sample missed a point next to the lines <x, phi_i> = alpha_i closest to the origin)"))  # fmt: skip

    return report("4.1", answer, verify)


def check_5_1(answer):
    """``answer``: the largest r such that frame_5_1 is (r, ..., r)-rectifying on the closed unit ball, rounded down
    to 3 decimals."""
    from . import nb05

    def verify(r):
        F, r = nb05.frame_5_1(), _number(r, "r")
        if r > 0:
            return False, "your bias is too large: at x = 0 every coefficient is 0 < r, so no element is active there"
        t = np.linspace(0.0, 2 * np.pi, 3600, endpoint=False)
        U = np.column_stack([np.cos(t), np.sin(t)])
        second = np.sort(U @ F.vectors.T, axis=1)[:, -2]
        bad = np.flatnonzero(second < r)
        if 0 < bad.size < nb05.SMALL_5_1 * t.size:  # a few failing directions: any of them is next to the answer's
            return False, ("your bias is too large: in a few directions of the unit circle fewer than two coefficients "
                           "are >= r (look where the second largest coefficient is smallest)")  # fmt: skip
        if bad.size:
            w = U[bad[np.argmax(second[bad])]]
            active = elements(np.flatnonzero(F.vectors @ w >= r))
            why = "so the layer is not injective there"
            return False, f"your bias is too large: at x = {_vec(w)} only the elements {active} are active, {why}"
        return _three_decimals("5.1", r, "bias", "down",
                               f"r = {r:.3f}: every direction of the circle keeps two coefficients >= r, and r is the "
                               "largest such bias",
                               "the layer is still rectifying for a slightly larger constant bias: r can be larger")  # fmt: skip

    return report("5.1", answer, verify)


def check_5_3(answer):
    """``answer``: the elements (numbers counted from 1) whose set K_i-sharp contains no point of data_5_3."""
    from . import nb05

    def verify(ans):
        m = nb05.frame_5_3().m
        got, problem = element_numbers(ans, m)
        if problem:
            return False, problem
        ok, _ = key_says("5.3", elements_text(got))
        if ok is None:
            return _no_key("5.3")
        if ok:
            return True, (f"K_i♯ is empty for {elements(got)}: wherever such an element is in J*(x), a third element "
                          "is active too; the data set is not bias-exact")  # fmt: skip
        if all(i + 1 < m for i in got) and key_says("5.3", elements_text([i + 1 for i in got]))[0]:
            return False, "counted from 0? the exercises number the elements from 1, like the text"
        return False, ("not the set of redundant elements: an element is redundant when, at every data point where it is "
                       "in J*(x), a third element is active too; check each element against the data set")  # fmt: skip

    return report("5.3", answer, verify)


def check_10_3(answer: Any) -> Feedback:
    """Exercise 10.3: the stability constant B / A_alpha^2 of ``layer_10_1()`` on the unit disc (3 significant digits)."""

    def verify(ans):
        kappa = _number(ans, "kappa")
        ok, hint = key_says("10.3", significant_text(kappa, 3))
        if ok is None:
            return _no_key("10.3")
        if ok:
            return True, f"kappa = B/A_alpha^2 = {kappa:.3g} (within 1 %)"
        return False, hint or "not B/A_alpha^2 within 1 %: compute A_alpha with rf.global_bounds on the disc and B from the frame"

    return report("10.3", answer, verify)


def check_11_2(answer: Any) -> Feedback:
    """Exercise 11.2: the optimal value t* of the omnidirectionality LP for ``frame_11_2()`` (7 significant digits)."""

    def verify(ans):
        t = _number(ans, "t")
        if abs(t) < 1e-6:
            return False, (
                "t = 0 is what the printed program min ||Dc|| over c > 0 suggests for every frame; solve the LP "
                "max t subject to Dc = 0, sum c = 1, c_i >= t (variables c and t, t free in sign)"
            )
        ok, hint = key_says("11.2", significant_text(t, 7))
        if ok is None:
            return _no_key("11.2")
        if ok:
            return True, f"t* = {t:+.6f}: the optimum of the LP (the sign says whether the frame is omnidirectional)"
        return False, hint or ("not the LP's optimum (give it to at least 7 significant digits): check the constraints "
                               "Dc = 0 and sum c = 1, and that c and t are free in sign")  # fmt: skip

    return report("11.2", answer, verify)

