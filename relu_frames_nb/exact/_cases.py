r"""The special cases of the exact verdict, and how a domain becomes counting problems.

* :func:`finite_verdict`: a finite data set (outputs compared directly; local invertibility);
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
"""

from __future__ import annotations

import numpy as np

from ..domains import Ball, PositiveBall, RealSpace, Shell, Sphere
from ..domains.polyhedral import Box, Hull, Polytope
from ._hyperplanes import HyperplaneInfo
from ._regions import PolyRegion, region_for

__all__ = ["finite_verdict", "prepare", "subproblems", "unsupported"]


def unsupported(K) -> str:
    """A reason when the exact verdict cannot treat ``K`` (empty string otherwise)."""
    if isinstance(K, (Box, Polytope, Hull, Ball, Shell, Sphere, PositiveBall, RealSpace)):
        return ""
    return (
        f"the exact verdict handles boxes, polytopes, hulls, balls, shells, spheres, the positive ball, R^n and "
        f"finite data sets; got {K!r}"
    )


# ---------------------------------------------------------------------------------
# finite data sets
# ---------------------------------------------------------------------------------


def finite_verdict(W, alpha, K, t0):
    """Exact on a finite set: injective iff no two distinct points share an output.

    Outputs are compared within each active pattern (inactive entries are exactly 0) by a
    k-d tree in the max-norm: every pair within ``PAIR_RTOL * max(1, |Z|_inf)`` is found.
    Local invertibility: at each point, whether the active rows restricted to the
    directions of the data's affine hull have full rank (the layer is then invertible near
    the point within that hull).
    """
    from scipy.spatial import cKDTree

    from ._search import PAIR_RTOL
    from .verdict import _result

    X = np.asarray(K.points)
    N = X.shape[0]
    pre = X @ W.T - alpha
    active = pre >= 0
    Z = np.maximum(pre, 0.0)
    notes = []
    if N > 1:
        _, sv, vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
        d = int(np.sum(sv > 1e-10 * max(sv[0], 1e-300)))
        U = vt[:d].T
    else:
        d, U = 0, np.zeros((X.shape[1], 0))
    patterns, inverse = np.unique(active, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    ok_pattern = np.array([d == 0 or (p.any() and np.linalg.matrix_rank(W[p] @ U) >= d) for p in patterns])
    ok = ok_pattern[inverse]
    notes.append(
        f"local invertibility: the active frame vectors span the directions of the data's affine hull (dimension {d}) "
        f"at {ok.mean():.1%} of the {N} points"
    )
    if not ok.all():
        notes.append(f"points where they do not: {np.flatnonzero(~ok)[:20].tolist()}{' …' if (~ok).sum() > 20 else ''}")
    info = HyperplaneInfo(0, False, "not needed on a finite set")
    q = PAIR_RTOL * max(1.0, float(np.max(np.abs(Z)))) if Z.size else PAIR_RTOL
    for g in range(patterns.shape[0]):
        idx = np.flatnonzero(inverse == g)
        if idx.size < 2:
            continue
        cols = patterns[g]
        pts = Z[np.ix_(idx, cols)] if cols.any() else np.zeros((idx.size, 1))
        for i, j in sorted(cKDTree(pts).query_pairs(q, p=np.inf)):
            a, b = idx[i], idx[j]
            if np.array_equal(X[a], X[b]):
                continue
            text = (
                f"not injective on {K.describe()} — data points {a} and {b} are distinct and have the same output "
                f"(up to {PAIR_RTOL:g} relative)"
            )
            rank = int(np.linalg.matrix_rank(W[cols])) if cols.any() else 0
            return _result(
                K, "not injective", None, None, info, (X[a], X[b]), t0, 0, "finite set", notes, text, int(cols.sum()), rank
            )
    text = f"injective on {K.describe()} — proof: no two distinct points share an output (compared directly)"
    return _result(K, "injective", None, None, info, None, t0, 0, "finite set", notes, text)


# ---------------------------------------------------------------------------------
# reduction
# ---------------------------------------------------------------------------------


def _reduce(W, alpha, K):
    """``x = c + U z``: the domain in its own affine coordinates; returns (c, U, Kr, note)."""
    n = W.shape[1]
    if isinstance(K, Box) and not K.full_dimensional:
        free = K.lo < K.hi
        c = np.where(free, 0.0, K.lo)
        U = np.eye(n)[:, free]
        Kr = Box(K.lo[free], K.hi[free]) if free.any() else None
        note = f"the box fixes {int((~free).sum())} coordinate(s): the verdict works in the other {int(free.sum())}"
        return c, U, Kr, note
    if isinstance(K, Hull) and not K.full_dimensional:
        c = K.interior_point()
        d = K.affine_dimension
        if d == 0:
            return c, np.zeros((n, 0)), None, "the hull is a single point"
        _, _, vt = np.linalg.svd(K.points - c, full_matrices=False)
        U = vt[:d].T
        Kr = Hull((K.points - c) @ U)
        return c, U, Kr, f"the data's affine hull has dimension {d} < {n}: the verdict works in that subspace"
    return np.zeros(n), np.eye(n), K, ""


def _center(Kr):
    if isinstance(Kr, (Box, Polytope, Hull)):
        return Kr.interior_point()
    if isinstance(Kr, RealSpace) or isinstance(Kr, Ball):
        return np.zeros(Kr.n)
    if isinstance(Kr, PositiveBall):
        return np.full(Kr.n, Kr.r / (2.0 * np.sqrt(Kr.n)))
    if isinstance(Kr, Shell):
        e = np.zeros(Kr.n)
        e[0] = 0.5 * (Kr.s + Kr.r)
        return e
    return None


def prepare(W, alpha, K, t0, time_limit, report, eps, tol):
    """The run state (reduced, unit rows), or an early verdict (single point, null space)."""
    from ._search import _Run
    from .verdict import _result

    c, U, Kr, note = _reduce(W, alpha, K)
    notes = [note] if note else []
    Wr = W @ U
    ar = alpha - W @ c
    norms = np.linalg.norm(Wr, axis=1)
    wn = np.linalg.norm(W, axis=1)
    keep = norms > 1e-12 * np.maximum(wn, 1e-300)
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} row(s) are constant on the domain (no direction within it) and ignored")
    d = U.shape[1]
    if Kr is None or d == 0:
        info = HyperplaneInfo(0, True, "not needed: the domain is a single point")
        text = f"injective on {K.describe()} — the domain is a single point"
        return None, _result(K, "injective", None, None, info, None, t0, 0, "", notes, text)
    Phi = Wr[keep] / norms[keep, None]
    a = ar[keep] / norms[keep]
    scale = 1.0 if isinstance(Kr, RealSpace) else max(1.0, float(Kr.radius))
    run = _Run(
        W=W, alpha=alpha, K=K, Kr=Kr, c=c, U=U, Phi=Phi, a=a, center=_center(Kr),
        deadline=t0 + time_limit, t0=t0, report=report, eps=eps * scale, tol=tol * scale, scale=scale, notes=notes,
    )  # fmt: skip
    rank = np.linalg.matrix_rank(Phi) if Phi.shape[0] else 0
    if rank < d:
        info = HyperplaneInfo(Phi.shape[0], True, f"the weights span only {rank} of {d} dimensions")
        z = run.center
        ok = z is not None and run.try_witness(z)
        if ok:
            n_act, rk = run.pair_info
            x, y = run.pair
            text = (
                f"not injective on {K.describe()} — the weights have rank {rank} < {d}: x = {_short(x)} and "
                f"y = x + t v with v in their null space (|x − y| = {np.linalg.norm(x - y):.2g}) have the same output"
            )
            return run, _result(K, "not injective", 0, n_act, info, run.pair, t0, 0, "null space", notes, text, n_act, rk)
        notes.append(f"the weights have rank {rank} < {d}, but no pair inside the domain could be verified")
        text = f"undetermined on {K.describe()} — the weights have rank {rank} < {d} but no verified pair in the domain"
        return run, _result(K, "undetermined", None, None, info, None, t0, 0, "null space", notes, text)
    if isinstance(Kr, Polytope) and not Kr.full_dimensional:
        notes.append("the polytope has empty interior: certificates hold, witnesses usually cannot be built")
    return run, None


