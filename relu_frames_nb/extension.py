r"""IPython extension: ``%load_ext relu_frames_nb``.

* Rich HTML representations (summary tables) of :class:`~relu_frames_nb.frames.Frame`,
  :class:`~relu_frames_nb.layer.ReLULayer`, the domains and
  :class:`~relu_frames_nb.paper.bias.estimate.BiasEstimate`, registered with IPython's display
  formatter (the classes themselves stay plain); a :class:`~relu_frames_nb.Verdict` shows
  itself (``_repr_html_``).
* ``%%frame NAME`` — a cell magic that reads a matrix (one frame vector per line, numbers
  separated by spaces or commas; parsed safely by
  :func:`relu_frames_nb.viz.parsing.parse_matrix`, never ``eval``) into a ``Frame`` bound
  to ``NAME`` in the user namespace. ``NAME`` must not be a keyword, a builtin, a dunder
  name, one of IPython's own names (``In``, ``Out``, ``_``, ``_i3``, ``exit``, ...) or a
  name bound to a module (``np`` after ``import numpy as np``).
* ``%relu_check MODEL [--domain SPEC] [--samples N] [--seed S] [--time-limit S] [--method M] ...`` —
  a line magic doing what ``python -m relu_frames_nb check`` does, on a layer or network in the
  namespace (:func:`relu_frames_nb.check`), with the command line's options that apply to a model
  in memory (one schema, :mod:`relu_frames_nb.options`); it returns the
  :class:`~relu_frames_nb.Verdict`, which the notebook shows.

Example session::

    %load_ext relu_frames_nb

    %%frame T
    0 1
    -0.866 -0.5
    0.866 -0.5

    L = rf.ReLULayer(T, -0.4)
    %relu_check L --domain ball:1
"""

from __future__ import annotations

import builtins
import html
import keyword
import re
import shlex
import types
from math import comb
from typing import Any

import numpy as np

from .checking import check
from .domains import Domain, parse_domain
from .errors import InputError, ReluFramesError
from .frames import Frame
from .layer import ReLULayer
from .loading import load_near
from .network import Network
from .options import OptionError, magic_parser
from .paper.bias.estimate import BiasEstimate
from .paper.bias.polytope import is_omnidirectional
from .verdict import Verdict
from .viz.parsing import parse_matrix

__all__ = [
    "load_ipython_extension",
    "unload_ipython_extension",
    "frame_html",
    "layer_html",
    "domain_html",
    "estimate_html",
    "report_html",
    "parse_relu_check_args",
    "SPARK_LIMIT",
]

#: compute the exact spark in a repr only when C(m, n) is at most this
SPARK_LIMIT = 20_000
#: show at most this many rows of vectors / values in a repr
MAX_ROWS = 12

#: names IPython keeps in the user namespace for itself (history, output cache, helpers);
#: ``%%frame`` refuses them, as well as ``_iN`` / ``_N`` (see :data:`_HISTORY_NAME`)
_IPYTHON_NAMES = frozenset(
    {"In", "Out", "_ih", "_oh", "_dh", "_", "__", "___", "_i", "_ii", "_iii", "exit", "quit", "get_ipython"}
)
#: the numbered input (``_i7``) and output (``_7``) history entries
_HISTORY_NAME = re.compile(r"_i?[0-9]+")

_CSS = ("<style>.rfnb-repr{border-collapse:collapse;font-size:90%;margin:2px 0}"
        ".rfnb-repr th,.rfnb-repr td{padding:1px 10px 1px 0;text-align:left;vertical-align:top}"
        ".rfnb-repr th{font-weight:600;color:#555}"
        ".rfnb-num{text-align:right!important;font-family:monospace}</style>")  # fmt: skip


def _num(v: float, digits: int = 6) -> str:
    v = float(v)
    if np.isnan(v):
        return "—"
    if np.isinf(v):
        return "any (+∞)" if v > 0 else "−∞"
    return f"{v:.{digits}g}"


def _table(title: str, rows: list[tuple[str, str]], extra: str = "") -> str:
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return (f"{_CSS}<div class='rfnb-repr-box'><b>{html.escape(title)}</b>"
            f"<table class='rfnb-repr'>{body}</table>{extra}</div>")  # fmt: skip


