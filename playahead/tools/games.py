"""The game table the tools share (``watch``, ``play``, ``serve``, ``media``).

:data:`GAMES` names each game the tools know, with its env and rule options;
:func:`make_env` builds a fresh turn-by-turn env of one; :func:`action_label` and
:func:`format_values` name moves and values the same way in every tool, each value
with its unit (:func:`value_unit`).

Numbering: tic-tac-toe cells and Connect Four columns are numbered from 0, as the
env's actions are and as the boards are drawn (cells 0-8 left to right, top row first;
columns 0-6). ``hint``, ``watch``, ``play`` and ``serve`` all use these numbers.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
from typing import Any

import numpy as np

from playahead.agents import REQUIRED, Analysis


@dataclasses.dataclass(frozen=True)
class Game:
    """A game the user-facing tools know.

    Attributes:
        name: the short name on the command line, e.g. ``"connect4"``.
        env_id: the Gymnasium id, e.g. ``"ConnectFour-v0"``.
        entry_point: ``"module:Class"`` of the env.
        num_players: 1 or 2.
        rules: the env's rule options (name -> type) the tools accept.
        default_agents: planner specs for hints and autoplay when none is given; the
            first whose planner is registered is used.
    """

    name: str
    env_id: str
    entry_point: str
    num_players: int
    rules: dict[str, type]
    default_agents: tuple[str, ...]


GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(
            "threes",
            "Threes-v0",
            "playahead.envs.tiles:ThreesEnv",
            1,
            {"bonus_preview": str, "merge_6144": bool},
            ("expectimax", "mcts:n_simulations=400"),
        ),
        Game(
            "2048",
            "2048-v0",
            "playahead.envs.tiles:Twenty48Env",
            1,
            {},
            ("expectimax", "mcts:n_simulations=400"),
        ),
        Game(
            "tictactoe",
            "TicTacToe-v0",
            "playahead.envs.tictactoe:TicTacToeEnv",
            2,
            {"size": int},
            ("minimax", "mcts:n_simulations=2000"),
        ),
        Game(
            "connect4",
            "ConnectFour-v0",
            "playahead.envs.connect_four:ConnectFourEnv",
            2,
            {},
            ("minimax", "mcts:n_simulations=2000"),
        ),
        Game(
            "nim",
            "Nim-v0",
            "playahead.envs.nim:NimEnv",
            2,
            {"n": int, "k": int, "misere": bool},
            ("minimax", "mcts:n_simulations=2000"),
        ),
        Game(
            "chips",
            "Chips-v0",
            "playahead.envs.nim:ChipsEnv",
            2,
            {"n": int, "rule": str},
            ("minimax", "mcts:n_simulations=2000"),
        ),
    )
}

TILE_ACTIONS = ("up", "right", "down", "left")
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def get_game(name: str) -> Game:
    """The :class:`Game` called ``name``: its short name or env id, any case (any name
    :func:`playahead.envs.env_id_of` takes).

    Raises:
        ValueError: unknown game; the message lists the known ones.
    """
    from playahead.envs import game_name_of

    try:
        return GAMES[game_name_of(str(name))]
    except ValueError:
        raise ValueError(
            f"unknown game {name!r}; choose from {', '.join(GAMES)}"
        ) from None


def default_agent(game: Game) -> str:
    """The planner spec for hints and autoplay in ``game`` when none is given."""
    from playahead.agents import available_agents, parse_spec

    known = available_agents()
    for spec in game.default_agents:
        if parse_spec(spec)[0] in known:
            return spec
    return "random"


def check_rules(game: Game, rules: dict[str, Any]) -> dict[str, Any]:
    """``rules`` checked against the options ``game`` accepts (names and types).

    Raises:
        ValueError: an unknown option or a value of the wrong type.
    """
    out = {}
    for key, value in rules.items():
        if key not in game.rules:
            accepted = ", ".join(game.rules) or "none"
            raise ValueError(
                f"{game.name} has no rule option {key!r}; accepted: {accepted}"
            )
        kind = game.rules[key]
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok:
            raise ValueError(
                f"{game.name} option {key} must be {kind.__name__}, got {value!r}"
            )
        out[key] = value
    return out


def make_env(game: str | Game, *, render_mode: str | None = "ansi", **rules):
    """A fresh env of ``game``; two-player games are turn by turn (``opponent=None``).

    Args:
        game: a name from :data:`GAMES` (or its :class:`Game`).
        render_mode: passed to the env (``"ansi"`` by default).
        **rules: the game's rule options, e.g. ``size=4`` for tic-tac-toe.

    Raises:
        ValueError: unknown game or rule option, or a value the env rejects.
    """
    game = game if isinstance(game, Game) else get_game(game)
    rules = check_rules(game, rules)
    module, _, cls = game.entry_point.partition(":")
    env_cls = getattr(importlib.import_module(module), cls)
    if game.num_players == 2:
        rules["opponent"] = None
    return env_cls(render_mode=render_mode, **rules)


def action_label(env, action: int) -> str:
    """A short name for ``action`` in ``env``'s game: ``"left"``, ``"cell 4"``,
    ``"col 3"``, ``"take 2"``."""
    base = env.unwrapped
    name = getattr(base, "game_name", "")
    if base.num_players == 1:
        return TILE_ACTIONS[action]
    if name == "TicTacToe":
        return f"cell {action}"
    if name == "ConnectFour":
        return f"col {action}"
    return f"take {action + 1}"


#: What a value of each ``Analysis.value_kind`` is, in a few words: the unit every tool
#: prints beside a value (``hint``, ``watch``, ``play``, ``serve``).
VALUE_UNITS = {
    "score": "expected final score",
    "depth_score": "best score a few moves on, not a final score",
    "search_score": "the search's value in points, not calibrated to a final score",
    "eval": "heuristic value, not points",
    "weighted_score": "heuristic value, score x 16 / filled cells",
    "heuristic": "heuristic value in [-1, 1], +1 a win",
    "solved": "game result: +1 win, 0 draw, -1 loss",
    "pons_score": "exact score: +n a win with your (22-n)th disc, 0 a draw, -n a loss",
    "result": "expected result in [-1, 1], +1 a win",
    "return": "expected return",
    "squares": "Monte Carlo worth of the square the move fills",
    "reward": "reward of the move",
    "probability": "probability of the move",
    "policy": "policy probability",
    "q": "Q-value (learned return)",
}


def value_unit(kind: str) -> str:
    """What a value of ``kind`` (an ``Analysis.value_kind``) is, e.g. ``"score"`` ->
    ``"expected final score"``; an unknown kind is named as it is."""
    return VALUE_UNITS.get(kind, f"{kind}, the agent's own units")


def format_value(value: float, kind: str = "") -> str:
    """A value in a few characters: ``412,300`` for an expected score (``kind
    "score"``) or any value of 1,000 or more, else ``865.0``, ``0.436``, ``-1.000``."""
    if kind == "pons_score":
        return f"{value:+.0f}" if value else "0"
    if kind == "score" or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"


def format_values(
    env, analysis: Analysis, title: str = "values", width: int = 78
) -> str:
    """The legal moves of ``analysis`` best first, with their unit, e.g.
    ``values (expected final score):  left 412,300*  right 411,020``; the chosen one is
    starred.
    """
    kind = analysis.value_kind
    lines = [f"{title} ({value_unit(kind)}):"]
    for action, value in analysis.ranked():
        star = "*" if action == analysis.action else ""
        part = f"  {action_label(env, action)} {format_value(value, kind)}{star}"
        if len(lines[-1]) + len(part) > width:
            lines.append(" ")
        lines[-1] += part
    return "\n".join(lines)


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences."""
    return _ANSI_RE.sub("", text)


