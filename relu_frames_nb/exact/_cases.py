r"""The special cases of the exact verdict, and how a domain becomes counting problems.

* :func:`finite_result`: a finite data set (outputs compared directly; local invertibility);
* :func:`prepare`: the domain's own affine coordinates (degenerate boxes, hulls of data in a
  subspace), unit-norm rows, weights that do not span (a null-space pair);
* :func:`subproblems`: the counting problems. Usually one (the domain itself). With zero
  bias and the origin in ``K`` the active set of ``x != 0`` depends only on the direction
  ``x / |x|_inf``, which lies on a face ``{u_j = ±1}`` of the cube ``[-1, 1]^d`` within the
  cone of directions of ``K``: one box problem per face, where the degenerate origin (every
  hyperplane through it) no longer appears. ``R^n`` with a bias is homogenised:
  ``<x, phi_i> >= a_i`` iff ``<(x, 1), (phi_i, -a_i)> >= 0``, a zero-bias problem on the
  half-space ``t >= 0`` of ``R^{d+1}`` (directions with ``t = 0`` are limits; they can only
  lower the bound, and witnesses need ``t > 0``).

Everything about the domain is asked of the domain (its affine coordinates, interior point,
cone of directions, where a ray meets it); no domain class is named here.
"""

from __future__ import annotations

import time

import numpy as np

from .._util.pairs import PAIR_RTOL, collides
from .._util.tolerances import DIVISOR_FLOOR, NORM_RTOL, UNIT_ZERO_TOL
from ._hyperplanes import HyperplaneInfo
from ._regions import PolyRegion, RoundRegion, region_for, shell_pieces
from ._result import make_result, short_vec
from ._state import Run, Sub
from ._witness import active_rank

__all__ = ["finite_result", "prepare", "subproblems", "unsupported", "zero_bias_faces"]


def unsupported(K) -> str:
    """A reason when the exact verdict cannot treat ``K`` (empty string otherwise)."""
    if K.finite or K.polyhedral or K.whole_space or (K.bounded and K.radial() is not None):
        return ""
    return (
        f"the exact verdict handles boxes, polytopes, hulls, balls, shells, spheres, the positive ball, R^n and "
        f"finite data sets; got {K!r}"
    )


# ---------------------------------------------------------------------------------
# finite data sets
# ---------------------------------------------------------------------------------


def finite_result(W, alpha, K, t0, budget):
    """Exact on a finite set: injective iff no two distinct points share an output.

    Outputs are compared within each pattern of positive outputs (the others are exactly 0) by a
    k-d tree in the max-norm with a radius above every tolerance of the pair check, and each
    candidate is confirmed by the one pair check (:func:`relu_frames_nb._util.pairs.collides`).
    Where the layer is invertible near each point is a separate question
    (:func:`relu_frames_nb.local_invertibility`, which :func:`relu_frames_nb.check` adds to the
    verdict within the time that is left).
    """
    from scipy.spatial import cKDTree

    X = np.asarray(K.points)
    pre = X @ W.T - alpha
    Z = np.maximum(pre, 0.0)
    notes: list[str] = []
    info = HyperplaneInfo(0, False, "not needed on a finite set")
    wmax = float(np.max(np.linalg.norm(W, axis=1))) if W.size else 0.0
    rounding = 4 * (W.shape[1] + 2) * 2.0**-53 * (wmax * K.radius + float(np.max(np.abs(alpha), initial=0.0)))
    q = 2.0 * (PAIR_RTOL * wmax * 2.0 * K.radius + 2.0 * rounding)
    # outputs are compared within each pattern of positive entries (the other entries are exactly 0)
    positive, pos_inverse = np.unique(pre > 0, axis=0, return_inverse=True)
    pos_inverse = pos_inverse.reshape(-1)
    for g in range(positive.shape[0]):
        budget.check("finite set: comparing outputs")
        idx = np.flatnonzero(pos_inverse == g)
        if idx.size < 2:
            continue
        cols = positive[g]
        pts = Z[np.ix_(idx, cols)] if cols.any() else np.zeros((idx.size, 1))
        for i, j in sorted(cKDTree(pts).query_pairs(q, p=np.inf)):
            a, b = idx[i], idx[j]
            if not collides(W, alpha, X[a], X[b]):
                continue
            text = f"not injective on {K.describe()} — data points {a} and {b} are distinct and have the same output"
            rank = int(np.linalg.matrix_rank(W[cols])) if cols.any() else 0
            return make_result(K, "not injective", None, None, info, (X[a], X[b]), time.perf_counter() - t0, 0,
                               "finite set", notes, text, int(cols.sum()), rank)  # fmt: skip
    text = f"injective on {K.describe()} — proof: no two distinct points share an output (compared directly)"
    return make_result(K, "injective", None, None, info, None, time.perf_counter() - t0, 0, "finite set", notes, text)


