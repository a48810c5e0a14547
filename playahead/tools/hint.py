"""``playahead hint``: the value of every legal move in a position you type in.

Examples::

    playahead hint threes --board "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1" --next 2
    playahead hint 2048 --board "[[2,2,0,0],[4,0,0,0],[0,0,0,0],[0,0,0,8]]" --score 120
    playahead hint tictactoe --board "x o . / . x . / . . o"
    playahead hint connect4 --board-file position.txt     # 6 rows of 7, top row first
    playahead hint nim --pile 13 --k 3
    playahead hint chips --pile 20 --limit 6

A board is rows separated by ``/`` or new lines, cells by spaces or commas (``.`` is an
empty cell), or a JSON list of rows; ``--board-file`` reads either from a file. Tile
games take face values (Threes: 1, 2, 3, 6, 12, ...; 2048: 2, 4, 8, ...); tic-tac-toe
and Connect Four take ``x``/``o`` (also ``r``/``y`` or ``1``/``2``; ``x`` moved first).

The position is built with ``restore_state`` on a fresh env, so the hint follows
exactly the env's rules, and analysed by a planner (``--agent``, default: expectimax
for 2048 and Threes, on Threes with the n-tuple net playahead ships at its
leaves; minimax for the other two-player games; in Connect Four the exact solver,
``solver``: every column's Pons score, e.g. ``+3  solved: win with your 19th disc``,
with minimax's values where the position is not solved within its node budget, under
a line saying they are an estimate: :mod:`playahead.planners.solver`). Each legal move
is printed with its value, best first, under a line naming the values' unit
(``values: expected final score`` when the planner's ``value_kind`` is ``"score"``,
shown as ``412,300``; ``heuristic value, not points`` for expectimax's hand-made
evaluators), and one line saying what the value means. The default search's values on
Threes and 2048 are shown in points: mapped to the final score the default reaches
from the position (:func:`playahead.tools.calibration.calibrate`; a move that ends the
game, at the game's final score). Moves are named as in ``play`` and ``watch``:
tic-tac-toe cells and Connect Four columns count from 0 (the env's actions).

Inputs and search are capped: piles up to 100, board files up to 64 KiB (see
:mod:`playahead.tools.positions`), simulations and rollouts up to
:data:`~playahead.tools.games.MAX_BUDGETS` (``watch`` and ``play`` apply the same caps:
:func:`~playahead.tools.games.capped_budget`). A planner with a node budget
(``expectimax``: ``budget``, by default 30,000,000 nodes, fewer for the automatic
depth with learned leaves on Threes; ``minimax``: ``budget``, here by default
:data:`~playahead.tools.games.DEFAULT_NODES`; at most
:data:`~playahead.tools.games.MAX_NODES`) searches within that count and reads no
clock, so the same position, agent and seed give the same hint on any machine and
under any load; a fixed ``depth`` stops at the budget too (``bounded=True``: the
deepest depth that fits). Other planners search at most
:data:`~playahead.tools.games.DEFAULT_SECONDS` seconds. A ``time_limit`` in the spec
(up to :data:`~playahead.tools.games.MAX_SECONDS`) is a clock the user picks;
``time_limit=none`` means :data:`~playahead.tools.games.DEFAULT_SECONDS`.

Threes' deck: a player who counts cards knows how many 1s, 2s and 3s are left in the
12-card deck; give them with ``--deck ONES,TWOS,THREES`` (after the previewed card was
taken). Without ``--deck`` the hint assumes a fresh deck less the previewed card (a
preview of 2 gives 4, 3, 4; a bonus preview gives 4, 4, 4).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
from pathlib import Path

import numpy as np

from playahead.tools.calibration import calibrate
from playahead.tools.games import (
    MAX_NODES,
    MAX_SECONDS,
    capped_budget,
    format_value,
    value_unit,
)
from playahead.tools.positions import (
    GAMES,
    position,
    read_board_file,
    short_name,
)

TILE_NAMES = ("up", "right", "down", "left")


@dataclasses.dataclass(frozen=True)
class MoveHint:
    """One legal move: ``action``, a readable ``name``, the planner's ``value`` and
    ``why``: what the value means, in one line."""

    action: int
    name: str
    value: float
    why: str


@dataclasses.dataclass(frozen=True)
class Hint:
    """What :func:`hint` returns: the moves best first, and the full analysis."""

    game: str
    agent: str
    moves: tuple[MoveHint, ...]
    analysis: object
    note: str = ""

    @property
    def best(self) -> MoveHint:
        return self.moves[0]

    @property
    def unit(self) -> str:
        """What the values are, e.g. ``"expected final score"`` (from the analysis'
        ``value_kind``, see :func:`playahead.tools.games.value_unit`)."""
        return value_unit(self.analysis.value_kind)

    def __str__(self) -> str:
        kind = self.analysis.value_kind
        names = max(len(m.name) for m in self.moves)
        texts = [format_value(m.value, kind) for m in self.moves]
        width = max(len(t) for t in texts)
        seconds = self.analysis.stats.get("seconds", 0.0)
        head = f"{self.game}: {len(self.moves)} legal moves, {self.agent}"
        lines = [f"{head} ({seconds:.2f} s)", f"values: {self.unit}"]
        for m, text in zip(self.moves, texts, strict=True):
            lines.append(f"  {m.name:<{names}}  {text:>{width}}  {m.why}")
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


# ----------------------------------------------------------------- the hint


def default_agent(game: str) -> str:
    """The planner :func:`hint` uses for ``game`` when none is given."""
    if game in ("threes", "2048"):
        return "expectimax"
    return "solver" if game == "connect4" else "minimax"


def _name(game: str, env, action: int) -> str:
    if game in ("threes", "2048"):
        return TILE_NAMES[action]
    if game == "tictactoe":
        r, c = divmod(action, env.size)
        return f"cell {action} (row {r}, col {c})"  # from 0, as play and watch
    if game == "connect4":
        return f"column {action}"
    return f"take {action + 1}"


def _moves(n) -> str:
    return f"{n} move" if n == 1 else f"{n} moves"


def _why(analysis, action: int) -> str:
    """What the value of ``action`` means, its unit first (see :func:`value_unit`)."""
    v = float(analysis.values[action])
    stats, kind = analysis.stats, analysis.value_kind
    visits = (
        "" if analysis.visits is None else f", {int(analysis.visits[action])} visits"
    )
    if kind == "pons_score":
        from playahead.games.connect_four_solver import describe

        return f"solved: {describe(int(v))}"
    if kind in ("solved", "heuristic"):
        plies = stats.get("plies", [0] * (action + 1))[action]
        if stats.get("exact", [False] * (action + 1))[action]:
            if v == 0:
                return "solved: draw"
            return f"solved: {'win' if v > 0 else 'loss'} in {plies} plies"
        return f"evaluation {v:+.2f} after {stats.get('depth', '?')} plies (not solved)"
    if kind == "result":
        return (
            f"expected result {v:+.2f}: scores {(v + 1) / 2:.0%} (draws half){visits}"
        )
    if kind == "score":
        depth = stats.get("depth")
        ahead = "" if depth is None else f", searched {_moves(depth)} ahead"
        return f"expected final score{ahead}{visits}"
    if kind == "depth_score":
        return (
            f"best score within {_moves(stats.get('depth'))}, mean over "
            f"{stats.get('sims', '?')} samples (not a final score)"
        )
    if kind == "weighted_score":
        return (
            f"heuristic value: best score within {_moves(stats.get('depth'))} "
            "x 16 / filled cells"
        )
    if kind == "eval":
        depth = _moves(stats.get("depth", "?"))
        return f"heuristic value, not points, searched {depth} ahead"
    return f"{value_unit(kind)}{visits}"


def _order_key(analysis, action: int) -> tuple:
    """The planner's choice first (MCTS picks the most visited move, which need not
    have the highest mean), then by value, sooner wins and later losses first."""
    v = float(analysis.values[action])
    plies = (analysis.stats.get("plies") or [0] * len(analysis.values))[action]
    return (action != analysis.action, -v, plies if v > 0 else -plies)


def hint(
    game: str,
    board=None,
    next_card=None,
    agent: str | None = None,
    *,
    seed=0,
    **position_options,
) -> Hint:
    """Every legal move of a position with its value, best first.

    Args:
        game: ``"threes"``, ``"2048"``, ``"tictactoe"``, ``"connect4"``, ``"nim"`` or
            ``"chips"``.
        board: the board (string, JSON string, nested list or array; see the module
            docstring); not used by Nim and Chips.
        next_card: Threes' preview: 1, 2, 3, or a bonus window such as ``"6,12,24"``.
        agent: a planner spec (default: :func:`default_agent`).
        seed: the planner's seed.
        **position_options: ``deck``, ``score``, ``pile``, ``k``, ``misere``,
            ``limit``, ``held``, ``rule`` (see :func:`position`).

    Raises:
        ValueError: a malformed position or agent spec.

    Example:
        >>> hint("nim", pile=13, k=3).best.name
        'take 1'
    """
    from playahead.agents import make_agent

    name = short_name(game)
    env, text = position(name, board, next_card, **position_options)
    spec = agent or default_agent(name)
    planner = make_agent(spec, seed=seed, **capped_budget(spec))
    if not hasattr(planner, "analyze"):
        raise ValueError(f"agent {spec!r} cannot analyze positions (no analyze())")
    analysis = calibrate(env, planner.analyze(env), planner)
    legal = map(int, np.flatnonzero(env.action_masks()))
    moves = []
    for a in sorted(legal, key=functools.partial(_order_key, analysis)):
        value = float(analysis.values[a])
        moves.append(MoveHint(a, _name(name, env, a), value, _why(analysis, a)))
    note = _note(planner, analysis)
    return Hint(f"{name} ({text})", spec, tuple(moves), analysis, note)


def exactness(analysis) -> tuple[bool, str]:
    """Whether every value of a two-player ``analysis`` is exact, and one line that
    says which: ``(True, "exact: solved by the Connect Four solver (1,234 nodes)")``,
    ``(False, "estimate: minimax's values 11 plies ahead, ...")``. Values that are
    neither solved nor depth-limited (expected scores, sampled results) give
    ``(False, "")``."""
    stats, kind = analysis.stats, analysis.value_kind
    if kind == "pons_score":
        nodes = stats.get("nodes", 0)
        return True, f"exact: solved by the Connect Four solver ({nodes:,} nodes)"
    unsolved = ""
    if stats.get("fallback") == "minimax":
        unsolved = f"not solved within the solver's {stats['budget']:,} nodes; "
    if kind == "solved":
        return True, f"exact: {unsolved}every move solved by minimax (win, draw, loss)"
    if kind == "heuristic":
        legal = int(np.isfinite(np.asarray(analysis.values, dtype=float)).sum())
        proven = sum(bool(e) for e in stats.get("exact", ()))
        depth = stats.get("depth", "?")
        return False, (
            f"estimate: {unsolved}minimax's values {depth} plies ahead, not exact "
            f"({proven} of {legal} moves solved)"
        )
    return False, ""


def _note(planner, analysis) -> str:
    """A line saying why the values may fall short, or "": the search stopped at its
    time limit, the solver did not solve the position (the values are minimax's), or
    the node budget stopped the search short of its depth (where no time limit ran
    the search)."""
    stats = analysis.stats
    limit = getattr(planner, "time_limit", None)
    # minimax without a depth means "solve it": heuristic values mean time ran out
    unsolved = (
        analysis.value_kind == "heuristic" and getattr(planner, "depth", 0) is None
    )
    if limit is not None and (unsolved or stats.get("seconds", 0.0) >= 0.9 * limit):
        return (
            f"the search stopped at its {limit:g} s limit, so the values may be "
            "shallow; allow more with --agent 'NAME:time_limit=SECONDS' (at most "
            f"{MAX_SECONDS:g})"
        )
    if stats.get("fallback") == "minimax":
        return (
            f"{exactness(analysis)[1]}; allow the solver more with --agent "
            f"'solver:budget=NODES' (at most {MAX_NODES:,})"
        )
    budget = stats["budget"] if "budget" in stats else getattr(planner, "budget", None)
    if not stats.get("budget_cut") or budget is None or limit:
        return ""
    return (
        f"the node budget ({budget:,} nodes) stopped the search at depth "
        f"{stats.get('depth')}, short of the depth it aimed at; allow more with "
        f"--agent 'NAME:budget=NODES' (at most {MAX_NODES:,})"
    )


# ----------------------------------------------------------------- the command


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``hint`` arguments to ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = (
        "The value of every legal move in a position you type in, best first, under\n"
        "a line naming the unit: the expected final score (e.g. 412,300) when the\n"
        "planner gives one, else what the value is (heuristic value, game result)."
    )
    parser.epilog = "examples:\n" + __doc__.split("Examples::\n\n")[1].split("\n\n")[0]
    parser.add_argument("game", help=f"one of {', '.join(GAMES)}")
    parser.add_argument("--board", help="rows split by '/', or a JSON list of rows")
    parser.add_argument("--board-file", type=Path, help="a file holding the board")
    parser.add_argument("--next", dest="next_card", help="Threes: the previewed card")
    parser.add_argument("--deck", help="Threes: 1s,2s,3s left in the deck (e.g. 4,3,4)")
    parser.add_argument("--score", type=int, default=0, help="2048: the score so far")
    parser.add_argument("--pile", type=int, help="Nim/Chips: sticks or chips left")
    parser.add_argument("--k", type=int, default=3, help="Nim: most sticks per take")
    parser.add_argument("--misere", action="store_true", help="Nim: last stick loses")
    parser.add_argument(
        "--limit", type=int, help="Chips: most chips the mover may take"
    )
    parser.add_argument("--held", help="Chips: chips held by the mover and the other")
    parser.add_argument(
        "--rule", default="last_chip", help="Chips: last_chip or even_total"
    )
    parser.add_argument(
        "--agent",
        help="planner spec, e.g. 'mcts:n_simulations=2000' (default: expectimax for "
        "threes and 2048, minimax for the others)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the planner's seed")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the hint for the position in ``args``."""
    board = args.board
    if args.board_file is not None:
        if board is not None:
            raise ValueError("give --board or --board-file, not both")
        board = read_board_file(args.board_file)
    result = hint(
        args.game,
        board,
        args.next_card,
        args.agent,
        seed=args.seed,
        deck=args.deck,
        score=args.score,
        pile=args.pile,
        k=args.k,
        misere=args.misere,
        limit=args.limit,
        held=args.held,
        rule=args.rule,
    )
    if args.json:
        moves = [dataclasses.asdict(m) for m in result.moves]
        json.dump(
            {
                "game": result.game,
                "agent": result.agent,
                "value_kind": result.analysis.value_kind,
                "unit": result.unit,
                "moves": moves,
                "note": result.note,
            },
            sys.stdout,
            indent=2,
        )
        print()
    else:
        print(result)
    return 0
