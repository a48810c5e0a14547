"""Planners on 2048 and Threes: what they promise about the games (the kernels
against plain-Python references are in ``test_planners_kernels.py``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import playahead
from playahead.envs.tiles import Twenty48State
from playahead.games import twenty48
from playahead.kernels import tiles


@pytest.mark.kernel
def test_values_are_final_scores_including_the_score_so_far():
    env = gym.make("2048-v0")
    env.reset(seed=0)
    board = twenty48.from_faces([[2, 2, 4, 8]] + [[0, 0, 0, 0]] * 3)
    env.unwrapped.restore_state(Twenty48State(int(board), 5000, 100))
    for spec in ("mc:n_rollouts=40", "mcts:n_simulations=40", "lookahead:depth=1"):
        values = playahead.make_agent(spec, seed=0).analyze(env).values
        assert np.nanmin(values) >= 5000
    one = playahead.make_agent("lookahead:depth=1,n_sims=3", seed=0).analyze(env)
    # up is illegal; 2+2 merges once left or right, and the new 4 does not merge again
    np.testing.assert_array_equal(one.values, [np.nan, 5004, 5000, 5004])


@pytest.mark.parametrize("game", ["2048-v0", "Threes-v0"])
def test_mcts_beats_greedy_on_average(game):
    """Tiny budgets, the same seeded games for both agents."""

    def play(spec: str, seed: int) -> int:
        env = gym.make(game)
        _, info = env.reset(seed=seed)
        agent = playahead.make_agent(spec, seed=seed)
        done = False
        while not done:
            _, _, done, _, info = env.step(agent.act(env))
        return info["score"]

    greedy = np.mean([play("greedy", s) for s in range(4)])
    mcts = np.mean([play("mcts:n_simulations=16", s) for s in range(4)])
    assert mcts >= greedy


def test_mcts_keeps_the_subtree_of_the_real_move():
    env = gym.make("Threes-v0")
    env.reset(seed=3)
    agent = playahead.make_agent("mcts:n_simulations=300", seed=0)
    first = agent.analyze(env)
    env.step(first.action)
    second = agent.analyze(env)
    assert first.stats["reused_nodes"] == 0
    assert second.stats["reused_nodes"] > 0
    assert second.stats["nodes"] > second.stats["reused_nodes"]
    fresh = playahead.make_agent("mcts:n_simulations=300,reuse=false", seed=0)
    fresh.analyze(env)
    assert fresh.analyze(env).stats["reused_nodes"] == 0


@pytest.mark.kernel
def test_mcts_chance_nodes_share_outcomes():
    """A move into a nearly full 2048 board has few outcomes (2 cells x 2 tiles);
    repeated samples land in the same child instead of making new ones."""
    env = gym.make("2048-v0")
    env.reset(seed=0)
    faces = [[2, 4, 8, 16], [32, 64, 128, 256], [512, 2, 4, 8], [16, 32, 0, 0]]
    env.unwrapped.restore_state(Twenty48State(int(twenty48.from_faces(faces)), 0, 0))
    agent = playahead.make_agent("mcts:n_simulations=400", seed=0)
    analysis = agent.analyze(env)
    assert analysis.visits.sum() == 400
    _, _, links, _, _ = agent._kept[1]
    chance = links[0, tiles.FIRST]
    while chance >= 0:
        outcomes, child = 0, links[chance, tiles.FIRST]
        while child >= 0:
            outcomes += 1
            child = links[child, tiles.NEXT]
        assert 1 <= outcomes <= 4 < links[chance, tiles.VISITS]
        chance = links[chance, tiles.NEXT]
