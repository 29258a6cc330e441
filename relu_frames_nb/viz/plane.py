r"""Matplotlib views of ReLU layers on the plane (frames for :math:`\mathbb{R}^2`).

Every ``draw_*`` function draws onto a given :class:`matplotlib.axes.Axes` and returns
it, so the pieces combine freely. The numerical content comes from the core
(:func:`~relu_frames_nb.rectifying.is_rectifying`, most correlated bases, polytope
biases, collisions); this module only draws. Element labels are 1-based, as in the
paper (:math:`\phi_1, \dots, \phi_m`); function arguments are 0-based indices.

:class:`PlaneView` keeps the artists of one picture and updates them in place (for the
2-D explorer): a bias change recomputes only boolean masks on a precomputed grid and
calls ``set_data`` on existing images and lines.

:func:`figure1`, :func:`figure2`, :func:`figure3` redraw the paper's Figures 1-3.

matplotlib is imported inside the functions, never at import time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

import numpy as np

from .._validation import as_bias, as_count, as_points, as_positive
from ..domains import Ball, Domain, PositiveBall, RealSpace, Samples, Shell, Sphere
from ..errors import DimensionMismatchError, InputError
from ..frames import Frame, as_frame
from ..layer import ReLULayer, as_layer
from . import palette

__all__ = [
    "OVERLAYS",
    "default_extent",
    "grid_points",
    "halfspace_segment",
    "halfspace_polygon",
    "boundary_points",
    "active_counts",
    "basis_ids",
    "draw_frame_vectors",
    "draw_halfspaces",
    "draw_active_count",
    "draw_maximal_domain",
    "draw_correlated_partition",
    "draw_domain",
    "draw_polygon",
    "draw_collision",
    "draw_polytope_minima",
    "style_axes",
    "PlaneView",
    "figure1",
    "figure2",
    "figure3",
]

#: overlays understood by :class:`PlaneView`, bottom to top
OVERLAYS = ("count", "partition", "maximal", "halfspaces", "domain", "vectors", "minima", "collision")

_Z = {name: k for k, name in enumerate(OVERLAYS)}


# ---------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------


def _frame2d(frame: Any) -> Frame:
    F = as_frame(frame)
    if F.n != 2:
        raise DimensionMismatchError(f"frame must be a frame for R^2 (n = 2) to be drawn on the plane; got n = {F.n}.")
    return F


def _layer2d(layer: Any) -> ReLULayer:
    L = as_layer(layer)
    if L.n != 2:
        raise DimensionMismatchError(f"layer must act on R^2 (n = 2) to be drawn on the plane; got n = {L.n}.")
    return L


def _domain2d(domain: Any) -> Domain:
    if not isinstance(domain, Domain):
        raise InputError(f"domain must be a Domain (Ball, Sphere, Shell, PositiveBall, RealSpace, Samples); got {domain!r}.")
    if domain.n != 2:
        raise DimensionMismatchError(f"domain must lie in R^2; got {domain!r}.")
    return domain


def _axes(ax: Any):
    if ax is None or not hasattr(ax, "add_artist"):
        raise InputError(f"ax must be a matplotlib Axes; got {type(ax).__name__}. Create one with plt.subplots().")
    return ax


def _extent(extent: Any) -> tuple[float, float, float, float]:
    if np.isscalar(extent):
        R = as_positive(extent, "extent")
        return (-R, R, -R, R)
    try:
        x0, x1, y0, y1 = (float(v) for v in extent)
    except (TypeError, ValueError):
        raise InputError(f"extent must be a number R or (xmin, xmax, ymin, ymax); got {extent!r}.") from None
    if not (np.isfinite([x0, x1, y0, y1]).all() and x0 < x1 and y0 < y1):
        raise InputError(f"extent must be finite with xmin < xmax and ymin < ymax; got {extent!r}.")
    return (x0, x1, y0, y1)


def default_extent(domain: Domain | None = None, *, margin: float = 0.18, unbounded: float = 2.0) -> tuple[float, ...]:
    """A square plotting window around ``domain``: ``radius * (1 + margin)`` in every direction.

    Parameters
    ----------
    domain : Domain, optional
        The domain; an unbounded one (or ``None``) gets the half-width ``unbounded``.
    margin : float, default 0.18
        Relative margin around the domain.
    unbounded : float, default 2.0
        Half-width used for unbounded domains.

    Returns
    -------
    tuple of float
        ``(xmin, xmax, ymin, ymax)``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> default_extent(rf.Ball(2, 1.0), margin=0.25)
    (-1.25, 1.25, -1.25, 1.25)
    """
    R = unbounded if domain is None or not domain.bounded else (1.0 + margin) * domain.radius
    return (-R, R, -R, R)


@lru_cache(maxsize=16)
def _grid_cached(extent: tuple[float, float, float, float], resolution: int) -> np.ndarray:
    x0, x1, y0, y1 = extent
    xs = np.linspace(x0, x1, resolution)
    ys = np.linspace(y0, y1, resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts.setflags(write=False)
    return pts


def grid_points(extent: Any, *, resolution: int = 241) -> np.ndarray:
    """Points of a ``resolution x resolution`` grid over ``extent``, row-major from the bottom.

    Parameters
    ----------
    extent : float or tuple of float
        Half-width ``R`` (the square ``[-R, R]^2``) or ``(xmin, xmax, ymin, ymax)``.
    resolution : int, default 241
        Points per axis.

    Returns
    -------
    ndarray, shape (resolution**2, 2)
        Read-only; reshape values to ``(resolution, resolution)`` for ``imshow(origin="lower")``.

    Examples
    --------
    >>> grid_points(1.0, resolution=3)[:3].tolist()
    [[-1.0, -1.0], [0.0, -1.0], [1.0, -1.0]]
    """
    return _grid_cached(_extent(extent), as_count(resolution, "resolution", minimum=2))


# ---------------------------------------------------------------------------------
# Geometry helpers (pure numpy)
# ---------------------------------------------------------------------------------


def halfspace_segment(phi: Any, alpha: float, extent: Any) -> np.ndarray | None:
    r"""The boundary line :math:`\{x : \langle x, \phi\rangle = \alpha\}` clipped to a box.

    Parameters
    ----------
    phi : array_like, shape (2,)
        A non-zero vector.
    alpha : float
        The offset.
    extent : float or tuple of float
        The box, as for :func:`grid_points`.

    Returns
    -------
    ndarray, shape (2, 2), or None
        The two end points, or ``None`` when the line misses the box.

    Examples
    --------
    >>> halfspace_segment([0.0, 1.0], 0.5, 1.0).tolist()
    [[-1.0, 0.5], [1.0, 0.5]]
    """
    p = _vec2(phi, "phi")
    a = float(alpha)
    x0, x1, y0, y1 = _extent(extent)
    nn = p @ p
    base = a * p / nn
    d = np.array([-p[1], p[0]]) / np.sqrt(nn)
    t_lo, t_hi = -np.inf, np.inf
    for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
        if abs(d[k]) < 1e-15:
            if not lo <= base[k] <= hi:
                return None
            continue
        ta, tb = (lo - base[k]) / d[k], (hi - base[k]) / d[k]
        t_lo, t_hi = max(t_lo, min(ta, tb)), min(t_hi, max(ta, tb))
    if t_lo > t_hi:
        return None
    seg = np.array([base + t_lo * d, base + t_hi * d])
    if d[0] < 0 or (d[0] == 0 and d[1] < 0):
        seg = seg[::-1]
    return seg


def _distinct_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a bool matrix: the index of one row per distinct row, and each row's distinct-row id.

    Rows are packed into 64-bit words and sorted lexicographically (much faster than
    ``np.unique(..., axis=0)``, which sorts a void view).
    """
    N, m = mask.shape
    packed = np.packbits(mask, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    words = np.ascontiguousarray(packed).view(np.uint64)
    order = np.lexsort(words.T[::-1]) if words.shape[1] > 1 else np.argsort(words[:, 0], kind="stable")
    sw = words[order]
    new = np.ones(N, dtype=bool)
    if N > 1:
        new[1:] = np.any(sw[1:] != sw[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(N, dtype=np.intp)
    inverse[order] = group
    return order[new], inverse


def _segments(phi: np.ndarray, alpha: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """All boundary lines clipped to the box at once, shape ``(m, 2, 2)`` (NaN where a line misses it)."""
    x0, x1, y0, y1 = box
    nn = np.einsum("ij,ij->i", phi, phi)
    base = alpha[:, None] * phi / nn[:, None]
    d = np.column_stack([-phi[:, 1], phi[:, 0]]) / np.sqrt(nn)[:, None]
    lo = np.full(len(phi), -np.inf)
    hi = np.full(len(phi), np.inf)
    miss = np.zeros(len(phi), dtype=bool)
    for k, (a, b) in enumerate(((x0, x1), (y0, y1))):
        flat = np.abs(d[:, k]) < 1e-15
        miss |= flat & ((base[:, k] < a) | (base[:, k] > b))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta, tb = (a - base[:, k]) / d[:, k], (b - base[:, k]) / d[:, k]
        lo = np.where(flat, lo, np.maximum(lo, np.minimum(ta, tb)))
        hi = np.where(flat, hi, np.minimum(hi, np.maximum(ta, tb)))
    miss |= lo > hi
    seg = np.stack([base + lo[:, None] * d, base + hi[:, None] * d], axis=1)
    seg[miss] = np.nan
    return seg


def halfspace_polygon(phi: Any, alpha: float, extent: Any) -> np.ndarray:
    r"""The half-space :math:`\Omega = \{x : \langle x, \phi\rangle \ge \alpha\}` clipped to a box.

    Returns
    -------
    ndarray, shape (k, 2)
        The vertices of the convex polygon, counter-clockwise (``k = 0`` when empty).

    Examples
    --------
    >>> halfspace_polygon([0.0, 1.0], 0.0, 1.0).tolist()
    [[1.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, 0.0]]
    """
    p = _vec2(phi, "phi")
    a = float(alpha)
    x0, x1, y0, y1 = _extent(extent)
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    vals = box @ p - a
    out = []
    for k in range(4):
        cur, nxt = box[k], box[(k + 1) % 4]
        vc, vn = vals[k], vals[(k + 1) % 4]
        if vc >= 0:
            out.append(cur)
        if (vc >= 0) != (vn >= 0):
            t = vc / (vc - vn)
            out.append(cur + t * (nxt - cur))
    if not out:
        return np.zeros((0, 2))
    poly = np.array(out)
    # drop consecutive duplicates (a corner on the line)
    keep = np.ones(len(poly), dtype=bool)
    keep[1:] = np.any(np.abs(np.diff(poly, axis=0)) > 1e-14, axis=1)
    return poly[keep]


def _vec2(phi: Any, name: str) -> np.ndarray:
    p, single = as_points(phi, 2, name)
    if not single:
        raise InputError(f"{name} must be one vector of shape (2,); got shape {p.shape}.")
    p = p[0]
    if not np.any(p):
        raise InputError(f"{name} must be non-zero; got {p.tolist()}.")
    return p


def boundary_points(layer: Any, domain: Any, *, per_arc: int = 3, base: int = 720) -> np.ndarray:
    """Points on the boundary of a 2-D domain that hit every active pattern along it.

    On each circle of the boundary (radius ``r``, and ``s`` for a shell) and on the two
    segments of a positive ball, the active set changes only where a half-space boundary
    crosses; this returns those crossing points, ``per_arc`` points inside every arc
    between consecutive crossings, and ``base`` uniformly spaced points. Testing these
    points checks the rectifying property on the boundary exactly (every piece with a
    constant active set is visited). Unbounded domains and finite sample sets give an
    empty array.

    Parameters
    ----------
    layer : ReLULayer
        A layer on R^2.
    domain : Domain
        The domain.
    per_arc : int, default 3
        Points inside each arc between crossings.
    base : int, default 720
        Uniform points per circle.

    Returns
    -------
    ndarray, shape (N, 2)
    """
    L = _layer2d(layer)
    K = _domain2d(domain)
    per_arc = as_count(per_arc, "per_arc")
    base = as_count(base, "base", minimum=0)
    phi, alpha = L.frame.vectors, L.alpha
    norms = L.frame.norms
    theta_phi = np.arctan2(phi[:, 1], phi[:, 0])
    pieces = []

    def circle(R: float, lo: float, hi: float) -> None:
        c = alpha / (R * norms)
        ok = np.abs(c) <= 1.0
        acos = np.arccos(np.clip(c[ok], -1.0, 1.0))
        cross = np.concatenate([theta_phi[ok] + acos, theta_phi[ok] - acos])
        cross = np.mod(cross - lo, 2 * np.pi) + lo
        cross = cross[cross <= hi]
        t = np.unique(np.concatenate([cross, np.linspace(lo, hi, base + 2), [lo, hi]]))
        if hi - lo >= 2 * np.pi - 1e-12:
            t = np.append(t, t[0] + 2 * np.pi)
        frac = np.arange(1, per_arc + 1) / (per_arc + 1)
        mids = (t[:-1, None] + np.diff(t)[:, None] * frac[None, :]).ravel()
        ang = np.concatenate([t, mids])
        pieces.append(R * np.column_stack([np.cos(ang), np.sin(ang)]))

    def segment(a: np.ndarray, b: np.ndarray) -> None:
        d = b - a
        den = phi @ d
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (alpha - phi @ a) / den
        t = t[np.isfinite(t) & (t >= 0) & (t <= 1)]
        t = np.unique(np.concatenate([t, np.linspace(0, 1, max(base // 4, 2)), [0.0, 1.0]]))
        frac = np.arange(1, per_arc + 1) / (per_arc + 1)
        mids = (t[:-1, None] + np.diff(t)[:, None] * frac[None, :]).ravel()
        s = np.concatenate([t, mids])
        pieces.append(a + s[:, None] * d)

    if isinstance(K, (Ball, Sphere)):
        circle(K.r, 0.0, 2 * np.pi)
    elif isinstance(K, Shell):
        circle(K.r, 0.0, 2 * np.pi)
        if K.s > 0:
            circle(K.s, 0.0, 2 * np.pi)
    elif isinstance(K, PositiveBall):
        circle(K.r, 0.0, np.pi / 2)
        segment(np.zeros(2), np.array([K.r, 0.0]))
        segment(np.zeros(2), np.array([0.0, K.r]))
    if not pieces:
        return np.zeros((0, 2))
    pts = np.vstack(pieces)
    return pts[K.contains(pts, tol=1e-12)] if len(pts) else pts


def active_counts(layer: Any, X: Any) -> np.ndarray:
    r"""Number of active elements :math:`|I_x^\alpha|` at each point, shape ``(N,)``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> active_counts(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.4), [[0.0, 0.0], [0.0, 1.0]]).tolist()
    [3, 1]
    """
    L = as_layer(layer)
    return L.active_set(X).sum(axis=-1).astype(int)


def basis_ids(frame: Any, X: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Most correlated basis :math:`J^*(x)` of each point, as an id into a table of bases.

    Calls the core's ``most_correlated_basis``.

    Returns
    -------
    ids : ndarray of int, shape (N,)
    bases : ndarray of int, shape (k, n)
        The distinct bases (sorted index sets); ``bases[ids[j]]`` is :math:`J^*(x_j)`.
    """
    from ..bias.correlated import most_correlated_basis

    F = as_frame(frame)
    pts, _ = as_points(X, F.n, "X")
    J = np.sort(np.asarray(most_correlated_basis(F, pts)), axis=1)
    bases, ids = np.unique(J, axis=0, return_inverse=True)
    return ids.reshape(-1), bases


# ---------------------------------------------------------------------------------
# Drawing primitives (each returns the artists it made)
# ---------------------------------------------------------------------------------


def _label(i: int) -> str:
    return rf"$\phi_{{{i + 1}}}$"


def _domain_patch(K: Domain, **kw):
    from matplotlib.patches import Circle, Wedge

    if isinstance(K, (Ball, Sphere)):
        return Circle((0.0, 0.0), K.r, **kw)
    if isinstance(K, Shell):
        return Wedge((0.0, 0.0), K.r, 0.0, 360.0, width=K.r - K.s, **kw)
    if isinstance(K, PositiveBall):
        return Wedge((0.0, 0.0), K.r, 0.0, 90.0, **kw)
    return None


def _inside(K: Domain, X: np.ndarray) -> np.ndarray:
    if isinstance(K, Samples):
        return np.ones(X.shape[0], dtype=bool)
    if isinstance(K, Sphere):  # a curve: show its 2-D neighbourhood inside the ball
        return np.linalg.norm(X, axis=1) <= K.r * (1 + 1e-9)
    return K.contains(X, tol=1e-9)


def _image(ax, rgba: np.ndarray, extent, zorder: float, clip=None):
    im = ax.imshow(rgba, origin="lower", extent=extent, interpolation="nearest", zorder=zorder, aspect="equal")
    if clip is not None:
        ax.add_patch(clip)
        clip.set_visible(False)
        im.set_clip_path(clip)
    return im


def _count_lut(m: int) -> np.ndarray:
    from matplotlib import colormaps

    cmap = colormaps[palette.COUNT_CMAP]
    return cmap(np.linspace(0.0, 0.78, max(m, 1) + 1))


def _count_rgba(counts: np.ndarray, inside: np.ndarray, lut: np.ndarray, res: int, outside_alpha: float) -> np.ndarray:
    rgba = lut[np.minimum(counts, lut.shape[0] - 1)].copy()
    rgba[~inside, 3] = outside_alpha
    return rgba.reshape(res, res, 4)


def _maximal_rgba(ok: np.ndarray, inside: np.ndarray, res: int) -> np.ndarray:
    dark = np.array([0.22, 0.22, 0.27, 0.42])
    bad = np.append(palette.rgb(palette.BAD), 0.85)
    rgba = np.zeros((ok.shape[0], 4))
    rgba[ok] = dark
    rgba[~ok & inside] = bad
    return rgba.reshape(res, res, 4)


def _partition_rgba(ids: np.ndarray, n_ids: int, res: int, element_mask: np.ndarray | None, inside: np.ndarray) -> np.ndarray:
    colors = palette.categorical(max(n_ids, 1))
    rgba = np.ones((ids.shape[0], 4))
    rgba[:, :3] = colors[ids]
    rgba[:, 3] = 0.55
    if element_mask is not None:
        rgba[:, :3] = palette.rgb(palette.HIGHLIGHT)
        rgba[:, 3] = np.where(element_mask, 0.7, 0.0)
    rgba[~inside, 3] *= 0.25
    return rgba.reshape(res, res, 4)


def _arrows(ax, F: Frame, colors, zorder, width=0.012, indices=None):
    idx = list(range(F.m)) if indices is None else list(indices)
    phi = F.vectors[idx]
    q = ax.quiver(
        np.zeros(len(idx)), np.zeros(len(idx)), phi[:, 0], phi[:, 1],
        angles="xy", scale_units="xy", scale=1.0, color=[colors[i] for i in idx], width=width, zorder=zorder,
    )  # fmt: skip
    texts = []
    if F.m <= 24:
        for i, p in zip(idx, phi):
            pos = p * (1.0 + 0.2 / max(np.linalg.norm(p), 1e-12))
            texts.append(ax.text(pos[0], pos[1], _label(i), ha="center", va="center", fontsize=11, color=colors[i],
                                 zorder=zorder, path_effects=_halo()))  # fmt: skip
    return [q, *texts]


def _halo():
    from matplotlib import patheffects

    return [patheffects.withStroke(linewidth=3, foreground="white", alpha=0.85)]


def _style(ax, extent, *, ticks=True):
    x0, x1, y0, y1 = extent
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(palette.MUTED)
    ax.tick_params(colors=palette.MUTED, labelsize=8)
    if not ticks:
        ax.set_xticks([])
        ax.set_yticks([])
    ax.axhline(0, color=palette.MUTED, lw=0.5, zorder=0.5)
    ax.axvline(0, color=palette.MUTED, lw=0.5, zorder=0.5)
    return ax


# ---------------------------------------------------------------------------------
# Public drawing functions
# ---------------------------------------------------------------------------------


def style_axes(ax: Any, *, extent: Any = 1.2, ticks: bool = True) -> Any:
    """Square limits, equal aspect, light spines and axes lines; returns ``ax``."""
    return _style(_axes(ax), _extent(extent), ticks=ticks)


def draw_frame_vectors(ax: Any, frame: Any, *, indices: Iterable[int] | None = None, highlight: Iterable[int] | None = None,
                       faded: Iterable[int] | None = None, labels: bool = True) -> Any:  # fmt: skip
    r"""Draw the frame vectors as arrows from the origin, labelled :math:`\phi_1, \dots`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    frame : Frame or array_like, shape (m, 2)
        The frame.
    indices : iterable of int, optional
        Draw only these elements (default: all).
    highlight : iterable of int, optional
        Elements drawn thicker (e.g. the active set at a point).
    faded : iterable of int, optional
        Elements drawn in grey (e.g. inactive elements).
    labels : bool, default True
        Label the arrows (only when ``m <= 24``).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    F = _frame2d(frame)
    colors = palette.element_colors(F.m)
    for i in _indices(faded, F.m):
        colors[i] = palette.lighten(palette.MUTED, 0.3)
    artists = _arrows(ax, F, colors, _Z["vectors"] + 10, indices=None if indices is None else _indices(indices, F.m))
    if not labels:
        for t in artists[1:]:
            t.remove()
    hl = _indices(highlight, F.m)
    if hl:
        phi = F.vectors[hl]
        ax.quiver(np.zeros(len(hl)), np.zeros(len(hl)), phi[:, 0], phi[:, 1], angles="xy", scale_units="xy", scale=1.0,
                  color=[palette.element_color(i) for i in hl], width=0.022, zorder=_Z["vectors"] + 10)  # fmt: skip
    return ax


def _indices(idx: Iterable[int] | None, m: int) -> list[int]:
    if idx is None:
        return []
    out = []
    for i in idx:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < m:
            raise InputError(f"indices must be integers in [0, {m}); got {i!r}.")
        out.append(int(i))
    return out


def draw_halfspaces(ax: Any, layer: Any, *, indices: Iterable[int] | None = None, extent: Any = None, shade: bool = True,
                    lines: bool = True) -> Any:  # fmt: skip
    r"""Draw the half-spaces :math:`\Omega_i^\alpha = \{x : \langle x,\phi_i\rangle \ge \alpha_i\}`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    layer : ReLULayer
        Frame and bias.
    indices : iterable of int, optional
        Which elements (default: all).
    extent : float or tuple, optional
        Clipping box (default: the current axes limits).
    shade : bool, default True
        Fill each half-space with its element colour (translucent).
    lines : bool, default True
        Draw each boundary line.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    L = _layer2d(layer)
    idx = _indices(indices, L.m) if indices is not None else list(range(L.m))
    box = _extent(extent) if extent is not None else (*ax.get_xlim(), *ax.get_ylim())
    from matplotlib.patches import Polygon

    for i in idx:
        color = palette.element_color(i)
        if shade:
            poly = halfspace_polygon(L.frame.vectors[i], L.alpha[i], box)
            if len(poly) >= 3:
                ax.add_patch(Polygon(poly, closed=True, facecolor=color, alpha=0.16, edgecolor="none", zorder=_Z["halfspaces"]))
        if lines:
            seg = halfspace_segment(L.frame.vectors[i], L.alpha[i], box)
            if seg is not None:
                ax.plot(seg[:, 0], seg[:, 1], color=color, lw=1.3, zorder=_Z["halfspaces"] + 0.5)
    return ax


def _sample_grid(domain, extent, resolution) -> tuple[tuple[float, float, float, float], int, np.ndarray]:
    """The drawing box, the grid resolution and the grid points shared by the image overlays."""
    box = _extent(extent) if extent is not None else default_extent(domain)
    res = as_count(resolution, "resolution", minimum=2)
    return box, res, grid_points(box, resolution=res)


def draw_active_count(ax: Any, layer: Any, *, domain: Domain | None = None, extent: Any = None, resolution: int = 241,
                      colorbar: bool = False, outside_alpha: float = 0.35, vmax: int | None = None) -> Any:  # fmt: skip
    r"""Draw the number of active elements :math:`|I_x^\alpha|` as an image.

    More active elements are darker; outside ``domain`` the image is faded.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    layer : ReLULayer
        Frame and bias.
    domain : Domain, optional
        Points outside are drawn faded (default: nothing faded).
    extent : float or tuple, optional
        The window (default: around the domain).
    resolution : int, default 241
        Grid points per axis.
    colorbar : bool, default False
        Add a colorbar with the counts.
    outside_alpha : float, default 0.35
        Opacity outside the domain.
    vmax : int, optional
        The count drawn darkest (default ``m``); use one value for panels that are compared.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    L = _layer2d(layer)
    K = _domain2d(domain) if domain is not None else RealSpace(2)
    box, res, X = _sample_grid(domain, extent, resolution)
    counts = active_counts(L, X)
    top = L.m if vmax is None else as_count(vmax, "vmax")
    lut = _count_lut(top)
    im = _image(ax, _count_rgba(counts, _inside(K, X), lut, res, float(outside_alpha)), box, _Z["count"])
    if colorbar:
        _count_colorbar(ax, top, lut)
    _style(ax, box)
    im.set_gid("rf-count")
    return ax


def _count_colorbar(ax, m: int, lut: np.ndarray):
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    cmap = ListedColormap(lut[:, :3])
    norm = BoundaryNorm(np.arange(-0.5, m + 1.5), cmap.N)
    cb = ax.figure.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.046, pad=0.04,
                            ticks=range(0, m + 1, max(1, (m + 1) // 8)))  # fmt: skip
    cb.set_label(r"active elements $|I_x^\alpha|$", fontsize=9)
    cb.ax.tick_params(labelsize=8)
    return cb


def draw_maximal_domain(ax: Any, layer: Any, *, domain: Domain | None = None, extent: Any = None,
                        resolution: int = 241) -> Any:  # fmt: skip
    r"""Shade the maximal domain :math:`K^*_\alpha` (points where the active sub-frame spans).

    Dark: :math:`x \in K^*_\alpha`. Points of ``domain`` outside it (where the layer is
    not rectifying) are drawn in vermillion.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from ..rectifying import is_rectifying

    ax = _axes(ax)
    L = _layer2d(layer)
    K = _domain2d(domain) if domain is not None else None
    box, res, X = _sample_grid(domain, extent, resolution)
    ok = is_rectifying(L, X)
    inside = _inside(K, X) if K is not None else np.zeros(X.shape[0], dtype=bool)
    im = _image(ax, _maximal_rgba(ok, inside, res), box, _Z["maximal"])
    im.set_gid("rf-maximal")
    _style(ax, box)
    return ax


def draw_correlated_partition(ax: Any, frame: Any, *, domain: Domain | None = None, element: int | None = None,
                              extent: Any = None, resolution: int = 241, legend: bool = False) -> Any:  # fmt: skip
    r"""Colour the domain by most correlated basis :math:`J^*(x)`, or shade one :math:`K_i`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    frame : Frame or array_like, shape (m, 2)
        The frame.
    domain : Domain, optional
        The domain :math:`K` (outside it the colours are faded).
    element : int, optional
        Shade only :math:`K_i = \{x \in K : i \in J^*(x)\}` for this (0-based) element.
    extent, resolution
        The grid, as in :func:`draw_active_count`.
    legend : bool, default False
        Label each colour with its basis (only for a few bases).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    F = _frame2d(frame)
    K = _domain2d(domain) if domain is not None else RealSpace(2)
    box, res, X = _sample_grid(domain, extent, resolution)
    ids, bases = basis_ids(F, X)
    mask = None
    if element is not None:
        (i,) = _indices([element], F.m)
        mask = np.any(bases[ids] == i, axis=1)
    im = _image(ax, _partition_rgba(ids, len(bases), res, mask, _inside(K, X)), box, _Z["partition"])
    im.set_gid("rf-partition")
    if legend and element is None and len(bases) <= 12:
        from matplotlib.patches import Patch

        colors = palette.categorical(len(bases))
        handles = [Patch(color=colors[k], alpha=0.6, label="{" + ", ".join(str(j + 1) for j in b) + "}")
                   for k, b in enumerate(bases)]  # fmt: skip
        ax.legend(handles=handles, title=r"$J^*(x)$", fontsize=7, title_fontsize=8, loc="upper right", framealpha=0.85)
    _style(ax, box)
    return ax


def draw_domain(ax: Any, domain: Any, *, color: str = palette.DOMAIN, fill: bool = False, label: bool = False) -> Any:
    """Outline a domain: ball and sphere (circle), shell (two circles), positive ball (quarter disk).

    A sphere is drawn with a thicker line than a ball; a finite sample set as dots;
    :class:`RealSpace` draws nothing.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    K = _domain2d(domain)
    z = _Z["domain"] + 10
    if isinstance(K, Samples):
        ax.scatter(K.points[:, 0], K.points[:, 1], s=6, color=color, zorder=z)
        return ax
    patch = _domain_patch(K, facecolor=palette.lighten(color, 0.9) if fill else "none", edgecolor=color,
                          lw=2.4 if isinstance(K, Sphere) else 1.4, zorder=z, alpha=1.0)  # fmt: skip
    if patch is not None:
        if fill:
            patch.set_alpha(0.9)
        ax.add_patch(patch)
    if label and K.bounded:
        name = {Ball: r"$\mathbb{B}$", Sphere: r"$\mathbb{S}$", Shell: r"$\mathbb{D}_{r,s}$",
                PositiveBall: r"$\mathbb{B}^+$"}.get(type(K), "K")  # fmt: skip
        ax.text(0.72 * K.radius, -0.8 * K.radius, name, color=color, fontsize=11, zorder=z)
    return ax


def draw_polygon(ax: Any, frame: Any, *, color: str = palette.INK) -> Any:
    """Draw the inscribing polygon of a 2-D frame (convex hull of the frame vectors).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from scipy.spatial import ConvexHull

    ax = _axes(ax)
    F = _frame2d(frame)
    hull = ConvexHull(F.vectors)
    v = F.vectors[np.append(hull.vertices, hull.vertices[0])]
    ax.plot(v[:, 0], v[:, 1], color=color, lw=1.0, ls="--", zorder=_Z["minima"])
    return ax


def draw_collision(ax: Any, collision: Any, *, layer: Any = None, annotate: bool = True) -> Any:
    """Mark a collision pair ``x != y`` with ``C(x) = C(y)`` and print the common output.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    collision : Collision or tuple of array_like
        A :class:`~relu_frames_nb.rectifying.Collision` with ``found``, or a pair ``(x, y)``.
    layer : ReLULayer, optional
        Needed to compute the common output when ``collision`` is a plain pair.
    annotate : bool, default True
        Write ``C(x) = C(y) = (...)`` next to the pair.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    x, y, out = _pair(collision, layer)
    _draw_pair(ax, x, y, out, annotate)
    return ax


def _pair(collision, layer):
    if hasattr(collision, "found"):
        if not collision.found:
            raise InputError("collision must be a found pair; got Collision(found=False). Check .found first.")
        return np.asarray(collision.x, float), np.asarray(collision.y, float), np.asarray(collision.output, float)
    try:
        x, y = collision
    except (TypeError, ValueError):
        raise InputError(f"collision must be a Collision or a pair (x, y); got {type(collision).__name__}.") from None
    x, _ = as_points(x, 2, "x")
    y, _ = as_points(y, 2, "y")
    out = None if layer is None else _layer2d(layer)(x[0])
    return x[0], y[0], out


def _fmt_vec(v) -> str:
    return "(" + ", ".join(f"{float(c):.3g}" for c in v) + ")"


def _draw_pair(ax, x, y, out, annotate):
    z = _Z["collision"] + 10
    artists = ax.plot([x[0], y[0]], [x[1], y[1]], ls=":", color=palette.BAD, lw=1.5, zorder=z)
    artists += ax.plot([x[0]], [x[1]], "o", ms=8, mfc="white", mec=palette.BAD, mew=2, zorder=z)
    artists += ax.plot([y[0]], [y[1]], "s", ms=7, mfc="white", mec=palette.BAD, mew=2, zorder=z)
    if annotate:
        mid = (x + y) / 2
        text = r"$C_\alpha x = C_\alpha y$"
        if out is not None and len(out) <= 6:
            text += "\n" + r"$=$" + _fmt_vec(out)
        artists.append(ax.annotate(text, mid, xytext=(8, 10), textcoords="offset points", fontsize=8, color=palette.BAD,
                                   zorder=z, bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85)))  # fmt: skip
    return artists


def draw_polytope_minima(ax: Any, estimate: Any, *, indices: Iterable[int] | None = None, lines: bool = True) -> Any:
    """Mark where each polytope bias is attained (``estimate.argmin``), in the element's colour.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    estimate : BiasEstimate
        A polytope bias estimate with ``argmin`` of shape ``(m, 2)`` (NaN rows skipped).
    indices : iterable of int, optional
        Which elements (default: all).
    lines : bool, default True
        Join each point to the origin with a thin line.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    arg = getattr(estimate, "argmin", None)
    if arg is None:
        raise InputError("estimate must carry the points where the bias is attained (.argmin); got None.")
    arg = np.asarray(arg, dtype=float)
    if arg.ndim != 2 or arg.shape[1] != 2:
        raise DimensionMismatchError(f"estimate.argmin must have shape (m, 2); got {arg.shape}.")
    idx = _indices(indices, arg.shape[0]) if indices is not None else range(arg.shape[0])
    _draw_minima(ax, arg, list(idx), lines)
    return ax


def _draw_minima(ax, arg, idx, lines):
    z = _Z["minima"] + 10
    artists = []
    for i in idx:
        p = arg[i]
        if not np.all(np.isfinite(p)):
            continue
        c = palette.element_color(i)
        if lines:
            artists += ax.plot([0, p[0]], [0, p[1]], color=c, lw=0.8, ls="--", zorder=z)
        artists += ax.plot([p[0]], [p[1]], marker="*", ms=12, color=c, mec="white", mew=0.8, zorder=z)
    return artists


# ---------------------------------------------------------------------------------
# PlaneView: the picture of the 2-D explorer, updated in place
# ---------------------------------------------------------------------------------


class PlaneView:
    r"""A 2-D picture of a layer on a domain whose overlays update in place.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw (cleared).
    layer : ReLULayer
        A layer on :math:`\mathbb{R}^2`.
    domain : Domain
        The domain :math:`K`.
    overlays : iterable of str, optional
        Which of :data:`OVERLAYS` are visible (default: count, maximal, halfspaces,
        domain, vectors, collision).
    resolution : int, default 201
        Grid points per axis (the grid and its frame coefficients are computed once).
    extent : float or tuple, optional
        The window (default: around the domain).
    element : int, optional
        The element whose :math:`K_i` is shown and, with ``shade_element``, whose
        half-space is shaded (default 0).
    shade_element : bool, default False
        Shade the half-space :math:`\Omega_i^\alpha` of ``element``.

    Notes
    -----
    :meth:`set_bias` costs two ``(N, m)`` comparisons on the precomputed coefficients, the
    core's rectifying test on the grid, and ``set_data`` calls; nothing is re-created.
    """

    def __init__(self, ax: Any, layer: Any, domain: Any, *, overlays: Iterable[str] | None = None, resolution: int = 201,
                 extent: Any = None, element: int | None = 0, shade_element: bool = False) -> None:  # fmt: skip
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Polygon

        self.ax = _axes(ax)
        self.layer = _layer2d(layer)
        self.domain = _domain2d(domain)
        self.resolution = as_count(resolution, "resolution", minimum=2)
        self.extent = _extent(extent) if extent is not None else default_extent(self.domain)
        self.visible = set(("count", "maximal", "halfspaces", "domain", "vectors", "collision") if overlays is None
                           else self._check_overlays(overlays))  # fmt: skip
        F = self.layer.frame
        self.element = None if element is None else _indices([element], F.m)[0]
        self.shade_element = bool(shade_element)
        self.X = grid_points(self.extent, resolution=self.resolution)
        self.G = self.X @ F.vectors.T
        self.inside = _inside(self.domain, self.X)
        self._lut = _count_lut(F.m)
        self._ids = None
        self._bases = None
        self.counts = np.zeros(self.X.shape[0], dtype=int)
        self.rectifying = np.zeros(self.X.shape[0], dtype=bool)
        self.collision = None
        self.minima = None

        from matplotlib.ticker import MaxNLocator

        ax = self.ax
        ax.clear()
        _style(ax, self.extent)
        ax.xaxis.set_major_locator(MaxNLocator(5))  # few tick labels: text is the costly part of a render
        ax.yaxis.set_major_locator(MaxNLocator(5))
        res, box = self.resolution, self.extent
        # the three raster layers are composited in numpy into one image: one resample per render
        self._rgba: dict[str, np.ndarray] = {name: np.zeros((res, res, 4)) for name in ("count", "partition", "maximal")}
        self._raster = _image(ax, np.zeros((res, res, 4)), box, _Z["count"])
        self.artists: dict[str, list] = {"count": [], "partition": [], "maximal": []}
        colors = palette.element_colors(F.m)
        self._lines = LineCollection([], colors=colors, linewidths=1.2, zorder=_Z["halfspaces"] + 0.5)
        ax.add_collection(self._lines)
        self._shade = Polygon(np.zeros((3, 2)), closed=True, facecolor=palette.HIGHLIGHT, alpha=0.18, edgecolor="none",
                              zorder=_Z["halfspaces"])  # fmt: skip
        ax.add_patch(self._shade)
        self.artists["halfspaces"] = [self._lines, self._shade]
        before = len(ax.patches) + len(ax.collections) + len(ax.lines)
        if not isinstance(self.domain, RealSpace):
            draw_domain(ax, self.domain)
        self.artists["domain"] = (list(ax.patches) + list(ax.collections) + list(ax.lines))[before:]
        self.artists["vectors"] = _arrows(ax, F, colors, _Z["vectors"] + 10)
        self.artists["minima"] = []
        self.artists["collision"] = []
        self.set_bias(self.layer.alpha)

    @staticmethod
    def _check_overlays(overlays: Iterable[str]) -> set[str]:
        names = set(overlays)
        bad = names - set(OVERLAYS)
        if bad:
            raise InputError(f"overlays must be among {OVERLAYS}; got {sorted(bad)}.")
        return names

    # ------------------------------------------------------------------ updates
    def set_bias(self, alpha: Any) -> None:
        """New bias: recompute active counts and the maximal domain on the grid; update in place."""
        from ..rectifying import is_rectifying

        a = as_bias(alpha, self.layer.m)
        self.layer = self.layer.with_bias(a)
        res = self.resolution
        active = self.G >= a
        self.counts = active.sum(axis=1)
        # the rectifying property depends only on the active pattern: ask the core once per distinct pattern
        first, inverse = _distinct_rows(active)
        self.rectifying = np.asarray(is_rectifying(self.layer, self.X[first]), dtype=bool)[inverse]
        self._rgba["count"] = _count_rgba(self.counts, self.inside, self._lut, res, 0.35)
        self._rgba["maximal"] = _maximal_rgba(self.rectifying, self.inside, res)
        self._lines.set_segments(list(_segments(self.layer.frame.vectors, a, self.extent)))
        self._update_shade()
        self._apply_visibility()

    def _update_shade(self) -> None:
        if self.element is None or not self.shade_element:
            self._shade.set_xy(np.zeros((3, 2)))
            return
        i = self.element
        poly = halfspace_polygon(self.layer.frame.vectors[i], self.layer.alpha[i], self.extent)
        self._shade.set_xy(poly if len(poly) >= 3 else np.zeros((3, 2)))
        self._shade.set_facecolor(palette.element_color(i))

    def set_element(self, element: int | None, *, shade: bool | None = None) -> None:
        """Choose the element whose :math:`K_i` is shown (and whose half-space is shaded, with ``shade``)."""
        self.element = None if element is None else _indices([element], self.layer.m)[0]
        if shade is not None:
            self.shade_element = bool(shade)
        self._update_shade()
        if "partition" in self.visible:
            self._update_partition()

    def _update_partition(self) -> None:
        if self._ids is None:
            self._ids, self._bases = basis_ids(self.layer.frame, self.X)
        mask = None if self.element is None else np.any(self._bases[self._ids] == self.element, axis=1)
        self._rgba["partition"] = _partition_rgba(self._ids, len(self._bases), self.resolution, mask, self.inside)
        self._composite()

    def set_overlays(self, overlays: Iterable[str]) -> None:
        """Show exactly these overlays (names from :data:`OVERLAYS`)."""
        self.visible = self._check_overlays(overlays)
        if "partition" in self.visible:
            self._update_partition()
        self._apply_visibility()

    def _apply_visibility(self, *, raster: bool = True) -> None:
        for name, arts in self.artists.items():
            for a in arts:
                a.set_visible(name in self.visible)
        if raster:
            self._composite()

    def _composite(self) -> None:
        """Alpha-composite the visible raster layers (count, partition, maximal) into one image."""
        res = self.resolution
        rgb = np.zeros((res, res, 3), dtype=np.float32)
        alpha = np.zeros((res, res, 1), dtype=np.float32)
        for name in ("count", "partition", "maximal"):
            if name not in self.visible:
                continue
            src = self._rgba[name]
            a_s = src[..., 3:4].astype(np.float32)
            # premultiplied "over": rgb' = rgb_s a_s + rgb (1 - a_s), a' = a_s + a (1 - a_s)
            rgb *= 1.0 - a_s
            rgb += src[..., :3] * a_s
            alpha *= 1.0 - a_s
            alpha += a_s
        out = np.concatenate([np.divide(rgb, alpha, out=np.zeros_like(rgb), where=alpha > 0), alpha], axis=-1)
        self.raster = out
        self._raster.set_data(out)

    def set_collision(self, collision: Any) -> None:
        """Show a collision pair (a found :class:`Collision`), or remove it with ``None``."""
        for a in self.artists["collision"]:
            a.remove()
        self.artists["collision"] = []
        self.collision = collision if collision is not None and getattr(collision, "found", True) else None
        if self.collision is not None:
            x, y, out = _pair(self.collision, self.layer)
            self.artists["collision"] = _draw_pair(self.ax, x, y, out, True)
        self._apply_visibility(raster=False)

    def set_minima(self, estimate: Any) -> None:
        """Show where a polytope bias estimate is attained (``estimate.argmin``), or remove with ``None``."""
        for a in self.artists["minima"]:
            a.remove()
        self.artists["minima"] = []
        self.minima = estimate
        arg = None if estimate is None else getattr(estimate, "argmin", None)
        if arg is not None:
            arg = np.asarray(arg, dtype=float)
            self.artists["minima"] = _draw_minima(self.ax, arg, list(range(arg.shape[0])), True)
        self._apply_visibility(raster=False)

    # ------------------------------------------------------------------ state
    @property
    def failing_points(self) -> np.ndarray:
        """Grid points of the domain where the layer is not rectifying, shape ``(k, 2)``."""
        return self.X[self.inside & ~self.rectifying]


# ---------------------------------------------------------------------------------
# The paper's figures
# ---------------------------------------------------------------------------------


def _new_figure(ncols: int, *, width: float = 4.0):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, width * 1.02), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, list(np.atleast_1d(axes))


def figure1(*, resolution: int = 241) -> Any:
    r"""Figure 1 of the paper: the active set :math:`I_x^\alpha`, a half-space :math:`\Omega_i^\alpha`,
    and a basis that is :math:`\alpha`-rectifying on :math:`K \subseteq \Omega_1^\alpha \cap \Omega_2^\alpha`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.patches import Ellipse

    as_count(resolution, "resolution", minimum=2)
    fig, (a0, a1, a2) = _new_figure(3)
    B = Ball(2)
    box = default_extent(B, margin=0.35)
    # left: active set at a point
    F = Frame(np.array([[np.cos(t), np.sin(t)] for t in np.deg2rad([90, 160, 215, 290, 20])]))
    L = ReLULayer(F, 0.25)
    x = np.array([0.55, 0.45])
    act = np.flatnonzero(L.active_set(x))
    _style(a0, box)
    draw_domain(a0, B)
    draw_halfspaces(a0, L, extent=box, shade=False)
    draw_frame_vectors(a0, F, faded=[i for i in range(F.m) if i not in act])
    a0.plot(*x, "o", color=palette.INK, ms=6, zorder=30)
    a0.annotate("$x$", x, xytext=(6, 4), textcoords="offset points", fontsize=12)
    a0.set_title(r"$I_x^\alpha=\{" + ",".join(str(i + 1) for i in act) + r"\}$ (active at $x$)", fontsize=11)
    # mid: one half-space on the ball
    i = 0
    L1 = ReLULayer(F, 0.3)
    _style(a1, box)
    draw_halfspaces(a1, L1, indices=[i], extent=box)
    clip = _domain_patch(B, transform=a1.transData)
    a1.patches[-1].set_clip_path(clip)
    a1.patches[-1].set_alpha(0.35)
    draw_domain(a1, B)
    draw_frame_vectors(a1, F, indices=[i])
    a1.text(0.05, 0.75, r"$\Omega_1^\alpha$", fontsize=13, color=palette.element_color(i), zorder=40)
    a1.set_title(r"$\Omega_1^\alpha=\{x:\langle x,\phi_1\rangle\geq\alpha_1\}$", fontsize=11)
    # right: a basis is alpha-rectifying on K inside the intersection
    Fb = Frame([[0.8, 0.6], [-0.6, 0.8]])
    Lb = ReLULayer(Fb, [-0.45, -0.45])
    _style(a2, box)
    draw_halfspaces(a2, Lb, extent=box)
    draw_frame_vectors(a2, Fb)
    a2.add_patch(Ellipse((0.05, 0.55), 0.9, 0.5, angle=20, facecolor=palette.lighten(palette.INK, 0.75), edgecolor=palette.INK,
                         lw=1.2, zorder=_Z["domain"] + 10))  # fmt: skip
    a2.text(0.05, 0.55, "$K$", ha="center", va="center", fontsize=13, zorder=40)
    a2.set_title(r"$K\subseteq\Omega_1^\alpha\cap\Omega_2^\alpha$", fontsize=11)
    return fig


def figure2(*, resolution: int = 241) -> Any:
    r"""Figure 2 of the paper: active counts for the :math:`\pm` basis on :math:`\mathbb{R}^2` (bias 0),
    the standard basis on :math:`\mathbb{R}^2_+` (bias 0) and on :math:`\mathbb{B}` (bias -1), and the
    triangle frame on :math:`\mathbb{B}` (bias -1/2).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..zoo import mercedes_benz, plus_minus_basis, standard_basis

    res = as_count(resolution, "resolution", minimum=2)
    fig, axes = _new_figure(3)
    box = (-1.6, 1.6, -1.6, 1.6)
    cases = [
        (plus_minus_basis(2), 0.0, RealSpace(2), r"$(\pm e_i)$, $\alpha=\mathbf{0}$ on $\mathbb{R}^2$"),
        (standard_basis(2), 0.0, PositiveBall(2, 1.5), r"$(e_i)$, $\alpha=\mathbf{0}$ on $\mathbb{R}^2_+$"),
        (mercedes_benz(), -0.5, Ball(2), r"triangle, $\alpha=-\frac{1}{2}$ on $\mathbb{B}$"),
    ]
    for ax, (F, a, K, title) in zip(axes, cases):
        L = ReLULayer(F, a)
        draw_active_count(ax, L, extent=box, resolution=res, colorbar=ax is axes[-1], vmax=4)
        draw_halfspaces(ax, L, extent=box, shade=False)
        if not isinstance(K, RealSpace):
            draw_domain(ax, K)
        draw_frame_vectors(ax, F)
        ax.set_title(title, fontsize=11)
    # mid: also the ball with bias -1
    Lm = ReLULayer(standard_basis(2), -1.0)
    draw_halfspaces(axes[1], Lm, extent=box, shade=False)
    for line in axes[1].lines[-2:]:
        line.set_linestyle("--")
    draw_domain(axes[1], Ball(2))
    axes[1].text(-1.5, -1.45, r"dashed: $\alpha=-\mathbf{1}$ on $\mathbb{B}$", fontsize=8, color=palette.INK)
    return fig


def figure3(*, resolution: int = 241, seed: int = 165) -> Any:
    r"""Figure 3 of the paper: maximal domains :math:`K^*_\alpha` (dark) of the triangle frame with
    zero bias and the colliding pair of Example "mb2", of a normalized random frame with a random
    bias, and the set :math:`K_2` of Example "a".

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..zoo import example_a, mercedes_benz, random_sphere

    res = as_count(resolution, "resolution", minimum=2)
    fig, (a0, a1, a2) = _new_figure(3)
    box = (-1.5, 1.5, -1.5, 1.5)
    B = Ball(2)
    # left: triangle, alpha = 0, Example mb2
    L = ReLULayer(mercedes_benz(), 0.0)
    draw_maximal_domain(a0, L, extent=box, resolution=res)
    draw_halfspaces(a0, L, extent=box, shade=False)
    draw_domain(a0, B)
    draw_frame_vectors(a0, L.frame)
    s3 = np.sqrt(3.0) / 2
    draw_collision(a0, ([0.5, s3], [-0.5, s3]), layer=L)
    a0.set_title(r"triangle, $\alpha=\mathbf{0}$: $x_1, x_2\in K^*_\alpha$", fontsize=11)
    # mid: random normalized frame, random bias
    rng = np.random.default_rng(seed)
    F = random_sphere(6, 2, seed=seed)
    Lr = ReLULayer(F, 0.4 * rng.standard_normal(F.m))
    draw_maximal_domain(a1, Lr, extent=box, resolution=res)
    draw_halfspaces(a1, Lr, extent=box, shade=False)
    draw_frame_vectors(a1, F)
    a1.set_title("random frame, random bias", fontsize=11)
    # right: Example "a", K_2
    Fa = example_a()
    draw_correlated_partition(a2, Fa, domain=B, element=1, extent=box, resolution=res)
    draw_domain(a2, B)
    draw_frame_vectors(a2, Fa)
    a2.set_title(r"Example a: $K_2=\{x\in\mathbb{B}: 2\in J^*(x)\}$", fontsize=11)
    return fig