# ---------------------------------------------------------------------------------
# reduction
# ---------------------------------------------------------------------------------


def _reduce(K):
    """The domain in its own affine coordinates: ``(coords, K_r, note)``."""
    coords, Kr = K.in_affine_coordinates()
    if coords.identity:
        return coords, Kr, ""
    if Kr is None:
        return coords, None, "the domain is a single point"
    if coords.index is not None:
        fixed = K.n - coords.d
        return coords, Kr, f"the box fixes {fixed} coordinate(s): the verdict works in the other {coords.d}"
    return coords, Kr, f"the data's affine hull has dimension {coords.d} < {K.n}: the verdict works in that subspace"


def prepare(W, alpha, K, t0, budget, eps, tol):
    """The run state (reduced, unit rows), or an early result (single point, null space)."""
    coords, Kr, note = _reduce(K)
    notes = [note] if note else []
    Wr = coords.rows(W)
    ar = alpha - coords.offset(W)
    norms = np.linalg.norm(Wr, axis=1)
    wn = np.linalg.norm(W, axis=1)
    keep = norms > NORM_RTOL * np.maximum(wn, DIVISOR_FLOOR)
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} row(s) are constant on the domain (no direction within it) and ignored")
    d = coords.d
    if Kr is None or d == 0:
        info = HyperplaneInfo(0, True, "not needed: the domain is a single point")
        text = f"injective on {K.describe()} — the domain is a single point"
        return None, make_result(K, "injective", None, None, info, None, time.perf_counter() - t0, 0, "single point",
                                 notes, text)  # fmt: skip
    Phi = Wr[keep] / norms[keep, None]
    a = ar[keep] / norms[keep]
    scale = 1.0 if Kr.whole_space else (float(Kr.radius) or 1.0)  # the front door made it about 1
    run = Run(
        W=W, alpha=alpha, K=K, Kr=Kr, coords=coords, Phi=Phi, a=a, center=Kr.interior_point(),
        budget=budget, eps=eps * scale, tol=tol * scale, scale=scale, notes=notes, rows=(Wr[keep], ar[keep]),
    )  # fmt: skip
    rank = np.linalg.matrix_rank(Phi) if Phi.shape[0] else 0
    if rank < d:
        info = HyperplaneInfo(Phi.shape[0], True, f"the weights span only {rank} of {d} dimensions")
        z = run.center
        # every row is blind to v: z and z + v have the same pre-activations, so the same output
        v = None if z is None else Kr.fibre_direction(Phi)
        ok = False
        if v is not None:
            act, rk = active_rank(Phi, a, z)
            ok = run.try_pair(z, z + v, int(act.sum()), rk)
        ok = ok or (z is not None and run.try_witness(z))
        if ok:
            n_act, rk = run.pair_info
            x, y = run.pair
            text = (
                f"not injective on {K.describe()} — the weights have rank {rank} < {d}: x = {short_vec(x)} and "
                f"y = x + t v with v in their null space (|x − y| = {np.linalg.norm(x - y):.2g}) have the same output"
            )
            return run, make_result(K, "not injective", 0, n_act, info, run.pair, time.perf_counter() - t0, 0, "null space",
                                    notes, text, n_act, rk, dim=d)  # fmt: skip
        notes.append(f"the weights have rank {rank} < {d}, but no pair inside the domain could be verified")
        text = f"undetermined on {K.describe()} — the weights have rank {rank} < {d} but no verified pair in the domain"
        return run, make_result(K, "undetermined", None, None, info, None, time.perf_counter() - t0, 0, "null space",
                                notes, text)  # fmt: skip
    if Kr.polyhedral and not Kr.full_dimensional:
        notes.append("the polytope has empty interior: certificates hold, witnesses usually cannot be built")
    return run, None


# ---------------------------------------------------------------------------------
# counting problems
# ---------------------------------------------------------------------------------


