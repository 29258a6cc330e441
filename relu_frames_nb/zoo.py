"""Named frames: the paper's examples, regular configurations and random frames.

Every function returns a :class:`~relu_frames_nb.frames.Frame`. Use :func:`get` with
one of :func:`names` to build a frame from a string (for the CLI and the widgets).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._util.validation import as_count, as_rng
from .errors import InputError
from .frames import Frame

__all__ = [
    "mercedes_benz",
    "triangle",
    "standard_basis",
    "plus_minus_basis",
    "regular_polygon",
    "platonic",
    "PLATONIC_SOLIDS",
    "example_a",
    "random_sphere",
    "gaussian",
    "names",
    "get",
]

PLATONIC_SOLIDS = ("tetrahedron", "cube", "octahedron", "dodecahedron", "icosahedron")


def mercedes_benz() -> Frame:
    r"""The triangle (Mercedes-Benz) frame of Example "mb": three unit vectors at 120 degrees.

    :math:`\phi_1 = (0, 1)`, :math:`\phi_2 = (-\sqrt3/2, -1/2)`, :math:`\phi_3 = (\sqrt3/2, -1/2)`.
    """
    s = np.sqrt(3.0) / 2.0
    return Frame([[0.0, 1.0], [-s, -0.5], [s, -0.5]])


triangle = mercedes_benz


def standard_basis(n: int = 2) -> Frame:
    """The standard basis of R^n."""
    return Frame(np.eye(as_count(n, "n")))


def plus_minus_basis(n: int = 2) -> Frame:
    """The standard basis and its negatives, (e_1, ..., e_n, -e_1, ..., -e_n); for n = 3 the octahedron."""
    eye = np.eye(as_count(n, "n"))
    return Frame(np.vstack([eye, -eye]))


def regular_polygon(m: int, *, phase: float = np.pi / 2) -> Frame:
    """``m`` unit vectors at equal angles in R^2, the first at angle ``phase`` (default: pointing up)."""
    m = as_count(m, "m", minimum=2)
    if m == 2:
        raise InputError("m must be at least 3 for a polygon frame (two vectors at 180 degrees do not span R^2); got 2.")
    t = phase + 2.0 * np.pi * np.arange(m) / m
    return Frame(np.column_stack([np.cos(t), np.sin(t)]))


def _platonic_vertices(name: str) -> np.ndarray:
    g = (1.0 + np.sqrt(5.0)) / 2.0
    if name == "tetrahedron":
        v = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
    elif name == "cube":
        v = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    elif name == "octahedron":
        v = np.vstack([np.eye(3), -np.eye(3)])
    elif name == "icosahedron":
        v = []
        for a in (-1, 1):
            for b in (-g, g):
                v += [[0, a, b], [a, b, 0], [b, 0, a]]
        v = np.array(v, dtype=float)
    elif name == "dodecahedron":
        v = [[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
        for a in (-1 / g, 1 / g):
            for b in (-g, g):
                v += [[0, a, b], [a, b, 0], [b, 0, a]]
        v = np.array(v, dtype=float)
    else:
        raise InputError(f"name must be one of {PLATONIC_SOLIDS}; got {name!r}.")
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def platonic(name: str) -> Frame:
    """The unit-norm vertices of a platonic solid in R^3.

    ``name`` is one of ``"tetrahedron"`` (4), ``"cube"`` (8), ``"octahedron"`` (6, the
    +-standard basis), ``"dodecahedron"`` (20), ``"icosahedron"`` (12).
    """
    if not isinstance(name, str):
        raise InputError(f"name must be one of {PLATONIC_SOLIDS}; got {name!r}.")
    return Frame(_platonic_vertices(name.lower()))


def example_a() -> Frame:
    r"""The five-vector frame of Example "a": :math:`e_1, (e_1+e_2)/\sqrt2, e_2, -e_1, -e_2`."""
    r = 1.0 / np.sqrt(2.0)
    return Frame([[1.0, 0.0], [r, r], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])


def random_sphere(m: int, n: int, *, seed: Any = None) -> Frame:
    """``m`` i.i.d. uniform unit vectors in R^n (full spark with probability one)."""
    m, n = as_count(m, "m"), as_count(n, "n")
    if m < n:
        raise InputError(f"m must be >= n for a frame; got m={m}, n={n}.")
    g = as_rng(seed).standard_normal((m, n))
    return Frame(g / np.linalg.norm(g, axis=1, keepdims=True))


def gaussian(m: int, n: int, *, seed: Any = None, scale: float = 1.0) -> Frame:
    """``m`` i.i.d. standard normal vectors in R^n times ``scale`` (not normalized)."""
    m, n = as_count(m, "m"), as_count(n, "n")
    if m < n:
        raise InputError(f"m must be >= n for a frame; got m={m}, n={n}.")
    return Frame(scale * as_rng(seed).standard_normal((m, n)))


_NAMED: dict[str, Callable[[], Frame]] = {
    "mercedes-benz": mercedes_benz,
    "triangle": mercedes_benz,
    "example-a": example_a,
    "standard-basis-2": lambda: standard_basis(2),
    "plus-minus-basis-2": lambda: plus_minus_basis(2),
    "square": lambda: regular_polygon(4),
    "pentagon": lambda: regular_polygon(5),
    "hexagon": lambda: regular_polygon(6),
    **{name: (lambda name=name: platonic(name)) for name in PLATONIC_SOLIDS},
}


def names() -> list[str]:
    """Names accepted by :func:`get`."""
    return sorted(_NAMED)


def get(name: str) -> Frame:
    """A named frame, e.g. ``get("icosahedron")``; see :func:`names`."""
    try:
        return _NAMED[str(name).lower()]()
    except KeyError:
        raise InputError(f"name must be one of {names()}; got {name!r}.") from None
