r""":class:`PolytopeScene`, all arrays of a 3-D scene (private module, pure numpy).

Both pictures of a scene draw it: the pythreejs :class:`~relu_frames_nb.viz.viewer3d.PolytopeViewer`
and the matplotlib :func:`~relu_frames_nb.viz.render3d.static_render`. It lives here, below both, so
that neither has to import the other for it. Re-exported by :mod:`.viewer3d` and :mod:`.space`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.validation import as_bias, as_count
from ..domains import Ball, Domain
from ..errors import InputError, NotOmnidirectionalError
from ..paper.bias.polytope import polytope_bias
from . import palette
from ._common import LAYERS, facet_adjacency, frame3
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

__all__ = ["PolytopeScene"]


# ---------------------------------------------------------------------------------
# The scene: arrays of every layer, fixed sizes for cheap updates
# ---------------------------------------------------------------------------------


def _rgb_rows(colors: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return np.repeat(colors[groups], 3, axis=0).astype(np.float32)


class PolytopeScene:
    r"""All arrays of a 3-D scene for one frame (pure numpy; the viewers draw it).

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
        A frame for :math:`\mathbb{R}^3` with ``m >= 4`` vectors in general position (any
        norms; drawn normalized). When it is not omnidirectional, the polytope bias and the
        spherical caps are not available: ``estimate`` is ``None``, the bias plane defaults
        to 0, the star has no point and the ``caps`` layer raises
        :class:`~relu_frames_nb.errors.NotOmnidirectionalError`.
    domain : Domain, optional
        Domain of the polytope bias shown by the ``star`` layer (default: the unit ball).
    bias : float or array_like, shape (m,), optional
        The bias of the ``bias_plane`` layer (default: the polytope bias on ``domain``,
        with free elements set to 0).
    element : int, default 0
        Element whose bias plane is shown.
    vertex : int, optional
        Selected vertex: its facets are highlighted and the ``star`` layer shows them.

    Notes
    -----
    :meth:`arrays` returns, per layer, ``{"kind": "mesh"|"lines"|"points", "position": ...,
    "color": ..., ...}`` with ``float32`` arrays. The ``star`` and ``bias_plane`` layers
    have capacities fixed per frame (padded with zero-area triangles and zero-length
    segments at the origin), and the facet colours only change values, so selecting
    another vertex or element, or another bias, never changes an array's shape.
    """

    def __init__(self, frame: Any, *, domain: Domain | None = None, bias: Any = None, element: int = 0,
                 vertex: int | None = None, disk_segments: int = 96) -> None:  # fmt: skip
        self.frame = frame3(frame)
        self.P = polytope(self.frame)
        self.disk_segments = as_count(disk_segments, "disk_segments", minimum=3)
        self.cycles = ordered_facets(self.P)
        self.mesh = polytope_mesh(self.P)
        self.edges = polytope_edges(self.P)
        fc = greedy_colors(self.P.n_facets, facet_adjacency(self.cycles))
        self.facet_colors = palette.categorical(int(fc.max()) + 1 if fc.size else 1)[fc]
        self._lazy: dict[str, Any] = {}
        # capacities of the star layer: the largest vertex star
        tri_per_facet = np.array([c.size - 2 for c in self.cycles])
        self._star_tri_cap = max(max(int(tri_per_facet[self.P.facets_of(i)].sum()) for i in range(self.P.m)), 1)
        self._star_seg_cap = max(
            int(np.unique(np.concatenate([self.cycles[j] for j in self.P.facets_of(i)])).size) for i in range(self.P.m)
        )
        self.domain = domain if domain is not None else Ball(3)
        self._estimate = None
        self.element = 0
        self.vertex: int | None = None
        self.set_element(element)
        self.set_bias(bias)
        self.select_vertex(vertex)

    # ------------------------------------------------------------------ state
    @property
    def m(self) -> int:
        """Number of frame elements."""
        return self.frame.m

    @property
    def omnidirectional(self) -> bool:
        """Whether 0 is interior to the polytope (else there are no caps and no polytope bias)."""
        return bool(self.P.is_omnidirectional)

    @property
    def estimate(self):
        """The polytope bias estimate on the current domain (computed on first use; ``None`` if not omnidirectional)."""
        if self._estimate is None and self.omnidirectional:
            self._estimate = polytope_bias(self.P, self.domain)
        return self._estimate

    def set_domain(self, domain: Domain) -> None:
        """Another domain for the polytope bias (recomputed lazily; the hull is reused)."""
        if not isinstance(domain, Domain) or domain.n != 3:
            raise InputError(f"domain must be a Domain in R^3; got {domain!r}.")
        self.domain = domain
        self._estimate = None
        if self._bias_from_estimate:
            self._alpha = None

    def set_bias(self, bias: Any) -> None:
        """The bias of the ``bias_plane`` layer (``None``: the polytope bias, free elements at 0)."""
        self._bias_from_estimate = bias is None
        self._alpha = None if bias is None else as_bias(bias, self.m)

    @property
    def alpha(self) -> np.ndarray:
        """The bias vector used by the ``bias_plane`` layer."""
        if self._alpha is None:
            est = self.estimate
            v = np.zeros(self.m) if est is None else np.array(est.values)
            v[~np.isfinite(v)] = 0.0
            self._alpha = v
        return self._alpha

    def set_element(self, element: int) -> None:
        """Choose the element whose bias plane is shown."""
        if isinstance(element, bool) or not isinstance(element, (int, np.integer)) or not 0 <= int(element) < self.m:
            raise InputError(f"element must be an index in [0, {self.m}); got {element!r}.")
        self.element = int(element)

    def select_vertex(self, vertex: int | None) -> None:
        """Select a vertex (its facets are highlighted), or clear the selection with ``None``."""
        if vertex is not None and (isinstance(vertex, bool) or not isinstance(vertex, (int, np.integer))
                                   or not 0 <= int(vertex) < self.m):  # fmt: skip
            raise InputError(f"vertex must be None or an index in [0, {self.m}); got {vertex!r}.")
        self.vertex = None if vertex is None else int(vertex)

    # ------------------------------------------------------------------ arrays
    def arrays(self, layer: str) -> dict[str, Any]:
        """The arrays of one layer (see the class notes)."""
        if layer not in LAYERS:
            raise InputError(f"layer must be one of {LAYERS}; got {layer!r}.")
        return getattr(self, f"_layer_{layer}")()

    def _layer_sphere(self):
        s = self._lazy.get("sphere")
        if s is None:
            s = self._lazy["sphere"] = sphere_mesh(subdivisions=3, radius=0.995)
        return {"kind": "mesh", "position": s.positions(), "normal": s.normals(), "color": None,
                "uniform": palette.lighten(palette.MUTED, 0.55), "opacity": 0.14}  # fmt: skip

    def _layer_caps(self):
        c = self._lazy.get("caps")
        if c is None:
            if not self.omnidirectional:
                raise NotOmnidirectionalError(
                    "the spherical caps need an omnidirectional frame (0 interior to its polytope, so that the facet "
                    f"cones cover R^3); got a facet with offset {self.P.offsets.min():.3g} <= 0. Add a vector, e.g. "
                    "with relu_frames_nb.paper.bias.polytope.complete_omnidirectional."
                )
            c = self._lazy["caps"] = spherical_caps(self.P)
        pos = c.positions() * np.float32(1.004)
        return {"kind": "mesh", "position": pos, "normal": pos / np.float32(1.004), "color": _rgb_rows(self.facet_colors,
                c.groups), "opacity": 0.95, "groups": c.groups}  # fmt: skip

    def _layer_correlated(self):
        c = self._lazy.get("correlated")
        if c is None:
            c = self._lazy["correlated"] = correlated_sphere(self.frame)
        mesh, bases, adjacency = c
        pos = mesh.positions() * np.float32(1.008)
        ids = greedy_colors(len(bases), adjacency)
        colors = palette.categorical(int(ids.max()) + 1)[ids]
        return {"kind": "mesh", "position": pos, "normal": pos / np.float32(1.008), "color": _rgb_rows(colors, mesh.groups),
                "opacity": 0.95, "groups": mesh.groups, "bases": bases}  # fmt: skip

    def _facet_rgb(self) -> np.ndarray:
        colors = self.facet_colors.copy()
        if self.vertex is not None:
            adj = np.zeros(self.P.n_facets, dtype=bool)
            adj[self.P.facets_of(self.vertex)] = True
            colors[~adj] = colors[~adj] + (1.0 - colors[~adj]) * 0.8
        return colors

    def _layer_facets(self):
        return {"kind": "mesh", "position": self.mesh.positions(), "normal": self.mesh.normals(),
                "color": _rgb_rows(self._facet_rgb(), self.mesh.groups), "opacity": 0.6, "groups": self.mesh.groups}  # fmt: skip

    def _layer_edges(self):
        seg = edge_segments(self.P.points, self.edges)
        return {"kind": "lines", "position": seg.reshape(-1, 3).astype(np.float32), "uniform": palette.INK}

    def _layer_vertices(self):
        colors = np.tile(palette.rgb(palette.INK), (self.m, 1))
        if self.vertex is not None:
            colors[self.vertex] = palette.rgb(palette.HIGHLIGHT)
        return {"kind": "points", "position": self.P.points.astype(np.float32), "color": colors.astype(np.float32)}

    def _layer_labels(self):
        pos, text = vertex_labels(self.frame)
        return {"kind": "labels", "position": pos.astype(np.float32), "text": text}

    def _layer_bias_plane(self):
        disk = bias_disk(self.frame, self.element, self.alpha, segments=self.disk_segments)
        rim = disk.vertices[1:]
        rim_seg = np.stack([rim, np.roll(rim, -1, axis=0)], axis=1).reshape(-1, 3)
        return {"kind": "mesh", "position": disk.positions(), "normal": disk.normals(), "color": None,
                "uniform": palette.element_color(self.element), "opacity": 0.45, "rim": rim_seg.astype(np.float32),
                "empty": bool(np.allclose(rim, rim[0]))}  # fmt: skip

    def star(self) -> VertexStar | None:
        """The :class:`VertexStar` of the selected vertex (``None`` when none is selected)."""
        if self.vertex is None:
            return None
        return vertex_star(self.P, self.vertex, estimate=self.estimate)

    def _layer_star(self):
        tri = np.zeros((self._star_tri_cap * 3, 3), dtype=np.float32)
        col = np.zeros((self._star_tri_cap * 3, 3), dtype=np.float32)
        seg = np.zeros((self._star_seg_cap * 2, 3), dtype=np.float32)
        point = np.zeros((1, 3), dtype=np.float32)
        st = self.star()
        has_point = False
        if st is not None:
            pos = st.mesh.positions()
            tri[: len(pos)] = pos * np.float32(1.002)
            col[: len(pos)] = _rgb_rows(self.facet_colors, st.mesh.groups)
            cone = st.cone.reshape(-1, 3)
            seg[: len(cone)] = cone
            if np.all(np.isfinite(st.point)):
                point[0] = st.point
                has_point = True
        normal = TriangleMesh(tri.astype(float), np.arange(len(tri)).reshape(-1, 3), np.zeros(len(tri) // 3, int)).normals()
        return {"kind": "mesh", "position": tri, "normal": normal, "color": col, "opacity": 0.9, "cone": seg,
                "point": point, "has_point": has_point, "star": st}  # fmt: skip
