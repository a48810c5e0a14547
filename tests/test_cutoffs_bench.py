"""The cut-off benchmark: positions from seeded games, agreement with a reference."""

import pytest

from benchmarks.records import cutoffs
from tests.helpers.expectimax import early_2048_states


@pytest.fixture(scope="module")
def states():
    return cutoffs.positions(1, 150)


def test_positions_are_repeatable_mid_game_states(states):
    again = cutoffs.positions(1, 150)
    assert len(states) >= 2
    assert [s.board for s in states] == [s.board for s in again]


def test_the_reference_agrees_with_itself_and_each_row_is_in_the_table(states):
    rows = cutoffs.table(
        states,
        settings=[("same", {"depth": 2}), ("shallow", {"depth": 0})],
        reference={"depth": 2},
    )
    by = {r["setting"]: r for r in rows}
    assert by["same"]["agrees"] == 1.0 and by["reference"]["agrees"] == 1.0
    assert 0.0 <= by["shallow"]["agrees"] <= 1.0
    assert by["shallow"]["depth"] == 0 and by["same"]["depth"] == 2
    text = cutoffs.markdown(rows, "python -m benchmarks cutoffs", len(states))
    assert text.count("\n| ") == 4 and "| same |" in text


def test_bad_options_are_refused(capsys):
    with pytest.raises(SystemExit):
        cutoffs.main(["--games", "0"])
    assert "--games must be in 1..100" in capsys.readouterr().err


def test_2048_rows_search_over_the_shipped_net():
    """``--game 2048``: the settings search 2048 positions over the shipped net; a
    setting that is the reference agrees with it everywhere, and the title names the
    game."""
    states = early_2048_states()
    rows = cutoffs.table(
        states,
        settings=[("same", {"depth": 1, "prob_cutoff": 0.01})],
        reference={"depth": 1, "prob_cutoff": 0.01},
        game="2048",
    )
    assert [r["agrees"] for r in rows] == [1.0, 1.0]
    text = cutoffs.markdown(rows, "python -m benchmarks cutoffs --game 2048", 3, "2048")
    assert text.startswith("# 2048 expectimax over the shipped net")
    assert "depth=5, prob_cutoff=0.001" in text
