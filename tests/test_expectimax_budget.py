"""The default per-decision budget of ``expectimax``: shallower searches first, a deeper
one only if it is predicted to fit, abandoned at the node limit the rest of the budget
buys; clocks are faked, never timed."""

import itertools

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead.planners import expectimax
from playahead.planners.expectimax import (
    AUTO_PROB_CUTOFF,
    DEFAULT_BUDGET,
    ExpectimaxAgent,
)


def played(env_id, seed, moves):
    env = gym.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    over = False
    for _ in range(moves):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, over, _, _ = env.step(int(rng.choice(legal)))
        if over:
            break
    assert not over, "pick fewer moves: the game ended"
    return env


def fixed(env_id, depth):
    """A fixed-depth search at the automatic depth's cut-off (Threes: 1e-3), the same
    search the budget's shallower steps make."""
    cutoff = AUTO_PROB_CUTOFF[env_id.split("-")[0]]
    return ExpectimaxAgent(seed=0, depth=depth, budget=None, prob_cutoff=cutoff)


def fake_clock(monkeypatch, step):
    """Each reading of the CPU clock is ``step`` seconds after the last."""
    ticks = itertools.count()
    monkeypatch.setattr(expectimax.time, "thread_time", lambda: step * next(ticks))


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_budget_that_never_binds_gives_the_unbudgeted_decision(env_id, monkeypatch):
    fake_clock(monkeypatch, 0.0)
    for seed in range(3):
        env = played(env_id, seed, 8)
        with_budget = ExpectimaxAgent(seed=0).analyze(env)
        without = ExpectimaxAgent(seed=0, budget=None).analyze(env)
        np.testing.assert_array_equal(with_budget.values, without.values)
        assert with_budget.stats["depth"] == without.stats["depth"] >= 3
        assert not with_budget.stats["budget_cut"]


def test_a_slow_shallow_search_stops_short_of_the_full_depth(monkeypatch):
    env = played("Threes-v0", 1, 8)
    full = ExpectimaxAgent(seed=0, budget=None).analyze(env).stats["depth"]
    # the shallowest search "takes" 0.2 s: 8 x 0.2 s > the 1 s budget
    fake_clock(monkeypatch, 0.2)
    cut = ExpectimaxAgent(seed=0).analyze(env)
    assert cut.stats["budget_cut"] and cut.stats["depth"] == full - 2
    shallower = fixed("Threes-v0", full - 2).analyze(env)
    np.testing.assert_array_equal(cut.values, shallower.values)


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_a_search_that_runs_long_is_abandoned_at_the_node_limit(env_id, monkeypatch):
    env = played(env_id, 2, 15)
    full = ExpectimaxAgent(seed=0, budget=None).analyze(env).stats["depth"]
    # the clock stands still, so every search is predicted to fit; the assumed node
    # rate makes the budget buy 50 nodes, which the second search passes
    fake_clock(monkeypatch, 0.0)
    monkeypatch.setattr(expectimax, "DEFAULT_NODE_RATE", 50)
    cut = ExpectimaxAgent(seed=0).analyze(env)
    assert cut.stats["budget_cut"] and cut.stats["depth"] == full - 2
    assert cut.stats["nodes"] > 50
    shallowest = fixed(env_id, full - 2).analyze(env)
    np.testing.assert_array_equal(cut.values, shallowest.values)
    # with the rate the kernels really reach, the same position is searched in full
    monkeypatch.setattr(expectimax, "DEFAULT_NODE_RATE", 10**12)
    whole = ExpectimaxAgent(seed=0).analyze(env)
    assert whole.stats["depth"] == full and not whole.stats["budget_cut"]


def test_budget_applies_only_to_the_automatic_depth(monkeypatch):
    fake_clock(monkeypatch, 10.0)
    env = played("2048-v0", 0, 20)
    assert ExpectimaxAgent(seed=0, depth=2).analyze(env).stats["depth"] == 2


@pytest.mark.parametrize("bad", [0, -1, 1e9, "fast", True])
def test_bad_budget_is_refused(bad):
    with pytest.raises(ValueError, match="budget"):
        ExpectimaxAgent(budget=bad)


