r"""Injectivity of a whole network, checked layer by layer (DESIGN "Whole networks").

Layer 1 is checked on ``K`` itself; layer :math:`k+1` on a box enclosing the image of
layer :math:`k` (interval bounds, :mod:`relu_frames_nb.network.bounds`), each by the exact
verdict (:func:`relu_frames_nb.exact.exact_verdict`). The rule for combining is honest:

* a certificate for every layer proves the network injective on ``K`` (a composition of
  injective maps, each injective on a set containing the image of the one before);
* a colliding pair of layer 1 in ``K`` is a colliding pair of the network (later layers
  are functions);
* a colliding pair of layer :math:`k > 1` lies in the *enclosure* of the image, which may be
  larger than the image. It counts only once lifted: preimages are reconstructed through
  the earlier layers (:func:`relu_frames_nb.reconstruct`) and must lie in ``K`` and map
  forward to the pair. Failing that, a local search at sample points of ``K`` looks for a
  direction in which the first :math:`k` layers are locally constant. A pair is reported
  only after the forward pass of the whole network confirms it; otherwise the layer is
  "undetermined", with the reason.

Coordinates that are constant on the enclosure (a unit that is never active, say) are
folded into the next layer's bias, so every layer is checked on a full-dimensional box in
its own free coordinates; zero rows of the weights (constant outputs) are left out of the
check; weights whose rows do not span the input space make the layer "not injective" on
its full-dimensional domain, with a colliding pair along their null space.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._format import fmt, vec
from .._validation import as_nonnegative, as_positive, as_rng
from ..domains import Domain, as_domain
from ..errors import InputError, NotInjectiveError, TooExpensiveError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer
from ..verdict import Status
from .bounds import relu_box
from .model import Network

__all__ = ["LayerCheck", "NetworkVerdict", "check_network"]

#: a returned pair is at least this far apart, relative to max(1, |x|) (as in find_collision)
MIN_SEPARATION = 1e-4
#: membership tolerance for the points of a returned pair (as in find_collision)
MEMBERSHIP_TOL = 1e-12
#: sample points of K tried by the local search
N_LOCAL = 256


def _exact(layer: ReLULayer, K: Domain, *, time_limit: float, progress: Any) -> Any:
    """The exact verdict of one layer (a seam for tests)."""
    from ..exact import exact_verdict

    return exact_verdict(layer, K, time_limit=time_limit, progress=progress)


def _box(lo: np.ndarray, hi: np.ndarray) -> Domain:
    from ..domains.polyhedral import Box

    return Box(lo, hi)


def _number(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _json(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, np.ndarray):
        return [_json(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return v


@dataclass(frozen=True)
class LayerCheck:
    """What one layer tells about the network.

    Attributes
    ----------
    index : int
        1-based position in the network.
    n_in, n_out : int
        Input and output dimension.
    domain : str
        Where the layer was checked: ``K`` for layer 1, an enclosure of the image otherwise.
    status : Status
        What the layer contributes to the network's verdict: "injective" (certified on its
        domain), "not injective" (a verified colliding pair *of the network* was found here),
        or "undetermined" (including a pair in the enclosure that is not in the true image).
    layer_status : Status
        The layer's own verdict on ``domain``.
    method : str
        ``"exact"`` (the exact verdict), ``"rank"`` (rows do not span), ``"trivial"``.
    text : str
        One line for people.
    lower_bound, upper_bound : float
        Bounds of the exact verdict on the minimum number of active rows (NaN if not run).
    pair : tuple of ndarray or None
        The colliding pair of the layer in ``domain`` (its own input coordinates).
    image : tuple of ndarray
        ``(lo, hi)``: the box enclosing this layer's output on ``domain``.
    seconds : float
    """

    index: int
    n_in: int
    n_out: int
    domain: str
    status: Status
    layer_status: Status
    method: str
    text: str
    lower_bound: float = float("nan")
    upper_bound: float = float("nan")
    pair: Any = None
    image: Any = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """JSON-friendly (``None`` for inf and NaN)."""
        return {
            "index": self.index, "n_in": self.n_in, "n_out": self.n_out, "domain": self.domain,
            "status": str(self.status), "layer_status": str(self.layer_status), "method": self.method,
            "text": self.text, "lower_bound": _json(self.lower_bound), "upper_bound": _json(self.upper_bound),
            "pair": None if self.pair is None else _json(list(self.pair)),
            "image_hi": None if self.image is None else _json(self.image[1]), "seconds": _json(self.seconds),
        }  # fmt: skip


@dataclass(frozen=True)
class NetworkVerdict:
    """Whether a network is injective on ``K``, with one :class:`LayerCheck` per layer checked.

    Attributes
    ----------
    status : Status
    text : str
        One line for people, starting with the status.
    layers : tuple of LayerCheck
        The layers checked, in order (checking stops at the first proof of non-injectivity).
    pair : tuple of ndarray or None
        Two distinct points of ``K`` with the same network output, verified by the forward pass.
    pair_layer : int or None
        The (1-based) layer after which the pair's images coincide.
    domain : str
    n_layers : int
    note : str
        What the network leaves out of the model it came from.
    tol : float
        Relative tolerance of every output comparison.
    """

    status: Status
    text: str
    layers: tuple
    pair: Any = None
    pair_layer: Any = None
    domain: str = ""
    n_layers: int = 0
    note: str = ""
    tol: float = 1e-8
    seconds: float = 0.0
    widths: tuple = field(default=())

    @property
    def lines(self) -> list[str]:
        """One line per layer checked (and one for the layers not checked)."""
        out = [c.text for c in self.layers]
        if len(self.layers) < self.n_layers:
            out.append(f"layers {len(self.layers) + 1}–{self.n_layers}: not checked (not needed for the verdict)")
        return out

    def report(self) -> str:
        """The verdict line, the per-layer lines and the note, for a terminal."""
        return "\n".join([self.text] + ["  " + s for s in self.lines] + ([f"  note: {self.note}"] if self.note else []))

    def to_dict(self) -> dict:
        """JSON-friendly (``None`` for inf and NaN)."""
        return {
            "status": str(self.status), "text": self.text, "domain": self.domain, "n_layers": self.n_layers,
            "widths": list(self.widths), "note": self.note, "tol": self.tol, "seconds": _json(self.seconds),
            "pair": None if self.pair is None else _json(list(self.pair)), "pair_layer": self.pair_layer,
            "layers": [c.to_dict() for c in self.layers],
        }  # fmt: skip


@dataclass
class _Reduced:
    """A layer in its free input coordinates: ``fixed`` inputs folded into the bias, zero rows left out."""

    free: np.ndarray  # bool mask over inputs
    fixed_values: np.ndarray  # full input vector with the fixed values (free entries arbitrary)
    rows: np.ndarray  # bool mask of the rows kept (non-zero)
    W: np.ndarray
    b: np.ndarray
    layer: ReLULayer | None = None  # None when the rows do not span

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
    rows = np.linalg.norm(Wf, axis=1) > 0
    return _Reduced(free, fixed_values, rows, Wf[rows], bf[rows])


def _spans(W: np.ndarray) -> bool:
    if W.shape[1] == 0:
        return True
    if W.shape[0] < W.shape[1]:
        return False
    s = np.linalg.svd(W, compute_uv=False)
    return bool(s[-1] > DEFAULT_RANK_TOL * s[0])


def _verified(net: Network, K: Domain, x: np.ndarray, y: np.ndarray, tol: float) -> bool:
    """x, y distinct points of K with the same network output (relative tolerance tol)."""
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return False
    if np.linalg.norm(x - y) < MIN_SEPARATION * max(1.0, float(np.linalg.norm(x))):
        return False
    if not (K.contains(x, tol=MEMBERSHIP_TOL) and K.contains(y, tol=MEMBERSHIP_TOL)):
        return False
    fx, fy = net(x), net(y)
    return bool(np.max(np.abs(fx - fy)) <= tol * max(1.0, float(np.max(np.abs(fx)))))


def _candidates(K: Domain, seed: Any) -> np.ndarray:
    pts = []
    if hasattr(K, "interior_point"):
        pts.append(np.asarray(K.interior_point(), dtype=float)[None, :])
    elif K.contains(np.zeros(K.n)):
        pts.append(np.zeros((1, K.n)))
    try:
        pts.append(K.sample(N_LOCAL, seed=as_rng(seed)))
    except (NotImplementedError, InputError):  # pragma: no cover - domains that cannot sample
        pass
    return np.concatenate(pts) if pts else np.zeros((0, K.n))


def _local_pair(net: Network, k: int, K: Domain, seed: Any, tol: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Two points of K on which layers 1..k+1 (0-based ``k``) agree, found where their Jacobian is singular.

    At a point x whose output Jacobian ``D_k W_k ... D_0 W_0`` has a null vector v, every
    active unit stays active and every inactive one inactive along x + t v for small t, so
    the outputs of layer k+1 do not move. The step is the largest that keeps every unit's
    sign (halved), shrunk until both points lie in K; the pair is verified by the forward pass.
    """
    X = _candidates(K, seed)
    if X.shape[0] == 0:
        return None
    n = net.n
    H = X
    J = np.broadcast_to(np.eye(n), (X.shape[0], n, n))
    pres, derivs = [], []
    for W, b in net.weights[: k + 1]:
        P = H @ W.T + b
        G = np.einsum("ij,njk->nik", W, J)
        pres.append(P)
        derivs.append(G)
        H = np.maximum(P, 0.0)
        J = G * (P > 0)[:, :, None]
    s = np.linalg.svd(J, compute_uv=False)
    scale = np.maximum(s[:, 0], 1e-300)
    singular = np.flatnonzero((J.shape[1] < n) | (s[:, -1] <= DEFAULT_RANK_TOL * scale))
    r = K.radius if K.bounded else 1.0 + float(np.max(np.linalg.norm(X, axis=1)))
    for i in singular[:50]:
        v = np.linalg.svd(J[i])[2][-1]
        t = r
        for P, G in zip(pres, derivs):
            d = G[i] @ v
            moving = np.abs(d) > 1e-12 * max(1.0, float(np.max(np.abs(d))))
            if np.any(moving):
                t = min(t, 0.5 * float(np.min(np.abs(P[i][moving]) / np.abs(d[moving]))))
        x = X[i]
        for _ in range(40):
            for y1, y2 in ((x, x + t * v), (x - t * v, x + t * v), (x, x - t * v)):
                if _verified(net, K, y1, y2, tol):
                    return y1, y2
            t /= 2.0
            if t < MIN_SEPARATION * max(1.0, float(np.linalg.norm(x))):
                break
    return None


