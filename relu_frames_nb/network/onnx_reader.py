r"""Read an ONNX model exactly into a :class:`~.graph.Graph`, then compile it to layers (needs the ``onnx`` package).

The nodes are read in the file's order (ONNX stores them topologically). Read: ``Gemm``,
``MatMul`` by a constant matrix, ``Conv`` (1-D and 2-D; strides, pads, dilations, group,
``auto_pad``), ``BatchNormalization`` (inference), ``AveragePool``, ``GlobalAveragePool``,
``MaxPool`` (as pairwise maxima), ``Relu``, ``LeakyRelu``, ``PRelu``, ``Add`` / ``Sub`` of
values or with constants, ``Mul`` / ``Div`` by constants, ``Concat`` along the channel axis,
``Flatten`` and ``Reshape`` that keep the batch axis, ``Identity``, ``Dropout`` (inference) and
``Constant``. Every other operation is refused with its type and node name: nothing is dropped.
Initializers are read with ``onnx.numpy_helper`` in float64; every one is either used by a
node read above or named in the note as unused by the graph (ONNX then ignores it too).

The linear operations are built as dense matrices from their definition (a convolution's
entry for output position ``p`` and kernel offset ``j`` reads input position
:func:`~.graph.pool_windows` ``[p, j]``); the compiled network is compared with the graph's
own forward on random inputs (a check of the reduction, not of the file's semantics: tests
compare with onnxruntime).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .._util.budget import DEFAULT_MEMORY
from .._util.tolerances import ONNX_BN_DEFAULT_EPSILON, REDUCTION_RTOL
from ..errors import InputError
from .graph import Graph, pool_windows

__all__ = ["read_onnx"]

_SAMPLES = 32


def _refuse(op_type: str, where: str, why: str = "not supported") -> InputError:
    return InputError(f"cannot read the ONNX operation {op_type} at node {where!r} exactly ({why}); nothing is dropped: "
                      "replace it or check the part before it.")  # fmt: skip


class _Reader:
    def __init__(self, onnx: Any, model: Any, input_shape: Any, memory_limit: float) -> None:
        from onnx import helper, numpy_helper

        self.onnx, self.helper, self.nh = onnx, helper, numpy_helper
        self.memory_limit = float(memory_limit)
        self.g = Graph()
        graph = model.graph
        self.inits = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in graph.initializer}
        self.used: set[str] = set()
        self.consts: dict[str, np.ndarray] = {}
        self.values: dict[str, tuple[int, tuple[int, ...]]] = {}
        inputs = [i for i in graph.input if i.name not in self.inits]
        if len(inputs) != 1:
            raise InputError(f"the ONNX graph must have one input; got {len(inputs)} ({', '.join(i.name for i in inputs)}).")
        self.inp = inputs[0]
        self.batch, dims = self._input_dims(self.inp, input_shape)
        self.values[self.inp.name] = (self.g.input(math.prod(dims), name=self.inp.name), dims)
        self.dims = dims
        self.graph = graph

    def _input_dims(self, inp: Any, input_shape: Any) -> tuple[int | None, tuple[int, ...]]:
        declared = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None
                    for d in inp.type.tensor_type.shape.dim]  # fmt: skip
        if not declared:
            if input_shape is None:
                raise InputError(f"the ONNX input {inp.name!r} has no declared shape: pass input_shape (without the batch axis).")
            declared = [None] * (len(tuple(input_shape)) + 1)
        batch, rest = declared[0], declared[1:]
        if input_shape is None:
            if any(d is None for d in rest):
                raise InputError(f"the ONNX input {inp.name!r} leaves sizes open ({['?' if d is None else d for d in rest]}): "
                                 "pass input_shape (without the batch axis).")  # fmt: skip
            return batch, tuple(int(d) for d in rest)
        try:
            dims = tuple(int(v) for v in input_shape)
        except (TypeError, ValueError):
            raise InputError(f"input_shape must be a tuple of positive integers; got {input_shape!r}.") from None
        if len(dims) == len(rest) - 1 and rest and rest[0] == 1:
            dims = (1,) + dims  # (H, W) for a one-channel image
        if len(dims) != len(rest) or any(d is not None and d != v for d, v in zip(rest, dims)) or min(dims, default=0) < 1:
            raise InputError(f"input_shape must match the ONNX input {inp.name!r}, of shape "
                             f"{tuple('?' if d is None else d for d in rest)} without the batch axis; got {dims}.")  # fmt: skip
        return batch, dims

    # -- helpers -----------------------------------------------------------------------------------
    def const(self, name: str) -> np.ndarray | None:
        if name in self.consts:
            return self.consts[name]
        if name in self.inits:
            self.used.add(name)
            return self.inits[name]
        return None

    def need_const(self, name: str, op: str, where: str, what: str) -> np.ndarray:
        c = self.const(name)
        if c is None:
            raise _refuse(op, where, f"its {what} must be a constant (an initializer or a Constant node)")
        return c

    def value(self, name: str, op: str, where: str) -> tuple[int, tuple[int, ...]]:
        if name not in self.values:
            raise _refuse(op, where, f"input {name!r} must depend on the graph's input")
        return self.values[name]

    def fits(self, rows: int, cols: int, where: str) -> None:
        if 8.0 * rows * cols > self.memory_limit:
            raise InputError(f"node {where!r} would be a dense {rows} x {cols} matrix ({8.0 * rows * cols / 2**30:.3g} GiB), "
                             f"more than the memory limit of {self.memory_limit / 2**30:.3g} GiB.")  # fmt: skip

    def spatial(self, attrs: dict, shape: tuple, kernel: tuple, op: str, where: str) -> tuple:
        """``(strides, pads_begin, dilations, out_spatial)`` of a convolution or pooling."""
        nd = len(kernel)
        sp = shape[1:]
        if len(sp) != nd or nd not in (1, 2):
            raise _refuse(op, where, f"a {nd}-D kernel on an input of shape {shape}; 1-D and 2-D are read")
        strides = tuple(int(v) for v in attrs.get("strides", [1] * nd))
        dil = tuple(int(v) for v in attrs.get("dilations", [1] * nd))
        pads = [int(v) for v in attrs.get("pads", [0] * (2 * nd))]
        auto = attrs.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else str(auto)
        if min(strides) < 1 or min(dil) < 1 or min(pads, default=0) < 0:
            raise _refuse(op, where, f"strides {strides}, dilations {dil}, pads {pads}")
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            out = tuple(-(-s // st) for s, st in zip(sp, strides))
            total = [max((o - 1) * st + d * (k - 1) + 1 - s, 0) for o, st, d, k, s in zip(out, strides, dil, kernel, sp)]
            begin = [t // 2 if auto == "SAME_UPPER" else t - t // 2 for t in total]
            pads = begin + [t - b for t, b in zip(total, begin)]
        elif auto == "VALID":
            pads = [0] * (2 * nd)
        elif auto != "NOTSET":
            raise _refuse(op, where, f"auto_pad={auto!r}")
        if int(attrs.get("ceil_mode", 0)):
            raise _refuse(op, where, "ceil_mode=1")
        out = tuple((s + pads[a] + pads[nd + a] - d * (k - 1) - 1) // st + 1
                    for a, (s, k, st, d) in enumerate(zip(sp, kernel, strides, dil)))  # fmt: skip
        if min(out) < 1:
            raise _refuse(op, where, f"a kernel {kernel} that does not fit the input {shape}")
        return strides, tuple(pads[:nd]), dil, out

    # -- the walk -----------------------------------------------------------------------------------
    def run(self) -> Graph:
        for i, node in enumerate(self.graph.node):
            where = node.name or f"{node.op_type} #{i}"
            if node.domain not in ("", "ai.onnx"):
                raise _refuse(f"{node.domain}.{node.op_type}", where, "an operation outside the standard ONNX domain")
            attrs = {a.name: self.helper.get_attribute_value(a) for a in node.attribute}
            handler = getattr(self, f"op_{node.op_type}", None)
            if handler is None:
                raise _refuse(node.op_type, where)
            handler(node, attrs, where)
        outputs = list(self.graph.output)
        if len(outputs) != 1:
            raise InputError(f"the ONNX graph must have one output; got {len(outputs)}.")
        v, _ = self.value(outputs[0].name, "output", outputs[0].name)
        self.g.set_output(v)
        return self.g

    def put(self, node: Any, v: int, shape: tuple) -> None:
        self.values[node.output[0]] = (v, tuple(int(s) for s in shape))
        for extra in node.output[1:]:
            if extra:
                raise _refuse(node.op_type, node.name, f"its second output {extra!r} is read")

    def op_Constant(self, node: Any, attrs: dict, where: str) -> None:
        if "value" in attrs:
            val = self.nh.to_array(attrs["value"])
        else:
            key = next((k for k in ("value_float", "value_floats", "value_int", "value_ints") if k in attrs), None)
            if key is None:
                raise _refuse("Constant", where, f"attributes {sorted(attrs)}")
            val = attrs[key]
        self.consts[node.output[0]] = np.asarray(val, dtype=np.float64)

    def op_Identity(self, node: Any, attrs: dict, where: str) -> None:
        if node.input[0] in self.values:
            self.put(node, *self.values[node.input[0]])
        else:
            self.consts[node.output[0]] = self.need_const(node.input[0], "Identity", where, "input")

    def op_Dropout(self, node: Any, attrs: dict, where: str) -> None:
        if len(node.input) > 2 and node.input[2]:
            mode = self.const(node.input[2])
            if mode is None or bool(np.asarray(mode).reshape(-1)[0]):
                raise _refuse("Dropout", where, "training_mode is on (random), or not a constant")
        if len(node.input) > 1 and node.input[1]:
            self.const(node.input[1])  # the ratio: read, and of no effect at inference
        self.put(node, *self.value(node.input[0], "Dropout", where))

    def op_Relu(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "Relu", where)
        self.put(node, self.g.relu(x, name=where), shape)

    def op_LeakyRelu(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "LeakyRelu", where)
        self.put(node, self.g.leaky(x, float(attrs.get("alpha", 0.01)), name=where), shape)

    def op_PRelu(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "PRelu", where)
        slope = self.need_const(node.input[1], "PRelu", where, "slope")
        try:
            s = np.broadcast_to(slope, (1,) + shape).reshape(-1)
        except ValueError:
            raise _refuse("PRelu", where, f"a slope of shape {slope.shape} for an input of shape {shape}") from None
        self.put(node, self.g.leaky(x, s, name=where), shape)

    def op_Gemm(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "Gemm", where)
        if int(attrs.get("transA", 0)) or len(shape) != 1:
            raise _refuse("Gemm", where, "transA=1 or an input that is not a vector")
        B = self.need_const(node.input[1], "Gemm", where, "B")
        B = B.T if int(attrs.get("transB", 0)) else B
        W = float(attrs.get("alpha", 1.0)) * B.T
        if W.shape[1] != shape[0]:
            raise _refuse("Gemm", where, f"B of shape {B.shape} for inputs of size {shape[0]}")
        c = np.zeros(W.shape[0])
        if len(node.input) > 2 and node.input[2]:
            C = self.need_const(node.input[2], "Gemm", where, "C")
            c = float(attrs.get("beta", 1.0)) * np.broadcast_to(C, (1, W.shape[0]))[0]
        self.put(node, self.g.affine(x, matrix=W, offset=c, name=where), (W.shape[0],))

    def op_MatMul(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "MatMul", where)
        B = self.need_const(node.input[1], "MatMul", where, "second factor")
        if len(shape) != 1 or B.ndim != 2 or B.shape[0] != shape[0]:
            raise _refuse("MatMul", where, f"a {B.shape} matrix for an input of shape {shape}; read: vector times matrix")
        self.put(node, self.g.affine(x, matrix=B.T, name=where), (B.shape[1],))

    def _binary(self, node: Any, where: str) -> tuple:
        a, b = node.input[0], node.input[1]
        return a, b, a in self.values, b in self.values

    def op_Add(self, node: Any, attrs: dict, where: str, sign: float = 1.0) -> None:
        op = node.op_type
        a, b, va, vb = self._binary(node, where)
        if va and vb:
            (xa, sa), (xb, sb) = self.values[a], self.values[b]
            if sa != sb:
                raise _refuse(op, where, f"operands of shapes {sa} and {sb} (broadcasting between values)")
            self.put(node, self.g.combine([xa, xb], [1.0, sign], name=where), sa)
            return
        x, shape = self.value(a if va else b, op, where)
        c = self.need_const(b if va else a, op, where, "other operand")
        try:
            off = np.broadcast_to(c, (1,) + shape).reshape(-1)
        except ValueError:
            raise _refuse(op, where, f"a constant of shape {c.shape} for a value of shape {shape}") from None
        coef, csign = (1.0, sign) if va else (sign, 1.0)
        self.put(node, self.g.combine([x], [coef], offset=csign * off, name=where), shape)

    def op_Sub(self, node: Any, attrs: dict, where: str) -> None:
        self.op_Add(node, attrs, where, sign=-1.0)

    def op_Mul(self, node: Any, attrs: dict, where: str, divide: bool = False) -> None:
        op = node.op_type
        a, b, va, vb = self._binary(node, where)
        if va and vb or (divide and vb):
            raise _refuse(op, where, "a product or quotient of values depending on the input (not piecewise linear)")
        x, shape = self.value(a if va else b, op, where)
        c = self.need_const(b if va else a, op, where, "other operand")
        if divide:
            if np.any(c == 0):
                raise _refuse(op, where, "a division by zero")
            c = 1.0 / c
        try:
            s = np.broadcast_to(c, (1,) + shape).reshape(-1)
        except ValueError:
            raise _refuse(op, where, f"a constant of shape {c.shape} for a value of shape {shape}") from None
        self.put(node, self.g.affine(x, fn=lambda X, s=s: X * s, out_size=s.size, keeps_sign=bool(np.all(s >= 0)),
                                     name=where), shape)  # fmt: skip

    def op_Div(self, node: Any, attrs: dict, where: str) -> None:
        self.op_Mul(node, attrs, where, divide=True)

    def op_Concat(self, node: Any, attrs: dict, where: str) -> None:
        vals = [self.value(n, "Concat", where) for n in node.input]
        rank = len(vals[0][1]) + 1
        axis = int(attrs.get("axis", 1))
        if axis % rank != 1 or any(len(s) + 1 != rank or s[1:] != vals[0][1][1:] for _, s in vals):
            raise _refuse("Concat", where, f"concatenation along axis {axis} of shapes {[s for _, s in vals]}; only the "
                                           "channel/feature axis 1 is read")  # fmt: skip
        shape = (sum(s[0] for _, s in vals),) + vals[0][1][1:]
        self.put(node, self.g.concat([v for v, _ in vals], name=where), shape)

    def op_Flatten(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "Flatten", where)
        axis = int(attrs.get("axis", 1))
        if axis % (len(shape) + 1) != 1:
            raise _refuse("Flatten", where, f"axis={axis} merges the batch axis with the features")
        self.put(node, x, (math.prod(shape),))

    def op_Reshape(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "Reshape", where)
        target = [int(v) for v in self.need_const(node.input[1], "Reshape", where, "shape").reshape(-1)]
        full = [self.batch] + list(shape)
        if not int(attrs.get("allowzero", 0)):
            target = [full[i] if v == 0 and i < len(full) else v for i, v in enumerate(target)]
        size = math.prod(shape)
        if not target or (target[0] is not None and target[0] != -1 and target[0] != self.batch):
            raise _refuse("Reshape", where, f"a target shape {target} whose first axis is not the batch")
        rest = target[1:]
        if target[0] == -1 and -1 in rest:
            raise _refuse("Reshape", where, f"a target shape {target} that leaves the batch axis open")
        if -1 in rest:
            known = math.prod(v for v in rest if v != -1)
            if known == 0 or size % known:
                raise _refuse("Reshape", where, f"a target shape {target} for {size} values per input")
            rest = [size // known if v == -1 else v for v in rest]
        if math.prod(rest) != size or min(rest, default=1) < 1:
            raise _refuse("Reshape", where, f"a target shape {target} that mixes the batch axis with {size} values")
        self.put(node, x, tuple(rest))

    def op_BatchNormalization(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "BatchNormalization", where)
        if int(attrs.get("training_mode", 0)) or any(o for o in node.output[1:]):
            raise _refuse("BatchNormalization", where, "training mode (the batch's own statistics)")
        scale, bias, mean, var = (self.need_const(n, "BatchNormalization", where, w).reshape(-1)
                                  for n, w in zip(node.input[1:5], ("scale", "B", "mean", "var")))  # fmt: skip
        s = scale / np.sqrt(var + float(attrs.get("epsilon", ONNX_BN_DEFAULT_EPSILON)))
        t = bias - mean * s
        per = (-1,) + (1,) * (len(shape) - 1)
        s_full, t_full = (np.broadcast_to(a.reshape(per), shape).reshape(-1) for a in (s, t))
        self.put(node, self.g.affine(x, fn=lambda X, s=s_full: X * s, out_size=s_full.size, offset=t_full, name=where), shape)

    def op_Conv(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "Conv", where)
        K = self.need_const(node.input[1], "Conv", where, "weight")
        group = int(attrs.get("group", 1))
        M, Cg = K.shape[:2]
        if K.ndim != len(shape) + 1 or shape[0] != Cg * group or M % group:
            raise _refuse("Conv", where, f"a weight of shape {K.shape} (group {group}) for an input of shape {shape}")
        strides, begin, dil, out_sp = self.spatial(attrs, shape, K.shape[2:], "Conv", where)
        P_in, P_out = math.prod(shape[1:]), math.prod(out_sp)
        self.fits(M * P_out, shape[0] * P_in, where)
        win = pool_windows(shape[1:], K.shape[2:], strides, begin, dil, out_sp)
        p_idx, j_idx = np.nonzero(win >= 0)
        q_idx = win[p_idx, j_idx]
        A = np.zeros((M, P_out, shape[0], P_in))
        Kf = K.reshape(M, Cg, -1)
        for o in range(M):
            g0 = (o // (M // group)) * Cg
            for cl in range(Cg):
                A[o, p_idx, g0 + cl, q_idx] = Kf[o, cl, j_idx]
        b = np.zeros(M)
        if len(node.input) > 2 and node.input[2]:
            b = self.need_const(node.input[2], "Conv", where, "bias").reshape(-1)
        v = self.g.affine(x, matrix=A.reshape(M * P_out, -1), offset=np.repeat(b, P_out), name=where)
        self.put(node, v, (M,) + out_sp)

    def _pool_matrix(self, shape: tuple, win: np.ndarray, divisor: np.ndarray, out_sp: tuple, where: str) -> np.ndarray:
        C, P_in, P_out = shape[0], math.prod(shape[1:]), math.prod(out_sp)
        self.fits(C * P_out, C * P_in, where)
        p_idx, j_idx = np.nonzero(win >= 0)
        q_idx = win[p_idx, j_idx]
        A = np.zeros((C, P_out, C, P_in))
        for c in range(C):
            A[c, p_idx, c, q_idx] = 1.0 / divisor[p_idx]
        return A.reshape(C * P_out, C * P_in)

    def op_AveragePool(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "AveragePool", where)
        kernel = tuple(int(v) for v in attrs["kernel_shape"])
        strides, begin, dil, out_sp = self.spatial(attrs, shape, kernel, "AveragePool", where)
        if max(dil) != 1:
            raise _refuse("AveragePool", where, f"dilations {dil}")
        win = pool_windows(shape[1:], kernel, strides, begin, dil, out_sp)
        divisor = (np.full(len(win), float(win.shape[1])) if int(attrs.get("count_include_pad", 0))
                   else (win >= 0).sum(axis=1).astype(float))  # fmt: skip
        A = self._pool_matrix(shape, win, divisor, out_sp, where)
        self.put(node, self.g.affine(x, matrix=A, name=where), (shape[0],) + out_sp)

    def op_GlobalAveragePool(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "GlobalAveragePool", where)
        if len(shape) < 2:
            raise _refuse("GlobalAveragePool", where, f"an input of shape {shape}")
        P_in = math.prod(shape[1:])
        win = np.arange(P_in)[None, :]
        A = self._pool_matrix(shape, win, np.full(1, float(P_in)), (1,), where)
        self.put(node, self.g.affine(x, matrix=A, name=where), (shape[0],) + (1,) * (len(shape) - 1))

    def op_MaxPool(self, node: Any, attrs: dict, where: str) -> None:
        x, shape = self.value(node.input[0], "MaxPool", where)
        kernel = tuple(int(v) for v in attrs["kernel_shape"])
        strides, begin, dil, out_sp = self.spatial(attrs, shape, kernel, "MaxPool", where)
        win = pool_windows(shape[1:], kernel, strides, begin, dil, out_sp)
        C, P_in, P_out = shape[0], math.prod(shape[1:]), math.prod(out_sp)
        full = (np.arange(C)[:, None, None] * P_in + np.where(win >= 0, win, 0)[None]).reshape(C * P_out, -1)
        full = np.where(np.tile(win >= 0, (C, 1)), full, -1)
        self.put(node, self.g.max_over(x, full, name=where), (C,) + out_sp)


def read_onnx(path_or_model: Any, *, input_shape: Any = None, memory_limit: float = DEFAULT_MEMORY) -> tuple[list, str, str]:
    """The layers ``(pairs, last, note)`` of an ONNX model (a path or an ``onnx.ModelProto``), read exactly.

    Raises
    ------
    InputError
        For a file that cannot be read, an operation that is not read (named with its node),
        an ``input_shape`` that does not match the declared input, or a layer above ``memory_limit``.
    """
    try:
        import onnx
    except ImportError:
        raise InputError("reading ONNX needs the onnx package: pip install 'relu_frames_nb[torch]' (or onnx alone).") from None
    if isinstance(path_or_model, onnx.ModelProto):
        model = path_or_model
    elif isinstance(path_or_model, (str, Path)):
        try:
            model = onnx.load(str(path_or_model))
        except Exception as exc:  # noqa: BLE001 - a missing or malformed file
            raise InputError(f"the ONNX file {str(path_or_model)!r} must be readable; got {type(exc).__name__}: {exc}.") from None
    else:
        raise InputError(f"path_or_model must be a path or an onnx.ModelProto; got {type(path_or_model).__name__}.")
    reader = _Reader(onnx, model, input_shape, memory_limit)
    graph = reader.run()
    layered = graph.compile(memory_limit=memory_limit)
    X = np.random.default_rng(0).standard_normal((_SAMPLES, math.prod(reader.dims)))
    want, got = graph.evaluate(X), layered.forward(X)
    err = float(np.abs(got - want).max()) / max(float(np.abs(want).max()), float(np.abs(X).max()))
    if not err <= REDUCTION_RTOL:  # a defect of the reduction, never expected
        raise InputError(f"the layers read from the ONNX graph must have its forward; they differ by {err:.3g} (relative).")
    notes = ["read from ONNX"]
    if layered.note:
        notes.append(layered.note)
    unused = sorted(set(reader.inits) - reader.used)
    if unused:
        notes.append(f"initializers not used by the graph (ONNX ignores them too): {', '.join(unused[:6])}"
                     f"{', ...' if len(unused) > 6 else ''}")  # fmt: skip
    if layered.last == "linear":
        notes.append(f"the output's affine map ({layered.pairs[-1][0].shape[0]} outputs) is checked as the affine map it is")
    return list(layered.pairs), layered.last, "; ".join(notes)
