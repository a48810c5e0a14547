"""The PettingZoo AEC views pass PettingZoo's own api_test and score games correctly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

with warnings.catch_warnings():  # pettingzoo.test imports its deprecated env modules
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test

from playahead.envs.pettingzoo_aec import aec_env  # noqa: E402

GAMES = [
    ("TicTacToe-v0", {}),
    ("tictactoe", {"size": 4}),
    ("ConnectFour-v0", {}),
    ("Nim-v0", {}),
    ("nim", {"n": 12, "k": 4, "misere": True}),
    ("Chips-v0", {}),
    ("playahead/Chips-v0", {"n": 15, "rule": "even_total"}),
]


@pytest.mark.parametrize(("name", "rules"), GAMES, ids=[g[0] for g in GAMES])
def test_api_test_passes(name, rules):
    with warnings.catch_warnings():
        # api_test's generic hints about dict observations, as for PettingZoo's own
        # classic games
        warnings.filterwarnings("ignore", message="Observation (is not|space for)")
        warnings.filterwarnings("ignore", message="Observation numpy array is all")
        api_test(aec_env(name, **rules), num_cycles=200)


def test_winner_gets_plus_one_and_loser_minus_one():
    env = aec_env("TicTacToe-v0")
    env.reset(seed=0)
    for action in (0, 3, 1, 4, 2):  # player_0 completes the top row
        assert env.observe(env.agent_selection)["action_mask"][action] == 1
        env.step(action)
    assert env.rewards == {"player_0": 1, "player_1": -1}
    assert all(env.terminations.values())
    obs, reward, terminated, _, _ = env.last()
    assert env.agent_selection == "player_1" and reward == -1 and terminated
    assert not obs["action_mask"].any()


def test_observation_is_from_the_observing_agents_side():
    env = aec_env("ConnectFour-v0")
    env.reset(seed=0)
    env.step(3)
    mine = env.observe("player_0")["observation"]
    theirs = env.observe("player_1")["observation"]
    assert mine[0, 5, 3] == 1 and theirs[1, 5, 3] == 1
    assert env.observe("player_0")["action_mask"].sum() == 0  # not its turn
    assert env.observe("player_1")["action_mask"].dtype == np.int8


def test_unknown_game_raises():
    with pytest.raises(ValueError, match="unknown game"):
        aec_env("Chess-v0")
