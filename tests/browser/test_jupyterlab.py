"""JupyterLab 4 in headless Chromium: the explorers render and react; the 3-D canvas draws."""

from __future__ import annotations

import pytest

from .jupyter_ui import check_frame_explorer, check_polytope_explorer, run_notebook, slider_by_keyboard

pytestmark = pytest.mark.browser


def test_frame_explorer_slider_changes_plot_and_verdict(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "frame_explorer_2d.ipynb", "lab", "RFNB-BROWSER-DONE-frame2d", artifacts=artifacts_dir)
    # keyboard: three steps of 0.05, -0.60 -> -0.45, across -1/2
    check_frame_explorer(page, lambda pg, slider: slider_by_keyboard(pg, slider, 3), artifacts_dir, "lab")


def test_polytope_explorer_canvas_renders_rotates_and_selects(page, lab_server, artifacts_dir):
    run_notebook(page, lab_server, "polytope_3d.ipynb", "lab", "RFNB-BROWSER-DONE-polytope3d", artifacts=artifacts_dir)
    check_polytope_explorer(page, artifacts_dir, "lab")
