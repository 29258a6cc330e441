"""Numbers and vectors for people (verdict lines, explorers, reports): one formatting home."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fmt", "vec"]


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
