"""One set of game names everywhere: the command line's short names (``connect4``) and
the env ids (``ConnectFour-v0``) name the same game in every entry point."""

import argparse

import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead.envs import GAME_NAMES, env_id_of, game_name_of
from playahead.evaluate import evaluate
from playahead.tools import demo
from playahead.tools.games import get_game
from playahead.tools.positions import short_name
from playahead.train.cli import ntuple_env_id
from playahead.train.config import canonical_env_id

TWO_PLAYER = {"TicTacToe-v0", "ConnectFour-v0", "Nim-v0", "Chips-v0"}
#: (name, env id, short name): every short name and every env id, as users type them
NAMES = [
    (name, env_id, short)
    for short, env_id in GAME_NAMES.items()
    for name in (short, env_id, env_id.upper(), f"playahead/{env_id}")
]


def _ids(names):
    return [n[0] for n in names]


@pytest.mark.parametrize(("name", "env_id", "short"), NAMES, ids=_ids(NAMES))
def test_the_names_resolve_to_their_game(name, env_id, short):
    assert env_id_of(name) == env_id
    assert game_name_of(name) == short


@pytest.mark.parametrize(("name", "env_id", "short"), NAMES, ids=_ids(NAMES))
def test_the_tools_take_every_name(name, env_id, short):
    # hint (positions), watch, play, serve and media (the game table)
    assert short_name(name) == short
    assert get_game(name).env_id == env_id


@pytest.mark.parametrize(("name", "env_id", "short"), NAMES, ids=_ids(NAMES))
def test_the_trainers_take_every_name(name, env_id, short):
    assert canonical_env_id(name) == env_id  # train ppo and dqn
    if env_id in ("2048-v0", "Threes-v0"):
        assert ntuple_env_id(name) == env_id
    else:
        with pytest.raises(SystemExit, match="ntuple trains on 2048-v0, Threes-v0"):
            ntuple_env_id(name)


@pytest.mark.parametrize(("name", "env_id", "short"), NAMES, ids=_ids(NAMES))
def test_the_demo_takes_every_name_of_its_games(name, env_id, short):
    parser = argparse.ArgumentParser(exit_on_error=False)
    demo.configure(parser)
    if env_id in demo.SEARCH_AGENTS:
        assert parser.parse_args(["--env", name]).env == env_id
    else:
        with pytest.raises(argparse.ArgumentError, match="invalid choice"):
            parser.parse_args(["--env", name])


@pytest.mark.parametrize(("name", "env_id", "short"), NAMES, ids=_ids(NAMES))
def test_the_pettingzoo_view_takes_every_name_of_a_two_player_game(name, env_id, short):
    from playahead.envs.pettingzoo_aec import aec_env

    if env_id in TWO_PLAYER:
        assert type(aec_env(name).game).__name__ == type(aec_env(env_id).game).__name__
    else:
        with pytest.raises(ValueError, match="is not a two-player game"):
            aec_env(name)


@pytest.mark.parametrize("short", GAME_NAMES)
def test_evaluate_takes_the_short_names(short):
    agents = ["random", "greedy"] if GAME_NAMES[short] in TWO_PLAYER else ["random"]
    result = evaluate(short, agents, n_games=1, seed=0, n_resamples=10)
    assert result.env_id == GAME_NAMES[short]


def test_an_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match=r"connect4 \(ConnectFour-v0\)"):
        env_id_of("chess")
    with pytest.raises(ValueError, match="choose from threes, 2048"):
        get_game("chess")
