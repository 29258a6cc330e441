"""PNG helpers of the viewers and the explorers: a figure's PNG bytes, a static PNG in a display bundle."""

from __future__ import annotations

import base64
import io
from typing import Any

#: the caption drawn over the still picture that stands in for a widget where no kernel runs
STILL_CAPTION = "still picture — run the notebook for the live explorer"

_BAND = (236, 236, 236)  # caption band
_INK = (68, 68, 68)  # caption text
_FRAME = (150, 150, 150)  # dashed frame around a still picture
_CAPTION_PX = 13


def figure_png(fig: Any, dpi: int, *, compress_level: int = 1) -> bytes:
    """The PNG bytes of a matplotlib figure (attached to an Agg canvas if it has none)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": compress_level})
    return buf.getvalue()


def _font(size: int):
    from matplotlib import font_manager
    from PIL import ImageFont

    return ImageFont.truetype(font_manager.findfont("DejaVu Sans"), size)


def _wrap(text: str, font: Any, width: float) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def still_picture(png: bytes, caption: str = STILL_CAPTION) -> bytes:
    """``png`` marked as a still picture: a caption band on top and a dashed grey frame.

    The picture itself is unchanged below the band (same width, ``band`` rows taller), so it
    can still be compared with the live widget's PNG.

    Examples
    --------
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (300, 200), "white").save(buf, format="PNG")
    >>> out = Image.open(io.BytesIO(still_picture(buf.getvalue())))
    >>> out.width, out.height > 200
    (300, True)
    """
    from PIL import Image, ImageDraw

    src = Image.open(io.BytesIO(png))
    src = src.convert("RGBA" if src.mode in ("RGBA", "LA", "P") else "RGB")
    font = _font(_CAPTION_PX)
    lines = _wrap(caption, font, max(src.width - 16, 40))
    line_h = _CAPTION_PX + 5
    band = 8 + line_h * len(lines)
    out = Image.new(src.mode, (src.width, src.height + band), (255, 255, 255, 255) if src.mode == "RGBA" else "white")
    out.paste(src, (0, band))
    draw = ImageDraw.Draw(out)
    draw.rectangle((0, 0, src.width - 1, band - 1), fill=_BAND)
    for k, line in enumerate(lines):
        draw.text((8, 5 + k * line_h), line, font=font, fill=_INK)
    w, h = out.width - 1, out.height - 1
    dash = 6
    for x in range(0, w, 2 * dash):  # a dashed frame: not a live widget
        draw.line((x, 0, min(x + dash, w), 0), fill=_FRAME)
        draw.line((x, h, min(x + dash, w), h), fill=_FRAME)
    for y in range(0, h, 2 * dash):
        draw.line((0, y, 0, min(y + dash, h)), fill=_FRAME)
        draw.line((w, y, w, min(y + dash, h)), fill=_FRAME)
    buf = io.BytesIO()
    out.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


def with_static_png(bundle: Any, png: Any, *, caption: str | None = STILL_CAPTION) -> Any:
    """Add ``image/png`` (bytes, or a callable returning bytes or None) to a widget's display bundle.

    Front-ends with a widget manager prefer the widget view; readers without a kernel (GitHub,
    nbviewer without widget state, PDF exports, the book) get the picture instead of an empty
    cell. The picture carries ``caption`` on a band above it and a dashed frame (see
    :func:`still_picture`), so that nobody takes it for a live widget without controls;
    ``caption=None`` leaves the PNG as it is.
    """
    if isinstance(bundle, dict):
        data = png() if callable(png) else png
        if data:
            if caption:
                data = still_picture(data, caption)
            bundle["image/png"] = base64.b64encode(data).decode("ascii")
    return bundle
