"""The stateless JSON API of ``playahead serve`` (the routes, without HTTP).

The client holds the game: every response carries ``state``, the env's
``clone_state()`` as JSON (:func:`.states.state_to_json`), and every request that
continues a game sends it back; :func:`.states.state_from_json` checks it field by
field and the env's ``restore_state`` checks that it is a position of the game. The
server keeps nothing between requests, so no client can change another client's game.

Endpoints (``POST`` with a JSON object body and ``Content-Type: application/json``;
errors are ``{"error": "..."}``: ``400`` a request the game or planner refuses, ``422``
a field of the wrong type or range (:mod:`playahead.tools.serve.models`)):

* ``GET /api/games``: the games, their rule options, the planners and their settings.
* ``GET /api/agents``: each planner with the options a request's ``settings`` may set
  (name, type, default, cap, help), read from the agent registry
  (:func:`api_agents`).
* ``POST /api/new``: ``{"game", "options": {rule: value}, "seed"?, "side"?,
  "opponent"?}`` -> a view of the first position (in two-player games the opponent
  moves first when ``side`` is 1; ``side: null`` is hot-seat play with no opponent).
* ``POST /api/move``: ``{"game", "state", "move", "opponent"?, "nonce"?}`` -> the new
  view, ``reward`` (the move's reward for the mover) and ``moves`` (the move and the
  opponent's reply, each ``{"player", "action", "label"}``).
* ``POST /api/open?name=FILE``: the bytes of a game file as they are on disk
  (``Content-Type: application/octet-stream``; at most :data:`MAX_FILE_BYTES`) ->
  as ``/api/replay``. The file is checked by :mod:`playahead.tools.gamefile` as
  ``playahead review FILE`` checks it, with the same one-line messages (a truncated,
  binary or empty file), and its integers are read exactly (a 63-bit ``seed``).
* ``POST /api/hint``: ``{"game", "state", "agent"?, "settings"?}`` -> ``ranked``
  (legal moves best first, ``{"action", "label", "value", "text"}``, ``text`` the
  value as the page shows it, e.g. ``"412,300"``), ``action``, ``value_kind``,
  ``unit`` (what the values are: ``"expected final score"`` for ``value_kind
  "score"``, else e.g. ``"heuristic value, not points"``; the default search's values
  are calibrated to final scores as ``playahead hint`` shows them,
  :mod:`playahead.tools.calibration`), ``values``, ``visits``, ``exact`` (every
  value solved: the game's value from that move), ``exact_moves`` (the moves whose
  value is solved), ``note`` (one line the page shows: ``"exact: solved by the
  Connect Four solver (1,234 nodes)"`` or ``"estimate: ..."`` for a depth-limited
  search, ``""`` for values that are neither; :func:`playahead.tools.hint.exactness`)
  and ``stats``. ``agent`` is a planner spec such as ``"mcts:n_simulations=400"``
  (default: :func:`page_default`; Connect Four's is the exact ``solver`` within
  :data:`models.PAGE_BUDGETS` nodes, minimax's estimate where it does not solve the
  position within them); ``settings`` (e.g. ``{"depth": 3}``) override its options.

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
settings of :class:`models.Settings`, each budget within :data:`models.CAPS` (an
expectimax search stops at its ``budget`` of nodes, at most :func:`models.node_cap` of
``max_seconds``, a fixed ``depth`` too, and reads a clock only if the request sets a
``time_limit``), every other search's ``time_limit``
at most ``max_seconds`` (:data:`MAX_SECONDS` by default), rule options within
:data:`RULE_LIMITS`. This module does no HTTP:
:mod:`playahead.tools.serve.app` serves it, and runs each search in a worker process
(:mod:`playahead.tools.serve.pool`) under a hard deadline.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from typing import Any

import numpy as np
from pydantic import ValidationError

from playahead.agents import (
    REQUIRED,
    agent_options,
    available_agents,
    make_agent,
    parse_spec,
    takes_option,
)
from playahead.tools import gamefile
from playahead.tools.games import (
    GAMES,
    Game,
    action_label,
    default_agent,
    format_value,
    get_game,
    make_env,
    strip_ansi,
    value_unit,
)
from playahead.tools.serve import models
from playahead.tools.serve.models import SETTINGS
from playahead.tools.serve.states import ApiError, decode_state, plain, state_to_json

#: Agents the API builds (search planners only: no agent reads files).
PLANNERS = (
    "random",
    "greedy",
    "mc",
    "lookahead",
    "mcts",
    "expectimax",
    "minimax",
    "solver",
)
#: The page's planner for a game where it differs from the tools' default
#: (:func:`~playahead.tools.games.default_agent`, which ``play`` uses):
#: Connect Four's hints and reviews come from the exact solver, within the page's node
#: budget (:data:`models.PAGE_BUDGETS`), and from its minimax fallback, labelled an
#: estimate, where it does not solve the position within it.
PAGE_DEFAULTS = {"connect4": "solver"}
#: Longest search of one request, in seconds (the planners' ``time_limit``).
MAX_SECONDS = 10.0
#: Most playouts a two-player ``lookahead`` may plan (legal moves ** depth * n_sims):
#: its search does not look at the clock (5 M playouts: about 5 s of tic-tac-toe 5x5).
MAX_PLAYOUTS = 5_000_000
#: The page's choices of opponent in two-player games: ``(spec, label)``.
OPPONENTS = (
    ("random", "random"),
    ("greedy", "greedy"),
    ("mcts:n_simulations=400", "mcts (400 simulations)"),
    ("mcts:n_simulations=3000", "mcts (3000 simulations)"),
    ("minimax:time_limit=1", "minimax (1 s)"),
)
#: The largest game file the page opens (``/api/open``, ``/api/replay``), in bytes.
MAX_FILE_BYTES = 2 * 2**20
#: Planner options the page does not offer (``seed``: each request gets its own;
#: ``time_limit``: the server's ``max_seconds``).
HIDDEN_OPTIONS = ("seed", "time_limit")
#: Integer rule options: (smallest, largest) accepted.
RULE_LIMITS = {"size": (2, 5), "n": (1, 200), "k": (1, 20)}
_BOARD_KINDS = {
    "tictactoe": "grid",
    "connect4": "columns",
    "nim": "pile",
    "chips": "pile",
}


# ---------------------------------------------------------------------------- inputs
def _game(name: str) -> Game:
    try:
        return get_game(name)
    except ValueError as err:
        raise ApiError(str(err)) from None


def _rules(game: Game, options: dict) -> dict[str, Any]:
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


def _restore(game: Game, model):
    """A fresh env of ``game`` at the position of ``model`` (a :data:`models.State`)."""
    state = decode_state(model)
    name = type(state).__name__
    if game.num_players == 1:
        expected = "ThreesState" if game.name == "threes" else "Twenty48State"
        rules = {}
        if name == "ThreesState" == expected:
            rules = {"bonus_preview": state.bonus_preview}
            rules["merge_6144"] = state.merge_6144
    else:
        expected = "BoardGameState"
        rules = dict(state.rules) if name == expected else {}
    if name != expected:
        raise ApiError(f"{game.name} needs a {expected} state, got {name}")
    env = _env(game, _rules(game, rules))
    try:
        env.restore_state(state)
    except (ValueError, TypeError, OverflowError) as err:
        raise ApiError(f"malformed state: {err}") from None
    return env


def _request_rng(nonce, *parts) -> np.random.Generator:
    if nonce is None:
        return np.random.default_rng()
    text = json.dumps([*parts, nonce], sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def planner_name(spec: str) -> str:
    """The planner a spec names, if it is one the API builds.

    Raises:
        ApiError: a malformed spec or an agent not in :data:`PLANNERS`.
    """
    try:
        name, _ = parse_spec(spec)
    except ValueError as err:
        raise ApiError(str(err)) from None
    known = [p for p in PLANNERS if p in available_agents()]
    if name not in known:
        raise ApiError(f"agent {name!r} is not available here; choose from {known}")
    return name


def build_planner(
    spec: str,
    settings: dict,
    rng: np.random.Generator,
    max_seconds=MAX_SECONDS,
    env_id: str | None = None,
):
    """A planner from a request's ``spec`` and ``settings``, every budget capped.

    The spec's own options (``"mcts:time_limit=none"``) are checked like ``settings``
    (:func:`models.capped_settings`): ``time_limit`` at most ``max_seconds``; a
    planner with a node budget (``expectimax``) stops at it, with no ``time_limit``
    unless the request sets one; its default budget is the one it has on ``env_id``.

    Raises:
        ApiError: not a planner of :data:`PLANNERS`, a setting not in
            :data:`SETTINGS` or over its cap (422), or an option the planner rejects.
    """
    name = planner_name(spec)
    options = parse_spec(spec)[1] | dict(settings)
    try:
        options = models.capped_settings(name, options, max_seconds, env_id)
    except ValidationError as err:
        problem = models.explain(err, "settings")
        raise ApiError(f"agent {spec!r}: {problem}", 422) from None
    except ValueError as err:
        raise ApiError(f"agent {spec!r}: {err}", 422) from None
    if options.get("seed") is None:
        options["seed"] = int(rng.integers(2**63 - 1))
    if not takes_option(name, "time_limit"):
        options.pop("time_limit", None)
    try:
        return make_agent(name, **options)
    except ValueError as err:
        raise ApiError(f"agent {spec!r}: {err}") from None


def check_work(planner, env) -> None:
    """Refuse a two-player ``lookahead`` whose tree is too big for the time cap.

    Raises:
        ApiError: (422) legal moves ** depth * playouts per leaf over
            :data:`MAX_PLAYOUTS`.
    """
    if getattr(planner, "name", "") != "lookahead" or env.unwrapped.num_players != 2:
        return
    legal = int(env.action_masks().sum())
    playouts = legal**planner.depth * (planner.n_sims or 20)
    if playouts > MAX_PLAYOUTS:
        raise ApiError(
            f"lookahead with depth {planner.depth} and n_sims {planner.n_sims} plans "
            f"{playouts:,} playouts from {legal} legal moves; at most {MAX_PLAYOUTS:,}:"
            " lower depth or n_sims",
            422,
        )


# ---------------------------------------------------------------------------- views
def view(game: Game, env) -> dict:
    """What a client needs to draw and continue the game (see the module docstring)."""
    base = env.unwrapped
    mask = base.action_masks()
    info = base._info()  # the env's info dict without stepping it
    info.pop("action_mask", None)
    if game.num_players == 2:
        info["winner"] = base.winner
        info["agent_player"] = base.clone_state().agent_player
    return plain(
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


def _opponent_replies(env, spec, rng, moves: list, max_seconds: float) -> None:
    side = env.clone_state().agent_player
    if side is None or spec is None:
        return
    opponent = None
    while env.action_masks().any() and env.current_player != side:
        if opponent is None:
            opponent = build_planner(spec, {}, rng, max_seconds)
        check_work(opponent, env)
        player = env.current_player
        action = int(opponent.act(env))
        env.step(action)
        label = action_label(env, action)
        moves.append({"player": player, "action": action, "label": label})


# ---------------------------------------------------------------------------- routes
def api_games(max_seconds: float = MAX_SECONDS) -> dict:
    """The games with their rule options and default agents, the planners and caps
    (``budget``: :func:`models.node_cap` of ``max_seconds``), the opponents the page
    offers (:data:`OPPONENTS`), and the largest game file the page opens and
    ``playahead review`` reads."""
    caps = models.CAPS | {"budget": models.node_cap(max_seconds)}
    return {
        "games": [
            {
                "name": g.name,
                "env_id": g.env_id,
                "num_players": g.num_players,
                "options": {k: t.__name__ for k, t in g.rules.items()},
                "default_agent": page_default(g),
            }
            for g in GAMES.values()
        ],
        "planners": [p for p in PLANNERS if p in available_agents()],
        "opponents": [
            [spec, label]
            for spec, label in OPPONENTS
            if parse_spec(spec)[0] in available_agents()
        ],
        "settings": list(SETTINGS),
        "caps": caps | {"planners": models.PLANNER_CAPS},
        "max_playouts": MAX_PLAYOUTS,
        "max_seconds": max_seconds,
        "max_file_bytes": MAX_FILE_BYTES,
        "cli_max_file_bytes": gamefile.MAX_BYTES,
    }


def _arg_docs(doc: str) -> dict[str, str]:
    """``{name: text}`` of a Google-style docstring's ``Args:`` section."""
    docs: dict[str, str] = {}
    lines = doc.splitlines()
    if "Args:" not in (line.strip() for line in lines):
        return docs
    name = None
    for line in lines[[line.strip() for line in lines].index("Args:") + 1 :]:
        if line.strip() and not line.startswith(" "):
            break  # the next section
        head, sep, text = line.strip().partition(": ")
        if sep and line.startswith("    ") and not line.startswith("     "):
            name = head.split(" ")[0]
            docs[name] = text
        elif name and line.strip():
            docs[name] += " " + line.strip()
    return docs


