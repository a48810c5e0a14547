"""The default ``expectimax`` plays the same moves whatever the clocks say and whatever
else runs on the machine: its budget counts nodes, so a game replays exactly."""

import subprocess
import sys
import time

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead.agents import make_agent
from tests.helpers.clocks import fast_clocks, game, same_moves

CASES = [
    ("Threes-v0", "expectimax", 6),
    ("2048-v0", "expectimax", 25),
    # a budget that binds: the cut decisions must not depend on time either
    ("Threes-v0", "expectimax:budget=200000", 12),
    ("2048-v0", "expectimax:budget=1000", 25),  # the shipped net's search
    ("2048-v0", "expectimax:budget=20000,evaluator=monotonic", 25),
]


@pytest.mark.parametrize(("env_id", "spec", "moves"), CASES)
def test_fast_clocks_play_the_same_moves(env_id, spec, moves, monkeypatch):
    plain = game(env_id, spec, moves)
    if "budget" in spec:
        assert any(cut for *_, cut in plain), "the budget should bind somewhere"
    with monkeypatch.context() as patch:
        fast_clocks(patch)
        assert time.perf_counter() >= 0  # the patch is in place
        fast = game(env_id, spec, moves)
    same_moves(plain, fast)


@pytest.mark.parametrize(("env_id", "spec", "moves"), CASES[2:])
def test_a_cpu_hog_beside_the_game_changes_no_move(env_id, spec, moves):
    plain = game(env_id, spec, moves)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = game(env_id, spec, moves)
    finally:
        hog.kill()
        hog.wait()
    same_moves(plain, loaded)


def decisions(env_id: str, spec: str, moves: int) -> list[tuple]:
    """The first ``moves`` decisions of any planner: (action, values, visits)."""
    env = gym.make(env_id)
    env.reset(seed=3)
    agent = make_agent(spec, seed=3)
    out = []
    for _ in range(moves):
        analysis = agent.analyze(env)
        visits = None if analysis.visits is None else list(analysis.visits)
        out.append((analysis.action, np.nan_to_num(analysis.values), visits))
        _, _, over, truncated, _ = env.step(analysis.action)
        if over or truncated:
            break
    return out


@pytest.mark.parametrize(
    ("env_id", "spec"),
    [
        ("2048-v0", "mc"),
        ("Threes-v0", "mcts"),
        ("2048-v0", "lookahead"),
        ("TicTacToe-v0", "minimax"),
        ("ConnectFour-v0", "minimax:budget=300000"),
    ],
)
def test_other_planners_defaults_read_no_clock(env_id, spec, monkeypatch):
    plain = decisions(env_id, spec, 3)
    with monkeypatch.context() as patch:
        fast_clocks(patch)
        fast = decisions(env_id, spec, 3)
    assert len(plain) == len(fast) == 3
    for a, b in zip(plain, fast, strict=True):
        assert a[0] == b[0] and a[2] == b[2]
        np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("compiled", [True, False])
def test_a_minimax_budget_stops_the_deepening_by_count(compiled, monkeypatch):
    """``minimax:budget=N`` plays the deepest iteration completed within N nodes,
    compiled or through clone/restore, and the same one under fast clocks."""
    env = gym.make("ConnectFour-v0")
    env.reset(seed=0)
    budget = 30_000 if compiled else 3_000
    spec = f"minimax:budget={budget},compiled={compiled}"
    with monkeypatch.context() as patch:
        fast_clocks(patch)
        fast = make_agent(spec, seed=0).analyze(env)
    plain = make_agent(spec, seed=0).analyze(env)
    assert 1 < plain.stats["depth"] and plain.stats["nodes"] <= budget
    assert plain.stats["budget"] == budget and plain.stats["budget_cut"]
    deeper = make_agent(f"minimax:depth={plain.stats['depth'] + 1}", seed=0)
    assert deeper.analyze(env).stats["nodes"] > budget  # the next depth did not fit
    fast.stats.pop("seconds"), plain.stats.pop("seconds")
    assert (fast.action, fast.stats) == (plain.action, plain.stats)
    np.testing.assert_array_equal(fast.values, plain.values)
