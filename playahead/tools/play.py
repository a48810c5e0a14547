"""``playahead play``: play a game in the terminal, with hints from a planner.

The terminal logic is a pure :class:`Session`: it takes key names (``"up"``, ``"h"``,
``"enter"``, ``"3"``...) and returns the text to draw, so it is tested without a
terminal. :func:`run_tty` is the thin loop around it: raw key bytes in (decoded by
:func:`decode_keys`), ANSI text out, and a timer for autoplay.

Keys (every game): ``h`` shows the hint (each legal move's value from ``--agent``),
``p`` toggles autoplay (``--agent`` plays your moves), ``n`` starts a new game, ``q``
quits.

* Threes, 2048: arrow keys or ``w``/``a``/``s``/``d`` slide the tiles.
* Tic-tac-toe: the digit of a cell (as drawn on the empty cells; boards up to 3x3)
  marks it; or arrows/``wasd`` move the cursor and Enter/space marks the cell under it.
* Connect Four: digits ``0``-``6`` drop a disc in that column; or left/right move the
  cursor and Enter/space/down drops.
* Nim, Chips: digits ``1``-``9`` take that many; or up/down (left/right) change the
  amount and Enter/space takes it.

``w``/``a``/``s``/``d`` are moves, so autoplay is ``p`` (not ``a``).

This module also holds the game table shared by ``playahead watch`` and
``playahead serve``: :data:`GAMES`, :func:`make_env`, :func:`action_label`,
:func:`format_values`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import re
import sys
from typing import Any

import numpy as np

from playahead.agents import Analysis


@dataclasses.dataclass(frozen=True)
class Game:
    """A game the user-facing tools know.

    Attributes:
        name: the short name on the command line, e.g. ``"connect4"``.
        env_id: the Gymnasium id, e.g. ``"ConnectFour-v0"``.
        entry_point: ``"module:Class"`` of the env.
        num_players: 1 or 2.
        rules: the env's rule options (name -> type) the tools accept.
        default_agents: planner specs for hints and autoplay when none is given; the
            first whose planner is registered is used.
    """

    name: str
    env_id: str
    entry_point: str
    num_players: int
    rules: dict[str, type]
    default_agents: tuple[str, ...]


GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(
            "threes",
            "Threes-v0",
            "playahead.envs.tiles:ThreesEnv",
            1,
            {"bonus_preview": str, "merge_6144": bool},
            ("expectimax", "mcts:n_simulations=400"),
        ),
        Game(
            "2048",
            "2048-v0",
            "playahead.envs.tiles:Twenty48Env",
            1,
            {},
            ("expectimax", "mcts:n_simulations=400"),
        ),
        Game(
            "tictactoe",
            "TicTacToe-v0",
            "playahead.envs.tictactoe:TicTacToeEnv",
            2,
            {"size": int},
            ("minimax:time_limit=5", "mcts:n_simulations=2000"),
        ),
        Game(
            "connect4",
            "ConnectFour-v0",
            "playahead.envs.connect_four:ConnectFourEnv",
            2,
            {},
            ("minimax:time_limit=2", "mcts:n_simulations=2000"),
        ),
        Game(
            "nim",
            "Nim-v0",
            "playahead.envs.nim:NimEnv",
            2,
            {"n": int, "k": int, "misere": bool},
            ("minimax:time_limit=5", "mcts:n_simulations=2000"),
        ),
        Game(
            "chips",
            "Chips-v0",
            "playahead.envs.nim:ChipsEnv",
            2,
            {"n": int, "rule": str},
            ("minimax:time_limit=5", "mcts:n_simulations=2000"),
        ),
    )
}

TILE_ACTIONS = ("up", "right", "down", "left")
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def get_game(name: str) -> Game:
    """The :class:`Game` called ``name`` (case-insensitive; env ids work too).

    Raises:
        ValueError: unknown game; the message lists the known ones.
    """
    key = str(name).strip().lower()
    for game in GAMES.values():
        if key in (game.name, game.env_id.lower()):
            return game
    raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAMES)}")


def default_agent(game: Game) -> str:
    """The planner spec for hints and autoplay in ``game`` when none is given."""
    from playahead.agents import available_agents, parse_spec

    known = available_agents()
    for spec in game.default_agents:
        if parse_spec(spec)[0] in known:
            return spec
    return "random"


def check_rules(game: Game, rules: dict[str, Any]) -> dict[str, Any]:
    """``rules`` checked against the options ``game`` accepts (names and types).

    Raises:
        ValueError: an unknown option or a value of the wrong type.
    """
    out = {}
    for key, value in rules.items():
        if key not in game.rules:
            accepted = ", ".join(game.rules) or "none"
            raise ValueError(
                f"{game.name} has no rule option {key!r}; accepted: {accepted}"
            )
        kind = game.rules[key]
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok:
            raise ValueError(
                f"{game.name} option {key} must be {kind.__name__}, got {value!r}"
            )
        out[key] = value
    return out


def make_env(game: str | Game, *, render_mode: str | None = "ansi", **rules):
    """A fresh env of ``game``; two-player games are turn by turn (``opponent=None``).

    Args:
        game: a name from :data:`GAMES` (or its :class:`Game`).
        render_mode: passed to the env (``"ansi"`` by default).
        **rules: the game's rule options, e.g. ``size=4`` for tic-tac-toe.

    Raises:
        ValueError: unknown game or rule option, or a value the env rejects.
    """
    game = game if isinstance(game, Game) else get_game(game)
    rules = check_rules(game, rules)
    module, _, cls = game.entry_point.partition(":")
    env_cls = getattr(importlib.import_module(module), cls)
    if game.num_players == 2:
        rules["opponent"] = None
    return env_cls(render_mode=render_mode, **rules)


def action_label(env, action: int) -> str:
    """A short name for ``action`` in ``env``'s game: ``"left"``, ``"cell 4"``,
    ``"col 3"``, ``"take 2"``."""
    base = env.unwrapped
    name = getattr(base, "game_name", "")
    if base.num_players == 1:
        return TILE_ACTIONS[action]
    if name == "TicTacToe":
        return f"cell {action}"
    if name == "ConnectFour":
        return f"col {action}"
    return f"take {action + 1}"


def format_value(value: float) -> str:
    """A value in a few characters: ``865.0``, ``0.436``, ``-1.000``."""
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def format_values(
    env, analysis: Analysis, title: str = "values", width: int = 78
) -> str:
    """The legal moves of ``analysis`` best first, e.g.
    ``values (eval): left 865.0 | right 863.4 | up 861.4``; the chosen one is starred.
    """
    lines = [f"{title} ({analysis.value_kind}):"]
    for action, value in analysis.ranked():
        star = "*" if action == analysis.action else ""
        part = f"  {action_label(env, action)} {format_value(value)}{star}"
        if len(lines[-1]) + len(part) > width:
            lines.append(" ")
        lines[-1] += part
    return "\n".join(lines)


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences."""
    return _ANSI_RE.sub("", text)


