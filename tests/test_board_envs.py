"""The two-player envs: contract, rewards for the right player, opponents, bad input."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import playahead.envs.board_games as board_games
from playahead.envs import ENV_IDS
from playahead.envs.base import simulator
from playahead.envs.board_games import BoardGameState
from playahead.envs.checks import check_game_env
from playahead.envs.connect_four import ConnectFourEnv
from playahead.envs.nim import ChipsEnv, NimEnv
from playahead.envs.tictactoe import TicTacToeEnv

ENTRY_POINTS = {
    "TicTacToe-v0": "playahead.envs.tictactoe:TicTacToeEnv",
    "ConnectFour-v0": "playahead.envs.connect_four:ConnectFourEnv",
    "Nim-v0": "playahead.envs.nim:NimEnv",
    "Chips-v0": "playahead.envs.nim:ChipsEnv",
}
CONFIGS = [
    (cls, kwargs)
    for cls in (TicTacToeEnv, ConnectFourEnv, NimEnv, ChipsEnv)
    for kwargs in (
        {},
        {"opponent": None},
        {"agent_player": 1},
        {"agent_player": "random"},
    )
] + [
    (TicTacToeEnv, {"size": 4}),
    (TicTacToeEnv, {"size": 4, "opponent": None}),
    (NimEnv, {"misere": True}),
    (NimEnv, {"n": 30, "k": 5, "misere": True, "opponent": None}),
    (ChipsEnv, {"rule": "even_total"}),
    (ChipsEnv, {"n": 15, "rule": "even_total", "opponent": None}),
    (ChipsEnv, {"n": 2}),
]


def first_legal(env) -> int:
    """A scripted opponent: the lowest legal action."""
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize(
    ("cls", "kwargs"), CONFIGS, ids=[f"{c.__name__}-{k}" for c, k in CONFIGS]
)
def test_env_contract_holds(cls, kwargs):
    check_game_env(cls(**kwargs))


@pytest.mark.parametrize("env_id", list(ENTRY_POINTS))
def test_gym_make_gives_a_working_env(env_id):
    assert ENV_IDS[env_id][0] == ENTRY_POINTS[env_id]  # the id points at the class
    env = gym.make(env_id, opponent=None)
    base = env.unwrapped
    assert base.opponent is None
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert base.current_player == 0 and base.winner == -1
    mask = info["action_mask"]
    np.testing.assert_array_equal(mask, base.action_masks())
    assert mask.any()
    action = int(np.flatnonzero(mask)[0])
    obs, reward, terminated, truncated, info = env.step(action)
    # turn by turn: the first move ends nothing, and the second player is to move
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.observation_space.contains(obs) and base.current_player == 1
    check_game_env(env)


def test_agent_first_wins_and_second_loses_against_a_scripted_opponent():
    env = TicTacToeEnv(opponent=first_legal)
    env.reset(seed=0)  # X: 0, 3, 6 (a column); O: 1, 2
    steps = [env.step(a) for a in (0, 3, 6)]
    assert [s[1] for s in steps] == [0.0, 0.0, 1.0] and steps[-1][2]
    assert all(s[4]["current_player"] == 0 for s in steps[:2])

    env = TicTacToeEnv(opponent=first_legal, agent_player=1)
    obs, info = env.reset(seed=0)  # the opponent (X) has played 0
    assert env.board[0, 0] == 1 and info["current_player"] == info["agent_player"] == 1
    assert obs[1, 0, 0] == 1 and obs[0].sum() == 0  # planes: own, then the other's
    steps = [env.step(a) for a in (4, 8)]  # X completes 0, 1, 2
    assert [s[1] for s in steps] == [0.0, -1.0] and steps[-1][2]


def test_connect_four_rewards_from_the_agents_side():
    env = ConnectFourEnv(opponent=lambda env: 6)
    env.reset(seed=0)
    assert [env.step(0)[1] for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    env = ConnectFourEnv(opponent=first_legal, agent_player=1)
    env.reset(seed=0)
    rewards = [env.step(6)[1] for _ in range(3)]
    assert rewards == [0.0, 0.0, -1.0] and env.winner == 0


def test_turn_by_turn_reward_goes_to_the_player_who_moved():
    env = TicTacToeEnv(opponent=None)
    _, info = env.reset(seed=0)
    players, rewards = [info["current_player"]], []
    for a in (0, 3, 1, 4, 2):  # X completes the top row on the fifth ply
        _, reward, terminated, _, info = env.step(a)
        rewards.append(reward)
        players.append(info["current_player"])
    assert rewards == [0, 0, 0, 0, 1.0] and terminated
    assert players[:5] == [0, 1, 0, 1, 0]


@pytest.mark.parametrize(("misere", "reward"), [(False, 1.0), (True, -1.0)])
def test_taking_the_last_stick_wins_or_loses_the_movers_reward(misere, reward):
    env = NimEnv(n=5, k=3, misere=misere, opponent=None)
    env.reset(seed=0)
    assert env.step(2)[1] == 0.0  # player 0 takes 3
    _, r, terminated, _, info = env.step(1)  # player 1 takes the last 2
    assert terminated and r == reward and env.winner == (1 if not misere else 0)
    env = NimEnv(n=5, k=3, misere=misere, opponent=lambda env: 0)
    env.reset(seed=0)  # agent takes 3, the opponent 1, the agent the last one
    assert [env.step(a)[1] for a in (2, 0)] == [0.0, reward]


def test_even_total_mover_can_lose_by_emptying_the_pile():
    env = ChipsEnv(n=5, rule="even_total", opponent=None)
    env.reset(seed=0)
    rewards = [env.step(a)[1] for a in (0, 1, 1)]  # P0 1, P1 2, P0 the last 2
    assert rewards == [0.0, 0.0, -1.0] and env.winner == 1
    assert env.board.tolist() == [0, 3, 2, 0]


def test_random_agent_player_draws_both_sides_from_the_seed():
    env = TicTacToeEnv(agent_player="random")
    sides = [env.reset(seed=s)[1]["agent_player"] for s in range(20)]
    assert set(sides) == {0, 1}
    assert sides == [env.reset(seed=s)[1]["agent_player"] for s in range(20)]
    for s, side in enumerate(sides):
        env.reset(seed=s)
        assert np.count_nonzero(env.board) == side


def test_spec_opponent_is_built_once_per_episode_with_a_seed(monkeypatch):
    built = []

    class Agent:
        def act(self, env):
            return first_legal(env)

    def fake_make_agent(spec, seed):
        built.append((spec, seed))
        return Agent()

    monkeypatch.setattr(board_games, "make_agent", fake_make_agent)
    env = ConnectFourEnv(opponent="mcts:n_simulations=10")
    env.reset(seed=3)
    assert built == []  # lazily: no opponent move yet
    env.step(3)
    env.step(3)
    env.reset(seed=3)
    env.step(3)
    assert len(built) == 2 and built[0] == built[1]
    assert built[0][0] == "mcts:n_simulations=10"


def test_illegal_opponent_move_raises():
    env = TicTacToeEnv(opponent=lambda env: 0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="opponent"):
        env.step(0)


@pytest.mark.parametrize(
    ("env", "action"),
    [(TicTacToeEnv(), 9), (TicTacToeEnv(), -1), (ConnectFourEnv(), 7), (NimEnv(), 3)]
    + [(ChipsEnv(n=9), 8), (NimEnv(), 1.5), (NimEnv(), "1")],
)
def test_out_of_range_action_raises(env, action):
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(action)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (ConnectFourEnv(), TicTacToeEnv()),
        (TicTacToeEnv(), TicTacToeEnv(size=4)),
        (NimEnv(k=3), NimEnv(k=4)),
        (NimEnv(), NimEnv(misere=True)),
        (NimEnv(), ChipsEnv()),
        (ChipsEnv(rule="last_chip"), ChipsEnv(rule="even_total")),
    ],
)
def test_restoring_a_foreign_state_raises(source, target):
    source.reset(seed=0)
    with pytest.raises(ValueError, match="cannot restore"):
        target.restore_state(source.clone_state())


@pytest.mark.parametrize(
    "state",
    [
        "not a state",
        BoardGameState("TicTacToe", (("size", 3),), (1, 1, 0, 0, 0, 0, 0, 0, 0)),
        BoardGameState("TicTacToe", (("size", 3),), (0,) * 8),
        BoardGameState("TicTacToe", (("size", 3),), (0,) * 9, agent_player=2),
        BoardGameState("ConnectFour", (), (2, 0)),  # a floating disc
        BoardGameState("ConnectFour", (), (1, 1)),
        BoardGameState("Nim", (("k", 3), ("misere", False), ("n", 21)), (21, 0, 3)),
        BoardGameState("Nim", (("k", 3), ("misere", False), ("n", 21)), (9,) * 6),
    ],
)
def test_restoring_a_malformed_state_raises(state):
    env = {"Nim": NimEnv, "ConnectFour": ConnectFourEnv}.get(
        getattr(state, "game", ""), TicTacToeEnv
    )(opponent=None)
    with pytest.raises(ValueError):
        env.restore_state(state)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ChipsEnv(n=4, rule="even_total"),
        lambda: ChipsEnv(n=1),
        lambda: NimEnv(n=0),
        lambda: TicTacToeEnv(size=1),
        lambda: TicTacToeEnv(agent_player=2),
        lambda: TicTacToeEnv(opponent=42),
        lambda: TicTacToeEnv(opponent="mcts:n_simulations"),
    ],
)
def test_invalid_options_raise(make):
    with pytest.raises(ValueError):
        make()


def test_simulator_is_a_turn_by_turn_copy_that_accepts_clones():
    env = NimEnv(n=21, k=3, agent_player=1)
    env.reset(seed=5)
    state = env.clone_state()
    rng = np.random.default_rng(0)
    sim = simulator(env, rng)
    assert sim.opponent is None and sim.np_random is rng
    assert sim.clone_state() == state and sim.current_player == 1
    sim.step(0)  # a ply by the agent's side, then the other side may move in sim
    assert sim.current_player == 0 and env.clone_state() == state
    sim.restore_state(state)
    assert sim.clone_state() == state
    # a turn-by-turn state gives the agent the side to move
    turn = NimEnv(opponent=None)
    turn.reset(seed=0)
    turn.step(0)
    env.restore_state(dataclasses.replace(turn.clone_state(), agent_player=None))
    assert env.clone_state().agent_player == 1
    with pytest.raises(ValueError, match="to move"):
        env.restore_state(dataclasses.replace(turn.clone_state(), agent_player=0))


@pytest.mark.parametrize("cls", [TicTacToeEnv, ConnectFourEnv, NimEnv, ChipsEnv])
def test_render_modes(cls):
    env = cls(render_mode="ansi")
    env.reset(seed=0)
    env.step(first_legal(env))
    text = env.render()
    assert isinstance(text, str) and "\x1b[" in text and "to move" in text
    env = cls(render_mode="rgb_array")
    env.reset(seed=0)
    env.step(first_legal(env))
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) >= 3


@pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="already running without JIT"
)
def test_kernels_pass_their_tests_as_plain_python():
    tests = Path(__file__).parent
    files = [str(tests / f) for f in ("test_tictactoe.py", "test_connect_four.py")]
    files.append(str(tests / "test_nim_chips.py"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1", "HYPOTHESIS_PROFILE": "nojit"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_text_board_tells_the_sides_apart_without_colour():
    from playahead.tools.games import strip_ansi

    env = ConnectFourEnv(opponent=None, render_mode="ansi")
    env.reset(seed=0)
    env.step(3)  # X (red)
    env.step(4)  # O (yellow)
    lines = strip_ansi(env.render()).splitlines()
    assert lines[5] == ". . . X O . ."
    assert lines[-1] == "X (red) to move"


@pytest.mark.parametrize(
    ("opponent", "words"),
    [
        ("mcts:n_sim=3", ["no option(s) 'n_sim'", "n_simulations"]),
        ("alphago", ["unknown agent 'alphago'", "available:"]),
        ("mcts:n_simulations", ["not key=value"]),
    ],
)
def test_a_bad_opponent_spec_fails_at_construction(opponent, words):
    with pytest.raises(ValueError) as err:
        gym.make("TicTacToe-v0", opponent=opponent)
    for word in words:
        assert word in str(err.value)
    env = gym.make("TicTacToe-v0", opponent="mcts:n_simulations=3")  # a good one
    env.reset(seed=0)
