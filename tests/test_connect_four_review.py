"""``review`` of Connect Four with the exact solver: a changed result is a blunder, a
longer road to the same result at most an inaccuracy."""

from __future__ import annotations

import pytest

from playahead.agents import make_agent
from playahead.envs.connect_four import ConnectFourEnv
from playahead.tools import review

LATE = "7422341735647741166133573473242566"  # Pons: -3 1 -1000 -1000 -4 1 -1000


@pytest.mark.parametrize(
    ("best", "played", "mark"),
    [
        (1, 1, ""),
        (8, 3, "inaccuracy"),  # a later win
        (-2, -9, "inaccuracy"),  # a sooner loss
        (1, 0, "blunder"),  # win to draw
        (1, -3, "blunder"),  # win to loss
        (0, -1, "blunder"),  # draw to loss
        (0, 0, ""),
    ],
)
def test_outcome_marks(best, played, mark):
    assert review.outcome_mark(best, played) == mark


@pytest.mark.parametrize(("column", "mark", "loss"), [(5, "", 0), (0, "blunder", 4)])
def test_a_solved_move_is_marked_by_its_outcome(column, mark, loss):
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    for ch in LATE:
        env.step(int(ch) - 1)
    analysis = make_agent("solver", seed=0).analyze(env)
    assert analysis.value_kind == "pons_score"
    move = review.move_review("connect4", 35, 0, {"action": column}, analysis)
    assert (move.mark, move.loss, move.best_value) == (mark, loss, 1.0)
