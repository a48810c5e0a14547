"""Throughput of the head-to-head evaluator, each next to a baseline from the same run.

Prints, for 2048 with the ``random`` agent: games/s of a bare loop (``gym.make``,
``make_agent`` and ``act``/``step``, nothing stored) as the baseline; ``evaluate`` in
this process with games kept in memory (the cost of seeding, timing and summaries);
with every game committed to a SQLite store (the cost of never losing a game); and
with a pool of 2 worker processes (this includes starting them, about a second each;
the pool pays off for agents that think longer than that per game). Times are
printed, never asserted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np

import playahead
from benchmarks.common import Report, timed
from playahead.evaluate import evaluate

N_GAMES = 300


def bare_loop(n_games: int) -> None:
    env = gym.make("2048-v0")
    seeds = np.random.SeedSequence(0).spawn(n_games)
    for child in seeds:
        seed = int(child.generate_state(1)[0])
        env.reset(seed=seed)
        agent = playahead.make_agent("random", seed=seed)
        while env.unwrapped.action_masks().any():
            env.step(agent.act(env))


def main() -> Report:
    report = Report("head-to-head evaluator (2048, random agent, games/s)")
    bare_loop(5)  # warm up compiled kernels
    _, base = timed(lambda: bare_loop(N_GAMES))
    base_rate = N_GAMES / base
    report.add("2048", "bare act/step loop", base_rate)
    kw = dict(n_games=N_GAMES, seed=0, n_resamples=200)
    _, t = timed(lambda: evaluate("2048-v0", ["random"], **kw))
    report.add("2048", "evaluate, in memory", N_GAMES / t, "bare loop", base_rate)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "bench.sqlite"
        _, t = timed(lambda: evaluate("2048-v0", ["random"], store=store, **kw))
        rate = N_GAMES / t
        report.add("2048", "evaluate, SQLite store", rate, "bare loop", base_rate)
    _, t = timed(lambda: evaluate("2048-v0", ["random"], workers=2, **kw))
    report.add("2048", "evaluate, 2 workers", N_GAMES / t, "bare loop", base_rate)
    return report


if __name__ == "__main__":
    main().print()
