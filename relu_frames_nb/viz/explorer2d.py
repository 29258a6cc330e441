r""":class:`FrameExplorer2D`: a frame, a bias and a domain in the plane, with a live picture and a verdict."""

from __future__ import annotations

import html
import re
from typing import Any, Callable

import ipywidgets as W
import numpy as np

from .. import zoo
from .._util.validation import as_count
from ..checking import check
from ..domains import Domain
from ..errors import InputError, ReluFramesError
from ..frames import Frame, as_frame
from ..layer import ReLULayer
from ..paper.bias.polytope import polytope_bias
from ..paper.rectifying import Collision
from ..verdict import Verdict
from . import palette
from ._plane2d import OVERLAYS, _count_lut, boundary_points
from ._widget_base import (
    _DOMAINS,
    _element_options,
    _ErrorArea,
    _guard,
    _make_domain,
    _png,
    _show_png,
    _StateDigest,
    _StaticFallback,
    presets,
)
from .parsing import parse_matrix
from .planeview import PlaneView

# ---------------------------------------------------------------------------------
# The verdict of the 2-D explorer
# ---------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------
# 2-D frame explorer
# ---------------------------------------------------------------------------------

#: size of the picture in inches (plane and key); with the default dpi 90 it is 774 x 450 pixels
FIGSIZE = (8.6, 5.0)
#: font sizes of the key in points (9 points is about 11 pixels at dpi 90, 10 at dpi 80)
KEY_PT = 10.0
KEY_TITLE_PT = 11.0


def _fmt_point(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{float(c):.3g}".replace("-", "−") for c in v) + ")"


