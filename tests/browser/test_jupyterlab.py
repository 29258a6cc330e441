"""JupyterLab 4 in headless Chromium: the explorers render, react, and draw the 3-D polytope."""

from __future__ import annotations

import pytest

from .jupyter_ui import (
    assert_canvas_nonblank,
    assert_no_widget_errors,
    drag_on,
    image_src,
    pixels_changed,
    run_notebook,
    slider_by_keyboard,
    wait_for_change,
    wait_until,
)

pytestmark = pytest.mark.browser


def test_frame_explorer_slider_changes_plot_and_verdict(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "frame_explorer_2d.ipynb", "lab", "RFNB-BROWSER-DONE-frame2d", artifacts=artifacts_dir)
    explorer = page.locator(".jp-OutputArea-output", has=page.locator(".widget-slider")).first
    slider = explorer.locator(".widget-slider").first
    slider.wait_for()
    verdict = explorer.locator(".rfnb-verdict").first
    verdict.wait_for()
    assert_no_widget_errors(page)
    src0, verdict0 = image_src(explorer), verdict.inner_text()
    assert verdict0.startswith("injective"), verdict0  # offset -0.60 < -1/2 on the unit ball
    page.screenshot(path=str(artifacts_dir / "lab-frame2d-before.png"), full_page=True)

    slider_by_keyboard(page, slider, 3)  # -0.60 -> -0.45: crosses -1/2
    wait_for_change(lambda: image_src(explorer), src0, what="plot image src")
    wait_until(verdict.inner_text, lambda v: v.startswith("not injective"), what="verdict")
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "lab-frame2d-after.png"), full_page=True)


def test_polytope_canvas_renders_and_rotates(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "polytope_3d.ipynb", "lab", "RFNB-BROWSER-DONE-polytope3d", artifacts=artifacts_dir)
    canvas = page.locator(".jp-OutputArea-output canvas").first
    canvas.wait_for()
    before = assert_canvas_nonblank(canvas)
    (artifacts_dir / "lab-polytope3d-canvas.png").write_bytes(before)
    assert_no_widget_errors(page)

    drag_on(page, canvas, 120, 40)  # OrbitControls rotate the camera
    wait_for_change(canvas.screenshot, before, what="canvas pixels")
    after = assert_canvas_nonblank(canvas)
    assert pixels_changed(before, after), "dragging on the canvas did not change the rendering"
    (artifacts_dir / "lab-polytope3d-canvas-dragged.png").write_bytes(after)
    page.screenshot(path=str(artifacts_dir / "lab-polytope3d.png"), full_page=True)
