r""":class:`DigitsExplorer`: a small image (a digit of a data set, or one drawn on a grid) through the
first layer of a trained network: its hidden activations, how many units are active against the input
dimension, and the image reconstructed from the activations alone.
"""

from __future__ import annotations

import html
import io
import time
from typing import Any, Callable

import ipywidgets as W
import numpy as np

from .._util.threads import one_blas_thread
from .._util.tolerances import DIVISOR_FLOOR, DRAW_ZERO
from .._util.validation import as_count, as_nonnegative, as_positive
from ..errors import DimensionMismatchError, InputError, NotInjectiveError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer, as_layer
from ..paper.reconstruction import reconstruct
from . import palette
from ._widget_base import _ErrorArea, _guard, _show_png, _StateDigest, _StaticFallback

__all__ = ["DigitsExplorer"]

FONT_PT = 9.0
TITLE_PT = 10.0


def _as_map(fn: Any, name: str) -> Callable[[np.ndarray], np.ndarray] | None:
    if fn is None:
        return None
    if not callable(fn):
        raise InputError(
            f"{name} must be a callable mapping a batch of rows to a batch of rows, or None; got {type(fn).__name__}."
        )
    return fn


class DigitsExplorer(_StaticFallback, _StateDigest, _ErrorArea, W.VBox):
    r"""Pick a digit or draw one, and see what the first layer of a network makes of it.

    The image :math:`u` (a row of ``images``, or the 8 × 8 grid of toggle buttons in "draw"
    mode) is mapped to the layer's input :math:`x = \text{encode}(u)`; the layer gives
    :math:`z = \mathrm{ReLU}(\Phi x - \alpha)`. Shown: the image, the hidden activations (active
    units coloured), the number of active units and the rank of their rows against the input
    dimension :math:`n` (the layer is locally invertible at :math:`x` iff that rank is :math:`n`),
    and the image :math:`\text{decode}(\hat x)` reconstructed from :math:`z` alone by the ReLU-dual
    (:func:`relu_frames_nb.reconstruct`). Where the active rows do not span, :math:`x` is not
    determined by :math:`z`: the picture then shows another input with the same activations,
    :math:`x + t v` with :math:`\Phi_J v = 0` on the active rows and :math:`t` small enough that no
    other unit switches on (the constructive half of Thm "Injectivity II").

    Parameters
    ----------
    layer : ReLULayer
        The layer (paper convention; ``ReLULayer.from_weights(W, b)`` for trained weights).
    images : array_like, shape (N, p)
        The data set the index slider walks through (one flattened image per row).
    labels : array_like, shape (N,), optional
        Their classes, shown next to the index.
    encode, decode : callable, optional
        ``encode`` maps a batch of images ``(k, p)`` to layer inputs ``(k, n)`` (a PCA, or the
        coordinates in an orthonormal basis of the data's span); ``decode`` maps layer inputs back
        to images. Both default to the identity (then ``p == n``). With an encoder the picture
        also shows the image as the layer sees it, ``decode(encode(u))``.
    predict : callable, optional
        Maps a batch of images to predicted classes (e.g. ``model.predict`` composed with the
        encoder); the prediction is shown.
    shape : (int, int), default (8, 8)
        Height and width of an image (``p = height * width``); also the drawing grid.
    vmax : float, default 16
        The largest pixel value (a drawn pixel is 0 or ``vmax``).
    index : int, default 0
        The first digit shown.
    rank_tol : float, default 1e-10
        Relative singular-value tolerance of the rank test (as in :class:`~relu_frames_nb.Frame`).
    dpi : int, default 72
        Resolution of the picture.

    Attributes
    ----------
    source : ipywidgets.ToggleButtons
        ``"data set"`` (the index slider chooses) or ``"draw"`` (the grid is the image).
    index : ipywidgets.IntSlider
    pixels : list of ipywidgets.ToggleButton
        The drawing grid, row by row.
    image : ndarray, shape (p,)
        The current image.
    x, z : ndarray, shapes (n,) and (m,)
        The layer's input and output.
    active : ndarray of bool, shape (m,)
        Active units, :math:`\langle x, \phi_i\rangle \ge \alpha_i`.
    n_active, rank : int
        Their number, and the rank of their rows.
    invertible : bool
        ``rank == n``: the activations determine the input near ``x``.
    reconstruction : ndarray, shape (p,)
        ``decode`` of the ReLU-dual reconstruction; where not invertible, of another input with the same
        activations (``x_hat``, the layer's input).
    error : float
        :math:`\|\hat x - x\|` in the layer's input space (NaN where not invertible).
    summary_text : str
        The summary line as plain text.
    last_figure, last_png
        The picture and its PNG.
    n_updates : int
        Updates so far; ``last_update_seconds`` is the time the last one took in the kernel.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> rng = np.random.default_rng(0)
    >>> L = rf.ReLULayer.from_weights(rng.standard_normal((20, 4)), 0.1 * rng.standard_normal(20))
    >>> ex = DigitsExplorer(L, rng.uniform(0, 16, (5, 4)), shape=(2, 2), dpi=30)
    >>> ex.index.value = 3
    >>> ex.n_active == int(ex.active.sum()) and ex.z.shape == (20,)
    True
    """

    def __init__(self, layer: ReLULayer, images: Any, *, labels: Any = None, encode: Any = None, decode: Any = None,
                 predict: Any = None, shape: tuple[int, int] = (8, 8), vmax: float = 16.0, index: int = 0,
                 rank_tol: float = DEFAULT_RANK_TOL, dpi: int = 72) -> None:  # fmt: skip
        from matplotlib.figure import Figure

        super().__init__()
        self._init_errors()
        self.layer = as_layer(layer)
        try:
            h, w = (as_count(s, "shape") for s in shape)
        except TypeError:
            raise InputError(f"shape must be a pair (height, width); got {shape!r}.") from None
        self.shape = (h, w)
        p = h * w
        imgs = np.asarray(images, dtype=float)
        if imgs.ndim == 3 and imgs.shape[1:] == (h, w):
            imgs = imgs.reshape(len(imgs), p)
        if imgs.ndim != 2 or imgs.shape[1] != p or imgs.shape[0] < 1 or not np.all(np.isfinite(imgs)):
            raise DimensionMismatchError(
                f"images must be a non-empty array of finite rows of {p} pixels (shape {self.shape} flattened); "
                f"got shape {np.shape(images)}."
            )
        self.images = imgs
        self.labels = None if labels is None else np.asarray(labels).reshape(-1)
        if self.labels is not None and self.labels.shape[0] != imgs.shape[0]:
            raise DimensionMismatchError(f"labels must have one entry per image ({imgs.shape[0]}); got {self.labels.shape[0]}.")
        self.encode = _as_map(encode, "encode")
        self.decode = _as_map(decode, "decode")
        self.predict = _as_map(predict, "predict")
        self.vmax = as_positive(vmax, "vmax")
        self.rank_tol = as_nonnegative(rank_tol, "rank_tol")
        self.dpi = as_count(dpi, "dpi", minimum=20)
        n = self.layer.n
        x0 = self._encode(imgs[:1])
        if x0.shape != (1, n):
            raise DimensionMismatchError(
                f"encode must map images of {p} pixels to inputs of the layer (R^{n}); got outputs of shape {x0.shape[1:]}."
            )
        if self._decode(x0).shape != (1, p):
            raise DimensionMismatchError(f"decode must map inputs of R^{n} back to images of {p} pixels.")
        # fixed scales, so that the picture does not jump between digits
        Z_all = self.layer(self._encode(imgs))
        self._zmax = float(max(np.max(Z_all), DRAW_ZERO)) * 1.05
        self._phi = np.asarray(self.layer.frame.vectors)
        self._alpha = np.asarray(self.layer.alpha)

        # ---- controls
        self.source = W.ToggleButtons(options=["data set", "draw"], value="data set", description="image",
                                      style={"button_width": "80px"})  # fmt: skip
        self.index = W.IntSlider(value=int(index), min=0, max=imgs.shape[0] - 1, description="digit #",
                                 continuous_update=True, layout=W.Layout(width="420px"))  # fmt: skip
        self.index.add_class("rfnb-digits-index")
        self.copy_button = W.Button(description="copy digit to grid", layout=W.Layout(width="150px"))
        self.clear_button = W.Button(description="clear grid", layout=W.Layout(width="100px"))
        cell = W.Layout(width="26px", height="26px", padding="0", margin="0")
        self.pixels = [W.ToggleButton(value=False, description="", layout=cell, tooltip=f"row {k // w + 1}, column {k % w + 1}")
                       for k in range(p)]  # fmt: skip
        for b in self.pixels:
            b.add_class("rfnb-digits-pixel")
        # ipywidgets 8's ToggleButtonStyle has no button_color: the colours of drawn and blank pixels come
        # from a style sheet on the pixels' class (a pressed ToggleButton carries the class mod-active)
        self.pixel_style = W.HTML(
            "<style>.rfnb-digits-pixel.jupyter-button{background-color:white;border:1px solid #bbbbbb;"
            "box-shadow:none;}"
            f".rfnb-digits-pixel.jupyter-button.mod-active{{background-color:{palette.INK};}}</style>"
        )
        self.grid = W.GridBox(self.pixels, layout=W.Layout(grid_template_columns=f"repeat({w}, 26px)", grid_gap="1px",
                                                          width=f"{27 * w}px"))  # fmt: skip
        self.grid.add_class("rfnb-digits-grid")
        self.summary = W.HTML()
        self.summary.add_class("rfnb-digits-summary")
        self.plot = W.Output()
        self.plot.add_class("rfnb-plot")

        # ---- the picture (artists made once, updated in place)
        self._projected = self.encode is not None
        widths = [1.0, 1.0, 2.4, 1.0] if self._projected else [1.0, 2.4, 1.0]  # image, (as seen), activations, reconstruction
        ncols = len(widths)
        self.last_figure = Figure(figsize=(2.0 * ncols + 2.6, 2.7), dpi=self.dpi, layout="constrained")
        axes = self.last_figure.subplots(1, ncols, gridspec_kw={"width_ratios": widths})
        self._ax_img, self._ax_z, self._ax_rec = axes[0], axes[-2], axes[-1]
        self._ax_seen = axes[1] if self._projected else None
        blank = np.zeros(self.shape)
        kw = dict(cmap="gray_r", vmin=0.0, vmax=self.vmax, interpolation="nearest")
        self._im_img = self._ax_img.imshow(blank, **kw)
        self._im_seen = self._ax_seen.imshow(blank, **kw) if self._ax_seen is not None else None
        self._im_rec = self._ax_rec.imshow(blank, **kw)
        for ax in (self._ax_img, self._ax_seen, self._ax_rec):
            if ax is not None:
                ax.set_xticks([])
                ax.set_yticks([])
        m = self.layer.m
        units = np.arange(1, m + 1)
        self._bars = self._ax_z.vlines(units, 0.0, np.zeros(m), lw=max(0.6, min(3.0, 240.0 / m)))
        self._ax_z.axhline(0.0, color=palette.MUTED, lw=0.6)
        self._ax_z.set_xlim(0.3, m + 0.7)
        self._ax_z.set_ylim(-0.03 * self._zmax, self._zmax)
        self._ax_z.set_xlabel("hidden unit i", fontsize=FONT_PT)
        self._ax_z.set_ylabel("activation $z_i$", fontsize=FONT_PT)
        self._ax_z.tick_params(labelsize=FONT_PT)
        from matplotlib.ticker import MaxNLocator

        self._ax_z.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        self._ax_z.yaxis.set_major_locator(MaxNLocator(4))
        self.last_png = b""
        self.n_updates = 0
        self.last_update_seconds = float("nan")
        self.summary_text = ""

        self._syncing = False
        self._draw_box = W.VBox([self.pixel_style, W.HBox([self.copy_button, self.clear_button]), self.grid])
        self.children = [
            W.HBox([self.source, self.index]),
            self._draw_box,
            self.summary,
            self.plot,
            self.errors,
        ]
        self.add_class("rfnb-digits-explorer")
        self._show_controls()
        self._update()
        # the layout is computed once (by the first render); later renders reuse it: half the time of an update
        self.last_figure.set_layout_engine("none")
        self.source.observe(self._on_source, names="value")
        self.index.observe(self._on_index, names="value")
        self.copy_button.on_click(self._on_copy)
        self.clear_button.on_click(self._on_clear)
        for b in self.pixels:
            b.observe(self._on_pixel, names="value")

    # ------------------------------------------------------------------ maps
    def _encode(self, U: np.ndarray) -> np.ndarray:
        return np.asarray(U if self.encode is None else self.encode(U), dtype=float)

    def _decode(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X if self.decode is None else self.decode(X), dtype=float)

    # ------------------------------------------------------------------ state
    @property
    def grid_image(self) -> np.ndarray:
        """The image drawn on the grid (0 or ``vmax`` per pixel), shape ``(p,)``."""
        return np.array([self.vmax if b.value else 0.0 for b in self.pixels])

    def _current_image(self) -> np.ndarray:
        if self.source.value == "draw":
            return self.grid_image
        return np.array(self.images[int(self.index.value)])

    def _show_controls(self) -> None:
        drawing = self.source.value == "draw"
        self.index.disabled = drawing
        self._draw_box.layout.display = "" if drawing else "none"

    def set_grid(self, image: Any, *, threshold: float | None = None) -> None:
        """Draw ``image`` on the grid (pixels above ``threshold``, default ``vmax / 2``, are on) and switch to "draw".

        Parameters
        ----------
        image : array_like, shape (p,) or (height, width)
            Pixel values, or booleans.
        threshold : float, optional
        """
        img = np.asarray(image)
        if img.size != len(self.pixels):
            raise DimensionMismatchError(f"image must have {len(self.pixels)} pixels; got shape {img.shape}.")
        on = (
            img.reshape(-1).astype(bool)
            if img.dtype == bool
            else img.reshape(-1) > (self.vmax / 2 if threshold is None else threshold)
        )
        self._syncing = True
        try:
            for b, v in zip(self.pixels, on):
                b.value = bool(v)
        finally:
            self._syncing = False
        if self.source.value != "draw":
            self.source.value = "draw"  # its observer updates
        else:
            self._update()

    # ------------------------------------------------------------------ observers
    @_guard
    def _on_source(self, change) -> None:
        self._show_controls()
        self._update()

    @_guard
    def _on_index(self, change) -> None:
        if self.source.value == "data set":
            self._update()

    @_guard
    def _on_copy(self, button=None) -> None:
        self.set_grid(self.images[int(self.index.value)])

    @_guard
    def _on_clear(self, button=None) -> None:
        self.set_grid(np.zeros(len(self.pixels), dtype=bool))

    @_guard
    def _on_pixel(self, change) -> None:
        if self._syncing:
            return
        if self.source.value == "draw":
            self._update()

    # ------------------------------------------------------------------ compute and draw
    def _update(self) -> None:
        # one BLAS thread: on a busy machine a multi-threaded BLAS spends far longer waking its threads
        # than the 100 x 60 SVD of an update takes (measured 50 ms against 0.2 ms on two loaded cores)
        with one_blas_thread():
            self._compute_and_draw()

    def _compute_and_draw(self) -> None:
        t0 = time.perf_counter()
        u = self._current_image()
        x = self._encode(u[None, :])[0]
        pre = self._phi @ x - self._alpha
        z = np.maximum(pre, 0.0)
        active = pre >= 0
        n = self.layer.n
        rows = self._phi[active]
        if rows.shape[0]:
            s = np.linalg.svd(rows, compute_uv=False)
            rank = int(np.sum(s > self.rank_tol * max(float(s[0]), DIVISOR_FLOOR)))
        else:
            rank = 0
        invertible = rank == n
        x_hat = None
        if invertible:
            try:
                x_hat = np.asarray(reconstruct(self.layer, z, rank_tol=self.rank_tol), dtype=float)
            except NotInjectiveError:  # an active unit exactly at its threshold (z_i = 0): J = {z > 0} does not span
                x_hat = None
        if x_hat is None:
            error = float("nan")
            x_hat = self._other_input(x, pre, z > 0)
        else:
            error = float(np.linalg.norm(x_hat - x))
        self.image, self.x, self.z, self.active = u, x, z, active
        self.n_active, self.rank, self.invertible = int(active.sum()), rank, bool(invertible)
        self.x_hat = x_hat
        self.reconstruction = self._decode(x_hat[None, :])[0]
        self.error = error
        self._summarize()
        self._draw()
        self.n_updates += 1
        self.last_update_seconds = time.perf_counter() - t0

    def _other_input(self, x: np.ndarray, pre: np.ndarray, J: np.ndarray) -> np.ndarray:
        r"""Another input with the same activations: a step along a null direction of the rows in ``J``.

        Along ``v`` with :math:`\Phi_J v = 0` the units of ``J`` keep their values; the step is half the
        largest one that keeps every other unit off (Thm "Injectivity II", the constructive direction).
        """
        rows = self._phi[J]
        v = np.linalg.svd(rows, full_matrices=True)[2][-1] if rows.shape[0] else np.eye(x.size)[0]
        g = self._phi @ v
        off = ~J
        best_t, best_sign = 0.0, 1.0
        for sign in (1.0, -1.0):
            moving = off & (sign * g > DRAW_ZERO * max(1.0, float(np.max(np.abs(g)))))
            t = float(np.min(-np.minimum(pre[moving], 0.0) / (sign * g[moving]))) if moving.any() else np.inf
            if t > best_t:
                best_t, best_sign = t, sign
        if not np.isfinite(best_t):
            best_t = 2.0 * max(1.0, float(np.linalg.norm(x)))  # no unit ever switches on along v
        return x + best_sign * 0.5 * best_t * v

    def _summarize(self) -> None:
        n, m = self.layer.n, self.layer.m
        if self.source.value == "draw":
            what = "the drawn image"
        else:
            i = int(self.index.value)
            what = f"digit #{i}" + (f" (label {self.labels[i]})" if self.labels is not None else "")
        if self.predict is not None:
            what += f", predicted {np.asarray(self.predict(self.image[None, :])).reshape(-1)[0]}"
        count = f"{self.n_active} of {m} units active; their rows span {self.rank} of n = {n} dimensions"
        if self.invertible:
            verdict = f"locally invertible: reconstructed from the activations, error {self.error:.1e}"
            color = palette.GOOD
        else:
            verdict = "not invertible here: another input has the same activations (shown)"
            color = palette.BAD
        self.summary_text = f"{what}: {count} — {verdict}"
        self.summary.value = (f'<div style="border-left:4px solid {color};padding:2px 8px">{html.escape(what)}: '
                              f"{html.escape(count)} — <b>{html.escape(verdict.split(':')[0])}</b>"
                              f"{html.escape(verdict[len(verdict.split(':')[0]):])}</div>")  # fmt: skip

    def _draw(self) -> None:
        h, w = self.shape
        self._im_img.set_data(self.image.reshape(h, w))
        src = "drawn" if self.source.value == "draw" else f"digit #{int(self.index.value)}"
        self._ax_img.set_title(f"input ({src})", fontsize=TITLE_PT)
        if self._im_seen is not None:
            self._im_seen.set_data(self._decode(self.x[None, :])[0].reshape(h, w))
            self._ax_seen.set_title("as the layer sees it", fontsize=TITLE_PT)
        m = self.layer.m
        units = np.arange(1, m + 1)
        top = np.minimum(self.z, self._zmax)
        heights = np.where(self.active, np.maximum(top, 0.004 * self._zmax), 0.0)  # an active zero still shows
        self._bars.set_segments([[(u, 0.0), (u, t)] for u, t in zip(units, heights)])
        self._bars.set_colors([palette.GOOD if a else palette.MUTED for a in self.active])
        col = palette.GOOD if self.invertible else palette.BAD
        title = f"{self.n_active} of {m} active, rank {self.rank} (n = {self.layer.n})"
        self._ax_z.set_title(title, fontsize=TITLE_PT, color=col)
        self._im_rec.set_data(np.clip(self.reconstruction.reshape(h, w), 0.0, self.vmax))
        rec_title = "reconstruction" if self.invertible else "other input, same z"
        self._ax_rec.set_title(rec_title, fontsize=TITLE_PT, color=col)
        self.last_png = self._render_png()
        _show_png(self.plot, self.last_png, self.summary_text)

    def _render_png(self) -> bytes:
        # draw on the Agg canvas and encode with PIL: about 2/3 of the time of savefig, which renders twice
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image

        fig = self.last_figure
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        fig.canvas.draw()
        img = Image.frombuffer("RGBA", fig.canvas.get_width_height(), fig.canvas.buffer_rgba()).convert("RGB")
        buf = io.BytesIO()
        img.save(buf, format="PNG", compress_level=1)
        return buf.getvalue()
