"""``playahead serve`` over HTTP on 127.0.0.1: the page, and every probe of issue 12
(huge budgets, open time limits, malformed HTTP and JSON, slow clients) gets a JSON
error or a capped answer, and the server serves others meanwhile."""

import json
import socket

import pytest

from playahead.tools.games import GAMES
from playahead.tools.serve import app, models
from playahead.tools.serve.loadtest import call, wait_ready

MAX_SECONDS = 2.0


@pytest.fixture(scope="module")
def server():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app, "READ_SECONDS", 2.0)
        srv, url = app.start_in_thread(max_seconds=MAX_SECONDS, workers=2)
        wait_ready(url)
        yield url
        srv.shutdown()


def post(url, path, body, **kw):
    status, data, kind = call(url, path, body, **kw)
    assert kind == "application/json", (status, kind)
    return status, data


def test_http_serves_the_page_and_the_api(server):
    status, _, kind = call(server, "", method="GET")
    assert status == 200 and kind.startswith("text/html")
    for name in ("static/app.js", "static/style.css"):
        assert call(server, name)[0] == 200
    games = call(server, "api/games")[1]
    assert [g["name"] for g in games["games"]] == list(GAMES)
    assert games["max_seconds"] == MAX_SECONDS and games["caps"] == models.CAPS | {
        "budget": 10_000_000,  # 5 M nodes a second of MAX_SECONDS
        "planners": models.PLANNER_CAPS,
    }
    status, view = post(server, "api/new", {"game": "2048", "seed": 1})
    assert status == 200 and view["game"] == "2048"


@pytest.mark.parametrize(
    "path, body, headers, method, status, message",
    [
        ("api/new", b"{not json", {}, None, 400, "not valid JSON"),
        ("api/new", b"[]", {}, None, 400, "must be a JSON object"),
        ("api/new", b'{"seed": NaN}', {}, None, 400, "NaN is not a JSON number"),
        ("api/new", b'{"seed": 1' + b"0" * 5000 + b"}", {}, None, 400, "not valid"),
        ("api/new", b"[" * 5000 + b"]" * 5000, {}, None, 400, "nests deeper"),
        ("api/new", b'{"a":' * 5000 + b"1" + b"}" * 5000, {}, None, 400, "nests"),
        ("api/new", b'{"game": "2048"}', {"Content-Type": "text/plain"}, None, 415, ""),
        ("api/new", b"x" * (app.MAX_BODY + 1), {}, None, 413, "over 65536 bytes"),
        ("api/unknown", b"{}", {}, None, 404, "not found"),
        ("api/new", None, {}, "GET", 405, "takes POST, not GET"),
        ("api/new", b"{}", {}, "PUT", 405, "takes POST, not PUT"),
        ("api/hint", None, {}, "DELETE", 405, "takes POST"),
        ("api/games", b"{}", {}, "POST", 405, "takes GET, HEAD, not POST"),
        ("", None, {}, "BREW", 405, "takes GET"),
        ("../etc/passwd", None, {}, "GET", 404, "not found"),
        ("static/../app.py", None, {}, "GET", 404, "not found"),
        ("api/new", {"game": "2048", "seed": 2**64}, {}, None, 422, "seed: Input"),
        ("api/new", {"game": "nim", "options": {"n": 10**30}}, {}, None, 400, "n must"),
        ("api/new", {"game": "2048", "nonce": "x" * 300}, {}, None, 422, "nonce"),
    ],
)
def test_malformed_requests_get_a_json_error(
    server, path, body, headers, method, status, message
):
    got, data = post(server, path, body, method=method, headers=headers)
    assert got == status and message in data["error"]
    assert call(server, "api/games")[0] == 200


def _new(server, game="2048", **extra):
    return post(server, "api/new", {"game": game, "seed": 0} | extra)[1]


def _hint(server, agent, settings=None, game="2048"):
    body = {"game": game, "state": _new(server, game)["state"], "agent": agent}
    return post(server, "api/hint", body | {"settings": settings or {}})


@pytest.mark.parametrize(
    "agent, settings, status, message",
    [
        ("lookahead", {"depth": 50}, 422, "lookahead depth must be at most 4"),
        ("lookahead", {"depth": 15}, 422, "lookahead depth must be at most 4"),
        ("mcts", {"n_simulations": 5_000_000}, 422, "less than or equal to 100000"),
        ("mcts:n_simulations=1000000000", {}, 422, "less than or equal to 100000"),
        ("mcts:c=inf", {}, 422, "c: Input should be a finite number"),
        ("expectimax:max_depth=40", {}, 422, "max_depth: Input should be less"),
        ("alphazero", {}, 400, "not available here"),
        ("ppo:path=/etc/passwd", {}, 400, "not available here"),
    ],
)
def test_budgets_over_their_caps_are_refused(server, agent, settings, status, message):
    got, data = _hint(server, agent, settings)
    assert got == status and message in data["error"]


