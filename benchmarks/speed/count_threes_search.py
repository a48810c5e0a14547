"""Instructions a decision of the default Threes search (``ExpectimaxAgent()``: the
shipped net at its leaves, the automatic depth), counted by valgrind's cachegrind on
fixed positions, to compare two checkouts' searches exactly on a loaded machine.

The positions: every 100th from move 100 on of two seeded games (seeds 0 and 1) of a
depth-2 search over the same net, sampled once in this process (natively) and handed
to the counted runs as a JSON file. The counted script is run twice under ``valgrind
--tool=cachegrind --cache-sim=no`` (after a first run that compiles the kernels for
valgrind's CPU): deciding every position once with a new agent, and deciding none; the
difference over the positions is the count a decision (start-up, imports, loading
the net and the kernels cancel out). It prints the positions' and the moves'
digests: two checkouts that print the same digests decided the same work the same
way. ``--checkout DIR`` (else ``PYTHONPATH``) picks the checkout counted; the
counted script uses only what older checkouts have too.

``--time ROUNDS`` times the same decisions instead (CPU seconds, thread time, the best
of three passes a round, each round a new process), to pair two checkouts in turn.

Run: ``python -m benchmarks.speed.count_threes_search [--checkout DIR] [--time
ROUNDS]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COUNTED = """
import hashlib, json, sys, time
import gymnasium as gym
import playahead
from playahead.envs.tiles import ThreesState
from playahead.planners.expectimax import ExpectimaxAgent

states = [ThreesState(**row) for row in json.load(open(sys.argv[2]))]
env = gym.make("Threes-v0")


def restored(state):
    env.unwrapped.restore_state(state)
    return env


ExpectimaxAgent(seed=0).analyze(restored(states[0]))  # loads the net and kernels
best, moves, nodes = float("inf"), [], 0
for _ in range(int(sys.argv[1])):
    agent = ExpectimaxAgent(seed=0)  # its budget reads its own past: a new one
    moves, nodes, spent = [], 0, 0.0
    for state in states:
        start = time.thread_time()
        analysis = agent.analyze(restored(state))
        spent += time.thread_time() - start
        moves.append(analysis.action)
        nodes += analysis.stats["nodes"]
    best = min(best, spent)
digest = hashlib.sha256(bytes(moves)).hexdigest()[:12]
print(f"{len(states)} positions, {nodes} nodes, moves {digest}, "
      f"{1e3 * best / len(states):.2f} CPU ms a decision")
"""


def positions(n_games: int = 2, every: int = 100, first: int = 100) -> list[dict]:
    """The fixed positions (module docstring), as ``ThreesState`` fields."""
    import playahead  # noqa: F401  (registers the envs)
    from benchmarks.common import sampled_states
    from playahead.planners.expectimax import ExpectimaxAgent

    agent = ExpectimaxAgent(depth=2, seed=0)
    states = sampled_states("Threes-v0", agent, every, first, range(n_games))
    return [{k: _plain(v) for k, v in dataclasses.asdict(s).items()} for s in states]


def _plain(value):
    """A JSON value of a state field (numpy integers as int)."""
    if isinstance(value, bool | str):
        return value
    return int(value)


def _digest(states: list[dict]) -> str:
    return hashlib.sha256(json.dumps(states, sort_keys=True).encode()).hexdigest()[:12]


def counted(states: list[dict]) -> tuple[float, str]:
    """Instructions a decision over ``states``, and the counted run's line."""
    from benchmarks.speed.count_td_instructions import _count

    with tempfile.TemporaryDirectory(prefix="cg-threes-") as work:
        script, data = Path(work) / "run.py", Path(work) / "positions.json"
        script.write_text(COUNTED)
        data.write_text(json.dumps(states))
        cmd = [sys.executable, str(script)]
        _count(cmd + ["0", str(data)], work)  # compiles for valgrind's CPU, once
        base, _ = _count(cmd + ["0", str(data)], work)
        total, text = _count(cmd + ["1", str(data)], work)
    return (total - base) / len(states), text.strip()


def timed(states: list[dict], rounds: int) -> list[str]:
    """The counted script's line of each of ``rounds`` native runs (best of three
    passes each)."""
    lines = []
    with tempfile.TemporaryDirectory(prefix="threes-") as work:
        script, data = Path(work) / "run.py", Path(work) / "positions.json"
        script.write_text(COUNTED)
        data.write_text(json.dumps(states))
        for _ in range(rounds):
            lines.append(
                subprocess.run(
                    [sys.executable, str(script), "3", str(data)],
                    cwd=work,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()  # fmt: skip
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--time",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="instead of counting, time the decisions in ROUNDS new processes",
    )
    parser.add_argument(
        "--checkout",
        default=None,
        metavar="DIR",
        help="count (or time) the search of this checkout (default: PYTHONPATH's)",
    )
    args = parser.parse_args(argv)
    states = positions()
    if args.checkout:
        os.environ["PYTHONPATH"] = str(Path(args.checkout).resolve())
    print(f"positions {_digest(states)}")
    if args.time > 0:
        for line in timed(states, args.time):
            print(line)
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return
    per, line = counted(states)
    nodes = int(re.search(r"(\d+) nodes", line).group(1))
    print(line.rpartition(",")[0])
    print(f"threes default: {per:,.0f} instructions a decision ({nodes:,} nodes)")


if __name__ == "__main__":
    main()
