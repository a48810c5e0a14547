"""Speed of the expectimax planner, next to the plain-Python expectimax of the tests.

Depth is counted as in nneonneo's 2048-ai: depth ``d`` searches the first move and then
``d`` more moves, each after a chance node (so depth 6 looks 7 moves ahead); chance
branches below ``prob_cutoff = 1e-4`` are evaluated instead of expanded.

Prints, on the same 2048 positions (taken every 40 moves from seeded games of a
depth-1 expectimax): the compiled search's nodes/s and mean time per decision at depth
6 with the hand-made ``monotonic`` evaluator, the plain-Python search's; the compiled
and plain-Python searches at depth 1 (nodes/s, their ratio); and each game's default
search, over the net playahead ships for it. A node is a
position reached by a legal move, counted the same way in both searches.

``python -m benchmarks.speed.bench_expectimax --games 3 --game 2048`` also plays whole
games with the default agent and prints score, largest tile and time per move (minutes).
``--decisions`` times the default 2048 search alone on fixed positions
(:func:`decisions`), ``--count`` counts its instructions a decision under valgrind
(:func:`counted_decisions`), and ``--leaf-lookups`` (with ``NUMBA_DISABLE_JIT=1``)
counts its net lookups there (:func:`leaf_lookups`), to compare two checkouts.
"""

from __future__ import annotations

import argparse
import itertools
import time

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401
from benchmarks.common import Report, sampled_states
from benchmarks.speed import naive_expectimax as naive
from playahead.games import twenty48
from playahead.planners.expectimax import ExpectimaxAgent


def positions(env_id: str, n: int, every: int = 40) -> list:
    """``n`` states from seeded games of a depth-1 expectimax, one every ``every``."""
    agent = ExpectimaxAgent(depth=1, seed=0)
    return list(itertools.islice(sampled_states(env_id, agent, every), n))


def _time_agent(env, states, agent) -> tuple[int, float]:
    """(nodes, seconds) of ``agent.analyze`` over ``states``."""
    nodes, seconds = 0, 0.0
    for state in states:
        env.unwrapped.restore_state(state)
        start = time.perf_counter()
        analysis = agent.analyze(env)
        seconds += time.perf_counter() - start
        nodes += analysis.stats["nodes"]
    return nodes, seconds


