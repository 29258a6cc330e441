r""":class:`PolytopeViewer`, the interactive pythreejs view of a :class:`PolytopeScene` (pythreejs is
imported on first use), and the size of its vertex labels. Re-exported by :mod:`.space`.

The scene itself (pure numpy) lives in the private ``_scene3d``, below this module and :mod:`.render3d`;
this module draws it with pythreejs and, for its still picture, with :func:`.render3d.static_render`.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._util.validation import as_count
from ..domains import Domain
from ..frames import Frame, as_frame
from . import palette
from ._common import DEFAULT_LAYERS, LAYERS, check_names
from ._png import figure_png, with_static_png
from ._scene3d import PolytopeScene
from .render3d import static_render

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
        # the light's shadow (with its camera) and target are given: left at pythreejs's "uninitialized"
        # placeholder, JupyterLab's widget manager logs "Error setting state: t.on is not a function"
        shadow = p3.DirectionalLightShadow(camera=p3.OrthographicCamera(-5, 5, 5, -5, 0.5, 50))
        light = p3.DirectionalLight(color="white", position=[3, 5, 1], intensity=0.55, shadow=shadow, target=p3.Object3D())
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
        return static_render(self.scene, layers=self.visible, ax=ax, elev=elev, azim=azim, title=title).figure
