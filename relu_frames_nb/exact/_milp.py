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

import time
from dataclasses import dataclass

import numpy as np

from ._ldp import quiet

__all__ = ["MilpResult", "solve_count"]


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
) -> MilpResult:
    """Minimise the number of rows with ``<z, phi_i> > beta_i`` over ``region.outer()``."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix, hstack, vstack

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
    blocks = [hstack([csr_matrix(Phi[F]), csr_matrix((k, ne)), csr_matrix(-np.diag(M))])]
    lbs, ubs = [np.full(k, -np.inf)], [beta[F]]
    if D.A_ub.shape[0]:
        blocks.append(hstack([csr_matrix(D.A_ub), csr_matrix((D.A_ub.shape[0], k))]))
        lbs.append(np.full(D.A_ub.shape[0], -np.inf))
        ubs.append(D.b_ub)
    if D.A_eq.shape[0]:
        blocks.append(hstack([csr_matrix(D.A_eq), csr_matrix((D.A_eq.shape[0], k))]))
        lbs.append(D.b_eq)
        ubs.append(D.b_eq)
    A = vstack(blocks).tocsr()
    cons = LinearConstraint(A, np.concatenate(lbs), np.concatenate(ubs))
    c = np.r_[np.zeros(d + ne), np.ones(k)]
    integrality = np.r_[np.zeros(d + ne), np.ones(k)]
    var_bounds = Bounds(np.r_[D.lower, np.zeros(k)], np.r_[D.upper, np.ones(k)])
    options = {
        "time_limit": max(float(time_limit), 0.05),
        "disp": False,
        "mip_rel_gap": 0.0,
        # tighter than HiGHS's defaults (1e-6 / 1e-7), well below the eps and tol of the verdict
        "mip_feasibility_tolerance": 1e-9,
        "primal_feasibility_tolerance": 1e-9,
    }
    try:
        with quiet():
            res = milp(c, integrality=integrality, bounds=var_bounds, constraints=cons, options=options)
    except Exception:  # pragma: no cover - solver failure: no information
        return MilpResult("error", -1, None, None, None, time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    nodes = int(getattr(res, "mip_node_count", 0) or 0)
    if res.status == 2:
        return MilpResult("infeasible", 10**9, None, None, None, seconds, nodes)
    db = getattr(res, "mip_dual_bound", None)
    if db is None or not np.isfinite(db):
        lower = -1
    else:
        lower = n_forced + int(np.ceil(float(db) - 1e-6))
    z = on = value = None
    if res.x is not None:
        x = np.asarray(res.x)
        z = x[:d]
        on = forced.copy()
        on[F] = x[d + ne :] > 0.5
        value = int(on.sum())
    status = "optimal" if res.status == 0 else ("time limit" if res.status == 1 else "error")
    if status == "optimal" and value is not None:
        lower = max(lower, min(value, n_forced + int(np.ceil(float(res.fun) - 1e-6))))
    return MilpResult(status, lower, z, on, value, seconds, nodes)
