"""What every planner promises: specs, options, legal moves, determinism, fairness."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playahead
from playahead.envs.connect_four import ConnectFourEnv
from playahead.envs.nim import NimEnv
from playahead.envs.tictactoe import TicTacToeEnv
from playahead.envs.tiles import Twenty48State
from playahead.games import twenty48

# Small budgets: these tests are about contracts, not strength.
TILE_SPECS = [
    "random",
    "greedy",
    "mc:n_rollouts=16",
    "lookahead:depth=2,n_sims=2",
    "lookahead:depth=2,n_sims=2,empty_bonus=true",
    "mcts:n_simulations=24",
    "mcts:n_simulations=24,rollout=greedy,rollout_depth=5",
]
DUEL_SPECS = [
    "random",
    "greedy",
    "mc:n_rollouts=40",
    "mc:n_rollouts=40,scoring=squares",
    "lookahead:depth=2,n_sims=4",
    "mcts:n_simulations=60",
    "minimax:depth=3",
]


def _tile_env(game: str, seed: int, moves: int):
    """A 2048 or Threes env after ``moves`` random legal moves from ``reset(seed)``."""
    env = gym.make("2048-v0" if game == "2048" else "Threes-v0")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        _, _, done, _, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        if done:
            break
    return env


@pytest.mark.parametrize(
    ("spec", "name", "options"),
    [
        ("mc:n_rollouts=50", "mc", {"n_rollouts": 50}),
        ("lookahead:depth=3,n_sims=20", "lookahead", {"depth": 3, "n_sims": 20}),
        ("mcts:n_simulations=400,c=1.4", "mcts", {"n_simulations": 400, "c": 1.4}),
        ("minimax:depth=8", "minimax", {"depth": 8}),
    ],
)
def test_make_agent_reads_spec_options(spec, name, options):
    agent = playahead.make_agent(spec)
    assert agent.name == name
    for key, value in options.items():
        assert getattr(agent, key) == value


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:foo=1", ["foo", "n_simulations", "rollout_depth"]),
        ("mcts:n_simulations=0", ["n_simulations", "positive"]),
        ("mcts:n_simulations=10000001", ["n_simulations", "at most 10,000,000"]),
        ("mcts:rollout=smart", ["rollout", "random", "greedy"]),
        ("mc:scoring=cells", ["scoring", "squares"]),
        ("lookahead:depth=1.5", ["depth", "integer"]),
        ("mc:n_rollouts=none", ["n_rollouts", "time_limit"]),
        ("minimax:time_limit=-1", ["time_limit"]),
        ("greedy:seed=x", ["seed"]),
        ("montecarlo", ["montecarlo", "mcts", "minimax"]),
    ],
)
def test_bad_specs_raise_clear_errors(spec, words):
    with pytest.raises(ValueError) as err:
        playahead.make_agent(spec)
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize(
    ("spec", "env", "words"),
    [
        ("minimax", gym.make("2048-v0"), ["two-player", "expectimax"]),
        ("mc:scoring=squares", NimEnv(opponent=None), ["squares", "nim"]),
        ("lookahead:empty_bonus=true", TicTacToeEnv(opponent=None), ["empty_bonus"]),
    ],
)
def test_planner_refuses_a_game_it_cannot_search(spec, env, words):
    env.reset(seed=0)
    with pytest.raises(ValueError) as err:
        playahead.make_agent(spec).act(env)
    for word in words:
        assert word in str(err.value)


def test_finished_game_is_an_error():
    env = NimEnv(n=2, k=3, opponent=None)
    env.reset(seed=0)
    env.step(1)
    with pytest.raises(ValueError, match="game is over"):
        playahead.make_agent("mcts").act(env)


@settings(max_examples=12)
@given(
    game=st.sampled_from(["2048", "Threes"]),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 150),
    spec=st.sampled_from(TILE_SPECS),
)
def test_tile_planners_only_choose_legal_moves(game, seed, moves, spec):
    env = _tile_env(game, seed, moves)
    mask = env.unwrapped.action_masks()
    if not mask.any():
        return
    analysis = playahead.make_agent(spec, seed=seed).analyze(env)
    assert mask[analysis.action]
    assert analysis.values.shape == (4,)
    assert np.isnan(analysis.values[~mask]).all()
    assert not np.isnan(analysis.values[mask]).any()


@pytest.mark.parametrize("spec", DUEL_SPECS)
@pytest.mark.parametrize("make", [TicTacToeEnv, ConnectFourEnv])
def test_duel_planners_only_choose_legal_moves(spec, make):
    env = make(opponent=None)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    agent = playahead.make_agent(spec, seed=2)
    while env.unwrapped.action_masks().any():
        mask = env.unwrapped.action_masks()
        analysis = agent.analyze(env)
        assert mask[analysis.action]
        assert np.isnan(analysis.values[~mask]).all()
        action = (
            analysis.action if rng.random() < 0.5 else rng.choice(np.flatnonzero(mask))
        )
        env.step(int(action))


@pytest.mark.parametrize(
    "spec", TILE_SPECS[1:] + ["mcts:n_simulations=24,compiled=false"]
)
@pytest.mark.parametrize("game", ["2048", "Threes"])
def test_same_seed_same_decision(spec, game):
    env = _tile_env(game, 5, 20)
    a = playahead.make_agent(spec, seed=11).analyze(env)
    b = playahead.make_agent(spec, seed=11).analyze(env)
    assert a.action == b.action
    np.testing.assert_array_equal(a.values, b.values)


@pytest.mark.parametrize("spec", DUEL_SPECS[1:])
def test_same_seed_same_decision_in_two_player_games(spec):
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    for column in (3, 3, 2):
        env.step(column)
    a = playahead.make_agent(spec, seed=4).analyze(env)
    b = playahead.make_agent(spec, seed=4).analyze(env)
    assert a.action == b.action
    np.testing.assert_array_equal(a.values, b.values)


@pytest.mark.parametrize("spec", TILE_SPECS[1:])
@pytest.mark.parametrize("game", ["2048", "Threes"])
def test_hidden_future_does_not_change_the_decision(spec, game):
    """Same position and preview, different env generators: same analysis, and the
    env's generator is left untouched."""
    first = _tile_env(game, 3, 30)
    second = _tile_env(game, 4, 0)
    second.unwrapped.restore_state(first.unwrapped.clone_state())
    second.unwrapped.np_random = np.random.default_rng(999)
    before = second.unwrapped.np_random.bit_generator.state
    a = playahead.make_agent(spec, seed=7).analyze(first)
    b = playahead.make_agent(spec, seed=7).analyze(second)
    assert a.action == b.action
    np.testing.assert_array_equal(a.values, b.values)
    assert second.unwrapped.np_random.bit_generator.state == before


