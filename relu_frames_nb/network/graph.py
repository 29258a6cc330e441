r"""A small exact graph of piecewise-linear operations, and its reduction to a layered ReLU network.

The readers of traced PyTorch modules (:mod:`.trace`) and ONNX files (:mod:`.onnx_reader`)
translate a model into a :class:`Graph` whose values are flat float64 vectors (a tensor of
shape ``(C, H, W)`` is its C-order flattening, so a reshape changes nothing). Its operations:

* affine maps of one value (a linear map given as a matrix or as a function on batches of
  rows, plus an offset), weighted sums of same-size values (``+``, ``-``, scaling, a constant
  added), concatenations and index selections: all of them affine;
* ``relu``, ``leaky`` (slope ``s``, one per entry) and ``maximum`` of two same-size values.

:meth:`Graph.compile` turns it into ``(W, b)`` pairs of a network ``ReLU(W x + b)`` with the
same forward map, exactly (in real arithmetic; in floating point up to the rounding of the
merged matrix products).

Why the reduction is exact
--------------------------
Every value is written as an affine form :math:`A h_k + c` of the outputs :math:`h_k` of the
layer built so far (:math:`h_0 = x`, the input). An affine operation composes forms
(:math:`M(Ah + c) + d = (MA) h + (Mc + d)`): consecutive affine maps are merged and never
make a layer. A nonlinear operation needs the values of its arguments *before* a ReLU, so it
starts a layer: the *depth* of an operation is the largest number of nonlinear operations
on a path from the input to it (itself included), and layer ``k`` holds the ReLU units of the
operations of depth ``k``, their rows being the forms of the arguments over :math:`h_{k-1}`:

* ``relu(z)``: one unit per entry, :math:`\mathrm{ReLU}(z)`;
* ``leaky(z)``: two units, since :math:`\mathrm{LeakyReLU}_s(z) = \mathrm{ReLU}(z) - s\,\mathrm{ReLU}(-z)`
  for every real ``s``;
* ``maximum(a, b)``: :math:`\max(a, b) = b + \mathrm{ReLU}(a - b)`, one unit for :math:`a - b`,
  while ``b`` itself is carried into the layer (below).

A value computed at depth ``d`` and used at a later layer (the input of a residual addition,
one branch of a concatenation that is shallower than the other, the ``b`` of a maximum) must
pass through the ReLU layers in between without loss. It does so as
:math:`v = \mathrm{ReLU}(v) - \mathrm{ReLU}(-v)`: two units per entry, whose difference is
affine in the next layer's outputs, so the form of ``v`` continues. When ``v`` is known to be
non-negative (a ReLU output, or a sum with non-negative weights of such values: pooling, a
maximum with a ReLU output), one unit :math:`\mathrm{ReLU}(v) = v` suffices. An affine value
may instead be recomputed later from its own arguments, if carrying those is cheaper. Both
identities hold everywhere, so every layer's outputs determine, affinely, every value needed
later, and the output is an affine form of the last layer: if that form is a permutation
of the last layer's units, the rows are reordered and the network ends with a ReLU
(``last="relu"``); otherwise the form is appended as an affine last layer (``last="linear"``).

Every matrix is dense float64 and its size is checked against ``memory_limit`` before it is
built: a layer above it is refused with an :class:`~relu_frames_nb.errors.InputError` that
gives its size.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._util.budget import DEFAULT_MEMORY
from ..errors import DimensionMismatchError, InputError

__all__ = ["Graph", "Layered", "pool_windows"]

_NONLINEAR = ("relu", "leaky", "max")


@dataclass
class _Op:
    kind: str  # input, affine, combine, concat, relu, leaky, max
    inputs: tuple[int, ...]
    size: int
    name: str
    nonneg: bool = False  # the value is >= 0 for every input of the graph
    fn: Callable[[np.ndarray], np.ndarray] | None = None  # affine: the linear part on rows (k, n_in) -> (k, size)
    offset: np.ndarray | None = None  # affine / combine: the constant added
    coefs: tuple[float, ...] = ()  # combine: one weight per input
    slope: np.ndarray | None = None  # leaky: one slope per entry


@dataclass(frozen=True)
class Layered:
    """A compiled :class:`Graph`: ``pairs`` ``(W, b)`` in PyTorch's convention, ``last`` and a short ``note``."""

    pairs: list = field(repr=False)
    last: str
    note: str

    def forward(self, X: np.ndarray) -> np.ndarray:
        """The network's outputs for points as rows ``X`` of shape ``(N, n)``."""
        H = np.asarray(X, dtype=float)
        for k, (W, b) in enumerate(self.pairs):
            H = H @ W.T + b
            if not (self.last == "linear" and k == len(self.pairs) - 1):
                H = np.maximum(H, 0.0)
        return H


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


