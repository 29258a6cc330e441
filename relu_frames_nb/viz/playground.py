r""":class:`ReconstructionPlayground`: pick ``x``, see :math:`z = C_\alpha x`, reconstruct it."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import ipywidgets as W
import numpy as np

from .. import zoo
from .._util.format import vec as _vec
from .._util.tolerances import DRAW_AXIS_MIN, DRAW_LOG_FLOOR
from .._util.validation import as_count
from ..domains import Ball
from ..errors import InputError
from ..frames import Frame, as_frame
from ..layer import ReLULayer
from ..paper.reconstruction import reconstruct, relu_frame_algorithm
from . import palette
from ._draw2d import draw_domain, draw_frame_vectors, draw_halfspaces, style_axes
from ._widget_base import (
    _ErrorArea,
    _guard,
    _show_png,
    _StateDigest,
    _StaticFallback,
    _strip_tags,
    presets,
)

# ---------------------------------------------------------------------------------
# Reconstruction playground
# ---------------------------------------------------------------------------------


#: font sizes (points) of the picture: 9 points is about 11 pixels at the default dpi 90
FONT_PT = 9.0
TITLE_PT = 10.0


class ReconstructionPlayground(_StaticFallback, _StateDigest, _ErrorArea, W.VBox):
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
    dpi : int, default 90
        Resolution of the 8.4 x 3.6 inch picture (756 x 324 pixels by default, text at least
        9 points, about 11 pixels).

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
                 dpi: int = 90) -> None:  # fmt: skip
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
        self._bg_key: tuple | None = None
        self._background: Any = None
        self._moving: dict[str, Any] = {}
        self._moving_artists: list = []
        self._layer_artists: list = []
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

    def _background_key(self) -> tuple:
        """What the still part of the picture depends on (not ``x``)."""
        n = self.frame.n
        # in the plane the half-spaces and the frame vectors are redrawn with x (they move with α and the
        # active set); the bars of R^3 keep axis limits that depend on α
        offset = float(self.offset.value) if n != 2 else None
        return (self.frame_choice.value, offset, int(self.n_iter.value), n, self.x_dual is not None, self.dpi)

    def _draw(self) -> None:
        """Redraw the picture; only the moving parts when the still part is unchanged (blitting).

        A step of ``x`` or of α changes the marker, the reconstructions, the iterates, the error
        curve and (in the plane) the half-spaces and the faded frame vectors; the domain, the axes,
        their ticks, titles and legends stay. Those are drawn once (with the constrained layout) and
        kept as a bitmap; each step restores it, draws the moving artists on top and encodes the
        PNG, a fraction of the cost of a full draw.
        """
        key = self._background_key()
        if key != self._bg_key:
            self._draw_still()
            self._bg_key = key
        self._draw_moving()
        self.last_png = self._encode()
        _show_png(self.plot, self.last_png, self.summary_text)

    def _draw_still(self) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = self.last_figure
        fig.clear()
        fig.set_layout_engine("constrained")
        fig.set_dpi(self.dpi)
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        ax1, ax2 = fig.subplots(1, 2)
        L = self.layer
        moving: dict[str, Any] = {}
        if L.n == 2:
            style_axes(ax1, extent=1.6)
            draw_domain(ax1, Ball(2, 1.0))
            (moving["x"],) = ax1.plot([], [], "o", ms=9, mfc="none", mec=palette.INK, mew=2, zorder=40, label="x")
            if self.x_dual is not None:
                (moving["dual"],) = ax1.plot([], [], "+", ms=14, color=palette.GOOD, mew=2, zorder=41, label="ReLU-dual x̂")
                (moving["iterates"],) = ax1.plot([], [], ".-", color=palette.HIGHLIGHT, lw=1, ms=3, zorder=39,
                                                 label="frame algorithm")  # fmt: skip
            # beside the plane, not over a φ label
            ax1.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=FONT_PT, frameon=False)
            ax1.set_title("input, active elements, reconstructions", fontsize=TITLE_PT)
        else:
            moving["bars"] = ax1.bar(np.arange(1, L.m + 1), np.zeros(L.m), color=[palette.element_color(i) for i in range(L.m)])
            # the largest output any slider position gives: fixed limits keep the axes still while x moves
            top = float(np.max(1.5 * np.abs(L.frame.vectors).sum(axis=1) - L.alpha, initial=0.0))
            ax1.set_ylim(0.0, 1.05 * max(top, DRAW_AXIS_MIN))
            ax1.set_xlabel("element i", fontsize=FONT_PT)
            ax1.set_title(r"$z = C_\alpha x$ (non-zero: active)", fontsize=TITLE_PT)
        if self.x_dual is not None:
            (moving["curve"],) = ax2.semilogy([], [], color=palette.OKABE_ITO["blue"], lw=1.5)
            moving["dual_error"] = ax2.axhline(1.0, color=palette.GOOD, ls="--", lw=1, label="ReLU-dual")
            ax2.legend(fontsize=FONT_PT, loc="upper right")  # placed once, before the curve exists: not "best"
            # fixed limits: every error of the sliders' square lies below 10, and 1e-17 is the floor drawn
            ax2.set_xlim(0, max(int(self.n_iter.value), 1))
            ax2.set_ylim(DRAW_LOG_FLOOR, 10.0)
            ax2.set_xlabel("iteration k", fontsize=FONT_PT)
            ax2.set_ylabel(r"$\|y_k - x\|$", fontsize=FONT_PT)
        else:
            ax2.text(0.5, 0.5, "no reconstruction:\nthe active set does not span", ha="center", va="center",
                     color=palette.BAD, transform=ax2.transAxes, fontsize=TITLE_PT)  # fmt: skip
        ax2.set_title("frame algorithm: error per iteration", fontsize=TITLE_PT)
        for ax in (ax1, ax2):
            ax.tick_params(labelsize=FONT_PT)
        artists = [a for v in moving.values() for a in (v if isinstance(v, Iterable) else [v])]
        for a in artists:
            a.set_animated(True)  # left out of the still picture
        fig.canvas.draw()
        fig.set_layout_engine("none")  # the positions stay as laid out: a savefig of last_figure matches the PNG
        self._background = fig.canvas.copy_from_bbox(fig.bbox)
        for a in artists:
            a.set_animated(False)  # a savefig of last_figure shows them again
        self._moving, self._moving_artists = moving, artists
        self._layer_artists: list = []

    def _redraw_layer(self) -> list:
        """The half-spaces and the frame vectors (faded where inactive) of the current α and x, drawn anew."""
        for a in self._layer_artists:
            a.remove()
        ax = self._moving["x"].axes
        before = set(ax.get_children())
        L = self.layer
        draw_halfspaces(ax, L, shade=False)
        draw_frame_vectors(ax, L.frame, faded=[i for i in range(L.m) if not self.active[i]])
        self._layer_artists = [a for a in ax.get_children() if a not in before]
        return self._layer_artists

    def _draw_moving(self) -> None:
        m, x = self._moving, self.x
        if "x" in m:
            m["x"].set_data([x[0]], [x[1]])
        if "dual" in m:
            m["dual"].set_data([self.x_dual[0]], [self.x_dual[1]])
            it = np.asarray(self.result.iterates) if self.result is not None and self.result.iterates is not None else None
            m["iterates"].set_data(*((it[:, 0], it[:, 1]) if it is not None else ([], [])))
        if "bars" in m:
            for bar, h in zip(m["bars"], self.z):
                bar.set_height(float(h))
        if "curve" in m:
            err = np.maximum(self.errors_curve, DRAW_LOG_FLOOR)
            m["curve"].set_data(np.arange(err.size), err)
            m["dual_error"].set_ydata([max(self.dual_error, DRAW_LOG_FLOOR)] * 2)
        layer = self._redraw_layer() if "x" in m else []
        canvas = self.last_figure.canvas
        canvas.restore_region(self._background)
        for a in sorted(layer + self._moving_artists, key=lambda a: a.get_zorder()):
            a.axes.draw_artist(a)

    def _encode(self) -> bytes:
        """The PNG of the canvas as it is (no new draw)."""
        import io

        from PIL import Image

        canvas = self.last_figure.canvas
        w, h = canvas.get_width_height(physical=True)
        img = Image.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buf = io.BytesIO()
        img.save(buf, format="PNG", compress_level=1)
        return buf.getvalue()
