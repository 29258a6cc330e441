r"""The exact stage for points of a ball or a polytope: a branch and bound over removal sets.

A layer is injective on ``K`` when every point of ``K`` keeps more than ``h`` rows active. The
counting MILP (:mod:`._milp`) bounds that number through its big-M relaxation, which says little once
the layer is wide. This stage asks the same question the way :mod:`relu_frames_nb.paper.depth` asks it for
directions: is there a set ``T`` of at most ``h`` rows such that every other row is strictly inactive
at one point of ``K``? Sets of rows that cannot all be inactive in ``K`` play the part of circuits;
each is found and proved by one least-distance problem in a ball around ``K``
(:func:`relu_frames_nb.paper.depth.fewest_active_exceeds`), and the domain's facets enter as rows that are
never removed.

Which set is searched (:func:`search_set`): a ball itself, with the facets ``x >= 0`` for the
positive ball; a box or a polytope given by inequalities, with a ball around it; the outer ball of a
shell or a sphere (a set *containing* ``K``: a certificate there covers ``K``, a point found there
must still be in ``K`` to give a witness). A hull has no inequalities at hand: the search starts from
a ball and the bounding box around its points and adds a facet-like cut whenever it stops at a point
outside the hull (one LP separates the point from the points; the cut's right-hand side is the largest
value over the points, rounded up, so it holds on the whole hull).

A certificate is a proof for the rows as given (exact rescalings of the caller's); a point found
becomes a witness only through the engine's pair construction and check.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from .._util.lp import linprog_quiet
from .._util.tolerances import BALL_ROUNDING_PAD
from ..paper.depth import fewest_active_exceeds
from ._hyperplanes import HyperplaneInfo
from ._state import Run

__all__ = ["SearchSet", "search_set", "hull_separator", "removal_stage"]

_U = 2.0**-53


class SearchSet(NamedTuple):
    """A set containing the domain: the ball ``|x - center| <= radius`` and ``A x <= b`` (``facets``), with
    cuts from ``separate`` (a hull); ``exact`` when it is the domain itself.
    """

    center: np.ndarray
    radius: float
    facets: tuple | None
    exact: bool
    separate: Callable | None = None


def _box_ball(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, float]:
    """A center and a radius (rounded up) of a ball holding the box ``lo <= x <= hi``."""
    center = 0.5 * lo + 0.5 * hi
    half = np.maximum(hi - center, center - lo)
    return center, float(np.sqrt(np.sum(half * half))) * (1 + 4 * (lo.size + 4) * _U) * (1 + BALL_ROUNDING_PAD)


def hull_separator(X: np.ndarray) -> Callable[[np.ndarray], tuple | None]:
    """``separate(x)`` for the hull of the rows of ``X``: None when ``x`` is in it (to the LP's accuracy), else
    ``(a, b)`` with ``<a, y> <= b`` at every point of the hull (``b`` rounded up) and ``<a, x> > b``.
    """
    X = np.asarray(X, dtype=float)
    N, d = X.shape
    A_ub = np.hstack([X, -np.ones((N, 1))])
    absX = np.abs(X)

    def separate(x: np.ndarray) -> tuple | None:
        # the most violated inequality <a, y> <= b with |a|_inf <= 1 valid at every point
        res = linprog_quiet(np.append(-x, 1.0), A_ub=A_ub, b_ub=np.zeros(N), bounds=[(-1.0, 1.0)] * d + [(None, None)])
        if res.status != 0:
            return None
        a = np.asarray(res.x[:d], dtype=float)
        vals = X @ a
        b = float(vals.max()) + 2.0 * (d + 2) * _U * float((absX @ np.abs(a)).max())
        b = b * (1 + 2 * _U) if b > 0 else b * (1 - 2 * _U)
        if not float(a @ x) > b:
            return None
        return a, b

    return separate


def search_set(Kr: Any) -> SearchSet | None:
    """A :class:`SearchSet` holding ``Kr`` (None when no ball, polytope or hull fits)."""
    n = Kr.n
    rad = Kr.radial()
    if rad is not None and np.isfinite(rad.r) and rad.r > 0:
        facets = (-np.eye(n), np.zeros(n)) if rad.nonnegative else None
        exact = rad.s == 0 and not rad.surface
        return SearchSet(np.zeros(n), float(rad.r), facets, exact)
    if not Kr.polyhedral:
        return None
    P = Kr.outer_polytope()
    if P is None:
        return None
    lo, hi = np.asarray(P.lower[:n], float), np.asarray(P.upper[:n], float)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(hi > lo)):
        return None
    box = (np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -lo]))
    center, radius = _box_ball(lo, hi)
    if P.n_extra == 0 and P.A_eq.shape[0] == 0:
        return SearchSet(center, radius, (np.vstack([P.A_ub, box[0]]), np.concatenate([P.b_ub, box[1]])), True)
    points = getattr(Kr, "points", None)
    if points is None or np.asarray(points).shape[1:] != (n,):
        return None
    return SearchSet(center, radius, box, True, hull_separator(np.asarray(points, dtype=float)))


def removal_stage(run: Run, subs: list, info: HyperplaneInfo, share: float) -> tuple[str, str] | None:
    """Search removal sets on the domain with at most ``share`` of the time left (less on boxes, polytopes and
    hulls, and beyond 16 dimensions; more on round domains beyond 12); ``("injective", proof)`` when proved.

    A point found with at most ``h`` active rows is handed to the witness construction (``run.pair``); a
    lower bound reached on the way is given to the counting problems ``subs``.
    """
    found = search_set(run.Kr)
    if found is None or not info.usable:
        return None
    center, radius, facets, exact, separate = found
    if run.Kr.radial() is None:
        # boxes, polytopes and hulls: the ball around them only bounds the search, the facets do the work,
        # and the MILP finds their witnesses sooner (measured at n = 16): it keeps more of the time
        share *= 0.6
    elif run.Kr.n > 12:
        # balls, shells, positive balls beyond 12 dimensions: this search decides what is decided there
        # (n = 16, m = 5n, 60 s: 10 of the 12 round layers decided, the other two by pairs that the samples and
        # the greedy descent found in about a second; the MILP after it decided none), so it gets most of the time
        share = max(share, 0.9)
    if run.Kr.n > 16:
        share *= 0.2  # beyond 16 dimensions the search rarely closes: a little time keeps its quick witnesses
    Wr, ar = run.rows if run.rows is not None else (run.Phi, run.a)
    h = info.h
    stage = "removal sets on the domain"
    run.report(stage)
    res = fewest_active_exceeds(Wr, ar, h, radius=radius, center=center, facets=facets, separate=separate,
                                time_limit=share * run.remaining(), tick=lambda nodes: run.report(stage))  # fmt: skip
    run.notes.append(f"removal sets on the domain: {res.status} after {res.nodes} nodes, {res.circuits} certificates")
    if res.status == "deep":
        where = "every point of the domain"
        if not exact:
            where = f"every point of the ball of radius {radius:.6g}, which holds the domain,"
        proof = (
            f"{where} keeps more than h = {h} frame vectors active: no {h} of them can be switched off at one point "
            f"with every other one inactive (branch and bound over removal sets, {res.nodes} node"
            f"{'' if res.nodes == 1 else 's'}, every bound a "
            "least-distance certificate verified with rounding bounds)"
        )
        return "injective", proof
    if res.status == "undetermined" and 0 < res.lower <= h:
        for sub in subs:  # a bound on the search set holds on every piece of the domain inside it
            sub.lower = max(sub.lower, res.lower)
    if res.status == "shallow" and res.point is not None:
        run.try_witness(res.point)
    return None
