"""Notebook 7 in headless Chromium: the same explorers render and react (sliders by mouse drag)."""

from __future__ import annotations

import pytest

from .jupyter_ui import check_frame_explorer, check_polytope_explorer, run_notebook, slider_by_mouse

pytestmark = pytest.mark.browser

OFFSET_MIN, OFFSET_MAX = -1.5, 1.0  # range of FrameExplorer2D.offset


def test_frame_explorer_slider_drag_changes_plot_and_verdict(page, notebook7_server, artifacts_dir):
    run_notebook(page, notebook7_server, "frame_explorer_2d.ipynb", "notebook7", "RFNB-BROWSER-DONE-frame2d",
                 artifacts=artifacts_dir)  # fmt: skip
    # Notebook 7 ignores the keyboard on sliders: drag the handle to about -0.3
    fraction = (-0.3 - OFFSET_MIN) / (OFFSET_MAX - OFFSET_MIN)
    check_frame_explorer(page, lambda pg, slider: slider_by_mouse(pg, slider, fraction), artifacts_dir, "nb7")


def test_polytope_explorer_canvas_renders_and_rotates(page, notebook7_server, artifacts_dir):
    run_notebook(page, notebook7_server, "polytope_3d.ipynb", "notebook7", "RFNB-BROWSER-DONE-polytope3d",
                 artifacts=artifacts_dir)  # fmt: skip
    check_polytope_explorer(page, artifacts_dir, "nb7", select_vertex=False)
