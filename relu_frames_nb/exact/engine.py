r"""The exact engine: a certificate of injectivity or a verified colliding pair, within a budget.

A ReLU layer :math:`x \mapsto \mathrm{ReLU}(\Phi x - \alpha)` is injective on a convex
domain ``K`` with non-empty interior iff every point of ``K`` keeps a spanning set of frame
vectors active (Thms "Injectivity of ReLU layers I/II"). Let ``h`` be the largest number of
frame vectors in one hyperplane through 0 (:mod:`._hyperplanes`). Then

* **certificate**: a lower bound ``> h`` on the fewest active rows over ``K`` proves the
  layer injective. It comes from the dual bound of the counting MILP (:mod:`._milp`) on a
  polytope ``P ⊇ K`` solved at the bias ``alpha + eps``: a larger bias only shrinks active
  sets, so the bound holds for ``alpha``; and rectifying at a larger bias gives injectivity
  on *any* subset of ``P`` (Thm I, first part), so shells and spheres are covered too.
  For frames with few hyperplanes an LP per hyperplane decides instead (method
  ``"hyperplanes"``): no point of ``K`` has all rows off a hyperplane's complement.
* **certificate by removal sets** (:mod:`._removal`, before the MILP on balls, boxes,
  polytopes and hulls): no ``h`` rows can be the only active ones at a point of ``K`` -- a
  branch and bound whose every bound is a least-distance certificate checked with rounding
  bounds, for the bias as given; wide layers (n = 10-12) that the MILP's relaxation cannot
  bound are decided this way.
* **witness**: a point of ``K`` whose active rows do not span, turned into two distinct
  points of ``K`` with the same output (:mod:`._witness`), kept only after the package's one
  pair check and a certain membership test. Candidate points come from seeded samples with a
  greedy descent, and on polyhedral domains from the reweighted LP relaxation of "the fewest
  active rows" (:func:`._search.reweighted_search`, method ``"LP relaxation"``), before the
  search over removal sets and the MILP.

A bias that sits on the threshold (no certificate at ``alpha + eps``, no witness with a margin)
is **undetermined**: the engine may find that the certificate holds for the bias lowered by
``tol`` and says so in the text, but that is a proof for a neighbouring problem, not this one.

Special cases: weights that do not span (a null-space direction collides anywhere);
degenerate boxes and hulls of data in a subspace (the verdict works in the domain's own
affine coordinates); zero bias with the origin in ``K`` (active sets depend on the direction
only: the faces of the cube ``[-1, 1]^n`` within the domain's cone are solved instead, which
avoids the degenerate origin); ``R^n`` with a bias (homogenised to zero bias in
``R^{n+1}`` on the half-space ``t >= 0``); a finite data set (outputs compared directly).

The engine expects the problem normalised by the front door (:func:`relu_frames_nb.check`):
rows of norm about 1 and a domain of size about 1, so that its tolerances are relative.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.budget import Budget, BudgetExhausted
from ..domains import Domain
from ..pipeline import DEFAULT_TOLERANCES, Context, Evidence, Problem, Stage, run_stages
from ._always import always_active_result
from ._cases import finite_result, prepare, subproblems, unsupported
from ._homogeneous import depth_mode, depth_stage
from ._hyperplanes import HyperplaneInfo, hyperplane_info
from ._removal import removal_stage
from ._result import ExactResult, make_result, short_vec
from ._search import (
    hyperplane_method,
    milp_method,
    near_zero_bias,
    reweighted_search,
    sample_search,
    zero_bias_certificate,  # fmt: skip
)
from ._state import Run, lowest

__all__ = ["solve_exact", "EPS", "BOUNDARY_TOL", "ENGINE_STAGES"]

#: bias increase (relative to the normalised problem) that absorbs the solvers' tolerances in certificates
EPS = DEFAULT_TOLERANCES.certificate_eps
#: how far below the bias a boundary retry looks (relative); its finding is reported, never as a proof
BOUNDARY_TOL = DEFAULT_TOLERANCES.boundary_tol


def solve_exact(
    W: np.ndarray,
    alpha: np.ndarray,
    K: Domain,
    *,
    budget: Budget,
    method: str = "auto",
    eps: float = EPS,
    boundary_tol: float = BOUNDARY_TOL,
    n_samples: int = 2000,
    rng: Any = None,
    max_subsets: int = 200_000,
    depth: bool | str = True,
    removal_share: float = 0.5,
) -> ExactResult:
    r"""Decide whether ``ReLU(W x - alpha)`` is injective on ``K`` (see the module docstring).

    Parameters
    ----------
    W : ndarray, shape (m, n)
        Weights (rows need not span: a null-space pair is a verdict).
    alpha : ndarray, shape (m,)
        Bias, subtracted (paper convention).
    K : Domain
    budget : Budget
        The deadline and memory; when the deadline passes the result is "undetermined" with
        the bounds reached.
    method : {"auto", "milp", "hyperplanes"}
    eps : float
        Bias increase absorbing the solvers' feasibility tolerances in certificates.
    boundary_tol : float
        A failed certificate is retried at ``alpha - boundary_tol``; success is reported in the
        text of an "undetermined" result (``0`` turns the retry off).
    n_samples : int
        Seeded points of ``K`` examined first (cheap witnesses and the first upper bound).
    rng : numpy Generator
    max_subsets : int
        ``h`` is computed exactly when ``C(m, n-1) <= max_subsets``; otherwise general
        position is assumed and checked as far as cheap.
    depth : bool or "directions"
        Ask the half-space depth search (zero bias, R^n, R^n as a superset) and the search over removal
        sets on the domain (:mod:`._removal`) with ``method="auto"``; ``"directions"`` asks only the
        former, False neither (baselines for benchmarks).
    removal_share : float
        The share of the time left that the search over removal sets may use before the MILP on a ball
        (:func:`._removal.removal_stage` gives less to other domains and beyond 16 dimensions).

    Returns
    -------
    ExactResult
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(0) if rng is None else rng
    state: dict = {}
    try:
        return _decide(W, alpha, K, t0, budget, method, eps, boundary_tol, n_samples, rng, max_subsets, state, depth,
                       removal_share)  # fmt: skip
    except BudgetExhausted as exc:
        run, subs, info = state.get("run"), state.get("subs"), state.get("info")
        info = info or HyperplaneInfo(0, False, "not computed (time limit)", usable=False)
        lower = lowest(subs) if subs else None
        upper = None if run is None else run.upper
        notes = list(run.notes) if run is not None else []
        notes.append(f"time limit reached during {exc.stage or 'the exact stage'}")
        text = _undetermined_text(K, t0, lower, upper, info, "time limit")
        return make_result(K, "undetermined", lower, upper, info, None, time.perf_counter() - t0,
                           0 if run is None else run.n_solves, "", notes, text)  # fmt: skip


