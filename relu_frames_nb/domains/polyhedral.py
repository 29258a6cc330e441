r"""Polyhedral domains: boxes (e.g. pixel ranges), H-polytopes and the convex hull of data.

Each is a bounded convex :class:`~relu_frames_nb.domains.Domain` given by linear
constraints, so the exact verdict (:func:`relu_frames_nb.exact.exact_verdict`) decides
injectivity on it with one mixed-integer linear program. :meth:`linear_description`
returns those constraints over variables ``(x, w)``: ``w`` are extra variables (none for a
box or a polytope; the ``N`` convex weights ``lambda`` for a hull, ``x = X^T lambda``, so no
facet enumeration is needed and it works in high dimension).

* :class:`Box` ``prod_j [lo_j, hi_j]``; coordinates with ``lo_j == hi_j`` are allowed
  (the box then has empty interior: ``full_dimensional`` is False).
* :class:`Polytope` ``{x : A x <= b}``, checked bounded and non-empty with ``2 n`` LPs
  (they also give the bounding box); its Chebyshev centre and inradius come from one LP.
* :class:`Hull` ``conv(X)`` of the rows of ``X``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from .._validation import as_count, as_matrix, as_rng, to_float_array
from ..errors import DimensionMismatchError, InputError
from .base import Domain, _dim

__all__ = ["LinearDescription", "Box", "Polytope", "Hull"]


def _g(x: float) -> str:
    return f"{x:g}"


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class LinearDescription:
    r"""Linear constraints describing a polyhedral domain, over variables ``z = (x, w)``.

    ``K = {x : exists w with A_ub z <= b_ub, A_eq z = b_eq, lower <= z <= upper}``.

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
        Variable bounds (finite for ``x``: the bounding box).
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


