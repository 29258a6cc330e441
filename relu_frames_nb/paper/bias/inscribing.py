r"""The inscribing polytope of a frame, its facets, and omnidirectionality.

For a normalized frame :math:`\Phi \subset \mathbb{S}` the inscribing polytope
:math:`P_\Phi = \operatorname{conv}\{\phi_i\}` (eq. "poly") has the frame vectors as vertices
(:func:`inscribing_polytope`, :class:`InscribingPolytope`; facet counts are bounded by the upper
bound theorem, :func:`max_facet_count`). The frame is *omnidirectional* when 0 is an interior
point of :math:`P_\Phi` (:func:`is_omnidirectional`, by the hull or by the LP of Appendix B);
appending :math:`-\sum_i\phi_i/\|\sum_i\phi_i\|` makes any frame omnidirectional
(:func:`complete_omnidirectional`). The polytope bias estimation built on it is in
:mod:`~relu_frames_nb.paper.bias.polytope`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from math import comb
from typing import Any

import numpy as np

from ..._util.tolerances import INSCRIBING_LP_FEASIBILITY, INSCRIBING_TOL, NORM_RTOL, RANK_RTOL
from ..._util.validation import as_count, as_nonnegative, as_points
from ...errors import DegenerateHullError, InputError, NotOmnidirectionalError, TooExpensiveError
from ...frames import Frame, as_frame

__all__ = [
    "DEFAULT_MAX_FACETS",
    "InscribingPolytope",
    "inscribing_polytope",
    "omnidirectional_polytope",
    "max_facet_count",
    "refuse_too_many_facets",
    "is_omnidirectional",
    "complete_omnidirectional",
]

#: default limit on the (worst-case) number of facets before a hull is built
DEFAULT_MAX_FACETS = 200_000

_FACET_MODES = ("exact", "simplices")
_HINT_COMPLETE = (
    "Make it omnidirectional by appending -sum(phi_i)/||sum(phi_i)|| with "
    "complete_omnidirectional(frame) (Appendix B), or use a sampling-based estimate."
)



# ---------------------------------------------------------------------------------
# Facet counts
# ---------------------------------------------------------------------------------


def max_facet_count(m: int, n: int) -> int:
    r"""Largest possible number of facets of a polytope with ``m`` vertices in :math:`\mathbb{R}^n`.

    By McMullen's upper bound theorem the maximum is attained by the cyclic polytope:

    .. math::
        f_{n-1} \le \binom{m - \lceil n/2 \rceil}{\lfloor n/2 \rfloor}
        + \binom{m - \lfloor n/2 \rfloor - 1}{\lceil n/2 \rceil - 1}.

    The bound also holds for the triangulated boundary that qhull returns (a simplicial
    sphere with the same vertices, Stanley's theorem), so it bounds ``len(simplices)``.

    Parameters
    ----------
    m : int
        Number of vertices (``m >= 1``).
    n : int
        Dimension (``n >= 1``).

    Returns
    -------
    int
        The bound; 0 when ``m <= n`` (no full-dimensional polytope exists).

    Examples
    --------
    >>> max_facet_count(12, 3)  # 2m - 4 in R^3
    20
    >>> max_facet_count(10, 4)  # m (m - 3) / 2 in R^4
    35
    """
    m = as_count(m, "m")
    n = as_count(n, "n")
    if m <= n:
        return 0
    if n == 1:
        return 2
    lo, hi = n // 2, (n + 1) // 2
    return comb(m - hi, lo) + comb(m - lo - 1, hi - 1)


# ---------------------------------------------------------------------------------
# The inscribing polytope
# ---------------------------------------------------------------------------------


def refuse_too_many_facets(m: int, n: int, max_facets: int) -> None:
    """Raise :class:`TooExpensiveError` when ``m`` vectors in R^n may span more than ``max_facets`` facets."""
    bound = max_facet_count(m, n)
    if bound > max_facets:
        raise TooExpensiveError(
            f"the inscribing polytope of {m} vectors in R^{n} may have up to {bound:,} facets (upper bound "
            f"theorem), more than max_facets = {max_facets:,}. Pass a larger max_facets to try anyway "
            "(time and memory grow with the facet count), or use a sampling-based bias estimate."
        )


def _affine_flat(X: np.ndarray, tol: float = RANK_RTOL) -> bool:
    """True when the rows of ``X`` lie in an affine subspace of dimension < n."""
    m, n = X.shape
    if m <= n:
        return True
    sv = np.linalg.svd(X[1:] - X[0], compute_uv=False)
    return bool(sv[-1] <= tol * max(1.0, sv[0]))


def _unit_vectors(frame: Frame) -> np.ndarray:
    return np.asarray(frame.vectors) / np.asarray(frame.norms)[:, None]


@dataclass(frozen=True, eq=False, repr=False)
class InscribingPolytope:
    r"""The convex hull :math:`P_\Phi` of the normalized frame vectors, with its facets.

    Build it with :func:`inscribing_polytope`. Facets are stored in compressed form:
    the vertex indices of facet ``j`` are ``facet_indices[facet_indptr[j]:facet_indptr[j+1]]``
    (sorted); :meth:`facet` and :attr:`facets` give them as arrays.

    Attributes
    ----------
    frame : Frame
        The frame as given (possibly not unit-norm).
    points : ndarray, shape (m, n)
        The normalized frame vectors (the vertices).
    mode : str
        ``"exact"`` (true facets: qhull's simplices grouped by hyperplane) or
        ``"simplices"`` (qhull's triangulation, every simplex taken as a facet).
    simplices : ndarray of int, shape (n_simplices, n)
        qhull's triangulated boundary (vertex indices).
    simplex_facet : ndarray of int, shape (n_simplices,)
        The facet each simplex belongs to.
    facet_indptr : ndarray of int, shape (n_facets + 1,)
        Offsets into ``facet_indices``.
    facet_indices : ndarray of int
        Vertex indices of all facets, concatenated.
    normals : ndarray, shape (n_facets, n)
        Outer unit normals ``a`` of the facets.
    offsets : ndarray, shape (n_facets,)
        Offsets ``b`` with :math:`\langle a, \phi_k\rangle = b` for the vertices of the
        facet and :math:`< b` for the others; ``b > 0`` iff 0 is on the inner side.
    tol : float
        The tolerance used to group coplanar simplices and to decide omnidirectionality.
    """

    frame: Frame
    points: np.ndarray
    mode: str
    simplices: np.ndarray
    simplex_facet: np.ndarray
    facet_indptr: np.ndarray
    facet_indices: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    tol: float
    _cache: dict = field(default_factory=dict, compare=False)

    # ------------------------------------------------------------------ sizes
    @property
    def m(self) -> int:
        """Number of vertices (frame vectors)."""
        return self.points.shape[0]

    @property
    def n(self) -> int:
        """Dimension."""
        return self.points.shape[1]

    @property
    def n_facets(self) -> int:
        """Number of facets."""
        return self.offsets.shape[0]

    @property
    def n_simplices(self) -> int:
        """Number of simplices of qhull's triangulated boundary."""
        return self.simplices.shape[0]

    @property
    def facet_sizes(self) -> np.ndarray:
        """Number of vertices of each facet, shape ``(n_facets,)``."""
        return np.diff(self.facet_indptr)

    @property
    def is_simplicial(self) -> bool:
        """True when every facet has exactly ``n`` vertices."""
        return bool(np.all(self.facet_sizes == self.n))

    @property
    def is_omnidirectional(self) -> bool:
        """True when 0 is an interior point: every facet offset exceeds ``tol``."""
        return bool(np.all(self.offsets > self.tol))

    # ---------------------------------------------------------------- facets
    def facet(self, j: int) -> np.ndarray:
        """Vertex indices of facet ``j`` (sorted)."""
        j = int(j)
        if not -self.n_facets <= j < self.n_facets:
            raise InputError(f"j must be a facet index in [0, {self.n_facets}); got {j}.")
        j %= self.n_facets
        return self.facet_indices[self.facet_indptr[j] : self.facet_indptr[j + 1]]

    @property
    def facets(self) -> list[np.ndarray]:
        """Vertex indices of every facet, a list of ``n_facets`` arrays."""
        return np.split(self.facet_indices, self.facet_indptr[1:-1])

    @cached_property
    def incidence(self):
        """Vertex-facet incidence as a scipy sparse boolean matrix of shape ``(n_facets, m)``."""
        from scipy.sparse import csr_array

        data = np.ones(self.facet_indices.size, dtype=bool)
        return csr_array((data, self.facet_indices, self.facet_indptr), shape=(self.n_facets, self.m))

    @cached_property
    def _vertex_facets(self) -> tuple[np.ndarray, np.ndarray]:
        facet_of_entry = np.repeat(np.arange(self.n_facets), self.facet_sizes)
        order = np.argsort(self.facet_indices, kind="stable")
        counts = np.bincount(self.facet_indices, minlength=self.m)
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return indptr, facet_of_entry[order]

    def facets_of(self, i: int) -> np.ndarray:
        """Indices of the facets that contain vertex ``i`` (sorted)."""
        i = int(i)
        if not -self.m <= i < self.m:
            raise InputError(f"i must be a vertex index in [0, {self.m}); got {i}.")
        i %= self.m
        indptr, facets = self._vertex_facets
        return facets[indptr[i] : indptr[i + 1]]

    def locate(self, X: Any, *, chunk: int = 4096) -> np.ndarray:
        r"""For each point ``x != 0``, the facet whose cone contains it.

        The ray from 0 through ``x`` leaves :math:`P_\Phi` through the facet maximizing
        :math:`\langle a_j, x\rangle / b_j` (needs an omnidirectional frame).

        Parameters
        ----------
        X : array_like, shape (N, n) or (n,)
            Points.
        chunk : int
            Number of points handled at once (bounds the memory to ``chunk * n_facets``).

        Returns
        -------
        ndarray of int, shape (N,) (or an int for one point)
        """
        if not self.is_omnidirectional:
            raise NotOmnidirectionalError(
                "the frame must be omnidirectional for its facet cones to cover R^n; got a facet "
                f"with offset {self.offsets.min():.3g} <= {self.tol:g}. {_HINT_COMPLETE}"
            )
        pts, single = as_points(X, self.n, "X")
        chunk = as_count(chunk, "chunk")
        scaled = self.normals / self.offsets[:, None]
        out = np.empty(pts.shape[0], dtype=np.intp)
        for start in range(0, pts.shape[0], chunk):
            out[start : start + chunk] = np.argmax(pts[start : start + chunk] @ scaled.T, axis=1)
        return int(out[0]) if single else out

    def __repr__(self) -> str:
        return (
            f"InscribingPolytope(m={self.m}, n={self.n}, mode={self.mode!r}, facets={self.n_facets}, "
            f"simplices={self.n_simplices}, simplicial={self.is_simplicial}, "
            f"omnidirectional={self.is_omnidirectional})"
        )


def _group_coplanar(hull, tol: float) -> np.ndarray:
    """Label the simplices of a qhull hull by true facet (adjacent and same hyperplane)."""
    eq = hull.equations
    nb = hull.neighbors
    f = eq.shape[0]
    # offsets first (cheap); full equations only where the offsets agree
    cand = np.abs(eq[:, -1][:, None] - eq[nb, -1]) <= tol
    if not cand.any():
        return np.arange(f)
    rows = np.repeat(np.arange(f), nb.shape[1])[cand.ravel()]
    cols = nb.ravel()[cand.ravel()]
    same = np.max(np.abs(eq[rows] - eq[cols]), axis=1) <= tol
    if not same.any():
        return np.arange(f)
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    rows, cols = rows[same], cols[same]
    graph = coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(f, f))
    _, labels = connected_components(graph, directed=False)
    return labels


def inscribing_polytope(
    frame: Any,
    *,
    facets: str = "exact",
    max_facets: int = DEFAULT_MAX_FACETS,
    tol: float = INSCRIBING_TOL,
) -> InscribingPolytope:
    r"""The inscribing polytope :math:`P_\Phi` of the normalized frame, with its facets.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame; its vectors are normalized first (the hull's vertices are unit vectors).
    facets : {"exact", "simplices"}
        ``"exact"`` groups qhull's triangulated simplices into the true facets of the
        polytope (adjacent simplices whose hyperplane equations agree to ``tol``);
        ``"simplices"`` keeps every simplex as its own facet (still a valid PBE
        certificate, never smaller, but it depends on the triangulation).
    max_facets : int
        Refuse to build the hull when the upper bound theorem
        (:func:`max_facet_count`) allows more facets than this. Raise it to try larger
        problems: time and memory grow with the number of facets.
    tol : float, default INSCRIBING_TOL (1e-10)
        Tolerance on the hyperplane equations (grouping) and on the facet offsets
        (0 must be at distance ``> tol`` from every facet to count as interior).

    Returns
    -------
    InscribingPolytope

    Raises
    ------
    DegenerateHullError
        If ``n < 2``, ``m <= n``, the normalized vectors lie in an affine hyperplane (the
        polytope is flat), or two vectors point in the same direction.
    TooExpensiveError
        If the worst-case facet count exceeds ``max_facets``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> P = inscribing_polytope(rf.zoo.platonic("cube"))
    >>> P.n_facets, P.n_simplices, P.is_simplicial
    (6, 12, False)
    >>> P.facet(0).size, bool(P.is_omnidirectional)
    (4, True)
    """
    from scipy.spatial import ConvexHull, QhullError

    F = as_frame(frame)
    if facets not in _FACET_MODES:
        raise InputError(f"facets must be one of {_FACET_MODES}; got {facets!r}.")
    max_facets = as_count(max_facets, "max_facets")
    tol = as_nonnegative(tol, "tol")
    m, n = F.m, F.n
    if n < 2:
        raise DegenerateHullError(
            f"frame must live in R^n with n >= 2 for a convex hull; got n = {n}. In R^1 a frame is "
            "omnidirectional iff it has vectors of both signs."
        )
    if m <= n:
        raise DegenerateHullError(
            f"frame must have at least n + 1 = {n + 1} vectors for a full-dimensional inscribing polytope; "
            f"got m = {m}. Such a frame is not omnidirectional: {_HINT_COMPLETE}"
        )
    refuse_too_many_facets(m, n, max_facets)
    X = _unit_vectors(F)
    if _affine_flat(X):
        raise DegenerateHullError(
            f"the normalized frame vectors must not lie in an affine hyperplane; got {m} vectors in R^{n} whose "
            f"convex hull is flat, so 0 is not an interior point (the frame is not omnidirectional). {_HINT_COMPLETE}"
        )
    try:
        hull = ConvexHull(X)
    except (QhullError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DegenerateHullError(
            f"qhull could not build the inscribing polytope of {m} vectors in R^{n} ({first}). "
            "Check for (nearly) duplicate or (nearly) coplanar frame vectors."
        ) from None
    if hull.vertices.size < m:
        missing = np.setdiff1d(np.arange(m), hull.vertices)
        d = np.linalg.norm(X[missing, None, :] - X[None, :, :], axis=2)
        d[np.arange(missing.size), missing] = np.inf
        twins = np.argmin(d, axis=1)
        pairs = ", ".join(f"{i} ~ {j}" for i, j in zip(missing[:5].tolist(), twins[:5].tolist()))
        raise DegenerateHullError(
            f"every normalized frame vector must be a vertex of the inscribing polytope; got {missing.size} "
            f"that point in (nearly) the same direction as another ({pairs}; distance {d.min(axis=1).max():.2g}). "
            "Remove the duplicates: a duplicate can take the same bias as its twin."
        )
    simplices = np.ascontiguousarray(hull.simplices, dtype=np.intp)
    eq = hull.equations
    if facets == "simplices":
        labels = np.arange(simplices.shape[0])
    else:
        labels = _group_coplanar(hull, tol)
    n_f = int(labels.max()) + 1
    first = np.full(n_f, simplices.shape[0], dtype=np.intp)
    np.minimum.at(first, labels, np.arange(simplices.shape[0]))
    if n_f == simplices.shape[0]:
        indptr = np.arange(0, n * n_f + 1, n, dtype=np.intp)
        indices = np.sort(simplices[first], axis=1).ravel()
    else:
        key = np.unique(labels[:, None].astype(np.int64) * m + simplices)
        fac, indices = np.divmod(key, m)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(fac, minlength=n_f))]).astype(np.intp)
        indices = indices.astype(np.intp)
    normals = eq[first, :-1]
    offsets = -eq[first, -1]
    for arr in (X, simplices, labels, indptr, indices, normals, offsets):
        arr.setflags(write=False)
    return InscribingPolytope(
        frame=F,
        points=X,
        mode=facets,
        simplices=simplices,
        simplex_facet=labels,
        facet_indptr=indptr,
        facet_indices=indices,
        normals=normals,
        offsets=offsets,
        tol=tol,
    )


