"""The big-M encoding of a network's first layers over a domain, shared by the image checks.

``x in P`` (a polytope containing the domain, scaled by a power of two) and every unit of the
layers before the checked one: ``h = max(p, 0)`` exactly at integral points (see
:mod:`relu_frames_nb.network.image` for the formulation and its source). One model may hold
several copies of the input and the layers (:mod:`relu_frames_nb.network.pieces` uses two).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._util.tolerances import BOUND_WIDEN_ONE_RTOL, BOUND_WIDEN_RTOL
from ..domains import Domain, LinearDescription
from ..exact import RoundRegion, solve_model


@dataclass
class _Layer:
    """One earlier layer in the model's scaled units: ``p' = A v + c`` with ``v`` the previous variables."""

    A: np.ndarray  # (width, previous width), in scaled units
    c: np.ndarray
    lo: np.ndarray  # bounds of p' (scaled)
    hi: np.ndarray
    scale: np.ndarray  # h = scale * h'


def _input_description(K: Domain, W1: np.ndarray) -> tuple[LinearDescription, float]:
    """A polytope containing K (K itself when polyhedral) and the power of two that scales it to about 1."""
    rad = K.radial()
    if rad is not None and not K.polyhedral:
        desc = RoundRegion(K.n, rad.r, W1, s=rad.s, positive=rad.nonnegative, sphere=rad.surface).outer()
    else:
        desc = K.outer_polytope()
        if desc is None:
            raise ValueError(f"{K.describe()} is unbounded: the image of the layers before cannot be encoded")
    big = float(np.max(np.abs(np.r_[desc.lower[: desc.n], desc.upper[: desc.n]]), initial=0.0))
    s = 2.0 ** np.round(np.log2(big)) if big > 0 and np.isfinite(big) else 1.0
    return desc, float(s)


class _Model:
    """Variables ``[x' | extra | h'_1 | ... | h'_{k-1} | delta (undecided units) | ...]``, more copies appended.

    ``x = s x'`` with ``s`` a power of two; ``h_j = scale_j * h'_j`` per unit, so every undecided
    unit lies in ``[0, 1]``. Rows are collected as sparse triplets.
    """

    def __init__(self, desc: LinearDescription, s: float):
        self.n_vars = 0
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.integer: list[int] = []
        self.rows: list[tuple[np.ndarray, np.ndarray, float, float]] = []  # (cols, vals, lb, ub)
        self.add_input(desc, s)

    def add_input(self, desc: LinearDescription, s: float) -> np.ndarray:
        """A copy of ``x' in P/s`` (with the description's extra variables); returns the indices of ``x'``."""
        n, ne = desc.n, desc.n_extra
        idx = self.add_vars(np.r_[desc.lower[:n] / s, desc.lower[n:]], np.r_[desc.upper[:n] / s, desc.upper[n:]])
        colscale = np.r_[np.full(n, s), np.ones(ne)]
        for A, b, eq in ((desc.A_ub, desc.b_ub, False), (desc.A_eq, desc.b_eq, True)):
            A = np.asarray(A, dtype=float) * colscale
            for i in range(A.shape[0]):
                cols = np.flatnonzero(A[i])
                norm = float(np.max(np.abs(A[i][cols]), initial=0.0)) or 1.0
                self.rows.append((idx[cols], A[i][cols] / norm, b[i] / norm if eq else -np.inf, b[i] / norm))
        return idx[:n]

    def add_vars(self, lo: np.ndarray, hi: np.ndarray, integer: bool = False) -> np.ndarray:
        idx = np.arange(self.n_vars, self.n_vars + len(lo))
        self.n_vars += len(lo)
        self.lower += list(lo)
        self.upper += list(hi)
        self.integer += list(np.zeros(len(lo), int) + int(integer))
        return idx

    def add_row(self, cols: np.ndarray, vals: np.ndarray, lb: float, ub: float) -> None:
        keep = vals != 0
        self.rows.append((np.asarray(cols)[keep], np.asarray(vals, dtype=float)[keep], float(lb), float(ub)))

    def arrays(self):
        from scipy.optimize import Bounds, LinearConstraint
        from scipy.sparse import csr_matrix

        r = np.concatenate([np.full(len(c), i) for i, (c, _, _, _) in enumerate(self.rows)]) if self.rows else np.zeros(0, int)
        c = np.concatenate([c for c, _, _, _ in self.rows]) if self.rows else np.zeros(0, int)
        v = np.concatenate([v for _, v, _, _ in self.rows]) if self.rows else np.zeros(0)
        A = csr_matrix((v, (r, c)), shape=(len(self.rows), self.n_vars))
        cons = LinearConstraint(A, np.array([lb for *_, lb, _ in self.rows]), np.array([ub for *_, ub in self.rows]))
        integrality = np.asarray(self.integer, dtype=float)
        return cons, Bounds(np.array(self.lower), np.array(self.upper)), integrality


