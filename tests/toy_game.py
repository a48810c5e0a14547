"""Two small games written against the env contract alone (no compiled rules), to show
that playahead's planners work on a user's own env.

* :class:`DiceBankEnv` (one player, chance): a pot starts at 0. Action 0 banks the pot
  (the episode ends with reward = pot); action 1 rolls a die from the env's generator:
  a 1 loses the pot (the episode ends with reward 0), anything else is added to it.
  Rolling is forbidden after ``max_rolls`` rolls. One more roll and then banking is
  worth ``5/6 * (pot + 4)``, so rolling beats banking exactly while ``pot < 20``.
* :class:`TakeAwayEnv` (two players, turn by turn): a pile of ``n`` sticks, each move
  takes 1 or 2 (action 0 or 1), whoever takes the last stick gets reward +1 and wins.
  The player to move loses exactly when ``pile % 3 == 0``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from gymnasium import spaces

from playahead.envs.base import GameEnv


@dataclasses.dataclass(frozen=True)
class DiceState:
    pot: int
    rolls: int
    over: bool


class DiceBankEnv(GameEnv):
    """Bank the pot or roll again (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, max_rolls: int = 12, illegal_action: str = "noop"):
        super().__init__(illegal_action=illegal_action)
        self.max_rolls = max_rolls
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(0, 6 * max_rolls, (2,), dtype=np.int64)
        self._state = DiceState(0, 0, False)

    def _reset_state(self, options) -> None:
        self._state = DiceState(0, 0, False)

    def _apply(self, action: int) -> float:
        s = self._state
        if action == 0:
            self._state = DiceState(s.pot, s.rolls, True)
            return float(s.pot)
        die = int(self.np_random.integers(1, 7))
        if die == 1:
            self._state = DiceState(0, s.rolls + 1, True)
        else:
            self._state = DiceState(s.pot + die, s.rolls + 1, False)
        return 0.0

    def _legal_mask(self) -> np.ndarray:
        return np.array([True, self._state.rolls < self.max_rolls])

    def _is_over(self) -> bool:
        return self._state.over

    def _observation(self) -> np.ndarray:
        return np.array([self._state.pot, self._state.rolls], dtype=np.int64)

    def clone_state(self) -> DiceState:
        return self._state

    def restore_state(self, state: DiceState) -> None:
        self._state = state


@dataclasses.dataclass(frozen=True)
class PileState:
    pile: int
    player: int


class TakeAwayEnv(GameEnv):
    """Take 1 or 2 sticks; the last stick wins (see the module docstring)."""

    metadata = {"render_modes": []}
    num_players = 2

    def __init__(self, n: int = 10, illegal_action: str = "noop"):
        super().__init__(illegal_action=illegal_action)
        self.n = n
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(0, n, (2,), dtype=np.int64)
        self._state = PileState(n, 0)

    @property
    def current_player(self) -> int:
        return self._state.player

    def _reset_state(self, options) -> None:
        self._state = PileState(self.n, 0)

    def _apply(self, action: int) -> float:
        s = self._state
        pile = s.pile - (action + 1)
        self._state = PileState(pile, 1 - s.player)
        return 1.0 if pile == 0 else 0.0

    def _legal_mask(self) -> np.ndarray:
        return np.array([self._state.pile >= 1, self._state.pile >= 2])

    def _is_over(self) -> bool:
        return self._state.pile == 0

    def _observation(self) -> np.ndarray:
        return np.array([self._state.pile, self._state.player], dtype=np.int64)

    def clone_state(self) -> PileState:
        return self._state

    def restore_state(self, state: PileState) -> None:
        self._state = state
