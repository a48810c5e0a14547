"""The search-against-learning comparison on a tiny setting: the table's rows, the
paired column against greedy, the training cost read from the runs, and a missing run
left out with the command that builds it."""

import json

import pytest

from benchmarks.records import comparison
from benchmarks.records.comparison import Entry
from playahead.ntuple.train import train_ntuple


@pytest.fixture
def tiny(monkeypatch, tmp_path):
    net = tmp_path / "net"
    train_ntuple(
        "2048-v0",
        200,
        net,
        seed=0,
        patterns=("0123", "4567"),
        eval_every=200,
        eval_games=2,
        progress=False,
        tensorboard=False,
    )
    entries = [
        Entry("random", "random"),
        Entry("greedy", "greedy"),
        Entry("n-tuple", f"ntuple:path={net}", str(net), "playahead train ntuple ..."),
        Entry("ppo", "ppo:path=nowhere/model.zip", str(tmp_path / "no"), "TRAIN-PPO"),
    ]
    monkeypatch.setitem(comparison.AGENTS, "2048-v0", entries)
    return net


def test_table_rows_pairs_and_training_cost(tiny, tmp_path, capsys):
    md = comparison.run(
        "2048-v0", 3, stores=tmp_path / "s", results=tmp_path / "r", progress=False
    )
    assert "left out ppo:path=nowhere/model.zip" in capsys.readouterr().err
    data = json.loads((tmp_path / "r" / "2048-v0.json").read_text())
    assert [a["spec"] for a in data["agents"]] == [
        "random",
        "greedy",
        f"ntuple:path={tiny}",
    ]
    assert all(len(a["scores"]) == 3 for a in data["agents"])
    assert data["command"].startswith("playahead evaluate --env 2048-v0 --agents")
    assert "--games 3 --seed 0" in data["command"]
    cost = data["training"][f"ntuple:path={tiny}"]["cost"]
    assert cost["budget"] == "200 games" and cost["cpu_minutes"] > 0

    rows = [r for r in md.read_text().splitlines() if r.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows] == ["| random", "| greedy", "| n-tuple"]
    random_row, greedy_row, net_row = (r.split(" | ") for r in rows)
    pair = next(p for p in data["pairs"] if {p["a"], p["b"]} == {"random", "greedy"})
    diff = pair["mean_difference"] * (1 if pair["a"] == "random" else -1)
    assert random_row[-2].startswith(f"{diff:+,.0f} [")
    assert greedy_row[-2] == ""  # greedy is not compared with itself
    assert net_row[-1].startswith("200 games, ") and "CPU min" in net_row[-1]


def test_training_cost_of_each_kind_of_run(tmp_path):
    sb3 = tmp_path / "sb3"
    sb3.mkdir()
    cost = {"steps": 4096, "cpu_seconds": 120.0, "wall_seconds": 150.0}
    (sb3 / "cost.json").write_text(json.dumps({**cost, "complete": False}))
    got = comparison.training_cost(sb3)
    assert got == {"budget": "4,096 steps", "cpu_minutes": 2.0, "note": "at least"}
    assert comparison._cost_cell(got) == "4,096 steps, at least 2.0 CPU min"
    old = tmp_path / "old"
    old.mkdir()
    (old / "config.json").write_text(json.dumps({"steps": 100}))
    assert comparison.training_cost(old) is None  # no cost and no TensorBoard log
    assert comparison.training_cost(tmp_path / "missing") is None


def test_every_listed_deep_rl_command_parses_and_resolves_its_settings(monkeypatch):
    """The comparison tells a reader how to rebuild each missing run; those commands
    must run as printed (from the repository root, where ``--conf`` paths point)."""
    import shlex
    from pathlib import Path

    from playahead.cli import build_parser
    from playahead.train.cli import hp_overrides
    from playahead.train.config import load_hyperparams

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    parser = build_parser()
    deep = ("playahead train ppo ", "playahead train dqn ")
    commands = [
        e.train
        for entries in comparison.AGENTS.values()
        for e in entries
        if e.train and e.train.startswith(deep)
    ]
    assert any("--conf" in c for c in commands)
    for command in commands:
        args = parser.parse_args(shlex.split(command)[1:])
        hp = load_hyperparams(args.algo, args.env_id, hp_overrides(args))
        assert hp["n_envs"] >= 1, command


