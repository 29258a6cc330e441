"""Self-checks of the student edition: right or wrong, without the answer in the edition.

The teacher's checkers of some exercises compute the answer to compare with (the largest ball, the
largest constant bias, ...), with private helpers or with the library's public calls that the notebooks
teach (an active set, a polytope bias, the verdicts of ``rf.check``): a student reading such a checker
learns the call that gives the answer. The student edition (``scripts/student_edition.py``) leaves those
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
import itertools
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from . import CLOSE_ATOL, GRID, SAME_LAYER_RTOL, THREE_DECIMALS, ZERO_ANSWER, Feedback, element_numbers, elements, report, said
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


def vector_text(values, decimals: int) -> str:
    """A vector written entry by entry with ``decimals`` decimals."""
    return json.dumps([decimals_text(v, decimals) for v in np.ravel(np.asarray(values, dtype=float))])


def vector_texts(values, tol: float, decimals: int, limit: int = 4096) -> list[str]:
    """The canonical texts of the vectors whose entries lie within ``tol`` of ``values`` (``tol`` well below a step).

    An entry next to a rounding boundary has two texts; when their product exceeds ``limit`` only the nearest
    text of each entry is kept.
    """
    v = np.ravel(np.asarray(values, dtype=float))
    choices = [sorted({decimals_text(x + d, decimals) for d in (-tol, 0.0, tol)}) for x in v]
    if math.prod(len(c) for c in choices) > limit:
        choices = [[decimals_text(x, decimals)] for x in v]
    return [json.dumps(list(t)) for t in itertools.product(*choices)]


def grid_texts(lo: float, hi: float, *, decimals: int | None = None, digits: int | None = None) -> list[str]:
    """Every canonical text of a number between ``lo`` and ``hi`` (3 decimals, or ``digits`` significant digits).

    With ``digits``, the interval is widened by half a step, so that every number of ``[lo, hi]``,
    rounded to ``digits`` significant digits, is in the list.
    """
    if decimals is not None:
        step = 10.0**-decimals
        ks = range(math.ceil(lo / step - GRID), math.floor(hi / step + GRID) + 1)
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
    return abs(x - round(x, decimals)) <= GRID


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
                               (f"r = {r:.3f}: the layer is rectifying on B_r, and on no ball more than "
                                f"{said(THREE_DECIMALS)} larger"),
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
        if abs(t) < ZERO_ANSWER:
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



def _elements_key(exercise: str, got: list[int], m: int) -> tuple[bool | None, str, bool]:
    """The key's word on 0-based indices ``got``: ``(ok, hint, counted_from_0)``."""
    ok, hint = key_says(exercise, elements_text(got))
    shifted = ok is False and all(i + 1 < m for i in got) and bool(key_says(exercise, elements_text([i + 1 for i in got]))[0])
    return ok, hint, shifted


def check_1_2(answer):
    """``answer``: the active set I_x^alpha at X_1_2, as row numbers counted from 1 like the text (a list or set)."""
    from . import nb01

    def verify(ans):
        W = np.asarray(nb01.W_1_2)
        got, problem = element_numbers(ans, len(W))
        if problem:
            return False, problem
        ok, hint, shifted = _elements_key("1.2", got, len(W))
        if ok is None:
            return _no_key("1.2")
        if ok:
            spans = bool(got) and np.linalg.matrix_rank(W[got]) == 2
            return True, (f"I_x = {elements(got)}: the rows with <x, w_i> >= alpha_i = -b_i; these rows "
                          f"{'span' if spans else 'do not span'} R^2")  # fmt: skip
        if hint:
            return False, hint
        if shifted:
            return False, "counted from 0? the exercises number the rows from 1, like the text (w_1 ... w_4)"
        return False, ("not the active set at x: row i is active when <x, w_i> >= alpha_i; work out <x, w_i> and "
                       "compare it with alpha_i for each of the four rows")  # fmt: skip

    return report("1.2", answer, verify)


def check_2_3(answer):
    """``answer``: three booleans (True = injective), for the layers a, b, c of layers_2_3 in this order."""
    from . import nb02

    def verify(ans):
        got = [bool(v) for v in ans]
        names = list(nb02.layers_2_3())
        if len(got) != len(names):
            return False, f"give {len(names)} verdicts (True = injective), one per layer a, b, c; got {len(got)}"
        ok, hint = key_says("2.3", json.dumps(got))
        if ok is None:
            return _no_key("2.3")
        if not ok:
            return False, hint or "not the three verdicts: rf.check(layer, K) gives each verdict and its reason (.text)"
        said = ", ".join(f"{name}: {'injective' if g else 'not injective'}" for name, g in zip(names, got))
        return True, f"{said}; rf.check(layer, K).text gives each reason"

    return report("2.3", answer, verify)


