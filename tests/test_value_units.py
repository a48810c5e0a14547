"""Every value a planner gives has a unit the tools can print (``hint``, ``watch``,
``play``, ``serve`` all label values through ``tools.games.value_unit``)."""

from __future__ import annotations

import pytest

from playahead.agents import make_agent
from playahead.planners.evaluators import EVALUATORS
from playahead.tools.games import VALUE_UNITS, format_value, make_env, value_unit

TILE_SPECS = [
    "random",
    "greedy",
    "mc:n_rollouts=8",
    "mcts:n_simulations=16",
    "lookahead:depth=1,n_sims=2",
    "lookahead:depth=1,n_sims=2,empty_bonus=true",
    "expectimax:depth=1",
    "expectimax:depth=1,evaluator=score",
]
DUEL_SPECS = [
    "mc:n_rollouts=8",
    "mc:n_rollouts=8,scoring=squares",
    "mcts:n_simulations=16",
    "lookahead:depth=1,n_sims=2",
    "minimax:depth=2",
]


@pytest.mark.parametrize(
    ("game", "spec"),
    [("2048", s) for s in TILE_SPECS]
    + [("threes", s) for s in TILE_SPECS[:-1]]
    + [("tictactoe", s) for s in DUEL_SPECS],
)
def test_every_planner_value_kind_has_a_unit(game, spec):
    env = make_env(game)
    env.reset(seed=0)
    kind = make_agent(spec, seed=0).analyze(env).value_kind
    assert kind in VALUE_UNITS, f"{spec} on {game}: value_kind {kind!r} has no unit"


def test_every_evaluator_kind_has_a_unit():
    assert {kind for _, kind, _ in EVALUATORS.values()} <= set(VALUE_UNITS)


def test_scores_print_as_whole_points_with_commas():
    assert format_value(412_300.4, "score") == "412,300"
    assert format_value(87.6, "score") == "88"
    assert format_value(1_605_848.59, "eval") == "1,605,849"
    assert format_value(865.04, "eval") == "865.0"
    assert format_value(-0.4361, "result") == "-0.436"
    assert value_unit("score") == "expected final score"
    assert value_unit("new_kind") == "new_kind, the agent's own units"
