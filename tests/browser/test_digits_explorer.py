"""JupyterLab 4 in headless Chromium: the digits explorer renders, and its slider, mode buttons and
drawing grid round-trip to the kernel (the summary line and the picture change)."""

from __future__ import annotations

import re

import pytest

from .jupyter_ui import (
    LOAD_TIMEOUT,
    assert_no_widget_errors,
    image_src,
    run_notebook,
    slider_by_keyboard,
    slider_readout,
    wait_for_change,
    wait_until,
)

pytestmark = pytest.mark.browser


def test_digits_explorer_slider_mode_and_grid_round_trip(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "digits_explorer.ipynb", "lab", "RFNB-BROWSER-DONE-digits", artifacts=artifacts_dir)
    explorer = page.locator(".rfnb-digits-explorer").first
    explorer.wait_for(timeout=LOAD_TIMEOUT)
    summary = explorer.locator(".rfnb-digits-summary").first
    wait_until(summary.inner_text, lambda t: t.startswith("digit #0 (label 0)"), what="initial summary")
    assert re.search(r"\d+ of 128 units active", summary.inner_text())
    grid = explorer.locator(".rfnb-digits-grid").first
    assert not grid.is_visible(), "the drawing grid shows only in draw mode"
    src0 = image_src(explorer)
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "lab-digits-before.png"), full_page=True)

    # the index slider: three steps right, digit #3, a new picture
    slider = explorer.locator(".rfnb-digits-index.widget-slider").first
    slider_by_keyboard(page, slider, 3)
    wait_until(summary.inner_text, lambda t: t.startswith("digit #3 (label 3)"), what="summary after the slider")
    assert slider_readout(slider) == 3
    src1 = wait_for_change(lambda: image_src(explorer), src0, what="plot image after the slider")

    # draw mode: the grid appears; copying the digit makes the drawn image the input
    explorer.locator(".widget-toggle-buttons button", has_text="draw").first.click()
    grid.wait_for(state="visible", timeout=LOAD_TIMEOUT)
    wait_until(summary.inner_text, lambda t: t.startswith("the drawn image"), what="summary in draw mode")
    explorer.locator("button", has_text="copy digit to grid").first.click()
    pixels = explorer.locator(".rfnb-digits-pixel")
    assert pixels.count() == 64
    src2 = wait_for_change(lambda: image_src(explorer), src1, what="plot image after copying the digit")
    # drawn pixels are dark and blank ones white (issue 19: button_color did nothing on a ToggleButton)
    colors = [pixels.nth(k).evaluate("e => getComputedStyle(e).backgroundColor") for k in range(64)]
    assert "rgb(255, 255, 255)" in colors and "rgb(34, 34, 34)" in colors, sorted(set(colors))
    # one click on a pixel toggles it: the image, and so the picture, changes
    pixels.nth(27).click()
    wait_for_change(lambda: image_src(explorer), src2, what="plot image after a pixel click")
    assert summary.inner_text().startswith("the drawn image")
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "lab-digits-drawn.png"), full_page=True)
