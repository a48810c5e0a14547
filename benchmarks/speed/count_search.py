"""Instructions a decision of a game's default search (``ExpectimaxAgent()``: the
shipped net at its leaves, the automatic depth), counted by valgrind's cachegrind on
fixed positions, to compare two checkouts' searches exactly on a loaded machine.

``--game threes`` (the default) or ``--game 2048``. The positions: from two seeded
games (seeds 0 and 1) of a depth-2 search over the same net, every 100th from move
100 on for Threes (40 positions), every 2000th from move 2000 on for 2048 (16: its
games are longer), sampled once in this process (natively) and handed to the counted
runs as a JSON file. The counted script is run twice under ``valgrind
--tool=cachegrind --cache-sim=no`` (after a first run that decides every position, to
compile every kernel the decisions use for valgrind's CPU: a kernel first met past
the first position would otherwise be compiled in the counted run): deciding every
position once with a new agent, and deciding none; the difference over the positions
is the count a decision (start-up, imports, loading the net and the kernels cancel
out). It prints the positions' and the moves' digests: two checkouts that print the
same digests decided the same work the same way. ``--checkout DIR`` (else
``PYTHONPATH``) picks the checkout counted; the counted script uses only what older
checkouts have too.

``--time ROUNDS`` times the same decisions instead (CPU seconds, thread time, the best
of three passes a round, each round a new process), to pair two checkouts in turn.

Run: ``python -m benchmarks.speed.count_search [--game {threes,2048}] [--checkout
DIR] [--time ROUNDS]``.
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


@dataclasses.dataclass(frozen=True)
class Game:
    """A game counted: its env id, its state class (in ``playahead.envs.tiles``) and
    its fixed positions, every ``every``-th move from move ``first`` on."""

    env_id: str
    state: str
    every: int
    first: int


GAMES = {
    "threes": Game("Threes-v0", "ThreesState", every=100, first=100),
    "2048": Game("2048-v0", "Twenty48State", every=2000, first=2000),
}


def script(game: str) -> str:
    """The counted script of ``game``: :data:`COUNTED` with its env and state class."""
    spec = GAMES[game]
    text = COUNTED.replace('"Threes-v0"', f'"{spec.env_id}"')
    return text.replace("ThreesState", spec.state)


def positions(game: str = "threes", n_games: int = 2) -> list[dict]:
    """The fixed positions of ``game`` (module docstring), as its state's fields."""
    import playahead  # noqa: F401  (registers the envs)
    from benchmarks.common import sampled_states
    from playahead.planners.expectimax import ExpectimaxAgent

    spec = GAMES[game]
    agent = ExpectimaxAgent(depth=2, seed=0)
    seeds = range(n_games)
    states = sampled_states(spec.env_id, agent, spec.every, spec.first, seeds)
    return [{k: _plain(v) for k, v in dataclasses.asdict(s).items()} for s in states]


def _plain(value):
    """A JSON value of a state field (numpy integers as int)."""
    if isinstance(value, bool | str):
        return value
    return int(value)


def _digest(states: list[dict]) -> str:
    return hashlib.sha256(json.dumps(states, sort_keys=True).encode()).hexdigest()[:12]


def counted(states: list[dict], game: str = "threes") -> tuple[float, str]:
    """Instructions a decision of ``game``'s search over ``states``, and the counted
    run's line."""
    from benchmarks.speed.count_td_instructions import _count

    with tempfile.TemporaryDirectory(prefix=f"cg-{game}-") as work:
        path, data = Path(work) / "run.py", Path(work) / "positions.json"
        path.write_text(script(game))
        data.write_text(json.dumps(states))
        cmd = [sys.executable, str(path)]
        # compiles for valgrind's CPU, once, every kernel the decisions use
        _count(cmd + ["1", str(data)], work)
        base, _ = _count(cmd + ["0", str(data)], work)
        total, text = _count(cmd + ["1", str(data)], work)
    return (total - base) / len(states), text.strip()


def timed(states: list[dict], rounds: int, game: str = "threes") -> list[str]:
    """The counted script's line of each of ``rounds`` native runs of ``game`` (best
    of three passes each)."""
    lines = []
    with tempfile.TemporaryDirectory(prefix=f"{game}-") as work:
        path, data = Path(work) / "run.py", Path(work) / "positions.json"
        path.write_text(script(game))
        data.write_text(json.dumps(states))
        for _ in range(rounds):
            lines.append(
                subprocess.run(
                    [sys.executable, str(path), "3", str(data)],
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
        "--game",
        choices=tuple(GAMES),
        default="threes",
        help="the game whose default search is counted (default: threes)",
    )
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
    states = positions(args.game)
    if args.checkout:
        os.environ["PYTHONPATH"] = str(Path(args.checkout).resolve())
    print(f"positions {_digest(states)}")
    if args.time > 0:
        for line in timed(states, args.time, args.game):
            print(line)
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count")
        return
    per, line = counted(states, args.game)
    nodes = int(re.search(r"(\d+) nodes", line).group(1))
    print(line.rpartition(",")[0])
    print(f"{args.game} default: {per:,.0f} instructions a decision ({nodes:,} nodes)")


if __name__ == "__main__":
    main()
