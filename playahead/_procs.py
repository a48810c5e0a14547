"""Child processes that never outlive their parent (evaluation workers, search
workers of ``playahead serve``)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """End this process when ``parent_pid`` ends (call first thing in a child).

    On Linux the kernel sends SIGKILL when the parent dies (``prctl
    PR_SET_PDEATHSIG``), even after ``kill -9``; elsewhere, and as a second line, a
    daemon thread checks the parent's pid every second.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(1)

    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="watch-parent").start()
