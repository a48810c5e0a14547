"""What an expectimax search costs by depth and probability cut-off, and how often it
picks the move of a deeper reference search: Threes over the ``features`` evaluator,
2048 over the net playahead ships (``--game 2048``).

    python -m benchmarks cutoffs [--game threes|2048] [--games 3] [--every N]

Positions: every ``--every``-th position (Threes: 12, 2048: 400) from move 120
(2048: 500) on of ``--games`` seeded games (seeds 0, 1, ...) of a shallow search over
the same evaluator (:data:`GAMES`). Every setting of the game decides each position;
the table gives its mean, p90 and worst CPU milliseconds per decision
(``time.thread_time``), its mean depth, and the share of positions where it picks the
same move as the game's reference search. Agreement is a proxy for strength, not
strength: whole games (``python -m benchmarks strength``) decide.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import NamedTuple

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401
from benchmarks.common import sampled_states
from playahead.planners.expectimax import ExpectimaxAgent

RESULTS = Path(__file__).resolve().parent.parent / "results" / "cutoffs"
#: The deeper search the others are compared with (Threes).
REFERENCE = {"depth": 5, "prob_cutoff": 1e-4}
#: (label, ExpectimaxAgent options) in table order (Threes).
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
#: 2048 over the shipped net: the default, then depths and cut-offs around it.
SETTINGS_2048 = [
    ("the default: depth 2 .. 3 by the board, cut-off 0.01", {}),
    ("depth 2, cut-off 0.01", {"depth": 2, "prob_cutoff": 0.01}),
    ("depth 3, cut-off 0.01", {"depth": 3, "prob_cutoff": 0.01}),
    ("depth 3, cut-off 0.003", {"depth": 3, "prob_cutoff": 0.003}),
    ("depth 2 .. 4 by the board, cut-off 0.01", {"max_depth": 4}),
    ("depth 4, cut-off 0.01", {"depth": 4, "prob_cutoff": 0.01}),
    ("depth 4, cut-off 0.003", {"depth": 4, "prob_cutoff": 0.003}),
]


class Game(NamedTuple):
    """What the benchmark runs on one game."""

    env: str
    #: the evaluator every search uses.
    evaluator: str
    #: the searches that make the positions, and the first move picked.
    positions_depth: int
    first: int
    every: int
    settings: list
    reference: dict
    out: Path
    title: str


GAMES = {
    "threes": Game(
        "Threes-v0", "features", 2, 120, 12, SETTINGS, REFERENCE,
        RESULTS / "threes-cutoffs.md", "Threes expectimax",
    ),
    "2048": Game(
        "2048-v0", "ntuple", 1, 500, 400, SETTINGS_2048,
        {"depth": 5, "prob_cutoff": 1e-3}, RESULTS / "2048-cutoffs.md",
        "2048 expectimax over the shipped net",
    ),
}  # fmt: skip


def positions(n_games: int, every: int, first: int = 120, game: str = "threes"):
    """States of ``game`` from seeded games of a shallow expectimax over the game's
    evaluator."""
    g = GAMES[game]
    agent = ExpectimaxAgent(depth=g.positions_depth, seed=0, evaluator=g.evaluator)
    return list(sampled_states(g.env, agent, every, first, range(n_games)))


def decide(options: dict, states: list, game: str = "threes"):
    """(moves, CPU seconds, depths) of ``ExpectimaxAgent(**options)`` on ``states``."""
    g = GAMES[game]
    env = gym.make(g.env)
    agent = ExpectimaxAgent(seed=0, **{"evaluator": g.evaluator, **options})
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


def table(states: list, settings=None, reference=None, game="threes") -> list[dict]:
    """One row per setting (default: the game's), then the reference's own row."""
    g = GAMES[game]
    settings = g.settings if settings is None else settings
    ref = decide(g.reference if reference is None else reference, states, game)
    runs = [(label, decide(options, states, game)) for label, options in settings]
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


def markdown(rows: list[dict], command: str, n_positions: int, game="threes") -> str:
    g = GAMES[game]
    ref = ", ".join(f"{k}={v}" for k, v in g.reference.items())
    lines = [
        f"# {g.title}: cost by depth and cut-off ({n_positions} positions)",
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
    parser.add_argument("--game", choices=sorted(GAMES), default="threes")
    parser.add_argument("--games", type=int, default=3, help="seeded games (3)")
    parser.add_argument(
        "--every", type=int, help="moves between picks (Threes 12, 2048 400)"
    )
    parser.add_argument("--out", type=Path, help="Markdown file (the game's record)")
    args = parser.parse_args(argv)
    g = GAMES[args.game]
    every = g.every if args.every is None else args.every
    if not 1 <= args.games <= 100 or not 1 <= every <= 1000:
        parser.error("--games must be in 1..100 and --every in 1..1000")
    states = positions(args.games, every, g.first, args.game)
    rows = table(states, game=args.game)
    command = "python -m benchmarks cutoffs"
    if args.game != "threes":
        command += f" --game {args.game}"
    if (args.games, every) != (3, g.every):
        command += f" --games {args.games} --every {every}"
    text = markdown(rows, command, len(states), args.game)
    print(text)
    out = g.out if args.out is None else args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
