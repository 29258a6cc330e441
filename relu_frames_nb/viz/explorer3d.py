r""":class:`PolytopeExplorer3D`: the pythreejs polytope viewer with frame, domain and bias controls."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as W
import numpy as np

from .. import zoo
from .._util.format import fmt as _fmt
from .._util.validation import as_count
from ..domains import Domain
from ..errors import InputError
from ..frames import Frame, as_frame
from ..paper.bias.correlated import sampling_bias
from . import palette
from ._common import LAYERS
from ._widget_base import (
    _element_options,
    _ErrorArea,
    _guard,
    _make_domain,
    _StateDigest,
    _StaticFallback,
    presets,
)
from .viewer3d import PolytopeViewer

# ---------------------------------------------------------------------------------
# 3-D polytope explorer
# ---------------------------------------------------------------------------------

_LAYER_LABELS = {
    "sphere": "sphere", "caps": "spherical caps", "correlated": "most correlated bases", "facets": "facets",
    "edges": "edges", "vertices": "vertices", "labels": "labels", "bias_plane": "bias plane", "star": "vertex star",
}  # fmt: skip


#: the vertex menu's value for "no vertex selected" (``None`` would show an empty box in the browser)
NO_VERTEX = -1

#: height in pixels of one row of the bias table (line height 1.3 of a 12 px font, plus padding)
_ROW_PX = 20


def bias_table_html(frame: Frame, estimates: dict[str, Any], *, selected: int | None = None, max_height: str = "22em",
                    visible_rows: int | None = None) -> str:  # fmt: skip
    """An HTML table of per-element biases (one column per estimate), the selected row highlighted.

    Rows are compact (line height 1.3), so that a table of a few dozen elements shows in full
    next to the 3-D view; a longer one scrolls inside ``max_height`` with a visible scrollbar
    and says so above its header ("rows 1-k of m shown: scroll the table").

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
    visible_rows : int, optional
        How many rows fit in ``max_height``; with fewer than ``frame.m`` the table announces
        that it scrolls and keeps its scrollbar visible.

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
    scrolls = visible_rows is not None and visible_rows < frame.m
    note = (f"<div class='rfnb-table-note' style='font-size:90%;line-height:1.3;color:{palette.MUTED};padding:0 4px 4px'>"
            f"rows 1–{visible_rows} of {frame.m} shown: scroll the table for the rest</div>") if scrolls else ""  # fmt: skip
    # a scrolling table keeps a classic scrollbar (overlay scrollbars hide until touched)
    overflow = ("overflow-y:scroll;scrollbar-width:auto;scrollbar-color:#8a8a8a #ececec;scrollbar-gutter:stable"
                if scrolls else "overflow-y:auto")  # fmt: skip
    return (f"<div class='rfnb-bias-table' style='line-height:1.3'>{note}"
            f"<div class='rfnb-table-scroll' style='max-height:{max_height};{overflow};overflow-x:hidden;width:fit-content'>"
            f"<table style='border-collapse:collapse;font-size:90%;line-height:1.3'>"
            f"<thead><tr><th style='padding:2px 8px'>element</th>{head}{facet_head}</tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table></div></div>")  # fmt: skip


class PolytopeExplorer3D(_StaticFallback, _StateDigest, _ErrorArea, W.VBox):
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
        The HTML table shown (every row when they fit beside the canvas, else it scrolls visibly).
    vertex : ipywidgets.Dropdown
        The vertex menu: ``NO_VERTEX`` (-1, shown as "none") or an element index; setting
        ``None`` also selects "none". :attr:`selected_vertex` reads it as ``None`` or an index.
    status_text : str
    """

    def _static_png(self) -> bytes | None:
        return self.viewer.snapshot_png()

    def __init__(self, frame: Any = "icosahedron", *, domain: str = "sphere", layers: Any = None, m: int = 20, seed: int = 0,
                 width: int = 460, height: int = 460) -> None:  # fmt: skip
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
        self.vertex = W.Dropdown(options=[("none", NO_VERTEX)], value=NO_VERTEX, description="vertex",
                                 layout=W.Layout(width="180px"))  # fmt: skip
        self.vertex.add_class("rfnb-vertex-menu")
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
        # the table beside the canvas is as tall as the canvas; longer tables scroll visibly
        self._table_height = int(height)
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

    @property
    def selected_vertex(self) -> int | None:
        """The vertex chosen in the menu (``None`` for "none")."""
        v = self.vertex.value
        return None if v is None or v == NO_VERTEX else int(v)

    def _sync_selectors(self) -> None:
        m = self.frame.m
        self.vertex.options = [("none", NO_VERTEX), *_element_options(m)]
        self.vertex.value = NO_VERTEX
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
            self._set_status(f"{e.method} bias on {self._domain().describe()}: values in {rng}; {e.guarantee}"
                             + (f"; {int(e.n_samples)} samples" if e.n_samples else "")
                             + f"; {self.viewer.scene.P.n_facets} facets")  # fmt: skip
        self._update_table()

    def _set_status(self, text: str) -> None:
        self.status_text = text
        self.status.value = f"<span>{html.escape(text)}</span>"

    def _update_table(self) -> None:
        rows = max((self._table_height - 2 * _ROW_PX) // _ROW_PX, 1)  # header and a scroll note
        self.bias_table_html = bias_table_html(self.frame, self.estimates, selected=self.selected_vertex,
                                               max_height=f"{self._table_height - _ROW_PX}px", visible_rows=rows)  # fmt: skip
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
        self._set_status("sampling …")
        n = as_count(int(self.n_samples.value), "samples")
        self.estimates["sampling"] = sampling_bias(self.frame, self._domain(), n_samples=n, seed=0)
        self._choose_estimate()

    @_guard
    def _on_vertex(self, change) -> None:
        if change["new"] is None:  # value None (no option): show "none" instead of an empty box
            self.vertex.value = NO_VERTEX
            return
        vertex = self.selected_vertex
        self.viewer.select_vertex(vertex)
        if vertex is not None and "star" not in self.visible_layers:
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
