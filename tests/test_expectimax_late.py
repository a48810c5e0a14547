"""``late_cutoff``: a finer probability cut-off once the board holds a card (Threes) or
tile (2048) of at least ``late_from``, and ``end_cutoff``, a second such tier from
``end_from``. Below that card a decision is the plain one; from it on, the one at
``prob_cutoff=late_cutoff``. The learned Threes default has one (:data:`LEARNED_AUTO`,
where no cut-off is given); elsewhere, unset, the agent and its resolved options are
those of before."""

from __future__ import annotations

import re

import numpy as np
import pytest

from playahead.agents import make_agent, resolved_options
from playahead.planners.expectimax import LEARNED_AUTO, ExpectimaxAgent
from tests.helpers.expectimax import (
    EARLY,
    END,
    LATE,
    analyze_threes,
    env_2048,
)

THREES = "Threes-v0"

#: the learned default's cut-off given, so without its late cut-off
PLAIN = {"prob_cutoff": LEARNED_AUTO["prob_cutoff"]}


def test_below_late_from_the_decision_is_the_plain_one():
    plain = analyze_threes(EARLY, **PLAIN)
    late = analyze_threes(EARLY, late_cutoff=0.003)
    np.testing.assert_array_equal(late.values, plain.values)
    assert late.stats["nodes"] == plain.stats["nodes"]
    assert late.stats["prob_cutoff"] == plain.stats["prob_cutoff"] == 0.01


def test_from_late_from_on_the_decision_searches_at_late_cutoff():
    late = analyze_threes(LATE, late_cutoff=0.003)
    finer = analyze_threes(LATE, prob_cutoff=0.003)
    np.testing.assert_array_equal(late.values, finer.values)
    assert late.stats["prob_cutoff"] == 0.003
    # and that is another search than the plain one: more nodes, other values
    plain = analyze_threes(LATE, **PLAIN)
    assert late.stats["nodes"] > plain.stats["nodes"]
    assert not np.array_equal(late.values, plain.values, equal_nan=True)


def test_late_from_is_the_card_it_names():
    at_6144 = analyze_threes(LATE, late_cutoff=0.003, late_from=6144)
    np.testing.assert_array_equal(at_6144.values, analyze_threes(LATE, **PLAIN).values)
    at_3 = analyze_threes(EARLY, late_cutoff=0.003, late_from=3)
    np.testing.assert_array_equal(
        at_3.values, analyze_threes(EARLY, prob_cutoff=0.003).values
    )


@pytest.mark.parametrize(
    ("board", "tier", "coarser", "card"),
    [
        ("LATE", "late", "prob_cutoff", 3072),
        ("END", "end", "late_cutoff", 6144),
    ],
)
def test_the_learned_default_searches_each_tier_at_its_cut_off(
    board, tier, coarser, card
):
    faces = {"LATE": LATE, "END": END}[board]
    cutoff = LEARNED_AUTO[f"{tier}_cutoff"]
    assert cutoff < LEARNED_AUTO[coarser]
    on = analyze_threes(faces)
    assert on.stats["prob_cutoff"] == cutoff
    np.testing.assert_array_equal(
        on.values, analyze_threes(faces, prob_cutoff=cutoff).values
    )
    # the default names it
    got = resolved_options("expectimax", THREES)
    assert (got[f"{tier}_cutoff"], got[f"{tier}_from"]) == (cutoff, card)


def test_below_the_first_3072_the_learned_default_is_the_plain_search():
    before = analyze_threes(EARLY)
    assert before.stats["prob_cutoff"] == LEARNED_AUTO["prob_cutoff"]
    np.testing.assert_array_equal(before.values, analyze_threes(EARLY, **PLAIN).values)


def test_a_cut_off_given_replaces_the_learned_default_tiers():
    # a cut-off given is searched throughout; late_cutoff=0.01 turns it off
    assert analyze_threes(LATE, **PLAIN).stats["prob_cutoff"] == PLAIN["prob_cutoff"]
    off = analyze_threes(LATE, late_cutoff=PLAIN["prob_cutoff"])
    np.testing.assert_array_equal(off.values, analyze_threes(LATE, **PLAIN).values)
    assert "late_cutoff" not in resolved_options("expectimax:prob_cutoff=0.01", THREES)
    # late_cutoff given: that cut-off from the first 3072 on, no end tier
    given = analyze_threes(END, late_cutoff=LEARNED_AUTO["late_cutoff"])
    assert given.stats["prob_cutoff"] == LEARNED_AUTO["late_cutoff"]