def agent_seeds(seed: int | None, n: int) -> list[int]:
    """``n`` seeds (ints < 2**63) derived from ``seed`` (None: fresh entropy)."""
    words = np.random.SeedSequence(seed).generate_state(n, np.uint64) >> np.uint64(1)
    return [int(w) for w in words]


def build_agent(spec: str, seed: int, **overrides: Any):
    """An agent from ``spec``, seeded with ``seed`` when it takes a seed (a ``seed``
    option in the spec wins); ``overrides`` take precedence over the spec's options.

    Raises:
        ValueError: unknown agent or option (from :func:`playahead.make_agent`).
    """
    from playahead.agents import make_agent, parse_spec, takes_option

    if "seed" in parse_spec(spec)[1] or not takes_option(spec, "seed"):
        return make_agent(spec, **overrides)
    return make_agent(spec, seed=seed, **overrides)


def build_capped_agent(spec: str, seed: int, where: str):
    """:func:`build_agent` within the tools' caps (:func:`capped_budget`): what
    ``watch`` and ``play`` build from a user's spec. ``where`` names the tool in an
    error, e.g. ``"playahead watch"``.

    Raises:
        ValueError: unknown agent or option, or a budget over its cap.
    """
    return build_agent(spec, seed, **capped_budget(spec, where))


