"""Connect Four as a Gymnasium env; rules in :mod:`playahead.games.connect_four`."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from playahead.envs.board_games import TwoPlayerEnv, canvas, fill_disc, paint
from playahead.games import connect_four
from playahead.games.connect_four import COLS, ROWS

_DISC_RGB = ((214, 39, 40), (242, 196, 22))  # red, yellow
_CELL = 56  # pixels per cell in rgb_array


class ConnectFourEnv(TwoPlayerEnv):
    """Connect Four (6 rows x 7 columns) against a built-in opponent, or turn by turn.

    ## Description
    Players alternately drop a disc into a column that has room; it falls to the
    lowest empty cell. Four discs of one colour in a row, column or diagonal win; a
    full board without four is a draw. Player 0 (red) moves first. The rules are pure
    compiled functions on bitboards in :mod:`playahead.games.connect_four`.

    ## Action Space
    ``Discrete(7)``: the column to drop into. Full columns are illegal.

    ## Observation Space
    ``Box(0, 1, (2, 6, 7), int8)``, row 0 on top: two planes from the side of the
    player to move (in opponent mode, the agent's): its own discs, then the other's.
    ``env.unwrapped.board`` is the absolute board: ``int8[6, 7]``, row 0 on top,
    0 empty, 1 player 0 (red), 2 player 1 (yellow).

    ## Rewards
    Against an opponent: +1 when the agent wins, -1 when it loses, 0 otherwise.
    Turn by turn: +1 to the player whose disc completes four in a row, else 0.

    ## Starting State
    An empty board; if the agent plays second, the opponent has already dropped a disc.

    ## Episode End
    Terminated on four in a row or a full board (at most 42 plies). Truncated only on
    an illegal move with ``illegal_action="end"``.

    ## Arguments
    * ``opponent``: agent spec string (default ``"random"``), agent, callable
      ``(env) -> action``, or None for turn-by-turn play.
    * ``agent_player``: 0, 1 or ``"random"`` (drawn at every reset).
    * ``illegal_action``: ``"noop"``, ``"raise"`` or ``"end"`` (see ``GameEnv``).
    * ``render_mode``: ``"ansi"`` or ``"rgb_array"``.

    ## Version History
    * v0: initial version.
    """

    game_name = "ConnectFour"
    rules = connect_four

    def __init__(
        self,
        opponent="random",
        agent_player: int | str = 0,
        illegal_action: str = "noop",
        render_mode: str | None = None,
    ):
        super().__init__(opponent, agent_player, illegal_action, render_mode)
        self.action_space = spaces.Discrete(COLS)
        self.observation_space = spaces.Box(0, 1, (2, ROWS, COLS), np.int8)
        self._start()

    @property
    def board(self) -> np.ndarray:
        """``int8[6, 7]``, row 0 on top: 0 empty, 1 player 0 (red), 2 player 1."""
        return connect_four.to_board(self._pos)

    def _initial_position(self):
        return connect_four.initial_state()

    def _observe(self, player: int) -> np.ndarray:
        return connect_four.observe(self._pos, player)

    def _freeze(self) -> tuple[int, int]:
        return (int(self._pos[0]), int(self._pos[1]))

    def _thaw(self, position: tuple[int, ...]):
        """Check two disjoint bitboards of stacked discs, red moving first."""
        ok = len(position) == 2 and all(
            isinstance(p, int | np.integer) and 0 <= p <= connect_four.FULL
            for p in position
        )
        if ok:
            p0, p1 = int(position[0]), int(position[1])
            filled = p0 | p1
            columns = [(filled >> (7 * c)) & 0x7F for c in range(COLS)]
            ok = (
                p0 & p1 == 0
                and filled & ~connect_four.FULL == 0
                and all(col & (col + 1) == 0 for col in columns)  # no floating discs
                and 0 <= p0.bit_count() - p1.bit_count() <= 1
            )
        if not ok:
            raise ValueError(
                f"malformed ConnectFour position {position!r}: expected two disjoint "
                "bitboards (player 0, player 1) of stacked discs, player 0 moving first"
            )
        return (np.int64(p0), np.int64(p1))

    def _render_ansi(self) -> str:
        # X and O tell the sides apart without colour too
        marks = {0: paint(".", "dim"), 1: paint("X", "red"), 2: paint("O", "yellow")}
        rows = [" ".join(marks[int(v)] for v in row) for row in self.board]
        footer = " ".join(str(c) for c in range(COLS))
        names = ("X (red)", "O (yellow)")
        return "\n".join(rows + [footer, self._status(names)]) + "\n"

    def _render_rgb(self) -> np.ndarray:
        img = canvas(ROWS * _CELL, COLS * _CELL, (20, 70, 180))
        radius = _CELL * 0.4
        for (r, c), v in np.ndenumerate(self.board):
            rgb = (235, 235, 235) if v == 0 else _DISC_RGB[v - 1]
            fill_disc(img, (r + 0.5) * _CELL, (c + 0.5) * _CELL, radius, rgb)
        return img
