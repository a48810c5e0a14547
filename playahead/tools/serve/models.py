"""Request models of ``playahead serve``: each field's type and range, each cap.

Pydantic checks each request before any work is done (types are strict: ``"3"`` is
not a number and ``true`` is not ``1``); a failure becomes ``422`` with a message that
names the field (:func:`explain`). Planner settings, whether they come from
``settings`` or from inside a spec string (``"mcts:time_limit=none"``), go through
:class:`Settings`: counts above :data:`CAPS` are refused, ``time_limit`` is clamped to
``max_seconds`` (``null``/``none`` means ``max_seconds``), and a count whose ``null``
means "until the time limit" gets its cap instead. A planner with a node budget
(``expectimax``) is bounded by that count (``budget``, ``null`` meaning the cap) and
gets a ``time_limit`` only when the request sets one; every other search gets
``max_seconds``. The node cap fits the server's ``max_seconds`` (:func:`node_cap`).
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from playahead.agents import resolve_named_options
from playahead.tools.games import MAX_NODES, NODES_PER_SECOND, counts_nodes, node_bound

#: Largest integer a browser holds exactly (JavaScript's ``Number.MAX_SAFE_INTEGER``).
MAX_SAFE = 2**53 - 1
#: Most moves a game may have (a state past it is neither accepted nor handed out).
MAX_MOVES = 10**9
#: Deepest JSON nesting a request may have.
MAX_NESTING = 16
#: Largest budget of each planner setting (count settings: at most; floats: at most).
CAPS = {
    "depth": 12,
    "max_depth": 6,
    "n_simulations": 100_000,
    "n_rollouts": 100_000,
    "n_sims": 200,
    "rollout_depth": 1_000,
    "c": 100.0,
    "budget": MAX_NODES,
}

#: Tighter caps of one planner (lookahead's work grows as moves ** depth, without
#: looking at the clock inside a sample; expectimax's as chance ** depth; minimax's
#: and the Connect Four solver's budget, since
#: :data:`~playahead.tools.games.NODES_PER_SECOND` is sized for expectimax's nodes,
#: not for alpha-beta's: ``python -m benchmarks planners`` prints the Connect Four node
#: rate).
PLANNER_CAPS = {
    "lookahead": {"depth": 4},
    "expectimax": {"depth": 6},
    "minimax": {"budget": 20_000_000},
    "solver": {"budget": 20_000_000},
}
#: The node budget of a planner on the page when the request sets none, where the
#: planner's own default is sized for a player who waits: the Connect Four solver's
#: 20,000,000 nodes take seconds on an early position and end unsolved anyway, so the
#: page's hint answers within about a second, exact where the solver finishes within
#: it and minimax's estimate, labelled as such, where it does not.
PAGE_BUDGETS = {"solver": 2_000_000}
#: Count settings whose ``None`` means "until the time limit": ``None`` becomes the cap.
OPEN_ENDED = ("n_simulations", "n_rollouts", "n_sims")


def node_cap(max_seconds: float) -> int:
    """The most nodes (``budget``) a request may ask for on a server whose searches
    last at most ``max_seconds``:
    :data:`~playahead.tools.games.NODES_PER_SECOND` a second, at most
    :data:`CAPS` ``["budget"]`` (``MAX_NODES``), at least 1. At the default 10 s it is
    50,000,000, above the planner's default of 30,000,000.
    """
    return max(1, min(CAPS["budget"], int(NODES_PER_SECOND * max_seconds)))


Name = Annotated[str, Field(min_length=1, max_length=40)]
Spec = Annotated[str, Field(min_length=1, max_length=200)]
Count = Annotated[int, Field(ge=1)]
Hex16 = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
Moves = Annotated[int, Field(ge=0, le=MAX_MOVES)]
Rule = bool | int | Annotated[str, Field(max_length=40)]
Rules = Annotated[dict[Name, Rule], Field(max_length=8)]
Nonce = Annotated[str, Field(max_length=200)] | Annotated[int, Field(ge=0)]
#: 0 or 1 (strict: ``true`` is not 1).
Side = Annotated[int, Field(ge=0, le=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Twenty48StateModel(_Strict):
    """A 2048 position: the board as 16 hex ranks, the score and the move count."""

    type: Literal["Twenty48State"]
    board: Hex16
    score: Annotated[int, Field(ge=0, le=MAX_SAFE)]
    moves: Moves


class ThreesStateModel(_Strict):
    """A Threes position: board, the deck's cards (bit set), moves and the rules."""

    type: Literal["ThreesState"]
    board: Hex16
    cards: Annotated[int, Field(ge=0, le=2**17 - 1)]
    moves: Moves
    bonus_preview: Literal["window", "plus"]
    merge_6144: bool


