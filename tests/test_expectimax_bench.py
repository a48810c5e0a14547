"""The search benchmarks that compare two checkouts: fixed positions, the same work."""

import numba
import pytest

from benchmarks.speed import bench_expectimax as bench
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
