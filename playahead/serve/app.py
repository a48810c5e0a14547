"""The stateless JSON API and static page behind ``playahead serve``.

The client holds the game: every response carries ``state``, the env's
``clone_state()`` as JSON (:func:`state_to_json`), and every request that continues a
game sends it back; :func:`state_from_json` checks it field by field and the env's
``restore_state`` checks that it is a position of the game. The server keeps nothing
between requests, so no client can change another client's game.

Endpoints (``POST`` with a JSON object body and ``Content-Type: application/json``;
errors are ``4xx`` with ``{"error": "..."}``):

* ``GET /api/games``: the games, their rule options, the planners and their settings.
* ``POST /api/new``: ``{"game", "options": {rule: value}, "seed"?, "side"?,
  "opponent"?}`` -> a view of the first position (in two-player games the opponent
  moves first when ``side`` is 1; ``side: null`` is hot-seat play with no opponent).
* ``POST /api/move``: ``{"game", "state", "move", "opponent"?, "nonce"?}`` -> the new
  view, ``reward`` (the move's reward for the mover) and ``moves`` (the move and the
  opponent's reply, each ``{"player", "action", "label"}``).
* ``POST /api/hint``: ``{"game", "state", "agent"?, "settings"?}`` -> ``ranked``
  (legal moves best first, ``{"action", "label", "value"}``), ``action``,
  ``value_kind``, ``values``, ``visits``, ``stats``. ``agent`` is a planner spec such
  as ``"mcts:n_simulations=400"``; ``settings`` (e.g. ``{"depth": 3}``) override its
  options.

A view is ``{"game", "state", "done", "legal", "labels", "kind", "board", "info",
"text"}``: ``board`` is ``env.board`` as nested lists (faces for Threes and 2048),
``kind`` says how to draw it (``"tiles"``, ``"grid"``, ``"columns"``, ``"pile"``).

Randomness: chance after a move (the new tile or card, the opponent's choice) comes
from a generator made for that request: ``np.random.default_rng()`` (fresh OS entropy),
or, when the request has a ``nonce``, ``np.random.default_rng`` of a SHA-256 of the
game, state, move and nonce, so a client can replay a move exactly. Planners
(hints, the opponent) get a seed from the same generator unless a ``seed`` setting is
given.

Limits: only the planners in :data:`PLANNERS` (no agent that loads files), only the
settings in :data:`SETTINGS`, every search capped at :data:`MAX_SECONDS` seconds
(``time_limit``), rule options within :data:`RULE_LIMITS`, bodies up to
:data:`MAX_BODY` bytes. Requiring ``application/json`` makes browsers preflight
cross-site requests, which the server does not allow.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import importlib.resources
import json
import math
import sys
import threading
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from playahead.agents import available_agents, make_agent, parse_spec
from playahead.tools.games import (
    GAMES,
    Game,
    action_label,
    default_agent,
    get_game,
    make_env,
    strip_ansi,
)

#: Agents the API builds (search planners only: no agent reads files).
PLANNERS = ("random", "greedy", "mc", "lookahead", "mcts", "expectimax", "minimax")
#: Planner options a request may set.
SETTINGS = (
    "depth",
    "max_depth",
    "prob_cutoff",
    "evaluator",
    "n_simulations",
    "c",
    "rollout",
    "rollout_depth",
    "n_rollouts",
    "n_sims",
    "scoring",
    "time_limit",
    "seed",
)
#: Longest search of one request, in seconds (the planners' ``time_limit``).
MAX_SECONDS = 10.0
#: Largest request body, in bytes.
MAX_BODY = 64 * 1024
#: Integer rule options: (smallest, largest) accepted.
RULE_LIMITS = {"size": (2, 5), "n": (1, 200), "k": (1, 20)}
_U64_HEX = 16
_BOARD_GAMES = ("TicTacToe", "ConnectFour", "Nim", "Chips")
_BOARD_KINDS = {
    "tictactoe": "grid",
    "connect4": "columns",
    "nim": "pile",
    "chips": "pile",
}


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message for the client."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------- states
def _int(name: str, low: int, high: int):
    def decode(value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ApiError(f"state.{name} must be an integer, got {value!r}")
        if not low <= value <= high:
            raise ApiError(f"state.{name} must be in {low}..{high}, got {value}")
        return value

    return decode


def _hex_board(value):
    if (
        not isinstance(value, str)
        or len(value) != _U64_HEX
        or any(ch not in "0123456789abcdef" for ch in value)
    ):
        raise ApiError(
            "state.board must be 16 lower-case hex digits (one per cell), "
            f"got {value!r}"
        )
    return int(value[::-1], 16)


def _choice(name: str, choices: tuple):
    def decode(value):
        if value not in choices or isinstance(value, bool) != isinstance(
            choices[0], bool
        ):
            raise ApiError(
                f"state.{name} must be one of {list(choices)}, got {value!r}"
            )
        return value

    return decode


def _rules_field(value):
    if not isinstance(value, dict) or len(value) > 8:
        raise ApiError(f"state.rules must be an object of rule options, got {value!r}")
    for key, item in value.items():
        if not isinstance(item, bool | int | str) or (
            isinstance(item, str) and len(item) > 40
        ):
            raise ApiError(f"state.rules.{key} must be a number, bool or short string")
    return tuple(sorted(value.items()))


def _position_field(value):
    if (
        not isinstance(value, list)
        or not 0 < len(value) <= 64
        or any(isinstance(x, bool) or not isinstance(x, int) for x in value)
    ):
        raise ApiError(f"state.position must be a list of integers, got {value!r}")
    return tuple(value)


def _player_field(value):
    if value is not None and (isinstance(value, bool) or value not in (0, 1)):
        raise ApiError(f"state.agent_player must be 0, 1 or null, got {value!r}")
    return value


def _state_classes() -> dict[str, tuple[type, dict]]:
    """State class name -> (class, field -> (encode, decode))."""
    from playahead.envs.board_games import BoardGameState
    from playahead.envs.tiles import ThreesState, Twenty48State

    board = (lambda b: f"{b:016x}"[::-1], _hex_board)
    plain = lambda x: x  # noqa: E731
    return {
        "Twenty48State": (
            Twenty48State,
            {
                "board": board,
                "score": (plain, _int("score", 0, 2**53)),
                "moves": (plain, _int("moves", 0, 10**9)),
            },
        ),
        "ThreesState": (
            ThreesState,
            {
                "board": board,
                "cards": (plain, _int("cards", 0, 2**17 - 1)),
                "moves": (plain, _int("moves", 0, 10**9)),
                "bonus_preview": (plain, _choice("bonus_preview", ("window", "plus"))),
                "merge_6144": (plain, _choice("merge_6144", (True, False))),
            },
        ),
        "BoardGameState": (
            BoardGameState,
            {
                "game": (plain, _choice("game", _BOARD_GAMES)),
                "rules": (dict, _rules_field),
                "position": (list, _position_field),
                "agent_player": (plain, _player_field),
            },
        ),
    }


def state_to_json(state) -> dict:
    """``{"type": class name, field: value...}`` of a ``clone_state()`` object.

    Packed tile boards become 16 hex digits, one rank per cell row by row from the top
    left (``"3001..."``: a 3 in the corner), so no client loses precision on 64-bit
    integers.
    """
    name = type(state).__name__
    classes = _state_classes()
    if name not in classes:
        raise TypeError(f"no JSON form for {name}")
    fields = classes[name][1]
    data = dataclasses.asdict(state)
    return {"type": name} | {key: fields[key][0](value) for key, value in data.items()}


def state_from_json(obj) -> Any:
    """The state object of :func:`state_to_json`'s output, every field checked.

    Raises:
        ApiError: not an object, an unknown type, missing or extra fields, or a field
            of the wrong type or range. (Whether it is a position of the game is
            checked by the env's ``restore_state``.)
    """
    if not isinstance(obj, dict):
        raise ApiError(f"state must be an object, got {type(obj).__name__}")
    classes = _state_classes()
    name = obj.get("type")
    if name not in classes:
        raise ApiError(f"state.type must be one of {sorted(classes)}, got {name!r}")
    cls, fields = classes[name]
    keys = set(obj) - {"type"}
    if keys != set(fields):
        missing, extra = sorted(set(fields) - keys), sorted(keys - set(fields))
        raise ApiError(f"{name} fields: missing {missing}, unexpected {extra}")
    return cls(**{key: fields[key][1](obj[key]) for key in fields})


# ---------------------------------------------------------------------------- inputs
def _game(payload: dict) -> Game:
    try:
        return get_game(payload.get("game"))
    except ValueError as err:
        raise ApiError(str(err)) from None


def _rules(game: Game, options) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise ApiError(f"options must be an object, got {options!r}")
    for key, value in options.items():
        if key not in game.rules:
            accepted = ", ".join(game.rules) or "none"
            raise ApiError(f"{game.name} has no option {key!r}; accepted: {accepted}")
        number = isinstance(value, int) and not isinstance(value, bool)
        if key in RULE_LIMITS and number:
            low, high = RULE_LIMITS[key]
            if not low <= value <= high:
                raise ApiError(f"option {key} must be in {low}..{high}, got {value}")
    return dict(options)


def _env(game: Game, rules: dict):
    try:
        return make_env(game, **rules)
    except ValueError as err:
        raise ApiError(str(err)) from None


def _restore(game: Game, payload: dict):
    """A fresh env of ``game`` at the position ``payload["state"]``."""
    if "state" not in payload:
        raise ApiError("missing 'state' (the 'state' of the last response)")
    state = state_from_json(payload["state"])
    if game.num_players == 1:
        expected = "ThreesState" if game.name == "threes" else "Twenty48State"
        rules = {}
        if game.name == "threes" and type(state).__name__ == "ThreesState":
            rules = {
                "bonus_preview": state.bonus_preview,
                "merge_6144": state.merge_6144,
            }
    else:
        expected = "BoardGameState"
        rules = dict(state.rules) if type(state).__name__ == expected else {}
    if type(state).__name__ != expected:
        raise ApiError(
            f"{game.name} needs a {expected} state, got {type(state).__name__}"
        )
    env = _env(game, _rules(game, rules))
    try:
        env.restore_state(state)
    except ValueError as err:
        raise ApiError(f"malformed state: {err}") from None
    return env


def _request_rng(payload: dict, *parts) -> np.random.Generator:
    nonce = payload.get("nonce")
    if nonce is None:
        return np.random.default_rng()
    ok = isinstance(nonce, int | str) and not isinstance(nonce, bool)
    if not ok or len(str(nonce)) > 200:
        raise ApiError("nonce must be a string (up to 200 characters) or an integer")
    text = json.dumps([*parts, nonce], sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def build_planner(spec, settings, rng: np.random.Generator):
    """A planner from a request's ``spec`` and ``settings``, capped at MAX_SECONDS.

    Raises:
        ApiError: not a planner of :data:`PLANNERS`, a setting not in :data:`SETTINGS`,
            or an option the planner rejects.
    """
    if not isinstance(spec, str):
        raise ApiError(f"agent must be a spec string such as 'mcts', got {spec!r}")
    if not isinstance(settings, dict):
        raise ApiError(f"settings must be an object, got {settings!r}")
    try:
        name, options = parse_spec(spec)
    except ValueError as err:
        raise ApiError(str(err)) from None
    known = [p for p in PLANNERS if p in available_agents()]
    if name not in known:
        raise ApiError(f"agent {name!r} is not available here; choose from {known}")
    options.update(settings)
    for key, value in options.items():
        if key not in SETTINGS:
            raise ApiError(f"unknown setting {key!r}; accepted: {', '.join(SETTINGS)}")
        if value is not None and not isinstance(value, bool | int | float | str):
            raise ApiError(f"setting {key} must be a number, bool, string or null")
    limit = options.get("time_limit")
    if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 0:
        options["time_limit"] = min(float(limit), MAX_SECONDS)
    else:
        options.setdefault("time_limit", MAX_SECONDS)
    if options.get("seed") is None:
        options["seed"] = int(rng.integers(2**63 - 1))
    try:
        try:
            return make_agent(name, **options)
        except ValueError as err:
            if "'time_limit'" not in str(err):
                raise
            options.pop("time_limit")
            return make_agent(name, **options)
    except ValueError as err:
        raise ApiError(f"agent {spec!r}: {err}") from None


# ---------------------------------------------------------------------------- views
def _plain(value):
    """JSON-safe copy: numpy scalars to Python, NaN to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def view(game: Game, env) -> dict:
    """What a client needs to draw and continue the game (see the module docstring)."""
    base = env.unwrapped
    mask = base.action_masks()
    info = base._info()  # the env's info dict without stepping it
    info.pop("action_mask", None)
    if game.num_players == 2:
        info["winner"] = base.winner
        info["agent_player"] = base.clone_state().agent_player
    return _plain(
        {
            "game": game.name,
            "state": state_to_json(base.clone_state()),
            "done": not mask.any(),
            "legal": np.flatnonzero(mask).tolist(),
            "labels": [action_label(base, a) for a in range(mask.size)],
            "kind": _BOARD_KINDS.get(game.name, "tiles"),
            "board": base.board.tolist(),
            "info": info,
            "text": strip_ansi(base.render()),
        }
    )


def _opponent_replies(env, payload: dict, rng, moves: list) -> None:
    side = env.clone_state().agent_player
    spec = payload.get("opponent", "random")
    if side is None or spec is None:
        return
    opponent = None
    while env.action_masks().any() and env.current_player != side:
        if opponent is None:
            opponent = build_planner(spec, {}, rng)
        player = env.current_player
        action = int(opponent.act(env))
        env.step(action)
        label = action_label(env, action)
        moves.append({"player": player, "action": action, "label": label})


# ---------------------------------------------------------------------------- routes
def api_games(payload: dict | None = None) -> dict:
    """The games with their rule options and default agents, and the planners."""
    return {
        "games": [
            {
                "name": g.name,
                "env_id": g.env_id,
                "num_players": g.num_players,
                "options": {k: t.__name__ for k, t in g.rules.items()},
                "default_agent": default_agent(g),
            }
            for g in GAMES.values()
        ],
        "planners": [p for p in PLANNERS if p in available_agents()],
        "settings": list(SETTINGS),
        "max_seconds": MAX_SECONDS,
    }


def api_new(payload: dict) -> dict:
    """A new game (see the module docstring)."""
    game = _game(payload)
    env = _env(game, _rules(game, payload.get("options", {})))
    seed = payload.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
    ):
        raise ApiError(f"seed must be an integer in 0..2**63-1 or null, got {seed!r}")
    env.reset(seed=seed)
    moves: list = []
    if game.num_players == 2:
        side = payload.get("side", 0)
        if side is not None and (isinstance(side, bool) or side not in (0, 1)):
            raise ApiError(f"side must be 0, 1 or null (hot seat), got {side!r}")
        env.restore_state(dataclasses.replace(env.clone_state(), agent_player=side))
        rng = np.random.default_rng(None if seed is None else [seed, 1])
        _opponent_replies(env, payload, rng, moves)
    return view(game, env) | {"moves": moves}


