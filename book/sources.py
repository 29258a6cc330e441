"""What Sphinx reads that is generated, shared by the HTML book (book/build.py) and its PDF (book/pdf.py).

:func:`prepare` writes it all: MathJax 3 and the widget bundles, vendored from the npm registry (taken
once into a cache folder, ``$RFNB_BOOK_CACHE`` or ``~/.cache/relu_frames_nb``; only the parts the pages
need are copied into the site, so that a page needs no remote script or font), the chain's notebooks
for each page's download button, the transformed chain (book/transform.py) and the API page.

book/build.py and book/pdf.py both import this module; pdf.py does not import build.py (build.py's
``--pdf`` calls pdf.py), so the two make no circle (tests/test_no_cycles.py keeps book/ and scripts/
free of them). scripts/app.py takes :func:`copy_from_npm` (the npm tarball cache) from here too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
NOTEBOOKS = ROOT / "notebooks"

MATHJAX_VERSION = "3.2.2"
#: the parts of MathJax's es5/ bundle the book needs (2 MB of its 24 MB)
MATHJAX_PARTS = ["tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions"]
VENDOR = BOOK / "_vendor"  # html_static_path: copied into the site's _static/

if str(BOOK) not in sys.path:
    sys.path.insert(0, str(BOOK))
import transform  # noqa: E402  (book/transform.py)

#: API sections: title, then the modules (prefixes of ``__module__``) whose public names go there
API_SECTIONS = [
    ("Frames and layers",
     ["relu_frames_nb.frames", "relu_frames_nb.layer", "relu_frames_nb.zoo", "relu_frames_nb.paper.sizes"]),
    ("Domains", ["relu_frames_nb.domains"]),
    ("Rectifying frames, maximal domains, collisions",
     ["relu_frames_nb.paper.rectifying", "relu_frames_nb.paper.zero_bias", "relu_frames_nb.paper.depth",
      "relu_frames_nb.paper.local_invertibility"]),
    ("Bias estimation", ["relu_frames_nb.paper.bias"]),
    ("Reconstruction",
     ["relu_frames_nb.paper.reconstruction", "relu_frames_nb.paper.left_inverse", "relu_frames_nb.paper.frame_algorithm"]),
    ("Stability", ["relu_frames_nb.paper.stability"]),
    ("The check: verdicts, the exact stage, networks",
     ["relu_frames_nb.checking", "relu_frames_nb.verdict", "relu_frames_nb.exact", "relu_frames_nb.network",
      "relu_frames_nb.pipeline"]),
    ("Errors", ["relu_frames_nb.errors"]),
]
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
    for name in rf.__all__:
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


def _table(rows: list[dict]) -> list[str]:
    lines = ["| # | stage | what it does | what a success proves | time |", "|---|---|---|---|---|"]
    for r in rows:
        cells = [str(r["order"]), f"`{r['name']}`", r["summary"], r["proves"], r["share"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines + [""]


def _number(value) -> str:
    """A guard's value for the page: ``1e-09``, or ``1e-06, 0.0001, 0.01, 0`` for a sequence."""
    return ", ".join(f"{v:g}" for v in value) if isinstance(value, tuple) else f"{value:g}"