def _short(v):
    v = np.asarray(v).ravel()
    return "(" + ", ".join(f"{c:.3g}" for c in v[:4]) + (", …)" if v.size > 4 else ")")


# ---------------------------------------------------------------------------------
# counting problems
# ---------------------------------------------------------------------------------


def _cone_signs(Kr, d):
    """Allowed signs per coordinate of the cone of directions of ``Kr`` (zero bias), or None."""
    if isinstance(Kr, (Ball, Shell, Sphere, RealSpace)):
        return [(1, -1)] * d
    if isinstance(Kr, PositiveBall):
        return [(1,)] * d
    if isinstance(Kr, Box):
        if np.any(Kr.lo > 0) or np.any(Kr.hi < 0):
            return None  # 0 not in the box: no degenerate origin
        return [(1, -1) if lo < 0 < hi else ((1,) if lo == 0 else (-1,)) for lo, hi in zip(Kr.lo, Kr.hi)]
    if isinstance(Kr, Polytope) and np.all(Kr.b > 0):
        return [(1, -1)] * d
    return None


def _scale_into(Kr, u):
    """A positive multiple of the direction ``u`` inside ``Kr`` (0 in Kr, cone condition holds)."""
    nu = float(np.linalg.norm(u))
    if nu == 0:
        return None
    if isinstance(Kr, RealSpace):
        return u
    if isinstance(Kr, Shell):
        return u * (0.5 * (Kr.s + Kr.r) / nu)
    if isinstance(Kr, (Ball, PositiveBall, Sphere)):
        return u * (0.5 * Kr.r / nu)
    if isinstance(Kr, Box):
        with np.errstate(divide="ignore", invalid="ignore"):
            lim = np.where(u > 0, Kr.hi / u, np.where(u < 0, Kr.lo / u, np.inf))
        return u * 0.5 * float(np.min(lim))
    if isinstance(Kr, Polytope):
        Au = Kr.A @ u
        pos = Au > 0
        tau = float(np.min(Kr.b[pos] / Au[pos])) if pos.any() else 1.0
        return u * 0.5 * tau
    return None


