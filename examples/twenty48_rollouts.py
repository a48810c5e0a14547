"""Play out a 2048 position with flat Monte Carlo: try each move, then play randomly.

For each legal move, a copy of the game makes that move and then plays random moves
until the board locks up; the move whose random games score best on average is played.
No knowledge of 2048 goes in, yet it plays far better than random. The rollouts run in
a private copy of the env with the planner's own random generator, so they never peek
at the tiles the real game will draw.

This is the idea of playahead's compiled ``mc`` planner
(``playahead.make_agent("mc:n_rollouts=200")``), written out in plain Python:

    python examples/twenty48_rollouts.py --rollouts 20 --moves 100
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401  (registers 2048-v0)
from playahead.envs.base import simulator
from playahead.envs.tiles import Twenty48State
from playahead.games import twenty48

START = [[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]


def rollout_value(sim, start, move: int, rng: np.random.Generator) -> float:
    """The score of one random game after playing ``move`` from ``start``."""
    sim.restore_state(start)
    info = sim.step(move)[-1]
    while (legal := np.flatnonzero(sim.action_masks())).size:
        info = sim.step(int(rng.choice(legal)))[-1]
    return float(info["score"])


def best_move(env, rollouts: int, rng: np.random.Generator) -> int:
    """The legal move with the highest mean rollout score (``rollouts`` per move)."""
    sim, start = simulator(env, rng), env.unwrapped.clone_state()
    legal = np.flatnonzero(env.unwrapped.action_masks())
    means = [np.mean([rollout_value(sim, start, m, rng) for _ in range(rollouts)])
             for m in legal]  # fmt: skip
    return int(legal[int(np.argmax(means))])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rollouts", type=int, default=20, help="random games per move"
    )
    parser.add_argument("--moves", type=int, default=100, help="moves to play at most")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = gym.make("2048-v0", render_mode="ansi")
    env.reset(seed=args.seed)
    # Put the hand-made position on the board (score 0, move 0); the env checks it.
    env.unwrapped.restore_state(Twenty48State(int(twenty48.from_faces(START)), 0, 0))
    rng = np.random.default_rng(args.seed)
    moves, info = 0, {"score": 0}
    while moves < args.moves and env.unwrapped.action_masks().any():
        _, _, _, _, info = env.step(best_move(env, args.rollouts, rng))
        moves += 1
    print(env.render())
    print(
        f"{moves} moves with {args.rollouts} rollouts per move: score {info['score']}"
    )
    return {"moves": moves, "score": info["score"], "max_tile": info["max_tile"]}


if __name__ == "__main__":
    main()
