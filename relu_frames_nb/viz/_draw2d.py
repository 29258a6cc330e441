r"""The public drawing functions of the 2-D views (private module; re-exported by :mod:`.plane`).

Every ``draw_*`` function draws onto a given :class:`matplotlib.axes.Axes` (``ax=None``: the axes
of a new figure) and returns it. matplotlib is imported inside the functions, never at import time.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._util.validation import as_count
from ..domains import Domain, RealSpace
from ..errors import DimensionMismatchError, InputError
from ..paper.rectifying import is_rectifying
from . import palette
from ._plane2d import (
    _Z,
    _arrows,
    _axes,
    _count_lut,
    _count_rgba,
    _domain2d,
    _draw_minima,
    _draw_pair,
    _extent,
    _frame2d,
    _image,
    _indices,
    _layer2d,
    _maximal_rgba,
    _pair,
    _partition_rgba,
    _required,
    _style,
    active_counts,
    basis_ids,
    default_extent,
    grid_points,
    halfspace_polygon,
    halfspace_segment,
)
from ._shapes2d import draw_outline, inside_mask, symbol

__all__ = [
    "style_axes",
    "draw_frame_vectors",
    "draw_halfspaces",
    "draw_active_count",
    "draw_maximal_domain",
    "draw_correlated_partition",
    "draw_domain",
    "draw_polygon",
    "draw_collision",
    "draw_polytope_minima",
]


def style_axes(ax: Any = None, *, extent: Any = 1.2, ticks: bool = True) -> Any:
    """Square limits, equal aspect, light spines and axes lines; returns ``ax``."""
    return _style(_axes(ax), _extent(extent), ticks=ticks)


def draw_frame_vectors(ax: Any = None, frame: Any = None, *,
                       indices: Iterable[int] | None = None, highlight: Iterable[int] | None = None,
                       faded: Iterable[int] | None = None, labels: bool = True) -> Any:  # fmt: skip
    r"""Draw the frame vectors as arrows from the origin, labelled :math:`\phi_1, \dots`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
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
    _required(frame, "frame", "draw_frame_vectors(ax, frame, ...)")
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


def draw_halfspaces(ax: Any = None, layer: Any = None, *,
                    indices: Iterable[int] | None = None, extent: Any = None, shade: bool = True,
                    lines: bool = True) -> Any:  # fmt: skip
    r"""Draw the half-spaces :math:`\Omega_i^\alpha = \{x : \langle x,\phi_i\rangle \ge \alpha_i\}`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
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
    _required(layer, "layer", "draw_halfspaces(ax, layer, ...)")
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


def draw_active_count(ax: Any = None, layer: Any = None, *,
                      domain: Domain | None = None, extent: Any = None, resolution: int = 241,
                      colorbar: bool = False, outside_alpha: float = 0.35, vmax: int | None = None) -> Any:  # fmt: skip
    r"""Draw the number of active elements :math:`|I_x^\alpha|` as an image.

    More active elements are darker; outside ``domain`` the image is faded.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
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
    _required(layer, "layer", "draw_active_count(ax, layer, ...)")
    ax = _axes(ax)
    L = _layer2d(layer)
    K = _domain2d(domain) if domain is not None else RealSpace(2)
    box, res, X = _sample_grid(domain, extent, resolution)
    counts = active_counts(L, X)
    top = L.m if vmax is None else as_count(vmax, "vmax")
    lut = _count_lut(top)
    im = _image(ax, _count_rgba(counts, inside_mask(K, X), lut, res, float(outside_alpha)), box, _Z["count"])
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


