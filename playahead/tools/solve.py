"""``playahead solve connect4 MOVES``: every column's exact score, in words.

Examples::

    playahead solve connect4 4453            # the scores of columns 1-7, best first
    playahead solve connect4 4453 --json     # one JSON object
    playahead solve connect4 "" --node-budget 20000000000   # the empty board
    printf '4455\\n44554\\n' | playahead solve connect4 -   # one line a position

MOVES is the column string gamesolver.org and Pascal Pons' solver use: the columns
played in order, ``1``-``7`` from the left. Scores follow Pons' convention, from the
side to move: ``22 - n`` for a win with your ``n``-th disc, 0 for a draw, ``-(22 - n)``
for a loss to the opponent's ``n``-th disc (see
:mod:`playahead.games.connect_four_solver`).

Output: one line a column (``column 3: win with your 19th disc (+3)``), then the best
columns. ``--json`` prints ``{"moves", "discs", "solved", "scores", "best", "nodes"}``
with ``scores`` the seven columns' scores left to right (null for a full column) and
``best`` the best columns (1-7); a position not solved adds ``lower`` and ``upper``.
With ``-`` each line of stdin is a position and each answer is one line, as Pons'
``c4solver -a`` prints it: ``MOVES s1 s2 s3 s4 s5 s6 s7`` with ``-1000`` for a full
column (a column not solved within the budget prints ``LOW:HIGH``, its bounds), or a
JSON object a line with ``--json``; one table serves every line.

The search is capped by ``--node-budget`` nodes (default 100,000,000, at most
200,000,000,000); a position not solved within it is reported as not solved, with the
bounds the search proved. Bad input (a column outside 1-7, a full column, a move after
four in a row, a budget over the cap) gets one line on stderr and exit code 2; with
``-`` the other lines are still answered.
"""

from __future__ import annotations

import argparse
import json
import sys

#: Nodes a ``solve`` may search by default.
DEFAULT_NODES = 100_000_000
#: The cap (``connect_four_solver.MAX_NODE_BUDGET``; kept here so that ``--help`` does
#: not import numba).
MAX_NODES = 200_000_000_000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "MOVES: columns played, 1-7 from the left (gamesolver.org, Pons' solver); "
        "'-' reads one position a line from stdin. Scores (Pons): +n wins with your "
        "(22-n)th disc, 0 draws, -n loses to the opponent's (22-n)th disc."
    )
    parser.add_argument("game", choices=["connect4"], help="the game (connect4)")
    parser.add_argument("moves", metavar="MOVES", help="columns played, or '-'")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object a position"
    )
    parser.add_argument(
        "--node-budget",
        type=int,
        default=DEFAULT_NODES,
        help=f"search nodes a position may take (default {DEFAULT_NODES:,}, at most "
        f"{MAX_NODES:,})",
    )
    parser.set_defaults(func=run)


def to_json(moves: str, result) -> dict:
    """The ``--json`` object of ``result`` (a ``ColumnScores``) for ``moves``."""
    out = {
        "moves": moves,
        "discs": result.discs,
        "solved": result.solved,
        "scores": list(result.scores),
        "best": [c + 1 for c in result.best],
        "nodes": result.nodes,
    }
    if not result.solved:
        out["lower"] = list(result.lower)
        out["upper"] = list(result.upper)
    return out


def pons_line(moves: str, result) -> str:
    """``MOVES s1 .. s7`` as ``c4solver -a`` prints it (``LOW:HIGH`` if unsolved)."""
    parts = [moves]
    for lo, hi in zip(result.lower, result.upper, strict=True):
        if lo is None:
            parts.append("-1000")
        else:
            parts.append(str(lo) if lo == hi else f"{lo}:{hi}")
    return " ".join(parts)


def words(moves: str, result) -> str:
    """The answer in words, one line a column and the best columns."""
    from playahead.games.connect_four_solver import describe

    mover = "first" if result.discs % 2 == 0 else "second"
    lines = [
        f"position {moves or '(empty)'}: {result.discs} discs, the {mover} player "
        "to move"
    ]
    for col, (lo, hi) in enumerate(zip(result.lower, result.upper, strict=True)):
        if lo is None:
            text = "full"
        elif lo == hi:
            text = f"{describe(lo)} ({lo:+d})" if lo else "draw"
        else:
            text = f"not solved: between {lo:+d} and {hi:+d}"
        lines.append(f"column {col + 1}: {text}")
    best = result.best
    if result.solved:
        verdict = describe(result.lower[best[0]])
        lines.append(f"best: column {', '.join(str(c + 1) for c in best)} ({verdict})")
    else:
        floor = max(lo for lo in result.lower if lo is not None)
        open_cols = [
            c + 1 for c, hi in enumerate(result.upper) if hi is not None and hi >= floor
        ]
        lines.append(
            f"not solved within {result.nodes:,} nodes (raise --node-budget); not "
            f"proven worse than another: column {', '.join(map(str, open_cols))}"
        )
    lines.append(f"nodes: {result.nodes:,}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from playahead.games import connect_four_solver as c4s

    budget = c4s.check_budget(args.node_budget)
    solver = c4s.Solver()
    if args.moves != "-":
        result = solver.analyze(args.moves, budget)
        moves = args.moves.strip()
        print(json.dumps(to_json(moves, result)) if args.json else words(moves, result))
        return 0
    status = 0
    for n, line in enumerate(sys.stdin, 1):
        moves = line.strip()
        try:
            result = solver.analyze(moves, budget)
        except ValueError as err:
            print(f"playahead solve: line {n}: {err}", file=sys.stderr)
            status = 2
            continue
        out = (
            json.dumps(to_json(moves, result))
            if args.json
            else pons_line(moves, result)
        )
        print(out, flush=True)
    return status