class _Frozen:
    """Attributes are set once in ``__init__`` (via ``object.__setattr__``) and never again."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one instead.")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable.")


def _set(obj: Any, **kw: Any) -> None:
    for k, v in kw.items():
        object.__setattr__(obj, k, v)


def _range_text(v: np.ndarray) -> str:
    lo, hi = float(v.min()), float(v.max())
    return _g(lo) if lo == hi else f"{_g(lo)}…{_g(hi)}"


# ---------------------------------------------------------------------------------
# Box
# ---------------------------------------------------------------------------------


class Box(_Frozen, Domain):
    """The box ``prod_j [lo_j, hi_j]`` in R^n (e.g. the pixel range ``[0, 1]^64``).

    Parameters
    ----------
    lo, hi : float or array_like, shape (n,)
        Lower and upper bounds, finite, ``lo <= hi`` coordinate-wise. Scalars need ``n``.
        Coordinates with ``lo_j == hi_j`` are allowed: the box is then a lower-dimensional
        face with empty interior (``full_dimensional`` is False; Thm "Injectivity II" then
        needs the verdict to work in the box's own coordinates, which the exact verdict does).
    n : int, optional
        The dimension, required when both bounds are scalars.

    Examples
    --------
    >>> K = Box(0, 1, n=3)
    >>> K.describe(), K.spec
    ('the box [0, 1]^3', 'box:0,1')
    >>> bool(K.contains([0.5, 0.0, 1.0]))
    True
    """

    __slots__ = ("n", "lo", "hi")
    polyhedral = True
    open_or_convex = True

    def __init__(self, lo: Any, hi: Any, *, n: Any = None) -> None:
        lo_a = to_float_array(lo, "lo")
        hi_a = to_float_array(hi, "hi")
        if lo_a.ndim > 1 or hi_a.ndim > 1:
            raise InputError(f"lo and hi must be scalars or 1-D arrays; got shapes {lo_a.shape} and {hi_a.shape}.")
        sizes = {a.shape[0] for a in (lo_a, hi_a) if a.ndim == 1}
        if len(sizes) > 1:
            raise DimensionMismatchError(f"lo and hi must have the same length; got {lo_a.shape[0]} and {hi_a.shape[0]}.")
        if n is not None:
            n = _dim(n)
            if sizes and sizes != {n}:
                raise DimensionMismatchError(f"lo and hi must have length n = {n}; got length {sizes.pop()}.")
        elif not sizes:
            raise InputError("n must be given when lo and hi are both scalars; got n=None. Example: Box(0, 1, n=64).")
        else:
            n = sizes.pop()
            if n < 1:
                raise InputError("lo and hi must have at least one coordinate; got length 0.")
        lo_v = np.broadcast_to(lo_a, (n,)).astype(float)
        hi_v = np.broadcast_to(hi_a, (n,)).astype(float)
        bad = np.flatnonzero(lo_v > hi_v)
        if bad.size:
            j = int(bad[0])
            raise InputError(
                f"lo must be <= hi in every coordinate; got lo[{j}] = {lo_v[j]:g} > hi[{j}] = {hi_v[j]:g} "
                f"({bad.size} coordinate(s)). Swap them."
            )
        _set(self, n=int(n), lo=_readonly(lo_v), hi=_readonly(hi_v))

    # -- identity
    @property
    def uniform(self) -> bool:
        """True when every coordinate has the same bounds."""
        return bool(np.all(self.lo == self.lo[0]) and np.all(self.hi == self.hi[0]))

    def __repr__(self) -> str:
        if self.uniform:
            return f"Box(lo={_g(self.lo[0])}, hi={_g(self.hi[0])}, n={self.n})"
        return f"Box(lo=[{_range_text(self.lo)}], hi=[{_range_text(self.hi)}], n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Box) and np.array_equal(self.lo, other.lo) and np.array_equal(self.hi, other.hi)

    def __hash__(self) -> int:
        return hash(("Box", self.lo.tobytes(), self.hi.tobytes()))

    def describe(self) -> str:
        if self.uniform:
            return f"the box [{_g(self.lo[0])}, {_g(self.hi[0])}]^{self.n}"
        return f"the box ∏ [lo_j, hi_j] in R^{self.n} (lo in [{_range_text(self.lo)}], hi in [{_range_text(self.hi)}])"

    @property
    def spec(self) -> str:
        if self.uniform:
            return f"box:{_g(self.lo[0])},{_g(self.hi[0])}"
        raise InputError(
            "a box with per-coordinate bounds has no inline command-line spelling; save "
            "np.stack([lo, hi]) to FILE.npy and use box:FILE.npy."
        )

    # -- geometry
    @property
    def full_dimensional(self) -> bool:
        """True when ``lo_j < hi_j`` for every coordinate (non-empty interior)."""
        return bool(np.all(self.lo < self.hi))

    @property
    def open_or_strictly_convex(self) -> bool:  # type: ignore[override]
        """A box is not strictly convex (except in R^1, an interval)."""
        return self.n == 1 and self.full_dimensional

    @property
    def nonnegative(self) -> bool:  # type: ignore[override]
        return bool(np.all(self.lo >= 0))

    @property
    def radius(self) -> float:
        """``max ||x||`` over the box (attained at a corner), exact."""
        return float(np.linalg.norm(np.maximum(np.abs(self.lo), np.abs(self.hi))))

    @property
    def inner_radius(self) -> float:
        """``min ||x||`` over the box (the norm of the clipped origin), exact."""
        return float(np.linalg.norm(np.clip(0.0, self.lo, self.hi)))

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``: the box itself."""
        return np.array(self.lo), np.array(self.hi)

    def interior_point(self) -> np.ndarray:
        """The centre ``(lo + hi) / 2`` (interior when ``full_dimensional``)."""
        return (self.lo + self.hi) / 2.0

    def linear_description(self) -> LinearDescription:
        """No inequality rows; the bounds ``lo <= x <= hi``."""
        n = self.n
        return LinearDescription(
            n, 0, np.zeros((0, n)), np.zeros(0), np.zeros((0, n)), np.zeros(0), np.array(self.lo), np.array(self.hi)
        )

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` i.i.d. uniform points of the box, shape ``(N, n)``."""
        N = as_count(N, "N", minimum=0)
        return self.lo + (self.hi - self.lo) * as_rng(seed).random((N, self.n))

    def _contains(self, X, tol):
        slack = tol * max(1.0, float(np.max(np.abs(np.r_[self.lo, self.hi]))))
        return np.all((X >= self.lo - slack) & (X <= self.hi + slack), axis=1)


# ---------------------------------------------------------------------------------
# Polytope
# ---------------------------------------------------------------------------------

#: the exact radius (max norm over vertices) is computed when the vertex count estimate is below this
_MAX_VERTEX_WORK = 20_000


class Polytope(_Frozen, Domain):
    r"""The bounded polytope ``{x : A x <= b}`` in R^n.

    Parameters
    ----------
    A : array_like, shape (k, n)
        Constraint normals (non-zero rows).
    b : array_like, shape (k,)
        Offsets.

    Notes
    -----
    The constructor solves ``2 n`` LPs (min and max of each coordinate): they prove the set
    bounded and non-empty and give :meth:`bounding_box`; one more LP gives the Chebyshev
    centre (:meth:`interior_point`) and the inradius :attr:`chebyshev_radius`
    (``full_dimensional`` is True when it is positive).

    ``radius`` is exact (the largest vertex norm, vertices from
    :class:`scipy.spatial.HalfspaceIntersection`) when the polytope is full-dimensional
    and :math:`\binom{k}{n} \le 20000`; otherwise it is the norm of the farthest corner of
    the bounding box, a valid upper bound (``radius_exact`` says which).
    ``inner_radius`` is the exact distance from the origin (least distance programming).
    ``sample`` uses rejection from the bounding box when at least 2% of a pilot batch is
    accepted (uniform), otherwise hit-and-run from the Chebyshev centre (``n`` steps per
    point after ``20 n`` burn-in steps: approximately uniform, correlated). Both are seeded.

    Examples
    --------
    >>> K = Polytope([[1, 0], [0, 1], [-1, -1]], [1, 1, 1])
    >>> bool(K.contains([0.0, 0.0])), bool(K.contains([2.0, 0.0]))
    (True, False)
    """

    __slots__ = ("n", "A", "b", "_lo", "_hi", "_center", "chebyshev_radius", "_radius", "radius_exact", "_inner")
    polyhedral = True
    open_or_convex = True

    def __init__(self, A: Any, b: Any) -> None:
        A_a = as_matrix(A, "A")
        b_a = to_float_array(b, "b")
        k, n = A_a.shape
        if b_a.ndim != 1 or b_a.shape[0] != k:
            raise DimensionMismatchError(f"b must be a vector of length {k} (one per row of A); got shape {b_a.shape}.")
        norms = np.linalg.norm(A_a, axis=1)
        zero = np.flatnonzero(norms == 0)
        if zero.size:
            raise InputError(f"A must have non-zero rows; got zero row(s) at index {zero[:10].tolist()}. Remove them.")
        _set(self, n=int(n), A=_readonly(A_a), b=_readonly(b_a))
        lo, hi = self._bounds_by_lp()
        _set(self, _lo=_readonly(lo), _hi=_readonly(hi))
        center, rad = self._chebyshev()
        _set(self, _center=_readonly(center), chebyshev_radius=float(rad))
        _set(self, _radius=None, radius_exact=False, _inner=None)

    def _bounds_by_lp(self) -> tuple[np.ndarray, np.ndarray]:
        from ..exact._ldp import linprog_quiet

        n = self.n
        lo, hi = np.empty(n), np.empty(n)
        free = [(None, None)] * n
        for j in range(n):
            for sign, out in ((1.0, lo), (-1.0, hi)):
                c = np.zeros(n)
                c[j] = sign
                res = linprog_quiet(c, A_ub=self.A, b_ub=self.b, bounds=free)
                if res.status == 2:
                    raise InputError("A x <= b must describe a non-empty set; got an infeasible system (no point satisfies it).")
                if res.status == 3:
                    raise InputError(
                        f"A x <= b must describe a bounded set; got a set unbounded along coordinate {j}. "
                        "Add constraints (e.g. a bounding box)."
                    )
                if res.status != 0:
                    raise InputError(f"A x <= b could not be checked (LP status {res.status}: {res.message}).")
                out[j] = sign * res.fun
        return lo, hi

    def _chebyshev(self) -> tuple[np.ndarray, float]:
        from ..exact._ldp import linprog_quiet

        n = self.n
        norms = np.linalg.norm(self.A, axis=1)
        c = np.zeros(n + 1)
        c[-1] = -1.0
        A_ub = np.hstack([self.A, norms[:, None]])
        width = float(np.max(self._hi - self._lo))
        bounds = [(float(a), float(b)) for a, b in zip(self._lo, self._hi)] + [(0.0, width + 1.0)]
        res = linprog_quiet(c, A_ub=A_ub, b_ub=self.b, bounds=bounds)
        if res.status != 0:  # pragma: no cover - the bounds LPs already found a point
            return (self._lo + self._hi) / 2.0, 0.0
        t = float(res.x[-1])
        scale = max(1.0, float(np.max(np.abs(np.r_[self._lo, self._hi]))))
        return np.array(res.x[:n]), (t if t > 1e-9 * scale else 0.0)

    # -- identity
    def __repr__(self) -> str:
        return f"Polytope(k={self.A.shape[0]}, n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Polytope) and np.array_equal(self.A, other.A) and np.array_equal(self.b, other.b)

    def __hash__(self) -> int:
        return hash(("Polytope", self.A.tobytes(), self.b.tobytes()))

    def describe(self) -> str:
        return f"the polytope {{x : A x ≤ b}} in R^{self.n} ({self.A.shape[0]} inequalities)"

    @property
    def spec(self) -> str:
        raise InputError(
            "a Polytope has no inline command-line spelling; save it with np.savez(FILE, A=A, b=b) and use polytope:FILE.npz."
        )

    # -- geometry
    @property
    def full_dimensional(self) -> bool:
        """True when the Chebyshev radius is positive (non-empty interior)."""
        return self.chebyshev_radius > 0

    @property
    def radius(self) -> float:
        """Sup of ``||x||`` over K: exact or a bounding-box upper bound (see ``radius_exact``)."""
        if self._radius is None:
            r, exact = self._compute_radius()
            _set(self, _radius=r, radius_exact=exact)
        return self._radius

    def _compute_radius(self) -> tuple[float, bool]:
        corner = float(np.linalg.norm(np.maximum(np.abs(self._lo), np.abs(self._hi))))
        k = self.A.shape[0]
        if not self.full_dimensional or self.n < 2 or comb(k, self.n) > _MAX_VERTEX_WORK:
            if self.n == 1:
                return float(max(abs(self._lo[0]), abs(self._hi[0]))), True
            return corner, False
        try:
            from scipy.spatial import HalfspaceIntersection

            hs = HalfspaceIntersection(np.hstack([self.A, -self.b[:, None]]), self._center)
            return float(np.max(np.linalg.norm(hs.intersections, axis=1))), True
        except Exception:  # qhull precision trouble: fall back to the valid bound
            return corner, False

    @property
    def inner_radius(self) -> float:
        """``min ||x||`` over K (least distance programming, exact up to rounding)."""
        if self._inner is None:
            from ..exact._ldp import min_norm_point

            p = min_norm_point(self.A, self.b)
            _set(self, _inner=0.0 if p is None else float(np.linalg.norm(p)))
        return self._inner

    @property
    def nonnegative(self) -> bool:  # type: ignore[override]
        return bool(np.all(self._lo >= 0))

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """The tightest axis-parallel box containing K (from ``2 n`` LPs)."""
        return np.array(self._lo), np.array(self._hi)

    def interior_point(self) -> np.ndarray:
        """The Chebyshev centre (interior when ``full_dimensional``)."""
        return np.array(self._center)

    def linear_description(self) -> LinearDescription:
        """``A x <= b`` plus the bounding box as variable bounds."""
        n = self.n
        return LinearDescription(
            n, 0, np.array(self.A), np.array(self.b), np.zeros((0, n)), np.zeros(0), np.array(self._lo), np.array(self._hi)
        )

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` seeded points of K (rejection when efficient, else hit-and-run; see Notes)."""
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        if N == 0:
            return np.zeros((0, self.n))
        width = self._hi - self._lo
        pilot = self._lo + width * rng.random((2000, self.n))
        ok = self._contains(pilot, 0.0)
        rate = ok.mean()
        if rate >= 0.02:
            out = [pilot[ok]]
            got = out[0].shape[0]
            while got < N:
                batch = self._lo + width * rng.random((int(min(1e6, 1.2 * (N - got) / rate + 100)), self.n))
                batch = batch[self._contains(batch, 0.0)]
                out.append(batch)
                got += batch.shape[0]
            return np.concatenate(out)[:N]
        return self._hit_and_run(N, rng)

    def _hit_and_run(self, N: int, rng: np.random.Generator) -> np.ndarray:
        x = np.array(self._center)
        out = np.empty((N, self.n))
        steps = 20 * self.n
        k = 0
        while k < N:
            d = rng.standard_normal(self.n)
            d /= np.linalg.norm(d)
            Ad = self.A @ d
            slack = self.b - self.A @ x
            with np.errstate(divide="ignore", invalid="ignore"):
                t = slack / Ad
            t_hi = np.min(t[Ad > 0]) if np.any(Ad > 0) else 0.0
            t_lo = np.max(t[Ad < 0]) if np.any(Ad < 0) else 0.0
            x = x + (t_lo + (t_hi - t_lo) * rng.random()) * d
            steps -= 1
            if steps <= 0:
                out[k] = x
                k += 1
                steps = self.n
        return out

    def _contains(self, X, tol):
        norms = np.linalg.norm(self.A, axis=1)
        scale = max(1.0, float(np.max(np.abs(np.r_[self._lo, self._hi]))))
        return np.all(X @ self.A.T - self.b <= tol * scale * norms, axis=1)


# ---------------------------------------------------------------------------------
# Hull
# ---------------------------------------------------------------------------------

#: the hull's facets (scipy ConvexHull) are used for membership up to this dimension
_HULL_FACETS_MAX_DIM = 6


class Hull(_Frozen, Domain):
    r"""The convex hull ``conv(X)`` of the rows of ``X`` (a data set's convex hull).

    Parameters
    ----------
    X : array_like, shape (N, n)
        The points (rows). Duplicates are fine.
    source : str, optional
        The file the points came from; it gives the spelling ``hull:FILE``.

    Notes
    -----
    The description is lifted: ``x = X^T lambda`` with ``lambda`` in the simplex, so no
    facet enumeration is needed. ``contains`` uses the hull's facets (qhull) when
    ``n <= 6`` and the hull is full-dimensional, otherwise one LP per point (after a
    bounding-box filter). ``sample`` draws random convex combinations of ``n + 1`` random
    points with Dirichlet(1) weights: seeded, *not* uniform on the hull. ``radius`` is the
    largest row norm (exact); ``inner_radius`` is a valid lower bound of the distance from
    the origin (a separating hyperplane through an approximate nearest point), exact up to
    rounding when the approximation is good. ``affine_dimension`` is the dimension of the
    data's affine hull; when it is below ``n`` the hull has empty interior.

    Examples
    --------
    >>> K = Hull([[0, 0], [1, 0], [0, 1]])
    >>> bool(K.contains([0.2, 0.2])), bool(K.contains([1.0, 1.0]))
    (True, False)
    """

    __slots__ = ("n", "points", "source", "affine_dimension", "_facets", "_inner")
    polyhedral = True
    open_or_convex = True

    def __init__(self, X: Any, *, source: str | None = None) -> None:
        arr = to_float_array(X, "X")
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InputError(f"X must be a non-empty 2-D array of points (rows); got shape {arr.shape}.")
        pts = _readonly(arr)
        c = pts - pts.mean(axis=0)
        if pts.shape[0] > 1:
            s = np.linalg.svd(c, compute_uv=False)
            scale = max(float(np.max(np.abs(pts))), 1e-300)
            d = int(np.sum(s > 1e-10 * max(s[0], scale)))
        else:
            d = 0
        _set(self, n=int(pts.shape[1]), points=pts, source=None if source is None else str(source))
        _set(self, affine_dimension=d, _facets=None, _inner=None)

    # -- identity
    def __repr__(self) -> str:
        return f"Hull(N={self.points.shape[0]}, n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Hull) and np.array_equal(self.points, other.points)

    def __hash__(self) -> int:
        return hash(("Hull", self.points.tobytes()))

    def describe(self) -> str:
        extra = "" if self.full_dimensional else f", affine dimension {self.affine_dimension}"
        return f"the convex hull of {self.points.shape[0]} points in R^{self.n}{extra}"

    @property
    def spec(self) -> str:
        if self.source is None:
            raise InputError("this hull was not read from a file, so it has no command-line spelling hull:FILE.")
        return f"hull:{self.source}"

    # -- geometry
    @property
    def full_dimensional(self) -> bool:
        """True when the points' affine hull is all of R^n (non-empty interior)."""
        return self.affine_dimension == self.n

    @property
    def nonnegative(self) -> bool:  # type: ignore[override]
        return bool(np.all(self.points >= 0))

    @property
    def radius(self) -> float:
        """The largest row norm (exact: a convex function peaks at a vertex)."""
        return float(np.max(np.linalg.norm(self.points, axis=1)))

    @property
    def inner_radius(self) -> float:
        """A valid lower bound of ``min ||x||`` over the hull (see Notes)."""
        if self._inner is None:
            _set(self, _inner=self._distance_lower_bound())
        return self._inner

    def _distance_lower_bound(self) -> float:
        from scipy.optimize import nnls

        X = self.points
        N = X.shape[0]
        w = 1e3 * max(1.0, self.radius)
        E = np.vstack([X.T, np.full((1, N), w)])
        f = np.zeros(self.n + 1)
        f[-1] = w
        try:
            lam, _ = nnls(E, f, maxiter=50 * (N + self.n + 10))
        except RuntimeError:  # pragma: no cover
            return 0.0
        if lam.sum() <= 0:
            return 0.0
        p = X.T @ (lam / lam.sum())
        norm = float(np.linalg.norm(p))
        if norm <= 1e-12 * max(1.0, self.radius):
            return 0.0
        return max(0.0, float(np.min(X @ (p / norm))))

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """Coordinate-wise min and max of the points."""
        return self.points.min(axis=0), self.points.max(axis=0)

    def interior_point(self) -> np.ndarray:
        """The centroid of the points (in the relative interior of the hull)."""
        return self.points.mean(axis=0)

    def linear_description(self) -> LinearDescription:
        """Variables ``(x, lambda)``: ``x - X^T lambda = 0``, ``sum lambda = 1``, ``lambda >= 0``."""
        X = self.points
        N, n = X.shape
        A_eq = np.zeros((n + 1, n + N))
        A_eq[:n, :n] = np.eye(n)
        A_eq[:n, n:] = -X.T
        A_eq[n, n:] = 1.0
        b_eq = np.zeros(n + 1)
        b_eq[n] = 1.0
        lo, hi = self.bounding_box()
        return LinearDescription(
            n, N, np.zeros((0, n + N)), np.zeros(0), A_eq, b_eq, np.r_[lo, np.zeros(N)], np.r_[hi, np.ones(N)]
        )

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` random convex combinations of ``n + 1`` random points (seeded, not uniform)."""
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        X = self.points
        k = min(X.shape[0], self.n + 1)
        idx = np.argsort(rng.random((N, X.shape[0])), axis=1)[:, :k] if k < X.shape[0] else np.tile(np.arange(k), (N, 1))
        w = rng.dirichlet(np.ones(k), size=N)
        return np.einsum("ik,ikj->ij", w, X[idx])

    def _facet_equations(self) -> np.ndarray | None:
        if self._facets is None:
            eq = np.zeros((0, self.n + 1))
            if self.full_dimensional and 2 <= self.n <= _HULL_FACETS_MAX_DIM and self.points.shape[0] > self.n:
                try:
                    from scipy.spatial import ConvexHull

                    eq = ConvexHull(self.points).equations
                except Exception:  # qhull trouble: use LPs
                    eq = np.zeros((0, self.n + 1))
            _set(self, _facets=eq)
        return self._facets if self._facets.shape[0] else None

    def _contains(self, X, tol):
        lo, hi = self.bounding_box()
        scale = max(1.0, self.radius)
        slack = tol * scale
        out = np.all((X >= lo - slack) & (X <= hi + slack), axis=1)
        if self.n == 1:
            return out
        eq = self._facet_equations()
        if eq is not None:
            return out & np.all(X @ eq[:, :-1].T + eq[:, -1] <= slack, axis=1)
        for i in np.flatnonzero(out):
            out[i] = self._lp_distance(X[i]) <= slack
        return out

    def _lp_distance(self, y: np.ndarray) -> float:
        """``min ||X^T lambda - y||_1`` over the simplex (one LP)."""
        from ..exact._ldp import linprog_quiet

        X = self.points
        N, n = X.shape
        # variables (lambda (N), s (n)): min sum s, -s <= X^T lambda - y <= s
        c = np.r_[np.zeros(N), np.ones(n)]
        A_ub = np.block([[X.T, -np.eye(n)], [-X.T, -np.eye(n)]])
        b_ub = np.r_[y, -y]
        A_eq = np.r_[np.ones(N), np.zeros(n)][None, :]
        res = linprog_quiet(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * (N + n))
        return float(res.fun) if res.status == 0 else float("inf")