def check_5_2(answer):
    """``answer``: J*(X_5_2) for frame_5_2, three element numbers (counted from 1, like the text)."""
    from . import nb05

    def verify(ans):
        F, x = nb05.frame_5_2(), np.asarray(nb05.X_5_2)
        J, problem = element_numbers(ans, F.m)
        if problem:
            return False, problem
        if len(J) != 3:
            return False, f"give three different element numbers between 1 and {F.m}; got {len(J)}"
        ok, hint, shifted = _elements_key("5.2", J, F.m)
        if ok is None:
            return _no_key("5.2")
        if shifted:
            return False, "counted from 0? the exercises number the elements from 1, like the text"
        if not F.spans(J):
            return False, (f"the elements {elements(J)} do not form a basis (rank {np.linalg.matrix_rank(F.vectors[J])}); "
                           "the greedy rule skips a vector that depends on the ones kept")  # fmt: skip
        weakest = float(min(F.vectors[J] @ x))
        if ok:
            return True, (f"{elements(J)} is a most correlated basis: its weakest coefficient {weakest:.4g} is the largest "
                          "any basis reaches (the three largest coefficients do not form a basis)")  # fmt: skip
        return False, hint or (f"{elements(J)} is a basis, but another basis has a larger weakest coefficient than your "
                               f"{weakest:.4g}: keep the largest coefficients, skipping only the dependent ones")  # fmt: skip

    return report("5.2", answer, verify)


def check_7_1(answer: Any) -> Feedback:
    """Exercise 7.1: ``(frame, bias)`` — the completed frame and its polytope bias on D_{2,1/2}."""
    import relu_frames_nb as rf

    from . import nb07

    def verify(ans):
        Fc, bias, failed = nb07._completed_7_1(ans)
        if failed:
            return failed
        b = np.asarray(bias, dtype=float).ravel()
        if b.size != Fc.m:
            return False, f"the bias should have {Fc.m} entries, one per frame vector; yours has {b.size}"
        s, r = nb07.SHELL_7_1
        ours = key_says("7.1 frame", vector_text(Fc.vectors[-1], 6))[0]
        if ours is None:
            return _no_key("7.1")
        ok, hint = key_says("7.1", vector_text(b, 6)) if ours else (False, "")
        if hint:
            return False, hint
        chk = rf.check_rectifying(rf.ReLULayer(Fc, b), rf.Shell(3, s, r), n_samples=20_000, seed=1)
        if not chk.rectifying:
            return False, ("your bias is too large: the layer is not rectifying on the donut (a sampled point has active "
                           "elements that do not span), so not injective there")  # fmt: skip
        if ok:
            return True, (f"the polytope bias on D_{{{r:g},{s:g}}}, in [{b.min():+.4f}, {b.max():+.4f}]; rectifying at "
                          f"{chk.n_checked} samples of the donut")  # fmt: skip
        if not ours:
            return False, ("your completion is omnidirectional, but this edition's answer key holds the polytope bias for "
                           "the completion of App. B, §2 only (rf.complete_omnidirectional): complete the frame that way "
                           "to check your bias here")  # fmt: skip
        return False, ("rectifying at the samples, but not the polytope bias: take the minimum of <y, phi_i> over "
                       "cone(F) ∩ D_(r,s) only over facets F containing phi_i")  # fmt: skip

    return report("7.1", answer, verify)


def check_7_3(answer: Any) -> Feedback:
    """Exercise 7.3: the covering radius of frame_7_3 for the sphere, from the hole radii of the facets (7 digits)."""

    def verify(ans):
        rho = _number(ans, "rho")
        ok, hint = key_says("7.3", significant_text(rho, 7))
        if ok is None:
            return _no_key("7.3")
        if ok:
            return True, f"rho = {rho:.4f}, the largest hole radius over the facets of the inscribing polytope"
        if rho > 0:
            hint = hint or key_says("7.3 misreadings", significant_text(rho, 3))[1]
        return False, hint or ("not the covering radius (give it to at least 7 significant digits): it is the largest "
                               "hole radius sqrt(2 - 2 b_F) over the facets F of the inscribing polytope (§6)")  # fmt: skip

    return report("7.3", answer, verify)


