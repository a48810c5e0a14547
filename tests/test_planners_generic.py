"""Planners on envs they know nothing about: the toy games of ``tests/toy_game.py``,
searched only through ``simulator``/``restore_state``/``step``/``action_masks``."""

from __future__ import annotations

import numpy as np
import pytest

import playahead
from playahead.envs.nim import NimEnv
from tests.toy_game import DiceBankEnv, DiceState, PileState, TakeAwayEnv

ONE_PLAYER = [
    "mc:n_rollouts=3000",
    "lookahead:depth=2,n_sims=400",
    "mcts:n_simulations=3000",
    "mcts:n_simulations=3000,rollout=greedy",
]
TWO_PLAYER = [
    "mc:n_rollouts=600",
    "lookahead:depth=3,n_sims=40",
    "mcts:n_simulations=800",
    "minimax",
]


def _dice(pot: int, rolls: int = 0) -> DiceBankEnv:
    env = DiceBankEnv()
    env.reset(seed=0)
    env.restore_state(DiceState(pot, rolls, False))
    return env


def _pile(n: int) -> TakeAwayEnv:
    env = TakeAwayEnv(n=n)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("spec", ONE_PLAYER + ["greedy"])
def test_every_planner_banks_a_big_pot(spec):
    analysis = playahead.make_agent(spec, seed=0).analyze(_dice(40))
    assert analysis.action == 0
    assert analysis.stats["backend"] == "generic"


@pytest.mark.parametrize("spec", ONE_PLAYER)
def test_every_planner_rolls_with_nothing_to_lose(spec):
    assert playahead.make_agent(spec, seed=0).act(_dice(0)) == 1


def test_lookahead_values_one_roll_by_its_expectation():
    """Depth 2 from pot 10: bank now is 10, roll then bank is 5/6 * (10 + 4)."""
    analysis = playahead.make_agent("lookahead:depth=2,n_sims=3000", seed=0).analyze(
        _dice(10)
    )
    assert analysis.values[0] == 10.0
    assert analysis.values[1] == pytest.approx(5 / 6 * 14, abs=0.4)


def test_planners_leave_the_env_and_its_generator_alone():
    env = _dice(12, 3)
    state, rng_state = env.clone_state(), env.np_random.bit_generator.state
    for spec in ONE_PLAYER + ["greedy"]:
        playahead.make_agent(spec, seed=1).analyze(env)
    assert env.clone_state() == state
    assert env.np_random.bit_generator.state == rng_state


@pytest.mark.parametrize("spec", ["mc:n_rollouts=200", "mcts:n_simulations=200"])
def test_env_generator_does_not_change_the_decision(spec):
    first, second = _dice(17, 2), _dice(17, 2)
    second.np_random = np.random.default_rng(12345)
    a = playahead.make_agent(spec, seed=3).analyze(first)
    b = playahead.make_agent(spec, seed=3).analyze(second)
    np.testing.assert_array_equal(a.values, b.values)


@pytest.mark.parametrize("spec", TWO_PLAYER)
def test_two_player_planners_take_the_last_sticks(spec):
    for n in (1, 2):
        assert playahead.make_agent(spec, seed=0).act(_pile(n)) == n - 1


def test_generic_minimax_solves_take_away():
    agent = playahead.make_agent("minimax", seed=0)
    for n in range(1, 16):
        analysis = agent.analyze(_pile(n))
        assert analysis.value_kind == "solved"
        wins = n % 3 != 0
        assert np.nanmax(analysis.values) == (1.0 if wins else -1.0)
        if wins:
            assert (n - analysis.action - 1) % 3 == 0


@pytest.mark.parametrize("spec", TWO_PLAYER[1:])
@pytest.mark.parametrize("n", [4, 5, 7, 8])
def test_search_finds_the_winning_take(spec, n):
    take = playahead.make_agent(spec, seed=0).act(_pile(n)) + 1
    assert (n - take) % 3 == 0


def test_planners_search_for_whichever_player_moves():
    env = _pile(7)
    env.restore_state(PileState(7, 1))
    analysis = playahead.make_agent("minimax", seed=0).analyze(env)
    assert analysis.action == 0 and analysis.values[0] == 1.0


@pytest.mark.kernel
@pytest.mark.parametrize("spec", ["mcts:n_simulations=2000", "mc:n_rollouts=2000"])
def test_generic_and_compiled_search_agree_on_nim(spec):
    env = NimEnv(n=9, k=3, opponent=None)
    env.reset(seed=0)
    fast = playahead.make_agent(spec, seed=0).analyze(env)
    slow = playahead.make_agent(spec + ",compiled=false", seed=0).analyze(env)
    assert (fast.stats["backend"], slow.stats["backend"]) == ("nim", "generic")
    assert fast.action == slow.action == 0  # take 1, leave 8
    np.testing.assert_allclose(fast.values, slow.values, atol=0.15)


def test_minimax_needs_two_players():
    with pytest.raises(ValueError, match="two-player"):
        playahead.make_agent("minimax").act(_dice(3))
