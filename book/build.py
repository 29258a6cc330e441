"""Build the offline book: vendor MathJax and the widget manager, transform the chain, write the API page, run Sphinx.

Usage (from the repository root; ``bash scripts/book.sh`` sets up ``.venv`` and calls this)::

    python book/build.py                 # HTML into book/_build/html
    python book/build.py --strict        # warnings are errors (-W --keep-going), as in CI
    python book/build.py --clean         # forget the previous build first
    python book/build.py --out DIR       # HTML into DIR
    python book/build.py --pdf           # the whole book as one PDF, book/_build/book.pdf (book/pdf.py)
    python book/build.py --student       # the student build, without worked solutions, into book/_build/student-html
    python book/build.py --student --pdf # its PDF, book/_build/book-student.pdf

Nothing is executed: the book shows the outputs stored in ``notebooks/*.ipynb``. What Sphinx reads
that is generated (MathJax 3 and the widget bundles taken once from the npm registry, the
transformed chain, the API page) is written by book/sources.py, which book/pdf.py uses as well.
Prints the build time and the size of the built site.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
DEFAULT_OUT = BOOK / "_build" / "html"
STUDENT_OUT = BOOK / "_build" / "student-html"

sys.path.insert(0, str(BOOK))
import sources  # noqa: E402  (book/sources.py: what Sphinx reads that is generated)
import transform  # noqa: E402  (book/transform.py)


def site_size(out: Path) -> tuple[int, int]:
    """(bytes, files) of the built site."""
    files = [p for p in out.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def build(out: Path = DEFAULT_OUT, *, strict: bool = False, clean: bool = False, quiet: bool = False,
          edition: str = "teacher") -> float:
    """Prepare the sources and run sphinx-build; return the seconds it took (raises on failure).

    ``edition="student"`` builds from the student edition of the chain (no worked solution; its sources
    are written to book/_build/student-src), with the same configuration (book/conf.py).
    """
    t0 = time.perf_counter()
    out = Path(out).resolve()
    doctrees = out.parent / f".doctrees-{out.name}"
    if clean:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(doctrees, ignore_errors=True)
        shutil.rmtree(sources.source_dir(edition) / "api" / "generated", ignore_errors=True)
    src = sources.prepare(edition)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(BOOK), "-d", str(doctrees), str(src), str(out)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if quiet:
        cmd += ["-q"]
    env = dict(os.environ, PYTHONWARNINGS=os.environ.get("PYTHONWARNINGS", ""), RFNB_BOOK_EDITION=edition)
    env.setdefault("MPLBACKEND", "Agg")
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    """Build the book; print where it is, how long it took and how large it is."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None,
                    help=f"output folder (default {DEFAULT_OUT.relative_to(ROOT)}; {STUDENT_OUT.relative_to(ROOT)}, --student)")
    ap.add_argument("--student", action="store_true", help="the student build: the student edition's chain, no worked solution")
    ap.add_argument("--strict", action="store_true", help="treat warnings as errors (-W --keep-going), as CI does")
    ap.add_argument("--clean", action="store_true", help="remove the previous build and generated API pages first")
    ap.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors from Sphinx")
    ap.add_argument("--pdf", action="store_true", help="print the book to book/_build/book.pdf instead (book/pdf.py)")
    args = ap.parse_args(argv)
    if args.pdf:
        import pdf  # book/pdf.py: the one-page book printed by headless Chromium

        return pdf.main(["--student"] if args.student else [])
    edition = "student" if args.student else "teacher"
    if args.out is None:
        args.out = STUDENT_OUT if args.student else DEFAULT_OUT
    try:
        seconds = build(args.out, strict=args.strict, clean=args.clean, quiet=args.quiet, edition=edition)
    except subprocess.CalledProcessError as exc:
        print(f"[book] sphinx-build failed (exit {exc.returncode})", file=sys.stderr)
        return 1
    except transform.TransformError as exc:
        print(f"[book] {exc}", file=sys.stderr)
        return 1
    size, n = site_size(args.out)
    index = Path(args.out).resolve() / "index.html"
    print(f"[book] the {edition}'s build in {seconds:.1f} s: {index} ({size / 2**20:.1f} MiB in {n} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
