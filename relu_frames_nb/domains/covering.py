"""Covering radii of sample sets, guaranteed or heuristic, and the paper's correction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.tolerances import GRID_END_PAD
from .._util.validation import as_count, as_nonnegative, as_points, as_positive
from ..errors import InputError, TooExpensiveError
from .base import Domain

__all__ = ["CoveringRadius", "covering_radius", "paper_correction"]



@dataclass(frozen=True)
class CoveringRadius:
    """An estimate of the covering radius ``rho(X; K) = sup_{x in K} min_i ||x - x_i||``.

    ``kind`` is ``"exact"`` (finite domain), ``"guaranteed"`` (a proven upper bound) or
    ``"heuristic"`` (a probe estimate, which is a lower bound of the true value).
    """

    value: float
    kind: str
    probes: int = 0

    @property
    def is_guarantee(self) -> bool:
        """True for ``"exact"`` and ``"guaranteed"`` values."""
        return self.kind in ("exact", "guaranteed")


def _grid_near(domain: Domain, h: float, slack: float, max_points: int) -> np.ndarray:
    """Points of the cubic grid of spacing h lying within ``slack`` of the domain."""
    M = domain.radius
    ticks = np.arange(-M - h, M + h + GRID_END_PAD, h)
    if int(ticks.size) ** domain.n > max_points:  # exact integer count (no log rounding)
        raise TooExpensiveError(
            f"a guaranteed covering radius needs a grid of about {ticks.size}^{domain.n} points; "
            f"max_points is {max_points:.3g}. Use kind='heuristic' or raise max_points."
        )
    grid = np.stack(np.meshgrid(*([ticks] * domain.n), indexing="ij"), axis=-1).reshape(-1, domain.n)
    nr = np.linalg.norm(grid, axis=1)
    # Every grid point within `slack` of K passes (a superset only loosens the bound).
    keep = (nr <= domain.radius + slack) & (nr >= domain.inner_radius - slack)
    if domain.nonnegative:
        keep &= np.all(grid >= -slack, axis=1)
    return grid[keep]


def covering_radius(
    X: Any,
    K: Domain,
    *,
    kind: str = "auto",
    n_probes: int = 200_000,
    grid_step: float | None = None,
    max_points: int = 5_000_000,
    seed: Any = 0,
) -> CoveringRadius:
    """Estimate the covering radius of the samples ``X`` for the domain ``K``.

    Parameters
    ----------
    X : array_like, shape (N, n)
        The samples (should lie in ``K``).
    K : Domain
        The domain to cover.
    kind : {"auto", "guaranteed", "heuristic"}
        ``"guaranteed"`` computes a proven upper bound with a cubic grid of spacing ``h``:
        every ``x`` in ``K`` is within ``h sqrt(n) / 2`` of a grid point ``g`` near ``K``, so
        ``rho <= max_g d(g, X) + h sqrt(n) / 2``. It is feasible in low dimension only.
        ``"heuristic"`` returns the largest nearest-sample distance over ``n_probes``
        random points of ``K`` (a lower bound of the true value). ``"auto"`` picks
        ``"exact"`` for a finite data set (:class:`Samples`), ``"guaranteed"`` for ``n <= 3``, else heuristic.

    Returns
    -------
    CoveringRadius
    """
    from scipy.spatial import cKDTree

    if not isinstance(K, Domain):
        raise InputError(f"K must be a Domain; got {type(K).__name__}.")
    pts, _ = as_points(X, K.n, "X")
    if kind not in ("auto", "guaranteed", "heuristic"):
        raise InputError(f"kind must be 'auto', 'guaranteed' or 'heuristic'; got {kind!r}.")
    tree = cKDTree(pts)
    if K.finite:
        dist, _ = tree.query(K.points, k=1)
        return CoveringRadius(float(dist.max()), "exact", K.points.shape[0])
    if not K.bounded:
        return CoveringRadius(float("inf"), "guaranteed", 0)
    if kind == "auto":
        kind = "guaranteed" if K.n <= 3 else "heuristic"
    if kind == "guaranteed":
        if grid_step is None:  # the finest grid that fits in max_points
            grid_step = 2.0 * K.radius / (max(max_points ** (1.0 / K.n) - 3.0, 1.0))
        h = as_positive(grid_step, "grid_step")
        slack = h * np.sqrt(K.n) / 2.0
        grid = _grid_near(K, h, slack, max_points)
        dist, _ = tree.query(grid, k=1)
        return CoveringRadius(float(dist.max() + slack), "guaranteed", grid.shape[0])
    probes = K.sample(as_count(n_probes, "n_probes"), seed=seed)
    dist, _ = tree.query(probes, k=1)
    return CoveringRadius(float(dist.max()), "heuristic", probes.shape[0])


def paper_correction(n: int, N: int, *, factor: float = 0.05) -> float:
    r"""The paper's heuristic correction :math:`0.05\,(\log N / N)^{1/n}` (Section "Numerical experiments")."""
    n = as_count(n, "n")
    N = as_count(N, "N", minimum=2)
    return float(as_nonnegative(factor, "factor") * (np.log(N) / N) ** (1.0 / n))
