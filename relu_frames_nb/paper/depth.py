r"""Is the origin deep among points? An exact branch and bound for the half-space depth.

The Tukey (half-space) depth of the origin among points :math:`w_1, \dots, w_m` of
:math:`\mathbb{R}^n` is :math:`d = \min_{x \ne 0} \#\{i : \langle w_i, x\rangle \ge 0\}`. A zero-bias
ReLU layer with full-spark rows is injective on :math:`\mathbb{R}^n` iff :math:`d \ge n`
(:mod:`relu_frames_nb.paper.zero_bias`), and a biased layer on :math:`\mathbb{R}^n` is the same question for
the lifted rows :math:`(w_i, -\alpha_i)` in :math:`\mathbb{R}^{n+1}` with one more point,
:math:`-e_{n+1}`, that must stay strictly negative (directions with :math:`t > 0`).

:func:`halfspace_depth_at_least` decides :math:`d > k` -- equivalently: **no** set ``T`` of at most
``k`` points can be removed so that the others lie in an open half-space through 0 (then
:math:`\langle w_i, x\rangle < 0` for all :math:`i \notin T` at some ``x``, and only ``T`` can be
active there). By Gordan's theorem the others lie in an open half-space iff the origin is not in
their convex hull, so ``T`` must hit every *circuit*: every set ``C`` with :math:`0 \in
\operatorname{conv}(w_C)` (Carathéodory: ``n + 1`` points suffice). The search is the branch and bound
on such hitting sets of Bremner and Chen ("A branch and cut algorithm for the halfspace depth
problem", 2007/2009, IIS hitting-set cuts), specialised:

* a node fixes points removed (``T``) and points kept (never removed, e.g. the lifting point); an
  origin-capturing subset of the points left (found by one non-negative least squares problem) is a
  circuit, and ``T`` must grow by one of its free points: the node branches on them, each branch
  keeping the earlier ones (so no removal set is visited twice);
* the bound: circuits whose free parts are pairwise disjoint each need their own removal; a node
  whose removals plus this packing exceed ``k`` is closed, and so is a node with a circuit of kept
  points only;
* the origin outside the hull of the points left (no circuit) is a removal set: the depth is at
  most ``|T|``, and a direction ``x`` separating the rest is returned.

Every circuit used to close or branch is **verified** on the points as given (the search itself
works on unit vectors, which are rounded): the barycentric coordinates of 0 in the simplex of its
``n + 1`` points are enclosed rigorously in floating point (an approximate inverse and
Higham's rounding bounds for the residual, a Neumann-series bound for the error), and when that is
inconclusive they are computed exactly in rational arithmetic (:mod:`relu_frames_nb._util.rational`). The
enclosures are computed for hundreds of circuits at once (:func:`circuits_certified`) while the search
goes on; one that fails marks the search, so an answer "depth > k" is given only after every circuit it
used has passed, and is a proof. The search looks at its deadline between nodes.

**Why it grows exponentially.** For points in general position every circuit has exactly ``n + 1``
points, so the weights ``1/(n + 1)`` on every point hit every circuit fractionally: no bound built from
circuits alone -- the packing above, or the LP relaxation of the hitting-set problem -- exceeds
``m / (n + 1)``. Near the injectivity threshold of Gaussian layers (``m`` about ``7n``) that is below
7, while "deep" needs ``k + 1 = n``; every node must therefore remove about ``n - m/(n + 1)`` points
before it can close, and the tree grows like a binomial coefficient in ``n``. (A prototype of the
implicit hitting-set method -- an integer program over the infeasible sets found so far, as in Parker
and Ryan, "Finding the minimum weight IIS cover of an infeasible system of linear inequalities", 1996 --
met the same wall on biased layers on a box at n = 16: with 80 rows and a few hundred sets its integer
programs took seconds each, long before their bound reached ``n``.)

**Why not an exact depth algorithm.** The combinatorial algorithms of Dyckerhoff and Mozharovskyi ("Exact
computation of the halfspace depth", 2016) compute the depth itself by visiting the hyperplanes through
``n - 1`` of the points, :math:`\binom{m}{n-1}` of them: :math:`5 \cdot 10^{15}` for 98 points in
:math:`\mathbb{R}^{14}` (the refusal of :func:`relu_frames_nb.tukey_depth_origin` there). The
question here is only whether the depth exceeds ``k``, which the search over sets of points to remove settles
in a few tens of thousands of nodes at that size (30 000 to 70 000 for Gaussian layers at m = 7n).
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._util import kernels as _kernels
from .._util.kernels import capture_nnls, resolve_kernel
from .._util.lp import linprog_quiet, nnls_solve
from .._util.pairs import pow2_scale
from .._util.rational import barycentric
from .._util.tolerances import (
    CIRCUIT_RESIDUAL_TOL,
    DEPTH_MARGIN,
    DEPTH_MID_MARGIN,
    DEPTH_REFUTE_TOL,
    DEPTH_WIDE_MARGIN,
    DIVISOR_FLOOR,
    UNIT_ZERO_TOL,
)
from .._util.validation import as_count, as_matrix, as_nonnegative, as_time_limit
from ..errors import InputError

__all__ = [
    "DepthSearch",
    "halfspace_depth_at_least",
    "fewest_active_exceeds",
    "ball_certified",
    "circuit_certified",
    "circuits_certified",
    "small_circuit_certified",
    "compile_search",
]

_U = 2.0**-53
#: kept points weigh this much more in the circuit search (circuits with few free points bound better)
KEPT_WEIGHT = 20.0
#: circuits are proved in batches of this many (measured: 11 µs per circuit in a batch against 143 µs one by one)
CHECK_BATCH = 512


@dataclass(frozen=True)
class DepthSearch:
    r"""Outcome of :func:`halfspace_depth_at_least`.

    Attributes
    ----------
    status : str
        ``"deep"`` (proved: depth > ``k``), ``"shallow"`` (a removal set of at most ``k`` points
        lets the others into an open half-space) or ``"undetermined"`` (time limit, or a circuit
        that could not be verified).
    k : int
    removal : tuple of int or None
        The removal set when shallow.
    direction : ndarray or None
        When shallow: ``x`` with :math:`\langle w_i, x\rangle < 0` for every point not removed.
    nodes : int
        Nodes of the search.
    circuits : int
        Circuits verified.
    seconds : float
    point : ndarray or None
        :func:`fewest_active_exceeds` only: when shallow, a point of the ball (and of the facets and cuts),
        inside them by a margin, where every row not removed is strictly inactive.
    lower : int
        :func:`fewest_active_exceeds` only: a lower bound on the fewest active rows reached when undetermined
        (the disjoint sets of rows packed at the root, each of which holds an active row at every point).
    """

    status: str
    k: int
    removal: tuple | None
    direction: np.ndarray | None
    nodes: int
    circuits: int
    seconds: float
    point: np.ndarray | None = None
    lower: int = 0

    @property
    def deep(self) -> bool:
        """True when depth > k was proved."""
        return self.status == "deep"


def circuit_certified(V: np.ndarray) -> bool:
    """Whether 0 lies in the convex hull of the ``n + 1`` rows of ``V`` (shape ``(n + 1, n)``), proved.

    The barycentric coordinates ``lam`` solve ``M lam = e`` with ``M = [V^T; 1]``. With ``R`` an
    approximate inverse, ``|I - R M| <= alpha < 1`` (rounding of the product bounded by Higham's
    ``gamma``) gives ``||M^-1|| <= ||R|| / (1 - alpha)``, and the residual of ``lam = R e`` bounds the
    error of every coordinate; all positive beyond that bound proves the claim. When the bound is too
    wide to decide, the coordinates are computed exactly in rational arithmetic.
    """
    V = np.asarray(V, dtype=float)
    if V.ndim != 2 or V.shape[0] != V.shape[1] + 1:
        return False
    return bool(circuits_certified(V[None])[0])


def circuits_certified(Vs: np.ndarray) -> np.ndarray:
    """:func:`circuit_certified` for a stack of simplices ``Vs`` (shape ``(B, n + 1, n)``), at once.

    The same enclosure, computed for the whole stack by batched products (the rounding bound of a
    product does not depend on the order of its sums); the simplices it cannot decide go to the exact
    rational test one by one.
    """
    Vs = np.asarray(Vs, dtype=float)
    B, k, n = Vs.shape
    out = np.zeros(B, dtype=bool)
    if B == 0 or k != n + 1:
        return out
    M = np.empty((B, k, k))
    M[:, :n, :] = Vs.transpose(0, 2, 1)
    M[:, n, :] = 1.0
    try:
        R = np.linalg.inv(M)
    except np.linalg.LinAlgError:  # one singular simplex stops the batch: one at a time
        R = np.full((B, k, k), np.nan)
        for b in range(B):
            try:
                R[b] = np.linalg.inv(M[b])
            except np.linalg.LinAlgError:
                pass
    with np.errstate(invalid="ignore", over="ignore"):
        lam = R[:, :, -1]
        low = lam.min(axis=1)
        g = 1.05 * (k + 2) * _U / (1 - (k + 2) * _U)
        absR, absM = np.abs(R), np.abs(M)
        E = R @ M
        E[:, np.arange(k), np.arange(k)] -= 1.0
        alpha = (np.abs(E) + g * (absR @ absM)).sum(axis=2).max(axis=1) * (1 + 4 * k * _U)
        r = (M @ lam[:, :, None])[:, :, 0]
        r[:, -1] -= 1.0
        unit = (np.arange(k) == n).astype(float)
        rbound = (np.abs(r) + g * ((absM @ lam[:, :, None])[:, :, 0] + unit)).max(axis=1)
        err = absR.sum(axis=2).max(axis=1) * rbound * (1 + 8 * k * _U) / (1 - alpha)
        proved = (low > 0) & (alpha < 0.5) & (low > 2 * err)
        refuted = low <= -DEPTH_REFUTE_TOL  # clearly outside (NaN, a singular simplex, is neither)
    out[proved] = True
    for b in np.flatnonzero(~proved & ~refuted):
        out[b] = _exact(Vs[b])
    return out


def _exact(V: np.ndarray) -> bool:
    lam = barycentric(V, np.zeros(V.shape[1]))
    return lam is not None and all(v >= 0 for v in lam)


def small_circuit_certified(V: np.ndarray) -> bool:
    """Whether 0 is in the convex hull of ``s <= n`` points (rows of ``V``), exactly (rational arithmetic).

    Such a circuit (``e`` and ``-e``, say) puts 0 in the affine hull of its points, which only exact
    arithmetic can confirm: the system ``V^T lam = 0``, ``sum lam = 1`` is solved in fractions and every
    equation and sign is checked.
    """
    from fractions import Fraction

    V = np.asarray(V, dtype=float)
    s, n = V.shape
    rows = [[Fraction(float(V[j, i])) for j in range(s)] + [Fraction(0)] for i in range(n)]
    rows.append([Fraction(1)] * s + [Fraction(1)])
    r = 0
    pivots = []
    for c in range(s):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        piv = rows[r][c]
        rows[r] = [v / piv for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    if any(all(v == 0 for v in row[:s]) and row[s] != 0 for row in rows):
        return False  # inconsistent: 0 is not in the affine hull
    if len(pivots) < s:
        return False  # not a minimal circuit: leave it to the others
    lam = [Fraction(0)] * s
    for i, c in enumerate(pivots):
        lam[c] = rows[i][s]
    return all(v >= 0 for v in lam)


#: the least dimension for which ``kernel="auto"`` compiles the search's least squares (numba): from here on a
#: search can take seconds (n = 12: 2.4-2.6x less CPU measured), below it the compilation would dominate
COMPILED_MIN_DIM = 9


class _Search:
    """The branch and bound; points ``0..m-1`` are the rows, ``m..2m-1`` their negatives (for removed rows)."""

    def __init__(
        self, P: np.ndarray, P0: np.ndarray, k: int, kept: int, deadline: float, tick: Any = None, kernel: str = "scipy"
    ) -> None:
        self.tick = tick
        self.kernel = kernel  # the NNLS of capture: "numba" or "numpy" (gram_nnls), or "scipy" (SciPy's NNLS)
        self.gram: np.ndarray | None = None  # U^T U of the unit points, for gram_nnls (made on first use)
        self.m, self.n = P.shape
        self.P0 = np.vstack([P0, -P0])  # the caller's rows (and their exact negatives): circuits are verified on them
        self.k = k
        self.kept0 = kept
        self.deadline = deadline
        self.nodes = 0
        self.verified: dict[int, bool] = {}
        self.failed = False
        self.full = (1 << self.m) - 1
        self.nbytes = (2 * self.m + 7) // 8
        self.count = np.zeros(2 * self.m)  # how many verified circuits each point is in: branch on the busiest first
        self.bits = 1 << np.arange(2 * self.m, dtype=object)
        self.lazy = 0  # points added during the search (never removed, never branched on)
        self.unchecked: list[np.ndarray] = []  # circuits taken but not yet proved (see flush)
        self.root_bound = 0
        unit = np.vstack([P, -P])
        self.M = np.vstack([unit.T, np.ones((1, 2 * self.m))])
        self.b = np.zeros(self.n + 1)
        self.b[-1] = 1.0

    def _mask(self, bits: int) -> np.ndarray:
        raw = np.frombuffer(bits.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        return np.unpackbits(raw, count=2 * self.m, bitorder="little").view(bool)

    def _indices(self, bits: int) -> np.ndarray:
        """``np.flatnonzero(self._mask(bits))`` in fewer calls (the searches ask it for every pool)."""
        raw = np.frombuffer(bits.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        return np.unpackbits(raw, count=2 * self.m, bitorder="little").nonzero()[0]

    def _bitmask(self, support: np.ndarray) -> int:
        """The bit mask of the points ``support`` (``int(sum(self.bits[support]))`` in fewer steps)."""
        on = np.zeros(8 * self.nbytes, dtype=bool)
        on[support] = True
        return int.from_bytes(np.packbits(on, bitorder="little").tobytes(), "little")

    def capture(self, pool: int, fixed: int) -> int | None:
        """A verified circuit among the points of ``pool`` (a bit mask), ``fixed`` ones preferred; None if none."""
        if self.kernel == "scipy":
            idx = self._indices(pool)
            if idx.size < 2:
                return None
            w = np.where(self._mask(fixed)[idx], KEPT_WEIGHT, 1.0) if fixed else np.ones(idx.size)
            M = self.M[:, idx] * w  # the points of idx, fixed ones scaled up (the last row is reset to ones)
            M[-1] = 1.0
            try:
                lam, res = nnls_solve(M, self.b, 50 * idx.size)
            except RuntimeError:  # pragma: no cover - iteration limit: treat as no circuit found
                return None
        else:
            if self.gram is None:
                U = np.ascontiguousarray(self.M[:-1])
                self.gram = U.T @ U
            got = capture_nnls(pool.to_bytes(self.nbytes, "little"), fixed.to_bytes(self.nbytes, "little"), 2 * self.m,
                               KEPT_WEIGHT, self.gram, self.M[:-1], kernel=self.kernel)  # fmt: skip
            if got is None:  # fewer than two points, the iteration limit or a singular system: no circuit found
                return None
            idx, lam, res = got
        if res > CIRCUIT_RESIDUAL_TOL:
            return None
        support = idx[lam > UNIT_ZERO_TOL]
        mask = self._bitmask(support)
        ok = self.verified.get(mask)
        if ok is None:
            if support.size == self.n + 1:
                # taken now, proved in batches (flush): one that fails marks the search, which then
                # proves nothing -- the answer "deep" is only given after every circuit passed
                ok = True
                self.unchecked.append(support)
                if len(self.unchecked) >= CHECK_BATCH:
                    self.flush()
            else:
                ok = support.size <= self.n and small_circuit_certified(self.P0[support])
            self.verified[mask] = ok
            if ok:
                self.count[support] += 1
        if not ok:
            self.failed = True  # a circuit we cannot prove: the search cannot close on it
            return None
        return mask

    def flush(self) -> None:
        """Prove the circuits taken since the last flush (:func:`circuits_certified`); a failure marks the search."""
        if not self.unchecked:
            return
        supports = np.array(self.unchecked)
        self.unchecked = []
        ok = circuits_certified(self.P0[supports])
        for support in supports[~ok]:
            self.verified[int(sum(self.bits[support]))] = False
            self.failed = True

    def accept(self, removed: int) -> bool | None:
        """Whether the removal set found at a node is confirmed (the direction is computed by the caller);
        None when a constraint was added instead (the node asks again).
        """
        return True

    def signed(self, removed: int, kept: int, rest: int) -> int | None:
        r"""A verified circuit of rows in ``rest`` (at least one) and negatives of removed rows.

        At a direction ``x`` that the search may still reach, removed rows have
        :math:`\langle w_i, x\rangle \ge 0` (a smallest removal set is a closed half-space's worth of
        rows), so such a circuit forces one of its rows in ``rest`` to be removed as well.
        """
        neg = removed << self.m
        C = self.capture(rest | neg, (kept & rest) | neg)
        if C is not None and C & self.full == 0:  # negatives only: no constraint on the rows; ask without them
            C = self.capture(rest, kept & rest)
        return C

    def run(self, removed: int, kept: int) -> int | None:
        self.nodes += 1
        if self.tick is not None and self.nodes % 64 == 0:
            self.tick(self.nodes)
        if time.perf_counter() > self.deadline:  # every node: a node of a wide layer can take 10 ms
            raise TimeoutError
        t = bin(removed).count("1")
        first = self.signed(removed, kept, self.full & ~removed)
        while first is None:
            if self.failed:
                return None
            got = self.accept(removed)
            if got is True:
                return removed  # nothing captures the origin: a removal set
            if got is False:
                self.failed = True  # a removal set whose point cannot be confirmed: look on, but prove nothing
                return None
            first = self.signed(removed, kept, self.full & ~removed)  # a constraint was added: ask again
        free = self.full & ~removed & ~kept & ~self.lazy
        if t >= self.k:
            return None
        # disjoint free parts: each needs its own removal
        used, g, C, best = 0, 0, first, first & free
        while C is not None:
            f = C & free
            if f == 0:
                return None  # a circuit of kept rows and negated removed rows: no removal breaks it
            if bin(f).count("1") < bin(best).count("1"):
                best = f
            g += 1
            if t + g > self.k:
                return None
            used |= f
            C = self.signed(removed, kept, (free & ~used) | kept)
        if self.nodes == 1:
            self.root_bound = g  # disjoint circuits at the root: each holds a point that must be removed
        # branch on the smallest free part met (fewest children), the point in the most circuits
        # first: the later branches keep it, which closes them sooner
        f = best
        order = sorted((i for i in range(self.m) if f >> i & 1), key=lambda i: -self.count[i])
        kk = kept
        for i in order:
            T = self.run(removed | (1 << i), kk)
            if T is not None:
                return T
            kk |= 1 << i
        return None


#: nodes of the compiled search between two returns to Python (the clock, the tick every 64 nodes, the proofs)
COMPILED_SLICE = 16
#: warm starts of the compiled search's NNLS (Lawson and Hanson from a passive set instead of the empty one): bit 1
#: starts a node's first circuit from its parent's first, bit 2 its j-th circuit of the packing from its parent's
#: j-th. Off: a warm start finds another of the many solutions (the origin captured by other points), whose
#: circuits bound worse -- measured at n = 9, 10, 12 (m = 7n): half the CPU per node, but 1.1-1.9x the nodes
#: with bit 2 (about as much CPU in all), 1.6-10x with bit 1
COMPILED_WARM_START = 0


class _CompiledSearch:
    """The branch and bound of :class:`_Search` run whole in compiled code (``kernels_numba.search_slice``).

    The compiled search is an oracle, not a proof: it returns a removal set or "closed", and every circuit it
    used (each once). Here every one of them is proved as in :class:`_Search` (:func:`circuits_certified` for
    ``n + 1`` points, :func:`small_circuit_certified` for fewer), in batches between slices; "closed" becomes
    "deep" only when all passed. A failed proof, or a support that is no circuit, makes :attr:`failed` true: the
    caller then searches again in Python. The search runs in slices of :data:`COMPILED_SLICE` nodes, between
    which the deadline is checked and ``tick`` is called every 64 nodes.
    """

    def __init__(
        self, P: np.ndarray, P0: np.ndarray, k: int, kept: int, deadline: float, tick: Any = None, removed: int = 0,
        count: np.ndarray | None = None,
    ) -> None:
        # removed, count: a search of the subtree below the node (removed, kept), its branching order started from
        # the circuit counts ``count`` (for :class:`_ParallelSearch`; the whole tree by default)
        self.nb = _kernels._nb()
        m, n = P.shape
        self.m, self.n, self.deadline, self.tick = m, n, deadline, tick
        self.P0 = np.vstack([P0, -P0])
        self.k = min(int(k), m + 1)  # a node never removes more than m rows
        unit = np.vstack([P, -P])
        self.U = np.ascontiguousarray(unit.T)
        self.Gp = self.U.T @ self.U
        levels = min(self.k, m) + 2
        self.rem = np.zeros((levels, m), dtype=np.uint8)
        self.kep = np.zeros((levels, m), dtype=np.uint8)
        self.kep[0] = [(kept >> i) & 1 for i in range(m)]
        self.rem[0] = [(removed >> i) & 1 for i in range(m)]
        self.kk = np.zeros((levels, m), dtype=np.uint8)
        self.order = np.zeros((levels, m), dtype=np.int64)
        self.olen = np.zeros(levels, dtype=np.int64)
        self.opos = np.zeros(levels, dtype=np.int64)
        self.seq = np.full((levels, levels + 2), -1, dtype=np.int64)  # the circuits of each node, in order
        self.warm = COMPILED_WARM_START
        self.st = np.array([0, 1, 0, 0, 0], dtype=np.int64)  # depth, node to look at, nodes, failed, circuits
        self.count = np.zeros(2 * m) if count is None else np.array(count, dtype=float)
        self.per_slice = COMPILED_SLICE * 2 * (levels + 1)  # the most circuits a slice can add
        self.cwords = np.zeros((0, (2 * m + 63) // 64), dtype=np.uint64)
        self.csupp = np.zeros((0, n + 1), dtype=np.int64)
        self.csize = np.zeros(0, dtype=np.int64)
        self.cok = np.zeros(0, dtype=np.uint8)
        self.table = np.full(1, -1, dtype=np.int64)
        self.proved = 0
        self.failed = False
        self.shared: set | None = None  # the circuits proved (as bytes of their bit masks) by any search that shares it

    @property
    def nodes(self) -> int:
        return int(self.st[2])

    @property
    def circuits(self) -> int:
        return int(self.st[4])

    def _room(self) -> None:
        """Room for the circuits of one more slice in the store and its hash table (at most half full)."""
        ncirc = self.circuits
        need = ncirc + self.per_slice
        if need > self.csize.size:
            cap = max(2 * self.csize.size, need, 1024)
            grow = cap - self.csize.size
            self.cwords = np.vstack([self.cwords, np.zeros((grow, self.cwords.shape[1]), dtype=np.uint64)])
            self.csupp = np.vstack([self.csupp, np.zeros((grow, self.csupp.shape[1]), dtype=np.int64)])
            self.csize = np.concatenate([self.csize, np.zeros(grow, dtype=np.int64)])
            self.cok = np.concatenate([self.cok, np.zeros(grow, dtype=np.uint8)])
        if 2 * need > self.table.size:
            self.table = np.full(1 << int(4 * need).bit_length(), -1, dtype=np.int64)
            self.nb.rehash_circuits(self.cwords, ncirc, self.table)

    def _prove(self) -> None:
        """Prove the circuits stored since the last call; one that fails (or no circuit) marks the search."""
        lo, hi = self.proved, self.circuits
        self.proved = hi
        if hi == lo or self.failed:
            return
        if not np.all(self.cok[lo:hi]):
            self.failed = True
            return
        todo, keys = np.arange(lo, hi), None
        if self.shared is not None:  # circuits another subtree proved already are not proved again
            raw, width = self.cwords[lo:hi].tobytes(), 8 * self.cwords.shape[1]
            keys = [raw[j : j + width] for j in range(0, len(raw), width)]
            todo = lo + np.flatnonzero([key not in self.shared for key in keys])
        big = todo[self.csize[todo] == self.n + 1]
        for start in range(0, big.size, CHECK_BATCH):
            if not np.all(circuits_certified(self.P0[self.csupp[big[start : start + CHECK_BATCH]]])):
                self.failed = True
                return
        for c in todo[self.csize[todo] != self.n + 1]:
            if not small_circuit_certified(self.P0[self.csupp[c, : self.csize[c]]]):
                self.failed = True
                return
        if keys is not None:
            self.shared.update(keys)  # every one passed

    def _slice(self, limit: int) -> int:
        """Run the compiled search until it has looked at ``limit`` nodes in all, finds or closes; its code."""
        self._room()
        code = self.nb.search_slice(self.rem, self.kep, self.kk, self.order, self.olen, self.opos, self.seq, self.st,
                                    self.k, limit, KEPT_WEIGHT, self.Gp, self.U, _kernels.GRAM_NNLS_ULPS, UNIT_ZERO_TOL,
                                    CIRCUIT_RESIDUAL_TOL, self.count, self.cok, self.cwords, self.csupp, self.csize,
                                    self.table, self.warm)  # fmt: skip
        if self.st[3]:
            self.failed = True
        return code

    def expand(self) -> tuple:
        """Look at the start node only: ``("found", rows)``, ``("closed", None)`` or ``("children", list)`` with
        the children ``(removed, kept)`` as bit masks in the search's branching order (each keeps the earlier
        ones' rows). Its circuits are proved (see :attr:`failed`).
        """
        code = self._slice(1)
        self._prove()
        if code == self.nb.SEARCH_FOUND:
            return "found", tuple(int(i) for i in np.flatnonzero(self.rem[int(self.st[0])]))
        if code == self.nb.SEARCH_CLOSED:
            return "closed", None
        removed = int(sum(1 << int(i) for i in np.flatnonzero(self.rem[0])))
        kept = int(sum(1 << int(i) for i in np.flatnonzero(self.kep[0])))
        children = []
        for j in range(int(self.olen[0])):
            i = int(self.order[0, j])
            children.append((removed | 1 << i, kept))
            kept |= 1 << i
        return "children", children

    def run(self, stop: threading.Event | None = None) -> tuple | None:
        """The removal set found (rows), or None when closed (then :attr:`failed` says whether it is proved).

        Raises TimeoutError at the deadline (and whatever ``tick`` raises); :class:`_Stopped` at the first slice
        after ``stop`` is set.
        """
        nb = self.nb
        while True:
            if time.perf_counter() > self.deadline:
                raise TimeoutError
            if stop is not None and stop.is_set():
                raise _Stopped
            before = self.nodes
            code = self._slice(before + COMPILED_SLICE)
            if code == nb.SEARCH_FOUND:
                d = int(self.st[0])
                return tuple(int(i) for i in np.flatnonzero(self.rem[d]))
            if code == nb.SEARCH_CLOSED:
                self._prove()
                return None
            if self.circuits - self.proved >= CHECK_BATCH:
                self._prove()
                if self.failed:
                    return None
            if self.tick is not None and self.nodes // 64 > before // 64:
                self.tick(self.nodes)


class _Stopped(Exception):
    """A subtree search of :class:`_ParallelSearch` told to stop (another subtree decided, or the budget ran out)."""


#: tasks per worker thread that :class:`_ParallelSearch` makes by expanding the first levels of the tree (the
#: subtrees differ much in size: more tasks than threads keep every thread busy until the last one)
PARALLEL_TASKS_PER_WORKER = 4
#: the most levels :class:`_ParallelSearch` expands to make its tasks
PARALLEL_LEVELS = 2
#: seconds the calling thread of :class:`_ParallelSearch` waits for its workers between two looks at the node count
#: (the tick and the deadline)
PARALLEL_POLL = 0.005


class _ParallelSearch:
    """The compiled search (:class:`_CompiledSearch`) of the subtrees of the first levels in ``workers`` threads.

    The root is looked at (and then its children, up to :data:`PARALLEL_LEVELS` levels, until there are
    :data:`PARALLEL_TASKS_PER_WORKER` tasks per worker), here, in the calling thread; the nodes left, in the
    search's branching order ("remove ``i_j``, keep ``i_1 .. i_{j-1}``"), are the tasks, each searched whole
    by a :class:`_CompiledSearch` started at it, whose compiled slices release the GIL. The tree is closed
    when every task is; the first removal set found in any task ends the search (the others stop at their
    next slice). One deadline for all; ``tick`` is called from the calling thread only, with the nodes of all
    tasks summed, about every 64 of them (what it raises stops every worker, then propagates). Every circuit
    of every task is proved in its task (as in :class:`_CompiledSearch`); a failed proof stops the search and
    sets :attr:`failed` (the caller searches again in Python). Same interface as :class:`_CompiledSearch`.
    """

    def __init__(self, P, P0, k, kept, deadline, tick, workers: int) -> None:
        self.P, self.P0, self.k, self.kept, self.deadline, self.tick = P, P0, k, kept, deadline, tick
        self.workers = workers
        self.failed = False
        self.done_nodes = 0  # nodes and circuits of the expansions and of the tasks finished
        self.done_circuits = 0
        self.running: dict[int, _CompiledSearch] = {}
        self.proved: set = set()  # the circuits proved by any task (see _CompiledSearch._prove)
        self.lock = threading.Lock()
        self.ticked = 0

    @property
    def nodes(self) -> int:
        with self.lock:
            return self.done_nodes + sum(s.nodes for s in self.running.values())

    @property
    def circuits(self) -> int:
        with self.lock:
            return self.done_circuits + sum(s.circuits for s in self.running.values())

    def _tick(self) -> None:
        if self.tick is not None:
            total = self.nodes
            if total // 64 > self.ticked // 64:
                self.ticked = total
                self.tick(total)

    def _tasks(self) -> tuple:
        """Expand the first levels here: ``("found", rows)``, ``("closed", None)`` or ``("tasks", (tasks, count))``."""
        tasks, count = [(0, self.kept)], None
        for _ in range(PARALLEL_LEVELS):
            if len(tasks) >= PARALLEL_TASKS_PER_WORKER * self.workers:
                break
            deeper = []
            for removed, kept in tasks:
                if time.perf_counter() > self.deadline:
                    raise TimeoutError
                node = _CompiledSearch(self.P, self.P0, self.k, kept, self.deadline, None, removed, count)
                node.shared = self.proved
                what, got = node.expand()
                self.done_nodes += node.nodes
                self.done_circuits += node.circuits
                self._tick()
                if node.failed:
                    self.failed = True
                    return "closed", None
                if what == "found":
                    return what, got
                if what == "children":
                    deeper.extend(got)
                    count = node.count
            tasks = deeper
            if not tasks:
                return "closed", None
        return "tasks", (tasks, count)

    def _work(self, j: int, removed: int, kept: int, count, stop: threading.Event) -> tuple:
        if stop.is_set():
            return "stopped", None
        search = _CompiledSearch(self.P, self.P0, self.k, kept, self.deadline, None, removed, count)
        search.shared = self.proved
        with self.lock:
            self.running[j] = search
        try:
            found = search.run(stop)
            what = "found" if found is not None else "failed" if search.failed else "closed"
        except _Stopped:
            found, what = None, "stopped"
        except TimeoutError:
            found, what = None, "timeout"
        finally:
            with self.lock:
                del self.running[j]
                self.done_nodes += search.nodes
                self.done_circuits += search.circuits
        if what in ("found", "failed"):
            stop.set()
        return what, found

    def run(self) -> tuple | None:
        """As :meth:`_CompiledSearch.run`: the removal set found, or None (closed; proved unless :attr:`failed`)."""
        what, got = self._tasks()
        if what != "tasks":
            return got
        tasks, count = got
        stop = threading.Event()
        found, timeout = None, False
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="depth-subtree")
        try:
            pending = {pool.submit(self._work, j, removed, kept, count, stop) for j, (removed, kept) in enumerate(tasks)}
            while pending:
                done, pending = wait(pending, timeout=PARALLEL_POLL, return_when=FIRST_COMPLETED)
                for future in done:
                    what, rows = future.result()
                    if what == "found" and found is None:
                        found = rows
                    elif what == "failed":
                        self.failed = True
                    elif what == "timeout":
                        timeout = True
                if found is not None or self.failed or timeout:
                    break
                if time.perf_counter() > self.deadline:
                    timeout = True
                    break
                self._tick()
        finally:
            stop.set()  # every task still running stops at its next slice; those not started return at once
            pool.shutdown(wait=True, cancel_futures=True)
        if found is not None:
            return found
        if timeout and not self.failed:
            raise TimeoutError
        return None


def halfspace_depth_at_least(
    points: Any, k: int, *, kept: Any = None, time_limit: float | None = None, tick: Any = None, kernel: str = "auto",
    workers: int = 1,
) -> DepthSearch:
    r"""Decide whether the half-space depth of the origin among ``points`` exceeds ``k`` (see the module docstring).

    Parameters
    ----------
    points : array_like, shape (m, n)
        The points :math:`w_i` (rows); for a layer, its rows (only directions matter).
    k : int
        The depth must exceed ``k`` (for a full-spark layer, ``k = n - 1``).
    kept : sequence of int, optional
        Points that may never be removed (they must be strictly negative at the direction sought).
    time_limit : float, optional
        Seconds; when they run out the status is ``"undetermined"``.
    tick : callable, optional
        Called with the number of nodes every 64 nodes (progress, or a budget that may stop the search
        by raising).
    kernel : {"auto", "numba", "numpy", "scipy"}
        ``"numba"`` runs the whole search compiled (what ``"auto"`` picks when numba is installed,
        ``RELU_FRAMES_NO_NUMBA`` is not set and the dimension is at least :data:`COMPILED_MIN_DIM`): an oracle
        whose every circuit is proved here afterwards, as in the Python search (one that fails its proof sends
        the question to the Python search for the time left). ``"numpy"`` and ``"scipy"`` run the search in
        Python with the same least-squares algorithm in numpy (a reference, about ten times slower than SciPy)
        or with SciPy's NNLS (what ``"auto"`` picks without numba). Every verdict is proved the same way
        whichever runs; the search's path, and so its node count, can differ where a least-squares problem has
        several solutions.
    workers : int
        Threads for the compiled search (``kernel="numba"``, or ``"auto"`` where it picks it): with more than one,
        the subtrees of the first levels of the tree are searched in parallel (:class:`_ParallelSearch`), under
        the one ``time_limit`` and ``tick`` (called from the calling thread, with the nodes of all threads
        summed); the verdict is proved the same way, the node count differs. The Python searches
        (``"numpy"``, ``"scipy"``, and the search after a failed proof) run in the calling thread alone:
        there ``workers`` is ignored. The default 1 runs the one compiled search.

    Returns
    -------
    DepthSearch

    Examples
    --------
    >>> import numpy as np
    >>> square = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=float)
    >>> halfspace_depth_at_least(square, 1).status  # every closed half-plane holds 2 of the 4 points
    'deep'
    >>> halfspace_depth_at_least(square, 2).status
    'shallow'
    """
    t0 = time.perf_counter()
    if kernel not in ("auto", "numba", "numpy", "scipy"):
        raise InputError(f"kernel must be 'auto', 'numba', 'numpy' or 'scipy'; got {kernel!r}.")
    if kernel != "auto":
        kernel = resolve_kernel(kernel)
    workers = as_count(workers, "workers", minimum=1)
    P, P0, k, kept_mask, deadline = _prepare(points, k, kept, time_limit, t0)
    m, n = P0.shape
    if kernel == "auto":
        # without numba, "auto" keeps SciPy's NNLS (the same algorithm interpreted, "numpy", is about ten times
        # slower); below COMPILED_MIN_DIM too, where a search takes well under a second and the first call's
        # compilation (1.5-5 s) would cost more than it saves, inside the caller's time limit
        kernel = "numba" if _kernels.HAVE_NUMBA and n >= COMPILED_MIN_DIM else "scipy"
    spent = 0  # nodes of a compiled search whose proofs failed (the Python search below then starts over)
    if kernel == "numba":
        if workers == 1:
            oracle: Any = _CompiledSearch(P, P0, k, kept_mask, deadline, tick)
        else:
            oracle = _ParallelSearch(P, P0, k, kept_mask, deadline, tick, workers)
        try:
            found = oracle.run()
        except TimeoutError:
            return DepthSearch("undetermined", k, None, None, oracle.nodes, oracle.circuits, time.perf_counter() - t0)
        if found is not None:
            x = _separating_direction(P0, found)
            status = "shallow" if x is not None else "undetermined"
            return DepthSearch(status, k, found if x is not None else None, x, oracle.nodes, oracle.circuits,
                               time.perf_counter() - t0)  # fmt: skip
        if not oracle.failed:  # closed, and every circuit it used is proved
            return DepthSearch("deep", k, None, None, oracle.nodes, oracle.circuits, time.perf_counter() - t0)
        spent = oracle.nodes  # a circuit failed its proof: the Python search decides, in the time left
    search = _Search(P, P0, k, kept_mask, deadline, tick, kernel)
    search.nodes = spent
    try:
        T = search.run(0, kept_mask)
    except TimeoutError:
        search.flush()
        return DepthSearch("undetermined", k, None, None, search.nodes, len(search.verified), time.perf_counter() - t0)
    search.flush()  # every circuit taken is proved before "deep" is said
    if T is None:
        status = "undetermined" if search.failed else "deep"
        return DepthSearch(status, k, None, None, search.nodes, len(search.verified), time.perf_counter() - t0)
    removal = tuple(i for i in range(m) if T >> i & 1)
    x = _separating_direction(P0, removal)
    status = "shallow" if x is not None else "undetermined"
    return DepthSearch(status, k, removal if x is not None else None, x, search.nodes, len(search.verified),
                       time.perf_counter() - t0)  # fmt: skip


def compile_search() -> bool:
    """Compile the numba search now, outside any check's time limit; ``False`` when numba is not installed.

    numba compiles a function at its first call and keeps it on disk (next to the module, or in
    ``NUMBA_CACHE_DIR``): the first compiled search on a machine costs about 20 s of compilation (this function, which
    also compiles the Python search's least squares: 24 s with an empty cache on this project's two-core machine),
    every later one, in any process, a second or two to load it. ``kernel="auto"``
    picks the compiled search from :data:`COMPILED_MIN_DIM` on, so the first such check would spend that time inside
    its own time limit; the kit's set-up (``scripts/_setup.sh``) calls this once after installing numba.
    Idempotent: a second call only loads.
    """
    if not _kernels.HAVE_NUMBA:
        return False
    # a small layer of dimension COMPILED_MIN_DIM with both answers: the search closes a deep one and finds a
    # removal set for a shallow one, so every path of the compiled search (and its circuit proofs) runs once
    rng = np.random.default_rng(0)
    n = COMPILED_MIN_DIM
    P = rng.standard_normal((3 * n, n))
    for k in (1, n):
        halfspace_depth_at_least(P, k, kernel="numba")
        halfspace_depth_at_least(P, k, kernel="numba", workers=2)
        # and the Python search with the compiled least squares (where a circuit fails its proof)
        P_, P0, k_, kept, deadline = _prepare(P, k, None, None, time.perf_counter())
        _Search(P_, P0, k_, kept, deadline, None, "numba").run(0, kept)
    return True


def _prepare(points: Any, k: Any, kept: Any, time_limit: Any, t0: float):
    """Validated points, scaled by powers of two (``P0``) and to unit rows (``P``); ``k``, the kept mask, the deadline."""
    P0 = as_matrix(points, "points")
    k = as_count(k, "k", minimum=0)
    m, n = P0.shape
    if np.any(np.all(P0 == 0, axis=1)):
        raise InputError("points must be non-zero (a zero point is in every closed half-space); got a zero row.")
    # circuits and directions only see each row's direction: scale every row by a power of two (exact,
    # unless an entry would underflow; such rows stay as given) so that the checks meet numbers near 1
    s = pow2_scale(P0, axis=1)
    P2 = P0 * s[:, None]
    keep = np.all(P2 / s[:, None] == P0, axis=1)
    P0 = np.where(keep[:, None], P2, P0)
    P = P2 / np.linalg.norm(P2, axis=1)[:, None]  # the search's unit rows
    kept_mask = 0
    for i in [] if kept is None else list(kept):
        if not 0 <= int(i) < m:
            raise InputError(f"kept must hold indices of points (0 to {m - 1}); got {i}.")
        kept_mask |= 1 << int(i)
    seconds = as_time_limit(time_limit)
    deadline = math.inf if seconds is None else t0 + seconds
    return P, P0, k, kept_mask, deadline


def _separating_direction(P: np.ndarray, removal: tuple) -> np.ndarray | None:
    """``x`` with ``<w_i, x> <= -1`` for every point not removed (one LP), checked with the rounding of the
    products bounded (Higham's ``gamma_n``); None if not found.
    """
    m, n = P.shape
    rest = np.setdiff1d(np.arange(m), np.asarray(removal, dtype=int))
    if rest.size == 0:
        return np.eye(n)[0]
    res = linprog_quiet(np.zeros(n), A_ub=P[rest], b_ub=-np.ones(rest.size), bounds=[(None, None)] * n)
    if res.status != 0:
        return None
    x = np.asarray(res.x)
    # rounding of each product is below gamma_n * sum |w_ij x_j|: every value must be negative beyond it
    slack = 1.01 * (n + 1) * _U * (np.abs(P[rest]) @ np.abs(x))
    return x if np.all(P[rest] @ x < -slack) else None


# ---------------------------------------------------------------------------------
# the same search on a bounded domain: points of a ball (and of a polytope inside it)
# ---------------------------------------------------------------------------------


def ball_certified(G: np.ndarray, gam: np.ndarray, u: np.ndarray, center: np.ndarray, radius: float) -> bool:
    r"""Whether ``u`` proves that no ``x`` with :math:`|x - c| \le r` has all :math:`\langle g_i, x\rangle + \gamma_i \le 0`.

    Any ``u >= 0`` with :math:`S = \sum_i u_i (\langle g_i, c\rangle + \gamma_i) > r\,|\sum_i u_i g_i|`
    proves it: at such an ``x``, :math:`\sum_i u_i(\langle g_i, x\rangle + \gamma_i) \le 0`, while it is
    at least :math:`S - r|\sum_i u_i g_i| > 0` by Cauchy--Schwarz. The sums are bounded in floating
    point with Higham's :math:`\gamma_k` for every product and sum (doubled), so ``True`` is a proof for
    the numbers as given.
    """
    G = np.asarray(G, dtype=float)
    s, d = G.shape
    u = np.asarray(u, dtype=float)
    if s == 0 or np.any(u < 0) or not np.all(np.isfinite(u)):
        return False

    def gamma(j: int) -> float:
        return 2.0 * j * _U / (1 - j * _U)

    q = G @ center + gam
    eq = gamma(d + 1) * (np.abs(G) @ np.abs(center) + np.abs(gam))
    S = float(u @ q)
    eS = float(u @ eq) * (1 + gamma(s + 1)) + gamma(s + 1) * float(u @ np.abs(q))
    y = u @ G
    ey = gamma(s + 1) * (u @ np.abs(G))
    ynorm = float(np.sqrt(np.sum((np.abs(y) + ey) ** 2))) * (1 + gamma(d + 2))
    low = (S - eS) * (1 - 4 * _U)
    return bool(low > 0 and low > float(radius) * ynorm * (1 + 8 * _U))


class _DomainSearch(_Search):
    r"""The branch and bound of :class:`_Search` on points of a bounded domain instead of directions.

    The search works in the ball's own coordinates :math:`x = c + r\xi`, :math:`|\xi| \le 1`, so that
    its tolerances do not depend on the scale. Point ``i`` is a lifted row :math:`(g_i, \gamma_i)`,
    negative at :math:`\xi` when :math:`\langle g_i, \xi\rangle + \gamma_i < 0`. A set of them that
    cannot all be negative in the ball plays the part of a circuit. Which one it is comes from one
    least-distance problem (Lawson and Hanson, *Solving Least Squares Problems*, ch. 23): the point
    nearest to the centre where all of them are :math:`\le 0` is found by one non-negative least squares
    problem, whose solution ``u`` is also the multiplier that proves the distance; the distance is at
    least the radius exactly when that proof exists. Every proof is verified by :func:`ball_certified`
    on the caller's rows, centre and radius, with the same multipliers. Removed rows enter negated (they
    are active at a point the search may still reach), and a certificate of negated rows and kept
    points only closes the node.
    """

    def __init__(self, P, k, kept, deadline, tick, L0, factor, center, radius, margin, separate=None, slots=0):
        super().__init__(P, P, k, kept, deadline, tick)
        d = self.n - 1
        self.slots = slots  # the last rows are places for cuts (outside the search until one is added)
        self.full = (1 << (self.m - slots)) - 1
        self.separate = separate
        self.cuts = 0
        self.pending: tuple = ()
        unit = np.vstack([P, -P])
        self.E = np.vstack([-unit[:, :d].T, unit[:, d][None, :]])  # least distance from 0 in xi
        self.f = np.zeros(d + 1)
        self.f[-1] = 1.0
        self.L0 = np.vstack([L0, -L0])  # the caller's lifted rows (scaled by powers of two), for the proofs
        self.factor = np.concatenate([factor, factor])  # multiplier of a caller's row per unit row
        self.c, self.r, self.d, self.margin = center, float(radius), d, margin
        self.point: np.ndarray | None = None

    def _nearest(self, idx: np.ndarray, shift: float = 0.0):
        """NNLS of the least-distance problem on the points ``idx`` (values ``<= -shift``): ``(u, rho)``."""
        E = self.E[:, idx]
        if shift:
            E = E.copy()
            E[-1] += shift
        try:
            u, _ = nnls_solve(E, self.f, 50 * max(idx.size, 1))
        except RuntimeError:  # pragma: no cover - iteration limit
            return None, None
        return u, E @ u - self.f

    def capture(self, pool: int, fixed: int, verify: bool = True) -> int | None:
        if time.perf_counter() > self.deadline:  # a node of a wide layer holds many least-distance problems
            raise TimeoutError
        idx = self._indices(pool)
        if idx.size == 0:
            return None
        u, rho = self._nearest(idx)
        if u is None:
            return None
        nr2 = float(rho @ rho)
        # the nearest point is -rho[:d] / rho[d] with rho[d] = -|rho|^2: at distance |rho[:d]| / |rho|^2 =
        # sqrt(1 - |rho|^2) / |rho|, within the ball iff |rho|^2 >= 1/2 (a residual near 0: no point at all)
        if nr2 > 0.5 and math.sqrt(float(rho[:-1] @ rho[:-1])) < nr2:
            return None  # they are all <= 0 somewhere in the ball
        on = u > 0
        support = idx[on]
        if support.size == 0:  # pragma: no cover - u = 0 leaves rho = -f, inside
            return None
        mask = int(sum(self.bits[support]))
        self.pending = (mask, support, u[on])
        if not verify:
            return mask
        return mask if self.prove(mask, support, u[on]) else None

    def prove(self, mask: int, support: np.ndarray, u: np.ndarray) -> bool:
        """Verify the certificate ``u`` of the points ``support`` (cached by ``mask``); a failure marks the search."""
        ok = self.verified.get(mask)
        if ok is None:
            L = self.L0[support]
            ok = ball_certified(L[:, : self.d], L[:, self.d], u * self.factor[support], self.c, self.r)
            self.verified[mask] = ok
            if ok:
                self.count[support] += 1
        if not ok:
            self.failed = True
        return ok

    def shrink(self, C: int | None, allowed: int) -> int | None:
        """``C`` made irreducible in its free points by a deletion filter (as for irreducible infeasible
        subsystems, Chinneck, *Feasibility and Infeasibility in Optimization*, 2008): free points are
        dropped when the others, with the ``allowed`` points (kept, negated removed, cuts), still cannot
        all be inactive in the ball -- in groups, the smallest multipliers first, a group halved when it
        cannot go (a point found needed stays needed in every smaller set, so the result is irreducible).
        Least distance returns sets with many more points than needed; smaller free parts pack more
        disjoint sets into the bound and give fewer branches -- on wide biased layers on a ball (n = 10,
        12) 30-200x fewer nodes. Only the set returned is verified (the one found when the last fails).
        """
        if C is None:
            return None
        C0, last = C, None
        first = self.pending if self.pending and self.pending[0] == C else None
        support, u = first[1:] if first is not None else (None, None)
        order = self._indices(C & ~allowed).tolist()
        if support is not None:
            weight = dict(zip(support.tolist(), u.tolist()))
            order.sort(key=lambda i: weight.get(i, 0.0))
        pos, chunk = 0, max(1, len(order) // 2)
        while pos < len(order):
            group = 0
            for i in order[pos : pos + chunk]:
                group |= (1 << i) & C
            if group == 0:
                pos += chunk
                continue
            C2 = self.capture((C & ~group) | allowed, allowed, verify=False)
            if C2 is not None:
                C, last = C2, self.pending
                pos += chunk
            elif chunk == 1:
                pos += 1  # needed
            else:
                chunk = max(1, chunk // 2)
        if last is not None:
            failed = self.failed
            ok = self.prove(*last)
            self.failed = failed  # a smaller set that fails leaves the set as found
            if ok:
                return C
        if first is None:  # pragma: no cover - the caller found C just before
            return None
        return C0 if self.prove(*first) else None  # a failure here marks the search

    def signed(self, removed: int, kept: int, rest: int) -> int | None:
        # a certificate of negated removed rows (and kept points) alone closes the node: at the point sought
        # every removed row is active, and no point of the ball has them all active
        neg = removed << self.m
        rest |= self.lazy  # cuts found so far hold everywhere (the pools of the packing leave them out)
        found = self.capture(rest | neg, (kept & rest) | neg, verify=False)  # proved once shrunk
        return self.shrink(found, (kept & rest) | neg | self.lazy)

    def accept(self, removed: int) -> bool | None:
        rest = np.flatnonzero(self._mask(self.full & ~removed)[: self.m])
        if rest.size == 0:
            return False
        # the point nearest the centre with every other row (and facet) below -margin: a wide margin first,
        # so that the witness built there does not sit on a boundary
        for margin in (DEPTH_WIDE_MARGIN, DEPTH_MID_MARGIN, self.margin):
            x = self._inside(rest, max(margin, self.margin))
            if x is not None:
                break
        else:
            return False
        cut = None if self.separate is None else self.separate(x)
        if cut is None:
            self.point = x
            return True
        if self.cuts >= self.slots:
            return False
        self._add_cut(self.m - self.slots + self.cuts, *cut)
        self.cuts += 1
        return None

    def _inside(self, rest: np.ndarray, margin: float) -> np.ndarray | None:
        """The point nearest the centre where the points ``rest`` are below ``-margin`` and that far inside
        the ball, checked on the caller's rows with rounding bounds; None if there is none.
        """
        u, rho = self._nearest(rest, margin)
        if u is None or not float(rho @ rho) > 0 or not rho[-1] < -DIVISOR_FLOOR:
            return None
        xi = -rho[:-1] / rho[-1]
        if not float(np.linalg.norm(xi)) < 1 - margin:
            return None
        x = self.c + self.r * xi
        L = self.L0[rest]
        vals = L[:, : self.d] @ x + L[:, self.d]
        slack = 1.01 * (self.d + 2) * _U * (np.abs(L[:, : self.d]) @ np.abs(x) + np.abs(L[:, self.d]))
        return x if np.all(vals < -slack) else None

    def _add_cut(self, j: int, a: np.ndarray, b: float) -> None:
        """Put the constraint ``<a, x> <= b`` (valid on the domain) in place ``j``: a kept point from now on."""
        d = self.d
        row = np.append(np.asarray(a, dtype=float), -float(b))
        s = float(pow2_scale(row))
        if np.all(row * s / s == row):
            row = row * s
        ln = np.append(row[:d] * self.r, row[d] + row[:d] @ self.c)
        norm = float(np.linalg.norm(ln))
        unit = ln / norm
        for sign, idx in ((1.0, j), (-1.0, j + self.m)):
            self.L0[idx] = sign * row
            self.factor[idx] = 1.0 / norm
            self.E[:d, idx] = -sign * unit[:d]
            self.E[d, idx] = sign * unit[d]
        self.full |= 1 << j
        self.lazy |= 1 << j


def fewest_active_exceeds(
    W: Any,
    alpha: Any,
    k: int,
    *,
    radius: float,
    center: Any = None,
    facets: tuple | None = None,
    margin: float = DEPTH_MARGIN,
    separate: Any = None,
    max_cuts: int = 400,
    time_limit: float | None = None,
    tick: Any = None,
) -> DepthSearch:
    r"""Decide whether every point of :math:`K = \{|x - c| \le r\} \cap \{A x \le b\}` has more than ``k`` active rows.

    A row is active at ``x`` when :math:`\langle w_i, x\rangle \ge \alpha_i`. This is the question of
    :func:`halfspace_depth_at_least` for a bias on a bounded domain: no set ``T`` of at most ``k`` rows
    may leave every other row strictly inactive at some point of ``K``. The same branch and bound over
    removal sets decides it, with circuits replaced by sets of rows that cannot all be inactive in the
    ball (one least-distance problem each, proved by :func:`ball_certified`). Facets ``A x <= b`` are kept
    points: never removed, so a point found satisfies them strictly. Since active sets can only grow
    towards the boundary (rows strictly inactive at ``x`` stay so nearby), it is enough to look at the
    interior, so "deep" covers the closed domain.

    Parameters
    ----------
    W : array_like, shape (m, n)
    alpha : array_like, shape (m,)
        The bias, subtracted.
    k : int
    radius : float
        ``r > 0``; for a box or polytope, a ball around it (the facets do the rest).
    center : array_like, shape (n,), optional
        ``c`` (default 0).
    facets : tuple (A, b), optional
        ``A`` of shape (p, n), ``b`` of shape (p,).
    margin : float, default DEPTH_MARGIN (1e-7)
        A point reported when "shallow" keeps every row not removed below ``-margin`` (relative to its
        norm) and lies that much (relative) inside the ball.
    separate : callable, optional
        For a domain known only through its points (a hull): ``separate(x)`` returns None when ``x`` is
        in the domain, else ``(a, b)`` with :math:`\langle a, y\rangle \le b` on the whole domain and
        :math:`\langle a, x\rangle > b`. Such cuts are added as facets while the search runs (a lazy
        constraint loop: nodes closed before stay closed, since a cut only removes points), and "deep" then
        holds for the ball, the facets and every cut, hence for the domain.
    max_cuts : int
        The most cuts; one more needed gives "undetermined".
    time_limit : float, optional
    tick : callable, optional
        As for :func:`halfspace_depth_at_least`.

    Returns
    -------
    DepthSearch
        ``point`` holds the point when shallow.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=float)
    >>> fewest_active_exceeds(W, [-0.5] * 4, 1, radius=0.4).status  # |x_j| < 0.5: all four rows active
    'deep'
    >>> res = fewest_active_exceeds(W, [-0.5] * 4, 2, radius=1.0)
    >>> res.status, bool(np.sum(W @ res.point >= -0.5) <= 2)
    ('shallow', True)
    """
    t0 = time.perf_counter()
    W = as_matrix(W, "W")
    m, n = W.shape
    alpha = np.asarray(alpha, dtype=float).reshape(-1)
    if alpha.shape != (m,) or not np.all(np.isfinite(alpha)):
        raise InputError(f"alpha must hold {m} finite numbers; got shape {alpha.shape}.")
    r = as_nonnegative(radius, "radius")
    if not (r > 0 and math.isfinite(r)):
        raise InputError(f"radius must be positive and finite; got {radius!r}.")
    c = np.zeros(n) if center is None else np.asarray(center, dtype=float).reshape(-1)
    if c.shape != (n,) or not np.all(np.isfinite(c)):
        raise InputError(f"center must hold {n} finite numbers.")
    rows = [np.hstack([W, -alpha[:, None]])]
    if facets is not None:
        A, b = as_matrix(facets[0], "facets[0]"), np.asarray(facets[1], dtype=float).reshape(-1)
        if A.shape[1] != n or b.shape != (A.shape[0],):
            raise InputError(f"facets must be (A, b) with A of shape (p, {n}) and b of shape (p,).")
        rows.append(np.hstack([A, -b[:, None]]))
    slots = as_count(max_cuts, "max_cuts", minimum=0) if separate is not None else 0
    if slots:
        rows.append(np.hstack([np.ones((slots, n)), np.zeros((slots, 1))]))  # places for cuts, not searched yet
    lifted = np.vstack(rows)
    if np.any(np.all(lifted == 0, axis=1)):
        raise InputError("a row with zero weights and zero bias (or a zero facet) says nothing; remove it.")
    kept = list(range(m, lifted.shape[0] - slots))  # the facets (the places for cuts join when filled)
    # the caller's rows scaled by powers of two (exact) for the proofs; the search's rows in the ball's
    # coordinates x = c + r xi: (r g, gamma + <g, c>), scaled to unit length
    s0 = pow2_scale(lifted, axis=1)
    L0 = lifted * s0[:, None]
    L0 = np.where(np.all(L0 / s0[:, None] == lifted, axis=1)[:, None], L0, lifted)
    Ln = np.hstack([L0[:, :n] * r, (L0[:, n] + L0[:, :n] @ c)[:, None]])
    norms = np.linalg.norm(Ln, axis=1)
    if not np.all((norms > 0) & np.isfinite(norms)):
        raise InputError("the rows are too large or too small to search in the ball's coordinates.")
    P, _, k, kept_mask, deadline = _prepare(Ln / norms[:, None], k, kept, time_limit, t0)
    search = _DomainSearch(P, k, kept_mask, deadline, tick, L0, 1.0 / norms, c, r, float(margin), separate, slots)
    try:
        T = search.run(0, kept_mask)
    except TimeoutError:
        return DepthSearch("undetermined", k, None, None, search.nodes, len(search.verified), time.perf_counter() - t0,
                           lower=search.root_bound)  # fmt: skip
    seconds = time.perf_counter() - t0
    if T is None:
        status = "undetermined" if search.failed else "deep"
        return DepthSearch(status, k, None, None, search.nodes, len(search.verified), seconds,
                           lower=search.root_bound if search.failed else k + 1)  # fmt: skip
    removal = tuple(i for i in range(m) if T >> i & 1)
    return DepthSearch("shallow", k, removal, None, search.nodes, len(search.verified), seconds, point=search.point)
