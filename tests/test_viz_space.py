"""3-D scene builders on data (against scipy's ConvexHull), the scene's fixed sizes, the pythreejs viewer."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.spatial import ConvexHull  # noqa: E402

import relu_frames_nb as rf  # noqa: E402
from relu_frames_nb.paper.bias.correlated import most_correlated_basis  # noqa: E402
from relu_frames_nb.paper.bias.polytope import inscribing_polytope  # noqa: E402
from relu_frames_nb.viz import space  # noqa: E402
from relu_frames_nb.viz.readable import BOOK_COLUMN_PX  # noqa: E402

FRAMES = {
    "tetrahedron": lambda: rf.zoo.platonic("tetrahedron"),
    "cube": lambda: rf.zoo.platonic("cube"),
    "octahedron": lambda: rf.zoo.platonic("octahedron"),
    "dodecahedron": lambda: rf.zoo.platonic("dodecahedron"),
    "icosahedron": lambda: rf.zoo.platonic("icosahedron"),
    "random-12": lambda: rf.zoo.random_sphere(12, 3, seed=1),
    "random-40-unnormalized": lambda: rf.zoo.gaussian(40, 3, seed=4),
}


@pytest.fixture(params=sorted(FRAMES))
def frame3(request):
    return FRAMES[request.param]()


def _unit(F):
    return F.vectors / F.norms[:, None]


def _true_facets(F):
    """True facets by hand: qhull simplices grouped by their (rounded) plane equations."""
    hull = ConvexHull(_unit(F))
    keys = {}
    for simplex, eq in zip(hull.simplices, np.round(hull.equations, 8)):
        keys.setdefault(tuple(eq), set()).update(simplex.tolist())
    return hull, list(keys.values())


# ------------------------------------------------------------------ polytope mesh and edges
def test_mesh_matches_the_hull(frame3):
    hull, facets = _true_facets(frame3)
    mesh = space.polytope_mesh(frame3)
    P = inscribing_polytope(frame3)
    assert np.allclose(mesh.vertices, _unit(frame3))
    assert len(set(mesh.groups.tolist())) == len(facets) == P.n_facets
    assert mesh.n_triangles == sum(len(f) - 2 for f in facets)
    assert set(np.unique(mesh.triangles).tolist()) == set(hull.vertices.tolist())
    # every triangle lies on the plane of its (true) facet, with the outward orientation
    C = mesh.corners()
    a, b = P.normals[mesh.groups], P.offsets[mesh.groups]
    assert np.allclose(np.einsum("tkj,tj->tk", C, a), b[:, None], atol=1e-9)
    nrm = np.cross(C[:, 1] - C[:, 0], C[:, 2] - C[:, 0])
    assert np.all(np.einsum("tj,tj->t", nrm, a) > 0)
    # the triangles tile the surface: total area = hull area, no degenerate triangles
    area = 0.5 * np.linalg.norm(nrm, axis=1)
    assert np.all(area > 1e-12)
    assert area.sum() == pytest.approx(hull.area, rel=1e-9)
    # vertex sets per group are the true facets
    groups = [set(mesh.triangles[mesh.groups == g].ravel().tolist()) for g in range(P.n_facets)]
    assert sorted(map(sorted, groups)) == sorted(map(sorted, facets))


def test_edges_are_true_facet_edges_without_diagonals(frame3):
    hull, facets = _true_facets(frame3)
    edges = space.polytope_edges(frame3)
    V, F = len(hull.vertices), len(facets)
    assert len(edges) == V + F - 2  # Euler: V - E + F = 2
    assert np.all(edges[:, 0] < edges[:, 1])
    # each edge bounds exactly two facets
    for i, j in edges:
        assert sum(1 for f in facets if i in f and j in f) == 2
    seg = space.edge_segments(_unit(frame3), edges)
    assert seg.shape == (len(edges), 2, 3)


def test_cube_has_twelve_equal_edges():
    edges = space.polytope_edges(rf.zoo.platonic("cube"))
    seg = space.edge_segments(_unit(rf.zoo.platonic("cube")), edges)
    lengths = np.linalg.norm(seg[:, 1] - seg[:, 0], axis=1)
    assert len(edges) == 12 and np.allclose(lengths, lengths[0])


def test_ordered_facets_are_cycles():
    for cyc in space.ordered_facets(rf.zoo.platonic("dodecahedron")):
        assert cyc.size == 5
        V = _unit(rf.zoo.platonic("dodecahedron"))[cyc]
        d = np.linalg.norm(V - np.roll(V, -1, axis=0), axis=1)
        assert np.allclose(d, d[0])  # consecutive vertices are neighbours of the pentagon


def test_vertex_labels():
    F = rf.zoo.gaussian(5, 3, seed=0)
    pos, labels = space.vertex_labels(F, offset=0.2)
    assert labels == ["φ1", "φ2", "φ3", "φ4", "φ5"]
    assert np.allclose(np.linalg.norm(pos, axis=1), 1.2)


# ------------------------------------------------------------------ spheres and caps
def test_sphere_mesh_on_sphere():
    s = space.sphere_mesh(subdivisions=2, radius=2.0)
    assert s.n_triangles == 320
    assert np.allclose(np.linalg.norm(s.vertices, axis=1), 2.0)
    assert s.positions().dtype == np.float32 and s.positions().shape == (960, 3)


def test_caps_lie_on_the_sphere_inside_their_facet_cones(frame3):
    caps = space.spherical_caps(frame3, subdivisions=2)
    P = inscribing_polytope(frame3)
    assert np.allclose(np.linalg.norm(caps.vertices, axis=1), 1.0)
    mesh = space.polytope_mesh(frame3)
    assert caps.n_triangles == 16 * mesh.n_triangles
    cen = caps.corners().mean(axis=1)
    # the cone of facet j contains the centroid direction: locate() finds j (up to ties on shared boundaries)
    located = P.locate(cen)
    scaled = P.normals / P.offsets[:, None]
    ratio = cen @ scaled.T
    assert np.allclose(ratio[np.arange(len(cen)), caps.groups], ratio[np.arange(len(cen)), located], atol=1e-9)


def test_correlated_sphere_matches_the_core():
    F = rf.zoo.random_sphere(10, 3, seed=2)
    mesh, bases, adjacency = space.correlated_sphere(F, subdivisions=2, refinements=2)
    assert np.allclose(np.linalg.norm(mesh.vertices, axis=1), 1.0)
    cen = mesh.corners().mean(axis=1)
    cen /= np.linalg.norm(cen, axis=1, keepdims=True)
    J = np.sort(most_correlated_basis(F, cen), axis=1)
    assert np.array_equal(bases[mesh.groups], J)
    assert adjacency.ndim == 2 and adjacency.shape[1] == 2 and len(adjacency) >= len(bases) - 1
    colors = space.greedy_colors(len(bases), adjacency)
    assert np.all(colors[adjacency[:, 0]] != colors[adjacency[:, 1]])


def test_greedy_colors():
    ring = [[k, (k + 1) % 7] for k in range(7)]
    c = space.greedy_colors(7, ring)
    assert all(c[a] != c[b] for a, b in ring)
    assert space.greedy_colors(0, []).shape == (0,)


# ------------------------------------------------------------------ bias disk and vertex star
@pytest.mark.parametrize("alpha", [-0.9, -0.3, 0.0, 0.45, 0.99])
def test_bias_disk_lies_in_the_plane_inside_the_ball(alpha):
    F = rf.zoo.gaussian(7, 3, seed=3)
    i = 2
    disk = space.bias_disk(F, i, alpha * F.norms[i], segments=32)
    assert disk.vertices.shape == (33, 3) and disk.n_triangles == 32
    assert np.allclose(disk.vertices @ F.vectors[i], alpha * F.norms[i])
    assert np.all(np.linalg.norm(disk.vertices, axis=1) <= 1 + 1e-12)
    assert np.allclose(np.linalg.norm(disk.vertices[1:], axis=1), 1.0)


def test_bias_disk_outside_the_ball_is_degenerate_with_the_same_size():
    F = rf.zoo.platonic("octahedron")
    disk = space.bias_disk(F, 0, np.full(6, 1.5), segments=16)
    assert disk.vertices.shape == (17, 3)
    assert np.allclose(disk.vertices, disk.vertices[0])
    with pytest.raises(ValueError):
        space.bias_disk(F, 6, 0.0)
    with pytest.raises(ValueError):
        space.bias_disk(rf.zoo.mercedes_benz(), 0, 0.0)


def test_vertex_star_of_the_icosahedron():
    F = rf.zoo.platonic("icosahedron")
    P = inscribing_polytope(F)
    est = rf.polytope_bias(F, rf.Ball(3))
    st = space.vertex_star(F, 1, domain=rf.Ball(3))
    assert np.array_equal(np.sort(st.facets), np.sort(P.facets_of(1)))
    assert st.facets.size == 5 and st.mesh.n_triangles == 5
    assert np.all(np.isin(st.mesh.groups, st.facets))
    assert st.cone.shape == (6, 2, 3) and np.allclose(st.cone[:, 0], 0)
    assert st.value == pytest.approx(est.values[1])
    assert st.point @ F.vectors[1] == pytest.approx(est.values[1])
    assert np.linalg.norm(st.point) <= 1 + 1e-9
    plain = space.vertex_star(F, 1)
    assert np.all(np.isnan(plain.point)) and np.isnan(plain.value)


# ------------------------------------------------------------------ the scene
def test_scene_arrays_keep_their_shapes():
    S = space.PolytopeScene(rf.zoo.random_sphere(30, 3, seed=5))
    shapes = {name: {k: np.shape(v) for k, v in S.arrays(name).items() if isinstance(v, np.ndarray)} for name in space.LAYERS}
    for v in [None, 0, 7, 29]:
        S.select_vertex(v)
        S.set_element(v or 3)
        S.set_bias(np.linspace(-0.8, 0.5, 30))
        for name in ("facets", "vertices", "star", "bias_plane"):
            now = {k: np.shape(x) for k, x in S.arrays(name).items() if isinstance(x, np.ndarray)}
            assert now == shapes[name], name
    with pytest.raises(ValueError):
        S.select_vertex(30)
    with pytest.raises(ValueError):
        S.arrays("nope")


def test_scene_highlights_the_facets_of_the_selected_vertex():
    F = rf.zoo.platonic("icosahedron")
    S = space.PolytopeScene(F)
    base = S.arrays("facets")["color"]
    S.select_vertex(0)
    col = S.arrays("facets")["color"].reshape(-1, 3, 3)[:, 0]
    adj = np.isin(S.mesh.groups, S.P.facets_of(0))
    assert np.allclose(col[adj], base.reshape(-1, 3, 3)[adj, 0])
    assert np.all(col[~adj].mean(axis=1) > base.reshape(-1, 3, 3)[~adj, 0].mean(axis=1))
    star = S.arrays("star")
    assert star["has_point"] and np.any(star["position"] != 0)


def test_scene_default_bias_plane_uses_the_polytope_bias():
    F = rf.zoo.platonic("tetrahedron")
    S = space.PolytopeScene(F, domain=rf.Sphere(3))
    assert np.allclose(S.alpha, -1 / np.sqrt(3))
    pos = S.arrays("bias_plane")["position"].astype(float)
    assert np.allclose(pos @ F.vectors[0], -1 / np.sqrt(3), atol=1e-6)


def test_scene_refuses_2d_and_non_omnidirectional_frames():
    with pytest.raises(ValueError):
        space.PolytopeScene(rf.zoo.mercedes_benz())
    with pytest.raises(ValueError):
        space.PolytopeScene(rf.zoo.standard_basis(3))


# ------------------------------------------------------------------ the pythreejs viewer
def test_viewer_updates_attributes_in_place():
    pytest.importorskip("pythreejs")
    v = space.PolytopeViewer(rf.zoo.random_sphere(40, 3, seed=0), layers=["facets", "edges", "vertices", "star", "bias_plane"])
    builds = v.n_geometry_builds
    attrs = {k: dict(d) for k, d in v._attrs.items()}
    before = v.geometry["facets"]["color"].copy()
    v.select_vertex(3)
    v.select_element(5)
    v.set_bias(np.full(40, -0.2))
    v.set_domain(rf.Sphere(3))
    assert v.n_geometry_builds == builds
    for key, d in attrs.items():
        for name, attr in d.items():
            assert v._attrs[key][name] is attr
    assert not np.array_equal(v.geometry["facets"]["color"], before)
    assert np.array_equal(np.asarray(v._attrs["facets"]["color"].array), v.geometry["facets"]["color"])
    pos = v.geometry["bias_plane"]["position"].astype(float)
    assert np.allclose(pos @ v.frame.vectors[5], -0.2, atol=1e-5)
    assert np.any(v.geometry["star"]["position"] != 0)


def test_viewer_layers_toggle_and_frames_rebuild():
    pytest.importorskip("pythreejs")
    v = space.PolytopeViewer(rf.zoo.platonic("cube"))
    assert v.objects["facets"].visible and not v.objects["star"].visible
    assert "caps" not in v.objects
    v.show("caps")
    assert v.objects["caps"].visible and v.objects["caps"] in v.root.children
    v.set_layers(["edges"])
    assert v.visible == {"edges"} and not v.objects["facets"].visible and v.objects["edges"].visible
    with pytest.raises(ValueError):
        v.show("nope")
    v.set_frame(rf.zoo.platonic("icosahedron"))
    assert v.frame.m == 12 and v.geometry["vertices"]["position"].shape == (12, 3)
    bundle = v._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_static_render(tmp_path):
    F = rf.zoo.random_sphere(12, 3, seed=1)
    for layers in (None, ["caps", "edges", "vertices", "labels"], ["correlated"], ["sphere", "facets", "star", "bias_plane"]):
        ax = space.static_render(F, layers=layers, vertex=0)
        assert hasattr(ax, "add_collection3d")  # the axes, as every one-axes function of viz returns
        ax.figure.savefig(tmp_path / "s.png", dpi=40)
    pytest.importorskip("pythreejs")
    v = space.PolytopeViewer(F, vertex=2, layers=["facets", "star"])
    fig = v.to_matplotlib(title="star")
    assert fig.axes[0].get_title() == "star"
    with pytest.raises(ValueError):
        space.static_render(F, ax=fig.axes[0].figure.add_subplot(2, 2, 1))


def test_scene_of_a_frame_that_is_not_omnidirectional():
    F = rf.zoo.random_sphere(12, 3, seed=7)  # 0 lies outside the inscribing polytope
    S = space.PolytopeScene(F, vertex=0)
    assert not S.omnidirectional and S.estimate is None
    assert np.all(S.alpha == 0)
    assert not S.arrays("star")["has_point"]
    assert S.arrays("facets")["position"].shape[0] > 0
    with pytest.raises(rf.NotOmnidirectionalError, match="omnidirectional"):
        S.arrays("caps")
    mesh, bases, _ = space.correlated_sphere(F, subdivisions=1, refinements=0)
    assert mesh.n_triangles == 80


@pytest.mark.parametrize("make", [space.figure_poly, space.figure4])
def test_paper_3d_figures(make, tmp_path):
    fig = make()
    assert len(fig.axes) == 3
    fig.savefig(tmp_path / "f.png", dpi=30)
    from matplotlib.figure import Figure

    given = Figure(figsize=(6, 2))
    assert make(fig=given) is given and len(given.axes) == 3


def test_viewer_display_bundle_has_a_static_png_for_readers_without_a_kernel():
    import base64

    v = space.PolytopeViewer(rf.zoo.random_sphere(12, 3, seed=1), width=100, height=100)
    bundle = v._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG") and shows_below_a_caption(png, v.snapshot_png())
    v.static_caption = None
    assert base64.b64decode(v._repr_mimebundle_()["image/png"]) == v.snapshot_png()
    v.show("caps")
    assert v.snapshot_png() != png  # the picture follows the visible layers
    v.static_fallback = False
    assert "image/png" not in v._repr_mimebundle_()


def _pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def shows_below_a_caption(captioned: bytes, png: bytes) -> bool:
    """``captioned`` is ``png`` below a caption band, inside a one-pixel dashed frame."""
    a, b = _pixels(png), _pixels(captioned)
    band = b.shape[0] - a.shape[0]
    return b.shape[1] == a.shape[1] and band > 0 and bool((b[band:-1, 1:-1] == a[:-1, 1:-1]).all())


def test_the_still_picture_is_captioned_as_such():
    import io

    from PIL import Image

    from relu_frames_nb.viz._png import STILL_CAPTION, still_picture

    v = space.PolytopeViewer(rf.zoo.platonic("icosahedron"))
    assert "still picture" in v.static_caption and "still picture" in STILL_CAPTION
    png = v.snapshot_png()
    out = still_picture(png, "still picture — run the notebook for the live 3-D view")
    a, b = _pixels(png), _pixels(out)
    band = b.shape[0] - a.shape[0]
    assert 15 <= band <= 60 and shows_below_a_caption(out, png)  # one caption line above the picture
    left = (b[:, 0] == 150).all(axis=1)
    assert 0.3 < left.mean() < 0.7  # a dashed grey frame: not a live widget
    top = b[:band]
    assert (np.abs(top.astype(int) - 236).max(axis=2) > 60).mean() > 0.02  # the caption's dark text on the grey band
    narrow = Image.open(io.BytesIO(still_picture(png[:], STILL_CAPTION * 3)))
    assert narrow.width == a.shape[1] and narrow.height > b.shape[0]  # a long caption wraps, never widens the picture


def test_vertex_labels_have_one_size_on_screen_and_in_the_static_picture():
    pytest.importorskip("pythreejs")
    from relu_frames_nb.viz.render3d import LABEL_PT
    from relu_frames_nb.viz.viewer3d import LABEL_PX, label_strings

    F = rf.zoo.random_sphere(14, 3, seed=3)  # labels φ1 ... φ14: one and two digits
    v = space.PolytopeViewer(F, width=460, height=460)
    sprites = v.objects["labels"].children
    assert len(sprites) == 14
    assert all(sp.material.sizeAttenuation is False for sp in sprites)  # constant size at every depth
    assert len({tuple(sp.scale) for sp in sprites}) == 1
    strings = [sp.material.map.string for sp in sprites]
    assert len({len(t) for t in strings}) == 1 and [t.strip("\u2007") for t in strings] == [f"φ{i}" for i in range(1, 15)]
    # the sprite height in pixels, s / tan(fov/2) * height/2, holds LABEL_PX pixels of glyphs
    s = sprites[0].scale[0]
    sprite_px = s / np.tan(np.deg2rad(v.camera.fov) / 2) * 460 / 2
    side_em = max(sum(0.556 if c.isdigit() or c == "\u2007" else 0.65 for c in t) for t in strings)
    assert sprite_px * 48 / (side_em * 48 + 2) == pytest.approx(LABEL_PX, rel=1e-6)
    assert label_strings(["φ1", "φ12", "φ123"]) == ["\u2007φ1\u2007", "φ12\u2007", "φ123"]
    ax = space.static_render(v, layers=["facets", "labels"])
    sizes = {t.get_fontsize() for t in ax.texts}
    assert len(ax.texts) == 14 and sizes == {LABEL_PT} and LABEL_PT * 100 / 72 >= 9  # >= 9 px in snapshot_png


def test_the_viewer_draws_no_star_point_before_a_vertex_is_chosen():
    pytest.importorskip("pythreejs")
    v = space.PolytopeViewer(rf.zoo.platonic("icosahedron"), layers=["facets", "star"])
    assert v.objects["star:point"].visible is False
    v.select_vertex(2)
    assert v.objects["star:point"].visible is True
    v.select_vertex(None)
    assert v.objects["star:point"].visible is False


def test_paper_3d_figures_options():
    from matplotlib.figure import Figure

    F = rf.zoo.random_sphere(12, 3, seed=1)
    fig = space.figure4(irregular=F, labels=True, elev=(20, 20, 15), azim=(60, 35, 100), tag="fig:fig4",
                        fig=Figure(figsize=(6, 2)))  # fmt: skip
    assert [ax.get_title().startswith("[fig:fig4]") for ax in fig.axes] == [True] * 3
    assert fig.axes[2].azim == 100
    fig = space.figure_poly(F, labels=True, tag="fig:poly")
    assert fig.axes[0].get_title().startswith("[fig:poly]")
    with pytest.raises(ValueError, match="elev"):
        space.figure_poly(F, elev=(1, 2))


@pytest.mark.parametrize("make", [space.figure_poly, space.figure4])
def test_three_panel_figures_read_at_9px_in_the_book_and_their_labels_do_not_overlap(make):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.2), dpi=80)  # as notebook 07 draws them
    if make is space.figure4:
        make(fig=fig, labels=True)
    else:
        make(rf.zoo.random_sphere(12, 3, seed=5), fig=fig)
    FigureCanvasAgg(fig).draw()
    shrink = min(1.0, BOOK_COLUMN_PX / (fig.get_figwidth() * fig.dpi))
    renderer = fig.canvas.get_renderer()
    n_labels = 0
    for ax in fig.axes:
        texts = [t for t in ax.texts if t.get_text().startswith("φ") and t.get_visible()]
        n_labels += len(texts)
        for t in [ax.title, *texts]:
            if t.get_text():
                shown = t.get_fontsize() * fig.dpi / 72 * shrink
                assert shown >= 9.0, f"{t.get_text()!r} reads at {shown:.1f} px in the book"
        boxes = [t.get_window_extent(renderer) for t in texts]
        for i in range(len(boxes)):
            for j in range(i):
                assert not boxes[i].overlaps(boxes[j]), (texts[i].get_text(), texts[j].get_text())
    assert n_labels >= (30 if make is space.figure4 else 0)
