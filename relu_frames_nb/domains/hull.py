r"""The convex hull of a data set: a polyhedral domain (lifted description, no facets needed)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.io import read_array
from .._util.lp import linprog_quiet
from .._util.pairs import pow2_scale
from .._util.rational import in_simplex
from .._util.tolerances import DIRECTION_MIN_RTOL, DIVISOR_FLOOR, FACET_MARGIN_RTOL, NORM_RTOL, RANK_RTOL
from .._util.validation import as_count, as_rng, to_float_array
from ..errors import InputError
from ._polyhedral import CHUNK_ENTRIES, Frozen, U, chunks, file_arg, readonly, set_attrs
from .base import Coordinates, Domain, LinearDescription, robust_norms

#: data sets with more points than this draw their samples by a sparse product
SPARSE_SAMPLE_POINTS = 20_000

__all__ = ["Hull"]


#: the hull's facets (scipy ConvexHull) are used for membership up to this dimension
_HULL_FACETS_MAX_DIM = 6


class Hull(Frozen, Domain, spec="hull", args="FILE"):
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

    __slots__ = ("n", "points", "source", "affine_dimension", "_facets", "_inner", "_affine", "_simplex")
    polyhedral = True
    open_or_convex = True

    def __init__(self, X: Any, *, source: str | None = None) -> None:
        arr = to_float_array(X, "X")
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InputError(f"X must be a non-empty 2-D array of points (rows); got shape {arr.shape}.")
        self._setup(readonly(arr), source)

    @classmethod
    def _owning(cls, pts: np.ndarray) -> Hull:
        """A hull of a float array made here and given away (no copy: a data set in R^784 is large)."""
        pts.setflags(write=False)
        K = cls.__new__(cls)
        K._setup(pts, None)
        return K

    def _setup(self, pts: np.ndarray, source: str | None) -> None:
        if pts.shape[0] > 1:
            top = max(float(-pts.min()), float(pts.max()))  # max |x| without a copy of the data
            p = float(pow2_scale(np.array([top])))
            s = np.linalg.svd(_triangle(pts, pts.mean(axis=0), p), compute_uv=False)
            scale = max(top * p, DIVISOR_FLOOR)
            d = int(np.sum(s > RANK_RTOL * max(s[0], scale)))
        else:
            d = 0
        set_attrs(self, n=int(pts.shape[1]), points=pts, source=None if source is None else str(source))
        set_attrs(self, affine_dimension=d, _facets=None, _inner=None, _affine=None, _simplex=None)

    @classmethod
    def _parse(cls, arg, n, name):
        X = read_array(file_arg(arg, "hull", name), f"{name} hull", keys=("X", "samples", "points", "data"))
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

    @property
    def data_points(self) -> np.ndarray:
        """The points whose hull this is."""
        return self.points

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
            set_attrs(self, _inner=self._distance_lower_bound())
        return self._inner

    def _distance_lower_bound(self) -> float:
        p = float(pow2_scale(self.points))
        N = self.points.shape[0]
        if N <= _NNLS_POINTS:
            X = self.points * p
            q = _nearest(X)
            if q is None:
                return 0.0
            return max(0.0, float(np.min(X @ q))) / p
        # many points: the nearest point of a seeded subset's hull, the subset grown by the points that
        # lie below its separating hyperplane (a few rounds); the bound holds for every point in any case
        pick = np.sort(np.random.default_rng(0).choice(N, _NNLS_POINTS, replace=False))
        low = 0.0
        for _ in range(4):
            q = _nearest(self.points[pick] * p)
            if q is None:
                return 0.0
            t = np.concatenate([(self.points[sl] * p) @ q for sl in chunks(N, self.n)])
            low = max(low, float(np.min(t)))
            below = np.setdiff1d(np.argsort(t)[: _NNLS_POINTS // 4], pick)
            if below.size == 0 or float(np.min(t[pick])) <= float(np.min(t)):
                break
            pick = np.union1d(pick, below)
        return max(0.0, low) / p

    def scaled(self, c):
        c = self._check_scale(c)
        return Hull._owning(self.points * c)

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

    def compact_outer_polytope(self) -> LinearDescription:
        """The facets of the hull (qhull, ``n <= 6``), each moved out to the farthest point plus a rounding margin.

        Every point satisfies every row, so the polytope contains the hull (it may exceed it by the
        margin, about 1e-12 relative); without facets (high dimension, flat data) the lifted hull.
        """
        eq = self._facet_equations()
        if eq is None:
            return self.linear_description()
        X, A = self.points, eq[:, :-1]
        b = np.max(X @ A.T, axis=0)
        b = b + FACET_MARGIN_RTOL * (np.abs(b) + float(np.abs(X).max()) * np.abs(A).sum(axis=1))
        lo, hi = self.bounding_box()
        n = self.n
        return LinearDescription(n, 0, A, b, np.zeros((0, n)), np.zeros(0), np.asarray(lo, float), np.asarray(hi, float))

    def in_affine_coordinates(self):
        """The data's affine hull: ``x = c + U z`` with the centroid ``c`` and an orthonormal basis ``U``."""
        if self.full_dimensional:
            return Coordinates(np.zeros(self.n)), self
        if self._affine is None:  # computed once (an SVD of the points, and the hull in its coordinates)
            c = self.interior_point()
            d = self.affine_dimension
            if d == 0:
                set_attrs(self, _affine=(Coordinates(c, basis=np.zeros((self.n, 0))), None))
            else:
                _, _, vt = np.linalg.svd(_triangle(self.points, c, 1.0), full_matrices=False)
                U = vt[:d].T
                # where every point agrees, the span has no extent: exactly so (a blank pixel maps back blank)
                lo, hi = self.bounding_box()
                U[lo == hi] = 0.0
                c = np.where(lo == hi, lo, c)
                Z = np.empty((self.points.shape[0], d))
                for sl in chunks(Z.shape[0], self.n):  # the projected points, without a centred copy of the data
                    Z[sl] = (self.points[sl] - c) @ U
                set_attrs(self, _affine=(Coordinates(c, basis=U), Hull._owning(Z)))
        return self._affine

    def fibre_direction(self, J, *, seed=None):
        """The centroid moved by ``v = sum_i delta_i x_i`` with ``sum delta = 0``, ``|delta_i| <= 1/(2N)``, ``J v = 0``.

        The centroid has weight ``1/N`` on every point, so both ``centroid +- v`` keep weights of at
        least ``1/(2N)``: deep inside the hull, even where it is thin (a data set in high dimension).
        One LP picks ``delta``, maximising ``v`` along a seeded random direction; ``v`` is then
        projected onto the null space of ``J`` within the hull's affine span, so that ``J v = 0`` up to
        rounding and not only to the LP's tolerance. None when no such ``v`` is found, and for data sets
        of more than ``_LP_POINTS`` points (the LP's size and time would outgrow a check's budget).
        """
        J = np.atleast_2d(np.asarray(J, dtype=float))
        X = self.points
        N, n = X.shape
        if J.shape[1] != n or not 2 <= N <= _LP_POINTS or not np.all(np.isfinite(J)):
            return None
        coords, _ = self.in_affine_coordinates()
        Jr = coords.rows(J)
        _, sv, vt = np.linalg.svd(Jr, full_matrices=False)
        R = vt[sv > RANK_RTOL * max(float(sv[0]) if sv.size else 0.0, DIVISOR_FLOOR)]  # J's rows within the span
        if R.shape[0] >= coords.d:
            return None
        p = float(pow2_scale(X))
        D = (X - self.interior_point()) * p  # with sum(delta) = 0, D^T delta = p X^T delta
        JD = J @ D.T
        JD = JD * pow2_scale(JD, axis=1)[:, None]
        g = as_rng(seed).standard_normal(n)
        res = linprog_quiet(-(D @ g), A_eq=np.vstack([JD, np.ones((1, D.shape[0]))]), b_eq=np.zeros(J.shape[0] + 1),
                            bounds=(-0.5 / N, 0.5 / N))  # fmt: skip
        if res.status != 0:
            return None
        u = coords.rows((D.T @ res.x)[None, :] / p)[0]  # in the affine span's coordinates
        u = u - R.T @ (R @ u)
        v = coords.direction(u)
        lo, hi = self.bounding_box()
        v[lo == hi] = 0.0  # exactly: the points agree there (a blank border pixel stays exactly blank)
        return v if float(np.max(np.abs(v), initial=0.0)) > DIRECTION_MIN_RTOL * float(np.max(hi - lo)) else None

    def support(self, W):
        """Exact: the extremes of ``<w_i, x>`` are attained at the points (in chunks of points)."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        lo = np.full(W.shape[0], np.inf)
        hi = np.full(W.shape[0], -np.inf)
        for sl in chunks(self.points.shape[0], W.shape[0]):
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
        if M > SPARSE_SAMPLE_POINTS and 8 * k <= M:
            return self._sample_sparse(N, k, rng)
        if k < M and N * M > CHUNK_ENTRIES:
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
            for sl in chunks(N, M):
                keys = rng.random((sl.stop - sl.start, M))
                part = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < M else np.arange(M)
                order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1)
                idx[sl] = np.take_along_axis(part, order, axis=1)
        else:
            idx = np.tile(np.arange(k), (N, 1))
        w = rng.dirichlet(np.ones(k), size=N)
        # the combinations as a product (weights scattered into rows of length M) in chunks of
        # bounded memory; X[idx] at once would hold N * k * n numbers (20 GB for 4000 samples in R^784)
        out = np.empty((N, X.shape[1]))
        for sl in chunks(N, M):
            dense = np.zeros((sl.stop - sl.start, M))
            np.put_along_axis(dense, idx[sl], w[sl], axis=1)
            out[sl] = dense @ X
        return out

    def _sample_sparse(self, N: int, k: int, rng: np.random.Generator) -> np.ndarray:
        """:meth:`sample` for a large data set (``M`` points, ``8 k <= M``): the repeated entries of ``k`` random
        indices are redrawn one by one (a whole row without a repeat is rare once ``k^2`` exceeds ``M``: 785 of
        60,000 points repeat in 99 % of the rows), and the combinations are one sparse product, ``N k n``
        multiplications instead of ``N M n`` (MNIST's 60,000 points in R^784: 4,000 samples in 3.2 s
        instead of 8.3 s, measured in one process).
        """
        from scipy.sparse import csr_matrix

        X = self.points
        M = X.shape[0]
        idx = np.sort(rng.integers(0, M, (N, k)), axis=1)
        for _ in range(64):
            dup = np.zeros(idx.shape, dtype=bool)
            dup[:, 1:] = idx[:, 1:] == idx[:, :-1]
            if not dup.any():
                break
            idx[dup] = rng.integers(0, M, int(dup.sum()))
            idx.sort(axis=1)
        w = rng.dirichlet(np.ones(k), size=N)
        S = csr_matrix((w.ravel(), idx.ravel(), np.arange(0, N * k + 1, k)), shape=(N, M))
        return np.asarray(S @ X)

    def _facet_equations(self) -> np.ndarray | None:
        if self._facets is None:
            eq = np.zeros((0, self.n + 1))
            if self.full_dimensional and 2 <= self.n <= _HULL_FACETS_MAX_DIM and self.points.shape[0] > self.n:
                try:
                    from scipy.spatial import ConvexHull

                    eq = ConvexHull(self.points).equations
                except Exception:  # qhull trouble: use LPs
                    eq = np.zeros((0, self.n + 1))
            set_attrs(self, _facets=eq)
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
        rounding (:mod:`relu_frames_nb._util.rational`). All ``>= 0`` proves membership. A hull of lower
        affine dimension is handled in its own coordinates (the projection onto its affine hull is
        rounded once: the one step that is not exact). Above ``_CERTIFY_MAX_DIM`` dimensions the
        rational solve is too slow and a floating-point proof with rigorous error bounds takes its
        place (:meth:`_certify_spread`, for at most ``_LP_POINTS`` points): it certifies points inside
        the hull by more than the rounding, not points on its boundary.
        """
        out = np.zeros(X.shape[0], dtype=bool)
        if not self.full_dimensional:
            coords, Kr = self.in_affine_coordinates()
            if Kr is None:
                return np.all(X == self.points[0], axis=1)
            Z = (X - coords.c) @ coords.basis
            back = coords.point(Z)
            near = robust_norms(back - X) <= 64 * (self.n + 2) * U * np.maximum(robust_norms(X), self.radius)
            if Kr.n > _CERTIFY_MAX_DIM:  # the floating-point proof needs the point strictly inside
                near &= self._strictly_in_box(X)
            out[near] = Kr._contains_certified(Z[near])
            return out
        lo, hi = self.bounding_box()
        inside = np.all((X >= lo) & (X <= hi), axis=1)
        if self.n > _CERTIFY_MAX_DIM:
            inside &= self._strictly_in_box(X)
        one = self._certify_one if self.n <= _CERTIFY_MAX_DIM else self._certify_spread
        for i in np.flatnonzero(inside):
            out[i] = one(X[i])
        return out

    def _strictly_in_box(self, X: np.ndarray) -> np.ndarray:
        """Strictly between the points' extremes in every coordinate where they differ.

        Weights that are positive on every point (what :meth:`_certify_spread` proves) put a point
        there, so a point on a face of the bounding box (a pixel that is blank in every image it
        combines, say) is left out before any LP. Coordinates where all points agree are left to
        the test of distance from the affine span.
        """
        lo, hi = self.bounding_box()
        return np.all(((X > lo) & (X < hi)) | (lo == hi), axis=1)

    def _spread_simplex(self) -> tuple | None:
        """Cached for :meth:`_certify_spread`: a well-conditioned simplex of data points and a bound on its inverse.

        ``M = [X^T; 1]`` (the points scaled exactly by a power of two, one column per point); the
        ``n + 1`` columns ``S`` come from a QR factorisation with column pivoting. With ``R`` a
        computed inverse of ``A = M[:, S]``, ``||I - R A|| <= beta < 1`` (the computed residual plus
        the rounding bound of the product) gives ``||A^-1|| <= ||R|| / (1 - beta)`` in the max-norm
        (a verified inverse bound in Rump's style). None when no such simplex is found.
        """
        if self._simplex is None:
            from scipy.linalg import qr

            p = float(pow2_scale(self.points))
            X = self.points * p
            N, n = X.shape
            M = np.vstack([X.T, np.ones((1, N))])
            entry: tuple = ()
            if n < N <= _LP_POINTS:
                _, piv = qr(M, mode="r", pivoting=True)
                S = np.sort(piv[: n + 1])
                A = M[:, S]
                with np.errstate(all="ignore"):
                    try:
                        R = np.linalg.inv(A)
                    except np.linalg.LinAlgError:
                        R = np.full_like(A, np.nan)
                if np.all(np.isfinite(R)):
                    g = _gamma(n + 1)
                    E = np.abs(R @ A - np.eye(n + 1)) + g * (np.abs(R) @ np.abs(A))
                    beta = float(np.max(E.sum(axis=1))) * (1 + g) + 2 * U
                    if beta < 0.5:
                        inv_norm = float(np.max(np.abs(R).sum(axis=1))) * (1 + g) ** 2 / (1 - beta)
                        entry = (p, M, S, inv_norm, np.linalg.pinv(M))
            set_attrs(self, _simplex=entry)
        return self._simplex or None

    def _certify_spread(self, y: np.ndarray) -> bool:
        """A point well inside a hull in high dimension, proven in floating point with rigorous error bounds.

        Near the centroid a few alternating projections from its weights ``1/N`` find positive
        weights; otherwise an LP writes ``y`` with weights ``lambda_i >= t`` on *every* point and maximises ``t``. The
        computed weights leave a residual ``r = [y; 1] - M lambda``, bounded rigorously (the computed
        residual plus the rounding bound of the product). Correcting the weights of the simplex ``S``
        of :meth:`_spread_simplex` by ``delta = A^-1 r`` represents ``y`` exactly, and ``|delta| <=
        ||A^-1|| ||r||`` below the smallest weight on ``S`` keeps every weight non-negative: ``y`` is
        in the hull. Points on, or within rounding of, the boundary are not certified (False).
        """
        simplex = self._spread_simplex()
        if simplex is None:
            return False
        p, M, S, inv_norm, M_pinv = simplex
        N = M.shape[1]
        b = np.r_[np.asarray(y, dtype=float) * p, 1.0]
        # first without an LP: the centroid's weights 1/N corrected by the least-norm change, then alternating
        # projections onto {lambda >= 1/(4N)} and {M lambda = b} (a few steps suffice well inside the hull)
        lam = 1.0 / N + M_pinv @ (b - M.sum(axis=1) / N)
        for _ in range(_PROJECTIONS):
            if np.min(lam) > 0:
                if self._absorbs(M, S, inv_norm, b, lam):
                    return True
                break
            lam = np.maximum(lam, 0.25 / N)
            lam = lam + M_pinv @ (b - M @ lam)
        # variables (mu (N), t): M (mu + t 1) = b, mu >= 0, t >= 0; maximise t
        A_eq = np.hstack([M, M.sum(axis=1, keepdims=True)])
        c = np.zeros(N + 1)
        c[N] = -1.0
        # the interior-point method: about the same time whether or not y is inside (the simplex
        # method took 44 s to find a point just outside a hull of 1,000 points in R^390 infeasible)
        res = linprog_quiet(c, A_eq=A_eq, b_eq=b, bounds=[(0, None)] * (N + 1), method="highs-ipm")
        if res.status != 0 or not res.x[N] > 0:
            return False
        lam = np.maximum(np.asarray(res.x[:N]), 0.0) + float(res.x[N])
        return self._absorbs(M, S, inv_norm, b, lam)

    @staticmethod
    def _absorbs(M: np.ndarray, S: np.ndarray, inv_norm: float, b: np.ndarray, lam: np.ndarray) -> bool:
        """Whether correcting the weights ``lam >= 0`` on the simplex ``S`` by ``A^-1 r`` keeps them non-negative (proved)."""
        g = _gamma(M.shape[1] + 2)
        r = np.abs(b - M @ lam) + g * (np.abs(b) + np.abs(M) @ lam)
        shift = inv_norm * float(np.max(r)) * (1 + g) ** 2
        return bool(np.min(lam[S]) > shift)

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


