"""A hint for a Threes board typed by hand: the value of each of the four slides.

Type the board as you see it on your phone (rows top to bottom, ``.`` or ``0`` for an
empty cell) and the next card from the preview. The hint restores that exact position
in ``Threes-v0`` and asks a planner (expectimax by default) what each slide is worth:
the expected final score (or the heuristic evaluation) after searching ahead, with the
deck counted as a careful player would.

    python examples/threes_hint.py
    python examples/threes_hint.py --board "3 1 . . / 2 6 . . / . 3 . . / . . 1 2" \
        --next 3
"""

from __future__ import annotations

import argparse

from playahead.tools.hint import hint

BOARD = """
    1  2  .  3
    .  6  .  .
    .  .  3  .
    2  .  .  1
"""


def main(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", default=BOARD, help="rows split by '/' or lines")
    parser.add_argument("--next", default="2", help="the previewed card: 1, 2 or 3")
    parser.add_argument(
        "--agent", default="expectimax:depth=2", help="planner spec (depth = budget)"
    )
    args = parser.parse_args(argv)
    result = hint("threes", args.board, args.next, agent=args.agent)
    print(result)
    print(f"best: slide {result.best.name}")
    return result


if __name__ == "__main__":
    main()
