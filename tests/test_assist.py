"""``playahead assist``: entries through standard input, undo, refused entries, the
game file after every move (resumed after ``kill -9``), and the keys typed per move."""

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playahead.tools import assist, gamefile, watch

BOARD = "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1"
#: Fast searches, so the tests stay quick (values are not the point here).
AGENTS = {
    "threes": "expectimax:depth=1,evaluator=features",
    "2048": "expectimax:depth=1,evaluator=features",
}
AGENT = AGENTS["threes"]


def _run(args, lines, cwd):
    return subprocess.run(
        [sys.executable, "-m", "playahead", "assist", *args],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=os.environ | {"PYTHONPATH": os.getcwd()},
        timeout=300,
    )


def _helper(deck=None):
    from playahead.tools.positions import position

    env, _ = position("threes", BOARD, 2, deck=deck)
    start = gamefile.GameFile("threes", {}, gamefile.start_of(env), [], None, [])
    return assist.Assistant(start, AGENT)


def test_threes_entries_move_the_board_and_count_the_deck():
    helper = _helper()
    screen = helper.enter("h12")  # left; the 2 came in on row 1; the next card: 2
    assert helper.game_file.moves == [{"action": 3, "line": 0, "card": 2, "next": 2}]
    assert "1s/2s/3s 4/2/4" in screen
    assert helper.env.unwrapped.board[0].tolist() == [3, 0, 3, 2]


def test_a_contradicting_entry_changes_nothing():
    helper = _helper()
    before = helper.env.unwrapped.clone_state()
    for entry, why in (
        ("h9", "is not [line"),
        ("k22", "line 2 did not move"),  # up: column 2 (2 over 6) stays
        ("h1 2=6", "the preview said 2"),
        ("h1+", "bonus card comes only once"),
        ("up up", "is not [line"),
    ):
        line = helper.enter(entry)
        assert why in line and "\n" not in line
        assert helper.env.unwrapped.clone_state() == before
        assert helper.game_file.moves == []


def test_the_deck_count_rules_out_a_card_it_has_none_of():
    helper = _helper(deck="4,0,4")
    line = helper.enter("h12")
    assert line.startswith("not taken") and "has no 2 left" in line
    assert not helper.enter("h11").startswith("not taken")
    assert "1s/2s/3s 3/0/4" in helper.screen()


def test_undo_takes_back_the_last_move():
    helper = _helper()
    start = helper.env.unwrapped.clone_state()
    helper.enter("h12")
    helper.enter("u")
    assert helper.env.unwrapped.clone_state() == start and not helper.game_file.moves
    assert helper.enter("u") == "nothing to undo"


def test_2048_cells_are_keys_laid_out_like_the_board():
    from playahead.tools.positions import position

    env, _ = position("2048", "2 2 0 0 / 0 0 0 0 / 0 0 0 0 / 0 0 0 4")
    start = gamefile.GameFile("2048", {}, gamefile.start_of(env), [], None, [])
    helper = assist.Assistant(start, AGENTS["2048"])
    helper.enter("hv4")  # left; a 4 at the bottom right
    assert helper.game_file.moves == [{"action": 3, "cell": 15, "tile": 4}]
    assert helper.env.unwrapped.board.tolist()[0] == [4, 0, 0, 0]
    line = helper.enter("h1")  # row 1, column 1 is taken after the move: refused
    assert "not empty after the move" in line


