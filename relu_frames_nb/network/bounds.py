r"""Interval bounds: a box that encloses the image of a ReLU layer on a domain.

Layer :math:`k+1` of a network only sees the image of layer :math:`k`. That image lies in
the box :math:`\prod_i [\ell_i, u_i]` with

.. math:: u_i = \max_{x \in K} (\langle w_i, x\rangle + b_i)_+, \qquad
          \ell_i = \min_{x \in K} (\langle w_i, x\rangle + b_i)_+ ,

or in any box with smaller lower and larger upper ends (interval bound propagation). The
bounds are exact on a box (:math:`\sum_j \max(w_{ij} lo_j, w_{ij} hi_j) + b_i`), a finite
data set and a convex hull (extremes over the points), by one LP per row on a polytope,
and :math:`\pm r \|w_i\| + b_i` from the radius :math:`r` of any other bounded domain (the
ball :math:`B_r` attains it).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ..domains import Domain

__all__ = ["preactivation_bounds", "relu_box"]

#: LP optima are moved outward by this relative amount (solver tolerance), so bounds stay valid
LP_PADDING = 1e-7


def _box_bounds(W: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore"):  # 0 * inf: a zero weight on an unbounded coordinate
        a, c = W * lo, W * hi
    a = np.where(W == 0, 0.0, a)
    c = np.where(W == 0, 0.0, c)
    return np.minimum(a, c).sum(axis=1) + b, np.maximum(a, c).sum(axis=1) + b


def _lp_bounds(W: np.ndarray, b: np.ndarray, K: Any) -> tuple[np.ndarray, np.ndarray]:
    from scipy.optimize import linprog

    d = K.linear_description()
    lower, upper = np.empty(W.shape[0]), np.empty(W.shape[0])
    bounds = list(zip(d.lower, d.upper))
    kw = {"A_ub": d.A_ub if d.A_ub.shape[0] else None, "b_ub": d.b_ub if d.A_ub.shape[0] else None,
          "A_eq": d.A_eq if d.A_eq.shape[0] else None, "b_eq": d.b_eq if d.A_eq.shape[0] else None}  # fmt: skip
    try:  # HiGHS may print from C++ on some SciPy builds
        from ..exact._ldp import quiet
    except ImportError:  # pragma: no cover
        quiet = contextlib.nullcontext
    for i, w in enumerate(W):
        c = np.concatenate([w, np.zeros(d.n_extra)])
        with quiet():
            lo_res = linprog(c, bounds=bounds, method="highs", **kw)
            hi_res = linprog(-c, bounds=bounds, method="highs", **kw)
        if lo_res.status != 0 or hi_res.status != 0:
            return np.full(W.shape[0], -np.inf), np.full(W.shape[0], np.inf)
        pad = LP_PADDING * (1.0 + np.abs(w) @ np.maximum(np.abs(d.lower[: d.n]), np.abs(d.upper[: d.n])))
        lower[i], upper[i] = lo_res.fun - pad, -hi_res.fun + pad
    return lower + b, upper + b


def preactivation_bounds(W: Any, b: Any, K: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Lower and upper bounds of :math:`W x + b` over ``K``, coordinate-wise.

    Parameters
    ----------
    W : ndarray, shape (m, n)
    b : ndarray, shape (m,)
    K : Domain or tuple (lo, hi) of ndarrays of shape (n,)
        The domain, or a box given by its ends (entries may be infinite).

    Returns
    -------
    lower, upper : ndarray, shape (m,)
        Valid bounds (``-inf``/``inf`` when ``K`` is unbounded in a direction that matters);
        exact for boxes, data sets and convex hulls, exact up to ``LP_PADDING`` for polytopes.

    Examples
    --------
    >>> import numpy as np
    >>> from relu_frames_nb.domains import Ball
    >>> preactivation_bounds(np.array([[3.0, 4.0]]), np.array([1.0]), Ball(2, 2.0))
    (array([-9.]), array([11.]))
    """
    W = np.asarray(W, dtype=float)
    b = np.asarray(b, dtype=float)
    if isinstance(K, tuple):
        return _box_bounds(W, b, np.asarray(K[0], dtype=float), np.asarray(K[1], dtype=float))
    if not isinstance(K, Domain):
        raise TypeError(f"K must be a Domain or a (lo, hi) tuple; got {type(K).__name__}")
    points = getattr(K, "points", None)
    if points is not None:  # a data set or a convex hull: the extremes are attained at the points
        P = points @ W.T + b
        return P.min(axis=0), P.max(axis=0)
    if not K.bounded:
        return np.full(W.shape[0], -np.inf), np.full(W.shape[0], np.inf)
    r = K.radius
    if K.nonnegative:  # x >= 0, |x| <= r
        lower = -r * np.linalg.norm(np.minimum(W, 0.0), axis=1) + b
        upper = r * np.linalg.norm(np.maximum(W, 0.0), axis=1) + b
    else:
        norms = np.linalg.norm(W, axis=1)
        lower, upper = b - r * norms, b + r * norms
    if hasattr(K, "bounding_box"):
        box_lo, box_hi = _box_bounds(W, b, *K.bounding_box())
        lower, upper = np.maximum(lower, box_lo), np.minimum(upper, box_hi)
        if hasattr(K, "linear_description") and not hasattr(K, "lo"):  # a polytope: one LP per row
            lp_lo, lp_hi = _lp_bounds(W, b, K)
            lower, upper = np.maximum(lower, lp_lo), np.minimum(upper, lp_hi)
    return lower, upper


def relu_box(W: Any, b: Any, K: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""A box ``[lo, hi]`` enclosing :math:`\{\mathrm{ReLU}(W x + b) : x \in K\}`.

    ``lo = max(lower, 0)`` and ``hi = max(upper, 0)`` with the bounds of
    :func:`preactivation_bounds`; a coordinate with ``lo == hi`` is constant on the image
    (e.g. a unit that is never active on ``K``: ``lo = hi = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> relu_box(np.array([[1.0, 0.0], [-1.0, -1.0]]), np.array([0.0, -5.0]), (np.zeros(2), np.ones(2)))
    (array([0., 0.]), array([1., 0.]))
    """
    lower, upper = preactivation_bounds(W, b, K)
    return np.maximum(lower, 0.0), np.maximum(upper, 0.0)
