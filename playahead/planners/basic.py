"""The two baselines every comparison needs: ``random`` and ``greedy``."""

from __future__ import annotations

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.planner import GenericGame, Planner, Root, masked, pick_max


class RandomAgent(Planner):
    """``random``: a uniformly random legal action from the agent's own generator.

    ``analyze`` reports each legal action's probability (``value_kind="probability"``).

    Args:
        seed: seed of the agent's generator (None: fresh entropy).
    """

    name = "random"

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        legal = root.legal
        action = int(legal[rng.integers(legal.size)])
        values = masked(np.full(root.mask.size, 1.0 / legal.size), root.mask)
        return Analysis(action, values, value_kind="probability")


class GreedyAgent(Planner):
    """``greedy``: the legal action with the best one-move reward; ties at random.

    The reward is the env's own (score gained in 2048 and Threes, +1 for a winning move
    in two-player games), with the move's chance drawn from the agent's generator.
    Values are those rewards (``value_kind="reward"``).

    Args:
        seed: seed of the agent's generator, which breaks ties (None: fresh entropy).
    """

    name = "greedy"

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        game = GenericGame(root.env, rng)
        rewards = np.full(root.mask.size, np.nan)
        for a in root.legal:
            _, reward, _ = game.step(game.root, int(a))
            rewards[a] = reward[root.player]
        action = pick_max(rewards, rng)
        stats = {"nodes": int(root.legal.size)}
        return Analysis(action, rewards, value_kind="reward", stats=stats)


register_agent("random", RandomAgent, "uniformly random legal moves")
register_agent("greedy", GreedyAgent, "best one-move reward, ties at random")
