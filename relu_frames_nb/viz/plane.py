r"""Matplotlib views of ReLU layers on the plane (frames for :math:`\mathbb{R}^2`).

Every ``draw_*`` function draws onto a given :class:`matplotlib.axes.Axes` and returns
it, so the pieces combine freely. The numerical content comes from the core
(:func:`~relu_frames_nb.paper.rectifying.is_rectifying`, most correlated bases, polytope
biases, collisions); this module only draws. Element labels are 1-based, as in the
paper (:math:`\phi_1, \dots, \phi_m`); function arguments are 0-based indices.

:class:`PlaneView` keeps the artists of one picture and updates them in place (for the
2-D explorer): a bias change recomputes only boolean masks on a precomputed grid and
calls ``set_data`` on existing images and lines.

:func:`figure1`, :func:`figure2`, :func:`figure3` redraw the paper's Figures 1-3.

matplotlib is imported inside the functions, never at import time.

This module only re-exports; it implements nothing and none of the modules below imports it.
The window, grid and half-space geometry live in the private ``_plane2d`` (with the drawing
primitives), the ``draw_*`` functions in the private ``_draw2d``, :class:`PlaneView` in
:mod:`.planeview`, the figures in :mod:`.figures2d`.

Every ``draw_*`` function takes ``ax=None``: without axes it draws on the axes of a new figure.
"""

from __future__ import annotations

from ._draw2d import (
    draw_active_count,
    draw_collision,
    draw_correlated_partition,
    draw_domain,
    draw_frame_vectors,
    draw_halfspaces,
    draw_maximal_domain,
    draw_polygon,
    draw_polytope_minima,
    style_axes,
)
from ._plane2d import (
    OVERLAYS,
    active_counts,
    basis_ids,
    boundary_points,
    default_extent,
    grid_points,
    halfspace_polygon,
    halfspace_segment,
)
from .figures2d import figure1, figure2, figure3
from .planeview import PlaneView

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
