"""One progress helper for long loops: a tqdm bar on stderr, a callback, or nothing.

Used by :func:`~relu_frames_nb.bias.sampling.sampling_bias` (samples) and the experiment
runner (tasks). tqdm is optional: without it a requested bar is silently skipped.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["Progress"]


class Progress:
    """Report ``done`` out of ``total`` as work proceeds.

    Parameters
    ----------
    progress : bool, callable or None
        A callable receives ``(done, total)`` at the start and after each :meth:`update`;
        a true value shows a tqdm bar (on stderr); a false value shows nothing; ``None``
        shows a bar only when ``expected_seconds > 2`` and stderr is a terminal.
    total : int
        Amount of work.
    initial : int
        Work already done (e.g. loaded from a cache).
    expected_seconds : float
        Estimated duration, for ``progress=None``.
    **bar
        Keyword arguments of the tqdm bar (``desc``, ``unit``, ``leave``, ``smoothing``, ...).
    """

    def __init__(self, progress: Any, total: int, *, initial: int = 0, expected_seconds: float = 0.0, **bar: Any) -> None:
        self.callback = None
        self.bar = None
        self.done = initial
        self.total = total
        if callable(progress):
            self.callback = progress
            progress(initial, total)
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
        self.bar = tqdm(total=total, initial=initial, **bar)

    def update(self, k: int = 1) -> None:
        """Record ``k`` more units of work."""
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        """Close the bar (if any)."""
        if self.bar is not None:
            self.bar.close()
