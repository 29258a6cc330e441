r"""The stages of the exact verdict's search (the state lives in :mod:`._state`):

* seeded samples and a greedy descent (cheap witnesses), witnesses from the reweighted LP
  relaxation on polyhedral domains, the zero-bias
  certificate for near-zero negative biases, one LP per hyperplane (small frames), and
  the counting MILPs with their cuts, round-robin over the subproblems.
"""

from __future__ import annotations

import time

import numpy as np

from .._util.budget import BudgetExhausted
from .._util.tolerances import COUNT_RETRY_RTOL, RADIUS_RTOL, RELAXATION_MARGIN_RTOL, RELAXATION_SHIFT_RTOL
from ._cases import zero_bias_faces
from ._hyperplanes import HyperplaneInfo
from ._milp import solve_count
from ._state import Run, Sub, lowest
from ._witness import active_rank, descend

__all__ = ["near_zero_bias", "zero_bias_certificate", "sample_search", "reweighted_search", "hyperplane_method",
           "milp_method"]  # fmt: skip


def near_zero_bias(run: Run) -> bool:
    """Every bias is <= 0, some is not 0, and all are within 5% of the domain's size of 0."""
    a = run.a
    return bool(np.all(a <= 0) and np.any(a < 0) and np.max(np.abs(a)) <= 0.05 * run.scale)


def zero_bias_certificate(run: Run, h: int) -> bool:
    """Try the zero-bias certificate on the faces of the cube with 40% of the remaining time."""
    subs = zero_bias_faces(run)
    if not subs:
        return False
    for sub in subs:
        if sub.region is None:  # 0-dimensional faces (n = 1): counted directly
            sub.certified = sub.lower > h
            sub.closed = True
    budget, notes = run.budget, list(run.notes)
    run.budget = budget.share(fraction=0.4)
    try:
        milp_method(run, subs, h, True, run.eps)
    except BudgetExhausted:
        pass  # the share ran out; the parent budget decides whether to go on
    finally:
        run.budget = budget
        run.notes[:] = notes  # the zero-bias attempt's own remarks are not about this layer
    if all(s.certified for s in subs):
        run.notes.append("the biases are <= 0 and near 0: certified at zero bias, which covers every bias <= 0")
        return True
    run.notes.append("the biases are <= 0 and near 0: the zero-bias certificate was tried first and did not settle it")
    return False


def sample_search(run: Run, subs: list, h: int, n_samples: int, rng) -> None:
    for sub in subs:
        if run.pair is not None or sub.region is None:
            continue
        if n_samples == 0:
            break
        run.report("samples")
        m = max(sub.Phi.shape[0], 1)
        N = max(1, min(n_samples, run.budget.rows(8 * (m + sub.Phi.shape[1]), fraction=0.1)))  # bounded memory
        S = sub.region.sample(N, rng)
        counts = np.empty(S.shape[0], dtype=np.int64)
        step = max(1, run.budget.rows(8 * m, fraction=0.05))
        for s0 in range(0, S.shape[0], step):
            counts[s0 : s0 + step] = (S[s0 : s0 + step] @ sub.Phi.T - sub.a >= 0).sum(axis=1)
            run.report("samples")
        order = np.argsort(counts, kind="stable")
        lifted_best = None
        for i in order[:50]:
            run.report("samples")
            z = sub.lift(S[i])
            if z is None:
                continue
            if lifted_best is None:
                lifted_best = int(counts[i])
                run.note_upper(lifted_best)
            if counts[i] <= h and run.try_witness(z):
                return
        # greedy descent from the few best points (each a short series of LPs)
        budget = min(0.1 * run.remaining(), 1.0 + 0.02 * run.remaining())
        stop = time.perf_counter() + budget
        for i in order[:5]:
            if time.perf_counter() > stop:
                break
            run.report("greedy descent")
            run.n_solves += 1
            if _descend_and_try(run, sub, S[i], h, stop):
                return


def _descend_and_try(run: Run, sub: Sub, z0: np.ndarray, h: int, stop: float) -> bool:
    """The greedy descent from ``z0``; its point, if it has at most ``h`` active rows, to ``run.try_witness``."""
    got = descend(sub.Phi, sub.a, sub.region, z0, target=h, deadline=stop)
    if got is None:
        return False
    z_s, count = got
    z = sub.lift(z_s)
    if z is None:
        return False
    run.note_upper(count)
    return count <= h and run.try_witness(z)


#: starts of :func:`reweighted_search` (the first with equal weights, the others random)
REWEIGHT_STARTS = 30
#: reweighting rounds per start
REWEIGHT_ROUNDS = 8


