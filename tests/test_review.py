"""``playahead review`` and ``playahead export``: facts of the games, the JSON schema,
and the default's own games reviewed with zero loss."""

import json

import pytest

from playahead.cli import main
from playahead.tools import export, gamefile, review, watch
from playahead.tools.games import make_env
from tests.helpers.gamefiles import two_people


def _played(game, agent, seed, moves, tmp_path):
    path = tmp_path / f"{game}.json"
    for _ in watch.frames(game, agent, seed=seed, max_moves=moves, save=path):
        pass
    return gamefile.load(path)


def test_the_defaults_own_threes_game_reviews_with_zero_loss(tmp_path):
    """watch plays the search hint uses (the same budgets); review runs it again on
    the same positions in the same order: every move is the best."""
    game_file = _played("threes", "expectimax", 3, 25, tmp_path)
    result = review.review(game_file)
    assert result.agent == "expectimax" and result.value_kind == "score"
    assert [m.loss for m in result.moves] == [0.0] * 25
    assert result.summary()["accuracy"] == 1.0
    assert all(m.played == m.best and not m.mark for m in result.moves)


def test_a_2048_game_reviewed_by_its_own_agent_has_zero_loss(tmp_path):
    game_file = _played("2048", "expectimax:depth=1", 5, 40, tmp_path)
    result = review.review(game_file, "expectimax:depth=1")
    assert result.summary()["total_loss"] == 0.0


def _tictactoe(actions):
    return two_people("tictactoe", actions)


def test_tictactoe_edge_reply_to_the_centre_is_a_blunder():
    """After X takes the centre, O must take a corner: an edge turns the draw into a
    loss (loss 1, a blunder); the centre itself keeps the draw."""
    result = review.review(_tictactoe([4, 1]))
    first, second = result.moves
    assert (first.best_value, first.played_value, first.loss) == (0.0, 0.0, 0.0)
    assert (second.best_value, second.played_value) == (0.0, -1.0)
    assert second.loss == 1.0 and second.mark == "blunder" and second.player == 1
    assert second.best in {"cell 0", "cell 2", "cell 6", "cell 8"}


def test_missing_a_win_is_a_blunder_and_the_summary_counts_it():
    """X on 0 and 1, O on 3 and 4: X wins at 2; X playing 8 lets O win at 5 (won to
    lost: loss 2)."""
    result = review.review(_tictactoe([0, 3, 1, 4, 8]))
    last = result.moves[-1]
    assert (last.best, last.best_value, last.played_value) == ("cell 2", 1.0, -1.0)
    assert last.loss == 2.0 and last.mark == "blunder"
    summary = result.summary()
    assert summary["marks"]["blunder"] >= 1
    assert summary["costliest"][0]["number"] in {m.number for m in result.moves}


def test_marks_follow_the_stated_thresholds():
    assert review.mark("threes", 0.0, 1000.0) == ""
    assert review.mark("threes", 9.0, 1000.0) == ""
    assert review.mark("threes", 10.0, 1000.0) == "inaccuracy"
    assert review.mark("threes", 30.0, 1000.0) == "mistake"
    assert review.mark("2048", 100.0, 1000.0) == "blunder"
    assert review.mark("tictactoe", 1.0, 0.0) == "blunder"
    assert review.mark("connect4", 0.3, 0.5) == "mistake"
    assert review.mark("nim", 0.1, 0.5) == "inaccuracy"


def test_review_json_schema(tmp_path, capsys):
    path = gamefile.save(_tictactoe([4, 1, 0]), tmp_path / "g.json")
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"game", "env", "agent", "unit", "marks", "moves", "summary"} <= set(data)
    assert len(data["moves"]) == 3
    for move in data["moves"]:
        keys = {
            "number",
            "played",
            "best",
            "played_value",
            "best_value",
            "loss",
            "mark",
            "value_kind",
        }
        assert keys <= set(move) and move["value_kind"] == "solved"
        assert move["loss"] == pytest.approx(move["best_value"] - move["played_value"])
    summary = data["summary"]
    assert {"accuracy", "total_loss", "mean_loss", "marks", "costliest"} <= set(summary)
    assert summary["accuracy"] == pytest.approx(2 / 3)
    assert summary["total_loss"] == 1.0
    assert summary["losses"] == {"solved": {"moves": 3, "total": 1.0, "mean": 1 / 3}}


def test_review_plot_and_text(tmp_path, capsys):
    path = gamefile.save(_tictactoe([4, 1, 0]), tmp_path / "g.json")
    assert main(["review", str(path), "--plot", str(tmp_path / "g.png")]) == 0
    out = capsys.readouterr().out
    assert "accuracy 66.7% (2 of 3 moves the best)" in out
    assert "move 2: cell 1 (-1.000) instead of cell" in out and "1 blunder" in out
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_an_agent_without_analyze_is_one_line(tmp_path, capsys):
    path = gamefile.save(_tictactoe([4]), tmp_path / "g.json")
    assert main(["review", str(path), "--agent", "random"]) == 2
    assert "review needs a planner" in capsys.readouterr().err


def test_export_plays_a_store_game_again(tmp_path, capsys):
    store = tmp_path / "eval.sqlite"
    argv = ["evaluate", "--env", "2048-v0", "--agents", "greedy", "--games", "2"]
    assert main([*argv, "--out", str(store), "--quiet"]) == 0
    out = tmp_path / "g.json"
    assert (
        main(["export", "--store", str(store), "--index", "1", "--out", str(out)]) == 0
    )
    game_file = gamefile.load(out)
    assert game_file.players == ["greedy"]
    env = gamefile.position_env(game_file, gamefile.replay(game_file)[-1])
    assert not env.action_masks().any()  # played to the end, as stored
    assert (
        main(["export", "--store", str(store), "--index", "5", "--out", str(out)]) == 2
    )
    assert "no game 5" in capsys.readouterr().err


