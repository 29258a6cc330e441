r"""The geometry of the 3-D scenes (private; re-exported by :mod:`.space`): pure functions of a frame
for :math:`\mathbb{R}^3` that return numpy arrays (polytope facets and edges, labels, spheres, spherical
caps, the sphere by most correlated bases, bias disks, vertex stars). No graphics library is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.validation import as_bias, as_count, as_positive
from ..domains import Domain
from ..errors import DimensionMismatchError, InputError
from ..paper.bias.correlated import most_correlated_basis
from ..paper.bias.polytope import InscribingPolytope, inscribing_polytope, polytope_bias
from ._common import frame3

__all__ = [
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
]


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


def polytope(frame: Any, **kwargs: Any):
    r"""The inscribing polytope of a frame for :math:`\mathbb{R}^3` (the core's ``inscribing_polytope``).

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, 3)
        The frame (normalized by the core); an ``InscribingPolytope`` is returned as is.
    **kwargs
        Passed on to :func:`relu_frames_nb.paper.bias.polytope.inscribing_polytope`
        (``facets``, ``max_facets``, ``tol``).

    Returns
    -------
    InscribingPolytope
    """
    if isinstance(frame, InscribingPolytope):
        if frame.n != 3:
            raise DimensionMismatchError(f"frame must be a frame for R^3; got a polytope in R^{frame.n}.")
        return frame
    return inscribing_polytope(frame3(frame), **kwargs)


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
    F = frame3(frame)
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
    F = frame3(frame)
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
    F = frame3(frame)
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
        estimate = polytope_bias(P, domain)
    if estimate is not None:
        value = float(estimate.values[i])
        if estimate.argmin is not None:
            point = np.asarray(estimate.argmin[i], dtype=float)
        if estimate.facets is not None:
            facet = int(estimate.facets[i])
    return VertexStar(i, adj, mesh, cone, point, value, facet)
