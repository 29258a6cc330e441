r"""The counting MILP: the fewest active rows over an (outer) polytope, by HiGHS.

Variables ``(z, w, b)``: ``z`` the point (continuous), ``w`` the domain's extra variables
(e.g. the convex weights of a hull), ``b_i in {0, 1}`` for every row that can switch on the
polytope ``P``. Minimise ``sum b_i`` subject to

.. math:: \langle z, \phi_i\rangle - M_i b_i \le \beta_i, \qquad z \in P,

with ``M_i = max_P <z, phi_i> - beta_i``. Rows with ``max_P <z, phi_i> <= beta_i`` can be
off everywhere (dropped); rows with ``min_P <z, phi_i> > beta_i`` are on everywhere (a
constant). With ``beta = alpha + eps`` every point of ``P`` with its true active set is a
feasible solution with slack ``eps`` in the rows that are off, so the solver's dual bound is
a lower bound of ``min_P |I_z|`` that survives its own feasibility tolerances (``eps`` is
well above them); with ``beta = alpha - delta`` every solution is a point whose inactive
rows have a margin ``delta`` (a witness candidate).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

import numpy as np

from .._util.children import die_with_parent
from .._util.lp import quiet
from ..pipeline.tolerances import DUAL_BOUND_SLACK, MILP_FEASIBILITY

__all__ = ["MilpResult", "solve_count", "solve_model", "SUBPROCESS_BINARIES"]

#: models with more binaries than this are solved in a child process that is killed at the
#: time limit: HiGHS checks its limit too rarely on large models (a 10^5 x 3 layer's presolve
#: ran 375 s past a 30 s limit in the solver's own process). The environment variable
#: ``RFNB_MILP_CHILD=always`` sends every solve to a child (the interrupt tests use it).
SUBPROCESS_BINARIES = 3000
#: ... and so are models with more non-zero coefficients than this, whatever their binaries: a
#: 1024 x 784 layer on the hull of 500 points (1024 binaries, 1.3 million coefficients) ran 60 s
#: past a 6 s limit in HiGHS's presolve at load 8, where its own clock is not read
SUBPROCESS_NONZEROS = 200_000


def _nonzeros(cons) -> int:
    """The non-zero coefficients of the constraints (``LinearConstraint`` objects, dense or sparse)."""
    total = 0
    for con in cons if isinstance(cons, (list, tuple)) else [cons]:
        A = getattr(con, "A", None)
        if A is None:
            continue
        total += int(A.nnz) if hasattr(A, "nnz") else int(np.count_nonzero(A))
    return total


@dataclass(frozen=True)
class _Solution:
    status: int
    x: np.ndarray | None
    fun: float | None
    mip_dual_bound: float | None
    mip_node_count: int


def _solve(c, integrality, var_bounds, cons, options) -> _Solution:
    from scipy.optimize import milp

    with quiet():
        res = milp(c, integrality=integrality, bounds=var_bounds, constraints=cons, options=options)
    return _Solution(int(res.status), None if res.x is None else np.asarray(res.x), res.fun,
                     getattr(res, "mip_dual_bound", None), int(getattr(res, "mip_node_count", 0) or 0))  # fmt: skip


def _child(conn, args, parent: int) -> None:  # pragma: no cover - runs in the child process
    die_with_parent(parent)
    try:
        conn.send(_solve(*args))
    except BaseException as exc:  # report, never hang the parent
        conn.send(exc)
    finally:
        conn.close()


def _solve_killable(args, seconds: float) -> _Solution | None:
    """Solve in a child process; None when it is not done ``seconds`` after the start (then it is killed).

    The child is forked where the platform can (it only runs the solve, and needs no import of
    the caller's main module, which a ``python -`` script or a notebook may not have as a file).
    It dies with its parent (:func:`relu_frames_nb._util.children.die_with_parent`), and the parent
    kills it on the way out, also when interrupted.
    """
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, args, os.getpid()), daemon=True)
    proc.start()
    child.close()
    try:
        # inf, or beyond what the OS can wait (about 9.2e9 s), raised OverflowError: the longest wait there is
        if parent.poll(min(float(seconds), threading.TIMEOUT_MAX)):
            out = parent.recv()
            if isinstance(out, BaseException):
                raise out
            return out
        return None
    except EOFError:  # the child died (e.g. out of memory): no information
        return None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()


def solve_model(c, integrality, var_bounds, cons, *, time_limit: float, binaries: int) -> _Solution | None:
    """One ``scipy.optimize.milp`` solve with the package's tolerances; None when a child solve was killed.

    Tolerances are tighter than HiGHS's defaults (1e-6 / 1e-7), well below the margins the
    callers put into their models. Models with more than :data:`SUBPROCESS_BINARIES` binaries or
    :data:`SUBPROCESS_NONZEROS` coefficients (or all of them, with ``RFNB_MILP_CHILD=always``) are
    solved in a child process that is killed a second after the limit. Solver errors propagate.
    """
    options = {
        "time_limit": max(float(time_limit), 0.05),
        "disp": False,
        "mip_rel_gap": 0.0,
        "mip_feasibility_tolerance": MILP_FEASIBILITY,
        "primal_feasibility_tolerance": MILP_FEASIBILITY,
    }
    args = (c, integrality, var_bounds, cons, options)
    if (binaries > SUBPROCESS_BINARIES or _nonzeros(cons) > SUBPROCESS_NONZEROS
            or os.environ.get("RFNB_MILP_CHILD") == "always"):
        # the child gets the limit plus a second for starting it; killed after that
        return _solve_killable(args, options["time_limit"] + 1.0)
    return _solve(*args)


@dataclass(frozen=True)
class MilpResult:
    """Outcome of one solve.

    ``lower`` is a valid lower bound of the fewest active rows (at bias ``beta``) over ``P``
    (``-1`` when the solver gave none); ``z``/``on`` the incumbent and its rows allowed on
    (forced rows included), ``value`` its count; ``status`` one of ``"optimal"``,
    ``"time limit"``, ``"infeasible"``, ``"trivial"`` (no free row: no solve) or ``"error"``.
    """

    status: str
    lower: int
    z: np.ndarray | None
    on: np.ndarray | None
    value: int | None
    seconds: float
    nodes: int = 0


def solve_count(
    Phi: np.ndarray,
    beta: np.ndarray,
    region,
    *,
    time_limit: float,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
    covers: list | None = None,
    cutoff: int | None = None,
    feasibility: bool = False,
) -> MilpResult:
    """Minimise the number of rows with ``<z, phi_i> > beta_i`` over ``region.outer()``.

    ``covers``: index sets ``S`` of rows of which every point of ``K`` has one on
    (``sum_{i in S} b_i >= 1``). ``cutoff``: only solutions with at most that many rows on
    are wanted (a row ``sum b <= cutoff``; when none exists the lower bound is
    ``cutoff + 1``). ``feasibility``: stop at the first such solution (zero objective; the
    lower bound is then only known when the model is infeasible).
    """
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import csr_matrix, diags, hstack, vstack

    t0 = time.perf_counter()
    m, d = Phi.shape
    L, U = region.row_bounds(Phi) if bounds is None else bounds
    forced = L > beta
    free = (~forced) & (U > beta)
    F = np.flatnonzero(free)
    n_forced = int(forced.sum())
    if F.size == 0:
        # every point has exactly the forced rows on (at bias beta)
        on = forced.copy()
        return MilpResult("trivial", n_forced, None, on, n_forced, time.perf_counter() - t0)
    D = region.outer()
    ne = D.n_extra
    k = F.size
    M = U[F] - beta[F]
    blocks = [hstack([csr_matrix(Phi[F]), csr_matrix((k, ne)), diags(-M, format="csr")])]
    lbs, ubs = [np.full(k, -np.inf)], [beta[F]]
    if D.A_ub.shape[0]:
        blocks.append(hstack([csr_matrix(D.A_ub), csr_matrix((D.A_ub.shape[0], k))]))
        lbs.append(np.full(D.A_ub.shape[0], -np.inf))
        ubs.append(D.b_ub)
    if D.A_eq.shape[0]:
        blocks.append(hstack([csr_matrix(D.A_eq), csr_matrix((D.A_eq.shape[0], k))]))
        lbs.append(D.b_eq)
        ubs.append(D.b_eq)
    col = -np.ones(m, dtype=np.intp)
    col[F] = np.arange(k)
    for S in covers or ():
        S = np.asarray(S, dtype=np.intp)
        if forced[S].any():
            continue  # satisfied by a row that is on everywhere
        idx = col[S][col[S] >= 0]
        if idx.size == 0:  # pragma: no cover - would mean K is empty
            continue
        blocks.append(csr_matrix((np.ones(idx.size), (np.zeros(idx.size, int), d + ne + idx)), shape=(1, d + ne + k)))
        lbs.append(np.ones(1))
        ubs.append(np.full(1, np.inf))
    if cutoff is not None:
        if cutoff - n_forced < 0:
            return MilpResult("infeasible", cutoff + 1, None, None, None, time.perf_counter() - t0)
        row = np.zeros((1, d + ne + k))
        row[0, d + ne :] = 1.0
        blocks.append(csr_matrix(row))
        lbs.append(np.full(1, -np.inf))
        ubs.append(np.full(1, float(cutoff - n_forced)))
    A = vstack(blocks).tocsr()
    cons = LinearConstraint(A, np.concatenate(lbs), np.concatenate(ubs))
    c = np.r_[np.zeros(d + ne), np.zeros(k) if feasibility else np.ones(k)]
    integrality = np.r_[np.zeros(d + ne), np.ones(k)]
    var_bounds = Bounds(np.r_[D.lower, np.zeros(k)], np.r_[D.upper, np.ones(k)])
    try:
        res = solve_model(c, integrality, var_bounds, cons, time_limit=time_limit, binaries=k)
        if res is None:
            return MilpResult("time limit", -1, None, None, None, time.perf_counter() - t0)
    except Exception:  # pragma: no cover - solver failure: no information
        return MilpResult("error", -1, None, None, None, time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    nodes = res.mip_node_count
    if res.status == 2:
        return MilpResult("infeasible", 10**9 if cutoff is None else cutoff + 1, None, None, None, seconds, nodes)
    db = res.mip_dual_bound
    if feasibility or db is None or not np.isfinite(db):
        lower = -1
    else:
        lower = n_forced + int(np.ceil(float(db) - DUAL_BOUND_SLACK))
        if cutoff is not None:
            lower = min(lower, cutoff + 1)
    z = on = value = None
    if res.x is not None:
        x = np.asarray(res.x)
        z = x[:d]
        on = forced.copy()
        on[F] = x[d + ne :] > 0.5
        value = int(on.sum())
    status = "optimal" if res.status == 0 else ("time limit" if res.status == 1 else "error")
    if status == "optimal" and value is not None and not feasibility:
        lower = max(lower, min(value, n_forced + int(np.ceil(float(res.fun) - DUAL_BOUND_SLACK))))
    return MilpResult(status, lower, z, on, value, seconds, nodes)