# ------------------------------------------------------- resuming from the record
def _stored(store) -> list[str]:
    """The agents of the games in a results store (none if there is no store)."""
    import sqlite3

    if not store.exists():
        return []
    with sqlite3.connect(store) as db:
        return [row[0] for row in db.execute("SELECT agent FROM games")]


def _record(monkeypatch, tmp_path, entries, n_games=3):
    """Play ``entries`` on ``n_games`` games into ``tmp_path/r``, then forget the
    store (a fresh machine with the committed record); the record's JSON."""
    monkeypatch.setitem(comparison.AGENTS, "2048-v0", entries)
    comparison.run(
        "2048-v0",
        n_games,
        stores=tmp_path / "s",
        results=tmp_path / "r",
        progress=False,
    )
    (tmp_path / "s" / "2048-v0.sqlite").unlink()
    return json.loads((tmp_path / "r" / "2048-v0.json").read_text())


def _again(monkeypatch, tmp_path, entries, n_games=3, seed=0):
    """Run the comparison again with ``entries``: (its JSON, its Markdown)."""
    monkeypatch.setitem(comparison.AGENTS, "2048-v0", entries)
    md = comparison.run(
        "2048-v0",
        n_games,
        seed,
        stores=tmp_path / "s",
        results=tmp_path / "r",
        progress=False,
    )
    return json.loads((tmp_path / "r" / "2048-v0.json").read_text()), md.read_text()


CHEAP = [Entry("random", "random"), Entry("greedy", "greedy")]


def test_a_fresh_store_with_the_committed_record_replays_nothing(monkeypatch, tmp_path):
    old = _record(monkeypatch, tmp_path, CHEAP)
    assert set(old["identities"]) == {"random", "greedy"}
    new, _ = _again(monkeypatch, tmp_path, CHEAP)
    assert _stored(tmp_path / "s" / "2048-v0.sqlite") == []  # nothing played
    assert new["agents"] == old["agents"] and new["pairs"] == old["pairs"]
    assert new["identities"] == old["identities"]


def test_a_new_agent_plays_only_its_own_games(monkeypatch, tmp_path):
    old = _record(monkeypatch, tmp_path, CHEAP)
    mc = Entry("mc", "mc:n_rollouts=2")
    new, md = _again(monkeypatch, tmp_path, [*CHEAP, mc])
    assert _stored(tmp_path / "s" / "2048-v0.sqlite") == ["mc:n_rollouts=2"] * 3
    assert [a["spec"] for a in new["agents"]] == ["random", "greedy", mc.spec]
    assert new["agents"][:2] == old["agents"]
    # the pairs are computed again over every agent, the old one unchanged
    assert [(p["a"], p["b"]) for p in new["pairs"]] == [
        ("random", "greedy"),
        ("random", mc.spec),
        ("greedy", mc.spec),
    ]
    assert new["pairs"][0] == old["pairs"][0]
    diff = -new["pairs"][2]["mean_difference"]  # mc - greedy
    mc_row = next(r for r in md.splitlines() if r.startswith("| mc |"))
    assert mc_row.split(" | ")[-2].startswith(f"{diff:+,.0f} [")


