"""Two-player board games as single-agent Gymnasium envs: the shell they share.

:class:`TwoPlayerEnv` turns a rules module of :mod:`playahead.games` (tic-tac-toe,
Connect Four, Nim, Chips; each has ``status``, ``apply`` and ``observe``-like helpers)
into a :class:`~playahead.envs.base.GameEnv` with two modes:

* **Against a built-in opponent** (``opponent="random"``, the default; any agent spec
  such as ``"mcts:n_simulations=200"``; an agent object; or a callable
  ``(env) -> action``). The agent plays side ``agent_player`` (0 moves first, 1 second,
  ``"random"`` draws the side from ``env.np_random`` at every reset). ``step`` applies
  the agent's move, then the opponent's reply; the reward is +1 / -1 / 0 when the game
  ends in a win / loss / draw for the agent. When the agent moves second, ``reset``
  plays the opponent's first move. The ``"random"`` opponent picks uniformly among the
  legal moves with ``env.np_random``; any other spec is built with
  ``make_agent(spec, seed=...)`` on its first move of each episode, the seed drawn from
  ``env.np_random`` at reset, so the same seed gives the same game. The opponent's
  ``act`` (or the callable) receives the unwrapped env with the opponent to move:
  ``action_masks()``, ``current_player``, ``clone_state()`` and the observation are
  the opponent's then.
* **Turn by turn** (``opponent=None``): each step is one ply by the player to move; the
  reward belongs to the player who just moved: +1 if the move won, -1 if it lost (only
  possible when it empties the pile in misère Nim or in Chips' ``even_total``), else 0.

Both modes put ``info["current_player"]`` (the player to move next) in every info, and
observations are from the side of the player to move (in opponent mode: the agent's,
also at the end of the game). :meth:`TwoPlayerEnv.clone_state` returns a
:class:`BoardGameState`; :meth:`TwoPlayerEnv.make_simulator` a turn-by-turn copy for
planners.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np

from playahead.agents import check_spec, make_agent
from playahead.envs.base import GameEnv
from playahead.envs.human import render_human

PLAYER_RGB = ((214, 39, 40), (31, 119, 180))  # red, blue
_ANSI = {"red": "31", "blue": "34", "yellow": "33", "dim": "2", "bold": "1"}


@dataclasses.dataclass(frozen=True)
class BoardGameState:
    """An immutable, hashable, picklable snapshot returned by ``clone_state()``.

    Attributes:
        game: the game's name, e.g. ``"ConnectFour"``.
        rules: the rule options as sorted ``(name, value)`` pairs, e.g.
            ``(("k", 3), ("misere", False), ("n", 21))``. A state only restores into an
            env of the same game and rules.
        position: the game's position as a tuple of ints (see each env's docstring);
            it carries whose turn it is.
        agent_player: the agent's side in opponent mode, or None (turn-by-turn mode).
    """

    game: str
    rules: tuple[tuple[str, Any], ...]
    position: tuple[int, ...]
    agent_player: int | None = None


def paint(text: str, color: str) -> str:
    """``text`` wrapped in the ANSI colour code named ``color`` (see ``_ANSI``)."""
    return f"\x1b[{_ANSI[color]}m{text}\x1b[0m"


class TwoPlayerEnv(GameEnv):
    """The shared shell of playahead's two-player games (see the module docstring).

    Subclasses set ``rules`` (a :mod:`playahead.games` module), ``game_name``, the
    spaces and ``self._rules`` in ``__init__`` and implement the position hooks
    ``_initial_position``, ``_freeze``, ``_thaw``, ``_observe``, ``board``,
    ``_render_ansi`` and ``_render_rgb``.
    """

    num_players = 2
    rules: ModuleType
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        opponent: str | Callable | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "noop",
        render_mode: str | None = None,
    ):
        # 100 no-ops in a row truncate, so unmasked deterministic policies finish too
        super().__init__(illegal_action, render_mode, max_noop_moves=100)
        if agent_player not in (0, 1, "random") or isinstance(agent_player, bool):
            raise ValueError(
                f"agent_player must be 0, 1 or 'random', got {agent_player!r}"
            )
        if isinstance(opponent, str):
            if opponent.strip() != "random":  # the built-in random needs no lookup
                check_spec(opponent)  # fail here on an unknown agent or option
        elif opponent is not None and not (
            callable(opponent) or hasattr(opponent, "act")
        ):
            raise ValueError(
                "opponent must be an agent spec string (e.g. 'random'), an agent, a "
                f"callable (env) -> action, or None; got {opponent!r}"
            )
        self.opponent = opponent
        self.agent_player = (
            agent_player if agent_player == "random" else int(agent_player)
        )
        self._opponent_agent = None
        self._opponent_seed = 0
        self._rules: tuple[tuple[str, Any], ...] = ()

    def _start(self) -> None:
        """Set the initial position and the agent's side (called by subclasses)."""
        self._set_position(self._initial_position())
        self._agent = None
        if self.opponent is not None:
            self._agent = 0 if self.agent_player == "random" else self.agent_player

    # ----------------------------------------------------------------- position hooks
    @abc.abstractmethod
    def _initial_position(self):
        """The rules' starting position for this env's options."""

    @abc.abstractmethod
    def _freeze(self) -> tuple[int, ...]:
        """The position as a tuple of ints (``BoardGameState.position``)."""

    @abc.abstractmethod
    def _thaw(self, position: tuple[int, ...]):
        """The rules' position from ``_freeze``'s tuple; ValueError if malformed."""

    @abc.abstractmethod
    def _observe(self, player: int) -> np.ndarray:
        """The observation from ``player``'s side."""

    @abc.abstractmethod
    def _render_ansi(self) -> str:
        """The position as coloured text."""

    @abc.abstractmethod
    def _render_rgb(self) -> np.ndarray:
        """The position as a ``uint8[H, W, 3]`` picture."""

    # ----------------------------------------------------------------- the position
    def _set_position(self, position) -> None:
        """Store a position and cache what the shell asks about it."""
        self._pos = position
        self._player, self._winner, self._over, self._mask = self.rules.status(position)

    def _play(self, action: int) -> None:
        self._set_position(self.rules.apply(self._pos, action))

    @property
    def current_player(self) -> int:
        """The player to move (0 moves first); after the end, who would be next."""
        return self._player

    @property
    def winner(self) -> int:
        """0 or 1 once someone has won, else -1 (game going on or drawn)."""
        return self._winner

    def observe(self, player: int) -> np.ndarray:
        """The observation from ``player``'s side (what that player's policy sees)."""
        return self._observe(player)

    def _outcome(self, player: int) -> float:
        """+1 / -1 / 0: has ``player`` won, lost, or neither (yet)?"""
        if self._winner < 0:
            return 0.0
        return 1.0 if self._winner == player else -1.0

    # ----------------------------------------------------------------- GameEnv hooks
    def _reset_state(self, options: dict | None) -> None:
        self._set_position(self._initial_position())
        if self.opponent is None:
            self._agent = None
            return
        side = self.agent_player
        if side == "random":
            side = int(self.np_random.integers(2))
        self._agent = side
        self._opponent_agent = None
        if not self._opponent_is_builtin_random():
            self._opponent_seed = int(self.np_random.integers(2**63 - 1))
        if self._player != side:
            self._opponent_move()

    def _apply(self, action: int) -> float:
        mover = self._player
        self._play(action)
        if self.opponent is None:
            return self._outcome(mover)
        if not self._over:
            self._opponent_move()
        return self._outcome(self._agent)

    def _legal_mask(self) -> np.ndarray:
        return self._mask

    def _is_over(self) -> bool:
        return self._over

    def _observation(self) -> np.ndarray:
        if self.opponent is not None and self._over:
            return self._observe(self._agent)
        return self._observe(self._player)

    def _info_extra(self) -> dict:
        info = {"current_player": self._player}
        if self.opponent is not None:
            info["agent_player"] = self._agent
        return info

    # ----------------------------------------------------------------- the opponent
    def _opponent_is_builtin_random(self) -> bool:
        return isinstance(self.opponent, str) and self.opponent.strip() == "random"

    def _opponent_move(self) -> None:
        """Let the opponent play one ply (the opponent is to move)."""
        if self._opponent_is_builtin_random():
            legal = np.flatnonzero(self._mask)
            action = int(legal[int(self.np_random.random() * legal.size)])
        elif isinstance(self.opponent, str) or hasattr(self.opponent, "act"):
            if self._opponent_agent is None:
                self._opponent_agent = make_agent(
                    self.opponent, seed=self._opponent_seed
                )
            action = self._opponent_agent.act(self)
        else:
            action = self.opponent(self)
        try:
            legal = bool(self._mask[int(action)]) and int(action) == action
        except (TypeError, ValueError, IndexError):
            legal = False
        if not legal:
            raise ValueError(
                f"the opponent {self.opponent!r} chose action {action!r}, which is not "
                f"legal; legal actions: {np.flatnonzero(self._mask).tolist()}"
            )
        self._play(int(action))

    # ----------------------------------------------------------------- clone/restore
    def clone_state(self) -> BoardGameState:
        """The position, game and rules as an immutable :class:`BoardGameState`."""
        return BoardGameState(self.game_name, self._rules, self._freeze(), self._agent)

    def restore_state(self, state: BoardGameState) -> None:
        """Put back a position from :meth:`clone_state` of an env with the same rules.

        In opponent mode a state without ``agent_player`` (from a turn-by-turn env)
        gives the agent the side to move.

        Raises:
            ValueError: ``state`` is not a :class:`BoardGameState`, belongs to another
                game or other rules, or is malformed.
        """
        if not isinstance(state, BoardGameState):
            raise ValueError(
                f"{self.game_name}.restore_state expects a BoardGameState from "
                f"clone_state(), got {type(state).__name__}"
            )
        if state.game != self.game_name or state.rules != self._rules:
            raise ValueError(
                f"cannot restore a {state.game} state with rules {dict(state.rules)} "
                f"into {self.game_name} with rules {dict(self._rules)}"
            )
        if state.agent_player not in (None, 0, 1):
            raise ValueError(f"malformed state: agent_player={state.agent_player!r}")
        if not isinstance(state.position, tuple):
            raise ValueError(f"malformed {self.game_name} position {state.position!r}")
        position = self._thaw(state.position)
        agent = state.agent_player
        if self.opponent is not None:
            player = int(self.rules.current_player(position))
            if agent is None:
                agent = player
            elif agent != player and not self.rules.is_terminal(position):
                raise ValueError(
                    f"cannot restore a position where player {player} is to move into "
                    f"opponent mode with the agent as player {agent}"
                )
        self._set_position(position)
        self._agent = agent
        self._started, self._noops = True, 0

    def make_simulator(self, rng: np.random.Generator) -> TwoPlayerEnv:
        """A turn-by-turn copy (``opponent=None``) at the current position whose
        ``np_random`` is ``rng``; it accepts ``restore_state`` of this env's clones."""
        sim = type(self)(
            **dict(self._rules), opponent=None, illegal_action=self.illegal_action
        )
        sim.np_random = rng
        sim.restore_state(self.clone_state())
        return sim

    # ----------------------------------------------------------------- rendering
    def render(self):
        """``"ansi"``: coloured text; ``"rgb_array"``: ``uint8[H, W, 3]``."""
        if self.render_mode == "ansi":
            return self._render_ansi()
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        if self.render_mode == "human":
            return render_human(self)
        gym.logger.warn(
            f"{self.game_name}: render() needs render_mode='ansi' or 'rgb_array' at "
            "construction"
        )
        return None

    def _status(self, names: tuple[str, str]) -> str:
        """One line: who is to move, who won, or a draw."""
        if self._winner >= 0:
            return f"{names[self._winner]} wins"
        if self._over:
            return "draw"
        return f"{names[self._player]} to move"


