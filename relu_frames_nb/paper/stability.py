r"""Stability of the reconstruction (Section "Stability of the reconstruction") and the image radius.

The quantities are frame bounds of active sub-frames :math:`\Phi_{I_x}`,
:math:`I_x = I_x^\alpha = \{i : \langle x, \phi_i\rangle \ge \alpha_i\}`: the smallest and
largest eigenvalues of :math:`\Phi^T \mathrm{diag}(1_{I_x}) \Phi`, computed in a batch, once
per distinct active pattern.

What holds for every bias
-------------------------
If two points share the active elements ``J`` (:math:`J \subseteq I_y \cap I_z`), the biases
cancel on ``J`` and

.. math:: \|C_\alpha y - C_\alpha z\|^2 \ge \sum_{i \in J} \langle y - z, \phi_i\rangle^2 \ge A_J \|y - z\|^2 ,

and always :math:`\|C_\alpha y - C_\alpha z\|^2 \le \|\Phi (y - z)\|^2 \le B \|y - z\|^2` (ReLU is
1-Lipschitz). This is what :func:`local_stability` uses (Prop. "local stability").

Errata
------
* The frame-type inequality (reluframe), :math:`A_\alpha\|x\|^2 \le \|C_\alpha x\|^2 \le
  B_\alpha \|x\|^2`, holds for :math:`\alpha = 0` but not for other biases. Triangle frame,
  :math:`\alpha = -1/2`, :math:`x = \phi_1`: all three elements are active,
  :math:`B_\alpha \le 3/2`, but :math:`C_\alpha x = (3/2, 0, 0)` has squared norm
  :math:`9/4`. For :math:`\alpha > 0` the lower inequality fails near the hyperplanes.
  The difference form above is the valid statement.
* Hence Lemma "image" (:math:`C_\alpha(K) \subseteq \mathbb{B}^+_{\sqrt{B_\alpha} M}`) needs
  :math:`\alpha \ge 0`; :func:`image_radius` returns :math:`\sqrt{B_\alpha}M +
  \|\max(-\alpha, 0)\|`, which is the Lemma's value for :math:`\alpha \ge 0` and a valid
  bound for every bias. The radius is also not minimal in general (the Lemma says it is):
  triangle frame, :math:`\alpha = 0`, unit ball: :math:`\sup \|C_0 x\| = 1 < \sqrt{3/2}`,
  because the top eigenvector of an active sub-frame need not lie in its own region.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.patterns import NORMAL_EQ_MIN_RATIO, group_patterns, pattern_spectra, spans_rows
from .._util.validation import as_count, as_index_set, as_nonnegative, as_points, as_positive
from ..domains import Domain
from ..errors import DimensionMismatchError, InputError, NotAFrameError, NotInjectiveError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer, as_layer

__all__ = [
    "active_bounds",
    "active_lower_bound",
    "active_upper_bound",
    "LocalStability",
    "local_stability",
    "GlobalBounds",
    "global_bounds",
    "image_radius",
    "measured_lipschitz",
]


def _active_mask(layer: ReLULayer, pts: np.ndarray, strict: bool, tol: float) -> np.ndarray:
    pre = pts @ layer.frame.vectors.T - layer.alpha
    return pre > tol if strict else pre >= -tol


def _bounds_of_masks(phi: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``mask``: extreme eigenvalues of the active frame operator (clipped at 0)."""
    if mask.shape[0] == 0:
        return np.zeros(0), np.zeros(0)
    first, inverse = group_patterns(mask)
    spec = np.maximum(pattern_spectra(phi, mask[first]), 0.0)
    return spec[inverse, 0], spec[inverse, 1]


