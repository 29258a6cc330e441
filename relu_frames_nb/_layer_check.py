r"""The check of one layer ``ReLU(W x - alpha)`` on a domain ``K``: the paper's tests, then the exact stage.

The problem is first brought to its normal form (:mod:`relu_frames_nb._normal`); every
tolerance below is relative to it. Then, within one budget:

1. on a finite data set the answer is exact: two points share an output or none do
   (:mod:`relu_frames_nb.exact`, the finite case);
2. the **fast tests** (``method="fast"`` or ``"auto"``), the paper's own:

   * ``alpha <= polytope bias`` (Thm "PBE") proves the alpha-rectifying property on ``K``; with
     ``K`` convex, or ``alpha`` strictly below the bound, Thm "Injectivity I" turns it into
     injectivity;
   * a colliding pair built at a sampled non-rectifying point
     (:func:`~relu_frames_nb.rectifying.find_collision`) proves non-injectivity;
   * with ``alpha <= 0`` the exact zero-bias test (Tukey depth of the origin ``>= n``) proves
     injectivity on R^n, hence on every ``K`` (smaller biases keep the property);

3. the **exact stage** (``method="exact"`` or ``"auto"``): a MILP certificate or a verified
   colliding pair (:func:`relu_frames_nb.exact.solve_exact`);
4. anything else is "undetermined", with the evidence gathered and the bounds reached.

Before a verdict leaves, its pair is mapped back to the caller's coordinates (exactly) and
checked there again (the one pair check and certain membership in ``K``), and a certificate is
checked for consistency at sample points of ``K`` in the caller's coordinates (every point must
be rectifying). A failure of either turns the verdict into "undetermined" and says so.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from ._budget import Budget, BudgetExhausted
from ._format import fmt, vec
from ._normal import Normalised, normalise
from ._pairs import collides
from ._validation import as_rng
from .bias.estimate import BiasEstimate
from .bias.polytope import polytope_bias
from .domains import Domain
from .domains.base import robust_norms
from .errors import InputError, NotAFrameError, ReluFramesError
from .exact import EPS, ExactResult, solve_exact
from .frames import DEFAULT_RANK_TOL, Frame
from .layer import ReLULayer
from .rectifying import find_collision, is_rectifying
from .verdict import Certificate, Status, Verdict
from .zero_bias import zero_bias_injective

__all__ = ["check_weights", "BIAS_RTOL", "METHODS"]

#: a bias within this of the polytope bias (relative, normal form) counts as equal: the rounding of
#: the weights themselves (the triangle frame's sqrt(3)/2 at its exact maximal bias -1/2, say)
BIAS_RTOL = 1e-12
#: the methods of the check
METHODS = ("auto", "fast", "exact")
#: points of K at which a certificate is checked for consistency, in the caller's coordinates
N_CONSISTENCY = 64


class _Fast:
    """What the fast tests found (in the normal form)."""

    def __init__(self) -> None:
        self.status = Status.UNDETERMINED
        self.method = ""
        self.reason = ""
        self.certificate: Certificate | None = None
        self.pair: tuple | None = None
        self.pair_how = ""
        self.margin = float("nan")
        self.n_failing = 0
        self.n_checked = 0
        self.polytope: Any = None
        self.notes: list[str] = []


def check_weights(
    W: np.ndarray,
    alpha: np.ndarray,
    K: Domain,
    *,
    method: str,
    budget: Budget,
    seed: Any = 0,
    n_samples: int = 4000,
    points: Any = None,
    polytope: Any = None,
    max_facets: int = 200_000,
    max_candidates: int = 400,
) -> Verdict:
    """The verdict for ``ReLU(W x - alpha)`` (paper convention, the caller's coordinates) on ``K``.

    ``W`` need not be a frame (zero rows, rank deficiency): the fast tests then step aside and
    the exact stage decides. ``points`` (points of ``K`` for the rectifying test) and
    ``polytope`` (a :class:`BiasEstimate` of the polytope bias of ``(W, K)``, or the error it
    raised) may be given by callers that already have them (the explorers).
    """
    t0 = time.perf_counter()
    P = normalise(W, alpha, K)
    notes = list(P.notes)
    details: dict = {"normal form": P.describe()}
    if P.W.shape[0] < W.shape[1] or _as_layer(P) is None:
        details["weights_rank"] = int(np.linalg.matrix_rank(P.W)) if P.W.size else 0
    fast: _Fast | None = None
    ex: ExactResult | None = None
    try:
        if K.finite:
            ex = solve_exact(P.W, P.alpha, P.K, budget=budget, rng=as_rng(seed))
        else:
            if method in ("fast", "auto"):
                fast = _fast_tests(P, K.describe(), budget if method == "fast" else budget.share(fraction=0.5), seed=seed,
                                   n_samples=n_samples, points=points, polytope=polytope, max_facets=max_facets,
                                   max_candidates=max_candidates)  # fmt: skip
            if (fast is None or fast.status == Status.UNDETERMINED) and method in ("exact", "auto"):
                ex = solve_exact(P.W, P.alpha, P.K, budget=budget, rng=as_rng(seed))
    except BudgetExhausted as exc:
        notes.append(f"time limit reached during {exc.stage or 'the check'}")
    verdict = _combine(P, K, fast, ex, notes, details, t0, budget)
    verdict = _confirm(verdict, W, alpha, K, P, budget, seed)
    dead = dead_inputs(W, K)
    if dead:
        verdict.details["dead_inputs"] = {k: v.tolist() for k, v in dead.items()}
        verdict = replace(verdict, notes=(*verdict.notes, _dead_text(dead, W.shape[1])))
    return verdict


#: a column of the weights counts as dead below this fraction of the largest column
DEAD_RTOL = 1e-10


def dead_inputs(W: np.ndarray, K: Domain) -> dict[str, np.ndarray]:
    """Inputs the layer cannot see: ``"unread"`` (columns of ``W`` below ``DEAD_RTOL`` of the largest)
    and, on a data set, ``"constant"`` (coordinates with one value in every point). Empty entries are left out.
    """
    W = np.asarray(W, dtype=float)
    out: dict[str, np.ndarray] = {}
    if W.size:
        norms = np.max(np.abs(W), axis=0)
        top = float(np.max(norms))
        unread = np.flatnonzero(norms <= DEAD_RTOL * top) if top > 0 else np.arange(W.shape[1])
        if unread.size:
            out["unread"] = unread
    if K.finite and K.points.shape[0] > 1:
        X = K.points
        constant = np.flatnonzero(np.all(X == X[0], axis=0))
        if constant.size:
            out["constant"] = constant
    return out


def _dead_text(dead: dict, n: int) -> str:
    def show(idx: np.ndarray) -> str:
        head = ", ".join(str(int(i)) for i in idx[:12])
        return head + (f", … ({idx.size} in all)" if idx.size > 12 else "")

    parts = []
    if "unread" in dead:
        parts.append(f"{dead['unread'].size} of the {n} inputs are never read (their weights are below {DEAD_RTOL:g} of "
                     f"the largest; 0-based indices {show(dead['unread'])}): the layer cannot tell apart inputs that differ "
                     "only there, so it is not injective on a domain where they vary; check on the other coordinates "
                     "(or on the data's span) to ask about the rest")  # fmt: skip
    if "constant" in dead:
        parts.append(f"{dead['constant'].size} of the {n} coordinates are constant on the data (0-based indices "
                     f"{show(dead['constant'])}, e.g. pixels blank in every image)")  # fmt: skip
    return "; ".join(parts)


# ---------------------------------------------------------------------------------
# the fast tests (normal form)
# ---------------------------------------------------------------------------------


def _as_layer(P: Normalised) -> ReLULayer | None:
    if P.W.shape[0] == 0:
        return None
    try:
        return ReLULayer(Frame(P.W), P.alpha)
    except NotAFrameError:
        return None


def _normal_polytope(polytope: Any, P: Normalised) -> Any:
    """A caller's polytope bias (caller's coordinates) in the normal form: ``values * row_scale * s``."""
    if polytope is None or isinstance(polytope, Exception):
        return polytope
    if not isinstance(polytope, BiasEstimate):
        raise InputError(f"polytope must be a BiasEstimate (from rf.polytope_bias) or the error it raised; got {polytope!r}.")
    values = np.asarray(polytope.values, dtype=float)
    if values.ndim != 1 or values.shape[0] != P.m:
        raise InputError(f"polytope must hold one bias per row of the weights ({P.m}); got shape {values.shape}.")
    return values[P.rows] * P.row_scale * P.s


def _fast_tests(P: Normalised, where: str, budget: Budget, *, seed, n_samples, points, polytope, max_facets,
                max_candidates) -> _Fast:  # fmt: skip
    """The paper's tests on the normal form; ``where`` is the caller's domain, described."""
    out = _Fast()
    layer = _as_layer(P)
    K = P.K
    if layer is None:
        out.notes.append("the weights are not a frame (zero rows removed, they do not span): the fast tests need one")
        return out
    alpha = layer.alpha
    # 1. the polytope bias (Thm PBE)
    budget.check("polytope bias")
    values = _normal_polytope(polytope, P)
    if values is None and K.bounded:
        try:
            # a fifth of the fast stage's time: on a box in R^12 the facets of the polytope take seconds where
            # the exact stage decides in a fraction of one
            est = polytope_bias(layer.frame, K, max_facets=max_facets, time_limit=0.2 * budget.remaining())
            values, out.polytope = est.values, est
        except ReluFramesError as exc:
            out.polytope, values = exc, None
    elif isinstance(values, Exception):
        out.polytope, values = values, None
    if values is not None:
        # the comparison in the normal form; the margin reported in the caller's units
        normal_margin = float(np.min(values - alpha))
        with np.errstate(over="ignore"):
            margin = float(np.min((values - alpha) / (P.row_scale * P.s)))
        out.margin = margin
        slack = BIAS_RTOL * max(1.0, float(np.max(np.abs(alpha))))
        strict = bool(np.all(alpha < values))
        if normal_margin >= -slack and (K.open_or_convex or strict):
            reason = "α < polytope bias" if strict else "α ≤ polytope bias on a convex domain"
            out.status, out.method = Status.INJECTIVE, "polytope bias"
            out.reason = f"proof: {reason} (Thm PBE + Injectivity I); margin {fmt(margin)}"
            out.certificate = Certificate(
                "polytope bias", f"{reason}: every point of {where} keeps a spanning set of frame vectors active",
                domain=where, margin=margin, tolerances={"bias_rtol": BIAS_RTOL},
            )  # fmt: skip
            return out
    budget.check("rectifying test")
    # 2. the rectifying test at points of K, and a colliding pair at a failing one
    X = K.sample(n_samples, seed=seed) if points is None else P.to_normal(np.asarray(points, dtype=float))
    step = max(1, budget.rows(24 * layer.m, fraction=0.05))
    bad_parts = []
    done = 0
    for s0 in range(0, X.shape[0], step):
        budget.check("rectifying test")
        block = X[s0 : s0 + step]
        ok = is_rectifying(layer, block, progress=False) if block.shape[0] else np.zeros(0, dtype=bool)
        bad_parts.append(block[~ok])
        done += block.shape[0]
    bad = np.vstack(bad_parts) if bad_parts else np.zeros((0, layer.n))
    out.n_failing, out.n_checked = int(bad.shape[0]), done
    if out.n_failing:
        budget.check("collision search")
        rng = np.random.default_rng(0)
        pick = bad if out.n_failing <= max_candidates else bad[rng.choice(out.n_failing, max_candidates, replace=False)]
        coll = find_collision(layer, K, points=pick, time_limit=0.5 * budget.remaining())
        if coll.found:
            out.status, out.method = Status.NOT_INJECTIVE, "collision"
            out.pair, out.pair_how = (coll.x, coll.y), coll.method
            extra = f"; exceeds the polytope bias by {fmt(-out.margin)}" if np.isfinite(out.margin) else ""
            out.reason = (
                f"verified collision C(x) = C(y) ({coll.method}); not rectifying at {out.n_failing} of {done} points "
                f"checked{extra}"
            )
            return out
    # 3. zero bias or below: the exact Tukey test on R^n covers every K
    if np.all(alpha <= 0):
        budget.check("Tukey depth")
        try:
            depth = zero_bias_injective(layer.frame, time_limit=0.5 * budget.remaining())
        except ReluFramesError as exc:
            out.notes.append(f"Tukey depth: {exc}")
        else:
            if depth.injective:
                sub = "" if K.whole_space else f", hence on its subset {where}"
                out.status, out.method = Status.INJECTIVE, "Tukey depth"
                out.reason = f"proof: 0-rectifying on R^{K.n} (Tukey depth of 0 is {depth.depth} ≥ n) and α ≤ 0{sub}"
                out.certificate = Certificate(
                    "Tukey depth", f"the Tukey depth of the origin among the frame vectors is {depth.depth} ≥ n = {K.n}, "
                    "so every point of R^n keeps a spanning set active at zero bias, and at every bias ≤ 0",
                    domain=f"R^{K.n}",
                )  # fmt: skip
                return out
    if out.n_failing:
        out.reason = (
            f"not α-rectifying at {out.n_failing} of {done} points (not injective if K is open or strictly convex, "
            "Thm Injectivity II), but no colliding pair was verified"
        )
    elif values is not None:
        out.reason = (
            f"rectifying at all {done} points checked, no collision; α exceeds the polytope bias (only sufficient) by "
            f"{fmt(-out.margin)}"
        )
    else:
        why = f"no polytope bias ({out.polytope})" if isinstance(out.polytope, Exception) else "no polytope bias on this domain"
        out.reason = f"rectifying at all {done} points checked, no collision; {why}"
    return out


# ---------------------------------------------------------------------------------
# one verdict from the stages
# ---------------------------------------------------------------------------------


def _combine(P: Normalised, K: Domain, fast: _Fast | None, ex: ExactResult | None, notes: list, details: dict,
             t0: float, budget: Budget) -> Verdict:  # fmt: skip
    where = K.describe()
    if fast is not None:
        notes += fast.notes
        details.update(points_checked=fast.n_checked, points_failing=fast.n_failing)
        if np.isfinite(fast.margin):
            details["polytope_margin"] = fast.margin
        if fast.polytope is not None and not isinstance(fast.polytope, Exception):
            user = np.full(P.m, np.inf)
            with np.errstate(over="ignore"):
                user[P.rows] = fast.polytope.values / (P.row_scale * P.s)
            details["polytope_bias"] = user  # in the caller's coordinates (+inf: any bias)
        elif isinstance(fast.polytope, Exception):
            details["polytope_bias"] = f"not available: {fast.polytope}"
    if fast is not None and fast.status != Status.UNDETERMINED:
        pair = None if fast.pair is None else tuple(P.to_user(p) for p in fast.pair)
        text = f"{fast.status} on {where} — {fast.reason}"
        return Verdict(fast.status, fast.method, text, where, fast.certificate, pair, notes=tuple(notes),
                       seconds=time.perf_counter() - t0, details=details)  # fmt: skip
    if ex is not None:
        notes += list(ex.notes)
        details.update(exact={"status": ex.status.value, "method": ex.method, "lower_bound": ex.lower_bound,
                              "upper_bound": ex.upper_bound, "h": ex.h, "h_method": ex.h_method,
                              "n_active": ex.n_active, "rank": ex.rank, "seconds": round(ex.seconds, 3),
                              "solves": ex.n_solves})  # fmt: skip
        bounds = (ex.lower_bound, ex.upper_bound) if (ex.lower_bound is not None or ex.upper_bound is not None) else None
        pair = None if ex.pair is None else tuple(P.to_user(p) for p in ex.pair)
        text = _exact_text(ex, where, fast, pair)
        if ex.status != Status.UNDETERMINED:
            cert = None
            if ex.status == Status.INJECTIVE:
                cert = _exact_certificate(ex, where)
            method = "finite set" if ex.method == "finite set" else (f"exact ({ex.method})" if ex.method else "exact")
            return Verdict(ex.status, method, text, where, cert, pair, bounds=bounds, notes=tuple(notes),
                           seconds=time.perf_counter() - t0, details=details)  # fmt: skip
        return Verdict(Status.UNDETERMINED, "", text, where, bounds=bounds, notes=tuple(notes),
                       seconds=time.perf_counter() - t0, details=details)  # fmt: skip
    # nothing decided and no exact stage (method="fast", or the time ran out before it)
    reason = fast.reason if fast is not None and fast.reason else "no test could run"
    if budget.expired():
        reason += f"; time limit of {budget.time_limit:g} s reached"
    text = f"undetermined on {where} — {reason}"
    return Verdict(Status.UNDETERMINED, "", text, where, notes=tuple(notes), seconds=time.perf_counter() - t0, details=details)


def _pair_text(ex: ExactResult, x: np.ndarray, y: np.ndarray) -> str:
    """The witness, in the caller's coordinates (the engine's own text speaks of the normal form)."""
    sep = f"|x − y| = {float(np.linalg.norm(x - y)):.2g}"
    if ex.method == "null space":
        return (f"the weights (the rows that can be active on the domain) have rank {ex.rank} < {ex.dim}: "
                f"x = {vec(x, limit=6)} and y = x + t v with v in their null space ({sep}) have the same output")  # fmt: skip
    return (f"witness: at x = {vec(x, limit=6)} only {ex.n_active} frame vector(s) are active (rank {ex.rank} < {ex.dim}); "
            f"x and y = {vec(y, limit=6)} ({sep}) have the same output")  # fmt: skip


def _exact_text(ex: ExactResult, where: str, fast: _Fast | None, pair: tuple | None = None) -> str:
    body = ex.text.split(" — ", 1)[1] if " — " in ex.text else ex.text
    if pair is not None and ex.method != "finite set" and ex.dim is not None:
        body = _pair_text(ex, *pair)
    text = f"{ex.status} on {where} — {body}"
    if fast is not None and ex.status != Status.UNDETERMINED and ex.method != "finite set":
        text += "; the fast tests had left it open"
    elif fast is not None and ex.status == Status.UNDETERMINED and fast.reason:
        text += f"; fast tests: {fast.reason}"
    return text


def _exact_certificate(ex: ExactResult, where: str) -> Certificate:
    kinds = {"milp": "MILP dual bound", "hyperplanes": "hyperplane LPs", "zero bias": "MILP dual bound (zero bias)",
             "depth": "half-space depth (branch and bound)", "finite set": "finite set",
             "removal sets": "removal sets on the domain (branch and bound)", "single point": "single point"}  # fmt: skip
    statement = ex.text.split("proof: ", 1)[1] if "proof: " in ex.text else ex.text.split(" — ", 1)[-1]
    # the searches over removal sets prove the bias as given (every bound verified with rounding bounds)
    tolerances = {} if ex.method in ("finite set", "single point", "removal sets") else {"bias_raised_by": EPS}
    if ex.method == "depth":  # proved for every direction of R^n: the domain is a subset (monotonicity)
        where = f"R^{ex.domain.n}" if ex.domain.whole_space or "subset" in statement or "direction" in statement else where
    return Certificate(kinds.get(ex.method, ex.method), statement, domain=where, lower_bound=ex.lower_bound,
                       h=ex.h if ex.method not in ("finite set", "single point") else None, h_method=ex.h_method,
                       tolerances=tolerances)  # fmt: skip


# ---------------------------------------------------------------------------------
# the last word: checks in the caller's own coordinates
# ---------------------------------------------------------------------------------


def _demote(v: Verdict, why: str) -> Verdict:
    text = f"undetermined on {v.domain} — {why}"
    return Verdict(Status.UNDETERMINED, "", text, v.domain, None, None, bounds=v.bounds, notes=v.notes + (why,),
                   seconds=v.seconds, details=v.details)  # fmt: skip


def _confirm(v: Verdict, W: np.ndarray, alpha: np.ndarray, K: Domain, P: Normalised, budget: Budget, seed: Any) -> Verdict:
    if v.pair is not None:
        x, y = (np.asarray(p, dtype=float) for p in v.pair)
        if not (collides(W, alpha, x, y) and K.contains_certified(x) and K.contains_certified(y)):
            return _demote(v, "a colliding pair was found in the normal form but did not pass the check in the original "
                              "coordinates (equal outputs, both points certainly in K)")  # fmt: skip
        with np.errstate(over="ignore"):
            out = np.maximum(x @ W.T - alpha, 0.0)
        return replace(v, pair=(x, y), output=out)
    if v.status == Status.INJECTIVE and v.certificate is not None and v.certificate.kind not in ("finite set", "single point"):
        bad = _inconsistent_point(W, alpha, K, seed)
        if bad is not None:
            return _demote(v, f"internal inconsistency: the certificate ({v.certificate.kind}) fails at the point "
                              f"{vec(bad, limit=6)} of K, where the active rows do not span; please report it")  # fmt: skip
    return v


def _inconsistent_point(W: np.ndarray, alpha: np.ndarray, K: Domain, seed: Any) -> np.ndarray | None:
    """A sample point of ``K`` (caller's coordinates) that is clearly not rectifying, or None.

    Only points whose active set is decided with a margin count (the rank test uses the
    package's relative tolerance): a certificate claims that no such point exists.
    """
    coords, Kr = K.in_affine_coordinates()
    if Kr is None or K.finite:
        return None
    try:
        X = K.sample(N_CONSISTENCY, seed=seed)
    except (NotImplementedError, ReluFramesError):  # pragma: no cover - every domain samples
        return None
    X = np.vstack([X, K.interior_point()[None, :]])
    Wr = coords.rows(W)
    norms = robust_norms(Wr) if Wr.shape[1] else np.zeros(Wr.shape[0])
    Wr = Wr / np.where(norms > 0, norms, 1.0)[:, None]  # unit rows: no underflow in the rank test
    for x in X:
        with np.errstate(over="ignore", invalid="ignore"):
            pre = W @ x - alpha
        if not np.all(np.isfinite(pre)):
            continue
        scale = np.abs(W) @ np.abs(x) + np.abs(alpha)
        if np.any(np.abs(pre) <= 1e-9 * scale):  # too close to a switching hyperplane to judge
            continue
        rows = Wr[(pre >= 0) & (norms > 0)]
        d = coords.d
        if rows.shape[0] < d:
            return x
        s = np.linalg.svd(rows, compute_uv=False)
        if s[-1] <= 1e3 * DEFAULT_RANK_TOL * s[0]:
            return x
    return None
