"""PNG helpers of the viewers and the explorers: a figure's PNG bytes, a static PNG in a display bundle."""

from __future__ import annotations

import base64
import io
from typing import Any


def figure_png(fig: Any, dpi: int, *, compress_level: int = 1) -> bytes:
    """The PNG bytes of a matplotlib figure (attached to an Agg canvas if it has none)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": compress_level})
    return buf.getvalue()


def with_static_png(bundle: Any, png: Any) -> Any:
    """Add ``image/png`` (bytes, or a callable returning bytes or None) to a widget's display bundle.

    Front-ends with a widget manager prefer the widget view; readers without a kernel (GitHub,
    nbviewer without widget state, PDF exports) get the picture instead of an empty cell.
    """
    if isinstance(bundle, dict):
        data = png() if callable(png) else png
        if data:
            bundle["image/png"] = base64.b64encode(data).decode("ascii")
    return bundle
