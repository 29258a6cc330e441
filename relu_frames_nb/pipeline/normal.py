r"""Scale first, then decide: the normal form of a problem "is ``ReLU(W x - alpha)`` injective on K?".

Injectivity does not change when

* a row and its bias are multiplied by the same ``c > 0`` (``<x, c w> - c a`` has the sign of ``<x, w> - a``), or
* the domain and every bias are multiplied by the same ``c > 0`` (``x = y / c`` maps ``cK`` onto ``K``).

The front door brings every problem to a normal form once: each row to norm in ``[1/2, 1)``,
the domain to size in ``[1/2, 1)`` (its radius; for ``R^n``, the largest bias), rows that are
zero left out (their output is a constant). Every factor is a **power of two**, so the scaling
is exact in floating point (barring overflow and underflow at the ends of the range): the
normal form is the same problem, not an approximation of it, and a point maps back exactly.
All tolerances of the algorithms are relative to this normal form; pairs and certificates are
checked again in the caller's own coordinates before they are reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._util.pairs import pow2_scale
from ..domains import Domain
from ..domains.base import robust_norms

__all__ = ["Normalised", "normalise"]


@dataclass(frozen=True)
class Normalised:
    """A problem in normal form.

    Attributes
    ----------
    W, alpha : ndarray
        The kept rows scaled by ``row_scale`` and the bias by ``row_scale * s``.
    K : Domain
        ``s K``.
    s : float
        The domain's scale factor (a power of two).
    rows : ndarray of int
        Indices of the kept (non-zero) rows in the original weights.
    row_scale : ndarray
        The power of two applied to each kept row.
    notes : tuple of str
    m : int
        The number of rows of the original weights.
    """

    W: np.ndarray
    alpha: np.ndarray
    K: Domain
    s: float
    rows: np.ndarray
    row_scale: np.ndarray
    notes: tuple = ()
    m: int = 0

    def to_user(self, x: np.ndarray) -> np.ndarray:
        """A point of the normal form in the caller's coordinates (exact: a division by a power of two)."""
        return np.asarray(x, dtype=float) / self.s

    def to_normal(self, X: np.ndarray) -> np.ndarray:
        """Points of the caller's domain in the normal form (exact)."""
        return np.asarray(X, dtype=float) * self.s

    def describe(self) -> str:
        """The scaling applied, for the verdict's details."""
        lo, hi = (float(self.row_scale.min()), float(self.row_scale.max())) if self.row_scale.size else (1.0, 1.0)
        return f"domain × 2^{int(np.log2(self.s))}, rows × 2^{int(np.log2(lo))}…2^{int(np.log2(hi))} (exact powers of two)"


def _domain_scale(W: np.ndarray, alpha: np.ndarray, K: Domain) -> float:
    if K.bounded:
        r = float(K.radius)
        return float(pow2_scale(np.array([r]))) if r > 0 else 1.0
    if K.inner_radius > 0:
        return float(pow2_scale(np.array([K.inner_radius])))
    return float(pow2_scale(alpha)) if np.any(alpha != 0) else 1.0  # R^n: only the bias has a size


def normalise(W: np.ndarray, alpha: np.ndarray, K: Domain) -> Normalised:
    """The normal form of ``ReLU(W x - alpha)`` on ``K`` (see the module docstring)."""
    W = np.asarray(W, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    notes = []
    norms = robust_norms(W) if W.shape[0] else np.zeros(0)
    keep = np.flatnonzero(norms > 0)
    if keep.size < W.shape[0]:
        notes.append(f"{W.shape[0] - keep.size} zero row(s) left out: their output is the constant max(0, -alpha_i)")
    _, e = np.frexp(norms[keep])
    r = np.ldexp(1.0, -e)
    Wn = W[keep] * r[:, None]
    a_rows = alpha[keep] * r
    s = _domain_scale(Wn, a_rows, K)
    an = a_rows * s
    tiny = (alpha[keep] != 0) & (an == 0)
    if tiny.any():
        notes.append(f"{int(tiny.sum())} bias(es) below the floating-point range relative to their row and the domain")
    Kn = K if s == 1.0 else K.scaled(s)
    return Normalised(Wn, an, Kn, s, keep, r, tuple(notes), W.shape[0])
