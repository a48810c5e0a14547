"""``playahead --help`` and each command's help describe what the commands do today."""

from __future__ import annotations

import argparse

import pytest

from playahead.cli import COMMANDS, build_parser, main


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


def test_top_level_help_lists_every_command_with_its_line(capsys):
    assert main([]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name, (_, line) in COMMANDS.items():
        assert f"{name} {' '.join(line.split())}" in out
    assert "playahead COMMAND --help" in out


def test_train_line_names_every_trainer():
    trainers = _subparsers(_subparsers(build_parser())["train"])
    assert {"ppo", "dqn", "ntuple"} <= set(trainers)
    line = COMMANDS["train"][1]
    assert all(name in line for name in trainers), (sorted(trainers), line)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_help_is_plain_text(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: playahead {name}")
    assert "``" not in out and ":mod:" not in out and ":func:" not in out


def test_hint_help_names_the_units_and_shows_examples(capsys):
    with pytest.raises(SystemExit):
        main(["hint", "--help"])
    out = capsys.readouterr().out
    assert "expected final score (e.g. 412,300)" in out
    assert "playahead hint nim --pile 13 --k 3" in out


def test_every_train_ntuple_option_with_a_value_shows_its_default():
    parser = _subparsers(_subparsers(build_parser())["train"])["ntuple"]
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or action.nargs == 0:  # switches
            continue
        if action.default not in (None, False, []) and action.dest != "help":
            assert "default" in action.help, (action.option_strings, action.help)
    games = next(a for a in parser._actions if a.dest == "games")
    assert "(default 100000)" in games.help