def agent_seeds(seed: int | None, n: int) -> list[int]:
    """``n`` seeds (ints < 2**63) derived from ``seed`` (None: fresh entropy)."""
    words = np.random.SeedSequence(seed).generate_state(n, np.uint64) >> np.uint64(1)
    return [int(w) for w in words]


def build_agent(spec: str, seed: int):
    """An agent from ``spec``, seeded with ``seed`` when it takes a seed (a ``seed``
    option in the spec wins).

    Raises:
        ValueError: unknown agent or option (from :func:`playahead.make_agent`).
    """
    from playahead.agents import make_agent, parse_spec, takes_option

    if "seed" in parse_spec(spec)[1] or not takes_option(spec, "seed"):
        return make_agent(spec)
    return make_agent(spec, seed=seed)


def choose(agent, env) -> tuple[int, Analysis | None]:
    """The agent's move, with its :class:`Analysis` when it has ``analyze``."""
    if callable(getattr(agent, "analyze", None)):
        analysis = agent.analyze(env)
        return int(analysis.action), analysis
    return int(agent.act(env)), None


# ---------------------------------------------------------------------------- Session
KEYS = """keys:
  every game           h hint, p autoplay on/off, n new game, q quit
  threes, 2048         arrows or w/a/s/d slide the tiles
  tictactoe            digit of a cell (as drawn; boards up to 3x3) marks it, or
                       arrows/wasd move the cursor and Enter/space marks
  connect4             0-6 drop a disc in that column, or left/right move the
                       cursor and Enter/space/down drops
  nim, chips           1-9 take that many, or up/down change the amount and
                       Enter/space takes"""
