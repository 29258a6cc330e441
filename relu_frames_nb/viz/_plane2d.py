r"""The machinery of the 2-D views (private): input checks, the plotting window and grid, pure-numpy
geometry of half-spaces, and the drawing primitives shared by ``_draw2d``, :mod:`.planeview`,
:mod:`.figures2d` and :mod:`.explorer2d`. The public names are re-exported by :mod:`.plane`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

import numpy as np

from .._util.tolerances import DRAW_DUPLICATE_TOL, DRAW_PARALLEL_TOL, DRAW_ZERO
from .._util.validation import as_count, as_points, as_positive
from ..domains import Domain
from ..errors import DimensionMismatchError, InputError
from ..frames import Frame, as_frame
from ..layer import ReLULayer, as_layer
from ..paper.bias.correlated import most_correlated_basis
from . import palette
from ._shapes2d import boundary_curves

#: overlays understood by :class:`PlaneView`, bottom to top
OVERLAYS = ("count", "partition", "maximal", "halfspaces", "domain", "vectors", "minima", "collision")

_Z = {name: k for k, name in enumerate(OVERLAYS)}


# ---------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------


def _frame2d(frame: Any) -> Frame:
    F = as_frame(frame)
    if F.n != 2:
        raise DimensionMismatchError(f"frame must be a frame for R^2 (n = 2) to be drawn on the plane; got n = {F.n}.")
    return F


def _layer2d(layer: Any) -> ReLULayer:
    L = as_layer(layer)
    if L.n != 2:
        raise DimensionMismatchError(f"layer must act on R^2 (n = 2) to be drawn on the plane; got n = {L.n}.")
    return L


def _domain2d(domain: Any) -> Domain:
    if not isinstance(domain, Domain):
        raise InputError(f"domain must be a Domain (Ball, Sphere, Shell, PositiveBall, RealSpace, Samples); got {domain!r}.")
    if domain.n != 2:
        raise DimensionMismatchError(f"domain must lie in R^2; got {domain!r}.")
    return domain


def _axes(ax: Any, *, size: float = 4.5):
    """``ax`` checked, or the axes of a new figure when ``ax`` is None (the viz ``ax=None`` convention)."""
    if ax is None:
        from matplotlib.figure import Figure

        return Figure(figsize=(size, size), layout="constrained").add_subplot()
    if not hasattr(ax, "add_artist"):
        raise InputError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}. Create one with plt.subplots().")
    return ax


def _required(value: Any, name: str, call: str) -> Any:
    if value is None:
        raise InputError(f"{name} is required: {call}.")
    return value


def _extent(extent: Any) -> tuple[float, float, float, float]:
    if np.isscalar(extent):
        R = as_positive(extent, "extent")
        return (-R, R, -R, R)
    try:
        x0, x1, y0, y1 = (float(v) for v in extent)
    except (TypeError, ValueError):
        raise InputError(f"extent must be a number R or (xmin, xmax, ymin, ymax); got {extent!r}.") from None
    if not (np.isfinite([x0, x1, y0, y1]).all() and x0 < x1 and y0 < y1):
        raise InputError(f"extent must be finite with xmin < xmax and ymin < ymax; got {extent!r}.")
    return (x0, x1, y0, y1)


def default_extent(domain: Domain | None = None, *, margin: float = 0.18, unbounded: float = 2.0) -> tuple[float, ...]:
    """A square plotting window around ``domain``: ``radius * (1 + margin)`` in every direction.

    Parameters
    ----------
    domain : Domain, optional
        The domain; an unbounded one (or ``None``) gets the half-width ``unbounded``.
    margin : float, default 0.18
        Relative margin around the domain.
    unbounded : float, default 2.0
        Half-width used for unbounded domains.

    Returns
    -------
    tuple of float
        ``(xmin, xmax, ymin, ymax)``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> default_extent(rf.Ball(2, 1.0), margin=0.25)
    (-1.25, 1.25, -1.25, 1.25)
    """
    R = unbounded if domain is None or not domain.bounded else (1.0 + margin) * domain.radius
    return (-R, R, -R, R)


@lru_cache(maxsize=16)
def _grid_cached(extent: tuple[float, float, float, float], resolution: int) -> np.ndarray:
    x0, x1, y0, y1 = extent
    xs = np.linspace(x0, x1, resolution)
    ys = np.linspace(y0, y1, resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts.setflags(write=False)
    return pts


def grid_points(extent: Any, *, resolution: int = 241) -> np.ndarray:
    """Points of a ``resolution x resolution`` grid over ``extent``, row-major from the bottom.

    Parameters
    ----------
    extent : float or tuple of float
        Half-width ``R`` (the square ``[-R, R]^2``) or ``(xmin, xmax, ymin, ymax)``.
    resolution : int, default 241
        Points per axis.

    Returns
    -------
    ndarray, shape (resolution**2, 2)
        Read-only; reshape values to ``(resolution, resolution)`` for ``imshow(origin="lower")``.

    Examples
    --------
    >>> grid_points(1.0, resolution=3)[:3].tolist()
    [[-1.0, -1.0], [0.0, -1.0], [1.0, -1.0]]
    """
    return _grid_cached(_extent(extent), as_count(resolution, "resolution", minimum=2))


# ---------------------------------------------------------------------------------
# Geometry helpers (pure numpy)
# ---------------------------------------------------------------------------------


def halfspace_segment(phi: Any, alpha: float, extent: Any) -> np.ndarray | None:
    r"""The boundary line :math:`\{x : \langle x, \phi\rangle = \alpha\}` clipped to a box.

    Parameters
    ----------
    phi : array_like, shape (2,)
        A non-zero vector.
    alpha : float
        The offset.
    extent : float or tuple of float
        The box, as for :func:`grid_points`.

    Returns
    -------
    ndarray, shape (2, 2), or None
        The two end points, or ``None`` when the line misses the box.

    Examples
    --------
    >>> halfspace_segment([0.0, 1.0], 0.5, 1.0).tolist()
    [[-1.0, 0.5], [1.0, 0.5]]
    """
    p = _vec2(phi, "phi")
    a = float(alpha)
    x0, x1, y0, y1 = _extent(extent)
    nn = p @ p
    base = a * p / nn
    d = np.array([-p[1], p[0]]) / np.sqrt(nn)
    t_lo, t_hi = -np.inf, np.inf
    for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
        if abs(d[k]) < DRAW_PARALLEL_TOL:
            if not lo <= base[k] <= hi:
                return None
            continue
        ta, tb = (lo - base[k]) / d[k], (hi - base[k]) / d[k]
        t_lo, t_hi = max(t_lo, min(ta, tb)), min(t_hi, max(ta, tb))
    if t_lo > t_hi:
        return None
    seg = np.array([base + t_lo * d, base + t_hi * d])
    if d[0] < 0 or (d[0] == 0 and d[1] < 0):
        seg = seg[::-1]
    return seg


def _distinct_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a bool matrix: the index of one row per distinct row, and each row's distinct-row id.

    Rows are packed into 64-bit words and sorted lexicographically (much faster than
    ``np.unique(..., axis=0)``, which sorts a void view).
    """
    N, m = mask.shape
    packed = np.packbits(mask, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    words = np.ascontiguousarray(packed).view(np.uint64)
    order = np.lexsort(words.T[::-1]) if words.shape[1] > 1 else np.argsort(words[:, 0], kind="stable")
    sw = words[order]
    new = np.ones(N, dtype=bool)
    if N > 1:
        new[1:] = np.any(sw[1:] != sw[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(N, dtype=np.intp)
    inverse[order] = group
    return order[new], inverse


def _segments(phi: np.ndarray, alpha: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """All boundary lines clipped to the box at once, shape ``(m, 2, 2)`` (NaN where a line misses it)."""
    x0, x1, y0, y1 = box
    nn = np.einsum("ij,ij->i", phi, phi)
    base = alpha[:, None] * phi / nn[:, None]
    d = np.column_stack([-phi[:, 1], phi[:, 0]]) / np.sqrt(nn)[:, None]
    lo = np.full(len(phi), -np.inf)
    hi = np.full(len(phi), np.inf)
    miss = np.zeros(len(phi), dtype=bool)
    for k, (a, b) in enumerate(((x0, x1), (y0, y1))):
        flat = np.abs(d[:, k]) < DRAW_PARALLEL_TOL
        miss |= flat & ((base[:, k] < a) | (base[:, k] > b))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta, tb = (a - base[:, k]) / d[:, k], (b - base[:, k]) / d[:, k]
        lo = np.where(flat, lo, np.maximum(lo, np.minimum(ta, tb)))
        hi = np.where(flat, hi, np.minimum(hi, np.maximum(ta, tb)))
    miss |= lo > hi
    seg = np.stack([base + lo[:, None] * d, base + hi[:, None] * d], axis=1)
    seg[miss] = np.nan
    return seg


def halfspace_polygon(phi: Any, alpha: float, extent: Any) -> np.ndarray:
    r"""The half-space :math:`\Omega = \{x : \langle x, \phi\rangle \ge \alpha\}` clipped to a box.

    Returns
    -------
    ndarray, shape (k, 2)
        The vertices of the convex polygon, counter-clockwise (``k = 0`` when empty).

    Examples
    --------
    >>> halfspace_polygon([0.0, 1.0], 0.0, 1.0).tolist()
    [[1.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, 0.0]]
    """
    p = _vec2(phi, "phi")
    a = float(alpha)
    x0, x1, y0, y1 = _extent(extent)
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    vals = box @ p - a
    out = []
    for k in range(4):
        cur, nxt = box[k], box[(k + 1) % 4]
        vc, vn = vals[k], vals[(k + 1) % 4]
        if vc >= 0:
            out.append(cur)
        if (vc >= 0) != (vn >= 0):
            t = vc / (vc - vn)
            out.append(cur + t * (nxt - cur))
    if not out:
        return np.zeros((0, 2))
    poly = np.array(out)
    # drop consecutive duplicates (a corner on the line)
    keep = np.ones(len(poly), dtype=bool)
    keep[1:] = np.any(np.abs(np.diff(poly, axis=0)) > DRAW_DUPLICATE_TOL, axis=1)
    return poly[keep]


def _vec2(phi: Any, name: str) -> np.ndarray:
    p, single = as_points(phi, 2, name)
    if not single:
        raise InputError(f"{name} must be one vector of shape (2,); got shape {p.shape}.")
    p = p[0]
    if not np.any(p):
        raise InputError(f"{name} must be non-zero; got {p.tolist()}.")
    return p


def boundary_points(layer: Any, domain: Any, *, per_arc: int = 3, base: int = 720) -> np.ndarray:
    """Points on the boundary of a 2-D domain that hit every active pattern along it.

    On each circle of the boundary (radius ``r``, and ``s`` for a shell) and on the two
    segments of a positive ball, the active set changes only where a half-space boundary
    crosses; this returns those crossing points, ``per_arc`` points inside every arc
    between consecutive crossings, and ``base`` uniformly spaced points. Testing these
    points checks the rectifying property on the boundary exactly (every piece with a
    constant active set is visited). Unbounded domains and finite sample sets give an
    empty array.

    Parameters
    ----------
    layer : ReLULayer
        A layer on R^2.
    domain : Domain
        The domain.
    per_arc : int, default 3
        Points inside each arc between crossings.
    base : int, default 720
        Uniform points per circle.

    Returns
    -------
    ndarray, shape (N, 2)
    """
    L = _layer2d(layer)
    K = _domain2d(domain)
    per_arc = as_count(per_arc, "per_arc")
    base = as_count(base, "base", minimum=0)
    phi, alpha = L.frame.vectors, L.alpha
    norms = L.frame.norms
    theta_phi = np.arctan2(phi[:, 1], phi[:, 0])
    pieces = []

    def circle(R: float, lo: float, hi: float) -> None:
        c = alpha / (R * norms)
        ok = np.abs(c) <= 1.0
        acos = np.arccos(np.clip(c[ok], -1.0, 1.0))
        cross = np.concatenate([theta_phi[ok] + acos, theta_phi[ok] - acos])
        cross = np.mod(cross - lo, 2 * np.pi) + lo
        cross = cross[cross <= hi]
        t = np.unique(np.concatenate([cross, np.linspace(lo, hi, base + 2), [lo, hi]]))
        if hi - lo >= 2 * np.pi - DRAW_ZERO:
            t = np.append(t, t[0] + 2 * np.pi)
        frac = np.arange(1, per_arc + 1) / (per_arc + 1)
        mids = (t[:-1, None] + np.diff(t)[:, None] * frac[None, :]).ravel()
        ang = np.concatenate([t, mids])
        pieces.append(R * np.column_stack([np.cos(ang), np.sin(ang)]))

    def segment(a: np.ndarray, b: np.ndarray) -> None:
        d = b - a
        den = phi @ d
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (alpha - phi @ a) / den
        t = t[np.isfinite(t) & (t >= 0) & (t <= 1)]
        t = np.unique(np.concatenate([t, np.linspace(0, 1, max(base // 4, 2)), [0.0, 1.0]]))
        frac = np.arange(1, per_arc + 1) / (per_arc + 1)
        mids = (t[:-1, None] + np.diff(t)[:, None] * frac[None, :]).ravel()
        s = np.concatenate([t, mids])
        pieces.append(a + s[:, None] * d)

    curves = boundary_curves(K)
    for R, lo, hi in curves.arcs:
        circle(R, lo, hi)
    for a, b in curves.segments:
        segment(a, b)
    if not pieces:
        return np.zeros((0, 2))
    pts = np.vstack(pieces)
    return pts[K.contains(pts, tol=DRAW_ZERO)] if len(pts) else pts


def active_counts(layer: Any, X: Any) -> np.ndarray:
    r"""Number of active elements :math:`|I_x^\alpha|` at each point, shape ``(N,)``.

    Examples
    --------
    >>> import relu_frames_nb as rf
    >>> active_counts(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.4), [[0.0, 0.0], [0.0, 1.0]]).tolist()
    [3, 1]
    """
    L = as_layer(layer)
    return L.active_set(X).sum(axis=-1).astype(int)


def basis_ids(frame: Any, X: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""Most correlated basis :math:`J^*(x)` of each point, as an id into a table of bases.

    Calls the core's ``most_correlated_basis``.

    Returns
    -------
    ids : ndarray of int, shape (N,)
    bases : ndarray of int, shape (k, n)
        The distinct bases (sorted index sets); ``bases[ids[j]]`` is :math:`J^*(x_j)`.
    """
    F = as_frame(frame)
    pts, _ = as_points(X, F.n, "X")
    J = np.sort(np.asarray(most_correlated_basis(F, pts)), axis=1)
    bases, ids = np.unique(J, axis=0, return_inverse=True)
    return ids.reshape(-1), bases


# ---------------------------------------------------------------------------------
# Drawing primitives (each returns the artists it made)
# ---------------------------------------------------------------------------------


def _label(i: int) -> str:
    return rf"$\phi_{{{i + 1}}}$"


def _image(ax, rgba: np.ndarray, extent, zorder: float, clip=None):
    im = ax.imshow(rgba, origin="lower", extent=extent, interpolation="nearest", zorder=zorder, aspect="equal")
    if clip is not None:
        ax.add_patch(clip)
        clip.set_visible(False)
        im.set_clip_path(clip)
    return im


def _count_lut(m: int) -> np.ndarray:
    from matplotlib import colormaps

    cmap = colormaps[palette.COUNT_CMAP]
    return cmap(np.linspace(0.0, 0.78, max(m, 1) + 1))


def _count_rgba(counts: np.ndarray, inside: np.ndarray, lut: np.ndarray, res: int, outside_alpha: float) -> np.ndarray:
    rgba = lut[np.minimum(counts, lut.shape[0] - 1)].copy()
    rgba[~inside, 3] = outside_alpha
    return rgba.reshape(res, res, 4)


def _maximal_rgba(ok: np.ndarray, inside: np.ndarray, res: int) -> np.ndarray:
    dark = np.array([0.22, 0.22, 0.27, 0.42])
    bad = np.append(palette.rgb(palette.BAD), 0.85)
    rgba = np.zeros((ok.shape[0], 4))
    rgba[ok] = dark
    rgba[~ok & inside] = bad
    return rgba.reshape(res, res, 4)


def _partition_rgba(ids: np.ndarray, n_ids: int, res: int, element_mask: np.ndarray | None, inside: np.ndarray) -> np.ndarray:
    colors = palette.categorical(max(n_ids, 1))
    rgba = np.ones((ids.shape[0], 4))
    rgba[:, :3] = colors[ids]
    rgba[:, 3] = 0.55
    if element_mask is not None:
        rgba[:, :3] = palette.rgb(palette.HIGHLIGHT)
        rgba[:, 3] = np.where(element_mask, 0.7, 0.0)
    rgba[~inside, 3] *= 0.25
    return rgba.reshape(res, res, 4)


def _arrows(ax, F: Frame, colors, zorder, width=0.012, indices=None):
    idx = list(range(F.m)) if indices is None else list(indices)
    phi = F.vectors[idx]
    q = ax.quiver(
        np.zeros(len(idx)), np.zeros(len(idx)), phi[:, 0], phi[:, 1],
        angles="xy", scale_units="xy", scale=1.0, color=[colors[i] for i in idx], width=width, zorder=zorder,
    )  # fmt: skip
    texts = []
    if F.m <= 24:
        for i, p in zip(idx, phi):
            pos = p * (1.0 + 0.2 / max(np.linalg.norm(p), DRAW_ZERO))
            texts.append(ax.text(pos[0], pos[1], _label(i), ha="center", va="center", fontsize=11, color=colors[i],
                                 zorder=zorder, path_effects=_halo()))  # fmt: skip
    return [q, *texts]


def _halo():
    from matplotlib import patheffects

    return [patheffects.withStroke(linewidth=3, foreground="white", alpha=0.85)]


def _style(ax, extent, *, ticks=True):
    x0, x1, y0, y1 = extent
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(palette.MUTED)
    ax.tick_params(colors=palette.MUTED, labelsize=8)
    if not ticks:
        ax.set_xticks([])
        ax.set_yticks([])
    ax.axhline(0, color=palette.MUTED, lw=0.5, zorder=0.5)
    ax.axvline(0, color=palette.MUTED, lw=0.5, zorder=0.5)
    return ax


def _indices(idx: Iterable[int] | None, m: int) -> list[int]:
    if idx is None:
        return []
    out = []
    for i in idx:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < m:
            raise InputError(f"indices must be integers in [0, {m}); got {i!r}.")
        out.append(int(i))
    return out


def _pair(collision, layer):
    if hasattr(collision, "found"):
        if not collision.found:
            raise InputError("collision must be a found pair; got Collision(found=False). Check .found first.")
        return np.asarray(collision.x, float), np.asarray(collision.y, float), np.asarray(collision.output, float)
    try:
        x, y = collision
    except (TypeError, ValueError):
        raise InputError(f"collision must be a Collision or a pair (x, y); got {type(collision).__name__}.") from None
    x, _ = as_points(x, 2, "x")
    y, _ = as_points(y, 2, "y")
    out = None if layer is None else _layer2d(layer)(x[0])
    return x[0], y[0], out


def _fmt_vec(v) -> str:
    return "(" + ", ".join(f"{float(c):.3g}" for c in v) + ")"


def _draw_pair(ax, x, y, out, annotate):
    z = _Z["collision"] + 10
    artists = ax.plot([x[0], y[0]], [x[1], y[1]], ls=":", color=palette.BAD, lw=1.5, zorder=z)
    artists += ax.plot([x[0]], [x[1]], "o", ms=8, mfc="white", mec=palette.BAD, mew=2, zorder=z)
    artists += ax.plot([y[0]], [y[1]], "s", ms=7, mfc="white", mec=palette.BAD, mew=2, zorder=z)
    if annotate:
        mid = (x + y) / 2
        text = r"$C_\alpha x = C_\alpha y$"
        if out is not None and len(out) <= 6:
            text += "\n" + r"$=$" + _fmt_vec(out)
        artists.append(ax.annotate(text, mid, xytext=(8, 10), textcoords="offset points", fontsize=8, color=palette.BAD,
                                   zorder=z, bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85)))  # fmt: skip
    return artists


def _draw_minima(ax, arg, idx, lines):
    z = _Z["minima"] + 10
    artists = []
    for i in idx:
        p = arg[i]
        if not np.all(np.isfinite(p)):
            continue
        c = palette.element_color(i)
        if lines:
            artists += ax.plot([0, p[0]], [0, p[1]], color=c, lw=0.8, ls="--", zorder=z)
        artists += ax.plot([p[0]], [p[1]], marker="*", ms=12, color=c, mec="white", mew=0.8, zorder=z)
    return artists


