r"""Injectivity of a whole network, checked layer by layer (DESIGN "Whole networks").

Layer 1 is checked on ``K`` itself; layer :math:`k+1` on a box enclosing the image of
layer :math:`k` (interval bounds, :mod:`relu_frames_nb.network.bounds`), each by the same
single-layer check as a lone layer (:func:`relu_frames_nb._layer_check.check_weights`: normal
form, fast tests, exact stage). The rule for combining is honest:

* a certificate for every layer proves the network injective on ``K`` (a composition of
  injective maps, each injective on a set containing the image of the one before);
* a colliding pair of layer 1 in ``K`` is a colliding pair of the network (later layers
  are functions);
* a colliding pair of layer :math:`k > 1` lies in the *enclosure* of the image, which may be
  larger than the image. It counts only once lifted: preimages are reconstructed through
  the earlier layers (:func:`relu_frames_nb.reconstruct`) and must lie in ``K`` and map
  forward to the pair. Failing that, a local search at sample points of ``K`` looks for a
  direction in which the first :math:`k` layers are locally constant. A network pair is
  reported only after the one pair check (:func:`relu_frames_nb._util.pairs.network_collision`)
  and certain membership of both points in ``K``; otherwise the layer is "undetermined",
  with the reason.

Before that, a first look at K's interior point: where the Jacobian of the whole network is
singular on K's span and K offers a direction that stays inside it along the null space
(:meth:`~relu_frames_nb.domains.Domain.fibre_direction`: a data set's hull, thin around its
centroid in high dimension), a pair of the network is tried there at once; the layers before
the one after which it collides are then not checked.

Coordinates that are constant on the enclosure (a unit that is never active, say) are
folded into the next layer's bias, so every layer is checked on a full-dimensional box in
its own free coordinates; zero rows of the weights (constant outputs) are left out by the
normal form; weights whose rows do not span the input space make the layer "not injective"
on its full-dimensional domain, with a colliding pair along their null space.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._layer_check import check_weights, near_points
from .._util.budget import Budget, BudgetExhausted
from .._util.format import fmt, vec
from .._util.lp import null_space
from .._util.pairs import PAIR_MIN_SEPARATION, network_collision
from .._util.tolerances import (
    DIRECTION_MOVING_RTOL,
    OUTPUT_KEY_QUANTUM,
    OUTPUT_MATCH_RTOL,
    RECONSTRUCT_ZERO_RTOL,
    STABLE_MARGIN,
)
from .._util.validation import as_rng
from ..domains import Domain
from ..errors import InputError, NotAFrameError, NotInjectiveError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer
from ..paper.reconstruction import reconstruct
from ..pipeline import Context, Stage, run_stages
from ..pipeline.tolerances import DIVISOR_FLOOR
from ..verdict import Certificate, Status, Verdict
from .bounds import preactivation_bounds, relu_box
from .image import check_on_image
from .model import Network
from .two_copy import check_two_copies, two_copy_applies

__all__ = ["check_network", "BIAS_CONVENTION", "NETWORK_STAGES", "LAYER_STAGES"]

#: sample points of K tried by the local search
N_LOCAL = 256
#: what the verdict says about the biases of a network
BIAS_CONVENTION = "biases read in PyTorch's convention ReLU(W x + b) (the paper's alpha = -b)"


@dataclass
class _Reduced:
    """A layer in its free input coordinates: ``fixed`` inputs folded into the bias."""

    free: np.ndarray  # bool mask over inputs
    fixed_values: np.ndarray  # full input vector with the fixed values (free entries arbitrary)
    W: np.ndarray
    b: np.ndarray
    layer: ReLULayer | None = None  # None when the rows are not a frame

    def expand(self, x: np.ndarray) -> np.ndarray:
        full = np.array(self.fixed_values, dtype=float)
        full[self.free] = x
        return full


def _reduce(W: np.ndarray, b: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None) -> _Reduced:
    if lo is None:
        free = np.ones(W.shape[1], dtype=bool)
        fixed_values = np.zeros(W.shape[1])
    else:
        free = lo < hi
        fixed_values = np.where(free, 0.0, lo)
    Wf = W[:, free]
    bf = b + W[:, ~free] @ fixed_values[~free]
    R = _Reduced(free, fixed_values, Wf, bf)
    rows = np.any(Wf != 0, axis=1)
    try:
        R.layer = ReLULayer.from_weights(Wf[rows], bf[rows]) if rows.any() and Wf.shape[1] else None
    except NotAFrameError:
        R.layer = None
    R.rows = rows  # type: ignore[attr-defined]
    return R


def _alpha_layers(net: Network) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.asarray(W), -np.asarray(b)) for W, b in net.weights]


def _verified(net: Network, K: Domain, x: np.ndarray, y: np.ndarray) -> int | None:
    """The layer after which ``x, y`` collide (one pair check), when both are certainly in ``K``; else None."""
    k = network_collision(_alpha_layers(net), x, y)
    if k is None or not (K.contains_certified(x) and K.contains_certified(y)):
        return None
    return k


def _collision_layer(net: Network, x: np.ndarray, y: np.ndarray) -> int | None:
    """The layer after which ``x, y`` collide (the one pair check), for a pair already proved in K."""
    return network_collision(_alpha_layers(net), x, y)


def _candidates(K: Domain, seed: Any) -> np.ndarray:
    pts = [np.asarray(K.interior_point(), dtype=float)[None, :]]
    pts.append(K.sample(N_LOCAL, seed=as_rng(seed)))
    return np.concatenate(pts)


def _sign_step(pres: list, derivs: list, v: np.ndarray, t: float) -> float:
    """``t`` capped at half the step along ``v`` at which the first unit changes sign."""
    for P, G in zip(pres, derivs):
        d = G @ v
        moving = np.abs(d) > DIRECTION_MOVING_RTOL * max(1.0, float(np.max(np.abs(d))))
        if np.any(moving):
            t = min(t, 0.5 * float(np.min(np.abs(P[moving]) / np.abs(d[moving]))))
    return t


def _halving(net: Network, K: Domain, x: np.ndarray, v: np.ndarray, t: float, budget: Budget) -> tuple | None:
    """The first verified pair among ``x, x +- t v`` as ``t`` halves (until the points are too close)."""
    for _ in range(40):
        budget.check("local pair search")
        for y1, y2 in ((x, x + t * v), (x - t * v, x + t * v), (x, x - t * v)):
            if _verified(net, K, y1, y2) is not None:
                return y1, y2
        t /= 2.0
        if t * float(np.linalg.norm(v)) < PAIR_MIN_SEPARATION * max(1.0, float(np.linalg.norm(x))):
            return None
    return None


def _fibre_pair(net: Network, k: int, K: Domain, seed: Any, budget: Budget) -> tuple | None:
    """A pair around K's interior point on which layers 1..k+1 agree, along the direction K offers.

    (:meth:`Domain.fibre_direction`.) None when the Jacobian of the layers has full rank on K's
    span at that point, or when K offers no direction.
    """
    x = np.asarray(K.interior_point(), dtype=float)
    h, J = x, np.eye(net.n)
    pres, derivs = [], []
    for W, b in net.weights[: k + 1]:
        P = W @ h + b
        G = W @ J
        pres.append(P)
        derivs.append(G)
        h, J = np.maximum(P, 0.0), G * (P > 0)[:, None]
    budget.check("local pair search")
    v = K.fibre_direction(J, seed=seed)  # None when J has full rank on K's span (or K offers nothing)
    if v is None:
        return None
    return _halving(net, K, x, v, _sign_step(pres, derivs, v, 1.0), budget)


def _local_pair(net: Network, k: int, K: Domain, seed: Any, budget: Budget,
                points: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
    """Two points of K on which layers 1..k+1 (0-based ``k``) agree, found where their Jacobian is singular.

    ``points``: the candidates to start from (default: an interior point and samples of K).

    At a point x whose output Jacobian ``D_k W_k ... D_0 W_0`` has a null vector v, every
    active unit stays active and every inactive one inactive along x + t v for small t, so
    the outputs of layer k+1 do not move. The step is the largest that keeps every unit's
    sign (halved), shrunk until both points lie in K; the pair is verified by the one pair check.
    When K is flat (lower affine dimension), the null vector is taken within K's affine span; first,
    the direction K itself offers at its interior point is tried (:meth:`Domain.fibre_direction`:
    a data set's hull in high dimension is too thin around its centroid for a random null vector).
    """
    if points is None:
        pair = _fibre_pair(net, k, K, seed, budget)
        if pair is not None:
            return pair
    X = _candidates(K, seed) if points is None else np.atleast_2d(np.asarray(points, dtype=float))
    n = net.n
    coords, _ = K.in_affine_coordinates()
    dim = coords.d
    r = K.radius if K.bounded else 1.0 + float(np.max(np.linalg.norm(X, axis=1)))
    widest = max(W.shape[0] for W, _ in net.weights[: k + 1])
    # Jacobians of a chunk of points at once: (points, width, n) numbers, within the memory allowance
    step = budget.rows(8.0 * 3 * widest * n, fraction=0.25, maximum=X.shape[0])
    tried = 0
    for c0 in range(0, X.shape[0], step):
        budget.check("local pair search")
        H = X[c0 : c0 + step]
        J = np.broadcast_to(np.eye(n), (H.shape[0], n, n))
        pres, derivs = [], []
        for W, b in net.weights[: k + 1]:
            P = H @ W.T + b
            G = np.matmul(W, J)
            pres.append(P)
            derivs.append(G)
            H = np.maximum(P, 0.0)
            J = G * (P > 0)[:, :, None]
            budget.check("local pair search")
        if dim == 0:
            return None
        Jr = coords.rows(J)  # the Jacobian on K's affine span
        s = np.linalg.svd(Jr, compute_uv=False)
        scale = np.maximum(s[:, 0], DIVISOR_FLOOR)
        singular = np.flatnonzero((Jr.shape[1] < dim) | (s[:, -1] <= DEFAULT_RANK_TOL * scale))
        for i in singular:
            if tried >= 50:
                return None
            tried += 1
            budget.check("local pair search")
            V = null_space(Jr[i], dim, limit=1)
            v = coords.direction(V[:, 0] if V.shape[1] else np.linalg.svd(Jr[i])[2][-1])
            t = _sign_step([P[i] for P in pres], [G[i] for G in derivs], v, r)
            pair = _halving(net, K, X[c0 + i], v, t, budget)
            if pair is not None:
                return pair
    return None


def _lift(net: Network, reduced: list[_Reduced], k: int, pair: tuple, K: Domain) -> tuple | None:
    """Preimages in K of a pair at the input of layer k (0-based) through layers 0..k-1, or None."""
    out = []
    for y in pair:
        y = np.asarray(y, dtype=float)
        target = y
        for j in range(k - 1, -1, -1):
            R = reduced[j]
            if R.layer is None:
                return None
            z = y[R.rows]  # type: ignore[attr-defined]
            try:
                zero_tol = RECONSTRUCT_ZERO_RTOL * max(1.0, float(np.max(np.abs(z), initial=0.0)))
                x = reconstruct_layer(R.layer, z, zero_tol=zero_tol)
            except (NotInjectiveError, InputError):  # no preimage: the pair is not in the image of the layers before
                return None
            y = R.expand(x)
        img = net.forward(y, upto=k)
        if np.max(np.abs(img - target)) > OUTPUT_MATCH_RTOL * max(1.0, float(np.max(np.abs(target)))):
            return None
        out.append(y)
    x1, x2 = out
    return (x1, x2) if _verified(net, K, x1, x2) is not None else None


def reconstruct_layer(layer: ReLULayer, z: np.ndarray, *, zero_tol: float) -> np.ndarray:
    """:func:`relu_frames_nb.reconstruct` (a seam for tests)."""
    return reconstruct(layer, z, zero_tol=zero_tol)


def _line(name: str, n_in: int, n_out: int, domain: str, status: Status, reason: str) -> str:
    return f"{name} ({n_in} → {n_out}) on {domain}: {status} — {reason}"


def _layer_name(net: Network, k: int) -> str:
    name = net.names[k]
    return name if name == f"layer {k + 1}" else f"layer {k + 1} ({name})"


def _equal_rows(keys: np.ndarray):
    """The groups (index arrays, two or more) of equal rows of an integer array.

    Rows are hashed by one product with random integers (wrapping modulo 2^64), sorted by the hash,
    and only rows with equal hashes are compared: ``np.unique(axis=0)`` sorts whole rows and took
    9 s for 10,000 rows of 6,272 numbers (an unrolled convolution's output), this a fraction of a second.
    """
    if keys.shape[0] < 2:
        return
    r = np.random.default_rng(0).integers(1, 2**62, keys.shape[1], dtype=np.int64)
    h = keys @ r  # integer arithmetic wraps around: equal rows, equal hashes
    order = np.argsort(h, kind="stable")
    cuts = np.flatnonzero(np.diff(h[order]) != 0) + 1
    for idx in np.split(order, cuts):
        if idx.size < 2:
            continue
        _, inverse, counts = np.unique(keys[idx], axis=0, return_inverse=True, return_counts=True)
        for g in np.flatnonzero(counts > 1):
            yield idx[inverse.reshape(-1) == g]


def _check_finite(net: Network, K: Domain, t0: float, budget: Budget) -> Verdict:
    X = K.points
    N = X.shape[0]
    checks, H, pair, pair_layer = [], X, None, None
    where = K.describe()
    for k, (W, _) in enumerate(net.weights, start=1):
        budget.check(f"forward pass, layer {k}")
        H = np.maximum(net.affine(k - 1, H), 0.0)
        scale = max(1.0, float(np.max(np.abs(H)))) if H.size else 1.0
        Q = H * (1.0 / (OUTPUT_KEY_QUANTUM * scale))
        keys = np.rint(Q, out=Q).astype(np.int64)
        del Q
        found = None
        for rows in _equal_rows(keys):
            for a in rows[1:20]:
                if _verified(net, K, X[rows[0]], X[a]) is not None:
                    found = (np.array(X[rows[0]]), np.array(X[a]))
                    break
            if found is not None:
                break
        dom = where if k == 1 else f"the images of {where}"
        input_set = "K" if k == 1 else "image"  # the data's own images: the true input set
        name = _layer_name(net, k - 1)
        if found is None:
            text = _line(name, W.shape[1], W.shape[0], dom, Status.INJECTIVE, f"exact: the {N} points keep distinct outputs")
            checks.append(Verdict(Status.INJECTIVE, "finite set", text, dom, details={"layer": name, "input_set": input_set}))
            continue
        pair, pair_layer = found, k
        text = _line(name, W.shape[1], W.shape[0], dom, Status.NOT_INJECTIVE,
                     f"two data points {vec(found[0], limit=6)} and {vec(found[1], limit=6)} collide here")  # fmt: skip
        checks.append(Verdict(Status.NOT_INJECTIVE, "finite set", text, dom, pair=found,
                              details={"layer": name, "input_set": input_set}))  # fmt: skip
        break
    if pair is None:
        status, text = Status.INJECTIVE, f"injective on {where} — exact: no two points share a network output"
        cert = Certificate("finite set", "no two points of the data set share a network output", domain=where)
    else:
        status, cert = Status.NOT_INJECTIVE, None
        text = f"not injective on {where} — two of its points share the output of layer {pair_layer} (exact)"
    return Verdict(status, "finite set", text, where, cert, pair, None if pair is None else net(pair[0]),
                   layers=tuple(checks), pair_layer=pair_layer, seconds=time.perf_counter() - t0,
                   details=_details(net))  # fmt: skip


def _details(net: Network) -> dict:
    return {"bias": BIAS_CONVENTION, "n_layers": len(net), "widths": list(net.widths), "layer_names": list(net.names),
            "network_note": net.note, "last_layer": "linear" if net.last_linear else "relu"}  # fmt: skip


def _full_column_rank(W: np.ndarray) -> bool:
    """``rank W = W.shape[1]``, with a margin far above rounding (the smallest singular value above 1e-10 of the largest)."""
    if W.shape[0] < W.shape[1] or not np.any(W):
        return False
    s = np.linalg.svd(W / np.max(np.abs(W)), compute_uv=False)
    return bool(s[-1] > DEFAULT_RANK_TOL * s[0])


def _injective_last(v: Verdict, net: Network) -> Verdict:
    """The verdict of the ReLU layers told for ``net``, whose affine last layer is injective (full column rank)."""
    W = net.weights[-1][0]
    name = _layer_name(net, len(net) - 1)
    reason = (f"affine, no ReLU after it, and its weights have full column rank {W.shape[1]}: injective on all of "
              f"R^{W.shape[1]}")  # fmt: skip
    how = (f"the last layer ({net.names[-1]}) is {reason}, so the network is injective exactly when the layers before "
           "it are, and a pair of theirs is a pair of the network")  # fmt: skip
    cert = Certificate("full column rank", f"{name} is {reason}", domain=f"R^{W.shape[1]}")
    last = Verdict(Status.INJECTIVE, "full column rank", f"{name} ({W.shape[1]} → {W.shape[0]}) on R^{W.shape[1]}: "
                   f"injective — {reason}", f"R^{W.shape[1]}", cert, details={"layer": name})  # fmt: skip
    layers = tuple(v.layers) + ((last,) if len(v.layers) == len(net) - 1 else ())
    status, text, certificate = v.status, v.text, v.certificate
    if v.status == Status.INJECTIVE:
        text = v.text.split(" — ", 1)[0] + f" — the {len(net) - 1} ReLU layer(s) certified and the last layer is {reason}"
        certificate = Certificate("every layer", f"the ReLU layers are injective on their input sets and {cert.statement}",
                                  domain=v.domain)  # fmt: skip
    return replace(v, status=status, text=text, certificate=certificate,
                   output=None if v.pair is None else net(v.pair[0]), layers=layers, notes=(how,) + tuple(v.notes),
                   details={**v.details, "last_layer": "linear", "n_layers": len(net), "widths": list(net.widths)})  # fmt: skip


def _affine_last(v: Verdict, net: Network) -> Verdict:
    """The verdict of ``net.relu_form()`` told for ``net`` (same pairs, same certificates), output recomputed."""
    W = net.weights[-1][0]
    how = (f"the last layer ({net.names[-1]}, {W.shape[0]} units) is affine, no ReLU after it: it was checked as the ReLU "
           f"layer of rows [W; -W] ({2 * W.shape[0]} units), which has the same colliding pairs")  # fmt: skip
    layers = v.layers
    if layers and len(layers) == len(net):
        last = layers[-1]
        layers = layers[:-1] + (replace(last, text=last.text + f" [affine: checked as {2 * W.shape[0]} ReLU units ±(W h + b)]"),)
    return replace(v, output=None if v.pair is None else net(v.pair[0]), layers=layers, notes=(how,) + tuple(v.notes),
                   details={**v.details, "last_layer": "linear", "widths": list(net.widths)})  # fmt: skip


def _stable(W: np.ndarray, b: np.ndarray, K: Any) -> np.ndarray | None:
    """``1.0``/``0.0`` per unit when every unit is always active / never active on ``K`` (with a margin); else None."""
    lower, upper = preactivation_bounds(W, b, K)
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        return None
    margin = STABLE_MARGIN * np.maximum(np.abs(lower), np.abs(upper))
    on, off = lower > margin, upper < -margin
    return on.astype(float) if bool(np.all(on | off)) else None


def merge_affine(net: Network, K: Domain) -> tuple[Network, list[str]]:
    r"""The same map on ``K`` with every layer that is affine on its input set folded into the next.

    A layer whose units keep their signs on a set containing its input (``K`` for layer 1,
    the interval box of the image before it for the others) is the affine map
    :math:`h \mapsto D (W h + b)` there (:math:`D` the 0/1 diagonal of the active units), and
    the next layer after it is :math:`\mathrm{ReLU}(W' D W h + W' D b + b')`: one layer. The
    merged network is the same function on ``K``, so it has the same colliding pairs, and
    its next layer is checked on the true input set instead of a box around an image of lower
    dimension (a layer that keeps every unit active cannot be certified on that box when it
    maps into a larger space). Returns the network (``net`` itself when nothing folds) and what
    was folded.
    """
    pairs = [(np.asarray(W, dtype=float), np.asarray(b, dtype=float)) for W, b in net.weights]
    names = list(net.names)
    folded: list[str] = []
    k, dom = 0, K
    while k < len(pairs) - 1:
        W, b = pairs[k]
        d = _stable(W, b, dom)
        if d is None:
            dom = relu_box(W, b, dom)
            k += 1
            continue
        W2, b2 = pairs[k + 1]
        pairs[k : k + 2] = [(W2 @ (d[:, None] * W), W2 @ (d * b) + b2)]
        folded.append(f"{names[k]} ({int(d.sum())} of {d.size} units always active, the others never)")
        names[k : k + 2] = [f"{names[k]} + {names[k + 1]}"]
    if not folded:
        return net, folded
    out = Network.from_weights(pairs, note=net.note)
    out.names = tuple(names)
    return out, folded


def _merged_back(v: Verdict, net: Network, K: Domain, folded: list[str]) -> Verdict:
    """The verdict of the merged network told for ``net``: a pair is checked again on ``net`` itself."""
    how = ("layers affine on their input set folded into the next (the same map on the domain, checked on its true "
           "input set): " + "; ".join(folded))  # fmt: skip
    if v.pair is None:
        return replace(v, notes=(how,) + tuple(v.notes), details={**v.details, "folded": folded})
    k = _verified(net, K, *v.pair)
    if k is None:
        text = f"undetermined on {K.describe()} — a pair of the folded network did not verify on the network itself"
        return replace(v, status=Status.UNDETERMINED, text=text, pair=None, output=None, pair_layer=None,
                       notes=(how,) + tuple(v.notes), details={**v.details, "folded": folded})  # fmt: skip
    x, y = v.pair
    text = (f"not injective on {K.describe()} — {vec(x, limit=6)} and {vec(y, limit=6)} share the output of layer {k} "
            "(verified on the network itself)")  # fmt: skip
    return replace(v, text=text, output=net(x), pair_layer=k, notes=(how,) + tuple(v.notes),
                   details={**v.details, "folded": folded})  # fmt: skip


def _on_image(net: Network, k: int, K: Domain, seed: Any, budget: Budget, st: Status, reason: str, dom_text: str,
              method_k: str, details: dict) -> tuple:  # fmt: skip
    """Layer ``k`` (0-based, ``k >= 1``) on the true image of the layers before (:mod:`.image`), after the box failed.

    Returns the layer's status, reason, input set, certificate and method (the box's when the
    image decides nothing). A pair is two points of ``K`` and is kept in ``details["image_pair"]``.
    """
    share = budget.share(fraction=1.0 / (len(net) - k))
    res = check_on_image(net.weights, k, K, budget=share,
                         local_pair=lambda P: _local_pair(net, k, K, seed, share, points=P),
                         verify_pair=lambda x, y: _verified(net, K, x, y) is not None)  # fmt: skip
    image = f"the image of {'layer 1' if k == 1 else f'layers 1–{k}'} on {K.describe()} (the layers before encoded exactly)"
    details["image"] = {"status": res.status, "lower": res.lower, "upper": res.upper, "h": res.h, "binaries": res.binaries,
                        "tightened_bounds": res.tightened, "seconds": res.seconds, "text": res.text}  # fmt: skip
    if res.pieces is not None:
        pc = res.pieces
        details["image"]["pieces"] = {"status": pc.status, "text": pc.text, "cells": pc.cells, "far_bound": pc.far_bound,
                                      "largest_plane": pc.largest_plane}  # fmt: skip
    if res.point is not None:
        details["image_point"] = res.point  # an input of K where the fewest rows were seen
    if res.status == "injective":
        details["input_set"] = "image"
        how = "image MILP" if res.pieces is None or res.pieces.status != "injective" else "image MILP across the pieces"
        cert = Certificate(how, f"{_layer_name(net, k)} is injective on {image}: {res.text}", domain=image)
        return Status.INJECTIVE, res.text, image, cert, how
    if res.status == "not injective" and res.pair is not None and _verified(net, K, *res.pair) is not None:
        details["input_set"] = "image"
        details["image_pair"] = res.pair
        return Status.NOT_INJECTIVE, res.text, image, None, "image MILP"
    return st, reason + f"; on the true image: {res.text}", dom_text, None, method_k


def _first_look(net: Network, K: Domain, seed: Any, budget: Budget, where: str, near: Any = None) -> tuple:
    """``(pair, layer, lines)``: a pair of the whole network at K's interior point, before the layers are checked one by one.

    Cheap (one Jacobian, and an LP where K offers a direction), and the only quick route to a
    pair when an early layer is hard to decide but a later one folds K (a narrowing layer on a
    data set's hull in high dimension). ``lines``: one per layer up to the one after which the
    pair collides. ``(None, None, [])`` when nothing is found.
    """
    t = time.perf_counter()
    at = "at K's interior point"
    try:
        pair = None
        if near is not None:  # near=: first where the caller asked (x0 and points of K around it)
            pair = _local_pair(net, len(net) - 1, K, seed, budget, points=near_points(np.asarray(near, dtype=float), K, seed))
            at = "at the given point (near=) or around it"
        if pair is None:
            at = "at K's interior point"
            pair = _fibre_pair(net, len(net) - 1, K, seed, budget) if len(net) > 1 else None
    except BudgetExhausted:
        pair = None
    j = None if pair is None else _collision_layer(net, *pair)  # both points already proved in K
    if pair is None or j is None:
        return None, None, []
    lines = []
    for i in range(j - 1):
        Wi = net.weights[i][0]
        name = _layer_name(net, i)
        text = f"{name} ({Wi.shape[1]} → {Wi.shape[0]}): not checked (a pair of the whole network was found first)"
        info = {"layer": name, "input_set": "K" if i == 0 else "box", "layer_status": Status.UNDETERMINED.value}
        lines.append(Verdict(Status.UNDETERMINED, "not run", text, "", details=info))
    k = j - 1
    W = net.weights[k][0]
    name = _layer_name(net, k)
    dom_text = where if k == 0 else f"the image of {'layer 1' if k == 1 else f'layers 1–{k}'} (not enclosed)"
    gap = float(np.max(np.abs(pair[0] - pair[1])))
    reason = (f"two points of K (max |x − y| = {fmt(gap)}) collide after it: {at} the network is linear nearby and "
              f"does not see one direction of K (no unit changes sign along it, so the output does not move); found "
              f"before the layers were checked one by one, which was then not needed")  # fmt: skip
    details = {"layer": name, "input_set": "K" if k == 0 else "image", "layer_status": Status.NOT_INJECTIVE.value}
    line = Verdict(Status.NOT_INJECTIVE, "pair at the interior point", _line(name, W.shape[1], W.shape[0], dom_text,
                   Status.NOT_INJECTIVE, reason), dom_text, None, pair, seconds=time.perf_counter() - t,
                   details=details)  # fmt: skip
    return pair, j, lines + [line]


# ---------------------------------------------------------------------------------
# the network's stages
# ---------------------------------------------------------------------------------


@dataclass
class _NetRun:
    """What the network's stages share: the network, K, the options, the layers' lines and the pair found."""

    net: Network
    K: Domain
    method: str
    seed: Any
    where: str
    checks: list = field(default_factory=list)
    reduced: list = field(default_factory=list)
    pair: tuple | None = None
    pair_layer: int | None = None
    notes: list = field(default_factory=list)
    paired_last: bool = False  # the last layer is an affine map written as the ReLU rows [W; -W] (relu_form)
    two_copy: Any = None  # the two-copy check's result, when it ran
    near: Any = None  # near=: a point of K where the pair searches start

    def two_copy_weights(self) -> tuple[list, bool]:
        """The network's ``(W, b)`` pairs for the two-copy check, and whether its last layer is affine."""
        pairs = [(np.asarray(W), np.asarray(b)) for W, b in self.net.weights]
        if not self.paired_last:
            return pairs, False
        W, b = pairs[-1]
        m = W.shape[0] // 2
        return pairs[:-1] + [(W[:m], b[:m])], True


@dataclass
class _LayerRun:
    """One layer of the network as its stages see it: its input set, and what was found so far."""

    run: _NetRun
    k: int
    R: _Reduced
    dom: Any  # K for layer 1, else the (lo, hi) box enclosing the image of the layers before
    dom_text: str
    details: dict
    st: Status = Status.UNDETERMINED
    layer_st: Status = Status.UNDETERMINED
    method: str = ""
    reason: str = ""
    own: Verdict | None = None
    layer_pair: tuple | None = None
    cert: Certificate | None = None


class _FirstLook(Stage):
    name = "first look"
    summary = ("at K's interior point: where the network, linear nearby, does not see a direction of K (no unit "
               "switches along it), a pair of the whole network (one product of matrices and an LP)")  # fmt: skip
    proves = "not injective"

    def applies(self, run: _NetRun, ctx: Context) -> bool:
        return len(run.net) > 1 or run.near is not None

    def run(self, run: _NetRun, ctx: Context) -> None:
        run.pair, run.pair_layer, first = _first_look(run.net, run.K, run.seed, ctx.budget, run.where, run.near)
        run.checks += first


class _LayerByLayer(Stage):
    name = "layer by layer"
    summary = ("each layer in turn runs the layer stages below; a certificate for every layer proves the network "
               "injective (a composition of injective maps)")  # fmt: skip

    def applies(self, run: _NetRun, ctx: Context) -> bool:
        return run.pair is None

    def time_share(self, run: _NetRun) -> float:
        # three quarters when the two copies apply, the rest for them: a layer whose proof needs the image (the pieces)
        # keeps most of the time it had before the two copies existed, and a layer that cannot be decided one at a
        # time usually ends its stage early, leaving more than a quarter
        return 0.75 if two_copy_applies(run.net.weights, run.K) else 1.0

    def run(self, run: _NetRun, ctx: Context) -> None:
        net, K, budget = run.net, run.K, ctx.budget
        dom: Any = K
        for k, (W, b) in enumerate(net.weights):
            t_layer = time.perf_counter()
            lo, hi = (None, None) if k == 0 else dom
            R = _reduce(W, b, lo, hi)
            run.reduced.append(R)
            image = relu_box(W, b, dom)
            if k == 0:
                dom_text = run.where
            else:
                n_fixed = int(np.sum(~R.free))
                dom_text = f"the box [lo, hi] ⊂ R^{W.shape[1]} enclosing the image of layer {k} (hi ≤ {fmt(float(np.max(hi)))})"
                if n_fixed:
                    dom_text += f", {n_fixed} coordinate(s) constant"
            info = {"layer": _layer_name(net, k), "image_hi": image[1], "input_set": "K" if k == 0 else "box"}
            lr = _LayerRun(run, k, R, dom, dom_text, info)
            run_stages(LAYER_STAGES, lr, ctx, stop_at_deadline=False)
            run.checks.append(_layer_line(lr, time.perf_counter() - t_layer))
            if lr.st == Status.NOT_INJECTIVE or budget.expired():
                break
            dom = image


class _OnInputSet(Stage):
    name = "layer on its input set"
    summary = ("the layer's own check (the lists above) on K for layer 1, on a box enclosing the image of the layers before "
               "for the others (half of the layer's share: the true image may need the rest)")  # fmt: skip

    def time_share(self, lr: _LayerRun) -> float:
        return (0.5 if lr.k else 1.0) / (len(lr.run.net) - lr.k)

    def run(self, lr: _LayerRun, ctx: Context) -> None:
        run, k, R = lr.run, lr.k, lr.R
        lo, hi = (None, None) if k == 0 else lr.dom
        if int(R.free.sum()) == 0:
            lr.st = lr.layer_st = Status.INJECTIVE
            lr.method, lr.reason = "trivial", "the enclosure is a single point"
            return
        if k > 0 and not np.all(np.isfinite(hi)):
            lr.st = lr.layer_st = Status.UNDETERMINED
            lr.method, lr.reason = "not run", f"the enclosure of the image of layer {k} is unbounded ({run.where} is unbounded)"
            return
        Kk = run.K if k == 0 else Domain.from_bounds(lo[R.free], hi[R.free])
        own = check_weights(R.W, -R.b, Kk, method=run.method, budget=ctx.budget, seed=run.seed,
                            near=run.near if k == 0 else None)  # fmt: skip
        lr.own = own
        lr.details = {**own.details, **lr.details}
        lr.layer_st, lr.method = own.status, own.method
        lr.st = lr.layer_st if lr.layer_st != Status.NOT_INJECTIVE else Status.UNDETERMINED
        lr.reason = own.text.split(" — ", 1)[1] if " — " in own.text else own.text
        if own.pair is not None:
            lr.layer_pair = tuple(R.expand(np.asarray(p, dtype=float)) if k else np.asarray(p, dtype=float) for p in own.pair)
            lr.details["layer_pair"] = lr.layer_pair
        if own.bounds is not None:
            lr.details["bounds"] = own.bounds


class _NetworkPair(Stage):
    name = "pair of the network"
    summary = ("a pair of the layer becomes one of the network: in K for layer 1, lifted through the layers before by "
               "reconstruction, or found by a local search where the first layers are locally constant")  # fmt: skip
    proves = "not injective"

    def applies(self, lr: _LayerRun, ctx: Context) -> bool:
        return lr.layer_st == Status.NOT_INJECTIVE

    def run(self, lr: _LayerRun, ctx: Context) -> None:
        run, k, pair = lr.run, lr.k, lr.layer_pair
        net, K = run.net, run.K
        found, how = None, ""
        try:
            if k == 0 and pair is not None and _verified(net, K, *pair) is not None:
                found, how = pair, "the pair is in K"
            if found is None and k > 0 and pair is not None:
                found = _lift(net, run.reduced, k, pair, K)
                how = "the pair lies in the image of the layers before (lifted by reconstruction)"
            if found is None:
                found = _local_pair(net, k, K, run.seed, ctx.budget)
                how = "a pair of K along which the first layers are locally constant"
        except BudgetExhausted as exc:
            run.notes.append(f"time limit reached during {exc.stage}")
        if found is not None:
            lr.st, run.pair, run.pair_layer = Status.NOT_INJECTIVE, found, _collision_layer(net, *found)
            lr.reason += f"; network pair verified ({how})"
        elif k == 0:
            lr.reason += "; but the pair could not be verified for the network"
        else:
            lr.reason += "; but no colliding pair in the true image was found (the enclosure may be larger than the image)"


class _OnImage(Stage):
    name = "image MILP"
    summary = ("when the box decides nothing: the layer on the true image of the layers before, encoded exactly in a "
               "mixed-integer program (and across the pieces of a low-dimensional input)")  # fmt: skip

    def time_share(self, lr: _LayerRun) -> float:
        return 1.0  # _on_image takes 1 / (layers left) of the time itself

    def applies(self, lr: _LayerRun, ctx: Context) -> bool:
        run = lr.run
        return lr.k > 0 and lr.st != Status.INJECTIVE and run.pair is None and run.K.bounded and not ctx.budget.expired()

    def run(self, lr: _LayerRun, ctx: Context) -> None:
        run, k = lr.run, lr.k
        lr.st, lr.reason, lr.dom_text, lr.cert, lr.method = _on_image(
            run.net, k, run.K, run.seed, ctx.budget, lr.st, lr.reason, lr.dom_text, lr.method, lr.details)
        if lr.st == Status.NOT_INJECTIVE:
            run.pair = lr.details["image_pair"]
            run.pair_layer = _collision_layer(run.net, *run.pair)


class _TwoCopies(Stage):
    name = "two copies"
    summary = ("small networks (input dimension ≤ 4, a few hundred units) when the layers leave it open: the whole "
               "network at once, far pairs by a MILP over two copies of it, near pairs by the ReLUs' secant slopes")  # fmt: skip

    def applies(self, run: _NetRun, ctx: Context) -> bool:
        return (run.pair is None and not _all_certified(run) and two_copy_applies(run.net.weights, run.K)
                and not ctx.budget.expired())  # fmt: skip

    def run(self, run: _NetRun, ctx: Context) -> None:
        net, K = run.net, run.K
        weights, linear = run.two_copy_weights()
        near = None if run.near is None else np.asarray(run.near, dtype=float)
        res = check_two_copies(weights, K, budget=ctx.budget, linear_last=linear, near=near,
                               verify_pair=lambda x, y: _verified(net, K, x, y) is not None)  # fmt: skip
        run.two_copy = res
        if res.status == "not injective" and res.pair is not None:
            run.pair = tuple(np.asarray(p, dtype=float) for p in res.pair)
            run.pair_layer = _collision_layer(net, *run.pair)


def _all_certified(run: _NetRun) -> bool:
    return len(run.checks) == len(run.net) and all(c.status == Status.INJECTIVE for c in run.checks)


#: a network's own stages
NETWORK_STAGES = (_FirstLook(), _LayerByLayer(), _TwoCopies())
#: what each layer of a network runs, in order
LAYER_STAGES = (_OnInputSet(), _NetworkPair(), _OnImage())


def _layer_line(lr: _LayerRun, seconds: float) -> Verdict:
    """The layer's line in the network's verdict."""
    run, k = lr.run, lr.k
    W = run.net.weights[k][0]
    text = _line(_layer_name(run.net, k), W.shape[1], W.shape[0], lr.dom_text, lr.st, lr.reason)
    if lr.details["input_set"] == "image":
        text += f" [on the box enclosing the image: {lr.layer_st}]"
    elif lr.st != lr.layer_st:
        text += f" [the layer alone on its domain: {lr.layer_st}]"
    lr.details["layer_status"] = lr.layer_st.value
    own = lr.own
    return Verdict(lr.st, lr.method, text, lr.dom_text, lr.cert or (None if own is None else own.certificate),
                   run.pair if lr.st == Status.NOT_INJECTIVE else None, bounds=None if own is None else own.bounds,
                   notes=() if own is None else own.notes, seconds=seconds, details=lr.details)  # fmt: skip


def check_network(net: Network, K: Domain, *, method: str, budget: Budget, seed: Any = 0,
                  _paired_last: bool = False, near: Any = None) -> Verdict:
    r"""Whether the ReLU network ``net`` is injective on ``K``: :data:`NETWORK_STAGES` (see the module docstring).

    Each layer gets an equal share of the time that is left when it starts. A network whose
    last layer is affine (:attr:`~relu_frames_nb.Network.last_linear`) is checked in its
    :meth:`~relu_frames_nb.Network.relu_form`, which has the same colliding pairs.
    """
    if net.last_linear:
        W = net.weights[-1][0]
        if len(net) > 1 and _full_column_rank(W):
            # an injective affine map after the ReLU layers: the network is injective iff they are
            inner = Network.from_weights(net.weights[:-1], note=net.note)
            inner.names = net.names[:-1]
            return _injective_last(check_network(inner, K, method=method, budget=budget, seed=seed, near=near), net)
        return _affine_last(check_network(net.relu_form(), K, method=method, budget=budget, seed=seed, _paired_last=True,
                                          near=near), net)  # fmt: skip
    if not K.finite and len(net) > 1:
        merged, folded = merge_affine(net, K)
        if folded:
            return _merged_back(check_network(merged, K, method=method, budget=budget, seed=seed, _paired_last=_paired_last,
                                              near=near), net, K, folded)  # fmt: skip
    t0 = time.perf_counter()
    if K.finite:
        try:
            return _check_finite(net, K, t0, budget)
        except BudgetExhausted as exc:
            text = f"undetermined on {K.describe()} — time limit reached during {exc.stage}"
            return Verdict(Status.UNDETERMINED, "", text, K.describe(), seconds=time.perf_counter() - t0,
                           details=_details(net))  # fmt: skip
    run = _NetRun(net, K, method, seed, K.describe(), paired_last=_paired_last, near=near)
    run_stages(NETWORK_STAGES, run, Context(budget, seed), stop_at_deadline=False)
    return _network_verdict(run, t0)


def _network_verdict(run: _NetRun, t0: float) -> Verdict:
    """One verdict from the layers' lines and the pair found."""
    net, where, checks, pair, notes = run.net, run.where, run.checks, run.pair, run.notes
    L = len(net)
    details = _details(net)
    tc = run.two_copy
    if tc is not None:
        details["two_copy"] = {"status": tc.status, "text": tc.text, "far_bound": tc.far_bound, "cells": tc.cells,
                               "lps": tc.lps, "seconds": tc.seconds}  # fmt: skip
    if pair is not None:
        status = Status.NOT_INJECTIVE
        text = (f"not injective on {where} — {vec(pair[0], limit=6)} and {vec(pair[1], limit=6)} share the output of "
                f"layer {run.pair_layer} (verified)")  # fmt: skip
        cert = None
    elif _all_certified(run):
        status = Status.INJECTIVE
        text = f"injective on {where} — every layer certified on its input set or a set containing it ({L} layers)"
        cert = Certificate("every layer", f"each of the {L} layers is injective on a set containing its input", domain=where)
    elif run.two_copy is not None and run.two_copy.status == "injective":
        status = Status.INJECTIVE
        text = f"injective on {where} — the whole network at once, by two copies: {run.two_copy.text}"
        cert = Certificate("two copies", f"the network is injective on {where}: {run.two_copy.text}", domain=where)
    else:
        status, cert = Status.UNDETERMINED, None
        open_ = [str(c.details["layer"]) for c in checks if c.status != Status.INJECTIVE]
        done = [str(c.details["layer"]) for c in checks if c.status == Status.INJECTIVE]
        skipped = [net.names[k] for k in range(len(checks), L)]
        parts = []
        if open_:
            parts.append(f"{', '.join(open_)} not decided")
        if skipped:
            parts.append(f"{', '.join(skipped)} not checked (time limit)")
        parts.append(f"{', '.join(done)} certified" if done else "none certified")
        text = f"undetermined on {where} — " + "; ".join(parts)
        if run.two_copy is not None:
            text += f"; the whole network by two copies: {run.two_copy.text}"
    if net.note:
        notes.append(net.note)
    notes.append(BIAS_CONVENTION)
    return Verdict(status, "network", text, where, cert, pair, None if pair is None else net(pair[0]),
                   layers=tuple(checks), pair_layer=run.pair_layer, notes=tuple(notes), seconds=time.perf_counter() - t0,
                   details=details)  # fmt: skip
