r"""Matplotlib 3-D rendering of the scenes: :func:`static_render` (for GitHub, nbviewer, PDF and tests)
and the paper's static 3-D figures :func:`figure_poly` and :func:`figure4`. Re-exported by :mod:`.space`.

matplotlib is imported inside the functions.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._util.tolerances import DRAW_DIRECTION_MIN
from ..domains import Ball, Domain
from ..errors import InputError
from ..zoo import platonic, random_sphere
from . import palette
from ._common import DEFAULT_LAYERS, LAYERS, check_names, frame3
from ._scene3d import PolytopeScene

__all__ = ["static_render", "figure_poly", "figure4"]

#: font size (points) of the vertex labels in the static pictures: one size at every depth
LABEL_PT = 9.0
TITLE_PT = 10.0
#: the three-panel figures (12 in wide) are shown about 700 px wide in the book's column: at these sizes
#: their titles and labels read at 9 px or more there
ROW_LABEL_PT = 11.5
ROW_TITLE_PT = 12.0


# ---------------------------------------------------------------------------------
# matplotlib rendering
# ---------------------------------------------------------------------------------


def _view_vector(elev: float, azim: float) -> np.ndarray:
    """Unit vector from the origin towards a matplotlib 3-D camera at (elev, azim)."""
    e, a = np.deg2rad(elev), np.deg2rad(azim)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def static_render(scene: Any, *, layers: Iterable[str] | None = None, domain: Domain | None = None, bias: Any = None,
                  element: int = 0, vertex: int | None = None, ax: Any = None, elev: float = 22.0, azim: float = 35.0,
                  title: str | None = None, size: float = 4.5, label_size: float = LABEL_PT,
                  title_size: float = TITLE_PT) -> Any:  # fmt: skip
    r"""Draw a 3-D scene with matplotlib (for GitHub, nbviewer, PDF and tests).

    Parameters
    ----------
    scene : PolytopeScene, PolytopeViewer, Frame or array_like, shape (m, 3)
        What to draw; a frame gets a new :class:`PolytopeScene` with ``domain``, ``bias``,
        ``element`` and ``vertex``.
    layers : iterable of str, optional
        Layers to draw (default sphere, facets, edges, vertices, labels).
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D, optional
        Where to draw (default: the 3-D axes of a new figure; ``ax.figure`` is the figure).
    elev, azim : float
        View angles in degrees.
    title : str, optional
        Axes title.
    size : float, default 4.5
        Figure size in inches (new figures only).
    label_size : float, default 9
        Font size of the vertex labels in points, the same for every label whatever its depth; labels
        that would overlap in the picture are moved apart (:func:`place_labels`).
    title_size : float, default 10
        Font size of the title in points.

    Returns
    -------
    mpl_toolkits.mplot3d.axes3d.Axes3D
        The axes drawn on (the ``ax=None`` convention of :mod:`relu_frames_nb.viz`: functions that
        draw on one axes return it; this function used to return the figure, now ``ax.figure``).
    """
    from matplotlib.figure import Figure
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

    if isinstance(getattr(scene, "scene", None), PolytopeScene):  # a viewer: its scene and its visible layers
        if layers is None:
            layers = scene.visible
        scene = scene.scene
    if not isinstance(scene, PolytopeScene):
        scene = PolytopeScene(scene, domain=domain, bias=bias, element=element, vertex=vertex)
    names = check_names(DEFAULT_LAYERS if layers is None else layers, LAYERS, "layers")
    if ax is None:
        ax = Figure(figsize=(size, size), layout="constrained").add_subplot(projection="3d")
    elif not hasattr(ax, "add_collection3d"):
        raise InputError(f"ax must be a 3-D Axes (projection='3d'); got {type(ax).__name__}.")
    ax.view_init(elev=float(elev), azim=float(azim))
    ax.computed_zorder = False  # draw layers in order (each collection is depth-sorted itself)

    def tris(pos):
        return np.asarray(pos, dtype=float).reshape(-1, 3, 3)

    def facecolors(data, k):
        if data.get("color") is not None:
            rgb = np.asarray(data["color"], dtype=float).reshape(-1, 3, 3)[:, 0]
        else:
            rgb = np.tile(palette.rgb(data["uniform"]), (k, 1))
        return np.column_stack([rgb, np.full(k, data.get("opacity", 1.0))])

    view = _view_vector(float(elev), float(azim))
    opaque_sphere = bool(names & {"caps", "correlated"})
    labels: list = []
    for name in LAYERS:
        if name not in names:
            continue
        data = scene.arrays(name)
        if name == "sphere":
            if not opaque_sphere:
                u, v = np.mgrid[0 : 2 * np.pi : 37j, 0 : np.pi : 19j]
                ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color=palette.MUTED, lw=0.3,
                                  alpha=0.45)  # fmt: skip
        elif data["kind"] == "mesh":
            T = tris(data["position"])
            keep = np.linalg.norm(np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]), axis=1) > 0
            fc = facecolors(data, T.shape[0])
            if name in ("caps", "correlated"):  # opaque surfaces: drop the far side (matplotlib sorts crudely)
                keep &= T.mean(axis=1) @ view > -0.08
                fc[:, 3] = 1.0
            if name == "facets":  # outward normals: draw the near side only (the far edges show through)
                keep &= np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]) @ view > 0
            fc = fc[keep]
            if keep.any():
                solid = name in ("caps", "correlated")
                ax.add_collection3d(Poly3DCollection(T[keep], facecolors=fc, edgecolors=fc if solid else (
                    (0, 0, 0, 0.15) if name == "facets" else "none"), linewidths=0.25 if solid else 0.3))  # fmt: skip
            if name == "bias_plane":
                rim = np.asarray(data["rim"], dtype=float).reshape(-1, 2, 3)
                ax.add_collection3d(Line3DCollection(rim, colors=data["uniform"], linewidths=1.5))
            if name == "star":
                cone = np.asarray(data["cone"], dtype=float).reshape(-1, 2, 3)
                cone = cone[np.linalg.norm(cone[:, 1] - cone[:, 0], axis=1) > 0]
                if len(cone):
                    ax.add_collection3d(Line3DCollection(cone, colors=palette.MUTED, linewidths=0.8, linestyles="--"))
                if data["has_point"]:
                    p = data["point"][0]
                    ax.scatter([p[0]], [p[1]], [p[2]], color=palette.BAD, s=160, marker="*", edgecolors="white",
                               linewidths=0.8, depthshade=False, zorder=10)  # fmt: skip
        elif data["kind"] == "lines":
            seg = np.asarray(data["position"], dtype=float).reshape(-1, 2, 3)
            if opaque_sphere:
                seg = seg[seg.mean(axis=1) @ view > -0.05]
            ax.add_collection3d(Line3DCollection(seg, colors=data["uniform"], linewidths=0.9))
        elif data["kind"] == "points":
            p = np.asarray(data["position"], dtype=float)
            c = np.asarray(data["color"])
            if opaque_sphere:
                front = p @ view > -0.05
                p, c = p[front], c[front]
            ax.scatter(p[:, 0], p[:, 1], p[:, 2], c=c, s=14, depthshade=False)
        elif data["kind"] == "labels" and scene.m <= 60:
            labels = [(np.asarray(pos, dtype=float), text) for pos, text in zip(data["position"], data["text"])
                      if not (opaque_sphere and np.asarray(pos) @ view < 0)]  # fmt: skip
    lim = 1.05
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_zlim(-lim, lim)
    ax.set_box_aspect((1, 1, 1), zoom=1.3)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=title_size)
    if "labels" in names and scene.m <= 60 and labels:
        place_labels(ax, labels, float(label_size))
    return ax


def place_labels(ax: Any, labels: list, size: float) -> list:
    """Write vertex labels next to their vertices in the picture, moved apart where two would overlap.

    Each label is tried at a few spots around its vertex's projection (outward from the picture's
    centre first, then turned to either side, then farther out) and takes the first whose box meets
    no label placed before it; labels of vertices nearer the viewer are placed first. Positions are
    stored in axes fractions, so the picture may be saved at any dpi. Returns the text artists.
    """
    from mpl_toolkits.mplot3d import proj3d

    P = np.array([p for p, _ in labels], dtype=float)
    M = ax.get_proj()
    x, y, depth = proj3d.proj_transform(P[:, 0], P[:, 1], P[:, 2], M)
    pix = ax.transData.transform(np.column_stack([x, y]))
    c0 = ax.transData.transform(np.array([proj3d.proj_transform(0.0, 0.0, 0.0, M)[:2]], dtype=float))[0]
    k = ax.figure.dpi / 72.0  # pixels per point
    h = 1.15 * size * k
    placed: list[tuple[float, float, float, float]] = []
    artists = []
    for i in np.argsort(depth):  # nearest first: proj_transform's depth grows away from the viewer
        text = str(labels[i][1])
        w = (0.62 * len(text) + 0.25) * size * k
        out = pix[i] - c0
        out = out / np.linalg.norm(out) if np.linalg.norm(out) > DRAW_DIRECTION_MIN else np.array([0.0, 1.0])
        spots = []
        for dist in (0.85, 1.5, 2.2):
            for turn in (0.0, 0.6, -0.6, 1.2, -1.2):
                cs, sn = np.cos(turn), np.sin(turn)
                d = np.array([cs * out[0] - sn * out[1], sn * out[0] + cs * out[1]])
                reach = abs(d[0]) * w / 2 + abs(d[1]) * h / 2 + 0.3 * h  # the box's edge clear of the vertex
                spots.append(pix[i] + d * dist * reach)
        best = spots[0]
        for spot in spots:
            box = (spot[0] - w / 2, spot[1] - h / 2, spot[0] + w / 2, spot[1] + h / 2)
            if all(box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in placed):
                best = spot
                break
        placed.append((best[0] - w / 2, best[1] - h / 2, best[0] + w / 2, best[1] + h / 2))
        fx, fy = ax.transAxes.inverted().transform(best)
        artists.append(ax.text2D(fx, fy, text, transform=ax.transAxes, fontsize=size, color=palette.INK, ha="center",
                                 va="center"))  # fmt: skip
    return artists


# ---------------------------------------------------------------------------------
# The paper's 3-D figures (static)
# ---------------------------------------------------------------------------------


def _row_of_3d(n: int, size: float, fig: Any = None):
    if fig is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(size * n, size))
    fig.subplots_adjust(left=0, right=1, bottom=0, top=0.92, wspace=0.0)
    return fig, [fig.add_subplot(1, n, k + 1, projection="3d") for k in range(n)]


def _per_panel(value: Any, name: str, n: int = 3) -> list[float]:
    """One view angle for every panel, or one per panel."""
    vals = np.atleast_1d(np.asarray(value, dtype=float))
    if vals.ndim != 1 or vals.size not in (1, n) or not np.all(np.isfinite(vals)):
        raise InputError(f"{name} must be one angle in degrees or {n} of them (one per panel); got {value!r}.")
    return [float(v) for v in np.broadcast_to(vals, (n,))]


def _tagged(tag: str | None, title: str) -> str:
    return f"[{tag}] {title}" if tag else title


def figure_poly(frame: Any = None, *, seed: int = 1, elev: Any = 20.0, azim: Any = 35.0, size: float = 4.0,
                labels: bool = False, tag: str | None = None, fig: Any = None) -> Any:  # fmt: skip
    r"""Figure "poly" of the paper: facets :math:`F_j`, spherical caps :math:`F_j^{\mathbb{S}}`, and
    the decomposition of :math:`\mathbb{S}` by most correlated bases, for a frame in :math:`\mathbb{R}^3`.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3), optional
        Default: 12 random unit vectors (``random_sphere(12, 3, seed=seed)``), as in the paper.
    seed : int, default 1
        Seed of the default frame (an omnidirectional one).
    elev, azim : float or sequence of 3 floats
        View angles in degrees (one for all panels, or one per panel).
    size : float, default 4.0
        Height of the figure in inches (each panel is square).
    labels : bool, default False
        Label the vertices :math:`\phi_i` in the facet panel.
    tag : str, optional
        Prefix of the panel titles (``[tag]``, the label of the figure in the notebooks).
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (a new one by default).

    Returns
    -------
    matplotlib.figure.Figure
    """
    F = random_sphere(12, 3, seed=seed) if frame is None else frame3(frame)
    scene = PolytopeScene(F)
    fig, axes = _row_of_3d(3, float(size), fig)
    panels = [(["sphere", "facets", "edges", "vertices"] + (["labels"] if labels else []), "facets $F_j$ of $P_\\Phi$"),
              (["caps", "edges", "vertices"], "spherical caps $F_j^{\\mathbb{S}}$"),
              (["correlated", "vertices"], "most correlated bases $J^*(x)$")]  # fmt: skip
    views = zip(_per_panel(elev, "elev"), _per_panel(azim, "azim"))
    for ax, (layers, title), (e, a) in zip(axes, panels, views):
        static_render(scene, layers=layers, ax=ax, elev=e, azim=a, title=_tagged(tag, title), label_size=ROW_LABEL_PT,
                      title_size=ROW_TITLE_PT)  # fmt: skip
    return fig


def figure4(*, elev: Any = 20.0, azim: Any = 35.0, size: float = 4.0, seed: int = 3, irregular: Any = None,
            labels: bool = False, tag: str | None = None, fig: Any = None) -> Any:  # fmt: skip
    r"""Figure 4 of the paper: the icosahedron's facets, an irregular frame's facets, and the polytope
    bias of one vertex of the icosahedron on :math:`\mathbb{B}` (adjacent facets, their cones, the point
    where the bias is attained).

    Parameters
    ----------
    elev, azim : float or sequence of 3 floats
        View angles in degrees (one for all panels, or one per panel).
    size : float, default 4.0
        Height of the figure in inches (each panel is square).
    seed : int, default 3
        Seed of the default irregular frame (``random_sphere(14, 3, seed=seed)``).
    irregular : Frame or array_like, shape (m, 3), optional
        The irregular frame of the middle panel (default: the random one above).
    labels : bool, default False
        Label the vertices :math:`\phi_i` in every panel.
    tag : str, optional
        Prefix of the panel titles (``[tag]``).
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (a new one by default).

    Returns
    -------
    matplotlib.figure.Figure
    """
    views = list(zip(_per_panel(elev, "elev"), _per_panel(azim, "azim")))
    other = random_sphere(14, 3, seed=seed) if irregular is None else frame3(irregular)
    lab = ["labels"] if labels else []
    fig, axes = _row_of_3d(3, float(size), fig)
    ROW = {"label_size": ROW_LABEL_PT, "title_size": ROW_TITLE_PT}
    ico = platonic("icosahedron")
    static_render(PolytopeScene(ico), layers=["sphere", "facets", "edges", "vertices", *lab], ax=axes[0], elev=views[0][0],
                  azim=views[0][1], title=_tagged(tag, "icosahedron"), **ROW)  # fmt: skip
    static_render(PolytopeScene(other), layers=["sphere", "facets", "edges", "vertices", *lab], ax=axes[1], elev=views[1][0],
                  azim=views[1][1], title=_tagged(tag, "an irregular frame"), **ROW)  # fmt: skip
    star = PolytopeScene(ico, domain=Ball(3), vertex=1)
    value = float(star.estimate.values[1])
    static_render(star, layers=["sphere", "edges", "vertices", "star", *lab], ax=axes[2], elev=views[2][0], azim=views[2][1],
                  title=_tagged(tag, f"PBE on $\\mathbb{{B}}$ for $\\phi_2$: {value:.3g} (star: attained)"), **ROW)  # fmt: skip
    return fig
