r"""Polytope bias estimation (PBE, Approach B) on the facets of the inscribing polytope.

For a normalized frame :math:`\Phi \subset \mathbb{S}` the inscribing polytope
:math:`P_\Phi = \operatorname{conv}\{\phi_i\}` (eq. "poly") has the frame vectors as
vertices. When the frame is *omnidirectional* (0 is an interior point of
:math:`P_\Phi`), the cones over the facets cover :math:`\mathbb{R}^n` and the vertices of
each facet form a frame (Lemma "facet"), so the frame is rectifying wherever the
vertices of the facet whose cone contains ``x`` are all active (Thm "PBE"). The bias of
element ``i`` is therefore the minimum of :math:`\langle x, \phi_i\rangle` over the
cones of the facets that contain :math:`\phi_i`, intersected with the domain.

This module computes that minimum exactly for the five domains of Prop. "pbeall":

* ``"boundary"`` (:math:`\partial P_\Phi`): :math:`\min_{F \ni i,\, \ell \in F} \langle\phi_\ell, \phi_i\rangle`,
* :class:`~relu_frames_nb.domains.Sphere` :math:`\mathbb{S}_r`: per facet cone ``C``,
  :math:`\min_{y \in C \cap \mathbb{S}} \langle y, \phi_i\rangle = -\|P_C(-\phi_i)\|`
  when negative (Moreau), one non-negative least-squares projection per facet and
  vertex, solved for all of them at once,
* :class:`~relu_frames_nb.domains.Ball` and :class:`~relu_frames_nb.domains.Shell`
  :math:`\{s \le \|x\| \le r\}`: ``r*a`` where the unit-sphere value ``a < 0``, else ``s*a``,
* :class:`~relu_frames_nb.domains.PositiveBall`: only facets whose cone meets
  :math:`\mathbb{R}^n_+` count (a feasibility LP); other elements are free (``+inf``),
* :class:`~relu_frames_nb.domains.Exterior` (:math:`\|x\| \ge s`): ``s * alpha_boundary`` when that is ``>= 0``.

Any other domain (a :class:`~relu_frames_nb.domains.Box`, a polytope, a hull) is handled as
the enclosing shell ``inner_radius <= ||x|| <= radius`` (intersected with the orthant when it
is non-negative): a bias rectifying on a superset is rectifying on ``K``. The estimate keeps
``K`` as its ``domain`` and says so in ``info["enclosing"]`` and ``info["note"]``. The case is
read from what the domain says of itself (``inner_radius``, ``radius``, ``nonnegative``), never
from its class.

Frames that are not unit-norm are normalized first and the result is scaled back
(:math:`\alpha_i \|\phi_i\|`, Lemma on normalized frames). The polytope itself and
omnidirectionality are in :mod:`~relu_frames_nb.paper.bias.inscribing`, whose public names are
re-exported here for compatibility.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._util.tolerances import ACTIVE_SET_RTOL, DIVISOR_FLOOR, GRAM_EIG_RTOL, INSCRIBING_TOL, KKT_RTOL, UNIT_ZERO_TOL
from ..._util.validation import as_count, as_nonnegative, as_positive, as_time_limit
from ...domains import Domain
from ...errors import DimensionMismatchError, InputError, TooExpensiveError
from ...frames import as_frame
from ...pipeline.context import Context
from .estimate import GUARANTEED, BiasEstimate
from .inscribing import (
    DEFAULT_MAX_FACETS,
    InscribingPolytope,
    complete_omnidirectional,
    inscribing_polytope,
    is_omnidirectional,
    max_facet_count,
    omnidirectional_polytope,
    refuse_too_many_facets,
)

__all__ = [
    "DEFAULT_MAX_FACETS",
    "InscribingPolytope",
    "inscribing_polytope",
    "max_facet_count",
    "is_omnidirectional",
    "complete_omnidirectional",
    "polytope_bias",
    "polytope_bias_exterior",
]


# ---------------------------------------------------------------------------------
# Projections onto simplicial cones (batched)
# ---------------------------------------------------------------------------------


def _project_onto_cones(G: np.ndarray, h: np.ndarray, *, max_iter: int | None = None) -> np.ndarray:
    r"""Coefficients ``c >= 0`` of Euclidean projections onto simplicial cones, in Gram form.

    For generators ``B[p]`` (linearly independent rows) and a vector ``v[p]``, pass
    ``G = B B^T`` with shape ``(N, k, k)`` and ``h = B v`` with shape ``(N, k)``; the
    projection is ``c[p] @ B[p]`` and its squared norm is ``c[p] . h[p]``. It solves the
    linear complementarity problem ``w = G c - h >= 0``, ``c >= 0``, ``c . w = 0`` for all
    problems at once by block principal pivoting (Judice & Pires, with Kim & Park's
    safeguard against cycling): one batched linear solve per sweep over the problems not
    yet solved. A problem still open after ``max_iter`` sweeps, or whose KKT check
    fails, is handed to ``scipy.optimize.nnls``.
    """
    N, k = h.shape
    c = np.zeros((N, k))
    if N == 0:
        return c
    passive = h > 0
    best = np.full(N, k + 1)
    backup = np.full(N, 3)
    todo = np.arange(N)
    eye = np.eye(k, dtype=bool)
    eps = ACTIVE_SET_RTOL
    for _ in range(max_iter if max_iter is not None else 5 * k + 10):
        if todo.size == 0:
            break
        if todo.size == N:  # first sweep: no copies
            Fm, Gt, ht = passive, G, h
        else:
            Fm, Gt, ht = passive[todo], G[todo], h[todo]
        M = np.where(Fm[:, :, None] & Fm[:, None, :], Gt, eye)
        try:
            ct = np.linalg.solve(M, np.where(Fm, ht, 0.0)[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break  # a (numerically) singular sub-system: leave the rest to nnls
        wt = np.einsum("pij,pj->pi", Gt, ct) - ht
        scale = 1.0 + np.abs(ct).max(axis=1, keepdims=True)
        bad = (Fm & (ct < -eps * scale)) | (~Fm & (wt < -eps * scale))
        nbad = bad.sum(axis=1)
        ok = nbad == 0
        c[todo[ok]] = np.where(Fm[ok], np.maximum(ct[ok], 0.0), 0.0)
        idx, bad, nbad = todo[~ok], bad[~ok], nbad[~ok]
        improved = nbad < best[idx]
        full = improved | (backup[idx] >= 1)
        backup[idx] = np.where(improved, 3, np.where(full, backup[idx] - 1, backup[idx]))
        best[idx] = np.where(improved, nbad, best[idx])
        last = k - 1 - np.argmax(bad[:, ::-1], axis=1)
        single = np.zeros_like(bad)
        single[np.arange(idx.size), last] = True
        passive[idx] ^= np.where(full[:, None], bad, single)
        todo = idx
    # verify the KKT conditions of every solution; repair failures with nnls
    w = np.einsum("pij,pj->pi", G, c) - h
    scale = 1.0 + np.abs(c).max(axis=1)
    fail = np.zeros(N, dtype=bool)
    fail[todo] = True
    fail |= np.any(w < -KKT_RTOL * scale[:, None], axis=1) | (np.abs(np.sum(c * w, axis=1)) > KKT_RTOL * scale)
    for p in np.flatnonzero(fail):
        c[p] = _nnls_gram(G[p], h[p])
    return c


def _nnls_gram(G: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``min ||B^T c - v||, c >= 0`` from ``G = B B^T`` and ``h = B v`` (via a Cholesky factor)."""
    from scipy.optimize import nnls

    # ||B^T c - v||^2 = c^T G c - 2 h^T c + const = ||A c - b||^2 + const with A^T A = G, A^T b = h
    lam, U = np.linalg.eigh(G)
    keep = lam > GRAM_EIG_RTOL * max(lam[-1], DIVISOR_FLOOR)
    root = np.sqrt(lam[keep])
    A = root[:, None] * U[:, keep].T
    b = (U[:, keep].T @ h) / root
    return nnls(A, b)[0]


