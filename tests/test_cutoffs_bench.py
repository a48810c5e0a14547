"""The cut-off benchmark: positions from seeded games, agreement with a reference."""

import pytest

from benchmarks.records import cutoffs


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
