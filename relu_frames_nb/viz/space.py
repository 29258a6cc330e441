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
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .._validation import as_bias, as_count, as_positive
from ..domains import Domain
from ..errors import DimensionMismatchError, InputError
from ..frames import Frame, as_frame
from . import palette

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

#: layers of a scene, in drawing order
LAYERS = ("sphere", "caps", "correlated", "facets", "edges", "vertices", "labels", "bias_plane", "star")
_DEFAULT_LAYERS = ("sphere", "facets", "edges", "vertices", "labels")


# ---------------------------------------------------------------------------------
# Data containers
# ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """Triangles with a group id each (facet, cap or basis).

    Attributes
    ----------
    vertices : ndarray, shape (V, 3)
        Vertex positions.
    triangles : ndarray of int, shape (T, 3)
        Vertex indices of each triangle.
    groups : ndarray of int, shape (T,)
        Group id of each triangle (e.g. the facet it lies on).
    """

    vertices: np.ndarray
    triangles: np.ndarray
    groups: np.ndarray

    @property
    def n_triangles(self) -> int:
        """Number of triangles."""
        return int(self.triangles.shape[0])

    def corners(self) -> np.ndarray:
        """The triangles as corner coordinates, shape ``(T, 3, 3)``."""
        return self.vertices[self.triangles]

    def positions(self) -> np.ndarray:
        """Non-indexed vertex positions for a GPU buffer, ``float32`` of shape ``(3T, 3)``."""
        return self.corners().reshape(-1, 3).astype(np.float32)

    def normals(self) -> np.ndarray:
        """Flat (per-triangle) unit normals repeated per corner, ``float32`` of shape ``(3T, 3)``."""
        c = self.corners()
        nrm = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
        length = np.linalg.norm(nrm, axis=1, keepdims=True)
        nrm = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
        return np.repeat(nrm, 3, axis=0).astype(np.float32)


@dataclass(frozen=True, eq=False)
class VertexStar:
    r"""The facets around one vertex and where its polytope bias is attained (Figure 4, right).

    Attributes
    ----------
    vertex : int
        The vertex (frame element, 0-based).
    facets : ndarray of int
        The facets containing it.
    mesh : TriangleMesh
        Those facets, fan-triangulated (groups = facet ids).
    cone : ndarray, shape (k, 2, 3)
        Segments from the origin to the vertices of those facets (the cones' edges).
    point : ndarray, shape (3,)
        Where :math:`\langle x, \phi_i\rangle` attains the polytope bias on the domain
        (NaN without a domain or for a free element).
    value : float
        The polytope bias of the element (NaN without a domain).
    facet : int
        The facet where it is attained (-1 if unknown).
    """

    vertex: int
    facets: np.ndarray
    mesh: TriangleMesh
    cone: np.ndarray
    point: np.ndarray
    value: float
    facet: int


# ---------------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------------


def _frame3(frame: Any) -> Frame:
    from ..bias.polytope import InscribingPolytope

    if isinstance(frame, InscribingPolytope):
        frame = frame.frame
    F = as_frame(frame)
    if F.n != 3:
        raise DimensionMismatchError(f"frame must be a frame for R^3 (n = 3) for a 3-D scene; got n = {F.n}.")
    return F


def polytope(frame: Any, **kwargs: Any):
    r"""The inscribing polytope of a frame for :math:`\mathbb{R}^3` (the core's ``inscribing_polytope``).

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)
        The frame (normalized by the core); an ``InscribingPolytope`` is returned as is.
    **kwargs
        Passed on to :func:`relu_frames_nb.bias.polytope.inscribing_polytope`
        (``facets``, ``max_facets``, ``tol``).

    Returns
    -------
    InscribingPolytope
    """
    from ..bias.polytope import InscribingPolytope, inscribing_polytope

    if isinstance(frame, InscribingPolytope):
        if frame.n != 3:
            raise DimensionMismatchError(f"frame must be a frame for R^3; got a polytope in R^{frame.n}.")
        return frame
    return inscribing_polytope(_frame3(frame), **kwargs)


def ordered_facets(frame: Any) -> list[np.ndarray]:
    """Vertex indices of each true facet in cyclic order, counter-clockwise seen from outside.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)

    Returns
    -------
    list of ndarray of int
        One array per facet (the facet order of the core's ``InscribingPolytope``).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> [f.size for f in ordered_facets(rf.zoo.platonic("cube"))]
    [4, 4, 4, 4, 4, 4]
    """
    P = polytope(frame)
    X = P.points
    out = []
    for j, idx in enumerate(P.facets):
        V = X[idx]
        c = V.mean(axis=0)
        a = P.normals[j]
        u = V[0] - c
        u = u - (u @ a) * a
        u /= np.linalg.norm(u)
        w = np.cross(a, u)
        ang = np.arctan2((V - c) @ w, (V - c) @ u)
        out.append(np.asarray(idx)[np.argsort(ang)])
    return out


def _fan(facets: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    tris, groups = [], []
    for j, cyc in enumerate(facets):
        k = cyc.size
        if k < 3:
            continue
        t = np.column_stack([np.full(k - 2, cyc[0]), cyc[1:-1], cyc[2:]])
        tris.append(t)
        groups.append(np.full(k - 2, j))
    if not tris:
        return np.zeros((0, 3), dtype=np.intp), np.zeros(0, dtype=np.intp)
    return np.vstack(tris).astype(np.intp), np.concatenate(groups).astype(np.intp)


def polytope_mesh(frame: Any) -> TriangleMesh:
    r"""The true facets of the inscribing polytope, each fan-triangulated.

    Every triangle lies on one facet plane; ``groups`` holds that facet's index. The
    vertices are the normalized frame vectors (the paper draws :math:`P_\Phi` for
    :math:`\Phi \subset \mathbb{S}`).

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)

    Returns
    -------
    TriangleMesh
        ``sum(k_j - 2)`` triangles for facets with ``k_j`` vertices.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> mesh = polytope_mesh(rf.zoo.platonic("cube"))
    >>> mesh.n_triangles, sorted(set(mesh.groups.tolist()))
    (12, [0, 1, 2, 3, 4, 5])
    """
    P = polytope(frame)
    tris, groups = _fan(ordered_facets(P))
    return TriangleMesh(np.array(P.points), tris, groups)


def polytope_edges(frame: Any) -> np.ndarray:
    """The edges of the true facets as vertex index pairs (no triangulation diagonals).

    Returns
    -------
    ndarray of int, shape (E, 2)
        Sorted pairs ``i < j``, sorted lexicographically.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> polytope_edges(rf.zoo.platonic("cube")).shape
    (12, 2)
    """
    pairs = []
    for cyc in ordered_facets(frame):
        pairs.append(np.column_stack([cyc, np.roll(cyc, -1)]))
    if not pairs:
        return np.zeros((0, 2), dtype=np.intp)
    e = np.sort(np.vstack(pairs), axis=1)
    return np.unique(e, axis=0).astype(np.intp)


def edge_segments(points: Any, edges: Any) -> np.ndarray:
    """Segments ``(E, 2, 3)`` from vertex positions ``(m, 3)`` and index pairs ``(E, 2)``."""
    pts = np.asarray(points, dtype=float)
    e = np.asarray(edges, dtype=np.intp)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise InputError(f"points must have shape (m, 3); got {pts.shape}.")
    if e.ndim != 2 or e.shape[1] != 2 or (e.size and (e.min() < 0 or e.max() >= pts.shape[0])):
        raise InputError(f"edges must be index pairs of shape (E, 2) into {pts.shape[0]} points; got shape {e.shape}.")
    return pts[e]


def vertex_labels(frame: Any, *, offset: float = 0.12) -> tuple[np.ndarray, list[str]]:
    r"""Label positions just outside the normalized vertices, and the labels ``φ1 … φm`` (1-based).

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
    offset : float, default 0.12
        Distance beyond the unit sphere.

    Returns
    -------
    positions : ndarray, shape (m, 3)
    labels : list of str
    """
    F = _frame3(frame)
    off = as_positive(offset, "offset")
    unit = F.vectors / F.norms[:, None]
    return unit * (1.0 + off), [f"φ{i + 1}" for i in range(F.m)]


def _icosahedron() -> tuple[np.ndarray, np.ndarray]:
    g = (1.0 + np.sqrt(5.0)) / 2.0
    v = np.array([[-1, g, 0], [1, g, 0], [-1, -g, 0], [1, -g, 0], [0, -1, g], [0, 1, g],
                  [0, -1, -g], [0, 1, -g], [g, 0, -1], [g, 0, 1], [-g, 0, -1], [-g, 0, 1]], dtype=float)  # fmt: skip
    f = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
                  [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
                  [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]], dtype=np.intp)  # fmt: skip
    return v / np.linalg.norm(v, axis=1, keepdims=True), f


def _subdivide(corners: np.ndarray, times: int) -> np.ndarray:
    """Split every triangle ``(T, 3, 3)`` into four, ``times`` times (unshared corners)."""
    c = corners
    for _ in range(times):
        a, b, d = c[:, 0], c[:, 1], c[:, 2]
        ab, bd, da = (a + b) / 2, (b + d) / 2, (d + a) / 2
        c = np.stack([np.stack([a, ab, da], 1), np.stack([ab, b, bd], 1), np.stack([da, bd, d], 1),
                      np.stack([ab, bd, da], 1)], 1).reshape(-1, 3, 3)  # fmt: skip
    return c


def _from_corners(corners: np.ndarray, groups: np.ndarray) -> TriangleMesh:
    T = corners.shape[0]
    return TriangleMesh(corners.reshape(-1, 3), np.arange(3 * T, dtype=np.intp).reshape(T, 3), groups.astype(np.intp))


def sphere_mesh(*, subdivisions: int = 3, radius: float = 1.0) -> TriangleMesh:
    """The sphere as a subdivided icosahedron (``20 * 4**subdivisions`` triangles).

    Examples
    --------
    >>> sphere_mesh(subdivisions=1).n_triangles
    80
    """
    k = as_count(subdivisions, "subdivisions", minimum=0)
    r = as_positive(radius, "radius")
    v, f = _icosahedron()
    c = _subdivide(v[f], k)
    c = r * c / np.linalg.norm(c, axis=2, keepdims=True)
    return _from_corners(c, np.zeros(c.shape[0], dtype=np.intp))


def _auto_subdivisions(n_tri: int, budget: int) -> int:
    k = 0
    while n_tri * 4 ** (k + 1) <= budget and k < 6:
        k += 1
    return k


def spherical_caps(frame: Any, *, subdivisions: int | None = None, budget: int = 20_000) -> TriangleMesh:
    r"""The spherical caps :math:`F_j^{\mathbb{S}} = \operatorname{cone}(F_j)\cap\mathbb{S}` of the facets.

    Each fan triangle of each facet is subdivided and projected radially to the unit
    sphere; ``groups`` holds the facet index.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)
    subdivisions : int, optional
        Times each triangle is split in four (default: as many as keep the total at most
        ``budget`` triangles).
    budget : int, default 20000
        Triangle budget for the automatic choice.

    Returns
    -------
    TriangleMesh
        Vertices on the unit sphere.
    """
    base = polytope_mesh(frame)
    k = _auto_subdivisions(base.n_triangles, as_count(budget, "budget")) if subdivisions is None else as_count(
        subdivisions, "subdivisions", minimum=0)  # fmt: skip
    c = _subdivide(base.corners(), k)
    c = c / np.linalg.norm(c, axis=2, keepdims=True)
    return _from_corners(c, np.repeat(base.groups, 4**k))


def correlated_sphere(frame: Any, *, subdivisions: int = 4, refinements: int = 3) -> tuple[TriangleMesh, np.ndarray, np.ndarray]:
    r"""The unit sphere coloured by most correlated basis :math:`J^*(x)` (Figure "poly", right).

    Each triangle of an icosphere gets the most correlated basis of its (normalized)
    centroid, computed by the core's ``most_correlated_basis``. Triangles whose corners
    and centroid disagree are split again (``refinements`` times), so region boundaries
    are sharp at a small cost.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
    subdivisions : int, default 4
        Base icosphere level (``20 * 4**subdivisions`` triangles).
    refinements : int, default 3
        Extra splits of the triangles on region boundaries.

    Returns
    -------
    mesh : TriangleMesh
        Vertices on the unit sphere; ``groups`` indexes ``bases``.
    bases : ndarray of int, shape (k, 3)
        The distinct most correlated bases (sorted index triples).
    adjacency : ndarray of int, shape (e, 2)
        Pairs of regions that touch (for colouring neighbours differently).
    """
    from ..bias.correlated import most_correlated_basis

    F = _frame3(frame)
    base_level = as_count(subdivisions, "subdivisions", minimum=0)
    refine = as_count(refinements, "refinements", minimum=0)
    v, f = _icosahedron()
    corners = _subdivide(v[f], base_level)
    corners /= np.linalg.norm(corners, axis=2, keepdims=True)

    def basis_of(P: np.ndarray) -> np.ndarray:
        P = P / np.linalg.norm(P, axis=1, keepdims=True)
        return np.sort(np.asarray(most_correlated_basis(F, P)), axis=1)

    def keys(J: np.ndarray) -> np.ndarray:
        return (J * np.array([F.m * F.m, F.m, 1])).sum(axis=1)

    pairs = set()
    done = []
    for level in range(refine + 1):
        T = corners.shape[0]
        pts = np.concatenate([corners.reshape(-1, 3), corners.mean(axis=1)])
        K = keys(basis_of(pts))
        kc, kcen = K[: 3 * T].reshape(T, 3), K[3 * T :]
        allk = np.column_stack([kc, kcen])
        mixed = np.any(allk != allk[:, :1], axis=1)
        for row in np.unique(allk[mixed], axis=0):
            u = np.unique(row)
            pairs.update((int(a), int(b)) for a in u for b in u if a < b)
        if level == refine:
            done.append((corners, kcen))
            break
        done.append((corners[~mixed], kcen[~mixed]))
        corners = _subdivide(corners[mixed], 1)
        corners /= np.linalg.norm(corners, axis=2, keepdims=True)
    all_corners = np.concatenate([c for c, _ in done])
    all_keys = np.concatenate([k for _, k in done])
    uniq, ids = np.unique(all_keys, return_inverse=True)
    bases = np.column_stack([uniq // (F.m * F.m), (uniq // F.m) % F.m, uniq % F.m]).astype(np.intp)
    where = {int(k): j for j, k in enumerate(uniq)}
    adjacency = np.array(sorted((where[a], where[b]) for a, b in pairs if a in where and b in where), dtype=np.intp)
    mesh = _from_corners(all_corners, ids.reshape(-1))
    return mesh, bases, adjacency.reshape(-1, 2)


def greedy_colors(n_groups: int, adjacency: Any, *, n_colors: int = 7) -> np.ndarray:
    """Colour ids such that adjacent groups differ, spread evenly over ``n_colors`` colours.

    Groups are taken by decreasing degree; each gets the least used colour that none of
    its coloured neighbours has (a new colour only when all ``n_colors`` are taken).

    Parameters
    ----------
    n_groups : int
        Number of groups (facets, regions).
    adjacency : array_like of int, shape (k, 2)
        Pairs of adjacent groups.
    n_colors : int, default 7
        Colours to spread over (the seven Okabe-Ito colours of the palette).

    Returns
    -------
    ndarray of int, shape (n_groups,)
        Colour ids ``0, 1, ...``; use them with :func:`~relu_frames_nb.viz.palette.categorical`.

    Examples
    --------
    >>> greedy_colors(3, [[0, 1], [1, 2], [0, 2]]).tolist()
    [0, 1, 2]
    """
    n = as_count(n_groups, "n_groups", minimum=0)
    k = as_count(n_colors, "n_colors")
    adj = np.asarray(adjacency, dtype=np.intp).reshape(-1, 2)
    nbrs: list[set[int]] = [set() for _ in range(n)]
    for a, b in adj:
        if a != b:
            nbrs[a].add(int(b))
            nbrs[b].add(int(a))
    color = np.full(n, -1, dtype=np.intp)
    usage = [0] * k
    for g in sorted(range(n), key=lambda g: -len(nbrs[g])):
        used = {int(color[h]) for h in nbrs[g]}
        free = [c for c in range(len(usage)) if c not in used]
        if not free:
            usage.append(0)
            free = [len(usage) - 1]
        c = min(free, key=lambda c: (usage[c], c))
        color[g] = c
        usage[c] += 1
    return color


def _facet_adjacency(cycles: list[np.ndarray]) -> np.ndarray:
    owner: dict[tuple[int, int], list[int]] = {}
    for j, cyc in enumerate(cycles):
        for a, b in zip(cyc, np.roll(cyc, -1)):
            owner.setdefault((min(a, b), max(a, b)), []).append(j)
    pairs = [(f[0], f[1]) for f in owner.values() if len(f) == 2]
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)


def bias_disk(frame: Any, element: int, alpha: Any, *, segments: int = 64, radius: float = 1.0) -> TriangleMesh:
    r"""The plane :math:`\{x : \langle x, \phi_i\rangle = \alpha_i\}` clipped to the ball of ``radius``.

    A disk with centre :math:`d\,u`, :math:`u = \phi_i/\|\phi_i\|`, :math:`d = \alpha_i/\|\phi_i\|`,
    and radius :math:`\sqrt{R^2 - d^2}`, as a fan of ``segments`` triangles. The size
    never changes: when the plane misses the ball (:math:`|d| \ge R`) every vertex sits at
    the nearest point of the plane, so the disk has zero area.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
    element : int
        The element ``i`` (0-based).
    alpha : float or array_like, shape (m,)
        Its bias, or the whole bias vector.
    segments : int, default 64
        Triangles of the fan.
    radius : float, default 1.0
        Radius of the ball.

    Returns
    -------
    TriangleMesh
        ``segments + 1`` vertices (the centre first) and ``segments`` triangles.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> disk = bias_disk(rf.zoo.platonic("octahedron"), 0, 0.6, segments=8)
    >>> np.allclose(disk.vertices[:, 0], 0.6), np.allclose(np.linalg.norm(disk.vertices[1:], axis=1), 1.0)
    (True, True)
    """
    F = _frame3(frame)
    seg = as_count(segments, "segments", minimum=3)
    R = as_positive(radius, "radius")
    if isinstance(element, bool) or not isinstance(element, (int, np.integer)) or not 0 <= int(element) < F.m:
        raise InputError(f"element must be an index in [0, {F.m}); got {element!r}.")
    i = int(element)
    a = np.asarray(alpha, dtype=float)
    a_i = float(as_bias(alpha, F.m)[i]) if a.ndim else float(a)
    if not np.isfinite(a_i):
        raise InputError(f"alpha must be finite; got {a_i}.")
    u = F.vectors[i] / F.norms[i]
    d = a_i / F.norms[i]
    rho = np.sqrt(max(R * R - d * d, 0.0))
    e1 = np.cross(u, [1.0, 0.0, 0.0] if abs(u[0]) < 0.9 else [0.0, 1.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    t = 2 * np.pi * np.arange(seg) / seg
    rim = d * u + rho * (np.cos(t)[:, None] * e1 + np.sin(t)[:, None] * e2)
    verts = np.vstack([d * u, rim])
    tris = np.column_stack([np.zeros(seg, dtype=np.intp), 1 + np.arange(seg), 1 + (np.arange(seg) + 1) % seg])
    return TriangleMesh(verts, tris, np.zeros(seg, dtype=np.intp))


def vertex_star(frame: Any, vertex: int, *, domain: Domain | None = None, estimate: Any = None) -> VertexStar:
    r"""The facets adjacent to a vertex and where its polytope bias is attained (Figure 4, right).

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)
    vertex : int
        The vertex (frame element, 0-based).
    domain : Domain, optional
        Compute the polytope bias on this domain (core ``polytope_bias``).
    estimate : BiasEstimate, optional
        A polytope bias estimate already computed (takes precedence over ``domain``).

    Returns
    -------
    VertexStar
    """
    P = polytope(frame)
    if isinstance(vertex, bool) or not isinstance(vertex, (int, np.integer)) or not 0 <= int(vertex) < P.m:
        raise InputError(f"vertex must be an index in [0, {P.m}); got {vertex!r}.")
    i = int(vertex)
    cyc = ordered_facets(P)
    adj = np.asarray(P.facets_of(i))
    tris, groups = _fan([cyc[j] for j in adj])
    groups = adj[groups] if groups.size else groups
    mesh = TriangleMesh(np.array(P.points), tris, groups)
    verts = np.unique(np.concatenate([cyc[j] for j in adj])) if adj.size else np.zeros(0, dtype=np.intp)
    cone = np.stack([np.zeros((verts.size, 3)), P.points[verts]], axis=1)
    point, value, facet = np.full(3, np.nan), float("nan"), -1
    if estimate is None and domain is not None:
        from ..bias.polytope import polytope_bias

        estimate = polytope_bias(P, domain)
    if estimate is not None:
        value = float(estimate.values[i])
        if estimate.argmin is not None:
            point = np.asarray(estimate.argmin[i], dtype=float)
        if estimate.facets is not None:
            facet = int(estimate.facets[i])
    return VertexStar(i, adj, mesh, cone, point, value, facet)


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
        from ..domains import Ball

        self.frame = _frame3(frame)
        self.P = polytope(self.frame)
        self.disk_segments = as_count(disk_segments, "disk_segments", minimum=3)
        self.cycles = ordered_facets(self.P)
        self.mesh = polytope_mesh(self.P)
        self.edges = polytope_edges(self.P)
        fc = greedy_colors(self.P.n_facets, _facet_adjacency(self.cycles))
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
            from ..bias.polytope import polytope_bias

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
                from ..errors import NotOmnidirectionalError

                raise NotOmnidirectionalError(
                    "the spherical caps need an omnidirectional frame (0 interior to its polytope, so that the facet "
                    f"cones cover R^3); got a facet with offset {self.P.offsets.min():.3g} <= 0. Add a vector, e.g. "
                    "with relu_frames_nb.bias.polytope.complete_omnidirectional."
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


# ---------------------------------------------------------------------------------
# pythreejs viewer
# ---------------------------------------------------------------------------------


def figure_png(fig: Any, dpi: int, *, compress_level: int = 1) -> bytes:
    """The PNG bytes of a matplotlib figure (attached to an Agg canvas if it has none)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": compress_level})
    return buf.getvalue()


