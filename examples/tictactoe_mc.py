"""Monte Carlo tic-tac-toe: play random games, score the squares, pick the best one.

The classic exercise (``mc_trial`` / ``mc_update_scores`` / ``get_best_move``): to
choose a move, play many games from the current board with random moves for both
sides. After each trial game, every square gets a point for the winner's marks and
loses one for the loser's (draws change nothing). Then play the empty square with the
highest total.

Why it still loses sometimes: the trials assume both sides play at random. A square
that wins most random games can walk into a fork a real opponent sees at once, and the
scores never look two moves ahead for the opponent's forced wins. With few trials the
totals are also noisy. Against the random opponent it wins most games; against
``minimax`` (perfect play) it can only draw or lose. Try:

    python examples/tictactoe_mc.py --games 20 --trials 100 --opponent minimax
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401  (registers TicTacToe-v0)
from playahead.envs.base import simulator


def mc_trial(sim, rng: np.random.Generator) -> None:
    """Play random moves in ``sim`` until the game ends."""
    while (legal := np.flatnonzero(sim.action_masks())).size:
        sim.step(int(rng.choice(legal)))


def mc_update_scores(scores: np.ndarray, sim, me: int) -> None:
    """Add the finished trial ``sim`` to ``scores`` (one per square), for ``me``."""
    if sim.winner < 0:
        return  # a draw says nothing about the squares
    mine = sim.board.ravel() == me + 1  # 1 = X (player 0), 2 = O (player 1)
    theirs = sim.board.ravel() == 2 - me
    sign = 1.0 if sim.winner == me else -1.0
    scores += sign * (mine.astype(float) - theirs.astype(float))


def get_best_move(env, trials: int, rng: np.random.Generator) -> int:
    """The empty square with the highest total over ``trials`` random games."""
    base = env.unwrapped
    me, start = base.current_player, base.clone_state()
    sim = simulator(env, rng)  # a private turn-by-turn copy: the real game is untouched
    scores = np.zeros(base.action_space.n)
    for _ in range(trials):
        sim.restore_state(start)
        mc_trial(sim, rng)
        mc_update_scores(scores, sim, me)
    legal = np.flatnonzero(base.action_masks())
    return int(legal[np.argmax(scores[legal])])


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games to play")
    parser.add_argument("--trials", type=int, default=100, help="random games per move")
    parser.add_argument("--opponent", default="random", help="agent spec, e.g. minimax")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    # We are X or O by turns; each step is our move and the opponent's reply.
    tally = {"wins": 0, "draws": 0, "losses": 0}
    for game in range(args.games):
        env = gym.make("TicTacToe-v0", opponent=args.opponent, agent_player=game % 2)
        env.reset(seed=args.seed + game)
        reward, done = 0.0, False
        while not done:
            move = get_best_move(env, args.trials, rng)
            _, reward, terminated, truncated, _ = env.step(move)
            done = terminated or truncated
        tally["wins" if reward > 0 else "losses" if reward < 0 else "draws"] += 1
    print(f"{args.games} games against {args.opponent}, {args.trials} trials a move:")
    print(", ".join(f"{n} {k}" for k, n in tally.items()))
    return tally


if __name__ == "__main__":
    main()
