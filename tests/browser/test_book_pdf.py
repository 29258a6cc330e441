"""The book printed to one PDF (``bash scripts/book.sh --pdf``, book/pdf.py) by headless Chromium, offline.

The one-page book is built with Sphinx's singlehtml builder into a temporary folder and printed;
checked: no outside request (every one is aborted and recorded), every notebook of the chain is in
it in order, MathJax typeset the formulas before printing (no raw ``\\(`` left), the print styles
hide the navigation and keep theorem boxes and code cells whole, and the PDF has a page count in
the range the chain fills.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHAIN = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _pdf_module():
    sys.path.insert(0, str(REPO / "book"))
    spec = importlib.util.spec_from_file_location("book_pdf", REPO / "book" / "pdf.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_page_count_reads_page_objects_not_the_page_tree():
    pdf = _pdf_module()
    fake = b"<< /Type /Pages /Count 2 >> << /Type /Page >> << /Type/Page /Parent 1 0 R >> << /Type /PageLabel >>"
    assert pdf.page_count(fake) == 2


def test_the_book_prints_to_one_pdf_offline(chromium, tmp_path):
    pdf = _pdf_module()
    single = tmp_path / "singlehtml"
    pdf.build_single(single)
    out = tmp_path / "book.pdf"
    info = pdf.print_pdf(single / "index.html", out, browser=chromium)  # the session's browser: one playwright
    assert info["blocked"] == [], f"outside requests while printing: {info['blocked'][:5]}"
    assert out.read_bytes().startswith(b"%PDF-")
    titles = info["notebooks"]
    assert [t.split(" ")[0] for t in titles[: len(CHAIN)]] == [name[:2] for name in CHAIN], titles
    assert info["formulas"] > 500 and info["raw_tex"] == 0
    assert info["proof_break"] == "avoid" and info["cell_break"] == "avoid"
    assert not info["nav_shown"]
    assert 100 <= info["pages"] <= 600, info["pages"]
    # laid out at the printable width, nothing is wider: Chromium prints at full size (a long inline URL made it
    # 958 px wide, and the whole book came out at 0.7 of its size)
    assert info["width_px"] <= pdf.PRINTABLE_PX + 8, info["width_px"]
    assert info["solutions"] > 10  # the teacher's edition prints its worked solutions, and the count sees them
    print(f"[book pdf] {info['pages']} pages, {info['bytes'] / 2**20:.1f} MiB")


def test_the_students_book_prints_without_a_solution(chromium, tmp_path):
    """``bash scripts/book.sh --student --pdf``: the student edition's one-page book, printed; no worked solution on it."""
    pdf = _pdf_module()
    single = tmp_path / "student-singlehtml"
    pdf.build_single(single, "student")
    out = tmp_path / "book-student.pdf"
    info = pdf.print_pdf(single / "index.html", out, browser=chromium)
    assert info["blocked"] == [] and out.read_bytes().startswith(b"%PDF-")
    assert info["solutions"] == 0 and info["formulas"] > 500 and info["width_px"] <= pdf.PRINTABLE_PX + 8
    assert [t.split(" ")[0] for t in info["notebooks"][: len(CHAIN)]] == [name[:2] for name in CHAIN]
