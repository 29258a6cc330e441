r"""Data domains K of R^n: balls, spheres, shells (the paper's donut), the non-negative
ball, the whole space, and finite sample sets.

Each domain can draw uniform samples with a seed, test membership, and report its
sup-norm radius ``M = sup_{x in K} ||x||`` (``inf`` when unbounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_count, as_nonnegative, as_points, as_positive, to_float_array
from ..errors import InputError, TooExpensiveError

__all__ = [
    "Domain",
    "Ball",
    "Sphere",
    "Shell",
    "PositiveBall",
    "RealSpace",
    "Samples",
    "as_domain",
    "CoveringRadius",
    "covering_radius",
    "paper_correction",
]


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise InputError(f"seed must be an int, None or a numpy Generator; got {seed!r}.")
    return np.random.default_rng(seed)


def _unit_directions(rng: np.random.Generator, N: int, n: int) -> np.ndarray:
    g = rng.standard_normal((N, n))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # probability zero; keeps the output finite
    return g / norms


class Domain:
    """Base class of the data domains. Subclasses set ``n`` and implement the methods."""

    n: int
    #: whether the set is open or strictly convex (Thm "Injectivity II" applies)
    open_or_strictly_convex: bool = False
    #: whether the set is open or convex (Thm "Injectivity I" applies with alpha itself)
    open_or_convex: bool = False

    @property
    def radius(self) -> float:
        """Sup-norm radius ``M = sup ||x||`` (``inf`` if unbounded)."""
        raise NotImplementedError

    @property
    def bounded(self) -> bool:
        """True when ``radius`` is finite."""
        return bool(np.isfinite(self.radius))

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` i.i.d. uniform samples, shape ``(N, n)``."""
        raise NotImplementedError

    def contains(self, X: Any, *, tol: float = 1e-9) -> np.ndarray:
        """Membership of each point (bool array of shape ``(N,)``, or a bool for one point)."""
        pts, single = as_points(X, self.n, "X")
        out = self._contains(pts, tol)
        return bool(out[0]) if single else out

    def _contains(self, X: np.ndarray, tol: float) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> str:
        """A short human-readable description."""
        return repr(self)


def _dim(n: Any) -> int:
    return as_count(n, "n")


@dataclass(frozen=True, repr=False)
class Ball(Domain):
    """The closed ball ``B_r = {x : ||x|| <= r}`` in R^n."""

    n: int
    r: float = 1.0

    open_or_strictly_convex = True
    open_or_convex = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        object.__setattr__(self, "r", as_positive(self.r, "r"))

    def __repr__(self) -> str:
        return f"Ball(n={self.n}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = _rng(seed)
        u = _unit_directions(rng, N, self.n)
        return u * (self.r * rng.random(N) ** (1.0 / self.n))[:, None]

    def _contains(self, X, tol):
        return np.linalg.norm(X, axis=1) <= self.r * (1 + tol) + tol


@dataclass(frozen=True, repr=False)
class Sphere(Domain):
    """The sphere ``S_r = {x : ||x|| = r}`` in R^n (neither open nor convex)."""

    n: int
    r: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        object.__setattr__(self, "r", as_positive(self.r, "r"))

    def __repr__(self) -> str:
        return f"Sphere(n={self.n}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        return self.r * _unit_directions(_rng(seed), N, self.n)

    def _contains(self, X, tol):
        return np.abs(np.linalg.norm(X, axis=1) - self.r) <= tol * max(1.0, self.r)


@dataclass(frozen=True, repr=False)
class Shell(Domain):
    """The closed shell (the paper's donut) ``D_{r,s} = {x : s <= ||x|| <= r}``, ``0 <= s < r``."""

    n: int
    s: float
    r: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        s = as_nonnegative(self.s, "s")
        r = as_positive(self.r, "r")
        if s >= r:
            raise InputError(f"the inner radius s must be smaller than the outer radius r; got s={s:g}, r={r:g}.")
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "r", r)

    def __repr__(self) -> str:
        return f"Shell(n={self.n}, s={self.s:g}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = _rng(seed)
        u = _unit_directions(rng, N, self.n)
        lo, hi = self.s**self.n, self.r**self.n
        radii = (lo + (hi - lo) * rng.random(N)) ** (1.0 / self.n)
        return u * radii[:, None]

    def _contains(self, X, tol):
        nr = np.linalg.norm(X, axis=1)
        return (nr <= self.r * (1 + tol) + tol) & (nr >= self.s * (1 - tol) - tol)