def _faces(Phi, signs, make_lift, prefix=""):
    """One box problem per face ``u_j = sigma`` of the cube within the cone given by ``signs``."""
    d = Phi.shape[1]
    subs = []
    for j in range(d):
        for sigma in signs[j]:
            others = [k for k in range(d) if k != j]
            name = f"{prefix}face u{j + 1} = {'+' if sigma > 0 else '−'}1"
            a_face = -sigma * Phi[:, j]
            if not others:
                # a 0-dimensional face: the direction sigma itself, counted directly
                count = int((sigma * Phi[:, 0] >= 0).sum())
                sub = Sub(name, Phi[:, :0], a_face, None, make_lift(j, sigma, []))
                sub.lower = count
                sub.certified = False
                subs.append(sub)
                continue
            lo = np.array([-1.0 if -1 in signs[k] else 0.0 for k in others])
            hi = np.array([1.0 if 1 in signs[k] else 0.0 for k in others])
            subs.append(Sub(name, Phi[:, others], a_face, PolyRegion.box(lo, hi), make_lift(j, sigma, others)))
    return subs


def zero_bias_faces(run):
    """The face problems of the same frame at zero bias, or None when the domain's cone is not known.

    A certificate there proves the rectifying property for every bias ``<= 0`` on every
    domain (smaller biases only enlarge active sets), which settles near-zero negative
    biases where the direct problem is degenerate (all hyperplanes pass close to 0).
    """
    Phi, Kr = run.Phi, run.Kr
    signs = Kr.cone_signs()
    if signs is None:
        return None

    def make_lift(j, sigma, others):
        return lambda w: None  # no witness at zero bias is a witness at the layer's bias

    return _faces(Phi, signs, make_lift, prefix="zero bias ")


def subproblems(run):
    """The counting problems of the run (see the module docstring)."""
    Phi, a, Kr = run.Phi, run.a, run.Kr
    d = Phi.shape[1]
    homogeneous = bool(np.all(a == 0))
    if homogeneous:
        signs = Kr.cone_signs()
        if signs is not None:

            def make_lift(j, sigma, others):
                def lift(w):
                    u = np.empty(d)
                    u[j] = sigma
                    u[others] = w
                    return Kr.move_inside(u)

                return lift

            run.notes.append("zero bias: active sets depend on the direction only; solved on the faces of the cube")
            subs = _faces(Phi, signs, make_lift)
            _finish_points(run, subs)
            return subs
        if not Kr.whole_space and Kr.contains(np.zeros(d)):
            run.notes.append("zero bias with the origin in the domain: the count bound is weak near 0 (every row is on there)")
    if Kr.whole_space:
        lifted = np.hstack([Phi, -a[:, None]])
        lifted /= np.linalg.norm(lifted, axis=1, keepdims=True)
        signs = [(1, -1)] * d + [(1,)]

        def make_lift(j, sigma, others):
            def lift(w):
                u = np.empty(d + 1)
                u[j] = sigma
                u[others] = w
                return u[:d] / u[d] if u[d] > UNIT_ZERO_TOL else None

            return lift

        run.notes.append("R^n with a bias: homogenised to zero bias on the half-space t >= 0 of R^(n+1)")
        subs = _faces(lifted, signs, make_lift)
        _finish_points(run, subs)
        return subs
    region = region_for(Kr, Phi)
    if isinstance(region, RoundRegion) and region.s > 0 and not region.positive and np.any(a > 0):
        # a positive bias switches rows off near the centre, inside the hole: the ball around the shell
        # cannot be certified there, its convex pieces can (and a witness must lie in the shell anyway)
        run.notes.append(f"the shell (a bias > 0 somewhere): solved on {2 * d} convex pieces that cover it")
        return [Sub(name, Phi, a, piece, lambda z: z) for name, piece in shell_pieces(region)]
    return [Sub("", Phi, a, region, lambda z: z)]


def _finish_points(run, subs):
    """0-dimensional faces are decided on the spot: a count, and a witness when it is too small."""
    for sub in subs:
        if sub.region is None:
            if sub.lift(np.zeros(0)) is not None:
                run.note_upper(sub.lower)
            sub.closed = True
            if sub.lower > 0:  # d == 1: one active row spans R^1
                sub.certified = True
            else:
                run.try_witness(sub.lift(np.zeros(0)))
