"""Speed of the planners, each next to a baseline measured in the same run.

* MCTS simulations/s from the empty tic-tac-toe and Connect Four boards (UCT, c = 1.4,
  one random playout per new leaf, no tree reuse), next to OpenSpiel's C++
  ``MCTSBot`` with a ``RandomRolloutEvaluator`` of one rollout, driven from Python
  (``pip install open_spiel``; "not installed" otherwise).
* Flat Monte Carlo rollouts/s on 2048 from a fresh game (``mc``), next to the
  plain-Python rollout of ``benchmarks/speed/reference.py``; and the same planner
  through the generic clone/restore path (``compiled=false``).
* MCTS simulations/s on 2048 and Threes, and alpha-beta nodes/s on Connect Four, for
  the record (no baseline).

Run: ``python -m benchmarks planners`` (about half a minute on a 2-core machine).
"""

from __future__ import annotations

import random

import gymnasium as gym

import playahead
from benchmarks.common import Report, timed
from benchmarks.speed import reference as ref
from playahead.envs.connect_four import ConnectFourEnv
from playahead.envs.tictactoe import TicTacToeEnv

MCTS_SIMULATIONS = 20_000
MC_ROLLOUTS = 2_000


def _rate(agent, env, work: str) -> float:
    """Units of ``stats[work]`` per second of ``analyze`` (after one warm-up call)."""
    agent.analyze(env)
    analysis, seconds = timed(lambda: agent.analyze(env))
    return analysis.stats[work] / seconds


def _open_spiel_rate(name: str) -> float | None:
    """OpenSpiel's C++ MCTSBot simulations/s from the initial state, or None."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bot = pyspiel.MCTSBot(game, evaluator, 1.4, MCTS_SIMULATIONS, 1000, False, 0, False)
    state = game.new_initial_state()
    bot.step(state)
    _, seconds = timed(lambda: bot.step(state))
    return MCTS_SIMULATIONS / seconds


def _plain_python_rollouts() -> float:
    """Random 2048 games per second with the plain-Python rules of the tests."""
    rnd = random.Random(0)
    start = ref.spawn_2048(ref.spawn_2048([[0] * 4] * 4, rnd), rnd)
    n = 20
    _, seconds = timed(lambda: [ref.rollout_2048(start, rnd) for _ in range(n)])
    return n / seconds


def main() -> Report:
    report = Report("planners")
    spec = f"mcts:n_simulations={MCTS_SIMULATIONS},reuse=false,seed=0"
    for label, env, spiel in (
        ("tic-tac-toe", TicTacToeEnv(opponent=None), "tic_tac_toe"),
        ("Connect Four", ConnectFourEnv(opponent=None), "connect_four"),
    ):
        env.reset(seed=0)
        ours = _rate(playahead.make_agent(spec), env, "simulations")
        report.add(
            label,
            "MCTS simulations/s",
            ours,
            "OpenSpiel C++ MCTSBot",
            _open_spiel_rate(spiel),
        )

    env = gym.make("2048-v0")
    env.reset(seed=0)
    compiled = _rate(
        playahead.make_agent(f"mc:n_rollouts={MC_ROLLOUTS},seed=0"), env, "rollouts"
    )
    plain = _plain_python_rollouts()
    report.add("2048", "mc rollouts/s", compiled, "plain-Python rollout", plain)
    generic = _rate(
        playahead.make_agent("mc:n_rollouts=40,compiled=false,seed=0"), env, "rollouts"
    )
    report.add(
        "2048",
        "mc rollouts/s, clone/restore path",
        generic,
        "plain-Python rollout",
        plain,
    )

    for game in ("2048-v0", "Threes-v0"):
        env = gym.make(game)
        env.reset(seed=0)
        agent = playahead.make_agent("mcts:n_simulations=2000,reuse=false,seed=0")
        report.add(
            game.removesuffix("-v0"),
            "MCTS simulations/s",
            _rate(agent, env, "simulations"),
        )

    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    playahead.make_agent("minimax:depth=3").analyze(env)  # warm up the kernels
    searcher = playahead.make_agent("minimax:depth=9,seed=0")  # an empty table
    analysis, seconds = timed(lambda: searcher.analyze(env))
    report.add(
        "Connect Four",
        "alpha-beta nodes/s (depth 9)",
        analysis.stats["nodes"] / seconds,
    )
    return report


if __name__ == "__main__":
    main().print()
