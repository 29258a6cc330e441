"""Page helpers for the browser tests: open and run notebooks, check widgets, read pixels.

The selectors and assertions are the ones recorded as working in JUPYTER-STACK.md
(JupyterLab 4.6, Notebook 7.6, Voila 0.5, ipywidgets 8.1, pythreejs 2.4).
"""

from __future__ import annotations

import io
import re
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # no playwright: the conftest skips every test with the reason (fails in CI)

    class PlaywrightTimeout(Exception):
        """Placeholder so that this module imports without playwright."""


if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

#: text in the page (or a console message) that means a widget failed to render
WIDGET_ERRORS = (
    "Error displaying widget",
    "can not be instantiated",
    "Failed to load model class",
    "Click to show javascript error",
)
#: console messages that mean the same, seen only in the console
CONSOLE_WIDGET_ERRORS = WIDGET_ERRORS + ("Could not create a model", "Could not create a view", "Could not instantiate widget")
#: console noise seen with every working version combination (JUPYTER-STACK.md): never a failure
HARMLESS_CONSOLE = (
    "reading 'schema'",  # Notebook 7 on page load
    "Unsatisfied version",
    "GPU stall due to ReadPixels",
)

OUTPUT_IMAGES = ".widget-output img, .jupyter-widgets-output-area img"
RUN_TIMEOUT = 240_000  # ms: kernel start + Run All on a loaded 2-core machine
LOAD_TIMEOUT = 120_000


def kernel_ready(server, name: str) -> bool:
    """The server has a session for ``name`` whose kernel is idle with a client connected."""
    try:
        sessions = server.api("/api/sessions")
    except Exception:  # noqa: BLE001 - a busy server: ask again
        return False
    for sess in sessions or []:
        kernel = sess.get("kernel") or {}
        if str(sess.get("path", "")).endswith(name) and kernel.get("execution_state") == "idle":
            return kernel.get("connections", 1) >= 1
    return False


def open_notebook(page: Page, server, name: str, frontend: str) -> None:
    """Open ``name`` in JupyterLab (``"lab"``) or Notebook 7 (``"notebook7"``) and wait for an idle kernel.

    The page's ``[data-status='idle']`` can show before the session's kernel exists on a
    cold server, so the server's session list is asked as well.
    """
    if frontend == "lab":
        url = server.url(f"/lab/tree/{name}", reset=None)
    else:
        url = server.url(f"/notebooks/{name}")
    page.goto(url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=LOAD_TIMEOUT)
    deadline = time.monotonic() + LOAD_TIMEOUT / 1000
    while not kernel_ready(server, name):
        assert time.monotonic() < deadline, f"no idle kernel for {name} after {LOAD_TIMEOUT / 1000:.0f} s"
        page.wait_for_timeout(500)
    page.locator("[data-status='idle']").first.wait_for(state="attached", timeout=LOAD_TIMEOUT)
    page.wait_for_timeout(1000)


_PROMPT_STARTED = re.compile(r"\[(\*|\d+)\]")


def _execution_started(page: Page) -> bool:
    prompts = page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
    return any(_PROMPT_STARTED.search(p) for p in prompts)


def run_all(page: Page, marker: str, *, start_timeout: float = 30.0) -> None:
    """Run All through the menu bar and wait for the marker printed by the last cell.

    If no cell is queued within ``start_timeout`` s (the click landed while the page was
    still wiring up the kernel), Run All is chosen again, up to three times.
    """
    for _ in range(3):
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^\s*Run\s*$")).first.click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").first.click()
        deadline = time.monotonic() + start_timeout
        while not _execution_started(page) and time.monotonic() < deadline:
            page.wait_for_timeout(250)
        if _execution_started(page):
            break
        page.keyboard.press("Escape")
    else:
        raise PlaywrightTimeout(f"Run All did not start any cell in 3 attempts of {start_timeout:.0f} s")
    page.locator(".jp-OutputArea-output", has_text=marker).first.wait_for(timeout=RUN_TIMEOUT)


def run_notebook(page: Page, server, name: str, frontend: str, marker: str, *, artifacts: Path | None = None) -> int:
    """Open and run a notebook; retry once (pristine notebook, new kernel, fresh page) if the run does not finish.

    Under heavy load the kernel's control comm can close early and the run never
    reaches its last cell (JUPYTER-STACK.md). Returns the number of attempts used.
    """
    for attempt in (1, 2):
        try:
            open_notebook(page, server, name, frontend)
            run_all(page, marker)
            return attempt
        except PlaywrightTimeout as exc:
            if attempt == 2:
                raise
            warnings.warn(f"{frontend}: {name} did not finish ({exc.__class__.__name__}); retrying once", stacklevel=2)
            if artifacts is not None:
                page.screenshot(path=str(artifacts / f"{frontend}-{Path(name).stem}-retry.png"), full_page=True)
            page.goto("about:blank")
            server.restore(name)  # unexecuted notebook, fresh kernel
    raise AssertionError("unreachable")


