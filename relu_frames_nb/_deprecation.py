"""Renamed keyword arguments keep working for one release, with a DeprecationWarning."""

from __future__ import annotations

import functools
import warnings
from typing import Callable

__all__ = ["renamed_kwargs"]


def renamed_kwargs(**old_to_new: str) -> Callable:
    """Decorator: accept ``old=value`` as ``new=value`` with a :class:`DeprecationWarning`.

    Passing both names is a :class:`TypeError`, as Python does for a duplicate argument.
    """

    def wrap(func: Callable) -> Callable:
        @functools.wraps(func)
        def inner(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old!r} (deprecated) and {new!r}; pass only {new!r}.")
                    warnings.warn(
                        f"{func.__name__}(): the keyword {old!r} is deprecated and will be removed in the next release; "
                        f"use {new!r}.",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return inner

    return wrap