def test_2048_tiles_count_too():
    faces = [[1024, 512, 4, 2], [8, 16, 32, 0], [2, 0, 0, 0], [0, 0, 0, 0]]

    def values(**options):
        agent = ExpectimaxAgent(seed=0, depth=2, **options)
        return agent.analyze(env_2048(faces))

    plain = values()
    got = values(late_cutoff=0.05, late_from=1024)
    np.testing.assert_array_equal(got.values, values(prob_cutoff=0.05).values)
    assert got.stats["prob_cutoff"] == 0.05
    # a coarser search than the plain one here, so the option did act
    assert got.stats["nodes"] < plain.stats["nodes"]
    assert not np.array_equal(got.values, plain.values, equal_nan=True)
    # a tile above the board's largest: the plain search
    above = values(late_cutoff=0.05, late_from=2048)
    np.testing.assert_array_equal(above.values, plain.values)


@pytest.mark.parametrize(
    "options",
    ["evaluator=features", "depth=2", "evaluator=ntuple,prob_cutoff=0.01", "depth=3"],
)
def test_unset_it_leaves_the_resolved_options_as_before(options):
    got = resolved_options(f"expectimax:{options}".rstrip(":"), THREES)
    assert "late_cutoff" not in got and "late_from" not in got
    # late_from alone does nothing, so it is no other agent
    alone = ",".join(filter(None, [options, "late_from=6144"]))
    assert resolved_options(f"expectimax:{alone}", THREES) == got


def test_set_it_names_both_options():
    got = resolved_options("expectimax:late_cutoff=0.005", THREES)
    assert (got["late_cutoff"], got["late_from"]) == (0.005, 3072)
    assert got["prob_cutoff"] == 0.01
    other = resolved_options("expectimax:late_cutoff=0.005,late_from=6144", THREES)
    assert other != got


def test_end_cutoff_is_a_second_tier_from_end_from():
    tiers = {"late_cutoff": 0.005, "end_cutoff": 0.003}
    # from end_from on, the end tier's search; below it, the late tier's
    end = analyze_threes(END, **tiers)
    assert end.stats["prob_cutoff"] == 0.003
    np.testing.assert_array_equal(
        end.values, analyze_threes(END, prob_cutoff=0.003).values
    )
    late = analyze_threes(LATE, **tiers)
    assert late.stats["prob_cutoff"] == 0.005
    np.testing.assert_array_equal(
        late.values, analyze_threes(LATE, prob_cutoff=0.005).values
    )
    before = analyze_threes(EARLY, **tiers)
    np.testing.assert_array_equal(before.values, analyze_threes(EARLY, **PLAIN).values)
    # the end tier alone: the plain search up to end_from
    alone = analyze_threes(LATE, end_cutoff=0.003, end_from=6144)
    np.testing.assert_array_equal(alone.values, analyze_threes(LATE, **PLAIN).values)
    at_3072 = analyze_threes(LATE, end_cutoff=0.003, end_from=3072)
    finer = analyze_threes(LATE, prob_cutoff=0.003).values
    np.testing.assert_array_equal(at_3072.values, finer)
    # and the two searches differ, so the tier did act
    assert end.stats["nodes"] > analyze_threes(END, prob_cutoff=0.005).stats["nodes"]


def test_end_cutoff_is_named_only_when_set():
    got = resolved_options("expectimax:late_cutoff=0.004,end_cutoff=0.003", THREES)
    assert (got["late_cutoff"], got["end_cutoff"], got["end_from"]) == (
        0.004,
        0.003,
        6144,
    )
    # end_from alone does nothing: the same agent
    plain = resolved_options("expectimax:prob_cutoff=0.01", THREES)
    assert "end_cutoff" not in plain and "end_from" not in plain
    assert resolved_options("expectimax:prob_cutoff=0.01,end_from=12288", THREES) == (
        plain
    )
    # any cut-off given replaces the default's tiers
    only = resolved_options("expectimax:end_cutoff=0.003", THREES)
    assert "late_cutoff" not in only and only["prob_cutoff"] == 0.01


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expectimax:late_cutoff=1.5", "late_cutoff must be a number in [0, 1)"),
        ("expectimax:late_cutoff=-0.1", "late_cutoff must be a number in [0, 1)"),
        ("expectimax:late_from=0", "late_from must be a card or tile value"),
        ("expectimax:late_from=99999999999", "late_from must be a card or tile"),
        ("expectimax:late_from=true", "late_from"),
        ("expectimax:end_cutoff=1", "end_cutoff must be a number in [0, 1)"),
        ("expectimax:end_from=0", "end_from must be a card or tile value"),
    ],
)
def test_bad_values_get_a_one_line_error(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        make_agent(spec)
    assert "\n" not in str(err.value)
