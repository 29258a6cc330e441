"""2-D views: geometry helpers on data, drawing functions, the in-place PlaneView, the paper's figures."""

from __future__ import annotations

import itertools
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import relu_frames_nb as rf  # noqa: E402
from relu_frames_nb.paper.rectifying import find_collision, is_rectifying  # noqa: E402
from relu_frames_nb.viz import palette, plane  # noqa: E402


@pytest.fixture
def ax():
    fig = Figure(figsize=(3, 3))
    return fig.add_subplot()


def test_importing_the_package_and_viz_stays_light():
    code = (
        "import sys, relu_frames_nb, relu_frames_nb.viz, relu_frames_nb.viz.plane, relu_frames_nb.viz.space, "
        "relu_frames_nb.viz.palette, relu_frames_nb.viz.parsing\n"
        "bad = [m for m in ('matplotlib', 'ipywidgets', 'pythreejs', 'IPython') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing the package loaded {out.stdout.strip()}"


# ------------------------------------------------------------------ palette
def test_palette_is_okabe_ito_and_distinct():
    cols = palette.element_colors(7)
    assert len(set(cols)) == 7
    assert set(cols) <= set(palette.OKABE_ITO.values())
    many = palette.categorical(30)
    assert many.shape == (30, 3) and np.all((many >= 0) & (many <= 1))
    assert len({tuple(np.round(c, 6)) for c in many}) == 30
    assert palette.lighten("#000000", 1.0) == "#FFFFFF"
    with pytest.raises(ValueError):
        palette.rgb("#12345")
    with pytest.raises(ValueError):
        palette.lighten("#000000", 2.0)


# ------------------------------------------------------------------ geometry helpers
def test_grid_points_row_major_from_bottom():
    X = plane.grid_points((-1, 1, -2, 2), resolution=5)
    assert X.shape == (25, 2)
    assert np.allclose(X[:5, 1], -2) and np.allclose(X[:5, 0], np.linspace(-1, 1, 5))
    assert not X.flags.writeable
    with pytest.raises(ValueError):
        plane.grid_points((1, -1, 0, 1))
    with pytest.raises(ValueError):
        plane.grid_points(1.0, resolution=1)


@pytest.mark.parametrize("phi,alpha", [([0.0, 1.0], 0.3), ([1.0, 1.0], -0.5), ([2.0, -1.0], 0.7), ([1.0, 0.0], 5.0)])
def test_halfspace_segment_and_polygon(phi, alpha):
    box = (-1.0, 1.0, -1.0, 1.0)
    seg = plane.halfspace_segment(phi, alpha, box)
    poly = plane.halfspace_polygon(phi, alpha, box)
    p = np.asarray(phi)
    if seg is None:
        assert len(poly) == 0 or np.all(poly @ p >= alpha - 1e-12)
        return
    assert np.allclose(seg @ p, alpha)
    assert np.all(np.abs(seg) <= 1 + 1e-12)
    assert np.all(poly @ p >= alpha - 1e-12)
    # the polygon's area equals the fraction of grid points in the half-space
    x, y = poly[:, 0], poly[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    G = plane.grid_points(box, resolution=401)
    frac = np.mean(G @ p >= alpha)
    assert area / 4.0 == pytest.approx(frac, abs=0.01)


def test_halfspace_rejects_zero_vector():
    with pytest.raises(ValueError):
        plane.halfspace_segment([0.0, 0.0], 0.1, 1.0)


def test_boundary_points_find_the_thin_failure_of_the_triangle():
    # alpha = -0.49: only a sliver of the unit circle around phi_1 has one active element
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.49)
    P = plane.boundary_points(L, rf.Ball(2), base=36)
    assert np.allclose(np.linalg.norm(P, axis=1), 1.0)
    assert not np.all(is_rectifying(L, P))
    # at -0.5 and below the whole circle is rectifying
    for a in (-0.5, -0.6):
        L = rf.ReLULayer(rf.zoo.mercedes_benz(), a)
        assert np.all(is_rectifying(L, plane.boundary_points(L, rf.Ball(2), base=36)))


@pytest.mark.parametrize("K", [rf.Shell(2, 0.4, 1.0), rf.PositiveBall(2, 1.2), rf.Sphere(2, 0.8)])
def test_boundary_points_lie_in_the_domain(K):
    L = rf.ReLULayer(rf.zoo.regular_polygon(5), 0.1)
    P = plane.boundary_points(L, K)
    assert len(P) > 100 and np.all(K.contains(P, tol=1e-9))


def test_boundary_points_empty_for_unbounded():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    assert plane.boundary_points(L, rf.RealSpace(2)).shape == (0, 2)


def test_active_counts_and_basis_ids_match_brute_force():
    F = rf.zoo.example_a()
    X = rf.Ball(2).sample(300, seed=1)
    L = rf.ReLULayer(F, 0.1)
    assert np.array_equal(plane.active_counts(L, X), (X @ F.vectors.T >= 0.1).sum(axis=1))
    ids, bases = plane.basis_ids(F, X)
    G = X @ F.vectors.T
    for x_ids, g in zip(ids, G):
        best = max(
            (min(g[list(J)]) for J in itertools.combinations(range(F.m), 2) if F.spans(list(J))),
        )
        assert min(g[bases[x_ids]]) == pytest.approx(best)


# ------------------------------------------------------------------ drawing functions
def test_draw_functions_return_the_axes_and_draw(ax):
    F = rf.zoo.mercedes_benz()
    L = rf.ReLULayer(F, -0.3)
    K = rf.Ball(2)
    n0 = len(ax.get_children())
    assert plane.draw_active_count(ax, L, domain=K, resolution=31, colorbar=True) is ax
    assert plane.draw_maximal_domain(ax, L, domain=K, resolution=31) is ax
    assert plane.draw_correlated_partition(ax, F, domain=K, resolution=31, legend=True) is ax
    assert plane.draw_correlated_partition(ax, F, domain=K, element=0, resolution=31) is ax
    assert plane.draw_halfspaces(ax, L) is ax
    assert plane.draw_frame_vectors(ax, F, highlight=[0], faded=[2]) is ax
    assert plane.draw_domain(ax, K, label=True) is ax
    for D in (rf.Sphere(2), rf.Shell(2, 0.5, 1.0), rf.PositiveBall(2), rf.RealSpace(2), rf.Samples(K.sample(5, seed=0))):
        assert plane.draw_domain(ax, D) is ax
    assert plane.draw_polygon(ax, F) is ax
    assert plane.draw_collision(ax, find_collision(rf.ReLULayer(F, 0.0), K)) is ax
    assert plane.draw_collision(ax, ([0.5, 0.8], [-0.5, 0.8]), layer=L) is ax
    assert plane.draw_polytope_minima(ax, rf.polytope_bias(F, K)) is ax
    assert len(ax.images) == 4
    assert len(ax.get_children()) > n0 + 20
    ax.figure.savefig(__import__("io").BytesIO(), format="png")


def test_drawing_validates_inputs(ax):
    F3 = rf.zoo.platonic("cube")
    with pytest.raises(ValueError, match="R\\^2"):
        plane.draw_frame_vectors(ax, F3)
    with pytest.raises(ValueError, match="Axes"):
        plane.draw_frame_vectors("not axes", rf.zoo.mercedes_benz())
    with pytest.raises(ValueError, match="frame is required"):
        plane.draw_frame_vectors(ax)
    with pytest.raises(ValueError):
        plane.draw_frame_vectors(ax, rf.zoo.mercedes_benz(), highlight=[7])
    with pytest.raises(ValueError):
        plane.draw_collision(ax, find_collision(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6), rf.Ball(2)))
    with pytest.raises(ValueError):
        plane.draw_polytope_minima(ax, rf.BiasEstimate(values=np.zeros(3), method="x"))
    with pytest.raises(ValueError):
        plane.draw_active_count(ax, rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), domain=rf.Ball(3))


