r"""3-D scenes for the viewers: :class:`PolytopeScene` (all arrays of a scene, pure numpy) and
:class:`PolytopeViewer` (pythreejs, imported on first use). Re-exported by :mod:`.space`.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._validation import as_bias, as_count
from ..domains import Domain
from ..errors import InputError
from ..frames import Frame, as_frame
from . import palette
from ._common import DEFAULT_LAYERS, LAYERS, check_names, facet_adjacency, frame3
from ._png import figure_png, with_static_png
from .space import (
    TriangleMesh,
    VertexStar,
    bias_disk,
    correlated_sphere,
    edge_segments,
    greedy_colors,
    ordered_facets,
    polytope,
    polytope_edges,
    polytope_mesh,
    sphere_mesh,
    spherical_caps,
    vertex_labels,
    vertex_star,
)

__all__ = ["PolytopeScene", "PolytopeViewer"]


#: on-screen height (pixels) of the vertex labels' glyphs in the pythreejs viewer, at every depth and zoom
LABEL_PX = 15.0
#: font size (pixels) of the labels' canvas textures
LABEL_TEXTURE_PX = 48
#: figure space: as wide as a digit, pads the labels to one width
_FIGURE_SPACE = "\u2007"


def _text_width_em(text: str) -> float:
    """Approximate width in em of a label such as ``φ12`` (digits and figure spaces 0.556 em, others 0.65)."""
    return sum(0.556 if (c.isdigit() or c == _FIGURE_SPACE) else 0.65 for c in text)


def label_strings(texts: Any) -> list[str]:
    """Pad labels with figure spaces to one length, so that their square textures have one size.

    pythreejs draws a label on a square canvas as wide as the text: unpadded, ``φ1`` would
    show larger glyphs than ``φ12`` on a sprite of the same scale.

    Examples
    --------
    >>> [len(t) for t in label_strings(["φ1", "φ12"])]
    [3, 3]
    """
    texts = [str(t) for t in texts]
    width = max((len(t) for t in texts), default=0)
    out = []
    for t in texts:
        pad = width - len(t)
        out.append(_FIGURE_SPACE * (pad // 2) + t + _FIGURE_SPACE * (pad - pad // 2))
    return out


# ---------------------------------------------------------------------------------
# The scene: arrays of every layer, fixed sizes for cheap updates
# ---------------------------------------------------------------------------------


def _rgb_rows(colors: np.ndarray, groups: np.ndarray) -> np.ndarray:
    return np.repeat(colors[groups], 3, axis=0).astype(np.float32)


class PolytopeScene:
    r"""All arrays of a 3-D scene for one frame (pure numpy; the viewers draw it).

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
        A frame for :math:`\mathbb{R}^3` with ``m >= 4`` vectors in general position (any
        norms; drawn normalized). When it is not omnidirectional, the polytope bias and the
        spherical caps are not available: ``estimate`` is ``None``, the bias plane defaults
        to 0, the star has no point and the ``caps`` layer raises
        :class:`~relu_frames_nb.errors.NotOmnidirectionalError`.
    domain : Domain, optional
        Domain of the polytope bias shown by the ``star`` layer (default: the unit ball).
    bias : float or array_like, shape (m,), optional
        The bias of the ``bias_plane`` layer (default: the polytope bias on ``domain``,
        with free elements set to 0).
    element : int, default 0
        Element whose bias plane is shown.
    vertex : int, optional
        Selected vertex: its facets are highlighted and the ``star`` layer shows them.

    Notes
    -----
    :meth:`arrays` returns, per layer, ``{"kind": "mesh"|"lines"|"points", "position": ...,
    "color": ..., ...}`` with ``float32`` arrays. The ``star`` and ``bias_plane`` layers
    have capacities fixed per frame (padded with zero-area triangles and zero-length
    segments at the origin), and the facet colours only change values, so selecting
    another vertex or element, or another bias, never changes an array's shape.
    """

    def __init__(self, frame: Any, *, domain: Domain | None = None, bias: Any = None, element: int = 0,
                 vertex: int | None = None, disk_segments: int = 96) -> None:  # fmt: skip
        from ..domains import Ball

        self.frame = frame3(frame)
        self.P = polytope(self.frame)
        self.disk_segments = as_count(disk_segments, "disk_segments", minimum=3)
        self.cycles = ordered_facets(self.P)
        self.mesh = polytope_mesh(self.P)
        self.edges = polytope_edges(self.P)
        fc = greedy_colors(self.P.n_facets, facet_adjacency(self.cycles))
        self.facet_colors = palette.categorical(int(fc.max()) + 1 if fc.size else 1)[fc]
        self._lazy: dict[str, Any] = {}
        # capacities of the star layer: the largest vertex star
        tri_per_facet = np.array([c.size - 2 for c in self.cycles])
        self._star_tri_cap = max(max(int(tri_per_facet[self.P.facets_of(i)].sum()) for i in range(self.P.m)), 1)
        self._star_seg_cap = max(
            int(np.unique(np.concatenate([self.cycles[j] for j in self.P.facets_of(i)])).size) for i in range(self.P.m)
        )
        self.domain = domain if domain is not None else Ball(3)
        self._estimate = None
        self.element = 0
        self.vertex: int | None = None
        self.set_element(element)
        self.set_bias(bias)
        self.select_vertex(vertex)

    # ------------------------------------------------------------------ state
    @property
    def m(self) -> int:
        """Number of frame elements."""
        return self.frame.m

    @property
    def omnidirectional(self) -> bool:
        """Whether 0 is interior to the polytope (else there are no caps and no polytope bias)."""
        return bool(self.P.is_omnidirectional)

    @property
    def estimate(self):
        """The polytope bias estimate on the current domain (computed on first use; ``None`` if not omnidirectional)."""
        if self._estimate is None and self.omnidirectional:
            from ..bias.polytope import polytope_bias

            self._estimate = polytope_bias(self.P, self.domain)
        return self._estimate

    def set_domain(self, domain: Domain) -> None:
        """Another domain for the polytope bias (recomputed lazily; the hull is reused)."""
        if not isinstance(domain, Domain) or domain.n != 3:
            raise InputError(f"domain must be a Domain in R^3; got {domain!r}.")
        self.domain = domain
        self._estimate = None
        if self._bias_from_estimate:
            self._alpha = None

    def set_bias(self, bias: Any) -> None:
        """The bias of the ``bias_plane`` layer (``None``: the polytope bias, free elements at 0)."""
        self._bias_from_estimate = bias is None
        self._alpha = None if bias is None else as_bias(bias, self.m)

    @property
    def alpha(self) -> np.ndarray:
        """The bias vector used by the ``bias_plane`` layer."""
        if self._alpha is None:
            est = self.estimate
            v = np.zeros(self.m) if est is None else np.array(est.values)
            v[~np.isfinite(v)] = 0.0
            self._alpha = v
        return self._alpha

    def set_element(self, element: int) -> None:
        """Choose the element whose bias plane is shown."""
        if isinstance(element, bool) or not isinstance(element, (int, np.integer)) or not 0 <= int(element) < self.m:
            raise InputError(f"element must be an index in [0, {self.m}); got {element!r}.")
        self.element = int(element)

    def select_vertex(self, vertex: int | None) -> None:
        """Select a vertex (its facets are highlighted), or clear the selection with ``None``."""
        if vertex is not None and (isinstance(vertex, bool) or not isinstance(vertex, (int, np.integer))
                                   or not 0 <= int(vertex) < self.m):  # fmt: skip
            raise InputError(f"vertex must be None or an index in [0, {self.m}); got {vertex!r}.")
        self.vertex = None if vertex is None else int(vertex)

    # ------------------------------------------------------------------ arrays
    def arrays(self, layer: str) -> dict[str, Any]:
        """The arrays of one layer (see the class notes)."""
        if layer not in LAYERS:
            raise InputError(f"layer must be one of {LAYERS}; got {layer!r}.")
        return getattr(self, f"_layer_{layer}")()

    def _layer_sphere(self):
        s = self._lazy.get("sphere")
        if s is None:
            s = self._lazy["sphere"] = sphere_mesh(subdivisions=3, radius=0.995)
        return {"kind": "mesh", "position": s.positions(), "normal": s.normals(), "color": None,
                "uniform": palette.lighten(palette.MUTED, 0.55), "opacity": 0.14}  # fmt: skip

    def _layer_caps(self):
        c = self._lazy.get("caps")
        if c is None:
            if not self.omnidirectional:
                from ..errors import NotOmnidirectionalError

                raise NotOmnidirectionalError(
                    "the spherical caps need an omnidirectional frame (0 interior to its polytope, so that the facet "
                    f"cones cover R^3); got a facet with offset {self.P.offsets.min():.3g} <= 0. Add a vector, e.g. "
                    "with relu_frames_nb.bias.polytope.complete_omnidirectional."
                )
            c = self._lazy["caps"] = spherical_caps(self.P)
        pos = c.positions() * np.float32(1.004)
        return {"kind": "mesh", "position": pos, "normal": pos / np.float32(1.004), "color": _rgb_rows(self.facet_colors,
                c.groups), "opacity": 0.95, "groups": c.groups}  # fmt: skip

    def _layer_correlated(self):
        c = self._lazy.get("correlated")
        if c is None:
            c = self._lazy["correlated"] = correlated_sphere(self.frame)
        mesh, bases, adjacency = c
        pos = mesh.positions() * np.float32(1.008)
        ids = greedy_colors(len(bases), adjacency)
        colors = palette.categorical(int(ids.max()) + 1)[ids]
        return {"kind": "mesh", "position": pos, "normal": pos / np.float32(1.008), "color": _rgb_rows(colors, mesh.groups),
                "opacity": 0.95, "groups": mesh.groups, "bases": bases}  # fmt: skip

    def _facet_rgb(self) -> np.ndarray:
        colors = self.facet_colors.copy()
        if self.vertex is not None:
            adj = np.zeros(self.P.n_facets, dtype=bool)
            adj[self.P.facets_of(self.vertex)] = True
            colors[~adj] = colors[~adj] + (1.0 - colors[~adj]) * 0.8
        return colors

    def _layer_facets(self):
        return {"kind": "mesh", "position": self.mesh.positions(), "normal": self.mesh.normals(),
                "color": _rgb_rows(self._facet_rgb(), self.mesh.groups), "opacity": 0.6, "groups": self.mesh.groups}  # fmt: skip

    def _layer_edges(self):
        seg = edge_segments(self.P.points, self.edges)
        return {"kind": "lines", "position": seg.reshape(-1, 3).astype(np.float32), "uniform": palette.INK}

    def _layer_vertices(self):
        colors = np.tile(palette.rgb(palette.INK), (self.m, 1))
        if self.vertex is not None:
            colors[self.vertex] = palette.rgb(palette.HIGHLIGHT)
        return {"kind": "points", "position": self.P.points.astype(np.float32), "color": colors.astype(np.float32)}

    def _layer_labels(self):
        pos, text = vertex_labels(self.frame)
        return {"kind": "labels", "position": pos.astype(np.float32), "text": text}

    def _layer_bias_plane(self):
        disk = bias_disk(self.frame, self.element, self.alpha, segments=self.disk_segments)
        rim = disk.vertices[1:]
        rim_seg = np.stack([rim, np.roll(rim, -1, axis=0)], axis=1).reshape(-1, 3)
        return {"kind": "mesh", "position": disk.positions(), "normal": disk.normals(), "color": None,
                "uniform": palette.element_color(self.element), "opacity": 0.45, "rim": rim_seg.astype(np.float32),
                "empty": bool(np.allclose(rim, rim[0]))}  # fmt: skip

    def star(self) -> VertexStar | None:
        """The :class:`VertexStar` of the selected vertex (``None`` when none is selected)."""
        if self.vertex is None:
            return None
        return vertex_star(self.P, self.vertex, estimate=self.estimate)

    def _layer_star(self):
        tri = np.zeros((self._star_tri_cap * 3, 3), dtype=np.float32)
        col = np.zeros((self._star_tri_cap * 3, 3), dtype=np.float32)
        seg = np.zeros((self._star_seg_cap * 2, 3), dtype=np.float32)
        point = np.zeros((1, 3), dtype=np.float32)
        st = self.star()
        has_point = False
        if st is not None:
            pos = st.mesh.positions()
            tri[: len(pos)] = pos * np.float32(1.002)
            col[: len(pos)] = _rgb_rows(self.facet_colors, st.mesh.groups)
            cone = st.cone.reshape(-1, 3)
            seg[: len(cone)] = cone
            if np.all(np.isfinite(st.point)):
                point[0] = st.point
                has_point = True
        normal = TriangleMesh(tri.astype(float), np.arange(len(tri)).reshape(-1, 3), np.zeros(len(tri) // 3, int)).normals()
        return {"kind": "mesh", "position": tri, "normal": normal, "color": col, "opacity": 0.9, "cone": seg,
                "point": point, "has_point": has_point, "star": st}  # fmt: skip


class PolytopeViewer:
    r"""An interactive pythreejs view of a :class:`PolytopeScene` with switchable layers.

    Parameters
    ----------
    frame : Frame or array_like, shape (m, 3)
        An omnidirectional frame for :math:`\mathbb{R}^3`.
    layers : iterable of str, optional
        Visible layers (from :data:`LAYERS`; default sphere, facets, edges, vertices, labels).
    domain, bias, element, vertex
        As for :class:`PolytopeScene`.
    width, height : int, default 460
        Canvas size in pixels.
    max_labels : int, default 60
        Vertex labels are only made for frames with at most this many elements. They are
        sprites of constant on-screen size (:data:`LABEL_PX` pixels, whatever their depth or
        the zoom).

    Notes
    -----
    Every layer is one pythreejs object made once per frame. :meth:`set_bias`,
    :meth:`select_element`, :meth:`select_vertex`, :meth:`set_domain` and :meth:`show`
    assign new arrays to the existing ``BufferAttribute`` objects (of unchanged shape) or
    toggle ``visible``; only :meth:`set_frame` makes new geometries. The arrays last sent
    are kept in :attr:`geometry` (``{layer: {attribute: ndarray}}``) for inspection.
    Display the viewer itself (or :attr:`renderer`) in a notebook.
    """

    def __init__(self, frame: Any, *, layers: Iterable[str] | None = None, domain: Domain | None = None, bias: Any = None,
                 element: int = 0, vertex: int | None = None, width: int = 460, height: int = 460,
                 max_labels: int = 60) -> None:  # fmt: skip
        import pythreejs as p3

        self._p3 = p3
        self.visible = check_names(DEFAULT_LAYERS if layers is None else layers, LAYERS, "layers")
        self.max_labels = as_count(max_labels, "max_labels", minimum=0)
        self.scene = PolytopeScene(frame, domain=domain, bias=bias, element=element, vertex=vertex)
        self.geometry: dict[str, dict[str, np.ndarray]] = {}
        self.objects: dict[str, Any] = {}
        self._attrs: dict[str, dict[str, Any]] = {}
        self.n_geometry_builds = 0
        light = p3.DirectionalLight(color="white", position=[3, 5, 1], intensity=0.55)
        self.camera = p3.PerspectiveCamera(position=[2.4, 1.7, 2.0], up=[0, 0, 1], fov=40, aspect=width / height,
                                           children=[light])  # fmt: skip
        self.root = p3.Group()
        self.p3_scene = p3.Scene(children=[self.root, self.camera, p3.AmbientLight(color="#ffffff", intensity=0.65)],
                                 background="white")  # fmt: skip
        self.controls = p3.OrbitControls(controlling=self.camera)
        w, h = as_count(width, "width"), as_count(height, "height")
        self.renderer = p3.Renderer(camera=self.camera, scene=self.p3_scene, controls=[self.controls], width=w, height=h,
                                    antialias=True)  # fmt: skip
        self._build_all()

    # ------------------------------------------------------------------ display
    #: put a static PNG (matplotlib) next to the widget view when displayed, for readers without a kernel
    static_fallback = True
    #: caption of that still picture (``None``: the bare picture)
    static_caption: str | None = "still picture — run the notebook for the live 3-D view"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.renderer._repr_mimebundle_(**kwargs)
        if not self.static_fallback:
            return bundle
        return with_static_png(bundle, self.snapshot_png, caption=self.static_caption)

    def snapshot_png(self, *, dpi: int = 100, size: float = 4.5) -> bytes:
        """A PNG of what the viewer shows (visible layers, current selection), drawn with matplotlib.

        Front-ends with a widget manager show the live view; GitHub, nbviewer without widget state
        and PDF exports show this picture instead (captioned as a still picture when displayed).
        At the defaults it is 450 pixels wide, about the live canvas, with 9-point labels.
        """
        from .render3d import static_render

        return figure_png(static_render(self, size=size).figure, as_count(dpi, "dpi"), compress_level=6)

    @property
    def frame(self) -> Frame:
        """The frame shown."""
        return self.scene.frame

    def label_scale(self, texts: list[str]) -> float:
        """Sprite scale of the vertex labels for a glyph height of :data:`LABEL_PX` pixels on screen.

        With ``sizeAttenuation=False`` three.js multiplies a sprite's scale by its depth, so a
        sprite of scale ``s`` is ``s / tan(fov / 2) * height / 2`` pixels tall at every depth.
        The label's square texture is as wide as the widest label (see :func:`label_strings`),
        of which the glyphs take ``LABEL_TEXTURE_PX / width``.
        """
        side = max(_text_width_em(t) for t in texts) * LABEL_TEXTURE_PX + 2.0
        sprite_px = LABEL_PX * max(side, LABEL_TEXTURE_PX + 2.0) / LABEL_TEXTURE_PX
        return float(sprite_px * 2.0 / self.renderer.height * np.tan(np.deg2rad(self.camera.fov) / 2.0))

    # ------------------------------------------------------------------ building
    def _attr(self, arr: np.ndarray):
        return self._p3.BufferAttribute(array=np.ascontiguousarray(arr, dtype=np.float32), normalized=False)

    def _material(self, name: str, data: dict):
        p3 = self._p3
        kind = data["kind"]
        if kind == "mesh":
            kw = dict(side="DoubleSide", transparent=data.get("opacity", 1.0) < 1.0, opacity=float(data.get("opacity", 1.0)))
            if name in ("facets", "sphere", "bias_plane"):
                kw["depthWrite"] = False
            if data.get("color") is not None:
                return p3.MeshLambertMaterial(vertexColors="VertexColors", **kw)
            return p3.MeshLambertMaterial(color=data["uniform"], **kw)
        if kind == "lines":
            return p3.LineBasicMaterial(color=data.get("uniform", palette.INK), linewidth=1)
        return p3.PointsMaterial(vertexColors="VertexColors", size=0.07, sizeAttenuation=True)

    def _geometry(self, name: str, data: dict):
        attrs = {"position": self._attr(data["position"])}
        if data.get("normal") is not None:
            attrs["normal"] = self._attr(data["normal"])
        if data.get("color") is not None:
            attrs["color"] = self._attr(data["color"])
        self._attrs[name] = attrs
        self.geometry[name] = {k: np.asarray(v.array) for k, v in attrs.items()}
        self.n_geometry_builds += 1
        return self._p3.BufferGeometry(attributes=attrs)

    def _make(self, name: str):
        p3 = self._p3
        data = self.scene.arrays(name)
        if data["kind"] == "labels":
            sprites = []
            if self.scene.m <= self.max_labels:
                texts = label_strings(data["text"])
                s = self.label_scale(texts)
                for pos, text in zip(data["position"], texts):
                    tex = p3.TextTexture(string=text, color=palette.INK, size=LABEL_TEXTURE_PX, squareTexture=True)
                    # sizeAttenuation=False: the same size on screen at every depth and zoom
                    mat = p3.SpriteMaterial(map=tex, transparent=True, depthTest=False, sizeAttenuation=False)
                    sprites.append(p3.Sprite(material=mat, position=[float(c) for c in pos], scale=[s, s, 1.0]))
            self.geometry[name] = {"position": data["position"]}
            return p3.Group(children=sprites)
        geo = self._geometry(name, data)
        mat = self._material(name, data)
        if data["kind"] == "mesh":
            obj = p3.Mesh(geometry=geo, material=mat)
        elif data["kind"] == "lines":
            obj = p3.LineSegments(geometry=geo, material=mat)
        else:
            obj = p3.Points(geometry=geo, material=mat)
        extras = []
        if name == "bias_plane":
            extras.append(self._sub(name + ":rim", data["rim"], "lines", palette.element_color(self.scene.element)))
        if name == "star":
            extras.append(self._sub(name + ":cone", data["cone"], "lines", palette.MUTED))
            extras.append(self._sub(name + ":point", data["point"], "points", palette.BAD, size=0.11))
            extras[-1].visible = bool(data["has_point"])  # no selected vertex: no point (not one at the origin)
        if extras:
            return p3.Group(children=[obj, *extras])
        return obj

    def _sub(self, key: str, arr: np.ndarray, kind: str, color: str, size: float = 0.07):
        p3 = self._p3
        attrs = {"position": self._attr(arr)}
        self._attrs[key] = attrs
        self.geometry[key] = {"position": np.asarray(attrs["position"].array)}
        geo = p3.BufferGeometry(attributes=attrs)
        if kind == "lines":
            obj = p3.LineSegments(geometry=geo, material=p3.LineBasicMaterial(color=color, linewidth=2))
        else:
            obj = p3.Points(geometry=geo, material=p3.PointsMaterial(color=color, size=size, sizeAttenuation=True))
        self.objects[key] = obj
        return obj

    def _build_all(self) -> None:
        children = []
        for name in LAYERS:
            if name in self.visible or name in ("facets", "edges", "vertices", "labels", "sphere", "bias_plane", "star"):
                obj = self._make(name)
                obj.visible = name in self.visible
                self.objects[name] = obj
                children.append(obj)
        self.root.children = tuple(children)

    # ------------------------------------------------------------------ updates
    def _push(self, key: str, values: dict[str, np.ndarray]) -> None:
        """Assign new arrays (same shapes) to the existing attributes of ``key``."""
        attrs = self._attrs[key]
        for attr_name, arr in values.items():
            if arr is None or attr_name not in attrs:
                continue
            new = np.ascontiguousarray(arr, dtype=np.float32)
            old = self.geometry[key][attr_name]
            if new.shape != old.shape:  # pragma: no cover - capacities are fixed per frame
                raise RuntimeError(f"internal error: layer {key!r} attribute {attr_name!r} changed shape.")
            attrs[attr_name].array = new
            self.geometry[key][attr_name] = new

    def _refresh(self, name: str) -> None:
        if name not in self.objects:
            return
        data = self.scene.arrays(name)
        if data["kind"] == "labels":
            return
        self._push(name, {"position": data["position"], "normal": data.get("normal"), "color": data.get("color")})
        if name == "bias_plane":
            self._push(name + ":rim", {"position": data["rim"]})
            self.objects[name].children[0].material.color = data["uniform"]
            self.objects[name + ":rim"].material.color = data["uniform"]
        if name == "star":
            self._push(name + ":cone", {"position": data["cone"]})
            self._push(name + ":point", {"position": data["point"]})
            self.objects[name + ":point"].visible = bool(data["has_point"])

    def show(self, layer: str, visible: bool = True) -> None:
        """Switch a layer on or off (layers are made on first use; no other layer is touched)."""
        check_names([layer], LAYERS, "layers")
        if visible and layer not in self.objects:
            obj = self._make(layer)
            self.objects[layer] = obj
            self.root.children = tuple(self.objects[n] for n in LAYERS if n in self.objects)
        if visible:
            self.visible.add(layer)
        else:
            self.visible.discard(layer)
        if layer in self.objects:
            self.objects[layer].visible = bool(visible)

    def set_layers(self, layers: Iterable[str]) -> None:
        """Show exactly these layers."""
        names = check_names(layers, LAYERS, "layers")
        for name in LAYERS:
            if (name in names) != (name in self.visible) or (name in names and name not in self.objects):
                self.show(name, name in names)

    def select_vertex(self, vertex: int | None) -> None:
        """Highlight the facets of a vertex and show its star (colours and star arrays only)."""
        self.scene.select_vertex(vertex)
        for name in ("facets", "vertices", "star"):
            self._refresh(name)

    def select_element(self, element: int) -> None:
        """Show the bias plane of another element."""
        self.scene.set_element(element)
        self._refresh("bias_plane")

    def set_bias(self, bias: Any) -> None:
        """Another bias for the bias plane (``None``: the polytope bias)."""
        self.scene.set_bias(bias)
        self._refresh("bias_plane")

    def set_domain(self, domain: Domain) -> None:
        """Another domain for the polytope bias (star point, default bias plane)."""
        self.scene.set_domain(domain)
        self._refresh("star")
        self._refresh("bias_plane")

    def set_frame(self, frame: Any) -> None:
        """Show another frame: the only update that makes new geometries."""
        scene = self.scene
        self.scene = PolytopeScene(frame, domain=scene.domain, element=min(scene.element, as_frame(frame).m - 1))
        self.objects.clear()
        self._attrs.clear()
        self.geometry.clear()
        self._build_all()

    # ------------------------------------------------------------------ static
    def to_matplotlib(self, *, ax: Any = None, elev: float = 22.0, azim: float = 35.0, title: str | None = None) -> Any:
        """The same scene drawn with matplotlib 3-D (see :func:`static_render`); returns the Figure."""
        from .render3d import static_render

        return static_render(self.scene, layers=self.visible, ax=ax, elev=elev, azim=azim, title=title).figure
