"""The offline book (bash scripts/book.sh) in headless Chromium, with every request off 127.0.0.1 refused.

The site is the one ``$RFNB_BOOK_HTML`` points at (``.ci/run`` builds it with warnings as errors
first), or else it is built here, strictly, into a temporary folder. It is served by Python's
``http.server`` on 127.0.0.1 (a free port); each page aborts every request to another host and
the test asserts that none was made. Checked: the index lists the chain; on every notebook page
the math is typeset by the bundled MathJax (no ``$`` or ``\\(`` left in the text) and every stored
figure and widget still is shown; on ``07_polytope_bias`` the theorem boxes and their label links;
an exercise's solution opens from its toggle; every pythreejs 3-D scene turns when dragged (the
vendored widget manager draws it with no kernel); the API page lists every public name; search finds
"omnidirectional"; no internal link (page, asset or ``#anchor``) of the whole site is broken.
Screenshots go to ``test-artifacts/book/``.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REQUIRE_BROWSER = os.environ.get("RFNB_REQUIRE_BROWSER", "") not in ("", "0")
BOOK_SRC = REPO / "book"
ARTIFACTS = REPO / "test-artifacts" / "book"
CHAIN = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
THEOREM_PAGE = "07_polytope_bias"
MATH_TIMEOUT = 60_000  # ms


# ----------------------------------------------------------------------------------
# the site: built once, served on 127.0.0.1
# ----------------------------------------------------------------------------------


def _repository_url() -> str:
    """The repository the book was built for (book/repository.py; "" when it is the placeholder)."""
    spec = importlib.util.spec_from_file_location("_rfnb_book_repository", BOOK_SRC / "repository.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.repository_url()


def _needs(module: str, why: str) -> None:
    if importlib.util.find_spec(module) is None:
        msg = f"Python package {module!r} missing ({why}): install the test extras (`pip install -e '.[test]'`)."
        if REQUIRE_BROWSER:
            pytest.fail(f"RFNB_REQUIRE_BROWSER is set but {msg}", pytrace=False)
        pytest.skip(msg)


def _build(out: Path) -> None:
    _needs("sphinx", "to build the book")
    _needs("myst_nb", "to build the book")
    proc = subprocess.run([sys.executable, str(BOOK_SRC / "build.py"), "--strict", "-q", "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)  # fmt: skip
    assert proc.returncode == 0, f"the book does not build with warnings as errors:\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
    print(proc.stdout.strip().splitlines()[-1])  # build time and size


@pytest.fixture(scope="session")
def book_site(browser_requirements, tmp_path_factory) -> Path:
    given = os.environ.get("RFNB_BOOK_HTML")
    if given:
        site = Path(given).resolve()
        assert (site / "index.html").is_file(), f"RFNB_BOOK_HTML={given} holds no built book (index.html)"
        return site
    site = tmp_path_factory.mktemp("book") / "html"
    _build(site)
    return site


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test reports what matters
        pass


@contextlib.contextmanager
def _serve(root: Path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def base(book_site):
    with _serve(book_site) as url:
        yield url


@pytest.fixture(scope="session")
def shots() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def offline(page):
    """The page, with every request to a host other than 127.0.0.1 aborted and recorded."""
    blocked: list[str] = []
    failed: list[str] = []

    def route(r):
        host = urllib.parse.urlsplit(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:", "about:")) or host == "127.0.0.1":
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("response", lambda resp: resp.status >= 400 and failed.append(f"{resp.status} {resp.url}"))
    page.blocked_requests, page.failed_responses = blocked, failed
    yield page
    assert not blocked, "the book asked for remote resources:\n" + "\n".join(blocked[:20])
    assert not failed, "requests that failed:\n" + "\n".join(failed[:20])
    errors = [m for m in getattr(page, "console_messages_seen", []) if m.startswith("[pageerror]")]
    assert not errors, "JavaScript errors:\n" + "\n".join(errors[:10])


# ----------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------

_TEXT_WITHOUT_CODE = """() => {
  const root = document.querySelector('article.bd-article') || document.body;
  const c = root.cloneNode(true);
  c.querySelectorAll('pre, code, script, style, mjx-container, .highlight, .cell_input, '
    + '.output.stream, .output.text_plain, .output.traceback').forEach(e => e.remove());
  return c.textContent;
}"""

_IMAGES = """async () => {
  const imgs = Array.from(document.querySelectorAll('article.bd-article img'));
  for (const img of imgs) { img.scrollIntoView(); await img.decode().catch(() => null); }
  return imgs.map(i => ({src: i.getAttribute('src'), w: i.naturalWidth, h: i.naturalHeight,
                         shown: i.getBoundingClientRect().width}));
}"""


def open_page(pg, url: str) -> None:
    """Go to ``url`` and wait until MathJax has typeset the page (when it has math)."""
    pg.goto(url, wait_until="load")
    has_math = pg.evaluate("() => document.querySelector('span.math, div.math') !== null")
    if has_math:
        pg.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=MATH_TIMEOUT)
        pg.evaluate("() => MathJax.startup.promise")
        pg.wait_for_selector("mjx-container", state="attached", timeout=MATH_TIMEOUT)


def assert_math_typeset(pg, name: str) -> int:
    """MathJax rendered every formula: containers present, no error nodes, no raw TeX in the text."""
    n_math = pg.locator("span.math, div.math").count()
    n_mjx = pg.locator("mjx-container").count()
    assert n_mjx >= n_math, f"{name}: {n_math} formulas but only {n_mjx} typeset"
    assert pg.locator("mjx-merror").count() == 0, f"{name}: MathJax reported errors"
    text = pg.evaluate(_TEXT_WITHOUT_CODE)
    raw = [text[max(0, m.start() - 40) : m.end() + 40] for m in re.finditer(r"\$|\\\(|\\\[|\\begin\{", text)]
    assert not raw, f"{name}: raw TeX left in the rendered text: {raw[:5]}"
    return n_mjx


def stored_pngs(name: str) -> tuple[set[str], set[str]]:
    """sha256 names of the PNGs stored in a notebook's outputs (myst-nb's file names): (all, widget stills)."""
    import nbformat

    nb = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    every, widgets = set(), set()
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                digest = hashlib.sha256(base64.b64decode(data["image/png"])).hexdigest()
                every.add(digest)
                if "application/vnd.jupyter.widget-view+json" in data:
                    widgets.add(digest)
    return every, widgets


def assert_pictures_shown(pg, name: str) -> tuple[int, int]:
    """Every figure and widget still stored in the notebook is on the page and loaded."""
    images = pg.evaluate(_IMAGES)
    broken = [i["src"] for i in images if not (i["w"] > 0 and i["h"] > 0 and i["shown"] > 0)]
    assert not broken, f"{name}: images not shown: {broken}"
    shown = {Path(urllib.parse.urlsplit(i["src"]).path).stem for i in images}
    every, widgets = stored_pngs(name)
    missing = every - shown
    assert not missing, f"{name}: {len(missing)} stored figures are not on the page (of {len(every)})"
    return len(every), len(widgets)


# ----------------------------------------------------------------------------------
# pages
# ----------------------------------------------------------------------------------


def test_index_lists_the_chain_and_reads_offline(offline, base, shots):
    pg = offline
    open_page(pg, base + "index.html")
    links = pg.locator("article.bd-article a.reference.internal").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    for name in CHAIN:
        assert f"notebooks/{name}.html" in links, f"the index does not list {name}"
    assert "api/index.html" in links
    titles = pg.locator("article.bd-article .toctree-wrapper a").all_inner_texts()
    assert [t.split(" ")[0] for t in titles[: len(CHAIN)]] == [n[:2] for n in CHAIN]
    assert_math_typeset(pg, "index")
    pg.screenshot(path=str(shots / "index.png"))
    # the statement reference on the index leads to its box in notebook 02
    pg.locator("article.bd-article a[href$='#reluinj1']").first.click()
    pg.wait_for_url(re.compile(r"notebooks/02_injectivity\.html#reluinj1$"))
    box = pg.locator("div.proof.theorem[id='reluinj1']")
    assert "Theorem" in box.locator(".admonition-title").inner_text()
    assert box.is_visible()


@pytest.mark.parametrize("name", CHAIN)
def test_every_notebook_page_has_typeset_math_and_its_pictures(offline, base, name, shots):
    pg = offline
    open_page(pg, base + f"notebooks/{name}.html")
    assert pg.locator("article.bd-article h1").count() == 1
    assert_math_typeset(pg, name)
    n_png, n_widgets = assert_pictures_shown(pg, name)
    clipped = pg.evaluate("""() => [...document.querySelectorAll('article.bd-article div.cell pre')]
        .filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 60))""")
    assert not clipped, f"{name}: code or output lines cut at the right: {clipped[:3]}"
    # launch buttons: Binder (when the repository is set: book/repository.py) and the local JupyterLab,
    # with this notebook's path in the repository; never a link to the placeholder repository
    hrefs = pg.locator(".dropdown-launch-buttons a").evaluate_all("as => as.map(a => a.href)")
    if _repository_url():
        assert any("/v2/gh/" in h and f"urlpath=lab/tree/notebooks/{name}.ipynb" in h for h in hrefs), hrefs
    else:
        assert not any("/v2/" in h for h in hrefs), f"{name}: a Binder button while the repository is not set: {hrefs}"
    assert "OWNER/REPO" not in pg.content(), f"{name}: the page links to the placeholder repository"
    assert any(h.endswith(f"/lab/tree/{name}.ipynb") and "localhost" in h for h in hrefs), hrefs
    download = [h for h in hrefs if h.endswith(f"_static/ipynb/{name}.ipynb")]
    assert download, f"{name}: no download link for the page's notebook: {hrefs}"
    with urllib.request.urlopen(download[0], timeout=30) as resp:  # our own local server
        assert json.loads(resp.read())["nbformat"] == 4
    print(f"{name}: {n_png} stored pictures shown ({n_widgets} widget stills)")


def _click_into_view(pg, locator) -> None:
    locator.scroll_into_view_if_needed()
    locator.click()


def test_theorem_page_boxes_labels_and_widget_stills(offline, base, shots):
    pg = offline
    open_page(pg, base + f"notebooks/{THEOREM_PAGE}.html")
    boxes = pg.locator("div.proof")
    assert boxes.count() >= 5
    kinds = set(boxes.evaluate_all("bs => bs.map(b => b.classList[1])"))
    assert {"theorem", "lemma", "proposition", "remark"} <= kinds, kinds
    thm = pg.locator("div.proof.theorem[id='thm:pbe']")
    title = thm.locator(".admonition-title").inner_text()
    assert re.match(r"Theorem \d+", title) and "[thm:pbe]" in title, title
    assert thm.locator("mjx-container").count() >= 3  # math inside the box is typeset
    assert_math_typeset(pg, THEOREM_PAGE)
    n_png, n_widgets = assert_pictures_shown(pg, THEOREM_PAGE)
    assert n_widgets >= 1, "07 shows the 3-D explorer: its still picture is expected"
    pg.evaluate("() => window.scrollTo(0, 0)")
    pg.wait_for_timeout(200)
    pg.screenshot(path=str(shots / "07-top.png"))
    # the tag table at the top links to the box: the link works and lands on it
    link = pg.locator("article.bd-article table a[href='#thm:pbe']").first
    assert re.match(r"Theorem \d+", link.inner_text())
    _click_into_view(pg, link)
    pg.wait_for_function("() => location.hash === '#thm:pbe'")
    pg.wait_for_timeout(300)
    top = thm.evaluate("b => b.getBoundingClientRect().top")
    assert 0 <= top < pg.viewport_size["height"] / 2, f"the theorem box is not in view after following its label ({top})"
    pg.screenshot(path=str(shots / "07-theorem-box.png"))
    # a figure target: the tag of a figure links to its paragraph
    fig = pg.locator("article.bd-article table a[href='#fig-omni']").first
    if fig.count():
        _click_into_view(pg, fig)
        pg.wait_for_function("() => location.hash === '#fig-omni'")


def _pages_with_solutions(site: Path) -> list[str]:
    return [
        str(p.relative_to(site))
        for p in sorted((site / "notebooks").glob("*.html"))
        if 'class="solution dropdown' in p.read_text(encoding="utf-8")
    ]


def _synthetic_exercise_site(tmp: Path) -> Path:
    """A one-page book with an exercise and its solution, built with the book's configuration."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    sys.path.insert(0, str(BOOK_SRC))
    try:
        import transform
    finally:
        sys.path.remove(str(BOOK_SRC))
    src = tmp / "in"
    src.mkdir()
    nb = new_notebook(
        cells=[
            new_markdown_cell("# 01 — Exercises"),
            new_markdown_cell("### Exercise 1.1 — A bias\n\nFind $\\alpha$.", metadata={"tags": ["exercise"]}),
            new_code_cell("answer_1_1 = None", metadata={"tags": ["answer"]}),
            new_code_cell("answer_1_1 = -0.5  # the worked solution", metadata={"tags": ["solution"]}),
            new_code_cell("ex.nb01.check_1_1(answer_1_1)", metadata={"tags": ["check"]}),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src / "01_exercises.ipynb")
    site = tmp / "site"
    transform.transform_chain(src, site / "notebooks")
    (site / "index.md").write_text("# Exercises\n\n```{toctree}\n:glob:\n\nnotebooks/*\n```\n")
    out = tmp / "out" / "html"
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(BOOK_SRC), "-W", "--keep-going",
                    str(site), str(out)], check=True, cwd=REPO)  # fmt: skip
    return out


