"""``playahead play``: play a game in the terminal, with hints from a planner.

Three modules, one job each: :mod:`.session` keeps the game and takes key names
(tested without a terminal), :mod:`.drawing` turns a session into text, and
:mod:`.input` decodes a terminal's key bytes and runs the tty loop (with a timer for
autoplay). This module is the command line.

Keys (every game): ``h`` shows the hint (each legal move's value from ``--agent``,
under its unit: ``hint mcts (expected final score):  left 41,230*``), ``p``
toggles autoplay (``--agent`` plays your moves), ``n`` starts a new game, ``q``
quits.

* Threes, 2048: arrow keys or ``w``/``a``/``s``/``d`` slide the tiles.
* Tic-tac-toe: the digit of a cell (as drawn on the empty cells, from 0; boards up to
  3x3) marks it; or arrows/``wasd`` move the cursor and Enter/space marks the cell.
* Connect Four: digits ``0``-``6`` (as drawn under the board) drop a disc in that
  column; or left/right move the cursor and Enter/space/down drops.
* Nim, Chips: digits ``1``-``9`` take that many; or up/down (left/right) change the
  amount and Enter/space takes it.

``w``/``a``/``s``/``d`` are moves, so autoplay is ``p`` (not ``a``).

Searches are capped as ``playahead hint`` caps them
(:func:`~playahead.tools.games.capped_budget`); a spec over a cap is refused at
start-up.
"""

from __future__ import annotations

import argparse
import sys

from playahead.tools.gamefile import check_folder
from playahead.tools.games import (
    add_game_arguments,
    check_capped_spec,
    default_agent,
    get_game,
    parse_rules,
    strip_ansi,
)
from playahead.tools.play.drawing import KEYS, status


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead play``."""
    add_game_arguments(parser)
    parser.add_argument(
        "--agent",
        default=None,
        help="planner spec for hints and autoplay, with its settings, e.g. "
        "'expectimax:depth=3' or 'mcts:n_simulations=2000' (default: expectimax for "
        "threes/2048, minimax for the others)",
    )
    parser.add_argument(
        "--side", type=int, default=0, choices=(0, 1), help="your side (0 moves first)"
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=0.25,
        help="seconds between autoplay moves (default 0.25)",
    )
    parser.add_argument(
        "--save",
        metavar="FILE",
        help="write the game file here after every move (for playahead review); a "
        "new game of the session goes to FILE-2.json, FILE-3.json, ...",
    )
    parser.epilog = KEYS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead play``."""
    from playahead.tools.play.input import run_tty
    from playahead.tools.play.session import WHERE, Session

    game = get_game(args.game)
    specs = [args.agent or default_agent(game), args.opponent][: game.num_players]
    for spec in specs:  # a spec over a cap is refused before the terminal is needed
        check_capped_spec(spec, WHERE)
    check_folder(args.save)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ValueError(
            "playahead play needs an interactive terminal (stdin and stdout); "
            "use 'playahead watch' to let an agent play, or 'playahead serve' for "
            "the browser"
        )
    if args.delay < 0:
        raise ValueError(f"--delay must be >= 0, got {args.delay}")
    session = Session(
        args.game,
        agent=args.agent,
        opponent=args.opponent,
        side=args.side,
        seed=args.seed,
        rules=parse_rules(args.rule),
        save=args.save,
    )
    run_tty(session, sys.stdin.fileno(), sys.stdout, args.delay)
    print(strip_ansi(status(session)) or "bye")
    if args.save:
        print(f"game file: {session.game_path()} (playahead review)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m playahead.tools.play ...`` (the same as ``playahead play ...``)."""
    parser = argparse.ArgumentParser(prog="playahead play")
    configure(parser)
    return run(parser.parse_args(argv))