def _encode(desc, s, layers: list[_Layer], *, relax: bool, margin: float = 0.0) -> tuple[_Model, np.ndarray]:
    """The model of ``x in P`` and the earlier layers; returns it and the indices of the last layer's ``h'``.

    ``relax``: the binaries continuous in [0, 1] (the LP relaxation used to tighten bounds).
    ``margin``: every undecided unit at least that far from its kink (witness models).
    """
    M = _Model(desc, s)
    return M, _encode_into(M, np.arange(desc.n), layers, relax=relax, margin=margin)


def _encode_into(M: _Model, prev: np.ndarray, layers: list[_Layer], *, relax: bool, margin: float = 0.0) -> np.ndarray:
    """Add the earlier layers on the input variables ``prev`` to ``M``; returns the last layer's ``h'``."""
    deltas: list[tuple[np.ndarray, np.ndarray, _Layer, np.ndarray]] = []
    for L in layers:
        width = L.A.shape[0]
        on = L.lo >= 0
        off = L.hi <= 0
        hi_h = np.where(off, 0.0, np.maximum(L.hi, 0.0))
        h = M.add_vars(np.zeros(width), hi_h)
        for i in np.flatnonzero(on):  # h' = p'
            M.add_row(np.r_[h[i], prev], np.r_[1.0, -L.A[i]], L.c[i], L.c[i])
        und = np.flatnonzero(~on & ~off)
        deltas.append((h, prev, L, und))
        prev = h
    # the binaries after the layers' outputs (one integrality flag per variable, so any order works)
    for h, prev_idx, L, und in deltas:
        if und.size == 0:
            continue
        d = M.add_vars(np.zeros(und.size), np.ones(und.size), integer=not relax)
        for j, i in enumerate(und):
            a, c, lo, hi = L.A[i], L.c[i], L.lo[i], L.hi[i]
            M.add_row(np.r_[h[i], prev_idx], np.r_[1.0, -a], c, np.inf)  # h >= p
            M.add_row(np.r_[h[i], prev_idx, d[j]], np.r_[1.0, -a, -lo], -np.inf, c - lo)  # h <= p - lo (1 - delta)
            M.add_row(np.r_[h[i], d[j]], np.r_[1.0, -hi], -np.inf, 0.0)  # h <= hi delta
            if margin > 0:
                mu = min(margin, 0.5 * min(-lo, hi))
                M.add_row(np.r_[prev_idx, d[j]], np.r_[a, -(mu - lo)], lo - c, np.inf)  # p >= mu when on
                M.add_row(np.r_[prev_idx, d[j]], np.r_[a, -(hi + mu)], -np.inf, -mu - c)  # p <= -mu when off
    return prev


def _solve_lp(arrays: tuple, n_vars: int, objective: dict[int, float], time_limit: float) -> float | None:
    cons, bounds, _ = arrays
    c = np.zeros(n_vars)
    for j, v in objective.items():
        c[j] += v
    res = solve_model(c, np.zeros(n_vars), bounds, cons, time_limit=time_limit, binaries=0)
    if res is None or res.status != 0 or res.fun is None:
        return None
    return float(res.fun)


def _widen(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = BOUND_WIDEN_RTOL * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
    return lo - w, hi + w


def _widen_one(v: float, side: int) -> float:
    return v + side * BOUND_WIDEN_ONE_RTOL * max(1.0, abs(v))
