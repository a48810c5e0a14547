"""``playahead serve``: state JSON round trips, the stateless API, every error a 4xx."""

import json
import urllib.error
import urllib.request

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.serve import app
from playahead.serve.app import handle, state_from_json, state_to_json
from playahead.tools.games import GAMES, make_env


def ok(path, payload):
    status, body = handle(path, payload)
    assert status == 200, body
    return body


@settings(max_examples=30)
@given(
    game=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 40),
)
def test_every_state_survives_a_json_round_trip(game, seed, plies):
    env = make_env(game, render_mode=None)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        legal = np.flatnonzero(env.action_masks())
        if legal.size == 0:
            break
        env.step(int(rng.choice(legal)))
    state = env.clone_state()
    text = json.dumps(state_to_json(state))
    assert state_from_json(json.loads(text)) == state


def test_tile_boards_are_hex_ranks_row_by_row():
    view = ok("/api/new", {"game": "threes", "seed": 3})
    ranks = [int(ch, 16) for ch in view["state"]["board"]]
    faces = np.array(view["board"]).ravel()
    for rank, face in zip(ranks, faces, strict=True):  # 1, 2, then 3 * 2**(r - 3)
        assert face == (rank if rank < 3 else 3 * 2 ** (rank - 3))


def test_a_2048_move_reward_is_the_score_gained():
    view = ok("/api/new", {"game": "2048", "seed": 11})
    for _ in range(30):
        request = {"game": "2048", "state": view["state"], "move": view["legal"][0]}
        after = ok("/api/move", request)
        assert after["reward"] == after["info"]["score"] - view["info"]["score"]
        assert after["state"]["moves"] == view["state"]["moves"] + 1
        view = after


def test_a_nonce_replays_chance_and_fresh_requests_differ():
    view = ok("/api/new", {"game": "threes", "seed": 1})
    request = {"game": "threes", "state": view["state"], "move": view["legal"][0]}
    first = ok("/api/move", request | {"nonce": "abc"})
    ok("/api/new", {"game": "threes"})  # another client's game in between
    assert ok("/api/move", request | {"nonce": "abc"})["state"] == first["state"]
    states = {
        json.dumps(ok("/api/move", request | {"nonce": n})["state"]) for n in range(12)
    }
    assert len(states) > 1


def test_same_seed_same_deal():
    a = ok("/api/new", {"game": "2048", "seed": 5})
    b = ok("/api/new", {"game": "2048", "seed": 5})
    assert a["state"] == b["state"]


def test_two_player_games_against_an_opponent():
    view = ok("/api/new", {"game": "connect4", "side": 1, "opponent": "greedy"})
    assert sum(map(sum, view["board"])) == 1  # the opponent (player 0) opened
    assert view["info"]["agent_player"] == 1 and view["moves"][0]["player"] == 0
    after = ok(
        "/api/move",
        {"game": "connect4", "state": view["state"], "move": 3, "opponent": "random"},
    )
    assert [m["player"] for m in after["moves"]] == [1, 0]
    assert np.count_nonzero(after["board"]) == 3
    hot = ok("/api/new", {"game": "tictactoe", "side": None, "options": {"size": 4}})
    after = ok("/api/move", {"game": "tictactoe", "state": hot["state"], "move": 5})
    assert after["info"]["current_player"] == 1 and len(after["moves"]) == 1


def test_hint_ranks_moves_and_finds_the_winning_take():
    view = ok("/api/new", {"game": "nim", "options": {"n": 3, "k": 3}, "side": None})
    hint = ok("/api/hint", {"game": "nim", "state": view["state"], "agent": "greedy"})
    assert hint["ranked"][0] == {"action": 2, "label": "take 3", "value": 1.0}
    assert hint["action"] == 2 and hint["values"] == [0.0, 0.0, 1.0]
    view = ok("/api/new", {"game": "2048", "seed": 2})
    hint = ok(
        "/api/hint",
        {
            "game": "2048",
            "state": view["state"],
            "agent": "mcts",
            "settings": {"n_simulations": 50},
        },
    )
    values = [entry["value"] for entry in hint["ranked"]]
    assert values == sorted(values, reverse=True)
    assert {e["action"] for e in hint["ranked"]} == set(view["legal"])
    assert hint["stats"]["simulations"] == 50


def test_searches_are_capped_in_time():
    rng = np.random.default_rng(0)
    agent = app.build_planner("mcts", {"time_limit": 1e6}, rng)
    assert agent.time_limit == app.MAX_SECONDS
    assert app.build_planner("mcts:n_simulations=10", {}, rng).time_limit > 0


def _state(game="threes", **changes):
    view = ok("/api/new", {"game": game, "seed": 0})
    return view["state"] | changes


def move(state, game="threes", **extra):
    return {"game": game, "state": state, "move": 0} | extra


def hint(state="<threes>", game="threes", **extra):
    return {"game": game, "state": state} | extra


