"""Tic-tac-toe as a Gymnasium env; rules in :mod:`playahead.games.tictactoe`."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from playahead.envs.board_games import (
    PLAYER_RGB,
    TwoPlayerEnv,
    canvas,
    fill_disc,
    fill_segment,
    paint,
)
from playahead.games import tictactoe

_CELL = 64  # pixels per cell in rgb_array


class TicTacToeEnv(TwoPlayerEnv):
    """Tic-tac-toe on an N x N board against a built-in opponent, or turn by turn.

    ## Description
    Players alternately mark an empty cell; a full row, column or main diagonal of one
    player's marks wins, a full board without one is a draw. Player 0 (X) moves first.
    The rules are pure compiled functions in :mod:`playahead.games.tictactoe`.

    ## Action Space
    ``Discrete(size * size)``: action ``a`` marks the cell at row ``a // size``, column
    ``a % size``. Occupied cells are illegal (see ``action_masks()``).

    ## Observation Space
    ``Box(0, 1, (2, size, size), int8)``, two planes from the side of the player to
    move (in opponent mode, the agent's): its own marks, then the other player's.
    ``env.unwrapped.board`` is the absolute board: ``int8[size, size]``, 0 empty,
    1 player 0 (X), 2 player 1 (O).

    ## Rewards
    Against an opponent: +1 when the agent wins, -1 when it loses, 0 otherwise.
    Turn by turn: +1 to the player whose move completes a line, else 0.

    ## Starting State
    An empty board; if the agent plays second, the opponent has already moved.

    ## Episode End
    Terminated when a line is complete or the board is full. Truncated only on an
    illegal move with ``illegal_action="end"``.

    ## Arguments
    * ``size``: board side, default 3 (``>= 2``).
    * ``opponent``: agent spec string (default ``"random"``), agent, callable
      ``(env) -> action``, or None for turn-by-turn play.
    * ``agent_player``: 0, 1 or ``"random"`` (drawn at every reset).
    * ``illegal_action``: ``"noop"``, ``"raise"`` or ``"end"`` (see ``GameEnv``).
    * ``render_mode``: ``"ansi"`` or ``"rgb_array"``.

    ## Version History
    * v0: initial version.
    """

    game_name = "TicTacToe"
    rules = tictactoe

    def __init__(
        self,
        size: int = 3,
        opponent="random",
        agent_player: int | str = 0,
        illegal_action: str = "noop",
        render_mode: str | None = None,
    ):
        super().__init__(opponent, agent_player, illegal_action, render_mode)
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 2:
            raise ValueError(f"size must be an integer >= 2, got {size!r}")
        self.size = int(size)
        self._rules = (("size", self.size),)
        self.action_space = spaces.Discrete(self.size**2)
        self.observation_space = spaces.Box(0, 1, (2, self.size, self.size), np.int8)
        self._start()

    @property
    def board(self) -> np.ndarray:
        """``int8[size, size]``: 0 empty, 1 player 0 (X), 2 player 1 (O)."""
        return self._pos.copy()

    def _initial_position(self) -> np.ndarray:
        return tictactoe.initial_state(self.size)

    def _observe(self, player: int) -> np.ndarray:
        return tictactoe.observe(self._pos, player)

    def _freeze(self) -> tuple[int, ...]:
        return tuple(self._pos.ravel().tolist())

    def _thaw(self, position: tuple[int, ...]) -> np.ndarray:
        if (
            len(position) != self.size**2
            or not set(position) <= {0, 1, 2}
            or not 0 <= position.count(1) - position.count(2) <= 1
        ):
            raise ValueError(
                f"malformed {self.size}x{self.size} TicTacToe position {position!r}: "
                "expected size*size cells in {0, 1, 2} with X moving first"
            )
        return np.array(position, dtype=np.int8).reshape(self.size, self.size)

    def _render_ansi(self) -> str:
        width = len(str(self.size**2 - 1))
        marks = {
            1: paint("X".center(width), "red"),
            2: paint("O".center(width), "blue"),
        }
        rows = []
        for r in range(self.size):
            cells = [
                marks.get(int(v)) or paint(str(r * self.size + c).rjust(width), "dim")
                for c, v in enumerate(self._pos[r])
            ]
            rows.append(" " + " | ".join(cells) + " ")
        rule = "\n" + "-" * (self.size * (width + 3) - 1) + "\n"
        return rule.join(rows) + "\n" + self._status(("X", "O")) + "\n"

    def _render_rgb(self) -> np.ndarray:
        side = _CELL * self.size
        img = canvas(side, side, (250, 250, 245))
        for i in range(1, self.size):
            img[i * _CELL - 2 : i * _CELL + 2, :] = (60, 60, 60)
            img[:, i * _CELL - 2 : i * _CELL + 2] = (60, 60, 60)
        pad, width = _CELL * 0.22, _CELL * 0.12
        for r, c in zip(*np.nonzero(self._pos), strict=True):
            y0, x0 = r * _CELL, c * _CELL
            if self._pos[r, c] == 1:
                a, b = (y0 + pad, x0 + pad), (y0 + _CELL - pad, x0 + _CELL - pad)
                fill_segment(img, a, b, width, PLAYER_RGB[0])
                a, b = (y0 + pad, x0 + _CELL - pad), (y0 + _CELL - pad, x0 + pad)
                fill_segment(img, a, b, width, PLAYER_RGB[0])
            else:
                centre, radius = (y0 + _CELL / 2, x0 + _CELL / 2), _CELL / 2 - pad
                fill_disc(img, *centre, radius, PLAYER_RGB[1], inner=radius - width)
        return img