def check_11_3(answer: Any) -> Feedback:
    """Exercise 11.3: the polytope bias on the boundary of P_Phi by formula (i), for ``frame_11_3()``."""
    from . import nb11

    def verify(ans):
        m = nb11.frame_11_3().m
        a = np.asarray(ans, dtype=float).ravel()
        if a.size != m:
            return False, f"the bias needs {m} entries, one per frame vector; yours has {a.size}"
        ok, hint = key_says("11.3", vector_text(a, 8))
        if ok is None:
            return _no_key("11.3")
        if ok:
            return True, (f"formula (i): per element the smallest <phi_l, phi_i> over the facets containing it, "
                          f"in [{a.min():.4f}, {a.max():.4f}]")  # fmt: skip
        return False, hint or ("not formula (i) (give every entry to at least 8 decimals): for each phi_i take the "
                               "smallest <phi_l, phi_i> over the vertices phi_l of the facets that contain phi_i, and only "
                               "those")  # fmt: skip

    return report("11.3", answer, verify)


def check_12_1(answer):
    """``answer``: the largest constant bias for which the pentagon layer is injective on the unit sphere (3 decimals)."""
    import relu_frames_nb as rf

    from . import nb12

    def verify(ans):
        a = _number(ans, "the bias")
        text = decimals_text(a, 3) if _on_grid(a, 3) else decimals_text(a, 6)
        ok, _ = key_says("12.1", text)
        if ok is None:
            return _no_key("12.1")
        if ok:
            return True, (f"α* = {a:.3f}: up to it the polytope bias proves the layer injective on the sphere, above it "
                          "the explorer finds two points with one output. On the ball the answer is 0: with α > 0 a "
                          "whole neighbourhood of the origin goes to 0")  # fmt: skip
        c = nb12._collision_on(rf.ReLULayer(rf.zoo.get("pentagon"), a), rf.Sphere(2))
        if c is not None:
            return False, (f"your bias is too large: at α = {a:.4g} the layer is not injective on the sphere: x = "
                           f"{nb12._vec(c.x)} and y = {nb12._vec(c.y)} have the same output {nb12._vec(c.output)}")  # fmt: skip
        return False, (f"the explorer finds no two points of the sphere with one output at α = {a:.4g}, but that is not the "
                       "largest such bias (rounded down to 3 decimals, as the task asks): raise the offset slider with "
                       "the domain set to 'sphere' until the verdict flips")  # fmt: skip

    return report("12.1", answer, verify)


def _whole(x: Any, what: str) -> int:
    if isinstance(x, (bool, np.bool_)) or np.ndim(x) != 0 or float(x) != int(float(x)):
        raise ValueError(f"{what} should be a whole number; got {x!r}")
    return int(float(x))


def check_3_1(answer):
    """``answer``: the bias alpha' of the normalized frame that gives the same active sets everywhere."""
    from . import nb03

    def verify(ans):
        m = len(nb03.ALPHA_3_1)
        a = np.broadcast_to(np.asarray(ans, dtype=float), (m,))
        said = [key_says(f"3.1 φ_{i + 1}", decimals_text(v, 8)) for i, v in enumerate(a)]
        if said[0][0] is None:
            return _no_key("3.1")
        if all(ok for ok, _ in said):
            return True, f"alpha' = {_vec(a)}: alpha_i / |phi_i|, the active sets agree at every x"
        if key_says("3.1 multiplied", vector_text(a, 8))[1]:
            return False, "you multiplied by the norms; <x, phi_i> >= alpha_i is <x, phi_i/|phi_i|> >= alpha_i/|phi_i|"
        off = [i for i, (ok, _) in enumerate(said) if not ok]
        return False, (f"the entries of {elements(off)} are off: along such an element there are points where it is "
                       "active for the original layer but not for the normalized one with your bias (or the other way "
                       "round); write <x, phi_i> >= alpha_i with the unit vector phi_i/|phi_i| (8 decimals are "
                       "checked)")  # fmt: skip

    return report("3.1", answer, verify)


