"""Every text of every stored figure reads at 9 px or more where the book's column shows it.

The notebook build (``scripts/build_notebooks.py``) runs ``scripts/_figure_audit.py`` in each kernel:
the PNG of a figure carries the size of its smallest drawn text at the PNG's own resolution. The book
shows a picture at most ``BOOK_COLUMN_PX`` wide, so that size shrinks with wide pictures.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pytest

from relu_frames_nb.viz.readable import BOOK_COLUMN_PX, MIN_TEXT_PX, readable, smallest_points

ROOT = Path(__file__).resolve().parents[1]
CHAIN = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

Image = pytest.importorskip("PIL.Image")


def _audit_module():
    spec = importlib.util.spec_from_file_location("_figure_audit", ROOT / "scripts" / "_figure_audit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pictures():
    for path in CHAIN:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for k, cell in enumerate(nb["cells"]):
            for out in cell.get("outputs", []):
                png = out.get("data", {}).get("image/png")
                if png:
                    yield f"{path.stem} cell {k}", Image.open(io.BytesIO(base64.b64decode(png)))


def test_every_stored_figure_reads_at_9px_in_the_book():
    audited, small = 0, []
    for where, im in _pictures():
        px = im.info.get("rfnb-min-text-px")
        if px is None:  # not printed by matplotlib (a widget's still picture drawn with PIL)
            continue
        audited += 1
        shown = float(px) * min(1.0, BOOK_COLUMN_PX / im.width)
        if shown < MIN_TEXT_PX - 0.05:
            small.append(f"{where}: {im.info.get('rfnb-min-text')!r} reads at {shown:.1f} px ({im.width} px wide)")
    assert audited >= 20, f"only {audited} pictures carry the audit: were the notebooks built by scripts/build_notebooks.py?"
    assert not small, "texts below 9 px in the book:\n" + "\n".join(small)


def test_readable_raises_only_the_small_texts():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4), dpi=100)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(fontsize=8)
    ax.tick_params(labelsize=8)
    ax.set_title("a title", fontsize=20)
    readable(fig)
    FigureCanvasAgg(fig).draw()
    need = smallest_points(12, 100)
    sizes = [t.get_fontsize() for t in ax.get_xticklabels() + ax.get_legend().get_texts()]
    assert min(sizes) >= need and ax.title.get_fontsize() == 20  # a large text is left as it is
    assert need * 100 / 72 * BOOK_COLUMN_PX / 1200 == pytest.approx(MIN_TEXT_PX)


def test_the_audit_records_the_smallest_drawn_text_and_keeps_the_pixels():
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    original = FigureCanvasBase.print_figure
    audit = _audit_module()  # patches print_figure, as in a kernel of the notebook build
    try:
        fig = Figure(figsize=(4, 3), dpi=100)
        ax = fig.subplots()
        ax.set_title("tiny", fontsize=5)
        ax.tick_params(labelsize=12)
        FigureCanvasAgg(fig)
        plain, buf = io.BytesIO(), io.BytesIO()
        audit._print_figure(fig.canvas, plain, format="png")  # the original
        fig.canvas.print_figure(buf, format="png")
        im = Image.open(io.BytesIO(buf.getvalue()))
        im.load()
        assert im.info["rfnb-min-text"] == "tiny"
        assert float(im.info["rfnb-min-text-px"]) == pytest.approx(5 * 100 / 72, abs=0.01)
        same = np.asarray(Image.open(io.BytesIO(plain.getvalue())).convert("RGB"))
        assert np.array_equal(np.asarray(im.convert("RGB")), same)  # the picture itself is unchanged
    finally:
        FigureCanvasBase.print_figure = original
