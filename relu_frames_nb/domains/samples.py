"""A finite data set taken as the domain itself."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.io import read_array
from .._util.validation import as_count, as_rng, to_float_array
from ..errors import DimensionMismatchError, InputError
from .base import Domain, robust_norms

__all__ = ["Samples", "as_domain"]

#: entries of one intermediate array at most (points x rows), to keep memory bounded
_CHUNK_ENTRIES = 1 << 22


class Samples(Domain, spec="samples", args="FILE"):
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

    @classmethod
    def _parse(cls, arg, n, name):
        if not arg:
            raise InputError("samples needs a file: samples:FILE (.npy, .npz, .csv); got no file name.")
        X = read_array(arg, f"{name} samples", keys=("X", "samples", "points", "data"))
        if X.ndim != 2:
            raise InputError(f"{name} samples file {arg!r} must hold points as rows (a 2-D array); got shape {X.shape}.")
        if X.shape[1] != n:
            raise InputError(
                f"{name} samples file {arg!r} must have {n} columns (the layer's input dimension); got {X.shape[1]}."
            )
        return cls(X, source=arg)

    def __repr__(self) -> str:
        return f"Samples(N={self.points.shape[0]}, n={self.n})"

    @property
    def data_points(self) -> np.ndarray:
        """The data set's points."""
        return self.points

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
        return float(np.min(robust_norms(self.points)))

    @property
    def full_dimensional(self) -> bool:
        return False

    def __eq__(self, other):
        return isinstance(other, Samples) and np.array_equal(self.points, other.points)

    def __hash__(self):
        return hash(self.points.tobytes())

    @property
    def radius(self) -> float:
        return float(np.max(robust_norms(self.points)))

    def scaled(self, c):
        return Samples(self.points * self._check_scale(c))

    def interior_point(self) -> np.ndarray:
        """The first point (a finite set has no interior)."""
        return np.array(self.points[0])

    def support(self, W):
        """Exact: the extremes over the points (in chunks)."""
        W = np.atleast_2d(np.asarray(W, dtype=float))
        lo = np.full(W.shape[0], np.inf)
        hi = np.full(W.shape[0], -np.inf)
        step = max(1, _CHUNK_ENTRIES // max(W.shape[0], 1))
        for s in range(0, self.points.shape[0], step):
            G = self.points[s : s + step] @ W.T
            lo, hi = np.minimum(lo, G.min(axis=0)), np.maximum(hi, G.max(axis=0))
        return lo, hi

    def _contains_certified(self, X):
        """Exact: the point is one of the data points, bit for bit."""
        rows = {p.tobytes() for p in np.ascontiguousarray(self.points)}
        return np.array([np.ascontiguousarray(x).tobytes() in rows for x in X], dtype=bool)

    def sample(self, N: int | None = None, *, seed: Any = None) -> np.ndarray:
        """The points themselves (``N=None``), or ``N`` of them drawn with replacement."""
        if N is None:
            return np.array(self.points)
        N = as_count(N, "N", minimum=0)
        return self.points[as_rng(seed).integers(0, self.points.shape[0], N)]

    def _contains(self, X, tol):
        from scipy.spatial import cKDTree

        dist, _ = cKDTree(self.points).query(X, k=1)
        return dist <= tol * self.radius




def as_domain(K: Any, n: int | None = None, name: str = "K") -> Domain:
    """A :class:`Domain` from a domain or from an ``(N, n)`` array of samples (a finite data set)."""
    if isinstance(K, Domain):
        dom = K
    elif K is None:
        raise InputError(f"{name} must be a Domain (Ball, Sphere, ...) or an (N, n) array of samples; got None.")
    else:
        dom = Samples(K)
    if n is not None and dom.n != n:
        raise DimensionMismatchError(f"{name} must be a domain in R^{n} (the frame's dimension); got {dom!r}.")
    return dom