def test_draw_functions_make_their_axes_when_ax_is_none():
    """The viz convention: ``ax=None`` draws on the axes of a new figure and returns them."""
    F = rf.zoo.mercedes_benz()
    L = rf.ReLULayer(F, -0.3)
    calls = [
        lambda: plane.style_axes(),
        lambda: plane.draw_frame_vectors(frame=F),
        lambda: plane.draw_halfspaces(None, L),
        lambda: plane.draw_active_count(layer=L, resolution=11),
        lambda: plane.draw_maximal_domain(layer=L, resolution=11),
        lambda: plane.draw_correlated_partition(frame=F, resolution=11),
        lambda: plane.draw_domain(domain=rf.Ball(2)),
        lambda: plane.draw_polygon(frame=F),
        lambda: plane.draw_collision(collision=([0.5, 0.8], [-0.5, 0.8]), layer=L),
        lambda: plane.draw_polytope_minima(estimate=rf.polytope_bias(F, rf.Ball(2))),
    ]
    for call in calls:
        new = call()
        assert hasattr(new, "add_artist") and isinstance(new.figure, Figure)


def test_paper_figures_draw_into_a_given_figure():
    fig = Figure(figsize=(6, 2))
    assert plane.figure1(resolution=21, fig=fig) is fig and len(fig.axes) == 3


