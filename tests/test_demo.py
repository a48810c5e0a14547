"""The main demo runs end to end (with tiny budgets), reads well in a log, resumes."""

import json
import os
import subprocess
import sys

from playahead.cli import main


def _args(out):
    return [
        "demo",
        "--out",
        str(out),
        "--games",
        "2",
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
    assert any(row.lstrip().startswith("MaskablePPO (trained)") for row in table)
    # the replay is the final board and one line; the output ends with the headline
    # and where the files are
    assert text.count("+------+------+") == 5 and "the evaluation recorded" in text
    tail = text.rsplit("───\n", 1)[1]  # after the last rule
    assert "Best: " in tail and "mean score" in tail
    assert str(out.resolve()) in tail.replace("\n", "")
    for name in (
        "threes.png",
        "threes.md",
        "threes.json",
        "threes.sqlite",
        "ppo-threes/model.zip",
    ):
        assert (out / name).exists(), name
    first = json.loads((out / "threes.json").read_text())
    specs = [a["spec"] for a in first["agents"]]
    assert specs[:2] == ["random", "greedy"] and specs[2].startswith("ppo:path=")
    # A second run reuses the model and the stored games.
    assert main([*_args(out), "--replay-speed", "0"]) == 0
    assert "Reusing the model" in capsys.readouterr().out
    again = json.loads((out / "threes.json").read_text())
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
    assert "(default: playahead-demo)" in text


def test_demo_budgets_out_of_range_are_refused(capsys):
    assert main(["demo", "--games", "0"]) == 2
    assert "--games must be from 1 to 10,000, got 0" in capsys.readouterr().err
    assert main(["demo", "--workers", "1000"]) == 2
    assert "--workers must be from 1 to 64" in capsys.readouterr().err
