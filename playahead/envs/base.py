"""What every playahead environment promises, written once.

Every env in playahead is a thin Gymnasium shell around pure rules. The shell adds the
things that are the same for every game:

* **Seeding**: ``reset(seed=...)`` seeds ``self.np_random``; every chance event of the
  game (a new tile, a deck draw, the built-in opponent's choice) comes from it.
* **Masks**: :meth:`GameEnv.action_masks` (sb3-contrib's convention) and
  ``info["action_mask"]`` are the same fresh ``bool[n_actions]`` array, True = legal.
* **Illegal and out-of-range actions**: an action outside the action space raises
  ``ValueError``. An in-range action that the rules forbid follows the
  ``illegal_action`` option: ``"noop"`` (default: nothing happens, reward 0,
  ``info["illegal_action"] = True``, like swiping into a wall in the app), ``"raise"``
  (``ValueError`` naming the legal moves) or ``"end"`` (the episode is truncated with
  reward 0, for unmasked learners that could otherwise repeat a no-op forever). With
  ``"noop"``, ``max_noop_moves`` consecutive no-ops truncate the episode
  (``truncated=True``, ``info["stalled"] = True``), so a deterministic unmasked policy
  that keeps pushing into a wall still finishes its episode; every playahead env
  defaults to 100 (the tile envs take ``max_noop_moves=None`` to never truncate).
* **Clone/restore**: :meth:`clone_state` returns an immutable, picklable state that
  holds no random generator; :meth:`restore_state` puts it back exactly. Stepping after
  a restore draws fresh chance from whatever generator is in ``self.np_random``; a
  planner swaps in its own generator (see :func:`simulator`), so it never sees the
  env's future.
* **Players**: ``num_players`` is 1 or 2 and ``current_player`` is the player to move
  (always 0 in one-player games).

Subclasses implement ``_reset_state(rng)``, ``_apply(action)`` (one ply of the rules,
returning the reward for the player who moved), ``_legal_mask()``, ``_is_over()``,
``_observation()``, ``_info_extra()``, ``clone_state``/``restore_state`` and rendering.
"""

from __future__ import annotations

import abc
import copy
from typing import Any

import gymnasium as gym
import numpy as np

ILLEGAL_ACTION_MODES = ("raise", "noop", "end")