def test_maximal_domain_image_matches_the_core(ax):
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    plane.draw_maximal_domain(ax, L, extent=1.5, resolution=41)
    rgba = ax.images[0].get_array().reshape(-1, 4)
    ok = is_rectifying(L, plane.grid_points(1.5, resolution=41))
    assert np.array_equal(rgba[:, 3] > 0, ok)


# ------------------------------------------------------------------ PlaneView
def test_planeview_updates_in_place(ax):
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    view = plane.PlaneView(ax, L, rf.Ball(2), resolution=61, overlays=plane.OVERLAYS)
    raster, lines = view._raster, view._lines
    n_children = len(ax.get_children())
    assert view.failing_points.shape == (0, 2)
    view.set_bias(np.full(3, -0.3))
    assert view._raster is raster and view._lines is lines
    assert len(ax.get_children()) == n_children
    assert view.failing_points.shape[0] > 0
    assert np.array_equal(view.counts, L.with_bias(-0.3).active_set(view.X).sum(axis=1))
    # collision and minima artists come and go
    coll = find_collision(view.layer, rf.Ball(2))
    view.set_collision(coll)
    assert len(view.artists["collision"]) >= 3
    view.set_collision(None)
    assert view.artists["collision"] == []
    view.set_minima(rf.polytope_bias(L.frame, rf.Ball(2)))
    assert len(view.artists["minima"]) == 6
    view.set_element(1, shade=True)
    assert np.any(view._shade.get_xy() != 0)
    view.set_overlays(["count"])
    assert view.raster[..., 3].max() > 0
    view.set_overlays([])
    assert view.raster[..., 3].max() == 0
    with pytest.raises(ValueError):
        view.set_overlays(["nope"])


def test_planeview_partition_marks_k_i(ax):
    F = rf.zoo.example_a()
    view = plane.PlaneView(ax, rf.ReLULayer(F, 0.0), rf.Ball(2), resolution=51, overlays=["partition"], element=1)
    view.set_overlays(["partition"])
    # K_2 of Example "a": phi_2 = (1,1)/sqrt 2 is among the two largest coefficients
    inside = view.inside
    a = np.arctan2(view.X[:, 1], view.X[:, 0])
    sector = np.abs(np.angle(np.exp(1j * (a - np.pi / 4)))) < 3 * np.pi / 8 - 0.05
    in_k2 = inside & sector & (np.linalg.norm(view.X, axis=1) > 0.1)
    assert np.all(view.raster.reshape(-1, 4)[in_k2, 3] > 0.5)


# ------------------------------------------------------------------ figures
@pytest.mark.parametrize("make", [plane.figure1, plane.figure2, plane.figure3])
def test_paper_figures(make, tmp_path):
    fig = make(resolution=61)
    assert isinstance(fig, Figure) and len([a for a in fig.axes if a.get_label() != "<colorbar>"]) == 3
    fig.savefig(tmp_path / "fig.png", dpi=50)
    assert (tmp_path / "fig.png").stat().st_size > 5000