class Graph:
    """A graph of exact piecewise-linear operations on flat vectors (see the module docstring).

    Values are integer ids returned by the builder methods, in topological order.

    Examples
    --------
    >>> import numpy as np
    >>> g = Graph()
    >>> x = g.input(2)
    >>> h = g.relu(g.affine(x, matrix=np.array([[1.0, -1.0], [2.0, 1.0]]), offset=np.zeros(2), name="fc"), name="act")
    >>> g.set_output(g.combine([x, h], [1.0, 1.0], name="residual"))
    >>> net = g.compile()
    >>> net.last, [W.shape for W, _ in net.pairs]
    ('linear', [(6, 2), (2, 6)])
    >>> X = np.random.default_rng(0).standard_normal((5, 2))
    >>> bool(np.allclose(net.forward(X), g.evaluate(X)))
    True
    """

    def __init__(self) -> None:
        self._ops: list[_Op] = []
        self._output: int | None = None
        self.notes: list[str] = []  # what the builders want said (pooling as maxes, leaky units, ...)

    # -- building ------------------------------------------------------------------------------
    def _add(self, op: _Op) -> int:
        self._ops.append(op)
        return len(self._ops) - 1

    def _check(self, v: Any, what: str) -> int:
        if not isinstance(v, (int, np.integer)) or not 0 <= int(v) < len(self._ops):
            raise InputError(f"{what} must be a value of this graph; got {v!r}.")
        return int(v)

    def size(self, v: int) -> int:
        """The number of entries of value ``v``."""
        return self._ops[self._check(v, "v")].size

    def nonneg(self, v: int) -> bool:
        """Whether value ``v`` is non-negative for every input."""
        return self._ops[self._check(v, "v")].nonneg

    def input(self, size: int, name: str = "input") -> int:
        """The graph's input, a vector of ``size`` entries (one input per graph)."""
        if any(op.kind == "input" for op in self._ops):
            raise InputError("a graph must have one input; got a second one.")
        if int(size) < 1:
            raise InputError(f"the input size must be >= 1; got {size}.")
        return self._add(_Op("input", (), int(size), name))

    def affine(self, x: int, *, matrix: Any = None, fn: Callable | None = None, out_size: int | None = None,
               offset: Any = None, keeps_sign: bool = False, name: str) -> int:  # fmt: skip
        """``M x + offset``: ``matrix`` (dense ``(m, n)``) or ``fn`` (the linear part on rows: ``(k, n) -> (k, out_size)``).

        ``keeps_sign``: ``fn`` maps non-negative vectors to non-negative ones (pooling, selection).
        """
        x = self._check(x, f"the argument of {name!r}")
        n = self._ops[x].size
        if matrix is not None:
            M = np.asarray(matrix, dtype=float)
            if M.ndim != 2 or M.shape[1] != n:
                raise DimensionMismatchError(f"{name!r} must have a matrix with {n} columns; got shape {M.shape}.")
            m = M.shape[0]
            keeps_sign = keeps_sign or bool(np.all(M >= 0))
            fn = lambda X, M=M: X @ M.T  # noqa: E731
        elif fn is None or out_size is None:
            raise InputError(f"{name!r} needs a matrix, or fn with out_size.")
        else:
            m = int(out_size)
        c = np.zeros(m) if offset is None else np.broadcast_to(np.asarray(offset, dtype=float).reshape(-1), (m,)).copy()
        nonneg = self._ops[x].nonneg and keeps_sign and bool(np.all(c >= 0))
        return self._add(_Op("affine", (x,), m, name, nonneg=nonneg, fn=fn, offset=c))

    def select(self, x: int, index: Any, *, name: str) -> int:
        """The entries ``x[index]`` (repetitions allowed)."""
        idx = np.asarray(index, dtype=np.intp).reshape(-1)
        n = self.size(x)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise InputError(f"{name!r} selects entries outside 0..{n - 1}.")
        return self.affine(x, fn=lambda X, idx=idx: X[:, idx], out_size=idx.size, keeps_sign=True, name=name)

    def combine(self, inputs: Any, coefs: Any, *, offset: Any = None, name: str) -> int:
        """``sum_i coefs[i] * inputs[i] + offset`` of same-size values (addition, subtraction, scaling)."""
        ins = tuple(self._check(v, f"an argument of {name!r}") for v in inputs)
        cs = tuple(float(c) for c in coefs)
        if not ins or len(cs) != len(ins):
            raise InputError(f"{name!r} must have one coefficient per argument; got {len(cs)} for {len(ins)}.")
        sizes = {self._ops[v].size for v in ins}
        if len(sizes) != 1:
            raise DimensionMismatchError(f"the arguments of {name!r} must have the same size; got sizes {sorted(sizes)}.")
        m = sizes.pop()
        c = np.zeros(m) if offset is None else np.broadcast_to(np.asarray(offset, dtype=float).reshape(-1), (m,)).copy()
        nonneg = all(self._ops[v].nonneg for v in ins) and all(a >= 0 for a in cs) and bool(np.all(c >= 0))
        return self._add(_Op("combine", ins, m, name, nonneg=nonneg, offset=c, coefs=cs))

    def concat(self, inputs: Any, *, name: str) -> int:
        """The values one after the other."""
        ins = tuple(self._check(v, f"an argument of {name!r}") for v in inputs)
        if not ins:
            raise InputError(f"{name!r} must concatenate at least one value.")
        if len(ins) == 1:
            return ins[0]
        return self._add(_Op("concat", ins, sum(self._ops[v].size for v in ins), name,
                             nonneg=all(self._ops[v].nonneg for v in ins)))  # fmt: skip

    def relu(self, x: int, *, name: str) -> int:
        """``max(x, 0)`` entrywise."""
        x = self._check(x, f"the argument of {name!r}")
        return self._add(_Op("relu", (x,), self._ops[x].size, name, nonneg=True))

    def leaky(self, x: int, slope: Any, *, name: str) -> int:
        """``x`` where ``x >= 0``, ``slope * x`` elsewhere (one slope, or one per entry: PReLU)."""
        x = self._check(x, f"the argument of {name!r}")
        n = self._ops[x].size
        s = np.asarray(slope, dtype=float).reshape(-1)
        if s.size not in (1, n) or not np.all(np.isfinite(s)):
            raise InputError(f"the slope of {name!r} must be one finite number or {n}; got {s.size} values.")
        s = np.broadcast_to(s, (n,)).copy()
        if not np.any(s):
            return self.relu(x, name=name)
        return self._add(_Op("leaky", (x,), n, name, nonneg=self._ops[x].nonneg, slope=s))

    def maximum(self, a: int, b: int, *, name: str) -> int:
        """``max(a, b)`` entrywise, as ``b + ReLU(a - b)``."""
        a, b = self._check(a, f"an argument of {name!r}"), self._check(b, f"an argument of {name!r}")
        if a == b:
            return a
        if self._ops[a].size != self._ops[b].size:
            raise DimensionMismatchError(f"the arguments of {name!r} must have the same size.")
        return self._add(_Op("max", (a, b), self._ops[a].size, name, nonneg=self._ops[a].nonneg or self._ops[b].nonneg))

    def max_over(self, x: int, windows: Any, *, name: str) -> int:
        """Max pooling: entry ``p`` of the result is the largest ``x[windows[p, j]]`` over ``j`` with ``windows[p, j] >= 0``.

        Built as a balanced tree of pairwise maxima (depth ``ceil(log2(window size))``); an
        invalid position (padding) is replaced by a valid one of the same window, which leaves
        the maximum unchanged.
        """
        win = np.array(windows, dtype=np.intp)
        if win.ndim != 2 or win.shape[1] < 1:
            raise InputError(f"the windows of {name!r} must be a 2-D array; got shape {win.shape}.")
        valid = win >= 0
        if not np.all(valid.any(axis=1)):
            raise InputError(f"every window of {name!r} must hold a position of its input; some hold only padding.")
        first = win[np.arange(len(win)), np.argmax(valid, axis=1)]
        win = np.where(valid, win, first[:, None])
        cols = []
        for j in range(win.shape[1]):
            if not any(np.array_equal(win[:, j], c) for c in cols):
                cols.append(win[:, j])
        level = [self.select(x, c, name=f"{name}[{j}]") for j, c in enumerate(cols)]
        depth = 0
        while len(level) > 1:
            depth += 1
            nxt = [self.maximum(level[i], level[i + 1], name=f"{name}:max{depth}.{i // 2}") for i in range(0, len(level) - 1, 2)]
            level = nxt + (level[-1:] if len(level) % 2 else [])
        self.notes.append(f"max pool {name!r} read as {depth} level(s) of pairwise maxima max(a, b) = b + ReLU(a - b)")
        return level[0]

    def set_output(self, v: int) -> None:
        """The graph's output value."""
        self._output = self._check(v, "the output")

    @property
    def output(self) -> int:
        """The output value (set by :meth:`set_output`)."""
        if self._output is None:
            raise InputError("the graph has no output: call set_output.")
        return self._output

    # -- the reference forward -------------------------------------------------------------------
    def evaluate(self, X: Any) -> np.ndarray:
        """The graph's output for points as rows ``X`` of shape ``(N, n)``, operation by operation."""
        X = np.asarray(X, dtype=float)
        vals: dict[int, np.ndarray] = {}
        for i in sorted(self._live()):
            op = self._ops[i]
            a = [vals[u] for u in op.inputs]
            if op.kind == "input":
                vals[i] = X
            elif op.kind == "affine":
                vals[i] = op.fn(a[0]) + op.offset
            elif op.kind == "combine":
                vals[i] = sum(c * v for c, v in zip(op.coefs, a)) + op.offset
            elif op.kind == "concat":
                vals[i] = np.concatenate(a, axis=1)
            elif op.kind == "relu":
                vals[i] = np.maximum(a[0], 0.0)
            elif op.kind == "leaky":
                vals[i] = np.where(a[0] >= 0, a[0], op.slope * a[0])
            else:
                vals[i] = np.maximum(a[0], a[1])
        return vals[self.output]

    def _live(self) -> set[int]:
        """The operations the output depends on."""
        live, stack = set(), [self.output]
        while stack:
            v = stack.pop()
            if v not in live:
                live.add(v)
                stack.extend(self._ops[v].inputs)
        return live

    # -- the reduction to layers -------------------------------------------------------------------
    def compile(self, *, memory_limit: float = DEFAULT_MEMORY) -> Layered:
        """The layered ReLU network with the same forward map (see the module docstring).

        Raises
        ------
        InputError
            If a matrix to build (a layer, or a form of a value on a layer) would take more
            than ``memory_limit`` bytes, or all layers together would.
        """
        ops, out = self._ops, self.output
        live = self._live()
        if not any(ops[v].kind == "input" for v in live):
            raise InputError("the output must depend on the input; got a constant.")
        order = sorted(live)
        depth: dict[int, int] = {}
        for v in order:
            op = ops[v]
            d = max((depth[u] for u in op.inputs), default=0)
            depth[v] = d + 1 if op.kind in _NONLINEAR else d
        D = depth[out]

        def units(v: int) -> int:
            return ops[v].size * (1 if ops[v].nonneg else 2)

        cheapest: dict[int, int] = {}  # the fewest units that carry v past a layer (itself, or what it is made from)
        for v in order:
            op = ops[v]
            rebuild = sum(cheapest[u] for u in op.inputs) if op.kind in ("affine", "combine", "concat") else None
            cheapest[v] = units(v) if rebuild is None else min(units(v), rebuild)

        # which values need a form on each layer's outputs, and which are carried through each layer
        need: list[dict[int, str]] = [{} for _ in range(D + 1)]
        carried: list[dict[int, str]] = [{} for _ in range(D + 1)]
        need[D][out] = "the output"
        for k in range(D, -1, -1):
            heap = [-v for v in need[k]]
            heapq.heapify(heap)
            seen: set[int] = set()

            def ask(u: int, why: str, k: int = k, heap: list = heap) -> None:
                if u not in need[k]:
                    need[k][u] = why
                    heapq.heappush(heap, -u)

            while heap:
                v = -heapq.heappop(heap)
                if v in seen:
                    continue
                seen.add(v)
                op, why = ops[v], need[k][v]
                if depth[v] == k:
                    if op.kind in _NONLINEAR:
                        for u in op.inputs:
                            need[k - 1].setdefault(u, op.name)
                        if op.kind == "max":  # max(a, b) = b + ReLU(a - b): b is needed after this layer's ReLU
                            ask(op.inputs[1], op.name)
                    else:
                        for u in op.inputs:
                            ask(u, op.name)
                    continue
                # a value of an earlier layer: carry it, or recompute it here from what it is made from
                if op.kind in ("affine", "combine", "concat") and cheapest[v] < units(v):
                    for u in op.inputs:
                        ask(u, why)
                else:
                    carried[k][v] = why
                    need[k - 1].setdefault(v, why)

        limit = float(memory_limit)
        total = [0.0]

        def fits(rows: int, cols: int, what: str) -> None:
            size = 8.0 * rows * cols
            if size > limit:
                raise InputError(f"{what} would be a dense {rows} x {cols} matrix ({_gib(size)}), more than the memory "
                                 f"limit of {_gib(limit)}: raise memory_limit, or read a smaller model (smaller images, "
                                 "fewer channels).")  # fmt: skip

        def alloc(rows: int, cols: int, what: str) -> np.ndarray:
            fits(rows, cols, what)
            return np.zeros((rows, cols))

        def compose(v: int, forms: dict, width: int, k: int) -> tuple[np.ndarray, np.ndarray]:
            op = ops[v]
            args = [forms[u] for u in op.inputs]
            if op.kind == "input":
                A = alloc(op.size, op.size, "the input's form")
                A[np.arange(op.size), np.arange(op.size)] = 1.0
                return A, np.zeros(op.size)
            if op.kind == "affine":
                fits(op.size, width, f"{op.name!r} on layer {k}")  # refuse before the map is applied
                A_in, c_in = args[0]
                A = np.ascontiguousarray(np.asarray(op.fn(np.ascontiguousarray(A_in.T)), dtype=float).T)
                c = np.asarray(op.fn(c_in[None, :]), dtype=float)[0] + op.offset
                return A, c
            if op.kind == "combine":
                A = sum(a * f[0] for a, f in zip(op.coefs, args))
                c = sum(a * f[1] for a, f in zip(op.coefs, args)) + op.offset
                return np.array(A, dtype=float), np.array(c, dtype=float)
            fits(op.size, width, f"{op.name!r} on layer {k}")
            return np.vstack([f[0] for f in args]), np.concatenate([f[1] for f in args])

        forms: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        width = next(ops[v].size for v in order if ops[v].kind == "input")
        for v in sorted(need[0]):
            forms[v] = compose(v, forms, width, 0)
        pairs: list[tuple[np.ndarray, np.ndarray]] = []
        for k in range(1, D + 1):
            blocks, place = [], {}  # place[v] = (first unit, kind) in this layer
            start = 0
            for v in sorted(need[k]):
                if depth[v] == k and ops[v].kind in _NONLINEAR:
                    op = ops[v]
                    A, c = forms[op.inputs[0]]
                    if op.kind == "max":
                        Ab, cb = forms[op.inputs[1]]
                        A, c = A - Ab, c - cb
                    blocks.append((A, c))
                    if op.kind == "leaky":
                        blocks.append((-A, -c))
                    place[v] = start
                    start += op.size * (2 if op.kind == "leaky" else 1)
            for v in sorted(carried[k]):
                A, c = forms[v]
                blocks.append((A, c))
                if not ops[v].nonneg:
                    blocks.append((-A, -c))
                place[v] = start
                start += units(v)
            W = alloc(start, width, f"layer {k}")
            b = np.zeros(start)
            row = 0
            for A, c in blocks:
                W[row : row + len(c)] = A
                b[row : row + len(c)] = c
                row += len(c)
            total[0] += W.nbytes
            if total[0] > limit:
                raise InputError(f"the layers up to layer {k} take {_gib(total[0])} as dense matrices, more than the memory "
                                 f"limit of {_gib(limit)}: raise memory_limit, or read a smaller model.")  # fmt: skip
            pairs.append((W, b))
            width = start
            new: dict[int, tuple[np.ndarray, np.ndarray]] = {}
            for v in sorted(need[k]):
                op = ops[v]
                if v in carried[k] or (depth[v] == k and op.kind in _NONLINEAR):
                    p, m = place[v], op.size
                    A = alloc(m, width, f"{op.name!r} on layer {k}")
                    A[np.arange(m), p + np.arange(m)] = 1.0
                    if v in carried[k] and not op.nonneg:
                        A[np.arange(m), p + m + np.arange(m)] = -1.0
                    elif op.kind == "leaky" and v not in carried[k]:
                        A[np.arange(m), p + m + np.arange(m)] = -op.slope
                    c = np.zeros(m)
                    if op.kind == "max" and v not in carried[k]:
                        Ab, cb = new[op.inputs[1]]
                        A, c = A + Ab, cb.copy()
                    new[v] = (A, c)
                else:
                    new[v] = compose(v, new, width, k)
            forms = new
        A, c = forms[out]
        note = self._note(carried, D)
        last = "linear"
        if D >= 1 and A.shape[0] == A.shape[1] and not np.any(c):
            cols = np.argmax(A, axis=1)
            if (np.array_equal(np.sort(cols), np.arange(A.shape[1])) and np.all(A[np.arange(len(cols)), cols] == 1.0)
                    and np.count_nonzero(A) == len(cols)):  # fmt: skip
                W, b = pairs[-1]
                pairs[-1] = (W[cols], b[cols])  # the output is a reordering of the last layer's units
                last = "relu"
        if last == "linear":
            pairs.append((A, c))
        return Layered(pairs, last, note)

    def _note(self, carried: list, D: int) -> str:
        """What the reduction did, in a sentence or two."""
        spans: dict[tuple[int, str], list[int]] = {}
        for k in range(1, D + 1):
            for v, why in carried[k].items():
                spans.setdefault((v, why), []).append(k)
        parts = []
        for (v, why), ks in spans.items():
            op = self._ops[v]
            where = f"layer {ks[0]}" if len(ks) == 1 else f"layers {ks[0]}-{ks[-1]}"
            how = "ReLU(v) (v >= 0)" if op.nonneg else "ReLU(v) - ReLU(-v)"
            parts.append(f"{op.size} values of {op.name!r} carried through {where} as {how} for {why!r}")
        leaky = [op.name for op in self._ops if op.kind == "leaky"]
        out = list(self.notes)
        if leaky:
            out.append(f"LeakyReLU/PReLU read as ReLU(z) - s ReLU(-z) ({', '.join(map(repr, leaky[:4]))}"
                       f"{', ...' if len(leaky) > 4 else ''})")  # fmt: skip
        if parts:
            out.append("exact reduction to layers: " + "; ".join(parts))
        return "; ".join(out)