def _decide(W, alpha, K, t0, budget, method, eps, boundary_tol, n_samples, rng, max_subsets, state, depth=True,
            removal_share=0.5) -> ExactResult:  # fmt: skip
    if K.finite:
        return finite_result(W, alpha, K, t0, budget)
    bad = unsupported(K)
    if bad:
        info = HyperplaneInfo(0, False, "not computed")
        return make_result(K, "undetermined", None, None, info, None, time.perf_counter() - t0, 0, "", [bad])
    budget.check("exact: preparing")
    run, early = prepare(W, alpha, K, t0, budget, eps, boundary_tol)
    state["run"] = run
    if early is not None:
        return early
    engine = _Engine(run, t0, method, depth, n_samples, rng, removal_share, max_subsets, state)
    ctx = Context(budget, rng)
    ctx.findings.scratch["engine"] = engine
    ev = run_stages(ENGINE_STAGES, Problem.build(W, alpha, K), ctx)
    if ev is not None:
        return ev.data
    return _finish(run, engine.subs, engine.info, "milp", t0, certified=False)


@dataclass
class _Engine:
    """What the engine's stages share: the layer in the domain's coordinates, the options, and once the hyperplanes
    are known, ``h`` and the counting subproblems.
    """

    run: Run
    t0: float
    method: str
    depth: Any
    n_samples: int
    rng: Any
    removal_share: float
    max_subsets: int
    state: dict  # what the time-limit handler of :func:`solve_exact` reports from
    info: HyperplaneInfo | None = None
    subs: list | None = None
    ask_depth: bool = False
    deciding: bool = False  # a depth question decides the whole problem (zero bias on every direction, R^n): ask it first