def main(n_positions: int = 12) -> Report:
    report = Report("expectimax (depth = moves after the first, as nneonneo counts)")
    env = gym.make("2048-v0")
    states = positions("2048-v0", n_positions)
    hand = {"evaluator": "monotonic"}  # the plain-Python search's evaluator
    ExpectimaxAgent(depth=1, **hand).analyze(_restored(env, states[0]))  # compile

    nodes, seconds = _time_agent(env, states, ExpectimaxAgent(depth=6, seed=0, **hand))
    deep_rate = nodes / seconds
    report.add("2048", "compiled nodes/s, depth 6", deep_rate)
    report.add("2048", "compiled us/decision, depth 6", 1e6 * seconds / len(states))

    nodes, seconds = _time_agent(env, states, ExpectimaxAgent(depth=1, seed=0, **hand))
    stats = {"nodes": 0}
    start = time.perf_counter()
    for state in states:
        faces = twenty48.to_faces(state.board).tolist()
        naive.values_2048(faces, 1, 1e-4, stats=stats)
    naive_rate = stats["nodes"] / (time.perf_counter() - start)
    report.add(
        "2048", "compiled nodes/s, depth 1", nodes / seconds, "plain Python", naive_rate
    )
    report.add(
        "2048",
        "compiled nodes/s, depth 6",
        deep_rate,
        "plain Python, depth 1",
        naive_rate,
    )

    agent = ExpectimaxAgent(seed=0)  # the default: over the shipped net
    agent.analyze(_restored(env, states[0]))  # reads the net
    nodes, seconds = _time_agent(env, states, agent)
    report.add("2048", "compiled nodes/s, default", nodes / seconds)
    report.add("2048", "compiled us/decision, default", 1e6 * seconds / len(states))

    threes_env = gym.make("Threes-v0")
    threes_states = positions("Threes-v0", n_positions // 2)
    agent = ExpectimaxAgent(seed=0)
    agent.analyze(_restored(threes_env, threes_states[0]))
    nodes, seconds = _time_agent(threes_env, threes_states, agent)
    report.add("threes", "compiled nodes/s, default depth", nodes / seconds)
    report.add(
        "threes",
        "compiled us/decision, default depth",
        1e6 * seconds / len(threes_states),
    )
    return report


def _restored(env, state):
    env.unwrapped.restore_state(state)
    return env


def play(game: str, n_games: int, seed: int = 0, **options) -> list[dict]:
    """Play whole games with ``ExpectimaxAgent(**options)``; one result dict a game.

    Results: score, largest tile, moves, mean wall-clock and CPU milliseconds per
    move, the slowest move's CPU milliseconds, and nodes per CPU second.
    """
    env = gym.make("2048-v0" if game == "2048" else "Threes-v0")
    results = []
    seeds = np.random.SeedSequence(seed).generate_state(n_games)
    for game_seed in seeds:
        agent = ExpectimaxAgent(seed=int(game_seed), **options)
        _, info = env.reset(seed=int(game_seed))
        agent.analyze(env)  # compile or load the kernels outside the timing
        moves, nodes, wall, cpu, worst, over = 0, 0, 0.0, 0.0, 0.0, False
        while not over:
            start, start_cpu = time.perf_counter(), time.process_time()
            analysis = agent.analyze(env)
            wall += time.perf_counter() - start
            spent = time.process_time() - start_cpu
            cpu, worst = cpu + spent, max(worst, spent)
            nodes += analysis.stats["nodes"]
            _, _, over, _, info = env.step(analysis.action)
            moves += 1
        result = {
            "score": info["score"],
            "max_tile": info["max_tile"],
            "moves": moves,
            "ms_per_move": round(1000 * wall / moves, 1),
            "cpu_ms_per_move": round(1000 * cpu / moves, 1),
            "slowest_cpu_ms": round(1000 * worst),
            "nodes_per_cpu_second": round(nodes / max(cpu, 1e-9)),
        }
        print(game, options, result, flush=True)
        results.append(result)
    scores = [r["score"] for r in results]
    print(f"{game}: median score {np.median(scores):,.0f} over {n_games} games")
    return results


def decisions(
    n_games: int = 3, every: int = 200, first: int = 500, repeats: int = 3, states=None
):
    """The default 2048 search deciding the same positions (every ``every``-th from
    move ``first`` on of ``n_games`` seeded games of a depth-1 search): its CPU
    milliseconds a decision (the best of ``repeats`` passes), its nodes and a digest
    of its moves. Two checkouts running it compare their search's speed on the same
    work: equal nodes and digests mean the same decisions. ``states``: these
    positions instead."""
    import hashlib

    if states is None:
        states = list(sampled_states("2048-v0", ExpectimaxAgent(depth=1, seed=0),
                                     every, first, range(n_games)))  # fmt: skip
    env = gym.make("2048-v0")
    ExpectimaxAgent(seed=0).analyze(_restored(env, states[0]))  # compile or load
    best, nodes, moves = float("inf"), 0, []
    for _ in range(repeats):  # a new agent each pass: its budget reads its own past
        agent = ExpectimaxAgent(seed=0)
        spent, nodes, moves = 0.0, 0, []
        for state in states:
            _restored(env, state)
            start = time.thread_time()
            analysis = agent.analyze(env)
            spent += time.thread_time() - start
            nodes += analysis.stats["nodes"]
            moves.append(analysis.action)
        best = min(best, spent)
    digest = hashlib.sha256(bytes(moves)).hexdigest()[:12]
    ms = 1e3 * best / len(states)
    print(f"2048 default: {len(states)} positions, {ms:.2f} CPU ms a decision (best "
          f"of {repeats}), {nodes:,} nodes, moves {digest}")  # fmt: skip
    return {"positions": len(states), "ms": ms, "nodes": nodes, "moves": digest}


COUNTED = """
import sys
from benchmarks.speed.bench_expectimax import decisions
decisions(n_games=1, repeats=int(sys.argv[1]))
"""


def counted_decisions() -> float:
    """Instructions a decision of the default 2048 search on the positions of one
    game of :func:`decisions`, counted by valgrind's cachegrind: a run with one pass
    over them less a run with none (start-up, sampling the positions and loading the
    kernels cancel out), over the positions. A count does not move with the
    machine's load; ``PYTHONPATH`` picks the checkout counted."""
    import re

    from benchmarks.speed.count_td_instructions import difference

    extra, text = difference(COUNTED, "0", "1")
    positions = int(re.search(r"(\d+) positions", text).group(1))
    per = extra / positions
    print(f"2048 default: {positions} positions, {per:,.0f} instructions a decision")
    return per


def leaf_lookups(n_positions: int = 6, every: int = 150, first: int = 300) -> dict:
    """How many times the default 2048 search looks a leaf afterstate up in the net
    (:func:`playahead.kernels.expectimax._net_lookups`), and its nodes, on fixed
    positions (every ``every``-th from move ``first`` on of a seeded game of a depth-1
    search over ``features``). A count, not a time, so it is the same on any machine;
    the kernels must run as plain Python (``NUMBA_DISABLE_JIT=1``) for the count to
    see each call."""
    import numba

    from playahead.kernels import expectimax as kernels

    if not numba.config.DISABLE_JIT:
        raise SystemExit("--leaf-lookups counts calls: run it with NUMBA_DISABLE_JIT=1")
    agent = ExpectimaxAgent(depth=1, seed=0, evaluator="features")
    states = sampled_states("2048-v0", agent, every, first, range(1))
    states = list(itertools.islice(states, n_positions))
    calls = [0]
    lookups = kernels._net_lookups

    def counted(*args):
        calls[0] += 1
        return lookups(*args)

    kernels._net_lookups = counted
    try:
        env, search, nodes = gym.make("2048-v0"), ExpectimaxAgent(seed=0), 0
        for state in states:
            nodes += search.analyze(_restored(env, state)).stats["nodes"]
    finally:
        kernels._net_lookups = lookups
    print(f"2048 default: {len(states)} positions, {calls[0]:,} leaf lookups, "
          f"{nodes:,} nodes")  # fmt: skip
    return {"positions": len(states), "lookups": calls[0], "nodes": nodes}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=0, help="also play N games")
    parser.add_argument("--game", choices=("2048", "threes"), default="2048")
    parser.add_argument("--depth", type=int, default=None, help="None: automatic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--decisions", action="store_true", help="time the default 2048 search alone"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="--decisions: passes, the best counts"
    )
    parser.add_argument(
        "--count",
        action="store_true",
        help="count the default 2048 search's instructions a decision (valgrind)",
    )
    parser.add_argument(
        "--leaf-lookups",
        action="store_true",
        help="count the default 2048 search's leaf lookups (NUMBA_DISABLE_JIT=1)",
    )
    args = parser.parse_args()
    if args.leaf_lookups:
        leaf_lookups()
    elif args.count:
        counted_decisions()
    elif args.decisions:
        decisions(repeats=args.repeats)
    elif args.games:
        play(args.game, args.games, args.seed, depth=args.depth)
    else:
        main().print()
