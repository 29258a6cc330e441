r"""Safe parsing of a typed matrix (numbers only, never ``eval``).

One parser shared by the 2-D explorer's text box and the ``%%frame`` cell magic.
Rows are frame vectors. Accepted layouts::

    1 0            1, 0; 0, 1; -1 -1         [[1, 0], [0, 1], [-1, -1]]
    0 1
    -1 -1

Rows are separated by line ends (``\n``, ``\r\n`` or a lone ``\r``, all alike) or ``;``
(or given as innermost ``[...]`` groups);
entries by spaces or commas. ``#`` starts a comment. Every entry must be a plain decimal
number such as ``-1``, ``.5`` or ``2.5e-3``; anything else (names, ``nan``, ``inf``,
expressions) is refused with the line and column of the offending text.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .._util.io import unify_newlines
from ..errors import InputError

__all__ = ["MatrixParseError", "parse_matrix", "MAX_ENTRIES"]

#: refuse absurdly large inputs before doing any work
MAX_ENTRIES = 1_000_000

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_SPACE = re.compile(r"[ \t\f\v,]+")  # no "\r": line ends are unified to "\n" first


class MatrixParseError(InputError):
    """The text is not a matrix of plain numbers."""


def _position(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _tokens(text: str):
    """Yield (kind, value, pos) with kind in {"num", "row", "open", "close"}."""
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        if ch == "#":
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl
            continue
        m = _SPACE.match(text, pos)
        if m:
            pos = m.end()
            continue
        if ch in "\n;":
            yield "row", None, pos
            pos += 1
            continue
        if ch == "[":
            yield "open", None, pos
            pos += 1
            continue
        if ch == "]":
            yield "close", None, pos
            pos += 1
            continue
        m = _NUMBER.match(text, pos)
        if m:
            end = m.end()
            if end < n and (text[end].isalnum() or text[end] in "._+-*/()"):
                bad_end = end
                while bad_end < n and not (text[bad_end].isspace() or text[bad_end] in ",;[]#"):
                    bad_end += 1
                raise MatrixParseError(
                    f"matrix entries must be plain numbers; got {text[pos:bad_end]!r} at {_position(text, pos)}."
                )
            value = float(m.group())
            if not math.isfinite(value):  # e.g. 1e309 overflows to inf
                raise MatrixParseError(
                    f"matrix entries must be finite numbers; got {m.group()!r} (beyond the float range) "
                    f"at {_position(text, pos)}."
                )
            yield "num", value, pos
            pos = end
            continue
        bad_end = pos + 1
        while bad_end < n and not (text[bad_end].isspace() or text[bad_end] in ",;[]#"):
            bad_end += 1
        raise MatrixParseError(
            f"matrix entries must be plain numbers such as -1, 0.5 or 2e-3; got {text[pos:bad_end]!r} "
            f"at {_position(text, pos)}."
        )


def parse_matrix(text: str, *, max_entries: int = MAX_ENTRIES) -> np.ndarray:
    r"""Parse typed text into a float matrix whose rows are frame vectors.

    Parameters
    ----------
    text : str
        The matrix: rows on separate lines (any of ``\n``, ``\r\n``, ``\r``) or separated by
        ``;`` (or as ``[...]`` groups),
        entries separated by spaces or commas. ``#`` starts a comment.
    max_entries : int, default 1_000_000
        Refuse larger inputs.

    Returns
    -------
    ndarray, shape (m, n)

    Raises
    ------
    MatrixParseError
        (a ``ValueError``) when the text holds anything but plain numbers, when rows have
        different lengths, or when it is empty. The message names the offending text and
        its position.

    Examples
    --------
    >>> parse_matrix("1 0\n0 1\n-1 -1").tolist()
    [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    >>> parse_matrix("[[1, 0], [0, 1.5e0]]").tolist()
    [[1.0, 0.0], [0.0, 1.5]]
    >>> parse_matrix("1 0; 0 x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    relu_frames_nb.viz.parsing.MatrixParseError: matrix entries must be plain numbers ...; got 'x' at line 1, column 8.
    """
    if not isinstance(text, str):
        raise MatrixParseError(f"text must be a string; got {type(text).__name__}.")
    if len(text) > 40 * max_entries:
        raise MatrixParseError(f"text must hold at most {max_entries} entries; got {len(text)} characters.")
    text = unify_newlines(text)  # before tokenizing, so that rows, comments and positions see one kind of line end
    rows: list[list[float]] = []
    current: list[float] = []
    depth = 0
    bracketed = False
    count = 0
    for kind, value, pos in _tokens(text):
        if kind == "num":
            current.append(value)
            count += 1
            if count > max_entries:
                raise MatrixParseError(f"text must hold at most {max_entries} entries; got more.")
        elif kind == "open":
            depth += 1
            bracketed = True
            if depth > 2:
                raise MatrixParseError(
                    f"brackets nest at most twice ([[...], [...]]); got a third level at {_position(text, pos)}."
                )
            if current:
                rows.append(current)
                current = []
        elif kind == "close":
            if depth == 0:
                raise MatrixParseError(f"brackets must balance; got an unmatched ']' at {_position(text, pos)}.")
            depth -= 1
            if current:
                rows.append(current)
                current = []
        else:  # row separator
            if depth == 2:
                raise MatrixParseError(
                    f"a row must not break inside [...]; got a row break at {_position(text, pos)}."
                )
            if current:
                rows.append(current)
                current = []
    if depth != 0:
        raise MatrixParseError("brackets must balance; got an unclosed '['.")
    if current:
        rows.append(current)
    if not rows:
        raise MatrixParseError("text must contain a matrix (rows of numbers); got no numbers.")
    lengths = sorted({len(r) for r in rows})
    if len(lengths) > 1:
        bad = next(k for k, r in enumerate(rows) if len(r) != len(rows[0]))
        layout = "[...] group" if bracketed else "row"
        raise MatrixParseError(
            f"every row must have the same number of entries; got {len(rows[0])} in row 1 and "
            f"{len(rows[bad])} in {layout} {bad + 1}."
        )
    return np.array(rows, dtype=float)
