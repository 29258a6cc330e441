r"""Witnesses: from a point whose active rows do not span to a verified colliding pair.

The construction is the proof of Thm "Injectivity of ReLU layers II": at a point ``z`` of
``K`` whose active rows ``I`` miss a direction ``v`` (``<v, phi_i> = 0`` for ``i in I``)
and whose inactive rows are strictly inactive (margin ``mu > 0``), the points ``z`` and
``z + s v`` have the same output for ``0 < s < mu / max_i |<v, phi_i>|`` (inactive rows
stay off, active ones keep their value). If ``z`` lies on the boundary of ``K`` (by the domain's
own :meth:`~relu_frames_nb.domains.Domain.margin`, or, where the domain cannot say how far its
boundary is -- a hull in many dimensions --, when its membership is not proved) it is first moved a
little toward an interior point: the inactive rows keep a margin, and the new
active set is a subset of ``I`` (so it still fails to span). ``s`` is then also kept below
the distance to the boundary of ``K``. A sphere has no interior: there the second point is the
reflection of ``z`` across the complement of ``v`` (same norm, same active values), or a small
rotation within the fibre when the reflection would switch an inactive row on.

Also here: the cheap witness search (seeded samples of the region and a greedy descent
that switches rows off one at a time while a point of ``K`` remains in the cell).
"""

from __future__ import annotations

import time

import numpy as np

from .._util.lp import null_space
from .._util.tolerances import DIVISOR_FLOOR, RADIUS_RTOL, RANK_RTOL, WITNESS_DIRECTION_MIN, WITNESS_MARGIN_RTOL

__all__ = ["build_pair", "descend", "active_rank"]


def active_rank(Phi: np.ndarray, a: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, int]:
    """Active mask (``<z, phi_i> >= a_i`` in float64) and the rank of the active rows."""
    active = Phi @ z - a >= 0
    rows = Phi[active]
    if rows.shape[0] == 0:
        return active, 0
    s = np.linalg.svd(rows, compute_uv=False)
    return active, int(np.sum(s > RANK_RTOL * max(s[0], DIVISOR_FLOOR)))


def build_pair(Phi: np.ndarray, a: np.ndarray, K, z: np.ndarray, center: np.ndarray | None, *,
               expired=lambda: False):  # fmt: skip
    """A colliding pair ``(z1, z2)`` in ``K`` near ``z``, or None (see the module docstring).

    Returns ``(z1, z2, n_active, rank)`` with the active count and rank at ``z1``. ``expired``: the
    budget's clock, read between the membership proofs of the shrinking step (one can take an LP).
    """
    d = Phi.shape[1]
    scale = max(1.0, float(np.linalg.norm(z)))
    active, rank = active_rank(Phi, a, z)
    if rank >= d:
        return None
    rad = K.radial()
    if rad is not None and rad.surface:
        return _surface_pair(Phi, a, float(rad.r), z)
    rho = K.margin(z)
    # on (or near) the boundary -- also a point an LP left on a face of a hull, whose distance to the
    # boundary is unknown: pulled towards the interior point while the inactive rows stay inactive
    if (rho is not None and rho <= WITNESS_MARGIN_RTOL * scale) or (rho is None and not K.contains_certified(z)):
        if center is None:
            return None
        pre = Phi @ z - a
        mu = float(np.min(-pre[~active])) if np.any(~active) else np.inf
        dist = float(np.linalg.norm(center - z))
        if dist == 0:
            return None
        theta = min(1.0, 0.5 * mu / (dist * max(1.0, float(np.max(np.linalg.norm(Phi, axis=1))))))
        z = z + theta * (center - z)
        active, rank = active_rank(Phi, a, z)
        if rank >= d:
            return None
        rho = K.margin(z)
        if rho is not None and rho <= 0:
            return None
    pre = Phi @ z - a
    V = null_space(Phi[active], d, limit=1)
    if V.shape[1] == 0:
        return None
    v = V[:, 0]
    if np.any(~active):
        speed = np.abs(Phi[~active] @ v)
        gaps = -pre[~active]
        with np.errstate(divide="ignore"):
            s = 0.5 * float(np.min(np.where(speed > 0, gaps / np.maximum(speed, DIVISOR_FLOOR), np.inf)))
    else:
        s = np.inf
    s = min(s, scale)
    if rho is not None:
        s = min(s, 0.5 * rho)
    if not np.isfinite(s) or s <= 0:
        return None
    y = z + s * v
    if rho is None:  # unknown distance to the boundary: halve until membership is certain
        for _ in range(40):
            if expired():
                return None
            if K.contains_certified(y):
                break
            s *= 0.5
            y = z + s * v
        else:
            return None
    return z, y, int(active.sum()), rank


