"""Helpers shared by the polyhedral domains (private): exact short numbers, chunks of bounded size, immutability."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["U", "CHUNK_ENTRIES", "short_number", "chunks", "file_arg", "readonly", "Frozen", "set_attrs", "range_text"]

U = 2.0**-53
#: entries of one intermediate array (points x constraints) at most, to keep memory bounded
CHUNK_ENTRIES = 1 << 22


def short_number(x: float) -> str:
    """Short, and read back exactly (``repr`` when ``:g`` would round)."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def chunks(N: int, width: int):
    step = max(1, CHUNK_ENTRIES // max(width, 1))
    for s in range(0, N, step):
        yield slice(s, min(N, s + step))


def file_arg(arg: str, kind: str, name: str) -> str:
    if not arg:
        raise InputError(f"{kind} needs a file: {kind}:FILE (.npy, .npz, .csv); got no file name.")
    return arg


def readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


class Frozen:
    """Attributes are set once in ``__init__`` (via ``object.__setattr__``) and never again."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one instead.")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable.")


def set_attrs(obj: Any, **kw: Any) -> None:
    for k, v in kw.items():
        object.__setattr__(obj, k, v)


def range_text(v: np.ndarray) -> str:
    """The range of ``v`` for people (4 significant digits; descriptions, not specs)."""
    lo, hi = float(v.min()), float(v.max())
    return f"{lo:.4g}" if lo == hi else f"{lo:.4g}…{hi:.4g}"