def active_bounds(layer: ReLULayer, X: Any, *, strict: bool = False, tol: float = 0.0) -> tuple[Any, Any]:
    r"""Optimal frame bounds :math:`(A_x, B_x)` of the active sub-frame at each point.

    Parameters
    ----------
    layer : ReLULayer
    X : array_like, shape (N, n) or (n,)
        Points.
    strict : bool, default False
        Use :math:`\{i : \langle x, \phi_i\rangle > \alpha_i + tol\}` instead of the
        active set :math:`I_x^\alpha = \{i : \langle x, \phi_i\rangle \ge \alpha_i - tol\}`.
    tol : float, default 0

    Returns
    -------
    A, B : ndarray, shape (N,) (or floats for one point)
        Smallest and largest eigenvalue of :math:`\Phi^T\mathrm{diag}(1_{I_x})\Phi`
        (``A = 0`` where the active sub-frame does not span, up to rounding).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
    >>> A, B = active_bounds(L, [[1.0, 2.0], [-1.0, 0.5]])
    >>> A.tolist(), B.tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    L = as_layer(layer)
    tol = as_nonnegative(tol, "tol")
    pts, single = as_points(X, L.n, "X")
    A, B = _bounds_of_masks(L.frame.vectors, _active_mask(L, pts, bool(strict), tol))
    return (float(A[0]), float(B[0])) if single else (A, B)


def active_lower_bound(layer: ReLULayer, X: Any, *, strict: bool = False, tol: float = 0.0) -> Any:
    r"""Lower frame bound :math:`A_x` of the active sub-frame per point, shape ``(N,)`` (see :func:`active_bounds`).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    >>> round(active_lower_bound(L, [0.0, 1.0]), 12)   # only phi_1 is active: does not span
    0.0
    """
    return active_bounds(layer, X, strict=strict, tol=tol)[0]


def active_upper_bound(layer: ReLULayer, X: Any, *, strict: bool = False, tol: float = 0.0) -> Any:
    r"""Upper frame bound :math:`B_x` of the active sub-frame per point, shape ``(N,)`` (see :func:`active_bounds`).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> active_upper_bound(L, [0.0, 0.0])   # all active: the frame bound 3/2
    1.5
    """
    return active_bounds(layer, X, strict=strict, tol=tol)[1]


@dataclass(frozen=True, eq=False)
class LocalStability:
    r"""Local lower Lipschitz stability near a point (Prop. "local stability").

    Attributes
    ----------
    kappa : float
        :math:`1 / A_J`: :math:`\|y - z\|^2 \le \kappa \|C_\alpha y - C_\alpha z\|^2` for all
        ``y, z`` in the open ball of radius ``eps`` around ``x0``.
    lower_frame_bound, upper_frame_bound : float
        :math:`A_J, B_J`.
    eps : float
        Radius of the ball where the bound is guaranteed: the distance from ``x0`` to the
        nearest hyperplane :math:`\langle x, \phi_i\rangle = \alpha_i`, ``i in J``. ``0``
        when some element of ``J`` is only just active (then the Prop. gives the bound for
        biases :math:`\beta < \alpha` only).
    eps_pattern : float
        Distance to the nearest hyperplane of *any* element: within it the active set is
        constant, the layer is affine, and for ``J`` the whole active set the bound is
        attained along ``direction`` (``kappa`` is the best constant there).
    J : ndarray of int
        The index set used.
    direction : ndarray, shape (n,)
        Unit eigenvector of :math:`\Phi_J^T\Phi_J` for :math:`A_J` (the worst direction).
    x0 : ndarray, shape (n,)
    """

    kappa: float
    lower_frame_bound: float
    upper_frame_bound: float
    eps: float
    eps_pattern: float
    J: np.ndarray
    direction: np.ndarray
    x0: np.ndarray


def local_stability(
    layer: ReLULayer, x0: Any, *, J: Any = None, rank_tol: float = DEFAULT_RANK_TOL
) -> LocalStability:
    r"""The local stability constant :math:`\kappa_{x_0} = 1/A_J` and its radius (Prop. and Cor. "local stability").

    Parameters
    ----------
    layer : ReLULayer
    x0 : array_like, shape (n,)
        The point.
    J : array_like of int or bool mask, optional
        A subset of the active set :math:`I_{x_0}^\alpha` with :math:`\Phi_J` a frame.
        Default: the strictly active set :math:`\{i : \langle x_0, \phi_i\rangle > \alpha_i\}`
        (Cor.: then the bound holds for :math:`\alpha` itself, with ``eps > 0``).
    rank_tol : float, default 1e-10
        Tolerance for deciding that :math:`\Phi_J` spans.

    Returns
    -------
    LocalStability

    Raises
    ------
    NotInjectiveError
        If ``J`` is None and the strictly active sub-frame does not span.
    NotAFrameError
        If the given ``J`` does not span.
    InputError
        If the given ``J`` contains an element that is inactive at ``x0``.

    Notes
    -----
    For ``y, z`` in the open ball :math:`B_\varepsilon(x_0)`,
    :math:`\varepsilon = \min_{i \in J} (\langle x_0, \phi_i\rangle - \alpha_i)/\|\phi_i\|`,
    every ``i in J`` is active at ``y`` and ``z``, so
    :math:`\|C_\alpha y - C_\alpha z\|^2 \ge \|\Phi_J(y - z)\|^2 \ge A_J\|y - z\|^2`.
    Only the hyperplanes of ``J`` matter; the radius ``eps_pattern`` (all hyperplanes) keeps
    the whole active pattern fixed, which is needed only for sharpness.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
    >>> s = local_stability(L, [1.0, 2.0])
    >>> s.kappa, s.eps, s.J.tolist()
    (1.0, 1.0, [0, 1])
    """
    L = as_layer(layer)
    rank_tol = as_positive(rank_tol, "rank_tol")
    pt, single = as_points(x0, L.n, "x0")
    if not single:
        raise InputError(f"x0 must be one point of shape ({L.n},); got shape {pt.shape}.")
    x = pt[0]
    phi, norms = L.frame.vectors, L.frame.norms
    pre = phi @ x - L.alpha
    if J is None:
        idx = np.flatnonzero(pre > 0)
        ok, rank = spans_rows(phi, idx, rank_tol)
        if not ok:
            raise NotInjectiveError(
                f"x0: the strictly active elements {{i : <x0, phi_i> > alpha_i}} must span R^{L.n}; got {idx.size} "
                f"element(s) of rank {rank}. No stability constant exists for this bias near x0 (if the active set "
                "including equality spans, the Prop. gives one for biases beta < alpha: pass that J)."
            )
    else:
        idx = np.sort(as_index_set(J, L.m, "J"))
        inactive = idx[pre[idx] < 0]
        if inactive.size:
            raise InputError(
                f"J must be a subset of the active set I_x0 = {{i : <x0, phi_i> >= alpha_i}}; got inactive "
                f"element(s) {inactive[:10].tolist()}."
            )
        ok, rank = spans_rows(phi, idx, rank_tol)
        if not ok:
            raise NotAFrameError(f"Phi_J must span R^{L.n}; got rank {rank} for J = {idx.tolist()[:20]}.")
    sub = phi[idx]
    w, V = np.linalg.eigh(sub.T @ sub)
    A_J, B_J = float(w[0]), float(w[-1])
    dist = np.abs(pre) / norms
    eps = float(np.min(np.maximum(pre[idx], 0.0) / norms[idx]))
    return LocalStability(
        kappa=1.0 / A_J,
        lower_frame_bound=A_J,
        upper_frame_bound=B_J,
        eps=eps,
        eps_pattern=float(dist.min()),
        J=idx,
        direction=V[:, 0].copy(),
        x0=x.copy(),
    )


@dataclass(frozen=True, eq=False)
class GlobalBounds:
    r"""Sampled estimates of :math:`A_\alpha, B_\alpha` (extreme frame bounds of active sub-frames).

    Attributes
    ----------
    lower : float
        :math:`\min_x A_x` over the samples. The true :math:`A_\alpha` (an infimum over
        ``K``) is at most this: an optimistic estimate unless ``K`` is the sample set itself.
    upper : float
        :math:`\max_x B_x` over the samples; the true :math:`B_\alpha` is at least this.
    kind : str
        ``"exact"`` for a finite sample set (``Samples`` or an array), else
        ``"sampled estimate"``.
    n_samples : int
    n_patterns : int
        Number of distinct active patterns seen.
    n_not_spanning : int
        Samples whose active sub-frame does not span (then ``lower`` is 0).
    argmin, argmax : ndarray, shape (n,)
        Samples where ``lower`` and ``upper`` are attained.
    """

    lower: float
    upper: float
    kind: str
    n_samples: int
    n_patterns: int
    n_not_spanning: int
    argmin: np.ndarray
    argmax: np.ndarray


def _points_of(K: Any, n: int, n_samples: int, seed: Any) -> tuple[np.ndarray, bool]:
    if isinstance(K, Domain):
        if K.n != n:
            raise DimensionMismatchError(f"K must be a domain in R^{n} (the frame's dimension); got {K!r}.")
        if K.finite:
            return np.array(K.points), True
        return K.sample(as_count(n_samples, "n_samples"), seed=seed), False
    pts, _ = as_points(K, n, "K")
    return pts, True


def global_bounds(
    layer: ReLULayer, K: Any, *, n_samples: int = 20_000, seed: Any = 0, rank_tol: float = DEFAULT_RANK_TOL
) -> GlobalBounds:
    r"""Estimate :math:`A_\alpha, B_\alpha` of eq. (reluframe) as extremes over samples.

    Parameters
    ----------
    layer : ReLULayer
    K : Domain or array_like, shape (N, n)
        A domain (sampled ``n_samples`` times with ``seed``) or the samples themselves.
    n_samples : int, default 20000
    seed : int or Generator, default 0
    rank_tol : float, default 1e-10
        Tolerance for counting active sub-frames that do not span.

    Returns
    -------
    GlobalBounds

    Notes
    -----
    For ``y, z`` with the same active set :math:`I`,
    :math:`\|C_\alpha y - C_\alpha z\|^2 = \|\Phi_I(y - z)\|^2 \in [A_I, B_I]\,\|y - z\|^2`,
    so ``[lower, upper]`` brackets these ratios for pairs of the samples. Eq. (reluframe)
    itself (without differences) holds only for :math:`\alpha = 0`: see the module notes.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), 0.0)
    >>> g = global_bounds(L, rf.Sphere(3), n_samples=100)
    >>> g.lower, g.upper, g.kind
    (1.0, 1.0, 'sampled estimate')
    """
    L = as_layer(layer)
    rank_tol = as_positive(rank_tol, "rank_tol")
    pts, exact = _points_of(K, L.n, n_samples, seed)
    if pts.shape[0] == 0:
        raise InputError("K must provide at least one sample; got none.")
    phi = L.frame.vectors
    mask = _active_mask(L, pts, False, 0.0)
    first, inverse = group_patterns(mask)
    spec = np.maximum(pattern_spectra(phi, mask[first]), 0.0)
    span = spec[:, 0] > NORMAL_EQ_MIN_RATIO * spec[:, 1]
    for p in np.flatnonzero(~span):  # decide the doubtful ones with an SVD, as Frame.spans does
        span[p] = spans_rows(phi, np.flatnonzero(mask[first[p]]), rank_tol)[0]
    spec[~span, 0] = 0.0
    A, B = spec[inverse, 0], spec[inverse, 1]
    i, j = int(np.argmin(A)), int(np.argmax(B))
    return GlobalBounds(
        lower=float(A[i]),
        upper=float(B[j]),
        kind="exact" if exact else "sampled estimate",
        n_samples=int(pts.shape[0]),
        n_patterns=int(first.size),
        n_not_spanning=int(np.sum(~span[inverse])),
        argmin=pts[i].copy(),
        argmax=pts[j].copy(),
    )


def image_radius(
    layer: ReLULayer, K: Any, *, B_alpha: float | None = None, n_samples: int = 20_000, seed: Any = 0
) -> float:
    r"""Radius of a non-negative ball containing :math:`C_\alpha(K)` (Lemma "image", corrected).

    Returns :math:`\sqrt{B_\alpha}\,M + \|\max(-\alpha, 0)\|` with :math:`M = \sup_{x \in K}\|x\|`.
    For :math:`\alpha \ge 0` this is the Lemma's :math:`\sqrt{B_\alpha}M`. Proof: on the
    active set, :math:`0 \le \langle x,\phi_i\rangle - \alpha_i \le |\langle x,\phi_i\rangle| +
    \max(-\alpha_i, 0)`, so :math:`\|C_\alpha x\| \le \sqrt{B_x}\|x\| + \|\max(-\alpha,0)\|`.

    Parameters
    ----------
    layer : ReLULayer
    K : Domain or array_like, shape (N, n)
        A bounded domain or a finite sample set (then ``M`` is its largest norm).
    B_alpha : float, optional
        A known value or upper bound of :math:`B_\alpha`, e.g. ``layer.frame.bounds[1]``
        (then the radius is a guarantee). Default: :func:`global_bounds` over ``K``, exact
        for a sample set, a sampled estimate (possibly too small) for a domain.
    n_samples : int, default 20000
    seed : int or Generator, default 0

    Returns
    -------
    float

    Raises
    ------
    InputError
        If ``K`` is unbounded.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.plus_minus_basis(3), 0.0)
    >>> image_radius(L, rf.Ball(3, 2.0), n_samples=100)
    2.0
    """
    L = as_layer(layer)
    if isinstance(K, Domain):
        if K.n != L.n:
            raise DimensionMismatchError(f"K must be a domain in R^{L.n}; got {K!r}.")
        M = K.radius
    else:
        pts, _ = as_points(K, L.n, "K")
        if pts.shape[0] == 0:
            raise InputError("K must contain at least one point; got none.")
        M = float(np.max(np.linalg.norm(pts, axis=1)))
    if not np.isfinite(M):
        raise InputError(f"K must be bounded for an image radius; got {K!r} with radius inf.")
    if B_alpha is None:
        B_alpha = global_bounds(L, K, n_samples=n_samples, seed=seed).upper
    else:
        B_alpha = as_nonnegative(B_alpha, "B_alpha")
    return float(np.sqrt(B_alpha) * M + np.linalg.norm(np.maximum(-L.alpha, 0.0)))


def measured_lipschitz(layer: ReLULayer, Y: Any, Z: Any) -> np.ndarray:
    r"""Ratios :math:`\|y - z\|^2 / \|C_\alpha y - C_\alpha z\|^2` for pairs of rows.

    Parameters
    ----------
    layer : ReLULayer
    Y, Z : array_like, shape (N, n) or (n,)
        Paired points (row ``r`` of ``Y`` with row ``r`` of ``Z``).

    Returns
    -------
    ndarray, shape (N,) (or a float for one pair)
        ``inf`` where the outputs coincide but the inputs do not (a collision), ``nan``
        where ``y == z``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0)
    >>> float(measured_lipschitz(L, [1.0, 1.0], [2.0, 1.0]))
    1.0
    """
    L = as_layer(layer)
    y, single_y = as_points(Y, L.n, "Y")
    z, single_z = as_points(Z, L.n, "Z")
    if y.shape != z.shape:
        raise DimensionMismatchError(f"Y and Z must have the same shape; got {y.shape} and {z.shape}.")
    num = np.sum((y - z) ** 2, axis=1)
    den = np.sum((L(y) - L(z)) ** 2, axis=1)
    out = np.full(num.shape, np.nan)
    pos = den > 0
    out[pos] = num[pos] / den[pos]
    out[~pos & (num > 0)] = np.inf
    return float(out[0]) if (single_y and single_z) else out
