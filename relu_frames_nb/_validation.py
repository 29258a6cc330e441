"""Input validation shared by every public function.

All conversion of user input (lists, numpy arrays, torch tensors, ...) into float
ndarrays happens here, so that every function reports problems the same way.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .errors import DimensionMismatchError, InputError

__all__ = [
    "to_float_array",
    "as_matrix",
    "as_points",
    "as_bias",
    "as_positive",
    "as_nonnegative",
    "as_count",
    "as_probability",
]


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(x).__name__} {text}"


def to_float_array(x: Any, name: str) -> np.ndarray:
    """Convert an array-like (numpy, list, torch tensor) to a float64 ndarray.

    Raises
    ------
    InputError
        If ``x`` is not numeric or contains NaN or infinite values.
    """
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch tensor, without importing torch
        x = x.detach().cpu().numpy()
    if isinstance(x, (str, bytes)):
        raise InputError(f"{name} must be numeric; got {_describe(x)}.")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise InputError(f"{name} must be a numeric array; got {_describe(x)} ({exc}).") from None
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise InputError(
            f"{name} must be a numeric array; got {_describe(x)}. "
            "Convert strings or mixed lists to numbers first."
        )
    if np.iscomplexobj(arr):
        raise InputError(f"{name} must be real; got complex values.")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise InputError(f"{name} must contain only finite numbers; got {bad} NaN/inf value(s).")
    return arr


def as_matrix(x: Any, name: str, *, min_rows: int = 1, min_cols: int = 1) -> np.ndarray:
    """A finite 2-D float array with at least ``min_rows`` rows and ``min_cols`` columns."""
    arr = to_float_array(x, name)
    if arr.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (rows are vectors); got {arr.ndim}-D shape {arr.shape}.")
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise InputError(
            f"{name} must have at least {min_rows} row(s) and {min_cols} column(s); got shape {arr.shape}."
        )
    return arr


def as_points(x: Any, n: int, name: str = "X") -> tuple[np.ndarray, bool]:
    """Points in R^n as an ``(N, n)`` array, plus whether a single vector was given.

    A 1-D input of length ``n`` is one point; the flag lets callers return a 1-D result.
    """
    arr = to_float_array(x, name)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise InputError(f"{name} must be a point of shape ({n},) or points of shape (N, {n}); got shape {arr.shape}.")
    if arr.shape[1] != n:
        raise DimensionMismatchError(
            f"{name} must have {n} columns (the dimension of the frame); got shape {arr.shape}. "
            "Rows are points; transpose if you stored points as columns."
        )
    return arr, single


def as_bias(alpha: Any, m: int, name: str = "alpha") -> np.ndarray:
    """A bias vector of length ``m``; a scalar is broadcast to a constant bias."""
    arr = to_float_array(alpha, name)
    if arr.ndim == 0:
        return np.full(m, float(arr))
    if arr.ndim != 1 or arr.shape[0] != m:
        raise DimensionMismatchError(
            f"{name} must be a scalar or a vector of length {m} (one value per frame element); got shape {arr.shape}."
        )
    return arr.copy()


def _as_real(x: Any, name: str) -> float:
    if hasattr(x, "item") and not isinstance(x, (str, bytes)) and np.size(x) == 1:
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise InputError(f"{name} must be a real number; got {_describe(x)}.")
    value = float(x)
    if not np.isfinite(value):
        raise InputError(f"{name} must be finite; got {value}.")
    return value


def as_positive(x: Any, name: str) -> float:
    """A finite real number > 0."""
    value = _as_real(x, name)
    if value <= 0:
        raise InputError(f"{name} must be positive; got {value}.")
    return value


def as_nonnegative(x: Any, name: str) -> float:
    """A finite real number >= 0."""
    value = _as_real(x, name)
    if value < 0:
        raise InputError(f"{name} must be non-negative; got {value}.")
    return value


def as_count(x: Any, name: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (numpy integers accepted, floats and bools refused)."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Integral, np.integer)):
        raise InputError(f"{name} must be an integer >= {minimum}; got {_describe(x)}.")
    value = int(x)
    if value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}; got {value}.")
    return value


def as_probability(x: Any, name: str) -> float:
    """A real number in [0, 1]."""
    value = _as_real(x, name)
    if not 0.0 <= value <= 1.0:
        raise InputError(f"{name} must lie in [0, 1]; got {value}.")
    return value
