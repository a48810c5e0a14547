"""``playahead serve`` over HTTP: the page's Connect Four hints and reviews come from
the exact solver within a small node budget, and say whether their values are exact
(solved) or minimax's depth-limited estimate; an early position never stalls the
server."""

import threading
import time

import pytest

from playahead.tools.games import VALUE_UNITS
from playahead.tools.serve import app, models
from playahead.tools.serve.loadtest import call, wait_ready

MAX_SECONDS = 10.0  # the server's default
#: Pons' c4solver -a: -3 1 -1000 -1000 -4 1 -1000 (columns 1-7)
LATE = "7422341735647741166133573473242566"


@pytest.fixture(scope="module")
def server():
    srv, url = app.start_in_thread(max_seconds=MAX_SECONDS, workers=1)
    wait_ready(url)
    yield url
    srv.shutdown()


def post(url, path, body):
    status, data, _ = call(url, path, body)
    return status, data


def state_after(url, moves: str) -> dict:
    """The state after ``moves`` (columns 1-7), played in hot seat."""
    status, view = post(url, "api/new", {"game": "connect4", "side": None})
    assert status == 200, view
    for ch in moves:
        body = {"game": "connect4", "state": view["state"], "move": int(ch) - 1}
        status, view = post(url, "api/move", body | {"opponent": None})
        assert status == 200, view
    return view["state"]


def test_the_page_takes_the_solver_for_connect_four_only(server):
    games = {g["name"]: g for g in call(server, "api/games")[1]["games"]}
    assert games["connect4"]["default_agent"] == "solver"
    assert games["tictactoe"]["default_agent"] == "minimax"
    agents = {a["name"]: a for a in call(server, "api/agents")[1]["agents"]}
    (budget,) = agents["solver"]["options"]  # fallback_budget, table_bits: not set
    assert budget["name"] == "budget"
    assert budget["default"] == models.PAGE_BUDGETS["solver"] == 2_000_000
    assert budget["cap"] == models.PLANNER_CAPS["solver"]["budget"]


def test_a_late_position_gets_the_solvers_exact_scores(server):
    state = state_after(server, LATE)
    status, hint = post(server, "api/hint", {"game": "connect4", "state": state})
    assert status == 200, hint
    assert hint["agent"] == "solver" and hint["value_kind"] == "pons_score"
    assert hint["unit"] == VALUE_UNITS["pons_score"]
    assert hint["exact"] and hint["note"].startswith("exact: solved by the Connect")
    scores = {e["action"]: e["value"] for e in hint["ranked"]}
    assert scores == {0: -3, 1: 1, 4: -4, 5: 1}
    assert sorted(hint["exact_moves"]) == [0, 1, 4, 5]
    assert hint["action"] in (1, 5) and hint["stats"]["solved"] is True
    assert hint["stats"]["nodes"] <= models.PAGE_BUDGETS["solver"]


def test_an_early_position_returns_promptly_with_a_labelled_estimate(server):
    """The empty board is far beyond the page's budget: the solver stops at it and
    minimax's values come back, named an estimate, while the server answers others
    at once."""
    empty = state_after(server, "")
    answer = {}

    def ask():
        start = time.monotonic()
        answer["reply"] = post(server, "api/hint", {"game": "connect4", "state": empty})
        answer["seconds"] = time.monotonic() - start

    asker = threading.Thread(target=ask)
    asker.start()
    start = time.monotonic()
    while asker.is_alive() and time.monotonic() - start < 0.3:
        time.sleep(0.01)
    for _ in range(3):  # the search runs in a worker: the server is not held
        begun = time.monotonic()
        assert call(server, "api/status")[0] == 200
        assert post(server, "api/new", {"game": "connect4"})[0] == 200
        assert time.monotonic() - begun < 2.0
    asker.join(60)
    status, hint = answer["reply"]
    assert status == 200, hint
    assert answer["seconds"] < MAX_SECONDS
    assert hint["agent"] == "solver" and hint["value_kind"] in ("heuristic", "solved")
    assert hint["exact"] is False and hint["exact_moves"] == []
    budget = models.PAGE_BUDGETS["solver"]
    assert hint["note"].startswith(
        f"estimate: not solved within the solver's {budget:,} nodes; minimax's values"
    )
    stats = hint["stats"]
    assert stats["solved"] is False and stats["fallback"] == "minimax"
    assert stats["nodes"] == stats["budget"] == budget
    assert len(hint["ranked"]) == 7


def test_a_larger_solver_budget_is_capped(server):
    state = state_after(server, "44")
    cap = models.PLANNER_CAPS["solver"]["budget"]
    body = {"game": "connect4", "state": state, "agent": "solver"}
    status, got = post(server, "api/hint", body | {"settings": {"budget": cap + 1}})
    assert status == 422 and f"solver budget must be at most {cap}" in got["error"]
    body = {"game": "connect4", "state": state, "agent": "solver:table_bits=27"}
    status, got = post(server, "api/hint", body)
    assert status == 422 and "table_bits" in got["error"]
    view = post(server, "api/new", {"game": "tictactoe", "side": None})[1]
    body = {"game": "tictactoe", "state": view["state"], "agent": "solver"}
    status, got = post(server, "api/hint", body)
    assert status == 400 and "Connect Four only" in got["error"]


def test_a_review_says_which_moves_were_valued_exactly(server):
    """Late: the solver's scores, a move that turns a win into a loss a blunder."""
    state = state_after(server, LATE)
    body = {"game": "connect4", "state": state, "move": 4}  # -4 where 1 wins
    status, row = post(server, "api/review", body)
    assert status == 200, row
    assert row["exact"] and row["note"].startswith("exact:")
    assert row["mark"] == "blunder" and row["best_value"] == 1
    assert row["played_value"] == -4
