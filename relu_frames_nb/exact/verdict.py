r"""The exact verdict: a certificate of injectivity or a verified colliding pair.

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
* **witness**: a point of ``K`` whose active rows do not span, turned into two distinct
  points of ``K`` with the same output (:mod:`._witness`), checked in float64.

Special cases: weights that do not span (a null-space direction collides anywhere);
degenerate boxes and hulls of data in a subspace (the verdict works in the domain's own
affine coordinates); zero bias with the origin in ``K`` (active sets depend on the direction
only: the faces of the cube ``[-1, 1]^n`` within the domain's cone are solved instead, which
avoids the degenerate origin); ``R^n`` with a bias (homogenised to zero bias in
``R^{n+1}`` on the half-space ``t >= 0``); a finite data set (outputs compared directly).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._validation import as_bias, as_choice, as_count, as_matrix, as_nonnegative, as_positive, as_rng
from ..domains import Domain, Samples, as_domain
from ..layer import ReLULayer, as_layer
from ._hyperplanes import HyperplaneInfo, hyperplane_info
from ._milp import solve_count
from ._regions import Region
from ._witness import build_pair, descend

__all__ = ["ExactVerdict", "exact_verdict", "PAIR_RTOL"]

#: two outputs are equal when they differ by at most PAIR_RTOL * max(1, |output|_inf)
PAIR_RTOL = 1e-9
#: the two points of a pair are at least this far apart, relative to max(1, |x|)
PAIR_MIN_SEPARATION = 1e-9
#: membership tolerance for the points of a pair (relative, as in Domain.contains)
PAIR_MEMBERSHIP_TOL = 1e-9


@dataclass(frozen=True)
class ExactVerdict:
    r"""Outcome of :func:`exact_verdict`.

    Attributes
    ----------
    status : str
        ``"injective"``, ``"not injective"`` or ``"undetermined"``.
    lower_bound, upper_bound : int or None
        Bounds on the fewest active rows over ``K`` (in the domain's own coordinates).
        ``lower_bound > h`` is the certificate; ``upper_bound`` comes from actual points of
        ``K``. None when nothing was established.
    h : int
        The largest number of frame vectors in one hyperplane (see ``h_method``).
    h_method : str
        How ``h`` was obtained: enumerated exactly, or assumed with the checks made.
    witness : ndarray or None
        A point of ``K`` whose active sub-frame does not span.
    pair : tuple of two ndarrays or None
        Two distinct points of ``K`` with the same output (``witness`` is the first).
    n_active, rank : int or None
        Active rows at the witness and their rank.
    seconds : float
        Wall time.
    n_solves : int
        MILP and LP solves.
    domain : Domain
        ``K``.
    method : str
        ``"milp"``, ``"hyperplanes"``, ``"null space"``, ``"samples"``, ``"finite set"`` or ``""``.
    notes : tuple of str
        Assumptions, reductions and limits met on the way.
    text : str
        One line for people, starting with the status.
    pair_tolerance : float
        The relative tolerance of the output comparison of the pair (``PAIR_RTOL``).
    """

    status: str
    lower_bound: int | None
    upper_bound: int | None
    h: int
    h_method: str
    witness: np.ndarray | None
    pair: tuple | None
    n_active: int | None
    rank: int | None
    seconds: float
    n_solves: int
    domain: Domain
    method: str = ""
    notes: tuple = ()
    text: str = ""
    pair_tolerance: float = PAIR_RTOL

    @property
    def decided(self) -> bool:
        """True for ``"injective"`` and ``"not injective"``."""
        return self.status != "undetermined"

    def __repr__(self) -> str:
        return f"ExactVerdict({self.text!r})"

    def to_dict(self) -> dict:
        """A JSON-serialisable summary (arrays as lists, the domain by its description)."""

        def vec(a):
            return None if a is None else [float(v) for v in np.asarray(a).ravel()]

        return {
            "status": self.status,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "h": self.h,
            "h_method": self.h_method,
            "witness": vec(self.witness),
            "pair": None if self.pair is None else [vec(self.pair[0]), vec(self.pair[1])],
            "pair_tolerance": self.pair_tolerance,
            "n_active": self.n_active,
            "rank": self.rank,
            "seconds": self.seconds,
            "n_solves": self.n_solves,
            "domain": self.domain.describe(),
            "method": self.method,
            "notes": list(self.notes),
            "text": self.text,
        }


# ---------------------------------------------------------------------------------
# internal state
# ---------------------------------------------------------------------------------


@dataclass
class _Sub:
    """One counting problem: rows ``Phi`` (same order as the base rows), bias ``a``, region."""

    name: str
    Phi: np.ndarray
    a: np.ndarray
    region: Region | None
    lift: Callable[[np.ndarray], np.ndarray | None]
    lower: int = -1
    certified: bool = False
    closed: bool = False
    bounds: tuple | None = None
    covers: list = field(default_factory=list)
    solves: int = 0


@dataclass
class _Run:
    W: np.ndarray
    alpha: np.ndarray
    K: Domain
    Kr: Any
    c: np.ndarray
    U: np.ndarray
    Phi: np.ndarray
    a: np.ndarray
    center: np.ndarray | None
    deadline: float
    t0: float
    report: Callable
    eps: float
    tol: float = 0.0
    scale: float = 1.0
    notes: list = field(default_factory=list)
    n_solves: int = 0
    upper: int | None = None
    pair: tuple | None = None
    pair_info: tuple | None = None

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()

    def to_x(self, z: np.ndarray) -> np.ndarray:
        return self.c + self.U @ z

    def outputs(self, X: np.ndarray) -> np.ndarray:
        return np.maximum(X @ self.W.T - self.alpha, 0.0)

    def note_upper(self, count: int) -> None:
        self.upper = count if self.upper is None else min(self.upper, count)

    def try_witness(self, z: np.ndarray | None) -> bool:
        """Build and verify a pair from a point ``z`` of the reduced domain; True on success."""
        if z is None or self.pair is not None:
            return self.pair is not None
        built = build_pair(self.Phi, self.a, self.Kr, np.asarray(z, float), self.center)
        if built is None:
            return False
        z1, z2, n_act, rank = built
        x, y = self.to_x(z1), self.to_x(z2)
        if _verify_pair(self, x, y):
            self.pair, self.pair_info = (x, y), (n_act, rank)
            self.note_upper(n_act)
            return True
        return False


def _verify_pair(run: _Run, x: np.ndarray, y: np.ndarray) -> bool:
    if np.linalg.norm(x - y) < PAIR_MIN_SEPARATION * max(1.0, float(np.linalg.norm(x))):
        return False
    if not (run.K.contains(x, tol=PAIR_MEMBERSHIP_TOL) and run.K.contains(y, tol=PAIR_MEMBERSHIP_TOL)):
        return False
    Lx, Ly = run.outputs(x[None])[0], run.outputs(y[None])[0]
    return bool(np.max(np.abs(Lx - Ly)) <= PAIR_RTOL * max(1.0, float(np.max(np.abs(Lx)))))


# ---------------------------------------------------------------------------------
# public entry point
# ---------------------------------------------------------------------------------


def _parse_layer(layer: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(layer, ReLULayer):
        return np.array(layer.frame.vectors), np.array(layer.alpha)
    if isinstance(layer, tuple) and len(layer) == 2:
        W = as_matrix(layer[0], "weights")
        return W, as_bias(layer[1], W.shape[0], "alpha")
    as_layer(layer)  # raises the standard message
    raise AssertionError  # pragma: no cover


def exact_verdict(
    layer: Any,
    K: Any,
    *,
    time_limit: float = 60.0,
    progress: Any = None,
    method: str = "auto",
    eps: float = 1e-6,
    tol: float = 1e-6,
    n_samples: int = 2000,
    seed: Any = 0,
    max_subsets: int = 200_000,
) -> ExactVerdict:
    r"""Decide whether a ReLU layer is injective on ``K``: a certificate or a verified pair.

    Parameters
    ----------
    layer : ReLULayer or tuple (W, alpha)
        The layer :math:`x \mapsto \mathrm{ReLU}(W x - \alpha)` (paper convention: the bias
        is subtracted). A raw pair ``(W, alpha)`` may have weights that do not span R^n.
    K : Domain or array_like, shape (N, n)
        The domain: :class:`~relu_frames_nb.domains.Box`, ``Polytope``, ``Hull`` (exact),
        ``Ball``, ``PositiveBall``, ``Shell``, ``Sphere`` (outer polytope refined by
        tangent cuts; certificates only on the sphere), ``RealSpace``, or a finite data set
        (``Samples`` or an array of points: outputs compared exactly).
    time_limit : float
        Seconds for the whole verdict (split across solves). When it runs out the status is
        ``"undetermined"`` with both bounds.
    progress : None, bool or callable
        None/False: silent. True: a line per stage on stderr (a tqdm bar if installed). A
        callable receives a dict (``stage``, ``lower``, ``upper``, ``seconds``, ``solves``).
    method : {"auto", "milp", "hyperplanes"}
        ``"hyperplanes"``: one LP per hyperplane spanned by frame vectors (exact, for small
        ``C(m, n-1)``); ``"milp"``: the counting MILP; ``"auto"`` picks by size.
    eps : float
        Bias increase (relative to ``max(1, radius)``) absorbing the solvers' feasibility
        tolerances in certificates (default ``1e-6``; HiGHS's own tolerances are ``1e-7``).
    tol : float
        Boundary cases (relative to ``max(1, radius)``): when there is neither a certificate
        at ``alpha + eps`` nor a witness with a margin, the certificate is retried at
        ``alpha - tol``; success gives ``"injective"`` with a note that it holds up to that
        tolerance (e.g. the triangle frame at exactly its maximal bias ``-1/2`` on the
        ball). ``tol=0`` turns this off.
    n_samples : int
        Seeded points of ``K`` examined first (cheap witnesses and the first upper bound).
    seed : int, Generator or None
        Seed of the sampling.
    max_subsets : int
        ``h`` is computed exactly when ``C(m, n-1) <= max_subsets``; otherwise general
        position (``h = n - 1``) is assumed and checked as far as cheap (see ``h_method``).

    Returns
    -------
    ExactVerdict

    Notes
    -----
    A certificate on a polytope ``P ⊇ K`` at bias ``alpha + eps`` proves injectivity on
    ``K``; a pair is reported only after both points were checked in ``K`` (tolerance
    ``1e-9``), at distance at least ``1e-9 max(1, |x|)``, with outputs equal up to
    ``PAIR_RTOL * max(1, |L(x)|_inf)``. Sphere: a non-spanning active set on the sphere
    gives no collision by itself (the sphere is neither open nor convex), so only
    certificates are sought there.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> from relu_frames_nb.exact import exact_verdict
    >>> v = exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2))
    >>> v.status
    'injective'
    >>> exact_verdict(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2)).status
    'not injective'
    """
    t0 = time.perf_counter()
    W, alpha = _parse_layer(layer)
    m, n = W.shape
    K = as_domain(K, n)
    time_limit = as_positive(time_limit, "time_limit")
    method = as_choice(method, "method", ("auto", "milp", "hyperplanes"))
    eps = as_nonnegative(eps, "eps")
    tol = as_nonnegative(tol, "tol")
    n_samples = as_count(n_samples, "n_samples", minimum=0)
    max_subsets = as_count(max_subsets, "max_subsets", minimum=0)
    rng = as_rng(seed)
    report = _reporter(progress, time_limit)
    try:
        return _decide(W, alpha, K, t0, time_limit, report, method, (eps, tol), n_samples, rng, max_subsets)
    finally:
        report(None)


def _decide(W, alpha, K, t0, time_limit, report, method, eps, n_samples, rng, max_subsets) -> ExactVerdict:
    from ._cases import finite_verdict, prepare, unsupported

    if isinstance(K, Samples):
        return finite_verdict(W, alpha, K, t0)
    bad = unsupported(K)
    if bad:
        return _result(K, "undetermined", None, None, HyperplaneInfo(0, False, "not computed"), None, t0, 0, "", [bad])
    run, early = prepare(W, alpha, K, t0, time_limit, report, *eps)
    if early is not None:
        return early
    d = run.Phi.shape[1]
    info = hyperplane_info(run.Phi, max_subsets=max_subsets)
    h = info.h
    if not info.usable:
        run.notes.append("h is only a lower estimate, so no certificate by counting is possible: " + info.method)
    from ._cases import subproblems

    subs = subproblems(run)
    report({"stage": "samples", "lower": None, "upper": run.upper})
    # 1. cheap witnesses: samples, then a greedy descent from the best of them
    _sample_search(run, subs, h, n_samples, rng)
    if run.pair is None and method != "hyperplanes" and _near_zero_bias(run) and info.usable:
        if _zero_bias_certificate(run, h, report):
            proof = f"at zero bias every direction keeps more than h = {h} frame vectors active (MILP on the faces"
            text = (
                f"injective on {run.K.describe()} — proof: {proof} of the cube), and every bias is ≤ 0 (smaller biases "
                "only add active rows)"
            )
            if not info.exact:
                text += "; h assumed (general position, checked)"
            return _result(run.K, "injective", h + 1, run.upper, info, None, run.t0, run.n_solves, "milp", run.notes, text)
    use_hyper = (
        info.sets is not None
        and method != "milp"
        and (method == "hyperplanes" or len(info.sets) * len(subs) <= 400 or (h > d - 1 and len(info.sets) * len(subs) <= 20_000))
    )
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
            report({"stage": "hyperplanes", "lower": None, "upper": run.upper})
            if _hyperplane_method(run, subs, info, shift):
                return _finish(run, subs, info, "hyperplanes", certified=run.pair is None, boundary=boundary)
            if method == "hyperplanes":
                continue
            used = "milp"
        if run.pair is None:
            _milp_method(run, subs, h, info.usable, report, shift)
        if run.pair is None and info.usable and all(s.certified for s in subs):
            return _finish(run, subs, info, "milp", certified=True, boundary=boundary)
    return _finish(run, subs, info, used, certified=False)


# ---------------------------------------------------------------------------------
# stages
# ---------------------------------------------------------------------------------


def _near_zero_bias(run: _Run) -> bool:
    """Every bias is <= 0, some is not 0, and all are within 5% of the domain's size of 0."""
    a = run.a
    return bool(np.all(a <= 0) and np.any(a < 0) and np.max(np.abs(a)) <= 0.05 * run.scale)


