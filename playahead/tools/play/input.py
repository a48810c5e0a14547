"""The terminal side of ``playahead play``: key bytes to key names, and the tty loop.

:func:`decode_keys` turns what a terminal sends into the key names a
:class:`~playahead.tools.play.session.Session` takes; :func:`run_tty` puts the terminal
in cbreak mode, feeds keys to the session, redraws, and runs autoplay on a timer.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from playahead.tools.games import CLEAR

if TYPE_CHECKING:
    from playahead.tools.play.session import Session

_ESCAPES = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
}
_SINGLE = {b"\r": "enter", b"\n": "enter", b" ": "space", b"\x7f": "backspace"}


def decode_keys(data: bytes) -> list[str]:
    """Key names in the bytes a terminal sent: ``b"\\x1b[Aq"`` -> ``["up", "q"]``."""
    keys, i = [], 0
    while i < len(data):
        three = data[i : i + 3]
        if three in _ESCAPES:
            keys.append(_ESCAPES[three])
            i += 3
            continue
        one = data[i : i + 1]
        if one == b"\x1b":
            keys.append("escape")
        elif one in _SINGLE:
            keys.append(_SINGLE[one])
        else:
            keys.append(one.decode("latin-1"))
        i += 1
    return keys


def run_tty(session: Session, fd: int, out, autoplay_delay: float = 0.25) -> None:
    """Play ``session`` on the terminal whose input is ``fd`` and output ``out``.

    The terminal is put in cbreak mode (keys arrive one by one, Ctrl-C still
    interrupts) and restored on exit. While autoplay is on, the agent moves every
    ``autoplay_delay`` seconds unless a key arrives first.
    """
    import select
    import termios
    import tty

    def draw(text: str) -> None:
        out.write(CLEAR + text)
        out.flush()

    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        draw(session.screen())
        while not session.quit:
            waiting = session.autoplay and not session.done
            timeout = autoplay_delay if waiting else None
            ready, _, _ = select.select([fd], [], [], timeout)
            if ready:
                data = os.read(fd, 64)
                if not data:
                    break
                for key in decode_keys(data):
                    session.press(key)
                    if session.quit:
                        break
            else:
                session.tick()
            draw(session.screen())
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
