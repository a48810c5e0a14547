"""One person at the terminal: a :class:`Session` takes key names and keeps the game.

Keys are names, not bytes (``"up"``, ``"h"``, ``"enter"``, ``"3"``; see
:mod:`playahead.tools.play.input` for the decoding), so a session is tested without a
terminal. What it looks like is :mod:`playahead.tools.play.drawing`'s job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from playahead.tools.gamefile import Recorder
from playahead.tools.games import (
    TILE_ACTIONS,
    action_label,
    agent_seeds,
    build_capped_agent,
    choose,
    default_agent,
    format_values,
    get_game,
    make_env,
)
from playahead.tools.play import drawing

#: The tool named in an error about a spec over its cap.
WHERE = "playahead play"
_WASD = {"w": "up", "a": "left", "s": "down", "d": "right"}
_DELTA = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class Session:
    """One person at the terminal: keys in (:meth:`press`), text out (:meth:`screen`).

    Args:
        game: a name from :data:`playahead.tools.games.GAMES`.
        agent: planner spec for hints and autoplay (None: the game's default).
        opponent: agent spec of the other player in two-player games.
        side: the person's side in two-player games (0 moves first).
        seed: seeds the games, the agent and the opponent (None: fresh entropy).
        rules: the game's rule options, e.g. ``{"size": 4}``.
        color: keep the env's ANSI colours in :meth:`screen`.
        save: write each game's file here (:mod:`playahead.tools.gamefile`) after
            every move; the second game of the session goes to ``NAME-2.json``,
            and so on.

    Both agents are built within the caps of ``playahead hint``
    (:func:`~playahead.tools.games.capped_budget`), so a hint or an autoplay move
    ends: ``expectimax`` stops at its node budget (a fixed ``depth`` too), a planner
    without a node budget after 10 s unless its spec sets a ``time_limit``.

    Raises:
        ValueError: unknown game, rule option, agent spec or side, or a budget over
            its cap.
    """

    def __init__(
        self,
        game: str,
        agent: str | None = None,
        opponent: str = "random",
        side: int = 0,
        seed: int | None = None,
        rules: dict[str, Any] | None = None,
        color: bool = True,
        save: str | Path | None = None,
    ):
        self.game = get_game(game)
        self.rules = dict(rules or {})
        self.save = None if save is None else Path(save)
        self.env = make_env(self.game, **(rules or {}))
        if side not in (0, 1) or isinstance(side, bool):
            raise ValueError(f"side must be 0 or 1, got {side!r}")
        self.side = side if self.game.num_players == 2 else 0
        self.agent_spec = agent or default_agent(self.game)
        self.opponent_spec = opponent
        self.color = color
        self._rng = np.random.default_rng(seed)
        agent_seed, opponent_seed = agent_seeds(seed, 2)
        self.agent = build_capped_agent(self.agent_spec, agent_seed, WHERE)
        self.opponent = None
        if self.game.num_players == 2:
            self.opponent = build_capped_agent(opponent, opponent_seed, WHERE)
        self.autoplay = False
        self.quit = False
        self.games = 0
        self.new_game()

    # ----------------------------------------------------------------- state
    @property
    def done(self) -> bool:
        """True once the game is over."""
        return not self.env.action_masks().any()

    def new_game(self) -> None:
        """Start a new game (the seed of each comes from the session's generator)."""
        seed = int(self._rng.integers(2**63 - 1))
        _, self.info = self.env.reset(seed=seed)
        self.games += 1
        players = ["human", self.opponent_spec] if self.opponent else ["human"]
        self.recorder = Recorder(
            self.game.name,
            self.env,
            self.rules,
            seed,
            players[:: 1 - 2 * self.side],
            self.game_path(),
        )
        self.hint = ""
        self.message = ""
        self.history: list[str] = []
        self.cursor = 1 if self.game.name in ("nim", "chips") else 0
        if self.game.name == "tictactoe":
            self.cursor = self.env.size**2 // 2
        elif self.game.name == "connect4":
            self.cursor = 3
        self._opponent_turns()

    def game_path(self) -> Path | None:
        """Where the current game's file is written (None without ``save``)."""
        if self.save is None or self.games == 1:
            return self.save
        return self.save.with_name(f"{self.save.stem}-{self.games}{self.save.suffix}")

    def _opponent_turns(self) -> None:
        while (
            self.opponent is not None
            and not self.done
            and self.env.current_player != self.side
        ):
            action, _ = choose(self.opponent, self.env)
            self._step(action, "opponent")

    def _step(self, action: int, who: str) -> None:
        _, reward, _, _, self.info = self.recorder.step(action)
        label = action_label(self.env, action)
        gain = f" (+{reward:g})" if self.game.num_players == 1 and reward else ""
        self.history = ([f"{who}: {label}{gain}"] + self.history)[:4]

    def play(self, action: int) -> bool:
        """Play ``action`` for the person (then the opponent replies); False and a
        message if it is not legal."""
        self.hint = ""
        if self.done:
            self.message = "the game is over: n for a new game, q to quit"
            return False
        if not self.env.action_masks()[action]:
            self.message = f"{action_label(self.env, action)} is not a legal move"
            return False
        self.message = ""
        self._step(action, "you" if not self.autoplay else "autoplay")
        self._opponent_turns()
        return True

    def show_hint(self) -> None:
        """Ask the agent for every legal move's value."""
        if self.done:
            self.message = "the game is over: no hint"
            return
        _, analysis = choose(self.agent, self.env)
        if analysis is None:
            self.hint = f"{self.agent_spec} has no analyze(): no values to show"
            return
        self.hint = format_values(self.env, analysis, f"hint {self.agent_spec}")

    def tick(self) -> bool:
        """One autoplay move if autoplay is on; True if a move was played."""
        if not self.autoplay or self.done:
            return False
        action, _ = choose(self.agent, self.env)
        return self.play(action)

    # ----------------------------------------------------------------- keys
    def press(self, key: str) -> str:
        """Handle one key name and return the text to draw."""
        key = key.lower() if len(key) == 1 else key
        if key == "q":
            self.quit = True
        elif key == "h":
            self.show_hint()
        elif key == "p":
            self.autoplay = not self.autoplay
            self.message = f"autoplay {'on' if self.autoplay else 'off'}"
        elif key == "n":
            self.new_game()
        elif not self._game_key(_WASD.get(key, key)):
            self.message = f"unknown key {key!r}"
        return self.screen()

    def _game_key(self, key: str) -> bool:
        """Moves and cursor keys of the game; False if ``key`` means nothing here."""
        name = self.game.name
        n = self.env.action_space.n
        if self.game.num_players == 1:
            if key not in TILE_ACTIONS:
                return False
            self.play(TILE_ACTIONS.index(key))
            return True
        if key.isdigit() and len(key) == 1:
            action = int(key) - 1 if name in ("nim", "chips") else int(key)
            if not 0 <= action < n or (name == "tictactoe" and n > 10):
                self.message = f"no move for key {key}: {drawing.keys_help(name)}"
                return True
            self.play(action)
            return True
        if key in ("enter", "space") or (key == "down" and name == "connect4"):
            self.play(self.cursor - (name in ("nim", "chips")))
            return True
        if key not in _DELTA:
            return False
        dy, dx = _DELTA[key]
        if name == "tictactoe":
            size = self.env.size
            row, col = divmod(self.cursor, size)
            self.cursor = (row + dy) % size * size + (col + dx) % size
        elif name == "connect4":
            self.cursor = (self.cursor + dx) % n
        else:
            self.cursor = min(max(self.cursor + dx - dy, 1), n)
        return True

    def screen(self) -> str:
        """The text to draw (see :func:`playahead.tools.play.drawing.screen`)."""
        return drawing.screen(self)