def with_static_png(bundle: Any, png: Any) -> Any:
    """Add ``image/png`` (bytes, or a callable returning bytes or None) to a widget's display bundle.

    Front-ends with a widget manager prefer the widget view; readers without a kernel (GitHub,
    nbviewer without widget state, PDF exports) get the picture instead of an empty cell.
    """
    if isinstance(bundle, dict):
        data = png() if callable(png) else png
        if data:
            bundle["image/png"] = base64.b64encode(data).decode("ascii")
    return bundle


def _check_layers(layers: Iterable[str]) -> set[str]:
    names = set(layers)
    bad = names - set(LAYERS)
    if bad:
        raise InputError(f"layers must be among {LAYERS}; got {sorted(bad)}.")
    return names


class PolytopeViewer:
    r"""An interactive pythreejs view of a :class:`PolytopeScene` with switchable layers.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
        An omnidirectional frame for :math:`\mathbb{R}^3`.
    layers : iterable of str, optional
        Visible layers (from :data:`LAYERS`; default sphere, facets, edges, vertices, labels).
    domain, bias, element, vertex
        As for :class:`PolytopeScene`.
    width, height : int, default 460
        Canvas size in pixels.
    max_labels : int, default 60
        Vertex labels are only made for frames with at most this many elements.

    Notes
    -----
    Every layer is one pythreejs object made once per frame. :meth:`set_bias`,
    :meth:`select_element`, :meth:`select_vertex`, :meth:`set_domain` and :meth:`show`
    assign new arrays to the existing ``BufferAttribute`` objects (of unchanged shape) or
    toggle ``visible``; only :meth:`set_frame` makes new geometries. The arrays last sent
    are kept in :attr:`geometry` (``{layer: {attribute: ndarray}}``) for inspection.
    Display the viewer itself (or :attr:`renderer`) in a notebook.
    """

    def __init__(self, frame: Any, *, layers: Iterable[str] | None = None, domain: Domain | None = None, bias: Any = None,
                 element: int = 0, vertex: int | None = None, width: int = 460, height: int = 460,
                 max_labels: int = 60) -> None:  # fmt: skip
        import pythreejs as p3

        self._p3 = p3
        self.visible = _check_layers(_DEFAULT_LAYERS if layers is None else layers)
        self.max_labels = as_count(max_labels, "max_labels", minimum=0)
        self.scene = PolytopeScene(frame, domain=domain, bias=bias, element=element, vertex=vertex)
        self.geometry: dict[str, dict[str, np.ndarray]] = {}
        self.objects: dict[str, Any] = {}
        self._attrs: dict[str, dict[str, Any]] = {}
        self.n_geometry_builds = 0
        light = p3.DirectionalLight(color="white", position=[3, 5, 1], intensity=0.55)
        self.camera = p3.PerspectiveCamera(position=[2.4, 1.7, 2.0], up=[0, 0, 1], fov=40, aspect=width / height,
                                           children=[light])  # fmt: skip
        self.root = p3.Group()
        self.p3_scene = p3.Scene(children=[self.root, self.camera, p3.AmbientLight(color="#ffffff", intensity=0.65)],
                                 background="white")  # fmt: skip
        self.controls = p3.OrbitControls(controlling=self.camera)
        w, h = as_count(width, "width"), as_count(height, "height")
        self.renderer = p3.Renderer(camera=self.camera, scene=self.p3_scene, controls=[self.controls], width=w, height=h,
                                    antialias=True)  # fmt: skip
        self._build_all()

    # ------------------------------------------------------------------ display
    #: put a static PNG (matplotlib) next to the widget view when displayed, for readers without a kernel
    static_fallback = True

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.renderer._repr_mimebundle_(**kwargs)
        return with_static_png(bundle, self.snapshot_png) if self.static_fallback else bundle

    def snapshot_png(self, *, dpi: int = 72, size: float = 4.5) -> bytes:
        """A PNG of what the viewer shows (visible layers, current selection), drawn with matplotlib.

        Front-ends with a widget manager show the live view; GitHub, nbviewer without widget state
        and PDF exports show this picture instead.
        """
        return figure_png(static_render(self, size=size), as_count(dpi, "dpi"), compress_level=6)

    @property
    def frame(self) -> Frame:
        """The frame shown."""
        return self.scene.frame

    # ------------------------------------------------------------------ building
    def _attr(self, arr: np.ndarray):
        return self._p3.BufferAttribute(array=np.ascontiguousarray(arr, dtype=np.float32), normalized=False)

    def _material(self, name: str, data: dict):
        p3 = self._p3
        kind = data["kind"]
        if kind == "mesh":
            kw = dict(side="DoubleSide", transparent=data.get("opacity", 1.0) < 1.0, opacity=float(data.get("opacity", 1.0)))
            if name in ("facets", "sphere", "bias_plane"):
                kw["depthWrite"] = False
            if data.get("color") is not None:
                return p3.MeshLambertMaterial(vertexColors="VertexColors", **kw)
            return p3.MeshLambertMaterial(color=data["uniform"], **kw)
        if kind == "lines":
            return p3.LineBasicMaterial(color=data.get("uniform", palette.INK), linewidth=1)
        return p3.PointsMaterial(vertexColors="VertexColors", size=0.07, sizeAttenuation=True)

    def _geometry(self, name: str, data: dict):
        attrs = {"position": self._attr(data["position"])}
        if data.get("normal") is not None:
            attrs["normal"] = self._attr(data["normal"])
        if data.get("color") is not None:
            attrs["color"] = self._attr(data["color"])
        self._attrs[name] = attrs
        self.geometry[name] = {k: np.asarray(v.array) for k, v in attrs.items()}
        self.n_geometry_builds += 1
        return self._p3.BufferGeometry(attributes=attrs)

    def _make(self, name: str):
        p3 = self._p3
        data = self.scene.arrays(name)
        if data["kind"] == "labels":
            sprites = []
            if self.scene.m <= self.max_labels:
                for pos, text in zip(data["position"], data["text"]):
                    tex = p3.TextTexture(string=text, color=palette.INK, size=48, squareTexture=True)
                    sprites.append(p3.Sprite(material=p3.SpriteMaterial(map=tex, transparent=True, depthTest=False),
                                             position=[float(c) for c in pos], scale=[0.12, 0.12, 1.0]))  # fmt: skip
            self.geometry[name] = {"position": data["position"]}
            return p3.Group(children=sprites)
        geo = self._geometry(name, data)
        mat = self._material(name, data)
        if data["kind"] == "mesh":
            obj = p3.Mesh(geometry=geo, material=mat)
        elif data["kind"] == "lines":
            obj = p3.LineSegments(geometry=geo, material=mat)
        else:
            obj = p3.Points(geometry=geo, material=mat)
        extras = []
        if name == "bias_plane":
            extras.append(self._sub(name + ":rim", data["rim"], "lines", palette.element_color(self.scene.element)))
        if name == "star":
            extras.append(self._sub(name + ":cone", data["cone"], "lines", palette.MUTED))
            extras.append(self._sub(name + ":point", data["point"], "points", palette.BAD, size=0.11))
        if extras:
            return p3.Group(children=[obj, *extras])
        return obj

    def _sub(self, key: str, arr: np.ndarray, kind: str, color: str, size: float = 0.07):
        p3 = self._p3
        attrs = {"position": self._attr(arr)}
        self._attrs[key] = attrs
        self.geometry[key] = {"position": np.asarray(attrs["position"].array)}
        geo = p3.BufferGeometry(attributes=attrs)
        if kind == "lines":
            obj = p3.LineSegments(geometry=geo, material=p3.LineBasicMaterial(color=color, linewidth=2))
        else:
            obj = p3.Points(geometry=geo, material=p3.PointsMaterial(color=color, size=size, sizeAttenuation=True))
        self.objects[key] = obj
        return obj

    def _build_all(self) -> None:
        children = []
        for name in LAYERS:
            if name in self.visible or name in ("facets", "edges", "vertices", "labels", "sphere", "bias_plane", "star"):
                obj = self._make(name)
                obj.visible = name in self.visible
                self.objects[name] = obj
                children.append(obj)
        self.root.children = tuple(children)

    # ------------------------------------------------------------------ updates
    def _push(self, key: str, values: dict[str, np.ndarray]) -> None:
        """Assign new arrays (same shapes) to the existing attributes of ``key``."""
        attrs = self._attrs[key]
        for attr_name, arr in values.items():
            if arr is None or attr_name not in attrs:
                continue
            new = np.ascontiguousarray(arr, dtype=np.float32)
            old = self.geometry[key][attr_name]
            if new.shape != old.shape:  # pragma: no cover - capacities are fixed per frame
                raise RuntimeError(f"internal error: layer {key!r} attribute {attr_name!r} changed shape.")
            attrs[attr_name].array = new
            self.geometry[key][attr_name] = new

    def _refresh(self, name: str) -> None:
        if name not in self.objects:
            return
        data = self.scene.arrays(name)
        if data["kind"] == "labels":
            return
        self._push(name, {"position": data["position"], "normal": data.get("normal"), "color": data.get("color")})
        if name == "bias_plane":
            self._push(name + ":rim", {"position": data["rim"]})
            self.objects[name].children[0].material.color = data["uniform"]
            self.objects[name + ":rim"].material.color = data["uniform"]
        if name == "star":
            self._push(name + ":cone", {"position": data["cone"]})
            self._push(name + ":point", {"position": data["point"]})
            self.objects[name + ":point"].visible = bool(data["has_point"])

    def show(self, layer: str, visible: bool = True) -> None:
        """Switch a layer on or off (layers are made on first use; no other layer is touched)."""
        _check_layers([layer])
        if visible and layer not in self.objects:
            obj = self._make(layer)
            self.objects[layer] = obj
            self.root.children = tuple(self.objects[n] for n in LAYERS if n in self.objects)
        if visible:
            self.visible.add(layer)
        else:
            self.visible.discard(layer)
        if layer in self.objects:
            self.objects[layer].visible = bool(visible)

    def set_layers(self, layers: Iterable[str]) -> None:
        """Show exactly these layers."""
        names = _check_layers(layers)
        for name in LAYERS:
            if (name in names) != (name in self.visible) or (name in names and name not in self.objects):
                self.show(name, name in names)

    def select_vertex(self, vertex: int | None) -> None:
        """Highlight the facets of a vertex and show its star (colours and star arrays only)."""
        self.scene.select_vertex(vertex)
        for name in ("facets", "vertices", "star"):
            self._refresh(name)

    def select_element(self, element: int) -> None:
        """Show the bias plane of another element."""
        self.scene.set_element(element)
        self._refresh("bias_plane")

    def set_bias(self, bias: Any) -> None:
        """Another bias for the bias plane (``None``: the polytope bias)."""
        self.scene.set_bias(bias)
        self._refresh("bias_plane")

    def set_domain(self, domain: Domain) -> None:
        """Another domain for the polytope bias (star point, default bias plane)."""
        self.scene.set_domain(domain)
        self._refresh("star")
        self._refresh("bias_plane")

    def set_frame(self, frame: Any) -> None:
        """Show another frame: the only update that makes new geometries."""
        scene = self.scene
        self.scene = PolytopeScene(frame, domain=scene.domain, element=min(scene.element, as_frame(frame).m - 1))
        self.objects.clear()
        self._attrs.clear()
        self.geometry.clear()
        self._build_all()

    # ------------------------------------------------------------------ static
    def to_matplotlib(self, *, ax: Any = None, elev: float = 22.0, azim: float = 35.0, title: str | None = None) -> Any:
        """The same scene drawn with matplotlib 3-D (see :func:`static_render`); returns the Figure."""
        return static_render(self.scene, layers=self.visible, ax=ax, elev=elev, azim=azim, title=title)


