"""Text that stays readable where a figure is shown smaller than it was drawn (the book's column).

A figure ``W`` inches wide, stored at ``dpi``, is shown at most ``column_px`` pixels wide: a text
of ``s`` points then reads at ``s * dpi / 72 * min(1, column_px / (W * dpi))`` pixels. Wide
figures (three panels side by side, 10 to 14 inches) are shrunk by a factor of 2 or so, and 8-point
tick labels end up at 6 pixels. :func:`readable` raises every text below the size that reads at
``min_px`` pixels to that size, and nothing else; the constrained layout makes room for it.

The notebook build records the smallest text of every stored picture
(``scripts/_figure_audit.py``), and ``tests/test_figure_text.py`` checks the committed notebooks
against the same rule, so a figure that needs this and does not get it is found.
"""

from __future__ import annotations

from typing import Any

__all__ = ["readable", "BOOK_COLUMN_PX", "MIN_TEXT_PX", "smallest_points"]

#: the width at which the book's column shows a stored figure (measured: 704 px at a 1300 px window)
BOOK_COLUMN_PX = 704
#: the smallest text size, in pixels as shown, that the book allows
MIN_TEXT_PX = 9.0


def smallest_points(width_in: float, dpi: float, *, column_px: float = BOOK_COLUMN_PX, min_px: float = MIN_TEXT_PX) -> float:
    """The smallest font size (points) that reads at ``min_px`` pixels in a figure of that width and dpi.

    Examples
    --------
    >>> round(smallest_points(12.0, 100.0), 2)  # shown at 704 of its 1200 pixels
    11.05
    >>> round(smallest_points(6.0, 100.0), 2)  # shown at its own size
    6.48
    """
    shrink = min(1.0, column_px / (width_in * dpi))
    return min_px * 72.0 / (dpi * shrink)


def readable(fig: Any, *, dpi: float | None = None, column_px: float = BOOK_COLUMN_PX, min_px: float = MIN_TEXT_PX) -> Any:
    """Raise every text of ``fig`` that would read below ``min_px`` pixels in the column; returns ``fig``.

    Tick labels (through ``tick_params``, so new ticks get the size too), titles, labels, legends,
    annotations and texts: each one smaller than :func:`smallest_points` for the figure's width
    and ``dpi`` (default: the figure's) is set to it.
    """
    from matplotlib.text import Text

    # 6 % more: a picture stored with a tight bounding box can be a little wider than the figure
    points = 1.06 * smallest_points(fig.get_figwidth(), float(dpi or fig.dpi), column_px=column_px, min_px=min_px)
    for ax in fig.get_axes():
        for axis in ("x", "y"):
            for which in ("major", "minor"):
                ticks = getattr(ax, f"{axis}axis").get_ticklabels(which=which)
                if ticks and min(t.get_fontsize() for t in ticks) < points:
                    ax.tick_params(axis=axis, which=which, labelsize=points)
    for text in fig.findobj(Text):
        if text.get_fontsize() < points:
            text.set_fontsize(points)
    return fig
