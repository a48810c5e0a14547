"""Game files: a recorded game replays to the same final state, and every bad file
gets one line naming what is wrong (the first move that fails)."""

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.cli import main
from playahead.games import threes
from playahead.tools import gamefile
from playahead.tools.games import make_env


def random_game(game, seed, max_moves=400, start=None, **kwargs):
    """A game of uniformly random legal moves, recorded; and its final state."""
    env = make_env(game, **kwargs)
    env.reset(seed=seed)
    if start is not None:
        env.unwrapped.restore_state(start)
    recorder = gamefile.Recorder(
        game, env, kwargs, seed=None if start else seed, players=["random"]
    )
    rng = np.random.default_rng(seed)
    while env.action_masks().any() and len(recorder.game_file.moves) < max_moves:
        recorder.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    return recorder.game_file, env.unwrapped.clone_state()


@settings(max_examples=15)
@given(
    game=st.sampled_from(["2048", "threes", "tictactoe", "connect4", "nim", "chips"]),
    seed=st.integers(0, 2**32),
)
def test_save_load_replay_gives_the_same_final_state(tmp_path_factory, game, seed):
    game_file, final = random_game(game, seed)
    path = gamefile.save(game_file, tmp_path_factory.mktemp("g") / "game.json")
    loaded = gamefile.load(path)
    assert loaded == game_file
    assert gamefile.replay(loaded)[-1] == final


def test_threes_bonus_previews_and_deck_refills_replay():
    """From a board with a 96, bonus cards come (p = 1/21 a move), and the deck of 12
    is refilled."""
    env = make_env("threes")
    env.reset(seed=0)
    state = env.unwrapped.clone_state()
    board = threes.to_faces(state.board)
    board[0, 0] = 96
    start = dataclasses.replace(state, board=int(threes.from_faces(board)))
    bonus = 0
    for seed in range(20):
        game_file, final = random_game("threes", seed, 400, start=start)
        bonus += sum(isinstance(m.get("next"), list) for m in game_file.moves)
        assert gamefile.replay(game_file)[-1] == final
    assert bonus > 0


def _write(tmp_path, data):
    path = tmp_path / "game.json"
    body = {k: v for k, v in data.items() if k != "sha256"}
    data = body | {"sha256": gamefile._digest(body)}
    path.write_text(json.dumps(data))
    return path


def _cli_error(capsys, path):
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    return err


@pytest.fixture
def twenty48_file(tmp_path):
    game_file, _ = random_game("2048", 5, 30)
    return gamefile.save(game_file, tmp_path / "game.json"), game_file


def test_truncated_file_is_one_line(twenty48_file, capsys):
    path, _ = twenty48_file
    path.write_text(path.read_text()[:-40])
    assert "truncated" in _cli_error(capsys, path)


def test_tampered_file_is_one_line(twenty48_file, capsys):
    path, _ = twenty48_file
    data = json.loads(path.read_text())
    data["moves"][3]["tile"] = 6 - data["moves"][3]["tile"]
    path.write_text(json.dumps(data))
    assert "changed after it was written" in _cli_error(capsys, path)


def test_other_version_is_one_line(twenty48_file, tmp_path, capsys):
    _, game_file = twenty48_file
    path = _write(tmp_path, game_file.to_json() | {"version": 2})
    assert "version 2 game file" in _cli_error(capsys, path)


def test_file_over_the_size_cap_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gamefile, "MAX_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(" " * 101)
    assert "over" in _cli_error(capsys, path)


def test_illegal_move_names_the_first_move_that_fails(twenty48_file, tmp_path, capsys):
    _, game_file = twenty48_file
    data = game_file.to_json()
    data["moves"][4] = data["moves"][4] | {"cell": 99}
    err = _cli_error(capsys, _write(tmp_path, data))
    assert "move 5 (" in err and "cell 99 is not a cell" in err