def write_stages_page(path: Path) -> str:
    """Write the page "How a check runs" from the stage lists themselves (``rf.describe_stages()``); returns it."""
    import relu_frames_nb as rf

    d = rf.describe_stages()
    lines = [
        "# How a check runs",
        "",
        "`rf.check(model, K)` brings the problem to its normal form once (every row and the domain scaled by",
        "exact powers of two, so that every tolerance below means the same thing in any units), makes one",
        "context (a time and memory budget, the seed, the tolerances) and runs an ordered list of stages until",
        "one of them proves the answer either way. A stage that does not apply is skipped; a stage that uses",
        "up its share of the time ends with a note and the next one runs. Before the verdict leaves, a pair is",
        "checked again in your own coordinates and a certificate is confronted with points of `K`. This page is",
        "generated from the lists the code runs (`rf.describe_stages()`), so it cannot fall behind them.",
        "",
    ]
    for method, rows in d["methods"].items():
        lines += [f"## `method=\"{method}\"`", ""] + _table(rows)
    lines += ["## The exact engine's searches", "",
              "The `exact` stage runs its own list (`relu_frames_nb.exact.engine.ENGINE_STAGES`) on the layer in the",
              "domain's own affine coordinates:", ""] + _table(d["exact engine"])  # fmt: skip
    lines += ["## A network", "",
              "`rf.check(net, K)` first rewrites what it can (an affine last layer, affine layers merged), then runs the",
              "network's own list:", ""] + _table(d["network"])  # fmt: skip
    lines += ["Each layer, in turn, runs:", ""] + _table(d["network layer"])
    lines += ["## Tolerances", "",
              "Every tolerance of the check, relative to the normal form; a certificate lists the ones its proof used.",
              "A comparison that falls within a rounding bound is never taken as a proof.", "",
              "| name | default | what it bounds |", "|---|---|---|"]  # fmt: skip
    lines += [f"| `{name}` | {value:g} | {text} |" for name, value, text in d["tolerances"]]
    lines += ["", "The package's fixed numerical guards: constants, not options, every one of them in one module",
              "(`relu_frames_nb._util.tolerances`, re-exported by `relu_frames_nb.pipeline.tolerances`). Those marked",
              "(drawing) decide only what a picture shows, (experiments) only an experiment's summary, never a verdict:",
              "", "| name | value | what it bounds |", "|---|---|---|"]  # fmt: skip
    lines += [f"| `{name}` | {_number(value)} | {text} |" for name, value, text in d["guards"]]
    lines.append("")
    text = "\n".join(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return text


#: the book's two builds: the teacher's (worked solutions folded away) and the student's (none)
EDITIONS = ("teacher", "student")
#: where the student build's sources are written (the teacher's are book/ itself)
STUDENT_SRC = BOOK / "_build" / "student-src"
#: the hand-written pages, copied into the student build's sources
PAGES = ("index.md", "course.md")


def _check_edition(edition: str) -> str:
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}; got {edition!r}")
    return edition


def source_dir(edition: str = "teacher") -> Path:
    """The folder Sphinx reads the pages from (its configuration is book/conf.py for both editions)."""
    return BOOK if _check_edition(edition) == "teacher" else STUDENT_SRC


def ipynb_static(edition: str = "teacher") -> Path:
    """A static folder of book/conf.py's ``html_static_path`` whose ``ipynb/`` holds the pages' notebooks to download."""
    return BOOK / "_build" / f"ipynb-{_check_edition(edition)}"


def _student_notebook():
    """``student_notebook(nb, name)`` of scripts/student_edition.py, as ``nb -> nb`` (the one place the edition is made)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_rfnb_student_edition", ROOT / "scripts" / "student_edition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return lambda nb, name: module.student_notebook(nb, name)[0]


def _write_if_changed(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def copy_notebooks(edition: str = "teacher") -> Path:
    """The chain's notebooks for each page's download button: as they are, or the student edition's (no solution)."""
    import nbformat

    target = ipynb_static(edition) / "ipynb"
    target.mkdir(parents=True, exist_ok=True)
    student = _student_notebook() if edition == "student" else None
    names = set()
    for path in transform.chain_sources(NOTEBOOKS):
        names.add(path.name)
        if student is None:
            data = path.read_bytes()
        else:
            data = (nbformat.writes(student(nbformat.read(path, as_version=4), path.stem)) + "\n").encode("utf-8")
        _write_if_changed(target / path.name, data)
    for stale in target.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    shutil.rmtree(VENDOR / "ipynb", ignore_errors=True)  # where earlier builds put them (it would ship the teacher's)
    return target


def prepare(edition: str = "teacher") -> Path:
    """Everything Sphinx reads that is generated: MathJax, the transformed chain, the API page; returns the source folder.

    The student edition's sources (``book/_build/student-src``) are the hand-written pages and the chain
    as the student edition has it (no worked solution, no kit-only cell), transformed the same way.
    """
    src = source_dir(edition)
    vendor_mathjax()
    vendor_widgets()
    copy_notebooks(edition)
    if edition == "student":
        for page in PAGES:
            _write_if_changed(src / page, (BOOK / page).read_bytes())
    transform.transform_chain(NOTEBOOKS, src / "notebooks", preprocess=_student_notebook() if edition == "student" else None)
    write_api_page(src / "api" / "index.md")
    write_stages_page(src / "api" / "how-a-check-runs.md")
    return src
