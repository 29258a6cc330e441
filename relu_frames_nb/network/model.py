r"""A network of ReLU layers :math:`x \mapsto C_L(\dots C_2(C_1(x)))`, from ReLU layers, PyTorch-convention
``(W, b)`` pairs (:meth:`Network.from_weights`), a PyTorch state dict, an ``nn.Sequential``
(:meth:`Network.from_torch`) or a fitted scikit-learn MLP.

Layers are stored as raw weights in the PyTorch convention ``ReLU(W x + b)`` (the paper's
bias is ``alpha = -b``), so that weights the :class:`~relu_frames_nb.frames.Frame` class
refuses (zero rows, rank below the input dimension) can still be run and checked. A raw pair
is accepted only by the constructor whose name says the convention (:meth:`Network.from_weights`):
the bias convention is never guessed. Check a network with :func:`relu_frames_nb.check`.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import numpy as np

from .._util.budget import DEFAULT_MEMORY
from .._util.validation import as_points, as_positive, to_float_array
from ..errors import DimensionMismatchError, InputError
from ..layer import CONVENTION_HELP, ReLULayer
from .onnx_reader import read_onnx
from .trace import is_torch_module, read_module

__all__ = ["Network", "conv2d_matrix"]


def _as_weights(W: Any, b: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(W, b)`` as a read-only float ``(m, n)`` matrix and ``(m,)`` vector (``b=None``: zeros)."""
    W_arr = to_float_array(W, f"{name} weight")
    if W_arr.ndim != 2 or min(W_arr.shape) < 1:
        raise InputError(
            f"{name} weight must be a non-empty 2-D array of shape (outputs, inputs); got shape {W_arr.shape}."
        )
    if b is None:
        b_arr = np.zeros(W_arr.shape[0])
    else:
        b_arr = to_float_array(b, f"{name} bias")
        if b_arr.shape != (W_arr.shape[0],):
            raise DimensionMismatchError(
                f"{name} bias must be a vector of length {W_arr.shape[0]} (one per row of the weight); "
                f"got shape {b_arr.shape}."
            )
    W_arr, b_arr = np.array(W_arr), np.array(b_arr)
    W_arr.setflags(write=False)
    b_arr.setflags(write=False)
    return W_arr, b_arr


