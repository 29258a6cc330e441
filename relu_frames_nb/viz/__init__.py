"""Plots, 3-D scenes and interactive explorers (optional layer on top of the core).

Data flows one way: the core computes, ``viz`` draws. Nothing here is imported by the
core, and importing ``relu_frames_nb.viz`` itself imports neither matplotlib nor
ipywidgets nor pythreejs: each submodule loads its plotting library on first use.

palette     colour-blind-safe colours (Okabe-Ito) and the sequential colormap
parsing     :func:`parse_matrix`, the safe matrix parser of the widgets and ``%%frame``
plane       the 2-D views in one place (re-exports only): frame vectors, half-spaces, active
            counts, maximal domain, most correlated partition, domain outlines, collisions,
            polytope minima, the plane geometry, :class:`PlaneView` and Figures 1-3
planeview   :class:`PlaneView`, the picture of the 2-D explorer, updated in place
figures2d   :func:`figure1`, :func:`figure2`, :func:`figure3` of the paper
space       the 3-D scenes in one place (re-exports only): scene builders returning arrays
            (polytope facets, edges, caps, sphere by most correlated bases, bias disks,
            vertex stars), :class:`PolytopeScene`, :class:`PolytopeViewer`, the 3-D figures
viewer3d    :class:`PolytopeViewer` (pythreejs) of a :class:`PolytopeScene`
render3d    :func:`static_render` (matplotlib 3-D), :func:`figure_poly`, :func:`figure4`
pairs       :func:`plot_pair`, a colliding pair drawn (images when the input is one; the CLI's
            ``--save-pair``)
experiments the figures of "Numerical experiments": :func:`plot_propinj`,
            :func:`plot_isinj`, :func:`plot_conv` (used by ``reproduce`` and the notebooks)
widgets     :class:`FrameExplorer2D` (explorer2d), :class:`PolytopeExplorer3D`
            (explorer3d), :class:`ReconstructionPlayground` (playground),
            :class:`DigitsExplorer` (digits); ipywidgets; re-exports only

Private helpers: ``_shapes2d`` (how each domain class is drawn on the plane, one
``singledispatch`` registration per class), ``_plane2d`` (checks, grid, half-space geometry,
drawing primitives), ``_draw2d`` (the ``draw_*`` functions), ``_geometry3d`` (the 3-D scene
builders), ``_scene3d`` (:class:`PolytopeScene`), ``_common``, ``_png``, ``_widget_base``.

Imports point down, never up and never in a circle (the explorers also draw with
planeview, _draw2d and viewer3d)::

    widgets -> explorer2d, explorer3d, playground, digits -> _widget_base -> _png
    plane (facade) -> figures2d, planeview -> _draw2d -> _plane2d -> _shapes2d -> palette
    space (facade) -> viewer3d -> render3d -> _scene3d -> _geometry3d -> _common

A facade only re-exports and no module below it imports it; a private module's names are
imported by its siblings, a public module's private names by nobody. matplotlib, pythreejs
and PIL are imported inside the functions that use them, ipywidgets at the top of the
explorer modules only.

One keyword convention for every plotting function here: a function that draws on one axes
takes ``ax=None`` (None: the axes of a new figure) and returns the axes; a function that draws
a multi-panel figure takes ``fig=None`` (None: a new figure) and returns the figure.
"""

from __future__ import annotations

import importlib
from typing import Any

from .parsing import parse_matrix

__all__ = [
    "palette",
    "parsing",
    "plane",
    "planeview",
    "figures2d",
    "space",
    "viewer3d",
    "render3d",
    "experiments",
    "widgets",
    "explorer2d",
    "explorer3d",
    "playground",
    "digits",
    "parse_matrix",
]

_SUBMODULES = set(__all__) - {"parse_matrix"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
