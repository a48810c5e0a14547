"""Nim and Chips as Gymnasium envs; the rules live in :mod:`playahead.games.nim`."""

from __future__ import annotations

import abc

import numpy as np
from gymnasium import spaces

from playahead.envs.board_games import PLAYER_RGB, TwoPlayerEnv, canvas, fill_disc
from playahead.envs.board_games import paint as _paint
from playahead.games import nim

_PER_ROW, _GAP = 20, 16  # items per row and pixels between items in rgb_array
_PILE_RGB = (150, 100, 50)
_TAKEN_RGB = ((240, 170, 170), (170, 195, 240))  # pale player colours


class _TakeAwayEnv(TwoPlayerEnv):
    """What Nim and Chips share: one pile, a take limit, chips held by each player."""

    rules = nim
    _names = (_paint("P0", "red"), _paint("P1", "blue"))

    def _setup(self, state: nim.State, rules: tuple) -> None:
        self._first = state
        self.n = state[nim.PILE]
        self._rules = rules
        self.action_space = spaces.Discrete(nim.num_actions(state))
        self.observation_space = spaces.Box(0, self.n, (4,), np.int64)
        self._start()

    @property
    def board(self) -> np.ndarray:
        """``int64[4]``: pile, chips held by player 0, by player 1, most the mover may
        take now (capped by the pile)."""
        pile, _, limit, held_0, held_1, _ = self._pos
        return np.array([pile, held_0, held_1, min(limit, pile)], dtype=np.int64)

    def _initial_position(self) -> nim.State:
        return self._first

    def _observe(self, player: int) -> np.ndarray:
        pile, _, limit, held_0, held_1, _ = self._pos
        own, other = (held_0, held_1) if player == 0 else (held_1, held_0)
        return np.array([pile, min(limit, pile), own, other], dtype=np.int64)

    def _freeze(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self._pos)

    def _thaw(self, position: tuple[int, ...]) -> nim.State:
        ok = len(position) == 6 and all(
            isinstance(x, int | np.integer) and x >= 0 for x in position
        )
        if ok:
            pile, player, limit, held_0, held_1, rule = map(int, position)
            ok = (
                rule == self._first[nim.RULE]
                and pile + held_0 + held_1 == self.n
                and player in (0, 1)
                and limit >= 1
                and (rule >= nim.LAST_CHIP or limit == self._first[nim.LIMIT])
            )
        if not ok:
            raise ValueError(
                f"malformed {self.game_name} position {position!r} for rules "
                f"{dict(self._rules)}: expected (pile, player, limit, held_0, held_1, "
                "rule) with pile + held_0 + held_1 == n"
            )
        return tuple(int(x) for x in position)

    def _render_ansi(self) -> str:
        pile, player, limit, held_0, held_1, _ = self._pos
        sticks = _paint("|" * pile, "yellow") if pile else _paint("(empty)", "dim")
        lines = [
            f"pile {pile:>3}: {sticks}",
            f"held: {self._names[0]} {held_0}, {self._names[1]} {held_1}",
        ]
        if not self._over:
            lines.append(f"{self._names[player]} may take 1..{min(limit, pile)}")
        return "\n".join(lines + [self._status(self._names)]) + "\n"

    @abc.abstractmethod
    def _draw_item(self, img, y, x, rgb) -> None:
        """Draw one stick or chip with its top-left corner at (y, x)."""

    def _render_rgb(self) -> np.ndarray:
        pile, _, _, held_0, held_1, _ = self._pos
        colours = (
            [_PILE_RGB] * pile + [_TAKEN_RGB[0]] * held_0 + [_TAKEN_RGB[1]] * held_1
        )
        rows = -(-self.n // _PER_ROW)
        img = canvas(rows * 56 + 24, min(self.n, _PER_ROW) * _GAP + 24, (250, 250, 245))
        for i, rgb in enumerate(colours):
            row, col = divmod(i, _PER_ROW)
            self._draw_item(img, 12 + row * 56, 12 + col * _GAP, rgb)
        # a bar under the picture in the colour of the player to move
        img[-6:, :] = PLAYER_RGB[self._player] if not self._over else (60, 60, 60)
        return img


class NimEnv(_TakeAwayEnv):
    """Nim with one pile against a built-in opponent, or turn by turn.

    ## Description
    A pile of ``n`` sticks; players alternately take 1..``k`` of them. Whoever takes
    the last stick wins (in misère play, loses). The player to move loses exactly when
    ``n % (k + 1) == 0`` (misère: ``== 1``). Rules: :mod:`playahead.games.nim`.

    ## Action Space
    ``Discrete(k)``: action ``a`` takes ``a + 1`` sticks; taking more than the pile
    holds is illegal.

    ## Observation Space
    ``Box(0, n, (4,), int64)`` from the side of the player to move (in opponent mode,
    the agent's): ``[pile, most that may be taken now, sticks taken by self, by the
    other]``. ``env.unwrapped.board`` is ``int64[4]``: pile, sticks taken by player 0,
    by player 1, most that may be taken now.

    ## Rewards
    Against an opponent: +1 when the agent wins, -1 when it loses. Turn by turn: the
    player who takes the last stick gets +1 (misère: -1); every other move 0.

    ## Starting State
    A full pile of ``n``; if the agent plays second, the opponent has already taken.

    ## Episode End
    Terminated when the pile is empty (no draws). Truncated only on an illegal move
    with ``illegal_action="end"``.

    ## Arguments
    * ``n``: sticks in the pile (default 21); ``k``: most sticks per take (default 3).
    * ``misere``: taking the last stick loses (default False).
    * ``opponent``, ``agent_player``, ``illegal_action``, ``render_mode``: as in
      :class:`~playahead.envs.tictactoe.TicTacToeEnv`.

    ## Version History
    * v0: initial version.
    """

    game_name = "Nim"

    def __init__(
        self,
        n: int = 21,
        k: int = 3,
        misere: bool = False,
        opponent="random",
        agent_player: int | str = 0,
        illegal_action: str = "noop",
        render_mode: str | None = None,
    ):
        super().__init__(opponent, agent_player, illegal_action, render_mode)
        state = nim.nim_state(n, k, misere)
        self.k, self.misere = state[nim.LIMIT], bool(misere)
        self._setup(state, (("k", self.k), ("misere", self.misere), ("n", state[0])))

    def _draw_item(self, img, y, x, rgb) -> None:
        img[y : y + 40, x + 4 : x + 10] = rgb


class ChipsEnv(_TakeAwayEnv):
    """Chips (a Fibonacci Nim take-away) against a built-in opponent, or turn by turn.

    ## Description
    A pile of ``n`` chips. After the first move a player may take 1 up to twice what
    the opponent just took, never more than what is left. ``rule="last_chip"``
    (Fibonacci Nim, ``n >= 2``): the first move takes 1..n-1 and taking the last chip
    wins; the first player loses exactly when ``n`` is a Fibonacci number.
    ``rule="even_total"`` (``n`` odd, ``>= 3``): the first move takes 1..n//2 and, once
    the pile is empty, the player holding an even number of chips wins.
    Rules: :mod:`playahead.games.nim`.

    ## Action Space
    ``Discrete(n - 1)``: action ``a`` takes ``a + 1`` chips (no take can be larger
    under either rule); takes above the current limit are illegal.

    ## Observation Space
    ``Box(0, n, (4,), int64)`` from the side of the player to move (in opponent mode,
    the agent's): ``[pile, most that may be taken now, chips held by self, by the
    other]``. ``env.unwrapped.board`` is ``int64[4]``: pile, chips held by player 0,
    by player 1, most that may be taken now.

    ## Rewards
    Against an opponent: +1 when the agent wins, -1 when it loses. Turn by turn: +1 to
    the player whose move empties the pile and wins, -1 if that move makes the other
    player win (possible under ``even_total``), else 0.

    ## Starting State
    A full pile of ``n``; if the agent plays second, the opponent has already taken.

    ## Episode End
    Terminated when the pile is empty (no draws). Truncated only on an illegal move
    with ``illegal_action="end"``.

    ## Arguments
    * ``n``: chips in the pile (default 21).
    * ``rule``: ``"last_chip"`` (default) or ``"even_total"``.
    * ``opponent``, ``agent_player``, ``illegal_action``, ``render_mode``: as in
      :class:`~playahead.envs.tictactoe.TicTacToeEnv`.

    ## Version History
    * v0: initial version.
    """

    game_name = "Chips"

    def __init__(
        self,
        n: int = 21,
        rule: str = "last_chip",
        opponent="random",
        agent_player: int | str = 0,
        illegal_action: str = "noop",
        render_mode: str | None = None,
    ):
        super().__init__(opponent, agent_player, illegal_action, render_mode)
        state = nim.chips_state(n, rule)
        self.rule = rule
        self._setup(state, (("n", state[0]), ("rule", rule)))

    def _draw_item(self, img, y, x, rgb) -> None:
        fill_disc(img, y + 20, x + 7, 6.5, rgb)
