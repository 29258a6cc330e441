"""Child processes that never outlive their parent.

:func:`die_with_parent` runs first in a child (a forked MILP solve, an experiment worker):
on Linux the kernel sends it SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``), and on
every platform a watcher thread ends it within a tenth of a second once its parent is gone
(the parent's pid changes). The child also ignores Ctrl-C: the terminal sends SIGINT to the
whole process group, and the parent, which handles it, stops the child itself.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, *, poll: float = 0.1) -> None:
    """Make the calling process end as soon as ``parent`` (its parent's pid) is gone."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except Exception:  # pragma: no cover - no prctl: the watcher below still works
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