@dataclass(frozen=True, repr=False)
class PositiveBall(Domain):
    """The non-negative part of the ball, ``B_r^+ = B_r ∩ R^n_+`` (convex, not open)."""

    n: int
    r: float = 1.0

    open_or_convex = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        object.__setattr__(self, "r", as_positive(self.r, "r"))

    def __repr__(self) -> str:
        return f"PositiveBall(n={self.n}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        return np.abs(Ball(self.n, self.r).sample(N, seed=seed))

    def _contains(self, X, tol):
        return (np.linalg.norm(X, axis=1) <= self.r * (1 + tol) + tol) & np.all(X >= -tol, axis=1)


@dataclass(frozen=True, repr=False)
class RealSpace(Domain):
    """All of R^n (unbounded; ``sample`` draws standard normal points)."""

    n: int

    open_or_strictly_convex = True
    open_or_convex = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))

    def __repr__(self) -> str:
        return f"RealSpace(n={self.n})"

    @property
    def radius(self) -> float:
        return float("inf")

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        return _rng(seed).standard_normal((N, self.n))

    def _contains(self, X, tol):
        return np.ones(X.shape[0], dtype=bool)


class Samples(Domain):
    """A finite data set (rows of ``X``) taken as the domain itself."""

    def __init__(self, X: Any) -> None:
        arr = to_float_array(X, "X")
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InputError(f"X must be a non-empty 2-D array of points (rows); got shape {arr.shape}.")
        arr = arr.copy()
        arr.setflags(write=False)
        self.points = arr
        self.n = arr.shape[1]

    def __repr__(self) -> str:
        return f"Samples(N={self.points.shape[0]}, n={self.n})"

    def __eq__(self, other):
        return isinstance(other, Samples) and np.array_equal(self.points, other.points)

    def __hash__(self):
        return hash(self.points.tobytes())

    @property
    def radius(self) -> float:
        return float(np.max(np.linalg.norm(self.points, axis=1)))

    def sample(self, N: int | None = None, *, seed: Any = None) -> np.ndarray:
        """The points themselves (``N=None``), or ``N`` of them drawn with replacement."""
        if N is None:
            return np.array(self.points)
        N = as_count(N, "N", minimum=0)
        return self.points[_rng(seed).integers(0, self.points.shape[0], N)]

    def _contains(self, X, tol):
        from scipy.spatial import cKDTree

        dist, _ = cKDTree(self.points).query(X, k=1)
        return dist <= tol * max(1.0, self.radius)


def as_domain(K: Any, n: int | None = None, name: str = "K") -> Domain:
    """A :class:`Domain` from a domain or from an ``(N, n)`` array of samples."""
    if isinstance(K, Domain):
        dom = K
    elif K is None:
        raise InputError(f"{name} must be a Domain (Ball, Sphere, ...) or an (N, n) array of samples; got None.")
    else:
        dom = Samples(K)
    if n is not None and dom.n != n:
        from ..errors import DimensionMismatchError

        raise DimensionMismatchError(f"{name} must be a domain in R^{n} (the frame's dimension); got {dom!r}.")
    return dom


# ---------------------------------------------------------------------------------
# Covering radius
# ---------------------------------------------------------------------------------


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
    ticks = np.arange(-M - h, M + h + 1e-12, h)
    if int(ticks.size) ** domain.n > max_points:  # exact integer count (no log rounding)
        raise TooExpensiveError(
            f"a guaranteed covering radius needs a grid of about {ticks.size}^{domain.n} points; "
            f"max_points is {max_points:.3g}. Use kind='heuristic' or raise max_points."
        )
    grid = np.stack(np.meshgrid(*([ticks] * domain.n), indexing="ij"), axis=-1).reshape(-1, domain.n)
    nr = np.linalg.norm(grid, axis=1)
    if isinstance(domain, (Ball, Sphere, Shell)):
        inner = getattr(domain, "s", domain.r if isinstance(domain, Sphere) else 0.0)
        keep = (nr <= domain.r + slack) & (nr >= inner - slack)
    elif isinstance(domain, PositiveBall):
        keep = (nr <= domain.r + slack) & np.all(grid >= -slack, axis=1)
    else:
        raise InputError(f"a guaranteed covering radius is available for Ball, Sphere, Shell and PositiveBall; got {domain!r}.")
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
        ``"exact"`` for :class:`Samples`, ``"guaranteed"`` for ``n <= 3``, else heuristic.

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
    if isinstance(K, Samples):
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
