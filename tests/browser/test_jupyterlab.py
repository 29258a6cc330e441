"""JupyterLab 4 in headless Chromium: the explorers render and react; the 3-D canvas draws."""

from __future__ import annotations

import pytest

from .jupyter_ui import (
    assert_labels_one_size,
    assert_table_scrolls_visibly,
    check_frame_explorer,
    check_polytope_explorer,
    run_notebook,
    slider_by_keyboard,
)

pytestmark = pytest.mark.browser


def test_frame_explorer_slider_changes_plot_and_verdict(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "frame_explorer_2d.ipynb", "lab", "RFNB-BROWSER-DONE-frame2d", artifacts=artifacts_dir)
    # keyboard: three steps of 0.05, -0.60 -> -0.45, across -1/2
    check_frame_explorer(page, lambda pg, slider: slider_by_keyboard(pg, slider, 3), artifacts_dir, "lab")


def test_polytope_explorer_canvas_renders_rotates_and_selects(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "polytope_3d.ipynb", "lab", "RFNB-BROWSER-DONE-polytope3d", artifacts=artifacts_dir)
    check_polytope_explorer(page, artifacts_dir, "lab")  # also: the vertex menu shows "none", all 12 rows in view
    # a 60-element frame: the table announces that it scrolls, keeps a scrollbar and scrolls to φ60
    long_table = page.locator(".rfnb-polytope-explorer-3d.rfnb-test-long-table").first
    long_table.scroll_into_view_if_needed()
    assert_table_scrolls_visibly(long_table, artifacts_dir, "lab")
    # the vertex labels have one size on screen at every depth (sprites without size attenuation)
    explorer = page.locator(".rfnb-polytope-explorer-3d").first
    explorer.scroll_into_view_if_needed()
    assert_labels_one_size(page, explorer, artifacts_dir, "lab")
    # no "Error setting state" from the viewers (pythreejs's uninitialised light shadow and target, now given)
    seen = getattr(page, "console_messages_seen", [])
    assert not [m for m in seen if "Error setting state" in m], [m for m in seen if "Error setting state" in m][:3]
