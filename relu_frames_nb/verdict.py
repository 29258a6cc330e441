r"""One verdict on injectivity, shared by the CLI, the IPython extension and the explorers.

The decision uses only certificates:

1. on a finite data set (:class:`~relu_frames_nb.domains.Samples`) the answer is exact:
   two points share an output or none do;
2. ``alpha <= polytope bias`` (Thm "PBE") proves the alpha-rectifying property on ``K``;
   with ``K`` convex, or ``alpha`` strictly below the bound, Thm "Injectivity I" turns it
   into injectivity;
3. a verified colliding pair (:func:`~relu_frames_nb.rectifying.find_collision`) proves
   non-injectivity;
4. with ``alpha <= 0`` the exact zero-bias test (Tukey depth of the origin >= n) proves
   injectivity on R^n: 0-rectifying on the open set R^n, and smaller biases keep the
   property (Prop. "inclusive"); injective on R^n is injective on every K in it;
5. what is still open goes to the exact verdict (:func:`relu_frames_nb.exact.exact_verdict`):
   a mixed-integer program whose dual bound certifies injectivity, or a verified colliding
   pair, within a time limit;
6. anything else is "undetermined", with the evidence gathered and the bounds reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from ._deprecation import renamed_kwargs
from ._format import fmt, vec
from ._validation import as_count, as_nonnegative
from .domains import Domain
from .errors import InputError, ReluFramesError
from .layer import ReLULayer, as_layer

__all__ = ["Status", "Verdict", "decide", "EXIT_BAD_INPUT", "EXIT_INTERNAL_ERROR"]


class Status(str, Enum):
    """The three answers, spelled once for the verdicts, the CLI, the extension and the explorers.

    A ``Status`` is a ``str``: ``Status.NOT_INJECTIVE == "not injective"``.
    """

    INJECTIVE = "injective"
    NOT_INJECTIVE = "not injective"
    UNDETERMINED = "undetermined"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:  # reads as the plain string it equals
        return repr(self.value)

    @property
    def exit_code(self) -> int:
        """The command line's exit status: 0 injective, 1 not injective, 3 undetermined."""
        return {"injective": 0, "not injective": 1}.get(self.value, 3)


#: exit status for bad input (unreadable file, wrong shape, bad option)
EXIT_BAD_INPUT = 2
#: exit status for an internal error (a bug): never 1, which means "not injective"
EXIT_INTERNAL_ERROR = 4


@dataclass(frozen=True)
class Verdict:
    """Whether a layer is injective on a domain, how it was decided, and with what margin.

    Attributes
    ----------
    status : Status
        ``"injective"``, ``"not injective"`` or ``"undetermined"`` (a :class:`Status`, which is a ``str``).
    method : str
        How it was decided (``"polytope bias"``, ``"collision"``, ``"Tukey depth"``, ...).
    margin : float
        ``min_i (bound_i - alpha_i)`` for the polytope bias (positive: room to spare;
        negative: by how much the bias exceeds the guarantee); NaN when there is no bound.
    text : str
        One line for people, starting with the status.
    collision : Collision or None
        The verified colliding pair, when there is one.
    n_failing : int
        Points checked where the layer is not rectifying.
    n_checked : int
        Points checked (grid of the domain plus its boundary).
    exact : ExactVerdict or None
        The exact verdict (MILP), when it was run: its bounds on the least number of
        active frame vectors, the hyperplane number ``h`` and how it was found.
    """

    status: Status
    method: str
    margin: float
    text: str
    collision: Any = None
    n_failing: int = 0
    n_checked: int = 0
    exact: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))


