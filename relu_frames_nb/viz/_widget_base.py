"""Shared machinery of the explorers: the error area, the observer guard, the static PNG
fallback, PNG output, zoo presets and the domain controls (private; see :mod:`.widgets`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
import traceback
from typing import Any, Callable

import ipywidgets as W
import numpy as np

from .. import zoo
from .._util.validation import as_count
from ..domains import Domain, parse_domain
from ..errors import InputError, ReluFramesError
from . import palette
from ._png import STILL_CAPTION, figure_png, with_static_png

# ---------------------------------------------------------------------------------
# Shared machinery
# ---------------------------------------------------------------------------------


def presets(n: int) -> list[str]:
    r"""Names of the zoo frames for :math:`\mathbb{R}^n` (see :func:`relu_frames_nb.zoo.names`).

    Examples
    --------
    >>> "mercedes-benz" in presets(2), "icosahedron" in presets(3)
    (True, True)
    """
    n = as_count(n, "n")
    return [name for name in zoo.names() if zoo.get(name).n == n]


def _guard(method: Callable) -> Callable:
    """Run an observer; show any exception in the widget's error area instead of losing it."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every error must reach the user
            self._report_error(exc)
            return None

    return wrapper


class _ErrorArea:
    """Mixin: an ``Output`` widget that lists errors, plus ``error_text`` for tests."""

    errors: W.Output
    error_text: str
    error_count: int

    def _init_errors(self) -> None:
        self.errors = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors.add_class("rfnb-errors")
        self.error_text = ""
        self.error_count = 0

    def _report_error(self, exc: BaseException) -> None:
        user_error = isinstance(exc, (ValueError, ReluFramesError))
        msg = f"{type(exc).__name__}: {exc}"
        detail = msg if user_error else "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.error_text = msg
        self.error_count += 1
        self.errors.outputs = (
            {"output_type": "display_data", "metadata": {},
             "data": {"text/html": f'<div style="color:{palette.BAD}"><b>Error</b>: {html.escape(msg)}</div>',
                      "text/plain": msg}},
            *(() if user_error else ({"output_type": "stream", "name": "stderr", "text": detail},)),
        )  # fmt: skip

    def clear_errors(self) -> None:
        """Empty the error area."""
        self.error_text = ""
        self.errors.outputs = ()


def widget_digest(widget: W.Widget) -> str:
    """A digest of everything a front-end draws from ``widget``: its synced traits and those of every widget it refers to.

    Two equal digests mean the same controls, values, pictures (the PNG in an ``Output``) and
    3-D scene (every buffer of the pythreejs geometry), so a student sees the same thing;
    model ids do not enter, only contents.

    Parameters
    ----------
    widget : ipywidgets.Widget

    Returns
    -------
    str
        A SHA-256 hex digest.
    """
    memo: dict[int, str] = {}
    skip = {"comm", "keys", "log", "_view_count"}

    def enc(v: Any) -> bytes:
        if isinstance(v, W.Widget):
            return walk(v).encode()
        if isinstance(v, np.ndarray):
            return v.dtype.str.encode() + repr(v.shape).encode() + np.ascontiguousarray(v).tobytes()
        if isinstance(v, (bytes, bytearray, memoryview)):
            return bytes(v)
        if isinstance(v, (list, tuple)):
            return b"[" + b",".join(enc(x) for x in v) + b"]"
        if isinstance(v, dict):
            return b"{" + b",".join(repr(k).encode() + b":" + enc(v[k]) for k in sorted(v, key=repr)) + b"}"
        return repr(v).encode()

    def walk(w: W.Widget) -> str:
        if id(w) in memo:
            return memo[id(w)]
        memo[id(w)] = "(cycle)"
        h = hashlib.sha256(f"{type(w).__module__}.{type(w).__name__}".encode())
        for name in sorted(set(w.keys) - skip):
            h.update(name.encode() + b"=" + enc(getattr(w, name, None)) + b";")
        memo[id(w)] = h.hexdigest()
        return memo[id(w)]

    return walk(widget)


class _StateDigest:
    """Mixin: :meth:`state_digest`, to check that driving an explorer and undoing it restores what is shown."""

    def state_digest(self) -> str:
        """A digest of everything shown (controls, picture, 3-D scene); see :func:`widget_digest`.

        Examples
        --------
        >>> from relu_frames_nb.viz.widgets import FrameExplorer2D
        >>> ex = FrameExplorer2D(offset=-0.6, resolution=41, dpi=30)
        >>> first = ex.state_digest()
        >>> ex.offset.value = -0.45
        >>> ex.state_digest() == first
        False
        >>> ex.offset.value = -0.6
        >>> ex.state_digest() == first
        True
        """
        return widget_digest(self)  # type: ignore[arg-type]


class _StaticFallback:
    """Carry a still picture of the current state in the widget's display bundle.

    Front-ends with a widget manager (JupyterLab, Notebook 7, Voila) prefer the widget view; a
    reader without a kernel (GitHub, nbviewer without widget state, a PDF export, the book)
    gets the PNG instead of an empty cell, captioned :data:`static_caption` on a band above
    it (see :func:`relu_frames_nb.viz._png.still_picture`) so that it does not pass for a
    live widget without controls. Set ``static_fallback = False`` on an instance to leave it
    out, ``static_caption = None`` for the bare picture.
    """

    static_fallback = True
    static_caption: str | None = STILL_CAPTION

    def _static_png(self) -> bytes | None:
        return getattr(self, "last_png", None)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if not self.static_fallback:
            return bundle
        return with_static_png(bundle, self._static_png, caption=self.static_caption)


def _png(fig: Any, dpi: int) -> bytes:
    return figure_png(fig, dpi)


def _show_png(out: W.Output, png: bytes, text: str = "figure") -> None:
    out.outputs = (
        {"output_type": "display_data", "metadata": {},
         "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": text}},
    )  # fmt: skip


def _element_options(m: int) -> list[tuple[str, int]]:
    return [(f"φ{i + 1}", i) for i in range(m)]


_DOMAINS = ("ball", "sphere", "shell", "positive ball", "R^n")


#: the explorers' domain menu, spelled for :func:`relu_frames_nb.domains.parse_domain`
_SPELLING = {"ball": "ball:{r!r}", "sphere": "sphere:{r!r}", "shell": "shell:{s!r},{r!r}",
             "positive ball": "positive-ball:{r!r}", "R^n": "real-space"}  # fmt: skip


def _make_domain(kind: str, n: int, r: float, s: float) -> Domain:
    if kind not in _SPELLING:
        raise InputError(f"domain must be one of {_DOMAINS}; got {kind!r}.")
    return parse_domain(_SPELLING[kind].format(r=float(r), s=float(s)), n, name="the domain")


def _strip_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)