def _faces(Phi, signs, make_lift, prefix=""):
    """One box problem per face ``u_j = sigma`` of the cube within the cone given by ``signs``."""
    from ._search import _Sub

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
                sub = _Sub(name, Phi[:, :0], a_face, None, make_lift(j, sigma, []))
                sub.lower = count
                sub.certified = False
                subs.append(sub)
                continue
            lo = np.array([-1.0 if -1 in signs[k] else 0.0 for k in others])
            hi = np.array([1.0 if 1 in signs[k] else 0.0 for k in others])
            face = Box(lo, hi)
            subs.append(_Sub(name, Phi[:, others], a_face, PolyRegion(face), make_lift(j, sigma, others)))
    return subs


def zero_bias_faces(run):
    """The face problems of the same frame at zero bias, or None when the domain's cone is not known.

    A certificate there proves the rectifying property for every bias ``<= 0`` on every
    domain (smaller biases only enlarge active sets), which settles near-zero negative
    biases where the direct problem is degenerate (all hyperplanes pass close to 0).
    """
    Phi, Kr = run.Phi, run.Kr
    d = Phi.shape[1]
    signs = _cone_signs(Kr, d)
    if signs is None:
        return None

    def make_lift(j, sigma, others):
        return lambda w: None  # no witness at zero bias is a witness at the layer's bias

    return _faces(Phi, signs, make_lift, prefix="zero bias ")


def subproblems(run):
    """The counting problems of the run (see the module docstring)."""
    from ._search import _Sub

    Phi, a, Kr = run.Phi, run.a, run.Kr
    d = Phi.shape[1]
    homogeneous = bool(np.all(a == 0))
    if homogeneous:
        signs = _cone_signs(Kr, d)
        if signs is not None:

            def make_lift(j, sigma, others):
                def lift(w):
                    u = np.empty(d)
                    u[j] = sigma
                    u[others] = w
                    return _scale_into(Kr, u)

                return lift

            run.notes.append("zero bias: active sets depend on the direction only; solved on the faces of the cube")
            subs = _faces(Phi, signs, make_lift)
            _finish_points(run, subs)
            return subs
        if not isinstance(Kr, RealSpace) and Kr.contains(np.zeros(d)):
            run.notes.append("zero bias with the origin in the domain: the count bound is weak near 0 (every row is on there)")
    if isinstance(Kr, RealSpace):
        lifted = np.hstack([Phi, -a[:, None]])
        lifted /= np.linalg.norm(lifted, axis=1, keepdims=True)
        signs = [(1, -1)] * d + [(1,)]

        def make_lift(j, sigma, others):
            def lift(w):
                u = np.empty(d + 1)
                u[j] = sigma
                u[others] = w
                return u[:d] / u[d] if u[d] > 1e-12 else None

            return lift

        run.notes.append("R^n with a bias: homogenised to zero bias on the half-space t >= 0 of R^(n+1)")
        subs = _faces(lifted, signs, make_lift)
        _finish_points(run, subs)
        return subs
    region = region_for(Kr, Phi)
    return [_Sub("", Phi, a, region, lambda z: z)]


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