def assert_no_widget_errors(page: Page) -> None:
    """No widget error text in the page, and no widget error in the console (noise excepted)."""
    text = page.locator("body").inner_text()
    shown = [t for t in WIDGET_ERRORS if t in text]
    assert not shown, f"widget error text in the page: {shown}"
    console = getattr(page, "console_messages_seen", [])
    bad = [m for m in console if any(t in m for t in CONSOLE_WIDGET_ERRORS) and not any(h in m for h in HARMLESS_CONSOLE)]
    assert not bad, "widget errors in the browser console:\n" + "\n".join(bad[:10])


def wait_for_change(read, before, *, timeout: float = 60.0, what: str = "value"):
    """Poll ``read()`` until it differs from ``before``; return the new value."""
    deadline = time.monotonic() + timeout
    now = read()
    while now == before and time.monotonic() < deadline:
        time.sleep(0.25)
        now = read()
    assert now != before, f"{what} did not change within {timeout:.0f} s"
    return now


def wait_until(read, predicate, *, timeout: float = 60.0, what: str = "value"):
    """Poll ``read()`` until ``predicate(value)`` holds; return that value."""
    deadline = time.monotonic() + timeout
    now = read()
    while not predicate(now) and time.monotonic() < deadline:
        time.sleep(0.25)
        now = read()
    assert predicate(now), f"{what} never reached the expected state within {timeout:.0f} s; last: {now!r}"
    return now


def image_src(scope: Locator) -> str:
    """``src`` of the first plot image rendered in an Output widget inside ``scope``."""
    img = scope.locator(OUTPUT_IMAGES).first
    img.wait_for(timeout=LOAD_TIMEOUT)
    return img.get_attribute("src") or ""


# ---------------------------------------------------------------------------------
# sliders
# ---------------------------------------------------------------------------------


def slider_by_keyboard(page: Page, slider: Locator, presses: int, key: str = "ArrowRight") -> None:
    """Focus the noUiSlider handle and move it by ``presses`` steps (JupyterLab, Voila)."""
    slider.locator(".noUi-handle").first.click()
    for _ in range(presses):
        page.keyboard.press(key)
        page.wait_for_timeout(50)


def slider_by_mouse(page: Page, slider: Locator, fraction: float) -> None:
    """Drag the handle with the mouse to ``fraction`` of the track (Notebook 7 ignores keys)."""
    handle = slider.locator(".noUi-handle").first
    track = slider.locator(".noUi-target").first
    handle.scroll_into_view_if_needed()
    hb, tb = handle.bounding_box(), track.bounding_box()
    assert hb and tb, "slider is not laid out"
    x0, y0 = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(tb["x"] + fraction * tb["width"], y0, steps=12)
    page.mouse.up()


def slider_readout(slider: Locator) -> float:
    """The number shown next to the slider (ipywidgets writes a Unicode minus sign)."""
    return float(slider.locator(".widget-readout").first.inner_text().strip().replace("\u2212", "-"))


# ---------------------------------------------------------------------------------
# the pythreejs canvas
# ---------------------------------------------------------------------------------


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def canvas_stats(png: bytes) -> tuple[float, int]:
    """(fraction of pixels differing from the background by > 20, number of colours).

    The background is the most common colour among the four corners.
    """
    a = pixels(png)
    corners = np.array([a[0, 0], a[0, -1], a[-1, 0], a[-1, -1]])
    colours, counts = np.unique(corners, axis=0, return_counts=True)
    background = colours[counts.argmax()]
    differs = np.abs(a - background).max(axis=2) > 20
    n_colours = len(np.unique(a.reshape(-1, 3), axis=0))
    return float(differs.mean()), n_colours


def assert_canvas_nonblank(canvas: Locator, *, timeout: float = 60.0) -> bytes:
    """Wait until the canvas shows a scene: > 2 % non-background pixels and > 10 colours."""
    deadline = time.monotonic() + timeout
    while True:
        png = canvas.screenshot()
        frac, n_colours = canvas_stats(png)
        if frac > 0.02 and n_colours > 10:
            return png
        if time.monotonic() > deadline:
            raise AssertionError(f"pythreejs canvas is blank: {frac:.2%} non-background pixels, {n_colours} colours")
        time.sleep(0.5)


def drag_on(page: Page, target: Locator, dx: float, dy: float) -> None:
    """Press in the middle of ``target`` and drag by (dx, dy) pixels."""
    box = target.bounding_box()
    assert box, "element is not laid out"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=15)
    page.mouse.up()