def reweighted_search(run: Run, subs: list, h: int, rng, share: float = 0.15) -> None:
    r"""Witnesses from the LP relaxation on polyhedral domains: reweighted :math:`\ell_1`, then the greedy descent.

    "The fewest active rows" is an :math:`\ell_0` problem over ``K`` (minimise the number of rows with
    :math:`\langle z, \phi_i\rangle \ge \alpha_i`); its LP relaxation minimises the weighted excess
    :math:`\sum_i w_i \max(0, \langle z, \phi_i\rangle - \alpha_i)`, and re-solving with weights
    :math:`w_i = 1/(\text{excess}_i + \delta)` drives the excess of most rows to 0 (Candès, Wakin and Boyd,
    "Enhancing sparsity by reweighted :math:`\ell_1` minimization", J. Fourier Anal. Appl. 14, 2008). Each
    start ends in :func:`._witness.descend`, which switches the remaining active rows off one at a time
    while the cell still meets ``K``; a point with at most ``h`` active rows goes to ``run.try_witness``,
    which proves the pair or drops it. Where samples miss the thin cells of wide layers on boxes and hulls
    (n = 16, m = 80) this found them within ten starts. At most ``share`` of the time left.
    """
    stop = time.perf_counter() + share * run.remaining()
    for sub in subs:
        region = sub.region
        if run.pair is not None:
            return
        if region is None or not region.witness_ok or not region.exact:
            continue  # no relaxation where the region only holds K (round domains)
        norms = np.linalg.norm(sub.Phi, axis=1)
        if not np.all(norms > 0):
            continue
        margin = RELAXATION_MARGIN_RTOL * region.scale * norms
        delta = RELAXATION_SHIFT_RTOL * region.scale * norms
        m = sub.Phi.shape[0]
        for start in range(REWEIGHT_STARTS):
            if time.perf_counter() > stop:
                return
            run.report("reweighted LP relaxation")
            w = np.ones(m) if start == 0 else rng.uniform(0.2, 2.0, m)
            z = None
            for _ in range(REWEIGHT_ROUNDS):
                got = region.relaxed_point(sub.Phi, sub.a, w, margin, time_limit=stop - time.perf_counter())
                run.n_solves += 1
                if got is None:
                    break
                z = got
                w = 1.0 / (np.maximum(sub.Phi @ z - sub.a, 0.0) + delta)
            if z is None:
                break  # no relaxation here (a round region) or an LP that fails: the next subproblem
            if _descend_and_try(run, sub, z, h, stop):
                return


def hyperplane_method(run: Run, subs: list, info: HyperplaneInfo, shift: float) -> bool:
    """One LP per (subproblem, hyperplane set); True when decided (pair or all cells empty).

    A cell counts as empty when it misses the domain at the bias ``a + shift`` (``shift =
    eps`` for a robust certificate, ``-tol`` for the boundary pass).
    """
    open_cells = 0
    for sub in subs:
        if sub.region is None:
            if sub.lower <= info.h and sub.lower >= 0:
                open_cells += 1
            continue
        norms = np.linalg.norm(sub.Phi, axis=1)
        eps = shift * norms
        for T in info.sets:
            run.report("hyperplane LPs")
            Z = ~T
            run.n_solves += 1
            if sub.region.cell_empty(sub.Phi[Z], sub.a[Z] + eps[Z]):
                continue
            p, _ = sub.region.cell_point(sub.Phi[Z], sub.a[Z])
            if p is not None and run.try_witness(sub.lift(p)):
                return True
            open_cells += 1
    if open_cells:
        run.notes.append(f"{open_cells} hyperplane cell(s) neither empty nor realised by a verified witness")
        return False
    for sub in subs:
        sub.certified = True
    return True


