r"""The paper's domains, all defined by the norm: balls, spheres, shells (the paper's donut),
the non-negative ball, the whole space and the exterior of a ball (item (v) of Thm "PBE").

Membership tolerances are relative to the radius; certified membership
(:meth:`~relu_frames_nb.domains.Domain.contains_certified`) bounds the rounding of the norm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util.validation import as_count, as_nonnegative, as_positive, as_rng
from ..errors import InputError
from .base import Domain, Radial, certified_norm_bounds, dimension, robust_norms

__all__ = ["Ball", "Sphere", "Shell", "PositiveBall", "RealSpace", "Exterior", "numbers_in"]


def _unit_directions(rng: np.random.Generator, N: int, n: int) -> np.ndarray:
    g = rng.standard_normal((N, n))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # probability zero; keeps the output finite
    g /= norms  # in place: the samplers hold one (N, n) array at a time
    return g


def _g(x: float) -> str:
    """Short, and read back exactly (``repr`` when ``:g`` would round)."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def numbers_in(arg: str, allowed: tuple[int, ...], usage: str) -> list[float]:
    """The comma-separated numbers of a spelling's argument, as many as ``allowed`` says."""
    try:
        nums = [float(t) for t in arg.split(",") if t.strip()] if arg.strip() else []
    except ValueError:
        raise InputError(f"expected {usage}: numbers separated by commas; got {arg!r}.") from None
    if len(nums) not in allowed:
        raise InputError(f"expected {usage}; got {len(nums)} number(s).")
    bad = [x for x in nums if not np.isfinite(x)]
    if bad:
        raise InputError(f"expected {usage} with finite numbers; got {bad[0]:g} (too large for a float64?).")
    return nums


def _norm_of(u: np.ndarray) -> float:
    return float(robust_norms(np.asarray(u, dtype=float)[None, :])[0])


