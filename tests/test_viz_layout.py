"""The layout of ``relu_frames_nb.viz``: small modules, old import paths, one keyword convention."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

VIZ = Path(__file__).resolve().parents[1] / "relu_frames_nb" / "viz"


def test_no_viz_module_is_longer_than_about_800_lines():
    long = {p.name: n for p in VIZ.glob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > 820}
    assert not long, f"split these modules along their sections: {long}"


@pytest.mark.parametrize(
    "module, names",
    [
        ("space", ["PolytopeScene", "PolytopeViewer", "static_render", "figure_poly", "figure4", "figure_png",
                   "with_static_png", "LAYERS", "polytope_mesh", "vertex_star"]),
        ("plane", ["PlaneView", "figure1", "figure2", "figure3", "OVERLAYS", "boundary_points", "grid_points",
                   "draw_frame_vectors"]),
        ("widgets", ["FrameExplorer2D", "PolytopeExplorer3D", "ReconstructionPlayground", "bias_table_html", "presets",
                     "Verdict", "check"]),
    ],
)  # fmt: skip
def test_old_import_paths_still_work(module, names):
    if module == "widgets":
        pytest.importorskip("ipywidgets")
    mod = __import__(f"relu_frames_nb.viz.{module}", fromlist=names)
    for name in names:
        assert getattr(mod, name) is not None
        if name in getattr(mod, "__all__", ()):
            assert name in dir(mod)


def test_reproduce_keeps_its_plot_names_and_does_not_load_matplotlib():
    code = (
        "import sys, relu_frames_nb.reproduce as rp\n"
        "assert 'matplotlib' not in sys.modules, 'reproduce imported matplotlib'\n"
        "from relu_frames_nb.viz import experiments as vx\n"
        "assert rp.plot_propinj is vx.plot_propinj and rp.plot_isinj is vx.plot_isinj and rp.plot_conv is vx.plot_conv\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_widgets_take_png_helpers_from_the_private_png_module():
    text = (VIZ / "_widget_base.py").read_text(encoding="utf-8")
    assert "from ._png import" in text and "from .space import" not in text


def test_plotting_functions_follow_the_ax_fig_convention():
    """One-axes functions take ``ax=None`` and return the axes; figures take ``fig=None``."""
    from relu_frames_nb.viz import experiments, plane, space

    one_axes = [getattr(plane, n) for n in plane.__all__ if n.startswith("draw_") or n == "style_axes"]
    one_axes.append(space.static_render)
    figures = [plane.figure1, plane.figure2, plane.figure3, space.figure_poly, space.figure4,
               experiments.plot_propinj, experiments.plot_isinj, experiments.plot_conv]  # fmt: skip
    for fn in one_axes:
        p = inspect.signature(fn).parameters
        assert "ax" in p and p["ax"].default is None, fn.__name__
    for fn in figures:
        p = inspect.signature(fn).parameters
        assert "fig" in p and p["fig"].default is None and p["fig"].kind is inspect.Parameter.KEYWORD_ONLY, fn.__name__


def test_one_name_check_for_overlays_and_layers():
    from relu_frames_nb.viz import plane, space
    from relu_frames_nb.viz._common import check_names

    assert check_names(["count"], plane.OVERLAYS, "overlays") == {"count"}
    with pytest.raises(ValueError, match="layers must be among"):
        check_names(["nope"], space.LAYERS, "layers")
