"""``review`` of Connect Four with the exact solver: a changed result is a blunder, a
longer road to the same result at most an inaccuracy."""

from __future__ import annotations

import pytest

from playahead.agents import make_agent
from playahead.envs.connect_four import ConnectFourEnv
from playahead.tools import review
from tests.helpers.gamefiles import C4_LATE as LATE
from tests.helpers.gamefiles import connect4


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


def test_a_review_with_solved_and_unsolved_moves_keeps_each_moves_unit(tmp_path):
    """A small budget leaves the opening to minimax (heuristic values in [-1, 1]) and
    solves the end (Pons scores): each move is shown, summed and drawn in its own unit,
    never a heuristic value printed as a score."""
    result = review.review(connect4(LATE), "solver:budget=20000,fallback_budget=2000")
    kinds = [m.value_kind for m in result.moves]
    assert kinds[0] == "heuristic" and kinds[-1] == "pons_score"
    assert result.value_kind == "mixed" and result.kinds == ["heuristic", "pons_score"]
    first_solved = kinds.index("pons_score") + 1
    assert f"(moves 1-{first_solved - 1}," in result.unit
    assert "exact score" in result.unit and "heuristic value" in result.unit
    # the example of docs/tools.md
    assert result.unit.endswith("(moves 13-15, 20-23, 26-34)")
    assert "+1 a win (moves 1-12, 16-19, 24-25); exact score" in result.unit

    summary = result.summary()
    assert summary["total_loss"] is None and summary["mean_loss"] is None
    for kind, loss in summary["losses"].items():
        mine = [m.loss for m in result.moves if m.value_kind == kind]
        assert loss["moves"] == len(mine)
        assert loss["total"] == pytest.approx(sum(mine))
    assert sum(v["moves"] for v in summary["losses"].values()) == len(LATE)
    severity = {"blunder": 3, "mistake": 2, "inaccuracy": 1, "": 0}
    worst = max(severity[m.mark] for m in result.moves)
    top = summary["costliest"][0]["number"]
    assert severity[result.moves[top - 1].mark] == worst

    text = result.text()
    rows = text.splitlines()[2 : 2 + len(LATE)]
    for row, move in zip(rows, result.moves, strict=True):
        value = row.split()[3]  # number, "col", column, value
        if move.value_kind == "pons_score":
            assert "." not in value  # a score is a whole number
        else:
            assert value == f"{move.played_value:.3f}"
    n_heuristic = summary["losses"]["heuristic"]["moves"]
    assert f"in heuristic value over {n_heuristic} moves" in text

    # exact moves are the solved ones; a mark from an estimate says so
    assert [m.exact for m in result.moves] == [k == "pons_score" for k in kinds]
    assert summary["exact_moves"] == kinds.count("pons_score")
    assert f"exact values on {kinds.count('pons_score')} of {len(LATE)} moves" in text
    for row, move in zip(rows, result.moves, strict=True):
        assert row.endswith("(estimate)") == bool(move.mark and not move.exact)

    png = review.plot(result, tmp_path / "r.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
