"""Explorers driven without a browser: set ``.value``, assert on the resulting state; and the shared parser."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import relu_frames_nb as rf  # noqa: E402
from relu_frames_nb.viz.parsing import MatrixParseError, parse_matrix  # noqa: E402

W = pytest.importorskip("ipywidgets")
widgets = pytest.importorskip("relu_frames_nb.viz.widgets")


# ------------------------------------------------------------------ the parser
@pytest.mark.parametrize(
    "text",
    [
        "1 0\n0 1\n-1 -1",
        "1,0;0,1;-1,-1",
        "[[1, 0], [0, 1], [-1, -1]]",
        "  1  0  # first\n\n 0 1\n-1.0e0 -1.\n",
        "+1 0; .0 1; -1 -1",
        "1 0\r0 1\r-1 -1",  # CR-only line ends (classic Mac OS)
        "1 0\r\n0 1\r\n-1 -1\r\n",  # Windows line ends
        "1 0  # first\r0 1\r-1 -1",  # a comment ends at a lone CR too
    ],
)
def test_parse_matrix_layouts(text):
    assert parse_matrix(text).tolist() == [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]


@pytest.mark.parametrize(
    "text,where",
    [
        ("1 0\n0 x", "'x' at line 2, column 3"),
        ("1 0\n0 nan", "'nan'"),
        ("1 0\n0 inf", "'inf'"),
        ("__import__('os')", "__import__('os')"),
        ("1 0\n0 1e", "'1e'"),
        ("1 0\n2*3 1", "'2*3'"),
        ("1 0 0\n0 1", "same number of entries"),
        ("", "no numbers"),
        ("[[1, 0], [0, 1]", "unclosed"),
        ("1 0]", "unmatched"),
        ("[[[1]]]", "third level"),
    ],
)
def test_parse_matrix_refuses_anything_but_numbers(text, where):
    with pytest.raises(MatrixParseError, match=None) as info:
        parse_matrix(text)
    assert where in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"])
def test_parse_matrix_positions_count_every_line_ending(newline):
    text = newline.join(["1 0", "0 1", "-1 x"])
    with pytest.raises(MatrixParseError) as info:
        parse_matrix(text)
    assert "'x' at line 3, column 4" in str(info.value)


def test_parse_matrix_refuses_non_strings_and_huge_inputs():
    with pytest.raises(MatrixParseError):
        parse_matrix(b"1 0")  # type: ignore[arg-type]
    with pytest.raises(MatrixParseError):
        parse_matrix("1 " * 50, max_entries=10)


# ------------------------------------------------------------------ check() as the explorers call it
def test_check_triangle_on_the_ball_flips_at_minus_one_half():
    F = rf.zoo.mercedes_benz()
    K = rf.Ball(2)
    from relu_frames_nb.viz.plane import boundary_points, grid_points

    def verdict(a):
        L = rf.ReLULayer(F, a)
        X = grid_points(1.0, resolution=61)
        X = np.vstack([X[K.contains(X)], boundary_points(L, K)])
        return widgets.check(L, K, points=X)

    v = verdict(-0.5)
    margin = v.details["polytope_margin"]
    assert v.status == "injective" and v.method == "polytope bias" and margin == pytest.approx(0.0, abs=1e-12)
    v = verdict(-0.6)
    assert v.status == "injective" and v.details["polytope_margin"] == pytest.approx(0.1)
    for a in (-0.49, -0.3, 0.0, 0.4):
        v = verdict(a)
        assert v.status == "not injective", (a, v.text)
        L = rf.ReLULayer(F, a)
        x, y = v.pair
        assert np.allclose(L(x), L(y), rtol=0, atol=1e-15) and not np.allclose(x, y)
        assert v.text.startswith("not injective")


def test_check_validates_inputs():
    with pytest.raises(ValueError):
        widgets.check(rf.zoo.mercedes_benz(), rf.Ball(2))
    with pytest.raises(ValueError):
        widgets.check(rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), rf.Ball(3))


def test_check_on_real_space_uses_the_tukey_depth():
    v = widgets.check(rf.ReLULayer(rf.zoo.plus_minus_basis(2), 0.0), rf.RealSpace(2), points=np.zeros((0, 2)))
    assert v.status == "injective" and v.method == "Tukey depth"
    v = widgets.check(rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), rf.RealSpace(2))
    assert v.status == "not injective"


# ------------------------------------------------------------------ FrameExplorer2D
@pytest.fixture
def explorer():
    return widgets.FrameExplorer2D(offset=-0.6, resolution=61, dpi=40)


def test_explorer_is_a_vbox_with_a_verdict_and_a_plot(explorer):
    assert isinstance(explorer, W.VBox)
    assert "rfnb-verdict" in explorer.verdict_html._dom_classes
    assert "rfnb-plot" in explorer.plot._dom_classes
    assert explorer.verdict.status == "injective"
    assert explorer.verdict_text.startswith("injective")
    assert explorer.last_png[:8] == b"\x89PNG\r\n\x1a\n"
    assert explorer.plot.outputs[0]["data"]["image/png"]
    assert explorer.error_text == ""


def test_explorer_verdict_crosses_the_maximal_bias(explorer):
    png0 = explorer.last_png
    explorer.offset.value = -0.45
    assert explorer.verdict.status == "not injective"
    assert explorer.verdict_text.startswith("not injective")
    assert explorer.verdict.pair is not None
    assert len(explorer.view.artists["collision"]) >= 3  # the pair is drawn
    assert explorer.last_png != png0
    assert np.allclose(explorer.alpha, -0.45)
    explorer.offset.value = -0.5
    assert explorer.verdict.status == "injective"
    assert explorer.view.artists["collision"] == []
    assert explorer.error_text == ""


def test_explorer_per_element_bias(explorer):
    explorer.element.value = 1
    explorer.element_bias.value = -0.2
    assert explorer.bias_mode.value == "per element"
    assert explorer.alpha.tolist() == [-0.6, -0.2, -0.6]
    assert explorer.verdict.status == "not injective"
    explorer.bias_mode.value = "offset"
    assert np.allclose(explorer.alpha, explorer.offset.value)


def test_explorer_bad_matrix_shows_a_message_and_keeps_the_frame(explorer):
    F = explorer.frame
    explorer.set_matrix("1 0\n0 one")
    assert "plain numbers" in explorer.message_text and "one" in explorer.message_text
    assert "plain numbers" in explorer.message.value
    assert explorer.frame is F and explorer.error_text == ""
    explorer.set_matrix("1 0 0\n0 1 0\n0 0 1")
    assert "2 columns" in explorer.message_text
    explorer.set_matrix("1 0\n0 1\n-1 -1")
    assert explorer.message_text == "" and explorer.frame.m == 3
    assert np.allclose(explorer.frame.vectors[2], [-1, -1])


def test_explorer_frames_and_domains(explorer):
    explorer.source.value = "random"
    explorer.m_random.value = 12
    assert explorer.frame.m == 12 and len(explorer.element.options) == 12
    explorer.source.value = "preset"
    explorer.preset.value = "example-a"
    assert explorer.frame.m == 5
    for kind in ("sphere", "shell", "positive ball", "R^n", "ball"):
        explorer.domain_kind.value = kind
        assert explorer.verdict.status in ("injective", "not injective", "undetermined"), kind
        assert explorer.error_text == "", explorer.error_text
    explorer.radius.value = 0.5
    assert explorer.domain == rf.Ball(2, 0.5)


def test_explorer_overlays(explorer):
    for name, toggle in explorer.overlay_toggles.items():
        toggle.value = not toggle.value
        assert (name in explorer.view.visible) == toggle.value
    assert explorer.error_text == ""
    explorer.overlay_toggles["minima"].value = True
    assert len(explorer.view.artists["minima"]) > 0


def test_explorer_callback_errors_are_shown_not_lost(explorer, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("forced failure in an observer")

    monkeypatch.setattr(explorer.view, "set_bias", boom)
    explorer.offset.value = -0.3  # must not raise
    assert "forced failure" in explorer.error_text
    assert explorer.error_count == 1
    texts = [o.get("text", "") + str(o.get("data", "")) for o in explorer.errors.outputs]
    assert any("forced failure" in t for t in texts)
    assert any("Traceback" in o.get("text", "") for o in explorer.errors.outputs)  # unexpected errors keep the traceback
    explorer.clear_errors()
    assert explorer.errors.outputs == () and explorer.error_text == ""


def test_explorer_user_errors_show_a_short_message(explorer):
    explorer.domain_kind.value = "shell"
    explorer.inner.value = 1.5  # s >= r
    assert "s < r" in explorer.error_text
    assert all("Traceback" not in o.get("text", "") for o in explorer.errors.outputs)


def test_explorer_rejects_unknown_presets():
    with pytest.raises(ValueError):
        widgets.FrameExplorer2D("nope")


def test_explorer_accepts_a_frame():
    ex = widgets.FrameExplorer2D(rf.zoo.regular_polygon(5), offset=0.0, resolution=41, dpi=30)
    assert ex.frame.m == 5 and ex.source.value == "matrix"


# ------------------------------------------------------------------ PolytopeExplorer3D
@pytest.fixture
def explorer3d():
    pytest.importorskip("pythreejs")
    return widgets.PolytopeExplorer3D("icosahedron", domain="ball")


def test_explorer3d_table_and_estimates(explorer3d):
    ex = explorer3d
    assert isinstance(ex, W.VBox)
    assert ex.estimate.method == "polytope"
    assert ex.bias_table_html.count("<tr") == 12 + 1
    assert "φ12" in ex.bias_table_html
    assert ex.viewer.renderer in ex.children[5].children
    est = rf.polytope_bias(rf.zoo.platonic("icosahedron"), rf.Ball(3))
    assert np.allclose(ex.estimate.values, est.values)


def test_explorer3d_vertex_selection_does_not_rebuild(explorer3d):
    ex = explorer3d
    builds = ex.viewer.n_geometry_builds
    color_attr = ex.viewer._attrs["facets"]["color"]
    ex.vertex.value = 4
    assert ex.viewer.scene.vertex == 4
    assert ex.viewer.n_geometry_builds == builds and ex.viewer._attrs["facets"]["color"] is color_attr
    assert ex.layer_toggles["star"].value and ex.viewer.objects["star"].visible
    assert "background" in ex.bias_table_html
    assert ex.selected_vertex == 4
    ex.vertex.value = None  # read as "none": the menu shows "none", not an empty box
    assert ex.viewer.scene.vertex is None and ex.selected_vertex is None
    assert ex.vertex.index == 0 and ex.vertex.label == "none"


def test_explorer3d_vertex_menu_shows_none_not_an_empty_box(explorer3d):
    from relu_frames_nb.viz.explorer3d import NO_VERTEX

    ex = explorer3d
    assert ex.vertex.index == 0 and ex.vertex.label == "none" and ex.vertex.value == NO_VERTEX
    assert ex.selected_vertex is None and ex.viewer.scene.vertex is None
    assert all(value is not None for _, value in ex.vertex.options)  # None would render an empty <select>
    ex.frame_choice.value = "cube"
    assert ex.vertex.label == "none" and len(ex.vertex.options) == 9


def test_explorer3d_table_shows_every_row_beside_the_canvas_or_scrolls_visibly():
    pytest.importorskip("pythreejs")
    ex = widgets.PolytopeExplorer3D("icosahedron", domain="sphere", width=460, height=460)
    html = ex.bias_table_html
    assert html.count("<tr") == 13 and "rfnb-table-note" not in html and "overflow-y:auto" in html
    assert "line-height:1.3" in html  # compact rows: 12 rows + header < 460 px
    ex.frame_choice.value = "random"
    ex.m_random.value = 60
    html = ex.bias_table_html
    assert html.count("<tr") == 61 and "φ60" in html
    assert "rfnb-table-note" in html and "of 60 shown: scroll the table" in html
    assert "overflow-y:scroll" in html and "scrollbar-color" in html  # a classic scrollbar, not an overlay one


def test_explorer_check_cells_leave_the_first_state_for_the_class():
    """The 12_playground check cells drive each explorer and undo it: the digest of what is shown comes back."""
    ex = widgets.FrameExplorer2D("mercedes-benz", offset=-0.6, resolution=61, dpi=30)
    first = ex.state_digest()
    ex.offset.value = -0.45
    assert ex.state_digest() != first
    ex.domain_kind.value = "sphere"
    ex.offset.value = -0.55
    ex.domain_kind.value = "ball"
    ex.offset.value = -0.6
    assert ex.state_digest() == first
    pytest.importorskip("pythreejs")
    e3 = widgets.PolytopeExplorer3D("icosahedron", domain="sphere")
    first = e3.state_digest()
    start = e3.vertex.value
    e3.vertex.value = 3
    assert e3.state_digest() != first
    e3.domain_kind.value = "ball"
    e3.domain_kind.value = "sphere"
    e3.vertex.value = start
    assert e3.state_digest() == first  # the star point is hidden again, the menu shows "none"
    pg = widgets.ReconstructionPlayground("mercedes-benz", offset=-0.5, dpi=30)
    first = pg.state_digest()
    pg.offset.value = 0.5
    assert pg.state_digest() != first
    pg.offset.value = -0.5
    assert pg.state_digest() == first


def test_widget_digest_sees_layout_and_nested_widgets():
    from relu_frames_nb.viz._widget_base import widget_digest

    box = W.VBox([W.HBox([W.IntSlider(value=1)])])
    d = widget_digest(box)
    box.children[0].children[0].layout.display = "none"
    assert widget_digest(box) != d
    box.children[0].children[0].layout.display = None
    assert widget_digest(box) == d
    twin = W.VBox([W.HBox([W.IntSlider(value=1)])])
    assert widget_digest(twin) == d  # contents, not model ids


def test_explorer3d_domain_method_and_frame(explorer3d):
    ex = explorer3d
    ex.domain_kind.value = "sphere"
    assert ex.estimate.domain == rf.Sphere(3)
    ex.method.value = "sampling"
    assert "press" in ex.status_text
    ex.n_samples.value = 3000
    ex.compute.click()
    assert ex.estimates["sampling"].n_samples > 0 and ex.estimate.method != "polytope"
    assert ex.bias_table_html.count("<td") > 12 * 2
    ex.frame_choice.value = "random"
    ex.m_random.value = 30
    assert ex.frame.m == 30 and len(ex.vertex.options) == 31
    ex.element.value = 7
    assert ex.viewer.scene.element == 7 and ex.layer_toggles["bias_plane"].value
    ex.layer_toggles["caps"].value = True
    assert ex.viewer.objects["caps"].visible
    assert ex.error_text == ""


def test_explorer3d_errors_are_shown(explorer3d, monkeypatch):
    monkeypatch.setattr(explorer3d.viewer, "select_vertex", lambda v: (_ for _ in ()).throw(RuntimeError("forced 3-D failure")))
    explorer3d.vertex.value = 2
    assert "forced 3-D failure" in explorer3d.error_text
    explorer3d.n_samples.value = 0
    explorer3d.method.value = "sampling"
    explorer3d.compute.click()
    assert "samples" in explorer3d.error_text


# ------------------------------------------------------------------ ReconstructionPlayground
def test_playground_reconstructs():
    pg = widgets.ReconstructionPlayground(offset=-0.5, n_iter=80, dpi=30)
    assert isinstance(pg, W.VBox)
    x = pg.x
    assert np.allclose(pg.z, rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)(x))
    assert np.array_equal(pg.active, pg.z > 0)
    assert pg.x_dual is not None and np.allclose(pg.x_dual, x)
    assert pg.errors_curve.size == pg.result.n_iter + 1
    assert pg.errors_curve[-1] < pg.errors_curve[0]
    png0 = pg.last_png
    pg.sliders[0].value = -0.3
    assert np.allclose(pg.x_dual, pg.x) and pg.last_png != png0
    pg.n_iter.value = 5
    assert pg.result.n_iter <= 5


@pytest.mark.parametrize("frame", ["mercedes-benz", "icosahedron"])
def test_playground_steps_redraw_only_what_moves_and_show_the_full_picture(frame):
    import io

    from PIL import Image

    pg = widgets.ReconstructionPlayground(frame, offset=-0.5, dpi=60)
    still = pg._background
    for value in (0.35, -0.2):
        pg.sliders[0].value = value
        if frame == "mercedes-benz":
            pg.offset.value = -0.45 if value > 0 else -0.5  # in the plane α moves with x: no still redraw either
        assert pg._background is still  # the still part was not drawn again
        # what is shown is the full picture of the state: a complete draw of last_figure gives the same pixels
        buf = io.BytesIO()
        pg.last_figure.savefig(buf, format="png", dpi=pg.dpi)
        shown = np.asarray(Image.open(io.BytesIO(pg.last_png)).convert("RGB"), dtype=int)
        full = np.asarray(Image.open(buf).convert("RGB"), dtype=int)
        assert shown.shape == full.shape
        assert np.mean(np.abs(shown - full).sum(axis=2) > 30) < 0.002  # antialiasing where lines cross
    pg.n_iter.value = 20  # the error axis changes: the still part is drawn again
    assert pg._background is not still


def test_playground_reports_unrecoverable_inputs():
    pg = widgets.ReconstructionPlayground(offset=0.9, x=[0.0, 0.1], dpi=30)
    assert pg.x_dual is None and pg.result is None
    assert "does not span" in pg.summary_text
    assert pg.error_text == ""


def test_playground_in_three_dimensions_and_errors(monkeypatch):
    pg = widgets.ReconstructionPlayground("icosahedron", offset=-0.2, dpi=30)
    assert len(pg.sliders) == 3 and np.allclose(pg.x_dual, pg.x)
    pg.frame_choice.value = "pentagon"
    assert len(pg.sliders) == 2 and pg.error_text == ""
    monkeypatch.setattr(pg, "_draw", lambda: (_ for _ in ()).throw(RuntimeError("forced draw failure")))
    pg.offset.value = -0.3
    assert "forced draw failure" in pg.error_text


def test_presets():
    assert "mercedes-benz" in widgets.presets(2) and "cube" in widgets.presets(3)
    assert set(widgets.presets(2)).isdisjoint(widgets.presets(3))


# ------------------------------------------------------------------ readers without a kernel
def _png_of(bundle):
    import base64

    return base64.b64decode(bundle["image/png"])


def _rgb(png):
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _captioned(captioned, png):
    """``captioned`` is ``png`` below a caption band, inside a one-pixel dashed frame."""
    a, b = _rgb(png), _rgb(captioned)
    band = b.shape[0] - a.shape[0]
    return b.shape[1] == a.shape[1] and 15 <= band <= 60 and bool((b[band:-1, 1:-1] == a[:-1, 1:-1]).all())


def test_explorers_carry_a_static_png_next_to_the_widget_view(explorer):
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert explorer.last_png.startswith(b"\x89PNG") and _captioned(_png_of(bundle), explorer.last_png)
    assert "still picture" in explorer.static_caption
    # the picture follows the state: a new bias, a new PNG
    explorer.offset.value = -0.2
    assert _captioned(_png_of(explorer._repr_mimebundle_()), explorer.last_png)
    explorer.static_caption = None  # the bare picture
    assert _png_of(explorer._repr_mimebundle_()) == explorer.last_png
    explorer.static_fallback = False
    assert "image/png" not in explorer._repr_mimebundle_()


def test_3d_explorer_and_playground_carry_a_static_png():
    e3 = widgets.PolytopeExplorer3D("octahedron", width=120, height=120)
    assert _captioned(_png_of(e3._repr_mimebundle_()), e3.viewer.snapshot_png())
    pg = widgets.ReconstructionPlayground("mercedes-benz", offset=-0.5)
    assert _captioned(_png_of(pg._repr_mimebundle_()), pg.last_png)


# ------------------------------------------------------------------ what a student reads at 100 % zoom
def _texts_on_screen(fig):
    """Visible text artists of a figure with their window extents (pixels at the figure's dpi)."""
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    hidden = set()  # labels of ticks outside the axis' view interval are not drawn (matplotlib >= 3.11 keeps them visible)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    hidden.update({id(tick.label1), id(tick.label2)})
    out = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.figure is fig and id(t) not in hidden:
            out.append((t, t.get_window_extent(renderer)))
    return out


@pytest.mark.parametrize("offset,domain", [(-0.6, "ball"), (-0.45, "ball"), (-0.2, "shell"), (0.0, "R^n")])
def test_frame_explorer_picture_is_wide_readable_and_free_of_overlaps(offset, domain):
    ex = widgets.FrameExplorer2D("mercedes-benz", offset=offset, domain=domain, resolution=61)  # default dpi
    for name in ("count", "minima"):
        ex.overlay_toggles[name].value = True
    import io

    from PIL import Image

    width, height = Image.open(io.BytesIO(ex.last_png)).size
    assert width >= 740 and height >= 420  # the widget's width, not a 330-px thumbnail
    texts = _texts_on_screen(ex.last_figure)
    assert len(texts) >= 8
    for t, _ in texts:
        assert t.get_fontsize() * ex.dpi / 72 >= 9.0, (t.get_text(), t.get_fontsize())  # >= 9 px at 100 % zoom
    boxes = [(t.get_text(), bb) for t, bb in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            (ti, bi), (tj, bj) = boxes[i], boxes[j]
            assert not bi.overlaps(bj), f"{ti!r} overlaps {tj!r}"
    fig_box = ex.last_figure.bbox
    for t, bb in texts:  # nothing cut off at the picture's edges
        assert bb.x0 >= fig_box.x0 - 1 and bb.x1 <= fig_box.x1 + 1 and bb.y0 >= fig_box.y0 - 1 and bb.y1 <= fig_box.y1 + 1, t
    if ex.verdict.status == "not injective":
        # the pair is explained in the key, not written over the plane (where the φ labels are)
        assert not any("C" in t.get_text() for t in ex._ax.texts)
        assert any(line.startswith("x = (") for line in ex.key_texts)
        assert any("one output" in line for line in ex.key_texts)


@pytest.mark.parametrize("frame,offset", [("mercedes-benz", -0.5), ("mercedes-benz", 0.9), ("icosahedron", -0.2)])
def test_playground_picture_is_readable(frame, offset):
    pg = widgets.ReconstructionPlayground(frame, offset=offset)  # default dpi
    texts = _texts_on_screen(pg.last_figure)
    assert len(texts) >= 6
    for t, _ in texts:
        assert t.get_fontsize() * pg.dpi / 72 >= 9.0, (t.get_text(), t.get_fontsize())
    boxes = [(t.get_text(), bb) for t, bb in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i][1].overlaps(boxes[j][1]), f"{boxes[i][0]!r} overlaps {boxes[j][0]!r}"
