r"""Layer :math:`k` of a network on the true image of the layers before it: an exact MILP encoding.

The layer-by-layer check (:mod:`relu_frames_nb.network.check`) asks layer :math:`k` about a
box around the image :math:`S = F_{k-1}(K)` of the layers before it. The box can be far larger
than :math:`S` (a 3-dimensional surface inside an 8-dimensional box, say), and the layer may
fail on the box while it is injective on :math:`S`. Here :math:`S` itself is encoded: the
input :math:`x \in K` (the domain's linear description, or an outer polytope of a round
domain) and every earlier unit by the big-M formulation that MILP verifiers of ReLU networks
use (Tjeng, Xiao and Tedrake, *Evaluating robustness of neural networks with mixed integer
programming*, ICLR 2019): with valid bounds :math:`l \le p \le u` of a unit's pre-activation
:math:`p` and a binary :math:`\delta`,

.. math:: h \ge p,\quad h \ge 0,\quad h \le p - l(1 - \delta),\quad h \le u\,\delta,

which makes :math:`h = \max(p, 0)` exactly at every integral point; units whose bounds keep a
sign are affine (:math:`h = p` or :math:`h = 0`, no binary). The bounds are interval bounds
tightened layer by layer by the LP relaxation (two LPs per undecided unit, as time allows).

**What a certificate needs.** For *any* set :math:`S`, convex or not: if at every
:math:`z \in S` the rows that are *strictly* active span, the layer is injective on
:math:`S` — from :math:`\mathrm{ReLU}(Wz + b) = \mathrm{ReLU}(Ww + b)` and a strictly active
row :math:`i` at :math:`z` the outputs agree and are positive, so row :math:`i` is active at
:math:`w` with the same value and :math:`\langle w_i, z - w\rangle = 0`; spanning rows force
:math:`z = w`. (Only the coordinates that vary on :math:`S` matter: :math:`z - w` is 0 in the
others.) As in the single-layer engine, "more than :math:`h` rows active" proves spanning
(:math:`h` the most rows in one hyperplane, :mod:`relu_frames_nb.exact._hyperplanes`), and the
MILP's dual bound on the fewest rows with :math:`\langle w_i, z\rangle + b_i > \varepsilon`
over the encoded image is a lower bound that survives the solver's tolerances. A layer
certified here is injective on :math:`S`, so the network is injective on :math:`K` when the
layers before it are.

**Witnesses.** The same model with a margin (rows counted as soon as they are above
:math:`-\varepsilon`, every earlier unit at least :math:`\mu` away from its kink) gives a point
:math:`x \in K` where few rows of layer :math:`k` are active and the first :math:`k` layers are
affine around :math:`x`. If their Jacobian there is singular (always when fewer rows than the
input dimension are active), a step along its null space gives two points of :math:`K` with the
same output of layer :math:`k`: a real collision of the network, verified by the package's one
pair check — nothing is lifted.

**Across the pieces** (inputs of dimension at most 4, :mod:`relu_frames_nb.network.pieces`):
when counting falls short because the image is a low-dimensional surface in a bigger space,
the rows are pulled back to the input space and a two-copy MILP rules out (or finds) collisions
of far-apart inputs; that gives certificates counting cannot, and witnesses of folds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._util.budget import Budget, BudgetExhausted
from .._util.tolerances import DUAL_BOUND_SLACK, IMAGE_EPS, IMAGE_MARGIN, LOCAL_PAIR_SHRINKS, OUTPUT_MATCH_RTOL, ROW_ZERO_RTOL
from ..domains import Domain
from ..exact import hyperplane_info, solve_model
from ._encoding import _encode, _input_description, _Layer, _Model, _solve_lp, _widen, _widen_one
from .bounds import preactivation_bounds
from .pieces import MAX_DIM, PiecesResult, check_across_pieces

__all__ = ["ImageResult", "check_on_image", "image_bounds", "EPS", "MARGIN"]

#: the counting threshold of certificates, relative to the normalised problem (absorbs the solver's tolerances)
EPS = IMAGE_EPS
#: the margin of witness models: inactive rows below -MARGIN, earlier units at least MARGIN from their kink
MARGIN = IMAGE_MARGIN


@dataclass
class ImageResult:
    """What the encoding found for one layer.

    ``status`` is ``"injective"`` (certificate), ``"not injective"`` (``pair``: two points of
    ``K`` with the same output of the layer, verified) or ``"undetermined"``; ``lower`` and
    ``upper`` bound the fewest strictly active rows over the image (None when unknown), ``h``
    is the number they are compared with; ``point`` is the input where the fewest were seen.
    """

    status: str
    text: str
    lower: int | None = None
    upper: int | None = None
    h: int | None = None
    h_exact: bool = True
    pair: tuple[np.ndarray, np.ndarray] | None = None
    point: np.ndarray | None = None
    binaries: int = 0
    tightened: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    pieces: PiecesResult | None = None  # the check across the pieces of the image (low input dimension)


def image_bounds(weights: list[tuple[np.ndarray, np.ndarray]], k: int, K: Domain, *, budget: Budget,
                 tighten: bool = True) -> tuple[list[_Layer], Any, float, int]:  # fmt: skip
    r"""Valid bounds of every pre-activation of layers ``0..k-1`` (0-based) over ``K``, in the model's units.

    Layer 1 from the domain's support (exact on boxes, balls, hulls), later layers by interval
    arithmetic on the earlier bounds, then tightened by the LP relaxation of the encoding (one
    LP for each side of each unit that the interval bounds leave undecided), while time allows.
    LP values are widened by a relative 1e-7 before use, so a bound is valid beyond the LP's
    tolerance. Returns the layers, the input description, its scale and the number of LPs that
    tightened a bound.
    """
    W1 = np.asarray(weights[0][0], dtype=float)
    desc, s = _input_description(K, W1)
    layers: list[_Layer] = []
    prev_scale = np.full(K.n, s)
    prev_box = None
    n_tight = 0
    for j in range(k):
        W, b = (np.asarray(a, dtype=float) for a in weights[j])
        A, c = W * prev_scale[None, :], b.copy()
        if j == 0:
            lo, hi = preactivation_bounds(W, b, K)
        else:
            lo, hi = preactivation_bounds(A, c, prev_box)
        lo, hi = _widen(lo, hi)
        if tighten and j > 0:
            und = np.flatnonzero((lo < 0) & (hi > 0))
            if und.size:
                # the relaxation of layers < j, then min/max of each undecided unit of layer j
                M, last = _encode(desc, s, layers, relax=True)
                arrays = M.arrays()
                for i in und:
                    budget.check("bounds of the earlier layers (LP)")
                    left = min(budget.remaining(), 10.0)
                    obj = {int(v): float(a) for v, a in zip(last, A[i]) if a != 0}
                    low = _solve_lp(arrays, M.n_vars, obj, left)
                    if low is not None and low + c[i] > lo[i]:
                        lo[i] = _widen_one(low + c[i], -1)
                        n_tight += 1
                    high = _solve_lp(arrays, M.n_vars, {v: -a for v, a in obj.items()}, left)
                    if high is not None and -high + c[i] < hi[i]:
                        hi[i] = _widen_one(-high + c[i], +1)
                        n_tight += 1
        # scale every unit so that its upper bound is 1 (units never active keep scale 1)
        scale = np.where(hi > 0, hi, 1.0)
        layers.append(_Layer(A / scale[:, None], c / scale, lo / scale, hi / scale, scale))
        prev_scale = scale
        prev_box = (np.zeros_like(hi), np.where(hi > 0, 1.0, 0.0))
    return layers, desc, s, n_tight


# -- the check --------------------------------------------------------------------------------------


def _counting(M: _Model, z: np.ndarray, R: np.ndarray, beta: np.ndarray, Lq: np.ndarray, Uq: np.ndarray) -> tuple:
    """Binaries ``c_i`` with ``<r_i, z> - M_i c_i <= beta_i`` for the rows that can switch; forced rows counted."""
    forced = Lq > beta
    free = ~forced & (Uq > beta)
    F = np.flatnonzero(free)
    cvars = M.add_vars(np.zeros(F.size), np.ones(F.size), integer=True)
    for j, i in enumerate(F):
        M.add_row(np.r_[z, cvars[j]], np.r_[R[i], -(Uq[i] - beta[i])], -np.inf, beta[i])
    return forced, F, cvars


def check_on_image(weights: list[tuple[np.ndarray, np.ndarray]], k: int, K: Domain, *, budget: Budget,
                   local_pair: Callable[[np.ndarray], tuple | None] | None = None,
                   verify_pair: Callable[[np.ndarray, np.ndarray], bool] | None = None) -> ImageResult:  # fmt: skip
    r"""Whether layer ``k`` (0-based, ``k >= 1``) is injective on the image of layers ``0..k-1`` over ``K``.

    Parameters
    ----------
    weights : list of (W, b)
        The network's layers, PyTorch convention ``ReLU(W x + b)``.
    k : int
        The layer to check; layers before it are encoded exactly.
    K : Domain
        A bounded domain (polyhedral, or defined by the norm: then an outer polytope is encoded,
        which keeps certificates valid; witnesses must lie in ``K`` itself).
    budget : Budget
    local_pair : callable, optional
        ``local_pair(points)``: two points of ``K`` with the same output of layer ``k``, found from
        the given candidate inputs and verified, or None (the network check's local search).
    verify_pair : callable, optional
        ``verify_pair(x, y)``: whether two inputs really collide (the package's pair check); a
        candidate pair of the two-copy MILP (:mod:`.pieces`) is reported only when it says so.

    Returns
    -------
    ImageResult
        See the module docstring for what makes the certificate a proof.
    """
    t0 = time.perf_counter()
    if k < 1:
        raise ValueError("k must be at least 1: layer 1 is checked on K itself")
    if not K.bounded:
        raise ValueError(f"{K.describe()} is unbounded: the image of the layers before cannot be encoded")
    res = ImageResult("undetermined", "")
    try:
        return _check(weights, k, K, budget, local_pair, verify_pair, res, t0)
    except BudgetExhausted as exc:
        res.notes.append(f"time limit reached during {exc.stage}")
        res.text = res.text or _bounds_text(res) + " (time limit)"
        res.seconds = time.perf_counter() - t0
        return res


def _bounds_text(res: ImageResult) -> str:
    need = "" if res.h is None else f"; injective needs > h = {res.h}"
    if res.lower is None and res.upper is None:
        return "no bound on the fewest strictly active rows over the image" + need
    if res.lower is not None and res.lower == res.upper:
        return f"the fewest strictly active rows over the image is {res.lower} (exact: a point of the domain has that few)" + need
    lo = "?" if res.lower is None else str(res.lower)
    up = "?" if res.upper is None else str(res.upper)
    return f"the fewest strictly active rows over the image is between {lo} and {up}" + need


def _check(weights, k, K, budget, local_pair, verify_pair, res: ImageResult, t0: float) -> ImageResult:
    budget.check("image of the earlier layers: bounds")
    layers, desc, s, res.tightened = image_bounds(weights, k, K, budget=budget)
    W, b = (np.asarray(a, dtype=float) for a in weights[k])
    scale = layers[-1].scale
    live = layers[-1].hi > 0  # coordinates that vary on the image (the others are 0 everywhere)
    Wf = W[:, live] * scale[live][None, :]
    # rows that are (numerically) zero on the varying coordinates are constant on the image: no help in spanning
    norms = np.linalg.norm(Wf, axis=1)
    rows = np.flatnonzero(norms > ROW_ZERO_RTOL * float(np.max(norms, initial=0.0)))
    if live.sum() == 0 or rows.size == 0:
        res.status, res.text = "injective", "the image of the layers before is a single point"
        res.seconds = time.perf_counter() - t0
        return res
    U = Wf[rows] / np.linalg.norm(Wf[rows], axis=1)[:, None]
    rank = int(np.linalg.matrix_rank(U))
    info = None
    if rank < U.shape[1]:
        res.notes.append(f"the layer's rows span {rank} of the {U.shape[1]} coordinates that vary on the image: "
                         "no certificate by spanning")  # fmt: skip
    else:
        budget.check("image of the earlier layers: hyperplanes")
        info = hyperplane_info(U, budget=budget)
        res.h, res.h_exact = info.h, info.exact
    # the counted rows in the model's units: R z' + beta0, each row of unit norm
    A = W[rows] * scale[None, :]
    A[:, ~live] = 0.0
    norms = np.linalg.norm(A, axis=1)
    R, c0 = A / norms[:, None], b[rows] / norms
    prev_box = (np.zeros(live.size), np.where(live, 1.0, 0.0))
    Lq, Uq = preactivation_bounds(R, c0, prev_box)
    Lq, Uq = _widen(Lq, Uq)
    can = Uq > 0  # rows never active on the image are never counted; the scale comes from the others
    eps = EPS * max(1.0, float(np.max(np.abs(np.r_[Lq[can], Uq[can]]), initial=0.0)))
    # 1. certificate: the fewest rows above eps over the encoded image (also the count the pieces need)
    pieces = K.n <= MAX_DIM
    if (info is not None and info.usable) or pieces:
        budget.check("image of the earlier layers: MILP")
        M, z = _encode(desc, s, layers, relax=False)
        beta = eps - c0
        forced, F, cvars = _counting(M, z, R, beta, Lq - c0, Uq - c0)
        res.binaries = len(M.integer)
        cons, bounds, integrality = M.arrays()
        obj = np.zeros(M.n_vars)
        obj[cvars] = 1.0
        sol = solve_model(obj, integrality, bounds, cons, time_limit=max(0.5 * budget.remaining(), 0.05),
                          binaries=res.binaries)  # fmt: skip
        n_forced = int(forced.sum())
        if sol is not None and sol.status == 2:
            # the image of a non-empty domain is not empty: "infeasible" is the solver's numerics, never a proof
            res.notes.append("the solver found the encoded image empty (numerical trouble): no bound taken from it")
        elif sol is not None and sol.status in (0, 1) and sol.mip_dual_bound is not None and np.isfinite(sol.mip_dual_bound):
            res.lower = n_forced + int(np.ceil(float(sol.mip_dual_bound) - DUAL_BOUND_SLACK))
        if sol is not None and sol.x is not None:
            x = np.asarray(sol.x[: desc.n]) * s
            res.point = x
            if K.contains_certified(x):
                res.upper = _active_count(weights, k, x, rows)
        if res.lower is not None and info is not None and info.usable and res.lower > info.h:
            res.status = "injective"
            res.text = (f"every point of the image keeps ≥ {res.lower} > h = {info.h} of the layer's rows strictly active "
                        "(MILP dual bound over the exact encoding of the layers before)")  # fmt: skip
            if not info.exact:
                res.text += "; h assumed (general position, checked)"
            res.seconds = time.perf_counter() - t0
            return res
    if info is not None and not info.usable:
        res.notes.append("h is only a lower estimate, so no certificate by counting: " + info.method)
    # 2. witness: few rows above -margin, the earlier units away from their kinks
    if local_pair is not None:
        budget.check("image of the earlier layers: witness MILP")
        M, z = _encode(desc, s, layers, relax=False, margin=MARGIN)
        beta = -MARGIN - c0
        forced, F, cvars = _counting(M, z, R, beta, Lq - c0, Uq - c0)
        cons, bounds, integrality = M.arrays()
        obj = np.zeros(M.n_vars)
        obj[cvars] = 1.0
        left = 0.3 * budget.remaining() if pieces and res.lower is not None else budget.remaining() - 0.5
        sol = solve_model(obj, integrality, bounds, cons, time_limit=max(left, 0.05), binaries=len(M.integer))
        points = []
        if sol is not None and sol.x is not None:
            x = np.asarray(sol.x[: desc.n]) * s
            points.append(x)
            if K.contains_certified(x):
                count = _active_count(weights, k, x, rows)
                if res.upper is None or count < res.upper:
                    res.upper, res.point = count, x
        if res.point is not None:
            points.append(res.point)
        if points:
            budget.check("image of the earlier layers: local pair")
            # the solver's points sit on the boundary of K: also try them pulled a little towards its interior
            c = np.asarray(K.interior_point(), dtype=float)
            P = np.array(points)
            pair = local_pair(np.concatenate([c + (1.0 - t) * (P - c) for t in LOCAL_PAIR_SHRINKS]))
            if pair is not None:
                res.status, res.pair = "not injective", pair
                res.text = ("a point of the domain where the first layers are affine and too few of this layer's rows are "
                            "active: near it the network is linear and misses a direction, and a step along that "
                            "direction gives two points with the same output (verified)")  # fmt: skip
                res.seconds = time.perf_counter() - t0
                return res
    # 3. low input dimension: the same question in the input space, across the pieces of the image
    if pieces and res.lower is not None:
        budget.check("the image across its pieces")
        across = check_across_pieces(layers, desc, s, R, c0, Lq, Uq, res.lower, K, budget=budget)
        res.pieces = across
        if across.status == "injective":
            res.status, res.text = "injective", across.text
            res.seconds = time.perf_counter() - t0
            return res
        if across.pair is not None and _same_image(weights, k, *across.pair):
            across.text += "; there the layers before already give the same point (their collision, not this layer's)"
        elif across.pair is not None and verify_pair is not None and verify_pair(*across.pair):
            res.status, res.pair, res.text = "not injective", across.pair, across.text + " (verified)"
            res.seconds = time.perf_counter() - t0
            return res
        elif across.pair is not None:
            across.text += ", but the pair did not pass the pair check: not reported"
    res.text = _bounds_text(res) + " (exact encoding of the layers before)"
    if res.pieces is not None:
        res.text += "; across the pieces: " + res.pieces.text
    if budget.expired():
        res.notes.append("time limit reached during the MILP over the image")
        res.text += " (time limit)"
    if info is None:
        res.text = res.notes[0] + "; no witness found"
        if res.pieces is not None:
            res.text += "; across the pieces: " + res.pieces.text
    res.seconds = time.perf_counter() - t0
    return res


def _image(weights, k, x) -> np.ndarray:
    """The output of the layers before ``k`` at ``x`` (raw weights, PyTorch's convention)."""
    h = np.asarray(x, dtype=float)
    for W, b in weights[:k]:
        h = np.maximum(np.asarray(W) @ h + np.asarray(b), 0.0)
    return h


def _same_image(weights, k, x, y) -> bool:
    """Whether the layers before ``k`` map ``x`` and ``y`` to the same point (to rounding)."""
    a, b = _image(weights, k, x), _image(weights, k, y)
    return bool(np.max(np.abs(a - b), initial=0.0) <= OUTPUT_MATCH_RTOL * max(1.0, float(np.max(np.abs(a), initial=0.0))))


def _active_count(weights, k, x, rows) -> int:
    """Rows (of ``rows``) of layer ``k`` strictly active at the image of ``x`` (in the user's coordinates)."""
    W, b = weights[k]
    return int(np.sum((np.asarray(W)[rows] @ _image(weights, k, x) + np.asarray(b)[rows]) > 0))
