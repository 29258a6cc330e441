"""Numbers and vectors for people (verdict lines, explorers, reports): one formatting home."""

from __future__ import annotations

from math import floor, log10
from typing import Any

import numpy as np

__all__ = ["fmt", "vec", "count_text"]


def fmt(v: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits, a true minus sign, ``any``/``−∞`` for infinities."""
    if not np.isfinite(v):
        return "any" if v > 0 else "−∞"
    return f"{v:.{digits}g}".replace("-", "−")


def vec(v: Any, digits: int = 3, *, limit: int | None = None) -> str:
    """A vector as ``(a, b, c)`` with :func:`fmt` entries; past ``limit`` entries the first four and ``…`` (n in all)."""
    v = np.asarray(v).ravel()
    if limit is not None and v.size > limit:
        return "(" + ", ".join(fmt(float(c), digits) for c in v[:4]) + f", … ({v.size} coordinates))"
    return "(" + ", ".join(fmt(float(c), digits) for c in v) + ")"


def count_text(count: int) -> str:
    """A count of subsets with three significant digits, as ``format(count, ".3g")`` writes it, for any size.

    A binomial coefficient such as C(1568, 784) is far beyond a float (about 1e308 at most), so
    ``.3g`` on it raises ``OverflowError``; beyond that range the digits come from ``log10`` of
    the integer itself, which Python computes for integers of any size.

    Examples
    --------
    >>> from math import comb
    >>> count_text(25_000_000), count_text(comb(1568, 784))
    ('2.5e+07', '2.09e+470')
    """
    count = int(count)
    if count.bit_length() < 1000:  # below about 1e301: a float holds it
        return f"{count:.3g}"
    exponent = floor(log10(count))
    mantissa = 10 ** (log10(count) - exponent)
    if round(mantissa, 2) >= 10:  # 9.996e+k rounds to 1e+(k+1)
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.3g}e+{exponent}"
