r"""The polytope bias checked in rational arithmetic: a proof that ``alpha`` is small enough, or nothing.

Floating point decides ``alpha <= polytope bias`` only when the margin is larger than the rounding
of the computation. At the threshold itself (the Mercedes-Benz frame at ``-1/2`` on the unit ball,
the tetrahedron at ``-1/sqrt(3)`` on the sphere) the float comparison proves nothing either way.
:func:`verify_polytope_bias` settles such cases for small frames exactly: every float64 is a
dyadic rational, so the frame *as stored* is a rational frame and everything below is computed
without rounding (integers and :class:`fractions.Fraction`). Norms are never taken: a comparison
``a <= -r ||P||`` is decided as ``a <= 0 and a^2 >= r^2 ||P||^2``.

What is proved is the conclusion of Thm "PBE": the frame is ``alpha``-rectifying on (a radial set
containing) ``K``. The argument has three exact parts.

1. **Cones that cover R^n.** Cones do not see the length of their generators, so instead of the
   normalized vectors (irrational) the polytope ``Q = conv{phi_i / w_i}`` is used, ``w_i`` the float
   norm of ``phi_i`` (``Q`` is the inscribing polytope up to rounding; its facets refine the
   inscribing polytope's when those are well separated). In homogeneous coordinates
   ``(phi_i, w_i)`` every side test is the sign of an integer determinant. A facet is *verified*
   when ``n`` of its points span a hyperplane with every point on the origin's side or on it and
   the origin strictly inside; its point set is then exactly the points on that hyperplane, and they
   span R^n (``n`` affinely independent points off a hyperplane through 0). Starting from qhull's
   facets (or the caller's) each ridge of each verified facet is looked up among the others, and a
   missing neighbour is found by gift wrapping around the ridge. When every ridge lies in two
   verified facets the list is closed under adjacency, hence (the facet graph of a polytope is
   connected) it is every facet of ``Q``; with the origin strictly inside each, 0 is interior and
   the cones over the facets cover R^n. No float facet is trusted.
2. **Bounds per facet and vertex.** For ``y`` in ``C = cone(phi_F)`` and any vector ``P`` with
   ``<phi_l, phi_i + P> >= 0`` for every ``l`` in ``F``,
   ``<y, phi_i> = <y, phi_i + P> - <y, P> >= -||y|| ||P||``, so
   ``min over C ∩ {|y| <= r} of <y, phi_i> >= -r ||P||``. The best ``P`` is the projection of
   ``-phi_i`` onto ``C`` (Moreau); it is found by non-negative least squares in floats, then solved
   again exactly on its support from the normal equations, and only the inequalities above are
   checked (exactly). When every ``<phi_l, phi_i> >= 0`` the minimum over
   ``C ∩ {s <= |y| <= r}`` is ``s min_l <phi_l, phi_i> / ||phi_l||`` instead (compared squared).
   On the non-negative part of a ball a facet counts only when its cone may meet ``R^n_+``: it is
   skipped only with a proof that it does not (some ``y >= 0`` with ``<phi_l, y> < 0`` on ``F``).
3. **Bounds within rounding.** The polytope bias of the frame *as stored* can be a hair below the
   value of the ideal frame (the stored Mercedes-Benz vectors are a little shorter than 1, which
   makes the bound of the top vector ``-1/2 - 2e-17``) although the layer is injective. Then the
   rows whose bound over ``C`` holds, vertices of ``F`` or not (``A``), are active on all of
   ``C ∩ K``; when they span R^n the facet is done, else a point of ``C ∩ K`` fails
   to be rectifying only if its active set lies in a hyperplane through 0 that contains ``A``:
   for every such set ``S`` of frame vectors (enumerated exactly) the points of
   ``C ∩ B_r`` where every row outside ``S`` is inactive are shown not to exist by a dual
   certificate: multipliers ``mu >= 0`` on those rows and on the cone's facet inequalities
   ``<g, x> <= 0`` (and ``-x_k <= 0`` on the positive ball), positive on some row, with
   ``beta = sum mu_j alpha_j <= 0`` and ``beta^2 >= r^2 ||sum mu_j a_j||^2`` (then
   ``-r ||v|| <= <v, x> < beta <= -r ||v||`` would follow). The multipliers come from the least
   distance problem solved in floats and solved again exactly on its support. On a sphere or shell
   (``|x| >= s > 0``) a second kind serves biases ``> 0``: a convex combination ``v = sum mu_j phi_j``
   of those rows with ``<phi_l, v> >= 0`` on ``F`` and ``s min_l <phi_l, v> / |phi_l| >= sum mu_j alpha_j``
   (the minimum of ``<v, x>`` over the cone outside the ball of radius ``s``), ``mu`` from a float LP
   and checked exactly.

With ``strict=True`` every comparison is strict, which proves ``alpha'``-rectifying for some
``alpha' > alpha``: by Thm "Injectivity I" the layer is then injective on every ``K``, also one
that is neither open nor convex (the sphere).

Limits: ``2 <= n <= MAX_DIM`` and ``m <= MAX_VECTORS`` (beyond them the answer is None at once),
facets of at most ``MAX_FACET_SIZE`` points, at most ``MAX_CERTIFICATES`` dual certificates.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from ..._util.tolerances import (
    DIVISOR_FLOOR,
    INTERIOR_RTOL,
    NEAR_ACTIVE_RTOL,
    NORM_RTOL,
    SHORTFALL_RTOL,
    SUPPORT_RTOL,
    UNIT_ZERO_TOL,
)
from ...domains import Domain
from ...errors import InputError

__all__ = ["verify_polytope_bias", "MAX_DIM", "MAX_VECTORS", "MAX_FACET_SIZE", "MAX_CERTIFICATES"]

#: largest dimension handled (exact hulls and projections grow quickly with n)
MAX_DIM = 4
#: largest number of frame vectors handled
MAX_VECTORS = 40
#: largest number of frame vectors on one facet (its ridges are found among (n-1)-subsets)
MAX_FACET_SIZE = 12
#: largest number of facets of the exact hull
MAX_FACETS = 5000
#: largest number of dual certificates of step 3
MAX_CERTIFICATES = 2000
#: supports tried per exact projection or certificate
_MAX_TRIES = 64


class _GiveUp(Exception):
    """Nothing can be proved within the limits (too large, time up, degenerate)."""


# ---------------------------------------------------------------------------------
# exact linear algebra on small matrices
# ---------------------------------------------------------------------------------


def _int_row(values: Any) -> list[int]:
    """The floats times one positive power of two, as Python integers (exact)."""
    fr = [Fraction(float(v)) for v in values]
    den = max(f.denominator for f in fr)  # powers of two: the largest is a multiple of the others
    return [int(f * den) for f in fr]


def _det(M: list[list[int]]) -> int:
    """Determinant of a square integer matrix (fraction-free Bareiss elimination)."""
    A = [row[:] for row in M]
    k = len(A)
    sign, prev = 1, 1
    for c in range(k - 1):
        piv = next((r for r in range(c, k) if A[r][c] != 0), None)
        if piv is None:
            return 0
        if piv != c:
            A[c], A[piv] = A[piv], A[c]
            sign = -sign
        pc = A[c][c]
        for r in range(c + 1, k):
            arc = A[r][c]
            A[r] = [0] * (c + 1) + [(pc * A[r][j] - arc * A[c][j]) // prev for j in range(c + 1, k)]
        prev = pc
    return sign * A[k - 1][k - 1] if k else 1


def _normal(rows: list[list[int]]) -> list[int]:
    """``c`` with ``c . x = det([rows; x])`` for ``d - 1`` rows of length ``d`` (zero iff the rows are dependent)."""
    d = len(rows) + 1
    out = []
    for j in range(d):
        minor = [[row[t] for t in range(d) if t != j] for row in rows]
        out.append((-1) ** (d - 1 + j) * _det(minor))
    return out


def _dot(a: list, b: list) -> Any:
    return sum(x * y for x, y in zip(a, b))


def _unit_float(v: list[int]) -> np.ndarray:
    """The direction of an integer vector as a float unit vector (no overflow, however long the integers)."""
    shift = max(0, max(abs(x).bit_length() for x in v) - 900)
    f = np.array([float(x >> shift) if x >= 0 else -float((-x) >> shift) for x in v])
    nf = np.linalg.norm(f)
    return f / nf if nf > 0 else f


def _cramer(G: list[list[int]], h: list[int]) -> tuple[list[int], int] | None:
    """``(num, den)`` with ``den > 0`` and ``G (num / den) = h`` for a small integer system (Cramer), or None if singular."""
    D = _det(G)
    if D == 0:
        return None
    k = len(h)
    num = [_det([row[:j] + [h[r]] + row[j + 1 :] for r, row in enumerate(G)]) for j in range(k)]
    if D < 0:
        return [-x for x in num], -D
    return num, D


def _null_vector(cols: list[list[int]]) -> list[int] | None:
    """A non-zero integer ``mu`` with ``sum mu_j cols[j] = 0`` when that null space has dimension 1, else None."""
    k = len(cols)
    d = len(cols[0])
    A = [[Fraction(cols[j][t]) for j in range(k)] for t in range(d)]  # one row per coordinate, unknowns mu_j
    pivots: list[int] = []
    row = 0
    for c in range(k):
        if row == d:
            break
        piv = next((r for r in range(row, d) if A[r][c] != 0), None)
        if piv is None:
            continue
        A[row], A[piv] = A[piv], A[row]
        p = [x / A[row][c] for x in A[row]]
        A[row] = p
        for r in range(d):
            if r != row and A[r][c] != 0:
                f = A[r][c]
                A[r] = [x - f * y for x, y in zip(A[r], p)]
        pivots.append(c)
        row += 1
    free = [c for c in range(k) if c not in pivots]
    if len(free) != 1:
        return None
    mu = [Fraction(0)] * k
    mu[free[0]] = Fraction(1)
    for r, c in enumerate(pivots):
        mu[c] = -A[r][free[0]]
    den = math.lcm(*(v.denominator for v in mu))
    return [int(v * den) for v in mu]


def _rank(rows: list[list[int]]) -> int:
    """Rank of a small integer matrix (integer elimination, rows kept small by their gcd)."""
    A = [list(r) for r in rows]
    rank = 0
    ncols = len(A[0]) if A else 0
    for c in range(ncols):
        piv = next((r for r in range(rank, len(A)) if A[r][c] != 0), None)
        if piv is None:
            continue
        A[rank], A[piv] = A[piv], A[rank]
        p = A[rank]
        for r in range(rank + 1, len(A)):
            if A[r][c] != 0:
                q = A[r][c]
                row = [p[c] * x - q * y for x, y in zip(A[r], p)]
                g = math.gcd(*row)
                A[r] = [x // g for x in row] if g > 1 else row
        rank += 1
    return rank


# ---------------------------------------------------------------------------------
# the region: a radial set containing K
# ---------------------------------------------------------------------------------


class _Region:
    """``{s <= |x| <= r}`` (intersected with ``R^n_+`` when ``nonneg``): squares exact, radii in floats for the screens."""

    def __init__(self, s2: Fraction, r2: Fraction, s: float, r: float, nonneg: bool, text: str) -> None:
        self.s2, self.r2, self.s, self.r, self.nonneg, self.text = s2, r2, s, r, nonneg, text


def _region(K: Any, n: int) -> _Region | None:
    if not isinstance(K, Domain) or K.n != n or K.finite:
        return None
    rad = K.radial()
    if rad is not None:
        s, r = float(rad.s), float(rad.r)
        if not (np.isfinite(r) and np.isfinite(s) and 0 <= s <= r and r > 0):
            return None
        return _Region(Fraction(s) ** 2, Fraction(r) ** 2, s, r, bool(rad.nonnegative), K.describe())
    box = K.outer_polytope()
    if box is None:
        return None
    lo, hi = np.asarray(box.lower[:n], dtype=float), np.asarray(box.upper[:n], dtype=float)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        return None
    r2 = sum(max(Fraction(a) ** 2, Fraction(b) ** 2) for a, b in zip(lo, hi))
    s2 = sum((Fraction(a) if a > 0 else Fraction(b) if b < 0 else Fraction(0)) ** 2 for a, b in zip(lo, hi))
    if r2 == 0:
        return None
    nonneg = bool(np.all(lo >= 0))
    corner, near = np.maximum(np.abs(lo), np.abs(hi)), np.clip(0.0, lo, hi)
    s, r = math.hypot(*near), math.hypot(*corner)
    return _Region(s2, r2, s, r, nonneg, f"the radial set around the bounding box of {K.describe()}")


# ---------------------------------------------------------------------------------
# the verifier
# ---------------------------------------------------------------------------------


class _Facet:
    __slots__ = ("pts", "pset", "ridges")

    def __init__(self, pts: tuple[int, ...]) -> None:
        self.pts = pts
        self.pset = frozenset(pts)
        self.ridges: list[tuple[frozenset, list[int]]] | None = None


class _Verifier:
    def __init__(self, Phi: np.ndarray, alpha: np.ndarray, region: _Region, strict: bool, deadline: float) -> None:
        self.Phi = Phi
        self.m, self.n = Phi.shape
        self.region = region
        self.strict = strict
        self.deadline = deadline
        # float copies for the screens, scaled so that nothing overflows: unit rows and biases per unit row
        self.norm = np.array([math.hypot(*row) for row in Phi])  # no overflow or underflow on the way
        live = self.norm > 0
        scaled = np.ldexp(Phi, -np.frexp(np.max(np.abs(Phi), axis=1))[1][:, None])  # exact: each row's maximum in [1/2, 1)
        self.U = np.zeros_like(Phi)
        self.U[live] = scaled[live] / np.linalg.norm(scaled[live], axis=1)[:, None]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self.a_unit = np.where(live, alpha / np.where(live, self.norm, 1.0), np.nan)
        # phi_i = Z[i] / D[i] exactly, Z[i] integers, D[i] a power of two
        self.Z: list[list[int]] = []
        self.D: list[int] = []
        for row in Phi:
            fr = [Fraction(float(v)) for v in row]
            den = max(f.denominator for f in fr)
            self.Z.append([int(f * den) for f in fr])
            self.D.append(den)
        self.N2 = [Fraction(_dot(z, z), d * d) for z, d in zip(self.Z, self.D)]
        self.alpha: list[Fraction | float] = [float(a) if np.isinf(a) else Fraction(float(a)) for a in alpha]
        self.always = [a == -np.inf for a in alpha]
        self.never = [a == np.inf for a in alpha]
        self.live = [i for i in range(self.m) if self.N2[i] > 0]
        # homogeneous coordinates (phi_i, w_i) of the points phi_i / w_i, w_i the float norm
        self.H = {i: _int_row(list(Phi[i]) + [self.norm[i]]) for i in self.live}
        self.H0 = [0] * self.n + [1]
        self._gz: dict[tuple[int, int], int] = {}
        self._rows: dict[int, tuple[list[int], int]] = {}
        self.n_certificates = 0

    # -- utilities
    def tick(self) -> None:
        if time.perf_counter() > self.deadline:
            raise _GiveUp("time")

    def gz(self, a: int, b: int) -> int:
        """``<Z_a, Z_b>`` (integers)."""
        key = (a, b) if a <= b else (b, a)
        g = self._gz.get(key)
        if g is None:
            g = self._gz[key] = _dot(self.Z[a], self.Z[b])
        return g

    def bias_row(self, j: int) -> tuple[list[int], int]:
        """``(a, b)``: the row ``phi_j`` and its bias times one power of two, integers (``<a, x> < b`` iff row j is inactive)."""
        row = self._rows.get(j)
        if row is None:
            z = _int_row(list(self.Phi[j]) + [float(self.alpha[j])])
            row = self._rows[j] = (z[:-1], z[-1])
        return row

    def gram(self, a: int, b: int) -> Fraction:
        """``<phi_a, phi_b>`` exactly."""
        return Fraction(self.gz(a, b), self.D[a] * self.D[b])

    def _ge(self, lhs: Fraction, rhs: Fraction) -> bool:
        """``lhs >= rhs`` (``>`` when strict)."""
        return lhs > rhs if self.strict else lhs >= rhs

    # -- part 1: the facets of Q = conv(phi_i / w_i) and their ridges
    def facet_from(self, basis: list[int]) -> _Facet | None:
        """The facet spanned by ``n`` points, if the hyperplane through them supports Q with 0 strictly inside."""
        c = _normal([self.H[i] for i in basis])
        side0 = c[-1]  # c . H0
        if side0 == 0:
            return None
        if side0 > 0:
            c = [-x for x in c]
        on = []
        for i in self.live:
            v = _dot(c, self.H[i])
            if v > 0:
                return None
            if v == 0:
                on.append(i)
        return _Facet(tuple(on))

    def affine_basis(self, pts: list[int] | tuple[int, ...], k: int) -> list[int] | None:
        """``k`` points among ``pts`` whose homogeneous rows are linearly independent (greedy), or None."""
        chosen: list[int] = []
        for i in pts:
            trial = chosen + [i]
            if _rank([self.H[j] for j in trial]) == len(trial):
                chosen = trial
                if len(chosen) == k:
                    return chosen
        return None

    def ridges(self, F: _Facet) -> list[tuple[frozenset, list[int]]]:
        """The ridges of ``F`` (point sets) with the normal ``g`` of the hyperplane through 0 and the ridge.

        ``g`` is oriented so that ``<g, phi_l> <= 0`` on ``F``: the cone over ``F`` lies in ``{<g, x> <= 0}``.
        """
        if F.ridges is not None:
            return F.ridges
        if len(F.pts) > MAX_FACET_SIZE:
            raise _GiveUp("facet size")
        out: dict[frozenset, list[int]] = {}
        for S in combinations(F.pts, self.n - 1):
            self.tick()
            c = _normal([self.H[i] for i in S] + [self.H0])
            if not any(c):
                continue
            sides = [_dot(c, self.H[q]) for q in F.pts]
            if all(v >= 0 for v in sides):
                c = [-x for x in c]
            elif not all(v <= 0 for v in sides):
                continue
            R = frozenset(q for q, v in zip(F.pts, sides) if v == 0)
            if R not in out:
                g = c[:-1]  # c[-1] = c . H0 = 0
                d = math.gcd(*g)
                out[R] = [x // d for x in g]
        F.ridges = list(out.items())
        return F.ridges

    def wrap(self, F: _Facet, R: frozenset) -> _Facet | None:
        """The other facet through the ridge ``R`` of ``F`` (gift wrapping, exact)."""
        base = self.affine_basis(sorted(R), self.n - 1)
        f = next((q for q in F.pts if q not in R), None)
        cands = [i for i in self.live if i not in F.pset]
        if base is None or f is None or not cands:
            return None
        best = cands[0]
        c = _normal([self.H[i] for i in base] + [self.H[best]])
        sf = _dot(c, self.H[f])
        if sf == 0:
            return None
        for q in cands[1:]:
            sq = _dot(c, self.H[q])
            if sq != 0 and (sq > 0) != (sf > 0):  # q lies beyond the plane through R and best
                best = q
                c = _normal([self.H[i] for i in base] + [self.H[best]])
                sf = _dot(c, self.H[f])
                if sf == 0:
                    return None
        return self.facet_from(base + [best])

    def hull(self, seeds: list) -> list[_Facet]:
        known: dict[frozenset, _Facet] = {}
        for seed in seeds:
            self.tick()
            pts = [int(i) for i in seed if int(i) in self.H]
            basis = pts if len(pts) == self.n else self.affine_basis(pts, self.n)
            if basis is None or len(basis) != self.n:
                continue
            F = self.facet_from(basis)
            if F is not None and F.pset not in known:
                known[F.pset] = F  # every verified seed saves a gift-wrapping step later
        if not known:
            raise _GiveUp("no seed facet")
        by_vertex: dict[int, list[_Facet]] = {}
        for F in known.values():
            for i in F.pts:
                by_vertex.setdefault(i, []).append(F)
        queue = list(known.values())
        while queue:
            F = queue.pop()
            for R, _ in self.ridges(F):
                self.tick()
                if any(G is not F and R <= G.pset for G in by_vertex.get(min(R), ())):
                    continue
                G = self.wrap(F, R)
                if G is None or G.pset == F.pset or not R <= G.pset:
                    raise _GiveUp("wrap")
                if G.pset in known:
                    continue
                known[G.pset] = G
                if len(known) > MAX_FACETS:
                    raise _GiveUp("facets")
                for i in G.pts:
                    by_vertex.setdefault(i, []).append(G)
                queue.append(G)
        return list(known.values())

    # -- positive ball: facets whose cone certainly misses R^n_+ \ {0}
    def misses_orthant(self, F: _Facet) -> bool:
        """True only with a proof: some ``y >= 0`` has ``<phi_l, y> < 0`` for every vertex.

        Then a non-zero ``x`` of the cone in ``R^n_+`` would have ``<x, y> < 0 <= <x, y>``.
        """
        n = self.n
        cands: list[list[Fraction]] = [[Fraction(int(k == j)) for k in range(n)] for j in range(n)]
        cands.append([Fraction(1)] * n)
        V = self.Phi[list(F.pts)]
        if not any(np.all(V @ np.asarray([float(v) for v in y]) < 0) for y in cands):
            from scipy.optimize import linprog

            # max t s.t. <phi_l, y> + t <= 0, 0 <= y <= 1, t <= 1
            k = V.shape[0]
            res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[V, np.ones(k)], b_ub=np.zeros(k),
                          bounds=[(0, 1)] * n + [(None, 1)], method="highs")  # fmt: skip
            if res.status == 0 and -res.fun > 0:
                cands.append([Fraction(float(max(v, 0.0))) for v in res.x[:n]])
        for y in cands:
            if all(sum(Fraction(z) * v for z, v in zip(self.Z[k], y)) < 0 for k in F.pts):
                return True
        return False

    # -- part 2: the bound of one row over one facet's cone
    def pair_holds(self, F: _Facet, i: int) -> bool:
        """Row ``i`` is active (``<x, phi_i> >= alpha_i``, ``>`` when strict) on all of ``cone(F)`` within the region."""
        a = self.alpha[i]
        if a == -math.inf:
            return True
        if a == math.inf:
            return False
        ips = [self.gram(k, i) for k in F.pts]
        reg = self.region
        if all(ip >= 0 for ip in ips):
            if a < 0 or (a == 0 and not self.strict):
                return True
            # a >= 0: a <= s <phi_l, phi_i> / |phi_l| for every l, squared
            return all(self._ge(reg.s2 * ip * ip, a * a * self.N2[k]) for k, ip in zip(F.pts, ips))
        if a > 0 or (a == 0 and self.strict):
            return False
        a2 = a * a
        if self._ge(a2, reg.r2 * self.N2[i]):  # P = -phi_i: the bound -r |phi_i|
            return True
        from scipy.optimize import nnls

        gens = [k for k in F.pts if k != i]
        try:
            c = nnls(self.U[gens].T, -self.U[i])[0]  # the cone does not see the lengths of its generators
        except (RuntimeError, ValueError):
            c = np.zeros(len(gens))
        bound, a_n = -reg.r * float(np.linalg.norm(self.U[gens].T @ c)), float(self.a_unit[i])  # per unit of |phi_i|
        if np.isfinite(a_n) and np.isfinite(bound) and a_n > bound + SHORTFALL_RTOL * (abs(a_n) + reg.r):
            return False  # short by far more than rounding: no exact attempt
        return any(self._ge(a2, reg.r2 * p2) for p2 in self.projections(F, i, gens, c))

    def projections(self, F: _Facet, i: int, gens: list[int], c: np.ndarray):
        """Squared norms of vectors ``P`` with ``<phi_l, phi_i + P> >= 0`` on ``F``, each one proved exactly.

        ``P`` is the projection of ``-phi_i`` onto the span of a support (the float one first), solved
        from the normal equations in integers: ``phi = Z / D`` gives ``P = PZ / (den D_i)``.
        """
        top = float(np.max(c)) if c.size else 0.0
        support = tuple(j for j, v in enumerate(c) if v > SUPPORT_RTOL * max(top, DIVISOR_FLOOR))
        order = [support] if support else []
        sizes = range(1, min(self.n, len(gens)) + 1)
        rest = [S for k in sizes for S in combinations(range(len(gens)), k)]
        rest.sort(key=lambda S: len(set(S) ^ set(support)))
        order += rest
        tried = set()
        for S in order:
            if S in tried:
                continue
            if len(tried) >= _MAX_TRIES:
                break
            tried.add(S)
            self.tick()
            idx = [gens[j] for j in S]
            sol = _cramer([[self.gz(p, q) for q in idx] for p in idx], [-self.gz(p, i) for p in idx])
            if sol is None:
                continue
            num, den = sol
            PZ = [sum(cf * self.Z[p][t] for cf, p in zip(num, idx)) for t in range(self.n)]
            # dual feasibility: <Z_l, PZ + den Z_i> >= 0 on the whole facet
            if all(_dot(self.Z[k], PZ) + den * self.gz(k, i) >= 0 for k in F.pts):
                yield Fraction(_dot(PZ, PZ), den * den * self.D[i] * self.D[i])

    # -- part 3: certificates that no point of a cone leaves only a non-spanning set active
    def facet_covered(self, F: _Facet, holds: list[int]) -> bool:
        """Every point of ``cone(F)`` in the region is rectifying, given the rows ``holds`` active on all of it."""
        n = self.n
        basis: list[int] = []

        def add(i: int) -> None:
            if len(basis) < n and _rank([self.Z[j] for j in basis + [i]]) == len(basis) + 1:
                basis.append(i)

        for i in holds:
            add(i)
        # rows that are not vertices of F may be active on all of its cone too
        for j in self.live:
            if len(basis) == n:
                return True
            if j not in F.pset:
                self.tick()
                if self.pair_holds(F, j):
                    add(j)
        if len(basis) == n:
            return True
        extra = [(g, 0) for _, g in self.ridges(F)]
        if self.region.nonneg:
            extra += [([-int(k == j) for k in range(n)], 0) for j in range(n)]
        seen: set[frozenset] = set()
        others = [j for j in self.live if j not in basis]
        for E in combinations(others, n - 1 - len(basis)):
            self.tick()
            nu = _normal([self.Z[j] for j in basis + list(E)])
            if not any(nu):
                continue
            # the frame vectors on the hyperplane through 0 spanned by basis + E
            S = frozenset(j for j in range(self.m) if _dot(nu, self.Z[j]) == 0)
            if S in seen:
                continue
            seen.add(S)
            self.n_certificates += 1
            if self.n_certificates > MAX_CERTIFICATES:
                raise _GiveUp("certificates")
            T = [j for j in range(self.m) if j not in S]
            if not (self.empty(T, extra) or self.empty_shell(F, T)):
                return False
        return True

    def empty_shell(self, F: _Facet, T: list[int]) -> bool:
        """Proof that no ``x`` of ``cone(F)`` with ``|x| >= s > 0`` has ``<phi_j, x> < alpha_j`` for all j in T.

        For ``mu >= 0`` (sum 1) with ``<phi_l, v> >= 0`` on ``F``, ``v = sum mu_j phi_j``, the minimum of
        ``<v, x>`` over the cone outside the ball of radius ``s`` is ``s min_l <phi_l, v> / |phi_l|``; when
        that is ``>= beta = sum mu_j alpha_j`` such a point would have ``<v, x> < beta <= <v, x>``. The
        multipliers come from a float LP (the best margin), taken exactly as stored and checked exactly.
        """
        if self.region.s2 == 0:
            return False
        if any(self.always[j] for j in T):
            return True
        T = [j for j in T if not self.never[j]]
        if not T:
            return False
        from scipy.optimize import linprog

        pts = list(F.pts)
        # in units of |phi_j| per column: mu_j = nu_j / |phi_j|
        M = self.region.s * (self.U[pts] @ self.U[T].T) - self.a_unit[T][None, :]  # (|F|, |T|)
        if not np.all(np.isfinite(M)):
            return False
        k = len(T)
        # max t s.t. M mu >= t, sum mu = 1, mu >= 0
        res = linprog(np.r_[np.zeros(k), -1.0], A_ub=np.c_[-M, np.ones(len(pts))], b_ub=np.zeros(len(pts)),
                      A_eq=np.r_[np.ones(k), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * k + [(None, None)],
                      method="highs")  # fmt: skip
        if res.status != 0 or -res.fun < -UNIT_ZERO_TOL:
            return False
        x = np.maximum(res.x[:k], 0.0)
        zero = NORM_RTOL * x.max()
        mu = [Fraction(float(v)) / Fraction(float(self.norm[j])) if v > zero else Fraction(0) for v, j in zip(x, T)]
        vec = [sum(mj * Fraction(self.Z[j][t], self.D[j]) for mj, j in zip(mu, T) if mj) for t in range(self.n)]
        beta = sum(mj * self.alpha[j] for mj, j in zip(mu, T) if mj)
        if not any(mu):
            return False
        for q in pts:
            ip = sum(Fraction(z, self.D[q]) * v for z, v in zip(self.Z[q], vec))
            if self.strict:
                if not (beta < 0 and ip >= 0 or ip > 0 and self.region.s2 * ip * ip > beta * beta * self.N2[q]):
                    return False
            elif not (ip >= 0 and (beta <= 0 or self.region.s2 * ip * ip >= beta * beta * self.N2[q])):
                return False
        return True

    def empty(self, T: list[int], extra: list[tuple[list[int], int]]) -> bool:
        """Proof that no ``x`` has ``|x| <= r``, ``<phi_j, x> < alpha_j`` (j in T) and ``<g, x> <= 0`` (extra rows)."""
        from scipy.optimize import nnls

        if any(self.always[j] for j in T):
            return True  # a row with bias -inf is active everywhere
        T = [j for j in T if not self.never[j]]  # a row with bias +inf is inactive everywhere: no constraint
        if not T:
            return False
        rows = [self.bias_row(j) for j in T] + extra
        strict_row = [True] * len(T) + [False] * len(extra)
        # least distance in floats: min |x| s.t. A x <= b, by nnls on [-A^T; -b^T] u ~ e_(n+1) (Lawson & Hanson)
        # unit rows, and x = r y with |y| <= 1: <u_j, y> < alpha_j / (r |phi_j|)
        An = np.array([self.U[j] for j in T] + [_unit_float(g) for g, _ in extra])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            bn = np.r_[self.a_unit[T] / self.region.r, np.zeros(len(extra))]
        if not np.all(np.isfinite(bn)):
            return False
        E = np.vstack([-An.T, -bn[None, :]])
        f = np.zeros(self.n + 1)
        f[-1] = 1.0
        try:
            u = nnls(E, f)[0]
        except (RuntimeError, ValueError):
            u = np.zeros(len(rows))
        res = E @ u - f
        u_min = NORM_RTOL * max(float(u.max()), DIVISOR_FLOOR)
        cand = [int(j) for j in np.argsort(-u) if u[j] > u_min]
        if abs(res[-1]) > UNIT_ZERO_TOL:
            x = -res[:-1] / res[-1]
            if float(np.linalg.norm(x)) < 1 - INTERIOR_RTOL:
                return False  # a point of the closed set lies well inside the ball: no certificate to find
            slack = bn - An @ x
            near = [int(j) for j in np.argsort(slack) if slack[j] < NEAR_ACTIVE_RTOL * (1 + float(np.abs(x).sum()))]
            cand += [j for j in near if j not in cand]
        cand = cand[:10]
        # the float support first, then small subsets (n + 1 rows: a null vector, for an empty closed set)
        order: list[tuple[int, ...]] = [tuple(sorted(cand[: self.n + 1]))] if cand else []
        for k in range(1, min(self.n + 1, len(cand)) + 1):
            order += [tuple(sorted(S)) for S in combinations(cand, k)]
        done: set = set()
        for S in order:
            if S in done:
                continue
            if len(done) >= 4 * _MAX_TRIES:
                break
            done.add(S)
            self.tick()
            if self.certificate(S, rows, strict_row):
                return True
        return False

    def certificate(self, S: tuple[int, ...], rows: list[tuple[list[int], int]], strict_row: list[bool]) -> bool:
        """Do multipliers on the rows ``S`` (from the normal equations, or a null vector) prove emptiness?

        Valid for any ``mu >= 0`` positive on some bias row: with ``v = sum mu_j a_j`` and
        ``beta = sum mu_j b_j``, a point would give ``-r |v| <= <v, x> < beta``; so ``beta <= 0`` and
        ``beta^2 >= r^2 |v|^2`` exclude it. Both sides are of degree 2 in ``mu``: the common positive
        denominator of the solution is left out.
        """
        sub = [rows[j][0] for j in S]
        sol = _cramer([[_dot(p, q) for q in sub] for p in sub], [-rows[j][1] for j in S])
        if sol is not None:
            options = [sol[0]]
        else:
            # n + 1 rows of rank n: the null vector is the cofactor vector of the transposed rows
            z = _normal([list(col) for col in zip(*sub)]) if len(sub) == self.n + 1 else None
            if z is None or not any(z):
                z = _null_vector(sub)
            options = [] if z is None else [z, [-v for v in z]]
        r2 = self.region.r2
        for mu in options:
            if any(v < 0 for v in mu) or not any(v > 0 and strict_row[j] for v, j in zip(mu, S)):
                continue
            beta = sum(v * rows[j][1] for v, j in zip(mu, S))
            vec = [sum(v * rows[j][0][t] for v, j in zip(mu, S)) for t in range(self.n)]
            lhs, rhs = beta * beta * r2.denominator, r2.numerator * _dot(vec, vec)
            if (beta < 0 and lhs > rhs) if self.strict else (beta <= 0 and lhs >= rhs):
                return True
        return False


def _seeds(U: np.ndarray, live: list[int], facets: Any) -> list:
    seeds: list = []
    if facets is not None:
        seeds += [np.asarray(f, dtype=np.intp).ravel() for f in facets]
    try:
        from scipy.spatial import ConvexHull, QhullError

        hull = ConvexHull(U[live])
        seeds += [np.asarray(live)[s] for s in hull.simplices]
    except (ImportError, ValueError, QhullError):
        pass
    return seeds


def verify_polytope_bias(
    Phi: Any,
    alpha: Any,
    K: Any,
    *,
    facets: Any = None,
    strict: bool = False,
    certificates: bool = True,
    time_limit: float | None = None,
) -> str | None:
    r"""An exact proof that ``ReLU(Phi x - alpha)`` is ``alpha``-rectifying on ``K`` by the polytope bias, or None.

    The frame and the bias are taken exactly as stored (each float64 is a dyadic rational) and
    every step is done in rational arithmetic (see the module notes): the facets of the polytope
    are verified (0 interior, the list complete), each facet-and-vertex bound of Thm "PBE" /
    Prop. "pbeall" is compared with ``alpha_i`` without rounding, and a facet where a bound falls
    short only by rounding is settled by exact dual certificates instead. A returned text is a
    proof; None proves nothing.

    Parameters
    ----------
    Phi : array_like, shape (m, n)
        The frame (rows ``phi_i``), e.g. the weights in the front door's normal form; need not be
        normalized. Zero rows are allowed (they never help to span).
    alpha : array_like, shape (m,)
        The bias (paper's convention ``ReLU(<x, phi_i> - alpha_i)``); ``-inf`` (always active) and
        ``+inf`` (never active) are allowed.
    K : Domain
        A domain that says it is radial (``K.radial()``: ball, sphere, shell, positive ball) or that
        has a bounding box (``K.outer_polytope()``, e.g. a box; the radial set around that box is
        used, a superset of K). Other objects, unbounded or finite domains give None.
    facets : sequence of index arrays, optional
        Candidate facets (e.g. ``est.info["polytope"].facets`` of :func:`polytope_bias` for this
        very ``Phi``), used only to start the exact hull; qhull's are used when omitted. Nothing
        in them is trusted.
    strict : bool
        Prove ``alpha`` strictly below every bound (then the layer is ``alpha'``-rectifying for some
        ``alpha' > alpha``, and injective on K by Thm "Injectivity I" also when K is neither open
        nor convex, e.g. a sphere). Default False: ``alpha <= bound``.
    certificates : bool
        Settle facets whose bound falls short of ``alpha`` with the dual certificates of part 3
        (default). False: the plain exact comparison with the polytope bias, nothing else.
    time_limit : float, optional
        Seconds; past them the answer is None.

    Returns
    -------
    str or None
        A one-line description of the proof, or None when nothing is proved: the inequality fails
        or cannot be shown, ``n`` outside ``[2, MAX_DIM]``, ``m > MAX_VECTORS``, the domain is not
        supported, the hull is degenerate (0 not interior), or the time is up.

    Raises
    ------
    InputError
        If the shapes do not match or an entry is NaN (or an infinite weight).

    Examples
    --------
    >>> import numpy as np
    >>> import relu_frames_nb as rf
    >>> MB = rf.zoo.mercedes_benz()
    >>> verify_polytope_bias(MB, np.full(3, -0.5), rf.Ball(2)) is not None
    True
    >>> verify_polytope_bias(MB, np.full(3, -0.5 + 1e-12), rf.Ball(2)) is None
    True
    """
    Phi = np.array(Phi, dtype=float)
    alpha = np.array(alpha, dtype=float)
    if Phi.ndim != 2 or Phi.shape[0] == 0:
        raise InputError(f"Phi must be a non-empty array of shape (m, n); got shape {Phi.shape}.")
    m, n = Phi.shape
    if alpha.shape != (m,):
        raise InputError(f"alpha must have shape ({m},), one bias per row of Phi; got shape {alpha.shape}.")
    if not np.all(np.isfinite(Phi)):
        raise InputError("Phi must be finite; got NaN or inf entries.")
    if np.any(np.isnan(alpha)):
        raise InputError("alpha must not contain NaN.")
    for name, flag in (("strict", strict), ("certificates", certificates)):
        if not isinstance(flag, (bool, np.bool_)):
            raise InputError(f"{name} must be True or False; got {flag!r}.")
    deadline = math.inf
    if time_limit is not None:
        t = float(time_limit)
        if np.isnan(t) or t < 0:
            raise InputError(f"time_limit must be >= 0 seconds or None; got {time_limit!r}.")
        deadline = time.perf_counter() + t
    if not (2 <= n <= MAX_DIM and m <= MAX_VECTORS):
        return None
    region = _region(K, n)
    if region is None:
        return None
    V = _Verifier(Phi, alpha, region, bool(strict), deadline)
    if len(V.live) <= n:
        return None
    try:
        hull = V.hull(_seeds(V.U, V.live, facets))
        relevant = [F for F in hull if not (region.nonneg and V.misses_orthant(F))]
        if not relevant:
            return None
        n_pairs = 0
        short: list[_Facet] = []
        holds_of: dict[frozenset, list[int]] = {}
        for F in relevant:
            holds = []
            for i in F.pts:
                V.tick()
                n_pairs += 1
                if V.pair_holds(F, i):
                    holds.append(i)
            holds_of[F.pset] = holds
            if len(holds) < len(F.pts):
                short.append(F)
        if short and not certificates:
            return None
        for F in short:
            if not V.facet_covered(F, holds_of[F.pset]):
                return None
    except _GiveUp:
        return None
    skipped = len(hull) - len(relevant)
    hull_text = (
        f"{len(hull)} facets of conv(φ_i/|φ_i|) verified complete with 0 inside"
        + (f" ({skipped} proved not to meet R^n_+)" if skipped else "")
    )
    head = "exact proof (rational arithmetic, the weights as stored)"
    tail = " (Thm PBE; every comparison strict, so it holds for a slightly larger α too)" if strict else " (Thm PBE)"
    if not short:
        rel = "<" if strict else "≤"
        return f"{head}: α {rel} polytope bias on {region.text} — {hull_text}, all {n_pairs} facet-vertex bounds hold{tail}"
    n_short = sum(len(F.pts) - len(holds_of[F.pset]) for F in short)
    return (
        f"{head}: α-rectifying on {region.text} — {hull_text}, {n_pairs - n_short} of {n_pairs} facet-vertex bounds hold; "
        f"on the {len(short)} facet(s) with a bound short of α, {V.n_certificates} exact dual certificate(s) show that no "
        f"point of the facet's cone leaves only a non-spanning set of rows active{tail}"
    )