TTT = "tictactoe"
BAD = [
    ("/api/new", {"game": "chess"}, "unknown game 'chess'"),
    ("/api/new", {}, "unknown game None"),
    ("/api/new", {"game": "nim", "options": {"size": 3}}, "no option 'size'"),
    ("/api/new", {"game": "nim", "options": {"n": 10**6}}, "n must be in 1..200"),
    ("/api/new", {"game": TTT, "options": {"size": "3"}}, "size must be int"),
    ("/api/new", {"game": "nim", "options": []}, "options must be an object"),
    ("/api/new", {"game": "2048", "seed": -1}, "seed must be an integer"),
    ("/api/new", {"game": "nim", "side": 2}, "side must be 0, 1 or null"),
    ("/api/new", {"game": "nim", "side": 1, "opponent": "ppo"}, "not available"),
    ("/api/move", {"game": "threes", "move": 0}, "missing 'state'"),
    ("/api/move", move("x"), "must be an object"),
    ("/api/move", move({"type": "Evil"}), "state.type must"),
    ("/api/move", move("<threes>", "2048"), "needs a Twenty48State"),
    ("/api/move", move("<cards=-1>"), "cards must"),
    ("/api/move", move("<cards=7>"), "malformed state"),
    ("/api/move", move("<board=12>"), "16 lower-case hex"),
    ("/api/move", move("<moves=true>"), "must be an integer"),
    ("/api/move", move("<extra=1>"), "unexpected ['extra']"),
    ("/api/move", move("<threes>", move=9), "illegal move 9"),
    ("/api/move", move("<threes>", move="up"), "illegal move 'up'"),
    ("/api/move", move("<threes>", move=True), "illegal move True"),
    ("/api/move", move("<threes>", nonce=[]), "nonce must be"),
    ("/api/move", move("<ttt=[1,1]>", TTT), "malformed state"),
    ("/api/move", move("<ttt over>", TTT, move=8), "the game is over"),
    ("/api/move", move("<ttt their turn>", TTT, move=8), "not player 0's turn"),
    ("/api/hint", hint(agent="mcts:x"), "not key=value"),
    ("/api/hint", hint(agent="alphazero"), "not available here"),
    ("/api/hint", hint(agent=3), "spec string"),
    ("/api/hint", hint(settings={"tt_bits": 28}), "unknown setting 'tt_bits'"),
    ("/api/hint", hint(settings=[1]), "settings must be an object"),
    ("/api/hint", hint(agent="mcts:n_simulations=-1"), "must be a positive integer"),
    ("/api/hint", hint("<c4>", "connect4", agent="expectimax"), "cannot analyze"),
    ("/api/hint", hint("<ttt over>", TTT), "the game is over"),
    ("/api/nothing", {}, "no endpoint"),
    ("/api/new", ["game"], "must be a JSON object"),
]


def _fill(payload):
    """Replace the "<...>" placeholders of BAD with real (broken) states."""
    marker = payload.get("state")
    if not isinstance(marker, str) or not marker.startswith("<"):
        return payload
    spec = marker.strip("<>")
    if spec == "threes":
        state = _state()
    elif spec == "c4":
        state = _state("connect4")
    elif spec.startswith("ttt"):
        cells = {"ttt=[1,1]": [1, 1], "ttt over": [1, 1, 1, 2, 2, 0, 0, 0, 0]}
        position = cells.get(spec, [1, 0, 0, 0, 0, 0, 0, 0, 0])
        player = 0 if spec == "ttt their turn" else None
        state = _state("tictactoe", position=position, agent_player=player)
    else:
        key, _, value = spec.partition("=")
        state = _state() | {key: json.loads(value)}
    return payload | {"state": state}


@pytest.mark.parametrize("path, payload, message", BAD)
def test_bad_requests_get_a_4xx_with_a_message(path, payload, message):
    if isinstance(payload, dict):
        payload = _fill(payload)
    status, body = handle(path, payload)
    assert 400 <= status < 500
    assert message in body["error"]


@pytest.fixture(scope="module")
def server():
    srv, url = app.start_in_thread()
    yield url
    srv.shutdown()
    srv.server_close()


def _http(url, body=None, content_type="application/json", method=None):
    data = body if isinstance(body, bytes | None) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_http_serves_the_page_and_the_api(server):
    status, html = _http(server)
    assert status == 200 and b"/static/app.js" in html
    for name in ("static/app.js", "static/style.css"):
        assert _http(server + name)[0] == 200
    games = json.loads(_http(server + "api/games")[1])
    assert [g["name"] for g in games["games"]] == list(GAMES)
    status, body = _http(server + "api/new", {"game": "2048", "seed": 1})
    assert status == 200 and json.loads(body)["game"] == "2048"


@pytest.mark.parametrize(
    "path, body, content_type, method, status",
    [
        ("api/new", b"{not json", "application/json", None, 400),
        ("api/new", b"[]", "application/json", None, 400),
        ("api/new", b'{"game": "2048"}', "text/plain", None, 415),
        ("api/new", b"x" * (app.MAX_BODY + 1), "application/json", None, 413),
        ("api/unknown", b"{}", "application/json", None, 404),
        ("api/new", None, None, "GET", 405),
        ("../etc/passwd", None, None, "GET", 404),
        ("static/../app.py", None, None, "GET", 404),
    ],
)
def test_http_errors_are_json_and_the_server_lives_on(
    server, path, body, content_type, method, status
):
    got, raw = _http(server + path, body, content_type, method)
    assert got == status
    assert json.loads(raw)["error"]
    assert _http(server + "api/games")[0] == 200