def check_capped_spec(spec: str, where: str) -> None:
    """Refuse ``spec`` as :func:`build_capped_agent` would, building nothing (a
    command checks its specs before it takes the terminal).

    Raises:
        ValueError: unknown agent or option, or a budget over its cap.
    """
    from playahead.agents import check_spec

    check_spec(spec, **capped_budget(spec, where))


#: The most nodes a search of ``hint``, ``watch``, ``play`` or ``serve`` may be given (a
#: planner's ``budget``): about a minute at 200 ns a node (expectimax with its slowest
#: evaluator on a slow machine), ten seconds at 30 ns.
MAX_NODES = 300_000_000
#: Nodes a second ``serve`` counts on for a search with a node budget: a floor (200 ns
#: a node, as above), so that a request's ``budget`` (at most this many nodes per second
#: of ``--max-seconds``) ends before its worker is killed.
NODES_PER_SECOND = 5_000_000
#: Nodes a search of ``hint``, ``watch``, ``play`` or ``serve`` gets when a planner
#: with a node budget has none by default and the spec sets none (``minimax``). The
#: tests' tic-tac-toe, Nim and Chips hints are solved within it; ``python -m
#: benchmarks planners`` prints the Connect Four node rate that turns it into time.
DEFAULT_NODES = 5_000_000
#: Seconds a search of ``hint``, ``watch`` or ``play`` takes at most when the agent
#: spec sets no ``time_limit`` and the planner has no node budget, and the most a spec
#: may set.
DEFAULT_SECONDS = 10.0
MAX_SECONDS = 60.0
#: The most simulations, rollouts (memory grows with them) or nodes a spec may ask for
#: in ``hint``, ``watch`` and ``play``.
MAX_BUDGETS = {"n_simulations": 10**6, "n_rollouts": 10**6, "budget": MAX_NODES}


def counts_nodes(spec: str) -> bool:
    """Whether the planner of ``spec`` has a node budget (it takes ``budget``, as
    ``expectimax`` does): ``hint``, ``watch``, ``play`` and ``serve`` then bound its
    search by that count, never by a clock they add."""
    return "budget" in _declared(spec)


def _declared(spec: str) -> dict[str, Any]:
    """The options the agent of ``spec`` takes, with their defaults
    (:func:`playahead.agents.agent_options`)."""
    from playahead.agents import agent_options, parse_spec

    return agent_options(parse_spec(spec)[0])