class BoardGameStateModel(_Strict):
    """A two-player position: the game, its rules, the position and the agent's side."""

    type: Literal["BoardGameState"]
    game: Literal["TicTacToe", "ConnectFour", "Nim", "Chips"]
    rules: Rules
    position: Annotated[
        list[Annotated[int, Field(ge=-MAX_SAFE, le=MAX_SAFE)]],
        Field(min_length=1, max_length=64),
    ]
    agent_player: Side | None


State = Annotated[
    Twenty48StateModel | ThreesStateModel | BoardGameStateModel,
    Field(discriminator="type"),
]


class _Request(_Strict):
    game: Name
    nonce: Nonce | None = None


class NewRequest(_Request):
    """``POST /api/new``."""

    options: Rules = {}
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    side: Side | None = 0
    opponent: Spec | None = "random"


class MoveRequest(_Request):
    """``POST /api/move``."""

    state: State
    move: Annotated[int, Field(ge=0, le=1_000)]
    opponent: Spec | None = "random"


class HintRequest(_Request):
    """``POST /api/hint``."""

    state: State
    agent: Spec | None = None
    settings: dict[Name, Any] = {}


class ReplayRequest(_Strict):
    """``POST /api/replay``: a game file (its ``sha256`` may be left out: a game the
    page recorded), checked by :func:`playahead.tools.gamefile.parse`."""

    file: dict[Name, Any]


class ReviewRequest(HintRequest):
    """``POST /api/review``: a hint, and the loss of ``move`` (the move played)."""

    move: Annotated[int, Field(ge=0, le=1_000)]


class Position(_Strict):
    """A tile-game position typed in (as ``playahead hint`` reads it)."""

    board: Annotated[str, Field(max_length=400)]
    next: Annotated[str, Field(max_length=40)] | None = None
    deck: Annotated[str, Field(max_length=40)] | None = None
    score: Annotated[int, Field(ge=0, le=MAX_SAFE)] = 0


class AssistRequest(_Request):
    """``POST /api/assist``: a ``position`` to start from, or a ``state`` and the
    ``entry`` that says what happened (``suggestion``: the move an entry without a
    swipe means)."""

    position: Position | None = None
    state: State | None = None
    entry: Annotated[str, Field(max_length=40)] | None = None
    suggestion: Annotated[int, Field(ge=0, le=3)] | None = None
    agent: Spec | None = None
    settings: dict[Name, Any] = {}


REQUESTS = {
    "new": NewRequest,
    "move": MoveRequest,
    "hint": HintRequest,
    "replay": ReplayRequest,
    "review": ReviewRequest,
    "assist": AssistRequest,
}


class Settings(BaseModel):
    """A planner's options from a spec and a request's ``settings``, capped."""

    model_config = ConfigDict(extra="forbid", strict=True)

    depth: Annotated[int, Field(ge=1, le=CAPS["depth"])] | None = None
    max_depth: Annotated[int, Field(ge=1, le=CAPS["max_depth"])] | None = None
    n_simulations: Annotated[int, Field(ge=1, le=CAPS["n_simulations"])] | None = None
    n_rollouts: Annotated[int, Field(ge=1, le=CAPS["n_rollouts"])] | None = None
    n_sims: Annotated[int, Field(ge=1, le=CAPS["n_sims"])] | None = None
    rollout_depth: Annotated[int, Field(ge=1, le=CAPS["rollout_depth"])] | None = None
    c: Annotated[float, Field(ge=0, le=CAPS["c"], allow_inf_nan=False)] | None = None
    budget: Annotated[int, Field(ge=1, le=CAPS["budget"])] | None = None
    prob_cutoff: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    evaluator: Annotated[str, Field(max_length=40)] | None = None
    rollout: Annotated[str, Field(max_length=40)] | None = None
    scoring: Annotated[str, Field(max_length=40)] | None = None
    time_limit: Annotated[float, Field(allow_inf_nan=False)] | None = None
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None


SETTINGS = tuple(Settings.model_fields)


def setting_type(name: str) -> str:
    """``"int"``, ``"float"`` or ``"str"``: the type of :class:`Settings` field
    ``name``."""
    hint = Settings.model_fields[name].annotation
    while typing.get_args(hint):  # Optional[Annotated[int, ...]] -> int
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    return hint.__name__


