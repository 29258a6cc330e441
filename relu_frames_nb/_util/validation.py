"""Input validation shared by every public function.

All conversion of user input (lists, numpy arrays, torch tensors, ...) into float
ndarrays happens here, so that every function reports problems the same way: arrays,
points and rows, biases, numbers, index sets, choices among names, and seeds (one
``as_rng`` for generators, one ``as_seed_sequence`` for reproducible streams).
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from ..errors import DimensionMismatchError, InputError

__all__ = [
    "to_float_array",
    "as_matrix",
    "as_points",
    "as_bias",
    "as_positive",
    "as_nonnegative",
    "as_count",
    "as_probability",
    "as_rows",
    "as_outputs",
    "as_index_set",
    "as_choice",
    "as_seed",
    "as_rng",
    "as_seed_sequence",
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


def _as_2d(x: Any, width: int, name: str, shape: str, per_row: str, hint: str) -> tuple[np.ndarray, bool]:
    """``(N, width)`` float array from ``(width,)`` or ``(N, width)``, plus the single-vector flag."""
    arr = to_float_array(x, name)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise InputError(f"{name} must {shape}; got shape {arr.shape}.")
    if arr.shape[1] != width:
        raise DimensionMismatchError(f"{name} must have {width} {per_row}; got shape {arr.shape}. {hint}")
    return arr, single


def as_points(x: Any, n: int, name: str = "X") -> tuple[np.ndarray, bool]:
    """Points in R^n as an ``(N, n)`` array, plus whether a single vector was given.

    A 1-D input of length ``n`` is one point; the flag lets callers return a 1-D result.
    """
    return _as_2d(
        x,
        n,
        name,
        f"be a point of shape ({n},) or points of shape (N, {n})",
        "columns (the dimension of the frame)",
        "Rows are points; transpose if you stored points as columns.",
    )


def as_rows(x: Any, m: int, name: str) -> tuple[np.ndarray, bool]:
    """Vectors in R^m (one entry per frame element, e.g. outputs) as an ``(N, m)`` array, plus the single flag.

    The same as :func:`as_points` with messages that speak of frame elements instead of points.
    """
    return _as_2d(
        x,
        m,
        name,
        f"have shape ({m},) or (N, {m})",
        "entries per row (one per frame element)",
        "Rows are outputs; transpose if you stored them as columns.",
    )


def as_outputs(x: Any, m: int, name: str = "Z", zero_tol: float = 0.0) -> tuple[np.ndarray, bool]:
    """Outputs of a ReLU layer: like :func:`as_rows`, and non-negative.

    With ``zero_tol > 0`` entries in ``[-zero_tol, zero_tol]`` are set to exactly 0 first (outputs
    that went through floating-point arithmetic, e.g. recovered by inverting a second layer).
    """
    arr, single = as_rows(x, m, name)
    if zero_tol > 0 and arr.size:
        small = np.abs(arr) <= zero_tol
        if small.any():
            arr = np.where(small, 0.0, arr)
    if arr.size and arr.min() < 0:
        r, i = np.unravel_index(int(np.argmin(arr)), arr.shape)
        raise InputError(
            f"{name} must be outputs of the layer (non-negative); got {arr[r, i]:.3g} in row {r}, entry {i}. "
            "Pass C_alpha(x) = ReLU(Phi x - alpha), not the pre-activation."
        )
    return arr, single


def as_index_set(J: Any, m: int, name: str = "J") -> np.ndarray:
    """An index set as a 1-D int array (order kept) from indices or a bool mask of length m."""
    if isinstance(J, (set, frozenset)):
        J = sorted(J)
    if isinstance(J, (str, bytes)) or J is None:
        raise InputError(f"{name} must be a collection of indices or a boolean mask of length {m}; got {J!r}.")
    if hasattr(J, "detach") and hasattr(J, "cpu"):  # torch tensor
        J = J.detach().cpu().numpy()
    try:
        arr = np.asarray(J)
    except Exception as exc:
        raise InputError(f"{name} must be a collection of indices; got {type(J).__name__} ({exc}).") from None
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise InputError(f"{name} as a boolean mask must have shape ({m},); got shape {arr.shape}.")
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.ndim != 1:
        raise InputError(
            f"{name} must be a 1-D collection of indices or a boolean mask of length {m}; got shape {arr.shape}."
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{name} must contain integer indices; got dtype {arr.dtype}. Use e.g. np.flatnonzero(mask).")
    bad = arr[(arr < 0) | (arr >= m)]
    if bad.size:
        raise InputError(f"{name} must contain indices in [0, {m}); got {bad[:5].tolist()}.")
    if np.unique(arr).size != arr.size:
        raise InputError(f"{name} must not repeat an index; got {arr.tolist()[:20]}.")
    return arr.astype(np.intp)


def as_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (compared with ``in``; the value is returned as given)."""
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}.")
    return value


