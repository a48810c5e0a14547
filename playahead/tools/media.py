"""``playahead media``: the README's pictures.

* ``threes.gif``: a whole game of Threes playing itself, sped up (frames evenly spread
  over the game, ending on the final board), from the env's ``rgb_array`` renderer,
  written with Pillow.
* ``serve.png``: a screenshot of the ``playahead serve`` page after a few moves and a
  hint, taken with headless Chromium through Playwright (``pip install playwright``;
  a Chromium binary such as Debian's ``/usr/bin/chromium``; ``playwright install`` is
  not needed).
* ``review.png``, ``review-phone.png``: the page's Review view of a short Threes game
  of fixed swipes (the evaluation graph, the move list, and the costliest move's
  board and values), the same way, at desktop and phone (390 x 844) width.
* ``assist.png``, ``assist-phone.png``: the page following a Threes game in Assist (a
  typed-in board and one entry): the board, the entry box and the suggested move,
  at desktop and phone width.

Same seed, same GIF: the game and the agent are seeded from ``--seed``.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Chromium flags for headless runs in containers and CI.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
CHROMIUM = "/usr/bin/chromium"
_CHANGED = "b => document.querySelector('#board').dataset.board !== b"
_MOVES = (
    "n => (document.querySelector('#autoplay').ariaPressed === 'false') || "
    "Number((/moves (\\d+)/.exec(document.querySelector('#status').innerText) "
    "|| [0, 0])[1]) >= n"
)


def game_frames(
    game: str = "threes",
    agent: str = "expectimax",
    *,
    seed: int = 0,
    n_frames: int = 60,
    every: int | None = None,
    rules: dict[str, Any] | None = None,
) -> list[np.ndarray]:
    """Frames of a game played by ``agent`` (every side of two-player games).

    Args:
        game: a name from :data:`playahead.tools.games.GAMES`.
        agent: agent spec.
        seed: seeds the game and the agent.
        n_frames: at most this many frames (the first is the starting position).
        every: moves between frames: the first ``n_frames`` frames of the game. None
            (the default): the whole game, sped up: ``n_frames`` frames evenly spread
            over it, the last one the final position.
        rules: the game's rule options.

    Returns:
        ``uint8[H, W, 3]`` frames from the env's ``rgb_array`` renderer; fewer than
        ``n_frames`` if the game is shorter (the last frame is then the end).

    Raises:
        ValueError: unknown game or agent, a budget over the tools' caps (as in
            ``watch``: :func:`playahead.tools.games.build_capped_agent`),
            ``n_frames < 1`` or ``every < 1``.
    """
    from playahead.tools.games import agent_seeds, build_capped_agent, make_env

    if n_frames < 1 or (every is not None and every < 1):
        raise ValueError(f"n_frames and every must be >= 1, got {n_frames}, {every}")
    env = make_env(game, render_mode="rgb_array", **(rules or {}))
    env_seed, agent_seed = agent_seeds(seed, 2)
    player = build_capped_agent(agent, agent_seed, "playahead media")
    env.reset(seed=env_seed)
    if every is None:  # play it all, keeping the states (small); draw a few of them
        states = [env.clone_state()]
        while env.action_masks().any():
            env.step(player.act(env))
            states.append(env.clone_state())
        picks = np.unique(np.linspace(0, len(states) - 1, n_frames).round())
        frames = []
        for i in picks.astype(int):
            env.restore_state(states[i])
            frames.append(env.render())
        return frames
    frames = [env.render()]
    while len(frames) < n_frames and env.action_masks().any():
        for _ in range(every):
            if not env.action_masks().any():
                break
            env.step(player.act(env))
        frames.append(env.render())
    return frames


def save_gif(
    frames: Sequence[np.ndarray], path: str | Path, fps: float = 5, hold: float = 2.0
) -> Path:
    """Write ``frames`` (``uint8[H, W, 3]`` each) as a looping GIF.

    Args:
        frames: the pictures, all the same size.
        path: the output file.
        fps: frames per second.
        hold: seconds the last frame stays before the loop restarts.
    """
    from PIL import Image

    if not frames:
        raise ValueError("no frames to write")
    if fps <= 0:
        raise ValueError(f"fps must be > 0, got {fps}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in frames]
    step = round(1000 / fps)
    durations = [step] * (len(images) - 1) + [max(step, round(1000 * hold))]
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=True,
    )
    return path


#: Screen sizes of the screenshots: a desktop browser and a phone (CSS pixels).
DESKTOP = (1100, 680)
PHONE = (390, 844)


class Browser:
    """Headless Chromium beside a fresh ``playahead serve`` on a free loopback port
    (a context manager: both close on exit); :meth:`page` opens a page of a size.

    Raises:
        ValueError: Playwright is not installed or ``chromium`` does not exist.
    """

    def __init__(self, chromium: str = CHROMIUM):
        try:
            from playwright.sync_api import TimeoutError as PageTimeout
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise ValueError(
                "the screenshot needs Playwright: pip install playwright (and a "
                "Chromium, e.g. apt-get install -y chromium)"
            ) from None
        if not Path(chromium).exists():
            raise ValueError(f"no Chromium at {chromium}; apt-get install -y chromium")
        self.chromium, self.timeout, self._playwright = chromium, PageTimeout, None
        self._sync_playwright = sync_playwright

    def __enter__(self) -> Browser:
        from playahead.tools.serve.app import start_in_thread
        from playahead.tools.serve.loadtest import wait_ready

        self._stack = contextlib.ExitStack()
        try:
            server, self.url = start_in_thread()
            self._stack.callback(server.shutdown)
            wait_ready(self.url)  # a cold numba cache compiles in the workers first
            pw = self._stack.enter_context(self._sync_playwright())
            self._browser = pw.chromium.launch(
                executable_path=self.chromium, args=list(CHROMIUM_ARGS)
            )
            self._stack.callback(self._browser.close)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def page(self, size: tuple[int, int]):
        """A new page ``size[0]`` x ``size[1]`` CSS pixels (a phone's ``size``
        gets a phone's touch and device scale)."""
        phone = size[0] < 600
        return self._browser.new_page(
            viewport={"width": size[0], "height": size[1]},
            device_scale_factor=2 if phone else 1,
            is_mobile=phone,
            has_touch=phone,
        )


@contextlib.contextmanager
def browser_page(chromium: str, size: tuple[int, int]):
    """``(page, url, timeout error class)``: a headless Chromium page beside a fresh
    ``playahead serve`` (:class:`Browser`), both closed afterwards.

    Raises:
        ValueError: Playwright is not installed or ``chromium`` does not exist.
    """
    with Browser(chromium) as browser:
        yield browser.page(size), browser.url, browser.timeout


@contextlib.contextmanager
def _page_of(browser: Browser | None, chromium: str, size: tuple[int, int]):
    """A page of ``browser``, or of a browser of its own when None."""
    if browser is None:
        with browser_page(chromium, size) as opened:
            yield opened
        return
    page = browser.page(size)
    try:
        yield page, browser.url, browser.timeout
    finally:
        page.close()


def _press(page, keys: Sequence[str], timeout) -> None:
    """Press ``keys`` on the page; a key that does not move just times out."""
    for key in keys:
        before = page.get_attribute("#board", "data-board")
        page.keyboard.press(key)
        try:
            page.wait_for_function(_CHANGED, arg=before, timeout=10_000)
        except timeout:
            continue


def serve_screenshot(
    path: str | Path,
    *,
    game: str = "threes",
    seed: int = 3,
    keys: Sequence[str] = ("ArrowLeft", "ArrowUp"),
    autoplay_moves: int = 0,
    hint: bool = True,
    chromium: str = CHROMIUM,
    size: tuple[int, int] = DESKTOP,
    browser: Browser | None = None,
) -> Path:
    """A PNG of the ``playahead serve`` page after ``keys``, ``autoplay_moves``
    moves of autoplay, and a hint.

    Starts the server on a free loopback port for the duration of the call (or uses
    ``browser``'s).

    Raises:
        ValueError: Playwright is not installed or ``chromium`` does not exist.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _page_of(browser, chromium, size) as (page, url, timeout):
        page.goto(f"{url}?game={game}&seed={seed}")
        page.wait_for_selector("#board > *")
        _press(page, keys, timeout)
        if autoplay_moves > 0:
            page.click("#autoplay")
            page.wait_for_function(_MOVES, arg=autoplay_moves, timeout=120_000)
            if page.get_attribute("#autoplay", "aria-pressed") == "true":
                page.click("#autoplay")
            page.wait_for_function("!document.body.classList.contains('busy')")
        if hint:
            page.click("#hint-button")
            # a cold numba cache compiles the search in the worker first
            page.wait_for_selector("#hint tr.best", timeout=240_000)
        page.screenshot(path=str(path))
    return path


#: The swipes of the reviewed game in ``review.png`` (fixed, so some moves cost points).
REVIEW_KEYS = ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp") * 6


def review_screenshot(
    path: str | Path,
    *,
    seed: int = 3,
    keys: Sequence[str] = REVIEW_KEYS,
    chromium: str = CHROMIUM,
    size: tuple[int, int] = (1100, 1400),
    browser: Browser | None = None,
) -> Path:
    """A PNG of the page's Review panel: a Threes game of ``keys`` (an illegal swipe
    is skipped) reviewed by the default search, its costliest move clicked.

    Raises:
        ValueError: Playwright is not installed or ``chromium`` does not exist.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _page_of(browser, chromium, size) as (page, url, timeout):
        page.goto(f"{url}?game=threes&seed={seed}")
        page.wait_for_selector("#board > *")
        _press(page, keys, timeout)
        page.keyboard.press("r")
        page.wait_for_function(
            "() => document.querySelector('#review-summary').innerText",
            timeout=600_000,
        )
        costliest = page.evaluate(
            "() => S.review.rows.reduce((b, r, i, rows) => "
            "r.loss > rows[b].loss ? i : b, 0)"
        )
        page.click(f"#review-moves tr[data-index='{costliest}']")
        page.wait_for_selector("#review-position:not([hidden])")
        page.locator("#review-panel").screenshot(path=str(path))
    return path


