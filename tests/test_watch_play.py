"""``playahead watch`` and ``playahead play``: frames, the Session, the tty loop."""

import argparse
import os
import pty
import select
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np
import pytest

from playahead.agents import Analysis, available_agents, register_agent
from playahead.envs.tiles import Twenty48State
from playahead.games import twenty48
from playahead.planners.expectimax import AUTO_BUDGET
from playahead.tools import play, watch
from playahead.tools.games import (
    DEFAULT_NODES,
    DEFAULT_SECONDS,
    GAMES,
    choose,
    get_game,
    make_env,
    strip_ansi,
)
from playahead.tools.play.input import decode_keys
from playahead.tools.play.session import Session


class FirstLegal:
    """Plays the lowest legal action; values n, n-1, ... 1 over the legal actions,
    times ``scale``, of kind ``kind``."""

    def __init__(self, kind="test", scale=1.0):
        self.kind, self.scale = kind, scale

    def act(self, env):
        return self.analyze(env).action

    def analyze(self, env):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        values = np.full(env.unwrapped.action_space.n, np.nan)
        values[legal] = np.arange(legal.size, 0, -1) * self.scale
        return Analysis(int(legal[0]), values, value_kind=self.kind)


if "first_legal_test" not in available_agents():
    register_agent("first_legal_test", lambda seed=None: FirstLegal())
    # values in points, 103,075 for the best move: a learned evaluator's kind
    register_agent(
        "first_legal_score_test", lambda seed=None: FirstLegal("score", 103_075.1)
    )


