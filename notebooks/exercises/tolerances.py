"""The tolerances of the exercise checkers, by name (copied into the student edition with the checkers).

Every checker of ``nb01`` ... ``nb13``, the shared helpers of :mod:`exercises` and the self-checks of
:mod:`exercises._selfcheck` take their tolerances from here; ``scripts/student_edition.py`` builds the answer
key with the same names, so that the key accepts what the teacher's checker accepts.
"""

from __future__ import annotations

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


def said(tol: float) -> str:
    """A tolerance as a message writes it: ``1e-9``, not Python's ``1e-09``."""
    return f"{tol:.0e}".replace("e-0", "e-").replace("e+0", "e+")
