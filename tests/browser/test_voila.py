"""Voila in headless Chromium: the reconstruction playground renders and round-trips a slider."""

from __future__ import annotations

import pytest

from .conftest import CHAIN_PLAYGROUND
from .jupyter_ui import (
    LOAD_TIMEOUT,
    RUN_TIMEOUT,
    assert_no_widget_errors,
    image_src,
    slider_by_mouse,
    slider_readout,
    wait_for_change,
)

pytestmark = pytest.mark.browser


def test_playground_renders_and_slider_round_trips(page, voila_server, artifacts_dir):
    page.goto(voila_server.url("/"), wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.locator(".jp-OutputArea-output", has_text="RFNB-BROWSER-DONE-playground").first.wait_for(timeout=RUN_TIMEOUT)
    playground = page.locator(".rfnb-reconstruction-playground").first
    playground.wait_for()
    slider = playground.locator(".rfnb-test-x1.widget-slider").first
    slider.wait_for()
    assert playground.locator(".widget-slider").count() >= 3  # offset, x1, x2, iterations
    page.locator(".rfnb-repr").first.wait_for()  # the extension's HTML repr of a Frame
    report = playground.locator(".rfnb-report").first
    report.wait_for()
    assert_no_widget_errors(page)
    src0, report0, x1 = image_src(playground), report.inner_text(), slider_readout(slider)
    page.screenshot(path=str(artifacts_dir / "voila-playground-before.png"), full_page=True)

    slider_by_mouse(page, slider, 0.2)  # x1 from about 0.73 to about -0.9 (range [-1.5, 1.5])
    wait_for_change(report.inner_text, report0, what="playground report")
    wait_for_change(lambda: image_src(playground), src0, what="plot image src")
    assert slider_readout(slider) < x1
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "voila-playground-after.png"), full_page=True)
    # the app's console holds no error: JupyterLab's own extensions (jupytext, Notebook 7's) are kept out of Voila's
    # page by voila.json's extension_denylist; before, each said "getter for the shared module is not a function"
    assert not _console_errors(page), "errors in the app's console:\n" + "\n".join(_console_errors(page)[:5])


def _console_errors(page) -> list[str]:
    """The console's errors, leaving out resources the offline machine cannot fetch (Voila's default template asks a
    CDN; the kit's template asks none, which the app tests check by their own route)."""
    seen = getattr(page, "console_messages_seen", [])
    return [m for m in seen if m.startswith(("[error]", "[pageerror]")) and "Failed to load resource" not in m]


#: text that only the notebook shows: check cells, exercises and solutions, the how-to-start paragraph
NOT_FOR_THE_CLASS = (
    "all checks passed",
    "largest constant bias on the ball",
    "polytope bias of every vertex",
    "| ReLU-dual:",
    "Exercise 12.",
    "not yet answered",
    "answer_12_",
    "As an app",
    "voila notebooks/12_playground.ipynb",
    "voila-hide",
    "Traceback",
)


def test_chain_playground_is_an_app_with_three_live_explorers(page, voila_chain_server, artifacts_dir):
    """notebooks/12_playground as a class sees it in Voila (with the repository's voila.json): live widgets
    (not the static PNG fallback), a non-blank WebGL canvas, the explanations, and nothing of the checks,
    the exercises or their solutions."""
    from .jupyter_ui import (
        assert_canvas_nonblank,
        assert_menu_shows,
        assert_picture_shown_at_full_size,
        assert_table_rows_visible,
    )

    page.goto(voila_chain_server.url("/"), wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    # Voila removes its spinner and shows the cells when every cell has run
    page.locator("#rendered_cells").first.wait_for(state="visible", timeout=RUN_TIMEOUT)
    page.locator("#loading").first.wait_for(state="detached", timeout=RUN_TIMEOUT)
    for css in (".rfnb-frame-explorer-2d", ".rfnb-polytope-explorer-3d", ".rfnb-reconstruction-playground"):
        page.locator(css).first.wait_for(timeout=LOAD_TIMEOUT)  # the widget's DOM, so not the fallback picture
        assert page.locator(css).count() == 1, css  # the exercises' solutions (which make explorers) did not run
    page.locator(".rfnb-reconstruction-playground .rfnb-report").first.wait_for(timeout=LOAD_TIMEOUT)
    frame2d = page.locator(".rfnb-frame-explorer-2d").first
    assert frame2d.locator(".rfnb-verdict").first.inner_text().startswith("injective")
    assert image_src(frame2d)
    assert_picture_shown_at_full_size(frame2d.locator(".widget-output img, .jupyter-widgets-output-area img").first)
    explorer3d = page.locator(".rfnb-polytope-explorer-3d").first
    canvas = explorer3d.locator("canvas").first
    (artifacts_dir / "voila-chain-playground-canvas.png").write_bytes(assert_canvas_nonblank(canvas))
    assert_menu_shows(explorer3d.locator(".rfnb-vertex-menu select").first, "none")  # not an empty box
    assert_table_rows_visible(explorer3d)  # all twelve elements of the icosahedron
    text = page.locator("body").inner_text()
    assert "What we saw" in text and "A polytope in space" in text  # the explanations stay
    shown = [t for t in NOT_FOR_THE_CLASS if t in text]
    assert not shown, f"the app shows what is not for the class: {shown}"
    assert page.locator(".jp-OutputArea-output", has_text="Traceback").count() == 0
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "voila-chain-playground.png"), full_page=True)



