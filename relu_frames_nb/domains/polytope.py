r"""The bounded polytope ``{x : A x <= b}``: a polyhedral domain, exact in the exact verdict."""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from .._util.io import read_npz
from .._util.lp import linprog_quiet, min_norm_point
from .._util.pairs import pow2_scale
from .._util.tolerances import BOUNDING_PAD_RTOL, INTERIOR_RTOL
from .._util.validation import as_count, as_matrix, as_rng, to_float_array
from ..errors import DimensionMismatchError, InputError
from ._polyhedral import Frozen, U, chunks, file_arg, readonly, set_attrs
from .base import Domain, LinearDescription, robust_norms
from .box import Box

__all__ = ["Polytope"]


#: the exact radius (max norm over vertices) is computed when the vertex count estimate is below this
_MAX_VERTEX_WORK = 20_000
#: numbers in one batch of candidates of the rejection sampler (16 Mi: 128 MiB)
_BATCH_ENTRIES = 2**24


class Polytope(Frozen, Domain, spec="polytope", args="FILE.npz"):
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
        set_attrs(self, n=int(n), A=readonly(A_a), b=readonly(b_a), source=None if source is None else str(source))
        # the LPs' copy: rows scaled by powers of two, offsets by one more (x'' = s x)
        r = pow2_scale(A_a, axis=1)
        bn = b_a * r
        s = float(pow2_scale(bn))
        set_attrs(self, _An=readonly(A_a * r[:, None]), _bn=readonly(bn * s), _s=s)
        lo, hi = self._bounds_by_lp()
        set_attrs(self, _lo=readonly(lo), _hi=readonly(hi))
        center, rad = self._chebyshev()
        set_attrs(self, _center=readonly(center), chebyshev_radius=float(rad))
        set_attrs(self, _radius=None, radius_exact=False, _inner=None)

    @classmethod
    def _parse(cls, arg, n, name):
        arrays = read_npz(file_arg(arg, "polytope", name), f"{name} polytope file")
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
        return np.array(res.x[:n]) / self._s, (t / self._s if t > INTERIOR_RTOL * scale else 0.0)

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
            set_attrs(self, _radius=r, radius_exact=exact)
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
            set_attrs(self, _inner=0.0 if p is None else float(np.linalg.norm(p)) / self._s)
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
                pad = BOUNDING_PAD_RTOL * nw * self.radius
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
            most = max(2000, _BATCH_ENTRIES // self.n)  # rows of one batch: at most 128 MiB of candidates
            while got < N:
                batch = self._lo + width * rng.random((int(min(1e6, most, 1.2 * (N - got) / rate + 100)), self.n))
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
        for sl in chunks(X.shape[0], self.A.shape[0]):
            out[sl] = np.all(X[sl] @ self._An.T - b <= tol * size * norms, axis=1)
        return out

    def _contains_certified(self, X):
        """``A x <= b`` proved: the computed slack exceeds the rounding bound of the dot products."""
        n = self.n
        absA = np.abs(self._An)
        b = self._bn
        out = np.empty(X.shape[0], dtype=bool)
        for sl in chunks(X.shape[0], self.A.shape[0]):
            Xs = X[sl] * self._s  # exact
            val = Xs @ self._An.T - b
            err = 1.01 * (n + 2) * U * (np.abs(Xs) @ absA.T + np.abs(b))
            out[sl] = np.all(val + err <= 0, axis=1)
        return out
