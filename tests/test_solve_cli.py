"""``playahead solve connect4``: scores in words, JSON, stdin lines, bad input."""

from __future__ import annotations

import io
import json

import pytest

from playahead.cli import main

LATE = "7422341735647741166133573473242566"  # Pons: -3 1 -1000 -1000 -4 1 -1000


def test_json_has_seven_scores_in_pons_convention(capsys):
    assert main(["solve", "connect4", LATE, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == [-3, 1, None, None, -4, 1, None]
    assert out["best"] == [2, 6] and out["solved"] and out["discs"] == 34


def test_words_name_the_disc_that_wins(capsys):
    assert main(["solve", "connect4", LATE]) == 0
    out = capsys.readouterr().out
    assert "column 2: win with your 21st disc (+1)" in out
    assert "column 5: loss to the opponent's 18th disc (-4)" in out
    assert "column 3: full" in out
    assert "best: column 2, 6 (win with your 21st disc)" in out


def test_stdin_lines_answer_as_pons_does(capsys, monkeypatch):
    lines = "2252576253462244111563365343671351441\n48\n" + LATE + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["solve", "connect4", "-"]) == 2  # line 2 is bad; the rest answered
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "2252576253462244111563365343671351441 -1000 -1000 -1000 -1000 -1000 -1 -2",
        LATE + " -3 1 -1000 -1000 -4 1 -1000",
    ]
    assert captured.err.strip() == (
        "playahead solve: line 2: move 2 of '48': '8' is not a column (columns are 1-7)"
    )


def test_unsolved_position_says_so(capsys):
    assert main(["solve", "connect4", "", "--node-budget", "1000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solved"] is False and out["scores"] == [None] * 7
    exact = [-2, -1, 0, 1, 0, -1, -2]  # the empty board (Pons' solver)
    bounds = zip(out["lower"], exact, out["upper"], strict=True)
    assert all(lo <= s <= hi for lo, s, hi in bounds)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["08"], "'0' is not a column"),
        (["4444444"], "column 4 is full"),
        (["11223344"], "after four in a row"),
        (["44", "--node-budget", "10" + "0" * 12], "over the cap"),
        (["44", "--node-budget", "0"], "positive integer"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["solve", "connect4", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and words in captured.err


def test_help_names_the_solvers_cap():
    from playahead.games.connect_four_solver import MAX_NODE_BUDGET
    from playahead.tools import solve

    assert solve.MAX_NODES == MAX_NODE_BUDGET
