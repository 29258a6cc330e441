"""One BLAS thread where many small factorizations run (threadpoolctl, when installed).

The rank tests, SVDs and small solves of the package work on matrices of a few hundred rows;
on a busy two-core machine a multi-threaded BLAS spends far longer waking its threads than
such a factorization takes (measured: a 2000 x 200 layer's rectifying test on 2000 points,
11.3 s with OpenBLAS's default threads, 1.5 s with one thread, under load). Without
threadpoolctl the limits are no-ops and nothing changes.
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["one_blas_thread", "limit_blas_threads"]

_CONTROLLER: Any = None


def _controller() -> Any:
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        except ImportError:
            _CONTROLLER = False
    return _CONTROLLER


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which BLAS uses one thread (a no-op without threadpoolctl)."""
    ctl = _controller()
    return ctl.limit(limits=1, user_api="blas") if ctl else contextlib.nullcontext()


def limit_blas_threads() -> None:
    """For the rest of this process, BLAS uses one thread (worker processes; a no-op without threadpoolctl)."""
    ctl = _controller()
    if ctl:
        ctl.limit(limits=1, user_api="blas")
