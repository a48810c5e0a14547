"""The search benchmarks that compare two checkouts: fixed positions, the same work."""

import dataclasses
from pathlib import Path

import numba
import pytest

from benchmarks.speed import bench_expectimax as bench
from benchmarks.speed import count_search as count
from tests.helpers.expectimax import early_2048_states


def test_decisions_are_timed_on_the_same_positions_with_the_same_moves():
    """Two runs decide the same positions with the same nodes and moves (what makes
    two checkouts' times comparable); the time is a positive figure."""
    states = early_2048_states(seed=4, moves=40)
    first = bench.decisions(repeats=2, states=states)
    again = bench.decisions(repeats=1, states=states)
    assert first["positions"] == 3 and first["ms"] > 0 and first["nodes"] > 0
    assert (first["nodes"], first["moves"]) == (again["nodes"], again["moves"])


def test_leaf_lookups_refuses_to_count_compiled_calls():
    assert not numba.config.DISABLE_JIT  # make test runs this file with the JIT on
    with pytest.raises(SystemExit, match="NUMBA_DISABLE_JIT=1"):
        bench.leaf_lookups()


def test_the_2048_count_runs_the_threes_script_with_its_env_and_state():
    """``count_search --game 2048`` counts the script that counts Threes, with only
    the env id and the state class changed; the Threes script is as it was."""
    assert count.script("threes") == count.COUNTED
    text = count.script("2048")
    assert "Threes" not in text
    assert text == count.COUNTED.replace("Threes-v0", "2048-v0").replace(
        "ThreesState", "Twenty48State"
    )


def test_a_search_count_is_the_difference_of_two_runs_over_the_positions(
    monkeypatch,
):
    """A first run decides every position (compiling every kernel they use), then
    the run that decides nothing is taken from the run that decides every position
    once, over the positions."""
    from benchmarks.speed import count_td_instructions

    calls = []

    def fake(command, cwd):
        calls.append((Path(command[1]).read_text(), command[2]))
        if command[2] == "0":
            return 1_000, ""
        return 9_000, "4 positions, 12 nodes, moves abc, 1.00 CPU ms a decision\n"

    monkeypatch.setattr(count_td_instructions, "_count", fake)
    per, line = count.counted([{}] * 4, "2048")
    assert per == 2_000.0 and line.startswith("4 positions, 12 nodes")
    assert [arg for _, arg in calls] == ["1", "0", "1"]
    assert all(text == count.script("2048") for text, _ in calls)


def test_the_2048_script_decides_its_positions_in_a_new_process():
    """``--time``: the counted 2048 script reads the positions' fields from JSON and
    decides each with the default search, in a new process."""
    states = [
        {k: count._plain(v) for k, v in dataclasses.asdict(s).items()}
        for s in early_2048_states(seed=4, n=2, moves=40)
    ]
    (line,) = count.timed(states, 1, "2048")
    assert line.startswith("2 positions, ") and " moves " in line
