"""The main demo runs end to end (with tiny budgets) and resumes."""

import json

from playahead.cli import main


def test_demo_trains_evaluates_replays_and_resumes(tmp_path, capsys):
    out = tmp_path / "demo"
    args = [
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
        "--replay-speed",
        "0",
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert str(out.resolve()) in text.replace("\n", "")
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
    assert "the evaluation recorded" in text
    # A second run reuses the model and the stored games.
    assert main(args) == 0
    assert "Reusing the model" in capsys.readouterr().out
    again = json.loads((out / "threes.json").read_text())
    assert [a["scores"] for a in again["agents"]] == [
        a["scores"] for a in first["agents"]
    ]