def test_spawn_on_an_occupied_cell_is_refused():
    game_file, _ = random_game("2048", 1, 10)
    states = gamefile.replay(game_file)
    board = gamefile.position_env(game_file, states[3]).unwrapped.board.ravel()
    taken = set(np.flatnonzero(board).tolist()) - {game_file.moves[2]["cell"]}
    game_file.moves[2] = game_file.moves[2] | {"cell": min(taken)}
    with pytest.raises(ValueError, match="move 3 .*not empty after the move"):
        gamefile.replay(game_file)


def test_threes_card_on_a_line_that_did_not_move_is_refused():
    game_file, _ = random_game("threes", 2, 40)
    states = gamefile.replay(game_file)
    for i, move in enumerate(game_file.moves):
        env = gamefile.position_env(game_file, states[i])
        lines = threes.moved_lines(env.unwrapped.board, move["action"])
        still = sorted(set(range(4)) - set(lines))
        if still:
            game_file.moves[i] = move | {"line": still[0]}
            with pytest.raises(ValueError, match=f"move {i + 1} .*did not move"):
                gamefile.replay(game_file)
            return
    pytest.fail("no move in 40 left a line in place")


def test_threes_next_card_the_deck_has_none_of_is_refused():
    """After four 1s are drawn from a fresh deck, the next basic card is no 1."""
    game_file, _ = random_game("threes", 4, 200)
    states = gamefile.replay(game_file)
    for i, move in enumerate(game_file.moves):
        ones, twos, threes_left = threes.unpack_cards(states[i].cards)[:3]
        if ones == 0 and twos + threes_left > 0 and "next" in move:
            game_file.moves[i] = move | {"next": 1}
            with pytest.raises(ValueError, match=f"move {i + 1} .*has no 1 left"):
                gamefile.replay(game_file)
            return
    pytest.fail("the deck never ran out of 1s")


def test_a_game_with_no_moves_is_refused(tmp_path, capsys):
    env = make_env("tictactoe")
    env.reset(seed=0)
    game_file = gamefile.Recorder("tictactoe", env).game_file
    path = gamefile.save(game_file, tmp_path / "empty.json")
    assert "no moves" in _cli_error(capsys, path)


def test_start_not_from_the_seed_is_refused():
    game_file, _ = random_game("threes", 9, 5)
    game_file.seed += 1
    with pytest.raises(ValueError, match="start is not the one seed"):
        gamefile.replay(game_file)


def test_save_leaves_no_temporary_file(tmp_path):
    game_file, _ = random_game("nim", 0)
    gamefile.save(game_file, tmp_path / "a.json")
    gamefile.save(game_file, tmp_path / "a.json")
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_threes_start_with_a_bad_deck_is_one_line():
    game_file, _ = random_game("threes", 1, 5)
    game_file.seed = None
    game_file.start = game_file.start | {"deck": [5, 0, 0]}
    with pytest.raises(ValueError, match="start deck must be three counts"):
        gamefile.replay(game_file)


def test_play_writes_the_game_file_after_every_move(tmp_path):
    from playahead.tools.play.session import Session

    path = tmp_path / "mine.json"
    session = Session("tictactoe", agent="minimax", seed=1, save=path, color=False)
    session.press("4")
    loaded = gamefile.load(path)
    assert loaded.players == ["human", "random"] and len(loaded.moves) == 2
    assert gamefile.replay(loaded)[-1] == session.env.unwrapped.clone_state()
    session.press("n")
    assert session.game_path() == tmp_path / "mine-2.json"
    session = Session("threes", agent="random", seed=2, save=path, color=False)
    for key in ("left", "up", "right", "down") * 3:
        session.press(key)
    assert (
        gamefile.replay(gamefile.load(path))[-1] == session.env.unwrapped.clone_state()
    )


@pytest.mark.parametrize("command", [["watch", "nim"], ["assist", "2048"]])
def test_a_game_file_in_a_missing_folder_is_refused_before_the_game(
    command, tmp_path, capsys
):
    path = tmp_path / "no" / "game.json"
    assert main([*command, "--save", str(path)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"no folder {path.parent}")
