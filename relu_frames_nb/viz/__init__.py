"""Plots, 3-D scenes and interactive explorers (optional layer on top of the core).

Data flows one way: the core computes, ``viz`` draws. Nothing here is imported by the
core, and importing ``relu_frames_nb.viz`` itself imports neither matplotlib nor
ipywidgets nor pythreejs: each submodule loads its plotting library on first use.

palette   colour-blind-safe colours (Okabe-Ito) and the sequential colormap
parsing   :func:`parse_matrix`, the safe matrix parser of the widgets and ``%%frame``
plane     matplotlib 2-D views: frame vectors, half-spaces, active counts, maximal
          domain, most correlated partition, domain outlines, collisions, polytope
          minima; :func:`figure1`, :func:`figure2`, :func:`figure3` of the paper
space     3-D scene builders returning arrays (polytope facets, edges, caps, sphere by
          most correlated bases, bias disks, vertex stars), :class:`PolytopeViewer`
          (pythreejs) and :func:`static_render` (matplotlib 3-D)
widgets   :class:`FrameExplorer2D`, :class:`PolytopeExplorer3D`,
          :class:`ReconstructionPlayground` (ipywidgets)
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["palette", "parsing", "plane", "space", "widgets", "parse_matrix"]

_SUBMODULES = {"palette", "parsing", "plane", "space", "widgets"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "parse_matrix":
        from .parsing import parse_matrix

        return parse_matrix
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