def pixels_changed(before: bytes, after: bytes, *, threshold: float = 0.005) -> bool:
    a, b = pixels(before), pixels(after)
    if a.shape != b.shape:
        return True
    return float((np.abs(a - b).max(axis=2) > 20).mean()) > threshold


# ---------------------------------------------------------------------------------
# scenarios shared by the front-ends (the test notebooks are in notebooks/)
# ---------------------------------------------------------------------------------


def check_frame_explorer(page: Page, move_offset, artifacts: Path, prefix: str) -> None:
    """FrameExplorer2D on the triangle frame: widgets render; moving the bias offset past -1/2
    changes the plot and flips the verdict from injective to not injective.

    ``move_offset(page, slider)`` moves the offset slider from -0.60 to above -0.5.
    """
    explorer = page.locator(".rfnb-frame-explorer-2d").first
    explorer.wait_for(timeout=LOAD_TIMEOUT)
    slider = explorer.locator(".rfnb-test-offset.widget-slider").first
    slider.wait_for()
    assert explorer.locator(".widget-slider").count() >= 1
    page.locator(".rfnb-repr").first.wait_for()  # the extension's HTML repr of a Frame
    verdict = explorer.locator(".rfnb-verdict").first
    wait_until(verdict.inner_text, lambda v: v.startswith("injective"), what="initial verdict")
    assert slider_readout(slider) == -0.6
    src0 = image_src(explorer)
    assert_picture_shown_at_full_size(explorer.locator(OUTPUT_IMAGES).first)
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts / f"{prefix}-frame2d-before.png"), full_page=True)

    move_offset(page, slider)
    wait_until(verdict.inner_text, lambda v: v.startswith("not injective"), what="verdict after the slider move")
    assert slider_readout(slider) > -0.5
    wait_for_change(lambda: image_src(explorer), src0, what="plot image src")
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts / f"{prefix}-frame2d-after.png"), full_page=True)


def check_polytope_explorer(page: Page, artifacts: Path, prefix: str, *, select_vertex: bool = True) -> None:
    """PolytopeExplorer3D: the pythreejs canvas is non-blank, a drag rotates it, and
    (optionally) selecting a vertex redraws the scene and highlights the bias table."""
    explorer = page.locator(".rfnb-polytope-explorer-3d").first
    explorer.wait_for(timeout=LOAD_TIMEOUT)
    canvas = explorer.locator("canvas").first
    canvas.wait_for()
    table = explorer.locator(".rfnb-bias-table table").first
    table.wait_for()
    assert_menu_shows(explorer.locator(".rfnb-test-vertex select").first, "none")  # not an empty box
    assert_table_rows_visible(explorer)
    before = assert_canvas_nonblank(canvas)
    (artifacts / f"{prefix}-polytope3d-canvas.png").write_bytes(before)
    assert_no_widget_errors(page)

    drag_on(page, canvas, 120, 40)  # OrbitControls rotate the camera
    wait_for_change(canvas.screenshot, before, what="canvas pixels after a drag")
    dragged = assert_canvas_nonblank(canvas)
    assert pixels_changed(before, dragged), "dragging on the canvas did not change the rendering"
    (artifacts / f"{prefix}-polytope3d-canvas-dragged.png").write_bytes(dragged)

    if select_vertex:
        table0 = table.inner_html()
        explorer.locator(".rfnb-test-vertex select").first.select_option(index=1)  # φ1
        wait_for_change(table.inner_html, table0, what="bias table after selecting a vertex")
        wait_for_change(canvas.screenshot, dragged, what="canvas pixels after selecting a vertex")
        (artifacts / f"{prefix}-polytope3d-canvas-vertex.png").write_bytes(assert_canvas_nonblank(canvas))
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts / f"{prefix}-polytope3d.png"), full_page=True)


# ---------------------------------------------------------------------------------
# what a student sees: sizes, menus, tables, labels
# ---------------------------------------------------------------------------------

#: the FrameExplorer2D picture is 774 px wide at its default dpi (plane and key)
MIN_PICTURE_WIDTH = 740


def assert_picture_shown_at_full_size(img: Locator, *, min_width: int = MIN_PICTURE_WIDTH) -> None:
    """The plot image is at least ``min_width`` px wide and shown at (nearly) its natural size:
    its text keeps the size it was drawn with (at least 9 px)."""
    img.wait_for(timeout=LOAD_TIMEOUT)
    natural, shown = img.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
    assert natural >= min_width, f"the picture is only {natural} px wide (natural size)"
    assert shown >= 0.95 * natural, f"the picture is scaled down to {shown:.0f} of {natural} px"


