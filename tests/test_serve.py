"""``playahead serve``: state JSON round trips, the stateless API, every error a 4xx."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.planners.expectimax import AUTO_BUDGET, DEFAULT_BUDGET, LEARNED_AUTO
from playahead.tools.games import GAMES, make_env
from playahead.tools.serve import api, models
from playahead.tools.serve.api import handle
from playahead.tools.serve.states import state_from_json, state_to_json
from tests.helpers.clocks import fast_clocks


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
    assert hint["ranked"][0] == {
        "action": 2,
        "label": "take 3",
        "value": 1.0,
        "text": "1.000",
    }
    assert hint["action"] == 2 and hint["values"] == [0.0, 0.0, 1.0]
    assert hint["value_kind"] == "reward" and hint["unit"] == "reward of the move"
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
    # MCTS values 2048 moves in points: labelled as such and printed like 1,234
    assert hint["value_kind"] == "score" and hint["unit"] == "expected final score"
    assert [e["text"] for e in hint["ranked"]] == [f"{v:,.0f}" for v in values]


def test_hint_names_the_unit_of_a_heuristic_value():
    view = ok("/api/new", {"game": "2048", "seed": 2})
    agent = "expectimax:depth=1,evaluator=monotonic"  # the hand-made 2048 search
    body = {"game": "2048", "state": view["state"], "agent": agent}
    hint = ok("/api/hint", body)
    assert hint["value_kind"] == "eval"
    assert hint["unit"] == "heuristic value, not points"
    best = hint["ranked"][0]
    assert best["value"] > 10_000 and best["text"] == f"{best['value']:,.0f}"


def test_the_default_threes_hint_is_an_expected_final_score():
    """The page's default Threes planner values leaves with the shipped net: points
    a player can read, not a heuristic; the hand-made evaluator is one option away."""
    view = ok("/api/new", {"game": "threes", "seed": 2})
    hint = ok("/api/hint", {"game": "threes", "state": view["state"]})
    assert hint["value_kind"] == "score" and hint["unit"] == "expected final score"
    assert hint["stats"]["evaluator"] == "ntuple"
    assert hint["stats"]["depth"] == LEARNED_AUTO["max_depth"]
    best = hint["ranked"][0]
    assert best["value"] > 1_000 and best["text"] == f"{best['value']:,.0f}"
    body = {"game": "threes", "state": view["state"]}
    features = ok("/api/hint", body | {"agent": "expectimax:evaluator=features"})
    assert features["value_kind"] == "eval"
    assert features["unit"] == "heuristic value, not points"


@pytest.mark.parametrize(
    "spec, settings",
    [
        ("mcts", {"time_limit": 1e6}),
        ("mcts", {"time_limit": None}),
        ("mcts:time_limit=none", {}),
        ("mcts:time_limit=none,n_simulations=none", {}),
        ("mc:n_rollouts=none", {"time_limit": -1}),
        ("minimax:time_limit=1e9", {"depth": None}),
    ],
)
def test_every_search_is_capped_in_time_and_budget(spec, settings):
    agent = api.build_planner(spec, settings, np.random.default_rng(0), 3.0)
    assert agent.time_limit == 3.0
    for key in models.OPEN_ENDED:
        assert getattr(agent, key, 0) is not None
        assert getattr(agent, key, 0) <= models.CAPS[key]
    assert api.build_planner("mcts:n_simulations=10", {}, np.random.default_rng(0))


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
    ("/api/new", {}, "game: Field required"),
    ("/api/new", {"game": "nim", "options": {"size": 3}}, "no option 'size'"),
    ("/api/new", {"game": "nim", "options": {"n": 10**6}}, "n must be in 1..200"),
    ("/api/new", {"game": TTT, "options": {"size": "3"}}, "size must be int"),
    (
        "/api/new",
        {"game": "nim", "options": []},
        "options: Input should be a valid dictionary",
    ),
    (
        "/api/new",
        {"game": "2048", "seed": -1},
        "seed: Input should be greater than or equal to 0",
    ),
    (
        "/api/new",
        {"game": "nim", "side": 2},
        "side: Input should be less than or equal to 1",
    ),
    ("/api/new", {"game": "nim", "side": 1, "opponent": "ppo"}, "not available"),
    ("/api/move", {"game": "threes", "move": 0}, "state: Field required"),
    ("/api/move", move("x"), "state: Input should be a valid dictionary"),
    ("/api/move", move({"type": "Evil"}), "does not match any of the expected tags"),
    ("/api/move", move("<threes>", "2048"), "needs a Twenty48State"),
    ("/api/move", move("<cards=-1>"), "state.cards: Input should be greater"),
    ("/api/move", move("<cards=7>"), "malformed state"),
    ("/api/move", move("<board=12>"), "state.board: Input should be a valid string"),
    ("/api/move", move("<moves=true>"), "state.moves: Input should be a valid integer"),
    ("/api/move", move("<extra=1>"), "state.extra: Extra inputs are not permitted"),
    ("/api/move", move("<threes>", move=9), "illegal move 9"),
    ("/api/move", move("<threes>", move="up"), "move: Input should be a valid integer"),
    ("/api/move", move("<threes>", move=True), "move: Input should be a valid integer"),
    (
        "/api/move",
        move("<threes>", nonce=[]),
        "nonce: Input should be a valid string or",
    ),
    ("/api/move", move("<ttt=[1,1]>", TTT), "malformed state"),
    ("/api/move", move("<ttt over>", TTT, move=8), "the game is over"),
    ("/api/move", move("<ttt their turn>", TTT, move=8), "not player 0's turn"),
    ("/api/hint", hint(agent="mcts:x"), "not key=value"),
    ("/api/hint", hint(agent="alphazero"), "not available here"),
    ("/api/hint", hint(agent=3), "agent: Input should be a valid string"),
    ("/api/hint", hint(settings={"tt_bits": 28}), "tt_bits: Extra inputs"),
    ("/api/hint", hint(settings=[1]), "settings: Input should be a valid dict"),
    (
        "/api/hint",
        hint(agent="mcts:n_simulations=-1"),
        "n_simulations: Input should be greater",
    ),
    ("/api/hint", hint("<c4>", "connect4", agent="expectimax"), "cannot analyze"),
    ("/api/hint", hint("<ttt over>", TTT), "the game is over"),
    ("/api/move", move({"type": ["ThreesState"]}), "does not match any of the exp"),
    ("/api/move", move("<moves=1000000001>"), "state.moves: Input should be less"),
    ("/api/hint", hint(agent="lookahead", settings={"depth": 50}), "at most 4"),
    ("/api/hint", hint(agent="mcts:n_simulations=1000000000"), "or equal to 100000"),
    ("/api/hint", hint(agent="mcts:time_limit=soon"), "time_limit: Input should be"),
    (
        "/api/hint",
        hint(agent="expectimax", settings={"budget": 300_000_001}),
        "budget must be at most 50,000,000 nodes on this server",
    ),
    ("/api/hint", hint(agent="expectimax:budget=4e8"), "budget: Input should be"),
    ("/api/hint", hint(agent="expectimax:bounded=false"), "bounded: Extra inputs"),
    (
        "/api/new",
        {"game": "nim", "options": {"n": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}},
        "nests deeper than 16",
    ),
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


@pytest.mark.parametrize(
    "game, changes",
    [
        ("threes", {"moves": models.MAX_MOVES}),
        ("2048", {"score": 2**53 - 4, "board": "1100" + "0" * 12}),  # left adds 4
    ],
)
def test_a_move_past_the_limits_is_refused_not_handed_out(game, changes):
    view = ok("/api/new", {"game": game, "seed": 0})
    state = view["state"] | changes
    assert state_from_json(state)  # accepted, but the move would pass the limit
    move = 3 if game == "2048" else view["legal"][0]
    status, body = handle("/api/move", {"game": game, "state": state, "move": move})
    assert status == 400 and "reached the server's limits" in body["error"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workers", "0"], "--workers must be in 1..8"),
        (["--max-seconds", "1e9"], "--max-seconds must be in (0, 60]"),
        (["--port", "70000"], "--port must be in 0..65535"),
    ],
)
def test_serve_cli_refuses_bad_options(argv, message, capsys):
    from playahead import cli

    assert cli.main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err


def test_serve_without_its_extra_names_the_extra(monkeypatch, capsys):
    import playahead.tools.serve as serve_cli
    from playahead import cli

    monkeypatch.setattr(serve_cli, "SERVE_PACKAGES", ("starlette", "no_such_pkg_x"))
    assert cli.main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "no_such_pkg_x" in err and "pip install 'playahead[serve]'" in err


def test_a_two_player_lookahead_too_big_for_the_time_cap_is_refused():
    five = {"game": TTT, "options": {"size": 5}}
    view = ok("/api/new", five | {"side": None})
    spec = "lookahead:depth=4,n_sims=200"  # 25 ** 4 * 200 playouts
    status, body = handle(
        "/api/hint", {"game": TTT, "state": view["state"], "agent": spec}
    )
    assert status == 422 and "at most 5,000,000" in body["error"]
    status, body = handle("/api/new", five | {"side": 1, "opponent": spec})
    assert status == 422 and "lower depth or n_sims" in body["error"]
    assert ok(
        "/api/hint", {"game": TTT, "state": view["state"], "agent": "lookahead:depth=1"}
    )


def test_expectimax_is_bounded_by_its_node_budget_not_by_a_clock():
    def built(spec, settings):
        return api.build_planner(spec, settings, np.random.default_rng(0), 3.0)

    for spec in ("expectimax", "expectimax:depth=6"):
        agent = built(spec, {})
        assert agent.time_limit is None and agent.bounded
        # the default budget, lowered to what 3 s allow: 5 M nodes a second
        assert agent.budget == models.node_cap(3.0) == 15_000_000 < DEFAULT_BUDGET
    assert built("expectimax", {"budget": None}).budget == 15_000_000
    assert built("expectimax", {"budget": 50_000}).budget == 50_000
    # a clock only when the request asks for one, capped as every other
    assert built("expectimax", {"time_limit": 2.0}).time_limit == 2.0
    assert built("expectimax:time_limit=none", {}).time_limit == 3.0
    assert built("expectimax", {"time_limit": 1e6}).time_limit == 3.0
    assert built("mcts", {}).time_limit == 3.0  # no node budget: the clock as before


def test_minimax_is_bounded_by_a_node_count_capped_for_its_node_cost():
    from playahead.tools.games import DEFAULT_NODES

    def built(spec, settings, seconds=3.0):
        return api.build_planner(spec, settings, np.random.default_rng(0), seconds)

    agent = built("minimax", {})
    assert agent.time_limit is None and agent.budget == DEFAULT_NODES
    assert built("minimax", {"budget": None}).budget == models.node_cap(3.0)
    cap = models.PLANNER_CAPS["minimax"]["budget"]
    assert models.node_cap(10.0) > cap == built("minimax:budget=none", {}, 10.0).budget
    with pytest.raises(api.ApiError, match="minimax budget must be at most"):
        built("minimax", {"budget": cap + 1}, 10.0)
    assert built("minimax", {"time_limit": 1.0}).time_limit == 1.0


def _deep_hint(budget):
    view = ok("/api/new", {"game": "2048", "seed": 4})
    settings = {"prob_cutoff": 1e-12, "budget": budget, "seed": 0}
    body = {"game": "2048", "state": view["state"], "agent": "expectimax:depth=6"}
    return view, ok("/api/hint", body | {"settings": settings})


def test_a_deep_expectimax_hint_stops_at_its_node_budget(monkeypatch):
    view, got = _deep_hint(100_000)
    stats = got["stats"]
    assert stats["budget_cut"] and 1 <= stats["depth"] < 6
    assert stats["nodes"] <= 100_000 + 5_000  # see SLACK in the expectimax tests
    assert got["action"] in view["legal"] and got["ranked"]
    with monkeypatch.context() as patch:  # the same answer whatever the clocks say
        fast_clocks(patch)
        _, fast = _deep_hint(100_000)
    assert fast["values"] == got["values"]
    assert fast["stats"]["nodes"] == stats["nodes"]


@pytest.mark.parametrize(
    ("max_seconds", "cap"),
    [(0.5, 2_500_000), (3.0, 15_000_000), (10.0, 50_000_000), (60.0, 300_000_000)],
)
def test_the_node_cap_fits_the_servers_max_seconds(max_seconds, cap):
    assert models.node_cap(max_seconds) == cap <= models.CAPS["budget"]
    rng = np.random.default_rng(0)
    # a request at the cap is accepted (built, not searched), one above it refused
    agent = api.build_planner("expectimax", {"budget": cap}, rng, max_seconds)
    assert agent.budget == cap and agent.bounded
    spec = f"expectimax:depth=6,budget={cap}"
    assert api.build_planner(spec, {}, rng, max_seconds).budget == cap
    state = ok("/api/new", {"game": "2048", "seed": 0})["state"]
    for body in (
        {"agent": "expectimax", "settings": {"budget": cap + 1}},
        {"agent": f"expectimax:budget={cap + 1}"},
    ):
        payload = {"game": "2048", "state": state} | body
        status, got = handle("/api/hint", payload, max_seconds)
        assert status == 422
        assert f"budget must be at most {cap:,} nodes on this server" in got["error"]
        assert f"got {cap + 1:,}" in got["error"]
    # the default request still plans within it: the planner's default or the cap
    default = api.build_planner("expectimax", {}, rng, max_seconds).budget
    assert default == (cap if cap < DEFAULT_BUDGET else AUTO_BUDGET)
    assert api.api_games(max_seconds)["caps"]["budget"] == cap


def test_the_default_hint_is_answered_at_the_default_max_seconds():
    assert models.node_cap(api.MAX_SECONDS) >= DEFAULT_BUDGET
    view = ok("/api/new", {"game": "2048", "seed": 3})
    got = ok("/api/hint", {"game": "2048", "state": view["state"]})
    assert got["action"] in view["legal"] and got["ranked"]


@pytest.mark.parametrize("max_seconds", [0.5, 3.0, 10.0])
def test_a_short_server_keeps_the_default_budgets_where_they_fit(max_seconds):
    """The default hints search with the default's own node budget (LEARNED_AUTO's
    4,000,000 on Threes, LEARNED_AUTO_2048's 500,000 on 2048) whenever the server's
    cap allows it, not with the cap itself (a hand-made search's 30,000,000 is what
    a short server lowers)."""
    from playahead.planners.expectimax import LEARNED_AUTO, LEARNED_AUTO_2048

    rng = np.random.default_rng(0)
    cap = models.node_cap(max_seconds)
    threes = api.build_planner("expectimax", {}, rng, max_seconds, "Threes-v0")
    fits = LEARNED_AUTO["budget"] <= cap  # then the agent's own default plays
    assert threes.budget == (AUTO_BUDGET if fits else cap)
    other = api.build_planner("expectimax", {}, rng, max_seconds, "2048-v0")
    fits = LEARNED_AUTO_2048["budget"] <= cap
    assert other.budget == (AUTO_BUDGET if fits else cap)
    hand = api.build_planner(
        "expectimax:evaluator=monotonic", {}, rng, max_seconds, "2048-v0"
    )
    assert hand.budget == (cap if cap < DEFAULT_BUDGET else AUTO_BUDGET)
    features = api.build_planner(
        "expectimax:evaluator=features", {}, rng, max_seconds, "Threes-v0"
    )
    assert features.budget == (cap if cap < DEFAULT_BUDGET else AUTO_BUDGET)
