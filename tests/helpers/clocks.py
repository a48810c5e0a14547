"""Clocks that run fast, and the decisions of a game to compare under them: a search
whose budget counts nodes plays the same moves whatever the clocks say."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401  (registers the ids)
from playahead.agents import make_agent

#: How much faster than real time the patched clocks run.
SPEEDUP = 4.0
CLOCKS = ("time", "monotonic", "perf_counter", "process_time", "thread_time")


def fast_clocks(monkeypatch) -> None:
    """Every clock of :mod:`time` (and its ``_ns`` twin) runs ``SPEEDUP`` times fast."""
    for name in CLOCKS:
        for suffix, cast in (("", float), ("_ns", int)):
            real = getattr(time, name + suffix)
            start = real()

            def fast(real=real, start=start, cast=cast):
                return cast(start + SPEEDUP * (real() - start))

            monkeypatch.setattr(time, name + suffix, fast)


def game(env_id: str, spec: str, moves: int) -> list[tuple]:
    """The first ``moves`` decisions of game seed 7: (action, values, depth, cut)."""
    env = gym.make(env_id)
    env.reset(seed=7)
    agent = make_agent(spec, seed=7)
    out = []
    for _ in range(moves):
        analysis = agent.analyze(env)
        stats = analysis.stats
        out.append(
            (analysis.action, analysis.values, stats["depth"], stats["budget_cut"])
        )
        _, _, over, _, _ = env.step(analysis.action)
        if over:
            break
    return out


def same_moves(one: list[tuple], two: list[tuple]) -> None:
    assert len(one) == len(two)
    for a, b in zip(one, two, strict=True):
        assert a[0] == b[0] and a[2:] == b[2:]
        np.testing.assert_array_equal(a[1], b[1])
