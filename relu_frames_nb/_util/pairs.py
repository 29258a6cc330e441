r"""The one check of a colliding pair: two distinct inputs with the same output.

A pair ``(x, y)`` is reported only when :func:`collides` holds for the layer (or, for a
network, :func:`network_collision` for some layer) and both points are certainly in the domain
(:meth:`~relu_frames_nb.domains.Domain.contains_certified`, the domain's business).

What "the same output" means in floating point
----------------------------------------------
Outputs are computed, not known exactly, so two outputs are *equal* when for every row ``i``

.. math:: |\mathrm{ReLU}(p_i(x)) - \mathrm{ReLU}(p_i(y))| \le
          \mathrm{PAIR\_RTOL}\,(n + 2)\,(|w_i|^\top |x| + |w_i|^\top |y| + 2 |\alpha_i|),

where :math:`p_i(x) = \langle w_i, x\rangle - \alpha_i`: the difference is at the level of
the rounding of computing the outputs (Higham's bound for a dot product is
:math:`(n + 2) u` times the same terms, :math:`u = 2^{-53}`), relative to the size of the
numbers involved, so the check means the same at every scale. The points must also be apart
by at least ``PAIR_MIN_SEPARATION`` relative to their size: far above the rounding level, and
far enough that a pair whose outputs differ only to second order in its separation (two
points of a sphere turned by a small angle, say) cannot pass for a collision. Every pair the
package constructs collides exactly in real arithmetic (it moves along a direction the active
rows do not see, or reflects across a hyperplane they lie in), so only rounding separates its
outputs. The active rows must also agree wherever their sign is certain at both points.

Every number is first multiplied by an exact power of two per row and per pair (which changes
no comparison), so weights of size 1e-200 or points of size 1e300 neither underflow nor overflow.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .tolerances import PAIR_MIN_SEPARATION, PAIR_RTOL

__all__ = ["PAIR_RTOL", "PAIR_MIN_SEPARATION", "collides", "network_collision", "pow2_scale"]

# PAIR_RTOL and PAIR_MIN_SEPARATION live with every other tolerance in relu_frames_nb._util.tolerances

_U = 2.0**-53


def pow2_scale(a: np.ndarray, axis=None) -> np.ndarray:
    """A power of two ``2^-e`` with ``max|a| * 2^-e`` in ``[0.5, 1)`` (1 where ``a`` is all zero)."""
    a = np.asarray(a, dtype=float)
    top = np.max(np.abs(a), axis=axis) if a.size else np.float64(0.0)
    _, e = np.frexp(top)
    return np.where(top > 0, np.ldexp(1.0, -e), 1.0)


def _norm(v: np.ndarray) -> float:
    s = float(pow2_scale(v))
    return float(np.linalg.norm(v * s)) / s


def collides(W: np.ndarray, alpha: np.ndarray, x: np.ndarray, y: np.ndarray, *, rtol: float = PAIR_RTOL) -> bool:
    """True when ``x != y`` and ``ReLU(W x - alpha) == ReLU(W y - alpha)`` (see the module docstring).

    Membership of the points in a domain is not checked here.
    """
    W = np.asarray(W, dtype=float)
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return False
    if np.array_equal(x, y):
        return False
    size = max(_norm(x), _norm(y))
    sep = _norm(x - y)
    if not sep > PAIR_MIN_SEPARATION * size:
        return False
    if W.shape[0] == 0:
        return True
    # exact rescaling: rows by 2^-e_i, points by 2^-f (no comparison below changes)
    r = pow2_scale(np.c_[W, alpha], axis=1)
    p = float(pow2_scale(np.r_[x, y]))
    Ws, As = W * r[:, None], alpha * r * p
    xs, ys = x * p, y * p
    n = W.shape[1]
    absW = np.abs(Ws)
    pre_x, pre_y = Ws @ xs - As, Ws @ ys - As
    if not (np.all(np.isfinite(pre_x)) and np.all(np.isfinite(pre_y))):
        return False
    g_x = 1.01 * (n + 2) * _U * (absW @ np.abs(xs) + np.abs(As))
    g_y = 1.01 * (n + 2) * _U * (absW @ np.abs(ys) + np.abs(As))
    diff = np.abs(np.maximum(pre_x, 0.0) - np.maximum(pre_y, 0.0))
    tol = rtol * (n + 2) * (absW @ (np.abs(xs) + np.abs(ys)) + 2 * np.abs(As))
    if np.any(diff > tol):
        return False
    # the same active rows, where the sign is certain at both points
    sure_on_x, sure_off_x = pre_x > g_x, pre_x < -g_x
    sure_on_y, sure_off_y = pre_y > g_y, pre_y < -g_y
    return not bool(np.any((sure_on_x & sure_off_y) | (sure_off_x & sure_on_y)))


def network_collision(layers: Sequence[tuple[np.ndarray, np.ndarray]], x: np.ndarray, y: np.ndarray) -> int | None:
    """The first layer (1-based) after which the distinct inputs ``x, y`` collide, or None.

    ``layers`` are ``(W, alpha)`` pairs in the paper's convention (``ReLU(W h - alpha)``).
    Later layers are functions, so a collision after layer ``k`` is a collision of the network.
    """
    hx = np.asarray(x, dtype=float).reshape(-1)
    hy = np.asarray(y, dtype=float).reshape(-1)
    if np.array_equal(hx, hy):
        return None
    for k, (W, alpha) in enumerate(layers, start=1):
        if collides(W, alpha, hx, hy):
            return k
        with np.errstate(over="ignore", invalid="ignore"):
            hx = np.maximum(hx @ np.asarray(W).T - alpha, 0.0)
            hy = np.maximum(hy @ np.asarray(W).T - alpha, 0.0)
        if np.array_equal(hx, hy):  # equal after rounding but not within the check: no proof
            return None
    return None