def _matrix_html(A: np.ndarray, labels: list[str], head: list[str]) -> str:
    rows = A.shape[0]
    show = list(range(rows)) if rows <= MAX_ROWS else [*range(MAX_ROWS - 2), rows - 1]
    out = ["<table class='rfnb-repr'><tr><th></th>" + "".join(f"<th class='rfnb-num'>{html.escape(h)}</th>" for h in head)
           + "</tr>"]  # fmt: skip
    for k, i in enumerate(show):
        if rows > MAX_ROWS and k == MAX_ROWS - 2:
            out.append(f"<tr><td>⋮</td><td colspan='{len(head)}'>({rows - MAX_ROWS + 1} more)</td></tr>")
        out.append(f"<tr><th>{html.escape(labels[i])}</th>" + "".join(f"<td class='rfnb-num'>{_num(c, 4)}</td>" for c in A[i])
                   + "</tr>")  # fmt: skip
    return "".join(out) + "</table>"


def _spark_text(F: Frame) -> str:
    if comb(F.m, F.n) > SPARK_LIMIT:
        return f"not computed (C({F.m}, {F.n}) subsets)"
    try:
        s = F.spark(max_subsets=SPARK_LIMIT)
    except ReluFramesError as exc:  # pragma: no cover - guarded by the limit above
        return f"not computed ({exc})"
    return f"{s} (full spark)" if s == F.n + 1 else str(s)


def _omni_text(F: Frame) -> str:
    try:
        return "yes" if is_omnidirectional(F) else "no"
    except (ReluFramesError, ValueError, RuntimeError) as exc:
        return f"unknown ({html.escape(str(exc)[:80])})"


# ---------------------------------------------------------------------------------
# HTML summaries (pure functions: usable without IPython)
# ---------------------------------------------------------------------------------


def frame_html(F: Frame) -> str:
    """An HTML summary of a frame: size, redundancy, frame bounds, normalization, spark, omnidirectionality.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> "redundancy" in frame_html(rf.zoo.mercedes_benz())
    True
    """
    if not isinstance(F, Frame):
        raise InputError(f"F must be a Frame; got {type(F).__name__}.")
    A, B = F.bounds
    rows = [
        ("vectors m", str(F.m)),
        ("dimension n", str(F.n)),
        ("redundancy m/n", _num(F.redundancy, 4)),
        ("frame bounds A, B", f"{_num(A)}, {_num(B)}" + (" (tight)" if F.is_tight() else "")),
        ("normalized", "yes" if F.is_normalized() else f"no (norms in [{_num(F.norms.min(), 4)}, {_num(F.norms.max(), 4)}])"),
        ("spark", _spark_text(F)),
        ("omnidirectional", _omni_text(F)),
    ]
    head = [f"x{k + 1}" for k in range(F.n)] if F.n <= 8 else []
    vectors = _matrix_html(np.asarray(F.vectors), [f"φ{i + 1}" for i in range(F.m)], head) if F.n <= 8 else ""
    return _table("Frame", rows, vectors)


def layer_html(L: ReLULayer) -> str:
    """An HTML summary of a ReLU layer: the frame and the bias (paper and PyTorch conventions)."""
    if not isinstance(L, ReLULayer):
        raise InputError(f"L must be a ReLULayer; got {type(L).__name__}.")
    a = np.asarray(L.alpha)
    bias = f"{_num(a[0])} (constant)" if np.all(a == a[0]) else f"in [{_num(a.min())}, {_num(a.max())}]"
    F = L.frame
    A, B = F.bounds
    rows = [
        ("map", "x ↦ ReLU(Φx − α)"),
        ("input dimension n", str(L.n)),
        ("outputs m", str(L.m)),
        ("bias α (paper)", bias),
        ("bias b = −α (PyTorch)", "constant" if np.all(a == a[0]) else "vector"),
        ("frame bounds A, B", f"{_num(A)}, {_num(B)}"),
        ("normalized frame", "yes" if F.is_normalized() else "no"),
        ("omnidirectional", _omni_text(F)),
    ]
    extra = ""
    if L.n <= 8:
        extra = _matrix_html(np.column_stack([F.vectors, a]), [f"φ{i + 1}" for i in range(L.m)],
                             [f"x{k + 1}" for k in range(L.n)] + ["α"])  # fmt: skip
    return _table("ReLULayer", rows, extra)


