r"""Read a PyTorch module exactly: trace it with ``torch.fx`` into a :class:`~.graph.Graph`, then compile it to layers.

Why torch.fx
------------
:func:`torch.fx.symbolic_trace` records the module's ``forward`` as a graph of calls (modules,
functions, tensor methods) without running any real data through export machinery, keeps the
module paths (``block2.act``) so that a refusal can say where an operation sits, and exists in
every torch since 1.10. ``torch.export`` would give an ATen-level graph that also covers
data-dependent Python, but it needs example inputs and a recent torch, and its lowered
operations no longer carry the names the user wrote; it is the alternative for a module fx cannot
trace (a refusal then says so).

What is read
------------
``nn.Linear``; ``nn.Conv1d`` / ``nn.Conv2d`` (any stride, padding including ``'same'`` and
``'valid'``, dilation and groups; ``padding_mode='zeros'`` only); ``nn.BatchNorm1d`` / ``2d`` in
eval mode (folded from the running statistics); average pooling (``nn.AvgPool1d/2d``,
``nn.AdaptiveAvgPool1d/2d`` and their functional forms); max pooling (``nn.MaxPool1d/2d``,
``F.max_pool1d/2d``) as pairwise maxima; ``ReLU`` in every spelling, ``LeakyReLU`` and
``PReLU``; ``+``, ``-``, scaling by constants, ``torch.cat`` along the channel axis; flattening
and reshapes that keep the batch axis; ``Dropout`` and ``Identity`` in eval mode. Every linear
operation's matrix comes from torch itself: the operation (without its bias) is applied, in
float64, to the columns of the current affine form (:meth:`Graph.affine` with ``fn``), so
torch's own padding, grouping and rounding conventions are used, never re-implemented.

Anything else is refused with its name and position (the module path, or the fx node's
name): nothing is dropped. After compiling, the network's forward is compared with the module's
own forward (a float64 copy in eval mode) on random inputs, and a relative mismatch above
:data:`FORWARD_RTOL` refuses.

torch is imported inside the functions only: the package imports with numpy and scipy.
"""

from __future__ import annotations

import copy
import math
import operator
import sys
from typing import Any

import numpy as np

from .._util.budget import DEFAULT_MEMORY
from .._util.tolerances import FORWARD_RTOL
from ..errors import InputError
from .graph import Graph, Layered, pool_windows

__all__ = ["is_torch_module", "read_module", "FORWARD_RTOL"]

#: random inputs the compiled network is compared on
FORWARD_SAMPLES = 32
#: batch size of the shape propagation (not 1, so that an operation that mixes the batch axis shows)
_SHAPE_BATCH = 3

#: activations and blocks that are not piecewise linear (their refusal says so)
_NOT_PL = {
    "gelu", "sigmoid", "tanh", "softmax", "log_softmax", "softmin", "silu", "swish", "elu", "selu", "celu", "softplus",
    "mish", "hardswish", "logsigmoid", "tanhshrink", "softsign", "multiheadattention", "layernorm", "groupnorm",
    "instancenorm1d", "instancenorm2d", "localresponsenorm", "transformerencoderlayer", "transformer", "lstm", "gru", "rnn",
    "scaled_dot_product_attention", "exp", "log", "sqrt", "pow", "matmul", "bmm", "bilinear", "sin", "cos",
}  # fmt: skip
_DROPOUT = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")
#: the torch.nn modules read (beside dropout and batch normalisation)
_PLAIN = (
    "Sequential", "ModuleList", "ModuleDict", "Linear", "Conv1d", "Conv2d", "ReLU", "LeakyReLU", "PReLU", "Flatten",
    "Unflatten", "Identity", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
)  # fmt: skip
_READ_MODULES = _PLAIN + _DROPOUT + ("BatchNorm1d", "BatchNorm2d")
#: torch.nn classes whose forward depends on ``training``; a module of another class of torch.nn does not
_MODE_DEPENDENT = ("BatchNorm", "SyncBatchNorm", "InstanceNorm", "LazyBatchNorm", "Dropout", "AlphaDropout",
                   "FeatureAlphaDropout", "MultiheadAttention", "Transformer", "RNN", "LSTM", "GRU")  # fmt: skip
