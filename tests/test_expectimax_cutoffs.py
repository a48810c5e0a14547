"""``cutoffs``: expectimax's cut-off schedule, tile -> cut-off, in one option. The tier
options (``prob_cutoff``, ``late_cutoff``/``late_from``, ``end_cutoff``/``end_from``)
spell the same schedule tier by tier: the same schedule is the same agent (resolved
options, fingerprint) and searches the same decisions either way."""

from __future__ import annotations

import numpy as np
import pytest

from playahead.agents import parse_spec, resolved_options
from playahead.evaluate.store import agent_identity, fingerprint
from playahead.planners.expectimax import ExpectimaxAgent, parse_cutoffs
from tests.test_expectimax_late import END, LATE, analyze

#: (schedule, the same by tier)
SAME = [
    ("0:0.01,3072:0.004,6144:0.003", "prob_cutoff=0.01,late_cutoff=0.004,"
     "end_cutoff=0.003"),
    ("0:0.002", "prob_cutoff=0.002"),
    ("1536:0.005", "late_cutoff=0.005,late_from=1536"),
    ("0:0.01,768:0.005,12288:0.001", "prob_cutoff=0.01,late_cutoff=0.005,"
     "late_from=768,end_cutoff=0.001,end_from=12288"),
]  # fmt: skip


@pytest.mark.parametrize(("schedule", "tiers"), SAME)
@pytest.mark.parametrize("env_id", ["Threes-v0", "2048-v0"])
def test_a_schedule_is_the_agent_its_tiers_spell(schedule, tiers, env_id):
    spec, by_tier = f"expectimax:cutoffs={schedule}", f"expectimax:{tiers}"
    assert resolved_options(spec, env_id) == resolved_options(by_tier, env_id)
    assert "cutoffs" not in resolved_options(spec, env_id)
    ident = agent_identity(spec, env_id)
    assert fingerprint(ident) == fingerprint(agent_identity(by_tier, env_id))


def test_the_defaults_schedule_resolves_as_the_default_agent():
    # the default's records keep their identity (tests/test_strength_records.py)
    default = resolved_options("expectimax", "Threes-v0")
    schedule = resolved_options("expectimax:cutoffs=0:0.01,3072:0.004,6144:0.003")
    assert default == resolved_options(
        "expectimax:cutoffs=0:0.01,3072:0.004,6144:0.003", "Threes-v0"
    )
    assert schedule["prob_cutoff"] == 0.01 and schedule["end_from"] == 6144


@pytest.mark.parametrize("board", [LATE, END])
def test_a_schedule_searches_the_decisions_of_its_tiers(board):
    got = analyze(board, cutoffs="0:0.02,3072:0.01,6144:0.008")
    want = analyze(board, prob_cutoff=0.02, late_cutoff=0.01, end_cutoff=0.008)
    np.testing.assert_array_equal(got.values, want.values)
    assert got.stats["prob_cutoff"] == want.stats["prob_cutoff"]
    assert got.stats["prob_cutoff"] == (0.01 if board is LATE else 0.008)


def test_a_spec_keeps_the_schedules_commas():
    spec = "expectimax:cutoffs=0:0.01,3072:0.004,6144:0.003,max_depth=5"
    assert parse_spec(spec)[1] == {
        "cutoffs": "0:0.01,3072:0.004,6144:0.003",
        "max_depth": 5,
    }
    assert parse_cutoffs("0:0.01, 3072:0.004") == {0: 0.01, 3072: 0.004}


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"cutoffs": "0:0.01", "prob_cutoff": 0.1}, "give the cut-offs once"),
        ({"cutoffs": "0:0.01", "late_from": 1536}, "give the cut-offs once"),
        ({"cutoffs": "0:0.1,1:0.1,2:0.1,3:0.1"}, "at most two tiers above 0"),
        ({"cutoffs": "zero:0.1"}, "tile:cutoff pairs, e.g. cutoffs=0:0.01,3072"),
        ({"cutoffs": "0:1.5"}, r"cut-off of tile 0 must be a number in \[0, 1\)"),
        ({"cutoffs": "0:0.1,0:0.2"}, "lists a tile twice"),
    ],
)
def test_a_bad_schedule_is_one_line_naming_the_spelling(options, match):
    with pytest.raises(ValueError, match=match):
        ExpectimaxAgent(**options)