class _EngineStage(Stage):
    """A search of the engine. Its ``share`` is applied by the search itself (it reads the run's budget)."""

    def time_share(self, problem: Problem) -> float:
        return 1.0

    def applies(self, problem: Problem, ctx: Context) -> bool:
        e = ctx.findings.scratch["engine"]
        return e.run.pair is None and (e.info is not None or not self.needs_h) and self.wants(e)

    #: whether the stage needs ``h`` and the subproblems (everything after :class:`_Hyperplanes`)
    needs_h = True

    def wants(self, e: _Engine) -> bool:
        return True

    def run(self, problem: Problem, ctx: Context) -> Evidence | None:
        res = self.search(ctx.findings.scratch["engine"])
        return None if res is None else Evidence(res.status, self.name if res.decided else "", data=res)

    def search(self, e: _Engine) -> ExactResult | None:  # pragma: no cover - abstract
        raise NotImplementedError


class _AlwaysActive(_EngineStage):
    name = "always active rows"
    summary = ("rows active at every point of K (their outputs are affine there) that span, or antiparallel pairs of "
               "which one is always active: proved exactly, for the bias as given")  # fmt: skip
    proves = "injective"
    needs_h = False

    def wants(self, e: _Engine) -> bool:
        return e.method == "auto"

    def search(self, e: _Engine) -> ExactResult | None:
        return always_active_result(e.run, e.t0)


class _Hyperplanes(_EngineStage):
    name = "hyperplanes through frame vectors"
    summary = ("h, the most frame vectors in one hyperplane through 0 (enumerated when C(m, n-1) is small, else general "
               "position assumed and checked), and the counting subproblems; decides nothing itself")  # fmt: skip
    proves = "nothing (it prepares the certificates by counting)"
    needs_h = False

    def search(self, e: _Engine) -> None:
        run = e.run
        info = hyperplane_info(run.Phi, max_subsets=e.max_subsets, budget=run.budget)
        e.state["info"] = e.info = info
        if not info.usable:
            run.notes.append("h is only a lower estimate, so no certificate by counting is possible: " + info.method)
        e.state["subs"] = e.subs = subproblems(run)
        e.ask_depth = bool(e.method == "auto" and e.depth and info.usable)
        e.deciding = e.ask_depth and depth_mode(run) in ("zero bias", "R^n")
        return None


class _Samples(_EngineStage):
    name = "samples"
    summary = "seeded points of K and a greedy descent from the best of them: cheap witnesses"
    proves = "not injective"

    def __init__(self, after_depth: bool) -> None:
        self.after_depth = after_depth
        if after_depth:
            self.summary = "the cheap witnesses, after a depth search that proved nothing"

    def wants(self, e: _Engine) -> bool:
        return e.deciding == self.after_depth

    def search(self, e: _Engine) -> ExactResult | None:
        sample_search(e.run, e.subs, e.info.h, e.n_samples, e.rng)
        return _finish(e.run, e.subs, e.info, "samples", e.t0, certified=False) if e.run.pair is not None else None


class _Relaxation(_EngineStage):
    name = "LP relaxation"
    summary = "reweighted LP relaxation of the fewest active rows (polyhedral domains), each start ending in the descent"
    proves = "not injective"
    share = 0.15

    def wants(self, e: _Engine) -> bool:
        return not e.deciding

    def search(self, e: _Engine) -> ExactResult | None:
        reweighted_search(e.run, e.subs, e.info.h, e.rng, share=self.share)
        return _finish(e.run, e.subs, e.info, "LP relaxation", e.t0, certified=False) if e.run.pair is not None else None


