"""The default per-decision budget of ``expectimax``, counted in nodes: shallower
searches first, a deeper one only if its nodes are predicted to fit, abandoned at the
budget's last node; no clock is read for any of it."""

import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead._options import field_docs
from playahead.agents import make_agent, resolved_options
from playahead.planners import expectimax
from playahead.planners.expectimax import (
    AUTO_BUDGET,
    AUTO_PROB_CUTOFF,
    DEFAULT_BUDGET,
    MAX_BUDGET,
    MIN_BUDGET,
    ExpectimaxAgent,
    ExpectimaxSettings,
)
from tests.helpers.expectimax import played

#: Each game's hand-made evaluator: the budget's mechanics are shown at their
#: automatic depth (Threes: always 6, at a cut-off of 1e-3); the defaults, the
#: shipped nets, search at ``LEARNED_AUTO`` (tests/test_expectimax_defaults.py) and
#: ``LEARNED_AUTO_2048`` (tests/test_expectimax_2048_learned.py).
HAND_MADE = {
    "2048-v0": {"evaluator": "monotonic"},
    "Threes-v0": {"evaluator": "features"},
}


def fixed(env_id, depth):
    """A fixed-depth search at the automatic depth's cut-off (Threes: 1e-3), the same
    search the budget's shallower steps make."""
    cutoff = AUTO_PROB_CUTOFF[env_id.split("-")[0]]
    return ExpectimaxAgent(
        seed=0, depth=depth, budget=None, prob_cutoff=cutoff, **HAND_MADE[env_id]
    )


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_budget_that_never_binds_gives_the_unbudgeted_decision(env_id):
    for seed in range(3):
        env = played(env_id, seed, 8)
        with_budget = ExpectimaxAgent(seed=0).analyze(env)
        without = ExpectimaxAgent(seed=0, budget=None).analyze(env)
        np.testing.assert_array_equal(with_budget.values, without.values)
        floor = 2 if env_id == "2048-v0" else 3  # the shipped nets' automatic depth
        assert with_budget.stats["depth"] == without.stats["depth"] >= floor
        assert not with_budget.stats["budget_cut"]
        assert with_budget.stats["nodes"] <= DEFAULT_BUDGET


def test_a_small_budget_stops_short_of_the_full_depth():
    env = played("Threes-v0", 1, 8)
    features = HAND_MADE["Threes-v0"]
    full = ExpectimaxAgent(seed=0, budget=None, **features).analyze(env).stats["depth"]
    shallower = fixed("Threes-v0", full - 2).analyze(env)
    # the shallowest search always finishes; 8 times its nodes do not fit
    budget = max(MIN_BUDGET, 4 * shallower.stats["nodes"])
    cut = ExpectimaxAgent(seed=0, budget=budget, **features).analyze(env)
    assert cut.stats["budget_cut"] and cut.stats["depth"] == full - 2
    assert cut.stats["searches"] == [full - 2]
    np.testing.assert_array_equal(cut.values, shallower.values)


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_a_search_that_runs_long_is_abandoned_at_the_budget(env_id, monkeypatch):
    env = played(env_id, 2, 15)
    hand = HAND_MADE[env_id]
    full = ExpectimaxAgent(seed=0, budget=None, **hand).analyze(env).stats["depth"]
    shallowest = fixed(env_id, full - 2).analyze(env)
    # every deeper search is predicted to fit; the budget ends inside the second
    monkeypatch.setattr(expectimax, "_growth", lambda before, last: 0.0)
    budget = max(MIN_BUDGET, shallowest.stats["nodes"] + 10)
    cut = ExpectimaxAgent(seed=0, budget=budget, **hand).analyze(env)
    assert cut.stats["searches"][:2] == [full - 2, full - 1]
    assert cut.stats["budget_cut"] and cut.stats["depth"] == full - 2
    assert cut.stats["nodes"] > budget
    np.testing.assert_array_equal(cut.values, shallowest.values)
    # a budget that buys the whole search gives it in full
    whole = ExpectimaxAgent(seed=0, budget=MAX_BUDGET, **hand).analyze(env)
    assert whole.stats["depth"] == full and not whole.stats["budget_cut"]


