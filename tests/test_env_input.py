"""Hostile input to the envs: a clear ValueError or RuntimeError, never a crash or a
silently truncated state (issue: env.step(inf), restore_state with wrong types)."""

import dataclasses
import math

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playahead  # noqa: F401  (registers the ids)

IDS = ["2048-v0", "Threes-v0", "TicTacToe-v0", "ConnectFour-v0", "Nim-v0", "Chips-v0"]
BAD_ACTIONS = [math.inf, -math.inf, math.nan, 1.5, 10**30, -1, None, "1", [0]]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_bad_action_is_a_value_error(env_id, action):
    env = gym.make(env_id)
    env.reset(seed=0)
    before = env.unwrapped.clone_state()
    with pytest.raises(ValueError, match="accepts 0"):
        env.step(action)
    assert env.unwrapped.clone_state() == before  # nothing moved


@pytest.mark.parametrize("env_id", IDS)
def test_numpy_integer_and_integral_float_actions_are_accepted(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(np.int64(legal))
    _, info = env.reset(seed=0)
    env.step(float(legal))


@pytest.mark.parametrize("env_id", IDS)
def test_step_before_reset_says_call_reset(env_id):
    env = gym.make(env_id).unwrapped
    with pytest.raises(RuntimeError, match=r"before reset\(\); call reset\(\) first"):
        env.step(0)


@pytest.mark.parametrize(
    ("env_id", "field", "value"),
    [
        ("2048-v0", "score", "x"),
        ("2048-v0", "score", -1),
        ("2048-v0", "moves", None),
        ("2048-v0", "moves", math.inf),
        ("2048-v0", "moves", 1.5),
        ("2048-v0", "moves", 2.0),
        ("2048-v0", "moves", True),
        ("2048-v0", "moves", 2**53),
        ("Threes-v0", "moves", None),
        ("Threes-v0", "moves", math.inf),
        ("Threes-v0", "moves", 1.5),
        ("Threes-v0", "cards", "17536"),
        ("Threes-v0", "cards", 17536.0),
        ("Threes-v0", "cards", 1 << 17),
    ],
)
def test_restore_refuses_wrong_field_types(env_id, field, value):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    state = env.clone_state()
    with pytest.raises(ValueError, match=field):
        env.restore_state(dataclasses.replace(state, **{field: value}))
    assert env.clone_state() == state  # the env keeps its position


@settings(max_examples=40, deadline=None)
@given(moves=st.integers(0, 2**53 - 1), score=st.integers(0, 2**53 - 1))
def test_restored_counts_clone_back_equal(moves, score):
    env = gym.make("2048-v0").unwrapped
    env.reset(seed=0)
    state = dataclasses.replace(env.clone_state(), moves=moves, score=score)
    env.restore_state(state)
    assert env.clone_state() == state


def test_restore_without_reset_then_step():
    source = gym.make("Threes-v0").unwrapped
    source.reset(seed=1)
    fresh = gym.make("Threes-v0").unwrapped
    fresh.restore_state(source.clone_state())
    legal = int(np.flatnonzero(fresh.action_masks())[0])
    fresh.step(legal)  # restoring a position is as good as a reset