_RESHAPES = ("view", "reshape", "flatten", "contiguous", "unflatten", "squeeze", "unsqueeze", "view_as", "reshape_as")


def is_torch_module(obj: Any) -> bool:
    """Whether ``obj`` is a ``torch.nn.Module`` (False without importing torch when torch was never imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and hasattr(torch, "nn") and isinstance(obj, torch.nn.Module)


def _refuse(what: str, where: str, why: str = "not supported") -> InputError:
    return InputError(f"cannot read {what} at {where!r} exactly ({why}); nothing is dropped: replace it or check the part "
                      "before it.")  # fmt: skip


def _why(name: str) -> str:
    return "not piecewise linear" if name.lower().lstrip("_").rstrip("_") in _NOT_PL else "not supported by the reader"


def _refuse_training(module: Any) -> None:
    """Refuse a module in training mode whose forward may depend on it (BatchNorm, Dropout, a custom forward)."""
    for path, mod in module.named_modules():
        if not mod.training:
            continue
        kind = type(mod).__name__
        if type(mod).__module__.startswith("torch.nn") and not kind.startswith(_MODE_DEPENDENT):
            continue  # torch's own layers that behave the same in both modes (a fresh nn.Sequential of Linear and ReLU)
        raise InputError(f"module {path or kind!r} ({kind}) must be in eval mode: in training mode BatchNorm uses the "
                         "batch's statistics and Dropout is random, so the map is not one network; call model.eval() first.")


def _module_name(mod: Any) -> str:
    kind = type(mod).__name__
    return f"nn.{kind}" if type(mod).__module__.startswith("torch.nn") else kind


def _fn_name(target: Any) -> str:
    mod = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if mod.startswith("torch.nn.functional"):
        return f"F.{name}"
    if mod == "_operator" or mod == "operator":
        return f"operator.{name}"
    return f"torch.{name}" if mod.startswith("torch") or mod == "" else f"{mod}.{name}"


def _input_dims(module: Any, input_shape: Any, first: Any) -> tuple[int, ...]:
    """The shape of one input (without the batch axis) that torch is given."""
    if input_shape is None:
        if first is None:
            raise InputError("input_shape must be given: the module has no nn.Linear, nn.Conv or nn.BatchNorm to read the "
                             "input size from; pass input_shape=(features,) or (C, H, W).")  # fmt: skip
        kind = type(first).__name__
        if kind == "Linear":
            return (int(first.in_features),)
        if kind == "BatchNorm1d":
            return (int(first.num_features),)
        raise InputError(f"input_shape must be given when the module starts with a {kind} (its weights do not fix the "
                         "image size): pass input_shape=(C, H, W), (H, W) for one channel, or (C, L) for Conv1d.")
    try:
        dims = tuple(int(v) for v in input_shape)
    except (TypeError, ValueError):
        raise InputError(f"input_shape must be a tuple of positive integers; got {input_shape!r}.") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise InputError(f"input_shape must be (features,), (C, L), (H, W) or (C, H, W) with positive sizes; got {dims}.")
    if len(dims) == 2 and type(first).__name__ not in ("Conv1d", "BatchNorm1d", "MaxPool1d", "AvgPool1d"):
        return (1,) + dims  # (H, W): one channel
    return dims


def _first_module(gm: Any) -> Any:
    """The first module with weights (or pooling) the traced graph calls, or None."""
    for node in gm.graph.nodes:
        if node.op == "call_module":
            mod = gm.get_submodule(node.target)
            if type(mod).__name__ in ("Linear", "Conv1d", "Conv2d", "BatchNorm1d", "BatchNorm2d", "MaxPool1d", "MaxPool2d",
                                      "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d"):  # fmt: skip
                return mod
    return None


class _Reader:
    """Walks the traced graph, node by node, building the :class:`Graph`."""

    def __init__(self, torch: Any, gm: Any, dims: tuple[int, ...]) -> None:
        self.torch, self.gm, self.dims = torch, gm, dims
        self.g = Graph()
        self.env: dict[Any, tuple] = {}  # node -> ("v", value, shape) | ("c", constant) | ("s", None): shape arithmetic

    # -- helpers ---------------------------------------------------------------------------------
    def shape_of(self, node: Any) -> tuple[int, ...]:
        meta = node.meta.get("tensor_meta")
        shape = tuple(int(s) for s in getattr(meta, "shape", ()))
        if not shape or shape[0] != _SHAPE_BATCH:
            raise _refuse(f"{node.op} {node.target}", node.name, "it changes or removes the batch axis")
        return shape[1:]

    def is_value(self, arg: Any) -> bool:
        return hasattr(arg, "op") and self.env.get(arg, ("",))[0] == "v"

    def value(self, arg: Any, node: Any) -> tuple[int, tuple[int, ...]]:
        entry = self.env.get(arg) if hasattr(arg, "op") else None
        if entry is None or entry[0] != "v":
            raise _refuse(self.describe(node), self.where(node), "an argument that is not the traced input's value")
        return entry[1], entry[2]

    def const(self, arg: Any) -> Any:
        """A Python number or a numpy array for a constant argument, None when it depends on the input."""
        if hasattr(arg, "op"):
            entry = self.env.get(arg)
            return entry[1] if entry is not None and entry[0] == "c" else None
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            return float(arg)
        if isinstance(arg, self.torch.Tensor):
            return arg.detach().cpu().double().numpy()
        return None

    def where(self, node: Any) -> str:
        return str(node.target) if node.op == "call_module" else node.name

    def describe(self, node: Any) -> str:
        if node.op == "call_module":
            return _module_name(self.gm.get_submodule(node.target))
        if node.op == "call_method":
            return f"Tensor.{node.target}"
        return _fn_name(node.target)

    def torch_affine(self, x: int, in_shape: tuple, out_shape: tuple, op: Any, name: str, *, offset: Any = None,
                     keeps_sign: bool = False) -> int:  # fmt: skip
        """An affine operation read from torch: ``op`` (a linear function of batched tensors) plus ``offset``."""
        torch = self.torch

        def fn(X: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                t = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64)).reshape((X.shape[0],) + tuple(in_shape))
                return op(t).reshape(X.shape[0], -1).numpy()

        return self.g.affine(x, fn=fn, out_size=math.prod(out_shape), offset=offset, keeps_sign=keeps_sign, name=name)

    # -- the walk -----------------------------------------------------------------------------------
    def run(self) -> Graph:
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != 1:
            raise InputError(f"the module's forward must take one tensor; got {len(placeholders)} arguments "
                             f"({', '.join(n.name for n in placeholders)}).")  # fmt: skip
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.env[node] = ("v", self.g.input(math.prod(self.dims), name=node.name), self.dims)
            elif node.op == "get_attr":
                obj = self.gm
                for part in str(node.target).split("."):
                    obj = getattr(obj, part)
                self.env[node] = ("c", obj.detach().cpu().double().numpy() if hasattr(obj, "detach") else obj)
            elif node.op == "output":
                arg = node.args[0]
                if not (hasattr(arg, "op") and self.env.get(arg, ("",))[0] == "v"):
                    raise InputError("the module's forward must return one tensor (not a tuple, a dict or a constant); "
                                     f"got {type(arg).__name__}.")  # fmt: skip
                self.g.set_output(self.env[arg][1])
            elif node.op == "call_module":
                self.env[node] = self.call_module(node)
            else:
                self.env[node] = self.call(node)
        return self.g

    def call_module(self, node: Any) -> tuple:
        mod = self.gm.get_submodule(node.target)
        kind, where, what = type(mod).__name__, str(node.target), _module_name(mod)
        if not type(mod).__module__.startswith("torch.nn"):
            raise _refuse(what, where, "a leaf module the tracer did not open")
        if kind not in _READ_MODULES:
            raise _refuse(what, where, _why(kind))
        if len(node.args) != 1 or node.kwargs:
            raise _refuse(what, where, "called with more than one argument")
        x, shape = self.value(node.args[0], node)
        out = self.shape_of(node)
        F = self.torch.nn.functional
        if kind == "Linear":
            if len(shape) == 1:
                W = mod.weight.detach().double().numpy()
                b = None if mod.bias is None else mod.bias.detach().double().numpy()
                return ("v", self.g.affine(x, matrix=W, offset=b, name=where), out)
            bias = None if mod.bias is None else np.broadcast_to(mod.bias.detach().double().numpy(), out)
            return ("v", self.torch_affine(x, shape, out, lambda t: F.linear(t, mod.weight), where, offset=bias), out)
        if kind in ("Conv1d", "Conv2d"):
            if mod.padding_mode != "zeros":
                raise _refuse(what, where, f"padding_mode={mod.padding_mode!r}; only 'zeros' is read")
            conv = F.conv1d if kind == "Conv1d" else F.conv2d
            bias = None
            if mod.bias is not None:
                bias = np.broadcast_to(mod.bias.detach().double().numpy().reshape((-1,) + (1,) * (len(out) - 1)), out)
            op = lambda t: conv(t, mod.weight, None, mod.stride, mod.padding, mod.dilation, mod.groups)  # noqa: E731
            return ("v", self.torch_affine(x, shape, out, op, where, offset=bias), out)
        if kind in ("BatchNorm1d", "BatchNorm2d"):
            if not mod.track_running_stats or mod.running_mean is None:
                raise _refuse(what, where, "track_running_stats=False: it normalises with each batch's own statistics")
            var, mean = mod.running_var.detach().double().numpy(), mod.running_mean.detach().double().numpy()
            scale = 1.0 / np.sqrt(var + mod.eps)
            if mod.weight is not None:
                scale = scale * mod.weight.detach().double().numpy()
            shift = -mean * scale + (0.0 if mod.bias is None else mod.bias.detach().double().numpy())
            per = (-1,) + (1,) * (len(shape) - 1)
            s_full = np.broadcast_to(scale.reshape(per), shape).reshape(-1)
            t_full = np.broadcast_to(shift.reshape(per), shape).reshape(-1)
            return ("v", self.g.affine(x, fn=lambda X, s=s_full: X * s, out_size=s_full.size, offset=t_full, name=where), out)
        if kind in ("AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d"):
            return ("v", self.torch_affine(x, shape, out, mod, where, keeps_sign=True), out)
        if kind in ("MaxPool1d", "MaxPool2d"):
            if mod.return_indices:
                raise _refuse(what, where, "return_indices=True")
            return ("v", self.max_pool(x, shape, out, mod.kernel_size, mod.stride, mod.padding, mod.dilation, where), out)
        if kind == "ReLU":
            return ("v", self.g.relu(x, name=where), out)
        if kind == "LeakyReLU":
            return ("v", self.g.leaky(x, float(mod.negative_slope), name=where), out)
        if kind == "PReLU":
            return ("v", self.prelu(x, shape, mod.weight.detach().double().numpy(), where, what), out)
        if kind in ("Flatten", "Unflatten", "Identity") + _DROPOUT:
            return ("v", x, out)
        raise _refuse(what, where, _why(kind))

    def prelu(self, x: int, shape: tuple, w: np.ndarray, where: str, what: str) -> int:
        w = w.reshape(-1)
        if w.size == 1:
            return self.g.leaky(x, float(w[0]), name=where)
        if not shape or w.size != shape[0]:
            raise _refuse(what, where, f"{w.size} slopes for an input of shape {shape}")
        return self.g.leaky(x, np.broadcast_to(w.reshape((-1,) + (1,) * (len(shape) - 1)), shape).reshape(-1), name=where)

    def max_pool(self, x: int, shape: tuple, out: tuple, kernel: Any, stride: Any, padding: Any, dilation: Any,
                 where: str) -> int:  # fmt: skip
        nd = len(shape) - 1
        if nd not in (1, 2) or len(out) != len(shape):
            raise _refuse("max pooling", where, f"an input of shape {shape}")

        def tup(v: Any) -> tuple[int, ...]:
            return tuple(int(a) for a in v) if isinstance(v, (tuple, list)) else (int(v),) * nd

        k = tup(kernel)
        s = tup(stride if stride not in (None, (), []) else kernel)
        win = pool_windows(shape[1:], k, s, tup(padding), tup(dilation), out[1:])
        C, P_in, P_out = shape[0], math.prod(shape[1:]), math.prod(out[1:])
        full = (np.arange(C)[:, None, None] * P_in + np.where(win >= 0, win, 0)[None]).reshape(C * P_out, -1)
        full = np.where(np.tile(win >= 0, (C, 1)), full, -1)
        return self.g.max_over(x, full, name=where)

    def call(self, node: Any) -> tuple:
        """A function or a tensor method."""
        F = self.torch.nn.functional
        target, where, what = node.target, node.name, self.describe(node)
        name = target if isinstance(target, str) else getattr(target, "__name__", str(target))
        args, kwargs = list(node.args), dict(node.kwargs)
        if name in ("size", "dim", "getattr", "numel") or (name == "getitem" and not self.is_value(args[0])):
            return ("s", None)  # arithmetic on shapes (x.size(0), x.shape[1], ...): only reshapes may use it
        flat = [b for a in args + list(kwargs.values()) for b in (a if isinstance(a, (list, tuple)) else [a])]
        tensor_args = [a for a in flat if self.is_value(a)]
        if not tensor_args:
            consts = [self.const(a) for a in args]
            if name in ("add", "sub", "mul", "truediv", "neg") and all(c is not None for c in consts):
                fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
                      "neg": operator.neg}[name]  # fmt: skip
                return ("c", fn(*consts))
            return ("s", None)
        out = self.shape_of(node)
        if name in ("relu", "relu_"):
            x, _ = self.value(args[0], node)
            return ("v", self.g.relu(x, name=where), out)
        if name in ("leaky_relu", "leaky_relu_"):
            x, _ = self.value(args[0], node)
            slope = kwargs.get("negative_slope", args[1] if len(args) > 1 else 0.01)
            return ("v", self.g.leaky(x, float(slope), name=where), out)
        if name == "prelu":
            x, shape = self.value(args[0], node)
            w = self.const(args[1] if len(args) > 1 else kwargs.get("weight"))
            if w is None:
                raise _refuse(what, where, "slopes that depend on the input")
            return ("v", self.prelu(x, shape, np.asarray(w, dtype=float), where, what), out)
        if name in ("dropout", "dropout1d", "dropout2d", "alpha_dropout", "feature_alpha_dropout"):
            training = kwargs.get("training", args[2] if len(args) > 2 else True)
            if training is not False:
                raise _refuse(what, where, "training=True: it is random; pass training=self.training and call model.eval()")
            return ("v", self.value(args[0], node)[0], out)
        if name in ("flatten",) + _RESHAPES:
            x, shape = self.value(args[0], node)
            if math.prod(out) != math.prod(shape):
                raise _refuse(what, where, "a reshape that mixes the batch axis with the features")
            return ("v", x, out)
        if name in ("cat", "concat", "concatenate"):
            items = args[0] if args else kwargs.get("tensors")
            dim = kwargs.get("dim", kwargs.get("axis", args[1] if len(args) > 1 else 0))
            vals = [self.value(a, node) for a in items]
            rank = len(vals[0][1]) + 1
            if int(dim) % rank != 1:
                raise _refuse(what, where, f"concatenation along axis {dim}; only the feature/channel axis 1 is read")
            return ("v", self.g.concat([v for v, _ in vals], name=where), out)
        if name in ("add", "sub", "iadd", "isub", "add_", "sub_", "rsub"):
            return ("v", self.add(node, name, args, kwargs, out), out)
        if name in ("mul", "truediv", "div", "imul", "mul_", "div_", "neg", "neg_"):
            return ("v", self.scale(node, name, args, out), out)
        if name in ("avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d"):
            x, shape = self.value(args[0], node)
            rest, kw = args[1:], kwargs
            if any(hasattr(a, "op") for a in list(rest) + list(kw.values())):
                raise _refuse(what, where, "pooling parameters computed from the input")
            fn = getattr(F, name)
            return ("v", self.torch_affine(x, shape, out, lambda t: fn(t, *rest, **kw), where, keeps_sign=True), out)
        if name in ("max_pool1d", "max_pool2d"):
            x, shape = self.value(args[0], node)
            params = dict(zip(("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"), args[1:]))
            params.update(kwargs)
            if params.get("return_indices"):
                raise _refuse(what, where, "return_indices=True")
            kernel = params["kernel_size"]
            stride = params.get("stride") or kernel
            return ("v", self.max_pool(x, shape, out, kernel, stride, params.get("padding", 0), params.get("dilation", 1),
                                       where), out)  # fmt: skip
        raise _refuse(what, where, _why(name))

    def add(self, node: Any, name: str, args: list, kwargs: dict, out: tuple) -> int:
        what, where = self.describe(node), node.name
        a, b = args[0], (args[1] if len(args) > 1 else kwargs.get("other"))
        alpha = float(kwargs.get("alpha", 1.0))
        sign = -1.0 if name.startswith("sub") or name == "isub" else 1.0
        sa, sb = (1.0, sign * alpha) if name != "rsub" else (-alpha, 1.0)
        va, vb = self.is_value(a), self.is_value(b)
        if va and vb:
            (xa, shape_a), (xb, shape_b) = self.value(a, node), self.value(b, node)
            if shape_a != shape_b or shape_a != out:
                raise _refuse(what, where, f"operands of shapes {shape_a} and {shape_b} (broadcasting between values)")
            return self.g.combine([xa, xb], [sa, sb], name=where)
        x, shape = self.value(a if va else b, node)
        c = self.const(b if va else a)
        if c is None:
            raise _refuse(what, where, "an operand that is neither the traced value nor a constant")
        coef, cst = (sa, sb) if va else (sb, sa)
        if shape != out:
            raise _refuse(what, where, f"a constant that broadcasts the value's shape {shape} to {out}")
        try:
            offset = cst * np.broadcast_to(np.asarray(c, dtype=float), (1,) + out).reshape(-1)
        except ValueError:
            raise _refuse(what, where, f"a constant of shape {np.shape(c)} added to a value of shape {out}") from None
        return self.g.combine([x], [coef], offset=offset, name=where)

    def scale(self, node: Any, name: str, args: list, out: tuple) -> int:
        what, where = self.describe(node), node.name
        if name.startswith("neg"):
            x, _ = self.value(args[0], node)
            return self.g.combine([x], [-1.0], name=where)
        a, b = args[0], args[1]
        va, vb = self.is_value(a), self.is_value(b)
        if va and vb:
            raise _refuse(what, where, "a product of two values depending on the input (not piecewise linear)")
        if vb and name not in ("mul", "imul", "mul_"):
            raise _refuse(what, where, "a division by a value depending on the input (not piecewise linear)")
        x, shape = self.value(a if va else b, node)
        c = self.const(b if va else a)
        if c is None:
            raise _refuse(what, where, "a factor that is neither a constant nor the traced value")
        c = np.asarray(c, dtype=float)
        if shape != out:
            raise _refuse(what, where, f"a constant that broadcasts the value's shape {shape} to {out}")
        if name in ("truediv", "div", "div_"):
            if np.any(c == 0):
                raise _refuse(what, where, "a division by zero")
            c = 1.0 / c
        if c.size == 1:
            return self.g.combine([x], [float(c.reshape(-1)[0])], name=where)
        try:
            s = np.broadcast_to(c, (1,) + out).reshape(-1)
        except ValueError:
            raise _refuse(what, where, f"a factor of shape {c.shape} for a value of shape {out}") from None
        return self.g.affine(x, fn=lambda X, s=s: X * s, out_size=s.size, keeps_sign=bool(np.all(s >= 0)), name=where)


def read_module(module: Any, *, include_output: bool = False, input_shape: Any = None,
                memory_limit: float = DEFAULT_MEMORY) -> tuple[list, str, str]:  # fmt: skip
    """The layers ``(pairs, last, note)`` of a torch module, read exactly (see the module docstring).

    ``include_output=False`` leaves out an affine map after the last ReLU layer (a classifier's
    logits), as :meth:`Network.from_torch` always has; the note says so.

    Raises
    ------
    InputError
        For a module in training mode, an operation that is not read (named, with its position),
        an ``input_shape`` that does not fit the weights, a layer above ``memory_limit``, or a
        compiled network whose forward differs from the module's.
    """
    import torch
    from torch.fx.passes.shape_prop import ShapeProp

    _refuse_training(module)
    try:
        model = copy.deepcopy(module).cpu().double().eval()
    except Exception as exc:  # noqa: BLE001 - any failure of the copy is the module's
        raise InputError(f"module must be copyable to float64 (copy.deepcopy(module).double()); got {exc!r}.") from None
    try:
        gm = torch.fx.symbolic_trace(model)
    except Exception as exc:  # noqa: BLE001 - the tracer's own errors say what it could not follow
        raise InputError(f"the module's forward cannot be traced by torch.fx ({type(exc).__name__}: {exc}); write it "
                         "without Python control flow on tensor values, or export it to ONNX (Network.from_onnx).") from None
    dims = _input_dims(model, input_shape, _first_module(gm))
    given = "" if input_shape is None else f"input_shape {tuple(input_shape)} "
    try:
        with torch.no_grad():
            ShapeProp(gm).propagate(torch.randn((_SHAPE_BATCH,) + dims, dtype=torch.float64))
    except Exception as exc:  # noqa: BLE001 - torch's message names the operation the shape does not fit
        raise InputError(f"{given or 'the input size read from the first layer '}must fit the module's weights; running it "
                         f"on inputs of shape {dims} fails: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}.") from None
    graph = _Reader(torch, gm, dims).run()
    layered = graph.compile(memory_limit=memory_limit)
    _compare(torch, model, layered, dims)
    pairs, last, notes = list(layered.pairs), layered.last, ["traced with torch.fx and compared with the module's forward"]
    if layered.note:
        notes.append(layered.note)
    if last == "linear" and not include_output:
        if len(pairs) == 1:
            raise InputError("module must have a ReLU (or another piecewise-linear activation) before its output; got an "
                             "affine map (a linear model): pass include_output=True to read it as one affine layer.")
        W, _ = pairs.pop()
        last = "relu"
        notes.append(f"the output's affine map after the last ReLU layer ({W.shape[0]} outputs, e.g. logits) is not checked "
                     "(include_output=True checks it)")  # fmt: skip
    elif last == "linear":
        notes.append(f"the output's affine map ({pairs[-1][0].shape[0]} outputs) is checked as the affine map it is")
    return pairs, last, "; ".join(notes)


def _compare(torch: Any, model: Any, layered: Layered, dims: tuple[int, ...]) -> None:
    """Refuse when the compiled network's forward differs from the module's own (float64, eval) on random inputs."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((FORWARD_SAMPLES,) + dims)
    try:
        with torch.no_grad():
            want = model(torch.from_numpy(X)).reshape(FORWARD_SAMPLES, -1).numpy()
    except Exception as exc:  # noqa: BLE001 - e.g. a batch size written into the forward
        raise InputError(f"the module must run on a batch of {FORWARD_SAMPLES} inputs of shape {dims}; got "
                         f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}.") from None  # fmt: skip
    got = layered.forward(X.reshape(FORWARD_SAMPLES, -1))
    if got.shape != want.shape:
        raise InputError(f"the network read must have the module's {want.shape[1]} outputs; got {got.shape[1]}.")
    scale = max(float(np.abs(want).max(initial=0.0)), float(np.abs(X).max()))
    err = float(np.abs(got - want).max(initial=0.0)) / scale
    if not err <= FORWARD_RTOL:
        raise InputError(f"the network read from the module must have the module's forward; on {FORWARD_SAMPLES} random "
                         f"inputs they differ by {err:.3g} (relative), more than {FORWARD_RTOL:g}: the module does something "
                         "the tracer does not see (Python control flow on values, a buffer changed in forward, ...).")
