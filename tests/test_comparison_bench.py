"""The search-against-learning comparison on a tiny setting: the table's rows, the
paired column against greedy, the training cost read from the runs, and a missing run
left out with the command that builds it."""

import json

import pytest

from benchmarks import comparison
from benchmarks.comparison import Entry
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
