"""Shared machinery of the explorers: the error area, the observer guard, the static PNG
fallback, PNG output, zoo presets and the domain controls (private; see :mod:`.widgets`).
"""

from __future__ import annotations

import base64
import functools
import html
import traceback
from typing import Any, Callable

import ipywidgets as W

from .._format import fmt as _fmt  # noqa: F401 - re-used by the explorers
from .._format import vec as _vec  # noqa: F401
from .._validation import as_count
from ..domains import Domain, parse_domain
from ..errors import InputError, ReluFramesError
from . import palette
from ._png import figure_png, with_static_png

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
    from .. import zoo

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


class _StaticFallback:
    """Carry a PNG of the current picture in the widget's display bundle.

    Front-ends with a widget manager (JupyterLab, Notebook 7, Voila) prefer the widget view; a
    reader without a kernel (GitHub, nbviewer without widget state, a PDF export) gets the PNG
    instead of an empty cell. Set ``static_fallback = False`` on an instance to leave it out.
    """

    static_fallback = True

    def _static_png(self) -> bytes | None:
        return getattr(self, "last_png", None)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        return with_static_png(bundle, self._static_png) if self.static_fallback else bundle


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
    import re

    return re.sub(r"<[^>]+>", "", text)