def test_an_exercise_solution_is_hidden_until_its_toggle_is_clicked(offline, base, book_site, shots, tmp_path):
    pg = offline
    pages = _pages_with_solutions(book_site)
    if pages:
        open_page(pg, base + pages[0])
        where = pages[0]
        ctx = contextlib.nullcontext()
    else:  # said, not silent: the chain has no exercises yet; the book's machinery is checked on one page
        warnings.warn("no page of the book has an exercise yet: checking a one-page book built alike", stacklevel=1)
        site = _synthetic_exercise_site(tmp_path)
        ctx = _serve(site)
        where = "notebooks/01_exercises.html"
    with ctx as other:
        if other:
            open_page(pg, other + where)
        exercise = pg.locator("div.exercise").first
        assert exercise.is_visible() and "Exercise" in exercise.locator(".admonition-title").inner_text()
        solution = pg.locator("div.solution.dropdown").first
        body = solution.locator("section").first
        assert not body.is_visible(), f"{where}: the solution is shown before the reader asks for it"
        _click_into_view(pg, solution.locator("button.toggle-button").first)
        body.wait_for(state="visible", timeout=10_000)
        assert "answer_" in body.inner_text()
        pg.screenshot(path=str(shots / "solution-open.png"))
        if pages:  # the teacher's check output ("correct — ...") is not in the page, not even behind a toggle
            check = pg.locator("div.cell.tag_check").first
            assert check.is_visible() and "check_" in check.inner_text()
            assert check.locator(".cell_output").count() == 0, f"{where}: the check's stored output gives the answer away"
            assert check.locator("details").count() == 0
            assert "correct —" not in pg.locator("article.bd-article").inner_text()