def api_move(payload: dict) -> dict:
    """One move by the client's player, then the opponent's replies."""
    game = _game(payload)
    env = _restore(game, payload)
    move = payload.get("move")
    mask = env.action_masks()
    if not mask.any():
        raise ApiError("the game is over; start a new one with /api/new")
    if (
        isinstance(move, bool)
        or not isinstance(move, int)
        or not 0 <= move < mask.size
        or not mask[move]
    ):
        legal = np.flatnonzero(mask).tolist()
        raise ApiError(f"illegal move {move!r}; legal moves: {legal}")
    side = env.clone_state().agent_player if game.num_players == 2 else None
    if side is not None and env.current_player != side:
        raise ApiError(f"it is not player {side}'s turn")
    rng = _request_rng(payload, game.name, payload["state"], move)
    env.np_random = rng
    player = env.current_player
    _, reward, *_ = env.step(move)
    moves = [{"player": player, "action": move, "label": action_label(env, move)}]
    if game.num_players == 2:
        _opponent_replies(env, payload, rng, moves)
    return view(game, env) | {"reward": reward, "moves": moves}


def api_hint(payload: dict) -> dict:
    """Every legal move's value from a planner."""
    game = _game(payload)
    env = _restore(game, payload)
    if not env.action_masks().any():
        raise ApiError("the game is over: no hint")
    spec = payload.get("agent") or default_agent(game)
    settings = payload.get("settings") or {}
    planner = build_planner(spec, settings, np.random.default_rng())
    try:
        analysis = planner.analyze(env)
    except ValueError as err:
        raise ApiError(f"agent {spec!r} cannot analyze {game.name}: {err}") from None
    stats = {
        k: v
        for k, v in analysis.stats.items()
        if isinstance(v, int | float | str | np.generic)
    }
    return _plain(
        {
            "agent": spec,
            "action": analysis.action,
            "label": action_label(env, analysis.action),
            "value_kind": analysis.value_kind,
            "ranked": [
                {"action": a, "label": action_label(env, a), "value": v}
                for a, v in analysis.ranked()
            ],
            "values": analysis.values,
            "visits": analysis.visits,
            "stats": stats,
        }
    )


