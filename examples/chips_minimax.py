"""The game of Chips, solved by minimax: which piles are won for the first player?

Chips (``Chips-v0``): ``n`` chips on the table; the first player takes some (not all),
then each player may take from 1 up to twice what the other just took. Two rule sets:

* ``last_chip`` (Fibonacci Nim): whoever takes the last chip wins. The first player
  loses exactly when ``n`` is a Fibonacci number (Zeckendorf's theorem at work).
* ``even_total`` (``n`` odd; the first move takes at most ``n // 2``): when the chips
  run out, the player holding an even number of them wins.

The script walks the whole game tree of each pile with a plain minimax over the
library's pure rules (:mod:`playahead.games.nim`), labels each start W (the first
player can force a win) or L, and checks a few labels against playahead's own
``minimax`` planner on the env:

    python examples/chips_minimax.py --max-chips 21
"""

from __future__ import annotations

import argparse
import functools

import gymnasium as gym
import numpy as np

import playahead
from playahead.games import nim


@functools.cache
def wins(state: tuple) -> bool:
    """True when the player to move in ``state`` can force a win."""
    if nim.is_terminal(state):
        return nim.winner(state) == nim.current_player(state)
    moves = np.flatnonzero(nim.legal_mask(state))  # action a takes a + 1 chips
    # a position is won if some move leaves the opponent in a lost position
    return any(not wins(tuple(int(x) for x in nim.apply(state, a))) for a in moves)


def labels(rule: str, max_chips: int) -> dict[int, str]:
    """``{n: "W" or "L"}`` for every legal pile size up to ``max_chips``."""
    sizes = range(3 if rule == "even_total" else 2, max_chips + 1)
    sizes = [n for n in sizes if rule == "last_chip" or n % 2 == 1]
    return {n: "W" if wins(nim.chips_state(n, rule)) else "L" for n in sizes}


def planner_says(n: int, rule: str) -> str:
    """The label playahead's minimax planner gives to the start of ``n`` chips."""
    env = gym.make("Chips-v0", n=n, rule=rule, opponent=None)
    env.reset(seed=0)
    analysis = playahead.make_agent("minimax").analyze(env)
    return "W" if max(analysis.values[env.unwrapped.action_masks()]) > 0 else "L"


def main(argv: list[str] | None = None) -> dict[str, dict[int, str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-chips", type=int, default=21, help="largest pile")
    args = parser.parse_args(argv)
    out = {}
    for rule in ("last_chip", "even_total"):
        out[rule] = found = labels(rule, args.max_chips)
        print(f"{rule}: " + " ".join(f"{n}{label}" for n, label in found.items()))
        losing = [n for n, label in found.items() if label == "L"]
        print(f"  the first player loses with {losing}")
        for n in list(found)[-2:]:  # the planner agrees on the largest piles
            assert planner_says(n, rule) == found[n], (rule, n)
    return out


if __name__ == "__main__":
    main()