#: The Threes board typed into Assist for ``assist.png``, its preview, and the
#: entries that follow (each says the swipe, the line and the next card).
ASSIST_START = ("1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1", "2")
ASSIST_ENTRIES = ("h12",)


def assist_screenshot(
    path: str | Path,
    *,
    chromium: str = CHROMIUM,
    size: tuple[int, int] = DESKTOP,
    browser: Browser | None = None,
) -> Path:
    """A PNG of the page following a Threes game in Assist: the board of
    :data:`ASSIST_START` typed in, :data:`ASSIST_ENTRIES` entered, the entry box
    under the board beside the suggested move (the screen as it is scrolled then).

    Raises:
        ValueError: Playwright is not installed or ``chromium`` does not exist.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _page_of(browser, chromium, size) as (page, url, _):
        page.goto(f"{url}?game=threes")
        page.wait_for_selector("#board > *")
        page.fill("#assist-board", ASSIST_START[0])
        page.fill("#assist-next", ASSIST_START[1])
        page.click("#assist-start")
        page.wait_for_function("() => S.assist && S.view.hint", timeout=240_000)
        for n, entry in enumerate(ASSIST_ENTRIES, start=2):
            page.fill("#assist-entry", entry)
            page.press("#assist-entry", "Enter")
            page.wait_for_function(
                f"() => S.assist.stack.length === {n} && S.view.hint", timeout=240_000
            )
        page.evaluate("() => document.querySelector('#table').scrollIntoView()")
        page.screenshot(path=str(path))
    return path


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead media``."""
    parser.add_argument("--out", default="docs", help="output folder (default docs/)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the game (0)")
    parser.add_argument(
        "--agent", default="expectimax", help="agent of the GIF (default expectimax)"
    )
    parser.add_argument(
        "--frames", type=int, default=80, help="frames in the GIF (default 80)"
    )
    parser.add_argument(
        "--every",
        type=int,
        default=None,
        help="moves between GIF frames (default: the whole game, sped up to --frames)",
    )
    parser.add_argument(
        "--fps", type=float, default=8, help="GIF frames per second (default 8)"
    )
    parser.add_argument(
        "--chromium", default=CHROMIUM, help=f"Chromium binary (default {CHROMIUM})"
    )
    parser.add_argument(
        "--no-screenshot", action="store_true", help="only write the GIF"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead media``."""
    out = Path(args.out)
    frames = game_frames(
        "threes", args.agent, seed=args.seed, n_frames=args.frames, every=args.every
    )
    gif = save_gif(frames, out / "threes.gif", fps=args.fps)
    print(f"wrote {gif} ({len(frames)} frames, {gif.stat().st_size // 1024} KiB)")
    if args.no_screenshot:
        return 0
    with Browser(args.chromium) as browser:
        shots = [
            serve_screenshot(out / "serve.png", autoplay_moves=40, browser=browser),
            review_screenshot(out / "review.png", browser=browser),
            review_screenshot(out / "review-phone.png", size=PHONE, browser=browser),
            assist_screenshot(out / "assist.png", browser=browser),
            assist_screenshot(out / "assist-phone.png", size=PHONE, browser=browser),
        ]
    for png in shots:
        print(f"wrote {png}")
    return 0