def test_export_from_a_record_checks_the_end(tmp_path):
    record = tmp_path / "strength-x.json"
    game_file, info = export.play_game("2048-v0", {}, ("greedy",), 0, 0)
    row = {"index": 0, "score": info["score"], "moves": len(game_file.moves)}
    data = {"env": "2048-v0", "agent": "greedy", "seed": 0, "games": [row]}
    record.write_text(json.dumps(data))
    assert export.from_record(record, 0) == game_file
    record.write_text(json.dumps(data | {"games": [row | {"score": 1}]}))
    with pytest.raises(ValueError, match="not today's agent's game"):
        export.from_record(record, 0)


def test_nim_leaving_a_multiple_of_k_plus_1_is_the_only_winning_move():
    """Nim with takes of 1-3 from 21: taking 1 leaves 20, a multiple of 4, and wins;
    taking 2 throws the win away (won to lost: loss 2)."""
    env = make_env("nim", n=21, k=3)
    env.reset(seed=0)
    recorder = gamefile.Recorder("nim", env, {"n": 21, "k": 3})
    recorder.step(1)  # take 2
    (move,) = review.review(recorder.game_file).moves
    assert (move.best, move.played) == ("take 1", "take 2")
    assert (move.best_value, move.played_value, move.loss) == (1.0, -1.0, 2.0)
    assert move.mark == "blunder"


def test_the_header_and_the_plot_name_the_player(tmp_path, monkeypatch):
    game_file = _played("threes", "greedy", 2, 8, tmp_path)
    result = review.review(game_file, "expectimax:depth=1,evaluator=features")
    assert result.player == "greedy"
    assert str(result).startswith(
        "review of a threes game of 8 moves played by greedy, reviewed by expectimax"
    )
    titles = []
    monkeypatch.setattr(
        "matplotlib.axes.Axes.set_title", lambda ax, t, **k: titles.append(t)
    )
    review.plot(result, tmp_path / "g.png")
    assert titles == [result.title] and "played by greedy" in titles[0]
    person = review.review(_tictactoe([4, 1]))
    assert person.player == "you vs you" and "played by you vs you" in str(person)


def test_an_unwritable_plot_path_is_refused_before_the_review(
    tmp_path, capsys, monkeypatch
):
    path = gamefile.save(_tictactoe([4, 1, 0]), tmp_path / "g.json")
    monkeypatch.setattr(review, "review", lambda *a, **k: pytest.fail("reviewed"))
    for plot, why in (
        (tmp_path / "no-such-folder" / "g.png", "is not an existing folder"),
        (tmp_path, "a folder, not a file"),
        (tmp_path / "g.txt", "name a .png, .svg or .pdf file"),
    ):
        assert main(["review", str(path), "--plot", str(plot)]) == 2
        err = capsys.readouterr().err.strip()
        assert why in err and "\n" not in err


def test_marked_prints_only_the_marked_moves(tmp_path, capsys):
    path = gamefile.save(_tictactoe([4, 1, 0]), tmp_path / "g.json")
    assert main(["review", str(path), "--marked"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0].splitlines()[2:]
    assert [row.split()[:2] for row in table] == [["2", "cell"]]
    assert table[0].rstrip().endswith("blunder")
    assert main(["review", str(path), "--marked", "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["number"] for m in moves] == [2] and moves[0]["mark"] == "blunder"


def test_json_moves_carry_the_board_before_the_move(tmp_path, capsys):
    path = gamefile.save(_tictactoe([4, 1, 0]), tmp_path / "g.json")
    assert main(["review", str(path), "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert moves[0]["board"].splitlines()[2] == " 3 | 4 | 5 "
    assert moves[1]["board"].splitlines()[2] == " 3 | X | 5 "
    assert moves[2]["board"].splitlines()[0] == " 0 | O | 2 "


def test_the_export_examples_name_files_that_exist():
    """Every ``--record`` in ``export --help`` and docs/tools.md is a committed record;
    every ``--store`` is written by an ``evaluate --out`` shown before it."""
    import re
    from pathlib import Path

    root = Path(__file__).parent.parent
    texts = {
        "export --help": export.__doc__,
        "docs/tools.md": (root / "docs" / "tools.md").read_text(),
    }
    for where, text in texts.items():
        text = text.replace("\\\n", " ")
        records = re.findall(r"export --record (\S+)", text)
        stores = re.findall(r"export --store (\S+)", text)
        assert records and stores, where
        for record in records:
            assert (root / record).is_file(), (where, record)
        for store in stores:
            made = text.index(f"--out {store}")
            assert made < text.index(f"export --store {store}"), (where, store)


def test_the_front_pages_list_review_and_assist_and_watchs_default():
    """README and docs/index.md show ``review`` and ``assist`` with an example each;
    the README names the agent ``watch`` plays by default, as its --help does."""
    import argparse
    import re
    from pathlib import Path

    root = Path(__file__).parent.parent
    for page in ("README.md", "docs/index.md"):
        text = (root / page).read_text()
        assert re.search(r"playahead review \S+\.json", text), page
        assert re.search(r"playahead assist (threes|2048)", text), page
    parser = argparse.ArgumentParser()
    watch.configure(parser)
    default = parser.parse_args(["threes"]).agent
    assert f"default: {default}" in parser.format_help().replace("\n", " ")
    readme = " ".join((root / "README.md").read_text().split())
    assert f"`watch` plays `--agent`, `{default}` by default" in readme
