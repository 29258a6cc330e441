"""A colliding pair drawn: the two inputs side by side and their difference (images when the input is one).

:func:`plot_pair` serves the command line's ``--save-pair`` and anyone holding a
:class:`~relu_frames_nb.verdict.Verdict` with a pair. matplotlib is imported on first use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError
from . import palette

__all__ = ["plot_pair", "image_shape"]


def image_shape(n: int) -> tuple[int, int] | None:
    """``(s, s)`` when ``n = s * s`` with ``s >= 4`` (an image flattened row by row), else None."""
    s = math.isqrt(int(n))
    return (s, s) if s >= 4 and s * s == n else None


def plot_pair(pair: Any, *, shape: tuple[int, int] | None = None, outputs: Any = None, title: str = "", fig: Any = None):
    """Draw a colliding pair ``(x, y)``: the two inputs and ``y - x``.

    Parameters
    ----------
    pair : tuple of two array_like of shape (n,)
        The pair (a verdict's ``pair``).
    shape : (rows, cols), optional
        Draw the inputs as images of this shape; by default when ``n`` is a square of at least
        16 (``28 * 28`` for MNIST), else as profiles over the coordinates.
    outputs : array_like of shape (m,), optional
        The common output, drawn under the inputs.
    title : str
        The figure's title.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (a new one otherwise).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    try:
        x, y = (np.asarray(p, dtype=float).reshape(-1) for p in pair)
    except (TypeError, ValueError):
        raise InputError("pair must be two vectors of the same length (a verdict's pair).") from None
    if x.shape != y.shape or x.size == 0:
        raise InputError(f"pair must be two vectors of the same length; got {x.shape} and {y.shape}.")
    n = x.size
    if shape is None:
        shape = image_shape(n)
    elif int(shape[0]) * int(shape[1]) != n:
        raise InputError(f"shape {tuple(shape)} does not hold {n} numbers.")
    fig = fig if fig is not None else Figure(figsize=(9, 3.2 if outputs is None else 5.0), layout="constrained")
    rows = 1 if outputs is None else 2
    d = y - x
    if shape is not None:
        axs = fig.subplots(rows, 3, squeeze=False)
        lo, hi = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
        for ax, v, name in zip(axs[0], (x, y), ("x", "y")):
            im = ax.imshow(v.reshape(shape), cmap="gray_r", vmin=lo, vmax=hi)
            ax.set_title(name, fontsize=10)
            ax.set_axis_off()
        fig.colorbar(im, ax=axs[0, :2], shrink=0.8)
        top = float(np.max(np.abs(d))) or 1.0
        im = axs[0, 2].imshow(d.reshape(shape), cmap="RdBu_r", vmin=-top, vmax=top)
        axs[0, 2].set_title(f"y − x (|y − x| = {np.linalg.norm(d):.3g})", fontsize=10)
        axs[0, 2].set_axis_off()
        fig.colorbar(im, ax=axs[0, 2], shrink=0.8)
    else:
        axs = fig.subplots(rows, 2, squeeze=False)
        idx = np.arange(n)
        marker = "o" if n <= 40 else None
        axs[0, 0].plot(idx, x, color=palette.INK, marker=marker, label="x")
        axs[0, 0].plot(idx, y, color=palette.MUTED, marker=marker, linestyle="--", label="y")
        axs[0, 0].set_title("the two inputs", fontsize=10)
        axs[0, 0].set_xlabel("coordinate")
        axs[0, 0].legend(fontsize=8)
        axs[0, 1].plot(idx, d, color=palette.INK, marker=marker)
        axs[0, 1].set_title(f"y − x (|y − x| = {np.linalg.norm(d):.3g})", fontsize=10)
        axs[0, 1].set_xlabel("coordinate")
    if outputs is not None:
        z = np.asarray(outputs, dtype=float).reshape(-1)
        gs = axs[1, 0].get_gridspec()
        for ax in axs[1]:
            ax.remove()
        ax = fig.add_subplot(gs[1, :])
        ax.bar(np.arange(z.size), z, color=palette.INK, width=1.0)
        ax.set_title(f"the common output ({int(np.sum(z > 0))} of its {z.size} entries positive)", fontsize=10)
        ax.set_xlabel("output coordinate")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
