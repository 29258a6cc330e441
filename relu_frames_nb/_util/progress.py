"""The one progress protocol of the package: a tqdm bar on stderr, a callback, or nothing.

Every function with a ``progress`` argument accepts the same values:

* ``None`` (the default): a bar only when the work is expected to be long and stderr is a
  terminal (so notebooks, pipes and tests stay quiet);
* ``True`` / ``False``: always / never a bar;
* a callable: called with one ``dict`` per update, holding at least ``done``, ``total``,
  ``unit`` and ``desc``, plus what the caller reports (``stage``, ``lower``, ``upper``, ...).

tqdm is optional: without it a requested bar is skipped.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ..errors import InputError

__all__ = ["Progress", "as_progress"]


def as_progress(progress: Any, name: str = "progress") -> Any:
    """Validate a ``progress`` argument (None, a bool or a callable)."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise InputError(f"{name} must be None, True, False or a callable taking one dict; got {progress!r}.")


class Progress:
    """Report ``done`` out of ``total`` as work proceeds (see the module docstring).

    Parameters
    ----------
    progress : None, bool or callable
    total : float
        Amount of work (items, or seconds for time-bounded work).
    initial : float
        Work already done (e.g. loaded from a cache).
    expected_seconds : float
        Estimated duration, for ``progress=None``.
    unit, desc : str
        Unit of ``done`` and a short description (also passed to the callback).
    info : dict, optional
        What the first update reports besides the counts (e.g. ``{"stage": "start"}``).
    **bar
        Further keyword arguments of the tqdm bar (``leave``, ``smoothing``, ...).
    """

    def __init__(
        self,
        progress: Any,
        total: float,
        *,
        initial: float = 0,
        expected_seconds: float = 0.0,
        unit: str = "it",
        desc: str = "",
        info: dict | None = None,
        **bar: Any,
    ) -> None:
        progress = as_progress(progress)
        self.callback = progress if callable(progress) and not isinstance(progress, bool) else None
        self.bar = None
        self.done = initial
        self.total = total
        self.unit, self.desc = unit, desc
        self.info: dict = dict(info or {})
        self._last = 0.0
        if self.callback is not None:
            self._emit()
            return
        if progress is None:
            show = expected_seconds > 2.0 and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
        else:
            show = bool(progress)
        if not show:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - progress bars are optional
            return
        self.bar = tqdm(total=total, initial=initial, unit=unit, desc=desc or None, file=sys.stderr, **bar)

    def _emit(self) -> None:
        if self.callback is not None:
            self.callback({"done": self.done, "total": self.total, "unit": self.unit, "desc": self.desc, **self.info})

    def update(self, k: float = 1) -> None:
        """Record ``k`` more units of work."""
        self.set(self.done + k)

    def set(self, done: float, *, force: bool = False, **info: Any) -> None:
        """Set the amount done (absolute) and what else the caller reports (shown after the bar).

        Bars are redrawn at most ten times a second unless ``force``; a callback hears every call.
        """
        self.done = done
        if info:
            self.info.update(info)
        if self.callback is not None:
            self._emit()
            return
        if self.bar is None:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        self.bar.n = min(done, self.total) if self.total else done
        if self.info:
            self.bar.set_postfix_str(", ".join(f"{k} {v}" for k, v in self.info.items() if v is not None), refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        """Close the bar (if any)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
