"""``evaluate(...)``: common random numbers, resuming, round robins, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from playahead.evaluate import AgentError, evaluate
from playahead.evaluate.store import GameRecord, Store, agent_identity
from tests.helpers.eval_agents import AGENTS_MODULE

FAST = dict(progress=False, n_resamples=200)


def test_identical_agents_meet_identical_games():
    result = evaluate(
        "Threes-v0", ["evaltest_lowest", "evaltest_lowest_twin"], 8, seed=3, **FAST
    )
    a, b = result.agents
    assert a.scores == b.scores and a.max_tiles == b.max_tiles
    pair = result.pairs[0]
    assert pair.mean_difference == 0.0 and pair.ci95 == (0.0, 0.0)
    assert "no clear difference" in pair.verdict
    assert len(set(a.scores)) > 1  # different games, same for both agents


def test_same_seed_same_result_other_seed_other_games():
    agents = ["random", "evaltest_lowest"]
    one = evaluate("2048-v0", agents, 6, seed=1, **FAST).to_dict(timings=False)
    two = evaluate("2048-v0", agents, 6, seed=1, **FAST).to_dict(timings=False)
    other = evaluate("2048-v0", agents, 6, seed=2, **FAST).to_dict(timings=False)
    assert one == two
    assert one["agents"][1]["scores"] != other["agents"][1]["scores"]


def test_one_and_two_worker_processes_agree():
    agents = ["random", "evaltest_lowest"]
    kw = dict(n_games=4, seed=9, imports=[AGENTS_MODULE], **FAST)
    single = evaluate("2048-v0", agents, workers=1, **kw)
    double = evaluate("2048-v0", agents, workers=2, **kw)
    assert single.to_dict(timings=False) == double.to_dict(timings=False)


def test_summary_numbers_come_from_the_games():
    result = evaluate("2048-v0", ["random"], 12, seed=0, **FAST)
    a = result.agents[0]
    scores = np.array(a.scores)
    assert a.games == 12 and a.mean == pytest.approx(scores.mean())
    assert (a.median, a.min, a.max) == (np.median(scores), scores.min(), scores.max())
    assert a.ci95[0] < a.mean < a.ci95[1]
    assert a.milestones[512] == pytest.approx(np.mean(np.array(a.max_tiles) >= 512))
    assert sorted(a.milestones) == [512, 1024, 2048, 4096, 8192, 16384, 32768]
    assert a.moves_per_game == pytest.approx(np.mean(a.moves))
    assert 0 < a.seconds_per_move <= a.p90_seconds_per_move * 10


def test_resume_uses_stored_games_and_plays_only_the_rest(tmp_path):
    path = tmp_path / "r.sqlite"
    agents = ["random", "evaltest_lowest"]
    evaluate("2048-v0", agents, 3, seed=4, store=path, **FAST)
    with Store(path, "2048-v0", {}, 4, "single") as store:
        assert store.count() == 6
        # A marker game: if the evaluator replayed game 4 we would not see it.
        store.use_agents({"random": agent_identity("random", "2048-v0")})
        store.add(
            GameRecord(
                "random",
                "",
                4,
                0,
                1,
                7.0,
                8,
                1,
                None,
                0.0,
                np.zeros(1, np.float32),
                version="marker",
            )
        )
    resumed = evaluate("2048-v0", agents, 6, seed=4, store=path, **FAST)
    assert resumed.agents[0].scores[4] == 7.0
    with Store(path, "2048-v0", {}, 4, "single") as store:
        assert store.count() == 12
    fresh = evaluate("2048-v0", agents, 6, seed=4, **FAST)
    assert resumed.agents[1].scores == fresh.agents[1].scores
    assert resumed.agents[0].scores[:4] == fresh.agents[0].scores[:4]
    # Asking for fewer games reports the first ones from the store.
    fewer = evaluate("2048-v0", agents, 3, seed=4, store=path, **FAST)
    assert fewer.agents[1].scores == fresh.agents[1].scores[:3]


def test_nim_round_robin_ranks_perfect_play_first():
    agents = ["random", "evaltest_lowest", "evaltest_nim_perfect"]
    result = evaluate("Nim-v0", agents, 10, seed=0, **FAST)
    assert result.kind == "two_player"
    by_spec = {p.spec: p for p in result.agents}
    perfect = by_spec["evaltest_nim_perfect"]
    assert (perfect.games, perfect.wins, perfect.losses) == (40, 40, 0)
    assert (
        perfect.elo > by_spec["random"].elo
        and perfect.elo > by_spec["evaltest_lowest"].elo
    )
    assert np.mean([p.elo for p in result.agents]) == pytest.approx(1500.0)
    for p in result.agents:
        assert p.wins + p.draws + p.losses == p.games == 40
        assert p.elo_ci95[0] <= p.elo <= p.elo_ci95[1]
    for pair in result.pairs:
        assert pair.a < pair.b and pair.games == 20
        assert sum(pair.first) == sum(pair.second) == 10
    # Nim has no draws; lowest always takes 1, so from 21 it cannot beat perfect play.
    lowest_vs_perfect = [
        p
        for p in result.pairs
        if p.b == "evaltest_nim_perfect" and p.a == "evaltest_lowest"
    ][0]
    assert (lowest_vs_perfect.wins, lowest_vs_perfect.draws) == (0, 0)


def test_round_robin_does_not_depend_on_agent_order(tmp_path):
    path = tmp_path / "ttt.sqlite"
    forward = evaluate(
        "TicTacToe-v0", ["random", "evaltest_lowest"], 5, seed=2, store=path, **FAST
    )
    backward = evaluate(
        "TicTacToe-v0", ["evaltest_lowest", "random"], 5, seed=2, store=path, **FAST
    )
    assert forward.pairs == backward.pairs
    assert forward.agents == backward.agents[::-1]  # Elo and its interval too
    with Store(path, "TicTacToe-v0", {}, 2, "two_player") as store:
        assert store.count() == 10  # the second call played nothing


@pytest.mark.parametrize("workers", [1, 2])
def test_agent_failing_mid_run_keeps_finished_games(tmp_path, workers):
    path = tmp_path / "r.sqlite"
    agents = ["random", "evaltest_always_three"]
    # Always moving left passes the first-move check but ends in an illegal move.
    with pytest.raises(AgentError, match="evaltest_always_three.*not legal"):
        evaluate("2048-v0", agents, 3, seed=0, store=path, workers=workers,
                 imports=[AGENTS_MODULE], **FAST)  # fmt: skip
    with Store(path, "2048-v0", {}, 0, "single") as store:
        assert ("random", "", 0, 0) in store.done()


@pytest.mark.parametrize(
    "env_id, agents, kwargs, message",
    [
        ("2048-v0", ["nonesuch"], {}, "unknown agent 'nonesuch'; available: .*random"),
        ("2048-v0", ["evaltest_threes_only"], {}, "cannot play 2048-v0"),
        ("2048-v0", ["random"], {"n_games": 0}, "n_games must be an integer >= 1"),
        ("2048-v0", ["random"], {"seed": -1}, "seed must be an integer >= 0"),
        ("2048-v0", ["random", "random"], {}, "repeated: random"),
        ("2048-v0", [], {}, "at least one agent"),
        ("2048-v0", [object()], {}, "spec strings"),
        ("2048-v0", ["random:depth"], {}, "not key=value"),
        (
            "Chess-v9",
            ["random"],
            {},
            "unknown env 'Chess-v9'; playahead envs: .*2048-v0",
        ),
        ("2048-v0", ["random"], {"env_kwargs": {"size": 5}}, "bad options"),
        ("Nim-v0", ["random"], {}, "two-player game: give at least two agents"),
        (
            "Nim-v0",
            ["random", "evaltest_lowest"],
            {"env_kwargs": {"opponent": "x"}},
            "'opponent' cannot be set",
        ),
        ("2048-v0", ["random"], {"backend": "dask"}, "backend 'dask'"),
        ("2048-v0", ["random"], {"imports": ["no_such_module_x"]}, "cannot import"),
    ],
)
def test_bad_input_gets_a_clear_error(tmp_path, env_id, agents, kwargs, message):
    path = tmp_path / "new" / "r.sqlite"
    with pytest.raises(ValueError, match=message):
        evaluate(env_id, agents, **{"n_games": 2, "store": path, **FAST, **kwargs})
    assert not path.parent.exists()  # a refused run leaves no new store behind


def test_store_from_another_env_is_refused_and_kept(tmp_path):
    path = tmp_path / "r.sqlite"
    evaluate("2048-v0", ["random"], 2, seed=0, store=path, **FAST)
    with pytest.raises(
        ValueError,
        match="another evaluation.*env_id: store has "
        "'2048-v0', this run asks for 'Threes-v0'",
    ):
        evaluate("Threes-v0", ["random"], 2, seed=0, store=path, **FAST)
    with pytest.raises(ValueError, match="env_options"):
        evaluate(
            "2048-v0",
            ["random"],
            2,
            seed=0,
            store=path,
            env_kwargs={"illegal_action": "raise"},
            **FAST,
        )
    assert evaluate("2048-v0", ["random"], 2, seed=0, store=path, **FAST).agents


def test_results_record_the_store_without_the_machines_layout(tmp_path, monkeypatch):
    inside = tmp_path / "work"
    monkeypatch.chdir(inside.parent)
    kw = dict(n_games=1, seed=0, **FAST)
    result = evaluate("2048-v0", ["random"], store=inside / "r" / "a.sqlite", **kw)
    assert result.store == "work/r/a.sqlite"  # relative to the working directory
    monkeypatch.chdir(inside / "r")
    elsewhere = tmp_path / "other" / "b.sqlite"
    assert evaluate("2048-v0", ["random"], store=elsewhere, **kw).store == "b.sqlite"
