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

from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from .._io import read_array, read_npz
from .._lp import linprog_quiet, min_norm_point
from .._pairs import pow2_scale
from .._rational import in_simplex
from .._validation import as_count, as_matrix, as_rng, to_float_array
from ..errors import DimensionMismatchError, InputError
from .base import Coordinates, Domain, LinearDescription, dimension, robust_norms
from .radial import numbers_in

__all__ = ["LinearDescription", "Box", "Polytope", "Hull"]

_U = 2.0**-53
#: entries of one intermediate array (points x constraints) at most, to keep memory bounded
_CHUNK_ENTRIES = 1 << 22


def _g(x: float) -> str:
    """Short, and read back exactly (``repr`` when ``:g`` would round)."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def _chunks(N: int, width: int):
    step = max(1, _CHUNK_ENTRIES // max(width, 1))
    for s in range(0, N, step):
        yield slice(s, min(N, s + step))


def _file_arg(arg: str, kind: str, name: str) -> str:
    if not arg:
        raise InputError(f"{kind} needs a file: {kind}:FILE (.npy, .npz, .csv); got no file name.")
    return arg


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


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


class Box(_Frozen, Domain, spec="box", args="LO,HI | FILE"):
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

    __slots__ = ("n", "lo", "hi", "source")
    polyhedral = True
    open_or_convex = True

    def __init__(self, lo: Any, hi: Any, *, n: Any = None, source: str | None = None) -> None:
        lo_a = to_float_array(lo, "lo")
        hi_a = to_float_array(hi, "hi")
        if lo_a.ndim > 1 or hi_a.ndim > 1:
            raise InputError(f"lo and hi must be scalars or 1-D arrays; got shapes {lo_a.shape} and {hi_a.shape}.")
        sizes = {a.shape[0] for a in (lo_a, hi_a) if a.ndim == 1}
        if len(sizes) > 1:
            raise DimensionMismatchError(f"lo and hi must have the same length; got {lo_a.shape[0]} and {hi_a.shape[0]}.")
        if n is not None:
            n = dimension(n)
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
        _set(self, n=int(n), lo=_readonly(lo_v), hi=_readonly(hi_v), source=None if source is None else str(source))

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
        if self.source is not None:
            return f"box:{self.source}"
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
        """``max ||x||`` over the box (attained at a corner), exact up to rounding."""
        return float(robust_norms(np.maximum(np.abs(self.lo), np.abs(self.hi)))[0])

    @property
    def inner_radius(self) -> float:
        """``min ||x||`` over the box (the norm of the clipped origin), exact up to rounding."""
        return float(robust_norms(np.clip(0.0, self.lo, self.hi))[0])

    @classmethod
    def _parse(cls, arg, n, name):
        try:
            lo, hi = numbers_in(arg, (2,), "box:LO,HI (the same bounds for every coordinate) or box:FILE")
        except InputError:
            if not arg or "," in arg and not Path(arg).exists():
                raise
        else:
            return cls(lo, hi, n=n)
        X = read_array(_file_arg(arg, "box", name), f"{name} box", keys=("box",))
        if X.ndim != 2 or X.shape[0] != 2:
            raise InputError(f"{name} box file {arg!r} must hold two rows, lo and hi; got shape {X.shape}.")
        if X.shape[1] != n:
            raise InputError(f"{name} box file {arg!r} must have {n} columns (the layer's input dimension); got {X.shape[1]}.")
        return cls(X[0], X[1], source=arg)

    def scaled(self, c):
        c = self._check_scale(c)
        return Box(self.lo * c, self.hi * c)

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``: the box itself."""
        return np.array(self.lo), np.array(self.hi)

    def interior_point(self) -> np.ndarray:
        """The centre ``(lo + hi) / 2`` (interior when ``full_dimensional``)."""
        return self.lo / 2.0 + self.hi / 2.0

    def linear_description(self) -> LinearDescription:
        """No inequality rows; the bounds ``lo <= x <= hi``."""
        return LinearDescription.box(self.lo, self.hi)

    def outer_polytope(self) -> LinearDescription:
        """The box itself."""
        return self.linear_description()

    def in_affine_coordinates(self):
        """The free coordinates (``lo_j < hi_j``); the fixed ones stay at their value."""
        if self.full_dimensional:
            return Coordinates(np.zeros(self.n)), self
        free = self.lo < self.hi
        c = np.where(free, 0.0, self.lo)
        if not free.any():
            return Coordinates(c, index=np.zeros(0, dtype=np.intp)), None
        return Coordinates(c, index=np.flatnonzero(free)), Box(self.lo[free], self.hi[free])

    def support(self, W):
        """Exact: ``sum_j min/max(w_j lo_j, w_j hi_j)``, without overflow."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        s = float(pow2_scale(np.r_[self.lo, self.hi]))
        lo, hi = self.lo * s, self.hi * s
        a, b = W * lo, W * hi
        with np.errstate(over="ignore"):
            low = np.minimum(a, b).sum(axis=1) / s
            high = np.maximum(a, b).sum(axis=1) / s
        return low, high

    def margin(self, z):
        z = np.asarray(z, dtype=float)
        return float(np.min(np.minimum(z - self.lo, self.hi - z)))

    def ray_interval(self, u):
        u = np.asarray(u, dtype=float)
        t0, t1 = 0.0, float("inf")
        for j in range(self.n):
            if u[j] > 0:
                t0, t1 = max(t0, self.lo[j] / u[j]), min(t1, self.hi[j] / u[j])
            elif u[j] < 0:
                t0, t1 = max(t0, self.hi[j] / u[j]), min(t1, self.lo[j] / u[j])
            elif not self.lo[j] <= 0.0 <= self.hi[j]:
                return None
        return (t0, t1) if t1 >= t0 and t1 > 0 else None

    def cone_signs(self):
        if np.any(self.lo > 0) or np.any(self.hi < 0):
            return None  # 0 not in the box: no degenerate origin
        return [(1, -1) if lo < 0 < hi else ((1,) if lo == 0 else (-1,)) for lo, hi in zip(self.lo, self.hi)]

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` i.i.d. uniform points of the box, shape ``(N, n)``."""
        N = as_count(N, "N", minimum=0)
        return self.lo + (self.hi - self.lo) * as_rng(seed).random((N, self.n))

    def _contains(self, X, tol):
        slack = tol * float(np.max(np.abs(np.r_[self.lo, self.hi])))
        return np.all((X >= self.lo - slack) & (X <= self.hi + slack), axis=1)

    def _contains_certified(self, X):
        return np.all((X >= self.lo) & (X <= self.hi), axis=1)