def _zero_bias_certificate(run: _Run, h: int, report) -> bool:
    """Try the zero-bias certificate on the faces of the cube with 40% of the remaining time."""
    from ._cases import zero_bias_faces

    subs = zero_bias_faces(run)
    if not subs:
        return False
    for sub in subs:
        if sub.region is None:  # 0-dimensional faces (n = 1): counted directly
            sub.certified = sub.lower > h
            sub.closed = True
    deadline, notes = run.deadline, list(run.notes)
    run.deadline = time.perf_counter() + 0.4 * run.remaining()
    try:
        _milp_method(run, subs, h, True, report, run.eps)
    finally:
        run.deadline = deadline
        run.notes[:] = notes  # the zero-bias attempt's own remarks are not about this layer
    if all(s.certified for s in subs):
        run.notes.append("the biases are <= 0 and near 0: certified at zero bias, which covers every bias <= 0")
        return True
    run.notes.append("the biases are <= 0 and near 0: the zero-bias certificate was tried first and did not settle it")
    return False


def _sample_search(run: _Run, subs: list, h: int, n_samples: int, rng) -> None:
    for sub in subs:
        if run.pair is not None or sub.region is None:
            continue
        if n_samples == 0 or run.remaining() <= 0:
            break
        N = max(1, min(n_samples, 20_000_000 // max(sub.Phi.shape[0], 1)))  # bounded memory
        S = sub.region.sample(N, rng)
        counts = (S @ sub.Phi.T - sub.a >= 0).sum(axis=1)
        order = np.argsort(counts, kind="stable")
        lifted_best = None
        for i in order[:50]:
            z = sub.lift(S[i])
            if z is None:
                continue
            if lifted_best is None:
                lifted_best = int(counts[i])
                run.note_upper(lifted_best)
            if counts[i] <= h and run.try_witness(z):
                return
        # greedy descent from the few best points (each a short series of LPs)
        budget = min(0.1 * run.remaining(), 1.0 + 0.02 * run.remaining())
        stop = time.perf_counter() + budget
        for i in order[:5]:
            if time.perf_counter() > stop or run.remaining() <= 0:
                break
            got = descend(sub.Phi, sub.a, sub.region, S[i], target=h, deadline=stop)
            run.n_solves += 1
            if got is None:
                continue
            z_s, count = got
            z = sub.lift(z_s)
            if z is None:
                continue
            run.note_upper(count)
            if count <= h and run.try_witness(z):
                return


def _hyperplane_method(run: _Run, subs: list, info: HyperplaneInfo, shift: float) -> bool:
    """One LP per (subproblem, hyperplane set); True when decided (pair or all cells empty).

    A cell counts as empty when it misses the domain at the bias ``a + shift`` (``shift =
    eps`` for a robust certificate, ``-tol`` for the boundary pass).
    """
    open_cells = 0
    for sub in subs:
        if sub.region is None:
            if sub.lower <= info.h and sub.lower >= 0:
                open_cells += 1
            continue
        norms = np.linalg.norm(sub.Phi, axis=1)
        eps = shift * norms
        for T in info.sets:
            if run.remaining() <= 0:
                run.notes.append("time limit reached during the hyperplane LPs")
                return False
            Z = ~T
            run.n_solves += 1
            if sub.region.cell_empty(sub.Phi[Z], sub.a[Z] + eps[Z]):
                continue
            p, _ = sub.region.cell_point(sub.Phi[Z], sub.a[Z])
            if p is not None and run.try_witness(sub.lift(p)):
                return True
            open_cells += 1
    if open_cells:
        run.notes.append(f"{open_cells} hyperplane cell(s) neither empty nor realised by a verified witness")
        return False
    for sub in subs:
        sub.certified = True
    return True


def _milp_method(run: _Run, subs: list, h: int, usable: bool, report, shift: float) -> None:
    """Counting MILPs at the bias ``a + shift``, round-robin over the subproblems until decided.

    On an exact region one solve settles it (optimum > h: certificate; else its incumbent's
    cell is realised with a margin: witness). On a round region an incumbent outside K
    yields a combinatorial Benders cut (a few rows of which every point of K has one on)
    and a tangent cut, and the MILP is solved again, then as a feasibility problem with
    the cutoff ``sum b <= h`` (it stops at the first candidate).
    """
    if shift < 0:
        for sub in subs:
            sub.covers = []  # covers are valid for the bias they were computed at
            sub.solves = 0
    open_subs = [s for s in subs if not (s.certified or s.closed) and s.region is not None]
    tried_margin: set[int] = set()
    while open_subs and run.pair is None and run.remaining() > 0.05:
        for sub in list(open_subs):
            if run.pair is not None or run.remaining() <= 0.05:
                break
            budget = run.remaining() / max(len(open_subs), 1)
            if sub.solves == 0 and budget > 5.0:
                budget *= 0.2  # a short first solve: its incumbent may already be a witness
            norms = np.linalg.norm(sub.Phi, axis=1)
            beta = sub.a + shift * norms
            if sub.bounds is None:
                sub.bounds = sub.region.row_bounds(sub.Phi)
                if shift >= 0:  # rows on all over the domain: a first, always valid lower bound
                    sub.lower = max(sub.lower, int((sub.bounds[0] > beta).sum()))
            res = solve_count(
                sub.Phi, beta, sub.region, time_limit=budget, bounds=sub.bounds, covers=sub.covers,
                cutoff=h if usable else None, feasibility=sub.solves > 0 and not sub.region.exact,
            )  # fmt: skip
            sub.solves += 1
            run.n_solves += 1
            if shift >= 0:  # bounds at a lowered bias are not bounds at alpha
                sub.lower = max(sub.lower, res.lower)
            report({"stage": f"milp {sub.name}".strip(), "lower": _lower(subs), "upper": run.upper})
            if res.lower > h and usable:
                sub.certified = True
                open_subs.remove(sub)
                continue
            if res.on is None or res.value is None or res.value > h:
                # no candidate below the threshold: only more time could help
                if res.status in ("optimal", "trivial", "infeasible") or (res.status == "time limit" and not usable):
                    sub.closed = True
                    open_subs.remove(sub)
                continue
            if _process_candidate(run, sub, res, beta, norms, h, tried_margin):
                continue
            sub.closed = True
            open_subs.remove(sub)


def _process_candidate(run: _Run, sub: _Sub, res, beta, norms, h: int, tried_margin: set) -> bool:
    """Turn an incumbent into a witness or a cut; True when the subproblem should be solved again."""
    Z = ~res.on
    region = sub.region
    if not region.exact:
        S, u = region.cover(sub.Phi[Z], beta[Z])
        if S is not None:
            sub.covers.append(np.flatnonzero(Z)[S])
            region.add_cut(u)
            return True
    p, cut = region.cell_point(sub.Phi[Z], sub.a[Z])
    if p is not None:
        if run.try_witness(sub.lift(p)):
            return False
        run.notes.append(f"{sub.name or 'MILP'}: a candidate with {res.value} active rows spans (h > n - 1 frame)")
        return False
    if not region.exact:
        if cut is not None and (res.z is None or (cut / np.linalg.norm(cut)) @ res.z > region.r * (1 + 1e-9)):
            region.add_cut(cut)
            return True
        if res.z is not None and np.linalg.norm(res.z) > region.r * (1 + 1e-9):
            region.add_cut(res.z)
            return True
    # the candidate leans on the tolerance: ask for a margin once
    if id(sub) not in tried_margin:
        tried_margin.add(id(sub))
        delta = max(1e-6 * run.scale, 1e3 * run.eps)
        res2 = solve_count(
            sub.Phi, sub.a - delta * norms, region, time_limit=run.remaining() / 2, covers=None, cutoff=h, feasibility=True
        )
        run.n_solves += 1
        if res2.on is not None and res2.value is not None and res2.value <= h:
            Z2 = ~res2.on
            p2, cut2 = region.cell_point(sub.Phi[Z2], sub.a[Z2])
            if p2 is not None and run.try_witness(sub.lift(p2)):
                return False
            if cut2 is not None and not region.exact:
                region.add_cut(cut2)
                return True
    run.notes.append(f"{sub.name or 'MILP'}: the best candidate could not be realised inside K")
    return False


def _lower(subs: list) -> int | None:
    vals = [s.lower for s in subs]
    return None if any(v < 0 for v in vals) else min(vals)


# ---------------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------------


def _finish(run: _Run, subs: list, info: HyperplaneInfo, method: str, *, certified: bool, boundary: bool = False) -> ExactVerdict:
    d = run.Phi.shape[1]
    K = run.K
    if run.pair is not None:
        n_act, rank = run.pair_info
        x, y = run.pair
        lower = _lower(subs)
        text = (
            f"not injective on {K.describe()} — witness: at x = {_vec(x)} only {n_act} frame vector(s) are active "
            f"(rank {rank} < {d}); x and y = {_vec(y)} (|x − y| = {np.linalg.norm(x - y):.2g}) have the same output"
        )
        return _result(K, "not injective", lower, run.upper, info, run.pair, run.t0, run.n_solves, method, run.notes,
                       text, n_act, rank)  # fmt: skip
    lower = _lower(subs)
    if certified:
        if method == "hyperplanes":
            lower = max(lower or 0, d)
            proof = (
                f"for each of the {len(info.sets)} hyperplanes spanned by frame vectors, no point of the domain has "
                f"every other frame vector inactive (one LP each)"
            )
        elif boundary:
            proof = f"every point keeps more than h = {info.h} frame vectors active (MILP dual bound)"
        else:
            proof = f"every point keeps ≥ {lower} > h = {info.h} frame vectors active (MILP dual bound)"
        text = f"injective on {K.describe()} — proof: {proof}"
        if not info.exact:
            text += "; h assumed (general position, checked)"
        if boundary:
            rel = run.tol / run.scale
            text += f" — boundary case: shown for the bias lowered by {rel:.0e} (relative), exact up to that tolerance"
            run.notes.append(
                f"boundary case: no certificate at the bias raised by {run.eps / run.scale:.0e} (relative) and no witness "
                f"with a margin; the certificate holds for the bias lowered by {rel:.0e}: the bias sits on the threshold "
                "to within rounding"
            )
        return _result(K, "injective", lower, run.upper, info, None, run.t0, run.n_solves, method, run.notes, text)
    lo = "?" if lower is None else str(lower)
    up = "?" if run.upper is None else str(run.upper)
    reason = "time limit" if run.remaining() <= 0.05 else "no proof either way"
    text = (
        f"undetermined on {K.describe()} after {time.perf_counter() - run.t0:.1f} s ({reason}) — the fewest active "
        f"frame vectors is between {lo} and {up}; injective needs > h = {info.h}"
    )
    return _result(K, "undetermined", lower, run.upper, info, None, run.t0, run.n_solves, method, run.notes, text)


def _result(K, status, lower, upper, info, pair, t0, n_solves, method, notes, text="", n_act=None, rank=None):
    if not text:
        text = f"{status} on {K.describe()} — " + ("; ".join(notes) if notes else "")
    return ExactVerdict(
        status=status,
        lower_bound=None if lower is None or lower < 0 else int(min(lower, 10**9)),
        upper_bound=None if upper is None else int(upper),
        h=int(info.h),
        h_method=info.method,
        witness=None if pair is None else np.array(pair[0]),
        pair=None if pair is None else (np.array(pair[0]), np.array(pair[1])),
        n_active=n_act,
        rank=rank,
        seconds=time.perf_counter() - t0,
        n_solves=int(n_solves),
        domain=K,
        method=method,
        notes=tuple(notes),
        text=text,
    )


def _vec(v: np.ndarray, k: int = 4) -> str:
    v = np.asarray(v).ravel()
    body = ", ".join(f"{c:.3g}" for c in v[:k])
    return f"({body}{', …' if v.size > k else ''})"


def _reporter(progress: Any, time_limit: float) -> Callable:
    if progress is None or progress is False:
        return lambda info: None
    t0 = time.perf_counter()
    if callable(progress):

        def call(info):
            if info is not None:
                progress({**info, "seconds": time.perf_counter() - t0})

        return call
    bar = None
    try:
        from tqdm.auto import tqdm

        bar = tqdm(total=round(time_limit, 1), unit="s", desc="exact verdict", file=sys.stderr, leave=False)
    except ImportError:  # pragma: no cover - tqdm is optional
        bar = None

    def show(info):
        if info is None:
            if bar is not None:
                bar.close()
            return
        elapsed = time.perf_counter() - t0
        lo, up = info.get("lower"), info.get("upper")
        msg = f"{info.get('stage', '')}: bounds [{'?' if lo is None else lo}, {'?' if up is None else up}]"
        if bar is not None:
            bar.n = min(round(elapsed, 1), bar.total)
            bar.set_postfix_str(msg)
        else:  # pragma: no cover
            print(f"exact verdict {elapsed:.1f}s {msg}", file=sys.stderr)

    return show
