r"""How each kind of domain looks on the plane (private): its outline, which grid points count as
inside it, the curves that make up its boundary, and its symbol in a label.

Each question is a :func:`functools.singledispatch` function with one registration per class of
:mod:`relu_frames_nb.domains` that has something to draw. A domain without a registration
(:class:`~relu_frames_nb.domains.RealSpace`, :class:`~relu_frames_nb.domains.Exterior`,
:class:`~relu_frames_nb.domains.Box`, :class:`~relu_frames_nb.domains.Polytope`,
:class:`~relu_frames_nb.domains.Hull`, or a class of the user's) gets the defaults: no outline,
no boundary curves, its own ``contains`` as the inside, and the symbol ``K`` when it is bounded.
A new kind of domain is drawn by registering it here; the drawing functions do not change.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any, NamedTuple

import numpy as np

from .._util.tolerances import DRAW_INSIDE_RTOL
from ..domains import Ball, Domain, PositiveBall, Samples, Shell, Sphere
from . import palette

__all__ = ["Boundary", "outline_patch", "outline_width", "draw_outline", "inside_mask", "boundary_curves", "symbol"]


# ---------------------------------------------------------------------------------
# Outline
# ---------------------------------------------------------------------------------


@singledispatch
def outline_patch(K: Domain, **kw: Any):
    """A matplotlib patch of the domain's region (``kw`` go to the patch), or None when it has no outline."""
    return None


@outline_patch.register(Ball)
@outline_patch.register(Sphere)
def _(K, **kw):
    from matplotlib.patches import Circle

    return Circle((0.0, 0.0), K.r, **kw)


@outline_patch.register(Shell)
def _(K, **kw):
    from matplotlib.patches import Wedge

    return Wedge((0.0, 0.0), K.r, 0.0, 360.0, width=K.r - K.s, **kw)


@outline_patch.register(PositiveBall)
def _(K, **kw):
    from matplotlib.patches import Wedge

    return Wedge((0.0, 0.0), K.r, 0.0, 90.0, **kw)


@singledispatch
def outline_width(K: Domain) -> float:
    """Line width of the outline (a region's edge)."""
    return 1.4


@outline_width.register(Sphere)
def _(K) -> float:
    return 2.4  # the sphere is the curve itself: a thicker line than the edge of a ball


@singledispatch
def draw_outline(K: Domain, ax: Any, *, color: Any, fill: bool, zorder: float) -> list:
    """Draw the domain on ``ax`` (its outline patch, filled lightly with ``fill``); returns the artists made."""
    patch = outline_patch(K, facecolor=palette.lighten(color, 0.9) if fill else "none", edgecolor=color,
                          lw=outline_width(K), zorder=zorder, alpha=1.0)  # fmt: skip
    if patch is None:
        return []
    if fill:
        patch.set_alpha(0.9)
    ax.add_patch(patch)
    return [patch]


@draw_outline.register(Samples)
def _(K, ax, *, color, fill, zorder) -> list:
    return [ax.scatter(K.points[:, 0], K.points[:, 1], s=6, color=color, zorder=zorder)]


# ---------------------------------------------------------------------------------
# Inside
# ---------------------------------------------------------------------------------


@singledispatch
def inside_mask(K: Domain, X: np.ndarray) -> np.ndarray:
    """Which grid points ``X`` (shape ``(N, 2)``) are drawn as inside the domain, shape ``(N,)``."""
    return K.contains(X, tol=DRAW_INSIDE_RTOL)


@inside_mask.register(Samples)
def _(K, X: np.ndarray) -> np.ndarray:
    return np.ones(X.shape[0], dtype=bool)  # a few points: the grid is not faded anywhere


@inside_mask.register(Sphere)
def _(K, X: np.ndarray) -> np.ndarray:
    return np.linalg.norm(X, axis=1) <= K.r * (1 + DRAW_INSIDE_RTOL)  # a curve: show the disk it bounds


# ---------------------------------------------------------------------------------
# Boundary
# ---------------------------------------------------------------------------------


class Boundary(NamedTuple):
    """The boundary of a 2-D domain: circular arcs and straight segments.

    ``arcs`` holds ``(radius, start, stop)`` (centred at 0, angles in radians), ``segments`` holds
    ``(a, b)`` (the end points, arrays of shape (2,)).
    """

    arcs: tuple = ()
    segments: tuple = ()


@singledispatch
def boundary_curves(K: Domain) -> Boundary:
    """The arcs and segments of the domain's boundary (none for unbounded domains and sample sets)."""
    return Boundary()


@boundary_curves.register(Ball)
@boundary_curves.register(Sphere)
def _(K) -> Boundary:
    return Boundary(arcs=((K.r, 0.0, 2 * np.pi),))


@boundary_curves.register(Shell)
def _(K) -> Boundary:
    arcs = [(K.r, 0.0, 2 * np.pi)]
    if K.s > 0:
        arcs.append((K.s, 0.0, 2 * np.pi))
    return Boundary(arcs=tuple(arcs))


@boundary_curves.register(PositiveBall)
def _(K) -> Boundary:
    o = np.zeros(2)
    return Boundary(arcs=((K.r, 0.0, np.pi / 2),), segments=((o, np.array([K.r, 0.0])), (o, np.array([0.0, K.r]))))


# ---------------------------------------------------------------------------------
# Symbol
# ---------------------------------------------------------------------------------


@singledispatch
def symbol(K: Domain) -> str | None:
    """The domain's symbol in a label (mathtext), or None for no label."""
    return "K" if K.bounded else None


@symbol.register(Ball)
def _(K) -> str:
    return r"$\mathbb{B}$"


@symbol.register(Sphere)
def _(K) -> str:
    return r"$\mathbb{S}$"


@symbol.register(Shell)
def _(K) -> str:
    return r"$\mathbb{D}_{r,s}$"


@symbol.register(PositiveBall)
def _(K) -> str:
    return r"$\mathbb{B}^+$"


@symbol.register(Samples)
def _(K) -> None:
    return None  # the dots speak for themselves
