r"""Interactive explorers (ipywidgets compound widgets) built on the core, ``plane`` and ``space``.

* :class:`FrameExplorer2D` — a frame for :math:`\mathbb{R}^2` (preset, random or typed),
  a bias (one offset or per element), a domain; a live picture with overlays and a
  verdict line: injective on ``K`` or not, by which method, with the margin, and the
  colliding pair drawn when there is one.
* :class:`PolytopeExplorer3D` — the pythreejs polytope viewer with controls for frame,
  domain, bias method (polytope or sampling), a table of per-element biases and vertex
  selection.
* :class:`ReconstructionPlayground` — pick ``x``, see :math:`z = C_\alpha x` and its active
  set, reconstruct with the ReLU-dual and with the ReLU frame algorithm (iterations,
  error curve).

Each class is an :class:`ipywidgets.VBox` built in ``__init__``; observers are short,
call the core and update data in place. Every observer runs through a guard: an
exception is shown in the widget's error area (``.errors``, CSS class ``rfnb-errors``)
and kept in ``.error_text``, never lost. Plots are PNGs written into an ``Output`` widget
(CSS class ``rfnb-plot``), so they render in JupyterLab, Notebook 7 and Voila alike and
can be tested without a browser through ``.last_figure`` and ``.last_png``.
"""

from __future__ import annotations

import base64
import functools
import html
import traceback
from typing import Any, Callable

import ipywidgets as W
import numpy as np

from .._validation import as_count
from ..domains import Ball, Domain, PositiveBall, RealSpace, Shell, Sphere
from ..errors import InputError, ReluFramesError
from ..frames import Frame, as_frame
from ..layer import ReLULayer
from ..verdict import Verdict, _domain_name, _fmt, _vec, decide
from . import palette
from .parsing import parse_matrix
from .space import figure_png, with_static_png

__all__ = [
    "Verdict",
    "decide",
    "FrameExplorer2D",
    "PolytopeExplorer3D",
    "ReconstructionPlayground",
    "bias_table_html",
    "presets",
]


# ---------------------------------------------------------------------------------
# Shared machinery
# ---------------------------------------------------------------------------------


def presets(n: int) -> list[str]:
    r"""Names of the zoo frames for :math:`\mathbb{R}^n` (see :func:`relu_frames_nb.zoo.names`).

    Examples
    --------
    >>> "mercedes-benz" in presets(2), "icosahedron" in presets(3)
    (True, True)
    """
    from .. import zoo

    n = as_count(n, "n")
    return [name for name in zoo.names() if zoo.get(name).n == n]


