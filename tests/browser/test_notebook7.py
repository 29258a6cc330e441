"""Notebook 7 in headless Chromium: the same explorers render and react (sliders by mouse drag)."""

from __future__ import annotations

import pytest

from .jupyter_ui import (
    assert_canvas_nonblank,
    assert_no_widget_errors,
    drag_on,
    image_src,
    pixels_changed,
    run_notebook,
    slider_by_mouse,
    slider_readout,
    wait_for_change,
    wait_until,
)

pytestmark = pytest.mark.browser


def test_frame_explorer_slider_drag_changes_plot_and_verdict(page, notebook7_server, artifacts_dir):
    run_notebook(
        page, notebook7_server, "frame_explorer_2d.ipynb", "notebook7", "RFNB-BROWSER-DONE-frame2d", artifacts=artifacts_dir
    )
    explorer = page.locator(".jp-OutputArea-output", has=page.locator(".widget-slider")).first
    slider = explorer.locator(".widget-slider").first
    slider.wait_for()
    verdict = explorer.locator(".rfnb-verdict").first
    verdict.wait_for()
    assert_no_widget_errors(page)
    src0, verdict0 = image_src(explorer), verdict.inner_text()
    assert verdict0.startswith("injective"), verdict0
    page.screenshot(path=str(artifacts_dir / "nb7-frame2d-before.png"), full_page=True)

    # Notebook 7 ignores the keyboard on sliders: drag the handle to 70 % of [-1, 0] (about -0.3)
    slider_by_mouse(page, slider, 0.7)
    wait_for_change(lambda: image_src(explorer), src0, what="plot image src")
    wait_until(verdict.inner_text, lambda v: v.startswith("not injective"), what="verdict")
    assert slider_readout(slider) > -0.5
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "nb7-frame2d-after.png"), full_page=True)


def test_polytope_canvas_renders_and_rotates(page, notebook7_server, artifacts_dir):
    run_notebook(
        page, notebook7_server, "polytope_3d.ipynb", "notebook7", "RFNB-BROWSER-DONE-polytope3d", artifacts=artifacts_dir
    )
    canvas = page.locator(".jp-OutputArea-output canvas").first
    canvas.wait_for()
    before = assert_canvas_nonblank(canvas)
    assert_no_widget_errors(page)
    drag_on(page, canvas, -100, 60)
    after = wait_for_change(canvas.screenshot, before, what="canvas pixels")
    assert pixels_changed(before, assert_canvas_nonblank(canvas)), "dragging on the canvas did not change the rendering"
    (artifacts_dir / "nb7-polytope3d-canvas-dragged.png").write_bytes(after)
    page.screenshot(path=str(artifacts_dir / "nb7-polytope3d.png"), full_page=True)
