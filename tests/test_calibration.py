"""Values in real points: the default's values mapped to expected final scores, the
committed measurement meets its goal, the map keeps every move's order, and a move
that ends the game is valued at the game's final score."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playahead  # noqa: F401
from playahead.agents import make_agent
from playahead.tools import calibration
from playahead.tools.hint import hint

RESULTS = Path(__file__).parent.parent / "benchmarks" / "results" / "calibration"
STRENGTH = RESULTS.parent / "strength"


@pytest.mark.parametrize("game", ["threes", "2048"])
def test_the_committed_bins_meet_the_goal(game):
    """Held-out positions of the default's record games, binned by decile of the
    shown value: every bin's mean final score within 10% of its mean shown value."""
    data = json.loads((RESULTS / f"{game}.json").read_text())
    assert len(data["bins"]) == 10 and sum(b["n"] for b in data["bins"]) > 1000
    for b in data["bins"]:
        assert abs(b["final"] / b["shown"] - 1) <= data["goal"] == 0.10, b


@pytest.mark.parametrize("game", ["threes", "2048"])
def test_the_record_and_the_shipped_map_come_from_the_committed_positions(game):
    """The measurement recomputed from the committed replays is the committed one,
    the shipped map is the one fitted on the games before the held-out ones, the
    measured games are held-out games only, and every whole game replayed ended as
    the strength record says."""
    from benchmarks.records import calibration as bench

    data = json.loads((RESULTS / f"{game}.json").read_text())
    again = bench.measurement(game)
    assert (again["bins"], again["before"]) == (data["bins"], data["before"])
    assert data["whole_games_as_recorded"] == data["whole_games"] > 0
    fitted, held = bench.split(game)
    cut = bench.HELD_OUT_FROM[game]
    assert fitted and all(g["index"] < cut for g in fitted)
    assert all(g["index"] >= cut for g in held)
    assert data["games"] == sum("final_from" not in g for g in held) > 0
    assert data["fitted_games"] == len(fitted)
    shipped = calibration.maps()[game]
    assert {k: shipped[k] for k in ("score", "x", "h")} == bench._fit(fitted)
    assert data["worst"] < data["worst_before"] / 3


@settings(max_examples=200, deadline=None)
@given(
    game=st.sampled_from(["threes", "2048"]),
    score=st.floats(0, 2e6),
    ahead=st.lists(st.floats(0, 4e5), min_size=2, max_size=4),
)
def test_the_map_keeps_the_order_and_the_gaps_of_the_moves(game, score, ahead):
    """The same position's moves: shown in the search's order, as far apart as the
    search's values (unless held at the score so far: no final score is below it),
    the best at the offset the map gives the position alone."""
    values = score + np.array(ahead)
    shown = calibration.to_points(game, score, values)
    order = np.argsort(values, kind="stable")
    gaps, search_gaps = np.diff(shown[order]), np.diff(values[order])
    assert np.all(gaps >= 0)
    above = shown[order][:-1] > score  # not held at the score so far
    assert np.allclose(gaps[above], search_gaps[above], rtol=0, atol=1e-6)
    assert np.all(shown >= score - 1e-6)  # a final score is at least the score so far
    top = values.max()
    alone = calibration.to_points(game, score, [top])
    assert shown[order][-1] == alone[0]
    each = calibration.to_points(game, score, values, best=values)  # own positions
    assert each[order][-1] == alone[0]


def _ending_position(env_id, seed):
    """The last position of a random game, and its final score per move."""
    env = gym.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    last = None
    while env.unwrapped.action_masks().any():
        last = env.unwrapped.clone_state()
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
    env.unwrapped.restore_state(last)
    return env


def test_a_threes_move_that_ends_the_game_is_valued_at_its_final_score():
    env = _ending_position("Threes-v0", 3)
    base = env.unwrapped
    planner = make_agent("expectimax", seed=0)
    raw = planner.analyze(base)
    shown = calibration.calibrate(env, raw, planner)
    ending = [
        a
        for a in np.flatnonzero(base.action_masks())
        if calibration.ending_score(base, int(a)) is not None
    ]
    assert ending and min(raw.values[a] for a in ending) == 0.0  # the search's 0
    start = base.clone_state()
    for a in ending:
        _, _, terminated, _, info = env.step(int(a))
        assert terminated and shown.values[a] == info["score"] > 0
        base.restore_state(start)
    assert shown.action == raw.action and shown.stats["calibrated"]


