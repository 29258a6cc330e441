"""Exception classes of relu_frames_nb.

Every error raised for bad input is a subclass of :class:`ValueError`, so callers can
catch either the specific class or ``ValueError``. Messages follow one pattern:
``"{name} must be {expected}; got {actual}."`` followed by a hint on how to fix it.
"""

from __future__ import annotations

__all__ = [
    "ReluFramesError",
    "InputError",
    "NotAFrameError",
    "DimensionMismatchError",
    "TooExpensiveError",
    "NotOmnidirectionalError",
    "DegenerateHullError",
    "NotInjectiveError",
]


class ReluFramesError(Exception):
    """Base class of every exception raised by relu_frames_nb."""


class InputError(ReluFramesError, ValueError):
    """An argument has the wrong type, shape, value or contains NaN/inf."""


class NotAFrameError(InputError):
    """A collection of vectors does not span R^n (or contains a zero vector)."""


class DimensionMismatchError(InputError):
    """Arrays whose dimensions must agree do not (e.g. samples vs frame dimension)."""


class TooExpensiveError(ReluFramesError, ValueError):
    """An exact computation would exceed a work limit the caller can raise."""


class NotOmnidirectionalError(ReluFramesError, ValueError):
    """The origin is not an interior point of the frame's inscribing polytope."""


class DegenerateHullError(ReluFramesError, ValueError):
    """A convex hull cannot be built (coplanar points, too few points, ...)."""


class NotInjectiveError(ReluFramesError, ValueError):
    """An output was produced at a point where the layer is not injective."""
