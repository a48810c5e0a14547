"""What a Threes expectimax costs by depth and probability cut-off, and how often it
picks the move of a deeper reference search.

    python -m benchmarks cutoffs [--games 3] [--every 12] [--out FILE]

Positions: every ``--every``-th position from move 120 on of ``--games`` seeded games
(seeds 0, 1, ...) of ``expectimax:depth=2``. Every setting of :data:`SETTINGS`, each
over the ``features`` evaluator, decides each position; the table gives its mean, p90
and worst CPU milliseconds per decision (``time.thread_time``), its mean depth, and the
share of positions where it picks the same move as :data:`REFERENCE`. Agreement is a
proxy for strength, not strength: whole games (``python -m benchmarks strength``)
decide.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401
from benchmarks.common import sampled_states
from playahead.planners.expectimax import ExpectimaxAgent

RESULTS = (
    Path(__file__).resolve().parent.parent / "results" / "cutoffs" / "threes-cutoffs.md"
)
#: The deeper search the others are compared with.
REFERENCE = {"depth": 5, "prob_cutoff": 1e-4}
#: (label, ExpectimaxAgent options) in table order.
SETTINGS = [
    ("features' own defaults: automatic depth (6), cut-off 1e-3", {}),
    (
        "depth 3 .. 4 by the board, cut-off 1e-4",
        {"min_depth": 3, "max_depth": 4, "prob_cutoff": 1e-4},
    ),
    ("depth 3 .. 6 by the board, cut-off 1e-3", {"min_depth": 3}),
    ("depth 3, cut-off 1e-4", {"depth": 3}),
    ("depth 4, cut-off 1e-4", {"depth": 4}),
    ("depth 4, cut-off 3e-4", {"depth": 4, "prob_cutoff": 3e-4}),
    ("depth 4, cut-off 1e-5", {"depth": 4, "prob_cutoff": 1e-5}),
    ("depth 5, cut-off 1e-3", {"depth": 5, "prob_cutoff": 1e-3}),
    ("depth 5, cut-off 3e-4", {"depth": 5, "prob_cutoff": 3e-4}),
    ("depth 6, cut-off 3e-3", {"depth": 6, "prob_cutoff": 3e-3}),
    ("depth 6, cut-off 1e-3", {"depth": 6, "prob_cutoff": 1e-3}),
]


def positions(n_games: int, every: int, first: int = 120) -> list:
    """Threes states from seeded games of a depth-2 expectimax (tuned features)."""
    agent = ExpectimaxAgent(depth=2, seed=0, evaluator="features")
    return list(sampled_states("Threes-v0", agent, every, first, range(n_games)))


def decide(options: dict, states: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(moves, CPU seconds, depths) of ``ExpectimaxAgent(**options)`` on ``states``."""
    env = gym.make("Threes-v0")
    agent = ExpectimaxAgent(seed=0, **{"evaluator": "features", **options})
    env.unwrapped.restore_state(states[0])
    agent.analyze(env)  # compile or load the kernels outside the timing
    moves, seconds, depths = [], [], []
    for state in states:
        env.unwrapped.restore_state(state)
        start = time.thread_time()
        analysis = agent.analyze(env)
        seconds.append(time.thread_time() - start)
        moves.append(analysis.action)
        depths.append(analysis.stats["depth"])
    return np.array(moves), np.array(seconds), np.array(depths)


def table(states: list, settings=SETTINGS, reference=REFERENCE) -> list[dict]:
    """One row per setting, then the reference's own row."""
    ref = decide(reference, states)
    runs = [(label, decide(options, states)) for label, options in settings]
    return [_row(label, got, ref[0]) for label, got in [*runs, ("reference", ref)]]


def _row(label: str, got: tuple, ref_moves: np.ndarray) -> dict:
    moves, seconds, depths = got
    return {
        "setting": label,
        "ms_mean": 1e3 * float(seconds.mean()),
        "ms_p90": 1e3 * float(np.percentile(seconds, 90)),
        "ms_worst": 1e3 * float(seconds.max()),
        "depth": float(depths.mean()),
        "agrees": float((moves == ref_moves).mean()),
    }


def markdown(rows: list[dict], command: str, n_positions: int) -> str:
    ref = ", ".join(f"{k}={v}" for k, v in REFERENCE.items())
    lines = [
        f"# Threes expectimax: cost by depth and cut-off ({n_positions} positions)",
        "",
        f"    {command}",
        "",
        f"Agreement: the share of positions where the setting picks the move of the "
        f"reference search ({ref}). CPU milliseconds per decision.",
        "",
        "| setting | ms mean | ms p90 | ms worst | mean depth | agrees |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['setting']} | {r['ms_mean']:.1f} | {r['ms_p90']:.1f} | "
            f"{r['ms_worst']:.1f} | {r['depth']:.2f} | {100 * r['agrees']:.0f}% |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks cutoffs", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=3, help="seeded games (3)")
    parser.add_argument("--every", type=int, default=12, help="moves between picks")
    parser.add_argument("--out", type=Path, default=RESULTS, help="Markdown file")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 100 or not 1 <= args.every <= 1000:
        parser.error("--games must be in 1..100 and --every in 1..1000")
    states = positions(args.games, args.every)
    rows = table(states)
    command = "python -m benchmarks cutoffs"
    if (args.games, args.every) != (3, 12):
        command += f" --games {args.games} --every {args.every}"
    text = markdown(rows, command, len(states))
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