class _Depth(_EngineStage):
    name = "depth"
    summary = "zero bias, R^n, or R^n as a superset of K: an exact branch and bound on the half-space depth"

    def wants(self, e: _Engine) -> bool:
        return e.ask_depth

    def search(self, e: _Engine) -> ExactResult | None:
        return _stage_result(e.run, e.subs, e.info, e.t0, depth_stage(e.run, e.info), "depth")


class _Removal(_EngineStage):
    name = "removal sets"
    summary = ("no h rows can be the only active ones at a point of K: a branch and bound of least-distance problems, "
               "each bound checked with rounding bounds (half of the time left; 0.9 on round domains beyond 12 "
               "dimensions)")  # fmt: skip
    share = 0.5

    def wants(self, e: _Engine) -> bool:
        return e.ask_depth and e.depth is True and not e.deciding and not e.run.Kr.whole_space

    def search(self, e: _Engine) -> ExactResult | None:
        got = removal_stage(e.run, e.subs, e.info, e.removal_share)
        return _stage_result(e.run, e.subs, e.info, e.t0, got, "removal sets")


class _ZeroBias(_EngineStage):
    name = "zero bias"
    summary = "every bias <= 0 and near 0: the counting MILP on the faces of the cube (40 % of the time left)"
    proves = "injective"
    share = 0.4

    def wants(self, e: _Engine) -> bool:
        return e.method != "hyperplanes" and near_zero_bias(e.run) and e.info.usable

    def search(self, e: _Engine) -> ExactResult | None:
        run, info, h = e.run, e.info, e.info.h
        if not zero_bias_certificate(run, h):
            return None
        proof = f"at zero bias every direction keeps more than h = {h} frame vectors active (MILP on the faces"
        text = (f"injective on {run.K.describe()} — proof: {proof} of the cube), and every bias is ≤ 0 (smaller biases "
                "only add active rows)")  # fmt: skip
        if not info.exact:
            text += "; h assumed (general position, checked)"
        return make_result(run.K, "injective", h + 1, run.upper, info, None, time.perf_counter() - e.t0, run.n_solves,
                           "zero bias", run.notes, text)  # fmt: skip


class _Counting(_EngineStage):
    name = "counting"
    summary = ("one LP per hyperplane spanned by frame vectors when there are few, else the counting MILP (dual bound > "
               "h), at the bias raised by certificate_eps; then a retry lowered by boundary_tol, reported as 'on the "
               "threshold'")  # fmt: skip

    def search(self, e: _Engine) -> ExactResult:
        run, subs, info, t0, method = e.run, e.subs, e.info, e.t0, e.method
        d = run.Phi.shape[1]
        h = info.h
        n_cells = len(info.sets) * len(subs) if info.sets is not None else 0
        use_hyper = info.sets is not None and method != "milp" and (
            method == "hyperplanes" or n_cells <= 400 or (h > d - 1 and n_cells <= 20_000))  # fmt: skip
        if method == "hyperplanes" and info.sets is None:
            run.notes.append(f"method 'hyperplanes' needs the hyperplanes enumerated ({info.method}); used the MILP")
        used = "hyperplanes" if use_hyper else "milp"
        for shift, boundary in ((run.eps, False), (-run.tol, True)):
            if run.pair is not None or (boundary and (run.tol <= 0 or not info.usable)):
                break
            if boundary:
                if run.remaining() <= 0.05:
                    break
                for sub in subs:
                    if sub.region is not None:
                        sub.certified, sub.closed = False, False
            if use_hyper:
                if hyperplane_method(run, subs, info, shift):
                    return _finish(run, subs, info, "hyperplanes", t0, certified=run.pair is None, boundary=boundary)
                if method == "hyperplanes":
                    continue
                used = "milp"
            if run.pair is None:
                milp_method(run, subs, h, info.usable, shift)
            if run.pair is None and info.usable and all(s.certified for s in subs):
                return _finish(run, subs, info, "milp", t0, certified=True, boundary=boundary)
        return _finish(run, subs, info, used, t0, certified=False)


#: the engine's searches, in order: cheap witnesses first (unless a depth question decides the whole problem, which
#: then goes first), then the certificates from the most specific to the most general
ENGINE_STAGES = (_AlwaysActive(), _Hyperplanes(), _Samples(after_depth=False), _Relaxation(), _Depth(),
                 _Samples(after_depth=True), _Removal(), _ZeroBias(), _Counting())  # fmt: skip