#: above this dimension hulls are certified in floating point with error bounds (exact arithmetic
#: grows as d^3 big-integer steps: one point of a 120-dimensional hull took 40 s, of a 40-dimensional one
#: 0.2 s, and no budget can stop it); the floating-point proof certifies points inside by more than the
#: rounding, so what it leaves out is a boundary point, never a wrong answer
_CERTIFY_MAX_DIM = 40


#: hulls of more points are not certified in high dimension, and offer no direction (the LPs' size and time
#: would outgrow a check's budget: 30,000 points in R^784 took 31 s and 1.4 GB)
_LP_POINTS = 10_000
#: the nearest point to the origin (for ``inner_radius``) is sought in the hull of at most this many points
_NNLS_POINTS = 4000
#: alternating projections tried before the LP of a membership proof in high dimension
_PROJECTIONS = 30


def _triangle(X: np.ndarray, c: np.ndarray, p: float) -> np.ndarray:
    """``R`` of a QR factorisation of ``(X - c) p``, in chunks of rows: the same singular values and
    right singular vectors, in memory ``O(chunk n)`` instead of copies of the whole data set.
    """
    N, n = X.shape
    step = max(2 * n, CHUNK_ENTRIES // max(n, 1))
    R = np.zeros((0, n))
    for i in range(0, N, step):
        R = np.linalg.qr(np.vstack([R, (X[i : i + step] - c) * p]), mode="r")
    return R


def _nearest(X: np.ndarray) -> np.ndarray | None:
    """The unit vector towards the point of ``conv(X)`` nearest to the origin (NNLS), or None near 0."""
    from scipy.optimize import nnls

    N, n = X.shape
    w = 1e3 * max(1.0, float(np.max(np.linalg.norm(X, axis=1))))
    E = np.vstack([X.T, np.full((1, N), w)])
    f = np.zeros(n + 1)
    f[-1] = w
    try:
        lam, _ = nnls(E, f, maxiter=50 * (N + n + 10))
    except RuntimeError:  # pragma: no cover
        return None
    if lam.sum() <= 0:
        return None
    q = X.T @ (lam / lam.sum())
    norm = float(np.linalg.norm(q))
    if norm <= NORM_RTOL * float(np.max(np.linalg.norm(X, axis=1))):
        return None
    return q / norm


def _gamma(k: int) -> float:
    """An upper bound, with room to spare, of the rounding factor ``k u / (1 - k u)`` of a sum of ``k`` products.

    The bound holds for any order of summation (blocked, or with fused multiply-adds, as BLAS sums);
    doubling it also covers the rounding in computing the bounds themselves (sums of non-negative terms).
    """
    return 2.0 * (k + 2) * U / (1.0 - 2.0 * (k + 2) * U)
