r"""The domain as the exact verdict sees it, in the engine's coordinates ``z``.

A *region* knows

* an outer polytope ``P`` containing ``K`` (:meth:`Region.outer`, a
  :class:`~relu_frames_nb.domains.polyhedral.LinearDescription` over ``(z, w)``), refined
  by tangent cuts on round domains;
* valid bounds of every row ``<z, phi_i>`` over ``P`` (the big-M constants);
* how to find a point of ``K`` in a *cell* ``{z : <z, phi_i> < alpha_i, i in Z}`` with a
  positive margin (a witness candidate), or a tangent cut that removes the cell from ``P``
  when it misses ``K``;
* whether a cell is provably empty on ``P`` (the certificate of the hyperplane method).

Polyhedral domains are exact (``P = K``); domains defined by the norm (balls, shells, spheres
and the positive ball: :meth:`~relu_frames_nb.domains.Domain.radial`) are outer-approximated by
the box ``[-r, r]^d`` and the tangent planes ``<z, ±phi_i> <= r|phi_i|`` (which make the big-M
constants exact), plus the cuts added during the solve. Regions ask the domain, never its class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.lp import linprog_quiet, min_norm_point
from .._util.tolerances import (
    CELL_MARGIN_START_RTOL,
    DIVISOR_FLOOR,
    INTERIOR_RTOL,
    NEAR_ACTIVE_RTOL,
    RADIUS_RTOL,
    WITNESS_MARGIN_RTOL,
)
from ..domains import LinearDescription

#: the least time given to one LP with a time limit (seconds): a deadline already passed still lets HiGHS start and
#: return at once, instead of an error for a non-positive limit
MIN_LP_SECONDS = 0.05


def _lp_time(time_limit: float | None) -> dict:
    """HiGHS options for a call that must return within ``time_limit`` seconds (none when unlimited)."""
    if time_limit is None or not np.isfinite(time_limit):
        return {}
    return {"time_limit": max(float(time_limit), MIN_LP_SECONDS)}

__all__ = ["Region", "PolyRegion", "RoundRegion", "region_for", "shell_pieces"]


class Region:
    """Base class; see the module docstring."""

    d: int
    scale: float
    #: whether witnesses may be sought in this region
    witness_ok: bool = True
    #: P == K (no cuts needed)
    exact: bool = True

    def outer(self) -> LinearDescription:
        raise NotImplementedError

    def row_bounds(self, Phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def sample(self, N: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def cell_empty(self, Phi_Z: np.ndarray, beta_Z: np.ndarray) -> bool:
        raise NotImplementedError

    def cell_point(self, Phi_Z: np.ndarray, alpha_Z: np.ndarray,
                   time_limit: float | None = None) -> tuple[np.ndarray | None, Any]:  # fmt: skip
        """A point of the open cell ``{Phi_Z z < alpha_Z}`` inside K with a margin, or ``(None, ...)``.

        ``time_limit`` is for witness searches only: a solver stopped by it answers ``(None, None)``
        like an empty cell, which a certificate must never read as a proof (certificates call
        without it).
        """
        raise NotImplementedError

    def add_cut(self, a: np.ndarray, beta: float) -> None:
        raise NotImplementedError

    def relaxed_point(self, Phi: np.ndarray, alpha: np.ndarray, weights: np.ndarray, margin: float,
                      time_limit: float | None = None) -> np.ndarray | None:  # fmt: skip
        r"""A point of ``K`` minimising :math:`\sum_i w_i \max(0, \langle z, \phi_i\rangle - \alpha_i + \mu)`.

        The LP relaxation of "the fewest active rows" (``mu`` is ``margin``); None when the region is
        only an outer approximation of ``K`` (its minimiser need not lie in ``K``), the LP fails or it
        does not finish within ``time_limit`` seconds (HiGHS's own clock: the call returns by then).
        """
        return None

    # shared LP helpers -----------------------------------------------------------
    def _lp_feasible(self, Phi_Z: np.ndarray, beta_Z: np.ndarray) -> bool:
        """Feasibility of ``{Phi_Z z <= beta_Z} ∩ P`` by one LP (True also when undecided)."""
        D = self.outer()
        nv = D.n_vars
        A = (
            np.vstack([np.hstack([Phi_Z, np.zeros((Phi_Z.shape[0], D.n_extra))]), D.A_ub])
            if D.A_ub.size
            else np.hstack([Phi_Z, np.zeros((Phi_Z.shape[0], D.n_extra))])
        )
        b = np.r_[beta_Z, D.b_ub]
        res = linprog_quiet(
            np.zeros(nv),
            A_ub=A if A.shape[0] else None,
            b_ub=b if A.shape[0] else None,
            A_eq=D.A_eq if D.A_eq.shape[0] else None,
            b_eq=D.b_eq if D.A_eq.shape[0] else None,
            bounds=list(zip(D.lower, D.upper)),
        )
        return res.status != 2

    def _lp_max(self, c: np.ndarray, Phi_Z: np.ndarray, beta_Z: np.ndarray) -> np.ndarray | None:
        """Argmax of ``<c, z>`` over ``{Phi_Z z <= beta_Z} ∩ P`` (None if infeasible)."""
        D = self.outer()
        k = Phi_Z.shape[0]
        A = np.vstack([np.hstack([Phi_Z, np.zeros((k, D.n_extra))]), D.A_ub])
        b = np.r_[beta_Z, D.b_ub]
        cc = np.r_[-c, np.zeros(D.n_extra)]
        res = linprog_quiet(
            cc,
            A_ub=A if A.shape[0] else None,
            b_ub=b if A.shape[0] else None,
            A_eq=D.A_eq if D.A_eq.shape[0] else None,
            b_eq=D.b_eq if D.A_eq.shape[0] else None,
            bounds=list(zip(D.lower, D.upper)),
        )
        return None if res.status != 0 else np.array(res.x[: self.d])


class PolyRegion(Region):
    """A polytope ``P = K`` in its own full-dimensional coordinates, given by its linear description.

    ``support`` gives the row bounds (exact for boxes and hulls, LPs for polytopes) and ``sampler``
    draws points; :meth:`from_domain` takes both from a polyhedral domain, :meth:`box` builds a box.
    """

    def __init__(self, desc: LinearDescription, support: Any, sampler: Any) -> None:
        self.desc = desc
        self.d = desc.n
        self.lo, self.hi = np.asarray(desc.lower[: self.d], float), np.asarray(desc.upper[: self.d], float)
        self.scale = float(np.max(np.abs(np.r_[self.lo, self.hi]))) or 1.0
        self._support = support
        self._sampler = sampler

    @classmethod
    def from_domain(cls, domain: Any) -> PolyRegion:
        """The region of a polyhedral domain (its outer polytope is the domain itself)."""
        return cls(domain.outer_polytope(), domain.support, lambda N, rng: domain.sample(N, seed=rng))

    @classmethod
    def box(cls, lo: Any, hi: Any) -> PolyRegion:
        """The box ``[lo, hi]`` (row bounds in closed form, uniform samples)."""
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)

        def support(Phi):
            a, b = Phi * lo, Phi * hi
            return np.minimum(a, b).sum(axis=1), np.maximum(a, b).sum(axis=1)

        return cls(LinearDescription.box(lo, hi), support, lambda N, rng: lo + (hi - lo) * rng.random((N, lo.shape[0])))

    def outer(self) -> LinearDescription:
        return self.desc

    def row_bounds(self, Phi):
        return self._support(Phi)

    def sample(self, N, rng):
        return self._sampler(N, rng)

    def cell_empty(self, Phi_Z, beta_Z):
        return not self._lp_feasible(Phi_Z, beta_Z)

    def cell_point(self, Phi_Z, alpha_Z, time_limit=None):
        """Max-margin point: ``Phi_Z z + t <= alpha_Z`` and ``z`` at distance ``>= t`` from K's facets."""
        D = self.desc
        d, ne = self.d, D.n_extra
        nv = d + ne + 1
        k = Phi_Z.shape[0]
        rows, rhs = [np.hstack([Phi_Z, np.zeros((k, ne)), np.ones((k, 1))])], [alpha_Z]
        if D.A_ub.shape[0]:
            norms = np.linalg.norm(D.A_ub[:, :d], axis=1)
            rows.append(np.hstack([D.A_ub, norms[:, None]]))
            rhs.append(D.b_ub)
        # margin to the coordinate bounds when they are the description (a box)
        if D.is_box:
            eye = np.eye(d)
            rows.append(np.hstack([eye, np.zeros((d, ne)), np.ones((d, 1))]))
            rhs.append(self.hi)
            rows.append(np.hstack([-eye, np.zeros((d, ne)), np.ones((d, 1))]))
            rhs.append(-self.lo)
        A = np.vstack(rows)
        b = np.concatenate(rhs)
        c = np.zeros(nv)
        c[-1] = -1.0
        bounds = list(zip(D.lower, D.upper)) + [(0.0, self.scale)]
        res = linprog_quiet(
            c,
            A_ub=A,
            b_ub=b,
            A_eq=np.hstack([D.A_eq, np.zeros((D.A_eq.shape[0], 1))]) if D.A_eq.shape[0] else None,
            b_eq=D.b_eq if D.A_eq.shape[0] else None,
            bounds=bounds,
            options=_lp_time(time_limit),
        )
        if res.status != 0 or res.x[-1] <= WITNESS_MARGIN_RTOL * self.scale:
            return None, None
        return np.array(res.x[:d]), float(res.x[-1])

    def add_cut(self, a, beta):  # pragma: no cover - exact regions need no cuts
        raise RuntimeError("polyhedral regions are exact; no cuts")

    def relaxed_point(self, Phi, alpha, weights, margin, time_limit=None):
        D = self.desc
        d, ne, m = self.d, D.n_extra, Phi.shape[0]
        # variables (z, w, s): Phi z - s <= alpha - margin, s >= 0, (z, w) in P; minimise <weights, s>
        rows = [np.hstack([Phi, np.zeros((m, ne)), -np.eye(m)])]
        rhs = [alpha - margin]
        if D.A_ub.shape[0]:
            rows.append(np.hstack([D.A_ub, np.zeros((D.A_ub.shape[0], m))]))
            rhs.append(D.b_ub)
        res = linprog_quiet(
            np.r_[np.zeros(d + ne), weights],
            A_ub=np.vstack(rows),
            b_ub=np.concatenate(rhs),
            A_eq=np.hstack([D.A_eq, np.zeros((D.A_eq.shape[0], m))]) if D.A_eq.shape[0] else None,
            b_eq=D.b_eq if D.A_eq.shape[0] else None,
            bounds=list(zip(D.lower, D.upper)) + [(0.0, None)] * m,
            options=_lp_time(time_limit),
        )
        return None if res.status != 0 else np.array(res.x[:d])


class RoundRegion(Region):
    r"""Ball, shell (``s > 0``), sphere or positive ball of radius ``r`` in R^d, given the rows ``Phi``.

    The outer polytope is ``[-r, r]^d`` (``[0, r]^d`` for the positive ball) intersected with
    ``|<z, phi_i>| <= r |phi_i|`` (tangent planes in the directions ``±phi_i``; for the
    positive ball the exact row ranges ``[-r |phi_i^-|, r |phi_i^+|]``) and the cuts
    ``<u, z> <= r`` added at points outside the ball.
    """

    exact = False

    def __init__(
        self,
        d: int,
        r: float,
        Phi: np.ndarray,
        *,
        s: float = 0.0,
        positive: bool = False,
        sphere: bool = False,
        sides: int = 16,
        sampler: Any = None,
        extra: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self.d, self.r, self.s = d, float(r), float(s)
        #: linear constraints ``A z <= b`` that cut a piece out of the domain (see ``shell_pieces``)
        self.extra = (np.zeros((0, d)), np.zeros(0)) if extra is None else (np.atleast_2d(extra[0]), np.atleast_1d(extra[1]))
        self._sampler = sampler
        self.sides = int(sides)
        self.positive, self.sphere = positive, sphere
        self.witness_ok = True  # on the sphere too: points of a cell on it (``_sphere_point``), pairs by reflection
        self.scale = self.r
        self.cuts: list[np.ndarray] = []
        Phi = np.asarray(Phi, float)
        if positive:
            up = self.r * np.linalg.norm(np.maximum(Phi, 0), axis=1)
            dn = self.r * np.linalg.norm(np.minimum(Phi, 0), axis=1)
        else:
            up = dn = self.r * np.linalg.norm(Phi, axis=1)
        self._rows = np.vstack([Phi, -Phi]) if Phi.size else np.zeros((0, d))
        self._rhs = np.r_[up, dn]
        self._desc: LinearDescription | None = None

    def outer(self) -> LinearDescription:
        if self._desc is None:
            d = self.d
            T, ne, root = self._tree()
            rows = [np.hstack([self._rows, np.zeros((self._rows.shape[0], ne))])]
            rhs = [self._rhs]
            if self.cuts:
                rows.append(np.hstack([np.array(self.cuts), np.zeros((len(self.cuts), ne))]))
                rhs.append(np.full(len(self.cuts), self.r))
            if self.extra[1].size:
                rows.append(np.hstack([self.extra[0], np.zeros((self.extra[1].size, ne))]))
                rhs.append(self.extra[1])
            if T.shape[0]:
                rows.append(T)
                rhs.append(self._tree_rhs)
            lo = np.r_[np.zeros(d) if self.positive else np.full(d, -self.r), np.zeros(ne)]
            hi = np.r_[np.full(d, self.r), np.full(ne, self.r)]
            self._desc = LinearDescription(
                d, ne, np.vstack(rows), np.concatenate(rhs), np.zeros((0, d + ne)), np.zeros(0), lo, hi
            )
        return self._desc

    def _tree(self):
        r"""The norm bound :math:`\|z\| \le r` as a binary tree of 2-D cones, each relaxed to a polygon.

        Internal node ``t`` with children ``p, q``: ``cos(theta) p + sin(theta) q <= t`` for
        ``sides`` angles (a quarter of them when both children are non-negative nodes), so
        ``t >= |(p, q)|`` holds at every point of the ball (valid) and ``|(p, q)| <= t /
        cos(pi / sides)`` (tight); the root is bounded by ``r``. The polytope lies in the ball
        of radius ``r / cos(pi / sides)^depth``, far tighter than the box in high dimension.
        """
        d, N = self.d, self.sides
        if N == 0 or d < 2:
            return np.zeros((0, d)), 0, None
        level = list(range(d))
        nonneg = [self.positive] * d
        edges = []
        nvar = d
        while len(level) > 1:
            nxt, nn = [], []
            for i in range(0, len(level) - 1, 2):
                edges.append((level[i], level[i + 1], nvar, nonneg[i] and nonneg[i + 1]))
                nxt.append(nvar)
                nn.append(True)
                nvar += 1
            if len(level) % 2:
                nxt.append(level[-1])
                nn.append(nonneg[-1])
            level, nonneg = nxt, nn
        root = level[0]
        rows = []
        for p, q, t, both in edges:
            angles = np.linspace(0.0, np.pi / 2, N // 4 + 1) if both else 2 * np.pi * np.arange(N) / N
            for th in angles:
                row = np.zeros(nvar)
                row[p], row[q], row[t] = np.cos(th), np.sin(th), -1.0
                rows.append(row)
        # the root at most r
        row = np.zeros(nvar)
        row[root] = 1.0
        rows.append(row)
        T = np.array(rows)
        b_root = np.zeros(len(rows))
        b_root[-1] = self.r
        self._tree_rhs = b_root
        return T, nvar - d, root

    def row_bounds(self, Phi):
        if self.positive:
            return -self.r * np.linalg.norm(np.minimum(Phi, 0), axis=1), self.r * np.linalg.norm(np.maximum(Phi, 0), axis=1)
        nr = self.r * np.linalg.norm(Phi, axis=1)
        return -nr, nr

    def sample(self, N, rng):
        return self._sampler(N, rng)

    def add_cut(self, a, beta=None):
        """The tangent cut ``<a / |a|, z> <= r`` (``a``: a non-zero direction of R^d; ``beta`` is ignored)."""
        u = np.asarray(a, float)
        norm = float(np.linalg.norm(u)) if u.shape == (self.d,) else 0.0
        if not (np.isfinite(norm) and norm > 0):
            # a margin or a point of the wrong shape would break the outer polytope at its next build
            raise ValueError(f"a cut of the round region needs a non-zero finite direction of R^{self.d}; got {a!r}")
        u = u / norm
        self.cuts.append(u)
        self._desc = None

    def _cell_rows(self, Phi_Z, beta_Z, t):
        A_x, b_x = self.extra  # the piece's own constraints (no margin: they are not K's)
        if self.positive:
            return np.vstack([Phi_Z, -np.eye(self.d), A_x]), np.r_[beta_Z - t, np.full(self.d, -t), b_x]
        return np.vstack([Phi_Z, A_x]), np.r_[beta_Z - t, b_x]

    def cell_empty(self, Phi_Z, beta_Z):
        """True when the cell at ``beta`` provably misses the ball (see :meth:`misses`)."""
        return self.misses(Phi_Z, beta_Z)

    def misses(self, Phi_Z, beta_Z, u=None) -> bool:
        """True when ``{z : Phi_Z z <= beta_Z}`` provably misses the ball (one NNLS and one LP).

        The min-norm point ``p`` of the cell gives the separating plane ``<p/|p|, z> = r``;
        the LP then confirms that no point of the cell lies on the ball's side of it.
        """
        A, b = self._cell_rows(Phi_Z, beta_Z, 0.0)
        if u is None:
            p = min_norm_point(A, b)
            if p is None:
                return not self._lp_feasible(Phi_Z, beta_Z)
            norm = float(np.linalg.norm(p))
            if norm <= self.r * (1 + RADIUS_RTOL):
                return False
            u = p / norm
        res = linprog_quiet(
            np.zeros(self.d),
            A_ub=np.vstack([A, u[None, :]]),
            b_ub=np.r_[b, self.r * (1 + RADIUS_RTOL)],
            bounds=[(-self.r * 1.01, self.r * 1.01)] * self.d,
        )
        return res.status == 2

    def cover(self, Phi_Z, beta_Z):
        """A small set of rows (indices into ``Z``) whose cell at ``beta`` misses the ball, and its plane.

        Returns ``(S, u)`` or ``(None, None)`` when the cell meets the ball. Every point of
        the ball then has one of the rows of ``S`` above its bias: the MILP may require
        ``sum_{i in S} b_i >= 1`` (a combinatorial Benders cut), and ``<u, z> <= r`` is a
        tangent cut that removes the whole cell.
        """
        A, b = self._cell_rows(Phi_Z, beta_Z, 0.0)
        p = min_norm_point(A, b)
        if p is None or np.linalg.norm(p) <= self.r * (1 + RADIUS_RTOL):
            return None, None
        u = p / np.linalg.norm(p)
        if not self.misses(Phi_Z, beta_Z, u):
            return None, None
        tight = np.flatnonzero(Phi_Z @ p - beta_Z >= -NEAR_ACTIVE_RTOL * self.scale)
        S = list(tight) if tight.size and self.misses(Phi_Z[tight], beta_Z[tight]) else list(range(Phi_Z.shape[0]))
        for j in list(S):
            if len(S) == 1:
                break
            T = [i for i in S if i != j]
            if self.misses(Phi_Z[T], beta_Z[T]):
                S = T
        return np.array(S, dtype=np.intp), u

    def cell_point_fast(self, Phi_Z, alpha_Z, time_limit=None):
        """:meth:`cell_point` without widening the margin (one NNLS)."""
        return self.cell_point(Phi_Z, alpha_Z, widen=False)

    def cell_point(self, Phi_Z, alpha_Z, time_limit=None, widen: bool = True):  # NNLS: no solver to stop
        """A point of the open cell inside K with a margin, or ``(None, cut)`` / ``(None, None)``."""
        t0 = CELL_MARGIN_START_RTOL * self.scale
        A, b = self._cell_rows(Phi_Z, alpha_Z, t0)
        p = min_norm_point(A, b)
        if p is None:
            return None, None
        norm = float(np.linalg.norm(p))
        if norm >= self.r - t0:
            return None, (p if norm > 0 else None)
        if self.sphere:
            return self._sphere_point(Phi_Z, alpha_Z, p, t0)
        if self.s > 0 and norm <= self.s + t0:
            return self._shell_point(Phi_Z, alpha_Z, p, t0)
        if not widen:
            return p, t0
        # widen the margin by bisection on t (each step one NNLS)
        lo, hi, best = t0, self.r, p
        for _ in range(18):
            t = 0.5 * (lo + hi)
            A, b = self._cell_rows(Phi_Z, alpha_Z, t)
            q = min_norm_point(A, b)
            if q is not None and np.linalg.norm(q) <= self.r - t and (self.s == 0 or np.linalg.norm(q) >= self.s + t):
                lo, best = t, q
            else:
                hi = t
        return best, lo

    def _sphere_point(self, Phi_Z, alpha_Z, p, t0):
        """A point of the cell on the sphere ``|z| = r``, given its min-norm point ``p`` inside the ball.

        The cell (every row at least ``t0`` below its bias) is convex and holds ``p`` with ``|p| < r``: one LP
        finds a point ``q`` of it far out along ``p`` (or along the direction the cell's rows point away from);
        where ``|q| >= r`` the segment from ``p`` to ``q`` crosses the sphere inside the cell, with the margin
        ``t0``. ``(None, None)`` when no such ``q`` is found (the cell may lie inside the ball).
        """
        dirs = []
        norm = float(np.linalg.norm(p))
        if norm > 0:
            dirs.append(p / norm)
        away = -np.sum(Phi_Z / np.maximum(np.linalg.norm(Phi_Z, axis=1, keepdims=True), DIVISOR_FLOOR), axis=0)
        if np.linalg.norm(away) > 0:
            dirs.append(away / np.linalg.norm(away))
        if not dirs:
            dirs.append(np.eye(self.d)[0])
        for u in dirs:
            q = self._lp_max(u, Phi_Z, alpha_Z - t0)
            if q is None or np.linalg.norm(q) < self.r:
                continue
            # |p + lam (q - p)| = r for one lam in (0, 1]: |p| < r <= |q|
            dq = q - p
            a2, a1, a0 = dq @ dq, 2 * p @ dq, p @ p - self.r**2
            lam = (-a1 + np.sqrt(max(a1 * a1 - 4 * a2 * a0, 0.0))) / (2 * a2)
            z = p + min(max(lam, 0.0), 1.0) * dq
            return z * (self.r / np.linalg.norm(z)), t0  # onto the sphere to the last bit (a relative move of ~1e-16)
        return None, None

    def _shell_point(self, Phi_Z, alpha_Z, p, t0):
        u = p / np.linalg.norm(p) if np.linalg.norm(p) > 0 else np.eye(self.d)[0]
        q = self._lp_max(u, Phi_Z, alpha_Z - t0)
        if q is None or np.linalg.norm(q) <= self.s + t0:
            return None, None
        target = 0.5 * (self.s + min(float(np.linalg.norm(q)), self.r))
        # |p + lam (q - p)| = target, lam in [0, 1]
        dq = q - p
        a2, a1, a0 = dq @ dq, 2 * p @ dq, p @ p - target**2
        disc = max(a1 * a1 - 4 * a2 * a0, 0.0)
        lam = (-a1 + np.sqrt(disc)) / (2 * a2)
        z = p + min(max(lam, 0.0), 1.0) * dq
        nz = np.linalg.norm(z)
        margin = min(t0, self.r - nz, nz - self.s)
        wide = self._shell_margin(Phi_Z, alpha_Z, q / np.linalg.norm(q))
        if wide is not None and wide[1] > margin:
            return wide
        return (z, margin) if margin > 0 else (None, None)

    def _shell_margin(self, Phi_Z, alpha_Z, u):
        """A point of the cell in the shell with a wide margin: one LP beyond the hole along ``u``.

        Maximises ``t`` with every cell row at least ``t |phi_i|`` below its bias, ``<u, z> >= s + t``
        (so ``|z| >= s + t``) and ``z`` in the outer polytope; the margin to the outer sphere is then
        measured. None when the LP fails or the point leaves the ball.
        """
        D = self.outer()
        d, ne = self.d, D.n_extra
        k = Phi_Z.shape[0]
        A_x, b_x = self.extra
        norms = np.linalg.norm(Phi_Z, axis=1)
        rows = [np.hstack([Phi_Z, np.zeros((k, ne)), norms[:, None]]),
                np.hstack([-u[None, :], np.zeros((1, ne)), np.ones((1, 1))]),
                np.hstack([D.A_ub, np.zeros((D.A_ub.shape[0], 1))])]  # fmt: skip
        rhs = [alpha_Z, [-self.s], D.b_ub]
        if self.positive:
            rows.append(np.hstack([-np.eye(d), np.zeros((d, ne)), np.ones((d, 1))]))
            rhs.append(np.zeros(d))
        c = np.zeros(d + ne + 1)
        c[-1] = -1.0
        res = linprog_quiet(c, A_ub=np.vstack(rows), b_ub=np.concatenate([np.asarray(r_, float) for r_ in rhs]),
                            bounds=list(zip(D.lower, D.upper)) + [(0.0, self.r)])  # fmt: skip
        if res.status != 0:
            return None
        z = np.array(res.x[:d])
        nz = float(np.linalg.norm(z))
        margin = min(float(res.x[-1]), self.r - nz, nz - self.s)
        if A_x.shape[0] and not np.all(A_x @ z <= b_x):
            return None
        return (z, margin) if margin > WITNESS_MARGIN_RTOL * self.scale else None


def shell_pieces(region: RoundRegion) -> list[tuple[str, RoundRegion]]:
    r"""Convex pieces that cover a shell or sphere: ``±z_j >= s / sqrt(d)`` within the ball, ``2d`` of them.

    A point with :math:`\|z\| \ge s` has a coordinate with :math:`|z_j| \ge \|z\| / \sqrt d \ge s / \sqrt d`, so
    the pieces cover the shell (the bound is lowered by a relative 1e-9 against rounding), and none
    holds a point of norm below :math:`s / \sqrt d`: a set of rows that can be inactive together only
    near the centre (a positive bias switches every row off at 0) meets no piece, where the ball,
    which holds the hole, meets it. Certified on every piece is certified on the shell.
    """
    d, out = region.d, []
    c = region.s / np.sqrt(d) * (1 - INTERIOR_RTOL)
    for j in range(d):
        for sigma in (1.0, -1.0):
            row = np.zeros((1, d))
            row[0, j] = -sigma
            piece = RoundRegion(d, region.r, np.zeros((0, d)), s=region.s, sphere=region.sphere, sides=region.sides,
                                sampler=region._sampler, extra=(row, np.array([-c])))  # fmt: skip
            piece._rows, piece._rhs = region._rows, region._rhs  # the tangent planes of the rows
            out.append((f"piece {'+' if sigma > 0 else '−'}z{j + 1} ≥ s/√{d}", piece))
    return out


def region_for(domain: Any, Phi: np.ndarray) -> Region:
    """The region of a domain (already in full-dimensional coordinates): exact when polyhedral,
    outer-approximated when the domain is defined by the norm.
    """
    if domain.polyhedral:
        return PolyRegion.from_domain(domain)
    rad = domain.radial()
    if rad is None:
        raise TypeError(f"no region for {domain!r}: neither polyhedral nor defined by the norm")
    return RoundRegion(domain.n, rad.r, Phi, s=rad.s, positive=rad.nonnegative, sphere=rad.surface,
                       sampler=lambda N, rng: domain.sample(N, seed=rng))  # fmt: skip