def _live_views_expected() -> dict[str, int]:
    """{notebook: live 3-D views the book shows}, from the transform itself on the stored notebooks."""
    import nbformat

    spec = importlib.util.spec_from_file_location("book_transform_live", BOOK_SRC / "transform.py")
    tf = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tf  # its dataclasses look their module up
    spec.loader.exec_module(tf)
    counts = {}
    for name in CHAIN:
        n = tf.live_3d_views(nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4))
        if n:
            counts[name] = n
    return counts


def _canvas_png(canvas) -> bytes:
    return canvas.screenshot(animations="disabled")


def test_the_3d_scenes_turn_in_the_offline_book(offline, base, shots):
    """Every pythreejs scene is live without a kernel: dragging turns it (its pixels change), offline."""
    expected = _live_views_expected()
    assert "07_polytope_bias" in expected, expected
    pg = offline
    for name, n in expected.items():
        open_page(pg, base + f"notebooks/{name}.html")
        canvases = pg.locator("div.jupyter-threejs canvas")
        pg.wait_for_function(f"() => document.querySelectorAll('div.jupyter-threejs canvas').length >= {n}",
                             timeout=MATH_TIMEOUT)  # fmt: skip
        assert canvases.count() == n and pg.locator(".rfnb-live3d-caption").count() == n
        for k in range(n):
            canvas = canvases.nth(k)
            canvas.scroll_into_view_if_needed()
            pg.wait_for_timeout(500)
            before = _canvas_png(canvas)
            box = canvas.bounding_box()
            cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            pg.mouse.move(cx, cy)
            pg.mouse.down()
            pg.mouse.move(cx + 0.3 * box["width"], cy + 0.1 * box["height"], steps=12)
            pg.mouse.up()
            pg.wait_for_timeout(500)
            after = _canvas_png(canvas)
            assert before != after, f"{name}: the 3-D view {k + 1} did not turn when dragged"
            (shots / f"{name}-live3d-{k + 1}-turned.png").write_bytes(after)
        errors = [m for m in getattr(pg, "console_messages_seen", []) if m.startswith("[error]") and "theme mode" not in m]
        assert not errors, f"{name}: console errors:\n" + "\n".join(errors[:5])