# ---------------------------------------------------------------------------------
# PBE on the unit sphere, per (facet, vertex) pair
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PairValues:
    """Per (facet, vertex) pair: boundary and unit-sphere minima and where they are attained."""

    facet: np.ndarray  # (P,) facet index
    vertex: np.ndarray  # (P,) vertex index i
    vmin: np.ndarray  # (P,) min over vertices l of the facet of <phi_l, phi_i>
    vmin_at: np.ndarray  # (P,) the vertex l attaining it
    sphere: np.ndarray  # (P,) min over cone(F) ∩ S of <y, phi_i>
    sphere_at: np.ndarray  # (P, n) a unit vector attaining it
    n_projections: int


def _gram_gather(X: np.ndarray, gram: np.ndarray | None, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Inner products ``<X[a], X[b]>`` for broadcastable index arrays ``a`` and ``b``."""
    if gram is not None:
        return gram.ravel()[a * gram.shape[0] + b]
    return np.einsum("...j,...j->...", X[a], X[b])


#: projection problems solved per batch (memory: PROJECTION_BATCH * n^2 floats), the clock read between batches
PROJECTION_BATCH = 1 << 15


def _refuse_by_size(m: int, n: int, max_facets: int) -> None:
    """The facet bound of the hull (:func:`inscribing_polytope`'s own refusal), asked before any work on it.

    The hull's own steps come first otherwise: the flatness test (an SVD of the unit vectors) and the
    import of qhull took 0.6 to 5.5 s for 1024 rows in R^784, on a stage given 0.2 to 1 s.
    """
    if m > n >= 2:
        refuse_too_many_facets(m, n, max_facets)


def _past(deadline: float, what: str) -> None:
    """Raise :class:`TooExpensiveError` once ``deadline`` (a ``time.perf_counter`` reading) has passed."""
    if time.perf_counter() > deadline:
        raise TooExpensiveError(f"polytope bias: the time limit passed {what}")


def _pair_values(P: InscribingPolytope, deadline: float = math.inf) -> _PairValues:
    cached = P._cache.get("pairs")
    if cached is not None:
        return cached
    X = P.points
    m, n = X.shape
    # all inner products at once when that is not much more work than the facets need
    gram = X @ X.T if m * m <= 4 * n * P.facet_indices.size else None
    sizes = P.facet_sizes
    indptr, indices = P.facet_indptr, P.facet_indices
    facet = np.repeat(np.arange(P.n_facets), sizes)
    vertex = indices
    n_pairs = indices.size
    vmin = np.empty(n_pairs)
    vmin_at = np.empty(n_pairs, dtype=np.intp)
    for k in np.unique(sizes):
        _past(deadline, "during the inner products of the facets' vertices")
        fk = np.flatnonzero(sizes == k)
        pos = indptr[fk][:, None] + np.arange(k)  # (n_k, k) positions of the pairs
        rows = indices[pos]
        best = np.full(rows.shape, np.inf)
        best_at = np.empty(rows.shape, dtype=np.intp)
        for col in range(k):  # a loop over the short axis beats argmin(axis=-1) by far
            if col % 64 == 63:  # facets of many vertices (a box in R^12): thousands of columns
                _past(deadline, "during the inner products of the facets' vertices")
            inner = _gram_gather(X, gram, rows, rows[:, col : col + 1])
            upd = inner < best
            best = np.where(upd, inner, best)
            best_at = np.where(upd, rows[:, col : col + 1], best_at)
        vmin[pos] = best
        vmin_at[pos] = best_at
    sphere = vmin.copy()
    sphere_at = X[vmin_at]
    neg = np.flatnonzero(vmin < 0)
    n_proj = 0
    if neg.size:
        # the cone of a facet is the union of the cones of its simplices: one projection
        # of -phi_i per simplex of the facet (a single one for simplicial facets)
        if P.n_simplices == P.n_facets:  # one simplex per facet
            sptr = None
            prob_simplex = np.argsort(P.simplex_facet)[facet[neg]]
            prob_pair = np.arange(neg.size)
            start = prob_pair
        else:
            order = np.argsort(P.simplex_facet, kind="stable")
            sptr = np.concatenate([[0], np.cumsum(np.bincount(P.simplex_facet, minlength=P.n_facets))])
            f = facet[neg]
            cnt = sptr[f + 1] - sptr[f]
            start = np.cumsum(cnt) - cnt
            prob_pair = np.repeat(np.arange(neg.size), cnt)
            prob_simplex = order[sptr[f][prob_pair] + np.arange(prob_pair.size) - start[prob_pair]]
        rows = P.simplices[prob_simplex]
        target = vertex[neg][prob_pair]
        if sptr is None and n > 1:
            # phi_i is a generator of the simplex and never used by the projection of -phi_i
            # (its KKT multiplier is 1 + <phi_i, P> >= 0): project onto the opposite face
            rows = rows[rows != target[:, None]].reshape(rows.shape[0], n - 1)
        coef = np.empty(rows.shape)
        norm = np.empty(rows.shape[0])
        for c0 in range(0, rows.shape[0], PROJECTION_BATCH):
            if time.perf_counter() > deadline:
                raise TooExpensiveError(
                    f"polytope bias: the time limit passed after {c0} of {rows.shape[0]} projections onto facet cones"
                )
            rb, tb = rows[c0 : c0 + PROJECTION_BATCH], target[c0 : c0 + PROJECTION_BATCH]
            G = _gram_gather(X, gram, rb[:, :, None], rb[:, None, :])
            h = -_gram_gather(X, gram, rb, tb[:, None])
            coef[c0 : c0 + rb.shape[0]] = _project_onto_cones(G, h)
            norm[c0 : c0 + rb.shape[0]] = np.sqrt(np.maximum(np.sum(coef[c0 : c0 + rb.shape[0]] * h, axis=1), 0.0))
        seg_max = np.maximum.reduceat(norm, start) if sptr is not None else norm
        if sptr is not None:
            hits = np.flatnonzero(norm >= seg_max[prob_pair])
            win = np.full(neg.size, prob_pair.size, dtype=np.intp)
            np.minimum.at(win, prob_pair[hits], hits)
        else:
            win = prob_pair
        value = -seg_max
        better = (value < sphere[neg]) & (seg_max > 0)
        sel = neg[better]
        sphere[sel] = value[better]
        w = win[better]
        proj = np.einsum("pi,pij->pj", coef[w], X[rows[w]])
        sphere_at[sel] = proj / np.linalg.norm(proj, axis=1, keepdims=True)
        n_proj = int(prob_pair.size)
    out = _PairValues(facet, vertex, vmin, vmin_at, sphere, sphere_at, n_proj)
    P._cache["pairs"] = out
    return out


def _by_vertex(P: InscribingPolytope, vertex: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Permutation sorting the pairs by vertex, and the start of each vertex's segment."""
    cached = P._cache.get("by_vertex")
    if cached is None:
        order = np.argsort(vertex, kind="stable")
        starts = np.concatenate([[0], np.cumsum(np.bincount(vertex, minlength=P.m))[:-1]])
        cached = P._cache["by_vertex"] = (order, starts)
    return cached


def _reduce(P: InscribingPolytope, values: np.ndarray, vertex: np.ndarray, allowed: np.ndarray | None = None):
    """Per vertex the minimum of ``values`` over its (allowed) pairs and the first pair attaining it (-1: none)."""
    if allowed is not None:
        values = np.where(allowed, values, np.inf)
    order, starts = _by_vertex(P, vertex)
    vals = values[order]
    best = np.minimum.reduceat(vals, starts)  # every vertex lies in a facet: no empty segment
    counts = np.diff(np.append(starts, vals.size))
    pos = np.where(vals == np.repeat(best, counts), np.arange(vals.size), vals.size)
    first = np.minimum.reduceat(pos, starts)
    win = np.where(np.isfinite(best), order[np.minimum(first, vals.size - 1)], -1)
    return best, win


def _positive_facets(P: InscribingPolytope, deadline: float = math.inf) -> tuple[np.ndarray, int]:
    r"""Facets whose cone meets :math:`\mathbb{R}^n_+ \setminus \{0\}`, and the number of LPs solved.

    Feasibility of :math:`\{c \ge 0, \sum c = 1, \Phi_F^T c \ge 0\}`; decided without
    an LP when a vertex is non-negative (feasible) or when a non-negative direction
    ``y`` (a coordinate axis or the all-ones vector) has :math:`\langle \phi_l, y\rangle < 0`
    for every vertex (infeasible by Farkas' lemma).
    """
    cached = P._cache.get("positive")
    if cached is not None:
        return cached
    from scipy.optimize import linprog

    X = P.points
    sizes = P.facet_sizes
    relevant = np.zeros(P.n_facets, dtype=bool)
    undecided = np.zeros(P.n_facets, dtype=bool)
    for k in np.unique(sizes):
        fk = np.flatnonzero(sizes == k)
        V = X[P.facet_indices[P.facet_indptr[fk][:, None] + np.arange(k)]]  # (n_k, k, n)
        yes = np.all(V >= 0, axis=2).any(axis=1)
        no = np.any(V.max(axis=1) < 0, axis=1) | np.all(V.sum(axis=2) < 0, axis=1)
        relevant[fk] = yes
        undecided[fk] = ~yes & ~no
    n_lp = 0
    for j in np.flatnonzero(undecided):
        if time.perf_counter() > deadline:
            raise TooExpensiveError(
                f"polytope bias on the positive ball: the time limit passed after {n_lp} of {int(undecided.sum())} facet LPs"
            )
        verts = X[P.facet(j)]
        k = verts.shape[0]
        res = linprog(
            np.zeros(k),
            A_ub=-verts.T,
            b_ub=np.zeros(P.n),
            A_eq=np.ones((1, k)),
            b_eq=[1.0],
            bounds=[(0, None)] * k,
            method="highs",
        )
        n_lp += 1
        relevant[j] = res.status != 2  # anything but a proof of infeasibility counts (conservative)
    out = (relevant, n_lp)
    P._cache["positive"] = out
    return out


# ---------------------------------------------------------------------------------
# Public PBE
# ---------------------------------------------------------------------------------


def _exterior_domain(n: int, s: float) -> Domain:
    """``{||x|| >= s}`` (all of R^n for ``s = 0``), through the registry of spellings."""
    return Domain.from_spec(f"exterior:{s!r}" if s > 0 else "real-space", n)


def _parse_domain(K: Any, n: int) -> tuple[str, Any, float, float, Any]:
    """``(case, domain, s, r, shell)`` for a supported domain; raises InputError otherwise.

    The case follows from what the domain says of itself: ``s = inner_radius``,
    ``r = radius`` and ``nonnegative``. ``shell`` is None when ``K`` *is* the set the case
    describes, else the radial set used instead (the shell ``s <= ||x|| <= r``, intersected with
    the orthant when ``K`` is non-negative), which contains ``K``: a bias that is rectifying on
    the enclosing set is rectifying on ``K``.
    """
    supported = "'boundary', a Domain (Ball, Sphere, Shell, PositiveBall, RealSpace, Exterior, Box, ...)"
    if isinstance(K, str):
        if K.strip().lower() == "boundary":
            return "boundary", "boundary", 1.0, 1.0, None
        raise InputError(f"K must be {supported}; got the string {K!r}.")
    if isinstance(K, tuple):
        raise InputError(f"K must be {supported}; got the tuple {K!r}.")
    if not isinstance(K, Domain):
        raise InputError(f"K must be {supported}; got {type(K).__name__}.")
    if K.finite:
        raise InputError(
            f"K must be {supported}; got {K!r}. For a finite data set use the sampling-based bias "
            "estimation (sampling_bias), which is exact on the samples."
        )
    if K.n != n:
        raise DimensionMismatchError(f"K must be a domain in R^{n} (the frame's dimension); got {K!r}.")
    s, r = float(K.inner_radius), float(K.radius)
    if not (np.isfinite(s) and s >= 0 and r >= s) or np.isnan(r):
        raise InputError(f"K must have radii 0 <= inner_radius <= radius; got {K!r} with {s!r}, {r!r}.")
    if K.nonnegative:
        if not np.isfinite(r):
            raise InputError(f"K must be bounded when it lies in the non-negative orthant; got {K!r}.")
        case = "positive-ball"
    elif not np.isfinite(r):
        case = "exterior" if s > 0 else "real-space"
    elif s == r:
        case = "sphere"
    elif s == 0:
        case = "ball"
    else:
        case = "shell"
    # K *is* the radial set of its case (not just inside it) when it says so itself
    rad = K.radial()
    exact = (
        rad is not None
        and (rad.s, rad.r) == (s, r)
        and rad.nonnegative == (case == "positive-ball")
        and rad.surface == (case == "sphere")
        and (case != "positive-ball" or s == 0)
    )
    shell = None if exact else _shell_name(case, s, r)
    return case, K, s, r, shell


def _shell_name(case: str, s: float, r: float) -> str:
    if case == "positive-ball":
        return f"the shell {s:g} ≤ |x| ≤ {r:g} in the non-negative orthant"
    if case == "sphere":
        return f"the sphere |x| = {r:g}"
    if case == "exterior":
        return f"the exterior |x| ≥ {s:g}"
    if case == "real-space":
        return "the whole space"
    return f"the shell {s:g} ≤ |x| ≤ {r:g}"


def polytope_bias(
    frame: Any,
    K: Any,
    *,
    facets: str | None = None,
    max_facets: int = DEFAULT_MAX_FACETS,
    tol: float = INSCRIBING_TOL,
    time_limit: float | None = None,
    ctx: Any = None,
) -> BiasEstimate:
    r"""Polytope bias estimation (Thm "PBE", Prop. "pbeall"): a bias that provably makes the frame rectifying on ``K``.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        An omnidirectional frame (normalized internally; the result is scaled back by the
        norms), or a polytope from :func:`inscribing_polytope` to reuse its hull.
    K : str or Domain
        ``"boundary"`` (the boundary of the inscribing polytope of the normalized frame),
        :class:`Sphere`, :class:`Ball`, :class:`Shell`, :class:`PositiveBall`,
        :class:`RealSpace` (only when every boundary value is ``>= 0``; the bias is then 0),
        :class:`Exterior` for :math:`\{\|x\| \ge s\}` (see :func:`polytope_bias_exterior`), or
        any other domain of finite or infinite radius (handled as its enclosing shell, see the
        module notes).
    facets : {"exact", "simplices"}, optional
        True facets (default) or qhull's simplices (also a valid certificate, never
        smaller, but it depends on the triangulation of non-simplicial facets).
    max_facets : int
        Facet limit (see :func:`inscribing_polytope`).
    tol : float, default INSCRIBING_TOL (1e-10)
        Coplanarity and omnidirectionality tolerance (see :func:`inscribing_polytope`).
    time_limit : float, optional
        Seconds for the work: the clock is read between the steps (the domain's radii, the
        hull, the inner products of each facet's vertices, the projections onto the facet
        cones, the facet LPs of the positive ball), and :class:`TooExpensiveError` is raised
        once it has passed. The hull itself (one qhull call) cannot be stopped: ``max_facets``
        bounds it instead.
    ctx : relu_frames_nb.pipeline.Context, optional
        The context of a check: when given, its remaining time caps ``time_limit``.

    Returns
    -------
    BiasEstimate
        ``values`` (``+inf`` for elements that are free), ``guarantee="guaranteed"``,
        ``method="polytope"``, ``facets`` (per element the facet where its minimum is
        attained, ``-1`` if free), ``argmin`` (per element a point of the closure of the
        cone of that facet intersected with ``K`` where :math:`\langle x, \phi_i\rangle` equals the
        normalized value; NaN if free), and ``info`` with the ``case``, the facet ``mode``,
        the unit-frame ``alpha_boundary`` and ``alpha_sphere`` and the ``polytope``.

    Raises
    ------
    NotOmnidirectionalError
        If 0 is not an interior point of the inscribing polytope.
    DegenerateHullError, TooExpensiveError
        From :func:`inscribing_polytope`.
    InputError
        For an unsupported ``K`` (or one of another dimension).

    Notes
    -----
    Let :math:`a^\partial_{F,i} = \min_{\ell \in F}\langle \phi_\ell, \phi_i\rangle` and
    :math:`a_{F,i} = \min_{y \in \operatorname{cone}(F)\cap\mathbb{S}} \langle y, \phi_i\rangle`,
    which equals :math:`a^\partial_{F,i}` when that is :math:`\ge 0` and
    :math:`-\|P_{\operatorname{cone}(F)}(-\phi_i)\|` otherwise (Moreau). With minima over
    the facets :math:`F \ni \phi_i`:

    * boundary (i): :math:`\min_F a^\partial_{F,i}` (formula (i); Algorithm 2 minimizes over
      all pairs of the facet, which is valid but smaller);
    * sphere :math:`\mathbb{S}_r` (ii): :math:`r \min_F a_{F,i}`;
    * shell :math:`s \le \|x\| \le r` and ball (``s = 0``) (iii), corrected:
      :math:`r a_i` if :math:`a_i = \min_F a_{F,i} < 0`, else :math:`s a_i` (the printed
      :math:`r^{-1}\min\{s, \alpha_{\mathbb{S}}\}` is wrong);
    * positive ball (iv): the ball formula with the minimum over the facets whose cone
      meets :math:`\mathbb{R}^n_+` only (feasibility LP; the printed program lacks the
      constraint :math:`\Phi_F^T c \ge 0`); elements of no such facet are free.
      ``info["paper_values"]`` holds the paper's version (minimum over all facets), which is
      never larger.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> est = polytope_bias(rf.zoo.mercedes_benz(), rf.Ball(2))
    >>> est.values.round(6).tolist()
    [-0.5, -0.5, -0.5]
    >>> bool(np.allclose(polytope_bias(rf.zoo.platonic("tetrahedron"), rf.Sphere(3)).values, -1 / np.sqrt(3)))
    True
    >>> polytope_bias(rf.zoo.platonic("icosahedron"), "boundary").values.round(4)[:3].tolist()
    [0.4472, 0.4472, 0.4472]
    """
    time_limit, _ = Context.for_tool(ctx, time_limit, None)
    max_facets = as_count(max_facets, "max_facets")
    tol = as_nonnegative(tol, "tol")
    seconds = as_time_limit(time_limit)
    deadline = math.inf if seconds is None else time.perf_counter() + seconds
    if not isinstance(frame, InscribingPolytope):
        frame = as_frame(frame)
        _refuse_by_size(frame.m, frame.n, max_facets)
    case, domain, s, r, shell = _parse_domain(K, frame.n)
    _past(deadline, "while the domain's radii were computed")
    P = omnidirectional_polytope(frame, facets, max_facets, tol)
    _past(deadline, "while the inscribing polytope was built")  # qhull cannot be stopped: max_facets bounds it
    if case == "exterior":
        return _exterior(P, s, domain, shell, deadline)
    pv = _pair_values(P, deadline)
    m, n = P.m, P.n
    alpha_b, _ = _reduce(P, pv.vmin, pv.vertex)
    alpha_s, _ = _reduce(P, pv.sphere, pv.vertex)
    info: dict[str, Any] = {
        "case": case,
        "mode": P.mode,
        "n_facets": P.n_facets,
        "n_simplices": P.n_simplices,
        "is_simplicial": P.is_simplicial,
        "n_projections": pv.n_projections,
        "alpha_boundary": alpha_b,
        "alpha_sphere": alpha_s,
        "polytope": P,
    }
    _note_enclosing(info, domain, shell)
    allowed = None
    if case == "boundary":
        pair_val, pair_pt = pv.vmin, P.points[pv.vmin_at]
    elif case == "sphere":
        pair_val, pair_pt = r * pv.sphere, r * pv.sphere_at
    elif case == "real-space":
        if np.any(alpha_b < 0):
            bad = np.flatnonzero(alpha_b < 0)
            raise InputError(
                f"K = RealSpace needs every boundary value alpha_Phi >= 0 (no finite bias exists otherwise); "
                f"got {bad.size} negative entries (smallest {alpha_b.min():.3g} at element {int(np.argmin(alpha_b))}). "
                "Use a bounded domain such as Ball(n, r) or Shell(n, s, r)."
            )
        pair_val, pair_pt = np.zeros_like(pv.vmin), np.zeros((pv.vmin.size, n))
    else:  # ball, shell, positive ball: a < 0 -> r a at r y; a >= 0 -> s a at s y
        t = np.where(pv.sphere < 0, r, s)
        pair_val, pair_pt = t * pv.sphere, t[:, None] * pv.sphere_at
        if case == "positive-ball":
            relevant, n_lp = _positive_facets(P, deadline)
            allowed = relevant[pv.facet]
            in_plus = np.zeros(m, dtype=bool)
            in_plus[pv.vertex[allowed]] = True
            ball_all, _ = _reduce(P, pair_val, pv.vertex)
            info.update(
                relevant_facets=relevant,
                n_lp=n_lp,
                paper_values=np.where(in_plus, ball_all, np.inf) * np.asarray(P.frame.norms),
            )
    values, win = _reduce(P, pair_val, pv.vertex, allowed)
    free = win < 0
    argmin = np.full((m, n), np.nan)
    argmin[~free] = pair_pt[win[~free]]
    facet_idx = np.where(free, -1, pv.facet[np.maximum(win, 0)])
    if case == "positive-ball":
        info["argmin_in_domain"] = np.all(np.nan_to_num(argmin, nan=-1.0) >= -UNIT_ZERO_TOL, axis=1)
    return BiasEstimate(
        values=values * np.asarray(P.frame.norms),
        method="polytope",
        domain=domain,
        guarantee=GUARANTEED,
        argmin=argmin,
        facets=facet_idx,
        info=info,
    )


def _note_enclosing(info: dict, domain: Any, shell: str | None) -> None:
    """Record in ``info`` that the estimate was computed on a radial set enclosing ``domain``."""
    if shell is None:
        return
    info["enclosing"] = shell
    info["note"] = (
        f"computed on {shell}, which contains {domain.describe()} (from its inner_radius and radius): "
        "a bias that is rectifying on the enclosing set is rectifying on K, possibly smaller than needed; "
        "argmin points lie in the enclosing set, not necessarily in K"
    )


def _exterior(P: InscribingPolytope, s: float, domain: Any, shell: str | None = None,
              deadline: float = math.inf) -> BiasEstimate:  # fmt: skip
    pv = _pair_values(P, deadline)
    alpha_b, win = _reduce(P, pv.vmin, pv.vertex)
    if np.any(alpha_b < 0):
        bad = np.flatnonzero(alpha_b < 0)
        raise InputError(
            "frame must have a non-negative boundary bias alpha_Phi for the exterior domain ||x|| >= s "
            f"(Prop. pbeall (v)); got {bad.size} negative entries (smallest {alpha_b.min():.3g} at element "
            f"{int(bad[np.argmin(alpha_b[bad])])}). On an unbounded domain such an element would need the bias "
            "-inf; use a bounded domain such as Shell(n, s, r) instead."
        )
    info = {
        "case": "exterior",
        "mode": P.mode,
        "n_facets": P.n_facets,
        "n_simplices": P.n_simplices,
        "is_simplicial": P.is_simplicial,
        "alpha_boundary": alpha_b,
        "polytope": P,
    }
    _note_enclosing(info, domain, shell)
    return BiasEstimate(
        values=s * alpha_b * np.asarray(P.frame.norms),
        method="polytope",
        domain=domain,
        guarantee=GUARANTEED,
        argmin=s * P.points[pv.vmin_at[win]],
        facets=pv.facet[win],
        info=info,
    )


def polytope_bias_exterior(
    frame: Any,
    s: float,
    *,
    facets: str | None = None,
    max_facets: int = DEFAULT_MAX_FACETS,
    tol: float = INSCRIBING_TOL,
) -> BiasEstimate:
    r"""PBE outside an open ball (Prop. "pbeall" (v)): the bias ``s * alpha_Phi`` on :math:`\{\|x\| \ge s\}`.

    When the boundary bias :math:`\alpha_\Phi^\Delta` of the normalized frame is
    non-negative, every :math:`x = t y` with :math:`y \in \operatorname{cone}(F) \cap
    \mathbb{S}`, :math:`t \ge s` has :math:`\langle x, \phi_i\rangle \ge s
    (\alpha_\Phi^\Delta)_i` for the vertices of ``F``: the frame is
    :math:`s \alpha_\Phi^\Delta`-rectifying on :math:`\mathbb{R}^n \setminus
    \mathring{\mathbb{B}}_s`.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        An omnidirectional frame (normalized internally; the result is scaled back).
    s : float or Exterior
        Radius of the excluded open ball, ``s >= 0``, or the domain
        :class:`~relu_frames_nb.domains.Exterior` itself. The estimate's ``domain`` is
        ``Exterior(n, s)`` (``RealSpace(n)`` for ``s = 0``).
    facets, max_facets, tol
        As in :func:`polytope_bias`.

    Returns
    -------
    BiasEstimate

    Raises
    ------
    InputError
        If :math:`\alpha_\Phi^\Delta` has a negative entry (no finite bias works on the
        unbounded domain for that element).

    Notes
    -----
    The printed statement also scales the frame (":math:`(s\phi_i)_i` is
    :math:`s\alpha_\Phi^\Delta`-rectifying"); since :math:`\langle x, s\phi_i\rangle \ge
    s\alpha_i \iff \langle x, \phi_i\rangle \ge \alpha_i`, that reading holds only for
    :math:`s \ge 1`. The proof shows the statement implemented here.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> polytope_bias_exterior(rf.zoo.platonic("icosahedron"), 2.0).values.round(4)[:2].tolist()
    [0.8944, 0.8944]
    """
    K = s if isinstance(s, Domain) else None
    if K is not None:
        if K.finite or K.nonnegative or K.bounded or not K.inner_radius > 0:
            raise InputError(f"s must be a radius or an exterior domain {{||x|| >= s}} (rf.Exterior); got {K!r}.")
        s = float(K.inner_radius)
    else:
        s = as_nonnegative(s, "s")
    max_facets = as_count(max_facets, "max_facets")
    tol = as_nonnegative(tol, "tol")
    P = omnidirectional_polytope(frame, facets, max_facets, tol)
    if K is None:
        K = _exterior_domain(P.n, s)
    elif K.n != P.n:
        raise DimensionMismatchError(f"K must be a domain in R^{P.n} (the frame's dimension); got {K!r}.")
    return _exterior(P, s, K)


def _printed_ball_formula(alpha_sphere: Any, r: float, s: float = 0.0) -> np.ndarray:
    r"""The garbled printed formula (iii): :math:`r^{-1} \min\{s, \alpha_{\mathbb{S}}\}` (erratum; do not use).

    Kept only to demonstrate, in the tests and notebooks, that it leaves parts of
    :math:`\mathbb{B}_2` or :math:`\mathbb{D}_{1,1/2}` unrectified.
    """
    r = as_positive(r, "r")
    s = as_nonnegative(s, "s")
    return np.minimum(s, np.asarray(alpha_sphere, dtype=float)) / r
