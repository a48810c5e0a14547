"""The Connect Four test set for learners: its labels, and the perfect-move share."""

from __future__ import annotations

import csv

import pytest

from benchmarks.records import c4_perfect
from playahead.games import connect_four_solver as c4s

LATE = "7422341735647741166133573473242566"  # Pons: -3 1 -1000 -1000 -4 1 -1000


def test_the_committed_set_is_labelled_and_spread():
    rows = c4_perfect.load()
    assert len(rows) >= 1000
    assert {r["discs"] for r in rows} == set(range(4, 37))
    assert len({r["moves"] for r in rows}) == len(rows)
    for r in rows:
        assert len(r["scores"]) == 7 and len(r["moves"]) == r["discs"]
        assert r["matters"] == c4_perfect.matters(r["scores"])
    assert sum(r["matters"] for r in rows) >= 300


@pytest.mark.kernel
def test_late_labels_are_the_solvers():
    solver = c4s.Solver(table_bits=16)
    late = [r for r in c4_perfect.load() if r["discs"] >= 30]
    for r in late[:40]:
        result = solver.analyze(r["moves"])
        assert [c4s.INVALID if s is None else s for s in result.scores] == r["scores"]


def test_matters_compares_outcomes_not_scores():
    assert not c4_perfect.matters([5, 3, -1000, 1, 1, 1, 2])  # all wins
    assert c4_perfect.matters([0, 1, -1000, -1000, -1000, -1000, -1000])
    assert not c4_perfect.matters([-3, -1, -1000, -1000, -1000, -1000, -2])


def test_the_solver_makes_only_perfect_moves(tmp_path):
    with open(tmp_path / "positions.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["moves", "discs", "players", "scores", "matters", "nodes"])
        writer.writerow([LATE, 34, "x", "-3 1 -1000 -1000 -4 1 -1000", 1, 0])
        writer.writerow(["121212", 6, "x", "18 -3 -18 -18 -18 -18 -18", 1, 0])
        writer.writerow(["12121277", 8, "x", "17 -2 -17 -17 -17 -17 -17", 0, 0])
    report = c4_perfect.perfect_moves("solver", folder=tmp_path)
    assert (report["positions"], report["perfect"]) == (2, 2)
    assert report["by_discs"]["4-8"] == {"positions": 1, "perfect": 1, "share": 1.0}
    record = (tmp_path / "records" / "solver.csv").read_text().splitlines()
    assert record[0] == "moves,discs,move,score,best,perfect"
    assert len(record) == 3 and all(line.endswith(",1") for line in record[1:])


def test_positions_come_from_seeded_games():
    from benchmarks.records.c4positions import play_positions

    quotas = {6: 2, 15: 2, 30: 1}
    first = play_positions(quotas, seed=3)
    assert first == play_positions(quotas, seed=3)
    assert sorted(p["discs"] for p in first) == [6, 6, 15, 15, 30]
    for p in first:
        c4s.parse_moves(p["moves"])  # legal, nobody has four
        assert len(p["moves"]) == p["discs"]