def _null_pair_box(R: _Reduced, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two points of the box ``[lo, hi]`` (full coordinates) whose difference is in the null space of ``R.W``."""
    v = np.linalg.svd(R.W, full_matrices=True)[2][-1] if R.W.shape[0] else np.eye(R.W.shape[1])[0]
    c, half = (lo[R.free] + hi[R.free]) / 2.0, (hi[R.free] - lo[R.free]) / 2.0
    t = 0.5 * float(np.min(half / np.maximum(np.abs(v), 1e-300)))
    return R.expand(c - t * v), R.expand(c + t * v)


def _lift(net: Network, reduced: list[_Reduced], k: int, pair: tuple, K: Domain, tol: float):
    """Preimages in K of a pair at the input of layer k (0-based) through layers 0..k-1, or None."""
    out = []
    for y in pair:
        y = np.asarray(y, dtype=float)
        target = y
        for j in range(k - 1, -1, -1):
            R = reduced[j]
            if R.layer is None:
                return None
            z = y[R.rows]
            try:
                x = reconstruct_layer(R.layer, z, zero_tol=1e-12 * max(1.0, float(np.max(np.abs(z), initial=0.0))))
            except NotInjectiveError:
                return None
            y = R.expand(x)
        img = net.forward(y, upto=k)
        if np.max(np.abs(img - target)) > tol * max(1.0, float(np.max(np.abs(target)))):
            return None
        out.append(y)
    x1, x2 = out
    return (x1, x2) if _verified(net, K, x1, x2, tol) else None


def reconstruct_layer(layer: ReLULayer, z: np.ndarray, *, zero_tol: float) -> np.ndarray:
    """:func:`relu_frames_nb.reconstruct` (a seam for tests)."""
    from ..reconstruction import reconstruct

    return reconstruct(layer, z, zero_tol=zero_tol)


def _line(k: int, n_in: int, n_out: int, domain: str, status: Status, reason: str) -> str:
    return f"layer {k} ({n_in} → {n_out}) on {domain}: {status} — {reason}"


def _check_finite(net: Network, K: Domain, tol: float, t0: float) -> NetworkVerdict:
    X = K.points
    N = X.shape[0]
    checks, H, pair, pair_layer = [], X, None, None
    where = K.describe()
    for k, (W, b) in enumerate(net.weights, start=1):
        H = np.maximum(H @ W.T + b, 0.0)
        scale = max(1.0, float(np.max(np.abs(H)))) if H.size else 1.0
        keys = np.round(H / (tol * scale)).astype(np.int64)
        _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        found = None
        for g in np.flatnonzero(counts > 1):
            rows = np.flatnonzero(inverse == g)
            for a in rows[1:20]:
                if _verified(net, K, X[rows[0]], X[a], tol):
                    found = (np.array(X[rows[0]]), np.array(X[a]))
                    break
            if found is not None:
                break
        dom = where if k == 1 else f"the images of {where}"
        if found is None:
            checks.append(LayerCheck(k, W.shape[1], W.shape[0], dom, Status.INJECTIVE, Status.INJECTIVE, "exact (finite set)",
                                     _line(k, W.shape[1], W.shape[0], dom, Status.INJECTIVE,
                                           f"exact: the {N} points keep distinct outputs")))  # fmt: skip
            continue
        pair, pair_layer = found, k
        checks.append(LayerCheck(k, W.shape[1], W.shape[0], dom, Status.NOT_INJECTIVE, Status.NOT_INJECTIVE,
                                 "exact (finite set)", _line(k, W.shape[1], W.shape[0], dom, Status.NOT_INJECTIVE,
                                 f"two data points {vec(found[0])} and {vec(found[1])} collide here"), pair=found))  # fmt: skip
        break
    if pair is None:
        status, text = Status.INJECTIVE, f"injective on {where} — exact: no two points share a network output"
    else:
        status = Status.NOT_INJECTIVE
        text = f"not injective on {where} — two of its points share the output of layer {pair_layer} (exact)"
    return NetworkVerdict(status, text, tuple(checks), pair, pair_layer, where, len(net), net.note, tol,
                          time.perf_counter() - t0, net.widths)  # fmt: skip


def check_network(
    net: Any, K: Any, *, time_limit: float = 60.0, progress: Any = None, tol: float = 1e-8, seed: Any = 0
) -> NetworkVerdict:
    r"""Check whether a ReLU network is injective on ``K``, layer by layer (see the module docstring).

    Parameters
    ----------
    net : Network or sequence of (W, b) pairs / ReLULayer
    K : Domain or array_like, shape (N, n)
        The input domain (an array is a finite data set, answered exactly by the forward pass).
    time_limit : float, default 60
        Seconds for the whole check; each layer gets an equal share of what is left.
    progress : bool, callable or None
        Passed to each layer's exact verdict.
    tol : float, default 1e-8
        Relative tolerance of output comparisons: a pair collides when its network outputs
        differ by at most ``tol * max(1, |output|_inf)``; a lifted preimage must map to its
        point within the same tolerance.
    seed : int, optional
        Seed of the sample points of the local search.

    Returns
    -------
    NetworkVerdict

    Examples
    --------
    >>> import numpy as np
    >>> from relu_frames_nb.domains import Ball
    >>> from relu_frames_nb.network import Network, check_network
    >>> W = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 0.0]])  # rows do not span R^2
    >>> v = check_network(Network([(W, np.zeros(3))]), Ball(2))
    >>> v.status
    'not injective'
    >>> x, y = v.pair
    >>> bool(np.allclose(W @ x, W @ y)) and not np.allclose(x, y)
    True
    """
    t0 = time.perf_counter()
    net = net if isinstance(net, Network) else Network(net)
    K = as_domain(K, net.n)
    time_limit = as_positive(time_limit, "time_limit")
    tol = as_nonnegative(tol, "tol")
    if K.finite:
        return _check_finite(net, K, tol, t0)
    where = K.describe()
    deadline = t0 + time_limit
    checks: list[LayerCheck] = []
    reduced: list[_Reduced] = []
    pair = pair_layer = None
    dom: Any = K  # layer 1's domain; a (lo, hi) box afterwards
    L = len(net)
    for k, (W, b) in enumerate(net.weights):
        t_layer = time.perf_counter()
        n_in, n_out = W.shape[1], W.shape[0]
        lo, hi = (None, None) if k == 0 else dom
        R = _reduce(W, b, lo, hi)
        reduced.append(R)
        image = relu_box(W, b, dom)
        if k == 0:
            dom_text = where
        else:
            n_fixed = int(np.sum(~R.free))
            dom_text = f"the box [lo, hi] ⊂ R^{n_in} enclosing the image of layer {k} (hi ≤ {fmt(float(np.max(hi)))})"
            if n_fixed:
                dom_text += f", {n_fixed} coordinate(s) constant"
        lb = ub = float("nan")
        layer_pair = None
        n_free = int(R.free.sum())
        if n_free == 0:
            st, method, reason = Status.INJECTIVE, "trivial", "the enclosure is a single point"
            layer_st = st
        elif not _spans(R.W):
            R.layer = None
            layer_st, method = Status.NOT_INJECTIVE, "rank"
            rank = int(np.linalg.matrix_rank(R.W)) if R.W.size else 0
            reason = f"its weights have rank {rank} < {n_free}: not injective on any full-dimensional set"
            st = Status.UNDETERMINED
            if k > 0 and np.all(np.isfinite(hi)):
                layer_pair = _null_pair_box(R, lo, hi)
        elif k > 0 and not np.all(np.isfinite(hi)):
            R.layer = ReLULayer.from_weights(R.W, R.b)
            st = layer_st = Status.UNDETERMINED
            method, reason = "not run", f"the enclosure of the image of layer {k} is unbounded ({where} is unbounded)"
        else:
            R.layer = ReLULayer.from_weights(R.W, R.b)
            Kk = K if k == 0 else _box(lo[R.free], hi[R.free])
            method = "exact"
            share = max(0.1, (deadline - time.perf_counter()) / (L - k))
            try:
                res = _exact(R.layer, Kk, time_limit=share, progress=progress)
            except (InputError, TooExpensiveError) as exc:
                layer_st, st, reason = Status.UNDETERMINED, Status.UNDETERMINED, f"the exact verdict refused: {exc}"
            else:
                layer_st = Status(str(res.status))
                lb, ub = _number(getattr(res, "lower_bound", None)), _number(getattr(res, "upper_bound", None))
                st = layer_st if layer_st != Status.NOT_INJECTIVE else Status.UNDETERMINED
                reason = str(getattr(res, "text", layer_st))
                if reason.startswith(f"{layer_st} on ") and " — " in reason:  # the line repeats status and domain
                    reason = reason.split(" — ", 1)[1]
                if layer_st == Status.NOT_INJECTIVE and res.pair is not None:
                    layer_pair = tuple(R.expand(np.asarray(p, dtype=float)) if k else np.asarray(p, dtype=float)
                                       for p in res.pair)  # fmt: skip
        if layer_st == Status.NOT_INJECTIVE:
            found = None
            if k == 0 and layer_pair is not None and _verified(net, K, *layer_pair, tol):
                found, how = layer_pair, "the pair is in K"
            if found is None and k > 0 and layer_pair is not None:
                found = _lift(net, reduced, k, layer_pair, K, tol)
                how = "the pair lies in the image of the layers before (lifted by reconstruction)"
            if found is None:
                found = _local_pair(net, k, K, seed, tol)
                how = "a pair of K along which the first layers are locally constant"
            if found is not None:
                st, pair, pair_layer = Status.NOT_INJECTIVE, found, k + 1
                layer_pair = found if k == 0 else layer_pair
                reason += f"; network pair verified ({how})"
            else:
                reason += "; but no colliding pair in the true image was found (the enclosure may be too large)"
        text = _line(k + 1, n_in, n_out, dom_text, st, reason)
        if st != layer_st:
            text += f" [the layer alone on its domain: {layer_st}]"
        checks.append(LayerCheck(k + 1, n_in, n_out, dom_text, st, layer_st, method, text, lb, ub, layer_pair, image,
                                 time.perf_counter() - t_layer))  # fmt: skip
        if st == Status.NOT_INJECTIVE:
            break
        dom = image
    if pair is not None:
        status = Status.NOT_INJECTIVE
        text = (f"not injective on {where} — {vec(pair[0])} and {vec(pair[1])} share the output of layer {pair_layer}"
                " (verified by the forward pass)")  # fmt: skip
    elif all(c.status == Status.INJECTIVE for c in checks):
        status = Status.INJECTIVE
        text = f"injective on {where} — every layer certified on an enclosure of its input ({L} layers)"
    else:
        status = Status.UNDETERMINED
        open_ = [str(c.index) for c in checks if c.status != Status.INJECTIVE]
        text = f"undetermined on {where} — layer(s) {', '.join(open_)} not decided; the others certified"
    return NetworkVerdict(status, text, tuple(checks), pair, pair_layer, where, L, net.note, tol,
                          time.perf_counter() - t0, net.widths)  # fmt: skip
