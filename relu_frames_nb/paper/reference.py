r"""Reference transcriptions of the paper's pseudo-code (App. C) and of the admissibility test (App. A).

Every function here follows the printed lines as literally as possible: one loop per line of the
pseudo-code, one linear program per index set, one general-purpose solver run per convex
program. They exist to cross-check the fast implementations of the package and to teach what
each algorithm does; they are **slow by design** (no batching, no closed forms) and are meant
for small frames only. Use the package functions named in each docstring for real work.

The module is not imported by ``relu_frames_nb`` itself; use it as
``from relu_frames_nb.paper import reference``.

=============================  =============================================  ==========================================
function                       paper                                          fast implementation
=============================  =============================================  ==========================================
:func:`is_admissible`          App. A, (modified) admissibility of ``J``      ``ReLULayer.active_set``
:func:`arrangement_face_points`  faces of the hyperplane arrangement           --
:func:`admissible_sets`        App. A, all admissible sets (``2^m`` LPs)      ``ReLULayer.active_set``
:func:`algorithm_1`            Algorithm 1 (sampling-based bias)              ``rf.sampling_bias(F, X, init=...)``
:func:`algorithm_2`            Algorithm 2 (polytope bias, as printed)        -- (erratum: smaller than formula (i))
:func:`formula_i`              formula (i) of Prop. "pbeall"                  ``rf.polytope_bias(F, "boundary")``
:func:`algorithm_3`            Algorithm 3 (polytope bias on the sphere)      ``rf.polytope_bias(F, rf.Sphere(n))``
:func:`algorithm_4`            Algorithm 4 (ReLU-synthesis matrix)            ``rf.relu_dual``
:func:`algorithm_5`            Algorithm 5 (reconstruction)                   ``rf.reconstruct``
=============================  =============================================  ==========================================

The scipy solvers (``linprog``, ``minimize``) are imported inside the functions that use them.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np

from .._util.tolerances import ADMISSIBLE_TOL, DIVISOR_FLOOR, FACE_POINT_STEP, SLSQP_FTOL
from .._util.validation import as_bias, as_count, as_index_set, as_points, as_positive, to_float_array
from ..errors import (
    DimensionMismatchError,
    InputError,
    NotAFrameError,
    NotInjectiveError,
    NotOmnidirectionalError,
    TooExpensiveError,
)
from ..frames import Frame, as_frame
from ..layer import as_layer
from .bias.polytope import InscribingPolytope, inscribing_polytope

__all__ = [
    "is_admissible",
    "arrangement_face_points",
    "admissible_sets",
    "algorithm_1",
    "algorithm_2",
    "formula_i",
    "algorithm_3",
    "algorithm_4",
    "algorithm_5",
]

#: ``admissible_sets`` enumerates ``2^m`` index sets (two LPs each); refuse beyond this many vectors.
MAX_ENUMERATED_VECTORS = 16
#: ``arrangement_face_points`` refuses to produce more than this many points.
MAX_FACE_POINTS = 1_000_000


# ---------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------
def _frame(frame_or_vectors: Any, name: str = "frame") -> Frame:
    """A Frame from a Frame, a layer (its frame) or an (m, n) array."""
    frame = getattr(frame_or_vectors, "frame", frame_or_vectors)  # a layer or an InscribingPolytope: its frame
    return as_frame(frame, name)


def _polytope(frame: Any):
    """The inscribing polytope of a frame (or the polytope itself), refusing non-omnidirectional frames."""
    P = frame if isinstance(frame, InscribingPolytope) else inscribing_polytope(_frame(frame))
    if not P.is_omnidirectional:
        raise NotOmnidirectionalError(
            "frame must be omnidirectional (0 an interior point of its inscribing polytope) for the polytope "
            f"bias; got a frame of {P.m} vectors in R^{P.n} whose polytope has a facet through or behind 0. "
            "Append -sum(phi_i)/||sum(phi_i)|| with rf.complete_omnidirectional(frame) (App. B)."
        )
    return P


def _initial_bias(alpha0: Any, m: int) -> np.ndarray:
    """A bias of length m in which +inf is allowed (the start 'no constraint yet' of Algorithm 1)."""
    if isinstance(alpha0, (str, bytes)) or alpha0 is None:
        raise InputError(
            f"alpha0 must be a scalar or a vector of length {m}; got {alpha0!r}. "
            "Use np.full(m, np.inf) to start from +inf, or rf.polytope_bias(F, 'boundary').values."
        )
    raw = np.asarray(alpha0)
    if raw.dtype.kind not in "biuf":
        raise InputError(f"alpha0 must be a real scalar or vector; got dtype {raw.dtype}.")
    posinf = np.isposinf(raw)
    finite = as_bias(np.where(posinf, 0.0, raw), m, "alpha0")
    return np.where(np.broadcast_to(posinf, finite.shape), np.inf, finite)


# ---------------------------------------------------------------------------------
# App. A: admissibility
# ---------------------------------------------------------------------------------
def is_admissible(frame_or_vectors: Any, alpha: Any, J: Any, *, strict: bool = False) -> tuple[bool, np.ndarray | None]:
    r"""Whether the index set ``J`` is admissible (App. A), decided by one linear program.

    The paper calls ``J`` (modified) admissible when

    .. math:: \bigcap_{i\in J}\{x : \langle x,\phi_i\rangle \ge \alpha_i\} \cap
              \bigcap_{i\notin J}\{x : \langle x,\phi_i\rangle < \alpha_i\} \ne \emptyset ,

    and Bruna et al. when the open cell (``>`` on ``J`` as well) is non-empty. The test solves
    :math:`\max t` subject to :math:`\langle x,\phi_i\rangle \ge \alpha_i` (``+ t`` if ``strict``)
    on ``J``, :math:`\langle x,\phi_i\rangle + t \le \alpha_i` off ``J``, :math:`t \le 1`;
    ``J`` is admissible iff :math:`t^* > 0` (to ``1e-9``), and the optimal ``x`` is a witness.

    Checked against: the admissible sets are exactly the active sets :math:`I_x^\alpha`
    (``ReLULayer.active_set``) of the witnesses and of points on every face of the arrangement.

    Parameters
    ----------
    frame_or_vectors : Frame, ReLULayer or array_like, shape (m, n)
        The frame :math:`\Phi` (rows are the vectors); of a layer only its frame is used.
    alpha : float or array_like, shape (m,)
        The bias.
    J : array_like of int or bool mask, shape (m,)
        The index set (may be empty).
    strict : bool, default False
        ``False``: the paper's modified condition; ``True``: Bruna et al.'s open cell.

    Returns
    -------
    admissible : bool
    witness : ndarray, shape (n,), or None
        The optimal ``x`` of the LP when it is feasible (a point with active set ``J`` when
        ``J`` is admissible), else ``None``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> F = rf.zoo.plus_minus_basis(2)  # e1, e2, -e1, -e2
    >>> ok, x = is_admissible(F, 0.0, [0, 1, 3])  # e1 active, e2 and -e2 active with equality
    >>> ok, bool(x[0] > 0 and abs(x[1]) < 1e-9)
    (True, True)
    >>> is_admissible(F, 0.0, [0, 1, 3], strict=True)[0]  # no open cell
    False
    >>> is_admissible(F, 0.0, [0, 2])[0]  # e1 and -e1 active, but not e2 or -e2
    False
    """
    from scipy.optimize import linprog

    F = _frame(frame_or_vectors, "frame_or_vectors")
    m, n = F.m, F.n
    alpha = as_bias(alpha, m)
    idx = as_index_set(J, m)
    if not isinstance(strict, (bool, np.bool_)):
        raise InputError(f"strict must be True or False; got {strict!r}.")
    Phi = F.vectors
    inJ = np.zeros(m, dtype=bool)
    inJ[idx] = True
    # variables (x, t); maximize t
    A = np.vstack([np.c_[-Phi[inJ], np.full(inJ.sum(), 1.0 if strict else 0.0)], np.c_[Phi[~inJ], np.ones((~inJ).sum())]])
    b = np.r_[-alpha[inJ], alpha[~inJ]]
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=A, b_ub=b, bounds=[(None, None)] * n + [(None, 1.0)], method="highs")
    if res.status != 0:
        return False, None
    return bool(-res.fun > ADMISSIBLE_TOL), np.asarray(res.x[:n], dtype=np.float64)


def arrangement_face_points(vectors: Any, alpha: Any, eps: float = FACE_POINT_STEP) -> np.ndarray:
    r"""One point on every face of the arrangement :math:`\langle x,\phi_i\rangle = \alpha_i` around every vertex.

    At a vertex ``v`` where ``n`` linearly independent hyperplanes ``S`` meet, the faces around
    ``v`` are the sign patterns of :math:`\langle x - v, \phi_i\rangle`, ``i in S``: zero on a
    subset, :math:`\pm 1` elsewhere. Solving :math:`\Phi_S d = b` for each of the :math:`3^n`
    patterns ``b`` gives one point :math:`v + \varepsilon d/\lVert d\rVert` on each of them. Every
    face of the arrangement of a spanning frame touches a vertex, so together with far-away
    points (the unbounded cells) these points meet every active set :math:`I_x^\alpha`.

    Parameters
    ----------
    vectors : Frame or array_like, shape (m, n)
        The frame (must span :math:`\mathbb{R}^n`).
    alpha : float or array_like, shape (m,)
        The bias.
    eps : float, default FACE_POINT_STEP (1e-6)
        Distance of the points from their vertex; smaller than the distance between vertices.

    Returns
    -------
    ndarray, shape (k, n)
        ``3^n`` points per vertex (``k = 3^n`` times the number of independent ``n``-subsets).

    Raises
    ------
    TooExpensiveError
        If more than a million points would be produced.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> arrangement_face_points(rf.zoo.standard_basis(2), 0.0).shape  # one vertex, 9 faces around it
    (9, 2)
    """
    F = _frame(vectors, "vectors")
    m, n = F.m, F.n
    alpha = as_bias(alpha, m)
    eps = as_positive(eps, "eps")
    total = comb(m, n) * 3**n
    if total > MAX_FACE_POINTS:
        raise TooExpensiveError(
            f"vectors must give at most {MAX_FACE_POINTS} points (C(m, n) * 3^n); got {total} for m = {m}, n = {n}. "
            "This reference enumeration is for small frames; sample the space instead."
        )
    Phi = F.vectors
    out = []
    for S in itertools.combinations(range(m), n):
        A = Phi[list(S)]
        if np.linalg.matrix_rank(A) < n:
            continue
        v = np.linalg.solve(A, alpha[list(S)])
        for b in itertools.product([-1.0, 0.0, 1.0], repeat=n):
            d = np.linalg.solve(A, np.array(b))
            out.append(v + eps * d / max(np.linalg.norm(d), DIVISOR_FLOOR))
    return np.vstack(out)


def admissible_sets(layer: Any, *, max_m: int = MAX_ENUMERATED_VECTORS) -> tuple[dict[tuple[int, ...], np.ndarray], set]:
    r"""All admissible index sets of a layer, modified (with witnesses) and Bruna et al.'s (App. A).

    Enumerates all :math:`2^m` subsets ``J`` of the index set and runs :func:`is_admissible`
    twice on each (modified and strict condition).

    Checked against: with the modified condition ``J`` is admissible iff :math:`J = I_x^\alpha`
    for some ``x`` (each witness has active set ``J``), so "every admissible set spans" is
    "``\Phi`` is :math:`\alpha`-rectifying on :math:`\mathbb{R}^n`" (``rf.is_rectifying`` at the
    witnesses); Bruna's sets are a subset, equal for hyperplanes in general position.

    Parameters
    ----------
    layer : ReLULayer
        The layer ``ReLU(Phi x - alpha)``.
    max_m : int, default 16
        Refuse layers with more vectors than this (``2^m`` linear programs).

    Returns
    -------
    modified : dict
        ``{J: witness}`` for every modified-admissible ``J`` (a sorted tuple of indices); the
        witness ``x`` has active set ``J``.
    bruna : set
        The ``J`` whose open cell is non-empty.

    Raises
    ------
    TooExpensiveError
        If ``layer.m > max_m``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> modified, bruna = admissible_sets(rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0))
    >>> len(modified), len(bruna)
    (9, 4)
    >>> (0, 1, 3) in set(modified) - bruna  # the half-axis x_1 > 0: e_2 and -e_2 active with equality
    True
    """
    L = as_layer(layer)
    max_m = as_count(max_m, "max_m")
    m = L.m
    if m > max_m:
        raise TooExpensiveError(
            f"layer must have at most max_m = {max_m} vectors to enumerate its 2^m index sets; got m = {m} "
            f"({2**m} sets, two LPs each). Raise max_m if you really want this, or test active sets at samples."
        )
    Phi, a = L.frame.vectors, L.alpha
    modified: dict[tuple[int, ...], np.ndarray] = {}
    bruna: set[tuple[int, ...]] = set()
    for r in range(m + 1):
        for J in itertools.combinations(range(m), r):
            ok, x = is_admissible(Phi, a, J)
            if ok:
                modified[J] = x
            if is_admissible(Phi, a, J, strict=True)[0]:
                bruna.add(J)
    return modified, bruna


# ---------------------------------------------------------------------------------
# App. C1: Algorithm 1
# ---------------------------------------------------------------------------------
def algorithm_1(vectors: Any, X: Any, alpha0: Any) -> np.ndarray:
    r"""Algorithm 1 (sampling-based bias estimation), one sample at a time.

    Printed lines: initialize :math:`\alpha^{(0)}`; **for** :math:`z \in X_N`: compute
    :math:`(\langle z,\phi_i\rangle)_{i\in I}`, get the most correlated basis :math:`J^*(z)`, and
    set :math:`\alpha_i \leftarrow \min\{\langle z,\phi_i\rangle, \alpha_i\}` for :math:`i \in J^*(z)`.
    Here :math:`J^*(z)` is the set of the ``n`` largest coefficients, which is the most correlated
    basis of a full-spark frame (the package uses a greedy rule for other frames).

    Checked against: ``rf.sampling_bias(F, X, init=alpha0)`` (``init="none"`` for
    :math:`+\infty`), to rounding.

    Parameters
    ----------
    vectors : Frame or array_like, shape (m, n)
        The frame (unnormalized coefficients are used, as in the package).
    X : array_like, shape (N, n) or (n,)
        The samples :math:`X_N`.
    alpha0 : float or array_like, shape (m,)
        The initial bias :math:`\alpha^{(0)}`; entries may be ``+inf`` (no constraint yet).

    Returns
    -------
    ndarray, shape (m,)
        The estimate (``+inf`` where an element never was in a :math:`J^*(z)` and
        :math:`\alpha^{(0)}` was ``+inf``).

    Examples
    --------
    >>> import numpy as np
    >>> import relu_frames_nb as rf
    >>> algorithm_1(rf.zoo.plus_minus_basis(2), [[1.0, 0.5]], np.inf).tolist()  # J*(z) = {e1, e2}
    [1.0, 0.5, inf, inf]
    """
    F = _frame(vectors, "vectors")
    Xs, _ = as_points(X, F.n, "X")
    alpha = _initial_bias(alpha0, F.m)
    Phi, n = F.vectors, F.n
    for z in Xs:
        coeff = Phi @ z
        J = np.argsort(-coeff, kind="stable")[:n]  # J*(z) of a full-spark frame: the n largest coefficients
        alpha[J] = np.minimum(coeff[J], alpha[J])
    return alpha


# ---------------------------------------------------------------------------------
# App. C2: Algorithms 2 and 3
# ---------------------------------------------------------------------------------
def algorithm_2(frame: Any) -> np.ndarray:
    r"""Algorithm 2 as printed: per facet the minimum over **all** pairs, per element the minimum over its facets.

    Printed lines: compute the facet index sets :math:`I_{F_j}`; per facet
    :math:`\beta_j = \min_{k<\ell \in I_{F_j}}\langle\phi_k,\phi_\ell\rangle`; per element
    :math:`(\alpha^\Delta_\Phi)_i = \min_{j : i \in I_{F_j}}\beta_j`. The inner products are those of
    the normalized vectors (the vertices of :math:`P_\Phi`); the result is scaled back by the
    norms, like the package's polytope biases.

    Checked against: :func:`formula_i` (which the algorithm is meant to compute): never larger,
    and in general smaller (an erratum of the paper); both are rectifying on :math:`\partial P_\Phi`.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        An omnidirectional frame, or its polytope from ``rf.inscribing_polytope``.

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    NotOmnidirectionalError
        If 0 is not an interior point of the inscribing polytope.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> algorithm_2(rf.zoo.platonic("octahedron")).round(6).tolist()  # pairs +-e_k never share a facet
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    P = _polytope(frame)
    G = P.points @ P.points.T
    beta = [min(G[k, ell] for k, ell in itertools.combinations(P.facet(j), 2)) for j in range(P.n_facets)]
    unit = np.array([min(beta[j] for j in P.facets_of(i)) for i in range(P.m)])
    return unit * P.frame.norms


