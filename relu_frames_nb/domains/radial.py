r"""The paper's domains, all defined by the norm: balls, spheres, shells (the paper's donut),
the non-negative ball, the whole space and the exterior of a ball (item (v) of Thm "PBE").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_count, as_nonnegative, as_positive, as_rng
from ..errors import InputError
from .base import Domain, _dim

__all__ = ["Ball", "Sphere", "Shell", "PositiveBall", "RealSpace", "Exterior"]


def _unit_directions(rng: np.random.Generator, N: int, n: int) -> np.ndarray:
    g = rng.standard_normal((N, n))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # probability zero; keeps the output finite
    return g / norms


def _g(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True, repr=False)
class _Radius(Domain):
    """A domain given by its dimension ``n`` and one radius ``r`` (its sup-norm radius)."""

    n: int
    r: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        object.__setattr__(self, "r", as_positive(self.r, "r"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r


@dataclass(frozen=True, repr=False)
class Ball(_Radius):
    """The closed ball ``B_r = {x : ||x|| <= r}`` in R^n."""

    open_or_strictly_convex = True
    open_or_convex = True

    def describe(self) -> str:
        return f"the ball B(r={self.r:g})"

    @property
    def spec(self) -> str:
        return f"ball:{_g(self.r)}"

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        u = _unit_directions(rng, N, self.n)
        return u * (self.r * rng.random(N) ** (1.0 / self.n))[:, None]

    def _contains(self, X, tol):
        return np.linalg.norm(X, axis=1) <= self.r * (1 + tol) + tol


@dataclass(frozen=True, repr=False)
class Sphere(_Radius):
    """The sphere ``S_r = {x : ||x|| = r}`` in R^n (neither open nor convex)."""

    def describe(self) -> str:
        return f"the sphere S(r={self.r:g})"

    @property
    def spec(self) -> str:
        return f"sphere:{_g(self.r)}"

    @property
    def inner_radius(self) -> float:
        return self.r

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        return self.r * _unit_directions(as_rng(seed), N, self.n)

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
            raise InputError(
                f"the shell needs s < r: the inner radius s must be smaller than the outer radius r; got s={s:g}, r={r:g}."
            )
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "r", r)

    def __repr__(self) -> str:
        return f"Shell(n={self.n}, s={self.s:g}, r={self.r:g})"

    def describe(self) -> str:
        return f"the shell {self.s:g} ≤ |x| ≤ {self.r:g}"

    @property
    def spec(self) -> str:
        return f"shell:{_g(self.s)},{_g(self.r)}"

    @property
    def radius(self) -> float:
        return self.r

    @property
    def inner_radius(self) -> float:
        return self.s

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        u = _unit_directions(rng, N, self.n)
        lo, hi = self.s**self.n, self.r**self.n
        radii = (lo + (hi - lo) * rng.random(N)) ** (1.0 / self.n)
        return u * radii[:, None]

    def _contains(self, X, tol):
        nr = np.linalg.norm(X, axis=1)
        return (nr <= self.r * (1 + tol) + tol) & (nr >= self.s * (1 - tol) - tol)


@dataclass(frozen=True, repr=False)
class PositiveBall(_Radius):
    """The non-negative part of the ball, ``B_r^+ = B_r ∩ R^n_+`` (convex, not open)."""

    open_or_convex = True
    nonnegative = True

    def describe(self) -> str:
        return f"the positive ball B+(r={self.r:g})"

    @property
    def spec(self) -> str:
        return f"positive-ball:{_g(self.r)}"

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

    def describe(self) -> str:
        return f"R^{self.n}"

    @property
    def spec(self) -> str:
        return "real-space"

    @property
    def radius(self) -> float:
        return float("inf")

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        return as_rng(seed).standard_normal((N, self.n))

    def _contains(self, X, tol):
        return np.ones(X.shape[0], dtype=bool)


@dataclass(frozen=True, repr=False)
class Exterior(Domain):
    """The exterior of a ball, ``{x : ||x|| >= s}`` (item (v) of Thm "PBE"; unbounded, not convex).

    ``sample`` draws uniform directions with radii ``s (1 + |g|)``, ``g`` standard normal
    (there is no uniform distribution on an unbounded set).
    """

    n: int
    s: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", _dim(self.n))
        object.__setattr__(self, "s", as_positive(self.s, "s"))

    def __repr__(self) -> str:
        return f"Exterior(n={self.n}, s={self.s:g})"

    def describe(self) -> str:
        return f"the exterior |x| ≥ {self.s:g}"

    @property
    def spec(self) -> str:
        return f"exterior:{_g(self.s)}"

    @property
    def radius(self) -> float:
        return float("inf")

    @property
    def inner_radius(self) -> float:
        return self.s

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        u = _unit_directions(rng, N, self.n)
        return u * (self.s * (1.0 + np.abs(rng.standard_normal(N))))[:, None]

    def _contains(self, X, tol):
        return np.linalg.norm(X, axis=1) >= self.s * (1 - tol) - tol