def domain_html(K: Domain) -> str:
    """An HTML summary of a domain: kind, dimension, radii, convexity."""
    if not isinstance(K, Domain):
        raise InputError(f"K must be a Domain; got {type(K).__name__}.")
    rows = [("domain", html.escape(K.describe())), ("dimension n", str(K.n))]
    if K.finite:
        rows.append(("points N", str(K.points.shape[0])))
    if K.inner_radius > 0:
        rows.append(("inner radius", _num(K.inner_radius)))
    rows += [
        ("sup-norm radius", _num(K.radius)),
        ("open or convex", "yes" if K.open_or_convex else "no"),
        ("open or strictly convex", "yes" if K.open_or_strictly_convex else "no"),
    ]
    return _table(type(K).__name__, rows)


def estimate_html(E: BiasEstimate) -> str:
    """An HTML summary of a bias estimate: method, guarantee, domain, and the values."""
    if not isinstance(E, BiasEstimate):
        raise InputError(f"E must be a BiasEstimate; got {type(E).__name__}.")
    v = np.asarray(E.values)
    fin = v[np.isfinite(v)]
    rows = [
        ("method", html.escape(str(E.method))),
        ("guarantee", html.escape(str(E.guarantee))),
        ("domain", html.escape(repr(E.domain))),
        ("elements m", str(E.m)),
        ("values", f"in [{_num(fin.min())}, {_num(fin.max())}]" if fin.size else "all free"),
        ("irrelevant (any bias)", str(int(E.irrelevant.sum()))),
    ]
    if E.n_samples:
        rows.append(("samples", f"{int(E.n_samples):,}"))
    if E.correction_kind != "none":
        rows.append(("correction", f"{_num(E.correction)} ({html.escape(E.correction_kind)})"))
    cols, head = [v], ["α"]
    if E.facets is not None:
        cols.append(np.asarray(E.facets, dtype=float))
        head.append("facet")
    return _table("BiasEstimate", rows, _matrix_html(np.column_stack(cols), [f"φ{i + 1}" for i in range(E.m)], head))


def report_html(v: Verdict) -> str:
    """An HTML summary of a :class:`~relu_frames_nb.Verdict` (its own ``_repr_html_``)."""
    return v._repr_html_()


# ---------------------------------------------------------------------------------
# Magics
# ---------------------------------------------------------------------------------


def _near_point(value: Any, user_ns: dict, n: int) -> Any:
    """``--near``: the name of a vector in the namespace, or a ``.npy`` file (as on the command line); None when absent."""
    if value is None:
        return None
    if value in user_ns:
        return user_ns[value]  # validated by check(near=...)
    return load_near(value, n)


def parse_relu_check_args(line: str) -> dict[str, Any]:
    """Parse ``MODEL [--domain SPEC] [--samples N] [--seed S] [--max-facets N] [--method M] [--time-limit S]
    [--workers N] [--memory-limit GB] [--near NAME]`` with the command line's own option schema (:mod:`relu_frames_nb.options`): the
    values ``python -m relu_frames_nb check`` refuses are refused here, with the same words
    (``ValueError`` with usage).

    Examples
    --------
    >>> parse_relu_check_args("L --domain shell:0.5,1 --samples 1000")
    {'name': 'L', 'domain': 'shell:0.5,1', 'samples': 1000, 'seed': 0, 'max-facets': 200000, 'method': 'auto', 'time-limit': 30.0, 'workers': 1, 'memory-limit': 2.0, 'near': None}
    """  # noqa: E501
    parser = magic_parser()
    usage = parser.format_usage().strip()
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise OptionError(f"{exc}\n{usage}", usage) from None
    try:
        ns = parser.parse_args(tokens)
    except OptionError as exc:
        raise OptionError(f"{exc}\n{usage}", usage) from None
    if ns.name is None:
        raise OptionError(f"name the layer to check\n{usage}", usage)
    return {
        "name": ns.name,
        "domain": ns.domain,
        "samples": ns.samples,
        "seed": ns.seed,
        "max-facets": ns.max_facets,
        "method": ns.method,
        "time-limit": ns.time_limit,
        "workers": ns.workers,
        "memory-limit": ns.memory_limit,
        "near": ns.near,
    }


