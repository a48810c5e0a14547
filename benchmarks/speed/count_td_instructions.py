"""Instructions a move of online TD(0) on 2048, ours beside TDL2048+, counted by
valgrind's cachegrind: a count does not move with the machine's load, as CPU seconds
do on a shared machine, so it compares two checkouts' trainers exactly.

Each side is run twice under ``valgrind --tool=cachegrind --cache-sim=no``: with
``--games`` games and with none (ours: the same process that trains 0 games; TDL2048+:
one game, ``-t 1x1``), and the difference, over the moves played, is the count a move
(start-up, imports and compiling cancel out; Python's hash seed is fixed, so the
start-up counts the same each time, and OpenBLAS runs no threads of its own, whose
idle spinning counted some ten million instructions more or less from run to run).
Ours: the 4 x 6-tuples from zeros, online TD(0) at rate 0.1, seed 0 (``online=True``,
as ``python -m benchmarks ntuple``); TDL2048+: ``./2048 -n 4x6patt -t 1xN -s 1`` (its
default, online TD(0)), built as :mod:`benchmarks.speed.bench_ntuple` builds it.
The first run under valgrind compiles our kernels for valgrind's CPU (minutes); they
are cached after. ``PYTHONPATH`` picks the checkout whose trainer is counted (the
script uses only what older checkouts have too).

``--time ROUNDS`` times the same training of ours instead, without valgrind: the
CPU seconds (thread time) of each of ROUNDS runs, each in a new process; run it in
two checkouts in turn for an A/B pair on one machine.

Run: ``python -m benchmarks.speed.count_td_instructions [--games 2000] [--time
ROUNDS]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OURS = """
import sys, time, numpy as np
from playahead.games import twenty48
from playahead.kernels import td
from playahead.kernels.ntuple import pattern_runs, symmetric_cells
from playahead.ntuple.model import DEFAULT_PATTERNS
games = int(sys.argv[1])
cells = [[int(c, 16) for c in p] for p in DEFAULT_PATTERNS]
runs = pattern_runs(symmetric_cells(cells))
w = np.zeros((len(DEFAULT_PATTERNS), 1, 16**6), np.float32)
g = td.td_game(0, w, runs, [], *twenty48.TABLES)
empty = np.zeros(0, np.float32)
out = np.empty((max(games, 1), 3), np.int64)
def train(n):
    return td.run_games(g, n, 0.1, 0.0, False, np.random.default_rng(0), out,
                        (empty, empty), td.NO_STARTS + (0.0,), 0.0, None, True)
train(0)  # loads the compiled kernel, outside the clock
t = time.thread_time()
n = train(games)
print(n, time.thread_time() - t)
"""


def _count(command: list[str], cwd: str) -> tuple[int, str]:
    """Instructions cachegrind counted for ``command``, and its standard output."""
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp:
        out = Path(tmp) / "cg.out"
        run = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no",
             f"--cachegrind-out-file={out}", f"--log-file={Path(tmp) / 'log'}",
             *command],
            cwd=cwd, capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"},
        )  # fmt: skip
        total = re.search(r"^summary: (\d+)", out.read_text(), re.M)
        return int(total.group(1)), run.stdout


def difference(script: str, none: str, some: str) -> tuple[int, str]:
    """Instructions a run of the Python ``script`` with the argument ``some`` takes
    beyond a run with ``none`` (after a first run that compiles our kernels for
    valgrind's CPU), and the output of the run with ``some``."""
    with tempfile.TemporaryDirectory(prefix="cg-run-") as work:
        path = Path(work) / "run.py"
        path.write_text(script)
        cmd = [sys.executable, str(path)]
        _count(cmd + [none], work)  # compiles for valgrind's CPU, once
        base, _ = _count(cmd + [none], work)
        total, text = _count(cmd + [some], work)
        return total - base, text


def ours(games: int) -> float:
    """Our instructions a move over ``games`` games."""
    extra, text = difference(OURS, "0", str(games))
    return extra / int(text.split()[0])


def tdl(games: int) -> float | None:
    """TDL2048+'s instructions a move over ``games`` games (None without its
    source)."""
    from benchmarks.speed.bench_ntuple import _tdl_moves, build_tdl

    binary = build_tdl()
    if binary is None:
        return None
    with tempfile.TemporaryDirectory(prefix="cg-tdl-") as work:
        head = [str(binary), "-n", "4x6patt", "-s", "1", "-t"]
        base, _ = _count(head + ["1x1"], work)
        total, text = _count(head + [f"1x{games}"], work)
        return (total - base) / _tdl_moves(text)


def timed(games: int, rounds: int) -> list[float]:
    """CPU seconds of our ``games`` games, without valgrind, each round in a new
    process (the kernel loaded from numba's cache outside the clock)."""
    with tempfile.TemporaryDirectory(prefix="td0-") as work:
        script = Path(work) / "train.py"
        script.write_text(OURS)
        runs = []
        for _ in range(rounds):
            text = subprocess.run(
                [sys.executable, str(script), str(games)],
                cwd=work, capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            runs.append(float(text.split()[1]))
        return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument(
        "--time",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="instead of counting, time ours (CPU seconds) in ROUNDS new processes",
    )
    args = parser.parse_args(argv)
    if args.time > 0:
        runs = timed(args.games, args.time)
        shown = ", ".join(f"{r:.2f}" for r in runs)
        print(f"ours: {args.games} games in {shown} CPU s (thread time)")
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return
    theirs = tdl(args.games)
    mine = ours(args.games)
    print(f"ours: {mine:,.0f} instructions a move ({args.games} games)")
    if theirs is None:
        print("TDL2048+: its source is not beside the repository")
    else:
        print(f"TDL2048+: {theirs:,.0f} instructions a move ({args.games} games)")


if __name__ == "__main__":
    main()
