"""The Threes ``"features"`` evaluator (weighted line features) and its CMA-ES tuner."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import playahead  # noqa: F401
from benchmarks.speed import naive_expectimax as naive
from playahead.agents import make_agent
from playahead.planners import evaluators as ev
from playahead.planners.expectimax import ExpectimaxAgent


@pytest.mark.kernel
@given(st.lists(st.integers(0, 15), min_size=4, max_size=4))
def test_feature_tables_match_the_plain_definitions(line):
    row = sum(r << (4 * i) for i, r in enumerate(line))
    tables = ev.feature_tables()
    expected = naive.line_features(line)
    for k, name in enumerate(ev.FEATURES):
        assert tables[k, row] == pytest.approx(expected[name], abs=1e-9), name


@pytest.mark.kernel
def test_known_line_features():
    f = naive.line_features([1, 2, 0, 0])
    assert (f["empty"], f["merge12"], f["small"], f["stuck"]) == (2, 1, 2, 0)
    f = naive.line_features([6, 5, 5, 2])  # 96, 48, 48, 6
    assert (f["merge"], f["double"], f["edge"]) == (1, 1, 1)


@pytest.mark.kernel
def test_openness_weights_give_the_openness_table_up_to_a_constant():
    table = ev.weighted_table(ev.OPENNESS_WEIGHTS, 0.0)
    rows = np.arange(1 << 16)
    slow = np.array(
        [
            naive.openness_line([(r >> (4 * i)) & 15 for i in range(4)])
            for r in rows[:4096]
        ]
    )
    diff = table[:4096] - slow
    assert np.allclose(diff, diff[0])
    assert table.min() == 0.0


def test_weighted_table_shifts_its_smallest_line_to_lost():
    table = ev.weighted_table({"mono": -3.0, "empty": 1.0}, 25.0)
    assert table.min() == pytest.approx(25.0)


@pytest.mark.parametrize(
    ("weights", "lost", "message"),
    [
        ({"bogus": 1.0}, 1.0, "unknown features"),
        ({}, -1.0, "lost"),
        ({}, np.nan, "lost"),
    ],
)
def test_bad_weights_are_refused(weights, lost, message):
    with pytest.raises(ValueError, match=message):
        ev.weighted_table(weights, lost)


def test_features_is_each_games_hand_made_evaluator():
    """``features`` plays Threes with the tuned line features and names 2048's
    hand-made evaluator, ``monotonic``; a Threes-only evaluator refuses 2048."""
    env = gym.make("Threes-v0")
    env.reset(seed=3)
    agent = make_agent("expectimax:depth=1,evaluator=features", seed=0)
    assert agent.analyze(env.unwrapped).stats["evaluator"] == "features"
    assert ev.get_evaluator("features", "2048") is ev.get_evaluator("monotonic", "2048")
    with pytest.raises(ValueError, match="not for 2048"):
        ev.get_evaluator("openness", "2048")


def test_an_evaluator_object_is_used_as_given():
    env = gym.make("Threes-v0")
    env.reset(seed=5)
    table = ev.weighted_table(ev.OPENNESS_WEIGHTS, 90.0)
    mine = ev.Evaluator("mine", "Threes", table, 0.0, "eval")
    by_object = ExpectimaxAgent(depth=2, evaluator=mine, seed=0).analyze(env.unwrapped)
    by_name = ExpectimaxAgent(depth=2, evaluator="openness", seed=0).analyze(
        env.unwrapped
    )
    # the same table (openness = features at its weights, shifted to the same minimum)
    assert np.allclose(by_object.values, by_name.values, equal_nan=True)
    env2048 = gym.make("2048-v0")
    env2048.reset(seed=0)
    with pytest.raises(ValueError, match="is for Threes, not 2048"):
        ExpectimaxAgent(depth=1, evaluator=mine).analyze(env2048.unwrapped)


def test_tuner_logs_every_game_and_resumes(tmp_path):
    from benchmarks.records import tune_threes

    out = tmp_path / "tune"
    tune_threes.run(out, 1, 2, 2, 0, progress=lambda s: None)
    first = (out / "log.jsonl").read_text().splitlines()
    assert len(first) == 1
    record = json.loads(first[0])
    assert len(record["candidates"]) == 2
    assert all(len(c["scores"]) == 2 for c in record["candidates"])
    # seeds are shared by the candidates and stay off the evaluation stream
    assert record["seeds"] == [tune_threes.game_seed(0, i) for i in range(2)]
    best = tune_threes.run(out, 2, 2, 2, 0, progress=lambda s: None)
    lines = (out / "log.jsonl").read_text().splitlines()
    assert lines[0] == first[0] and len(lines) == 2
    assert set(best["weights"]) == set(ev.FEATURES)
    # a replayed generation gives the candidates of an uninterrupted run
    again = tune_threes.run(tmp_path / "again", 2, 2, 2, 0, progress=lambda s: None)
    assert again == best
    with pytest.raises(ValueError, match="written with"):
        tune_threes.run(out, 3, 2, 3, 0, progress=lambda s: None)


def test_tuner_can_start_from_the_tuned_weights(tmp_path):
    from benchmarks.records import tune_threes

    start = tune_threes.start_vector("tuned")
    weights, lost = tune_threes.decode(start)
    assert weights == pytest.approx(ev.TUNED_WEIGHTS) and lost == ev.TUNED_LOST
    tune_threes.run(tmp_path, 1, 2, 1, 0, progress=lambda s: None, start="tuned")
    record = json.loads((tmp_path / "log.jsonl").read_text())
    assert record["settings"]["start_x"] == pytest.approx(start.tolist())
    with pytest.raises(ValueError, match="written with"):
        tune_threes.run(tmp_path, 2, 2, 1, 0, progress=lambda s: None)


def test_compare_plays_the_log_mean_against_the_tuned_weights(tmp_path):
    from benchmarks.records import tune_threes

    tune_threes.run(tmp_path, 1, 2, 1, 0, progress=lambda s: None)
    result = tune_threes.compare(tmp_path, 0, 3)
    assert len(result["log_mean"]) == len(result["tuned"]) == len(result["seeds"]) == 3
    diffs = [a - b for a, b in zip(result["log_mean"], result["tuned"], strict=True)]
    assert result["mean_difference"] == pytest.approx(sum(diffs) / 3)
    assert result["ci95"][0] <= result["mean_difference"] <= result["ci95"][1]
    on_disk = json.loads((tmp_path / "compare-d0.json").read_text())
    assert on_disk == json.loads(json.dumps(result))