def test_default_budget_is_documented_and_one_second():
    assert DEFAULT_BUDGET == 1.0
    assert ExpectimaxAgent().budget == DEFAULT_BUDGET
    assert "budget" in ExpectimaxAgent.__doc__


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_a_cheap_last_search_sends_the_next_decision_straight_to_it(
    env_id, monkeypatch
):
    fake_clock(monkeypatch, 0.0)  # every search "takes" no time: cheap
    env = played(env_id, 3, 10)
    # a fixed automatic depth (Threes: always max_depth), so the next board has it too
    depths = {"min_depth": 3, "max_depth": 3} if env_id == "2048-v0" else {}
    agent = ExpectimaxAgent(seed=0, **depths)
    first = agent.analyze(env)
    goal = first.stats["depth"]
    assert first.stats["searches"] == list(range(goal - 2, goal + 1))
    env.step(first.action)
    second = agent.analyze(env)
    assert second.stats["depth"] == goal
    assert second.stats["searches"] == [goal] and not second.stats["budget_cut"]
    alone = ExpectimaxAgent(seed=0, budget=None, **depths).analyze(env)
    np.testing.assert_array_equal(second.values, alone.values)


def test_a_direct_search_that_runs_long_falls_back_to_shallower_ones(monkeypatch):
    fake_clock(monkeypatch, 0.0)
    env = played("Threes-v0", 2, 15)
    agent = ExpectimaxAgent(seed=0)
    goal = agent.analyze(env).stats["depth"]
    # now the budget buys 50 nodes: the direct search, then the second shallower
    # one, pass that; the decision is the shallowest search's
    monkeypatch.setattr(expectimax, "DEFAULT_NODE_RATE", 50)
    cut = agent.analyze(env)
    assert cut.stats["searches"] == [goal, goal - 2, goal - 1]
    assert cut.stats["budget_cut"] and cut.stats["depth"] == goal - 2
    shallowest = fixed("Threes-v0", goal - 2).analyze(env)
    np.testing.assert_array_equal(cut.values, shallowest.values)


@pytest.mark.parametrize(
    ("env_id", "options", "cutoff"),
    [
        ("Threes-v0", {}, 1e-3),  # automatic depth on Threes: the looser cut-off
        ("Threes-v0", {"depth": 3}, 1e-4),
        ("2048-v0", {}, 1e-4),
        ("2048-v0", {"depth": 4}, 1e-4),
    ],
)
def test_default_cut_off_depends_on_game_and_depth(env_id, options, cutoff):
    # positions where the two cut-offs search different trees
    env = played(env_id, 4, 30 if env_id == "Threes-v0" else 12)
    default = ExpectimaxAgent(seed=0, budget=None, **options).analyze(env)
    given = ExpectimaxAgent(seed=0, budget=None, prob_cutoff=cutoff, **options)
    np.testing.assert_array_equal(default.values, given.analyze(env).values)
    other = 1e-3 if cutoff == 1e-4 else 1e-4
    wrong = ExpectimaxAgent(seed=0, budget=None, prob_cutoff=other, **options)
    assert wrong.analyze(env).stats["nodes"] != default.stats["nodes"]


def test_automatic_depth_threes_goes_to_max_depth_2048_follows_the_board():
    from playahead.planners._expectimax_kernels import distinct_ranks

    threes_env = played("Threes-v0", 5, 6)  # an early board: few distinct cards
    ranks = distinct_ranks(np.uint64(threes_env.unwrapped.clone_state().board))
    assert ranks - 2 < 6
    full = ExpectimaxAgent(seed=0, budget=None).analyze(threes_env)
    assert full.stats["depth"] == 6
    shallow = ExpectimaxAgent(seed=0, budget=None, min_depth=3).analyze(threes_env)
    assert shallow.stats["depth"] == max(3, ranks - 2)
    capped = ExpectimaxAgent(seed=0, budget=None, max_depth=4).analyze(threes_env)
    assert capped.stats["depth"] == 4
    env = played("2048-v0", 5, 6)
    ranks = distinct_ranks(np.uint64(env.unwrapped.clone_state().board))
    got = ExpectimaxAgent(seed=0, budget=None).analyze(env).stats["depth"]
    assert got == min(6, max(3, ranks - 2)) < 6
    assert ExpectimaxAgent(seed=0, budget=None, min_depth=5).analyze(env).stats[
        "depth"
    ] == max(5, ranks - 2)


@pytest.mark.parametrize("bad", [0, -2, 2.5, "deep", True])
def test_bad_min_depth_is_refused(bad):
    with pytest.raises(ValueError, match="min_depth"):
        ExpectimaxAgent(min_depth=bad)