def _only_this_machine(page, server) -> tuple[list, list]:
    """Abort every request that leaves ``server``; returns the aborted URLs and the (status, URL) of Font Awesome files."""
    outside, served = [], []
    local = server.base.rstrip("/")

    def route(r):
        if r.request.url.startswith(local):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("response", lambda r: "fontawesome" in r.url and served.append((r.status, r.url)))
    return outside, served


def test_the_class_app_asks_nothing_outside_the_machine(page, voila_app_server, artifacts_dir):
    """bash scripts/app.sh: the playground in the kit's Voilà template; Font Awesome comes from the template."""
    outside, served = _only_this_machine(page, voila_app_server)
    page.goto(voila_app_server.url("/"), wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.locator("#rendered_cells").first.wait_for(state="visible", timeout=RUN_TIMEOUT)
    page.locator(".rfnb-polytope-explorer-3d").first.wait_for(timeout=LOAD_TIMEOUT)
    assert outside == [], f"the app asked outside the machine: {outside[:5]}"
    assert sorted(u.rsplit("/", 1)[1] for s, u in served if s == 200) == ["all.min.css", "v4-shims.min.css"], served
    assert all("/voila/templates/relu-frames/static/fontawesome/" in u for _, u in served)
    assert page.locator("a[href$='.ipynb']").count() == 0  # a link to another notebook would answer 403 here
    assert_no_widget_errors(page)
    assert not _console_errors(page), "errors in the app's console:\n" + "\n".join(_console_errors(page)[:5])


def test_binder_serves_the_app_in_the_kit_template_with_nothing_from_outside(page, voila_binder_server, artifacts_dir):
    """The README's Binder link for the app, as Binder serves it (binder/postBuild, binder/start, Voila's extension)."""
    outside, served = _only_this_machine(page, voila_binder_server)
    page.goto(voila_binder_server.url(f"/voila/render/{CHAIN_PLAYGROUND.stem}.ipynb", template="relu-frames"),
              wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)  # fmt: skip
    page.locator("#rendered_cells").first.wait_for(state="visible", timeout=RUN_TIMEOUT)
    page.locator(".rfnb-reconstruction-playground").first.wait_for(timeout=LOAD_TIMEOUT)
    assert outside == [], f"the Binder app asked outside the machine: {outside[:5]}"
    # the kit's template hides what voila.json hides for a plain `voila` (the extension does not read its preprocessors)
    text = page.locator("body").inner_text()
    shown = [t for t in NOT_FOR_THE_CLASS if t in text]
    assert not shown, f"the Binder app shows what is not for the class: {shown}"
    assert sorted(u.rsplit("/", 1)[1] for s, u in served if s == 200) == ["all.min.css", "v4-shims.min.css"], served
    assert all("/voila/templates/relu-frames/static/fontawesome/" in u for _, u in served)
    assert_no_widget_errors(page)
    assert not _console_errors(page), "errors in the Binder app's console:\n" + "\n".join(_console_errors(page)[:5])
    page.screenshot(path=str(artifacts_dir / "voila-binder-app.png"), full_page=True)
