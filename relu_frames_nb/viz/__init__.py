"""Plots, 3-D scenes and interactive explorers (optional layer on top of the core).

Data flows one way: the core computes, ``viz`` draws. Nothing here is imported by the
core, and importing ``relu_frames_nb.viz`` itself imports neither matplotlib nor
ipywidgets nor pythreejs: each submodule loads its plotting library on first use.

palette     colour-blind-safe colours (Okabe-Ito) and the sequential colormap
parsing     :func:`parse_matrix`, the safe matrix parser of the widgets and ``%%frame``
plane       matplotlib 2-D views: frame vectors, half-spaces, active counts, maximal
            domain, most correlated partition, domain outlines, collisions, polytope
            minima; re-exports the plane geometry, :class:`PlaneView` and Figures 1-3
planeview   :class:`PlaneView`, the picture of the 2-D explorer, updated in place
figures2d   :func:`figure1`, :func:`figure2`, :func:`figure3` of the paper
space       3-D scene builders returning arrays (polytope facets, edges, caps, sphere by
            most correlated bases, bias disks, vertex stars); re-exports the names below
viewer3d    :class:`PolytopeScene` (arrays of a scene) and :class:`PolytopeViewer` (pythreejs)
render3d    :func:`static_render` (matplotlib 3-D), :func:`figure_poly`, :func:`figure4`
experiments the figures of "Numerical experiments": :func:`plot_propinj`,
            :func:`plot_isinj`, :func:`plot_conv` (used by ``reproduce`` and the notebooks)
widgets     :class:`FrameExplorer2D` (explorer2d), :class:`PolytopeExplorer3D`
            (explorer3d), :class:`ReconstructionPlayground` (playground),
            :class:`DigitsExplorer` (digits); ipywidgets
_common, _plane2d, _png, _widget_base   private helpers of the modules above

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