def test_the_index_of_the_papers_items_is_linked_with_numbers_and_names(offline, base):
    pg = offline
    open_page(pg, base + "index.html")
    link = pg.locator("article.bd-article a[href='prf-prf.html']")
    assert link.count() >= 1, "the index page links the index of the paper's items"
    link.first.click()
    pg.wait_for_load_state("load")
    text = pg.locator("article.bd-article").inner_text()
    assert re.search(r"Theorem \d+ \[reluinj1\] — Injectivity I\b", text), text[:600]
    assert re.search(r"Algorithm \d+ \[alg:pbe1\]", text) and "Corollaries" in text
    bare = re.findall(r"^\s*\[?[a-z]+:[\w-]+\]?\s*$", text, re.M)
    assert not bare, f"entries that are bare tags: {bare[:5]}"


def test_api_page_lists_every_public_name_with_its_docstring(offline, base, shots):
    import relu_frames_nb as rf

    pg = offline
    open_page(pg, base + "api/index.html")
    titles = set(pg.locator("article.bd-article table a.reference.internal").evaluate_all("as => as.map(a => a.title)"))
    expected = {f"relu_frames_nb.{n}" for n in rf.__all__}
    explorers = ("FrameExplorer2D", "PolytopeExplorer3D", "ReconstructionPlayground", "DigitsExplorer")
    expected |= {f"relu_frames_nb.viz.widgets.{n}" for n in explorers}
    assert expected <= titles, f"missing from the API page: {sorted(expected - titles)}"
    body = pg.locator("article.bd-article").inner_text()
    assert "Deprecated" not in body  # no release had aliases: rf.check is the one front door
    assert_math_typeset(pg, "api")
    pg.screenshot(path=str(shots / "api.png"))
    pg.locator("article.bd-article table a[title='relu_frames_nb.polytope_bias']").first.click()
    pg.wait_for_url(re.compile(r"generated/relu_frames_nb\.polytope_bias\.html"))
    open_page(pg, pg.url)
    text = pg.locator("article.bd-article").inner_text()
    assert "Parameters" in text and "Returns" in text
    assert_math_typeset(pg, "api/polytope_bias")


