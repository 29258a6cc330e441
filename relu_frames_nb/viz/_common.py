r"""Small private helpers shared by the viz modules: name checks for overlays and layers, the 3-D
frame check, the facet adjacency of a polytope, and the layer names of a 3-D scene.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..errors import DimensionMismatchError, InputError
from ..frames import Frame, as_frame
from ..paper.bias.polytope import InscribingPolytope

#: layers of a 3-D scene, in drawing order (public as :data:`relu_frames_nb.viz.space.LAYERS`)
LAYERS = ("sphere", "caps", "correlated", "facets", "edges", "vertices", "labels", "bias_plane", "star")
#: the layers shown when none are given
DEFAULT_LAYERS = ("sphere", "facets", "edges", "vertices", "labels")


def check_names(names: Iterable[str], allowed: Iterable[str], what: str) -> set[str]:
    """The set of ``names``, checked against ``allowed`` (overlays of a 2-D view, layers of a 3-D scene)."""
    allowed = tuple(allowed)
    chosen = set(names)
    bad = chosen - set(allowed)
    if bad:
        raise InputError(f"{what} must be among {allowed}; got {sorted(bad)}.")
    return chosen


def frame3(frame: Any) -> Frame:
    """A frame for R^3 (an inscribing polytope gives its frame), or a DimensionMismatchError."""
    if isinstance(frame, InscribingPolytope):
        frame = frame.frame
    F = as_frame(frame)
    if F.n != 3:
        raise DimensionMismatchError(f"frame must be a frame for R^3 (n = 3) for a 3-D scene; got n = {F.n}.")
    return F


def facet_adjacency(cycles: list[np.ndarray]) -> np.ndarray:
    """Pairs of facets (given by their vertex cycles) that share an edge, shape (k, 2)."""
    owner: dict[tuple[int, int], list[int]] = {}
    for j, cyc in enumerate(cycles):
        for a, b in zip(cyc, np.roll(cyc, -1)):
            owner.setdefault((min(a, b), max(a, b)), []).append(j)
    pairs = [(f[0], f[1]) for f in owner.values() if len(f) == 2]
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)
