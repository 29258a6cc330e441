r"""A whole small network decided at once: two copies of it for far pairs, secant slopes for near pairs.

The layer-by-layer check proves a network injective when every layer is injective on (a set
containing) its input set, and it can stay undetermined when one layer's count falls short even
though the network is injective. Here the question is asked of the whole network :math:`N` on
:math:`K \subset \mathbb{R}^d` directly, for small inputs (:math:`d \le 4`) and a few hundred units.
Write :math:`x' = x / s` for the input scaled to about :math:`[-1, 1]^d`.

**Far pairs** (:math:`\|x' - y'\|_\infty \ge \delta/2`): two copies of the exact big-M encoding of the
hidden layers (Tjeng, Xiao and Tedrake, *Evaluating robustness of neural networks with mixed
integer programming*, ICLR 2019), tied by :math:`N(x) = N(y)`: for a ReLU last layer one binary per
output unit shared by the copies ("both off, or both on with equal values", which is exactly
:math:`\mathrm{ReLU}(p) = \mathrm{ReLU}(p')`), for an affine last layer plain equalities. A MILP
maximises :math:`x'_t - y'_t` for each coordinate (swapping the copies gives the other sign). Every
colliding pair is a feasible point, so a dual bound below :math:`\delta/2` (:math:`5 \cdot 10^{-4}`,
far above the solver's tolerances of :math:`10^{-9}`) rules out every far pair; an incumbent farther
apart than :math:`\delta` is a candidate pair, reported only after the package's one pair check.
Comparing two copies of a network in one program is how global (input-pair) properties are
verified, e.g. the global robustness of Katz et al., *Reluplex* (CAV 2017), which composes two
copies of the network, and the two-copy MILP of :mod:`relu_frames_nb.network.pieces` for one layer.

**Near pairs** (:math:`0 < \|x' - y'\|_\infty < \delta`): for every hidden unit
:math:`\mathrm{ReLU}(p(x)) - \mathrm{ReLU}(p(y)) = \theta (p(x) - p(y))` with a secant slope
:math:`\theta \in [0, 1]`, so the hidden layers' difference is
:math:`\Theta_{L-1} W_{L-1} \cdots \Theta_1 W_1 (x - y)`. A unit whose pre-activation at :math:`x` is
at least :math:`\ell_u \delta` away from 0 (:math:`\ell_u` a Lipschitz constant of it in the max-norm,
from the absolute weights) has the same sign at :math:`y`: its slope is 1 or 0. An output row
strictly active at :math:`x` is active at :math:`y` with the same value (the outputs agree), so
:math:`M(\theta)(x - y) = 0` for the output rows active at :math:`x` pulled back through the slopes.
:math:`K` is covered by cells (each hidden unit *on* by at least :math:`\ell_u\delta`, *off* by as
much, or *near* its kink; the pre-activations are affine on a cell up to a bounded error from the
near units; small LPs, over-inclusive); in each cell :math:`M(\theta)` must have rank :math:`d` for
**every** slope of the near units. A :math:`d \times d` minor of :math:`M(\theta)` is multilinear in
the slopes (each appears once in the product: Cauchy–Binet), so it keeps a strict sign on a box of
slopes when it does at the box's corners, with a rounding bound; boxes are halved a few times
before the cell is given up. A rank-deficient :math:`M(\theta)` with :math:`\theta` a true slope would be a
collision of nearby points, so a cell where this fails leaves the near pairs undecided.

Together: no two points of :math:`K` collide. The cells are over-included and determinants count
only above a relative bound, so rounding can cost a certificate but never makes one.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from math import comb
from typing import Callable

import numpy as np

from .._util.budget import Budget, BudgetExhausted
from .._util.tolerances import TWO_COPY_DET_MARGIN, TWO_COPY_LP_MARGIN, TWO_COPY_ON_MARGIN
from ..domains import Domain
from ._encoding import _widen
from .bounds import preactivation_bounds
from .image import image_bounds
from .pieces import DELTA, MAX_DIM, CellLP, PiecesResult, far_pairs

__all__ = ["TwoCopyResult", "check_two_copies", "two_copy_applies", "MAX_UNITS"]

#: the most units (hidden and output) a network may have for the two-copy check to be tried
MAX_UNITS = 400
#: cells with more units near their kink than this give up the near pairs (2^A corners per box)
MAX_FREE = 10
#: the most cells (leaves of the enumeration) examined; past it the near pairs stay undecided (a work limit)
MAX_CELLS = 20_000
#: how often a box of slopes is halved (along each free slope in turn) before the cell is given up
MAX_SPLIT = 16
#: the most boxes of slopes examined in one cell (a work limit)
MAX_BOXES = 4096
#: a minor counts as non-zero when above this, relative to the product of its rows' norms in absolute values
DET_MARGIN = TWO_COPY_DET_MARGIN
#: an output row counts as strictly active throughout a cell when its lower bound there exceeds this (normalised)
ON_MARGIN = TWO_COPY_ON_MARGIN
#: LP bounds over a cell are widened by this, relative to the objective's size (over-inclusive cells)
LP_MARGIN = TWO_COPY_LP_MARGIN


@dataclass
class TwoCopyResult:
    """``status``: ``"injective"`` (both parts proved), ``"not injective"`` (``pair`` verified) or ``"undetermined"``."""

    status: str
    text: str
    pair: tuple[np.ndarray, np.ndarray] | None = None
    far_bound: float | None = None  # the largest separation of a colliding pair the far MILP allows (normalised)
    cells: int = 0
    lps: int = 0
    binaries: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def two_copy_applies(weights: list, K: Domain) -> bool:
    """Whether the network (``(W, b)`` pairs) is small enough: input dimension ≤ 4, ≤ MAX_UNITS units, K bounded."""
    units = sum(np.asarray(W).shape[0] for W, _ in weights)
    return bool(K.bounded and not K.finite and K.n <= MAX_DIM and len(weights) >= 2 and units <= MAX_UNITS)


def check_two_copies(weights: list, K: Domain, *, budget: Budget, linear_last: bool = False,
                     verify_pair: Callable[[np.ndarray, np.ndarray], bool] | None = None,
                     near: np.ndarray | None = None) -> TwoCopyResult:  # fmt: skip
    r"""Whether the network is injective on ``K``, decided for the whole network at once (module docstring).

    Parameters
    ----------
    weights : list of (W, b)
        PyTorch's convention ``ReLU(W x + b)``, at least two layers.
    K : Domain
        Bounded, dimension at most 4 (a round domain is encoded by an outer polytope: a certificate
        there holds on ``K``; a pair must lie in ``K``, which ``verify_pair`` checks).
    budget : Budget
    linear_last : bool
        No ReLU after the last layer (its outputs must be equal, not only their positive parts).
    verify_pair : callable, optional
        ``verify_pair(x, y)``: the package's pair check (both points in ``K``, same output); a
        candidate of the MILP is reported only when it says so.
    near : ndarray, optional
        A point of ``K`` where the far-pair MILP looks first (its first copy kept near it); a proof of
        injectivity always comes from the unconstrained model.
    """
    t0 = time.perf_counter()
    res = TwoCopyResult("undetermined", "")
    try:
        _check(weights, K, budget, linear_last, verify_pair, res, near)
    except BudgetExhausted as exc:
        res.status = "undetermined" if res.status != "not injective" else res.status
        res.notes.append(f"time limit reached during {exc.stage}")
        res.text = (res.text + "; " if res.text else "") + "time limit reached"
    res.seconds = time.perf_counter() - t0
    return res


def _check(weights, K, budget: Budget, linear_last: bool, verify_pair, res: TwoCopyResult, near=None) -> None:
    budget.check("two copies: bounds")
    L = len(weights)
    layers, desc, s, _ = image_bounds(weights, L - 1, K, budget=budget)
    if K.polyhedral and desc.n_extra > 8 * desc.n:  # a hull lifted by its points: its facets keep the models small
        desc = K.compact_outer_polytope()
    W, b = (np.asarray(a, dtype=float) for a in weights[-1])
    last = layers[-1]
    live = last.hi > 0
    A = W * last.scale[None, :]
    A[:, ~live] = 0.0
    norms = np.linalg.norm(A, axis=1)
    rows = np.flatnonzero(norms > 0)  # rows constant on the image are equal at both copies: no information
    R, c0 = A[rows] / norms[rows, None], b[rows] / norms[rows]
    Lq, Uq = preactivation_bounds(R, c0, (np.zeros(live.size), np.where(live, 1.0, 0.0)))
    Lq, Uq = _widen(Lq, Uq)
    # far pairs first: the MILP is also the search for a colliding pair
    pres = PiecesResult("undetermined", "")
    far = far_pairs(layers, desc, s, R, c0, Lq, Uq, budget.share(fraction=0.6), pres, linear=linear_last, near=near)
    res.far_bound = pres.far_bound
    if pres.pair is not None:
        if verify_pair is not None and verify_pair(*pres.pair):
            res.status, res.pair = "not injective", pres.pair
            res.text = pres.text + " (verified)"
            return
        res.text = pres.text + ", but the pair did not pass the pair check: not reported"
        return
    if not far:
        res.text = pres.text
        return
    near, why = _near_pairs(layers, desc, s, R, c0, Lq, linear_last, budget, res)
    if not near:
        res.text = f"no two inputs at max-norm distance ≥ {DELTA / 2:g} (normalised) collide (two-copy MILP); but {why}"
        return
    res.status = "injective"
    res.text = (f"no two inputs collide: none at max-norm distance ≥ {DELTA / 2:g} (normalised), by the dual bound "
                f"{_g(res.far_bound)} of a MILP over two copies of the network; none closer, because in each of "
                f"{res.cells} cells of the input the output rows active there, pulled back to the input space through "
                f"the ReLUs' secant slopes, have full rank {desc.n} for every slope of the units near their kink")  # fmt: skip


def _g(v: float | None) -> str:
    return "?" if v is None else f"{v:.2g}"


# -- near pairs -------------------------------------------------------------------------------------


class _GiveUp(Exception):
    """The near pairs cannot be settled (too many cells, or too many units near a kink in one cell)."""


def _near_pairs(layers, desc, s, R, c0, Lq, linear: bool, budget: Budget, res: TwoCopyResult) -> tuple[bool, str]:
    """``(True, "")`` when no two inputs closer than DELTA (normalised) collide; else ``(False, why)``."""
    d = desc.n
    lp = CellLP(desc, s)
    # Lipschitz constants (max-norm, normalised input) of every pre-activation; DELTA times them
    lips, prev = [], np.ones(d)
    for L in layers:
        lj = np.abs(L.A) @ prev
        lips.append(lj * DELTA)
        prev = lj
    walk = _Walk(layers, lips, R, c0, Lq, linear, lp, budget, d, res)
    try:
        ok = walk.run()
    except _GiveUp as exc:
        res.lps = lp.calls
        return False, str(exc)
    res.lps = lp.calls
    res.notes.append(f"{res.cells} cells, {lp.calls} LPs")
    if not ok:
        return False, walk.why
    return True, ""


class _Walk:
    """Depth-first enumeration of the cells (see the module docstring)."""

    def __init__(self, layers, lips, R, c0, Lq, linear, lp: CellLP, budget: Budget, d: int, res: TwoCopyResult):
        self.layers, self.lips, self.R, self.c0, self.Lq = layers, lips, R, c0, Lq
        self.linear, self.lp, self.budget, self.d, self.res = linear, lp, budget, d, res
        self.why = ""

    def _range(self, a: np.ndarray, G: np.ndarray, g: np.ndarray) -> tuple[float, float]:
        """Valid bounds of ``a . x'`` over the cell (LPs, widened); ``(inf, -inf)`` when the cell is empty."""
        if not np.any(a):
            return 0.0, 0.0
        t = max(min(self.budget.remaining(), 5.0), 0.05)
        low = self.lp.minimum(a, G, g, time_limit=t)
        if low is None:
            return np.inf, -np.inf
        high = self.lp.minimum(-a, G, g, time_limit=t)
        if high is None:
            return np.inf, -np.inf
        return low, -high

    def run(self) -> bool:
        d = self.d
        # a state: (layer j, unit i, G, g, forms of layer j-1's output, forms of layer j so far, slopes)
        # forms: (H, h, elo, ehi) with h'(x') in H x' + h + [elo, ehi] coordinatewise on the cell
        start = (np.eye(d), np.zeros(d), np.zeros(d), np.zeros(d))
        stack = [(0, 0, np.zeros((0, d)), np.zeros(0), start, ([], [], [], []), [[]])]
        nL = len(self.layers)
        while stack:
            self.budget.check("two copies: cells")
            j, i, G, g, prev, cur, slopes = stack.pop()
            if j == nL:
                if not self._leaf(G, g, prev, slopes, frozenset()):
                    return False
                continue
            L = self.layers[j]
            if i == L.A.shape[0]:  # the layer is complete: its forms become the previous ones
                H = np.array(cur[0], dtype=float).reshape(L.A.shape[0], d)
                h, elo, ehi = (np.array(v, dtype=float) for v in cur[1:])
                stack.append((j + 1, 0, G, g, (H, h, elo, ehi), ([], [], [], []), slopes + [[]] if j + 1 < nL else slopes))
                continue
            Hp, hp, elop, ehip = prev
            w = L.A[i]
            a, c = w @ Hp, float(w @ hp + L.c[i])
            wp, wn = np.maximum(w, 0.0), np.minimum(w, 0.0)
            elo, ehi = float(wp @ elop + wn @ ehip), float(wp @ ehip + wn @ elop)
            lip = float(self.lips[j][i])
            opts = []
            if L.lo[i] >= lip:  # always on over K: no row needed
                opts.append(("on", None))
            elif L.hi[i] <= -lip:
                opts.append(("off", None))
            else:
                lo_a, hi_a = self._range(a, G, g)
                if lo_a > hi_a:
                    continue  # the cell is empty after all
                if hi_a + c + elo >= lip:
                    opts.append(("on", [(-a, c + elo - lip)]))
                if lo_a + c + ehi <= -lip:
                    opts.append(("off", [(a, -lip - c - ehi)]))
                if lo_a <= lip - c - elo and hi_a >= -lip - c - ehi:
                    opts.append(("near", [(a, lip - c - elo), (-a, lip + c + ehi)]))
            for state, extra in opts:
                G2, g2 = G, g
                if extra:
                    G2 = np.vstack([G] + [r[None, :] for r, _ in extra])
                    g2 = np.r_[g, [v for _, v in extra]]
                cur2 = tuple(list(v) for v in cur)
                if state == "on":
                    cur2[0].append(a), cur2[1].append(c), cur2[2].append(elo), cur2[3].append(ehi)
                    sl = 1.0
                elif state == "off":
                    cur2[0].append(np.zeros(d)), cur2[1].append(0.0), cur2[2].append(0.0), cur2[3].append(0.0)
                    sl = 0.0
                else:
                    cur2[0].append(np.zeros(d)), cur2[1].append(0.0), cur2[2].append(0.0)
                    cur2[3].append(lip + ehi - elo)
                    sl = np.nan
                slopes2 = slopes[:-1] + [slopes[-1] + [sl]]
                stack.append((j, i + 1, G2, g2, prev, cur2, slopes2))
        return True

    def _leaf(self, G, g, prev, slopes, split: frozenset, forced: frozenset = frozenset()) -> bool:
        """A complete cell: the output rows active throughout it must give full rank for every slope.

        ``split``: output rows the cell was already cut by; ``forced``: those of them on throughout the cell.
        """
        H, h, elo_h, ehi_h = prev
        R, c0 = self.R, self.c0
        a_all, c_all = R @ H, R @ h + c0
        Rp, Rn = np.maximum(R, 0.0), np.minimum(R, 0.0)
        elo, ehi = Rp @ elo_h + Rn @ ehi_h, Rp @ ehi_h + Rn @ elo_h
        slope_arrays = [np.asarray(v, dtype=float) for v in slopes]
        free = sum(int(np.isnan(v).sum()) for v in slope_arrays)
        if free > MAX_FREE:
            raise _GiveUp(f"a cell has {free} > {MAX_FREE} units near their kink: near pairs not ruled out")
        if self.linear:
            on = np.ones(R.shape[0], dtype=bool)
            return self._count(self._certified(on, slope_arrays))
        # rows on throughout (their lower bound over the cell), and rows that may switch in it (to split on)
        on = np.zeros(R.shape[0], dtype=bool)
        on[list(forced)] = True
        mixed = []
        for r in range(R.shape[0]):
            self.budget.check("two copies: active rows")
            if on[r] or r in split:
                continue
            if self.Lq[r] > ON_MARGIN:
                on[r] = True
                continue
            lo_a, hi_a = self._range(a_all[r], G, g)
            if lo_a > hi_a:
                return self._count(True)  # the cell is empty
            if lo_a + c_all[r] + elo[r] > ON_MARGIN:
                on[r] = True
            elif hi_a + c_all[r] + ehi[r] > 0:
                mixed.append(r)
        if self._certified(on, slope_arrays):
            return self._count(True)
        if not mixed:
            return self._count(False)
        # split on a row that may switch: where it is surely on (by 2 ON_MARGIN), it gives one more equation
        r = mixed[0]
        cut = 2 * ON_MARGIN - c_all[r] - elo[r]  # on part: a x' >= cut
        for row, off, now_on in ((-a_all[r], -cut, True), (a_all[r], cut, False)):
            G2, g2 = np.vstack([G, row[None, :]]), np.r_[g, off]
            lo_a, hi_a = self._range(row, G2, g2)
            if lo_a > hi_a:
                continue
            if not self._leaf(G2, g2, prev, slopes, split | {r}, forced | {r} if now_on else forced):
                return False
        return True

    def _count(self, ok: bool) -> bool:
        self.res.cells += 1
        if self.res.cells > MAX_CELLS:
            raise _GiveUp(f"more than {MAX_CELLS} cells were needed: near pairs not ruled out")
        if not ok:
            self.why = ("in a cell of the input, the output rows active there, pulled back through the ReLUs' secant "
                        "slopes, may lose rank for some slopes of the units near their kink: near pairs not ruled "
                        "out")  # fmt: skip
        return ok

    def _certified(self, on: np.ndarray, slopes: list[np.ndarray]) -> bool:
        """Whether ``M(theta)`` (rows ``on``, pulled back) has rank d for every slope of the free units."""
        d = self.d
        q = int(on.sum())
        if q < d:
            return False
        Ron = self.R[on]
        free = [(j, u) for j, v in enumerate(slopes) for u in np.flatnonzero(np.isnan(v))]
        T = np.array(list(itertools.combinations(range(q), d)), dtype=np.intp)
        if comb(q, d) * 2 ** len(free) > 5e6:
            return False  # too many minors for this cell

        def mats(theta_rows: np.ndarray):
            """M and |M| bounds at each row of theta (corners): shapes (corners, q, d)."""
            nc = theta_rows.shape[0]
            P = np.broadcast_to(Ron, (nc,) + Ron.shape).copy()
            Pa = np.abs(P)
            for j in range(len(self.layers) - 1, -1, -1):
                th = np.broadcast_to(np.nan_to_num(slopes[j], nan=0.0), (nc, slopes[j].size)).copy()
                for t, (jj, u) in enumerate(free):
                    if jj == j:
                        th[:, u] = theta_rows[:, t]
                A = self.layers[j].A
                P = np.matmul(P * th[:, None, :], A)
                Pa = np.matmul(Pa * th[:, None, :], np.abs(A))
            return P, Pa

        boxes = [0]

        def box(lo: np.ndarray, hi: np.ndarray, depth: int) -> bool:
            self.budget.check("two copies: slopes")
            boxes[0] += 1
            if boxes[0] > MAX_BOXES:
                return False
            corners = np.array(list(itertools.product((0, 1), repeat=len(free))), dtype=bool).reshape(2 ** len(free), len(free))
            theta = np.where(corners, hi[None, :], lo[None, :])
            P, Pa = mats(theta)  # (c, q, d)
            sub = P[:, T]  # (c, nT, d, d)
            dets = np.linalg.det(sub)
            bound = DET_MARGIN * np.prod(np.linalg.norm(Pa[:, T], axis=3), axis=2)
            pos = np.all(dets > bound, axis=0)
            neg = np.all(dets < -bound, axis=0)
            if np.any(pos | neg):
                return True
            if not free or depth >= MAX_SPLIT:
                return False
            t = depth % len(free)
            mid = 0.5 * (lo[t] + hi[t])
            hi1, lo2 = hi.copy(), lo.copy()
            hi1[t], lo2[t] = mid, mid
            return box(lo, hi1, depth + 1) and box(lo2, hi, depth + 1)

        return box(np.zeros(len(free)), np.ones(len(free)), 0)