def pool_windows(spatial: tuple[int, ...], kernel: tuple[int, ...], strides: tuple[int, ...], pads_begin: tuple[int, ...],
                 dilations: tuple[int, ...], out_spatial: tuple[int, ...]) -> np.ndarray:  # fmt: skip
    """The input positions of every window of a pooling or convolution on a grid of ``spatial`` positions.

    Returns an integer array of shape ``(prod(out_spatial), prod(kernel))``: for output position
    ``p`` (C order) and kernel offset ``j`` (C order), the flat index of the input position it
    reads, or ``-1`` when that position lies outside the input (padding).
    """
    per_axis = []
    for size, k, s, p, d, o in zip(spatial, kernel, strides, pads_begin, dilations, out_spatial):
        pos = np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d  # (o, k)
        per_axis.append(np.where((pos >= 0) & (pos < size), pos, -1))
    n_axes = len(spatial)
    idx = np.zeros([1] * (2 * n_axes), dtype=np.intp)
    bad = np.zeros_like(idx, dtype=bool)
    for a, pos in enumerate(per_axis):
        shape = [1] * (2 * n_axes)
        shape[a], shape[n_axes + a] = pos.shape
        p = pos.reshape(shape)
        idx = idx * spatial[a] + np.where(p >= 0, p, 0)
        bad = bad | (p < 0)
    idx = np.where(bad, -1, idx)
    return idx.reshape(int(np.prod(out_spatial)), int(np.prod(kernel)))