def test_analysis_reports_budget_and_visits():
    env = _tile_env("2048", 1, 10)
    analysis = playahead.make_agent("mcts:n_simulations=200,reuse=false").analyze(env)
    assert analysis.stats["simulations"] == 200
    assert analysis.visits.sum() == 200
    most = np.flatnonzero(analysis.visits == analysis.visits.max())
    # the most visited move, ties by value (the agent is unseeded: ties happen)
    assert analysis.action == most[np.argmax(analysis.values[most])]
    assert analysis.stats["seconds"] >= 0
    rollouts = playahead.make_agent("mc:n_rollouts=30").analyze(env)
    assert rollouts.stats["rollouts"] == 30 == rollouts.visits.sum()
    assert rollouts.visits.max() - rollouts.visits[rollouts.visits > 0].min() <= 1


@pytest.mark.parametrize(
    "spec",
    [
        "mc:n_rollouts=none,time_limit=0.05",
        "lookahead:n_sims=none,time_limit=0.05",
        "mcts:n_simulations=none,time_limit=0.05",
    ],
)
def test_time_limit_alone_is_a_budget(spec):
    env = _tile_env("Threes", 2, 5)
    analysis = playahead.make_agent(spec).analyze(env)
    assert env.unwrapped.action_masks()[analysis.action]
    done = [analysis.stats.get(k, 0) for k in ("rollouts", "sims", "simulations")]
    assert max(done) >= 1


def test_minimax_time_limit_keeps_the_last_full_depth():
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    analysis = playahead.make_agent("minimax:time_limit=0.2").analyze(env)
    assert analysis.stats["depth"] >= 1
    assert analysis.value_kind == "heuristic"
    assert np.isfinite(analysis.values).all()


def test_random_agent_is_uniform_over_legal_moves():
    env = NimEnv(n=2, k=3, opponent=None)
    env.reset(seed=0)
    agent = playahead.make_agent("random", seed=0)
    counts = np.bincount([agent.act(env) for _ in range(600)], minlength=3)
    assert counts[2] == 0  # taking 3 of 2 is illegal
    assert 240 < counts[0] < 360


def test_greedy_takes_the_biggest_merge():
    env = gym.make("2048-v0")
    env.reset(seed=0)
    board = twenty48.from_faces([[2, 2, 0, 0], [8, 8, 0, 0], [0] * 4, [0, 0, 0, 4]])
    env.unwrapped.restore_state(Twenty48State(int(board), 0, 0))
    analysis = playahead.make_agent("greedy", seed=0).analyze(env)
    assert analysis.values.tolist() == [0.0, 20.0, 0.0, 20.0]
    assert analysis.action in (1, 3)