def capped_settings(
    planner: str,
    options: dict[str, Any],
    max_seconds: float,
    env_id: str | None = None,
) -> dict[str, Any]:
    """``options`` checked by :class:`Settings` and capped for ``planner``.

    Only the options given come back (so each planner keeps its own defaults), plus
    what bounds the search: for a planner with a node budget the overrides of
    :func:`~playahead.tools.games.node_bound` (``bounded=True``, ``budget`` ``null``
    made the cap) and ``time_limit`` only if given; for any other ``time_limit``,
    always set. A ``time_limit`` is at most ``max_seconds``.

    The node budget fits ``max_seconds`` (:func:`node_cap`): a larger ``budget`` is
    refused, ``null`` means the cap, and a planner whose default budget is larger gets
    the cap instead. A planner of :data:`PAGE_BUDGETS` gets that budget by default
    (at most the cap).

    Raises:
        ValidationError: an unknown option, a wrong type or a budget over its cap.
        ValueError: a budget over ``planner``'s own cap or over :func:`node_cap`.
    """
    for key, cap in PLANNER_CAPS.get(planner, {}).items():
        value = options.get(key)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and value > cap:
            raise ValueError(f"{planner} {key} must be at most {cap}, got {value}")
    nodes = node_cap(max_seconds)
    budget = options.get("budget")
    if isinstance(budget, int) and not isinstance(budget, bool) and budget > nodes:
        raise ValueError(
            f"budget must be at most {nodes:,} nodes on this server "
            f"({NODES_PER_SECOND:,} nodes a second for its {max_seconds:g} s search "
            f"limit), got {budget:,}"
        )
    given = Settings.model_validate(options).model_dump(include=set(options))
    for key in OPEN_ENDED:
        if key in given and given[key] is None:
            given[key] = CAPS[key]
    given |= node_bound(planner, given)
    if counts_nodes(planner):
        nodes = min(nodes, PLANNER_CAPS.get(planner, {}).get("budget", nodes))
        if "budget" in given:  # none: node_bound made it MAX_NODES
            given["budget"] = min(given["budget"], nodes)
        else:
            default = PAGE_BUDGETS.get(planner) or resolve_named_options(
                planner, given, env_id
            ).get("budget")
            if default is None or default > nodes:
                given["budget"] = nodes
            elif planner in PAGE_BUDGETS:
                given["budget"] = default
        if "time_limit" not in given:
            return given  # bounded by its node budget, not by a clock
    limit = given.get("time_limit")
    given["time_limit"] = max_seconds if limit is None or limit <= 0 else limit
    given["time_limit"] = min(given["time_limit"], max_seconds)
    return given


def _short(value: Any, width: int = 60) -> str:
    """``repr`` of a client's value cut to ``width`` characters (never recursive)."""
    if isinstance(value, dict | list):
        return f"a JSON {'object' if isinstance(value, dict) else 'array'}"
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


_TAGS = {"Twenty48State", "ThreesState", "BoardGameState", "bool", "int", "str"}


def _field(loc: tuple, prefix: str) -> str:
    """``state.cards`` for pydantic's ``("state", "ThreesState", "cards")``: the union
    members' tags (``"ThreesState"``, ``"constrained-str"``) are left out."""
    parts = [prefix] if prefix else []
    parts += [str(p) for p in loc if str(p) not in _TAGS and "-" not in str(p)]
    return ".".join(parts) or "body"


def explain(err: ValidationError, prefix: str = "") -> str:
    """One clause per wrong field of a pydantic error: ``field: what is accepted (got
    the value)``, at most five fields."""
    fields: dict[str, list[dict]] = {}
    for problem in err.errors(include_url=False):
        fields.setdefault(_field(problem["loc"], prefix), []).append(problem)
    lines = []
    for where, problems in list(fields.items())[:5]:
        said = " or ".join(dict.fromkeys(p["msg"] for p in problems))
        first = problems[0]
        tail = "" if first["type"] == "missing" else f" (got {_short(first['input'])})"
        lines.append(f"{where}: {said}{tail}")
    return "; ".join(lines)


def nesting(value: Any) -> int:
    """How deeply ``value`` (decoded JSON) nests, counted without recursion and
    stopping past :data:`MAX_NESTING`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_NESTING:
            return depth
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            stack.extend((child, depth + 1) for child in children)
    return deepest