# ---------------------------------------------------------------------------------
# Omnidirectionality
# ---------------------------------------------------------------------------------


def _omnidirectional_lp(X: np.ndarray, tol: float) -> bool:
    r"""Appendix B, corrected: max t s.t. D c = 0, sum c = 1, c >= t; omnidirectional iff t* > tol."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_array, eye, hstack, vstack

    m, n = X.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    A_eq = vstack([hstack([csr_array(X.T), csr_array((n, 1))]), csr_array(np.r_[np.ones(m), 0.0][None, :])])
    b_eq = np.r_[np.zeros(n), 1.0]
    A_ub = hstack([-eye(m, format="csr"), csr_array(np.ones((m, 1)))])
    res = linprog(
        cost,
        A_ub=A_ub.tocsr(),
        b_ub=np.zeros(m),
        A_eq=A_eq.tocsr(),
        b_eq=b_eq,
        bounds=[(None, None)] * m + [(None, 1.0)],
        method="highs",
        options={"primal_feasibility_tolerance": INSCRIBING_LP_FEASIBILITY,
                 "dual_feasibility_tolerance": INSCRIBING_LP_FEASIBILITY},
    )
    if res.status == 2:  # infeasible: 0 is not even an affine combination of the vectors
        return False
    if res.status != 0:
        raise RuntimeError(f"the omnidirectionality LP did not finish (HiGHS status {res.status}: {res.message}).")
    return bool(-res.fun > tol)


def is_omnidirectional(
    frame: Any,
    *,
    method: str = "auto",
    tol: float = INSCRIBING_TOL,
    max_facets: int = DEFAULT_MAX_FACETS,
) -> bool:
    r"""Whether 0 is an interior point of the inscribing polytope (no closed half-space holds all vectors).

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        The frame (the scale of each vector does not matter).
    method : {"auto", "hull", "lp"}
        ``"hull"``: every facet offset of the convex hull of the normalized vectors
        exceeds ``tol`` (qhull's ``equations[:, -1] < -tol``), free once the hull exists.
        ``"lp"``: the linear program of Appendix B in its corrected form,
        :math:`\max t` s.t. :math:`Dc = 0`, :math:`\sum_i c_i = 1`, :math:`c \ge t`;
        omnidirectional iff :math:`t^* > tol` (HiGHS). ``"auto"`` uses the hull when
        it can be built within ``max_facets`` and the LP otherwise.
    tol : float, default INSCRIBING_TOL (1e-10)
        Margin for both tests.
    max_facets : int
        Facet limit for the hull route (see :func:`inscribing_polytope`).

    Returns
    -------
    bool

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> is_omnidirectional(rf.zoo.mercedes_benz()), is_omnidirectional(rf.zoo.standard_basis(2))
    (True, False)
    >>> is_omnidirectional([[1, 0], [0, 1], [1, 1]], method="lp")
    False
    """
    if method not in ("auto", "hull", "lp"):
        raise InputError(f"method must be 'auto', 'hull' or 'lp'; got {method!r}.")
    tol = as_nonnegative(tol, "tol")
    if isinstance(frame, InscribingPolytope):
        if method == "lp":
            return _omnidirectional_lp(frame.points, tol)
        return bool(np.all(frame.offsets > tol))
    F = as_frame(frame)
    X = _unit_vectors(F)
    if F.m <= F.n:
        return False
    if method == "lp":
        return _omnidirectional_lp(X, tol)
    try:
        P = inscribing_polytope(F, facets="simplices", max_facets=max_facets, tol=tol)
    except (DegenerateHullError, TooExpensiveError):
        if method == "hull":
            raise
        return _omnidirectional_lp(X, tol)
    return bool(np.all(P.offsets > tol))


def complete_omnidirectional(frame: Any, *, tol: float = INSCRIBING_TOL) -> Frame:
    r"""An omnidirectional frame containing the given vectors (the completion lemma of Appendix B).

    A frame that is not omnidirectional becomes omnidirectional when the unit vector
    :math:`-\sum_i \phi_i / \|\sum_i \phi_i\|` is appended: then 0 is a convex combination
    of all vectors with positive weights. A frame that already is omnidirectional
    (in particular one with :math:`\sum_i \phi_i = 0`) is returned unchanged.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, n)
        The frame.
    tol : float, default INSCRIBING_TOL (1e-10)
        Margin of the omnidirectionality test (see :func:`is_omnidirectional`).

    Returns
    -------
    Frame
        ``frame`` itself, or a frame with ``m + 1`` vectors (the new one last).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> G = complete_omnidirectional(rf.zoo.standard_basis(2))
    >>> G.vectors.round(4).tolist()
    [[1.0, 0.0], [0.0, 1.0], [-0.7071, -0.7071]]
    >>> is_omnidirectional(G)
    True
    """
    F = as_frame(frame)
    tol = as_nonnegative(tol, "tol")
    total = np.asarray(F.vectors).sum(axis=0)
    size = float(np.linalg.norm(total))
    if size <= NORM_RTOL * float(np.sum(F.norms)):
        return F  # 0 = mean of the vectors, all weights positive: already omnidirectional
    if F.m > F.n and is_omnidirectional(F, method="lp", tol=tol):
        return F
    return Frame(np.vstack([F.vectors, -total / size]))


def omnidirectional_polytope(frame: Any, facets: str | None, max_facets: int, tol: float) -> InscribingPolytope:
    """The inscribing polytope of an omnidirectional frame (or the polytope given), for the PBE.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        The frame, or a polytope to reuse (its mode must then match ``facets``).
    facets : {"exact", "simplices"} or None
        Facet mode (None: ``"exact"``, or the mode of the polytope given).
    max_facets : int
        Facet limit (see :func:`inscribing_polytope`).
    tol : float
        Tolerance (see :func:`inscribing_polytope`).

    Returns
    -------
    InscribingPolytope

    Raises
    ------
    NotOmnidirectionalError
        If 0 is not an interior point of the polytope (with a hint to complete the frame).
    """
    if isinstance(frame, InscribingPolytope):
        if facets is not None and facets != frame.mode:
            raise InputError(
                f"facets must match the polytope's mode {frame.mode!r} when an InscribingPolytope is passed; "
                f"got {facets!r}. Build another one with inscribing_polytope(frame, facets={facets!r})."
            )
        P = frame
    else:
        mode = "exact" if facets is None else facets
        if mode not in _FACET_MODES:
            raise InputError(f"facets must be one of {_FACET_MODES}; got {facets!r}.")
        F = as_frame(frame)
        X = _unit_vectors(F)
        if F.m <= F.n or (F.n >= 2 and _affine_flat(X)):
            why = f"it has only m = {F.m} <= n = {F.n} vectors" if F.m <= F.n else "its vectors lie in a half-space"
            raise NotOmnidirectionalError(
                f"frame must be omnidirectional (0 interior to its inscribing polytope) for the polytope bias "
                f"estimation; got a frame that is not, as {why}. {_HINT_COMPLETE}"
            )
        P = inscribing_polytope(F, facets=mode, max_facets=max_facets, tol=tol)
    if not P.is_omnidirectional:
        bad = int(np.sum(P.offsets <= P.tol))
        raise NotOmnidirectionalError(
            "frame must be omnidirectional (0 interior to its inscribing polytope) for the polytope bias "
            f"estimation; got {bad} facet(s) whose hyperplane has 0 on or beyond it "
            f"(smallest offset {P.offsets.min():.3g}). {_HINT_COMPLETE}"
        )
    return P
