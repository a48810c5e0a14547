"""The small agents the evaluation tests play (``evaltest_*``), registered on import;
worker processes import this module by name (``imports=[AGENTS_MODULE]``) to get them
too."""

from __future__ import annotations

import time

import numpy as np

import playahead

AGENTS_MODULE = "tests.helpers.eval_agents"


class Lowest:
    """Always the lowest legal action (deterministic)."""

    def __init__(self, seed: int | None = None):
        self.seed = seed

    def act(self, env) -> int:
        return int(np.flatnonzero(env.unwrapped.action_masks())[0])


class Dawdle:
    """A uniformly random legal action from its own generator, after ``delay`` s."""

    def __init__(self, seed: int | None = None, delay: float = 0.0):
        self.rng = np.random.default_rng(seed)
        self.delay = delay

    def act(self, env) -> int:
        if self.delay:
            time.sleep(self.delay)
        legal = np.flatnonzero(env.unwrapped.action_masks())
        return int(legal[self.rng.integers(legal.size)])


class NimPerfect:
    """Nim's winning strategy: leave a multiple of k + 1 (else take one)."""

    def act(self, env) -> int:
        pile, k = int(env.unwrapped.board[0]), env.unwrapped.k
        take = pile % (k + 1)
        return take - 1 if take else 0


class ThreesOnly:
    """Reads the Threes deck, so it cannot play anything else."""

    def act(self, env) -> int:
        if env.unwrapped.next_card is None:  # AttributeError outside Threes
            return 0
        return int(np.flatnonzero(env.unwrapped.action_masks())[0])


class AlwaysThree:
    """Action 3 whatever the position (illegal in many)."""

    def act(self, env) -> int:
        return 3


for _name, _factory in {
    "evaltest_lowest": Lowest,
    "evaltest_lowest_twin": Lowest,
    "evaltest_dawdle": Dawdle,
    "evaltest_nim_perfect": NimPerfect,
    "evaltest_threes_only": ThreesOnly,
    "evaltest_always_three": AlwaysThree,
}.items():
    try:
        playahead.register_agent(_name, _factory)
    except ValueError:  # imported twice under two module names
        pass