@renamed_kwargs(domain="K")
def decide(
    layer: ReLULayer,
    K: Domain,
    *,
    points: Any = None,
    polytope: Any = None,
    n_samples: int = 4000,
    seed: Any = 0,
    max_candidates: int = 400,
    max_facets: int = 200_000,
    tol: float = 1e-9,
    exact: bool = True,
    time_limit: float = 30.0,
    progress: Any = None,
) -> Verdict:
    r"""Decide whether ``layer`` is injective on ``K`` from certificates only.

    See the module docstring for the order of the tests.

    Parameters
    ----------
    layer : ReLULayer
        The layer.
    K : Domain
        The domain (the keyword ``domain=`` still works, deprecated).
    points : array_like, shape (N, n), optional
        Points of ``K`` to check (default: ``n_samples`` samples of ``K``; a finite data set
        is always checked whole).
    polytope : BiasEstimate or Exception, optional
        A polytope bias estimate for ``(frame, domain)`` already computed (or the error it
        raised); computed here when omitted.
    n_samples : int, default 4000
        Samples of ``K`` drawn when ``points`` is not given.
    seed : int, optional
        Seed of those samples.
    max_candidates : int, default 400
        Failing points handed to the collision search.
    max_facets : int, default 200000
        Facet limit of the polytope bias (see :func:`~relu_frames_nb.polytope_bias`).
    tol : float, default 1e-9
        Relative tolerance when comparing ``alpha`` with the polytope bias: the weights
        themselves are rounded (the triangle frame's sqrt(3)/2, say), so a bias equal to
        the exact value may exceed the computed one by an ulp.
    exact : bool, default True
        Settle what the fast tests leave open with :func:`relu_frames_nb.exact.exact_verdict`
        (a MILP certificate or a verified colliding pair).
    time_limit : float, default 30
        Seconds for the exact verdict; when they run out the answer is "undetermined" with
        the bounds it reached.
    progress : None, bool or callable
        Progress of the exact verdict (see :func:`~relu_frames_nb.exact.exact_verdict`).

    Returns
    -------
    Verdict

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> rf.decide(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2)).status
    'injective'
    >>> rf.decide(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2)).status
    'not injective'
    """
    from .rectifying import find_collision, is_rectifying

    layer = as_layer(layer)
    if not isinstance(K, Domain) or K.n != layer.n:
        raise InputError(f"K must be a Domain in R^{layer.n}; got {K!r}.")
    n_samples = as_count(n_samples, "n_samples")
    tol = as_nonnegative(tol, "tol")
    time_limit = as_nonnegative(time_limit, "time_limit")
    alpha = layer.alpha
    where = K.describe()
    if K.finite:
        coll = find_collision(layer, K)
        n = K.points.shape[0]
        if coll.found:
            return Verdict(Status.NOT_INJECTIVE, "exact (finite set)", float("nan"),
                           f"not injective on {where} — two of its points share the output {vec(coll.output)}",
                           coll, 0, n)  # fmt: skip
        return Verdict(Status.INJECTIVE, "exact (finite set)", float("nan"),
                       f"injective on {where} — exact: no two points share an output", None, 0, n)  # fmt: skip
    if polytope is None and K.bounded:
        try:
            from .bias.polytope import polytope_bias

            polytope = polytope_bias(layer.frame, K, max_facets=max_facets)
        except ReluFramesError as exc:
            polytope = exc
    pbe = polytope if polytope is not None and not isinstance(polytope, Exception) else None
    margin = float(np.min(pbe.values - alpha)) if pbe is not None else float("nan")
    slack = tol * max(1.0, float(np.max(np.abs(alpha))))
    if pbe is not None and margin >= -slack and (K.open_or_convex or bool(np.all(alpha < pbe.values))):
        strict = bool(np.all(alpha < pbe.values))
        reason = "α < polytope bias" if strict else "α ≤ polytope bias on a convex domain"
        return Verdict(Status.INJECTIVE, "polytope bias", margin,
                       f"injective on {where} — proof: {reason} (Thm PBE + Injectivity I); margin {fmt(margin)}")  # fmt: skip
    X = K.sample(n_samples, seed=seed) if points is None else np.asarray(points, dtype=float)
    ok = is_rectifying(layer, X) if len(X) else np.zeros(0, dtype=bool)
    bad = X[~ok]
    n_bad, n_all = int(bad.shape[0]), int(X.shape[0])
    if n_bad:
        rng = np.random.default_rng(0)
        pick = bad if n_bad <= max_candidates else bad[rng.choice(n_bad, max_candidates, replace=False)]
        coll = find_collision(layer, K, points=pick)
        if coll.found:
            extra = f"; exceeds the polytope bias by {fmt(-margin)}" if pbe is not None else ""
            return Verdict(Status.NOT_INJECTIVE, "collision", margin,
                           f"not injective on {where} — verified collision C(x) = C(y) with x = {vec(coll.x)}, "
                           f"y = {vec(coll.y)} ({coll.method}); not rectifying at {n_bad} of {n_all} points checked{extra}",
                           coll, n_bad, n_all)  # fmt: skip
    if np.all(alpha <= 0):  # injective on R^n is injective on every K in R^n (verdicts are monotone in K)
        try:
            from .zero_bias import zero_bias_injective

            depth = zero_bias_injective(layer.frame)
            if depth.injective:
                sub = "" if not K.bounded and K.inner_radius == 0 else f", hence on its subset {where}"
                return Verdict(Status.INJECTIVE, "Tukey depth", float("nan"),
                               f"injective on R^{K.n}{sub} — proof: 0-rectifying (Tukey depth of 0 is {depth.depth} ≥ n) "
                               "and α ≤ 0", None, n_bad, n_all)  # fmt: skip
        except ReluFramesError:
            pass
    ex = None
    if exact and time_limit > 0:
        from .exact import exact_verdict

        ex = exact_verdict(layer, K, time_limit=time_limit, progress=progress, seed=seed)
        if ex.status != Status.UNDETERMINED:
            coll = None
            if ex.pair is not None:
                from .rectifying import Collision

                x, y = (np.asarray(p, dtype=float) for p in ex.pair)
                coll = Collision(True, x, y, layer(x), "verified", 1, "exact (MILP witness)")
            return Verdict(Status(ex.status), f"exact ({ex.method})" if ex.method else "exact", margin,
                           f"{ex.text}; the fast tests had left it open", coll, n_bad, n_all, ex)  # fmt: skip
    bounds = ""
    if ex is not None:
        bounds = f"; exact verdict undetermined within {fmt(time_limit, 3)} s ({ex.text.split(' — ', 1)[-1]})"
    if n_bad:
        return Verdict(Status.UNDETERMINED, "rectifying test", margin,
                       f"undetermined on {where} — not α-rectifying at {n_bad} of {n_all} points (not injective if K is "
                       f"open or strictly convex, Thm Injectivity II), but no colliding pair was verified{bounds}",
                       None, n_bad, n_all, ex)  # fmt: skip
    if pbe is not None:
        why = f"α exceeds the polytope bias (only sufficient) by {fmt(-margin)}"
    else:
        why = f"no polytope bias ({polytope})" if isinstance(polytope, Exception) else "no polytope bias on this domain"
    return Verdict(Status.UNDETERMINED, "rectifying test", margin,
                   f"undetermined on {where} — rectifying at all {n_all} points checked, no collision; {why}{bounds}",
                   None, 0, n_all, ex)  # fmt: skip