def _key_entries(ex: FrameExplorer2D) -> tuple[list, list[str]]:
    """Legend handles and labels for the overlays that are visible (and drawn) in the explorer's plane."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    shown = ex.overlays
    handles: list = []
    labels: list[str] = []

    def add(handle, label):
        handles.append(handle)
        labels.append(label)

    if "count" in shown:
        lut = _count_lut(ex.frame.m)
        add(Patch(facecolor=lut[len(lut) // 2], alpha=0.8), f"colour: how many φ_i are active (0 to {ex.frame.m})")
    if "partition" in shown:
        k = int(ex.element.value) + 1
        add(Patch(facecolor=palette.HIGHLIGHT, alpha=0.7), f"K_{k}: most correlated bases with φ_{k}")
    if "maximal" in shown:
        add(Patch(facecolor=(0.22, 0.22, 0.27), alpha=0.42), "grey: α-rectifying (invertible there)")
        if ex.view is not None and (ex.view.inside & ~ex.view.rectifying).any():
            add(Patch(facecolor=palette.BAD, alpha=0.85), "vermillion: the active φ_i do not span")
        if ex.view is not None and (~ex.view.inside & ~ex.view.rectifying).any():
            add(Patch(facecolor="white", edgecolor=palette.MUTED, lw=0.6), "white: not rectifying, outside the domain")
    if "halfspaces" in shown:
        add(Line2D([], [], color=palette.element_color(0), lw=1.2), "lines ⟨x, φ_i⟩ = α_i (colour of φ_i)")
    if "domain" in shown and ex.domain is not None and ex.domain.bounded:
        add(Line2D([], [], color=palette.INK, lw=1.2), "boundary of the domain")
    if "vectors" in shown:
        add(Line2D([], [], color=palette.element_color(0), lw=2.5, marker=">", ms=6), "frame vectors φ_i")
    if "minima" in shown and ex.view is not None and ex.view.minima is not None:
        add(Line2D([], [], ls="none", marker="*", ms=11, color=palette.element_color(0), mec="white"),
            "where the polytope bias is attained")  # fmt: skip
    if "collision" in shown and ex.view is not None and ex.view.collision is not None:
        add(Line2D([], [], ls=":", color=palette.BAD, marker="o", ms=7, mfc="white", mec=palette.BAD, mew=2),
            "x (circle) and y (square): one output")  # fmt: skip
    return handles, [_subscripts(t) for t in labels]


_SUB = str.maketrans("0123456789i", "₀₁₂₃₄₅₆₇₈₉ᵢ")


def _subscripts(text: str) -> str:
    """``φ_i`` -> ``φᵢ``, ``K_12`` -> ``K₁₂`` (plain text renders fast; no mathtext in the key)."""
    return re.sub(r"_(\w+)", lambda m: m.group(1).translate(_SUB), text)


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


#: seconds the explorer gives the exact verdict on each change (it reports "undetermined" past them)
EXACT_SECONDS = 2.0


class FrameExplorer2D(_StaticFallback, _StateDigest, _ErrorArea, W.VBox):
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
    dpi : int, default 90
        Resolution of the rendered PNG. The picture is 8.6 x 5.0 inches: the plane on the
        left, a key on the right (what the frame, bias and domain are, what each colour and
        mark means, and the colliding pair's coordinates when there is one); at the default
        dpi it is 774 x 450 pixels and its smallest text is 9 points, about 11 pixels.

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
        The plane (left axes of ``last_figure``); the collision is marked there without text.
    key_texts : list of str
        The lines of the key on the right (title, legend entries, collision coordinates).
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
                 inner: float = 0.5, overlays: Any = None, resolution: int = 181, dpi: int = 90) -> None:  # fmt: skip
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
        shown = set(("maximal", "halfspaces", "domain", "vectors", "collision") if overlays is None else overlays)
        self.overlay_toggles = {name: W.Checkbox(value=name in shown, description=_OVERLAY_LABELS[name], indent=False,
                                                 layout=W.Layout(width="auto", margin="0 12px 0 0"))
                                for name in OVERLAYS}  # fmt: skip
        # ---- outputs
        self.verdict_html = W.HTML()
        self.verdict_html.add_class("rfnb-verdict")
        self.plot = W.Output()
        self.plot.add_class("rfnb-plot")
        # the plane on the left (square), the key on the right: the picture uses the widget's width
        self.last_figure = Figure(figsize=FIGSIZE)
        self._ax = self.last_figure.add_axes((0.01, 0.02, 0.56, 0.96))
        self._key = self.last_figure.add_axes((0.585, 0.02, 0.405, 0.96))
        self.key_texts: list[str] = []
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
        self.domain = self._domain()
        self.inner.layout.display = "" if self.domain_kind.value == "shell" else "none"
        self.radius.layout.display = "none" if self.domain_kind.value == "R^n" else ""
        extent = 2.0 if not self.domain.bounded else 1.32 * self.domain.radius
        self.view = PlaneView(self._ax, self.layer, self.domain, overlays=self.overlays, resolution=self.resolution,
                              element=int(self.element.value), extent=extent,
                              shade_element=self.bias_mode.value == "per element",
                              annotate_collision=False)  # the key says what the pair is  # fmt: skip
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
                try:
                    self._pbe = polytope_bias(self.frame, self.domain)
                except ReluFramesError as exc:
                    self._pbe = exc
        return self._pbe

    def _refresh(self) -> None:
        """Bias changed: update the picture in place, decide, render."""
        self.view.set_bias(self.alpha)
        L = self.layer
        pts = self.view.X[self.view.inside] if self.domain.inner_radius < self.domain.radius else np.zeros((0, 2))
        bnd = boundary_points(L, self.domain)
        if not self.domain.bounded:
            far = 25.0 * (1.0 + float(np.max(np.abs(self.alpha)))) * self.view.X[:: max(1, len(self.view.X) // 2000)]
            bnd = np.vstack([bnd, far])
        pbe = self._polytope()
        # a widget callback: the exact verdict gets a short budget (in 2-D it needs milliseconds)
        self.verdict = check(L, self.domain, points=np.vstack([pts, bnd]), polytope=pbe, time_limit=EXACT_SECONDS,
                             progress=False)  # fmt: skip
        self.verdict_text = self.verdict.text
        color = {"injective": palette.GOOD, "not injective": palette.BAD}.get(self.verdict.status, palette.INK)
        self.verdict_html.value = (f'<div style="border-left:4px solid {color};padding:2px 8px">'
                                   f"<b>{html.escape(self.verdict.status)}</b>{html.escape(self.verdict.text[len(self.verdict.status):])}"
                                   "</div>")  # fmt: skip
        pair = self.verdict.pair
        self.view.set_collision(None if pair is None else Collision(True, pair[0], pair[1], L(pair[0]), "verified", 1,
                                                                    self.verdict.method))  # fmt: skip
        est = pbe if pbe is not None and not isinstance(pbe, Exception) else None
        self.view.set_minima(est if "minima" in self.overlays else None)
        self._render()

    def _draw_key(self) -> None:
        """The key right of the plane: frame, bias and domain; what the visible overlays mean; the pair."""
        ax = self._key
        ax.clear()
        ax.set_axis_off()
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.0)
        a = self.alpha
        bias = (f"bias α = {a[0]:.2f} (all elements)" if np.all(a == a[0])
                else f"bias α from {a.min():.2f} to {a.max():.2f}").replace("-", "−")  # fmt: skip
        title = f"{self.frame.m} frame vectors\n{bias}\ndomain: {self.domain.describe()}"
        ax.text(0.0, 1.0, title, ha="left", va="top", fontsize=KEY_TITLE_PT, color=palette.INK, linespacing=1.35)
        handles, labels = _key_entries(self)
        if handles:
            ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, 0.8), fontsize=KEY_PT, frameon=False,
                      handlelength=1.6, borderaxespad=0.0, labelspacing=0.55, handletextpad=0.6, alignment="left")  # fmt: skip
        lines = []
        c = self.view.collision if "collision" in self.overlays else None
        if c is not None:
            x, y = np.asarray(c.x, float), np.asarray(c.y, float)
            lines = [f"x = {_fmt_point(x)}", f"y = {_fmt_point(y)}",
                     r"$C_\alpha x = C_\alpha y$ = " + _fmt_point(np.asarray(self.layer(x), float))]  # fmt: skip
            ax.text(0.0, 0.0, "a collision:\n" + "\n".join(lines), ha="left", va="bottom", fontsize=KEY_PT,
                    color=palette.BAD, linespacing=1.4)  # fmt: skip
        self.key_texts = [title, *labels, *lines]

    def _render(self) -> None:
        self._draw_key()
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