def test_budget_applies_only_to_the_automatic_depth():
    env = played("2048-v0", 0, 20)
    got = ExpectimaxAgent(seed=0, depth=2, budget=MIN_BUDGET).analyze(env)
    assert got.stats["depth"] == 2 and got.stats["nodes"] > MIN_BUDGET


@pytest.mark.parametrize(
    "bad", [0, -1, 1.0, 0.5, MIN_BUDGET - 1, MAX_BUDGET + 1, 2500.5, "fast", True]
)
def test_bad_budget_is_refused_naming_the_unit(bad):
    with pytest.raises(ValueError, match="budget is nodes per decision"):
        ExpectimaxAgent(budget=bad)


def test_default_budget_is_a_documented_node_count():
    assert isinstance(DEFAULT_BUDGET, int) and MIN_BUDGET <= DEFAULT_BUDGET
    assert ExpectimaxAgent().budget == AUTO_BUDGET  # the game's, named when resolved
    hand_made = resolved_options("expectimax:evaluator=monotonic", "2048-v0")
    assert hand_made["budget"] == DEFAULT_BUDGET
    assert field_docs(ExpectimaxSettings)["budget"].startswith("Nodes per decision")
    spec = make_agent(f"expectimax:budget={DEFAULT_BUDGET:_}")  # a spec takes 20_000
    assert spec.budget == DEFAULT_BUDGET
    assert make_agent("expectimax:budget=2e6").budget == 2_000_000


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_a_cheap_last_search_sends_the_next_decision_straight_to_it(env_id):
    env = played(env_id, 3, 10)
    # a fixed automatic depth (Threes: always max_depth), so the next board has it too
    depths = {"min_depth": 3, "max_depth": 3} if env_id == "2048-v0" else {}
    agent = ExpectimaxAgent(seed=0, budget=MAX_BUDGET, **depths)
    first = agent.analyze(env)
    goal = first.stats["depth"]
    assert first.stats["searches"] == list(range(goal - 2, goal + 1))
    env.step(first.action)
    second = agent.analyze(env)
    assert second.stats["depth"] == goal
    assert second.stats["searches"] == [goal] and not second.stats["budget_cut"]
    alone = ExpectimaxAgent(seed=0, budget=None, **depths).analyze(env)
    np.testing.assert_array_equal(second.values, alone.values)


def test_a_direct_search_that_runs_long_falls_back_to_shallower_ones():
    env = played("Threes-v0", 2, 15)
    agent = ExpectimaxAgent(seed=0, budget=MIN_BUDGET, evaluator="features")
    goal = 6
    agent._cost[goal] = 1  # as if the last search at the goal had been cheap
    cut = agent.analyze(env)
    # the direct search passes three quarters of the budget, the shallowest one
    # finishes, and the next one is predicted not to fit
    assert cut.stats["searches"] == [goal, goal - 2]
    assert cut.stats["budget_cut"] and cut.stats["depth"] == goal - 2
    shallowest = fixed("Threes-v0", goal - 2).analyze(env)
    np.testing.assert_array_equal(cut.values, shallowest.values)


@pytest.mark.parametrize(
    ("env_id", "options", "cutoff"),
    [
        ("Threes-v0", {}, 0.01),  # the shipped net's automatic depth: LEARNED_AUTO
        ("Threes-v0", {"evaluator": "features"}, 1e-3),  # hand-made: the looser one
        ("Threes-v0", {"depth": 3}, 1e-4),
        ("Threes-v0", {"depth": 3, "evaluator": "features"}, 1e-4),
        ("2048-v0", {}, 0.01),  # the shipped net's automatic depth: LEARNED_AUTO_2048
        ("2048-v0", {"evaluator": "monotonic"}, 1e-4),
        ("2048-v0", {"depth": 4, "evaluator": "monotonic"}, 1e-4),
    ],
)
def test_default_cut_off_depends_on_game_and_depth(env_id, options, cutoff):
    # positions where the two cut-offs search different trees
    env = played(env_id, 4, 30 if env_id == "Threes-v0" else 12)
    default = ExpectimaxAgent(seed=0, budget=None, **options).analyze(env)
    given = ExpectimaxAgent(seed=0, budget=None, prob_cutoff=cutoff, **options)
    np.testing.assert_array_equal(default.values, given.analyze(env).values)
    other = 1e-3 if cutoff in (1e-4, 0.01) else 1e-4
    wrong = ExpectimaxAgent(seed=0, budget=None, prob_cutoff=other, **options)
    assert wrong.analyze(env).stats["nodes"] != default.stats["nodes"]


