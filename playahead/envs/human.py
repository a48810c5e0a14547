"""``render_mode="human"`` for playahead's envs, drawn like ``rgb_array``.

:func:`render_human` shows the env's ``rgb_array`` picture in a matplotlib window when
a display is available (one window per env, updated in place), and otherwise prints
the env's ``ansi`` board to stdout. Either way it then waits ``1 / render_fps``
seconds, so a human can follow the game. Envs call it from ``render()`` when
``render_mode == "human"`` (and ``GameEnv.reset``/``step`` call ``render()`` in that
mode); :func:`close_human` closes the window.

The frames come from the env's own renderer: the render mode is switched to
``"rgb_array"`` (or ``"ansi"``) for the call and switched back.
"""

from __future__ import annotations

import os
import sys
import time
import weakref

import numpy as np

#: matplotlib backends that cannot open a window.
_NON_INTERACTIVE = {"agg", "pdf", "ps", "svg", "pgf", "cairo", "template"}
# env -> its viewer; kept outside the env so that copies and pickles never carry it
_VIEWERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def has_display() -> bool:
    """True when a window can be opened (macOS, Windows, or X11/Wayland on Linux)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def frame(env, mode: str):
    """``env.render()`` in ``mode`` (``"rgb_array"``: ``uint8[H, W, 3]``; ``"ansi"``:
    str), whatever the env's own render mode is."""
    saved = env.render_mode
    env.render_mode = mode
    try:
        return env.render()
    finally:
        env.render_mode = saved


class WindowViewer:
    """A matplotlib figure showing ``uint8[H, W, 3]`` frames, updated in place.

    Args:
        title: the window title.
        figure: a figure to draw into (None: a new pyplot window).
    """

    def __init__(self, title: str = "playahead", figure=None):
        if figure is None:
            import matplotlib.pyplot as plt

            plt.ion()
            figure = plt.figure(title)
        self.figure = figure
        self.axes = figure.add_axes((0, 0, 1, 1))
        self.axes.set_axis_off()
        self.image = None

    @property
    def interactive(self) -> bool:
        """True when the figure's backend can show a window."""
        import matplotlib

        backend = str(matplotlib.get_backend()).lower().removeprefix("module://")
        return backend not in _NON_INTERACTIVE

    def show(self, rgb: np.ndarray) -> None:
        """Draw ``rgb: uint8[H, W, 3]``."""
        if self.image is None or self.image.get_array().shape != rgb.shape:
            self.axes.clear()
            self.axes.set_axis_off()
            self.image = self.axes.imshow(rgb, interpolation="nearest")
            height, width = rgb.shape[:2]
            self.figure.set_size_inches(width / 100, height / 100)
        else:
            self.image.set_data(rgb)
        self.figure.canvas.draw_idle()
        self.figure.canvas.flush_events()

    def close(self) -> None:
        """Close the window."""
        import matplotlib.pyplot as plt

        plt.close(self.figure)


class TextViewer:
    """Prints each frame's ANSI text (clearing the screen first on a terminal)."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stdout

    def show(self, text: str) -> None:
        """Print ``text``."""
        clear = "\x1b[H\x1b[2J" if self.stream.isatty() else "\n"
        self.stream.write(clear + text.rstrip("\n") + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Nothing to close."""


def _make_viewer(env):
    if has_display():
        try:
            viewer = WindowViewer(title=getattr(env, "game_name", "playahead"))
        except ImportError:
            return TextViewer()
        if viewer.interactive:
            return viewer
        viewer.close()
    return TextViewer()


def render_human(env) -> None:
    """Show ``env``'s position to a human, then wait ``1 / render_fps`` seconds.

    Returns None, as Gymnasium's ``render()`` does in ``"human"`` mode.
    """
    viewer = _VIEWERS.get(env)
    if viewer is None:
        viewer = _VIEWERS[env] = _make_viewer(env)
    if isinstance(viewer, WindowViewer):
        viewer.show(frame(env, "rgb_array"))
    else:
        viewer.show(frame(env, "ansi"))
    fps = env.metadata.get("render_fps") or 0
    if fps > 0:
        time.sleep(1.0 / fps)


def close_human(env) -> None:
    """Close ``env``'s window, if :func:`render_human` opened one."""
    viewer = _VIEWERS.pop(env, None)
    if viewer is not None:
        viewer.close()
