r""":class:`PlaneView`: the picture of the 2-D explorer, updated in place. Re-exported by :mod:`.plane`."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._util.validation import as_bias, as_count
from ..paper.rectifying import is_rectifying
from . import palette
from ._common import check_names
from ._draw2d import draw_domain
from ._plane2d import (
    _Z,
    OVERLAYS,
    _arrows,
    _axes,
    _count_lut,
    _count_rgba,
    _distinct_rows,
    _domain2d,
    _draw_minima,
    _draw_pair,
    _extent,
    _image,
    _indices,
    _layer2d,
    _maximal_rgba,
    _pair,
    _partition_rgba,
    _segments,
    _style,
    basis_ids,
    default_extent,
    grid_points,
    halfspace_polygon,
)
from ._shapes2d import inside_mask

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
    annotate_collision : bool, default True
        Write :math:`C_\alpha x = C_\alpha y` and the common output next to a colliding pair
        (``False``: only the markers and the dotted segment, for a picture with its own key).

    Notes
    -----
    :meth:`set_bias` costs two ``(N, m)`` comparisons on the precomputed coefficients, the
    core's rectifying test on the grid, and ``set_data`` calls; nothing is re-created.
    """

    def __init__(self, ax: Any, layer: Any, domain: Any, *, overlays: Iterable[str] | None = None, resolution: int = 201,
                 extent: Any = None, element: int | None = 0, shade_element: bool = False,
                 annotate_collision: bool = True) -> None:  # fmt: skip
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Polygon

        self.ax = _axes(ax)
        self.layer = _layer2d(layer)
        self.domain = _domain2d(domain)
        self.resolution = as_count(resolution, "resolution", minimum=2)
        self.extent = _extent(extent) if extent is not None else default_extent(self.domain)
        self.visible = set(("count", "maximal", "halfspaces", "domain", "vectors", "collision") if overlays is None
                           else check_names(overlays, OVERLAYS, "overlays"))  # fmt: skip
        F = self.layer.frame
        self.element = None if element is None else _indices([element], F.m)[0]
        self.shade_element = bool(shade_element)
        self.annotate_collision = bool(annotate_collision)
        self.X = grid_points(self.extent, resolution=self.resolution)
        self.G = self.X @ F.vectors.T
        self.inside = inside_mask(self.domain, self.X)
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
        if self.domain.bounded:
            draw_domain(ax, self.domain)
        self.artists["domain"] = (list(ax.patches) + list(ax.collections) + list(ax.lines))[before:]
        self.artists["vectors"] = _arrows(ax, F, colors, _Z["vectors"] + 10)
        self.artists["minima"] = []
        self.artists["collision"] = []
        self.set_bias(self.layer.alpha)

    # ------------------------------------------------------------------ updates
    def set_bias(self, alpha: Any) -> None:
        """New bias: recompute active counts and the maximal domain on the grid; update in place."""
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
        self.visible = check_names(overlays, OVERLAYS, "overlays")
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
            self.artists["collision"] = _draw_pair(self.ax, x, y, out, self.annotate_collision)
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