def test_automatic_depth_threes_goes_to_max_depth_2048_follows_the_board():
    from playahead.kernels.expectimax import distinct_ranks

    threes_env = played("Threes-v0", 5, 6)  # an early board: few distinct cards
    ranks = distinct_ranks(np.uint64(threes_env.unwrapped.clone_state().board))
    assert ranks - 2 < 5
    for evaluator, cap in (("features", 6), (None, 5)):  # hand-made, the shipped net
        options = {"seed": 0, "budget": None, "evaluator": evaluator}
        full = ExpectimaxAgent(**options).analyze(threes_env)
        assert full.stats["depth"] == cap
        shallow = ExpectimaxAgent(min_depth=3, **options).analyze(threes_env)
        assert shallow.stats["depth"] == max(3, ranks - 2)
        capped = ExpectimaxAgent(max_depth=4, **options).analyze(threes_env)
        assert capped.stats["depth"] == 4
    env = played("2048-v0", 5, 6)
    ranks = distinct_ranks(np.uint64(env.unwrapped.clone_state().board))
    hand = {"seed": 0, "budget": None, "evaluator": "monotonic"}
    got = ExpectimaxAgent(**hand).analyze(env).stats["depth"]
    assert got == min(6, max(3, ranks - 2)) < 6
    deeper = ExpectimaxAgent(min_depth=5, **hand).analyze(env).stats["depth"]
    assert deeper == max(5, ranks - 2)
    # the shipped net: 2 to 3
    learned = ExpectimaxAgent(seed=0, budget=None).analyze(env).stats["depth"]
    assert learned == min(3, max(2, ranks - 2))


@pytest.mark.parametrize("bad", [0, -2, 2.5, "deep", True])
def test_bad_min_depth_is_refused(bad):
    with pytest.raises(ValueError, match="min_depth"):
        ExpectimaxAgent(min_depth=bad)


#: ``ExpectimaxAgent(seed=0, depth=3)`` on positions of :func:`played`, recorded
#: before ``bounded`` existed: (env_id, seed, moves, action, values, nodes, tt_hits).
BEFORE_BOUNDED = [
    (
        "2048-v0",
        0,
        20,
        1,
        [1581410.5545406307, 1591888.1932770123, 1582750.5798711374, 1584394.268463123],
        91655,
        3776,
    ),
    (
        "Threes-v0",
        1,
        8,
        2,
        [3301.151256121237, 3298.8298758450865, 3313.4747862221566, 3307.477641890431],
        45634,
        1153,
    ),
    (
        "Threes-v0",
        4,
        30,
        0,
        [3244.966023970078, 3239.663378078353, 3235.308969294936, 3240.781895692684],
        79681,
        850,
    ),
]


