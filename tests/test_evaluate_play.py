"""One game of an evaluation: seeds, agents from specs, the game loops (with the
small agents of :mod:`tests.helpers.eval_agents`)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from playahead.evaluate.play import (
    AgentError,
    Task,
    build_agent,
    check_agent,
    game_seeds,
    play_task,
)
from tests.helpers.eval_agents import NimPerfect


def test_game_seeds_are_the_spawned_children():
    children = np.random.SeedSequence(7).spawn(5)
    for i, child in enumerate(children):
        words = child.generate_state(3, np.uint64) >> np.uint64(1)
        assert game_seeds(7, i) == tuple(int(w) for w in words)
    assert len({game_seeds(7, i)[0] for i in range(50)}) == 50


def test_spec_seed_is_mixed_in_not_ignored():
    a = build_agent("evaltest_dawdle", 11)
    b = build_agent("evaltest_dawdle:seed=1", 11)
    c = build_agent("evaltest_dawdle:seed=1", 11)
    draws = [agent.rng.integers(1 << 30, size=4).tolist() for agent in (a, b, c)]
    assert draws[0] != draws[1]
    assert draws[1] == draws[2]


def test_agent_without_seed_option_is_built_plain():
    assert isinstance(build_agent("evaltest_nim_perfect", 3), NimPerfect)
    with pytest.raises(ValueError, match="no option"):
        build_agent("evaltest_nim_perfect:depth=3", 3)


def _task(env_id, agents, game_index=0, side=0, seed=0, options="{}"):
    return Task(env_id, options, tuple(agents), game_index, side, seed)


def test_single_player_game_matches_a_hand_played_game():
    record = play_task(_task("2048-v0", ["evaltest_lowest"], game_index=3, seed=5))
    env = gym.make("2048-v0")
    _, info = env.reset(seed=game_seeds(5, 3)[0])
    moves = 0
    while env.unwrapped.action_masks().any():
        _, _, _, _, info = env.step(
            int(np.flatnonzero(env.unwrapped.action_masks())[0])
        )
        moves += 1
    assert (record.score, record.max_tile, record.moves) == (
        info["score"],
        info["max_tile"],
        moves,
    )
    assert record.seed == game_seeds(5, 3)[0]
    assert record.move_seconds.shape == (moves,)


def test_every_agent_meets_the_same_game():
    a = play_task(_task("Threes-v0", ["evaltest_dawdle"], game_index=2, seed=1))
    b = play_task(_task("Threes-v0", ["evaltest_lowest"], game_index=2, seed=1))
    assert a.seed == b.seed
    first = gym.make("Threes-v0")
    second = gym.make("Threes-v0")
    first.reset(seed=a.seed)
    second.reset(seed=b.seed)
    assert first.unwrapped.clone_state() == second.unwrapped.clone_state()


def test_two_player_sides_and_points():
    # Nim 21 take 1..3: the first player wins with perfect play.
    first = play_task(_task("Nim-v0", ["evaltest_nim_perfect", "random"], side=0))
    assert (first.winner, first.score) == (0, 1.0)
    # Moving second against perfect play from a winning start loses.
    second = play_task(_task("Nim-v0", ["random", "evaltest_nim_perfect"], side=1))
    assert (second.winner, second.score) == (0, 0.0)
    assert first.moves == first.move_seconds.size + first.opponent_move_seconds.size


def test_two_player_points_follow_the_side():
    # Two "lowest" players fill cells 0, 1, 2, ...: X completes the 2-4-6 diagonal on
    # the 7th move, whichever agent plays X.
    rec = play_task(
        _task("TicTacToe-v0", ["evaltest_lowest", "evaltest_lowest_twin"], side=0)
    )
    assert rec.winner == 0 and rec.score == 1.0 and rec.moves == 7
    rec = play_task(
        _task("TicTacToe-v0", ["evaltest_lowest", "evaltest_lowest_twin"], side=1)
    )
    assert rec.winner == 0 and rec.score == 0.0


def test_illegal_action_names_agent_and_legal_moves():
    with pytest.raises(
        AgentError, match=r"evaltest_always_three.*legal actions: \[0, 1\]"
    ):
        play_task(
            _task("Nim-v0", ["evaltest_always_three", "random"], options='{"n": 2}')
        )


def test_check_agent_refuses_an_agent_for_another_game():
    with pytest.raises(ValueError, match="evaltest_threes_only.*cannot play 2048-v0"):
        check_agent("2048-v0", "{}", "evaltest_threes_only", False, 0)
    check_agent("Threes-v0", "{}", "evaltest_threes_only", False, 0)
    with pytest.raises(ValueError, match="unknown agent 'nonesuch'"):
        check_agent("2048-v0", "{}", "nonesuch", False, 0)