def node_bound(spec: str, options: dict[str, Any]) -> dict[str, Any]:
    """Overrides that keep a planner with a node budget within it (``{}`` for other
    planners): ``bounded=True`` where the planner takes it (expectimax: a fixed
    ``depth`` stops at the budget too), :data:`MAX_NODES` for a ``budget`` of none,
    and :data:`DEFAULT_NODES` where neither the options nor the planner's defaults
    set one (minimax). ``options`` are the spec's (and a request's) options; a
    ``budget`` over :data:`MAX_NODES` is the caller's to refuse.

    Raises:
        ValueError: ``bounded`` set to anything but true.
    """
    return _node_bound(spec, options, _declared(spec))


def _node_bound(spec: str, options: dict, declared: dict) -> dict[str, Any]:
    if "budget" not in declared:
        return {}
    out: dict[str, Any] = {}
    if "bounded" in declared:
        if options.get("bounded", True) is not True:
            raise ValueError(
                f"agent {spec!r}: bounded is always true here (the search stops at "
                f"its node budget, budget at most {MAX_NODES:,})"
            )
        out["bounded"] = True
    if "budget" in options and options["budget"] is None:
        out["budget"] = MAX_NODES
    elif "budget" not in options and declared["budget"] in (None, REQUIRED):
        out["budget"] = DEFAULT_NODES
    return out


def capped_budget(spec: str, where: str = "a hint") -> dict[str, Any]:
    """Overrides that keep ``spec``'s search within the caps of ``hint``, ``watch``
    and ``play``: a planner with a node budget is bounded by it (:func:`node_bound`:
    ``bounded=True``, ``budget=none`` made the cap) and gets no ``time_limit`` unless
    the spec sets one; any other gets a ``time_limit`` of :data:`DEFAULT_SECONDS`
    when the spec sets none (or ``none``). ``where`` names the tool in an error.

    Raises:
        ValueError: the spec asks for more than :data:`MAX_SECONDS` or
            :data:`MAX_BUDGETS`, or sets ``bounded=false``.
    """
    from playahead.agents import agent_options, parse_spec

    name, options = parse_spec(spec)
    declared = agent_options(name)
    for key, most in MAX_BUDGETS.items():
        value = options.get(key)
        if isinstance(value, int | float) and value > most:
            raise ValueError(f"agent {spec!r}: {key} is at most {most:,} in {where}")
    overrides = _node_bound(spec, options, declared)
    if "time_limit" not in declared:
        return overrides
    limit = options.get("time_limit")
    if limit is None:
        if "time_limit" not in options and "budget" in declared:
            return overrides  # bounded by nodes, not by a clock
        return overrides | {"time_limit": DEFAULT_SECONDS}
    if not isinstance(limit, int | float) or not 0 < limit <= MAX_SECONDS:
        raise ValueError(
            f"agent {spec!r}: time_limit is seconds per search in {where}, more than 0 "
            f"and at most {MAX_SECONDS:g}"
        )
    return overrides


def choose(agent, env) -> tuple[int, Analysis | None]:
    """The agent's move, with its :class:`Analysis` when it has ``analyze``."""
    if callable(getattr(agent, "analyze", None)):
        analysis = agent.analyze(env)
        return int(analysis.action), analysis
    return int(agent.act(env)), None


CLEAR = "\x1b[H\x1b[2J"
"""ANSI: cursor home, clear the screen."""


def parse_rules(items: list[str]) -> dict[str, Any]:
    """``["size=4", "misere=true"]`` -> ``{"size": 4, "misere": True}``."""
    from playahead.agents import _parse_value

    rules = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--rule {item!r} is not name=value (example: size=4)")
        rules[key.strip()] = _parse_value(value)
    return rules


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments ``watch`` and ``play`` share: game, seed, rules, opponent."""
    parser.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: random)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option of the game, e.g. size=4 (tictactoe), n=31 k=4 (nim), "
        "bonus_preview=plus (threes); repeatable",
    )
    parser.add_argument(
        "--opponent",
        default="random",
        help="agent spec of the other player in two-player games (default: random)",
    )
