"""Reading arrays from files (.npy, .npz, .csv, .txt) with one error style and no pickles.

Every failure is an :class:`~relu_frames_nb.errors.InputError` naming the file, so the
command line can report it in one line without a traceback.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from .validation import to_float_array

__all__ = ["read_array", "read_npz", "pick_array", "existing_file", "unify_newlines", "ARRAY_SUFFIXES"]

#: suffixes that :func:`read_array` understands
ARRAY_SUFFIXES = (".npy", ".npz", ".csv", ".txt")


def unify_newlines(text: str) -> str:
    r"""``text`` with every line end written as ``\n``: Windows ``\r\n`` and a lone ``\r`` (classic Mac OS) alike.

    Whatever splits typed or read text into rows calls this first, so that the three
    conventions give the same rows.

    Examples
    --------
    >>> unify_newlines("1 0\r0 1\r\n-1 -1\n")
    '1 0\n0 1\n-1 -1\n'
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _text_rows(path: Path, delimiter: str | None) -> np.ndarray:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"file {str(path)!r} must be UTF-8 text; got binary data.") from None
    text = unify_newlines(text)
    arr = np.loadtxt(io.StringIO(text), delimiter=delimiter, ndmin=2)
    return arr


def existing_file(path: str | Path, what: str) -> Path:
    """``path`` when it names a readable regular file; else an error that says what it is instead."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{what} must be an existing file; got {str(path)!r} (no such file).")
    if path.is_dir():
        raise InputError(f"{what} must be a file; got {str(path)!r}, which is a directory.")
    if not path.is_file():
        raise InputError(f"{what} must be a regular file; got {str(path)!r} (a FIFO, socket or device).")
    return path


def read_npz(path: str | Path, what: str = "file") -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` file (``allow_pickle=False``)."""
    path = existing_file(path, what)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k]) for k in data.files}
    except Exception as exc:
        raise InputError(f"{what} {str(path)!r} could not be read as .npz: {exc}") from None
    if not arrays:
        raise InputError(f"{what} {str(path)!r} must contain an array; got an empty .npz.")
    return arrays


def pick_array(arrays: dict[str, np.ndarray], keys: tuple[str, ...], what: str, path: Any) -> tuple[str, np.ndarray]:
    """The array named by one of ``keys`` (also as a suffix ``*.key``), or the only array; else an error."""
    for key in keys:
        for k, v in arrays.items():
            if k == key or k.endswith("." + key):
                return k, v
    if len(arrays) == 1:
        return next(iter(arrays.items()))
    raise InputError(
        f"{what} {str(path)!r} must name its array {' or '.join(repr(k) for k in keys)} (or hold exactly one array); "
        f"got keys {sorted(arrays)}."
    )


def read_array(path: str | Path, what: str, *, keys: tuple[str, ...] = ()) -> np.ndarray:
    """A finite float array from ``.npy``, ``.npz`` (the array named by ``keys``, or the only one), ``.csv`` or ``.txt``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in ARRAY_SUFFIXES:
        raise InputError(f"{what} file must be .npy, .npz, .csv or .txt; got {str(path)!r}.")
    existing_file(path, f"{what} file")
    if suffix == ".npz":
        _, arr = pick_array(read_npz(path, f"{what} file"), keys, f"{what} file", path)
        return to_float_array(arr, what)
    try:
        if suffix == ".npy":
            arr = np.load(path, allow_pickle=False)
        else:
            arr = _text_rows(path, "," if suffix == ".csv" else None)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{what} file {str(path)!r} could not be read: {exc}") from None
    return to_float_array(arr, what)