def test_search_finds_omnidirectional(offline, base, shots):
    pg = offline
    pg.goto(base + "search.html?q=omnidirectional", wait_until="load")
    results = pg.locator("ul.search li a")
    results.first.wait_for(timeout=30_000)
    hrefs = results.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert any(THEOREM_PAGE in h for h in hrefs), hrefs
    pg.screenshot(path=str(shots / "search.png"))


def _search(pg, base: str, query: str, shown: str = "ul.search li a") -> None:
    """Open the search page for ``query`` and wait until the search is done (results in their final order)."""
    pg.goto(base + "search.html?q=" + urllib.parse.quote(query), wait_until="load")
    pg.locator(shown).first.wait_for(timeout=30_000)
    pg.wait_for_function("() => document.querySelector('#search-progress') === null || "
                         "!/Preparing|Searching/.test(document.querySelector('#search-progress').textContent)",
                         timeout=30_000)  # fmt: skip


@pytest.mark.parametrize(("query", "target"), [
    ("check", "relu_frames_nb.check.html"),  # the front door, named in one word
    ("local invertibility", "relu_frames_nb.local_invertibility.html"),  # a public function, named with spaces
    ("rf.polytope_bias", "relu_frames_nb.polytope_bias.html"),
])  # fmt: skip
def test_search_ranks_the_named_page_first(offline, base, query, target):
    _search(offline, base, query)
    hrefs = offline.locator("ul.search li > a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert hrefs and hrefs[0].split("#")[0].endswith("api/generated/" + target), (query, hrefs[:5])


@pytest.mark.parametrize("query", ["maximal bias", "rectifying", "polytope bias estimation"])
def test_search_snippets_read_as_text(offline, base, query):
    """Snippets show formulas as text (no TeX delimiters or commands) and none of the theme's controls."""
    _search(offline, base, query, shown="ul.search li p.context")
    snippets = offline.locator("ul.search li p.context").all_inner_texts()
    assert snippets, query
    bad = [t for t in snippets if re.search(r"\\[()\[\]]|\\[A-Za-z]{2,}|System Settings|\bLight\b.*\bDark\b", t)]
    assert not bad, f"{query}: snippets with TeX or the theme's words: {bad[:3]}"


# ----------------------------------------------------------------------------------
# links
# ----------------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.remote_assets: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            value = a.get(key)
            if not value:
                continue
            self.links.append(value)
            remote = value.startswith(("http:", "https:", "//"))
            if remote and (tag in ("script", "img", "iframe") or (tag == "link" and "stylesheet" in (a.get("rel") or ""))):
                self.remote_assets.append(value)


def _get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, b"", ""


def test_no_internal_link_is_broken_and_no_page_needs_the_network(base):
    """Crawl the site from the index: every internal link answers 200 and every #anchor exists."""
    start = base + "index.html"
    pages: dict[str, set[str]] = {}  # page url -> its ids
    status: dict[str, int] = {}
    wanted: list[tuple[str, str, str]] = []  # (from page, target page, fragment)
    remote_assets: list[str] = []
    queue = [start]
    while queue:
        url = queue.pop()
        if url in status:
            continue
        code, body, ctype = _get(url)
        status[url] = code
        if code != 200 or "html" not in ctype:
            continue
        parser = _Links()
        parser.feed(body.decode("utf-8", "replace"))
        pages[url] = parser.ids
        remote_assets += [f"{url}: {a}" for a in parser.remote_assets]
        for link in parser.links:
            if link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = urllib.parse.urljoin(url, link)
            if not target.startswith(base):
                continue  # Binder, the repository, the local JupyterLab: not part of the site
            target, _, fragment = target.partition("#")
            target = target.split("?")[0]
            if fragment:
                wanted.append((url, target, urllib.parse.unquote(fragment)))
            if target not in status:
                queue.append(target)
    broken = sorted(f"{code} {url}" for url, code in status.items() if code != 200)
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:30])
    missing = sorted({f"{src} -> {dst}#{frag}" for src, dst, frag in wanted if dst in pages and frag not in pages[dst]})
    assert not missing, f"{len(missing)} links to missing anchors:\n" + "\n".join(missing[:30])
    assert not remote_assets, "pages load scripts, styles or images from the network:\n" + "\n".join(remote_assets[:20])
    assert len(pages) >= len(CHAIN) + 10
    print(f"crawled {len(pages)} pages, {len(status)} internal URLs, {len(wanted)} anchors: all resolve")
