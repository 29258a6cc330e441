"""Sphinx configuration of the offline book (built by ``bash scripts/book.sh``; see book/build.py).

The stack is the one measured in shared/BOOK-STACK.md: myst-nb reads the executed notebooks
(``book/notebooks/``, transformed copies of ``notebooks/*.ipynb``) without running them,
sphinx-book-theme lays them out, sphinx-proof and sphinx-exercise give theorem and exercise
boxes, autosummary + numpydoc the API reference. Every script and font a page needs is in the
site (MathJax 3 from ``book/_vendor``): the book reads offline.

Environment variables (all optional):

* ``RFNB_REPOSITORY_URL``: the kit's GitHub repository, for the repository and Binder buttons
  (default: ``[project.urls] Repository`` of pyproject.toml, the one place it is said; book/repository.py).
  While it is the placeholder or empty, the book has neither button and the build says so on stderr;
* ``RFNB_REPOSITORY_BRANCH``: the branch Binder starts from (default ``HEAD``);
* ``RFNB_BINDERHUB_URL``: the BinderHub (default ``https://mybinder.org``);
* ``RFNB_BOOK_EDITION``: ``teacher`` (default) or ``student``, the build without worked solutions
  (``bash scripts/book.sh --student``; its pages are read from ``book/_build/student-src``);
* ``RFNB_LOCAL_LAB_URL``: the local JupyterLab of ``bash scripts/lab.sh``, which serves the
  folder ``notebooks/`` (default ``http://localhost:8888/lab/tree``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parent
if str(BOOK) not in sys.path:
    sys.path.insert(0, str(BOOK))
import repository as _repository  # noqa: E402  (book/repository.py: the URL said once)
import sources as _sources  # noqa: E402  (book/sources.py: the editions and their folders)

project = "relu_frames_nb — Injectivity of ReLU layers"
author = "the relu_frames_nb authors"
copyright = "the relu_frames_nb authors, BSD-3-Clause"  # noqa: A001 (Sphinx's name)
#: "teacher" (worked solutions folded away) or "student" (none: book/build.py --student sets it)
EDITION = os.environ.get("RFNB_BOOK_EDITION", "teacher")
if EDITION not in _sources.EDITIONS:
    raise ValueError(f"RFNB_BOOK_EDITION must be one of {_sources.EDITIONS}; got {EDITION!r}")
html_title = "Injectivity of ReLU layers: the executable book" + (" (student edition)" if EDITION == "student" else "")

extensions = [
    "myst_nb",
    "sphinx_proof",
    "sphinx_exercise",
    "sphinx_togglebutton",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
]
exclude_patterns = ["_build", "_templates", "_vendor", "jupyter_execute", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = [str(BOOK / "_templates")]  # absolute: autosummary reads it from the source folder (student-src too)

# --- notebooks: stored outputs, never executed -----------------------------------------------
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_dmath_double_inline = True  # the notebooks put $$...$$ inside paragraphs
nb_render_markdown_format = "myst"  # markdown outputs (the map in 00_index) with tables and links
# a widget shows the static PNG of its display bundle (book/transform.py removes the view from it); the
# 3-D scenes inside widgets get outputs of their own with a live view, drawn in the HTML book by the
# vendored widget manager (nb_ipywidgets_js below) and left out of the printed book (stills only)
nb_mime_priority_overrides = [("singlehtml", "application/vnd.jupyter.widget-view+json", None)]
nb_merge_streams = True

# --- theorem and exercise boxes ------------------------------------------------------------------
numfig = True
proof_title_format = " %t"  # the box title: "Theorem 12 (Name) [tag]"
# one sequence for the statements, like the paper; the algorithms of App. C keep their own
prf_realtyp_to_countertyp = {
    kind: "theorem" for kind in ("lemma", "proposition", "corollary", "definition", "example", "remark")
}
prf_realtyp_to_countertyp["algorithm"] = "algorithm"

# --- API reference --------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's parameter lists already give the types
numpydoc_show_class_members = False  # members are documented by the class template
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- HTML: sphinx-book-theme, local MathJax, launch buttons ---------------------------------------
html_theme = "sphinx_book_theme"
# _vendor/ (MathJax) is written by book/build.py before Sphinx runs
html_static_path = ["_static"] + (["_vendor"] if (BOOK / "_vendor").is_dir() else [])
# the pages' notebooks to download (book/sources.py copy_notebooks): the student build ships the student edition's
html_static_path += [str(p) for p in [_sources.ipynb_static(EDITION)] if p.is_dir()]
html_css_files = ["book.css"]
html_js_files = ["search-text.js"]  # search snippets: formulas as text, no theme controls


def _search_names() -> dict:
    """``{"local invertibility": "api/generated/relu_frames_nb.local_invertibility", ...}`` for the search scorer.

    Every public function of the package under its name with spaces, and every deprecated one
    (a docstring that starts "Deprecated: ``rf.NEW(...)``") pointing at the page of its replacement.
    """
    import inspect
    import re

    import relu_frames_nb as rf

    page = "api/generated/relu_frames_nb.{}".format
    names = {name.replace("_", " ").lower(): page(name) for name in rf.__all__ if not name.startswith("_")}
    for name, obj in inspect.getmembers(rf, inspect.isfunction):
        m = re.match(r"Deprecated: ``rf\.(\w+)\(", inspect.getdoc(obj) or "")
        if m and m.group(1) in rf.__all__:
            names[name.replace("_", " ").lower()] = page(m.group(1))
    return names


def _search_scorer() -> str:
    """book/search-scorer.template.js with the table of names filled in, written to book/_build (Sphinx copies it)."""
    import json

    out = BOOK / "_build" / "search-scorer.js"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = (BOOK / "search-scorer.template.js").read_text(encoding="utf-8")
    out.write_text(text.replace("__RFNB_SEARCH_NAMES__", json.dumps(_search_names(), sort_keys=True)), encoding="utf-8")
    return str(out)  # an absolute path: Sphinx opens it as given


html_search_scorer = _search_scorer()
mathjax_path = "mathjax/tex-chtml.js"  # the copy in _vendor/mathjax (Sphinx 9 would load MathJax 4 from a CDN)
# the live 3-D views (book/transform.py live_3d_views): RequireJS, our path to jupyter-threejs, and the
# ipywidgets HTML manager, all from _static (vendored by book/build.py); a module it cannot find locally
# would be asked from data-jupyter-widgets-cdn, which points into the site too
nb_ipywidgets_js = {
    "widgets/require.js": {},
    "widgets-config.js": {},
    "widgets/embed-amd.js": {"data-jupyter-widgets-cdn": "_static/widgets/"},
}
html_copy_source = False  # the pages' sources are the transformed copies; the originals are in the repository
html_show_sourcelink = False

#: "" when the repository is not set (the placeholder of pyproject.toml): then no repository or Binder button
REPOSITORY_URL = _repository.repository_url()
REPOSITORY_BRANCH = os.environ.get("RFNB_REPOSITORY_BRANCH", "HEAD")
BINDERHUB_URL = os.environ.get("RFNB_BINDERHUB_URL", "https://mybinder.org")
LOCAL_LAB_URL = os.environ.get("RFNB_LOCAL_LAB_URL", "http://localhost:8888/lab/tree").rstrip("/")

html_theme_options = {
    "repository_url": REPOSITORY_URL,
    "repository_branch": REPOSITORY_BRANCH,
    "path_to_docs": "",  # book/notebooks/NN.ipynb is shown as notebooks/NN.ipynb: the repository's path
    "use_repository_button": bool(REPOSITORY_URL),
    "use_download_button": False,  # no copied sources (html_copy_source = False)
    "use_fullscreen_button": True,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    # without a BinderHub the theme adds no launch menu; add_local_lab_button then makes one of its own
    "launch_buttons": ({"binderhub_url": BINDERHUB_URL, "notebook_interface": "jupyterlab"} if REPOSITORY_URL else {}),
}


def add_local_lab_button(app, pagename, templatename, context, doctree):
    """Add "Download .ipynb" and "Local JupyterLab" to the launch menu of each notebook page (after Binder)."""
    if not pagename.startswith("notebooks/"):
        return
    name = pagename.split("/", 1)[1]
    groups = context.setdefault("header_buttons", [])
    if not any(group.get("label") == "launch-buttons" for group in groups):  # no Binder: the repository is not set
        groups.append({"type": "group", "tooltip": "Launch interactive content", "icon": "fas fa-rocket",
                       "buttons": [], "label": "launch-buttons"})  # fmt: skip
    for group in groups:
        if group.get("label") == "launch-buttons":
            group["buttons"].append(
                {
                    "type": "link",
                    "text": "Download .ipynb",
                    "tooltip": "This page's notebook, to open in your own Jupyter (book/build.py ships the chain's notebooks)",
                    "icon": "fas fa-download",
                    "url": context["pathto"](f"_static/ipynb/{name}.ipynb", 1),
                }
            )
            group["buttons"].append(
                {
                    "type": "link",
                    "text": "Local JupyterLab",
                    "tooltip": ("Open in your JupyterLab: start it first with bash scripts/lab.sh and open the URL with "
                                "its token that it prints, once; then this button opens the notebook"),
                    "icon": "fas fa-laptop-code",
                    "url": f"{LOCAL_LAB_URL}/{pagename.split('/', 1)[1]}.ipynb",
                }
            )


def html_handlers_for_singlehtml(app):
    """Give the one-page builder (book/pdf.py) the HTML visitors of every node.

    Sphinx looks a node's visitors up by builder name and falls back to the format ("html") only
    when no extension registered any for the name; one does for "singlehtml", so sphinx-proof's
    boxes would have none there.
    """
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, visitors in handlers.get("html", {}).items():
        single.setdefault(node, visitors)


def _numbered_proof_index():
    """sphinx-proof's index of the paper's items, listing each as "Theorem 4 [reluinj1] — its name", by kind."""
    from collections import defaultdict

    from docutils import nodes
    from sphinx_proof.domain import ProofIndex

    class NumberedProofIndex(ProofIndex):
        localname = "Index of the paper's items"
        shortname = "Items"

        def generate(self, docnames=None):
            env = self.domain.env
            groups = defaultdict(list)
            for anchor, v in getattr(env, "proof_list", {}).items():
                number = env.toc_fignumbers.get(v["docname"], {}).get(v["countertype"], {}).get(anchor)
                kind = v["realtype"].title()
                label = f"{kind} {'.'.join(map(str, number))}" if number else kind
                title = ""
                tree = env.get_doctree(v["docname"])
                node = next((n for n in tree.findall(nodes.Element) if anchor in n.get("ids", [])), None)
                if node is not None:
                    t = next(iter(node.findall(nodes.title)), None)
                    title = t.astext().split("[", 1)[0].strip(" ()") if t is not None else ""
                name = f"{label} [{anchor}]" + (f" — {title}" if title else "")
                page = env.titles[v["docname"]].astext() if v["docname"] in env.titles else v["docname"]
                group = kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
                groups[group].append(((number or (0,)), (name, 0, v["docname"], anchor, page, "", "")))
            content = [(k, [e for _, e in sorted(entries, key=lambda x: x[0])]) for k, entries in sorted(groups.items())]
            return content, True

    return NumberedProofIndex


def warn_when_the_repository_is_unset(app):
    """Say once, on stderr, that the book has no repository or Binder buttons because the URL is not set.

    Not a Sphinx warning: Sphinx counts every warning record against ``-W`` (``--strict``, as CI builds
    the kit with its placeholder), and ``suppress_warnings`` would hide the line altogether.
    """
    if not REPOSITORY_URL:
        print(f"WARNING: [rfnb] {_repository.UNSET_NOTE}", file=sys.stderr, flush=True)


def setup(app):
    """Register the local-JupyterLab button after the theme's launch buttons (priority 501)."""
    app.connect("builder-inited", warn_when_the_repository_is_unset)
    app.connect("html-page-context", add_local_lab_button, priority=600)
    app.connect("builder-inited", html_handlers_for_singlehtml)
    from sphinx_proof.domain import ProofDomain

    ProofDomain.indices = [_numbered_proof_index()]  # the prf-prf page: numbers and names, not bare tags