@pytest.mark.parametrize(
    ("env_id", "seed", "moves", "action", "values", "nodes", "hits"), BEFORE_BOUNDED
)
def test_a_fixed_depth_without_bounded_searches_as_before(
    env_id, seed, moves, action, values, nodes, hits
):
    env = played(env_id, seed, moves)
    got = ExpectimaxAgent(seed=0, depth=3, **HAND_MADE[env_id]).analyze(env)
    assert got.action == action
    np.testing.assert_allclose(got.values, values, rtol=1e-12)
    stats = {k: v for k, v in got.stats.items() if k not in ("seconds", "backend")}
    assert stats == {
        "nodes": nodes,
        "tt_hits": hits,
        "depth": 3,
        "budget_cut": False,
        "searches": [3],
        "budget": None,  # none can act on a fixed depth without bounded
        "prob_cutoff": 1e-4,  # a fixed depth's default, whatever the board
        "evaluator": "monotonic" if env_id == "2048-v0" else "features",
        "downgraded": False,  # no 32768 here, and off unless asked for
    }
    # bounded, with a budget the search fits in: the very same search
    bounded = ExpectimaxAgent(seed=0, depth=3, bounded=True, **HAND_MADE[env_id])
    bounded = bounded.analyze(env)
    np.testing.assert_array_equal(bounded.values, got.values)
    assert bounded.stats["nodes"] == nodes and bounded.stats["searches"] == [3]
    assert not bounded.stats["budget_cut"]


#: Nodes a bounded search may count past its budget: an abandoned search's chance
#: nodes still count the moves of the children they had started (at most 2 x 16 x 4
#: per level of the stack in 2048), and depth 1 may follow.
SLACK = 5_000


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_a_bounded_deep_fixed_depth_stops_at_the_budget(env_id):
    env = played(env_id, 2, 15)
    budget = 200_000
    got = ExpectimaxAgent(
        seed=0, depth=12, prob_cutoff=0.0, budget=budget, bounded=True
    ).analyze(env)
    stats = got.stats
    # the direct search is abandoned at three quarters of the budget, then 1, 2, ...
    assert stats["searches"][:3] == [12, 1, 2] and stats["budget_cut"]
    assert 1 <= stats["depth"] < 12 and stats["depth"] in stats["searches"][1:]
    assert stats["nodes"] <= budget + SLACK
    assert env.unwrapped.action_masks()[got.action]
    same = ExpectimaxAgent(seed=0, depth=stats["depth"], prob_cutoff=0.0)
    np.testing.assert_array_equal(got.values, same.analyze(env).values)
    # unbounded, the same agent would search depth 12 in full
    assert ExpectimaxAgent(depth=12, budget=budget).bounded is False


def test_a_bounded_automatic_depth_whose_first_search_runs_long_keeps_depth_1():
    env = played("2048-v0", 2, 15)
    options = {"min_depth": 12, "max_depth": 12, "prob_cutoff": 0.0}
    got = ExpectimaxAgent(seed=0, budget=MIN_BUDGET * 50, bounded=True, **options)
    analysis = got.analyze(env)
    stats = analysis.stats
    assert stats["searches"] == [10, 1] and stats["depth"] == 1
    assert stats["budget_cut"]
    assert stats["nodes"] <= MIN_BUDGET * 50 + SLACK
    depth_1 = ExpectimaxAgent(seed=0, depth=1, prob_cutoff=0.0).analyze(env)
    np.testing.assert_array_equal(analysis.values, depth_1.values)


def test_bounded_is_part_of_the_agent_only_where_it_can_act():
    plain = resolved_options("expectimax:depth=3", "Threes-v0")
    assert "bounded" not in plain and "budget" not in plain
    assert resolved_options("expectimax:depth=3,bounded=false", "Threes-v0") == plain
    bounded = resolved_options("expectimax:depth=3,bounded=true", "Threes-v0")
    assert bounded == plain | {"bounded": True, "budget": DEFAULT_BUDGET}
    for spec in ("bounded=true,budget=none", "bounded=true,time_limit=1"):
        assert "bounded" not in resolved_options(f"expectimax:{spec}", "2048-v0")
    auto = resolved_options("expectimax", "2048-v0")
    assert resolved_options("expectimax:bounded=true", "2048-v0") == auto | {
        "bounded": True
    }


@pytest.mark.parametrize("bad", [1, 0, "yes", None])
def test_bad_bounded_is_refused(bad):
    with pytest.raises(ValueError, match="bounded must be true or false"):
        ExpectimaxAgent(bounded=bad)