def test_only_the_default_search_is_calibrated():
    """The shipped net's search is mapped to final scores; another search's points
    (the score at the horizon) are labelled as the search's, not as final scores;
    other planners keep their own units."""
    env = gym.make("2048-v0")
    env.reset(seed=0)
    for spec, kind in (
        ("expectimax", "score"),
        ("expectimax:depth=1,evaluator=ntuple", "score"),
        ("expectimax:depth=1,evaluator=score", "search_score"),
        ("expectimax:depth=1,evaluator=monotonic", "eval"),
        ("mcts:n_simulations=50", "score"),
    ):
        planner = make_agent(spec, seed=0)
        raw = planner.analyze(env.unwrapped)
        shown = calibration.calibrate(env, raw, planner)
        mapped = (
            spec.startswith("expectimax") and "ntuple" in spec or spec == "expectimax"
        )
        assert bool(shown.stats.get("calibrated")) == mapped, spec
        assert shown.value_kind == kind, spec
        if not mapped:
            np.testing.assert_array_equal(shown.values, raw.values)


@pytest.mark.parametrize("game", ["threes", "2048"])
def test_the_opening_is_valued_near_the_records_mean(game):
    """Fresh games: the calibrated value of the opening averages near what the
    default's recorded games average (the search's own value is a fraction of it)."""
    record = json.loads((STRENGTH / f"{game}-default.json").read_text())
    env = gym.make(record["env"])
    best = []
    for seed in range(5):
        env.reset(seed=seed)
        planner = make_agent("expectimax", seed=0)
        analysis = calibration.calibrate(env, planner.analyze(env.unwrapped), planner)
        best.append(np.nanmax(analysis.values))
    assert np.mean(best) == pytest.approx(record["summary"]["mean"], rel=0.15)


def test_a_hint_of_another_planner_keeps_its_own_units():
    board = "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1"
    features = hint("threes", board, 2, agent="expectimax:depth=1,evaluator=features")
    assert features.unit == "heuristic value, not points"
    assert not features.analysis.stats.get("calibrated")
    horizon = hint("threes", board, 2, agent="expectimax:depth=1,evaluator=score")
    assert (
        horizon.unit == "the search's value in points, not calibrated to a final score"
    )


def test_ending_score_takes_boards_whose_packed_value_has_the_top_bit_set():
    """A big card or tile in the last cell sets bit 63 of the packed board (numba
    hands such a board back as a Python int): still read as a board."""
    from playahead.tools.positions import position

    threes_env, _ = position("threes", "0 0 0 0 / 0 0 0 0 / 0 0 0 0 / 1 0 0 96", 2)
    twenty48_env, _ = position("2048", "0 0 0 0 / 0 0 0 0 / 0 0 0 0 / 2 0 0 32768")
    for env in (threes_env, twenty48_env):
        for action in np.flatnonzero(env.action_masks()):
            assert calibration.ending_score(env.unwrapped, int(action)) is None


def test_a_bins_interval_resamples_games_not_positions():
    """Positions of one game share its final score: with every game's final the same,
    each bin's interval is that score; with two games of different finals, a bin
    holding both has the interval's ends at (about) the two finals, however many
    positions each game has."""
    from benchmarks.records import calibration as bench

    shown = np.arange(40, dtype=float)
    game = np.arange(40) % 4
    rows = bench.bins(shown, np.full(40, 7.0), game, n=2)
    assert [r["final_ci95"] for r in rows] == [[7.0, 7.0], [7.0, 7.0]]
    assert [r["games"] for r in rows] == [4, 4]
    two = np.repeat([0, 1], [990, 10])  # 990 positions of game 0, 10 of game 1
    final = np.where(two == 0, 100.0, 200.0)
    (row,) = bench.bins(np.arange(1000.0), final, two, n=1)
    assert row["games"] == 2 and row["final"] == pytest.approx(101.0)
    lo, hi = row["final_ci95"]
    assert lo == 100.0 and hi > 101.0  # a resample may hold game 1 twice
    assert bench.consistent([row | {"shown": 100.5}]) == 1
    assert bench.consistent([row | {"shown": 99.0}]) == 0


def test_games_for_goal_scales_with_the_widest_interval():
    from benchmarks.records import calibration as bench

    rows = [
        {"shown": 100.0, "final_ci95": [90.0, 110.0]},  # half-width 10: the goal
        {"shown": 100.0, "final_ci95": [80.0, 120.0]},  # twice the goal: 4x games
    ]
    assert bench.games_for_goal(rows, 50) == 200
    assert bench.games_for_goal(rows[:1], 50) == 50


def test_the_docs_calibration_table_is_written_from_the_records():
    from benchmarks.records import calibration as bench

    page = bench.PAGE.read_text()
    match = bench.MARKER.search(page)
    assert match is not None
    assert match.group(0) == match.group(1) + bench.table() + match.group(2)