def test_an_agent_whose_run_is_missing_keeps_its_committed_rows(
    monkeypatch, tmp_path, capsys
):
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.json").write_text(json.dumps({"games": 10, "cpu_seconds": 90.0}))
    learned = Entry("learned", "mc:n_rollouts=2", str(run), "TRAIN-IT")
    old = _record(monkeypatch, tmp_path, [*CHEAP, learned])
    (run / "model.json").unlink()
    run.rmdir()  # this machine has no run directory
    capsys.readouterr()
    new, md = _again(monkeypatch, tmp_path, [*CHEAP, learned])
    err = capsys.readouterr().err
    assert f"kept {learned.spec} from the record, not replayed: no {run}" in err
    assert "left out" not in err
    assert _stored(tmp_path / "s" / "2048-v0.sqlite") == []
    assert new["agents"] == old["agents"]
    cost = new["training"][learned.spec]["cost"]
    assert cost == {"budget": "10 games", "cpu_minutes": 1.5, "note": ""}
    row = next(r for r in md.splitlines() if r.startswith("| learned |"))
    assert row.endswith("| 10 games, 1.5 CPU min |")


def test_an_agent_of_another_fingerprint_plays_again(monkeypatch, tmp_path, capsys):
    _record(monkeypatch, tmp_path, CHEAP)
    path = tmp_path / "r" / "2048-v0.json"
    data = json.loads(path.read_text())
    ident = data["identities"]["greedy"]
    ident["identity"]["version"] = "0.0.1"
    ident["fingerprint"] = "0" * 16
    path.write_text(json.dumps(data))
    capsys.readouterr()
    _again(monkeypatch, tmp_path, CHEAP)
    assert "greedy: its games in 2048-v0.json were played with playahead 0.0.1" in (
        capsys.readouterr().err
    )
    assert _stored(tmp_path / "s" / "2048-v0.sqlite") == ["greedy"] * 3


def test_a_record_from_before_fingerprints_is_kept_by_spec(
    monkeypatch, tmp_path, capsys
):
    _record(monkeypatch, tmp_path, CHEAP)
    path = tmp_path / "r" / "2048-v0.json"
    data = json.loads(path.read_text())
    del data["identities"]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    new, _ = _again(monkeypatch, tmp_path, CHEAP)
    assert "kept by spec from 2048-v0.json" in capsys.readouterr().err
    assert _stored(tmp_path / "s" / "2048-v0.sqlite") == []
    assert new["identities"] == {}  # still named by spec only


def test_a_record_of_another_games_count_or_seed_is_not_reused(
    monkeypatch, tmp_path, capsys
):
    _record(monkeypatch, tmp_path, CHEAP, n_games=3)
    capsys.readouterr()
    new, _ = _again(monkeypatch, tmp_path, CHEAP, n_games=2)
    err = capsys.readouterr().err
    assert (
        "2048-v0.json holds 3 games per agent with seed 0, this run asks for 2 with "
        "seed 0: not reused" in err
    )
    assert (
        sorted(_stored(tmp_path / "s" / "2048-v0.sqlite"))
        == ["greedy"] * 2 + ["random"] * 2
    )
    assert new["n_games"] == 2 and all(a["games"] == 2 for a in new["agents"])
    (tmp_path / "s" / "2048-v0.sqlite").unlink()
    new, _ = _again(monkeypatch, tmp_path, CHEAP, n_games=2, seed=1)
    assert "with seed 0, this run asks for 2 with seed 1: not reused" in (
        capsys.readouterr().err
    )
    assert len(_stored(tmp_path / "s" / "2048-v0.sqlite")) == 4
    assert new["seed"] == 1


def test_a_net_still_training_is_left_out(monkeypatch, tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.json").write_text(json.dumps({"games": 10, "cpu_seconds": 1.0}))
    net = Entry("net", "mc:n_rollouts=2", str(run), "playahead train --games 20")
    new, _ = _again(monkeypatch, tmp_path, [*CHEAP, net], n_games=2)
    assert (
        f"left out mc:n_rollouts=2: {run} holds a net of 10 games, its command "
        "trains 20 (still training?)" in capsys.readouterr().err
    )
    assert [a["spec"] for a in new["agents"]] == ["random", "greedy"]
