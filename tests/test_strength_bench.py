"""The strength benchmark's code path on a tiny setting: the results file's schema, and
game i replayed alone equals game i of a longer run with the same seed."""

import json

import pytest

from benchmarks.records import strength


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(
        strength.SETTINGS,
        "tiny",
        strength.Setting("2048-v0", "expectimax:depth=1,evaluator=features", 3),
    )
    return "tiny"


def test_results_file_schema(tiny, tmp_path):
    result = strength.run(
        tiny, 2, stores=tmp_path / "s", results=tmp_path / "r", progress=False
    )
    on_disk = json.loads((tmp_path / "r" / "tiny.json").read_text())
    assert on_disk == json.loads(json.dumps(result))
    assert on_disk["command"].startswith("playahead evaluate --env 2048-v0 --agents")
    assert "--games 2 --seed 0" in on_disk["command"]
    assert (on_disk["env"], on_disk["agent"], on_disk["seed"]) == (
        "2048-v0",
        "expectimax:depth=1,evaluator=features",
        0,
    )
    assert [g["index"] for g in on_disk["games"]] == [0, 1]
    for game in on_disk["games"]:
        assert set(game) == {
            "index",
            "score",
            "max_tile",
            "moves",
            "ms_per_move",
            "ms_worst_move",
        }
        assert game["max_tile"] >= 8 and game["moves"] > 0 and game["score"] > 0
        assert game["ms_worst_move"] >= game["ms_per_move"] > 0
    s = on_disk["summary"]
    assert s["n_games"] == 2
    assert s["ms_worst_move"] == max(g["ms_worst_move"] for g in on_disk["games"])
    assert s["ci95"][0] <= s["mean"] <= s["ci95"][1]
    assert set(s["reach"]) == {"2048", "4096", "8192", "16384", "32768"}
    table = (tmp_path / "r" / "tiny.md").read_text()
    assert "| 2 |" in table and on_disk["command"] in table


def test_replay_one_game_alone_matches_the_longer_run(tiny, tmp_path):
    longer = strength.run(
        tiny, 3, stores=tmp_path / "s", results=tmp_path / "r", progress=False
    )
    alone = strength.replay(tiny, 2)
    assert alone["score"] == longer["games"][2]["score"]
    assert alone["moves"] == longer["games"][2]["moves"]
    assert alone["max_tile"] == longer["games"][2]["max_tile"]


def test_fewer_games_are_a_prefix_of_more(tiny, tmp_path):
    two = strength.run(
        tiny, 2, stores=tmp_path / "a", results=tmp_path / "ra", progress=False
    )
    three = strength.run(
        tiny, 3, stores=tmp_path / "b", results=tmp_path / "rb", progress=False
    )
    strip = [{k: g[k] for k in ("score", "moves")} for g in three["games"][:2]]
    assert [{k: g[k] for k in ("score", "moves")} for g in two["games"]] == strip


def test_writing_every_k_games_gives_the_same_file(tiny, tmp_path):
    once = strength.run(
        tiny, 3, stores=tmp_path / "a", results=tmp_path / "ra", progress=False
    )
    stepwise = strength.run(
        tiny, 3, stores=tmp_path / "b", results=tmp_path / "rb", progress=False, every=2
    )
    assert [g["score"] for g in stepwise["games"]] == [
        g["score"] for g in once["games"]
    ]
    assert stepwise["command"].replace("/b/", "/a/") == once["command"]


def test_a_setting_that_loads_a_net_names_the_command_that_builds_it(
    monkeypatch, tmp_path
):
    setting = strength.Setting("2048-v0", "greedy", 1, build="playahead train X")
    monkeypatch.setitem(strength.SETTINGS, "built", setting)
    result = strength.run(
        "built", stores=tmp_path / "s", results=tmp_path / "r", progress=False
    )
    assert result["build"] == "playahead train X"
    assert "the net: `playahead train X`" in (tmp_path / "r" / "built.md").read_text()


def _results(path, env, seed, scores):
    games = [{"index": i, "score": s} for i, s in scores.items()]
    path.write_text(json.dumps({"env": env, "seed": seed, "games": games}))


def test_paired_compares_the_games_both_settings_played(tmp_path):
    _results(tmp_path / "a.json", "Threes-v0", 0, {0: 10, 1: 30, 2: 50})
    _results(tmp_path / "b.json", "Threes-v0", 0, {0: 4, 1: 10})
    got = strength.paired("a", "b", results=tmp_path)
    assert got["games"] == 2 and got["a"] == 20 and got["b"] == 7
    assert got["difference"] == 13  # (6 + 20) / 2, game 2 has no partner
    lo, hi = got["ci95"]
    assert 6 <= lo <= 13 <= hi <= 20


def test_paired_refuses_files_of_other_games(tmp_path):
    _results(tmp_path / "a.json", "Threes-v0", 0, {0: 10})
    _results(tmp_path / "b.json", "Threes-v0", 1, {0: 4})
    _results(tmp_path / "c.json", "Threes-v0", 0, {5: 4})
    with pytest.raises(ValueError, match="did not play the same games"):
        strength.paired("a", "b", results=tmp_path)
    with pytest.raises(ValueError, match="no game in common"):
        strength.paired("a", "c", results=tmp_path)
    with pytest.raises(ValueError, match="no results for d"):
        strength.paired("a", "d", results=tmp_path)


def test_files_written_during_a_run_hold_the_finished_prefix(tiny, tmp_path):
    """Games can finish out of order with several workers: a write in the middle of a
    run lists games 0 .. k-1 only, and only once k has grown by ``every``."""
    import sqlite3

    stores, results = tmp_path / "s", tmp_path / "r"
    full = strength.run(tiny, 3, stores=stores, results=results, progress=False)
    store = stores / "tiny.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM games WHERE game_index >= 1")
    (results / "tiny.json").unlink()
    setting = strength.SETTINGS[tiny]
    writer = strength._Writer(tiny, setting, 3, store, results, every=1)
    assert writer.written == 1 and writer.tick() is None
    assert not (results / "tiny.json").exists()
    strength.run(tiny, 2, stores=stores, results=tmp_path / "r2", progress=False)
    assert strength.finished_prefix(setting, store, 3) == 2
    assert writer.tick() == 2 and writer.tick() is None
    on_disk = json.loads((results / "tiny.json").read_text())
    assert [g["score"] for g in on_disk["games"]] == [
        g["score"] for g in full["games"][:2]
    ]
    assert "--games 2 " in on_disk["command"]


def test_a_new_record_is_named_in_its_folders_manifest(tiny, tmp_path):
    results = tmp_path / "r"
    results.mkdir()
    (results / "manifest.json").write_text('{"study": "x", "records": ["a.json"]}')
    strength.run(tiny, 1, stores=tmp_path / "s", results=results, progress=False)
    manifest = json.loads((results / "manifest.json").read_text())
    assert manifest == {"study": "x", "records": ["a.json", "tiny.json", "tiny.md"]}
