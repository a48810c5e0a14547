"""Strength records resume from the committed results file alone, refuse games of
another agent (a changed default, another version), and a committed game replays to
its recorded score, also when the clocks run fast."""

import json
import subprocess
import sys

import pytest

from benchmarks.records import strength
from tests.helpers.clocks import fast_clocks


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(
        strength.SETTINGS,
        "tiny",
        strength.Setting("2048-v0", "expectimax:depth=1,evaluator=features", 3),
    )
    return "tiny"


def _run(name, n, tmp_path, store="s"):
    return strength.run(
        name, n, stores=tmp_path / store, results=tmp_path / "r", progress=False
    )


def test_a_run_resumes_from_the_committed_file_alone(tiny, tmp_path):
    first = _run(tiny, 2, tmp_path)
    assert first["fingerprint"] and first["identity"]["options"]["depth"] == 1
    # a fresh machine: the file, no store; only game 2 is played
    more = _run(tiny, 3, tmp_path, store="fresh")
    assert more["games"][:2] == first["games"]  # kept as committed, timings too
    assert [g["index"] for g in more["games"]] == [0, 1, 2]
    with strength._open(strength.SETTINGS[tiny], tmp_path / "fresh/tiny.sqlite") as db:
        assert {index for _, _, index, _ in db.done()} == {2}
    whole = _run(tiny, 3, tmp_path, store="other")  # nothing left to play
    assert whole["games"] == more["games"]


def test_a_file_of_another_fingerprint_is_not_reused(tiny, tmp_path, capsys):
    first = _run(tiny, 2, tmp_path)
    path = tmp_path / "r" / "tiny.json"
    data = json.loads(path.read_text())
    data["identity"]["options"]["prob_cutoff"] = 0.5
    data["fingerprint"] = "0123456789abcdef"
    for game in data["games"]:
        game["score"] += 1  # games that this agent would not play
    path.write_text(json.dumps(data))
    again = _run(tiny, 2, tmp_path, store="fresh")
    err = capsys.readouterr().err
    assert "tiny.json: its 2 games were played with prob_cutoff=0.5" in err
    assert "not reused" in err
    assert [g["score"] for g in again["games"]] == [g["score"] for g in first["games"]]
    assert json.loads(path.read_text())["fingerprint"] == first["fingerprint"]


def test_a_file_from_before_fingerprints_is_not_reused(tiny, tmp_path, capsys):
    _run(tiny, 1, tmp_path)
    path = tmp_path / "r" / "tiny.json"
    data = json.loads(path.read_text())
    del data["identity"], data["fingerprint"]
    path.write_text(json.dumps(data))
    kept, note = strength.committed(tiny, strength.SETTINGS[tiny], tmp_path / "r")
    assert kept == {} and "before fingerprints" in note


@pytest.mark.parametrize("retime", [False, True])
def test_a_game_that_ends_otherwise_than_the_committed_one_is_refused(
    tiny, tmp_path, retime
):
    _run(tiny, 2, tmp_path)
    path = tmp_path / "r" / "tiny.json"
    data = json.loads(path.read_text())
    data["games"][1]["score"] += 4
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="game 1 ended with .* committed file says"):
        # the store holds game 1 as it really ended, or a retimed run plays it again
        strength.run(
            tiny, 2, stores=tmp_path / ("fresh" if retime else "s"),
            results=tmp_path / "r", progress=False, retime=retime,
        )  # fmt: skip


def test_a_retimed_run_plays_the_committed_games_again(tiny, tmp_path):
    first = _run(tiny, 2, tmp_path)
    path = tmp_path / "r" / "tiny.json"
    data = json.loads(path.read_text())
    for game in data["games"]:
        game["ms_per_move"] = game["ms_worst_move"] = 1e6  # times of another machine
    path.write_text(json.dumps(data))
    again = strength.run(
        tiny, 2, stores=tmp_path / "fresh", results=tmp_path / "r", progress=False,
        retime=True,
    )  # fmt: skip
    with strength._open(strength.SETTINGS[tiny], tmp_path / "fresh/tiny.sqlite") as db:
        assert {index for _, _, index, _ in db.done()} == {0, 1}
    assert [(g["score"], g["moves"]) for g in again["games"]] == [
        (g["score"], g["moves"]) for g in first["games"]
    ]
    assert all(g["ms_per_move"] < 1e6 for g in again["games"])
    assert json.loads(path.read_text()) == json.loads(json.dumps(again))