def _layer_weights(item: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    name = f"layer {k}"
    if isinstance(item, ReLULayer):
        return _as_weights(item.weights, -np.asarray(item.alpha), name)
    if isinstance(item, (tuple, list)) and len(item) == 2:
        raise InputError(f"{name} must be a ReLULayer; got a {type(item).__name__} of two arrays: {CONVENTION_HELP}.")
    raise InputError(f"{name} must be a ReLULayer; got {type(item).__name__}. {CONVENTION_HELP[0].upper()}{CONVENTION_HELP[1:]}.")


#: modules that are the identity at inference
_INERT = ("Dropout", "Identity")


def _torch_modules(module: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(name, module)`` in order, nested containers opened (``Sequential`` and plain iterables)."""
    if type(module).__name__ == "Sequential" or isinstance(module, (list, tuple)):
        items = module.named_children() if hasattr(module, "named_children") else enumerate(module)
        for name, child in items:
            yield from _torch_modules(child, f"{prefix}{name}.")
        return
    if hasattr(module, "named_children") and any(True for _ in module.named_children()):
        raise InputError(
            f"module {prefix.rstrip('.') or type(module).__name__} must be an nn.Sequential of Linear and ReLU; got a "
            f"{type(module).__name__} with its own forward (wrap its layers in an nn.Sequential, or pass the state dict "
            f"to Network.from_state_dict)."
        )
    yield prefix.rstrip(".") or type(module).__name__, module


def _tensor(value: Any, name: str) -> np.ndarray:
    """A torch tensor (or array) as a float array: detached and on the CPU first when it is a tensor."""
    if value is None:
        raise InputError(f"{name} must be a tensor; got None.")
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "cpu"):
        value = value.cpu()
    if hasattr(value, "numpy"):
        value = value.numpy()
    return to_float_array(value, name)


#: the largest unrolled convolution (entries of its dense matrix) that is built
CONV_MAX_ENTRIES = 50_000_000
#: the share of the memory allowance the dense matrices of a network's unrolled convolutions may take together:
#: building them holds two copies (the matrix and the network's read-only one) and a check adds its own (six
#: 4900 x 4900 matrices, 1.15 GB, peaked at 3.8 GB)
CONV_MEMORY_SHARE = 0.25


def _pair_arg(value: Any, name: str, minimum: int | None = None) -> tuple[int, int]:
    """``value`` (one integer or two) as a pair of integers, each at least ``minimum`` when it is given."""
    if isinstance(value, str):
        raise InputError(f"{name} must be integers; got {value!r} (padding='same'/'valid' is not supported).")
    try:
        t = tuple(int(v) for v in (value if isinstance(value, (tuple, list)) else (value, value)))
    except (TypeError, ValueError):
        raise InputError(f"{name} must be one integer or two; got {value!r}.") from None
    if len(t) != 2:
        raise InputError(f"{name} must be one integer or two; got {value!r}.")
    if minimum is not None and min(t) < minimum:
        raise InputError(f"{name} must be >= {minimum}; got {value!r}.")
    return t


def _shape_arg(value: Any) -> tuple[int, ...]:
    """``input_shape`` as a tuple of positive integers: ``(features,)``, ``(H, W)`` or ``(C, H, W)``."""
    try:
        shape = tuple(int(v) for v in (value if isinstance(value, (tuple, list)) else (value,)))
    except (TypeError, ValueError):
        raise InputError(f"input_shape must be positive integers: (features,), (H, W) or (C, H, W); got {value!r}.") from None
    if not 1 <= len(shape) <= 3 or min(shape) < 1:
        raise InputError(f"input_shape must be positive integers: (features,), (H, W) or (C, H, W); got {value!r}.")
    return shape


def _unrolled_shape(weight_shape: tuple, in_shape: tuple, stride: Any, padding: Any) -> tuple[int, int] | None:
    """Rows and columns of the dense matrix of a convolution on images of ``in_shape`` (None: it does not fit)."""
    c_out, _, kh, kw = (int(v) for v in weight_shape)
    C, H, Wd = (int(v) for v in in_shape)
    (sh, sw), (ph, pw) = _pair_arg(stride, "stride"), _pair_arg(padding, "padding")
    if sh < 1 or sw < 1:
        return None
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (Wd + 2 * pw - kw) // sw + 1
    return (c_out * Ho * Wo, C * H * Wd) if Ho >= 1 and Wo >= 1 else None


def _conv_size(weight: Any, in_shape: tuple, stride: Any, padding: Any) -> tuple[int, int] | None:
    """:func:`_unrolled_shape` of a module's weight, or None when it is malformed (left to :func:`conv2d_matrix`)."""
    shape = tuple(np.shape(weight))
    if len(shape) != 4 or len(in_shape) != 3:
        return None
    try:
        return _unrolled_shape(shape, in_shape, stride, padding)
    except (InputError, TypeError, ValueError):
        return None


def _unrolled_fit(unrolled: list[tuple[str, int, int]], memory_limit: float) -> None:
    """Refuse, before building them, unrolled convolutions whose dense matrices do not fit the memory allowance.

    ``unrolled`` holds ``(name, rows, columns)`` per convolution; together they may take
    :data:`CONV_MEMORY_SHARE` of ``memory_limit`` (bytes) as float64 matrices.
    """
    total = 8.0 * sum(r * c for _, r, c in unrolled)
    allowed = CONV_MEMORY_SHARE * memory_limit
    if total > allowed:
        sizes = ", ".join(f"{name} {r} x {c}" for name, r, c in unrolled)
        raise InputError(
            f"the convolutions unrolled must fit in {CONV_MEMORY_SHARE:.0%} of the memory limit of "
            f"{memory_limit / 2**30:.3g} GiB ({allowed / 2**30:.3g} GiB: a check holds several copies of them); got dense "
            f"matrices of {total / 2**30:.3g} GiB ({sizes}). Raise memory_limit (command line: --memory-limit GB), or "
            "check the layers after the convolutions on the convolutions' outputs."
        )


def conv2d_matrix(weight: Any, bias: Any, in_shape: tuple[int, int, int], *, stride: Any = 1, padding: Any = 0,
                  name: str = "conv") -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:  # fmt: skip
    """A 2-D convolution (PyTorch's ``Conv2d``: cross-correlation, zero padding) as a dense matrix.

    ``weight`` has shape ``(C_out, C_in, kh, kw)``; the input is an image of shape
    ``in_shape = (C_in, H, W)`` flattened in C order (channel, row, column), as ``nn.Flatten``
    does, and so is the output of shape ``(C_out, H', W')``. Returns ``(A, b, out_shape)`` with
    ``conv(x) = A @ x.ravel() + b``.
    """
    K = _tensor(weight, f"{name}.weight")
    if K.ndim != 4:
        raise InputError(f"{name}.weight must have shape (C_out, C_in, kh, kw); got {K.shape}.")
    c_out, c_in, kh, kw = K.shape
    C, H, Wd = (int(v) for v in in_shape)
    if C != c_in:
        raise DimensionMismatchError(f"{name} expects {c_in} input channels; the image before it has {C}.")
    (sh, sw), (ph, pw) = _pair_arg(stride, f"{name}.stride"), _pair_arg(padding, f"{name}.padding")
    if sh < 1 or sw < 1 or ph < 0 or pw < 0:
        raise InputError(f"{name}: stride must be >= 1 and padding >= 0; got {(sh, sw)} and {(ph, pw)}.")
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (Wd + 2 * pw - kw) // sw + 1
    if Ho < 1 or Wo < 1:
        raise DimensionMismatchError(f"{name}: a {kh} x {kw} kernel does not fit an image of {H} x {Wd} (padding {ph, pw}).")
    entries = c_out * Ho * Wo * C * H * Wd
    if entries > CONV_MAX_ENTRIES:
        raise InputError(f"{name} unrolled would be a {c_out * Ho * Wo} x {C * H * Wd} matrix ({entries:.3g} entries, more "
                         f"than {CONV_MAX_ENTRIES:.0e}): only small images are supported.")  # fmt: skip
    A = np.zeros((c_out, Ho, Wo, C, H, Wd))
    oi, oj = np.arange(Ho), np.arange(Wo)
    for a in range(kh):
        rows = oi * sh - ph + a
        ok_r = (rows >= 0) & (rows < H)
        for c in range(kw):
            cols = oj * sw - pw + c
            ok_c = (cols >= 0) & (cols < Wd)
            ii, jj = np.meshgrid(oi[ok_r], oj[ok_c], indexing="ij")
            rr, cc = np.meshgrid(rows[ok_r], cols[ok_c], indexing="ij")
            # A[o, i, j, ch, r, c] = K[o, ch, a, c] for every output channel o and input channel ch
            A[:, ii, jj, :, rr, cc] = K[:, :, a, c][None, None]
    A = A.reshape(c_out * Ho * Wo, C * H * Wd)
    b = np.zeros(c_out) if bias is None else _tensor(bias, f"{name}.bias").reshape(-1)
    if b.shape != (c_out,):
        raise DimensionMismatchError(f"{name}.bias must have {c_out} entries; got {b.shape}.")
    return A, np.repeat(b, Ho * Wo), (c_out, Ho, Wo)


#: the entries a batch normalisation layer keeps beside its 1-D weight and bias
_NORM_STATS = ("running_mean", "running_var", "num_batches_tracked")
#: how to read a model whose state dict cannot be read exactly
_READ_IT_WHOLE = ("load the model in Python and use Network.from_torch(model.eval()) (traced), or export it to ONNX")


def refuse_unread(state: dict, used: set) -> None:
    """Refuse a state dict with an entry that is not the weight or bias of a linear or convolutional layer, naming it.

    Nothing of a state dict is dropped: a normalisation layer's keys do not say where it sits
    relative to the ReLU nor its eps, so the network they belong to cannot be read exactly.
    """
    left = [k for k in state if k not in used]
    if not left:
        return
    prefix = {k: k.rpartition(".")[0] for k in left}
    batchnorm = {prefix[k] for k in left if k.rpartition(".")[2] in _NORM_STATS}
    key = next((k for k in left if k.rpartition(".")[2] in _NORM_STATS), left[0])  # a running statistic says BatchNorm
    others = [k for k in left if k != key]
    also = (f" (other entries not read: {', '.join(map(repr, others[:6]))}{', ...' if len(others) > 6 else ''})"
            if others else "")  # fmt: skip
    last = key.rpartition(".")[2]
    if prefix[key] in batchnorm:
        raise InputError(f"state[{key!r}] belongs to a normalisation layer (BatchNorm): a state dict does not say where it "
                         f"sits nor its eps, so it cannot be read exactly; {_READ_IT_WHOLE}{also}.")  # fmt: skip
    if last == "weight" and np.ndim(state[key]) == 1:
        raise InputError(f"state[{key!r}] is a 1-D weight, the scale of a normalisation layer (LayerNorm, GroupNorm, a "
                         "BatchNorm without running statistics) or a PReLU's slopes: a state dict does not say which, nor "
                         f"where it sits, so it cannot be read exactly; {_READ_IT_WHOLE}{also}.")  # fmt: skip
    if last == "bias":
        weight = key[: -len("bias")] + "weight"
        what = (f"beside the 1-D {weight!r} (a normalisation layer's shift, or another layer's)" if weight in state
                else "and the state dict has no weight of that name")  # fmt: skip
        raise InputError(f"state[{key!r}] must be the bias of a linear or convolutional layer; it is {what}, so it cannot "
                         f"be read exactly; {_READ_IT_WHOLE}{also}.")  # fmt: skip
    raise InputError(f"state[{key!r}] is not the weight or bias of a linear or convolutional layer (the only entries a "
                     f"state dict is read from), so the network cannot be read exactly; {_READ_IT_WHOLE}{also}.")


#: the most image shapes one layer of :func:`_other_input_sizes` looks at (beyond it, no other sizes are named)
_MAX_SHAPES = 20_000


def _other_input_sizes(convs: list, opts: list, shape0: tuple, chosen: tuple, target: int, show: int = 3) -> list:
    """Up to ``show`` other image sizes the convolutions fit (same channels, up to twice the size), with other strides.

    ``convs`` holds ``(name, kernel)`` and ``opts`` each one's ``(stride, padding)`` choices; the
    last convolution's flattened output must have ``target`` entries. Works backward from the
    output shapes that hold ``target`` numbers, layer by layer; returns ``(shape, choice)`` pairs
    whose choice differs from ``chosen``.
    """
    bound = 2 * max(shape0[1:]) + len(convs)  # images grow by at most one pixel a layer (padding <= kernel / 2)
    c_last = convs[-1][1].shape[0]
    if target % c_last:
        return []
    hw = target // c_last
    level = {(c_last, h, hw // h) for h in range(1, hw + 1) if hw % h == 0}
    preds: list[dict] = []
    for (_, K), choices in zip(reversed(convs), reversed(opts)):
        kh, kw = K.shape[2], K.shape[3]
        nxt: dict = {}
        for c, h, w in level:
            for sp in choices:
                (sh, sw), (ph, pw) = _pair_arg(sp[0], "stride", 1), _pair_arg(sp[1], "padding", 0)
                h0, w0 = sh * (h - 1) + kh - 2 * ph, sw * (w - 1) + kw - 2 * pw  # the smallest input of output h x w
                for H in range(max(h0, 1), min(h0 + sh - 1, bound) + 1):
                    for W in range(max(w0, 1), min(w0 + sw - 1, bound) + 1):
                        nxt.setdefault((K.shape[1], H, W), []).append((sp, (c, h, w)))
        if len(nxt) > _MAX_SHAPES:
            return []
        preds.insert(0, nxt)
        level = set(nxt)
    norm = [(_pair_arg(s, "stride", 1), _pair_arg(p, "padding", 0)) for s, p in chosen]

    def another(shape):  # a fitting choice from ``shape`` that is not ``chosen`` (a few tried), else None
        stack = [(0, shape, ())]
        for _ in range(256):
            if not stack:
                return None
            i, s, tail = stack.pop()
            if i == len(convs):
                if [(_pair_arg(a, "stride", 1), _pair_arg(b, "padding", 0)) for a, b in tail] != norm:
                    return tail
                continue
            stack.extend((i + 1, out, (*tail, sp)) for sp, out in preds[i].get(s, ()))
        return None

    out = []
    def nearness(s):  # the same aspect first, then the nearest
        return (s[1] * shape0[2] != s[2] * shape0[1], abs(s[1] - shape0[1]) + abs(s[2] - shape0[2]), s)

    near = sorted((s for s in preds[0] if s != tuple(shape0)), key=nearness)
    for s in near:
        choice = another(s)
        if choice is not None:
            out.append((s, choice))
            if len(out) >= show:
                break
    return out


#: points pushed through a network at once when looking for dead units (bounds the memory of a large data set)
_DEAD_UNIT_CHUNK = 4096


def dead_unit_report(model: Any, X: Any) -> tuple[dict, str]:
    """The units of ``model`` (a :class:`ReLULayer` or a :class:`Network`) never active on the data points ``X``.

    Returns ``(details, text)``: ``details`` holds ``n_points`` and, per ReLU layer, its name, its
    number of units, how many are never active and the first of their indices (at most 20);
    ``text`` says it in plain words, e.g. "7 of 256 units of layer fc1 are never active on the
    1000 data points (the first: 3, 17, 40)".
    """
    if isinstance(model, ReLULayer):
        pts, _ = as_points(X, model.n, "X")
        W, alpha = np.asarray(model.weights), np.asarray(model.alpha)
        active = np.zeros(W.shape[0], dtype=bool)
        for start in range(0, pts.shape[0], _DEAD_UNIT_CHUNK):
            active |= (pts[start : start + _DEAD_UNIT_CHUNK] @ W.T - alpha > 0).any(axis=0)
        dead, names, sizes = (np.flatnonzero(~active),), ("the layer",), (W.shape[0],)
    else:
        pts, _ = as_points(X, model.n, "X")
        dead = model.dead_units(pts)
        names = tuple(f"layer {nm}" if not nm.startswith("layer ") else nm for nm in model.names[: len(dead)])
        sizes = tuple(W.shape[0] for W, _ in model.weights[: len(dead)])
    N = pts.shape[0]
    layers = [{"layer": nm.removeprefix("layer ") if nm != "the layer" else "1", "units": int(m), "dead": int(d.size),
               "first": d[:20].tolist()} for nm, m, d in zip(names, sizes, dead)]  # fmt: skip
    said = [f"{d.size} of {m} units of {nm} {'is' if d.size == 1 else 'are'} never active on the {N} data points "
            f"(the first: {', '.join(map(str, d[:8].tolist()))}{', ...' if d.size > 8 else ''})"
            for nm, m, d in zip(names, sizes, dead) if d.size]  # fmt: skip
    text = "; ".join(said) if said else f"every unit is active on at least one of the {N} data points"
    return {"n_points": int(N), "layers": layers}, text


def _natural_key(name: str) -> list:
    """``fc10`` after ``fc2``: digits compare as numbers."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t]


def _chains(found: list) -> bool:
    """Whether each layer's input size is the previous layer's output size."""
    shapes = [np.shape(W) for _, W, _ in found]
    return all(shapes[k][1] == shapes[k - 1][0] for k in range(1, len(shapes)))


#: a weight matrix is multiplied as a sparse one when at most this share of it is non-zero ...
SPARSE_DENSITY = 0.1
#: ... and it has at least this many entries
SPARSE_MIN_ENTRIES = 1 << 16


def _sparse_copy(W: np.ndarray):
    """A CSR copy of ``W`` when it is large and mostly zero (see :meth:`Network.affine`), else None."""
    if W.size < SPARSE_MIN_ENTRIES or np.count_nonzero(W) > SPARSE_DENSITY * W.size:
        return None
    from scipy.sparse import csr_matrix

    return csr_matrix(W)


class Network:
    r"""A feed-forward ReLU network :math:`x \mapsto \mathrm{ReLU}(W_L \cdots \mathrm{ReLU}(W_1 x + b_1) \cdots + b_L)`.

    Parameters
    ----------
    layers : sequence of ReLULayer
        In order from the input (each layer says its own convention). Raw ``(W, b)`` pairs
        are refused here: use :meth:`from_weights` (PyTorch's convention ``ReLU(W x + b)``),
        which also accepts zero rows and rank-deficient weights (they are checked, not refused).
    note : str, optional
        What the network leaves out of the model it came from (e.g. an output layer), shown
        in the verdict.
    last : {"relu", "linear"}, default "relu"
        Whether the last layer is followed by a ReLU (a hidden layer, a decoder's output) or
        is affine (a classifier's logits). See :attr:`last_linear`.

    Raises
    ------
    InputError
        If there is no layer or a layer is not a ReLULayer.
    DimensionMismatchError
        If a layer's input dimension differs from the previous layer's output dimension.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> from relu_frames_nb.network import Network
    >>> rng = np.random.default_rng(0)
    >>> net = Network.from_weights([(rng.standard_normal((6, 2)), -np.ones(6)), (rng.standard_normal((9, 6)), None)])
    >>> net
    Network(2 -> 6 -> 9)
    >>> net(np.zeros((4, 2))).shape
    (4, 9)
    """

    def __init__(self, layers: Any, *, note: str = "", last: str = "relu") -> None:
        if isinstance(layers, Network):
            weights = list(layers.weights)
            note = note or layers.note
        else:
            try:
                items = list(layers)
            except TypeError:
                raise InputError(f"layers must be a list of ReLULayers; got {type(layers).__name__}.") from None
            if not items:
                raise InputError("layers must contain at least one layer; got an empty list.")
            weights = [_layer_weights(item, k + 1) for k, item in enumerate(items)]
        self._set_weights(weights, note, last)

    @classmethod
    def _from_pairs(cls, pairs: list, note: str = "", last: str = "relu") -> Network:
        net = cls.__new__(cls)
        net._set_weights([_as_weights(W, b, f"layer {k + 1}") for k, (W, b) in enumerate(pairs)], note, last)
        return net

    def _set_weights(self, weights: list, note: str, last: str = "relu") -> None:
        if last not in ("relu", "linear"):
            raise InputError(f"last must be 'relu' (a ReLU after the last layer) or 'linear' (logits); got {last!r}.")
        if not weights:
            raise InputError("layers must contain at least one layer; got an empty list.")
        for k in range(1, len(weights)):
            prev, W = weights[k - 1][0], weights[k][0]
            if W.shape[1] != prev.shape[0]:
                raise DimensionMismatchError(
                    f"layer {k + 1} weight must have {prev.shape[0]} columns (layer {k} has {prev.shape[0]} outputs); "
                    f"got shape {W.shape}. Weights are (outputs, inputs) as in PyTorch; sklearn's coefs_ are transposed."
                )
        self._weights: tuple[tuple[np.ndarray, np.ndarray], ...] = tuple(weights)
        self._sparse: list | None = None  # per layer: a sparse copy of W when that saves work (an unrolled convolution)
        self._last_linear = last == "linear"
        self.note = str(note)
        #: the layers' names (from a state dict), else "layer 1", "layer 2", ...
        self.names: tuple[str, ...] = tuple(f"layer {k + 1}" for k in range(len(weights)))

    # -- loaders ---------------------------------------------------------------------------------
    @classmethod
    def from_weights(cls, pairs: Any, *, note: str = "", last: str = "relu") -> Network:
        """A network from ``(W, b)`` pairs in **PyTorch's convention** ``ReLU(W x + b)`` (the paper's ``alpha = -b``).

        Parameters
        ----------
        pairs : sequence of (W, b)
            In order from the input; ``W`` of shape ``(m_k, m_{k-1})`` and ``b`` of shape
            ``(m_k,)`` or ``None`` (no bias). Zero rows and rank-deficient weights are allowed.
        note : str, optional
            What the network leaves out of the model it came from.
        last : {"relu", "linear"}, default "relu"
            ``"linear"``: no ReLU after the last layer (a classifier's logits).

        Returns
        -------
        Network

        Examples
        --------
        >>> import numpy as np
        >>> Network.from_weights([(np.eye(2), np.zeros(2)), (np.ones((3, 2)), None)])
        Network(2 -> 2 -> 3)
        """
        try:
            items = list(pairs)
        except TypeError:
            raise InputError(f"pairs must be a list of (W, b) pairs; got {type(pairs).__name__}.") from None
        if not items:
            raise InputError("pairs must contain at least one (W, b) pair; got an empty list.")
        out = []
        for k, item in enumerate(items):
            if isinstance(item, ReLULayer):
                out.append((item.weights, -np.asarray(item.alpha)))
                continue
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                raise InputError(
                    f"pairs[{k}] must be a (W, b) pair (PyTorch convention ReLU(W x + b)); got {type(item).__name__}."
                )
            out.append((item[0], item[1]))
        return cls._from_pairs(out, note, last)
    @classmethod
    def from_state_dict(cls, state: Any, *, order: str = "given", last: str = "relu", input_shape: Any = None,
                        conv: Any = None, memory_limit: float = DEFAULT_MEMORY) -> Network:  # fmt: skip
        """The linear layers of a PyTorch state dict, each followed by a ReLU (PyTorch's convention ``ReLU(W x + b)``).

        Linear layers are the 2-D entries whose name ends in ``.weight`` (or is ``weight``),
        with the entry ``<prefix>.bias`` when present; 4-D ones are ``Conv2d`` layers, read as
        the dense layer of the unrolled convolution (:func:`conv2d_matrix`) on images of
        ``input_shape``. Every other entry is refused by name (an ``InputError``): a normalisation
        layer's weight and running statistics do not say where it sits relative to the ReLU nor
        its eps, so the network cannot be read exactly from them (read the module itself with
        :meth:`from_torch`); 0-D and 3-D weights are refused too. No
        torch import is needed: tensors are read through ``.detach().cpu()``. The layer names
        are kept in :attr:`names`, and the note says which layers were found.

        A state dict does not hold a convolution's stride and padding. Those given in ``conv``
        are used; the others are inferred when exactly one choice (stride 1 or 2, padding 0 up
        to half the kernel, for each convolution) makes the flattened output of the last
        convolution the input size of the linear layer after it, and refused otherwise (the
        count of the choices that fit, and a few of them). The search goes layer by layer over
        the image shapes each convolution can produce, so it takes polynomial time. The input
        size is the caller's: the same weights often fit other image sizes with other strides,
        and the note names a few of them when the strides were inferred.

        ``order="given"`` composes the layers in the dict's order (PyTorch keeps the order in
        which the modules were registered); ``order="natural"`` sorts them by name with numbers
        compared as numbers (``fc2`` before ``fc10``), for files whose order means nothing (an
        ``.npz`` saved from a sorted dict). Either way, when the chosen order does not chain
        (an output size differs from the next input size) and the other one does, the other
        one is used and :attr:`note` says so.

        A state dict does not say whether its last linear layer is followed by a ReLU: a
        classifier's is not (its logits); pass ``last="linear"`` for it, or slice it off with
        ``net[:-1]``.

        Parameters
        ----------
        state : mapping of str to array_like
            As returned by ``torch.load(path, weights_only=True)`` or ``model.state_dict()``.
        order : {"given", "natural"}
            The order of the layers (see above).
        last : {"relu", "linear"}, default "relu"
            ``"linear"``: no ReLU after the last layer (a classifier's logits).
        input_shape : (C, H, W), (H, W) or (features,), optional
            The shape of one input image; needed when the dict has convolutions (they come first;
            ``(H, W)`` is one channel). For linear layers only, it must hold the first layer's inputs.
        conv : mapping of str to (stride, padding), optional
            Stride and padding of the convolutions named (each an integer or a pair).
        memory_limit : float, default 2 GiB
            Bytes of working memory (that of the check to come): the dense matrices of the
            unrolled convolutions may take :data:`CONV_MEMORY_SHARE` of it together; larger ones
            are refused (an ``InputError`` that gives their sizes) before they are built.

        Returns
        -------
        Network

        Examples
        --------
        >>> import numpy as np
        >>> state = {"0.weight": np.ones((4, 2)), "0.bias": np.zeros(4), "2.weight": np.ones((3, 4))}
        >>> Network.from_state_dict(state)
        Network(2 -> 4 -> 3)
        >>> cnn = {"conv.weight": np.ones((2, 1, 3, 3)), "conv.bias": np.zeros(2), "fc.weight": np.ones((5, 2 * 6 * 6))}
        >>> Network.from_state_dict(cnn, input_shape=(1, 8, 8))  # stride 1 and padding 0 inferred from fc's 72 inputs
        Network(64 -> 72 -> 5)
        """
        if not hasattr(state, "items"):
            raise InputError(f"state must be a mapping of names to arrays (a state dict); got {type(state).__name__}.")
        if order not in ("given", "natural"):
            raise InputError(f"order must be 'given' or 'natural'; got {order!r}.")
        state = {str(k): v for k, v in state.items()}
        found, used = [], set()
        for key, value in state.items():
            if not (key == "weight" or key.endswith(".weight")):
                continue
            ndim = getattr(value, "ndim", None)
            if ndim is None:
                ndim = np.ndim(value)
            if ndim == 4:
                prefix = key[: -len("weight")]
                found.append((prefix.rstrip(".") or "weight", value, state.get(prefix + "bias")))
                used.update({key, prefix + "bias"})
                continue
            if ndim != 2:
                if ndim > 2:
                    raise InputError(
                        f"state[{key!r}] must be the 2-D weight of a linear layer; got {ndim}-D shape "
                        f"{tuple(np.shape(value))} (a convolution?). Only fully connected networks are supported."
                    )
                if ndim == 0:
                    raise InputError(f"state[{key!r}] must be the 2-D weight of a linear layer; got a 0-D value (a scalar).")
                continue  # a 1-D weight: a normalisation layer's scale or a PReLU's slopes, refused by refuse_unread
            prefix = key[: -len("weight")]
            bias_key = prefix + "bias"
            found.append((prefix.rstrip(".") or "weight", value, state.get(bias_key)))
            used.update({key, bias_key})
        if not found:
            raise InputError(
                f"state must contain at least one 2-D '*.weight' entry (a linear layer); got the keys {list(state)[:8]}."
            )
        refuse_unread(state, used)  # every entry is read, or the dict is refused naming it
        if any(np.ndim(W) == 4 for _, W, _ in found):
            return cls._from_conv_state(found, order=order, last=last, input_shape=input_shape, conv=conv,
                                        memory_limit=as_positive(memory_limit, "memory_limit"))  # fmt: skip
        if conv:
            raise InputError(f"conv names convolutions ({', '.join(map(str, conv))}); the state dict has none.")
        shape0 = None if input_shape is None else _shape_arg(input_shape)
        orders = {"given": found, "natural": sorted(found, key=lambda t: _natural_key(t[0]))}
        first, second = (order, "natural" if order == "given" else "given")
        chosen, remark = orders[first], ""
        if not _chains(chosen) and _chains(orders[second]):
            chosen = orders[second]
            remark = f"layers composed in {second} order of their names (the {first} order does not chain)"
        try:
            net = cls._from_pairs([(W, b) for _, W, b in chosen], last=last)
        except DimensionMismatchError as exc:
            raise DimensionMismatchError(f"{exc} (linear layers in order: {[name for name, _, _ in chosen]})") from None
        net.names = tuple(name for name, _, _ in chosen)
        if shape0 is not None and int(np.prod(shape0)) != net.n:  # linear layers only: the shape holds the inputs
            raise DimensionMismatchError(f"input_shape must hold the {net.n} inputs of the first layer {net.names[0]} "
                                         f"((features,), (H, W) or (C, H, W) with {net.n} numbers); got {input_shape!r}, "
                                         f"{int(np.prod(shape0))} numbers.")  # fmt: skip
        net.note = remark
        return net

    @classmethod
    def _from_conv_state(cls, found: list, *, order: str, last: str, input_shape: Any,
                         conv: Any, memory_limit: float = DEFAULT_MEMORY) -> Network:  # fmt: skip
        """:meth:`from_state_dict` for a dict with convolutions: unrolled, strides and paddings given or inferred."""
        names = [name for name, _, _ in found]
        if input_shape is None:
            first = next(name for name, W, _ in found if np.ndim(W) == 4)
            raise InputError(f"{first}.weight is a convolution's (4-D); its layers need the image shape: pass "
                             "input_shape=(C, H, W) (command line: --input-shape C,H,W).")  # fmt: skip
        shape0 = _shape_arg(input_shape)
        if len(shape0) == 2:  # (H, W): one channel
            shape0 = (1, *shape0)
        if len(shape0) != 3:
            raise InputError(f"input_shape must be (channels, height, width) or (height, width) for a state dict with "
                             f"convolutions; got {input_shape!r}.")  # fmt: skip
        layers = sorted(found, key=lambda t: _natural_key(t[0])) if order == "natural" else list(found)
        kinds = ["conv" if np.ndim(W) == 4 else "linear" for _, W, _ in layers]
        first_linear = kinds.index("linear") if "linear" in kinds else len(kinds)
        if "conv" in kinds[first_linear:]:
            raise InputError(f"convolutions must come before the linear layers; got the order {names}.")
        conv = {} if conv is None else {str(k): v for k, v in dict(conv).items()}
        for key, value in conv.items():
            if not (isinstance(value, (tuple, list)) and len(value) == 2):
                raise InputError(f"conv[{key!r}] must be a (stride, padding) pair; got {value!r}.")
        unknown = [k for k in conv if k not in names or kinds[[n for n, _, _ in layers].index(k)] != "conv"]
        if unknown:
            raise InputError(f"conv names {unknown}, which are not convolutions of the state dict ({names}).")
        convs = [(name, _tensor(W, f"{name}.weight")) for (name, W, _), kind in zip(layers, kinds) if kind == "conv"]
        target = int(np.shape(layers[len(convs)][1])[1]) if len(convs) < len(layers) else None

        def out_size(K, shape, sp):
            (sh, sw), (ph, pw) = _pair_arg(sp[0], "stride", 1), _pair_arg(sp[1], "padding", 0)
            Ho, Wo = (shape[1] + 2 * ph - K.shape[2]) // sh + 1, (shape[2] + 2 * pw - K.shape[3]) // sw + 1
            return (K.shape[0], Ho, Wo) if Ho >= 1 and Wo >= 1 else None

        def options(name, K):
            if name in conv:
                return [tuple(conv[name])]
            k = min(K.shape[2], K.shape[3])
            return [(s_, p_) for s_ in (1, 2) for p_ in range(k // 2 + 1)]

        opts = [options(name, K) for name, K in convs]
        for (name, _), (sp,) in ((c, o) for c, o in zip(convs, opts) if c[0] in conv):
            _pair_arg(sp[0], f"conv[{name!r}] stride", 1), _pair_arg(sp[1], f"conv[{name!r}] padding", 0)
        if convs[0][1].shape[1] != shape0[0]:
            raise DimensionMismatchError(f"input_shape {shape0} has {shape0[0]} channel{'s' * (shape0[0] != 1)}; "
                                         f"{convs[0][0]} takes {convs[0][1].shape[1]} (its weight's second dimension).")
        for (a, Ka), (b_, Kb) in zip(convs, convs[1:]):
            if Kb.shape[1] != Ka.shape[0]:
                raise DimensionMismatchError(f"{b_} takes {Kb.shape[1]} input channels; {a} gives {Ka.shape[0]}.")
        # layer by layer, the shapes reachable after each convolution, with how many choices reach each and from where
        # (images shrink or grow by at most one pixel a layer, so these sets stay small)
        counts, back = {shape0: 1}, []
        for (_, K), choices in zip(convs, opts):
            nxt, bp = {}, {}
            for shape, n_ways in counts.items():
                for sp in choices:
                    out = out_size(K, shape, sp)
                    if out is not None:
                        nxt[out] = nxt.get(out, 0) + n_ways
                        bp.setdefault(out, []).append((shape, sp))
            counts = nxt
            back.append(bp)
        ends = [s for s in counts if target is None or int(np.prod(s)) == target]
        n_fits = sum(counts[s] for s in ends)

        def paths(limit):
            """Up to ``limit`` fitting choices (tuples of (stride, padding), one per convolution), from the back-pointers."""
            found_ = []

            def walk(level, shape, tail):
                if len(found_) >= limit:
                    return
                if level < 0:
                    found_.append(tuple(tail))
                    return
                for prev, sp in back[level][shape]:
                    walk(level - 1, prev, [sp, *tail])

            for end in ends:
                walk(len(convs) - 1, end, [])
            return found_

        fits = paths(6)
        free = [name for name, _ in convs if name not in conv]
        if n_fits != 1:
            how = ("no stride and padding" if not n_fits else f"{n_fits} choices of strides and paddings")
            after = f"the {target} inputs of {layers[len(convs)][0]}" if target is not None else "nothing after them"
            raise InputError(f"{how} of the convolutions {[n for n, _ in convs]} fit images of {shape0} and {after}; "
                             "give them: conv={'name': (stride, padding)} (command line: --conv NAME:STRIDE:PADDING)"
                             + (f"; choices that fit: {fits[:6]}" if fits else ""))  # fmt: skip
        others = _other_input_sizes(convs, opts, shape0, fits[0], target) if free and target is not None else []
        unrolled, shape = [], shape0
        for (name, K), (stride, padding) in zip(convs, fits[0]):
            rows, cols = _unrolled_shape(K.shape, shape, stride, padding)  # type: ignore[misc]
            unrolled.append((name, rows, cols))
            shape = out_size(K, shape, (stride, padding))
        _unrolled_fit(unrolled, memory_limit)
        pairs, said, shape = [], [], shape0
        for (name, W, b), kind in zip(layers, kinds):
            if kind == "linear":
                pairs.append((W, b))
                continue
            stride, padding = fits[0][len(said)]
            A, c, out = conv2d_matrix(W, b, shape, stride=stride, padding=padding, name=name)
            how = "given" if name in conv else "inferred"
            said.append(f"{name}: Conv2d {shape[0]} -> {out[0]} channels, {np.shape(W)[2]} x {np.shape(W)[3]} kernel, "
                        f"stride {stride}, padding {padding} ({how}), {shape[1]} x {shape[2]} -> {out[1]} x {out[2]} images")
            pairs.append((A, c))
            shape = out
        net = cls._from_pairs(pairs, last=last)
        net.names = tuple(name for name, _, _ in layers)
        parts = ["convolutions unrolled into dense layers on images flattened channel by channel, row by row: "
                 + "; ".join(said), f"layers found: {', '.join(net.names)}"]  # fmt: skip
        if others:
            names_ = [n for n, _ in convs]
            fit = "; ".join(f"{c} x {h} x {w} (" + ", ".join(f"{n} stride {st}, padding {pd}" for n, (st, pd) in
                            zip(names_, choice)) + ")" for (c, h, w), choice in others)  # fmt: skip
            parts.append(f"strides and paddings inferred from input_shape {shape0}: a state dict does not say which input "
                         f"size the weights were made for, and they also fit images of {fit}; if the images are not "
                         f"{shape0[0]} x {shape0[1]} x {shape0[2]}, pass their shape, or the strides and paddings "
                         "(command line: --input-shape, --conv)")  # fmt: skip
        net.note = "; ".join(parts)
        return net

    @classmethod
    def from_sklearn(cls, model: Any, *, include_output: bool = False) -> Network:
        """The hidden ReLU layers of a fitted scikit-learn ``MLPClassifier`` or ``MLPRegressor``.

        Reads ``coefs_`` (matrices of shape ``(n_in, n_out)``, so ``W = coefs_[k].T``) and
        ``intercepts_``; scikit-learn is not imported. The model's last layer is its output
        layer (identity, logistic or softmax), not a ReLU layer: it is left out, which
        :attr:`note` says.

        Parameters
        ----------
        model : fitted MLPClassifier or MLPRegressor (anything with ``coefs_`` and ``intercepts_``)
        include_output : bool, default False
            Also take the output layer, as the affine map it is (no ReLU after it: the network
            ends with the logits, before the output activation, see :attr:`last_linear`).

        Returns
        -------
        Network

        Examples
        --------
        >>> import numpy as np
        >>> class Fitted:  # what a fitted MLPClassifier(hidden_layer_sizes=(5,)) holds
        ...     activation = "relu"
        ...     coefs_ = [np.ones((2, 5)), np.ones((5, 3))]
        ...     intercepts_ = [np.zeros(5), np.zeros(3)]
        >>> Network.from_sklearn(Fitted())
        Network(2 -> 5)
        """
        coefs = getattr(model, "coefs_", None)
        intercepts = getattr(model, "intercepts_", None)
        if coefs is None or intercepts is None:
            raise InputError(
                f"model must be a fitted scikit-learn MLPClassifier/MLPRegressor (with coefs_ and intercepts_); "
                f"got {type(model).__name__} without them. Call model.fit(X, y) first."
            )
        activation = getattr(model, "activation", "relu")
        if activation != "relu":
            raise InputError(f"model.activation must be 'relu'; got {activation!r}. Only ReLU networks are supported.")
        coefs, intercepts = list(coefs), list(intercepts)
        if len(coefs) != len(intercepts):
            raise InputError(
                f"model.intercepts_ must have one entry per entry of coefs_ ({len(coefs)}); got {len(intercepts)}."
            )
        keep = len(coefs) if include_output else len(coefs) - 1
        if keep < 1:
            raise InputError("model must have at least one hidden layer; got a model with none (a linear model).")
        layers = []
        for k in range(keep):
            C = to_float_array(coefs[k], f"model.coefs_[{k}]")
            if C.ndim != 2:
                raise InputError(f"model.coefs_[{k}] must be a 2-D array (n_in, n_out); got shape {C.shape}.")
            layers.append((C.T, intercepts[k]))
        out = getattr(model, "out_activation_", "identity/softmax")
        note = (
            f"the output layer is checked as the affine map it is, up to the values before its activation ({out})"
            if include_output
            else f"the output layer ({out}, {np.shape(coefs[-1])[1]} units) is not a ReLU layer and is not checked"
        )
        return cls._from_pairs(layers, note=note, last="linear" if include_output else "relu")

    @classmethod
    def from_torch(cls, module: Any, *, include_output: bool = False, input_shape: Any = None,
                   memory_limit: float = DEFAULT_MEMORY) -> Network:  # fmt: skip
        """The ReLU layers of a PyTorch module: any piecewise-linear ``nn.Module`` traced exactly, or a chain of stand-ins.

        A real ``torch.nn.Module`` is traced with ``torch.fx`` and reduced exactly to layers
        (:mod:`relu_frames_nb.network.trace`): Linear, Conv1d/Conv2d (any stride, padding,
        dilation, groups), BatchNorm in eval mode, average and max pooling, ReLU, LeakyReLU,
        PReLU, residual additions and concatenations, flattening, Dropout/Identity. Any other
        operation is refused with its name and position, and the result's forward is compared
        with the module's own (float64) on random inputs. ``input_shape`` may then be
        ``(features,)``, ``(C, L)``, ``(H, W)`` or ``(C, H, W)``; without it the first Linear's
        ``in_features`` is used. The rest of this docstring describes the reading of objects
        that only have torch's class names and attributes (no torch import):

        The modules are read in order (nested ``Sequential`` containers are opened): each ``Linear``
        (or ``Conv2d``) followed by a ``ReLU`` is a layer ``ReLU(W x + b)``; ``Flatten`` (the identity
        on flattened images) and ``Dropout`` / ``Identity`` (the identity at inference) are skipped,
        which :attr:`note` says. A last ``Linear`` without a ``ReLU`` is the model's output layer (logits):
        it is left out, as with :meth:`from_sklearn`, unless ``include_output``.

        Parameters
        ----------
        module : torch.nn.Sequential (or any iterable of modules, each with its class name)
        include_output : bool, default False
            Also take a last ``Linear`` without a ``ReLU``, as the affine map it is (see
            :attr:`last_linear`).
        input_shape : (channels, height, width), optional
            The shape of one input image; needed when the module has ``Conv2d`` layers. Each
            ``Conv2d`` (zero padding, any stride, no dilation, one group) followed by a ``ReLU`` is
            unrolled into the dense layer of the same map on images flattened in C order (channel,
            row, column), as ``nn.Flatten`` does (:func:`conv2d_matrix`); small images only.
        memory_limit : float, default 2 GiB
            Bytes of working memory (that of the check to come): the dense matrices of the
            unrolled convolutions may take :data:`CONV_MEMORY_SHARE` of it together; larger ones
            are refused (an ``InputError`` that gives their sizes) before they are built.

        Returns
        -------
        Network

        Raises
        ------
        InputError
            For a module that is not a plain chain of the types above (convolutions, other
            activations, a ``ReLU`` without a ``Linear`` before it, ...), naming it.

        Examples
        --------
        >>> import numpy as np
        >>> class Linear:  # stand-ins with the class names and attributes of torch.nn modules
        ...     def __init__(self, W, b): self.weight, self.bias = W, b
        >>> class ReLU: pass
        >>> Network.from_torch([Linear(np.ones((4, 2)), np.zeros(4)), ReLU(), Linear(np.ones((3, 4)), None)])
        Network(2 -> 4)
        """
        if is_torch_module(module):
            pairs, last, note = read_module(module, include_output=include_output, input_shape=input_shape,
                                            memory_limit=as_positive(memory_limit, "memory_limit"))  # fmt: skip
            return cls._from_pairs(pairs, note=note, last=last)
        mods = [(name, mod, type(mod).__name__) for name, mod in _torch_modules(module)]
        if not mods:
            raise InputError("module must hold Linear and ReLU modules; got an empty module.")
        if input_shape is not None:
            input_shape = tuple(int(v) for v in input_shape)
            if len(input_shape) != 3 or min(input_shape) < 1:
                raise InputError(f"input_shape must be (channels, height, width); got {input_shape}.")
        # Flatten is the identity on images flattened in C order (how the network reads them)
        skipped = [f"{name} ({kind})" for name, _, kind in mods if kind in _INERT or kind == "Flatten"]
        chain = [(name, mod, kind) for name, mod, kind in mods if not (kind in _INERT or kind == "Flatten")]
        layers, notes, k, last = [], [], 0, "relu"
        shape = input_shape  # (C, H, W) while the signal is an image, None once it is a vector
        convs, unrolled = [], []
        memory_limit = as_positive(memory_limit, "memory_limit")
        while k < len(chain):
            name, mod, kind = chain[k]
            if kind not in ("Linear", "Conv2d"):
                where = "a ReLU must follow a Linear or a Conv2d" if kind == "ReLU" else f"got {kind}"
                raise InputError(
                    f"module {name} must be Linear, Conv2d, ReLU, Flatten, Dropout or Identity; {where}. Only chains "
                    f"of Linear / Conv2d and ReLU are read (other activations and pooling are not supported)."
                )
            if kind == "Conv2d":
                if shape is None:
                    raise InputError(f"module {name} (Conv2d) needs the image shape: pass input_shape=(C, H, W)"
                                     + ("" if not layers else " (and no Linear before a Conv2d)") + ".")  # fmt: skip
                for attr, ok in (("dilation", (1, 1)), ("groups", 1), ("padding_mode", "zeros")):
                    val = getattr(mod, attr, ok)
                    val = tuple(val) if isinstance(val, (list, tuple)) else val
                    if val != ok and not (attr == "dilation" and val == 1):
                        raise InputError(f"module {name} (Conv2d) must have {attr}={ok!r}; got {val!r}.")
                size = _conv_size(getattr(mod, "weight", None), shape, getattr(mod, "stride", 1), getattr(mod, "padding", 0))
                if size is not None:  # (a malformed one is refused by conv2d_matrix, by its name)
                    unrolled.append((name, *size))
                    _unrolled_fit(unrolled, memory_limit)
                W, b, shape = conv2d_matrix(getattr(mod, "weight", None), getattr(mod, "bias", None), shape,
                                            stride=getattr(mod, "stride", 1), padding=getattr(mod, "padding", 0),
                                            name=name)  # fmt: skip
                convs.append(f"{name} ({W.shape[1]} -> {W.shape[0]}, output {shape[0]} x {shape[1]} x {shape[2]})")
            else:
                W, b = _tensor(getattr(mod, "weight", None), f"{name}.weight"), getattr(mod, "bias", None)
                b = None if b is None else _tensor(b, f"{name}.bias")
                if shape is not None and W.ndim == 2 and W.shape[1] != int(np.prod(shape)):
                    size = int(np.prod(shape))
                    raise DimensionMismatchError(f"module {name} (Linear) takes {W.shape[1]} inputs; the image before it "
                                                 f"has {shape[0]} x {shape[1]} x {shape[2]} = {size}.")  # fmt: skip
                shape = None
            if k + 1 < len(chain):
                if chain[k + 1][2] != "ReLU":
                    raise InputError(f"module {name} ({kind}) must be followed by a ReLU; got {chain[k + 1][2]}.")
                layers.append((W, b))
                k += 2
                continue
            # a last Linear without a ReLU: the model's output (logits)
            if include_output:
                layers.append((W, b))
                last = "linear"
                notes.append(f"the output layer {name} ({W.shape[0]} units, {kind}, no ReLU) is checked as the affine "
                             "map it is")  # fmt: skip
            else:
                notes.append(f"the output layer {name} ({kind}, {W.shape[0]} units, no ReLU) is not checked")
            k += 1
        if not layers:
            raise InputError("module must have a Linear followed by a ReLU; got one Linear layer (a linear model).")
        if input_shape is not None and layers[0][0].shape[1] != int(np.prod(input_shape)):
            raise DimensionMismatchError(f"input_shape {input_shape} holds {int(np.prod(input_shape))} numbers; the first "
                                         f"layer takes {layers[0][0].shape[1]}.")  # fmt: skip
        if convs:
            notes.insert(0, "convolutions unrolled into dense layers on images flattened channel by channel, row by "
                            "row: " + ", ".join(convs))  # fmt: skip
        if skipped:
            notes.insert(0, f"skipped (the identity at inference, or the input's flattening): {', '.join(skipped)}")
        return cls._from_pairs(layers, note="; ".join(notes), last=last)

    @classmethod
    def from_onnx(cls, path_or_model: Any, *, input_shape: Any = None, memory_limit: float = DEFAULT_MEMORY) -> Network:
        """The network of an ONNX file (or a loaded ``onnx.ModelProto``), read exactly (needs the ``onnx`` package).

        The operations Gemm, MatMul, Conv, BatchNormalization, AveragePool, GlobalAveragePool,
        MaxPool, Relu, LeakyRelu, PRelu, Add, Sub, Mul/Div by constants, Concat, Flatten,
        Reshape, Identity, Dropout and Constant are reduced exactly to layers
        (:mod:`relu_frames_nb.network.onnx_reader`); any other is refused by name. An affine
        output map (logits) is kept as an affine last layer (:attr:`last_linear`).
        ``input_shape`` (without the batch axis) is needed when the file leaves the input's
        sizes open, and must match them when it does not.
        """
        pairs, last, note = read_onnx(path_or_model, input_shape=input_shape,
                                      memory_limit=as_positive(memory_limit, "memory_limit"))  # fmt: skip
        return cls._from_pairs(pairs, note=note, last=last)

    # -- the sequence of layers ------------------------------------------------------------------
    @property
    def weights(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """The layers as read-only ``(W, b)`` pairs (PyTorch convention)."""
        return self._weights

    @property
    def n(self) -> int:
        """Input dimension."""
        return self._weights[0][0].shape[1]

    @property
    def last_linear(self) -> bool:
        r"""Whether the last layer is affine (no ReLU after it: a classifier's logits).

        The check reads such a layer :math:`s = W h + b` as the ReLU layer with rows
        :math:`[W; -W]` and biases :math:`[b; -b]` (:meth:`relu_form`): :math:`s` and the pair
        :math:`(\mathrm{ReLU}(s), \mathrm{ReLU}(-s))` determine each other
        (:math:`s = \mathrm{ReLU}(s) - \mathrm{ReLU}(-s)`), so both networks have exactly
        the same colliding pairs, and every verdict of the one is a verdict of the other.
        """
        return self._last_linear

    def relu_form(self) -> Network:
        """The same map as a network with a ReLU after every layer (see :attr:`last_linear`); ``self`` if it is one."""
        if not self._last_linear:
            return self
        W, b = self._weights[-1]
        pairs = list(self._weights[:-1]) + [(np.vstack([W, -W]), np.concatenate([b, -b]))]
        net = Network._from_pairs(pairs, note=self.note)
        net.names = self.names
        return net

    @property
    def widths(self) -> tuple[int, ...]:
        """``(n, m_1, ..., m_L)``: the input dimension and every layer's output dimension."""
        return (self.n,) + tuple(W.shape[0] for W, _ in self._weights)

    def layer(self, k: int) -> ReLULayer:
        """Layer ``k`` (0-based) as a :class:`~relu_frames_nb.ReLULayer`.

        Raises
        ------
        NotAFrameError
            If its weights have a zero row or do not span the input space.
        """
        W, b = self._weights[k]
        return ReLULayer.from_weights(W, b)

    def __len__(self) -> int:
        return len(self._weights)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        return iter(self._weights)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            keeps_last = range(len(self))[k][-1:] == range(len(self))[-1:] if len(range(len(self))[k]) else False
            last = "linear" if self._last_linear and keeps_last else "relu"
            net = Network._from_pairs(list(self._weights[k]), note=self.note, last=last)
            net.names = self.names[k]
            return net
        return self._weights[k]

    def __repr__(self) -> str:
        tail = ", last layer linear" if self._last_linear else ""
        return "Network(" + " -> ".join(str(w) for w in self.widths) + tail + ")"

    # -- forward -----------------------------------------------------------------------------------
    def forward(self, X: Any, *, upto: int | None = None) -> np.ndarray:
        """The outputs of the first ``upto`` layers (all by default): shape ``(m,)`` or ``(N, m)``."""
        pts, single = as_points(X, self.n, "X")
        stop = len(self) if upto is None else upto
        for k in range(stop):
            pts = self.affine(k, pts)
            if not (self._last_linear and k == len(self) - 1):
                pts = np.maximum(pts, 0.0)
        return pts[0] if single else pts

    def affine(self, k: int, H: np.ndarray) -> np.ndarray:
        """``H W_k^T + b_k`` for points as rows: through a sparse copy of ``W_k`` when most of it is zero.

        An unrolled convolution (:func:`conv2d_matrix`) is mostly zeros: a 3 x 3 kernel on 28 x 28
        images keeps about 1 % of the dense matrix, and the product over a data set costs that
        much of the dense one.
        """
        W, b = self._weights[k]
        if self._sparse is None:
            self._sparse = [_sparse_copy(Wk) for Wk, _ in self._weights]
        S = self._sparse[k]
        return H @ W.T + b if S is None else np.asarray((S @ H.T).T) + b

    def __call__(self, X: Any) -> np.ndarray:
        """Batched forward pass through every layer: shape ``(m_L,)`` or ``(N, m_L)``."""
        return self.forward(X)

    def dead_units(self, X: Any) -> tuple[np.ndarray, ...]:
        """Per ReLU layer, the indices of its units that are never active on the points ``X`` (rows).

        A unit is never active when its pre-activation ``W h + b`` is ``<= 0`` at every point, so
        its output is 0 on all of them (computed in floating point, a description of the data,
        not a proof). An affine last layer (:attr:`last_linear`) has no ReLU and is left out.

        Examples
        --------
        >>> net = Network.from_weights([(np.array([[1.0, 0.0], [-1.0, -1.0]]), None)])
        >>> net.dead_units(np.array([[1.0, 2.0], [0.5, 0.0]]))
        (array([1]),)
        """
        pts, _ = as_points(X, self.n, "X")
        n_relu = len(self) - int(self._last_linear)
        active = [np.zeros(W.shape[0], dtype=bool) for W, _ in self._weights[:n_relu]]
        for start in range(0, pts.shape[0], _DEAD_UNIT_CHUNK):
            H = pts[start : start + _DEAD_UNIT_CHUNK]
            for k in range(n_relu):
                H = self.affine(k, H)
                active[k] |= (H > 0).any(axis=0)
                H = np.maximum(H, 0.0)
        return tuple(np.flatnonzero(~a) for a in active)
