r"""Exact arithmetic on floating-point data: is a point in a simplex, with no rounding at all?

Every float64 is a dyadic rational ``m 2^e``. Multiplying a row of numbers by ``2^-E`` (``E``
the smallest exponent in it) turns it into Python integers exactly, so a linear system with
float64 entries can be solved exactly by fraction-free Gaussian elimination (Bareiss) and one
back substitution in :class:`fractions.Fraction`. This certifies the barycentric coordinates
of a point with respect to ``d + 1`` vertices: the point lies in their convex hull iff all are
``>= 0`` -- a proof, not an estimate.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["barycentric", "in_simplex", "exact_dot_sign"]


def _integer_row(values: np.ndarray) -> list[int]:
    """The row multiplied by one power of two so that every entry is an integer (exactly)."""
    fr = [Fraction(float(v)) for v in values]  # exact: a float is a dyadic rational
    den = 1
    for f in fr:
        den = max(den, f.denominator)  # denominators are powers of two: the largest divides by all
    return [int(f * den) for f in fr]


def barycentric(V: np.ndarray, y: np.ndarray) -> list[Fraction] | None:
    """Exact ``lambda`` with ``sum lambda_j V_j = y`` and ``sum lambda_j = 1`` (V: ``(d + 1, d)``), or None if singular."""
    V = np.asarray(V, dtype=float)
    y = np.asarray(y, dtype=float)
    k, d = V.shape
    if k != d + 1 or y.shape != (d,):
        raise ValueError(f"V must have shape (d + 1, d) and y shape (d,); got {V.shape} and {y.shape}")
    # augmented system [V^T | y; 1 ... 1 | 1], each row scaled to integers
    rows = [_integer_row(np.r_[V[:, i], y[i]]) for i in range(d)]
    rows.append([1] * (k + 1))
    A = rows
    n = k
    prev = 1
    for c in range(n):
        piv = next((r for r in range(c, n) if A[r][c] != 0), None)
        if piv is None:
            return None
        if piv != c:
            A[c], A[piv] = A[piv], A[c]
        pc = A[c][c]
        for r in range(c + 1, n):
            arc = A[r][c]
            row_r, row_c = A[r], A[c]
            A[r] = [(pc * row_r[j] - arc * row_c[j]) // prev if j > c else 0 for j in range(n + 1)]
        prev = pc
    lam: list[Fraction] = [Fraction(0)] * n
    for i in range(n - 1, -1, -1):
        s = Fraction(A[i][n])
        for j in range(i + 1, n):
            if A[i][j]:
                s -= A[i][j] * lam[j]
        lam[i] = s / A[i][i]
    return lam


def in_simplex(V: np.ndarray, y: np.ndarray) -> bool:
    """True iff ``y`` lies in the convex hull of the ``d + 1`` rows of ``V`` (exact; False when degenerate)."""
    lam = barycentric(V, y)
    return lam is not None and all(v >= 0 for v in lam)


def exact_dot_sign(a: np.ndarray, b: np.ndarray, c: float) -> int:
    """The sign of ``<a, b> - c`` computed exactly (for checks that must not round)."""
    s = sum((Fraction(float(x)) * Fraction(float(z)) for x, z in zip(a, b)), Fraction(0)) - Fraction(float(c))
    return (s > 0) - (s < 0)

