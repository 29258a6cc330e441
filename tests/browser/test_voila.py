"""Voila in headless Chromium: the reconstruction playground renders and round-trips a slider."""

from __future__ import annotations

import pytest

from .jupyter_ui import (
    LOAD_TIMEOUT,
    RUN_TIMEOUT,
    assert_no_widget_errors,
    image_src,
    slider_by_mouse,
    wait_for_change,
)

pytestmark = pytest.mark.browser


def test_playground_renders_and_slider_round_trips(page, voila_server, artifacts_dir):
    page.goto(voila_server.url("/"), wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.locator(".jp-OutputArea-output", has_text="RFNB-BROWSER-DONE-playground").first.wait_for(timeout=RUN_TIMEOUT)
    playground = page.locator(".jp-OutputArea-output", has=page.locator(".widget-slider")).first
    slider = playground.locator(".widget-slider").first
    slider.wait_for()
    report = playground.locator(".rfnb-report").first
    report.wait_for()
    assert_no_widget_errors(page)
    src0, report0 = image_src(playground), report.inner_text()
    page.screenshot(path=str(artifacts_dir / "voila-playground-before.png"), full_page=True)

    slider_by_mouse(page, slider, 0.25)  # angle 0 -> about 90 degrees
    wait_for_change(lambda: image_src(playground), src0, what="plot image src")
    wait_for_change(report.inner_text, report0, what="playground report")
    assert_no_widget_errors(page)
    page.screenshot(path=str(artifacts_dir / "voila-playground-after.png"), full_page=True)
