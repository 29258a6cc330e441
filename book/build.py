"""Build the offline book: vendor MathJax and the widget manager, transform the chain, write the API page, run Sphinx.

Usage (from the repository root; ``bash scripts/book.sh`` sets up ``.venv`` and calls this)::

    python book/build.py                 # HTML into book/_build/html
    python book/build.py --strict        # warnings are errors (-W --keep-going), as in CI
    python book/build.py --clean         # forget the previous build first
    python book/build.py --out DIR       # HTML into DIR
    python book/build.py --pdf           # the whole book as one PDF, book/_build/book.pdf (book/pdf.py)

Nothing is executed: the book shows the outputs stored in ``notebooks/*.ipynb``. MathJax 3 is
taken from the npm registry once (``npm install mathjax@3.2.2`` into a cache folder,
``$RFNB_BOOK_CACHE`` or ``~/.cache/relu_frames_nb``) and only the parts the pages need are
copied into the site, so that a page needs no remote script or font. Prints the build time
and the size of the built site.
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
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = BOOK / "_build" / "html"

MATHJAX_VERSION = "3.2.2"
#: the parts of MathJax's es5/ bundle the book needs (2 MB of its 24 MB)
MATHJAX_PARTS = ["tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions"]
VENDOR = BOOK / "_vendor"  # html_static_path: copied into the site's _static/

sys.path.insert(0, str(BOOK))
import transform  # noqa: E402  (book/transform.py)

#: API sections: title, then the modules (prefixes of ``__module__``) whose public names go there
API_SECTIONS = [
    ("Frames and layers", ["relu_frames_nb.frames", "relu_frames_nb.layer", "relu_frames_nb.zoo", "relu_frames_nb.sizes"]),
    ("Domains", ["relu_frames_nb.domains"]),
    ("Rectifying frames, maximal domains, collisions",
     ["relu_frames_nb.rectifying", "relu_frames_nb.zero_bias", "relu_frames_nb.depth", "relu_frames_nb.local_invertibility"]),
    ("Bias estimation", ["relu_frames_nb.bias"]),
    ("Reconstruction", ["relu_frames_nb.reconstruction", "relu_frames_nb.left_inverse", "relu_frames_nb.frame_algorithm"]),
    ("Stability", ["relu_frames_nb.stability"]),
    ("The check: verdicts, the exact stage, networks",
     ["relu_frames_nb.checking", "relu_frames_nb.verdict", "relu_frames_nb.exact", "relu_frames_nb.network"]),
    ("Errors", ["relu_frames_nb.errors"]),
]
#: deprecated aliases still in ``__all__`` for one release (they warn): listed apart, with what replaces them
DEPRECATED = {
    "decide": "rf.check(layer, K)",
    "exact_verdict": 'rf.check(layer, K, method="exact")',
    "check_network": "rf.check(net, K)",
}
#: the explorers of ``relu_frames_nb.viz.widgets`` (tests/test_book_api.py checks that none is missing)
EXPLORERS = ["FrameExplorer2D", "PolytopeExplorer3D", "ReconstructionPlayground", "DigitsExplorer"]


def cache_dir() -> Path:
    """Where the npm download of MathJax is kept between builds."""
    env = os.environ.get("RFNB_BOOK_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "relu_frames_nb"


def vendor_mathjax() -> Path:
    """Copy the needed parts of MathJax 3 into ``book/_vendor/mathjax`` (npm install once into the cache)."""
    target = VENDOR / "mathjax"
    stamp = target / f".mathjax-{MATHJAX_VERSION}"
    if stamp.exists():
        return target
    prefix = cache_dir() / f"mathjax-{MATHJAX_VERSION}"
    es5 = prefix / "node_modules" / "mathjax" / "es5"
    if not (es5 / "tex-chtml.js").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("book: npm is needed once to fetch MathJax 3 (apt-get install -y npm), or copy MathJax's "
                             f"es5/ folder to {es5}")  # fmt: skip
        prefix.mkdir(parents=True, exist_ok=True)
        print(f"[book] fetching mathjax@{MATHJAX_VERSION} from the npm registry into {prefix}", flush=True)
        subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
                        f"mathjax@{MATHJAX_VERSION}"], check=True)  # fmt: skip
    if target.exists():
        shutil.rmtree(target)
    for part in MATHJAX_PARTS:
        src, dst = es5 / part, target / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)
    stamp.touch()
    return target


#: the npm packages that draw the saved 3-D scenes without a kernel (versions that match ipywidgets 8 and
#: pythreejs 2.4, whose widget state the notebooks save): package -> the files of it the site needs
WIDGET_PACKAGES = {
    "@jupyter-widgets/html-manager@1.0.15": ["dist/embed-amd.js", "dist/*.woff2", "dist/*.woff", "dist/*.ttf",
                                             "dist/*.eot", "dist/*.svg", "package.json"],
    "jupyter-threejs@2.4.1": ["dist/index.js", "dist/index.js.LICENSE.txt", "LICENSE", "package.json"],
    "requirejs@2.3.8": ["require.js", "package.json"],
}
#: where each package's files go in book/_vendor/widgets (the site's _static/widgets)
WIDGET_DIRS = {"@jupyter-widgets/html-manager": "", "jupyter-threejs": "jupyter-threejs", "requirejs": ""}


def copy_from_npm(spec: str, patterns: list[str], dest: Path) -> list[Path]:
    """Copy the files of npm package ``spec`` (``name@version``) that match ``patterns`` into ``dest``.

    The package's tarball is fetched once (``npm pack``, no dependencies) into the cache. ``LICENSE``
    and ``package.json`` are renamed after the package (``LICENSE-<name>``, ``package-<name>.json``) so
    that several packages can share a folder. Returns the written files.
    """
    import tarfile

    name, version = spec.rsplit("@", 1)
    cache = cache_dir() / "npm"
    cache.mkdir(parents=True, exist_ok=True)
    tgz = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tgz.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"npm is needed once to fetch {spec} (apt-get install -y npm), or put {tgz.name} "
                             f"(npm pack {spec}) into {cache}")  # fmt: skip
        print(f"[npm] fetching {spec} from the npm registry into {cache}", flush=True)
        subprocess.run([npm, "pack", "--silent", "--pack-destination", str(cache), spec], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    dest.mkdir(parents=True, exist_ok=True)
    short = name.split("/")[-1]
    written = []
    with tarfile.open(tgz) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if m.isfile() and "/" in m.name}
        for pattern in patterns:
            found = [n for n in members if Path(n).match(pattern)]
            if not found:
                raise SystemExit(f"{spec} has no file {pattern}")
            for n in found:
                rename = {"LICENSE": f"LICENSE-{short}", "LICENSE.txt": f"LICENSE-{short}.txt",
                          "package.json": f"package-{short}.json"}  # fmt: skip
                out = dest / (rename.get(n) or Path(n).name)
                out.write_bytes(tar.extractfile(members[n]).read())
                written.append(out)
    return written


def vendor_widgets() -> Path:
    """Copy the ipywidgets HTML manager, jupyter-threejs and RequireJS into ``book/_vendor/widgets``.

    Each package is taken once from the npm registry as its tarball (:func:`copy_from_npm`: the files
    are self-contained bundles); only the files listed in :data:`WIDGET_PACKAGES` are copied, with each
    package's licence (its ``package.json`` says which, and its LICENSE where it has one).
    """
    target = VENDOR / "widgets"
    stamp = target / (".widgets-" + "-".join(p.rsplit("@", 1)[1] for p in WIDGET_PACKAGES))
    if stamp.exists():
        return target
    if target.exists():
        shutil.rmtree(target)
    for spec, patterns in WIDGET_PACKAGES.items():
        name = spec.rsplit("@", 1)[0]
        copy_from_npm(spec, patterns, target / WIDGET_DIRS[name])
    stamp.touch()
    return target


def _section_of(module: str) -> str:
    for title, prefixes in API_SECTIONS:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return title
    return "Other"


def write_api_page(path: Path) -> list[str]:
    """Write the API reference page (autosummary tables) for ``relu_frames_nb.__all__`` and the explorers.

    Returns the documented names. A name in ``__all__`` whose module fits no section lands in "Other".
    """
    import inspect

    import relu_frames_nb as rf

    sections: dict[str, list[str]] = {}
    deprecated = [name for name in rf.__all__ if name in DEPRECATED]
    for name in rf.__all__:
        if name in DEPRECATED:
            continue
        obj = getattr(rf, name)
        module = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", "") or ""
        sections.setdefault(_section_of(module), []).append(name)
    order = [t for t, _ in API_SECTIONS if t in sections] + (["Other"] if "Other" in sections else [])
    lines = [
        "# API reference",
        "",
        "Every public name of `relu_frames_nb` (`relu_frames_nb.__all__`), grouped by topic, and the",
        "interactive explorers of `relu_frames_nb.viz.widgets`. Each page is generated from the numpydoc",
        "docstring of the object. `import relu_frames_nb as rf` gives them all as `rf.NAME`.",
        "",
    ]
    for title in order:
        lines += [f"## {title}", "", "```{eval-rst}", ".. currentmodule:: relu_frames_nb", "",
                  ".. autosummary::", "   :toctree: generated", ""]  # fmt: skip
        lines += [f"   {name}" for name in sections[title]]
        lines += ["```", ""]
    if deprecated:
        lines += ["## Deprecated aliases", "",
                  "Kept for one release; each warns (`DeprecationWarning`) and returns the same `Verdict` as",
                  "`rf.check`, the one front door:", ""]  # fmt: skip
        lines += [f"* `rf.{name}` — use `{DEPRECATED[name]}`" for name in deprecated]
        lines += [""]
    lines += ["## Interactive explorers", "",
              "The explorers need a running kernel; in this book their pictures are stills (open a notebook",
              "with the launch button at the top of its page to use them).", "",
              "```{eval-rst}", ".. currentmodule:: relu_frames_nb.viz.widgets", "",
              ".. autosummary::", "   :toctree: generated", ""]  # fmt: skip
    lines += [f"   {name}" for name in EXPLORERS]
    lines += ["```", ""]
    text = "\n".join(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return [*rf.__all__, *EXPLORERS]


def site_size(out: Path) -> tuple[int, int]:
    """(bytes, files) of the built site."""
    files = [p for p in out.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def copy_notebooks() -> Path:
    """The chain's notebooks as they are (``notebooks/NN_slug.ipynb``), for each page's download button."""
    target = VENDOR / "ipynb"
    target.mkdir(parents=True, exist_ok=True)
    names = set()
    for path in transform.chain_sources(NOTEBOOKS):
        names.add(path.name)
        dest = target / path.name
        if not dest.exists() or dest.read_bytes() != path.read_bytes():
            shutil.copy2(path, dest)
    for stale in target.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    return target


def prepare() -> None:
    """Everything Sphinx reads that is generated: MathJax, the transformed chain, the API page."""
    vendor_mathjax()
    vendor_widgets()
    copy_notebooks()
    transform.transform_chain(NOTEBOOKS, BOOK / "notebooks")
    write_api_page(BOOK / "api" / "index.md")


def build(out: Path = DEFAULT_OUT, *, strict: bool = False, clean: bool = False, quiet: bool = False) -> float:
    """Prepare the sources and run sphinx-build; return the seconds it took (raises on failure)."""
    t0 = time.perf_counter()
    out = Path(out).resolve()
    doctrees = out.parent / f".doctrees-{out.name}"
    if clean:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(doctrees, ignore_errors=True)
        shutil.rmtree(BOOK / "api" / "generated", ignore_errors=True)
    prepare()
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-d", str(doctrees), str(BOOK), str(out)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if quiet:
        cmd += ["-q"]
    env = dict(os.environ, PYTHONWARNINGS=os.environ.get("PYTHONWARNINGS", ""))
    env.setdefault("MPLBACKEND", "Agg")
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    """Build the book; print where it is, how long it took and how large it is."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT.relative_to(ROOT)})")
    ap.add_argument("--strict", action="store_true", help="treat warnings as errors (-W --keep-going), as CI does")
    ap.add_argument("--clean", action="store_true", help="remove the previous build and generated API pages first")
    ap.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors from Sphinx")
    ap.add_argument("--pdf", action="store_true", help="print the book to book/_build/book.pdf instead (book/pdf.py)")
    args = ap.parse_args(argv)
    if args.pdf:
        import pdf  # book/pdf.py: the one-page book printed by headless Chromium

        return pdf.main([])
    try:
        seconds = build(args.out, strict=args.strict, clean=args.clean, quiet=args.quiet)
    except subprocess.CalledProcessError as exc:
        print(f"[book] sphinx-build failed (exit {exc.returncode})", file=sys.stderr)
        return 1
    except transform.TransformError as exc:
        print(f"[book] {exc}", file=sys.stderr)
        return 1
    size, n = site_size(args.out)
    index = Path(args.out).resolve() / "index.html"
    print(f"[book] built in {seconds:.1f} s: {index} ({size / 2**20:.1f} MiB in {n} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
