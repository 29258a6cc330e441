"""Reading a trained layer or network from a weights file: the one loader of the command line and its users.

* ``.npy``, ``.csv``, ``.txt``: one matrix (rows are frame vectors), the bias from ``--bias``;
* ``.npz``: ``W`` (or ``weight``, ``weights``, ...) with ``b`` (PyTorch's bias, added) or ``alpha``
  (the paper's, subtracted); several ``*.weight`` entries make a network;
* ``.pt``/``.pth``: a PyTorch state dict, read with ``weights_only=True`` (no pickled code runs);
  one linear layer, the one named by ``layer_name``, or the whole network with its convolutions
  (strides and paddings given or inferred by :meth:`Network.from_state_dict`);
* ``.onnx``: the whole network an ONNX file computes, read exactly (:meth:`Network.from_onnx`).

Every tensor of a state dict is turned into a float64 array here, exactly (bfloat16, float16 and
float8 values are all float64 values; sparse tensors are made dense), and what cannot be read
exactly (quantized tensors, meta tensors without values, complex numbers) or is not a state dict
(keys that are not names) is refused with an :class:`~relu_frames_nb.errors.InputError` naming
the entry. Nothing here prints.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ._util.io import ARRAY_SUFFIXES, existing_file, pick_array, read_array, read_npz
from ._util.validation import to_float_array
from .errors import InputError
from .layer import ReLULayer
from .network import Network
from .network.model import refuse_unread

__all__ = ["load_weights", "load_layer", "load_model", "load_near", "network_state", "parse_bias"]

_WEIGHT_KEYS = ("W", "weight", "weights", "Phi", "phi", "frame")
_BIAS_KEYS = ("b", "bias")
_ALPHA_KEYS = ("alpha",)
#: integers beyond this size lose digits as float64
_EXACT_INT = 2**53


def _matches(key: str, names: tuple[str, ...]) -> bool:
    return any(key == k or key.endswith("." + k) for k in names)


def _load_npz(path: Path) -> tuple[np.ndarray, np.ndarray | None, str]:
    arrays = read_npz(path, "weights file")
    _, W = pick_array({k: v for k, v in arrays.items() if np.ndim(v) == 2} or arrays, _WEIGHT_KEYS, "weights file", path)
    b_keys = [k for k in arrays if _matches(k, _BIAS_KEYS)]
    a_keys = [k for k in arrays if _matches(k, _ALPHA_KEYS)]
    if b_keys and a_keys:
        raise InputError(
            f"weights file {str(path)!r} must hold one bias; got both {b_keys[0]!r} (PyTorch's b, added) and "
            f"{a_keys[0]!r} (the paper's alpha, subtracted). Keep the one you mean."
        )
    named = set(b_keys) | set(a_keys)
    loose = [k for k, v in arrays.items() if np.ndim(v) == 1 and k not in named]
    if loose:
        raise InputError(
            f"weights file {str(path)!r} holds the 1-D array {loose[0]!r}, which is neither 'b' (PyTorch's bias, added) "
            "nor 'alpha' (the paper's, subtracted): save it under one of these names."
        )
    if a_keys:
        return W, to_float_array(arrays[a_keys[0]], "alpha"), "alpha"
    if b_keys:
        return W, to_float_array(arrays[b_keys[0]], "b"), "b"
    return W, None, "b"


# ---------------------------------------------------------------------------------
# PyTorch state dicts
# ---------------------------------------------------------------------------------


def _tensor_array(torch: Any, key: str, value: Any, path: Path) -> Any:
    """``value`` as a numpy array with the same numbers when it is a tensor (other values unchanged); else an error."""
    tensor_type = getattr(torch, "Tensor", None)
    if tensor_type is None or not isinstance(value, tensor_type):
        return value
    where = f"state[{key!r}] in {str(path)!r}"
    t = value.detach()
    if t.is_meta:
        raise InputError(f"{where} must hold numbers; got a meta tensor (a shape without values, {tuple(t.shape)}). "
                         "Save the state dict of a model whose weights were loaded or initialised.")  # fmt: skip
    if t.is_quantized:
        raise InputError(f"{where} must be a floating-point tensor; got a quantized one ({t.dtype}), whose layer computes "
                         "in integers. Save the float model's state dict (or t.dequantize()) and check that.")  # fmt: skip
    if t.layout != torch.strided:  # sparse COO, CSR, CSC, BSR, BSC: the same numbers, dense
        try:
            t = t.to_dense()
        except Exception as exc:  # noqa: BLE001 - any layout torch cannot densify
            raise InputError(f"{where} must be a dense or sparse tensor; got the layout {t.layout} ({exc}).") from None
    if t.is_complex():
        raise InputError(f"{where} must be real; got a complex tensor ({t.dtype}).")
    if t.dtype.is_floating_point:
        return t.to(device="cpu", dtype=torch.float64).numpy()  # every bfloat16/float16/float8 value is a float64 value
    if t.dtype == torch.bool:
        return t.cpu().numpy()
    try:
        arr = t.cpu().numpy()
    except (TypeError, RuntimeError) as exc:
        raise InputError(f"{where} must be a numeric tensor numpy can read; got dtype {t.dtype} ({exc}).") from None
    if arr.size and np.issubdtype(arr.dtype, np.integer) and max(abs(int(arr.min())), abs(int(arr.max()))) > _EXACT_INT:
        raise InputError(f"{where} must hold integers of at most 2^53 in size (exact in float64); got some larger "
                         f"({t.dtype}). Save the weights as floats.")  # fmt: skip
    return arr


def _torch_state(path: Path) -> dict:
    """The state dict in ``path`` with names for keys and numpy arrays for tensors (see the module's docstring)."""
    try:
        import torch
    except ImportError:
        raise InputError(
            f"reading {str(path)!r} needs PyTorch, which is not installed; save the weights with numpy "
            "(np.savez('layer.npz', W=W, b=b)) or install torch."
        ) from None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise InputError(f"weights file {str(path)!r} could not be read as a PyTorch state dict: {exc}") from None
    if hasattr(state, "state_dict"):
        state = state.state_dict()
    if not isinstance(state, dict):
        raise InputError(f"weights file {str(path)!r} must hold a state dict; got {type(state).__name__}.")
    bad = [k for k in state if not isinstance(k, str)]
    if bad:
        raise InputError(
            f"weights file {str(path)!r} must be a state dict whose keys are parameter names (strings such as "
            f"'fc1.weight'); got the {type(bad[0]).__name__} key {bad[0]!r}. Save model.state_dict()."
        )
    return {k: _tensor_array(torch, k, v, path) for k, v in state.items()}


def _weight_entries(state: dict) -> dict:
    """The entries named ``*weight`` that are not 1-D (linear layers, and malformed ones for the network reader)."""
    return {k: v for k, v in state.items() if str(k).endswith("weight") and np.ndim(v) != 1}


def network_state(path: str | Path) -> dict | None:
    """The state dict of ``path`` when it holds several linear layers (a whole network), else None.

    PyTorch state dicts (``.pt``/``.pth``) and ``.npz`` files whose keys follow the same
    pattern (``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) qualify.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".pt", ".pth"):
        state = _torch_state(existing_file(path, "weights file"))
    elif suffix == ".npz":
        state = read_npz(path, "weights file")
    else:
        return None
    entries = _weight_entries(state)
    return state if len(entries) >= 2 or any(np.ndim(v) == 4 for v in entries.values()) else None


def _load_torch(path: Path, layer_name: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    state = _torch_state(path)
    weights = {k: v for k, v in state.items() if k.endswith("weight") and np.ndim(v) == 2}
    if layer_name is not None:
        key = layer_name if layer_name.endswith("weight") else f"{layer_name}.weight"
        if key not in weights:
            raise InputError(f"--layer must name a linear layer; got {layer_name!r}; available: {sorted(weights)}.")
    elif len(weights) == 1:
        key = next(iter(weights))
    elif not weights:
        nested = [k for k, v in state.items() if isinstance(v, dict)]
        hint = (f" The entry {nested[0]!r} is itself a dict (a checkpoint?): save that state dict alone." if nested
                else " Save model.state_dict() of a model with a torch.nn.Linear layer.")  # fmt: skip
        raise InputError(f"weights file {str(path)!r} must hold a 2-D '*.weight' entry (a linear layer); got the keys "
                         f"{sorted(state)[:8]}.{hint}")  # fmt: skip
    else:
        raise InputError(f"the state dict holds {len(weights)} weight matrices; choose one with --layer from {sorted(weights)}.")
    bias_key = key[: -len("weight")] + "bias"
    if layer_name is None:  # the file is this one layer: nothing else of it may be dropped (a BatchNorm after it, ...)
        refuse_unread(state, {key, bias_key})
    bias = state.get(bias_key)
    return to_float_array(weights[key], "W"), (None if bias is None else to_float_array(bias, "b"))


# ---------------------------------------------------------------------------------
# One layer, or the model a file holds
# ---------------------------------------------------------------------------------


def parse_bias(text: str | None, m: int) -> tuple[np.ndarray | None, str]:
    """``--bias``: a file (.npy/.csv/.txt/.npz), a number, or comma-separated numbers, and its convention.

    The convention is PyTorch's ``b`` unless the text starts with ``alpha:`` (the paper's ``alpha``).
    """
    if text is None:
        return None, "b"
    kind = "b"
    if text.startswith("alpha:"):
        kind, text = "alpha", text[len("alpha:") :]
    p = Path(text)
    if p.suffix.lower() in ARRAY_SUFFIXES or p.exists():
        return read_array(p, "bias", keys=_ALPHA_KEYS if kind == "alpha" else _BIAS_KEYS).reshape(-1), kind
    try:
        values = [float(tok) for tok in text.replace(";", ",").split(",") if tok.strip()]
    except ValueError:
        raise InputError(f"--bias must be a file or comma-separated numbers; got {text!r}.") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(f"--bias must hold finite numbers; got {text!r}.")
    if len(values) == 1:
        return np.full(m, values[0]), kind
    return np.array(values), kind


def load_weights(
    weights: str | Path, *, bias: str | None = None, layer_name: str | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """Read ``(W, alpha, convention)`` from a weights file: ``alpha`` in the paper's convention, and
    ``convention`` ``"b"`` (the file or ``--bias`` gave PyTorch's ``b``; ``alpha = -b``) or ``"alpha"``.

    The rows need not span (a rank-deficient trained layer is a verdict, not an error).
    """
    path = Path(weights)
    suffix = path.suffix.lower()
    existing_file(path, "weights file")
    file_bias, kind = None, "b"
    if layer_name is not None and suffix not in (".pt", ".pth"):
        raise InputError(f"--layer names a layer of a PyTorch state dict (.pt/.pth); got {str(path)!r}, which holds one layer.")
    if suffix == ".npz":
        W, file_bias, kind = _load_npz(path)
    elif suffix in (".pt", ".pth"):
        W, file_bias = _load_torch(path, layer_name)
    else:
        W = read_array(path, "weights")
    if W.ndim != 2 or min(W.shape) < 1:
        raise InputError(f"weights must be a non-empty 2-D matrix (rows are frame vectors); got shape {W.shape}.")
    override, okind = parse_bias(bias, W.shape[0])
    if override is not None:
        file_bias, kind = override, okind
    if file_bias is None:
        return W, np.zeros(W.shape[0]), kind
    if np.shape(file_bias) not in ((), (W.shape[0],)):
        name = "alpha" if kind == "alpha" else "b"
        raise InputError(
            f"{name} must be a vector of length {W.shape[0]} (one value per row of W); got shape {np.shape(file_bias)}."
        )
    values = np.broadcast_to(np.asarray(file_bias, dtype=float), (W.shape[0],)).copy()
    return W, (values if kind == "alpha" else -values), kind


def load_layer(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None) -> ReLULayer:
    """A :class:`ReLULayer` from a weights file and an optional bias (see :func:`load_weights`)."""
    W, alpha, _ = load_weights(weights, bias=bias, layer_name=layer_name)
    return ReLULayer(W, alpha)


def _load_onnx(path: Path, *, bias: Any, layer_name: Any, last: Any, input_shape: Any, conv: Any,
               memory_limit: Any) -> Network:  # fmt: skip
    """An ONNX file as the network it computes (:meth:`Network.from_onnx`); options it answers itself are refused."""
    given = [flag for flag, value in (("--bias", bias), ("--layer", layer_name), ("--conv", conv)) if value]
    if given:
        raise InputError(f"{' / '.join(given)} must not be given for an ONNX file ({str(path)!r}): it holds its own biases, "
                         "layers and convolution parameters.")  # fmt: skip
    existing_file(path, "weights file")
    net = Network.from_onnx(path, input_shape=input_shape, **({} if memory_limit is None else {"memory_limit": memory_limit}))
    if last is not None and (last == "linear") != net.last_linear:
        says = "an affine output (logits)" if net.last_linear else "a ReLU after its last layer"
        raise InputError(f"--last-{last} must agree with the ONNX file, which ends with {says}; drop the option.")
    return net


def load_model(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None,
               last: str | None = None, input_shape: Any = None, conv: Any = None,
               memory_limit: float | None = None) -> tuple[Any, str]:  # fmt: skip
    """The model in a weights file (a :class:`ReLULayer`, or a :class:`Network`) and the bias convention it was read in.

    A state dict with ``Conv2d`` weights (4-D) is a network on images of ``input_shape``
    (``--input-shape``), its convolutions' strides and paddings given in ``conv``
    (``--conv NAME:STRIDE:PADDING``) or inferred (:meth:`Network.from_state_dict`).

    A file with several linear layers is a network (PyTorch's convention); ``--bias`` then has
    no meaning and is refused. A state dict does not say whether its last layer is followed by
    a ReLU: ``last`` (``"relu"`` or ``"linear"``, the CLI's ``--last-relu`` / ``--last-linear``)
    says it; None reads it with a ReLU and the network's note says so. Any weights make a
    single layer (zero rows, fewer rows than inputs, a rank deficiency).
    """
    if last not in (None, "relu", "linear"):
        raise InputError(f"last must be None, 'relu' or 'linear'; got {last!r}.")
    if Path(weights).suffix.lower() == ".onnx":  # the file says its layers, biases and convolutions itself
        return _load_onnx(Path(weights), bias=bias, layer_name=layer_name, last=last, input_shape=input_shape, conv=conv,
                          memory_limit=memory_limit), "b"  # fmt: skip
    if layer_name is None:
        state = network_state(weights)
        if state is not None:
            if bias is not None:
                n_layers = len(_weight_entries(state))
                raise InputError(
                    f"--bias applies to one layer; {str(weights)!r} holds {n_layers} linear layers with their own biases "
                    "(choose one with --layer NAME for a PyTorch file, or save that layer alone)."
                )
            order = "natural" if Path(weights).suffix.lower() == ".npz" else "given"
            extra = {} if memory_limit is None else {"memory_limit": memory_limit}  # unrolled convolutions must fit it
            net = Network.from_state_dict(state, order=order, last=last or "relu", input_shape=input_shape, conv=conv,
                                          **extra)  # fmt: skip
            said = (f"the last layer ({net.names[-1]}) is read as " + ("affine, no ReLU after it (--last-linear)"
                    if last == "linear" else "followed by a ReLU" + (" (--last-relu)" if last else
                    ": the file does not say; pass --last-linear if it gives a classifier's logits")))  # fmt: skip
            net.note = "; ".join(p for p in (net.note, said) if p)
            return net, "b"
    if last is not None:
        raise InputError("--last-linear / --last-relu apply to a file with several linear layers (a network); "
                         f"{str(weights)!r} holds one layer.")  # fmt: skip
    if conv:
        raise InputError(f"--conv applies to a state dict with convolutions; {str(weights)!r} has none.")
    W, alpha, kind = load_weights(weights, bias=bias, layer_name=layer_name)
    if input_shape is not None and int(np.prod(input_shape)) != W.shape[1]:  # one layer: the shape holds its inputs
        raise InputError(f"input_shape must hold the {W.shape[1]} inputs of the layer in {str(weights)!r}; got "
                         f"{tuple(input_shape)}, {int(np.prod(input_shape))} numbers.")  # fmt: skip
    return ReLULayer(W, alpha), kind


def load_near(path: str, n: int) -> np.ndarray:
    """``--near``'s point: a ``.npy`` array of ``n`` finite numbers (any shape of that size, read row by row)."""
    try:
        x0 = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"--near must name an existing .npy file; got {path!r}, which does not exist.") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"--near must name a .npy file of numbers (saved by np.save, no pickled objects); could not read "
                         f"{path!r}: {exc}") from None  # fmt: skip
    if x0.dtype.kind not in "biuf":
        raise InputError(f"--near {path!r} must hold real numbers; got an array of dtype {x0.dtype}.")
    if x0.size != n:
        raise InputError(f"--near {path!r} must hold one input of the model: {n} numbers (shape ({n},), or an image of "
                         f"{n} pixels); got shape {x0.shape} ({x0.size} numbers).")  # fmt: skip
    x0 = x0.astype(float).reshape(n)
    if not np.all(np.isfinite(x0)):
        raise InputError(f"--near {path!r} must hold finite numbers; got {int(np.sum(~np.isfinite(x0)))} NaN or infinite.")
    return x0