# ---------------------------------------------------------------------------------
# matplotlib rendering
# ---------------------------------------------------------------------------------


def _view_vector(elev: float, azim: float) -> np.ndarray:
    """Unit vector from the origin towards a matplotlib 3-D camera at (elev, azim)."""
    e, a = np.deg2rad(elev), np.deg2rad(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def static_render(scene: Any, *, layers: Iterable[str] | None = None, domain: Domain | None = None, bias: Any = None,
                  element: int = 0, vertex: int | None = None, ax: Any = None, elev: float = 22.0, azim: float = 35.0,
                  title: str | None = None, size: float = 4.5) -> Any:  # fmt: skip
    r"""Draw a 3-D scene with matplotlib (for GitHub, nbviewer, PDF and tests).

    Parameters
    ----------
    scene : PolytopeScene, PolytopeViewer, Frame or array_like, shape (m, 3)
        What to draw; a frame gets a new :class:`PolytopeScene` with ``domain``, ``bias``,
        ``element`` and ``vertex``.
    layers : iterable of str, optional
        Layers to draw (default sphere, facets, edges, vertices, labels).
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D, optional
        Where to draw (default: a new figure).
    elev, azim : float
        View angles in degrees.
    title : str, optional
        Axes title.
    size : float, default 4.5
        Figure size in inches (new figures only).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    if isinstance(scene, PolytopeViewer):
        if layers is None:
            layers = scene.visible
        scene = scene.scene
    if not isinstance(scene, PolytopeScene):
        scene = PolytopeScene(scene, domain=domain, bias=bias, element=element, vertex=vertex)
    names = _check_layers(_DEFAULT_LAYERS if layers is None else layers)
    if ax is None:
        fig = Figure(figsize=(size, size), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    else:
        if not hasattr(ax, "add_collection3d"):
            raise InputError(f"ax must be a 3-D Axes (projection='3d'); got {type(ax).__name__}.")
        fig = ax.figure
    ax.view_init(elev=float(elev), azim=float(azim))
    ax.computed_zorder = False  # draw layers in order (each collection is depth-sorted itself)

    def tris(pos):
        return np.asarray(pos, dtype=float).reshape(-1, 3, 3)

    def facecolors(data, k):
        if data.get("color") is not None:
            rgb = np.asarray(data["color"], dtype=float).reshape(-1, 3, 3)[:, 0]
        else:
            rgb = np.tile(palette.rgb(data["uniform"]), (k, 1))
        return np.column_stack([rgb, np.full(k, data.get("opacity", 1.0))])

    view = _view_vector(float(elev), float(azim))
    opaque_sphere = bool(names & {"caps", "correlated"})
    for name in LAYERS:
        if name not in names:
            continue
        data = scene.arrays(name)
        if name == "sphere":
            if not opaque_sphere:
                u, v = np.mgrid[0 : 2 * np.pi : 37j, 0 : np.pi : 19j]
                ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color=palette.MUTED, lw=0.3,
                                  alpha=0.45)  # fmt: skip
        elif data["kind"] == "mesh":
            T = tris(data["position"])
            keep = np.linalg.norm(np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]), axis=1) > 0
            fc = facecolors(data, T.shape[0])
            if name in ("caps", "correlated"):  # opaque surfaces: drop the far side (matplotlib sorts crudely)
                keep &= T.mean(axis=1) @ view > -0.08
                fc[:, 3] = 1.0
            if name == "facets":  # outward normals: draw the near side only (the far edges show through)
                keep &= np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]) @ view > 0
            fc = fc[keep]
            if keep.any():
                solid = name in ("caps", "correlated")
                ax.add_collection3d(Poly3DCollection(T[keep], facecolors=fc, edgecolors=fc if solid else (
                    (0, 0, 0, 0.15) if name == "facets" else "none"), linewidths=0.25 if solid else 0.3))  # fmt: skip
            if name == "bias_plane":
                rim = np.asarray(data["rim"], dtype=float).reshape(-1, 2, 3)
                ax.add_collection3d(Line3DCollection(rim, colors=data["uniform"], linewidths=1.5))
            if name == "star":
                cone = np.asarray(data["cone"], dtype=float).reshape(-1, 2, 3)
                cone = cone[np.linalg.norm(cone[:, 1] - cone[:, 0], axis=1) > 0]
                if len(cone):
                    ax.add_collection3d(Line3DCollection(cone, colors=palette.MUTED, linewidths=0.8, linestyles="--"))
                if data["has_point"]:
                    p = data["point"][0]
                    ax.scatter([p[0]], [p[1]], [p[2]], color=palette.BAD, s=160, marker="*", edgecolors="white",
                               linewidths=0.8, depthshade=False, zorder=10)  # fmt: skip
        elif data["kind"] == "lines":
            seg = np.asarray(data["position"], dtype=float).reshape(-1, 2, 3)
            if opaque_sphere:
                seg = seg[seg.mean(axis=1) @ view > -0.05]
            ax.add_collection3d(Line3DCollection(seg, colors=data["uniform"], linewidths=0.9))
        elif data["kind"] == "points":
            p = np.asarray(data["position"], dtype=float)
            c = np.asarray(data["color"])
            if opaque_sphere:
                front = p @ view > -0.05
                p, c = p[front], c[front]
            ax.scatter(p[:, 0], p[:, 1], p[:, 2], c=c, s=14, depthshade=False)
        elif data["kind"] == "labels" and scene.m <= 60:
            for pos, text in zip(data["position"], data["text"]):
                if opaque_sphere and pos @ view < 0:
                    continue
                ax.text(pos[0], pos[1], pos[2], text, fontsize=8, color=palette.INK, ha="center", va="center")
    lim = 1.05
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_zlim(-lim, lim)
    ax.set_box_aspect((1, 1, 1), zoom=1.3)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=10)
    return fig


# ---------------------------------------------------------------------------------
# The paper's 3-D figures (static)
# ---------------------------------------------------------------------------------


def _row_of_3d(n: int, size: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size * n, size))
    fig.subplots_adjust(left=0, right=1, bottom=0, top=0.92, wspace=0.0)
    return fig, [fig.add_subplot(1, n, k + 1, projection="3d") for k in range(n)]


def figure_poly(frame: Any = None, *, seed: int = 1, elev: float = 20.0, azim: float = 35.0, size: float = 4.0) -> Any:
    r"""Figure "poly" of the paper: facets :math:`F_j`, spherical caps :math:`F_j^{\mathbb{S}}`, and
    the decomposition of :math:`\mathbb{S}` by most correlated bases, for a frame in :math:`\mathbb{R}^3`.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3), optional
        Default: 12 random unit vectors (``random_sphere(12, 3, seed=seed)``), as in the paper.
    seed : int, default 1
        Seed of the default frame (an omnidirectional one).
    elev, azim : float
        View angles in degrees.
    size : float, default 4.0
        Height of the figure in inches (each panel is square).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..zoo import random_sphere

    F = random_sphere(12, 3, seed=seed) if frame is None else _frame3(frame)
    scene = PolytopeScene(F)
    fig, axes = _row_of_3d(3, float(size))
    panels = [(["sphere", "facets", "edges", "vertices"], "facets $F_j$ of $P_\\Phi$"),
              (["caps", "edges", "vertices"], "spherical caps $F_j^{\\mathbb{S}}$"),
              (["correlated", "vertices"], "most correlated bases $J^*(x)$")]  # fmt: skip
    for ax, (layers, title) in zip(axes, panels):
        static_render(scene, layers=layers, ax=ax, elev=elev, azim=azim, title=title)
    return fig


