"""Print the offline book to one PDF with headless Chromium (no network).

Usage (from the repository root; ``bash scripts/book.sh --pdf`` sets up ``.venv`` and calls this)::

    python book/pdf.py                       # book/_build/book.pdf
    python book/pdf.py --out FILE.pdf
    python book/pdf.py --student             # book/_build/book-student.pdf: no worked solution

Sphinx writes the whole book as one page (the ``singlehtml`` builder, same sources and
configuration as the HTML book), Chromium opens it from disk with every request that is not a
local file aborted, waits until MathJax has typeset every formula, and prints it (A4, print
styles from ``_static/book.css``: no navigation, each notebook on a new page, theorem, exercise and
code boxes kept whole). Prints the page count, the size and the time. Needs Debian's ``chromium``
(``$RFNB_CHROMIUM``, default ``/usr/bin/chromium``) and Python's ``playwright`` (never
``playwright install``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
SINGLE = BOOK / "_build" / "singlehtml"
DEFAULT_PDF = BOOK / "_build" / "book.pdf"
STUDENT_SINGLE = BOOK / "_build" / "student-singlehtml"
STUDENT_PDF = BOOK / "_build" / "book-student.pdf"
#: the printable width of an A4 page between the margins below (210 mm - 2 x 14 mm), in CSS pixels
PRINTABLE_PX = round((210 - 2 * 14) / 25.4 * 96)
CHROMIUM = os.environ.get("RFNB_CHROMIUM", "/usr/bin/chromium")
#: headless Chromium flags (tests/browser/conftest.py has the same for WebGL; printing needs no GPU)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip

sys.path.insert(0, str(BOOK))
import sources  # noqa: E402  (book/sources.py: what Sphinx reads that is generated)


def page_count(pdf: bytes) -> int:
    """The number of pages of a PDF (its page objects; Chromium writes them uncompressed)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def build_single(out: Path = SINGLE, edition: str = "teacher") -> float:
    """The whole book as one HTML page (Sphinx's singlehtml builder); returns the seconds it took."""
    t0 = time.perf_counter()
    src = sources.prepare(edition)
    doctrees = out.parent / f".doctrees-{out.name}"
    cmd = [sys.executable, "-m", "sphinx", "-b", "singlehtml", "-q", "-c", str(BOOK), "-d", str(doctrees), str(src), str(out)]
    env = dict(os.environ, MPLBACKEND="Agg", RFNB_BOOK_EDITION=edition)
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0


def print_pdf(html: Path, pdf: Path, *, timeout_ms: int = 180_000, browser=None) -> dict:
    """Print ``html`` (a local file) to ``pdf``, in ``browser`` (a playwright Browser) or a Chromium of its own.

    Returns ``pages``, ``bytes``, ``blocked`` (the outside requests, aborted), and what the printed
    page held: ``formulas`` typeset, ``raw_tex`` delimiters left in the text, the print styles'
    ``proof_break``/``cell_break`` (``"avoid"``), ``nav_shown``, the ``notebooks``' titles in order and
    ``solutions``: the worked-solution boxes and ``ex.solution(`` calls on the page (none in the student's), and
    ``width_px``: the page's width laid out at the printable width :data:`PRINTABLE_PX` (more: the print is shrunk).
    """
    if browser is not None:
        return _print_in(browser, html, pdf, timeout_ms)
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"book pdf: Chromium not found at {CHROMIUM} (apt-get install -y chromium, or set RFNB_CHROMIUM)")
    with sync_playwright() as pw:
        own = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            return _print_in(own, html, pdf, timeout_ms)
        finally:
            own.close()


def _print_in(browser, html: Path, pdf: Path, timeout_ms: int) -> dict:
    blocked: list[str] = []
    page = browser.new_page()
    try:

        def route(r):
            if r.request.url.startswith(("file:", "data:", "blob:")):
                r.continue_()
            else:  # the book reads offline: an outside request is a defect, and never waited for
                blocked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.goto(html.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
        page.emulate_media(media="print")
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=timeout_ms)
        page.evaluate("() => MathJax.startup.promise")
        # laid out at the printable width: an element wider than that makes Chromium shrink every page to fit it
        page.set_viewport_size({"width": PRINTABLE_PX, "height": 1000})
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        stats = page.evaluate(r"""() => {
            const style = (sel) => { const el = document.querySelector(sel); return el ? getComputedStyle(el) : null; };
            const text = document.querySelector("article.bd-article").innerText;
            return {
                formulas: document.querySelectorAll("mjx-container").length,
                raw_tex: (text.match(/\\\(|\\\[/g) || []).length,
                proof_break: (style("div.proof") || {}).breakInside,
                cell_break: (style("div.cell") || {}).breakInside,
                nav_shown: (style(".bd-sidebar-primary") || {display: "none"}).display !== "none",
                notebooks: [...document.querySelectorAll("article.bd-article div.toctree-wrapper > section > h2")]
                    .map(h => h.textContent.trim()),
                // worked solutions on the printed page: sphinx-exercise's solution boxes, and the marking call
                solutions: document.querySelectorAll('article.bd-article [class~="solution"]').length
                    + (text.match(/ex\.solution\(/g) || []).length,
            };
        }""")
        page.pdf(path=str(pdf), format="A4", print_background=True, prefer_css_page_size=True,
                 margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})  # fmt: skip
    finally:
        page.close()
    data = pdf.read_bytes()
    return {"pages": page_count(data), "bytes": len(data), "blocked": blocked, "width_px": wide, **stats}


def main(argv: list[str] | None = None) -> int:
    """Build the one-page book, print it, report pages, size and time; exit 1 on an outside request."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None,
                    help=f"the PDF (default {DEFAULT_PDF.relative_to(ROOT)}, {STUDENT_PDF.relative_to(ROOT)} with --student)")
    ap.add_argument("--student", action="store_true", help="print the student build (no worked solution)")
    args = ap.parse_args(argv)
    single = STUDENT_SINGLE if args.student else SINGLE
    if args.out is None:
        args.out = STUDENT_PDF if args.student else DEFAULT_PDF
    t0 = time.perf_counter()
    try:
        build_single(single, "student" if args.student else "teacher")
    except subprocess.CalledProcessError as exc:
        print(f"[book pdf] sphinx-build -b singlehtml failed (exit {exc.returncode})", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    info = print_pdf(single / "index.html", args.out)
    seconds = time.perf_counter() - t0
    print(f"[book pdf] {args.out.resolve()}: {info['pages']} pages, {info['bytes'] / 2**20:.1f} MiB, {seconds:.0f} s")
    if info["blocked"]:
        print(f"[book pdf] {len(info['blocked'])} outside requests were blocked: {info['blocked'][:3]}", file=sys.stderr)
        return 1
    if args.student and info["solutions"]:
        print(f"[book pdf] the student's PDF shows {info['solutions']} worked solution(s): not for students", file=sys.stderr)
        return 1
    print(f"[book pdf] worked solutions on the printed page: {info['solutions']}")
    if info["width_px"] > PRINTABLE_PX + 8:
        print(f"[book pdf] warning: the page is {info['width_px']} px wide at the printable {PRINTABLE_PX} px: an element does "
              "not wrap, and every page is printed smaller to fit it", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