_STATIC_DIR = importlib.resources.files("playahead.serve") / "static"
ROUTES = {"/api/new": api_new, "/api/move": api_move, "/api/hint": api_hint}
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}


def handle(path: str, payload) -> tuple[int, dict]:
    """``(status, body)`` of a POST to ``path`` with a decoded JSON ``payload``."""
    if path not in ROUTES:
        return 404, {"error": f"no endpoint {path}; POST to {', '.join(ROUTES)}"}
    if not isinstance(payload, dict):
        return 400, {"error": "the request body must be a JSON object"}
    try:
        return 200, ROUTES[path](payload)
    except ApiError as err:
        return err.status, {"error": str(err)}
    except ValueError as err:  # a rule or option the env or planner rejected
        return 400, {"error": str(err)}


# ---------------------------------------------------------------------------- HTTP
class Handler(http.server.BaseHTTPRequestHandler):
    """Static files and the JSON API; every error is a JSON ``{"error": ...}``."""

    server_version = "playahead"

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: dict) -> None:
        body = json.dumps(obj, allow_nan=False).encode()
        self._send(status, body, "application/json")

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if path in STATIC:
            name, content_type = STATIC[path]
            body = (_STATIC_DIR / name).read_bytes()
            self._send(200, body, content_type)
        elif path == "/api/games":
            self._json(200, api_games())
        elif path in ROUTES:
            self._json(405, {"error": f"{path} takes POST with a JSON body"})
        else:
            self._json(404, {"error": f"not found: {path}"})

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._json(411, {"error": "Content-Length is required"})
            return
        if length > MAX_BODY or length < 0:
            if 0 < length <= 16 * MAX_BODY:
                self.rfile.read(length)  # let the client finish sending
            self.close_connection = True
            self._json(413, {"error": f"request body over {MAX_BODY} bytes"})
            return
        raw = self.rfile.read(length)
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            error = "send the body with Content-Type: application/json"
            self._json(415, {"error": error})
            return
        try:
            payload = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            self._json(400, {"error": f"the body is not valid JSON: {err}"})
            return
        try:
            status, body = handle(path, payload)
        except Exception as err:  # never let one request take the server down
            self.log_error("internal error on %s: %r", path, err)
            error = f"internal error: {type(err).__name__}: {err}"
            status, body = 500, {"error": error}
        self._json(status, body)


def make_server(host: str = "127.0.0.1", port: int = 8000, verbose: bool = False):
    """A ``ThreadingHTTPServer`` for the page and API (call ``serve_forever``)."""
    server = http.server.ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.verbose = verbose
    return server


def start_in_thread(host: str = "127.0.0.1", port: int = 0):
    """Serve from a daemon thread; returns ``(server, url)``. Stop it with
    ``server.shutdown(); server.server_close()``."""
    server = make_server(host, port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    bound_host, bound_port = server.server_address[:2]
    return server, f"http://{bound_host}:{bound_port}/"


def serve(host: str = "127.0.0.1", port: int = 8000, verbose: bool = True) -> None:
    """Serve until interrupted."""
    server = make_server(host, port, verbose)
    bound_port = server.server_address[1]
    print(f"playahead serve: http://{host}:{bound_port}/  (Ctrl-C stops)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"playahead serve: listening on {host}: anyone who can reach it can use "
            "the CPU for searches",
            file=sys.stderr,
        )
    try:
        server.serve_forever()
    finally:
        server.server_close()