def _stage_result(run: Run, subs: list, info: HyperplaneInfo, t0: float, got: tuple | None, method: str):
    """The result of a stage that proved injectivity (``got``) or found a pair (``run.pair``); None otherwise."""
    if got is not None:
        status, proof = got
        text = f"injective on {run.K.describe()} — proof: {proof}"
        if not info.exact:
            text += "; h assumed (general position, checked)"
        return make_result(run.K, status, info.h + 1, run.upper, info, None, time.perf_counter() - t0, run.n_solves,
                           method, run.notes, text)  # fmt: skip
    if run.pair is not None:
        return _finish(run, subs, info, method, t0, certified=False)
    return None


def _undetermined_text(K, t0, lower, upper, info, reason) -> str:
    head = f"undetermined on {K.describe()} after {time.perf_counter() - t0:.1f} s ({reason}) — "
    need = f"injective needs > h = {info.h}"
    if lower is None and upper is None:
        return head + f"no bound on the fewest active frame vectors was reached; {need}"
    if lower is None:
        return head + f"the fewest active frame vectors is at most {upper} (no lower bound reached); {need}"
    if upper is None:
        return head + f"the fewest active frame vectors is at least {lower}; {need}"
    return head + f"the fewest active frame vectors is between {lower} and {upper}; {need}"


def _finish(run: Run, subs: list, info: HyperplaneInfo, method: str, t0: float, *, certified: bool,
            boundary: bool = False) -> ExactResult:  # fmt: skip
    d = run.Phi.shape[1]
    K = run.K
    seconds = time.perf_counter() - t0
    if run.pair is not None:
        n_act, rank = run.pair_info
        x, y = run.pair
        lower = lowest(subs)
        text = (
            f"not injective on {K.describe()} — witness: at x = {short_vec(x)} only {n_act} frame vector(s) are active "
            f"(rank {rank} < {d}); x and y = {short_vec(y)} (|x − y| = {np.linalg.norm(x - y):.2g}) have the same output"
        )
        return make_result(K, "not injective", lower, run.upper, info, run.pair, seconds, run.n_solves, method, run.notes,
                           text, n_act, rank, dim=d)  # fmt: skip
    lower = lowest(subs)
    if certified and boundary:
        rel_tol = run.tol / run.scale
        rel_eps = run.eps / run.scale
        run.notes.append(
            f"boundary case: no certificate at the bias raised by {rel_eps:.0e} and no witness with a margin; a certificate "
            f"holds for the bias lowered by {rel_tol:.0e} (relative): the bias sits on the threshold to within that "
            "tolerance, which decides neither way"
        )
        text = (
            f"undetermined on {K.describe()} — the bias sits on the injectivity threshold to within {rel_tol:.0e} "
            f"(relative): injective for the bias lowered by {rel_tol:.0e} ({method}), but neither a certificate at the "
            "bias itself nor a colliding pair with a margin was found"
        )
        return make_result(K, "undetermined", None, run.upper, info, None, seconds, run.n_solves, method, run.notes, text)
    if certified:
        if method == "hyperplanes":
            lower = max(lower or 0, d)
            proof = (
                f"for each of the {len(info.sets)} hyperplanes spanned by frame vectors, no point of the domain has "
                f"every other frame vector inactive (one LP each)"
            )
        else:
            proof = f"every point keeps ≥ {lower} > h = {info.h} frame vectors active (MILP dual bound)"
        text = f"injective on {K.describe()} — proof: {proof}"
        if not info.exact:
            text += "; h assumed (general position, checked)"
        return make_result(K, "injective", lower, run.upper, info, None, seconds, run.n_solves, method, run.notes, text)
    reason = "time limit" if run.remaining() <= 0.05 else "no proof either way"
    text = _undetermined_text(K, t0, lower, run.upper, info, reason)
    return make_result(K, "undetermined", lower, run.upper, info, None, seconds, run.n_solves, method, run.notes, text)