def check_6_2(answer):
    """``answer``: ``(depth, u)``: the Tukey depth of the origin among the rows of frame_6_2, and a direction u with
    exactly ``depth`` rows having <u, phi_i> >= 0."""
    from . import nb06

    def verify(ans):
        F = nb06.frame_6_2()
        depth, u, failed = nb06._depth_at_6_2(F, ans)
        if failed:
            return failed
        ok, _ = key_says("6.2", str(depth))
        if ok is None:
            return _no_key("6.2")
        if not ok:  # the count at a direction is never below the depth: this one is above it
            return False, ("there is a direction with fewer rows in its closed half-space {<u, .> >= 0}: the depth is "
                           "the least count over all directions u (the pairs S of section 5 give every candidate)")  # fmt: skip
        return True, (f"depth {depth}, attained at u = {_vec(u)}; since {depth} < n = 3 the zero-bias layer is not "
                      "injective (the active rows at u do not span)")  # fmt: skip

    return report("6.2", answer, verify)


def check_8_1(answer: Any) -> Feedback:
    """Exercise 8.1: the Tukey depth of the origin among the vectors of ``frame_8_1()``."""
    from . import nb08

    def verify(ans):
        d, failed = nb08._depth_answer(ans)
        if failed:
            return failed
        n = nb08.frame_8_1().n
        ok, hint = key_says("8.1", str(d))
        if ok is None:
            return _no_key("8.1")
        if ok:
            verdict = "injective" if d >= n else "not injective"
            return True, (f"depth {d} {'>=' if d >= n else '<'} n = {n}: the zero-bias layer is {verdict} on R^{n} "
                          "(Tukey-depth test, exact)")  # fmt: skip
        return False, hint or "not the depth: it is the minimum over all directions u of the count of <u, phi_i> >= 0"

    return report("8.1", answer, verify)


def check_8_2(answer: Any) -> Feedback:
    """Exercise 8.2: ``{m: fraction}`` of the TRIALS_8_2 frames ``frame_8_2(m, k)`` that are injective (zero bias)."""
    from . import nb08

    def verify(ans):
        if not isinstance(ans, dict) or sorted(int(m) for m in ans) != list(nb08.M_8_2):
            return False, f"answer_8_2 should be a dict with keys {list(nb08.M_8_2)} (m) and fractions as values"
        vals = {m: float(ans[m] if m in ans else ans[str(m)]) for m in nb08.M_8_2}
        wrong = []
        for m, v in vals.items():
            ok, hint = key_says(f"8.2 m={m}", decimals_text(v, 6))
            if ok is None:
                return _no_key("8.2")
            if not ok:
                wrong.append(f"m = {m}: {hint or f'not the fraction of the {nb08.TRIALS_8_2} frames that are injective'}")
        if wrong:
            return False, "; ".join(wrong)
        return True, (f"p_(m,3) estimated as {vals} from {nb08.TRIALS_8_2} frames each: it rises with the redundancy "
                      "q = m/3, here from q = 2 to q = 5")  # fmt: skip

    return report("8.2", answer, verify)


def check_9_2(answer: Any) -> Feedback:
    """Exercise 9.2: the contraction factor per step of the plain frame algorithm with lam = 1/B at X_9_2 (7 digits)."""

    def verify(ans):
        kappa = _number(ans, "kappa")
        ok, hint = key_says("9.2", significant_text(kappa, 7))
        if ok is None:
            return _no_key("9.2")
        if ok:
            return True, (f"kappa = 1 - lambda_min(S_x)/B = {kappa:.6f}: the rate of the run once the fast directions have "
                          "died out")  # fmt: skip
        return False, hint or ("not the rate (give it to at least 7 significant digits); compare with the error curve of "
                               "the run: which eigenvalue of I - lambda S_x dominates once the fast directions have died "
                               "out?")  # fmt: skip

    return report("9.2", answer, verify)


