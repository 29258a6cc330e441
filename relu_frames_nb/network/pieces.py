r"""Layer :math:`k` on the image of the layers before it, across the pieces of that image.

The counting certificate of :mod:`relu_frames_nb.network.image` asks the rows of layer
:math:`k` that stay strictly active to span the space the image lives in. When the image is a
low-dimensional surface (a 3-dimensional input through an 8-unit layer, say) that asks too
much: seven rows cannot span :math:`\mathbb{R}^8`, yet they may separate the points of a
3-dimensional surface. Here the question is asked in the **input space** instead. Write
:math:`G` for the first :math:`k - 1` layers, :math:`f` for layer :math:`k`, and suppose two
inputs :math:`x \ne x'` of :math:`K` give :math:`f(G(x)) = f(G(x'))`.

**Far pairs** (:math:`\|x - x'\|_\infty \ge \delta` in the normalised coordinates): two copies of
the exact big-M encoding of :math:`G` share one binary per row of :math:`f` (both copies off,
or both on with equal values: exactly :math:`\mathrm{ReLU}(p) = \mathrm{ReLU}(p')`), and a MILP
maximises :math:`x_t - x'_t` for each coordinate :math:`t` (swapping the copies covers the other
sign). A dual bound below :math:`\delta / 2` rules out every far pair; a solution with a large
separation is a candidate colliding pair, returned to be verified by the package's pair check.
This is the *two-copy* formulation used to verify global properties of ReLU networks by
mixed-integer programming (e.g. Tjeng, Xiao and Tedrake, ICLR 2019, for the encoding).

**Near pairs** (:math:`0 < \|x - x'\|_\infty < \delta`): for every unit :math:`u` of :math:`G`,
:math:`\mathrm{ReLU}(p_u(x)) - \mathrm{ReLU}(p_u(x')) = \theta_u\,(p_u(x) - p_u(x'))` with the
secant slope :math:`\theta_u \in [0, 1]`, exactly :math:`1` (:math:`0`) when the unit is on (off)
at both points. So :math:`G(x) - G(x') = \Theta_{k-1} W_{k-1} \cdots \Theta_1 W_1 (x - x')`, and a row
:math:`i` of :math:`f` strictly active at :math:`G(x)` (hence at :math:`G(x')`, with the same value)
gives :math:`r_i(\theta) \cdot (x - x') = 0` for the pulled-back row
:math:`r_i(\theta) = w_i \Theta_{k-1} W_{k-1} \cdots \Theta_1 W_1`. If at least :math:`c` rows are
strictly active everywhere on the image (the counting MILP's bound), :math:`c` pulled-back rows
lie in one hyperplane :math:`(x - x')^\perp` of :math:`\mathbb{R}^d`. A unit whose pre-activation
at :math:`x` is at least :math:`L_u \delta` from 0 (:math:`L_u` its Lipschitz constant in the
max-norm) keeps its sign at :math:`x'`, so only the units near their kink have a free slope. The
inputs of :math:`K` are split into cells by their own sign pattern and by the set :math:`A` of
units near a kink (small LPs, :math:`d \le 4`); in each cell, the determinant of any :math:`d`
pulled-back rows is affine in each :math:`\theta_u` (a rank-one change of the product), hence
multilinear, so it vanishes somewhere on :math:`[0, 1]^A` only if its values at the
:math:`2^{|A|}` corners do not share a strict sign. If no :math:`c` rows have all their
:math:`d`-subsets "possibly in one hyperplane" in any cell, no near pair collides.

Together: layer :math:`k` is injective on the image :math:`G(K)`. The cells are over-included
(LP feasibility with a relaxed tolerance) and determinants count as possibly zero within a
relative margin, so rounding can only cost a certificate, not make a false one. The method is
for inputs of dimension :math:`d \le 4` (the cells and the :math:`d`-subsets grow fast with
:math:`d`).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from math import comb

import numpy as np

from .._util.budget import Budget, MemoryLimit
from .._util.tolerances import PIECES_ACTIVE_MARGIN, PIECES_CELL_SLACK, PIECES_DEPENDENT, PIECES_DET_MARGIN, PIECES_RANK_RTOL
from ..domains import Domain, LinearDescription
from ..exact import solve_model
from ._encoding import _encode_into, _Layer, _Model

__all__ = ["PiecesResult", "check_across_pieces", "DELTA", "MAX_DIM"]

#: near/far split of pairs, in the normalised input coordinates (the domain scaled to about [-1, 1]^d)
DELTA = 1e-3
#: the largest input dimension the cell enumeration is tried for
MAX_DIM = 4
#: cells with more units near a kink than this are not checked (2^A corners): no certificate
MAX_NEAR = 10
#: a determinant counts as non-zero when above this, relative to the product of its rows' norms
DET_MARGIN = PIECES_DET_MARGIN
#: r units whose pulled-back rows' determinant is below this, relative to its rows' norms, count as dependent
DEPENDENT = PIECES_DEPENDENT
#: how often a box of slopes is halved before rows possibly in one hyperplane are believed
MAX_SPLIT = 8
#: a row counts as active throughout a cell when its LP minimum, less this (relative) margin, is positive
ACTIVE_MARGIN = PIECES_ACTIVE_MARGIN
#: the most steps of the exact clique search before its bound is taken instead
CLIQUE_NODES = 20_000
#: the most boxes of slopes examined in one check (a work limit: past it, near pairs stay undecided)
MAX_BOXES = 1000
#: LP feasibility of a cell is tested with its constraints relaxed by this (normalised units)
CELL_SLACK = PIECES_CELL_SLACK
#: the most r x r determinants (pairs of an r-set of rows and an r-set of units) one support may ask for; past it
#: the near pairs stay undecided (a work limit: 4 -> 40 -> 80 -> 6 asked for 1.4e11, 3.77 TiB at once)
MAX_DETERMINANTS = 5e8
#: bytes of Python objects per entry of the dictionaries of the clique bounds (a tuple key, a list or a count)
_PY_ENTRY = 200


@dataclass
class PiecesResult:
    """``status``: ``"injective"`` (both parts proved), ``"candidate pair"`` (``pair``: two inputs
    the far MILP says collide, to be verified by the caller) or ``"undetermined"``.
    """

    status: str
    text: str
    far_bound: float | None = None  # the largest separation of a colliding pair the far MILP allows (normalised)
    cells: int = 0
    largest_plane: int | None = None  # the most pulled-back rows possibly in one hyperplane, over the cells
    pair: tuple[np.ndarray, np.ndarray] | None = None
    notes: list[str] = field(default_factory=list)


def check_across_pieces(layers: list[_Layer], desc: LinearDescription, s: float, R: np.ndarray, c0: np.ndarray,
                        Lq: np.ndarray, Uq: np.ndarray, lower: int, K: Domain, *, budget: Budget) -> PiecesResult:  # fmt: skip
    r"""Whether layer ``k`` is injective on the image of the earlier ``layers`` (see the module docstring).

    Parameters
    ----------
    layers, desc, s
        The earlier layers in the encoding's units and the input polytope with its scale
        (:func:`relu_frames_nb.network.image.image_bounds`).
    R, c0, Lq, Uq
        The rows of layer ``k`` that can vary on the image, in the units of the last earlier
        layer (unit norm), their offsets and valid bounds of ``R z + c0`` over the image's box.
    lower : int
        A proven lower bound of the number of these rows strictly active at every point of the image.
    K : Domain
        The domain (its dimension decides whether the method applies).
    budget : Budget
    """
    d = desc.n
    if d > MAX_DIM:
        return PiecesResult("undetermined", f"the input has {d} > {MAX_DIM} dimensions: no check across the pieces")
    res = PiecesResult("undetermined", "")
    if K.polyhedral and desc.n_extra > 8 * d:  # a hull lifted by its points: its facets make the LPs and MILP small
        desc = K.compact_outer_polytope()
    # near pairs first (cheap); the far MILP runs either way, since it is also the search for far collisions
    if lower < d:
        near, near_text = False, (f"only {lower} rows are known to be strictly active everywhere, and any {d - 1} lie "
                                  "in one hyperplane of the input space: near pairs not ruled out")  # fmt: skip
    else:
        try:
            near = _near_pairs(layers, desc, s, R, c0, lower, budget, res)
            near_text = res.text
        except MemoryLimit as exc:  # given up before allocating: the far MILP still looks for a witness
            near, near_text = False, f"near pairs not ruled out (undetermined — memory limit: {exc})"
            res.notes.append(f"memory limit: {exc}")
    # without the near pairs no certificate can come: the far MILP then only looks for a witness, on a quarter
    far = far_pairs(layers, desc, s, R, c0, Lq, Uq, budget if near else budget.share(fraction=0.25), res)
    if near and far:
        res.status = "injective"
        res.text = (f"no two inputs collide: none at max-norm distance ≥ {DELTA:g} (normalised), by the dual bound of "
                    f"a two-copy MILP; none closer, because in each of {res.cells} cells of the input "
                    f"fewer of the layer's rows pulled back to the input space can lie in one hyperplane (at most "
                    f"{res.largest_plane}) than stay strictly active there (at least {lower})")  # fmt: skip
    elif not near and res.pair is None:
        res.text = near_text or "near pairs not ruled out"
    return res


# -- near pairs: cells of the input by sign pattern and units near their kink -------------------------------------


class _TooMuchWork(Exception):
    """More boxes of slopes than MAX_BOXES, or more determinants than MAX_DETERMINANTS: the near pairs are left undecided."""


class CellLP:
    """LP feasibility of ``x' in P/s`` with extra rows ``G x' <= g`` (over-inclusive by CELL_SLACK)."""

    def __init__(self, desc: LinearDescription, s: float):
        M = _Model(desc, s)
        self.n_vars, self.d = M.n_vars, desc.n
        self.cons, self.bounds, _ = M.arrays()
        self.calls = 0

    def minimum(self, a: np.ndarray, G: np.ndarray, g: np.ndarray, time_limit: float) -> float | None:
        """A lower bound of ``min a . x'`` over the cell (the LP's value less a rounding margin), or None."""
        sol = self._solve(np.r_[a, np.zeros(self.n_vars - self.d)], G, g, time_limit)
        if sol is None or sol.status != 0 or sol.fun is None:
            return None
        return float(sol.fun) - ACTIVE_MARGIN * (1.0 + float(np.abs(a).sum()))

    def _solve(self, c: np.ndarray, G: np.ndarray, g: np.ndarray, time_limit: float):
        from scipy.optimize import LinearConstraint
        from scipy.sparse import csr_matrix, vstack

        self.calls += 1
        extra = np.zeros((G.shape[0], self.n_vars))
        extra[:, : self.d] = G
        A = vstack([self.cons.A, csr_matrix(extra)])
        cons = LinearConstraint(A, np.r_[self.cons.lb, np.full(G.shape[0], -np.inf)], np.r_[self.cons.ub, g + CELL_SLACK])
        return solve_model(c, np.zeros(self.n_vars), self.bounds, cons, time_limit=time_limit, binaries=0)

    def feasible(self, G: np.ndarray, g: np.ndarray, time_limit: float) -> np.ndarray | None:
        """A point of the cell (NaNs when the solver could not tell), or None when it is empty."""
        sol = self._solve(np.zeros(self.n_vars), G, g, time_limit)
        if sol is None or sol.status != 0 or sol.x is None:
            # only a clear "infeasible" drops the cell
            return None if sol is not None and sol.status == 2 else np.full(self.d, np.nan)
        return np.asarray(sol.x[: self.d])


def _near_pairs(layers, desc, s, R, c0, lower, budget, res: PiecesResult) -> bool:
    """True when no two inputs closer than DELTA collide (one earlier layer; see the module docstring)."""
    if len(layers) != 1:
        res.text = "the check across the pieces handles a layer after exactly one earlier layer"
        return False
    L = layers[0]
    lip = np.abs(L.A).sum(axis=1) * DELTA  # |p'(x) - p'(y)| <= lip when ||x' - y'||_inf <= DELTA
    lp = CellLP(desc, s)
    d = desc.n

    def options(i):
        """(on, near, rows ``sign * p' <= bound``) for unit i; units whose bounds decide it need no row."""
        r = lip[i]
        if L.lo[i] >= r:
            return [(True, False, None)]
        if L.hi[i] <= -r:
            return [(False, False, None)]
        return [(True, False, [(-1.0, -r)]), (False, False, [(1.0, -r)]), (False, True, [(1.0, r), (-1.0, r)])]

    # depth-first over the units; a state is (unit, rows G x' <= g, on units, near units, a feasible point)
    stack: list[tuple] = [(0, np.zeros((0, d)), np.zeros(0), (), (), None)]
    work = [0]
    try:
        return _enumerate(stack, L, R, c0, lower, lip, lp, options, work, budget, res)
    except _TooMuchWork as exc:
        why = str(exc) or f"more than {MAX_BOXES} boxes of slopes were needed"
        res.text = f"near the kinks, {why}: near pairs not ruled out"
        return False


def _enumerate(stack, L, R, c0, lower, lip, lp, options, work, budget, res: PiecesResult) -> bool:
    """The depth-first walk of :func:`_near_pairs` over the cells."""
    worst, width = 0, L.A.shape[0]
    while stack:
        budget.check("the image across its pieces: cells")
        i, G, g, on, near, point = stack.pop()
        if i == width:
            res.cells += 1
            plane = _largest_plane(L.A, R, list(on), list(near), lower, budget, work)
            if plane is None:
                res.text = f"a cell has more than {MAX_NEAR} units near their kink"
                return False
            count = lower
            if plane >= lower:
                # the count over the whole image is too low here: count the rows active throughout this cell
                count = max(lower, _active_throughout(lp, L, R, c0, list(on), list(near), lip, G, g, budget))
                if count > lower:
                    plane = _largest_plane(L.A, R, list(on), list(near), count, budget, work)
            worst = max(worst, plane)
            if plane >= count:
                res.largest_plane = worst
                res.text = (f"near a kink, {plane} rows pulled back to the input space may lie in one hyperplane, and "
                            f"only {count} are known to be strictly active there: near pairs not ruled out")  # fmt: skip
                return False
            continue
        a, c = L.A[i], float(L.c[i])
        for is_on, is_near, rows in options(i):
            on2 = on + (i,) if is_on else on
            near2 = near + (i,) if is_near else near
            if rows is None:
                stack.append((i + 1, G, g, on2, near2, point))
                continue
            G2 = np.vstack([G] + [sg * a[None, :] for sg, _ in rows])
            g2 = np.r_[g, [bd - sg * c for sg, bd in rows]]
            if point is not None and np.all(np.isfinite(point)) and np.all(G2 @ point <= g2):
                stack.append((i + 1, G2, g2, on2, near2, point))
                continue
            p2 = lp.feasible(G2, g2, time_limit=max(min(budget.remaining(), 5.0), 0.05))
            if p2 is not None:
                stack.append((i + 1, G2, g2, on2, near2, p2))
    res.largest_plane = worst
    res.notes.append(f"{res.cells} cells, {lp.calls} LPs")
    return True


def _active_throughout(lp: CellLP, L: _Layer, R, c0, on, near, lip, G, g, budget) -> int:
    """How many rows of the layer are strictly active at every input of the cell (one LP per row).

    On the cell the units ``on`` are affine, the others are 0 except the near ones, whose output
    lies in ``[0, lip]``: a row's least value is its LP minimum with the near units off, plus
    its negative weights on the near units times their ``lip``.
    """
    Hx, hx = L.A[on], L.c[on]  # z'_on = Hx x' + hx
    slack = np.minimum(R[:, near], 0.0) @ lip[near] if near else np.zeros(R.shape[0])
    count = 0
    for i in range(R.shape[0]):
        budget.check("the image across its pieces: active rows")
        a, c = R[i, on] @ Hx, float(R[i, on] @ hx + c0[i])
        low = lp.minimum(a, G, g, time_limit=max(min(budget.remaining(), 5.0), 0.05))
        if low is not None and low + c + slack[i] > ACTIVE_MARGIN * (1.0 + abs(c)):
            count += 1
    return count


def _largest_plane(W: np.ndarray, R: np.ndarray, on: list[int], near: list[int], lower: int, budget,
                   work: list[int]) -> int | None:  # fmt: skip
    r"""An upper bound of the most pulled-back rows in one hyperplane, over the slopes of the near units.

    For two inputs ``x, y`` of the cell, ``G(x) - G(y) = \Theta W (x - y)`` with ``theta = 1`` on
    the units on (and clear of their kink), ``0`` on those off, and ``theta_u in [0, 1]`` on the
    near units. The slopes that are positive (a subset ``P`` of the near units) fix the rank ``r``
    of ``\Theta W``; with ``V`` an orthonormal basis of its row space, ``x - y = V eta`` up to
    the kernel (which does not move ``G``), and a collision needs ``R_S \Theta W V eta = 0`` with
    ``eta != 0``. By the Cauchy–Binet formula the determinant of any ``r`` of those rows is
    ``sum_J det(R_T[:, J]) theta_J det((W V)[J, :])`` over ``r``-sets ``J`` of units: a
    polynomial in the slopes with one coefficient per ``Q = J \cap P``. When the coefficients
    share a strict sign (rounding bounded), the determinant is non-zero for all slopes in
    ``(0, 1]^P``; otherwise the ``r`` rows count as possibly in one hyperplane.
    """
    if len(near) > MAX_NEAR:
        return None
    best = 0
    fixed = list(on)
    for k in range(len(near) + 1):
        for P in itertools.combinations(near, k):
            budget.check("the image across its pieces: hyperplanes")
            support = fixed + list(P)
            if not support:
                continue  # G is constant on the cell: no two inputs give different image points
            Ws = W[support]
            _, sv, vt = np.linalg.svd(Ws, full_matrices=False)
            r = int(np.sum(sv > PIECES_RANK_RTOL * sv[0])) if sv.size and sv[0] > 0 else 0
            if r == 0:
                continue
            WV = Ws @ vt[:r].T  # (support, r)
            plane = _plane_count(R[:, support], WV, [support.index(u) for u in P], r, lower, budget, work)
            best = max(best, plane)
            if best >= lower:
                return best
    return best


def _plane_count(Rs: np.ndarray, WV: np.ndarray, free: list[int], r: int, lower: int, budget, work: list[int]) -> int:
    """The clique bound of :func:`_largest_plane` for one support (``free``: positions of the near units).

    The determinant of ``r`` pulled-back rows is multilinear in the near units' slopes, so at a
    point of a box ``(lo, hi]`` of slopes it is a convex combination of its values at the box's
    corners in which the upper corner has a positive weight: when every corner value is above
    its rounding bound (or structurally zero: a slope 0 in every term), the determinant is
    positive on the box (likewise negative); otherwise the ``r`` rows count as possibly in one
    hyperplane there. Rows in one hyperplane share the slopes, so a box where ``lower`` rows
    may do so is split in halves (up to :data:`MAX_SPLIT` times) before that is believed.

    The Cauchy–Binet terms of one set of rows enter only through their sums over the unit sets
    ``J`` that hold the same near units (the weight of ``J`` at given slopes depends on nothing
    else), so one number per such group is kept, computed in blocks that fit the memory
    allowance; :class:`MemoryLimit` is raised, before allocating, when even that does not fit.
    """
    m, ns = Rs.shape
    n_T, n_J = comb(m, r), comb(ns, r)
    if n_T * n_J > MAX_DETERMINANTS:
        raise _TooMuchWork(f"{n_T} sets of {r} rows times {n_J} sets of {r} units: {n_T * n_J:.3g} determinants, more "
                           f"than {MAX_DETERMINANTS:.3g}")  # fmt: skip
    budget.need(8 * r * (n_T + n_J) + 8 * r * r * n_J, f"the {n_T} sets of {r} rows and {n_J} sets of {r} units",
                fraction=0.5)  # fmt: skip
    T = np.array(list(itertools.combinations(range(m), r)), dtype=np.intp).reshape(n_T, r)
    J = np.array(list(itertools.combinations(range(ns), r)), dtype=np.intp).reshape(n_J, r)
    subW = WV[J]  # (J, r, r)
    dW = np.linalg.det(subW)
    hadW = np.prod(np.linalg.norm(subW, axis=2), axis=1)
    keep = np.abs(dW) > DEPENDENT * hadW  # units whose rows are dependent (to 1e-10 relative) give exactly 0
    J, dW, hadW = J[keep], dW[keep], hadW[keep]
    if len(J) == 0:
        return r - 1
    # which near units each J holds, and the groups of J holding the same ones
    holds_J = np.zeros((len(J), len(free)), dtype=bool)
    for t, u in enumerate(free):
        holds_J[:, t] = np.any(J == u, axis=1)
    groups, group_of = np.unique(holds_J, axis=0, return_inverse=True)
    group_of = group_of.reshape(-1)
    holds = groups  # (P, len(free)): the near units of each group
    budget.need(16 * n_T * len(groups), f"the sums over {len(groups)} groups for {n_T} sets of {r} rows", fraction=0.5)
    terms, errs = _grouped_terms(Rs, T, J, dW, hadW, group_of, len(groups), r, budget)

    def weights(theta: np.ndarray) -> np.ndarray:
        return np.prod(np.where(holds, theta[None, :], 1.0), axis=1)

    def box(lo: np.ndarray, hi: np.ndarray, cand: np.ndarray, depth: int) -> int:
        """The clique bound over the slopes in the half-open box (lo, hi] (a closed 0 side allowed)."""
        budget.check("the image across its pieces: hyperplanes")
        work[0] += 1
        if work[0] > MAX_BOXES:
            raise _TooMuchWork
        pos = np.ones(cand.size, dtype=bool)
        neg = np.ones(cand.size, dtype=bool)
        for corner in itertools.product((0, 1), repeat=len(free)):
            w = weights(np.where(np.array(corner, dtype=bool), hi, lo))
            if not np.any(w):
                continue  # structurally zero at this corner (only where a slope is 0): allowed
            val, err = terms[cand] @ w, errs[cand] @ w
            pos &= val > err
            neg &= val < -err
        poss = cand[~(pos | neg)]
        q = _largest_clique(T[poss], m, r, lower, budget)
        if q < lower or depth >= MAX_SPLIT or not free:
            return q
        mid = 0.5 * (lo + hi)
        best = 0
        for half in itertools.product((0, 1), repeat=len(free)):
            h = np.array(half, dtype=bool)
            best = max(best, box(np.where(h, mid, lo), np.where(h, hi, mid), poss, depth + 1))
            if best >= lower:
                break
        return best

    if len(free) == 1:
        return _sweep(T, terms, errs, holds[:, 0], m, r, lower, budget)
    return box(np.zeros(len(free)), np.ones(len(free)), np.arange(len(T)), 0)


def _grouped_terms(Rs: np.ndarray, T: np.ndarray, J: np.ndarray, dW: np.ndarray, hadW: np.ndarray, group_of: np.ndarray,
                   n_groups: int, r: int, budget) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per set of rows ``T`` and group of unit sets: the sum of the terms ``det(R_T[:, J]) det(WV[J])`` and of their
    rounding bounds, over the ``J`` of the group. Blocks of ``(T, J)`` pairs sized from the memory allowance (the
    ``(T, J, r, r)`` array of every minor at once was 5.4 GB for a 3 -> 30 -> 60 -> 5 network).
    """
    n_T, n_J = len(T), len(J)
    terms = np.zeros((n_T, n_groups))
    errs = np.zeros((n_T, n_groups))
    order = np.argsort(group_of, kind="stable")  # the unit sets of one group side by side: one reduceat per block
    J, dW, hadW, group_of = J[order], dW[order], hadW[order], group_of[order]
    # a block of b pairs holds its minors (r x r), their row norms, determinants, terms and bounds, twice over
    per_pair = 16 * (r * r + r + 4)
    pairs = budget.rows(per_pair, fraction=0.1, minimum=1)
    jb = int(min(n_J, pairs))
    tb = int(max(1, min(n_T, pairs // max(jb, 1))))
    for j0 in range(0, n_J, jb):
        Jc, gc = J[j0 : j0 + jb], group_of[j0 : j0 + jb]
        starts = np.flatnonzero(np.r_[True, gc[1:] != gc[:-1]])
        cols = gc[starts]
        dWc, hadWc = dW[j0 : j0 + jb], hadW[j0 : j0 + jb]
        for t0 in range(0, n_T, tb):
            budget.check("the image across its pieces: hyperplanes")
            Tc = T[t0 : t0 + tb]
            subR = Rs[Tc[:, None, :, None], Jc[None, :, None, :]]  # (tb, jb, r, r): R_T[:, J]
            block = np.linalg.det(subR) * dWc[None, :]
            bound = DET_MARGIN * np.prod(np.linalg.norm(subR, axis=3), axis=2) * hadWc[None, :]
            del subR
            terms[t0 : t0 + tb, cols] += np.add.reduceat(block, starts, axis=1)
            errs[t0 : t0 + tb, cols] += np.add.reduceat(bound, starts, axis=1)
    return terms, errs


def _sweep(T, terms, errs, holds, m: int, r: int, lower: int, budget) -> int:
    """The clique bound for one near unit: each determinant is ``alpha + beta theta`` on ``(0, 1]``.

    It can vanish only on an interval of slopes (where ``|alpha + beta theta|`` is within its
    rounding bound). Rows in one hyperplane share a slope, so for every ``(r - 1)``-subset ``S``
    the rows ``v`` with ``S + v`` possibly degenerate at a common slope are counted by stabbing
    those intervals: ``r - 1`` plus the deepest overlap bounds the clique.
    """
    alpha, beta = terms[:, ~holds].sum(axis=1), terms[:, holds].sum(axis=1)
    ea, eb = errs[:, ~holds].sum(axis=1), errs[:, holds].sum(axis=1)
    lo, hi = np.zeros(len(T)), np.ones(len(T))
    # alpha + beta t <= ea + eb t  and  -(alpha + beta t) <= ea + eb t: two half-lines each
    for c0, c1 in ((alpha - ea, beta - eb), (-alpha - ea, -beta - eb)):
        # c0 + c1 t <= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            root = np.where(c1 != 0, -c0 / c1, 0.0)
        never = (c1 == 0) & (c0 > 0)
        lo = np.where(c1 < 0, np.maximum(lo, root), lo)
        hi = np.where(c1 > 0, np.minimum(hi, root), hi)
        hi = np.where(never, -1.0, hi)
    keep = (hi > 0) & (hi >= lo)  # a non-empty part of (0, 1]
    if not keep.any():
        return r - 1
    budget.need(_PY_ENTRY * r * int(keep.sum()), f"the intervals of {int(keep.sum())} sets of {r} rows", fraction=0.5)
    events: dict[tuple, list[tuple[float, int]]] = {}
    for e, a, b in zip(T[keep].tolist(), lo[keep], hi[keep]):
        for sub in itertools.combinations(e, r - 1):
            events.setdefault(sub, []).extend(((a, 1), (b, -1)))
    best = 0
    for evs in events.values():
        depth = 0
        for _, step in sorted(evs, key=lambda x: (x[0], -x[1])):  # an interval opens before one closes at a tie
            depth += step
            best = max(best, depth)
    budget.check("the image across its pieces: hyperplanes")
    return r - 1 + best


def _largest_clique(edges: np.ndarray, m: int, d: int, lower: int, budget, *, exact: bool = True) -> int:
    """The most rows whose ``d``-subsets are all in ``edges``, or an upper bound of it (at least ``lower``).

    First a bound: a clique of ``q >= d`` rows holds a ``(d - 1)``-subset ``S`` with every other
    member ``v`` making ``S + v`` an edge, so ``q <= d - 1 + max_S (edges containing S)``. Only
    when that reaches ``lower`` is the clique searched exactly (at most CLIQUE_NODES steps;
    beyond that the bound is returned, which can only cost a certificate), and only if ``exact``.
    """
    if len(edges) == 0:
        return d - 1
    budget.need(_PY_ENTRY * (d + 1) * len(edges), f"the clique bound over {len(edges)} sets of {d} rows", fraction=0.5)
    counts: dict[tuple, int] = {}
    for e in edges.tolist():
        for sub in itertools.combinations(e, d - 1):
            counts[sub] = counts.get(sub, 0) + 1
    bound = d - 1 + max(counts.values())
    if bound < lower or not exact:
        return bound
    edge_set = {tuple(e) for e in edges.tolist()}
    verts = sorted({v for e in edge_set for v in e})
    best, steps = d - 1, 0

    def grow(chosen: list[int], cand: list[int]) -> bool:
        """False when the step limit is reached."""
        nonlocal best, steps
        steps += 1
        if steps % 1000 == 0:
            budget.check("the image across its pieces: hyperplanes")
        if steps > CLIQUE_NODES:
            return False
        best = max(best, len(chosen))
        if best >= lower or len(chosen) + len(cand) <= best:
            return True
        for t, v in enumerate(cand):
            subsets = itertools.combinations(chosen, d - 1) if len(chosen) >= d - 1 else ()
            if any(tuple(sorted(c + (v,))) not in edge_set for c in subsets):
                continue
            if not grow(chosen + [v], cand[t + 1 :]):
                return False
            if best >= lower:
                return True
        return True

    return best if grow([], verts) else bound


# -- far pairs: two copies of the encoding, one binary per row shared ---------------------------------------------


#: with ``near``: the first copy's input is first kept within this max-norm distance of the given point (normalised
#: inputs, about [-1, 1]^d), so that a pair found there starts near it
NEAR_BOX = 0.05
#: the share of the far-pair MILP's time that the search near the given point may use
NEAR_SHARE = 0.25
#: how often the far-pair MILPs of the coordinates left open are asked again, each time with the time left
FAR_ROUNDS = 2


def far_pairs(layers, desc, s, R, c0, Lq, Uq, budget, res: PiecesResult, *, linear: bool = False,
              near: np.ndarray | None = None) -> bool:  # fmt: skip
    """True when no two inputs at max-norm distance >= DELTA (normalised) collide; else maybe a candidate pair.

    ``linear``: the rows have no ReLU after them (both copies' values equal, whatever their sign). ``near``: a point
    (the caller's coordinates) where a pair is looked for first: the same MILP with the first copy's input within
    :data:`NEAR_BOX` of it, for both signs of each coordinate's difference, within :data:`NEAR_SHARE` of the time. It
    only searches (a pair found there is a candidate like any other); the proof is always the unconstrained model.
    """
    M = _Model(desc, s)
    x1 = np.arange(desc.n)
    z1 = _encode_into(M, x1, layers, relax=False)
    x2 = M.add_input(desc, s)
    z2 = _encode_into(M, x2, layers, relax=False)
    for i in range(R.shape[0]):
        lo, hi = Lq[i], Uq[i]
        if linear:
            M.add_row(np.r_[z1, z2], np.r_[R[i], -R[i]], 0.0, 0.0)
            continue
        if hi <= 0:
            continue  # off at both copies
        if lo >= 0:
            M.add_row(np.r_[z1, z2], np.r_[R[i], -R[i]], 0.0, 0.0)
            continue
        (a,) = M.add_vars(np.zeros(1), np.ones(1), integer=True)
        for z in (z1, z2):
            M.add_row(np.r_[z, a], np.r_[R[i], lo], lo - c0[i], np.inf)  # on: p >= 0; off: p >= lo
            M.add_row(np.r_[z, a], np.r_[R[i], -hi], -np.inf, -c0[i])  # off: p <= 0; on: p <= hi
        w = hi - lo
        M.add_row(np.r_[z1, z2, a], np.r_[R[i], -R[i], w], -np.inf, w)  # on: p1 = p2
        M.add_row(np.r_[z1, z2, a], np.r_[-R[i], R[i], w], -np.inf, w)
    cons, bounds, integrality = M.arrays()
    if near is not None and _near_pair(M, x1, x2, desc.n, s, cons, bounds, integrality, budget, res, near):
        return False
    # one MILP per coordinate; one left open (its solver stopped by the time with no pair and a weak bound) does not
    # end the search: a pair may come quicker from another coordinate, and a coordinate left open is asked again with
    # the time the others did not use (the proof needs every coordinate bounded)
    open_ = list(range(desc.n))
    for _ in range(FAR_ROUNDS):
        todo, open_, bound, no_bound = open_, [], 0.0, False  # the bounds of the coordinates still open, this round
        for j, t in enumerate(todo):
            budget.check("the image across its pieces: two-copy MILP")
            obj = np.zeros(M.n_vars)
            obj[x1[t]], obj[x2[t]] = -1.0, 1.0  # maximise x1_t - x2_t
            left = budget.remaining() / (len(todo) - j)
            sol = solve_model(obj, integrality, bounds, cons, time_limit=max(left, 0.05), binaries=int(integrality.sum()))
            if sol is not None and sol.x is not None and -float(sol.fun) > DELTA:
                res.status = "candidate pair"
                res.pair = (np.asarray(sol.x[x1]) * s, np.asarray(sol.x[x2]) * s)
                gap = float(np.max(np.abs(res.pair[0] - res.pair[1])))
                res.text = f"the two-copy MILP found two inputs at max-norm distance {gap:.3g} with the same output"
                return False
            if sol is None or sol.mip_dual_bound is None or not np.isfinite(sol.mip_dual_bound):
                no_bound = True
                open_.append(t)
                continue
            b = -float(sol.mip_dual_bound)
            if b >= 0.5 * DELTA:
                open_.append(t)
                bound = max(bound, b)
                continue
            res.far_bound = max(res.far_bound or 0.0, b)
        if not open_ or budget.remaining() <= 0.05:
            break
    if not open_:
        return True
    if bound > 0:
        res.far_bound = max(res.far_bound or 0.0, bound)
        res.text = f"the two-copy MILP allows colliding inputs up to {bound:.3g} apart (normalised): far pairs not ruled out"
    else:
        res.far_bound = None if no_bound and res.far_bound is None else res.far_bound
        res.text = "the two-copy MILP gave no bound" + (" (time limit)" if budget.expired() else "")
    return False


def _near_pair(M, x1, x2, n: int, s: float, cons, bounds, integrality, budget, res: PiecesResult, near) -> bool:
    """The far-pair MILP with the first copy within :data:`NEAR_BOX` of ``near``; True when it found a candidate."""
    from scipy.optimize import Bounds

    c = np.asarray(near, dtype=float).reshape(-1) / s
    lo, hi = np.array(bounds.lb, dtype=float), np.array(bounds.ub, dtype=float)
    lo[x1], hi[x1] = np.maximum(lo[x1], c - NEAR_BOX), np.minimum(hi[x1], c + NEAR_BOX)
    if c.shape[0] != x1.shape[0] or np.any(lo[x1] > hi[x1]):
        return False  # not a point of the domain's box: nothing to look for there
    box = Bounds(lo, hi)
    stop = time.perf_counter() + NEAR_SHARE * budget.remaining()
    for t, sign in itertools.product(range(n), (1.0, -1.0)):
        budget.check("two-copy MILP near the given point")
        left = stop - time.perf_counter()
        if left <= 0:
            return False
        obj = np.zeros(M.n_vars)
        obj[x1[t]], obj[x2[t]] = -sign, sign  # maximise sign * (x1_t - x2_t)
        sol = solve_model(obj, integrality, box, cons, time_limit=max(left, 0.05), binaries=int(integrality.sum()))
        if sol is not None and sol.x is not None and -float(sol.fun) > DELTA:
            res.status = "candidate pair"
            res.pair = (np.asarray(sol.x[x1]) * s, np.asarray(sol.x[x2]) * s)
            gap = float(np.max(np.abs(res.pair[0] - res.pair[1])))
            res.text = (f"the two-copy MILP found two inputs at max-norm distance {gap:.3g} with the same output, the first "
                        "near the given point (near=)")  # fmt: skip
            return True
    return False