def _option_docs(name: str) -> dict[str, str]:
    """Each option's help: the agent's settings record's field docs, else its
    factory's ``Args:``."""
    import inspect

    from playahead import agents

    agents._load_builtins()
    factory = agents._REGISTRY[name].factory
    settings = getattr(factory, "Settings", None)
    if settings is not None:
        from playahead._options import field_docs

        return field_docs(settings)
    return _arg_docs(inspect.getdoc(factory) or "")


def _plain_text(doc: str) -> str:
    """A docstring's text for people: ``code`` and Sphinx roles as plain words."""
    doc = re.sub(r":\w+:`~?([^`]*)`", lambda m: m.group(1).rsplit(".", 1)[-1], doc)
    return " ".join(doc.replace("``", "").split())


def _json_default(value):
    if value is REQUIRED or value is None:
        return None
    return value if isinstance(value, bool | int | float | str) else str(value)


def api_agents(max_seconds: float = MAX_SECONDS) -> dict:
    """``{"agents": [...]}``: each planner of :data:`PLANNERS` that is available, with
    ``summary`` and ``options``: the options it declares (:func:`agent_options`) that
    a request's ``settings`` may set (:data:`models.SETTINGS`, less
    :data:`HIDDEN_OPTIONS`), each ``{"name", "type"`` (``"int"``, ``"float"`` or
    ``"str"``), ``"default"`` (null: none, or the game's), ``"cap"`` (the largest
    value accepted, null: none), ``"help"}``."""
    summaries = available_agents()
    caps = models.CAPS | {"budget": models.node_cap(max_seconds)}
    out = []
    for name in PLANNERS:
        if name not in summaries:
            continue
        docs = _option_docs(name)
        options = []
        for key, default in agent_options(name).items():
            if key not in SETTINGS or key in HIDDEN_OPTIONS:
                continue
            cap = models.PLANNER_CAPS.get(name, {}).get(key, caps.get(key))
            if key == "budget" and cap is not None:
                cap = min(cap, caps["budget"])
            if key == "budget" and name in models.PAGE_BUDGETS:
                default = min(models.PAGE_BUDGETS[name], cap)
            options.append(
                {
                    "name": key,
                    "type": models.setting_type(key),
                    "default": _json_default(default),
                    "cap": cap,
                    "help": _plain_text(docs.get(key, "")),
                }
            )
        out.append({"name": name, "summary": summaries[name], "options": options})
    return {"agents": out}