def _bool_array(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return False
    try:
        return np.asarray(x).dtype == np.bool_
    except Exception:  # ragged lists and the like: to_float_array explains
        return False


def refuse_bool_bias(alpha: Any, name: str = "alpha") -> None:
    """Raise InputError for a bool or an array of bools given as a bias (``ReLULayer(F, True)``)."""
    if isinstance(alpha, (bool, np.bool_)) or _bool_array(alpha):
        raise InputError(
            f"{name} must be a number or a vector of numbers; got {_describe(alpha)} "
            "(booleans are not a bias: pass 0.0 for no bias)."
        )


def as_bias(alpha: Any, m: int, name: str = "alpha") -> np.ndarray:
    """A bias vector of length ``m``; a scalar is broadcast to a constant bias. Booleans are refused."""
    if hasattr(alpha, "detach") and hasattr(alpha, "cpu"):  # torch tensor, without importing torch
        alpha = alpha.detach().cpu().numpy()
    refuse_bool_bias(alpha, name)
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


def as_time_limit(x: Any, name: str = "time_limit") -> float | None:
    """Seconds ``>= 0``, or None for no limit (None or ``inf``: what a budget without a deadline has left)."""
    if x is None:
        return None
    if not isinstance(x, (str, bytes, bool)) and np.size(x) == 1 and float(np.asarray(x, dtype=float).ravel()[0]) == np.inf:
        return None
    return as_nonnegative(x, name)


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


# ---------------------------------------------------------------------------------
# seeds
# ---------------------------------------------------------------------------------


def _is_seed_int(seed: Any) -> bool:
    return not isinstance(seed, bool) and isinstance(seed, (numbers.Integral, np.integer)) and int(seed) >= 0


def as_seed(seed: Any) -> int:
    """A non-negative int seed (for parameters that are stored, e.g. as JSON)."""
    if not _is_seed_int(seed):
        raise InputError(f"seed must be a non-negative int; got {seed!r}.")
    return int(seed)


def as_rng(seed: Any) -> np.random.Generator:
    """A numpy Generator from a non-negative int, None (fresh entropy) or a Generator (returned as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and not _is_seed_int(seed):
        raise InputError(f"seed must be a non-negative int, None or a numpy Generator; got {seed!r}.")
    return np.random.default_rng(None if seed is None else int(seed))


def as_seed_sequence(seed: Any, key: Sequence[int] = ()) -> np.random.SeedSequence:
    """A SeedSequence from a non-negative int, None, a SeedSequence or a Generator, then keyed.

    A Generator contributes one draw of entropy. With ``key``, the result is the child
    ``SeedSequence(entropy, spawn_key=(*spawn_key, *key))``: independent streams under one
    seed, addressed by the key rather than by the order in which they are drawn.
    """
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    elif isinstance(seed, np.random.Generator):
        ss = np.random.SeedSequence(int(seed.integers(0, 2**63)))
    elif seed is None:
        ss = np.random.SeedSequence()
    elif _is_seed_int(seed):
        ss = np.random.SeedSequence(int(seed))
    else:
        raise InputError(f"seed must be a non-negative int, None, a SeedSequence or a Generator; got {seed!r}.")
    if not key:
        return ss
    return np.random.SeedSequence(
        ss.entropy, spawn_key=(*ss.spawn_key, *(int(k) for k in key)), pool_size=ss.pool_size
    )
