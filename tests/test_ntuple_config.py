"""``NTupleConfig``: the n-tuple run's options declared once, for ``train_ntuple`` and
the generated options of ``playahead train ntuple``."""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pytest

from playahead._options import add_options, field_docs, option_help
from playahead.ntuple.config import NTupleConfig
from playahead.ntuple.model import load_model
from playahead.ntuple.train import train_ntuple
from playahead.train import cli

#: the options of ``playahead train ntuple`` (docs and scripts use these spellings)
FLAGS = {
    "--env", "--seed", "--out", "--env-kwarg", "--resume", "--no-progress",
    "--no-tensorboard", "--games", "--patterns", "--lr", "--lambda", "--tc", "--no-tc",
    "--restarts", "--no-restarts", "--init", "--stages", "--starts", "--start-share",
    "--switch-starts", "--search-share", "--search-depth", "--no-preview", "--stop-at",
    "--workers", "--eval-every", "--eval-games", "--online", "--no-online",
}  # fmt: skip


def _ntuple_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["ntuple"]


def test_the_cli_has_every_option_it_had_and_one_per_field():
    parser = _ntuple_parser()
    flags = {f for a in parser._actions for f in a.option_strings} - {"-h", "--help"}
    assert flags - {"--hp", "--conf"} == FLAGS
    dests = {a.dest for a in parser._actions}
    fields = {f.name for f in dataclasses.fields(NTupleConfig)}
    assert fields == dests - {"help", "hp", "conf"}


def test_each_option_says_what_its_field_docstring_says():
    docs = field_docs(NTupleConfig)
    assert set(docs) == {f.name for f in dataclasses.fields(NTupleConfig)}
    parser = _ntuple_parser()
    for field in dataclasses.fields(NTupleConfig):
        action = next((a for a in parser._actions if a.dest == field.name), None)
        shown = field.metadata.get("default", field.default)
        if "cli_default" in field.metadata:
            shown = field.metadata["cli_default"]
        expected = option_help(docs[field.name], shown)
        switch = action.option_strings[0]
        if switch.startswith("--no-") and switch not in expected:
            expected = "turn off: " + expected  # the doc says what it turns on
        assert action.help == expected
        assert "``" not in action.help and ":mod:" not in action.help
    helps = {a.option_strings[0]: a.help for a in parser._actions if a.option_strings}
    assert helps["--no-progress"] == "turn off: show a progress bar"


def test_parsed_options_are_the_config_defaults():
    args = _ntuple_parser().parse_args(["--env", "2048-v0"])
    config = NTupleConfig(**cli.config_options(args, env_id="2048-v0", out="x"))
    assert config == NTupleConfig(env_id="2048-v0", out="x")
    args = _ntuple_parser().parse_args(
        [
            "--env",
            "threes",
            "--lambda",
            "0.25",
            "--no-tc",
            "--no-preview",
            "--games",
            "7",
        ]
    )
    assert (args.lam, args.tc, args.preview, args.games) == (0.25, False, False, 7)


def test_a_field_without_a_docstring_has_no_option():
    @dataclasses.dataclass
    class Undocumented:
        size: int = 1

    with pytest.raises(TypeError, match="Undocumented.size has no docstring"):
        add_options(argparse.ArgumentParser(), Undocumented)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"games": 0}, "games must be an integer in 1..100000000, got 0"),
        ({"lam": 2.0}, r"lambda must be in \[0, 1\], got 2.0"),
        ({"env_id": "Nim-v0"}, "n-tuple nets play 2048-v0, Threes-v0"),
        ({"search_depth": 2}, "for Threes-v0 only"),
    ],
)
def test_a_bad_config_is_refused_on_construction(options, match):
    with pytest.raises(ValueError, match=match):
        NTupleConfig(**{"env_id": "2048-v0", "out": "x", **options})


def test_a_config_and_keywords_train_the_same_net(tmp_path):
    options = {"games": 20, "patterns": ("0123", "4567"), "eval_every": 20}
    options |= {"eval_games": 2, "progress": False, "tensorboard": False}
    config = NTupleConfig(env_id="2048-v0", out=tmp_path / "a", **options)
    a = load_model(train_ntuple(config))
    games = options.pop("games")
    b = load_model(train_ntuple("2048-v0", games, tmp_path / "b", **options))
    np.testing.assert_array_equal(a.weights, b.weights)
    assert a.meta["games"] == b.meta["games"] == 20


def test_a_config_comes_alone():
    config = NTupleConfig(env_id="2048-v0", out="x")
    with pytest.raises(TypeError, match="a config alone"):
        train_ntuple(config, 10)