def api_new(req: models.NewRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """A new game (see the module docstring)."""
    game = _game(req.game)
    env = _env(game, _rules(game, req.options))
    env.reset(seed=req.seed)
    moves: list = []
    if game.num_players == 2:
        state = dataclasses.replace(env.clone_state(), agent_player=req.side)
        env.restore_state(state)
        rng = np.random.default_rng(None if req.seed is None else [req.seed, 1])
        _opponent_replies(env, req.opponent, rng, moves, max_seconds)
    start = gamefile.start_of(env)
    record = [{"action": m["action"]} for m in moves]
    return view(game, env) | {"moves": moves, "start": start, "record": record}


def api_move(req: models.MoveRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """One move by the client's player, then the opponent's replies."""
    game = _game(req.game)
    env = _restore(game, req.state)
    move = req.move
    mask = env.action_masks()
    if not mask.any():
        raise ApiError("the game is over; start a new one with /api/new")
    if not 0 <= move < mask.size or not mask[move]:
        legal = np.flatnonzero(mask).tolist()
        raise ApiError(f"illegal move {move!r}; legal moves: {legal}")
    side = env.clone_state().agent_player if game.num_players == 2 else None
    if side is not None and env.current_player != side:
        raise ApiError(f"it is not player {side}'s turn")
    rng = _request_rng(req.nonce, game.name, req.state.model_dump(), move)
    env.np_random = rng
    player = env.current_player
    before = env.clone_state()
    _, reward, *_ = env.step(move)
    record = [gamefile.chance_of(env, before, move, env.clone_state())]
    moves = [{"player": player, "action": move, "label": action_label(env, move)}]
    if game.num_players == 2:
        _opponent_replies(env, req.opponent, rng, moves, max_seconds)
        record += [{"action": m["action"]} for m in moves[1:]]
    return view(game, env) | {"reward": reward, "moves": moves, "record": record}


def api_hint(req: models.HintRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """Every legal move's value from a planner."""
    game = _game(req.game)
    env = _restore(game, req.state)
    if not env.action_masks().any():
        raise ApiError("the game is over: no hint")
    spec, planner = _planner(game, env, req.agent, req.settings, max_seconds)
    return hint_body(env, spec, _analyze(game, env, spec, planner))


def page_default(game: Game) -> str:
    """The planner spec of the page's hints, reviews and autoplay in ``game`` when the
    request names none: :data:`PAGE_DEFAULTS`, else the tools' default."""
    return PAGE_DEFAULTS.get(game.name) or default_agent(game)


def _planner(game: Game, env, agent, settings, max_seconds: float):
    """``(spec, planner)`` of a request, capped (:func:`page_default` if none)."""
    spec = agent or page_default(game)
    planner = build_planner(
        spec, settings, np.random.default_rng(), max_seconds, game.env_id
    )
    check_work(planner, env)
    return spec, planner


def _analyze(game: Game, env, spec: str, planner):
    """``planner``'s analysis of ``env``, its values in points where the default's
    map applies (:func:`playahead.tools.calibration.calibrate`, as ``hint`` shows)."""
    from playahead.tools.calibration import calibrate

    try:
        return calibrate(env, planner.analyze(env), planner)
    except ValueError as err:
        raise ApiError(f"agent {spec!r} cannot analyze {game.name}: {err}") from None


def hint_body(env, spec: str, analysis) -> dict:
    """The body of a hint (see the module docstring) from an analysis of ``env``."""
    from playahead.tools.hint import exactness

    kind = analysis.value_kind
    exact, note = exactness(analysis)
    if kind == "pons_score":
        exact_moves = [a for a, _ in analysis.ranked()]
    else:
        proven = analysis.stats.get("exact") or ()
        exact_moves = [a for a, _ in analysis.ranked() if a < len(proven) and proven[a]]
    stats = {
        k: v
        for k, v in analysis.stats.items()
        if isinstance(v, int | float | str | np.generic)
    }
    return plain(
        {
            "agent": spec,
            "action": analysis.action,
            "label": action_label(env, analysis.action),
            "value_kind": kind,
            "unit": value_unit(kind),
            "ranked": [
                {
                    "action": a,
                    "label": action_label(env, a),
                    "value": v,
                    "text": format_value(v, kind),
                }
                for a, v in analysis.ranked()
            ],
            "values": analysis.values,
            "visits": analysis.visits,
            "exact": exact,
            "exact_moves": exact_moves,
            "note": note,
            "stats": stats,
        }
    )


def api_replay(req: models.ReplayRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """A game file checked (it must replay), with every position's state and board:
    ``file`` (with its ``sha256``), ``positions`` (``{"state", "board", "player",
    "info"}`` before each move and at the end; ``info`` is the env's, e.g. Threes'
    ``next_card``) and ``moves`` (``{"action", "label", "player"}``)."""
    data = dict(req.file)
    if "sha256" not in data:
        data["sha256"] = gamefile._digest(data)
    return replayed(json.dumps(data), "the game file")


def file_name(name: str | None) -> str:
    """How the page's messages name an opened file: its name without folders or
    control characters, at most 80 characters (``"the game file"`` if none)."""
    name = "".join(c for c in (name or "") if c.isprintable())
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return (name if len(name) <= 80 else name[:77] + "...") or "the game file"


def file_too_big(name: str | None, size: int) -> str:
    """The one line of a file over :data:`MAX_FILE_BYTES` (``gamefile.load``'s over
    its own :data:`~playahead.tools.gamefile.MAX_BYTES`)."""
    where = file_name(name)
    if size > gamefile.MAX_BYTES:
        return f"{where} is over {gamefile.MAX_BYTES // 2**20} MiB: not a game file"
    return (
        f"{where} is over {MAX_FILE_BYTES // 2**20} MiB: the page opens game files "
        f"up to {MAX_FILE_BYTES // 2**20} MiB (playahead review reads it)"
    )


def api_open(data: bytes, name: str | None = None) -> dict:
    """``POST /api/open``: a game file's bytes (as on disk), checked and replayed as
    ``playahead review`` does (:func:`playahead.tools.gamefile.parse_replayed`, named
    by :func:`file_name`): the body of :func:`api_replay`.

    Raises:
        ApiError: one line: over :data:`MAX_FILE_BYTES` (413), not text, not
            complete JSON, not a game file, or a move that does not replay.
    """
    if len(data) > MAX_FILE_BYTES:
        raise ApiError(file_too_big(name, len(data)), 413)
    where = file_name(name)
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise ApiError(f"{where} is not text: not a game file") from None
    return replayed(text, where)


def replayed(text: str, where: str) -> dict:
    """The body of :func:`api_replay` for a game file's ``text``.

    Raises:
        ApiError: the file's one-line :class:`ValueError` (see
            :func:`playahead.tools.gamefile.parse_replayed`).
    """
    try:
        game_file, states = gamefile.parse_replayed(text, where)
    except ValueError as err:
        raise ApiError(str(err)) from None
    positions, moves = [], []
    env = gamefile.new_env(game_file)
    for i, state in enumerate(states):
        env.unwrapped.restore_state(state)
        player = int(getattr(env.unwrapped, "current_player", 0))
        info = env.unwrapped._info()  # the position's info (Threes' next card)
        info.pop("action_mask", None)
        positions.append(
            {
                "state": state_to_json(state),
                "board": env.unwrapped.board.tolist(),
                "player": player,
                "info": info,
            }
        )
        if i < len(game_file.moves):
            action = game_file.moves[i]["action"]
            label = action_label(env.unwrapped, action)
            moves.append({"action": action, "label": label, "player": player})
    body = {"game": game_file.game, "file": game_file.to_json()}
    return plain(body | {"positions": positions, "moves": moves})


def api_review(req: models.ReviewRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """A hint for the position before a move, and the move's review: ``played``,
    ``best``, ``played_value``, ``best_value``, ``loss`` and ``mark`` (see
    :mod:`playahead.tools.review`)."""
    from playahead.tools import review

    game = _game(req.game)
    env = _restore(game, req.state)
    if not env.action_masks().any():
        raise ApiError("the game is over: no move to review")
    if not 0 <= req.move < env.action_masks().size or not env.action_masks()[req.move]:
        raise ApiError(f"move {req.move} is not legal in this position")
    spec, planner = _planner(game, env, req.agent, req.settings, max_seconds)
    analysis = _analyze(game, env, spec, planner)
    player = int(getattr(env.unwrapped, "current_player", 0))
    moved = review.move_review(game.name, 0, player, {"action": req.move}, analysis)
    fields = dataclasses.asdict(moved)
    fields.pop("values")
    return hint_body(env, spec, analysis) | plain(fields)


def api_assist(req: models.AssistRequest, max_seconds: float = MAX_SECONDS) -> dict:
    """``assist`` in the page: a typed-in ``position`` gives its view, ``start``
    (of a game file) and a hint; a ``state`` and an ``entry`` (the syntax of
    :mod:`playahead.tools.assist`) give the new view, the ``move`` (a game file's
    move dict) and a hint of the new position. An entry the rules or the deck count
    rule out is refused (400) in one line."""
    from playahead.tools import assist
    from playahead.tools.positions import position

    game = _game(req.game)
    if game.name not in ("threes", "2048"):
        raise ApiError(f"assist follows threes and 2048, not {game.name}")
    if (req.position is None) == (req.state is None):
        raise ApiError("send a position to start from, or a state and an entry")
    if req.position is not None:
        p = req.position
        try:
            typed, _ = position(game.name, p.board, p.next, deck=p.deck, score=p.score)
        except ValueError as err:
            raise ApiError(str(err)) from None
        env = _env(game, {})
        env.reset(seed=0)
        env.restore_state(typed.clone_state())
    else:
        env = _restore(game, req.state)
    spec, planner = _planner(game, env, req.agent, req.settings, max_seconds)
    move = None
    if req.state is not None:
        before = env.unwrapped.clone_state()
        start = gamefile.GameFile(game.name, {}, gamefile.start_of(env), [], None, [])
        helper = assist.Assistant(start, planner=False)
        helper.suggested = req.suggestion
        try:
            move = helper.parse("".join((req.entry or "").split()).lower())
            gamefile.apply_move(helper.env, move)
        except ValueError as err:
            raise ApiError(f"not taken: {err}") from None
        after = helper.env.unwrapped.clone_state()
        env.unwrapped.restore_state(dataclasses.replace(after, moves=before.moves + 1))
    body = view(game, env) | {"move": move, "start": gamefile.start_of(env)}
    if env.action_masks().any():
        body["hint"] = hint_body(env, spec, _analyze(game, env, spec, planner))
    return body


ROUTES = {
    "/api/new": api_new,
    "/api/move": api_move,
    "/api/hint": api_hint,
    "/api/replay": api_replay,
    "/api/review": api_review,
    "/api/assist": api_assist,
}
_MODELS = {
    "/api/new": models.NewRequest,
    "/api/move": models.MoveRequest,
    "/api/hint": models.HintRequest,
    "/api/replay": models.ReplayRequest,
    "/api/review": models.ReviewRequest,
    "/api/assist": models.AssistRequest,
}
#: Routes that take a whole game file: their body may be up to this many bytes.
FILE_ROUTES = {"/api/replay": MAX_FILE_BYTES, "/api/open": MAX_FILE_BYTES}


def parse(path: str, payload) -> Any:
    """The request model of a POST to ``path``.

    Raises:
        ApiError: no such endpoint (404), a body that is not a JSON object (400) or
            nests too deeply, or a field of the wrong type or range (422).
    """
    if path not in ROUTES:
        raise ApiError(f"no endpoint {path}; POST to {', '.join(ROUTES)}", 404)
    if not isinstance(payload, dict):
        raise ApiError("the request body must be a JSON object")
    if models.nesting(payload) > models.MAX_NESTING:
        raise ApiError(f"the JSON body nests deeper than {models.MAX_NESTING} levels")
    try:
        return _MODELS[path].model_validate(payload)
    except ValidationError as err:
        raise ApiError(models.explain(err), 422) from None


def needs_search(path: str, req) -> bool:
    """Whether the request runs a planner (a hint, or an opponent other than random):
    those go to a search worker, the rest is answered at once."""
    if path in ("/api/hint", "/api/review", "/api/assist"):
        return True
    spec = getattr(req, "opponent", None)  # a game file's replay runs no search
    return spec is not None and planner_name(spec) != "random"


def handle(path: str, payload, max_seconds: float = MAX_SECONDS) -> tuple[int, dict]:
    """``(status, body)`` of a POST to ``path`` with a decoded JSON ``payload``."""
    try:
        req = parse(path, payload)
        return 200, ROUTES[path](req, max_seconds)
    except ApiError as err:
        return err.status, {"error": str(err)}
    except ValueError as err:  # a rule or option the env or planner rejected
        return 400, {"error": str(err)}


def warm_up() -> None:
    """Load every planner's compiled kernels for every game (a cold numba cache
    compiles them here, once, rather than in a request with a deadline)."""
    for game in GAMES.values():
        env = make_env(game, render_mode=None)
        env.reset(seed=0)
        for name in PLANNERS:
            if name not in available_agents():
                continue
            try:
                budget = {"n_simulations": 8, "n_rollouts": 8, "n_sims": 2, "depth": 1}
                if name == "solver":  # the empty board: a small search, then minimax
                    budget = {"budget": 1_000, "fallback_budget": 1_000}
                keep = {k: v for k, v in budget.items() if takes_option(name, k)}
                make_agent(name, seed=0, **keep).analyze(env)
            except ValueError:
                pass  # a planner that does not play this game