def _parse(module, argv):
    parser = argparse.ArgumentParser()
    module.configure(parser)
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------- games
def test_every_game_makes_a_fresh_turn_by_turn_env():
    for name, game in GAMES.items():
        env = make_env(name)
        env.reset(seed=0)
        assert env.num_players == game.num_players
        assert env.action_masks().any()
        if game.num_players == 2:
            assert env.opponent is None


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: get_game("chess"), "unknown game 'chess'; choose from threes"),
        (lambda: make_env("nim", size=3), "nim has no rule option 'size'"),
        (lambda: make_env("tictactoe", size="3"), "size must be int"),
        (lambda: make_env("nim", misere=1), "misere must be bool"),
    ],
)
def test_bad_game_or_rules_say_what_is_accepted(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------- watch
def test_watch_shows_the_agents_values_and_ends_with_the_score():
    frames = list(watch.frames("2048", "first_legal_test", seed=1, color=False))
    assert len(frames) > 20
    first = frames[0]
    assert "move 0" in first and "score 0" in first
    # FirstLegal values the legal moves n, n-1, ... 1 and plays the first (starred)
    assert "values (test, the agent's own units):" in first and "4.000*" in first
    last = frames[-1]
    assert f"game over after {len(frames) - 1} moves: score" in last
    assert "\x1b[" not in "".join(frames)


def test_watch_and_play_label_expected_scores():
    first = next(watch.frames("2048", "first_legal_score_test", seed=1, color=False))
    assert "values (expected final score):  up 412,300*" in first
    session = _session("2048", agent="first_legal_score_test")
    assert "hint first_legal_score_test (expected final score):" in session.press("h")


def test_watch_same_seed_same_game_and_max_moves_stops():
    a = list(watch.frames("threes", "random", seed=7, max_moves=5))
    b = list(watch.frames("threes", "random", seed=7, max_moves=5))
    c = list(watch.frames("threes", "random", seed=8, max_moves=5))
    assert a == b and a != c
    assert len(a) == 6 and "stopped after 5 moves" in a[-1]


def test_watch_nim_greedy_takes_the_last_sticks():
    frames = list(
        watch.frames("nim", "greedy", seed=0, rules={"n": 3, "k": 3}, color=False)
    )
    assert "greedy (player 0) plays take 3" in frames[0]
    assert "take 3 1.000*" in frames[0]  # the winning take is worth +1 to the mover
    assert "greedy (player 0) wins after 1 moves" in frames[-1]


def test_watch_two_players_alternate():
    frames = list(
        watch.frames("tictactoe", "first_legal_test", opponent="random", seed=2)
    )
    movers = [
        next(line for line in f.split("\n") if " plays " in line) for f in frames[:-1]
    ]
    assert all(("player 0" in m) == (i % 2 == 0) for i, m in enumerate(movers))
    assert "wins after" in frames[-1] or "draw after" in frames[-1]


def test_watch_cli_prints_frames_at_speed_zero(capsys):
    args = _parse(watch, ["connect4", "--agent", "greedy", "--speed", "0"])
    args.max_moves = 3
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count("playahead watch connect4") == 4
    assert "stopped after 3 moves" in out
    args.speed = -1
    with pytest.raises(ValueError, match="--speed must be >= 0"):
        args.func(args)


# ---------------------------------------------------------------------------- play
def _session(game, **kwargs):
    kwargs.setdefault("agent", "greedy")
    return Session(game, seed=kwargs.pop("seed", 5), color=False, **kwargs)


def test_arrows_and_wasd_are_the_same_moves():
    for arrow, letter in [("left", "a"), ("up", "w"), ("right", "d"), ("down", "s")]:
        one, two = _session("threes"), _session("threes")
        assert one.press(arrow) == two.press(letter)
        if one.info["moves"] == 1:
            assert f"you: {arrow}" in one.screen()


def test_an_illegal_slide_is_refused_with_a_message():
    session = _session("2048")
    faces = [[2, 4, 2, 4], [4, 2, 4, 2], [0, 0, 0, 0], [0, 0, 0, 0]]
    session.env.restore_state(Twenty48State(int(twenty48.from_faces(faces)), 0, 0))
    text = session.press("up")
    assert "up is not a legal move" in text and "moves 0" in text
    assert "moves 1" in session.press("down")


def test_hint_shows_every_legal_move_and_autoplay_moves():
    session = _session("2048")
    text = session.press("h")
    assert "hint greedy (reward of the move):" in text
    legal = np.flatnonzero(session.env.action_masks())
    for action in legal:
        assert ("up", "right", "down", "left")[action] in text.split("hint")[1]
    assert not session.tick()  # autoplay is off
    assert "autoplay on" in session.press("p")
    assert session.tick() and session.info["moves"] == 1
    session.press("p")
    assert not session.tick()
    session.press("q")
    assert session.quit


def test_connect4_digit_drops_and_the_opponent_replies():
    session = _session("connect4", opponent="first_legal_test")
    session.press("3")
    board = session.env.board
    assert board[5, 3] == 1 and board[5, 0] == 2  # ours, then col 0 (first legal)
    session.press("right")
    session.press("right")
    assert "^ cursor: column 5" in session.screen()
    session.press("enter")
    assert session.env.board[5, 5] == 1


def test_play_connect4_against_the_shipped_alphazero_net():
    """``play connect4 --opponent alphazero``: the net that ships replies, the move
    an agent of the same spec and seed chooses after our disc."""
    from playahead.tools.games import agent_seeds, build_capped_agent

    args = _parse(play, ["connect4", "--opponent", "alphazero"])
    assert args.opponent == "alphazero"
    session = _session("connect4", opponent="alphazero", seed=5)
    session.press("3")  # the centre column (digits name columns from 0)
    board = session.env.board
    assert board[5, 3] == 1 and (board == 2).sum() == 1
    ((_, column),) = np.argwhere(board == 2)
    env = gym.make("ConnectFour-v0", opponent=None)
    env.reset(seed=0)
    env.step(3)
    twin = build_capped_agent("alphazero", agent_seeds(5, 2)[1], "playahead play")
    analysis = twin.analyze(env.unwrapped)
    assert analysis.visits.sum() == 400  # the default simulations, under play's caps
    assert column == analysis.action


def test_tictactoe_second_player_marks_a_cell_with_keys():
    session = _session("tictactoe", opponent="first_legal_test", side=1)
    assert session.env.board[0, 0] == 1  # the opponent opened in cell 0
    session.press("4")
    assert session.env.board[1, 1] == 2
    assert session.env.board[0, 1] == 1  # reply: first legal cell
    assert "cell 1 is not a legal move" in session.press("1")
    session.press("up")  # cursor from cell 4 to cell 1 (taken)
    session.press("right")  # cell 2
    session.press("space")
    assert session.env.board[0, 2] == 2


def test_nim_takes_and_the_end_of_the_game():
    session = _session("nim", opponent="first_legal_test", rules={"n": 6, "k": 3})
    session.press("2")  # 6 -> 4, the opponent takes 1 -> 3
    assert session.env.board[0] == 3
    session.press("up")
    session.press("up")  # cursor: take 3
    text = session.press("enter")
    assert "game over: you win" in text
    assert "the game is over" in session.press("1")
    assert "P0 10" not in session.press("n") and session.games == 2


def test_unknown_keys_and_bad_sides_are_explained():
    assert "unknown key 'x'" in _session("threes").press("x")
    with pytest.raises(ValueError, match="side must be 0 or 1"):
        _session("nim", side=2)


def test_decode_keys():
    data = b"\x1b[A\x1b[Bq \r\x1bOD7\x1b"
    keys = ["up", "down", "q", "space", "enter", "left", "7", "escape"]
    assert decode_keys(data) == keys


def test_play_refuses_a_non_terminal(capsys):
    args = _parse(play, ["threes"])
    with pytest.raises(ValueError, match="needs an interactive terminal"):
        play.run(args)


def _read_until(fd, needle: bytes, seen: bytearray, timeout: float = 90) -> bool:
    end = time.monotonic() + timeout
    while needle not in seen and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    return needle in seen


def test_tty_loop_in_a_pty():
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "playahead.tools.play", "2048", "--seed", "1"]
        + ["--agent", "greedy"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        assert _read_until(master, b"playahead play 2048", seen), seen.decode()
        os.write(master, b"\x1b[D\x1b[A\x1b[C\x1b[B")  # left, up, right, down
        assert _read_until(master, b"you: ", seen), seen.decode()
        os.write(master, b"h")
        assert _read_until(master, b"hint greedy", seen), seen.decode()
        os.write(master, b"q")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        os.close(master)
    assert "moves " in strip_ansi(seen.decode(errors="replace"))


def test_play_connect4_says_which_side_you_are():
    first = _session("connect4", opponent="first_legal_test")
    assert "you play X (red) against first_legal_test (you move first)" in (
        first.screen()
    )
    second = _session("connect4", opponent="first_legal_test", side=1)
    text = second.screen()
    assert "you play O (yellow)" in text and "(you move second)" in text
    assert "\nX . . . . . ." in text  # the opponent's X, readable without colour
    assert "you play O against" in _session("tictactoe", side=1).screen()


def test_watch_stops_on_q_and_says_so():
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "playahead", "watch", "2048", "--seed", "1"]
        + ["--speed", "2"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        assert _read_until(master, b"q or Ctrl-C: stop", seen), seen.decode()
        os.write(master, b"q")
        assert _read_until(master, b"stopped (q)", seen), seen.decode()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        os.close(master)


# ---------------------------------------------------------------------------- caps
@pytest.mark.parametrize("command", ["watch", "play"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["threes", "--agent", "mcts:n_simulations=100000000"],
            "n_simulations is at most 1,000,000 in playahead {command}",
        ),
        (
            ["2048", "--agent", "expectimax:budget=300000001"],
            "budget is at most 300,000,000 in playahead {command}",
        ),
        (
            ["2048", "--agent", "expectimax:depth=12,bounded=false"],
            "bounded is always true here",
        ),
        (
            ["connect4", "--agent", "greedy", "--opponent", "minimax:time_limit=100"],
            "time_limit is seconds per search in playahead {command}, more than 0 "
            "and at most 60",
        ),
        (
            ["nim", "--agent", "greedy", "--opponent", "mc:n_rollouts=2000000"],
            "n_rollouts is at most 1,000,000",
        ),
    ],
)
def test_watch_and_play_refuse_a_spec_over_a_cap_in_one_line(
    command, argv, message, capsys
):
    from playahead import cli

    assert cli.main([command, *argv, "--seed", "0"]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith(f"playahead {command}: error: agent ")
    assert message.format(command=command) in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "playahead watch" not in captured.out  # refused before a frame is drawn


def test_play_checks_its_specs_before_it_asks_for_a_terminal():
    args = _parse(play, ["connect4", "--opponent", "mcts:n_simulations=2000000"])
    with pytest.raises(ValueError, match="n_simulations is at most 1,000,000"):
        play.run(args)
    args = _parse(play, ["connect4", "--opponent", "mcts:n_simulations=2000"])
    with pytest.raises(ValueError, match="needs an interactive terminal"):
        play.run(args)


def test_watch_and_play_bound_every_agent_as_hint_does():
    session = _session("connect4", agent="mcts:n_simulations=50", opponent="minimax")
    # no node budget: the hint's clock, as a cap, unless the spec sets one
    assert session.agent.time_limit == DEFAULT_SECONDS
    # minimax: a count of nodes, no clock
    assert session.opponent.time_limit is None
    assert session.opponent.budget == DEFAULT_NODES
    assert _session("nim", agent="minimax:time_limit=2").agent.time_limit == 2
    # a node budget: bounded by it, no clock
    for spec in ("expectimax", "expectimax:depth=12,prob_cutoff=0"):
        agent = _session("2048", agent=spec).agent
        assert agent.bounded and agent.time_limit is None
        assert agent.budget == AUTO_BUDGET  # the game's default, 30,000,000 on 2048
    assert _session("2048", agent="expectimax:budget=none").agent.budget == 300_000_000


#: A deep fixed depth that no search finishes; a small budget keeps the test quick.
DEEP = "expectimax:depth=12,prob_cutoff=0,budget=200000"
#: Nodes a bounded search may count past its budget (see the expectimax tests).
SLACK = 5_000


def _spy_on_searches(monkeypatch, module) -> list:
    """The (agent, analysis) of every search ``module`` asks for, as it asks."""
    searched = []

    def spy(agent, env):
        action, analysis = choose(agent, env)
        searched.append((agent, analysis))
        return action, analysis

    monkeypatch.setattr(module, "choose", spy)
    return searched


def _assert_node_bounded(searched, n):
    assert len(searched) == n
    for agent, analysis in searched:
        assert agent.bounded and agent.time_limit is None
        stats = analysis.stats
        assert stats["budget_cut"] and 1 <= stats["depth"] < 12
        assert stats["nodes"] <= 200_000 + SLACK


def test_watch_plays_a_deep_fixed_depth_within_its_node_budget(monkeypatch):
    searched = _spy_on_searches(monkeypatch, watch)
    frames = list(watch.frames("2048", DEEP, seed=1, max_moves=2, color=False))
    assert "stopped after 2 moves" in frames[-1]
    assert f"{DEEP} plays" in frames[0]
    _assert_node_bounded(searched, 2)


def test_play_hints_and_autoplays_a_deep_fixed_depth_within_its_node_budget(
    monkeypatch,
):
    from playahead.tools.play import session as session_module

    searched = _spy_on_searches(monkeypatch, session_module)
    session = _session("2048", agent=DEEP)
    assert f"hint {DEEP}" in session.press("h")
    assert "autoplay on" in session.press("p")
    assert session.tick() and session.info["moves"] == 1
    _assert_node_bounded(searched, 2)