@dataclass(frozen=True, repr=False)
class _Radius(Domain):
    """A domain given by its dimension ``n`` and one radius ``r`` (its sup-norm radius)."""

    n: int
    r: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", dimension(self.n))
        object.__setattr__(self, "r", as_positive(self.r, "r"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, r={self.r:g})"

    @property
    def radius(self) -> float:
        return self.r

    @classmethod
    def _parse(cls, arg: str, n: int, name: str) -> Domain:
        nums = numbers_in(arg, (0, 1), f"{cls.spec_name}:r with one radius")
        return cls(n, *nums)

    def scaled(self, c: float) -> Domain:
        return type(self)(self.n, self.r * self._check_scale(c))

    def interior_point(self) -> np.ndarray:
        return np.zeros(self.n)

    def cone_signs(self):
        return [(1, -1)] * self.n

    def ray_interval(self, u):
        nu = _norm_of(u)
        return None if nu == 0 else (0.0, self.r / nu)


@dataclass(frozen=True, repr=False)
class Ball(_Radius, spec="ball", args="r"):
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
        u *= (self.r * rng.random(N) ** (1.0 / self.n))[:, None]
        return u

    def _contains(self, X, tol):
        return robust_norms(X) <= self.r * (1 + tol)

    def _contains_certified(self, X):
        return certified_norm_bounds(X)[1] <= self.r

    def radial(self):
        return Radial(0.0, self.r)

    def margin(self, z):
        return self.r - _norm_of(z)


@dataclass(frozen=True, repr=False)
class Sphere(_Radius, spec="sphere", args="r"):
    """The sphere ``S_r = {x : ||x|| = r}`` in R^n (neither open nor convex)."""

    def describe(self) -> str:
        return f"the sphere S(r={self.r:g})"

    @property
    def spec(self) -> str:
        return f"sphere:{_g(self.r)}"

    @property
    def inner_radius(self) -> float:
        return self.r

    @property
    def full_dimensional(self) -> bool:
        return False

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        u = _unit_directions(as_rng(seed), N, self.n)
        u *= self.r
        return u

    def _contains(self, X, tol):
        return np.abs(robust_norms(X) - self.r) <= tol * self.r

    def _contains_certified(self, X):
        """``||x||`` equals ``r`` up to the rounding of computing a point on the sphere (``16 (n + 2) u r``).

        (A point with float64 coordinates is almost never exactly on a sphere; this is the
        closest statement the arithmetic can make, and the one exception to certain membership.)
        """
        nr = robust_norms(X)
        return np.abs(nr - self.r) <= 16 * (self.n + 2) * 2.0**-53 * self.r

    def interior_point(self) -> np.ndarray:
        e = np.zeros(self.n)
        e[0] = self.r
        return e

    def radial(self):
        return Radial(self.r, self.r, surface=True)

    def ray_interval(self, u):
        nu = _norm_of(u)
        return None if nu == 0 else (self.r / nu, self.r / nu)


@dataclass(frozen=True, repr=False)
class Shell(Domain, spec="shell", aliases=("donut",), args="s,r"):
    """The closed shell (the paper's donut) ``D_{r,s} = {x : s <= ||x|| <= r}``, ``0 <= s < r``."""

    n: int
    s: float
    r: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", dimension(self.n))
        s = as_nonnegative(self.s, "s")
        r = as_positive(self.r, "r")
        if s >= r:
            raise InputError(
                f"the shell needs s < r: the inner radius s must be smaller than the outer radius r; got s={s:g}, r={r:g}."
            )
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "r", r)

    @classmethod
    def _parse(cls, arg, n, name):
        s, r = numbers_in(arg, (2,), "shell:s,r with two radii s < r")
        return cls(n, s, r)

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

    def scaled(self, c: float) -> Domain:
        c = self._check_scale(c)
        return Shell(self.n, self.s * c, self.r * c)

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        u = _unit_directions(rng, N, self.n)
        with np.errstate(over="ignore", under="ignore"):  # numpy floats: r^n overflows to inf (a Python float raised)
            lo, hi = np.float64(self.s) ** self.n, np.float64(self.r) ** self.n
        if np.isfinite(hi) and hi > 0:
            radii = (lo + (hi - lo) * rng.random(N)) ** (1.0 / self.n)
        else:  # r^n overflows or underflows: the same law in units of r
            lo = (self.s / self.r) ** self.n
            radii = self.r * (lo + (1.0 - lo) * rng.random(N)) ** (1.0 / self.n)
        u *= radii[:, None]
        return u

    def _contains(self, X, tol):
        nr = robust_norms(X)
        return (nr <= self.r * (1 + tol)) & (nr >= self.s - tol * self.r)

    def _contains_certified(self, X):
        lo, hi = certified_norm_bounds(X)
        return (hi <= self.r) & (lo >= self.s)

    def interior_point(self) -> np.ndarray:
        e = np.zeros(self.n)
        e[0] = 0.5 * (self.s + self.r)
        return e

    def radial(self):
        return Radial(self.s, self.r)

    def margin(self, z):
        nz = _norm_of(z)
        return min(self.r - nz, nz - self.s)

    def cone_signs(self):
        return [(1, -1)] * self.n

    def ray_interval(self, u):
        nu = _norm_of(u)
        return None if nu == 0 else (self.s / nu, self.r / nu)