def milp_method(run: Run, subs: list, h: int, usable: bool, shift: float) -> None:
    """Counting MILPs at the bias ``a + shift``, round-robin over the subproblems until decided.

    On an exact region one solve settles it (optimum > h: certificate; else its incumbent's
    cell is realised with a margin: witness). On a round region an incumbent outside K
    yields a combinatorial Benders cut (a few rows of which every point of K has one on)
    and a tangent cut, and the MILP is solved again, then as a feasibility problem with
    the cutoff ``sum b <= h`` (it stops at the first candidate).
    """
    if shift < 0:
        for sub in subs:
            sub.covers = []  # covers are valid for the bias they were computed at
            sub.solves = 0
    open_subs = [s for s in subs if not (s.certified or s.closed) and s.region is not None]
    tried_margin: set[int] = set()
    while open_subs and run.pair is None:
        run.report("milp", lower=lowest(subs))
        if run.remaining() <= 0.05:
            break
        for sub in list(open_subs):
            if run.pair is not None or run.remaining() <= 0.05:
                break
            budget = run.remaining() / max(len(open_subs), 1)
            if sub.solves == 0 and budget > 5.0:
                budget *= 0.2  # a short first solve: its incumbent may already be a witness
            norms = np.linalg.norm(sub.Phi, axis=1)
            beta = sub.a + shift * norms
            if sub.bounds is None:
                sub.bounds = sub.region.row_bounds(sub.Phi)
                if shift >= 0:  # rows on all over the domain: a first, always valid lower bound
                    sub.lower = max(sub.lower, int((sub.bounds[0] > beta).sum()))
            res = solve_count(
                sub.Phi, beta, sub.region, time_limit=budget, bounds=sub.bounds, covers=sub.covers,
                cutoff=h if usable else None, feasibility=sub.solves > 0 and not sub.region.exact,
            )  # fmt: skip
            sub.solves += 1
            run.n_solves += 1
            if shift >= 0:  # bounds at a lowered bias are not bounds at alpha
                sub.lower = max(sub.lower, res.lower)
            run.report(f"milp {sub.name}".strip(), lower=lowest(subs))
            if res.lower > h and usable:
                sub.certified = True
                open_subs.remove(sub)
                continue
            if res.on is None or res.value is None or res.value > h:
                # no candidate below the threshold: only more time could help
                if res.status in ("optimal", "trivial", "infeasible") or (res.status == "time limit" and not usable):
                    sub.closed = True
                    open_subs.remove(sub)
                continue
            if _process_candidate(run, sub, res, beta, norms, h, tried_margin):
                continue
            sub.closed = True
            open_subs.remove(sub)


def _process_candidate(run: Run, sub: Sub, res, beta, norms, h: int, tried_margin: set) -> bool:
    """Turn an incumbent into a witness or a cut; True when the subproblem should be solved again."""
    Z = ~res.on
    region = sub.region
    if not region.exact:
        S, u = region.cover(sub.Phi[Z], beta[Z])
        if S is not None:
            sub.covers.append(np.flatnonzero(Z)[S])
            region.add_cut(u)
            return True
    p, cut = region.cell_point(sub.Phi[Z], sub.a[Z])
    if p is not None:
        z = sub.lift(p)
        if run.try_witness(z):
            return False
        if z is None:  # a zero-bias cover or a point at infinity: no point of K to judge
            why = "it is no point of K (a cover's candidate)"
        else:
            _, rank = active_rank(run.Phi, run.a, np.asarray(z, dtype=float))
            why = (f"its active rows span (rank {rank}: more than n - 1 frame vectors lie in one hyperplane)"
                   if rank >= run.Phi.shape[1] else f"no pair built there passed the check in K (rank {rank})")  # fmt: skip
        run.notes.append(f"{sub.name or 'MILP'}: a candidate with {res.value} active rows gave no witness: {why}")
        return False
    if not region.exact:
        if cut is not None and (res.z is None or (cut / np.linalg.norm(cut)) @ res.z > region.r * (1 + RADIUS_RTOL)):
            region.add_cut(cut)
            return True
        if res.z is not None and np.linalg.norm(res.z) > region.r * (1 + RADIUS_RTOL):
            region.add_cut(res.z)
            return True
    # the candidate leans on the tolerance: ask for a margin once
    if id(sub) not in tried_margin:
        tried_margin.add(id(sub))
        delta = max(COUNT_RETRY_RTOL * run.scale, 1e3 * run.eps)
        res2 = solve_count(
            sub.Phi, sub.a - delta * norms, region, time_limit=run.remaining() / 2, covers=None, cutoff=h, feasibility=True
        )
        run.n_solves += 1
        if res2.on is not None and res2.value is not None and res2.value <= h:
            Z2 = ~res2.on
            # cell_point gives (point, margin) or (None, cut): the second value is a cut only without a point
            p2, cut2 = region.cell_point(sub.Phi[Z2], sub.a[Z2])
            if p2 is not None:
                if run.try_witness(sub.lift(p2)):
                    return False
            elif cut2 is not None and not region.exact:
                region.add_cut(cut2)
                return True
    run.notes.append(f"{sub.name or 'MILP'}: the best candidate could not be realised inside K")
    return False


def _lower(subs: list) -> int | None:
    vals = [s.lower for s in subs]
    return None if any(v < 0 for v in vals) else min(vals)
