"""Kernel start-up code of the notebook build: every PNG a figure is printed to records its smallest text.

``scripts/build_notebooks.py`` runs this file in each kernel before the first cell (an IPython
start-up file). It wraps matplotlib's ``FigureCanvasBase.print_figure``: while a figure is printed
to PNG (the inline backend's output, the explorers' pictures), every text actually drawn is noted,
and the PNG gets a ``tEXt`` chunk ``rfnb-min-text-px`` with the smallest font size in pixels at
the PNG's own resolution, and ``rfnb-min-text`` with that text. ``tests/test_figure_text.py`` reads
the chunks from the committed notebooks and checks that every text reads at 9 px or more where the
book's column shows the picture. Nothing else changes: the pixels are the same.
"""

import io
import struct
import zlib

import matplotlib.backend_bases as _backend_bases
import matplotlib.text as _text


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def with_text_chunks(png: bytes, items: dict) -> bytes:
    """``png`` with ``tEXt`` chunks (latin-1 keys and values) inserted before its image data (where readers look)."""
    end = png.find(b"IDAT") - 4
    if end < 8 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return png
    extra = b"".join(_chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1", "replace")) for k, v in items.items())
    return png[:end] + extra + png[end:]


_print_figure = _backend_bases.FigureCanvasBase.print_figure
_draw = _text.Text.draw


def _audited_print_figure(self, filename, *args, **kwargs):
    fmt = str(kwargs.get("format") or getattr(filename, "name", "") or "").lower()
    if not (fmt.endswith("png") and isinstance(filename, io.BytesIO)):
        return _print_figure(self, filename, *args, **kwargs)
    seen = []

    def draw(text, renderer, *a, **k):
        if text.get_visible() and text.get_text().strip():
            seen.append((float(text.get_fontsize()), text.get_text().strip()))
        return _draw(text, renderer, *a, **k)

    start = filename.tell()
    _text.Text.draw = draw
    try:
        out = _print_figure(self, filename, *args, **kwargs)
    finally:
        _text.Text.draw = _draw
    if seen:
        dpi = kwargs.get("dpi")
        dpi = self.figure.dpi if dpi in (None, "figure") else float(dpi)
        size, text = min(seen)
        png = filename.getvalue()[start:]
        filename.seek(start)
        filename.truncate()
        filename.write(with_text_chunks(png, {"rfnb-min-text-px": f"{size * dpi / 72:.2f}", "rfnb-min-text": text[:80]}))
    return out


_backend_bases.FigureCanvasBase.print_figure = _audited_print_figure
