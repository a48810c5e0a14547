"""The ``solver`` agent: perfect Connect Four play, ties by its seed, a fallback."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401
from playahead.agents import make_agent
from playahead.envs.connect_four import ConnectFourEnv

LATE = "7422341735647741166133573473242566"  # Pons: -3 1 -1000 -1000 -4 1 -1000


def env_after(moves: str) -> ConnectFourEnv:
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    for ch in moves:
        env.step(int(ch) - 1)
    return env


def test_values_are_pons_scores():
    analysis = make_agent("solver", seed=0).analyze(env_after(LATE))
    assert analysis.value_kind == "pons_score" and analysis.stats["solved"]
    expected = [-3, 1, np.nan, np.nan, -4, 1, np.nan]
    np.testing.assert_array_equal(analysis.values, expected)
    assert analysis.action in (1, 5)


def test_ties_are_broken_by_the_seed():
    actions = {make_agent("solver", seed=s).act(env_after(LATE)) for s in range(20)}
    assert actions == {1, 5}
    first = [make_agent("solver", seed=7).act(env_after(LATE)) for _ in range(3)]
    assert len(set(first)) == 1


def test_takes_an_immediate_win():
    env = env_after("121212")  # red has three in column 1, yellow in column 2
    analysis = make_agent("solver", seed=0).analyze(env)
    assert analysis.action == 0
    assert analysis.values[0] == 18  # red's 4th disc wins
    assert np.nanmax(np.delete(analysis.values, 0)) < 0


def test_blocks_an_immediate_loss():
    env = env_after("121232")  # yellow has three in column 2; red cannot win at once
    analysis = make_agent("solver", seed=0).analyze(env)
    assert analysis.action == 1


def test_unsolved_position_falls_back_to_minimax():
    analysis = make_agent("solver:budget=1000", seed=0).analyze(env_after("4"))
    assert analysis.stats["solved"] is False
    assert analysis.stats["fallback"] == "minimax"
    assert analysis.stats["budget"] == analysis.stats["nodes"] == 1000
    assert analysis.stats["fallback_budget"] == 1_000_000
    assert env_after("4").unwrapped.action_masks()[analysis.action]


def test_hints_say_whether_the_values_are_exact():
    """Solved: exact; the fallback's values: an estimate, named with the solver's
    budget (not minimax's) in the hint's note."""
    from playahead.tools.hint import exactness, hint

    solved = make_agent("solver", seed=0).analyze(env_after(LATE))
    exact, line = exactness(solved)
    assert exact and line.startswith("exact: solved by the Connect Four solver (")
    board = "/".join(["......."] * 5 + ["...x..."])
    result = hint("connect4", board, agent="solver:budget=1000")
    assert exactness(result.analysis)[0] is False
    assert result.note.startswith(
        "estimate: not solved within the solver's 1,000 nodes; minimax's values "
    )
    assert "--agent 'solver:budget=NODES'" in result.note


@pytest.mark.parametrize("spec", ["solver:budget=0", "solver:budget=1000000000000"])
def test_budget_is_checked(spec):
    with pytest.raises(ValueError, match="node budget"):
        make_agent(spec)


def test_other_games_are_refused():
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="Connect Four only"):
        make_agent("solver").analyze(env)