def check_10_1(answer: Any) -> Feedback:
    """Exercise 10.1: ``(kappa, eps)`` — the local constant 1/A_J and its radius at X0_10_1 (7 digits each)."""

    def verify(ans):
        if not isinstance(ans, (tuple, list)) or len(ans) != 2:
            return False, "answer_10_1 should be a pair (kappa, eps)"
        kappa, eps = _number(ans[0], "kappa"), _number(ans[1], "eps")
        ok_k, hint_k = key_says("10.1 kappa", significant_text(kappa, 7))
        ok_e, hint_e = key_says("10.1 eps", significant_text(eps, 7))
        if ok_k is None or ok_e is None:
            return _no_key("10.1")
        if ok_k and ok_e:
            return True, f"kappa = 1/A_J = {kappa:.4f} (strictly active J), valid in the ball of radius eps = {eps:.4f} around x0"
        msgs = []
        if not ok_k:
            msgs.append(hint_k or ("kappa is not 1/A_J (7 significant digits are checked): A_J is the smallest eigenvalue "
                                   "of the sum of phi_i phi_i^T over the strictly active i"))  # fmt: skip
        if not ok_e:
            msgs.append(hint_e or ("eps is not the distance from x0 to the nearest hyperplane <x, phi_i> = alpha_i with i "
                                   "in J (7 significant digits are checked)"))  # fmt: skip
        return False, "; ".join(msgs)

    return report("10.1", answer, verify)


def check_11_1(answer: Any) -> Feedback:
    """Exercise 11.1: ``(n_modified, n_open, injective)`` for ``layer_11_1()`` on R^2."""

    def verify(ans):
        if not isinstance(ans, (tuple, list)) or len(ans) != 3:
            return False, "answer_11_1 should be a triple (number of admissible sets, number of open cells, injective)"
        n_mod, n_open, inj = _whole(ans[0], "the number of admissible sets"), _whole(ans[1], "the number of open cells"), ans[2]
        said = [key_says("11.1 admissible", str(n_mod)), key_says("11.1 open", str(n_open)),
                key_says("11.1 injective", json.dumps(bool(inj)))]  # fmt: skip
        if any(ok is None for ok, _ in said):
            return _no_key("11.1")
        if all(ok for ok, _ in said):
            return True, (f"{n_mod} admissible sets, {n_open} open cells; "
                          f"{'every one spans: injective' if inj else 'some do not span: not injective'} on R^2")  # fmt: skip
        return False, "; ".join(hint for ok, hint in said if not ok)

    return report("11.1", answer, verify)


def check_12_2(answer):
    """``answer``: ``(bias, facets)`` — the polytope bias of a vertex of the cube frame on the unit sphere
    (the same for all eight) and the number of facets of its polytope at a vertex."""
    from . import nb12

    def verify(ans):
        b, n_facets, failed = nb12._pair_12_2(ans)
        if failed:
            return failed
        ok_b, hint_b = key_says("12.2 bias", decimals_text(b, 3))
        ok_f, _ = key_says("12.2 facets", str(int(n_facets)))
        if ok_b is None or ok_f is None:
            return _no_key("12.2")
        notes = []
        if not ok_b:
            notes.append(f"{b:.4g} is not the polytope bias of the cube's vertices on the sphere{hint_b}: choose 'cube' in "
                         "the explorer's frame menu and 'sphere' in its domain menu, the table lists it")  # fmt: skip
        if not ok_f:
            notes.append(f"a vertex of the cube does not lie in {int(n_facets)} of its square facets: pick a vertex in "
                         "the menu and count the highlighted facets")  # fmt: skip
        if notes:
            return False, "; ".join(notes)
        return True, (f"every vertex gets {b:.4f} on the sphere, read off its {int(n_facets)} facets; "
                      "compare the icosahedron's +1/√5 in section 2")  # fmt: skip

    return report("12.2", answer, verify)


def check_6_1(answer):
    """``answer``: a bias (5 entries) for which frame_6_1 is rectifying on the closed unit ball, every entry at most
    TOLERANCE_6_1 below the sampled estimate with 200 000 samples (held to it at 3 decimals, rounded down)."""

    from . import nb06

    def verify(ans):
        F = nb06.frame_6_1()
        a = np.asarray(ans, dtype=float)
        if a.shape != (F.m,):
            return False, f"give {F.m} entries, one per frame vector; got shape {a.shape}"
        v, failed = nb06._on_ball_6_1(F, a)
        if failed:
            return failed
        said = [key_says(f"6.1 φ_{i + 1}", decimals_text(math.floor(x * 1000 + GRID) / 1000, 3)) for i, x in enumerate(a)]
        if said[0][0] is None:
            return _no_key("6.1")
        low = [i for i, (ok, _) in enumerate(said) if not ok]
        if low:
            return False, (f"rectifying, but too conservative: the entries of {elements(low)} lie more than "
                           f"{nb06.TOLERANCE_6_1} below the sampled estimate; a finer covering bound or more samples help")
        return True, f"proven rectifying on the ball (rf.check: {v.method}), within {nb06.TOLERANCE_6_1} of sampling"

    return report("6.1", answer, verify)


