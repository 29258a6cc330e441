"""Colour-blind-safe colours shared by every plot and scene (Okabe-Ito, plus cividis).

The eight Okabe-Ito colours (Okabe & Ito 2008, "Color Universal Design") stay
distinguishable for the common colour-vision deficiencies. Frame elements cycle through
the seven non-black colours; counts of active elements use grey levels (as in the paper)
and other ordered quantities the perceptually uniform, colour-blind-safe ``cividis``. Pure Python and numpy:
importing this module does not import matplotlib.

Examples
--------
>>> from relu_frames_nb.viz import palette
>>> palette.element_color(0)
'#0072B2'
>>> palette.rgb("#ffffff").tolist()
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util.validation import as_count
from ..errors import InputError

__all__ = [
    "OKABE_ITO",
    "ELEMENT_COLORS",
    "INK",
    "MUTED",
    "DOMAIN",
    "GOOD",
    "BAD",
    "HIGHLIGHT",
    "SEQUENTIAL_CMAP",
    "COUNT_CMAP",
    "element_color",
    "element_colors",
    "categorical",
    "rgb",
    "lighten",
]

#: the eight Okabe-Ito colours by name
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

#: the order in which frame elements are coloured (yellow last: weak on white)
ELEMENT_COLORS: tuple[str, ...] = (
    OKABE_ITO["blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["orange"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["yellow"],
)

#: text, outlines and frame vectors drawn in one colour
INK = "#222222"
#: secondary lines (grid, sphere wireframe)
MUTED = "#8C8C8C"
#: the domain outline
DOMAIN = "#333333"
#: "rectifying / injective" (bluish green) and "fails" (vermillion)
GOOD = OKABE_ITO["bluish_green"]
BAD = OKABE_ITO["vermillion"]
#: a selected element, facet or point
HIGHLIGHT = OKABE_ITO["orange"]
#: colormap for ordered quantities (colour-blind safe, perceptually uniform)
SEQUENTIAL_CMAP = "cividis"
#: colormap for counts of active elements: white (none) to dark grey (many), as in the paper
COUNT_CMAP = "Greys"


def rgb(color: Any) -> np.ndarray:
    """A colour as an RGB float array in ``[0, 1]``, shape ``(3,)``.

    Parameters
    ----------
    color : str or sequence of float
        ``"#RRGGBB"`` (or ``"#RGB"``), or three numbers in ``[0, 1]``.

    Returns
    -------
    ndarray, shape (3,)
    """
    if isinstance(color, str):
        text = color.strip().lstrip("#")
        if len(text) == 3:
            text = "".join(c * 2 for c in text)
        if len(text) != 6 or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise InputError(f"color must be '#RRGGBB' or three numbers in [0, 1]; got {color!r}.")
        return np.array([int(text[k : k + 2], 16) / 255.0 for k in (0, 2, 4)])
    arr = np.asarray(color, dtype=float).reshape(-1)
    if arr.shape != (3,) or np.any(arr < 0) or np.any(arr > 1):
        raise InputError(f"color must be '#RRGGBB' or three numbers in [0, 1]; got {color!r}.")
    return arr


def _hex(v: np.ndarray) -> str:
    return "#" + "".join(f"{int(round(255 * float(c))):02X}" for c in np.clip(v, 0, 1))


def lighten(color: Any, amount: float = 0.5) -> str:
    """Mix ``color`` with white: ``amount = 0`` keeps it, ``1`` gives white.

    Examples
    --------
    >>> lighten("#000000", 0.5)
    '#808080'
    """
    if not 0.0 <= float(amount) <= 1.0:
        raise InputError(f"amount must lie in [0, 1]; got {amount}.")
    c = rgb(color)
    return _hex(c + (1.0 - c) * float(amount))


def element_color(i: int) -> str:
    """The colour of frame element ``i`` (0-based; the palette cycles)."""
    i = as_count(i, "i", minimum=0)
    return ELEMENT_COLORS[i % len(ELEMENT_COLORS)]


def element_colors(m: int) -> list[str]:
    """Colours of ``m`` frame elements, as ``"#RRGGBB"`` strings."""
    return [element_color(i) for i in range(as_count(m, "m", minimum=0))]


def categorical(k: int) -> np.ndarray:
    """``k`` distinguishable colours as an RGB array of shape ``(k, 3)``.

    The first seven are the Okabe-Ito colours; beyond that the same hues come back
    lighter and darker in turn, so neighbouring ids never share a colour. Used for
    facets and most correlated bases, where ``k`` can be in the hundreds.
    """
    k = as_count(k, "k", minimum=0)
    base = np.array([rgb(c) for c in ELEMENT_COLORS])
    out = np.empty((k, 3))
    shades = (0.0, 0.45, -0.35, 0.7, -0.55)
    for j in range(k):
        c = base[j % len(base)]
        s = shades[(j // len(base)) % len(shades)]
        out[j] = c + (1.0 - c) * s if s >= 0 else c * (1.0 + s)
    return out
