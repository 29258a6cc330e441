"""A finite data set taken as the domain itself."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_count, as_rng, to_float_array
from ..errors import InputError
from .base import Domain

__all__ = ["Samples"]


class Samples(Domain):
    """A finite data set (rows of ``X``) taken as the domain itself.

    ``source`` (optional) names the file the points came from; it gives the domain its
    command-line spelling ``samples:FILE``.
    """

    finite = True

    def __init__(self, X: Any, *, source: str | None = None) -> None:
        arr = to_float_array(X, "X")
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise InputError(f"X must be a non-empty 2-D array of points (rows); got shape {arr.shape}.")
        arr = arr.copy()
        arr.setflags(write=False)
        self.points = arr
        self.n = arr.shape[1]
        self.source = None if source is None else str(source)

    def __repr__(self) -> str:
        return f"Samples(N={self.points.shape[0]}, n={self.n})"

    def describe(self) -> str:
        return f"the data set of {self.points.shape[0]} points"

    @property
    def spec(self) -> str:
        if self.source is None:
            raise InputError("this data set was not read from a file, so it has no command-line spelling samples:FILE.")
        return f"samples:{self.source}"

    @property
    def nonnegative(self) -> bool:  # type: ignore[override]
        """All points lie in the non-negative orthant."""
        return bool(np.all(self.points >= 0))

    @property
    def inner_radius(self) -> float:
        return float(np.min(np.linalg.norm(self.points, axis=1)))

    def __eq__(self, other):
        return isinstance(other, Samples) and np.array_equal(self.points, other.points)

    def __hash__(self):
        return hash(self.points.tobytes())

    @property
    def radius(self) -> float:
        return float(np.max(np.linalg.norm(self.points, axis=1)))

    def sample(self, N: int | None = None, *, seed: Any = None) -> np.ndarray:
        """The points themselves (``N=None``), or ``N`` of them drawn with replacement."""
        if N is None:
            return np.array(self.points)
        N = as_count(N, "N", minimum=0)
        return self.points[as_rng(seed).integers(0, self.points.shape[0], N)]

    def _contains(self, X, tol):
        from scipy.spatial import cKDTree

        dist, _ = cKDTree(self.points).query(X, k=1)
        return dist <= tol * max(1.0, self.radius)