def _as_model(obj: Any, name: str) -> ReLULayer | Network:
    if isinstance(obj, (ReLULayer, Network)):
        return obj
    if hasattr(obj, "weight") and hasattr(obj, "bias"):  # a torch.nn.Linear, without importing torch (PyTorch's b)
        b = obj.bias
        return ReLULayer.from_weights(obj.weight, None if b is None else b)
    raise ValueError(
        f"{name} must be a ReLULayer or a Network (or a torch.nn.Linear); got {type(obj).__name__}. "
        "Build one with rf.ReLULayer(frame, alpha) or rf.ReLULayer.from_weights(W, b)."
    )


def _make_magics(ip):
    from IPython.core.error import UsageError
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
    from IPython.display import HTML, display

    @magics_class
    class ReluFramesMagics(Magics):
        """``%%frame NAME`` and ``%relu_check LAYER``."""

        @cell_magic
        def frame(self, line: str, cell: str):
            """Read a matrix (one frame vector per line) into a Frame bound to NAME."""
            name = line.strip()
            hidden = getattr(self.shell, "user_ns_hidden", {})  # what this IPython put there at start-up
            if name in _IPYTHON_NAMES or _HISTORY_NAME.fullmatch(name) or (name in hidden and not hasattr(builtins, name)):
                raise UsageError(
                    "usage: %%frame NAME must not be one of IPython's own names (In, Out, _, __, ___, _i, _ii, _iii, "
                    f"_iN, _N, _ih, _oh, _dh, exit, quit, get_ipython); got {name!r}."
                )
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__") or hasattr(builtins, name):
                raise UsageError(
                    f"usage: %%frame NAME (a Python identifier that is not a keyword, a builtin or a dunder name); got {name!r}."
                )
            bound = self.shell.user_ns.get(name)
            if isinstance(bound, types.ModuleType):
                raise UsageError(
                    f"usage: %%frame NAME must not rebind a module; got {name!r} (the module {bound.__name__}). "
                    "Choose another name."
                )
            try:
                F = Frame(parse_matrix(cell))
            except ValueError as exc:
                raise UsageError(f"%%frame {name}: {exc}") from None
            self.shell.user_ns[name] = F
            display(HTML(frame_html(F)))

        @line_magic
        def relu_check(self, line: str):
            """Check injectivity of a layer or network on a domain, as ``python -m relu_frames_nb check`` does."""
            try:
                args = parse_relu_check_args(line)
                if args["name"] not in self.shell.user_ns:
                    raise ValueError(f"no variable named {args['name']!r} in the namespace.")
                model = _as_model(self.shell.user_ns[args["name"]], args["name"])
                domain = parse_domain(args["domain"], model.n, name="--domain")
                near = _near_point(args["near"], self.shell.user_ns, model.n)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            return check(model, domain, method=args["method"], time_limit=args["time-limit"], n_samples=args["samples"],
                         seed=args["seed"], max_facets=args["max-facets"], workers=args["workers"],
                         memory_limit=args["memory-limit"] * 1024**3, near=near)  # fmt: skip

    return ReluFramesMagics(ip)


_REPRS = (
    (Frame, frame_html),
    (ReLULayer, layer_html),
    (Domain, domain_html),
    (BiasEstimate, estimate_html),
)


def load_ipython_extension(ipython: Any) -> None:
    """Register the HTML reprs and the ``%%frame`` / ``%relu_check`` magics with an IPython shell."""
    fmt = ipython.display_formatter.formatters["text/html"]
    for cls, func in _REPRS:
        fmt.for_type(cls, func)
    ipython.register_magics(_make_magics(ipython))


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the HTML reprs and the magics."""
    fmt = ipython.display_formatter.formatters["text/html"]
    for cls, _ in _REPRS:
        try:
            fmt.pop(cls)
        except KeyError:
            pass
    magics = ipython.magics_manager.magics
    magics["cell"].pop("frame", None)
    magics["line"].pop("relu_check", None)