def check_3_3(answer):
    """``answer``: a bias (number or 3 entries), at least the lemma's alpha - eps M, rectifying on B for frame_3_3
    (each entry is held to the lemma's bias at 3 decimals, rounded down)."""

    from . import nb03

    def verify(ans):
        F = nb03.frame_3_3()
        a = np.broadcast_to(np.asarray(ans, dtype=float), (3,)).copy()
        # rounded down after the teacher's allowance CLOSE_ATOL below the lemma's bias
        said_ = [key_says("3.3", decimals_text(math.floor((x + CLOSE_ATOL) * 1000 + GRID) / 1000, 3)) for x in a]
        if said_[0][0] is None:
            return _no_key("3.3")
        low = [i for i, (ok, _) in enumerate(said_) if not ok]
        if low:
            return False, (f"the entries of {elements(low)} are lower than needed: Lemma \"perturbation\" guarantees a "
                           "larger bias for this frame (read off its alpha, eps and M)")  # fmt: skip
        return nb03._on_ball_3_3(F, a)

    return report("3.3", answer, verify)


def output_9_1() -> np.ndarray:
    """The output z = C_alpha(x) of exercise 9.1 (x unknown, in B_2), as the edition's data file gives it."""
    return np.asarray(_data("output_9_1", "9.1"), dtype=float)


def _data(name: str, exercise: str):
    value = _keys().get("data", {}).get(name)
    if value is None:
        raise FileNotFoundError(f"this edition has no exercises/_keys.json: the data of exercise {exercise} are stored there")
    return value


def noisy_code_13_2(layer: Any, basis: Any = None) -> np.ndarray:
    """The noisy hidden code of exercise 13.2, as the edition's data file gives it.

    It was made on the notebook's layer ``L_span`` (rebuilt from the notebook's recipe); ``layer`` must be that layer
    (``basis`` is accepted for the teacher's signature and not used).
    """
    fp = _data("layer_13_2", "13.2")
    W, alpha = np.asarray(layer.frame.vectors, dtype=float), np.asarray(layer.alpha, dtype=float)
    probe = np.random.default_rng(1302).standard_normal(W.shape[1])
    want_rows, want_alpha = np.asarray(fp["rows_times_probe"]), np.asarray(fp["alpha"])
    same = W.shape[0] == want_rows.size and np.allclose(W @ probe, want_rows, rtol=SAME_LAYER_RTOL, atol=0) and np.allclose(
        alpha, want_alpha, rtol=SAME_LAYER_RTOL, atol=SAME_LAYER_RTOL * float(np.abs(want_alpha).max()))
    if not same:
        raise ValueError("the code of exercise 13.2 was made on the notebook's layer L_span (the trained network on the "
                         "data's span); this layer is another one: pass L_span as the notebook builds it")
    return np.asarray(_data("code_13_2", "13.2"), dtype=float)


def check_13_2(answer: Any, *, layer: Any = None, basis: Any = None) -> Feedback:
    """Exercise 13.2: the 64 pixels of the digit behind the code, each rounding to the digit's grey level.

    The edition knows the digit by its hash only (its pixels as whole grey levels, as the data set stores them), so it
    accepts an image whose pixels all round to the digit's; the teacher's grader accepts any image within
    ``TOL_13_2`` of the digit (Euclidean, in pixel units), which a correct reading meets with room to spare.
    """

    def verify(ans):
        img = np.asarray(ans, dtype=float).ravel()
        if img.size != 64:
            return False, f"your image should have 64 pixels (8 x 8); yours has {img.size}"
        if not np.all(np.isfinite(img)):
            return False, "your image has pixels that are not finite numbers"
        ok, hint = key_says("13.2", vector_text(np.clip(np.rint(img), 0, 16), 0))
        if ok is None:
            return _no_key("13.2")
        if ok:
            return True, "every pixel of your image rounds to the digit's grey level: the code was read correctly"
        return False, hint or (
            "your image is not the digit behind the code (rounded pixel by pixel to the grey levels 0 to 16, some "
            "differ). Some positive entries of the noisy code are zeros of the clean code with noise on them: which "
            "ones, and what does reading them as active do to the reconstruction?"
        )

    return report("13.2", answer, verify)
