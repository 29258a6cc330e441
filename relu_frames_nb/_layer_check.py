r"""The check of one layer ``ReLU(W x - alpha)`` on a domain ``K``: two ordered lists of stages.

The problem is brought to its normal form once (:class:`~relu_frames_nb.pipeline.Problem`); every
tolerance is relative to it (:class:`~relu_frames_nb.pipeline.Tolerances`). Then, within one
budget (:class:`~relu_frames_nb.pipeline.Context`), the stages of :data:`STAGES` run in order until
one decides (:func:`~relu_frames_nb.pipeline.run_stages`):

* on a finite data set, :class:`FiniteSet` answers exactly (two points share an output or none do);
* the **fast stages** (:data:`FAST_STAGES`, ``method="fast"``; half of the time under ``"auto"``),
  the paper's own tests: the polytope bias (Thm "PBE" + "Injectivity I"), the rectifying test at
  points of ``K`` with a collision search at the failing ones, and at zero or negative bias the
  exact Tukey-depth test on R^n;
* the **exact stages** (:data:`EXACT_STAGES`, ``method="exact"``; the rest of the time under
  ``"auto"``): the exact engine (:mod:`relu_frames_nb.exact`), whose own searches are listed in
  :data:`relu_frames_nb.exact.engine.ENGINE_STAGES`.

One assembler (:func:`_assemble`) turns the evidence into a complete :class:`Verdict`. Before it
does, a pair is mapped back to the caller's coordinates (exactly) and checked there again (the one
pair check and certain membership in ``K``), and a certificate is confronted with sample points of
``K`` in the caller's coordinates (every point must be rectifying); a failure of either makes the
verdict "undetermined" and says why.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._util.budget import Budget, BudgetExhausted
from ._util.format import fmt, vec
from ._util.lp import null_space
from ._util.pairs import collides
from ._util.validation import as_seed_sequence
from .domains import Domain
from .domains.base import robust_norms
from .errors import InputError, NotAFrameError, ReluFramesError
from .exact import ExactResult, solve_exact
from .frames import Frame
from .layer import ReLULayer
from .paper.bias import verify_polytope_bias
from .paper.bias.estimate import BiasEstimate
from .paper.bias.polytope import polytope_bias
from .paper.rectifying import find_collision, is_rectifying
from .paper.zero_bias import zero_bias_injective
from .pipeline import DEFAULT_TOLERANCES, Context, Evidence, Problem, Stage, Tolerances, run_stages
from .pipeline.tolerances import DIVISOR_FLOOR
from .verdict import Certificate, Status, Verdict

__all__ = ["check_weights", "METHODS", "STAGES", "FAST_STAGES", "EXACT_STAGES", "dead_inputs"]

#: the methods of the check: which list of stages runs
METHODS = ("auto", "fast", "exact")
#: points of K at which a certificate is checked for consistency, in the caller's coordinates
N_CONSISTENCY = 64
#: with ``near=x0``: this many points around x0 join x0 at the head of the rectifying test's points
N_NEAR = 32
#: the points around x0 are x0 + t (s - x0) for samples s of K and t uniform in (0, NEAR_STEP]: a short way towards K's
#: points, inside K when K is convex (others are dropped)
NEAR_STEP = 0.05


# ---------------------------------------------------------------------------------
# the stages
# ---------------------------------------------------------------------------------


def _as_layer(P: Problem) -> ReLULayer | None:
    """The layer in normal form, or None when its rows are not a frame (zero rows removed, no span)."""
    if "layer" not in P.derived:  # built once per problem: a frame's rank test is an SVD of the weights
        N = P.normal
        try:
            P.derived["layer"] = ReLULayer(Frame(N.W), N.alpha) if N.W.shape[0] else None
        except NotAFrameError:
            P.derived["layer"] = None
    return P.derived["layer"]


class FiniteSet(Stage):
    name = "finite set"
    summary = "compare the outputs of the data points (exact: two points share an output or none do)"

    def applies(self, problem: Problem, ctx: Context) -> bool:
        return bool(problem.K.finite)

    def run(self, problem: Problem, ctx: Context) -> Evidence:
        N = problem.normal
        return _from_exact(solve_exact(N.W, N.alpha, N.K, budget=ctx.budget, rng=ctx.generator()), ctx.tol)


class PolytopeBias(Stage):
    name = "polytope bias"
    summary = ("alpha below the polytope bias (Thm PBE) proves injectivity (Thm Injectivity I); a float margin counts "
               "only beyond the rounding bound, a bias inside it is compared in exact rational arithmetic")  # fmt: skip
    proves = "injective"
    share = 0.2  # on a box in R^12 the facets take seconds where the exact stage decides in a fraction of one
    #: at most this many seconds for the exact comparison (small frames: well under a second below the bound)
    exact_seconds = 5.0

    def __init__(self, polytope: Any = None, max_facets: int = 200_000) -> None:
        self.polytope, self.max_facets = polytope, max_facets

    def applies(self, problem: Problem, ctx: Context) -> bool:
        return _as_layer(problem) is not None and (problem.K.bounded or self.polytope is not None)

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        layer, N, found = _as_layer(problem), problem.normal, ctx.findings
        values = _normal_polytope(self.polytope, N)
        estimate = None
        if values is None:
            try:
                estimate = polytope_bias(layer.frame, N.K, max_facets=self.max_facets, ctx=ctx)
                values = estimate.values
            except ReluFramesError as exc:
                found.scratch["polytope"] = exc
                return None
        elif isinstance(values, Exception):
            found.scratch["polytope"] = values
            return None
        found.scratch["polytope"] = estimate if estimate is not None else values
        alpha = layer.alpha
        gap = values - alpha
        normal_margin = float(np.min(gap))
        with np.errstate(over="ignore"):
            margin = float(np.min(gap / (N.row_scale * N.s)))
        found.scratch["margin"] = margin
        band = ctx.tol.bias_proof_margin * max(1.0, float(np.max(np.abs(alpha))))
        where = problem.where
        if normal_margin > band:  # clear of the rounding of the polytope bias: alpha < bound, strictly
            reason = "α < polytope bias"
            used = ctx.tol.used("bias_proof_margin")
        elif normal_margin >= -band:  # within the rounding: only an exact comparison proves
            convex = bool(N.K.open_or_convex)
            facets = getattr(estimate.info.get("polytope"), "facets", None) if estimate is not None else None
            proof = verify_polytope_bias(layer.weights, alpha, N.K, facets=facets, strict=not convex,
                                         time_limit=min(self.exact_seconds, ctx.remaining()))  # fmt: skip
            if proof is None:
                ctx.findings.notes.append(
                    f"the bias lies within {band:.0e} (relative) of the polytope bias: floating point cannot tell "
                    "which side, and no exact comparison was possible, so the polytope bias proves nothing here")  # fmt: skip
                return None
            reason = ("α ≤ polytope bias on a convex domain" if convex else "α < polytope bias") + (
                ", compared in exact rational arithmetic")
            used = {}  # no tolerance: the comparison is exact
            ctx.findings.details["polytope_bias_exact"] = proof
        else:
            return None
        cert = Certificate("polytope bias", f"{reason}: every point of {where} keeps a spanning set of frame vectors active",
                           domain=where, margin=margin, tolerances=used)  # fmt: skip
        return Evidence(Status.INJECTIVE, self.name, f"proof: {reason} (Thm PBE + Injectivity I); margin {fmt(margin)}",
                        certificate=cert)  # fmt: skip


def near_points(x0: np.ndarray, K: Domain, seed: Any) -> np.ndarray:
    """``x0`` and up to :data:`N_NEAR` points of ``K`` around it (a short way from ``x0`` towards samples of ``K``)."""
    rng = np.random.default_rng(as_seed_sequence(seed, (7,)))
    S = K.sample(N_NEAR, seed=rng)
    P = x0 + rng.uniform(0.0, NEAR_STEP, (S.shape[0], 1)) * (S - x0)
    if not K.open_or_convex and P.shape[0]:  # a convex K holds them (x0 is in K); a pair is proved in K anyway
        P = P[K.contains(P)]
    return np.vstack([x0[None, :], P])


class Rectifying(Stage):
    name = "rectifying test"
    summary = ("at sample points of K, whether the active rows span (the paper's rectifying property), in chunks that fit "
               "the memory budget")  # fmt: skip
    proves = "nothing alone (it finds the points for the collision search)"

    def __init__(self, n_samples: int = 4000, points: Any = None, near: Any = None) -> None:
        self.n_samples, self.points, self.near = n_samples, points, near

    def applies(self, problem: Problem, ctx: Context) -> bool:
        return _as_layer(problem) is not None

    def run(self, problem: Problem, ctx: Context) -> None:
        layer, N, budget = _as_layer(problem), problem.normal, ctx.budget
        # the samples come in blocks that fit a quarter of the memory (all at once, the same points, when they fit;
        # 10^9 samples of a disc asked for 24 GB), and each block is tested in steps under the deadline
        if self.points is None:
            blocks = N.K.sample_blocks(self.n_samples, seed=ctx.seed, block=budget.rows(32 * layer.n, fraction=0.25))
        else:
            blocks = iter([N.to_normal(np.asarray(self.points, dtype=float))])
        if self.near is not None:  # x0 and points around it first: the collision search starts there
            near = near_points(N.to_normal(np.asarray(self.near, dtype=float)), N.K, ctx.seed)
            ok = is_rectifying(layer, near, progress=False, budget=budget)
            ctx.findings.scratch["near_failing"] = near[~ok]
        step = max(1, budget.rows(24 * layer.m, fraction=0.05))
        keep = budget.rows(8 * layer.n, fraction=0.05)  # failing points kept for the collision search
        bad_parts, kept, n_bad, done = [], 0, 0, 0
        for X in blocks:
            for s0 in range(0, X.shape[0], step):
                budget.check(self.name)
                block = X[s0 : s0 + step]
                ok = is_rectifying(layer, block, progress=False, budget=budget) if block.shape[0] else np.zeros(0, dtype=bool)
                bad = block[~ok][: max(0, keep - kept)]
                bad_parts.append(bad)
                kept += bad.shape[0]
                n_bad += int(np.count_nonzero(~ok))
                done += block.shape[0]
        bad = np.vstack(bad_parts) if bad_parts else np.zeros((0, layer.n))
        ctx.findings.scratch["failing"] = bad
        ctx.findings.details.update(points_checked=done, points_failing=n_bad)
        return None


class Collision(Stage):
    name = "collision search"
    summary = "two points with the same output (verified), built at the sample points where the active rows do not span"
    proves = "not injective"
    share = 0.5

    def __init__(self, max_candidates: int = 400) -> None:
        self.max_candidates = max_candidates

    def applies(self, problem: Problem, ctx: Context) -> bool:
        scratch = ctx.findings.scratch
        return len(scratch.get("failing", ())) > 0 or len(scratch.get("near_failing", ())) > 0

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        layer, found = _as_layer(problem), ctx.findings
        coll = None
        near = found.scratch.get("near_failing", ())
        if len(near):  # near=: first at x0 and the points around it (a pair found elsewhere would not be near)
            coll = find_collision(layer, problem.normal.K, points=near, ctx=ctx)
        bad = found.scratch.get("failing", np.zeros((0, layer.n)))
        k = bad.shape[0]
        if (coll is None or not coll.found) and k:
            pick = bad if k <= self.max_candidates else bad[ctx.generator().choice(k, self.max_candidates, replace=False)]
            coll = find_collision(layer, problem.normal.K, points=pick, ctx=ctx)
        if coll is None or not coll.found:
            return None
        margin = found.scratch.get("margin", float("nan"))
        extra = f"; exceeds the polytope bias by {fmt(-margin)}" if np.isfinite(margin) else ""
        failing, checked = found.details.get("points_failing", k), found.details.get("points_checked", k)
        reason = (f"two points with the same output, verified ({coll.method}); at {failing} of {checked} points checked "
                  f"the active rows do not span{extra}")  # fmt: skip
        return Evidence(Status.NOT_INJECTIVE, "collision", reason, pair=(coll.x, coll.y))


class InteriorPoint(Stage):
    """A pair at K's interior point, where the rows that are not clearly off do not span K's directions.

    At the interior point ``c`` (a data set's mean, a box's or ball's centre) let ``A`` be the rows with
    ``<w_i, c> - alpha_i`` not clearly below 0 (active, or within the switching tolerance of 0). When their
    rank on K's affine span is below its dimension, a direction ``v`` of the span has ``W_A v = 0``: along it
    the rows of ``A`` keep their values, and the other rows stay off while ``t |<w_i, v>|`` is below their gap.
    So ``c + t v`` and ``c - t v`` have the same output for such ``t``, and both lie in K for ``t`` small enough:
    on a data set's hull, ``t`` keeps a weight of at least ``1/(2N)`` on every data point (the least-norm weights of
    ``v``, one least-squares solve), on other domains ``t |v|`` stays below half of the distance to the boundary
    (:meth:`~relu_frames_nb.domains.Domain.margin`); ``t`` is then halved until both points are proved in K.
    The pair is checked in the caller's coordinates (the one pair check, certain membership) before it counts.
    Weights that miss a direction everywhere are left to the exact stage (its "null space" pair).
    """

    name = "interior point"
    summary = ("at K's interior point (a data set's mean, a box's or ball's centre): when the rows active there do not "
               "span K's directions, the two points on either side along a direction they do not see have the same "
               "output (two SVDs, and a least-squares solve on a data set's hull)")  # fmt: skip
    proves = "not injective"

    def applies(self, problem: Problem, ctx: Context) -> bool:
        K = problem.normal.K
        return (not K.finite and bool(K.open_or_convex) and bool(K.bounded)
                and problem.normal.W.shape[0] > 0)  # fmt: skip

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        N = problem.normal
        found = _interior_direction(N.W, N.alpha, N.K, ctx)
        if found is None:
            return None
        c, v, t, n_active, rank, d = found
        for _ in range(INTERIOR_HALVINGS):
            ctx.check(self.name)
            x, y = problem.to_user(c + t * v), problem.to_user(c - t * v)
            if not collides(problem.W, problem.alpha, x, y):
                return None  # the rows of A moved after all (a rank decided within rounding): no pair here
            if problem.K.contains_certified(x) and problem.K.contains_certified(y):
                ctx.findings.details["interior_point"] = {"n_active": n_active, "rank": rank, "dim": d}
                where = "the data's mean" if N.K.data_points is not None else "its centre"
                reason = (f"at the interior point of the domain ({where}), the {n_active} rows active there have rank "
                          f"{rank} < {d}, the dimension of the domain: along a direction that these rows do not see, "
                          f"x = {vec(x, limit=6)} and y = {vec(y, limit=6)} (|x − y| = "
                          f"{float(np.linalg.norm(x - y)):.2g}) have the same output")  # fmt: skip
                return Evidence(Status.NOT_INJECTIVE, self.name, reason, pair=(c + t * v, c - t * v))
            t *= 0.5
        return None


#: at most this many halvings of the step of :class:`InteriorPoint` until both points are proved in K
INTERIOR_HALVINGS = 30


def _interior_direction(W: np.ndarray, alpha: np.ndarray, K: Domain, ctx: Context) -> tuple | None:
    """``(c, v, t, n_active, rank, d)`` for :class:`InteriorPoint` (normal form), or None when the rows span there."""
    coords, Kr = K.in_affine_coordinates()
    d = coords.d
    if Kr is None or d == 0:
        return None
    c_r = np.asarray(Kr.interior_point(), dtype=float)  # in K's own coordinates, where K is full-dimensional
    c = coords.point(c_r)
    with np.errstate(over="ignore", invalid="ignore"):
        pre = W @ c - alpha
    if not np.all(np.isfinite(pre)):
        return None
    scale = np.abs(W) @ np.abs(c) + np.abs(alpha)
    on = pre >= -ctx.tol.switch_rtol * scale  # active, or too close to its threshold to count as off: kept still
    Wr = coords.rows(W)
    norms = robust_norms(Wr)
    seen = norms > 0  # rows constant on K see no direction of it
    Ur = Wr[seen] / norms[seen, None]
    rank = _rank(Ur[on[seen]], ctx.tol.rank_rtol)
    if rank >= d or _rank(Ur, ctx.tol.rank_rtol) < d:  # spans here; or misses a direction everywhere (the exact stage)
        return None
    ctx.check("interior point")
    u = null_space(Ur[on[seen]], d, rtol=ctx.tol.rank_rtol, limit=1)
    if u.shape[1] == 0:
        return None
    u = u[:, 0]
    v = coords.direction(u)
    Z = Kr.data_points
    if Z is not None:  # a data set's hull: c +- t v keep a weight >= 1/(2N) on every point for t <= t_max
        t = _hull_reach(Z, u, ctx)
    else:
        rho = Kr.margin(c_r)
        t = 0.5 * (rho if rho is not None and rho > 0 else float(Kr.radius)) / max(float(np.linalg.norm(u)), DIVISOR_FLOOR)
    speed = np.abs(W[~on] @ v)
    if speed.size:
        with np.errstate(divide="ignore"):
            t = min(t, 0.5 * float(np.min(np.where(speed > 0, -pre[~on] / np.maximum(speed, DIVISOR_FLOOR), np.inf))))
    if not (np.isfinite(t) and t > 0):
        return None
    return c, v, t, int(on.sum()), rank, d


def _hull_reach(Z: np.ndarray, u: np.ndarray, ctx: Context) -> float:
    """How far the centroid of the points ``Z`` (rows, full-dimensional) may move along ``±u`` keeping weights >= 1/(2N).

    The centroid is ``Z`` with weights ``1/N``; ``u = D^T delta`` with ``D = Z - mean`` and the least-norm ``delta``
    (whose entries sum to 0: ``delta`` lies in the span of ``D``'s columns, which are orthogonal to the ones), so
    ``centroid + t u`` has the weights ``1/N + t delta``. (Points far beyond the memory allowance: the radius.)
    """
    N, d = Z.shape
    if ctx.budget.rows(8.0 * 2 * d, fraction=0.25, maximum=N) < N:
        return 0.5 * float(np.max(np.linalg.norm(Z, axis=1))) / max(float(np.linalg.norm(u)), DIVISOR_FLOOR)
    D = Z - Z.mean(axis=0)
    delta = np.linalg.lstsq(D.T, u, rcond=None)[0]
    top = float(np.max(np.abs(delta)))
    return 0.5 / (N * top) if top > 0 else float("inf")


def _rank(rows: np.ndarray, rtol: float) -> int:
    if rows.shape[0] == 0:
        return 0
    s = np.linalg.svd(rows, compute_uv=False)
    return int(np.sum(s > rtol * max(float(s[0]), DIVISOR_FLOOR)))


class TukeyDepth(Stage):
    name = "Tukey depth"
    summary = "at zero or negative bias: the Tukey depth of the origin among the frame vectors >= n proves injectivity on R^n"
    proves = "injective"
    share = 0.5

    def applies(self, problem: Problem, ctx: Context) -> bool:
        layer = _as_layer(problem)
        return layer is not None and bool(np.all(layer.alpha <= 0))

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        layer, K = _as_layer(problem), problem.K
        try:
            depth = zero_bias_injective(layer.frame, ctx=ctx)
        except ReluFramesError as exc:
            ctx.findings.notes.append(f"Tukey depth: {exc}")
            return None
        if not depth.injective:
            return None
        sub = "" if K.whole_space else f", hence on its subset {problem.where}"
        cert = Certificate("Tukey depth", f"the Tukey depth of the origin among the frame vectors is {depth.depth} ≥ n = "
                           f"{K.n}, so every point of R^n keeps a spanning set active at zero bias, and at every threshold α ≤ 0",
                           domain=f"R^{K.n}")  # fmt: skip
        reason = (f"proof: at zero bias the active rows span at every point of R^{K.n} (the Tukey depth of 0 among the "
                  f"rows is {depth.depth} ≥ n), and a threshold α ≤ 0 in ReLU(Φx − α) only adds active rows{sub}")  # fmt: skip
        return Evidence(Status.INJECTIVE, self.name, reason, certificate=cert)


class Exact(Stage):
    name = "exact"
    summary = ("the exact engine: a certificate (removal sets, depth, MILP dual bound, hyperplane LPs) or a verified "
               "colliding pair (its searches: relu_frames_nb.exact.engine.ENGINE_STAGES)")  # fmt: skip

    def applies(self, problem: Problem, ctx: Context) -> bool:
        return not problem.K.finite

    def run(self, problem: Problem, ctx: Context) -> Evidence:
        N = problem.normal
        return _from_exact(solve_exact(N.W, N.alpha, N.K, budget=ctx.budget, rng=ctx.generator(),
                                       eps=ctx.tol.certificate_eps, boundary_tol=ctx.tol.boundary_tol), ctx.tol)  # fmt: skip


class Group(Stage):
    """Stages run as one, within one share of the time."""

    def __init__(self, name: str, stages: tuple, share: float, summary: str) -> None:
        self.name, self.stages, self.share, self.summary = name, stages, share, summary

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        return run_stages(self.stages, problem, ctx)


def fast_stages(*, n_samples: int = 4000, points: Any = None, polytope: Any = None, max_facets: int = 200_000,
                max_candidates: int = 400, near: Any = None) -> tuple[Stage, ...]:  # fmt: skip
    """The paper's tests, in order (the check's options set their sizes; ``near``: where the collision search starts)."""
    return (PolytopeBias(polytope, max_facets), Rectifying(n_samples, points, near), Collision(max_candidates), InteriorPoint(),
            TukeyDepth())  # fmt: skip


def _stages(method: str, **options: Any) -> tuple[Stage, ...]:
    """The list ``method`` runs (``options`` set the fast stages' sizes); a finite data set is answered first."""
    fast = fast_stages(**options)
    if method == "fast":
        return (FiniteSet(), *fast)
    if method == "exact":
        return (FiniteSet(), InteriorPoint(), *EXACT_STAGES)
    # the interior point after the fast tests, with the exact stage's time: the rectifying test may use up their share
    fast = tuple(st for st in fast if not isinstance(st, InteriorPoint))
    return (FiniteSet(), Group("fast tests", fast, 0.5, "the fast stages but the interior point, within half of the time"),
            InteriorPoint(), *EXACT_STAGES)  # fmt: skip


#: the paper's tests (``method="fast"``)
FAST_STAGES = fast_stages()
#: the exact stage (``method="exact"``)
EXACT_STAGES = (Exact(),)
#: the list each method runs, with the default sizes
STAGES = {method: _stages(method) for method in METHODS}


# ---------------------------------------------------------------------------------
# the check
# ---------------------------------------------------------------------------------


def check_weights(
    W: np.ndarray,
    alpha: np.ndarray,
    K: Domain,
    *,
    method: str,
    budget: Budget | None = None,
    ctx: Context | None = None,
    seed: Any = 0,
    input_set: str = "K",
    **options: Any,
) -> Verdict:
    """The verdict for ``ReLU(W x - alpha)`` (paper convention, the caller's coordinates) on ``K``.

    ``W`` need not be a frame (zero rows, rank deficiency): the fast stages then step aside and
    the exact stage decides. ``options`` set the fast stages' sizes (``n_samples``, ``points``,
    ``polytope``, ``max_facets``, ``max_candidates``, ``near``; see :func:`fast_stages`).
    """
    t0 = time.perf_counter()
    if ctx is None:
        if budget is None:
            raise TypeError("check_weights needs a budget or a context")
        ctx = Context(budget, seed)
    problem = Problem.build(W, alpha, K, input_set=input_set)
    ev: Evidence | None = None
    try:
        ev = run_stages(_stages(method, **options), problem, ctx)
    except BudgetExhausted as exc:
        ctx.findings.notes.append(f"time limit reached during {exc.stage or 'the check'}")
    ev = _confirm(ev, problem, ctx)
    return _assemble(problem, ev, ctx, t0)


def _from_exact(ex: ExactResult, tol: Tolerances) -> Evidence:
    bounds = (ex.lower_bound, ex.upper_bound) if (ex.lower_bound is not None or ex.upper_bound is not None) else None
    if ex.method == "finite set":
        method = "finite set"
    else:
        method = f"exact ({ex.method})" if ex.method else "exact"
    cert = _exact_certificate(ex, tol) if ex.status == Status.INJECTIVE else None
    return Evidence(ex.status, method if ex.decided else "", ex.text, certificate=cert, pair=ex.pair, bounds=bounds,
                    data=ex, notes=tuple(ex.notes))  # fmt: skip


def _exact_certificate(ex: ExactResult, tol: Tolerances) -> Certificate:
    kinds = {"milp": "MILP dual bound", "hyperplanes": "hyperplane LPs", "zero bias": "MILP dual bound (zero bias)",
             "depth": "half-space depth (branch and bound)", "finite set": "finite set",
             "removal sets": "removal sets on the domain (branch and bound)", "single point": "single point",
             "always active rows": "rows active at every point of K"}  # fmt: skip
    statement = ex.text.split("proof: ", 1)[1] if "proof: " in ex.text else ex.text.split(" — ", 1)[-1]
    # these searches prove the bias as given (every bound verified with rounding bounds, or exactly)
    as_given = ("finite set", "single point", "removal sets", "always active rows")
    tolerances = {} if ex.method in as_given else tol.used("certificate_eps")
    return Certificate(kinds.get(ex.method, ex.method), statement, domain="", lower_bound=ex.lower_bound,
                       h=ex.h if ex.method not in as_given or ex.method == "removal sets" else None, h_method=ex.h_method,
                       tolerances=tolerances)  # fmt: skip


# ---------------------------------------------------------------------------------
# the last word: checks in the caller's own coordinates
# ---------------------------------------------------------------------------------


def _demoted(ev: Evidence, why: str) -> Evidence:
    return Evidence(Status.UNDETERMINED, "", why, bounds=ev.bounds, data=ev.data, notes=(*ev.notes, why))


def _confirm(ev: Evidence | None, problem: Problem, ctx: Context) -> Evidence | None:
    if ev is None:
        return None
    W, alpha, K = problem.W, problem.alpha, problem.K
    if ev.pair is not None:
        x, y = (problem.to_user(p) for p in ev.pair)
        if not (collides(W, alpha, x, y) and K.contains_certified(x) and K.contains_certified(y)):
            return _demoted(ev, "a colliding pair was found in the normal form but did not pass the check in the original "
                                "coordinates (equal outputs, both points certainly in K)")  # fmt: skip
        return Evidence(ev.status, ev.method, ev.reason, ev.certificate, (x, y), ev.bounds, ev.data, ev.notes)
    if ev.status == Status.INJECTIVE and ev.certificate is not None and ev.certificate.kind not in ("finite set", "single point"):
        bad = _inconsistent_point(W, alpha, K, ctx)
        if bad is not None:
            return _demoted(ev, f"internal inconsistency: the certificate ({ev.certificate.kind}) fails at the point "
                                f"{vec(bad, limit=6)} of K, where the active rows do not span; please report it")  # fmt: skip
    return ev


def _inconsistent_point(W: np.ndarray, alpha: np.ndarray, K: Domain, ctx: Context) -> np.ndarray | None:
    """A sample point of ``K`` (caller's coordinates) that is clearly not rectifying, or None.

    Only points whose active set is decided with a margin count: a certificate claims that no such point exists.
    """
    coords, Kr = K.in_affine_coordinates()
    if Kr is None or K.finite:
        return None
    X = np.vstack([K.sample(N_CONSISTENCY, seed=ctx.seed), K.interior_point()[None, :]])
    Wr = coords.rows(W)
    norms = robust_norms(Wr) if Wr.shape[1] else np.zeros(Wr.shape[0])
    Wr = Wr / np.where(norms > 0, norms, 1.0)[:, None]  # unit rows: no underflow in the rank test
    for x in X:
        with np.errstate(over="ignore", invalid="ignore"):
            pre = W @ x - alpha
        if not np.all(np.isfinite(pre)):
            continue
        scale = np.abs(W) @ np.abs(x) + np.abs(alpha)
        if np.any(np.abs(pre) <= ctx.tol.switch_rtol * scale):  # too close to a switching hyperplane to judge
            continue
        rows = Wr[(pre >= 0) & (norms > 0)]
        if rows.shape[0] < coords.d:
            return x
        s = np.linalg.svd(rows, compute_uv=False)
        if s[-1] <= 1e3 * ctx.tol.rank_rtol * s[0]:
            return x
    return None


# ---------------------------------------------------------------------------------
# one verdict from the evidence
# ---------------------------------------------------------------------------------


def _assemble(problem: Problem, ev: Evidence | None, ctx: Context, t0: float) -> Verdict:
    """The complete verdict (built once, never changed afterwards)."""
    N, found, where = problem.normal, ctx.findings, problem.where
    notes = [*N.notes, *found.notes]
    details: dict = {"normal form": N.describe()}
    if N.W.shape[0] < problem.n or _as_layer(problem) is None:
        details["weights_rank"] = int(np.linalg.matrix_rank(N.W)) if N.W.size else 0
    fast_ran = "rectifying test" in found.stages or "polytope bias" in found.stages
    details.update({k: v for k, v in found.details.items() if k in ("points_checked", "points_failing", "interior_point")})
    margin = found.scratch.get("margin", float("nan"))
    if np.isfinite(margin):
        details["polytope_margin"] = margin
    poly = found.scratch.get("polytope")
    if isinstance(poly, Exception):
        details["polytope_bias"] = f"not available: {poly}"
    elif poly is not None:
        values = poly.values if isinstance(poly, BiasEstimate) else poly
        user = np.full(problem.m, np.inf)
        with np.errstate(over="ignore"):
            user[N.rows] = values / (N.row_scale * N.s)
        details["polytope_bias"] = user  # in the caller's coordinates (+inf: any bias)
    ex = ev.data if ev is not None and isinstance(ev.data, ExactResult) else None
    if ev is not None:
        notes += [n for n in ev.notes if n not in notes]
    if ex is not None:
        details["exact"] = {"status": ex.status.value, "method": ex.method, "lower_bound": ex.lower_bound,
                            "upper_bound": ex.upper_bound, "h": ex.h, "h_method": ex.h_method, "n_active": ex.n_active,
                            "rank": ex.rank, "seconds": round(ex.seconds, 3), "solves": ex.n_solves}  # fmt: skip
    dead = dead_inputs(problem.W, problem.K, ctx.tol.dead_input_rtol)
    if dead:
        details["dead_inputs"] = {k: v.tolist() for k, v in dead.items()}
    if ev is not None and ev.status != Status.UNDETERMINED or ex is not None:
        status, method = ev.status, ev.method
        if ex is not None:
            text = _exact_text(ex, where, _fast_reason(problem, ctx) if fast_ran else None, ev)
        else:
            text = f"{ev.status} on {where} — {ev.reason}"
        cert = ev.certificate
        if cert is not None and not cert.domain:
            cert = _with_domain(cert, ex, where)
        pair = ev.pair
    else:
        status, method, cert, pair = Status.UNDETERMINED, "", None, None
        if ev is not None and ev.reason:
            reason = ev.reason
        elif fast_ran:
            reason = _fast_reason(problem, ctx)
        else:
            reason = "no test could run"
        if ctx.budget.expired():
            reason += f"; time limit of {ctx.budget.time_limit:g} s reached"
        text = f"undetermined on {where} — {reason}"
    if dead:
        notes.append(_dead_text(dead, problem.n, ctx.tol.dead_input_rtol))
    output = None
    if pair is not None:
        with np.errstate(over="ignore"):
            output = np.maximum(pair[0] @ problem.W.T - problem.alpha, 0.0)
    bounds = ev.bounds if ev is not None else None
    return Verdict(status, method, text, where, cert, pair, output=output, bounds=bounds, notes=tuple(notes),
                   seconds=time.perf_counter() - t0, details=details)  # fmt: skip


def _with_domain(cert: Certificate, ex: ExactResult | None, where: str) -> Certificate:
    """The exact engine's certificate with the domain it holds on: ``K``, or R^n for the depth search."""
    if ex is not None and ex.method == "depth" and (ex.domain.whole_space or "subset" in cert.statement
                                                   or "direction" in cert.statement):  # fmt: skip
        where = f"R^{ex.domain.n}"
    return Certificate(cert.kind, cert.statement, where, cert.lower_bound, cert.h, cert.h_method, cert.margin,
                       cert.tolerances)  # fmt: skip


def _fast_reason(problem: Problem, ctx: Context) -> str:
    """Why the fast stages decided nothing."""
    found = ctx.findings
    done = found.details.get("points_checked", 0)
    failing = found.details.get("points_failing", 0)
    poly = found.scratch.get("polytope")
    if _as_layer(problem) is None:
        return ""
    if failing:
        return (f"at {failing} of {done} points checked the active rows do not span (the layer is not rectifying there: "
                "not injective if K is open or strictly convex, Thm Injectivity II), but no pair with the same output "
                "was verified")  # fmt: skip
    margin = found.scratch.get("margin", float("nan"))
    if poly is not None and not isinstance(poly, Exception):
        if np.isfinite(margin) and margin >= 0:
            return (f"the active rows span at all {done} points checked, no two points with the same output were found; α "
                    f"lies within the rounding bound of the polytope bias (margin {fmt(margin)}), which floating point "
                    "cannot decide")  # fmt: skip
        return (f"the active rows span at all {done} points checked, no two points with the same output were found; α "
                f"exceeds the polytope bias (only sufficient) by {fmt(-margin)}")  # fmt: skip
    why = f"no polytope bias ({poly})" if isinstance(poly, Exception) else "no polytope bias on this domain"
    return f"the active rows span at all {done} points checked, no two points with the same output were found; {why}"


def _pair_text(ex: ExactResult, x: np.ndarray, y: np.ndarray) -> str:
    """The witness, in the caller's coordinates (the engine's own text speaks of the normal form)."""
    sep = f"|x − y| = {float(np.linalg.norm(x - y)):.2g}"
    if ex.method == "null space":
        # ex.rank is the rank of the rows active at x (one point), not of all the rows: say which
        return (f"the weights miss a direction v of the domain (their rank is below {ex.dim}), so x = {vec(x, limit=6)} and "
                f"y = x + t v ({sep}) have the same output (at x, {ex.n_active} rows are active, of rank {ex.rank})")  # fmt: skip
    return (f"witness: at x = {vec(x, limit=6)} only {ex.n_active} frame vector(s) are active (rank {ex.rank} < {ex.dim}); "
            f"x and y = {vec(y, limit=6)} ({sep}) have the same output")  # fmt: skip


def _exact_text(ex: ExactResult, where: str, fast_reason: str | None, ev: Evidence) -> str:
    body = ex.text.split(" — ", 1)[1] if " — " in ex.text else ex.text
    status = ev.status
    if status == Status.UNDETERMINED and ev.reason != ex.text:  # demoted after the engine decided
        return f"{status} on {where} — {ev.reason}"
    if ev.pair is not None and ex.method != "finite set" and ex.dim is not None:
        body = _pair_text(ex, *ev.pair)
    text = f"{status} on {where} — {body}"
    if fast_reason is not None and status != Status.UNDETERMINED and ex.method != "finite set":
        text += "; the fast tests had left it open"
    elif fast_reason and status == Status.UNDETERMINED:
        text += f"; fast tests: {fast_reason}"
    return text


# ---------------------------------------------------------------------------------
# inputs the layer cannot see
# ---------------------------------------------------------------------------------


def dead_inputs(W: np.ndarray, K: Domain, rtol: float | None = None) -> dict[str, np.ndarray]:
    """Inputs the layer cannot see: ``"unread"`` (columns of ``W`` below ``rtol`` of the largest; the default
    :attr:`~relu_frames_nb.pipeline.Tolerances.dead_input_rtol`) and, on a data set, ``"constant"`` (coordinates
    with one value in every point). Empty entries are left out.
    """
    rtol = DEFAULT_TOLERANCES.dead_input_rtol if rtol is None else rtol
    W = np.asarray(W, dtype=float)
    out: dict[str, np.ndarray] = {}
    if W.size:
        norms = np.max(np.abs(W), axis=0)
        top = float(np.max(norms))
        unread = np.flatnonzero(norms <= rtol * top) if top > 0 else np.arange(W.shape[1])
        if unread.size:
            out["unread"] = unread
    if K.finite and K.points.shape[0] > 1:
        X = K.points
        constant = np.flatnonzero(np.all(X == X[0], axis=0))
        if constant.size:
            out["constant"] = constant
    return out


def _dead_text(dead: dict, n: int, rtol: float) -> str:
    def show(idx: np.ndarray) -> str:
        head = ", ".join(str(int(i)) for i in idx[:12])
        return head + (f", … ({idx.size} in all)" if idx.size > 12 else "")

    parts = []
    if "unread" in dead:
        parts.append(f"{dead['unread'].size} of the {n} inputs are never read (their weights are below {rtol:g} of "
                     f"the largest; 0-based indices {show(dead['unread'])}): the layer cannot tell apart inputs that differ "
                     "only there, so it is not injective on a domain where they vary; check on the other coordinates "
                     "(or on the data's span) to ask about the rest")  # fmt: skip
    if "constant" in dead:
        parts.append(f"{dead['constant'].size} of the {n} coordinates are constant on the data (0-based indices "
                     f"{show(dead['constant'])}, e.g. pixels blank in every image)")  # fmt: skip
    return "; ".join(parts)


def _normal_polytope(polytope: Any, N: Any) -> Any:
    """A caller's polytope bias (caller's coordinates) in the normal form: ``values * row_scale * s``."""
    if polytope is None or isinstance(polytope, Exception):
        return polytope
    if not isinstance(polytope, BiasEstimate):
        raise InputError(f"polytope must be a BiasEstimate (from rf.polytope_bias) or the error it raised; got {polytope!r}.")
    values = np.asarray(polytope.values, dtype=float)
    if values.ndim != 1 or values.shape[0] != N.m:
        raise InputError(f"polytope must hold one bias per row of the weights ({N.m}); got shape {values.shape}.")
    return values[N.rows] * N.row_scale * N.s