@dataclass(frozen=True, repr=False)
class PositiveBall(_Radius, spec="positive-ball", aliases=("positive_ball", "positiveball"), args="r"):
    """The non-negative part of the ball, ``B_r^+ = B_r ∩ R^n_+`` (convex, not open)."""

    open_or_convex = True
    nonnegative = True

    def describe(self) -> str:
        return f"the positive ball B+(r={self.r:g})"

    @property
    def spec(self) -> str:
        return f"positive-ball:{_g(self.r)}"

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        X = Ball(self.n, self.r).sample(N, seed=seed)
        np.abs(X, out=X)
        return X

    def _contains(self, X, tol):
        return (robust_norms(X) <= self.r * (1 + tol)) & np.all(X >= -tol * self.r, axis=1)

    def _contains_certified(self, X):
        return (certified_norm_bounds(X)[1] <= self.r) & np.all(X >= 0, axis=1)

    def interior_point(self) -> np.ndarray:
        return np.full(self.n, self.r / (2.0 * np.sqrt(self.n)))

    def radial(self):
        return Radial(0.0, self.r, nonnegative=True)

    def margin(self, z):
        z = np.asarray(z, dtype=float)
        return min(self.r - _norm_of(z), float(np.min(z)))

    def cone_signs(self):
        return [(1,)] * self.n

    def ray_interval(self, u):
        u = np.asarray(u, dtype=float)
        nu = _norm_of(u)
        return None if nu == 0 or np.any(u < 0) else (0.0, self.r / nu)


@dataclass(frozen=True, repr=False)
class RealSpace(Domain, spec="real-space", aliases=("rn", "r^n", "real_space", "realspace")):
    """All of R^n (unbounded; ``sample`` draws standard normal points)."""

    n: int

    open_or_strictly_convex = True
    open_or_convex = True
    whole_space = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", dimension(self.n))

    @classmethod
    def _parse(cls, arg, n, name):
        numbers_in(arg, (0,), "real-space with no argument")
        return cls(n)

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

    def scaled(self, c: float) -> Domain:
        self._check_scale(c)
        return self

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        return as_rng(seed).standard_normal((N, self.n))

    def _contains(self, X, tol):
        return np.ones(X.shape[0], dtype=bool)

    def _contains_certified(self, X):
        return np.all(np.isfinite(X), axis=1)

    def support(self, W):
        W = np.atleast_2d(np.asarray(W, dtype=float))
        zero = ~np.any(W != 0, axis=1)
        return np.where(zero, 0.0, -np.inf), np.where(zero, 0.0, np.inf)

    def interior_point(self) -> np.ndarray:
        return np.zeros(self.n)

    def radial(self):
        return Radial(0.0, float("inf"))

    def margin(self, z):
        return float("inf")

    def cone_signs(self):
        return [(1, -1)] * self.n

    def ray_interval(self, u):
        return None if _norm_of(u) == 0 else (0.0, float("inf"))


@dataclass(frozen=True, repr=False)
class Exterior(Domain, spec="exterior", args="s"):
    """The exterior of a ball, ``{x : ||x|| >= s}`` (item (v) of Thm "PBE"; unbounded, not convex).

    ``sample`` draws uniform directions with radii ``s (1 + |g|)``, ``g`` standard normal
    (there is no uniform distribution on an unbounded set).
    """

    n: int
    s: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", dimension(self.n))
        object.__setattr__(self, "s", as_positive(self.s, "s"))

    @classmethod
    def _parse(cls, arg, n, name):
        (s,) = numbers_in(arg, (1,), "exterior:s with one radius")
        return cls(n, s)

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

    def scaled(self, c: float) -> Domain:
        return Exterior(self.n, self.s * self._check_scale(c))

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        u = _unit_directions(rng, N, self.n)
        u *= (self.s * (1.0 + np.abs(rng.standard_normal(N))))[:, None]
        return u

    def _contains(self, X, tol):
        return robust_norms(X) >= self.s * (1 - tol)

    def _contains_certified(self, X):
        return certified_norm_bounds(X)[0] >= self.s

    def interior_point(self) -> np.ndarray:
        e = np.zeros(self.n)
        e[0] = 2.0 * self.s
        return e

    def radial(self):
        return Radial(self.s, float("inf"))

    def margin(self, z):
        return _norm_of(z) - self.s

    def ray_interval(self, u):
        nu = _norm_of(u)
        return None if nu == 0 else (self.s / nu, float("inf"))