def draw_maximal_domain(ax: Any = None, layer: Any = None, *, domain: Domain | None = None, extent: Any = None,
                        resolution: int = 241) -> Any:  # fmt: skip
    r"""Shade the maximal domain :math:`K^*_\alpha` (points where the active sub-frame spans).

    Dark: :math:`x \in K^*_\alpha`. Points of ``domain`` outside it (where the layer is
    not rectifying) are drawn in vermillion.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _required(layer, "layer", "draw_maximal_domain(ax, layer, ...)")
    ax = _axes(ax)
    L = _layer2d(layer)
    K = _domain2d(domain) if domain is not None else None
    box, res, X = _sample_grid(domain, extent, resolution)
    ok = is_rectifying(L, X)
    inside = inside_mask(K, X) if K is not None else np.zeros(X.shape[0], dtype=bool)
    im = _image(ax, _maximal_rgba(ok, inside, res), box, _Z["maximal"])
    im.set_gid("rf-maximal")
    _style(ax, box)
    return ax


def draw_correlated_partition(ax: Any = None, frame: Any = None, *, domain: Domain | None = None, element: int | None = None,
                              extent: Any = None, resolution: int = 241, legend: bool = False) -> Any:  # fmt: skip
    r"""Colour the domain by most correlated basis :math:`J^*(x)`, or shade one :math:`K_i`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
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
    _required(frame, "frame", "draw_correlated_partition(ax, frame, ...)")
    ax = _axes(ax)
    F = _frame2d(frame)
    K = _domain2d(domain) if domain is not None else RealSpace(2)
    box, res, X = _sample_grid(domain, extent, resolution)
    ids, bases = basis_ids(F, X)
    mask = None
    if element is not None:
        (i,) = _indices([element], F.m)
        mask = np.any(bases[ids] == i, axis=1)
    im = _image(ax, _partition_rgba(ids, len(bases), res, mask, inside_mask(K, X)), box, _Z["partition"])
    im.set_gid("rf-partition")
    if legend and element is None and len(bases) <= 12:
        from matplotlib.patches import Patch

        colors = palette.categorical(len(bases))
        handles = [Patch(color=colors[k], alpha=0.6, label="{" + ", ".join(str(j + 1) for j in b) + "}")
                   for k, b in enumerate(bases)]  # fmt: skip
        ax.legend(handles=handles, title=r"$J^*(x)$", fontsize=7, title_fontsize=8, loc="upper right", framealpha=0.85)
    _style(ax, box)
    return ax


def draw_domain(ax: Any = None, domain: Any = None, *,
                color: str = palette.DOMAIN, fill: bool = False, label: bool = False) -> Any:  # fmt: skip
    """Outline a domain: ball and sphere (circle), shell (two circles), positive ball (quarter disk).

    A sphere is drawn with a thicker line than a ball; a finite sample set as dots; a domain
    with no outline of its own (:class:`RealSpace`, :class:`Exterior`, :class:`Box`,
    :class:`Polytope`, :class:`Hull`) draws nothing.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _required(domain, "domain", "draw_domain(ax, domain, ...)")
    ax = _axes(ax)
    K = _domain2d(domain)
    z = _Z["domain"] + 10
    draw_outline(K, ax, color=color, fill=fill, zorder=z)
    name = symbol(K) if label else None
    if name is not None:
        ax.text(0.72 * K.radius, -0.8 * K.radius, name, color=color, fontsize=11, zorder=z)
    return ax


def draw_polygon(ax: Any = None, frame: Any = None, *, color: str = palette.INK) -> Any:
    """Draw the inscribing polygon of a 2-D frame (convex hull of the frame vectors).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from scipy.spatial import ConvexHull  # here, not at the top: scipy.spatial would double the import time of .plane

    _required(frame, "frame", "draw_polygon(ax, frame, ...)")
    ax = _axes(ax)
    F = _frame2d(frame)
    hull = ConvexHull(F.vectors)
    v = F.vectors[np.append(hull.vertices, hull.vertices[0])]
    ax.plot(v[:, 0], v[:, 1], color=color, lw=1.0, ls="--", zorder=_Z["minima"])
    return ax


def draw_collision(ax: Any = None, collision: Any = None, *, layer: Any = None, annotate: bool = True) -> Any:
    """Mark a collision pair ``x != y`` with ``C(x) = C(y)`` and print the common output.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
    collision : Collision or tuple of array_like
        A :class:`~relu_frames_nb.paper.rectifying.Collision` with ``found``, or a pair ``(x, y)``.
    layer : ReLULayer, optional
        Needed to compute the common output when ``collision`` is a plain pair.
    annotate : bool, default True
        Write ``C(x) = C(y) = (...)`` next to the pair.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _required(collision, "collision", "draw_collision(ax, collision, ...)")
    ax = _axes(ax)
    x, y, out = _pair(collision, layer)
    _draw_pair(ax, x, y, out, annotate)
    return ax


def draw_polytope_minima(ax: Any = None, estimate: Any = None, *,
                         indices: Iterable[int] | None = None, lines: bool = True) -> Any:  # fmt: skip
    """Mark where each polytope bias is attained (``estimate.argmin``), in the element's colour.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the axes of a new figure).
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
    _required(estimate, "estimate", "draw_polytope_minima(ax, estimate, ...)")
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
