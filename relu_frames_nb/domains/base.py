r"""The :class:`Domain` base class: what every data domain K of R^n knows about itself.

A domain draws seeded samples, tests membership, and describes itself to people
(:meth:`Domain.describe`) and to the command line (:attr:`Domain.spec`, read back by
:meth:`Domain.from_spec`). It also answers every geometric question the algorithms ask, so
that the exact verdict, the network check and the bias estimates never test a domain's class:

=====================================  =================================================================
``radius``, ``inner_radius``           sup and inf of ``||x||`` over K
``interior_point()``                   a point of the relative interior
``in_affine_coordinates()``            ``K = c + U K_r``, ``K_r`` full-dimensional (degenerate boxes, hulls)
``support(W)``                         valid bounds of every ``<w_i, x>`` over K
``outer_polytope()``                   a polytope containing K (K itself when ``polyhedral``)
``radial()``                           ``s <= ||x|| <= r`` (and ``x >= 0``) when K is defined by the norm
``margin(z)``                          a lower bound of the distance from ``z`` to the complement of K
``ray_interval(u)``, ``move_inside``   where the ray ``t u`` (``t > 0``) meets K
``cone_signs()``                       the orthants met by the cone of K, when 0 is inside it
``contains_certified(X)``              membership that the floating-point arithmetic proves
``scaled(c)``                          ``c K`` (exact when ``c`` is a power of two)
=====================================  =================================================================

Subclasses register themselves with their command-line name (``class Ball(Domain, spec="ball")``),
which gives the one parser :meth:`Domain.from_spec` and the registry that the conformance
tests run over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterator, NamedTuple

import numpy as np

from .._util.pairs import pow2_scale
from .._util.tolerances import MEMBERSHIP_RTOL
from .._util.validation import as_count, as_points, as_positive, as_rng
from ..errors import InputError

__all__ = [
    "Domain",
    "Coordinates",
    "LinearDescription",
    "Radial",
    "domain_specs",
    "dimension",
    "robust_norms",
    "certified_norm_bounds",
]

_U = 2.0**-53


def dimension(n: Any) -> int:
    """The dimension argument of a domain (a positive integer)."""
    return as_count(n, "n")


#: numbers per chunk of :func:`robust_norms` (a data set of 60,000 images took three copies of itself)
_NORM_CHUNK = 1 << 22


def robust_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norms of the rows of ``X`` without overflow or underflow (in chunks of rows: bounded memory)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    step = max(1, _NORM_CHUNK // max(X.shape[1], 1))
    if X.shape[0] <= step:
        s = pow2_scale(X, axis=1)
        return np.linalg.norm(X * s[:, None], axis=1) / s
    return np.concatenate([robust_norms(X[i : i + step]) for i in range(0, X.shape[0], step)])


def certified_norm_bounds(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, an interval ``[lo, hi]`` that certainly contains ``||x||`` (rounding included)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n = X.shape[1]
    s = pow2_scale(X, axis=1)
    q = np.einsum("ij,ij->i", X * s[:, None], X * s[:, None])  # sum of squares, each term exact up to u
    err = 1.01 * (n + 2) * _U
    lo = np.sqrt(np.maximum(q * (1 - err), 0.0)) * (1 - 2 * _U) / s
    hi = np.sqrt(q * (1 + err)) * (1 + 2 * _U) / s
    return lo, hi


@dataclass(frozen=True, eq=False)
class LinearDescription:
    r"""Linear constraints describing a polytope, over variables ``z = (x, w)``.

    ``P = {x : exists w with A_ub z <= b_ub, A_eq z = b_eq, lower <= z <= upper}``.

    Attributes
    ----------
    n : int
        Number of ``x`` variables (the dimension of the domain).
    n_extra : int
        Number of extra variables ``w`` (0 for a box or polytope, ``N`` for a hull).
    A_ub : ndarray, shape (k, n + n_extra)
    b_ub : ndarray, shape (k,)
    A_eq : ndarray, shape (e, n + n_extra)
    b_eq : ndarray, shape (e,)
    lower, upper : ndarray, shape (n + n_extra,)
        Variable bounds (finite for ``x``: a bounding box).
    """

    n: int
    n_extra: int
    A_ub: np.ndarray
    b_ub: np.ndarray
    A_eq: np.ndarray
    b_eq: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def n_vars(self) -> int:
        """``n + n_extra``."""
        return self.n + self.n_extra

    @property
    def is_box(self) -> bool:
        """True when the bounds alone describe it (no other constraint)."""
        return self.n_extra == 0 and self.A_ub.shape[0] == 0 and self.A_eq.shape[0] == 0

    @classmethod
    def box(cls, lo: Any, hi: Any) -> LinearDescription:
        """The box ``lo <= x <= hi``."""
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        n = lo.shape[0]
        return cls(n, 0, np.zeros((0, n)), np.zeros(0), np.zeros((0, n)), np.zeros(0), lo.copy(), hi.copy())


class Coordinates:
    r"""Affine coordinates ``x = c + U z`` of a domain inside a subspace.

    ``U`` is given as a dense matrix with orthonormal columns (``basis``), as a selection of
    coordinates (``index``: ``x[index] = z``, the other coordinates fixed at ``c``), or not at
    all (the identity, ``c = 0``), so that no ``n x n`` matrix is ever built.
    """

    def __init__(self, c: Any, *, basis: Any = None, index: Any = None) -> None:
        self.c = np.asarray(c, dtype=float)
        self.basis = None if basis is None else np.asarray(basis, dtype=float)
        self.index = None if index is None else np.asarray(index, dtype=np.intp)
        n = self.c.shape[0]
        self.d = self.basis.shape[1] if self.basis is not None else (self.index.size if self.index is not None else n)

    @property
    def identity(self) -> bool:
        """True when ``x = z``."""
        return self.basis is None and self.index is None

    def point(self, z: Any) -> np.ndarray:
        """``c + U z`` for one point or rows of points."""
        z = np.asarray(z, dtype=float)
        if self.identity:
            return np.array(z)
        if self.basis is not None:
            return self.c + z @ self.basis.T
        x = np.broadcast_to(self.c, z.shape[:-1] + self.c.shape).copy()
        x[..., self.index] = z
        return x

    def rows(self, W: Any) -> np.ndarray:
        """``W U``: rows acting on the coordinates ``z`` (``W`` may be a stack of matrices)."""
        W = np.asarray(W, dtype=float)
        if self.identity:
            return W
        if self.basis is not None:
            return W @ self.basis
        return W[..., self.index]

    def direction(self, u: Any) -> np.ndarray:
        """``U u``: the direction in R^n of a direction ``u`` in the coordinates ``z``."""
        u = np.asarray(u, dtype=float)
        if self.identity:
            return np.array(u)
        if self.basis is not None:
            return self.basis @ u
        v = np.zeros(self.c.shape[0])
        v[self.index] = u
        return v

    def offset(self, W: Any) -> np.ndarray:
        """``W c``: the constant part of ``W x`` (zero for the identity)."""
        W = np.asarray(W, dtype=float)
        if self.identity:
            return np.zeros(W.shape[0])
        return W @ self.c


class Radial(NamedTuple):
    """K = ``{x : s <= ||x|| <= r}`` (``surface``: ``||x|| = r``), intersected with ``x >= 0`` when ``nonnegative``."""

    s: float
    r: float
    nonnegative: bool = False
    surface: bool = False


class Domain:
    """Base class of the data domains. Subclasses set ``n`` and implement the methods."""

    n: int
    #: whether the set is open or strictly convex (Thm "Injectivity II" applies)
    open_or_strictly_convex: bool = False
    #: whether the set is open or convex (Thm "Injectivity I" applies with alpha itself)
    open_or_convex: bool = False
    #: K is a finite set of points
    finite: bool = False
    #: K is a polyhedron given by linear (in)equalities (``outer_polytope()`` is K itself)
    polyhedral: bool = False
    #: K lies in the non-negative orthant R^n_+
    nonnegative: bool = False
    #: K is all of R^n
    whole_space: bool = False

    #: the command-line name (``ball``, ``box``, ...); set by ``class X(Domain, spec=...)``
    spec_name: ClassVar[str | None] = None
    #: the argument of the command-line spelling, for help texts (``r``, ``s,r``, ``LO,HI | FILE``, ...)
    spec_args: ClassVar[str] = ""
    _registry: ClassVar[dict[str, type]] = {}
    _aliases: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, *, spec: str | None = None, aliases: tuple[str, ...] = (), args: str = "", **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if spec is not None:
            cls.spec_name = spec
            cls.spec_args = args
            Domain._registry[spec] = cls
            for a in aliases:
                Domain._aliases[a] = spec

    # -- the registry and the one parser --------------------------------------------------------
    @classmethod
    def registered(cls) -> dict[str, type]:
        """The domain classes by command-line name."""
        return dict(Domain._registry)

    @classmethod
    def from_spec(cls, spec: Any, n: int, *, name: str = "domain") -> Domain:
        """The domain in R^n spelled by ``spec`` (``"ball:1"``, ``"box:0,1"``, ``"hull:X.npy"``, ...).

        The inverse of :attr:`spec`; ``name`` is how the caller names the argument in messages.
        """
        n = dimension(n)
        if not isinstance(spec, str) or not spec.strip():
            raise InputError(f"{name} must be a string like 'ball:1' ({domain_specs()}); got {spec!r}.")
        kind, _, arg = spec.strip().partition(":")
        kind = kind.strip().lower()
        kind = Domain._aliases.get(kind, kind)
        klass = Domain._registry.get(kind)
        if klass is None:
            raise InputError(f"{name} must be one of {domain_specs()}; got {spec!r}.")
        try:
            dom = klass._parse(arg.strip(), n, name)
        except InputError as exc:
            text = str(exc)
            raise InputError(text if text.startswith(name) else f"{name} {spec!r}: {text}") from None
        if dom.n != n:
            raise InputError(f"{name} {spec!r} must describe a domain in R^{n} (the layer's input dimension); got R^{dom.n}.")
        return dom

    @classmethod
    def _parse(cls, arg: str, n: int, name: str) -> Domain:
        raise InputError(f"{cls.__name__} has no command-line spelling.")

    @staticmethod
    def from_bounds(lo: Any, hi: Any) -> Domain:
        """The axis-parallel box ``[lo, hi]`` as a domain (the registered ``box``), e.g. an enclosure of an image."""
        return Domain._registry["box"](lo, hi)

    # -- what it is ---------------------------------------------------------------------------
    @property
    def radius(self) -> float:
        """Sup-norm radius ``M = sup ||x||`` (``inf`` if unbounded)."""
        raise NotImplementedError

    @property
    def inner_radius(self) -> float:
        """``inf ||x||`` over K (0 when K contains the origin)."""
        return 0.0

    @property
    def bounded(self) -> bool:
        """True when ``radius`` is finite."""
        return bool(np.isfinite(self.radius))

    @property
    def full_dimensional(self) -> bool:
        """True when K has non-empty interior."""
        return True

    def describe(self) -> str:
        """The domain for people, e.g. ``"the ball B(r=1)"``."""
        return repr(self)

    @property
    def data_points(self) -> np.ndarray | None:
        """The data points the domain is made of (a data set, the hull of data), else None."""
        return None

    @property
    def spec(self) -> str:
        """The command-line spelling (``ball:1``, ``shell:0.5,1``, ...), read back by :meth:`from_spec`."""
        raise InputError(f"{type(self).__name__} has no command-line spelling.")

    # -- points ---------------------------------------------------------------------------------
    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` i.i.d. samples, shape ``(N, n)``."""
        raise NotImplementedError

    def sample_blocks(self, N: int, *, block: int, seed: Any = None) -> Iterator[np.ndarray]:
        """``N`` samples in consecutive blocks of at most ``block`` rows, so that one block at a time is in memory.

        When ``N <= block`` the one block is ``sample(N, seed=seed)`` itself: the same points. Otherwise
        the blocks are drawn one after the other from one generator made from ``seed``: reproducible for
        a seed and a block size, but not the points of one draw of ``N`` (which would not fit).
        """
        N = as_count(N, "N", minimum=0)
        block = as_count(block, "block")
        if N <= block:
            yield self.sample(N, seed=seed)
            return
        rng = as_rng(seed)
        for start in range(0, N, block):
            yield self.sample(min(block, N - start), seed=rng)

    def contains(self, X: Any, *, tol: float = MEMBERSHIP_RTOL) -> np.ndarray:
        """Membership of each point up to ``tol`` relative to the domain's size (bool array, or a bool for one point).

        The default ``tol`` is ``MEMBERSHIP_RTOL`` (1e-9, :mod:`relu_frames_nb._util.tolerances`).
        """
        pts, single = as_points(X, self.n, "X")
        out = self._contains(pts, tol)
        return bool(out[0]) if single else out

    def _contains(self, X: np.ndarray, tol: float) -> np.ndarray:
        raise NotImplementedError

    def contains_certified(self, X: Any) -> np.ndarray:
        """Membership that the arithmetic proves: True only where the point is certainly in K.

        Points on the boundary (up to rounding) and points whose membership cannot be proved
        give False. A reported colliding pair always passes this test.
        """
        pts, single = as_points(X, self.n, "X")
        out = self._contains_certified(pts)
        return bool(out[0]) if single else out

    def _contains_certified(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(X.shape[0], dtype=bool)

    # -- geometry for the algorithms ------------------------------------------------------------
    def interior_point(self) -> np.ndarray:
        """A point of the relative interior of K (of K itself when it has none, e.g. a sphere)."""
        raise NotImplementedError

    def in_affine_coordinates(self) -> tuple[Coordinates, Domain | None]:
        """``(coords, K_r)`` with ``K = coords.point(K_r)`` and ``K_r`` full-dimensional in its own coordinates.

        For a full-dimensional K the coordinates are the identity and ``K_r`` is K; ``K_r`` is
        None when K is a single point.
        """
        return Coordinates(np.zeros(self.n)), self

    def fibre_direction(self, J: Any, *, seed: Any = None) -> np.ndarray | None:
        """A long direction ``v`` with ``J v = 0`` along which ``interior_point() +- v`` stay in K.

        For the search of colliding pairs of a map whose Jacobian at the interior point is ``J``
        (rows acting on R^n). None when K offers no such construction (the caller then steps
        along a null vector of ``J`` and shrinks the step until both points are in K), or when ``J``
        has no null direction inside K. Membership of the points is still to be proved.
        """
        return None

    def support(self, W: Any) -> tuple[np.ndarray, np.ndarray]:
        """Valid bounds ``lo_i <= <w_i, x> <= hi_i`` for every ``x`` in K (rows ``w_i`` of ``W``).

        Exact for boxes, balls, hulls and data sets; from the radius otherwise.
        """
        W = np.atleast_2d(np.asarray(W, dtype=float))
        if not self.bounded:
            return np.full(W.shape[0], -np.inf), np.full(W.shape[0], np.inf)
        r = self.radius * (1 + 4 * _U)
        if self.nonnegative:
            return -r * robust_norms(np.minimum(W, 0.0)), r * robust_norms(np.maximum(W, 0.0))
        nr = r * robust_norms(W)
        return -nr, nr

    def outer_polytope(self) -> LinearDescription | None:
        """A polytope containing K (exactly K when ``polyhedral``); None when K is unbounded.

        The default is the box ``[-r, r]^n`` of the radius (``[0, r]^n`` when non-negative).
        """
        if not self.bounded:
            return None
        r = self.radius * (1 + 4 * _U)
        lo = np.zeros(self.n) if self.nonnegative else np.full(self.n, -r)
        return LinearDescription.box(lo, np.full(self.n, r))

    def compact_outer_polytope(self) -> LinearDescription | None:
        """A polytope containing K with few extra variables, for models solved many times.

        The default is :meth:`outer_polytope`; a data set's hull in low dimension gives its facets
        instead of one variable per point (a polytope that contains the hull, not the hull itself).
        """
        return self.outer_polytope()

    def radial(self) -> Radial | None:
        """``Radial(s, r, nonnegative, surface)`` when K is defined by the norm (a ball, shell, sphere, ...)."""
        return None

    def margin(self, z: Any) -> float | None:
        """A lower bound of the distance from ``z`` to the complement of K (negative outside; None if unknown)."""
        return None

    def ray_interval(self, u: Any) -> tuple[float, float] | None:
        """``(t0, t1)`` with ``{t > 0 : t u in K}`` between them (an interval for the domains here); None if empty."""
        return None

    def move_inside(self, u: Any) -> np.ndarray | None:
        """A point ``t u`` of K with ``t > 0`` in the middle of :meth:`ray_interval` (None when the ray misses K)."""
        u = np.asarray(u, dtype=float)
        iv = self.ray_interval(u)
        if iv is None:
            return None
        t0, t1 = iv
        if not t1 >= t0:
            return None
        t = t0 + 0.5 * (t1 - t0) if np.isfinite(t1) else max(1.0, 2.0 * t0)
        return u * t if t > 0 else None

    def cone_signs(self) -> list[tuple[int, ...]] | None:
        """Signs allowed per coordinate for the directions of K, when K contains 0 and a neighbourhood
        of 0 within its cone of directions (so active sets of zero-bias layers depend on the direction only);
        None otherwise.
        """
        return None

    def scaled(self, c: float) -> Domain:
        """The domain ``c K = {c x : x in K}`` for ``c > 0`` (exact when ``c`` is a power of two)."""
        raise NotImplementedError

    def _check_scale(self, c: Any) -> float:
        return as_positive(c, "c")


def domain_specs() -> str:
    """The command-line spellings of every registered domain, for help texts and messages."""
    parts = []
    for name, klass in Domain._registry.items():
        parts.append(f"{name}:{klass.spec_args}" if klass.spec_args else name)
    return " | ".join(parts)
