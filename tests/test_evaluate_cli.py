"""``playahead evaluate`` from the command line: options, exports, bad input."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import pytest

import tests.helpers.eval_agents  # noqa: F401  (registers the test agents)
from playahead.evaluate import cli


def _main(argv: list[str]) -> int:
    return cli.main(["--quiet", "--resamples", "200", *argv])


def _strip(data: dict) -> dict:
    """The JSON without what legitimately differs between runs (timings, paths)."""
    data = dict(data, store=None)
    for agent in data["agents"]:
        agent.pop("seconds_per_move")
        agent.pop("p90_seconds_per_move")
    return data


def test_configure_adds_the_documented_options():
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    args = parser.parse_args(
        [
            "--env",
            "Threes-v0",
            "--agents",
            "random",
            "mc:n_rollouts=50",
            "--games",
            "7",
            "--workers",
            "2",
            "--env-kwargs",
            '{"bonus_preview": "plus"}',
            "--out",
            "x.sqlite",
            "--json",
            "x.json",
            "--plot",
            "x.png",
        ]
    )
    assert args.func is cli.run
    assert (args.env, args.agents, args.games, args.seed) == (
        "Threes-v0",
        ["random", "mc:n_rollouts=50"],
        7,
        0,
    )
    assert cli.parse_env_kwargs(args.env_kwargs) == {"bonus_preview": "plus"}
    assert (args.backend, args.address, args.workers) == ("local", None, 2)


def test_single_player_exports(tmp_path, capsys):
    out = tmp_path / "r"
    code = _main(
        [
            "--env",
            "Threes-v0",
            "--agents",
            "random",
            "evaltest_lowest",
            "--games",
            "5",
            "--env-kwargs",
            '{"bonus_preview": "plus"}',
            "--out",
            str(out / "t.sqlite"),
            "--json",
            str(out / "t.json"),
            "--markdown",
            str(out / "t.md"),
            "--csv",
            str(out / "t.csv"),
            "--plot",
            str(out / "t.png"),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "evaltest_lowest" in printed and "95% CI" in printed
    data = json.loads((out / "t.json").read_text())
    assert data["env_kwargs"] == {"bonus_preview": "plus"}
    assert [a["spec"] for a in data["agents"]] == ["random", "evaltest_lowest"]
    assert all(len(a["scores"]) == len(a["max_tiles"]) == 5 for a in data["agents"])
    assert "384" in data["agents"][0]["milestones"]
    md = (out / "t.md").read_text()
    assert "| agent | games | mean |" in md and "| random | 5 |" in md
    rows = list(csv.DictReader(io.StringIO((out / "t.csv").read_text())))
    assert [r["spec"] for r in rows] == ["random", "evaltest_lowest"]
    assert float(rows[0]["mean"]) == pytest.approx(data["agents"][0]["mean"])
    assert (out / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_player_exports(tmp_path):
    code = _main(
        [
            "--env",
            "Nim-v0",
            "--agents",
            "random",
            "evaltest_nim_perfect",
            "--games",
            "4",
            "--no-store",
            "--json",
            str(tmp_path / "n.json"),
            "--plot",
            str(tmp_path / "n.svg"),
        ]
    )
    assert code == 0
    data = json.loads((tmp_path / "n.json").read_text())
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"]) == ("evaltest_nim_perfect", "random")
    assert (pair["wins"], pair["draws"], pair["losses"]) == (8, 0, 0)
    assert "<svg" in (tmp_path / "n.svg").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "nonesuch"], "unknown agent 'nonesuch'"),
        (["--agents", "evaltest_threes_only"], "cannot play 2048-v0"),
        (["--agents", "random", "--games", "0"], "n_games must be an integer >= 1"),
        (["--agents", "random", "--env-kwargs", "{bad"], "not valid JSON"),
        (["--agents", "random", "--env-kwargs", "[1]"], "must be a JSON object"),
        (["--agents", "random", "--plot", "x.gif"], "must end in .png"),
    ],
)
def test_bad_input_exits_with_a_message(tmp_path, capsys, argv, message):
    code = _main(["--env", "2048-v0", "--out", str(tmp_path / "r.sqlite"), *argv])
    assert code == 2
    assert message in capsys.readouterr().err


def test_store_from_another_env_exits_with_a_message(tmp_path, capsys):
    store = str(tmp_path / "r.sqlite")
    assert (
        _main(
            ["--env", "2048-v0", "--agents", "random", "--games", "1", "--out", store]
        )
        == 0
    )
    assert (
        _main(
            ["--env", "Threes-v0", "--agents", "random", "--games", "1", "--out", store]
        )
        == 2
    )
    assert "holds games of another evaluation" in capsys.readouterr().err


def test_agent_error_reports_the_kept_games(tmp_path, capsys):
    store = tmp_path / "r.sqlite"
    code = _main(
        [
            "--env",
            "2048-v0",
            "--agents",
            "random",
            "evaltest_always_three",
            "--games",
            "2",
            "--out",
            str(store),
        ]
    )
    assert code == 1
    assert f"finished games are kept in {store}" in capsys.readouterr().err


def test_default_store_name_depends_on_env_options_and_seed():
    plain = cli.default_store("Threes-v0", {}, 0)
    assert plain == Path("results/Threes-v0-seed0.sqlite")
    plus = cli.default_store("Threes-v0", {"bonus_preview": "plus"}, 0)
    assert plus != plain and plus.name.endswith("-seed0.sqlite")
    assert (
        cli.default_store("playahead/2048-v0", {}, 3).name
        == "playahead_2048-v0-seed3.sqlite"
    )


def test_a_refused_run_leaves_no_folders_or_files(tmp_path):
    out = tmp_path / "a" / "b" / "r.sqlite"
    code = cli.main(
        ["--env", "Threes-v0", "--agents", "random", "dqn:path=nope/model.zip",
         "--games", "2", "--out", str(out), "--json", str(tmp_path / "c" / "r.json")]
    )  # fmt: skip
    assert code != 0
    assert list(tmp_path.iterdir()) == []