def assert_menu_shows(select: Locator, text: str) -> None:
    """A ``<select>`` has an option selected and shows ``text`` (an empty box has selectedIndex -1)."""
    index, shown = select.evaluate("s => [s.selectedIndex, s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : '']")
    assert index >= 0 and shown == text, f"the menu shows {shown!r} (selectedIndex {index}), expected {text!r}"


def _rows_in_view(explorer: Locator) -> tuple[int, int]:
    """(rows of the bias table inside the visible part of its scroll box, all rows)."""
    return tuple(
        explorer.locator(".rfnb-table-scroll").first.evaluate(
            """box => {
                 const b = box.getBoundingClientRect();
                 const rows = [...box.querySelectorAll('tbody tr')];
                 const seen = rows.filter(r => { const q = r.getBoundingClientRect();
                                                 return q.height > 0 && q.top >= b.top - 1 && q.bottom <= b.bottom + 1; });
                 return [seen.length, rows.length];
               }"""
        )
    )


def assert_table_rows_visible(explorer: Locator) -> None:
    """Every row of the explorer's bias table is on screen, none hidden below its box."""
    seen, total = _rows_in_view(explorer)
    assert total > 0 and seen == total, f"the bias table shows {seen} of its {total} rows"
    assert explorer.locator(".rfnb-table-note").count() == 0


def assert_table_scrolls_visibly(explorer: Locator, artifacts: Path | None = None, prefix: str = "") -> None:
    """A long bias table says that it scrolls, keeps a scrollbar (layout space, not an overlay), and
    scrolling it brings the last row into view."""
    note = explorer.locator(".rfnb-table-note").first
    note.wait_for()
    assert "scroll" in note.inner_text()
    box = explorer.locator(".rfnb-table-scroll").first
    gutter, scroll_h, client_h, overflow = box.evaluate(
        "e => [e.offsetWidth - e.clientWidth, e.scrollHeight, e.clientHeight, getComputedStyle(e).overflowY]"
    )
    assert scroll_h > client_h and overflow == "scroll", (scroll_h, client_h, overflow)
    assert gutter >= 6, f"the scroll box keeps no room for a scrollbar ({gutter} px)"
    seen, total = _rows_in_view(explorer)
    assert 0 < seen < total
    if artifacts is not None:
        box.screenshot(path=str(artifacts / f"{prefix}-bias-table-long.png"))
    box.evaluate("e => { e.scrollTop = e.scrollHeight; }")
    last = box.locator("tbody tr").last
    assert last.inner_text().startswith(f"φ{total}")
    b, q = box.bounding_box(), last.bounding_box()
    assert b and q and q["y"] >= b["y"] - 1 and q["y"] + q["height"] <= b["y"] + b["height"] + 1, "the last row did not scroll in"


def label_heights(png: bytes) -> list[int]:
    """Heights in pixels of the dark text blobs of a canvas that shows only the vertex labels.

    Glyphs of one label are merged by a horizontal dilation; blobs much wider than the
    typical one (two labels touching) are left out.
    """
    from scipy import ndimage

    a = pixels(png)
    ink = np.abs(a - 255).max(axis=2) > 110
    merged = ndimage.binary_dilation(ink, structure=np.ones((1, 7), dtype=bool))
    lab, n = ndimage.label(merged)
    boxes = [sl for sl in ndimage.find_objects(lab) if sl is not None]
    sizes = [(sl[0].stop - sl[0].start, sl[1].stop - sl[1].start, int(ink[sl].sum())) for sl in boxes]
    sizes = [(h, w) for h, w, area in sizes if area >= 12]
    if not sizes:
        return []
    w_med = float(np.median([w for _, w in sizes]))
    return [h for h, w in sizes if w <= 1.6 * w_med and h >= 4]


def assert_labels_one_size(page: Page, explorer: Locator, artifacts: Path, prefix: str) -> None:
    """Switch every layer but the labels off and check that the labels have one glyph height on screen
    (pythreejs sprites with ``sizeAttenuation=False``), whatever their depth."""
    canvas = explorer.locator("canvas").first
    for box in explorer.locator(".widget-checkbox").all():
        label = box.inner_text().strip()
        checkbox = box.locator("input[type=checkbox]").first
        if checkbox.is_checked() != (label == "labels"):
            checkbox.click()
    page.wait_for_timeout(1500)
    png = canvas.screenshot()
    (artifacts / f"{prefix}-polytope3d-labels.png").write_bytes(png)
    heights = label_heights(png)
    assert len(heights) >= 8, f"found only {len(heights)} label blobs: {heights}"
    assert max(heights) <= 1.35 * min(heights), f"label heights vary with depth: {sorted(heights)}"
