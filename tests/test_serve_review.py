"""The page's game files, Review and Assist through the JSON API (without HTTP): moves
carry their record, a recorded game replays, a review marks the tic-tac-toe blunder,
assist refuses an entry in one line, and every budget stays capped."""

import json

import pytest

from playahead.tools import gamefile
from playahead.tools.serve import api

THREES = "expectimax:depth=1,evaluator=features"
BOARD = "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1"


def _ok(path, body):
    status, data = api.handle(path, body)
    assert status == 200, data
    return data


def _file(game, start, moves, kwargs=None, players=("human",)):
    return {
        "format": "playahead-game",
        "version": 1,
        "env": gamefile.get_game(game).env_id,
        "kwargs": kwargs or {},
        "seed": None,
        "start": start,
        "players": list(players),
        "moves": moves,
    }


def test_a_game_played_in_the_page_replays_from_its_record():
    view = _ok("/api/new", {"game": "threes", "seed": 5})
    start, record = view["start"], list(view["record"])
    for _ in range(6):
        view = _ok(
            "/api/move",
            {"game": "threes", "state": view["state"], "move": view["legal"][0]},
        )
        record += view["record"]
    data = _ok("/api/replay", {"file": _file("threes", start, record)})
    assert data["positions"][-1]["state"] == view["state"]
    assert gamefile.parse(json.dumps(data["file"])).moves == record


def test_review_marks_the_edge_reply_to_the_centre():
    view = _ok("/api/new", {"game": "tictactoe", "side": None, "opponent": None})
    state = view["state"]
    moves = []
    for action in (4, 1):
        view = _ok(
            "/api/move", {"game": "tictactoe", "state": view["state"], "move": action}
        )
        moves += view["record"]
    data = _ok(
        "/api/replay", {"file": _file("tictactoe", None, moves, players=("a", "b"))}
    )
    assert data["positions"][0]["state"] == state
    row = _ok(
        "/api/review",
        {"game": "tictactoe", "state": data["positions"][1]["state"], "move": 1},
    )
    assert (row["best_value"], row["played_value"], row["loss"]) == (0.0, -1.0, 1.0)
    assert row["mark"] == "blunder" and row["played"] == "cell 1"


def test_a_bad_game_file_is_one_line():
    status, data = api.handle("/api/replay", {"file": {"format": "x"}})
    assert status == 400 and "not a playahead game file" in data["error"]
    moves = [{"action": 4}, {"action": 4}]
    status, data = api.handle("/api/replay", {"file": _file("tictactoe", None, moves)})
    assert status == 400 and data["error"].startswith("move 2 (cell 4): not a legal")


def test_assist_follows_entries_and_refuses_a_contradiction():
    first = _ok(
        "/api/assist",
        {"game": "threes", "position": {"board": BOARD, "next": "2"}, "agent": THREES},
    )
    assert first["start"]["deck"] == [4, 3, 4] and first["hint"]["ranked"]
    body = {"game": "threes", "state": first["state"], "agent": THREES}
    status, data = api.handle("/api/assist", body | {"entry": "k22"})
    assert status == 400 and data["error"] == (
        "not taken: line 2 did not move (lines that moved: 1, 3, 4)"
    )
    after = _ok("/api/assist", body | {"entry": "12", "suggestion": 3})
    assert after["move"] == {"action": 3, "line": 0, "card": 2, "next": 2}
    assert after["info"]["moves"] == 1 and after["board"][0] == [3, 0, 3, 2]
    file = _file("threes", first["start"], [after["move"]])
    assert (
        _ok("/api/replay", {"file": file})["positions"][-1]["state"] == after["state"]
    )


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/api/review", {"move": 0, "settings": {"budget": 10**12}}),
        ("/api/assist", {"entry": "12", "settings": {"budget": 10**12}}),
    ],
)
def test_review_and_assist_budgets_are_capped(path, extra):
    view = _ok("/api/new", {"game": "2048", "seed": 1})
    body = {"game": "2048", "state": view["state"], "agent": "expectimax"} | extra
    status, data = api.handle(path, body)
    assert status == 422 and "budget" in data["error"]


def test_only_the_game_file_route_takes_a_large_body():
    from playahead.tools.serve import app

    assert api.FILE_ROUTES == {"/api/replay": 2 * 2**20, "/api/open": 2 * 2**20}
    assert app.MAX_BODY == 64 * 1024


def test_review_and_assist_run_in_search_workers_and_replay_does_not():
    state = _ok("/api/new", {"game": "tictactoe"})["state"]
    replay = api.parse("/api/replay", {"file": {}})
    review = api.parse("/api/review", {"game": "tictactoe", "state": state, "move": 4})
    assist = api.parse("/api/assist", {"game": "2048", "position": {"board": "2"}})
    assert not api.needs_search("/api/replay", replay)
    assert api.needs_search("/api/review", review)
    assert api.needs_search("/api/assist", assist)
