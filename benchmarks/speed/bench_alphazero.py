"""AlphaZero self-play throughput: the shipped Connect Four net frozen for inference
(:func:`playahead.alphazero.net.frozen`, what training's workers play with) against
the same net run eagerly, in the same run.

Both play the same seeded self-play games (``self_play``, all at once, so a net call
evaluates up to ``--games`` positions as a training worker's 128 slots do; 40
simulations a move) on one torch thread, in turn, ``--rounds`` times. Prints the
net's positions evaluated per CPU second of each, their ratio (frozen / eager; above
1 is faster), and how many of the games came out move for move the same: the frozen
net computes the same function up to float rounding, so a game may differ where two
moves tie to the last bits.

Run: ``python benchmarks/speed/bench_alphazero.py [--games 128] [--rounds 1]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _play(net, games: int, settings):
    from playahead.alphazero.kernels import CONNECT_FOUR
    from playahead.alphazero.search import self_play

    start = time.process_time()
    out = self_play(CONNECT_FOUR, net, list(range(games)), 0, 0, settings)
    return out, time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    """Measure and print; ``argv`` are this script's options (None: the defaults, as
    when ``python -m benchmarks`` runs it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args([] if argv is None else argv)
    import torch

    from playahead.alphazero.agent import shipped_net_path
    from playahead.alphazero.net import frozen, load_net
    from playahead.alphazero.search import SelfPlaySettings

    torch.set_num_threads(1)
    net, _ = load_net(shipped_net_path("ConnectFour-v0"))
    settings = SelfPlaySettings(n_simulations=40, slots=args.games)
    fast = frozen(net, args.games)
    _play(fast, 2, settings)  # warm both: numba kernels, oneDNN's first calls
    _play(net, 2, settings)
    rates = {"eager": [], "frozen": []}
    for _ in range(args.rounds):
        a, t_eager = _play(net, args.games, settings)
        b, t_frozen = _play(fast, args.games, settings)
        rates["eager"].append(a.positions_evaluated / t_eager)
        rates["frozen"].append(b.positions_evaluated / t_frozen)
        same = sum(
            np.array_equal(x, y)
            for x, y in zip(
                np.split(a.obs, np.cumsum(a.lengths)[:-1]),
                np.split(b.obs, np.cumsum(b.lengths)[:-1]),
                strict=True,
            )
        )
    eager, fast_rate = np.median(rates["eager"]), np.median(rates["frozen"])
    print(
        f"AlphaZero self-play, Connect Four, {args.games} games x {args.rounds} "
        "rounds, 40 simulations a move, one thread"
    )
    print(f"  eager net:  {eager:,.0f} positions evaluated / CPU s (median)")
    print(f"  frozen net: {fast_rate:,.0f} positions evaluated / CPU s (median)")
    print(f"  ratio frozen / eager: {fast_rate / eager:.2f}x")
    print(f"  games the same move for move (last round): {same} of {args.games}")


if __name__ == "__main__":
    main(sys.argv[1:])