def test_stdin_drives_assist_and_kill_9_loses_nothing(tmp_path):
    recorded = _recorded("threes", 6, tmp_path / "recorded.json")
    entries = list(assist.entries(recorded, AGENT))
    path = gamefile.save(dataclasses.replace(recorded, moves=[]), tmp_path / "g.json")
    proc = subprocess.Popen(
        [sys.executable, "-m", "playahead", "assist", "threes", "--resume", str(path)]
        + ["--agent", AGENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env=os.environ | {"PYTHONPATH": os.getcwd()},
    )
    proc.stdin.write(f"{entries[0]}\n{entries[1]}\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 120
    while len(gamefile.load(path, empty_ok=True).moves) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert gamefile.load(path).moves == recorded.moves[:2]
    steps = [entries[2], "x", "u", entries[2], *entries[3:]]
    result = _run(["threes", "--resume", str(path), "--agent", AGENT], steps, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("not taken") == 1
    assert gamefile.load(path).moves == recorded.moves


def _recorded(game, moves, path, seed=11):
    agent = AGENTS[game]
    for _ in watch.frames(game, agent, seed=seed, max_moves=moves, save=path):
        pass
    return gamefile.load(path)


def test_resume_refuses_a_bad_file_in_one_line(tmp_path):
    path = tmp_path / "g.json"
    path.write_text('{"format": "playahead-game", "version": 1, "mo')
    result = _run(["threes", "--resume", str(path)], [], tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "truncated" in result.stderr


@pytest.mark.parametrize(("game", "most"), [("threes", 4.0), ("2048", 3.0)])
def test_keys_per_move_of_a_recorded_game(tmp_path, game, most):
    """A 300-move game of the suggested moves, replayed through assist's entries:
    the same game, in at most ``most`` keys a move on average (Enter included)."""
    recorded = _recorded(game, 300, tmp_path / "g.json")
    start = gamefile.GameFile(game, {}, recorded.start, [], None, [])
    helper = assist.Assistant(start, AGENTS[game])
    typed = 0
    for entry in assist.entries(recorded, AGENTS[game]):
        assert not helper.enter(entry).startswith("not taken")
        typed += len(entry) + 1
    assert helper.game_file.moves == recorded.moves
    assert typed / len(recorded.moves) <= most


DATA = Path(__file__).parent / "data"


def test_assist_follows_a_real_game_from_its_fresh_deal(tmp_path):
    """A committed 300-move game from a fresh deal, typed in without --deck (the
    board row by row at the prompt): the deck is counted from the deal, every entry
    is taken and the saved file replays to the same end."""
    recorded = gamefile.load(DATA / "threes-300-moves.json")
    typed = list(assist.entries(recorded, AGENT))
    rows = [" ".join(map(str, row)) for row in recorded.start["board"]]
    path = tmp_path / "g.json"
    steps = [*rows, str(recorded.start["next"]), *typed]
    result = _run(["threes", "--agent", AGENT, "--save", str(path)], steps, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "a fresh deal" in result.stdout and "not taken" not in result.stdout
    saved = gamefile.load(path)
    assert saved.start == recorded.start and saved.moves == recorded.moves
    assert gamefile.replay(saved)[-1] == gamefile.replay(recorded)[-1]


def test_a_board_that_is_not_a_fresh_deal_asks_for_the_deck():
    from playahead.tools.positions import position

    deal, _ = position("threes", "0 0 1 3 / 2 2 1 0 / 1 3 2 0 / 1 0 0 0", 3)
    assert assist.dealt_deck(deal) == "0,1,1"
    later, _ = position("threes", BOARD, 2)  # a 6 on the board: not a deal
    assert assist.dealt_deck(later) is None


def test_the_deck_prompt_defaults_to_a_fresh_deck_less_the_preview(tmp_path):
    path = tmp_path / "g.json"
    result = _run(
        ["threes", "--agent", AGENT, "--save", str(path)],
        [BOARD, "2", "", "h12"],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Enter: 4,3,4" in result.stdout
    assert gamefile.load(path).start["deck"] == [4, 3, 4]


def test_a_new_game_never_overwrites_a_game_file(tmp_path):
    path = tmp_path / "assist-threes.json"
    path.write_text("the game in progress")
    result = _run(["threes", "--agent", AGENT], [BOARD, "2"], tmp_path)
    assert result.returncode == 2
    line = result.stderr.strip()
    assert "\n" not in line and "assist-threes.json" in line and "--resume" in line
    assert path.read_text() == "the game in progress"


def test_ctrl_c_names_the_game_file_and_how_to_resume(tmp_path):
    path = tmp_path / "g.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "playahead", "assist", "threes", "--agent", AGENT]
        + ["--board", BOARD, "--next", "2", "--deck", "4,3,4", "--save", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": os.getcwd()},
        # a test run started in the background inherits an ignored SIGINT, and a
        # Python started so never raises KeyboardInterrupt: give the child the default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not proc.stdout.readline().startswith("game file"):
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # stdin stays open: the interrupt, not an EOF, ends it
    err = proc.stderr.read()
    assert proc.returncode == 130
    assert str(path) in err and f"--resume {path}" in err
    assert gamefile.load(path, empty_ok=True).moves == []


def test_an_empty_next_card_gets_one_clear_line(tmp_path):
    result = _run(["threes", "--agent", AGENT], [BOARD, ""], tmp_path)
    assert result.returncode == 2
    line = result.stderr.strip()
    assert "\n" not in line and "no next card given" in line and "int()" not in line


def test_the_board_prompt_shows_its_format(tmp_path):
    result = _run(["2048", "--agent", AGENTS["2048"]], [], tmp_path)
    assert "rows split by '/'" in result.stdout and "row by row" in result.stdout
    assert result.returncode == 2 and "no board given" in result.stderr


def test_resume_refuses_a_file_of_the_other_game(tmp_path):
    recorded = _recorded("threes", 2, tmp_path / "threes.json")
    path = gamefile.save(recorded, tmp_path / "threes.json")
    result = _run(["2048", "--resume", str(path)], [], tmp_path)
    assert result.returncode == 2
    assert "is a threes game, not 2048" in result.stderr


def _twenty48_helper(board):
    from playahead.tools.positions import position

    env, _ = position("2048", board)
    start = gamefile.GameFile("2048", {}, gamefile.start_of(env), [], None, [])
    return assist.Assistant(start, AGENTS["2048"])


def test_h4_with_one_empty_cell_is_a_4_on_that_cell():
    """Left leaves one empty cell, the top right, whose key is 4 too: ``h4`` is a 4
    there, ``h`` a 2, ``h44`` the key and the tile."""
    board = "2 2 4 8 / 4 8 16 32 / 8 16 32 64 / 16 32 64 128"
    for entry, tile in (("h4", 4), ("h", 2), ("h44", 4), ("h2", 2)):
        helper = _twenty48_helper(board)
        helper.enter(entry)
        assert helper.game_file.moves == [{"action": 3, "cell": 3, "tile": tile}]


def test_2048_messages_use_the_docs_coordinates():
    helper = _twenty48_helper("2 2 0 0 / 0 0 0 0 / 0 0 0 0 / 0 0 0 4")
    line = helper.enter("h1")  # 1: row 1, column 1, where the merged 4 stands
    assert line.startswith("not taken")
    assert "1 is row 1, column 1" in line and "not empty after the move" in line


def test_on_a_tie_the_suggested_move_is_listed_first():
    import numpy as np

    from playahead.agents import Analysis
    from playahead.tools.positions import position

    env, _ = position("threes", BOARD, 2)
    values = np.array([500.0, np.nan, 500.0, 400.0])
    line = assist.values_line(env, Analysis(2, values, value_kind="score"))
    assert line.index("down 500*") < line.index("up 500") < line.index("left 400")
    line = assist.values_line(env, Analysis(0, values, value_kind="score"))
    assert line.index("up 500*") < line.index("down 500")


def _keys_record():
    import json

    root = Path(__file__).parent.parent
    return root, json.loads(
        (root / "benchmarks/results/keys-per-move/keys.json").read_text()
    )


def test_the_docs_keys_per_move_come_from_the_committed_record():
    from benchmarks.records import keys_per_move

    root, data = _keys_record()
    assert keys_per_move.table(data) in (root / "docs" / "tools.md").read_text()
    for row in data["games"].values():
        assert row["moves"] == len(row["entries"]) == 300
        assert row["keys"] == sum(len(e) + 1 for e in row["entries"])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["threes", "2048"])
def test_the_recorded_entries_replay_the_recorded_game(game):
    root, data = _keys_record()
    row = data["games"][game]
    recorded = gamefile.load(
        root / "benchmarks/results/keys-per-move" / row["game_file"]
    )
    start = gamefile.GameFile(game, {}, recorded.start, [], None, [])
    helper = assist.Assistant(start, data["agent"])
    for entry in row["entries"]:
        assert not helper.enter(entry).startswith("not taken")
    assert helper.game_file.moves == recorded.moves


def test_keys_of_prints_every_entry(tmp_path):
    recorded = _recorded("threes", 5, tmp_path / "g.json")
    result = _run(
        ["threes", "--keys-of", str(tmp_path / "g.json"), "--agent", AGENT],
        [],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    typed = list(assist.entries(recorded, AGENT))
    rows = result.stdout.splitlines()[1:-1]
    assert [r.split(maxsplit=1) for r in rows] == [
        [str(i), e] if e else [str(i)] for i, e in enumerate(typed, 1)
    ]
    assert result.stdout.splitlines()[-1].startswith("5 moves,")
