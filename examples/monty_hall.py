"""The Monty Hall problem, by simulation: should you switch doors?

A car is behind one of three doors, goats behind the other two. You pick a door; the
host, who knows where the car is, opens another door with a goat behind it and offers
you the last closed door. Staying wins when your first pick was the car (1 time in 3);
switching wins every other time (2 in 3). Run it and see:

    python examples/monty_hall.py --games 100000
"""

from __future__ import annotations

import argparse

import numpy as np


def play(n_games: int, seed: int = 0) -> tuple[float, float]:
    """Play ``n_games`` and return the share won by staying and by switching."""
    rng = np.random.default_rng(seed)
    car = rng.integers(3, size=n_games)
    pick = rng.integers(3, size=n_games)
    # The host opens a goat door that is not your pick: of the two others, a goat one
    # (when you picked the car, both others hide goats: he chooses at random).
    offset = rng.integers(1, 3, size=n_games)  # 1 or 2 doors to the right of your pick
    host = (pick + offset) % 3
    host = np.where(host == car, (pick + 3 - offset) % 3, host)
    switch_to = 3 - pick - host  # the one door that is neither yours nor opened
    return float(np.mean(pick == car)), float(np.mean(switch_to == car))


def main(argv: list[str] | None = None) -> tuple[float, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="games to play")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    stay, switch = play(args.games, args.seed)
    print(f"{args.games:,} games: staying wins {stay:.1%}, switching wins {switch:.1%}")
    return stay, switch


if __name__ == "__main__":
    main()