_WASD = {"w": "up", "a": "left", "s": "down", "d": "right"}
_DELTA = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class Session:
    """One person at the terminal: keys in, text out (see the module docstring).

    Args:
        game: a name from :data:`GAMES`.
        agent: planner spec for hints and autoplay (None: the game's default).
        opponent: agent spec of the other player in two-player games.
        side: the person's side in two-player games (0 moves first).
        seed: seeds the games, the agent and the opponent (None: fresh entropy).
        rules: the game's rule options, e.g. ``{"size": 4}``.
        color: keep the env's ANSI colours in :meth:`screen`.

    Raises:
        ValueError: unknown game, rule option, agent spec or side.
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
    ):
        self.game = get_game(game)
        self.env = make_env(self.game, **(rules or {}))
        if side not in (0, 1) or isinstance(side, bool):
            raise ValueError(f"side must be 0 or 1, got {side!r}")
        self.side = side if self.game.num_players == 2 else 0
        self.agent_spec = agent or default_agent(self.game)
        self.opponent_spec = opponent
        self.color = color
        self._rng = np.random.default_rng(seed)
        agent_seed, opponent_seed = agent_seeds(seed, 2)
        self.agent = build_agent(self.agent_spec, agent_seed)
        self.opponent = None
        if self.game.num_players == 2:
            self.opponent = build_agent(opponent, opponent_seed)
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
        _, self.info = self.env.reset(seed=int(self._rng.integers(2**63 - 1)))
        self.games += 1
        self.hint = ""
        self.message = ""
        self.history: list[str] = []
        self.cursor = 1 if self.game.name in ("nim", "chips") else 0
        if self.game.name == "tictactoe":
            self.cursor = self.env.size**2 // 2
        elif self.game.name == "connect4":
            self.cursor = 3
        self._opponent_turns()

    def _opponent_turns(self) -> None:
        while (
            self.opponent is not None
            and not self.done
            and self.env.current_player != self.side
        ):
            action, _ = choose(self.opponent, self.env)
            self._step(action, "opponent")

    def _step(self, action: int, who: str) -> None:
        _, reward, _, _, self.info = self.env.step(action)
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
                self.message = f"no move for key {key}: {self.keys_help()}"
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

    def keys_help(self) -> str:
        """One line naming the keys of this game."""
        common = "h hint, p autoplay, n new game, q quit"
        moves = {
            "tictactoe": "digit or arrows+Enter: mark a cell",
            "connect4": "0-6 or left/right+Enter: drop a disc",
            "nim": "1-9 or up/down+Enter: take",
            "chips": "1-9 or up/down+Enter: take",
        }.get(self.game.name, "arrows or w/a/s/d: slide")
        return f"{moves}; {common}"

    # ----------------------------------------------------------------- drawing
    def _selection(self) -> str:
        name = self.game.name
        if name == "tictactoe":
            row, col = divmod(self.cursor, self.env.size)
            return f"cursor: cell {self.cursor} (row {row}, col {col})"
        if name == "connect4":
            return " " * (2 * self.cursor) + "^ cursor: column " + str(self.cursor)
        if name in ("nim", "chips"):
            return f"cursor: take {self.cursor}"
        return ""

    def status(self) -> str:
        """One line: whose game it is, or how it ended."""
        if not self.done:
            if self.game.num_players == 2:
                return f"you play player {self.side} against {self.opponent_spec}"
            return ""
        if self.game.num_players == 1:
            score, top = self.info["score"], self.info["max_tile"]
            return f"game over: score {score}, max tile {top}"
        winner = self.env.winner
        if winner < 0:
            return "game over: draw"
        return f"game over: {'you win' if winner == self.side else 'you lose'}"

    def screen(self) -> str:
        """The text to draw (ANSI colours unless ``color=False``)."""
        parts = [
            f"playahead play {self.game.name}  (game {self.games}, "
            f"autoplay {'on' if self.autoplay else 'off'})",
            self.env.render().rstrip("\n"),
            self._selection(),
            "  ".join(reversed(self.history)),
            self.status(),
            self.hint,
            self.message,
            self.keys_help(),
        ]
        text = "\n".join(p for p in parts if p) + "\n"
        return text if self.color else strip_ansi(text)


# ---------------------------------------------------------------------------- the tty
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


CLEAR = "\x1b[H\x1b[2J"


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


# ---------------------------------------------------------------------------- CLI
def parse_rules(items: list[str]) -> dict[str, Any]:
    """``["size=4", "misere=true"]`` -> ``{"size": 4, "misere": True}``."""
    from playahead.agents import _parse_value

    rules = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--rule {item!r} is not name=value (example: size=4)")
        rules[key.strip()] = _parse_value(value)
    return rules


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``watch`` and ``play`` share: game, seed, rules, opponent."""
    parser.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: random)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option of the game, e.g. size=4 (tictactoe), n=31 k=4 (nim), "
        "bonus_preview=plus (threes); repeatable",
    )
    parser.add_argument(
        "--opponent",
        default="random",
        help="agent spec of the other player in two-player games (default: random)",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead play``."""
    add_game_arguments(parser)
    parser.add_argument(
        "--agent",
        default=None,
        help="planner spec for hints and autoplay, with its settings, e.g. "
        "'expectimax:depth=3' or 'mcts:n_simulations=2000' (default: expectimax for "
        "threes/2048, minimax for the others)",
    )
    parser.add_argument(
        "--side", type=int, default=0, choices=(0, 1), help="your side (0 moves first)"
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=0.25,
        help="seconds between autoplay moves (default 0.25)",
    )
    parser.epilog = KEYS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead play``."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ValueError(
            "playahead play needs an interactive terminal (stdin and stdout); "
            "use 'playahead watch' to let an agent play, or 'playahead serve' for "
            "the browser"
        )
    if args.delay < 0:
        raise ValueError(f"--delay must be >= 0, got {args.delay}")
    session = Session(
        args.game,
        agent=args.agent,
        opponent=args.opponent,
        side=args.side,
        seed=args.seed,
        rules=parse_rules(args.rule),
    )
    run_tty(session, sys.stdin.fileno(), sys.stdout, args.delay)
    print(strip_ansi(session.status()) or "bye")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m playahead.play ...`` (the same as ``playahead play ...``)."""
    parser = argparse.ArgumentParser(prog="playahead play")
    configure(parser)
    args = parser.parse_args(argv)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
