r"""Interval bounds: a box that encloses the image of a ReLU layer on a domain.

Layer :math:`k+1` of a network only sees the image of layer :math:`k`. That image lies in
the box :math:`\prod_i [\ell_i, u_i]` with

.. math:: u_i = \max_{x \in K} (\langle w_i, x\rangle + b_i)_+, \qquad
          \ell_i = \min_{x \in K} (\langle w_i, x\rangle + b_i)_+ ,

or in any box with smaller lower and larger upper ends (interval bound propagation). The
bounds come from the domain itself (:meth:`~relu_frames_nb.domains.Domain.support`): exact on
a box, a ball, a finite data set and a convex hull, by one LP per row on a polytope, and
:math:`\pm r \|w_i\| + b_i` from the radius :math:`r` of any other bounded domain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..domains import Domain

__all__ = ["preactivation_bounds", "relu_box"]


def _box_bounds(W: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore"):  # 0 * inf: a zero weight on an unbounded coordinate
        a, c = W * lo, W * hi
    a = np.where(W == 0, 0.0, a)
    c = np.where(W == 0, 0.0, c)
    return np.minimum(a, c).sum(axis=1) + b, np.maximum(a, c).sum(axis=1) + b


def preactivation_bounds(W: Any, b: Any, K: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Lower and upper bounds of :math:`W x + b` over ``K``, coordinate-wise.

    Parameters
    ----------
    W : ndarray, shape (m, n)
    b : ndarray, shape (m,)
    K : Domain or tuple (lo, hi) of ndarrays of shape (n,)
        The domain (its :meth:`~relu_frames_nb.domains.Domain.support`), or a box given by its
        ends (entries may be infinite).

    Returns
    -------
    lower, upper : ndarray, shape (m,)
        Valid bounds (``-inf``/``inf`` when ``K`` is unbounded in a direction that matters);
        exact for boxes, balls, data sets and convex hulls, exact up to the LP tolerance for polytopes.

    Examples
    --------
    >>> import numpy as np
    >>> from relu_frames_nb.domains import Ball
    >>> lo, hi = preactivation_bounds(np.array([[3.0, 4.0]]), np.array([1.0]), Ball(2, 2.0))
    >>> lo.round(9).tolist(), hi.round(9).tolist()
    ([-9.0], [11.0])
    """
    W = np.asarray(W, dtype=float)
    b = np.asarray(b, dtype=float)
    if isinstance(K, tuple):
        return _box_bounds(W, b, np.asarray(K[0], dtype=float), np.asarray(K[1], dtype=float))
    if not isinstance(K, Domain):
        raise TypeError(f"K must be a Domain or a (lo, hi) tuple; got {type(K).__name__}")
    lo, hi = K.support(W)
    return lo + b, hi + b


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