def _surface_pair(Phi: np.ndarray, a: np.ndarray, r: float, z: np.ndarray):
    """A colliding pair on the sphere ``|z| = r`` through ``z``: a reflection or a rotation within the fibre.

    A step along a null direction of the active rows leaves the sphere, so the pair stays on it instead:
    with ``p`` the part of ``z`` in the null space ``V`` of the active rows, ``y = z - 2 p`` (the reflection
    across ``V``'s complement) has the same norm and the same active values; when an inactive row would switch
    on there, ``y`` turns ``p`` by a small angle towards a second direction of ``V`` (``|y - z|`` below half of
    the inactive rows' margin). None when ``z`` lies in the span of its active rows (then it is alone in its
    fibre on the sphere) or no pair keeps the inactive rows off. Both points are still to be checked.
    """
    d = Phi.shape[1]
    nz = float(np.linalg.norm(z))
    if nz == 0:
        return None
    z = z * (r / nz)  # on the sphere to the last bit (points of LPs are a little off it)
    active, rank = active_rank(Phi, a, z)
    if rank >= d:
        return None
    V = null_space(Phi[active], d, limit=None if d <= 64 else 8)
    if V.shape[1] == 0:
        return None
    c = V.T @ z
    pn = float(np.linalg.norm(c))
    if pn <= RADIUS_RTOL * r:
        return None
    p = V @ c
    off = ~active
    gaps = a[off] - Phi[off] @ z  # > 0
    norms = np.linalg.norm(Phi[off], axis=1)
    y = z - 2.0 * p
    if not np.any(off) or np.all(Phi[off] @ y - a[off] < 0):
        return z, y, int(active.sum()), rank
    if V.shape[1] < 2:
        return None
    # a small rotation of p within V: |y - z| <= theta |p| keeps every inactive row off for theta below mu / |p|
    u = p / pn
    Q = V - np.outer(u, u @ V)  # the directions of V orthogonal to p
    k = int(np.argmax(np.linalg.norm(Q, axis=0)))
    w = Q[:, k]
    if not np.linalg.norm(w) > WITNESS_DIRECTION_MIN:
        return None
    w = w / np.linalg.norm(w)
    mu = float(np.min(gaps / np.maximum(norms, DIVISOR_FLOOR)))
    theta = min(0.5 * mu / pn, 0.5 * np.pi)
    if not theta > 0:
        return None
    y = (z - p) + np.cos(theta) * p + np.sin(theta) * pn * w
    return z, y, int(active.sum()), rank


def descend(Phi_s, a_s, region, z0, *, target: int, deadline: float):
    """Greedy: switch active rows off one at a time (closest first) while the cell still meets K.

    Returns ``(z, n_on)``: a point of the region (with a margin) and its number of active
    rows, or None when not even the starting cell could be realised with a margin.
    """
    pre = Phi_s @ z0 - a_s
    off = pre < 0
    order = np.flatnonzero(~off)
    order = order[np.argsort(pre[order])]
    z, _ = region.cell_point(Phi_s[off], a_s[off], time_limit=deadline - time.perf_counter()) if np.any(off) else (z0, None)
    if z is None:
        return None
    for j in order:
        if time.perf_counter() > deadline:
            break
        if int((~off).sum()) <= target:
            break
        trial = off.copy()
        trial[j] = True
        p, _ = _cell(region, Phi_s[trial], a_s[trial], deadline - time.perf_counter())
        if p is not None:
            off, z = trial, p
    return z, int((Phi_s @ z - a_s >= 0).sum())


def _cell(region, Phi_Z, a_Z, time_limit=None):
    """A point of the cell for the witness search (``time_limit``: a stopped solver means no point, never a proof)."""
    fast = getattr(region, "cell_point_fast", None)
    return fast(Phi_Z, a_Z, time_limit) if fast is not None else region.cell_point(Phi_Z, a_Z, time_limit)
