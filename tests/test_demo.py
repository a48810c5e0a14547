"""The main demo runs end to end (with tiny budgets), reads well in a log, resumes, and
its committed record is what a fresh run of the same command plays."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from playahead.cli import build_parser, main
from playahead.tools.demo import label

RECORD = Path(__file__).parent.parent / "benchmarks/results/head-to-head/demo-2048.json"


def _args(out):
    return [
        "demo",
        "--out",
        str(out),
        "--games",
        "2",
        "--ntuple-games",
        "500",
        "--train-steps",
        "256",
        "--agents",
        "random",
        "greedy",
        "--workers",
        "1",
    ]


def test_demo_fits_80_columns_in_a_log_and_resumes(tmp_path, capsys):
    out = tmp_path / "demo"
    env = dict(os.environ, COLUMNS="80", TERM="xterm-256color")
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "playahead", *_args(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    lines = text.splitlines()
    # short, no ANSI codes in a pipe, nothing cut or wider than the terminal
    assert len(lines) < 200 and "\x1b[" not in text
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "…" not in text
    table = lines[
        lines.index(next(x for x in lines if x.lstrip().startswith("agent"))) :
    ]
    for name in ("MaskablePPO (trained)", "n-tuple TD (trained)", "expectimax d1, n"):
        assert any(row.lstrip().startswith(name) for row in table), name
    # one line (wrapped to the terminal) on what the table means, naming the costs
    meaning = " ".join(text.split("What it means: ", 1)[1].split("\n\n", 1)[0].split())
    assert "same 2 seeded games" in meaning and "n-tuple TD: 500 games" in meaning
    assert "best learner against best search agent: " in meaning
    # the replay is the final board and one line; the output ends with the headline
    # and where the files are
    assert text.count("+------+------+") == 5 and "the evaluation recorded" in text
    tail = text.rsplit("───\n", 1)[1]  # after the last rule
    assert "Best: " in tail and "mean score" in tail
    assert str(out.resolve()) in tail.replace("\n", "")
    for name in (
        "2048.png",
        "2048.md",
        "2048.json",
        "2048.sqlite",
        "ppo-2048/model.zip",
        "ntuple-2048/model.json",
    ):
        assert (out / name).exists(), name
    first = json.loads((out / "2048.json").read_text())
    specs = [a["spec"] for a in first["agents"]]
    assert specs[:2] == ["random", "greedy"]
    assert [s.split(":")[0] for s in specs[2:]] == ["ntuple", "expectimax", "ppo"]
    # A second run reuses both models and the stored games.
    assert main([*_args(out), "--replay-speed", "0"]) == 0
    said = capsys.readouterr().out
    assert "Reusing the model" in said and "Reusing the n-tuple net" in said
    again = json.loads((out / "2048.json").read_text())
    assert [a["scores"] for a in again["agents"]] == [
        a["scores"] for a in first["agents"]
    ]


def test_demo_help_shows_the_defaults(capsys):
    try:
        main(["demo", "--help"])
    except SystemExit:
        pass
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 20)" in text and "(default: 100000)" in text
    assert "(default: playahead-demo)" in text and "(default: 2048-v0)" in text
    assert "3,000 on 2048-v0" in text
    assert "(default: None)" not in text  # --ntuple-games and --agents say it


def test_demo_budgets_out_of_range_are_refused(capsys):
    assert main(["demo", "--games", "0"]) == 2
    assert "--games must be from 1 to 10,000, got 0" in capsys.readouterr().err
    assert main(["demo", "--workers", "1000"]) == 2
    assert "--workers must be from 1 to 64" in capsys.readouterr().err
    assert main(["demo", "--ntuple-games", "-1"]) == 2
    assert "--ntuple-games must be from 0" in capsys.readouterr().err


def test_a_net_trained_longer_than_asked_is_refused(tmp_path, capsys):
    out = tmp_path / "demo"
    (out / "ntuple-2048").mkdir(parents=True)
    (out / "ntuple-2048" / "model.json").write_text('{"games": 900}')
    assert main(["demo", "--out", str(out), "--ntuple-games", "500"]) == 2
    err = capsys.readouterr().err
    assert "trained on 900 games, more than --ntuple-games 500" in err


# ----------------------------------------------------------- the committed record
def _record_args():
    """The record and the ``playahead demo`` arguments it was made with."""
    record = json.loads(RECORD.read_text())
    argv = shlex.split(record["command"])
    assert argv[:2] == ["playahead", "demo"], record["command"]
    return record, build_parser().parse_args(argv[1:])


def _fresh_first_games(tmp_path, args, games: int, train_steps: int) -> dict:
    """The record's command again on its first ``games`` games; agent label -> its
    per-game rows."""
    out = tmp_path / "fresh"
    argv = ["demo", "--out", str(out), "--env", args.env, "--games", str(games)]
    argv += ["--ntuple-games", str(args.ntuple_games), "--seed", str(args.seed)]
    argv += ["--train-steps", str(train_steps), "--workers", "1"]
    argv += ["--replay-speed", "0"]
    if args.agents:
        argv += ["--agents", *args.agents]
    assert main(argv) == 0
    data = json.loads((out / "2048.json").read_text())
    return {label(a["spec"]): a for a in data["agents"]}


def _rows(agent: dict, n: int) -> dict:
    return {k: agent[k][:n] for k in ("scores", "max_tiles", "moves")}


def _check_against_record(tmp_path, train_steps: int, games: int = 2) -> set[str]:
    record, args = _record_args()
    recorded = {label(a["spec"]): a for a in record["agents"]}
    fresh = _fresh_first_games(tmp_path, args, games, train_steps)
    assert fresh, "no agent played"
    for name, agent in fresh.items():
        assert name in recorded, f"{name} is not in the record"
        assert _rows(agent, games) == _rows(recorded[name], games), name
    return set(fresh)


@pytest.mark.slow  # trains the record's 3,000-game n-tuple net first
def test_the_committed_demo_record_is_what_the_demo_plays(tmp_path):
    # the search agents and the n-tuple learner (trained as the record's command
    # says); MaskablePPO's part is the slow test below
    played = _check_against_record(tmp_path, train_steps=0)
    assert {"greedy", "n-tuple TD (trained)", "expectimax d1, n-tuple"} <= played


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 100,000 PPO steps, then the demo's games
def test_the_committed_demo_record_with_maskableppo(tmp_path):
    _, args = _record_args()
    played = _check_against_record(tmp_path, train_steps=args.train_steps)
    assert "MaskablePPO (trained)" in played