def _shortest(name: str) -> dict:
    data = json.loads((strength.RESULTS / f"{name}.json").read_text())
    return min(data["games"], key=lambda g: g["moves"])


@pytest.mark.parametrize("name", ["threes-features-d1", "2048-d2", "threes-default"])
def test_a_committed_game_replays_to_its_recorded_score(name, monkeypatch):
    kept, note = strength.committed(name, strength.SETTINGS[name])
    assert note is None, note  # the record is today's agent's
    row = _shortest(name)
    assert kept[row["index"]] == row
    fast_clocks(monkeypatch)
    got = strength.replay(name, row["index"])
    assert (got["score"], got["moves"], got["max_tile"]) == (
        row["score"],
        row["moves"],
        row["max_tile"],
    )
    text = strength.replay_check(name, row["index"])
    assert text.endswith("as recorded")


def test_the_2048_default_replays_under_fast_clocks_and_a_cpu_hog(monkeypatch):
    """The 2048 default's record (expectimax over the shipped net) replays game by
    game with every clock 4x fast and a CPU hog beside it: its budget counts nodes."""
    name = "2048-default"
    kept, note = strength.committed(name, strength.SETTINGS[name])
    assert note is None, note
    row = _shortest(name)
    fast_clocks(monkeypatch)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        got = strength.replay(name, row["index"])
    finally:
        hog.kill()
        hog.wait()
    assert (got["score"], got["moves"], got["max_tile"]) == (
        row["score"],
        row["moves"],
        row["max_tile"],
    )


def test_no_record_holds_games_of_another_setting():
    records = sorted(strength.RESULTS.glob("*.json"))
    assert len(records) > 20  # the records and the manifest
    for path in records:
        if path.name == "manifest.json":
            continue
        data = json.loads(path.read_text())
        name = path.stem
        assert name in strength.SETTINGS, f"{path.name}: no such setting"
        assert data["agent"] == strength.SETTINGS[name].agent, path.name
        if "fingerprint" in data:  # a file from before fingerprints is never reused
            ident = data["identity"]
            assert ident["name"] == data["agent"].split(":")[0], path.name


def test_replaying_without_the_net_says_how_to_build_it(monkeypatch, capsys):
    setting = strength.Setting(
        "Threes-v0", "ntuple:path=no/such/net", 1, build="playahead train X"
    )
    monkeypatch.setitem(strength.SETTINGS, "missing", setting)
    with pytest.raises(SystemExit):
        strength.main(["--setting", "missing", "--replay", "0"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "no/such/net" in err and err.endswith("built by: playahead train X")


def test_stamp_names_todays_agent_only_if_a_game_replays(tiny, tmp_path):
    first = _run(tiny, 2, tmp_path)
    path = tmp_path / "r" / "tiny.json"
    data = json.loads(path.read_text())
    del data["identity"], data["fingerprint"]
    path.write_text(json.dumps(data))
    assert strength.stamp(tiny, tmp_path / "r").endswith("replays as recorded; stamped")
    stamped = json.loads(path.read_text())
    assert stamped["fingerprint"] == first["fingerprint"]
    assert list(stamped)[:6] == [
        "command",
        "env",
        "agent",
        "seed",
        "identity",
        "fingerprint",
    ]
    stamped["games"][0]["score"] += 4
    stamped["games"][1]["score"] += 4
    path.write_text(json.dumps(stamped))
    with pytest.raises(ValueError, match="not today's agent's games"):
        strength.stamp(tiny, tmp_path / "r")
