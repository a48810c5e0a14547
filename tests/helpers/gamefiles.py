"""Game files of two people's games, for the review tests."""

from __future__ import annotations

from playahead.tools import gamefile
from playahead.tools.games import make_env

#: A Connect Four game of 34 moves in Pons' notation (columns 1-7); Pons' solver
#: scores its last position -3 1 -1000 -1000 -4 1 -1000.
C4_LATE = "7422341735647741166133573473242566"


def two_people(game: str, actions) -> gamefile.GameFile:
    """The game file of ``actions`` (env actions) played by two people."""
    env = make_env(game)
    env.reset(seed=0)
    recorder = gamefile.Recorder(game, env, players=["human", "human"])
    for a in actions:
        recorder.step(a)
    return recorder.game_file


def connect4(moves: str) -> gamefile.GameFile:
    """The game file of a Connect Four game in Pons' notation (columns 1-7)."""
    return two_people("connect4", [int(ch) - 1 for ch in moves])