class GameEnv(gym.Env, metaclass=abc.ABCMeta):
    """Base class for playahead's environments (see the module docstring)."""

    num_players: int = 1
    game_name: str = "game"

    def __init__(
        self,
        illegal_action: str = "noop",
        render_mode: str | None = None,
        max_noop_moves: int | None = None,
    ):
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action={illegal_action!r} is not one of "
                f"{', '.join(map(repr, ILLEGAL_ACTION_MODES))}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; choose from "
                f"{self.metadata['render_modes']} or None"
            )
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.max_noop_moves = check_max_noop_moves(max_noop_moves)
        self._noops = 0  # consecutive no-op moves
        self._started = False  # set by reset(); step() before it is an error

    # ----------------------------------------------------------------- subclass hooks
    @abc.abstractmethod
    def _reset_state(self, options: dict | None) -> None:
        """Subclass hook."""

    @abc.abstractmethod
    def _apply(self, action: int) -> float:
        """Subclass hook."""

    @abc.abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """Subclass hook."""

    @abc.abstractmethod
    def _is_over(self) -> bool:
        """Subclass hook."""

    @abc.abstractmethod
    def _observation(self) -> Any:
        """Subclass hook."""

    def _info_extra(self) -> dict:
        return {}

    # ----------------------------------------------------------------- shared logic
    @property
    def current_player(self) -> int:
        """The player to move (0 in one-player games)."""
        return 0

    def action_masks(self) -> np.ndarray:
        """``bool[n_actions]``, True = legal; all False only once the game is over."""
        if self._is_over():
            return np.zeros(self.action_space.n, dtype=bool)
        return self._legal_mask().copy()

    def _info(self) -> dict:
        info = {"action_mask": self.action_masks()}
        info.update(self._info_extra())
        return info

    def _check_action(self, action) -> int:
        if type(action) is int and 0 <= action < self.action_space.n:
            return action  # the common case, checked cheaply
        try:
            a = int(action)
        except (TypeError, ValueError, OverflowError):  # e.g. None, "x", nan, inf
            raise ValueError(
                f"action {action!r} is not an integer; {self.spec_id()} accepts "
                f"0..{self.action_space.n - 1}"
            ) from None
        if a != action or not 0 <= a < self.action_space.n:
            raise ValueError(
                f"action {action!r} is out of range; {self.spec_id()} accepts "
                f"0..{self.action_space.n - 1}"
            )
        return a

    def spec_id(self) -> str:
        """The registered id (``"Threes-v0"``), or the class name of an env made
        without ``gym.make``."""
        return self.spec.id if self.spec is not None else type(self).__name__

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._reset_state(options)
        self._started = True
        self._noops = 0
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        a = self._check_action(action)
        if not self._started:
            raise RuntimeError(
                f"{self.spec_id()}: step() called before reset(); call reset() first"
            )
        if self._is_over():
            raise RuntimeError(
                f"{self.spec_id()}: step() called after the episode ended; call reset()"
            )
        mask = self._legal_mask()
        if not mask[a]:
            if self.illegal_action == "raise":
                legal = np.flatnonzero(mask).tolist()
                raise ValueError(
                    f"action {a} is illegal in this position; legal actions: {legal} "
                    "(use action_masks(), or illegal_action='noop'/'end')"
                )
            info = self._info()
            info["illegal_action"] = True
            self._noops += 1
            stalled = self.max_noop_moves is not None and (
                self._noops >= self.max_noop_moves
            )
            if stalled:
                info["stalled"] = True
            truncated = self.illegal_action == "end" or stalled
            return self._observation(), 0.0, False, truncated, info
        self._noops = 0
        reward = float(self._apply(a))
        terminated = self._is_over()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, self._info()

    def close(self) -> None:
        """Close the window of ``render_mode="human"``, if one is open."""
        from playahead.envs.human import close_human

        close_human(self)
        super().close()

    # ----------------------------------------------------------------- clone/restore
    @abc.abstractmethod
    def clone_state(self):
        """Subclass hook."""

    @abc.abstractmethod
    def restore_state(self, state) -> None:
        """Subclass hook."""


def check_max_noop_moves(value) -> int | None:
    """``value`` if it is a whole number >= 1 or None, else a ValueError saying so."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < 1
    ):
        raise ValueError(
            f"max_noop_moves={value!r}: give a whole number >= 1, or None "
            "to never truncate repeated no-op moves"
        )
    return value


def check_count(value, field: str, upper: int) -> int:
    """``value`` as an int in ``0..upper``, or a ValueError naming ``field``.

    Restored states come from users too: a float (even ``1.0``), a bool, a string or
    None is refused rather than truncated, so a restored state clones back equal.
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(
            f"{field} must be an integer in 0..{upper}, got {value!r} "
            f"({type(value).__name__})"
        )
    if not 0 <= int(value) <= upper:
        raise ValueError(f"{field} must be in 0..{upper}, got {value}")
    return int(value)


def simulator(env: gym.Env, rng: np.random.Generator) -> gym.Env:
    """A private copy of ``env``'s unwrapped game for look-ahead, drawing chance from
    ``rng``.

    The copy accepts ``restore_state`` of the original's clones; nothing a planner does
    to it touches the real env or its generator. Envs may define ``make_simulator(rng)``
    (playahead's two-player envs return a turn-by-turn copy without the built-in
    opponent); otherwise the unwrapped env is deep-copied and its ``np_random``
    replaced.
    """
    base = env.unwrapped
    if hasattr(base, "make_simulator"):
        return base.make_simulator(rng)
    sim = copy.deepcopy(base)
    sim.render_mode = None
    sim.np_random = rng
    return sim
