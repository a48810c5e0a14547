"""n-tuple TD training throughput on 2048: TD updates per CPU second.

Measures ``playahead.ntuple._td.train_games`` (one kernel per batch of games: the
greedy move over the afterstates, the env step and the backward TD pass, with the
weight indices of each chosen afterstate kept for the backward pass and the loads
prefetched) against the unfused loop it replaced, measured in the same run: that loop
(:func:`unfused_games`, the code before this benchmark existed) calls ``value`` for
every afterstate and ``value`` + ``update`` for every TD step. Both start from the same
network and the same seed and must end with identical weights (checked).

The start network matters (a trained net plays long games whose lookups miss the
cache): by default it is TDL2048-Demo's 4 x 6-tuples after ``--warmup`` (5,000)
training games from zeros with seed 0 (not timed; mean score about 16k, games of about
750 moves); ``--start DIR`` takes a saved 2048 model instead. CPU time is
``time.process_time`` (the machine may be shared); each side runs ``--repeats`` times
from the same start and the best rate counts. The report also gives the ratio to the
2.3-6.5 M updates/s per core quoted for C++ (issue 10).

Run: ``python -m benchmarks ntuple`` or ``python benchmarks/bench_ntuple.py [--games
200] [--repeats 3] [--warmup 5000 | --start DIR]``.
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from benchmarks.common import Report
from playahead.games import twenty48
from playahead.ntuple import _kernels as k
from playahead.ntuple import _td
from playahead.ntuple.model import DEFAULT_PATTERNS, NTupleModel, load_model

WARMUP = 5000
ONE_STAGE = np.zeros(0, np.int64)  # the net has one stage
CPP_RATES = (2.3e6, 6.5e6)


@nb.njit(cache=True)
def unfused_games(n_games, alpha, weights, cells, rng, moves, rewards):
    """The replaced 2048 training loop: ``value`` per afterstate while playing, then
    ``value`` + ``update`` (which re-reads the value) per backward TD step."""
    afters = np.empty(_td.MAX_MOVES, np.uint64)
    gains = np.empty(_td.MAX_MOVES, np.int64)
    per = alpha / (8 * cells.shape[0])
    updates = 0
    for _ in range(n_games):
        board = twenty48.new_game(rng)
        n = 0
        while True:
            best, best_after, best_r = -np.inf, board, np.int64(-1)
            for a in range(4):
                after, r = twenty48.move(board, a, moves, rewards)
                if r >= 0:
                    v = r + k.value(after, 0, weights, cells)
                    if v > best:
                        best, best_after, best_r = v, after, r
            if best_r < 0:
                break
            if n > 0:
                gains[n - 1] += best_r
            afters[n], gains[n] = best_after, 0
            board = twenty48.spawn(best_after, rng)
            n += 1
        exact = 0.0
        for t in range(n - 1, -1, -1):
            error = exact - k.value(afters[t], 0, weights, cells)
            v = k.update(afters[t], 0, per * error, weights, cells)
            if t > 0:
                exact = gains[t - 1] + v
        updates += n
    return updates


def _start_model(start, warmup: int) -> NTupleModel:
    """The saved model ``start``, or the default net after ``warmup`` games."""
    if start is not None:
        return load_model(start, "2048-v0")
    model = NTupleModel.new("2048-v0", DEFAULT_PATTERNS)
    none = np.zeros(0, np.float32)
    _td.train_games(
        0,
        warmup,
        0.1,
        0.0,
        False,
        model.weights,
        k.pattern_runs(model.cells),
        np.random.default_rng(0),
        *twenty48.TABLES,
        0,
        np.empty((warmup, 3), np.int64),
        none,
        none,
        ONE_STAGE,
        *_td.NO_STARTS,
        0.0,
    )
    model.meta["games"] = warmup
    return model


def measure(
    games: int = 200, repeats: int = 3, start=None, seed: int = 1, warmup=WARMUP
) -> dict:
    """Best updates per CPU second of both loops over ``games`` games from ``start``
    (a model directory, or None: the default net after ``warmup`` games).

    Returns:
        ``{"fused": rate, "unfused": rate, "updates": n, "games": games}``.

    Raises:
        AssertionError: the two loops ended with different weights.
    """
    model = _start_model(start, warmup)
    moves, rewards = twenty48.TABLES
    cells = model.cells
    runs = k.pattern_runs(cells)
    none = np.zeros(0, np.float32)
    rows = np.empty((games, 3), np.int64)

    def fused(w, rng):
        return _td.train_games(
            0,
            games,
            0.1,
            0.0,
            False,
            w,
            runs,
            rng,
            moves,
            rewards,
            0,
            rows,
            none,
            none,
            ONE_STAGE,
            *_td.NO_STARTS,
            0.0,
        )

    def unfused(w, rng):
        return unfused_games(games, 0.1, w, cells, rng, moves, rewards)

    small = NTupleModel.new("2048-v0", ("01",))  # compile outside the clock
    small_runs = k.pattern_runs(small.cells)
    _td.train_games(
        0,
        1,
        0.1,
        0.0,
        False,
        small.weights,
        small_runs,
        np.random.default_rng(0),
        moves,
        rewards,
        0,
        rows[:1],
        none,
        none,
        ONE_STAGE,
        *_td.NO_STARTS,
        0.0,
    )
    unfused_games(
        1, 0.1, small.weights, small.cells, np.random.default_rng(0), moves, rewards
    )
    best, final, updates = {}, {}, 0
    for _ in range(repeats):
        for name, fn in (("fused", fused), ("unfused", unfused)):
            w = model.weights.copy()
            t0 = time.process_time()
            updates = int(fn(w, np.random.default_rng(seed)))
            rate = updates / max(time.process_time() - t0, 1e-9)
            best[name] = max(best.get(name, 0.0), rate)
            final[name] = w
    if not np.array_equal(final["fused"], final["unfused"]):
        raise AssertionError("the fused and unfused loops learned different weights")
    return {**best, "updates": updates, "games": games, "from": model.meta["games"]}


def main(argv: list[str] | None = None) -> Report:
    """Measure and return the report (``python -m benchmarks ntuple``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=WARMUP)
    parser.add_argument("--start", default=None, help="a saved 2048 model directory")
    args = parser.parse_args([] if argv is None else argv)
    r = measure(args.games, args.repeats, args.start, warmup=args.warmup)
    report = Report(
        f"n-tuple TD(0) on 2048, {r['updates']:,} updates over {r['games']} games "
        f"from a net after {r['from']:,} games, best of {args.repeats}"
    )
    report.add("2048", "TD updates / CPU s", r["fused"], "unfused loop", r["unfused"])
    for rate in CPP_RATES:
        report.add("2048", "TD updates / CPU s", r["fused"], "C++ (issue 10)", rate)
    return report


if __name__ == "__main__":
    import sys

    main(sys.argv[1:]).print()