@pytest.mark.parametrize(
    "agent, settings",
    [
        ("mcts", {"time_limit": None, "n_simulations": None}),
        ("mcts:time_limit=none,n_simulations=none", {}),
        ("mc:n_rollouts=none", {"time_limit": 1e9}),
        ("lookahead", {"depth": 4, "n_sims": None, "time_limit": None}),
        ("expectimax:time_limit=none", {"depth": 6}),
        ("minimax:time_limit=none", {}),
        ("minimax:budget=none", {}),
    ],
)
def test_open_budgets_get_a_capped_answer(server, agent, settings):
    game = "connect4" if agent.startswith("minimax") else "2048"
    status, data = _hint(server, agent, settings, game)
    assert status in (200, 504), data  # capped by time; 504 if the worker was killed
    if status == 200:  # the search was held to the server's caps, not left open
        stats = data["stats"]  # counted work, never the clock (it varies with load)
        assert stats.get("budget") is None or stats["budget"] <= 10_000_000
        assert stats.get("nodes", 0) <= 10_000_000
        assert stats.get("simulations", 0) <= 100_000
        assert stats.get("rollouts", 0) <= 100_000
        assert data["ranked"]


def test_an_opponent_spec_with_an_open_time_limit_is_capped(server):
    spec = "minimax:time_limit=none"
    status, view = post(
        server, "api/new", {"game": "connect4", "side": 1, "opponent": spec}
    )
    assert status == 200 and len(view["moves"]) == 1
    body = {"game": "connect4", "state": view["state"], "move": 3, "opponent": spec}
    status, after = post(server, "api/move", body)
    assert status == 200 and [m["player"] for m in after["moves"]] == [1, 0]
    body["opponent"] = "mcts:n_simulations=99999999"
    status, data = post(server, "api/move", body)
    assert status == 422 and "n_simulations" in data["error"]


def test_wrong_types_get_a_422_not_a_500(server):
    state = _new(server)["state"]
    for bad in (
        {"type": ["Twenty48State"]},
        state | {"score": "x"},
        state | {"moves": None},
    ):
        body = {"game": "2048", "state": bad, "move": 0}
        status, data = post(server, "api/move", body)
        assert status == 422 and data["error"].startswith("state"), data


def _raw(server, data: bytes, timeout=30.0) -> bytes:
    host, port = server.split("//")[1].strip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


HEAD = b"POST /api/new HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize(
    "request_, status, message",
    [
        (HEAD + b"Content-Length: -1\r\n\r\n{}", b"400", "bad Content-Length"),
        (HEAD + b"Content-Length: abc\r\n\r\n{}", b"400", "bad Content-Length"),
        (HEAD + b"Content-Length: 1, 2\r\n\r\n{}", b"400", "Content-Length"),
        (HEAD + b"Content-Length: 9" * 2 + b"\r\n\r\n", b"400", "Content-Length"),
        (
            HEAD + b"Content-Length: " + b"9" * 30 + b"\r\n\r\n",
            b"400",
            "Content-Length",
        ),
        (HEAD + b"Content-Length: " + b"9" * 12 + b"\r\n\r\n", b"413", "over 65536"),
        (b"GARBAGE\r\n\r\n", b"400", "invalid HTTP request"),
    ],
)
def test_malformed_http_gets_a_clear_json_error(server, request_, status, message):
    reply = _raw(server, request_)
    status_line, _, body = reply.partition(b"\r\n\r\n")
    assert status_line.split()[1] == status
    assert message in json.loads(body)["error"]


def test_slow_clients_neither_block_others_nor_stay(server):
    host, port = server.split("//")[1].strip("/").split(":")
    slow = []
    for i in range(300):
        sock = socket.create_connection((host, int(port)), timeout=30)
        part = b"POST /api/new HTTP/1.1\r\nHost: t\r\n"
        if i % 2:  # whole headers, a body that never comes
            part += b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        sock.sendall(part)
        slow.append(sock)
    try:
        for _ in range(20):  # the others are served meanwhile
            assert post(server, "api/new", {"game": "nim", "side": None})[0] == 200
        for sock in slow:  # each slow client is answered 408 and closed
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
            assert reply.startswith(b"HTTP/1.1 408"), reply[:80]
            assert (
                "did not arrive" in json.loads(reply.partition(b"\r\n\r\n")[2])["error"]
            )
    finally:
        for sock in slow:
            sock.close()
