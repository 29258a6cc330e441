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
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._validation import as_choice, as_count, as_nonnegative, as_positive, as_rng
from ..domains import Domain, Samples, as_domain
from ..layer import as_weights
from ._hyperplanes import HyperplaneInfo, hyperplane_info
from ._search import (
    PAIR_RTOL,
    _hyperplane_method,
    _lower,
    _milp_method,
    _near_zero_bias,
    _Run,
    _sample_search,
    _zero_bias_certificate,
)

__all__ = ["ExactVerdict", "exact_verdict", "PAIR_RTOL"]


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
# public entry point
# ---------------------------------------------------------------------------------


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
    W, alpha = as_weights(layer)
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
