"""Child processes that never outlive their parent (evaluation workers, search
workers of ``playahead serve``), the signal handlers that let a training run
stop with a checkpoint, and commands whose reader may stop early (``| head``)."""

from __future__ import annotations

import contextlib
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


def on_signals(signals, handler):
    """Handle ``signals`` with ``handler`` and return a function that puts the
    previous handlers back. Only the main thread can set handlers; called from
    another, it changes nothing (and the function it returns does nothing)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {sig: signal.signal(sig, handler) for sig in signals}

    def restore() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)

    return restore


def stop_on_sigterm():
    """Make SIGTERM (``kill``, a batch scheduler's notice) stop a training run the way
    Ctrl-C does, by raising :class:`KeyboardInterrupt` in the main thread; return a
    function that puts the old handler back."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return on_signals((signal.SIGTERM,), interrupt)


@contextlib.contextmanager
def reader_may_leave():
    """Let the reader of standard output stop early (``playahead ... | head``): what
    the command would still print is dropped, with no traceback, and the process
    exits with 141, as a command that SIGPIPE ended does."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the flush at exit then goes nowhere
        raise SystemExit(141) from None