# ---------------------------------------------------------------------------------
# Polytope
# ---------------------------------------------------------------------------------

#: the exact radius (max norm over vertices) is computed when the vertex count estimate is below this
_MAX_VERTEX_WORK = 20_000


class Polytope(_Frozen, Domain, spec="polytope", args="FILE.npz"):
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
    (``full_dimensional`` is True when it is positive). The LPs see a rescaled copy (every
    row and the offsets multiplied by powers of two), so bounds such as ``1e300`` are fine.

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

    __slots__ = ("n", "A", "b", "_lo", "_hi", "_center", "chebyshev_radius", "_radius", "radius_exact", "_inner",
                 "_An", "_bn", "_s", "source")  # fmt: skip
    polyhedral = True
    open_or_convex = True

    def __init__(self, A: Any, b: Any, *, source: str | None = None) -> None:
        A_a = as_matrix(A, "A")
        b_a = to_float_array(b, "b")
        k, n = A_a.shape
        if b_a.ndim != 1 or b_a.shape[0] != k:
            raise DimensionMismatchError(f"b must be a vector of length {k} (one per row of A); got shape {b_a.shape}.")
        zero = np.flatnonzero(~np.any(A_a != 0, axis=1))
        if zero.size:
            raise InputError(f"A must have non-zero rows; got zero row(s) at index {zero[:10].tolist()}. Remove them.")
        _set(self, n=int(n), A=_readonly(A_a), b=_readonly(b_a), source=None if source is None else str(source))
        # the LPs' copy: rows scaled by powers of two, offsets by one more (x'' = s x)
        r = pow2_scale(A_a, axis=1)
        bn = b_a * r
        s = float(pow2_scale(bn))
        _set(self, _An=_readonly(A_a * r[:, None]), _bn=_readonly(bn * s), _s=s)
        lo, hi = self._bounds_by_lp()
        _set(self, _lo=_readonly(lo), _hi=_readonly(hi))
        center, rad = self._chebyshev()
        _set(self, _center=_readonly(center), chebyshev_radius=float(rad))
        _set(self, _radius=None, radius_exact=False, _inner=None)

    @classmethod
    def _parse(cls, arg, n, name):
        arrays = read_npz(_file_arg(arg, "polytope", name), f"{name} polytope file")
        missing = [k for k in ("A", "b") if k not in arrays]
        if missing:
            raise InputError(f"{name} polytope file {arg!r} must hold arrays 'A' and 'b'; got keys {sorted(arrays)}.")
        dom = cls(arrays["A"], arrays["b"], source=arg)
        if dom.n != n:
            raise InputError(f"{name} polytope file {arg!r} must have {n} columns (the layer's input dimension); got {dom.n}.")
        return dom

    def _bounds_by_lp(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.n
        lo, hi = np.empty(n), np.empty(n)
        free = [(None, None)] * n
        for j in range(n):
            for sign, out in ((1.0, lo), (-1.0, hi)):
                c = np.zeros(n)
                c[j] = sign
                res = linprog_quiet(c, A_ub=self._An, b_ub=self._bn, bounds=free)
                if res.status == 2:
                    raise InputError("A x <= b must describe a non-empty set; got an infeasible system (no point satisfies it).")
                if res.status == 3:
                    raise InputError(
                        f"A x <= b must describe a bounded set; got a set unbounded along coordinate {j}. "
                        "Add constraints (e.g. a bounding box)."
                    )
                if res.status != 0:
                    raise InputError(f"A x <= b could not be checked (LP status {res.status}: {res.message}).")
                out[j] = sign * res.fun / self._s
        return lo, hi

    def _chebyshev(self) -> tuple[np.ndarray, float]:
        n = self.n
        norms = np.linalg.norm(self._An, axis=1)
        c = np.zeros(n + 1)
        c[-1] = -1.0
        A_ub = np.hstack([self._An, norms[:, None]])
        lo, hi = self._lo * self._s, self._hi * self._s
        width = float(np.max(hi - lo))
        bounds = [(float(a), float(b)) for a, b in zip(lo, hi)] + [(0.0, width + 1.0)]
        res = linprog_quiet(c, A_ub=A_ub, b_ub=self._bn, bounds=bounds)
        if res.status != 0:  # pragma: no cover - the bounds LPs already found a point
            return self._lo / 2 + self._hi / 2, 0.0
        t = float(res.x[-1])
        scale = float(np.max(np.abs(np.r_[lo, hi])))
        return np.array(res.x[:n]) / self._s, (t / self._s if t > 1e-9 * scale else 0.0)

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
        if self.source is not None:
            return f"polytope:{self.source}"
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
        corner = float(robust_norms(np.maximum(np.abs(self._lo), np.abs(self._hi)))[0])
        k = self.A.shape[0]
        if not self.full_dimensional or self.n < 2 or comb(k, self.n) > _MAX_VERTEX_WORK:
            if self.n == 1:
                return float(max(abs(self._lo[0]), abs(self._hi[0]))), True
            return corner, False
        try:
            from scipy.spatial import HalfspaceIntersection

            hs = HalfspaceIntersection(np.hstack([self._An, -self._bn[:, None]]), self._center * self._s)
            return float(np.max(robust_norms(hs.intersections))) / self._s, True
        except Exception:  # qhull precision trouble: fall back to the valid bound
            return corner, False

    @property
    def inner_radius(self) -> float:
        """``min ||x||`` over K (least distance programming, exact up to rounding)."""
        if self._inner is None:
            p = min_norm_point(self._An, self._bn)
            _set(self, _inner=0.0 if p is None else float(np.linalg.norm(p)) / self._s)
        return self._inner

    @property
    def nonnegative(self) -> bool:  # type: ignore[override]
        return bool(np.all(self._lo >= 0))

    def scaled(self, c):
        c = self._check_scale(c)
        return Polytope(self.A, self.b * c)

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

    def outer_polytope(self) -> LinearDescription:
        """The polytope itself."""
        return self.linear_description()

    def support(self, W):
        """One LP per row and sign (HiGHS), moved outward by the solver's tolerance; the bounding box as a fallback."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        lo, hi = Box(self._lo, self._hi).support(W)
        free = [(None, None)] * self.n
        for i, w in enumerate(W):
            nw = float(robust_norms(w[None, :])[0])
            if nw == 0:
                continue
            for sign in (1.0, -1.0):
                res = linprog_quiet(sign * w / nw, A_ub=self._An, b_ub=self._bn, bounds=free)
                if res.status != 0:
                    continue
                val = sign * res.fun * nw / self._s
                pad = 1e-7 * nw * self.radius
                if sign > 0:
                    lo[i] = max(lo[i], val - pad)
                else:
                    hi[i] = min(hi[i], val + pad)
        return lo, hi

    def margin(self, z):
        z = np.asarray(z, dtype=float)
        return float(np.min((self._bn / self._s - self._An @ z) / np.linalg.norm(self._An, axis=1)))

    def ray_interval(self, u):
        u = np.asarray(u, dtype=float)
        Au = self._An @ u
        b = self._bn / self._s
        t0, t1 = 0.0, float("inf")
        pos, neg = Au > 0, Au < 0
        if np.any((Au == 0) & (b < 0)):
            return None
        if pos.any():
            t1 = float(np.min(b[pos] / Au[pos]))
        if neg.any():
            t0 = max(t0, float(np.max(b[neg] / Au[neg])))
        return (t0, t1) if t1 >= t0 and t1 > 0 else None

    def cone_signs(self):
        return [(1, -1)] * self.n if np.all(self.b > 0) else None

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
        A, b = self._An, self._bn / self._s
        while k < N:
            d = rng.standard_normal(self.n)
            d /= np.linalg.norm(d)
            Ad = A @ d
            slack = b - A @ x
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
        """``A x - b <= tol * size * |a_i|`` (size: the largest bound of the bounding box), in chunks."""
        norms = np.linalg.norm(self._An, axis=1)
        size = float(np.max(np.abs(np.r_[self._lo, self._hi])))
        b = self._bn / self._s
        out = np.empty(X.shape[0], dtype=bool)
        for sl in _chunks(X.shape[0], self.A.shape[0]):
            out[sl] = np.all(X[sl] @ self._An.T - b <= tol * size * norms, axis=1)
        return out

    def _contains_certified(self, X):
        """``A x <= b`` proved: the computed slack exceeds the rounding bound of the dot products."""
        n = self.n
        absA = np.abs(self._An)
        b = self._bn
        out = np.empty(X.shape[0], dtype=bool)
        for sl in _chunks(X.shape[0], self.A.shape[0]):
            Xs = X[sl] * self._s  # exact
            val = Xs @ self._An.T - b
            err = 1.01 * (n + 2) * _U * (np.abs(Xs) @ absA.T + np.abs(b))
            out[sl] = np.all(val + err <= 0, axis=1)
        return out


# ---------------------------------------------------------------------------------
# Hull
# ---------------------------------------------------------------------------------

#: the hull's facets (scipy ConvexHull) are used for membership up to this dimension
_HULL_FACETS_MAX_DIM = 6


class Hull(_Frozen, Domain, spec="hull", args="FILE"):
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
        if pts.shape[0] > 1:
            p = float(pow2_scale(pts))
            c = (pts - pts.mean(axis=0)) * p
            s = np.linalg.svd(c, compute_uv=False)
            scale = max(float(np.max(np.abs(pts))) * p, 1e-300)
            d = int(np.sum(s > 1e-10 * max(s[0], scale)))
        else:
            d = 0
        _set(self, n=int(pts.shape[1]), points=pts, source=None if source is None else str(source))
        _set(self, affine_dimension=d, _facets=None, _inner=None)

    @classmethod
    def _parse(cls, arg, n, name):
        X = read_array(_file_arg(arg, "hull", name), f"{name} hull", keys=("X", "samples", "points", "data"))
        if X.ndim != 2:
            raise InputError(f"{name} hull file {arg!r} must hold points as rows (a 2-D array); got shape {X.shape}.")
        if X.shape[1] != n:
            raise InputError(f"{name} hull file {arg!r} must have {n} columns (the layer's input dimension); got {X.shape[1]}.")
        return cls(X, source=arg)

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
        """The largest row norm (exact up to rounding: a convex function peaks at a vertex)."""
        return float(np.max(robust_norms(self.points)))

    @property
    def inner_radius(self) -> float:
        """A valid lower bound of ``min ||x||`` over the hull (see Notes)."""
        if self._inner is None:
            _set(self, _inner=self._distance_lower_bound())
        return self._inner

    def _distance_lower_bound(self) -> float:
        from scipy.optimize import nnls

        p = float(pow2_scale(self.points))
        X = self.points * p
        N = X.shape[0]
        w = 1e3 * max(1.0, float(np.max(np.linalg.norm(X, axis=1))))
        E = np.vstack([X.T, np.full((1, N), w)])
        f = np.zeros(self.n + 1)
        f[-1] = w
        try:
            lam, _ = nnls(E, f, maxiter=50 * (N + self.n + 10))
        except RuntimeError:  # pragma: no cover
            return 0.0
        if lam.sum() <= 0:
            return 0.0
        q = X.T @ (lam / lam.sum())
        norm = float(np.linalg.norm(q))
        if norm <= 1e-12 * float(np.max(np.linalg.norm(X, axis=1))):
            return 0.0
        return max(0.0, float(np.min(X @ (q / norm)))) / p

    def scaled(self, c):
        c = self._check_scale(c)
        return Hull(self.points * c)

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

    def outer_polytope(self) -> LinearDescription:
        """The hull itself, lifted (see :meth:`linear_description`)."""
        return self.linear_description()

    def in_affine_coordinates(self):
        """The data's affine hull: ``x = c + U z`` with the centroid ``c`` and an orthonormal basis ``U``."""
        if self.full_dimensional:
            return Coordinates(np.zeros(self.n)), self
        c = self.interior_point()
        d = self.affine_dimension
        if d == 0:
            return Coordinates(c, basis=np.zeros((self.n, 0))), None
        _, _, vt = np.linalg.svd(self.points - c, full_matrices=False)
        U = vt[:d].T
        return Coordinates(c, basis=U), Hull((self.points - c) @ U)

    def support(self, W):
        """Exact: the extremes of ``<w_i, x>`` are attained at the points (in chunks of points)."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        lo = np.full(W.shape[0], np.inf)
        hi = np.full(W.shape[0], -np.inf)
        for sl in _chunks(self.points.shape[0], W.shape[0]):
            G = self.points[sl] @ W.T
            lo = np.minimum(lo, G.min(axis=0))
            hi = np.maximum(hi, G.max(axis=0))
        return lo, hi

    def margin(self, z):
        eq = self._facet_equations()
        if eq is None:
            return None
        return float(np.min(-(eq[:, :-1] @ np.asarray(z, dtype=float) + eq[:, -1])))

    def ray_interval(self, u):
        """Two LPs: the smallest and largest ``t`` with ``t u = X^T lambda`` in the simplex."""
        u = np.asarray(u, dtype=float)
        p = float(pow2_scale(self.points))
        X = self.points * p  # t u = X^T lambda  <=>  (p t) u = (p X)^T lambda
        N, n = X.shape
        A_eq = np.zeros((n + 1, N + 1))
        A_eq[:n, :N] = X.T
        A_eq[:n, N] = -u
        A_eq[n, :N] = 1.0
        b_eq = np.r_[np.zeros(n), 1.0]
        bounds = [(0, None)] * N + [(0, None)]
        ts = []
        for sign in (1.0, -1.0):
            c = np.zeros(N + 1)
            c[N] = sign
            res = linprog_quiet(c, A_eq=A_eq, b_eq=b_eq, bounds=bounds)
            if res.status != 0:
                return None
            ts.append(float(res.x[N]) / p)
        return (ts[0], ts[1]) if ts[1] > 0 else None

    def sample(self, N: int, *, seed: Any = None) -> np.ndarray:
        """``N`` random convex combinations of ``n + 1`` random points (seeded, not uniform).

        The ``n + 1`` points of each combination are distinct: for small data sets the smallest
        ``n + 1`` of one random key per point (in chunks of bounded memory), for large ones ``n + 1``
        random indices, redrawn where two coincide (time and memory ``O(N n)``).
        """
        N = as_count(N, "N", minimum=0)
        rng = as_rng(seed)
        X = self.points
        M = X.shape[0]
        k = min(M, self.n + 1)
        if k < M and N * M > _CHUNK_ENTRIES:
            # many points: k distinct indices per sample by redrawing the rare rows with a repeat (O(N k))
            idx = rng.integers(0, M, (N, k))
            for _ in range(64):
                srt = np.sort(idx, axis=1)
                again = np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))
                if again.size == 0:
                    break
                idx[again] = rng.integers(0, M, (again.size, k))
        elif k < M:
            idx = np.empty((N, k), dtype=np.intp)
            for sl in _chunks(N, M):
                keys = rng.random((sl.stop - sl.start, M))
                part = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < M else np.arange(M)
                order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1)
                idx[sl] = np.take_along_axis(part, order, axis=1)
        else:
            idx = np.tile(np.arange(k), (N, 1))
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
        slack = tol * self.radius
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
        """``min ||X^T lambda - y||_1`` over the simplex (one LP, on numbers rescaled exactly to about 1)."""
        p = float(pow2_scale(self.points))
        X, y = self.points * p, np.asarray(y, dtype=float) * p
        N, n = X.shape
        # variables (lambda (N), s (n)): min sum s, -s <= X^T lambda - y <= s
        c = np.r_[np.zeros(N), np.ones(n)]
        A_ub = np.block([[X.T, -np.eye(n)], [-X.T, -np.eye(n)]])
        b_ub = np.r_[y, -y]
        A_eq = np.r_[np.ones(N), np.zeros(n)][None, :]
        res = linprog_quiet(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * (N + n))
        return float(res.fun) / p if res.status == 0 else float("inf")

    def _contains_certified(self, X):
        """Exact: barycentric coordinates in a simplex of data points, solved in rational arithmetic.

        An LP finds convex weights; ``d + 1`` affinely independent points carrying them form a
        simplex, and the point's barycentric coordinates with respect to it are computed without
        rounding (:mod:`relu_frames_nb._rational`). All ``>= 0`` proves membership. A hull of lower
        affine dimension is handled in its own coordinates (the projection onto its affine hull is
        rounded once: the one step that is not exact), and dimensions above ``_CERTIFY_MAX_DIM`` are
        not certified (False).
        """
        out = np.zeros(X.shape[0], dtype=bool)
        if not self.full_dimensional:
            coords, Kr = self.in_affine_coordinates()
            if Kr is None:
                return np.all(X == self.points[0], axis=1)
            Z = (X - coords.c) @ coords.basis
            back = coords.point(Z)
            near = robust_norms(back - X) <= 64 * (self.n + 2) * _U * np.maximum(robust_norms(X), self.radius)
            return near & Kr._contains_certified(Z)
        if self.n > _CERTIFY_MAX_DIM:
            return out
        lo, hi = self.bounding_box()
        inside = np.all((X >= lo) & (X <= hi), axis=1)
        for i in np.flatnonzero(inside):
            out[i] = self._certify_one(X[i])
        return out

    def _certify_one(self, y: np.ndarray) -> bool:
        if self.n == 1:
            return bool(self.points.min() <= y[0] <= self.points.max())
        p = float(pow2_scale(np.vstack([self.points, y[None, :]])))  # exact rescaling: the LP sees numbers near 1
        X, y = self.points * p, y * p
        N, n = X.shape
        A_eq = np.vstack([X.T, np.ones((1, N))])
        res = linprog_quiet(np.zeros(N), A_eq=A_eq, b_eq=np.r_[y, 1.0], bounds=[(0, None)] * N)
        if res.status != 0:
            return False
        lam = np.asarray(res.x)
        order = np.argsort(-lam)
        chosen: list[int] = []
        for j in order:  # the heaviest points first, kept while affinely independent
            if len(chosen) == n + 1:
                break
            trial = chosen + [int(j)]
            if len(trial) > 1:
                D = X[trial[1:]] - X[trial[0]]
                if np.linalg.matrix_rank(D) < len(trial) - 1:
                    continue
            chosen = trial
        if len(chosen) < n + 1:
            return False
        return in_simplex(X[chosen], y)


#: hulls in dimension above this are not certified (exact arithmetic grows as d^3 big-integer steps)
_CERTIFY_MAX_DIM = 120
