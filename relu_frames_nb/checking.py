r"""The front door: :func:`check` answers "is this layer (or network) injective on K?".

One function for a :class:`~relu_frames_nb.ReLULayer` and a :class:`~relu_frames_nb.Network`
alike, one result (:class:`~relu_frames_nb.verdict.Verdict`), one budget for the whole check.
The command line, the IPython extension, the explorers, the notebooks and the book all call it.

A bias convention is never guessed: a raw ``(W, v)`` pair is refused everywhere, with a
message naming :class:`~relu_frames_nb.ReLULayer` (the paper's ``ReLU(W x - alpha)``) and
:meth:`~relu_frames_nb.ReLULayer.from_weights` / :meth:`~relu_frames_nb.Network.from_weights`
(PyTorch's ``ReLU(W x + b)``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ._layer_check import METHODS, STAGES, check_weights
from ._util.budget import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT
from ._util.threads import one_blas_thread
from ._util.validation import as_choice, as_count, as_time_limit
from .domains import as_domain
from .errors import InputError
from .exact.engine import ENGINE_STAGES
from .layer import CONVENTION_HELP, ReLULayer
from .network import Network
from .network.check import LAYER_STAGES as NETWORK_LAYER_STAGES
from .network.check import NETWORK_STAGES
from .network.check import check_network as _check_network
from .network.model import dead_unit_report
from .paper.local_invertibility import local_invertibility
from .pipeline import Context, Tolerances, stage_table
from .pipeline.tolerances import guard_table
from .verdict import Verdict

__all__ = ["check", "describe_stages", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY"]

#: what the verdict says about the bias of a lone layer
LAYER_BIAS = "bias read in the paper's convention ReLU(W x - alpha) (a ReLULayer)"


def _model(model: Any) -> ReLULayer | Network:
    if isinstance(model, (ReLULayer, Network)):
        return model
    if isinstance(model, (tuple, list)) and len(model) == 2 and all(hasattr(v, "__len__") for v in model):
        raise InputError(f"model must be a ReLULayer or a Network; got a {type(model).__name__} of two arrays: "
                         f"{CONVENTION_HELP}.")  # fmt: skip
    if isinstance(model, (tuple, list)):
        raise InputError(f"model must be a ReLULayer or a Network; got a {type(model).__name__}. For a list of "
                         "(W, b) pairs in PyTorch's convention use rf.Network.from_weights(pairs).")  # fmt: skip
    raise InputError(f"model must be a ReLULayer or a Network; got {type(model).__name__}. {CONVENTION_HELP[0].upper()}"
                     f"{CONVENTION_HELP[1:]}.")  # fmt: skip


def check(
    model: Any,
    K: Any,
    *,
    method: str = "auto",
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    memory_limit: float = DEFAULT_MEMORY,
    progress: Any = None,
    seed: Any = 0,
    n_samples: int = 4000,
    points: Any = None,
    near: Any = None,
    polytope: Any = None,
    max_facets: int = 200_000,
    max_candidates: int = 400,
    workers: int = 1,
) -> Verdict:
    r"""Is ``model`` injective on ``K``? A proof either way, or "undetermined" with what was reached.

    Parameters
    ----------
    model : ReLULayer or Network
        A layer :math:`\mathrm{ReLU}(\Phi x - \alpha)` (build it with ``rf.ReLULayer(W, alpha)``
        or, from PyTorch weights, ``rf.ReLULayer.from_weights(W, b)``) or a network
        (``rf.Network.from_weights``, ``.from_state_dict``, ``.from_sklearn``). A raw
        ``(W, v)`` pair is refused: its bias convention would have to be guessed.
    K : Domain or array_like, shape (N, n)
        The domain (an array is a finite data set, answered exactly).
    method : {"auto", "fast", "exact"}
        ``"fast"``: the paper's tests only (polytope bias, rectifying test with a collision
        search, Tukey depth); ``"exact"``: the exact stage only (MILP certificate or a verified
        pair); ``"auto"``: both, in that order (the fast tests get at most half of the time).
    time_limit : float or None, default 30
        Seconds for the whole check; the answer comes within the limit plus a little (one solver
        call's overshoot) as "undetermined" with what was reached. None: no limit.
    memory_limit : float, default 2 GiB
        Bytes of working memory; large products are cut into chunks that fit.
    progress : None, bool or callable
        The package's progress protocol: a bar on stderr counting seconds against the limit
        (``None``: only in a terminal), or a callable receiving dicts with ``done``, ``total``,
        ``stage`` and the bounds reached.
    seed : int, optional
        Seed of every random choice (samples of ``K``); the verdict is reproducible.
    n_samples : int, default 4000
        Points of ``K`` for the rectifying test of the fast stage.
    points : array_like, shape (N, n), optional
        Points of ``K`` to use instead of samples in the rectifying test.
    near : array_like, shape (n,), optional
        A point ``x0`` of ``K`` (finite numbers; a point outside ``K`` is refused) where the search for a
        colliding pair starts: a layer's rectifying test and collision search look at ``x0`` and points of
        ``K`` around it first, a network's local pair search starts there. A pair found there is checked
        like any other; none found leaves the check as it is without ``near`` (it goes on elsewhere). The
        details say ``near``: the distance of the pair's points from ``x0``. On a finite data set the
        search is exact and ``near`` only measures the pair's distance.
    polytope : BiasEstimate or Exception, optional
        The polytope bias of the layer on ``K`` if already computed (or the error it raised).
    max_facets : int, default 200000
        Facet limit of the polytope bias (see :func:`~relu_frames_nb.polytope_bias`).
    max_candidates : int, default 400
        Non-rectifying sample points handed to the collision search.
    workers : int, default 1
        Threads of the exact half-space-depth search (zero bias, or a bias on R^n, with numba installed): with more
        than one its subtrees are searched in parallel, within the same ``time_limit`` (wall time). The verdict is
        proved the same way; on two free cores a hard search took 1.6-2.0 times less wall time.

    Returns
    -------
    Verdict
        ``status``, ``method``, ``text``, ``certificate`` or ``pair`` (checked in your
        coordinates), ``bounds``, ``layers`` (networks), ``to_dict()``. On a data set, the
        details also say where the layer is locally invertible
        (:func:`~relu_frames_nb.local_invertibility`, given at most a quarter of the time limit
        or the time left, whichever is less; the points it reached are counted).

    Notes
    -----
    The problem is normalised once (:mod:`relu_frames_nb.pipeline.normal`: every row, its bias and the
    domain scaled by powers of two, which is exact), so the verdict does not change when ``K``
    and the bias, or a row and its bias, are scaled by the same factor, and does not depend on
    the order of the rows.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2)).status
    'injective'
    >>> v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    >>> v.status, v.pair is not None
    ('not injective', True)
    """
    model = _model(model)
    n = model.n
    K = as_domain(K, n)
    method = as_choice(method, "method", METHODS)
    time_limit = as_time_limit(time_limit)
    n_samples = as_count(n_samples, "n_samples")
    max_facets = as_count(max_facets, "max_facets")
    max_candidates = as_count(max_candidates, "max_candidates")
    x0 = _as_near(near, K)
    ctx = Context.create(time_limit=time_limit, memory_limit=memory_limit, progress=progress, seed=seed, workers=workers)
    # one BLAS thread: on a busy machine a multi-threaded BLAS waits for its threads far longer than the
    # factorisations take (an SVD of 1024 x 784 weights: 12.1 s with OpenBLAS's threads, 0.77 s with one,
    # at load 6.6 on two cores), and a budget cannot interrupt a BLAS call
    with ctx.budget, one_blas_thread():
        extra: dict = {}
        notes: tuple = ()
        if isinstance(model, Network):
            v = _check_network(model, K, method=method, budget=ctx.budget, seed=seed, near=None if K.finite else x0)
        else:
            W, alpha = np.asarray(model.weights), np.asarray(model.alpha)
            v = check_weights(W, alpha, K, method=method, ctx=ctx, n_samples=n_samples, points=points,
                              polytope=polytope, max_facets=max_facets, max_candidates=max_candidates,
                              near=None if K.finite else x0)  # fmt: skip
            if "bias" not in v.details:
                extra["bias"] = LAYER_BIAS
        if K.finite and (isinstance(model, ReLULayer) or len(model) == 1):
            layer = model if isinstance(model, ReLULayer) else model.relu_form()
            # an addition to the verdict, not part of it: at most a quarter of the limit (5 s at least)
            spare = None if time_limit is None else min(ctx.remaining(), max(5.0, 0.25 * time_limit))
            li = local_invertibility(layer, K.points, time_limit=spare, seed=seed)
            extra["local_invertibility"] = {
                "fraction": li.fraction if li.n_tested else None, "span_dim": li.span_dim, "n_points": int(li.invertible.size),
                "n_tested": li.n_tested, "failing_points": li.failing[:50].tolist(), "text": li.text,
            }  # fmt: skip
            notes = (li.text,)
            extra["hull_hint"] = "for a verdict on the data's convex hull (a polytope) use the domain Hull(X) (hull:FILE)"
        if K.data_points is not None:  # a data set or its hull: the units the data never activate (a description)
            extra["dead_units"], said = dead_unit_report(model, K.data_points)
            notes = (*notes, said)
        if x0 is not None:
            extra["near"], said = _near_report(x0, v.pair)
            notes = (*notes, said)
        extra["stages"] = list(dict.fromkeys(ctx.budget.stages))  # in the order first reached, each once
        extra["time_limit"] = time_limit
        return replace(v, notes=(*v.notes, *notes), details={**v.details, **extra})



def _as_near(near: Any, K: Any) -> np.ndarray | None:
    """``near=`` as a finite point of ``K`` (shape ``(n,)``), or None; anything else is an InputError."""
    if near is None:
        return None
    try:
        x0 = np.array(near, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"near must be a point of K, an array of shape ({K.n},); got {type(near).__name__}.") from None
    if x0.shape != (K.n,):
        raise InputError(f"near must be a point of K, an array of shape ({K.n},) (the model's input size); got shape "
                         f"{x0.shape}. Flatten an image to one row (x.reshape(-1)).")  # fmt: skip
    if not np.all(np.isfinite(x0)):
        raise InputError(f"near must hold finite numbers; got {int(np.sum(~np.isfinite(x0)))} NaN or infinite entries.")
    if not K.finite and not K.contains(x0):
        raise InputError(f"near must be a point of K ({K.describe()}); got a point outside it. Give a point of the domain "
                         "(or a domain that contains the point).")  # fmt: skip
    return x0


def _near_report(x0: np.ndarray, pair: Any) -> tuple[dict, str]:
    """``details["near"]`` and its note: how far the pair lies from ``near=``'s point."""
    if pair is None:
        return {"distance": None, "pair": False}, "near=: no colliding pair, so no distance from the given point"
    d = [float(np.linalg.norm(np.asarray(p, dtype=float) - x0)) for p in pair]
    said = (f"near=: the pair's points lie at distances {d[0]:.3g} and {d[1]:.3g} from the given point (Euclidean; "
            f"max {max(d):.3g})")  # fmt: skip
    return {"distance": max(d), "distances": d, "pair": True}, said


def describe_stages() -> dict:
    """The stage lists a check runs, as tables, and the tolerances they use (the book's page "How a check runs").

    Returns
    -------
    dict
        ``"methods"``: for each ``method`` of :func:`check`, the rows of its list (order, name, what the stage does,
        what it proves, its share of the time); ``"exact engine"``: the rows of the exact engine's own searches;
        ``"network"`` and ``"network layer"``: a network's own stages and what each of its layers runs;
        ``"tolerances"``: ``(name, default, what it bounds)`` for every tolerance; ``"guards"``: the same for the
        exact engine's fixed numerical guards.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> [row["name"] for row in rf.describe_stages()["methods"]["fast"]]
    ['finite set', 'polytope bias', 'rectifying test', 'collision search', 'interior point', 'Tukey depth']
    """
    return {
        "methods": {method: stage_table(STAGES[method]) for method in METHODS},
        "exact engine": stage_table(ENGINE_STAGES),
        "network": stage_table(NETWORK_STAGES),
        "network layer": stage_table(NETWORK_LAYER_STAGES),
        "tolerances": Tolerances.table(),
        "guards": guard_table(),
    }