def figure4(*, elev: float = 20.0, azim: float = 35.0, size: float = 4.0, seed: int = 3) -> Any:
    r"""Figure 4 of the paper: the icosahedron's facets, an irregular frame's facets, and the polytope
    bias of one vertex of the icosahedron on :math:`\mathbb{B}` (adjacent facets, their cones, the point
    where the bias is attained).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ..domains import Ball
    from ..zoo import platonic, random_sphere

    fig, axes = _row_of_3d(3, float(size))
    ico = platonic("icosahedron")
    static_render(PolytopeScene(ico), layers=["sphere", "facets", "edges", "vertices"], ax=axes[0], elev=elev, azim=azim,
                  title="icosahedron")  # fmt: skip
    static_render(PolytopeScene(random_sphere(14, 3, seed=seed)), layers=["sphere", "facets", "edges", "vertices"],
                  ax=axes[1], elev=elev, azim=azim, title="an irregular frame")  # fmt: skip
    star = PolytopeScene(ico, domain=Ball(3), vertex=1)
    value = float(star.estimate.values[1])
    static_render(star, layers=["sphere", "edges", "vertices", "star"], ax=axes[2], elev=elev, azim=azim,
                  title=f"PBE on $\\mathbb{{B}}$ for $\\phi_2$: {value:.3g} (star: where attained)")  # fmt: skip
    return fig