def _guard(method: Callable) -> Callable:
    """Run an observer; show any exception in the widget's error area instead of losing it."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every error must reach the user
            self._report_error(exc)
            return None

    return wrapper


class _ErrorArea:
    """Mixin: an ``Output`` widget that lists errors, plus ``error_text`` for tests."""

    errors: W.Output
    error_text: str
    error_count: int

    def _init_errors(self) -> None:
        self.errors = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors.add_class("rfnb-errors")
        self.error_text = ""
        self.error_count = 0

    def _report_error(self, exc: BaseException) -> None:
        user_error = isinstance(exc, (ValueError, ReluFramesError))
        msg = f"{type(exc).__name__}: {exc}"
        detail = msg if user_error else "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.error_text = msg
        self.error_count += 1
        self.errors.outputs = (
            {"output_type": "display_data", "metadata": {},
             "data": {"text/html": f'<div style="color:{palette.BAD}"><b>Error</b>: {html.escape(msg)}</div>',
                      "text/plain": msg}},
            *(() if user_error else ({"output_type": "stream", "name": "stderr", "text": detail},)),
        )  # fmt: skip

    def clear_errors(self) -> None:
        """Empty the error area."""
        self.error_text = ""
        self.errors.outputs = ()


class _StaticFallback:
    """Carry a PNG of the current picture in the widget's display bundle.

    Front-ends with a widget manager (JupyterLab, Notebook 7, Voila) prefer the widget view; a
    reader without a kernel (GitHub, nbviewer without widget state, a PDF export) gets the PNG
    instead of an empty cell. Set ``static_fallback = False`` on an instance to leave it out.
    """

    static_fallback = True

    def _static_png(self) -> bytes | None:
        return getattr(self, "last_png", None)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        return with_static_png(bundle, self._static_png) if self.static_fallback else bundle


def _png(fig: Any, dpi: int) -> bytes:
    return figure_png(fig, dpi)


def _show_png(out: W.Output, png: bytes, text: str = "figure") -> None:
    out.outputs = (
        {"output_type": "display_data", "metadata": {},
         "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text}},
    )  # fmt: skip


def _element_options(m: int) -> list[tuple[str, int]]:
    return [(f"φ{i + 1}", i) for i in range(m)]


_DOMAINS = ("ball", "sphere", "shell", "positive ball", "R^n")


def _make_domain(kind: str, n: int, r: float, s: float) -> Domain:
    if kind == "ball":
        return Ball(n, r)
    if kind == "sphere":
        return Sphere(n, r)
    if kind == "shell":
        if not 0 <= s < r:
            raise InputError(f"the shell needs 0 <= s < r; got s={s:g}, r={r:g}. Lower the inner radius s.")
        return Shell(n, s, r)
    if kind == "positive ball":
        return PositiveBall(n, r)
    if kind == "R^n":
        return RealSpace(n)
    raise InputError(f"domain must be one of {_DOMAINS}; got {kind!r}.")


# ---------------------------------------------------------------------------------
# The verdict of the 2-D explorer
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# 2-D frame explorer
# ---------------------------------------------------------------------------------

_OVERLAY_LABELS = {
    "count": "active count",
    "maximal": "maximal domain K*",
    "halfspaces": "half-spaces Ω",
    "partition": "K_i (most correlated)",
    "vectors": "frame vectors",
    "domain": "domain",
    "minima": "polytope minima",
    "collision": "collision",
}


class FrameExplorer2D(_StaticFallback, _ErrorArea, W.VBox):
    r"""Explore the injectivity of a ReLU layer on a 2-D domain.

    Parameters
    ----------
    frame : str, Frame or array_like, shape (m, 2), default "mercedes-benz"
        A preset name (:func:`presets`), a frame, or a matrix (rows are vectors).
    offset : float, default -0.6
        The initial constant bias.
    domain : {"ball", "sphere", "shell", "positive ball", "R^n"}, default "ball"
        The domain kind; ``radius`` and ``inner`` set its radii.
    radius, inner : float
        Outer and inner radius (``inner`` only for the shell).
    overlays : iterable of str, optional
        Initially visible overlays (see :data:`relu_frames_nb.viz.plane.OVERLAYS`).
    resolution : int, default 181
        Grid points per axis of the picture (and of the rectifying test).
    dpi : int, default 80
        Resolution of the rendered PNG.

    Attributes
    ----------
    frame : Frame
    alpha : ndarray, shape (m,)
    domain : Domain
    layer : ReLULayer
    verdict : Verdict
    verdict_text : str
        The verdict as plain text (``verdict_html`` is what is shown).
    view : relu_frames_nb.viz.plane.PlaneView
    last_figure : matplotlib.figure.Figure
    last_png : bytes
    message_text : str
        The last message about the typed matrix (empty when it parsed).

    Examples
    --------
    >>> ex = FrameExplorer2D(offset=-0.6, resolution=41, dpi=30)
    >>> ex.verdict.status
    'injective'
    >>> ex.offset.value = -0.45
    >>> ex.verdict.status
    'not injective'
    """

    def __init__(self, frame: Any = "mercedes-benz", *, offset: float = -0.6, domain: str = "ball", radius: float = 1.0,
                 inner: float = 0.5, overlays: Any = None, resolution: int = 181, dpi: int = 80) -> None:  # fmt: skip
        from matplotlib.figure import Figure

        super().__init__()
        self._init_errors()
        self.resolution = as_count(resolution, "resolution", minimum=16)
        self.dpi = as_count(dpi, "dpi", minimum=20)
        self.message_text = ""
        self.verdict: Verdict | None = None
        self.verdict_text = ""
        self.n_renders = 0
        self._pbe: Any = None
        self._pbe_key: Any = None
        names = presets(2)
        start_name = frame if isinstance(frame, str) else None
        if start_name is not None and start_name not in names:
            raise InputError(f"frame must be one of {names}, a Frame or a matrix; got {frame!r}.")
        # ---- frame controls
        self.source = W.ToggleButtons(options=["preset", "random", "matrix"], value="preset" if start_name or frame is None
                                      else "matrix", description="frame", style={"button_width": "84px"})  # fmt: skip
        self.preset = W.Dropdown(options=names, value=start_name or "mercedes-benz", description="preset")
        self.m_random = W.IntSlider(value=5, min=3, max=50, description="m", continuous_update=False)
        self.seed = W.IntText(value=0, description="seed", layout=W.Layout(width="160px"))
        self.matrix = W.Textarea(value="0 1\n-0.866 -0.5\n0.866 -0.5", description="matrix",
                                 placeholder="one frame vector per line, e.g.\n1 0\n0 1\n-1 -1",
                                 layout=W.Layout(width="260px", height="90px"))  # fmt: skip
        self.apply_matrix = W.Button(description="use matrix", button_style="primary", layout=W.Layout(width="110px"))
        self.message = W.HTML()
        self.message.add_class("rfnb-message")
        # ---- bias controls
        self.bias_mode = W.ToggleButtons(options=["offset", "per element"], value="offset", description="bias",
                                         style={"button_width": "110px"})  # fmt: skip
        self.offset = W.FloatSlider(value=float(offset), min=-1.5, max=1.0, step=0.05, description="α (all)",
                                    continuous_update=False, readout_format=".2f")  # fmt: skip
        self.element = W.Dropdown(options=[("φ1", 0)], value=0, description="element", layout=W.Layout(width="180px"))
        self.element_bias = W.FloatSlider(value=float(offset), min=-1.5, max=1.0, step=0.05, description="α_i",
                                          continuous_update=False, readout_format=".2f")  # fmt: skip
        # ---- domain controls
        self.domain_kind = W.Dropdown(options=list(_DOMAINS), value=domain, description="domain",
                                      layout=W.Layout(width="220px"))  # fmt: skip
        self.radius = W.FloatSlider(value=float(radius), min=0.1, max=2.0, step=0.05, description="r", continuous_update=False)
        self.inner = W.FloatSlider(value=float(inner), min=0.0, max=1.9, step=0.05, description="s (inner)",
                                   continuous_update=False)  # fmt: skip
        # ---- overlays
        from .plane import OVERLAYS

        shown = set(("maximal", "halfspaces", "domain", "vectors", "collision") if overlays is None else overlays)
        self.overlay_toggles = {name: W.Checkbox(value=name in shown, description=_OVERLAY_LABELS[name], indent=False,
                                                 layout=W.Layout(width="auto", margin="0 12px 0 0"))
                                for name in OVERLAYS}  # fmt: skip
        # ---- outputs
        self.verdict_html = W.HTML()
        self.verdict_html.add_class("rfnb-verdict")
        self.plot = W.Output()
        self.plot.add_class("rfnb-plot")
        self.last_figure = Figure(figsize=(5.2, 5.2))
        self._ax = self.last_figure.add_axes((0.09, 0.06, 0.88, 0.87))
        self.last_png = b""
        self.view = None

        self._frame_box = W.VBox()
        self.children = [
            W.HBox([self.source]),
            self._frame_box,
            self.message,
            W.HBox([self.bias_mode, self.offset]),
            W.HBox([self.element, self.element_bias]),
            W.HBox([self.domain_kind, self.radius, self.inner]),
            W.HBox(list(self.overlay_toggles.values()), layout=W.Layout(flex_flow="row wrap")),
            self.verdict_html,
            self.plot,
            self.errors,
        ]
        self.add_class("rfnb-frame-explorer-2d")

        self.frame = as_frame(frame) if start_name is None and frame is not None else None
        if self.frame is not None:
            self.matrix.value = "\n".join(" ".join(f"{c:g}" for c in row) for row in self.frame.vectors)
        self._set_source_box()
        self._load_frame(initial=True)
        # ---- observers
        self.source.observe(self._on_source, names="value")
        self.preset.observe(self._on_frame_control, names="value")
        self.m_random.observe(self._on_frame_control, names="value")
        self.seed.observe(self._on_frame_control, names="value")
        self.apply_matrix.on_click(self._on_apply_matrix)
        self.bias_mode.observe(self._on_bias_mode, names="value")
        self.offset.observe(self._on_offset, names="value")
        self.element.observe(self._on_element, names="value")
        self.element_bias.observe(self._on_element_bias, names="value")
        for wdg in (self.domain_kind, self.radius, self.inner):
            wdg.observe(self._on_domain, names="value")
        for tog in self.overlay_toggles.values():
            tog.observe(self._on_overlays, names="value")

    # ------------------------------------------------------------------ state
    @property
    def layer(self) -> ReLULayer:
        """The current layer."""
        return ReLULayer(self.frame, self.alpha)

    @property
    def overlays(self) -> set[str]:
        """Names of the visible overlays."""
        return {name for name, t in self.overlay_toggles.items() if t.value}

    # ------------------------------------------------------------------ building
    def _set_source_box(self) -> None:
        src = self.source.value
        if src == "preset":
            self._frame_box.children = [self.preset]
        elif src == "random":
            self._frame_box.children = [W.HBox([self.m_random, self.seed])]
        else:
            self._frame_box.children = [W.HBox([self.matrix, self.apply_matrix])]

    def _frame_from_controls(self) -> Frame | None:
        from .. import zoo

        src = self.source.value
        if src == "preset":
            return zoo.get(self.preset.value)
        if src == "random":
            return zoo.random_sphere(int(self.m_random.value), 2, seed=int(self.seed.value))
        try:
            F = Frame(parse_matrix(self.matrix.value))
        except ValueError as exc:
            self.message_text = str(exc)
            self.message.value = f'<span style="color:{palette.BAD}">⚠ {html.escape(str(exc))}</span>'
            return None
        if F.n != 2:
            self.message_text = f"the matrix must have 2 columns (vectors in R^2); got {F.n}."
            self.message.value = f'<span style="color:{palette.BAD}">⚠ {html.escape(self.message_text)}</span>'
            return None
        return F

    def _load_frame(self, initial: bool = False) -> None:
        F = self.frame if initial and self.frame is not None else self._frame_from_controls()
        if F is None:
            return
        self.message_text = ""
        self.message.value = ""
        self.frame = F
        self.alpha = np.full(F.m, float(self.offset.value))
        with self.element.hold_trait_notifications():
            self.element.options = _element_options(F.m)
            self.element.value = 0
        self._rebuild_view()

    def _domain(self) -> Domain:
        return _make_domain(self.domain_kind.value, 2, float(self.radius.value), float(self.inner.value))

    def _rebuild_view(self) -> None:
        from .plane import PlaneView

        self.domain = self._domain()
        self.inner.layout.display = "" if self.domain_kind.value == "shell" else "none"
        self.radius.layout.display = "none" if self.domain_kind.value == "R^n" else ""
        extent = 2.0 if isinstance(self.domain, RealSpace) else 1.32 * self.domain.radius
        self.view = PlaneView(self._ax, self.layer, self.domain, overlays=self.overlays, resolution=self.resolution,
                              element=int(self.element.value), extent=extent,
                              shade_element=self.bias_mode.value == "per element")  # fmt: skip
        # no tick labels: text layout is the costliest part of a render; the title gives the scale
        self._ax.set_xticks([])
        self._ax.set_yticks([])
        self._pbe_key = None
        self._refresh()

    def _polytope(self):
        key = (id(self.frame), repr(self.domain))
        if self._pbe_key != key:
            self._pbe_key = key
            self._pbe = None
            if self.domain.bounded:
                from ..bias.polytope import polytope_bias

                try:
                    self._pbe = polytope_bias(self.frame, self.domain)
                except ReluFramesError as exc:
                    self._pbe = exc
        return self._pbe

    def _refresh(self) -> None:
        """Bias changed: update the picture in place, decide, render."""
        from .plane import boundary_points

        self.view.set_bias(self.alpha)
        L = self.layer
        pts = self.view.X[self.view.inside] if not isinstance(self.domain, Sphere) else np.zeros((0, 2))
        bnd = boundary_points(L, self.domain)
        if isinstance(self.domain, RealSpace):
            far = 25.0 * (1.0 + float(np.max(np.abs(self.alpha)))) * self.view.X[:: max(1, len(self.view.X) // 2000)]
            bnd = np.vstack([bnd, far])
        pbe = self._polytope()
        self.verdict = decide(L, self.domain, points=np.vstack([pts, bnd]), polytope=pbe)
        self.verdict_text = self.verdict.text
        color = {"injective": palette.GOOD, "not injective": palette.BAD}.get(self.verdict.status, palette.INK)
        self.verdict_html.value = (f'<div style="border-left:4px solid {color};padding:2px 8px">'
                                   f"<b>{html.escape(self.verdict.status)}</b>{html.escape(self.verdict.text[len(self.verdict.status):])}"
                                   "</div>")  # fmt: skip
        self.view.set_collision(self.verdict.collision)
        est = pbe if pbe is not None and not isinstance(pbe, Exception) else None
        self.view.set_minima(est if "minima" in self.overlays else None)
        a = self.alpha
        title = f"α = {a[0]:.2f} (constant)" if np.all(a == a[0]) else f"α ∈ [{a.min():.2f}, {a.max():.2f}]"
        self._ax.set_title(f"{self.frame.m} vectors, {title}; {_domain_name(self.domain)}", fontsize=10)
        self._render()

    def _render(self) -> None:
        self.last_png = _png(self.last_figure, self.dpi)
        self.n_renders += 1
        _show_png(self.plot, self.last_png, self.verdict_text)

    # ------------------------------------------------------------------ observers
    @_guard
    def _on_source(self, change) -> None:
        self._set_source_box()
        if change["new"] != "matrix":
            self._load_frame()

    @_guard
    def _on_frame_control(self, change) -> None:
        self._load_frame()

    @_guard
    def _on_apply_matrix(self, button=None) -> None:
        self._load_frame()

    def set_matrix(self, text: str) -> None:
        """Type a matrix and apply it (as the "use matrix" button does)."""
        self.matrix.value = text
        if self.source.value != "matrix":
            self.source.value = "matrix"
        self._on_apply_matrix()

    @_guard
    def _on_bias_mode(self, change) -> None:
        self.view.set_element(int(self.element.value), shade=change["new"] == "per element")
        if change["new"] == "offset":
            self.alpha = np.full(self.frame.m, float(self.offset.value))
        self._refresh()

    @_guard
    def _on_offset(self, change) -> None:
        self.alpha = np.full(self.frame.m, float(change["new"]))
        self._set_quietly(self.element_bias, self._on_element_bias, float(change["new"]))
        self._refresh()

    @staticmethod
    def _set_quietly(widget: W.Widget, observer: Callable, value: Any) -> None:
        widget.unobserve(observer, names="value")
        try:
            widget.value = value
        finally:
            widget.observe(observer, names="value")

    @_guard
    def _on_element(self, change) -> None:
        i = int(change["new"]) if change["new"] is not None else 0
        self.view.set_element(i)
        self._set_quietly(self.element_bias, self._on_element_bias, float(self.alpha[i]))
        self._render()

    @_guard
    def _on_element_bias(self, change) -> None:
        if self.bias_mode.value != "per element":
            self._set_quietly(self.bias_mode, self._on_bias_mode, "per element")
            self.view.set_element(int(self.element.value), shade=True)
        a = np.array(self.alpha)
        a[int(self.element.value)] = float(change["new"])
        self.alpha = a
        self._refresh()

    @_guard
    def _on_domain(self, change) -> None:
        self._rebuild_view()

    @_guard
    def _on_overlays(self, change) -> None:
        self.view.set_overlays(self.overlays)
        if "minima" in self.overlays:
            pbe = self._polytope()
            self.view.set_minima(pbe if pbe is not None and not isinstance(pbe, Exception) else None)
        self._render()


# ---------------------------------------------------------------------------------
# 3-D polytope explorer
# ---------------------------------------------------------------------------------

_LAYER_LABELS = {
    "sphere": "sphere", "caps": "spherical caps", "correlated": "most correlated bases", "facets": "facets",
    "edges": "edges", "vertices": "vertices", "labels": "labels", "bias_plane": "bias plane", "star": "vertex star",
}  # fmt: skip


def bias_table_html(frame: Frame, estimates: dict[str, Any], *, selected: int | None = None, max_height: str = "22em") -> str:
    """An HTML table of per-element biases (one column per estimate), the selected row highlighted.

    Parameters
    ----------
    frame : Frame
        The frame (for the norms column).
    estimates : dict of str to BiasEstimate
        Column title to estimate (``None`` values are skipped).
    selected : int, optional
        Row to highlight.
    max_height : str
        CSS height after which the table scrolls.

    Returns
    -------
    str
    """
    cols = {k: v for k, v in estimates.items() if v is not None}
    head = "".join(f"<th style='padding:2px 8px'>{html.escape(k)}</th>" for k in cols)
    rows = []
    for i in range(frame.m):
        style = f" style='background:{palette.lighten(palette.HIGHLIGHT, 0.6)}'" if selected == i else ""
        cells = "".join(f"<td style='text-align:right;padding:2px 8px'>{_fmt(float(est.values[i]))}</td>"
                        for est in cols.values())  # fmt: skip
        facet = ""
        pol = cols.get("polytope")
        if pol is not None and pol.facets is not None:
            facet = f"<td style='text-align:right;padding:2px 8px'>{int(pol.facets[i]) if pol.facets[i] >= 0 else '—'}</td>"
        rows.append(f"<tr{style}><td style='padding:2px 8px'>φ{i + 1}</td>{cells}{facet}</tr>")
    facet_head = "<th style='padding:2px 8px'>facet</th>" if "polytope" in cols and cols["polytope"].facets is not None else ""
    return (f"<div class='rfnb-bias-table' style='max-height:{max_height};overflow:auto'>"
            f"<table style='border-collapse:collapse;font-size:90%'><thead><tr><th>element</th>{head}{facet_head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div>")  # fmt: skip


class PolytopeExplorer3D(_StaticFallback, _ErrorArea, W.VBox):
    r"""Explore the inscribing polytope of a frame for :math:`\mathbb{R}^3` and its biases.

    Parameters
    ----------
    frame : str, Frame or array_like, shape (m, 3), default "icosahedron"
        A preset name (:func:`presets` with ``n = 3``), ``"random"``, a frame or a matrix.
    domain : {"sphere", "ball", "shell", "positive ball"}, default "sphere"
        Domain of the bias estimates.
    layers : iterable of str, optional
        Initially visible viewer layers.
    m, seed : int
        Size and seed of the random frame.
    width, height : int
        Canvas size.

    Attributes
    ----------
    viewer : relu_frames_nb.viz.space.PolytopeViewer
    estimate : BiasEstimate
        The estimate of the selected method (polytope, or sampling after "compute").
    estimates : dict of str to BiasEstimate
    bias_table_html : str
        The HTML table shown.
    status_text : str
    """

    def _static_png(self) -> bytes | None:
        return self.viewer.snapshot_png()

    def __init__(self, frame: Any = "icosahedron", *, domain: str = "sphere", layers: Any = None, m: int = 20, seed: int = 0,
                 width: int = 460, height: int = 460) -> None:  # fmt: skip
        from .space import LAYERS, PolytopeViewer

        super().__init__()
        self._init_errors()
        names = presets(3)
        self.frame_choice = W.Dropdown(options=[*names, "random"], description="frame", layout=W.Layout(width="240px"))
        given = None
        if isinstance(frame, str):
            if frame not in (*names, "random"):
                raise InputError(f"frame must be one of {names + ['random']}, a Frame or a matrix; got {frame!r}.")
            self.frame_choice.value = frame
        else:
            given = as_frame(frame)
            self.frame_choice.options = [*names, "random", "given"]
            self.frame_choice.value = "given"
        self._given = given
        self.m_random = W.IntSlider(value=int(m), min=4, max=200, description="m", continuous_update=False)
        self.seed = W.IntText(value=int(seed), description="seed", layout=W.Layout(width="160px"))
        self.domain_kind = W.Dropdown(options=["sphere", "ball", "shell", "positive ball"], value=domain, description="domain",
                                      layout=W.Layout(width="220px"))  # fmt: skip
        self.radius = W.FloatSlider(value=1.0, min=0.1, max=2.0, step=0.05, description="r", continuous_update=False)
        self.inner = W.FloatSlider(value=0.5, min=0.0, max=1.9, step=0.05, description="s (inner)", continuous_update=False)
        self.method = W.ToggleButtons(options=["polytope", "sampling"], value="polytope", description="bias",
                                      style={"button_width": "80px"})  # fmt: skip
        self.n_samples = W.IntText(value=20_000, description="samples", layout=W.Layout(width="180px"))
        self.compute = W.Button(description="compute sampling", layout=W.Layout(width="150px"))
        self.vertex = W.Dropdown(options=[("none", None)], value=None, description="vertex", layout=W.Layout(width="180px"))
        self.element = W.Dropdown(options=[("φ1", 0)], value=0, description="plane of", layout=W.Layout(width="180px"))
        shown = set(layers) if layers is not None else {"sphere", "facets", "edges", "vertices", "labels", "star"}
        self.layer_toggles = {name: W.Checkbox(value=name in shown, description=_LAYER_LABELS[name], indent=False,
                                               layout=W.Layout(width="auto", margin="0 12px 0 0"))
                              for name in LAYERS}  # fmt: skip
        self.status = W.HTML()
        self.status.add_class("rfnb-status")
        self.status_text = ""
        self.table = W.HTML()
        self.table.add_class("rfnb-bias-table")
        self.bias_table_html = ""
        self.estimates: dict[str, Any] = {}
        self.estimate = None

        F = self._frame_from_controls()
        self.viewer = PolytopeViewer(F, layers=self.visible_layers, domain=self._domain(), width=width, height=height)
        self._sync_selectors()
        self._random_box = W.HBox([self.m_random, self.seed])
        self.children = [
            W.HBox([self.frame_choice, self._random_box]),
            W.HBox([self.domain_kind, self.radius, self.inner]),
            W.HBox([self.method, self.n_samples, self.compute]),
            W.HBox([self.vertex, self.element]),
            W.HBox(list(self.layer_toggles.values()), layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.viewer.renderer, self.table]),
            self.status,
            self.errors,
        ]
        self.add_class("rfnb-polytope-explorer-3d")
        self._show_controls()
        self._update_estimates()
        self.frame_choice.observe(self._on_frame, names="value")
        self.m_random.observe(self._on_frame, names="value")
        self.seed.observe(self._on_frame, names="value")
        for wdg in (self.domain_kind, self.radius, self.inner):
            wdg.observe(self._on_domain, names="value")
        self.method.observe(self._on_method, names="value")
        self.compute.on_click(self._on_compute)
        self.vertex.observe(self._on_vertex, names="value")
        self.element.observe(self._on_element, names="value")
        for tog in self.layer_toggles.values():
            tog.observe(self._on_layers, names="value")

    # ------------------------------------------------------------------ helpers
    @property
    def visible_layers(self) -> set[str]:
        """Names of the layers switched on."""
        return {name for name, t in self.layer_toggles.items() if t.value}

    @property
    def frame(self) -> Frame:
        """The frame shown."""
        return self.viewer.frame

    def _frame_from_controls(self) -> Frame:
        from .. import zoo

        choice = self.frame_choice.value
        if choice == "given":
            return self._given
        if choice == "random":
            return zoo.random_sphere(int(self.m_random.value), 3, seed=int(self.seed.value))
        return zoo.get(choice)

    def _domain(self) -> Domain:
        return _make_domain(self.domain_kind.value, 3, float(self.radius.value), float(self.inner.value))

    def _show_controls(self) -> None:
        self._random_box.layout.display = "" if self.frame_choice.value == "random" else "none"
        self.inner.layout.display = "" if self.domain_kind.value == "shell" else "none"
        sampling = self.method.value == "sampling"
        self.n_samples.layout.display = "" if sampling else "none"
        self.compute.layout.display = "" if sampling else "none"

    def _sync_selectors(self) -> None:
        m = self.frame.m
        self.vertex.options = [("none", None), *_element_options(m)]
        self.vertex.value = None
        self.element.options = _element_options(m)
        self.element.value = 0

    def _update_estimates(self) -> None:
        self.estimates.pop("sampling", None)
        self.estimates["polytope"] = self.viewer.scene.estimate
        self._choose_estimate()

    def _choose_estimate(self) -> None:
        est = self.estimates.get(self.method.value)
        self.estimate = est if est is not None else self.estimates["polytope"]
        if self.estimate is None:
            self._set_status("this frame is not omnidirectional (0 is not interior to its polytope): no polytope bias; "
                             "choose “sampling” and press “compute sampling”")  # fmt: skip
        elif self.method.value == "sampling" and "sampling" not in self.estimates:
            self._set_status("press “compute sampling” to estimate by sampling (the table shows the polytope bias)")
        else:
            e = self.estimate
            fin = e.values[np.isfinite(e.values)]
            rng = f"[{_fmt(fin.min())}, {_fmt(fin.max())}]" if fin.size else "all free"
            self._set_status(f"{e.method} bias on {_domain_name(self._domain())}: values in {rng}; {e.guarantee}"
                             + (f"; {int(e.n_samples)} samples" if e.n_samples else "")
                             + f"; {self.viewer.scene.P.n_facets} facets")  # fmt: skip
        self._update_table()

    def _set_status(self, text: str) -> None:
        self.status_text = text
        self.status.value = f"<span>{html.escape(text)}</span>"

    def _update_table(self) -> None:
        self.bias_table_html = bias_table_html(self.frame, self.estimates, selected=self.vertex.value)
        self.table.value = self.bias_table_html

    # ------------------------------------------------------------------ observers
    @_guard
    def _on_frame(self, change) -> None:
        self._show_controls()
        self.viewer.set_frame(self._frame_from_controls())
        self.viewer.set_domain(self._domain())
        self._sync_selectors()
        self._update_estimates()

    @_guard
    def _on_domain(self, change) -> None:
        self._show_controls()
        self.viewer.set_domain(self._domain())
        self._update_estimates()

    @_guard
    def _on_method(self, change) -> None:
        self._show_controls()
        self._choose_estimate()

    @_guard
    def _on_compute(self, button=None) -> None:
        from ..bias.correlated import sampling_bias

        self._set_status("sampling …")
        n = as_count(int(self.n_samples.value), "samples")
        self.estimates["sampling"] = sampling_bias(self.frame, self._domain(), n_samples=n, seed=0)
        self._choose_estimate()

    @_guard
    def _on_vertex(self, change) -> None:
        self.viewer.select_vertex(change["new"])
        if change["new"] is not None and "star" not in self.visible_layers:
            self.layer_toggles["star"].value = True
        self._update_table()

    @_guard
    def _on_element(self, change) -> None:
        self.viewer.select_element(int(change["new"]))
        if "bias_plane" not in self.visible_layers:
            self.layer_toggles["bias_plane"].value = True

    @_guard
    def _on_layers(self, change) -> None:
        self.viewer.set_layers(self.visible_layers)


# ---------------------------------------------------------------------------------
# Reconstruction playground
# ---------------------------------------------------------------------------------


class ReconstructionPlayground(_StaticFallback, _ErrorArea, W.VBox):
    r"""Reconstruct an input from the output of a ReLU layer.

    Pick ``x`` (sliders), see :math:`z = C_\alpha x` and the active set :math:`I_x`, the
    ReLU-dual reconstruction (exact when :math:`\Phi_{I_x}` spans) and the ReLU frame
    algorithm with its error curve.

    Parameters
    ----------
    frame : str, Frame or array_like, default "mercedes-benz"
        A preset for :math:`\mathbb{R}^2` or :math:`\mathbb{R}^3`, or a frame.
    offset : float, default -0.5
        The constant bias.
    x : array_like, optional
        The initial input (default ``0.8`` times the first unit vector rotated a little).
    n_iter : int, default 60
        Iterations of the frame algorithm.
    dpi : int, default 80

    Attributes
    ----------
    x, z : ndarray
    active : ndarray of bool, shape (m,)
    x_dual : ndarray or None
        The ReLU-dual reconstruction (``None`` when the active set does not span).
    dual_error : float
    result : FrameAlgorithmResult or None
    errors_curve : ndarray
    summary_text : str
    last_figure, last_png
    """

    def __init__(self, frame: Any = "mercedes-benz", *, offset: float = -0.5, x: Any = None, n_iter: int = 60,
                 dpi: int = 80) -> None:  # fmt: skip
        from matplotlib.figure import Figure

        super().__init__()
        self._init_errors()
        self.dpi = as_count(dpi, "dpi", minimum=20)
        names = presets(2) + presets(3)
        self.frame_choice = W.Dropdown(options=names, description="frame", layout=W.Layout(width="240px"))
        self._given = None
        if isinstance(frame, str):
            if frame not in names:
                raise InputError(f"frame must be one of {names}, or a Frame; got {frame!r}.")
            self.frame_choice.value = frame
        else:
            self._given = as_frame(frame)
            self.frame_choice.options = [*names, "given"]
            self.frame_choice.value = "given"
        self.offset = W.FloatSlider(value=float(offset), min=-1.5, max=1.0, step=0.05, description="α (all)",
                                    continuous_update=False, readout_format=".2f")  # fmt: skip
        self.n_iter = W.IntSlider(value=int(n_iter), min=1, max=500, description="iterations", continuous_update=False)
        self.coords = W.VBox()
        self.report = W.HTML()
        self.report.add_class("rfnb-report")
        self.plot = W.Output()
        self.plot.add_class("rfnb-plot")
        self.last_figure = Figure(figsize=(8.4, 3.6), layout="constrained")
        self.last_png = b""
        self.summary_text = ""
        self.result = None
        self.x_dual = None
        self.dual_error = float("nan")
        self.errors_curve = np.zeros(0)
        self.children = [
            W.HBox([self.frame_choice, self.offset]),
            self.coords,
            self.n_iter,
            self.report,
            self.plot,
            self.errors,
        ]
        self.add_class("rfnb-reconstruction-playground")
        self._x0 = None if x is None else np.asarray(x, dtype=float)
        self._build_coords()
        self._update()
        self.frame_choice.observe(self._on_frame, names="value")
        self.offset.observe(self._on_change, names="value")
        self.n_iter.observe(self._on_change, names="value")

    @property
    def frame(self) -> Frame:
        """The frame."""
        from .. import zoo

        return self._given if self.frame_choice.value == "given" else zoo.get(self.frame_choice.value)

    @property
    def layer(self) -> ReLULayer:
        """The layer."""
        F = self.frame
        return ReLULayer(F, np.full(F.m, float(self.offset.value)))

    def _build_coords(self) -> None:
        n = self.frame.n
        if self._x0 is not None and self._x0.shape == (n,):
            x0 = self._x0
        else:
            t = np.deg2rad(25.0)
            x0 = 0.8 * np.array([np.cos(t), np.sin(t), 0.3][:n])
        self._x0 = None
        self.sliders = [W.FloatSlider(value=float(x0[k]), min=-1.5, max=1.5, step=0.01, description=f"x{k + 1}",
                                      continuous_update=False, readout_format=".2f") for k in range(n)]  # fmt: skip
        for s in self.sliders:
            s.observe(self._on_change, names="value")
        self.coords.children = self.sliders

    @property
    def x(self) -> np.ndarray:
        """The input picked with the sliders."""
        return np.array([s.value for s in self.sliders], dtype=float)

    @_guard
    def _on_frame(self, change) -> None:
        self._build_coords()
        self._update()

    @_guard
    def _on_change(self, change) -> None:
        self._update()

    def _update(self) -> None:
        from ..reconstruction import reconstruct, relu_frame_algorithm

        L, x = self.layer, self.x
        self.z = L(x)
        self.active = self.z > 0
        idx = np.flatnonzero(self.active)
        spans = L.frame.spans(idx)
        lines = [
            f"<b>x</b> = {_vec(x)} &nbsp; <b>z = C<sub>α</sub>x</b> = {_vec(self.z)}",
            "<b>active set</b> I<sub>x</sub> = {" + ", ".join(f"φ{i + 1}" for i in idx) + "}"
            + (" — spans R<sup>n</sup>" if spans else " — does <b>not</b> span R<sup>n</sup>: x cannot be recovered"),
        ]  # fmt: skip
        self.x_dual, self.dual_error = None, float("nan")
        self.result, self.errors_curve = None, np.zeros(0)
        if spans:
            self.x_dual = np.asarray(reconstruct(L, self.z), dtype=float)
            self.dual_error = float(np.linalg.norm(self.x_dual - x))
            lines.append(f"<b>ReLU-dual</b>: x̂ = {_vec(self.x_dual)}, error {self.dual_error:.2e}")
            self.result = relu_frame_algorithm(L, self.z, n_iter=int(self.n_iter.value), x_true=x, history=True)
            self.errors_curve = np.asarray(self.result.errors, dtype=float)
            lines.append(f"<b>frame algorithm</b>: {self.result.n_iter} iterations, error {self.errors_curve[-1]:.2e}, "
                         f"proven rate ≤ {float(self.result.rate_bound):.3f} per step")  # fmt: skip
        else:
            lines.append(f'<span style="color:{palette.BAD}">no left inverse at this x (not α-rectifying here)</span>')
        self.summary_text = " | ".join(html.unescape(_strip_tags(s)) for s in lines)
        self.report.value = "<br>".join(lines)
        self._draw()

    def _draw(self) -> None:
        fig = self.last_figure
        fig.clear()
        ax1, ax2 = fig.subplots(1, 2)
        L, x = self.layer, self.x
        if L.n == 2:
            from .plane import draw_domain, draw_frame_vectors, draw_halfspaces, style_axes

            style_axes(ax1, extent=1.6)
            draw_halfspaces(ax1, L, shade=False)
            draw_domain(ax1, Ball(2, 1.0))
            draw_frame_vectors(ax1, L.frame, faded=[i for i in range(L.m) if not self.active[i]])
            ax1.plot(*x, "o", ms=9, mfc="none", mec=palette.INK, mew=2, zorder=40, label="x")
            if self.x_dual is not None:
                ax1.plot(*self.x_dual, "+", ms=14, color=palette.GOOD, mew=2, zorder=41, label="ReLU-dual x̂")
            if self.result is not None and self.result.iterates is not None:
                it = np.asarray(self.result.iterates)
                ax1.plot(it[:, 0], it[:, 1], ".-", color=palette.HIGHLIGHT, lw=1, ms=3, zorder=39, label="frame algorithm")
            ax1.legend(loc="lower left", fontsize=7, framealpha=0.85)
            ax1.set_title("input, active elements, reconstructions", fontsize=9)
        else:
            ax1.bar(np.arange(1, L.m + 1), self.z, color=[palette.element_color(i) for i in range(L.m)])
            ax1.set_xlabel("element i", fontsize=8)
            ax1.set_title(r"$z = C_\alpha x$ (non-zero: active)", fontsize=9)
        if self.errors_curve.size:
            err = np.maximum(self.errors_curve, 1e-17)
            ax2.semilogy(np.arange(err.size), err, color=palette.OKABE_ITO["blue"], lw=1.5)
            if np.isfinite(self.dual_error):
                ax2.axhline(max(self.dual_error, 1e-17), color=palette.GOOD, ls="--", lw=1, label="ReLU-dual")
                ax2.legend(fontsize=7)
            ax2.set_xlabel("iteration k", fontsize=8)
            ax2.set_ylabel(r"$\|y_k - x\|$", fontsize=8)
        else:
            ax2.text(0.5, 0.5, "no reconstruction:\nthe active set does not span", ha="center", va="center",
                     color=palette.BAD, transform=ax2.transAxes)  # fmt: skip
        ax2.set_title("frame algorithm: error per iteration", fontsize=9)
        ax2.tick_params(labelsize=8)
        self.last_png = _png(fig, self.dpi)
        _show_png(self.plot, self.last_png, self.summary_text)


def _strip_tags(text: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", text)
