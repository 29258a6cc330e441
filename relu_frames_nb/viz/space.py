r"""3-D scenes of frames for :math:`\mathbb{R}^3`: the inscribing polytope and its decompositions.

Scene builders are pure functions returning numpy arrays (tested on data, no graphics
library needed):

* :func:`polytope_mesh` — the true facets of the inscribing polytope :math:`P_\Phi` of the
  normalized frame, each fan-triangulated, with a facet id per triangle;
* :func:`polytope_edges` — the edges of the true facets (no triangulation diagonals);
* :func:`vertex_labels` — label positions just outside the vertices;
* :func:`sphere_mesh` — the unit sphere (an icosphere);
* :func:`spherical_caps` — :math:`F_j^{\mathbb{S}} = \operatorname{cone}(F_j) \cap \mathbb{S}` as
  subdivided triangles projected to the sphere (Figure "poly", middle);
* :func:`correlated_sphere` — the sphere coloured by most correlated basis :math:`J^*(x)`
  (Figure "poly", right);
* :func:`bias_disk` — the plane :math:`\{\langle x, \phi_i\rangle = \alpha_i\}` clipped to the unit ball;
* :func:`vertex_star` — the facets adjacent to a vertex and the point where its polytope
  bias is attained (Figure 4, right).

:class:`PolytopeScene` keeps these arrays for one frame, one domain, one bias and one
selection, with a fixed size per layer so that a selection or bias change only rewrites
arrays. :class:`PolytopeViewer` shows a scene with pythreejs (switchable layers; updates
assign new data to the existing ``BufferAttribute`` objects, nothing is rebuilt), and
:func:`static_render` draws the same scene with matplotlib 3-D for places without a
kernel (GitHub, nbviewer, PDF) and for tests.

pythreejs and matplotlib are imported inside the functions that need them.

This module only re-exports; it implements nothing and none of the modules below imports it. The
scene geometry lives in the private ``_geometry3d``, :class:`PolytopeScene` in the private
``_scene3d``, :class:`PolytopeViewer` in :mod:`.viewer3d`, :func:`static_render`, :func:`figure_poly`
and :func:`figure4` in :mod:`.render3d`, the PNG helpers ``figure_png`` and ``with_static_png`` in
the private ``_png``.
"""

from __future__ import annotations

from ._common import LAYERS
from ._geometry3d import (
    TriangleMesh,
    VertexStar,
    bias_disk,
    correlated_sphere,
    edge_segments,
    greedy_colors,
    ordered_facets,
    polytope,
    polytope_edges,
    polytope_mesh,
    sphere_mesh,
    spherical_caps,
    vertex_labels,
    vertex_star,
)
from ._png import figure_png, with_static_png  # noqa: F401 - importable from here as before, not in __all__
from ._scene3d import PolytopeScene
from .render3d import figure4, figure_poly, static_render
from .viewer3d import PolytopeViewer

__all__ = [
    "LAYERS",
    "TriangleMesh",
    "VertexStar",
    "polytope",
    "ordered_facets",
    "polytope_mesh",
    "polytope_edges",
    "edge_segments",
    "vertex_labels",
    "sphere_mesh",
    "spherical_caps",
    "correlated_sphere",
    "bias_disk",
    "greedy_colors",
    "vertex_star",
    "PolytopeScene",
    "PolytopeViewer",
    "static_render",
    "figure_poly",
    "figure4",
]