def formula_i(frame: Any) -> np.ndarray:
    r"""Formula (i) of Prop. "pbeall": per element the minimum over its facets of its inner products there.

    :math:`(\alpha^\Delta_\Phi)_i = \min_{j : i \in I_{F_j}}\min_{\ell \in I_{F_j}}\langle\phi_\ell,\phi_i\rangle`
    for the normalized vectors, scaled back by the norms. It is the polytope bias on the boundary
    :math:`\partial P_\Phi` that Algorithm 2 is meant to compute (see :func:`algorithm_2`).

    Checked against: ``rf.polytope_bias(F, "boundary").values``.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        An omnidirectional frame, or its polytope from ``rf.inscribing_polytope``.

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    NotOmnidirectionalError
        If 0 is not an interior point of the inscribing polytope.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> formula_i(rf.zoo.platonic("icosahedron")).round(4)[:3].tolist()
    [0.4472, 0.4472, 0.4472]
    """
    P = _polytope(frame)
    G = P.points @ P.points.T
    unit = np.array([min(G[ell, i] for j in P.facets_of(i) for ell in P.facet(j)) for i in range(P.m)])
    return unit * P.frame.norms


def algorithm_3(frame: Any, *, n_starts: int = 4, seed: int = 0) -> np.ndarray:
    r"""Algorithm 3 (polytope bias on the unit sphere), the convex program solved literally with SLSQP.

    Printed lines: compute :math:`\alpha^\Delta_\Phi` (:func:`formula_i`); for each element, if
    :math:`(\alpha^\Delta_\Phi)_i \ge 0` keep it, otherwise solve (opt) for every facet
    :math:`F \ni \phi_i`: minimize :math:`\langle D_F c, \phi_i\rangle` over :math:`c \ge 0`,
    :math:`\lVert D_F c\rVert \le 1` (:math:`D_F` the synthesis matrix of the facet's vertices), and take
    the smallest value (never above :math:`(\alpha^\Delta_\Phi)_i`). Each program is solved by
    ``scipy.optimize.minimize(method="SLSQP")`` from ``n_starts`` random feasible starts. The
    result is scaled back by the norms.

    Checked against: ``rf.polytope_bias(F, rf.Sphere(n)).values`` (closed form
    :math:`-\lVert P_{\operatorname{cone}(F)}(-\phi_i)\rVert`) to about ``1e-6``; the
    tetrahedron gives :math:`-1/\sqrt 3`.

    Parameters
    ----------
    frame : Frame, InscribingPolytope or array_like, shape (m, n)
        An omnidirectional frame, or its polytope from ``rf.inscribing_polytope``.
    n_starts : int, default 4
        Number of SLSQP runs per program.
    seed : int, default 0
        Seed of the random starts (element ``i`` uses ``seed + i``).

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    NotOmnidirectionalError
        If 0 is not an interior point of the inscribing polytope.

    Examples
    --------
    >>> import numpy as np
    >>> import relu_frames_nb as rf
    >>> bool(np.allclose(algorithm_3(rf.zoo.platonic("tetrahedron")), -1 / np.sqrt(3), atol=1e-6))
    True
    """
    from scipy.optimize import minimize

    n_starts = as_count(n_starts, "n_starts")
    seed = as_count(seed, "seed", minimum=0)
    P = _polytope(frame)
    V = P.points
    G = V @ V.T
    alpha_b = np.array([min(G[ell, i] for j in P.facets_of(i) for ell in P.facet(j)) for i in range(P.m)])
    out = alpha_b.copy()
    for i in np.flatnonzero(alpha_b < 0):
        best = alpha_b[i]
        for j in P.facets_of(i):
            D = V[P.facet(j)].T
            cons = [{"type": "ineq", "fun": lambda c, D=D: 1.0 - np.sum((D @ c) ** 2)}]
            for start in np.random.default_rng(seed + int(i)).random((n_starts, D.shape[1])):
                r = minimize(lambda c, D=D, i=i: (D @ c) @ V[i], start / np.linalg.norm(D @ start), method="SLSQP",
                             bounds=[(0, None)] * D.shape[1], constraints=cons,
                             options={"ftol": SLSQP_FTOL, "maxiter": 500})  # fmt: skip
                if r.success:
                    best = min(best, float(r.fun))
        out[i] = best
    return out * P.frame.norms