def canvas(height: int, width: int, rgb: tuple[int, int, int]) -> np.ndarray:
    """A ``uint8[height, width, 3]`` image filled with ``rgb``."""
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = rgb
    return img


def fill_disc(img, cy, cx, radius, rgb, inner: float = 0.0) -> None:
    """Paint a disc (a ring if ``inner > 0``) centred at (cy, cx), in place."""
    y0, y1 = max(int(cy - radius), 0), min(int(cy + radius) + 1, img.shape[0])
    x0, x1 = max(int(cx - radius), 0), min(int(cx + radius) + 1, img.shape[1])
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (yy - cy) ** 2 + (xx - cx) ** 2
    img[y0:y1, x0:x1][(d2 <= radius**2) & (d2 >= inner**2)] = rgb


def fill_segment(img, p, q, width, rgb) -> None:
    """Paint a thick segment from point p to point q (each ``(y, x)``), in place."""
    (py, px), (qy, qx) = p, q
    y0, y1 = int(min(py, qy) - width), int(max(py, qy) + width) + 1
    x0, x1 = int(min(px, qx) - width), int(max(px, qx) + width) + 1
    y0, x0 = max(y0, 0), max(x0, 0)
    y1, x1 = min(y1, img.shape[0]), min(x1, img.shape[1])
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dy, dx = qy - py, qx - px
    t = np.clip(((yy - py) * dy + (xx - px) * dx) / (dy * dy + dx * dx), 0.0, 1.0)
    d2 = (yy - py - t * dy) ** 2 + (xx - px - t * dx) ** 2
    img[y0:y1, x0:x1][d2 <= (width / 2) ** 2] = rgb