# ---------------------------------------------------------------------------------
# App. C3: Algorithms 4 and 5
# ---------------------------------------------------------------------------------
def algorithm_4(vectors: Any, J: Any) -> np.ndarray:
    r"""Algorithm 4 (the ReLU-synthesis matrix of :math:`\Psi = \Phi_J`), with the printed inverse.

    Printed lines: :math:`S_J^{-1} \leftarrow (C_J^\top C_J)^{-1}`;
    :math:`\tilde D_J \leftarrow [S_J^{-1}\psi_{i_1}, \dots, S_J^{-1}\psi_{i_{|J|}}]`.

    Checked against: ``rf.relu_dual(F, J)`` (the pseudo-inverse of :math:`C_J` by an SVD).

    Parameters
    ----------
    vectors : Frame or array_like, shape (m, n)
        The frame.
    J : array_like of int or bool mask, shape (m,)
        The index set; the order of the indices is the order of the columns.

    Returns
    -------
    ndarray, shape (n, len(J))

    Raises
    ------
    NotAFrameError
        If :math:`\Phi_J` does not span :math:`\mathbb{R}^n` (:math:`S_J` is singular).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> algorithm_4(rf.zoo.standard_basis(2), [1, 0]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    F = _frame(vectors, "vectors")
    idx = as_index_set(J, F.m)
    C = F.vectors[idx]
    if not F.spans(idx):
        raise NotAFrameError(
            f"Phi_J must span R^{F.n} for S_J = C_J^T C_J to be invertible; got J = {idx.tolist()[:20]} "
            f"(|J| = {idx.size}). Choose J inside an active set that spans (a basis or a facet)."
        )
    S_inv = np.linalg.inv(C.T @ C)
    return np.column_stack([S_inv @ psi for psi in C])


def algorithm_5(vectors: Any, alpha: Any, z: Any) -> np.ndarray:
    r"""Algorithm 5 (reconstruction from an output :math:`z = C_\alpha x_0`), one output at a time.

    Printed lines: find :math:`J \subseteq I_{x_0}` with :math:`\Phi_J` a frame (here the positive
    coordinates :math:`J = \{i : z_i > 0\}`); :math:`z \leftarrow z + \alpha`;
    :math:`\zeta \leftarrow (z_i)_{i\in J}`; return :math:`\tilde D_J\zeta` (:func:`algorithm_4`).

    Checked against: ``rf.reconstruct(L, z)`` and the inputs themselves.

    Parameters
    ----------
    vectors : Frame or array_like, shape (m, n)
        The frame of the layer.
    alpha : float or array_like, shape (m,)
        The bias of the layer.
    z : array_like, shape (m,) or (N, m)
        One output (or several, rows) of the layer; non-negative.

    Returns
    -------
    ndarray, shape (n,) or (N, n)

    Raises
    ------
    NotInjectiveError
        If the positive coordinates of an output do not span (no left inverse can be read from it).

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> algorithm_5(L.frame, L.alpha, L([0.3, -0.2])).round(12).tolist()
    [0.3, -0.2]
    """
    F = _frame(vectors, "vectors")
    alpha = as_bias(alpha, F.m)
    Z = to_float_array(z, "z")
    single = Z.ndim == 1
    Z = Z[None, :] if single else Z
    if Z.ndim != 2 or Z.shape[1] != F.m:
        raise DimensionMismatchError(
            f"z must have shape ({F.m},) or (N, {F.m}) (one coordinate per frame element); got shape {np.shape(z)}."
        )
    if np.any(Z < 0):
        raise InputError(f"z must be an output of a ReLU layer (non-negative); got min {Z.min():.3g}.")
    out = np.empty((Z.shape[0], F.n))
    for r, zr in enumerate(Z):
        J = np.flatnonzero(zr > 0)  # J inside I_x0 with Phi_J a frame: the positive coordinates
        if not F.spans(J):
            raise NotInjectiveError(
                f"the positive coordinates of z must span R^{F.n} to reconstruct; got J = {J.tolist()[:20]} for output "
                f"{r}. The layer is not injective there, or the input lies on a hyperplane <x, phi_i> = alpha_i."
            )
        zeta = (zr + alpha)[J]  # unbias, restrict
        out[r] = algorithm_4(F, J) @ zeta
    return out[0] if single else out
