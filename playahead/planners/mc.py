"""Monte Carlo planners: ``mc`` (flat Monte Carlo) and ``lookahead`` (depth-limited
Monte Carlo lookahead).

* ``mc``: for each legal move, random playouts to the end of the game; the move with
  the best mean final result wins (final score in 2048 and Threes, mean result in
  [-1, 1] for the mover in two-player games). ``scoring="squares"`` is the grid-game
  variant (tic-tac-toe, Connect Four) of Rice University's "Monte Carlo Tic-Tac-Toe":
  random games from the position; in each won game the winner's squares are credited
  ``w_self`` and the loser's debited ``w_other`` (reversed when the mover lost); a move
  is worth the score of the square it fills.
* ``lookahead``: every move sequence of ``depth`` moves, chance sampled once per branch
  from the planner's generator, repeated ``n_sims`` times; a first move is worth the
  mean over samples of the best score reached at depth ``depth`` (``empty_bonus``
  multiplies a 2048/Threes leaf score by 16 / non-empty cells; ``value_kind`` is
  ``"depth_score"``, or ``"weighted_score"`` with the bonus). In two-player games
  the sequences are searched by negamax and each leaf is scored by the mean of
  ``n_sims`` random playouts (a value one ply deeper counts 0.999 times as much, so a
  sooner win is preferred).

Compiled kernels run 2048, Threes and the two-player games; other envs are searched
through clone/restore.
"""

from __future__ import annotations

import math
import time

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.kernels import duels, tiles
from playahead.planner import (
    GenericGame,
    Planner,
    Root,
    check_choice,
    check_positive,
    masked,
    pick_max,
)

TILE_KINDS = ("2048", "threes")
DUEL_KINDS = ("tictactoe", "connect_four", "nim")
SCORINGS = ("result", "squares")


def rounds(total: int | None, mask: np.ndarray, chunk: int, deadline: float):
    """Yield ``int64[n_actions]`` work per legal action, round after round, until
    ``total`` units are spent (split as evenly as possible) or ``deadline`` passes;
    the first round always runs. Without a deadline one round does everything."""
    legal = np.flatnonzero(mask)
    if deadline == math.inf:
        chunk = max(chunk, -(-total // legal.size))
    done = 0
    while total is None or done < total:
        counts = np.zeros(mask.size, dtype=np.int64)
        if total is None or total - done >= chunk * legal.size:
            counts[legal] = chunk
        else:
            left = total - done
            counts[legal] = left // legal.size
            counts[legal[: left % legal.size]] += 1
        yield counts
        done += int(counts.sum())
        if time.perf_counter() > deadline:
            return


def value_kind(root: Root) -> str:
    """``"score"`` (2048, Threes), ``"result"`` (two players) or ``"return"``."""
    if root.num_players == 2:
        return "result"
    return "score" if root.kind in TILE_KINDS else "return"


class MonteCarlo(Planner):
    """``mc``: flat Monte Carlo (see the module docstring).

    Args:
        n_rollouts: playouts per decision, shared evenly by the legal moves (None:
            until ``time_limit``).
        scoring: ``"result"`` (mean final result) or ``"squares"`` (tic-tac-toe and
            Connect Four only).
        w_self: with ``"squares"``, credit of each square of the winner.
        w_other: with ``"squares"``, debit of each square of the loser.
        seed: seed of the planner's generator.
        time_limit: seconds per decision, or None.
        compiled: use compiled kernels for playahead's games.
    """

    name = "mc"

    def __init__(
        self,
        n_rollouts: int | None = 200,
        scoring: str = "result",
        w_self: float = 1.0,
        w_other: float = 1.0,
        seed: int | None = None,
        time_limit: float | None = None,
        compiled: bool = True,
    ):
        super().__init__(seed, time_limit, compiled)
        self.n_rollouts = check_positive("n_rollouts", n_rollouts, allow_none=True)
        if self.n_rollouts is None and self.time_limit is None:
            raise ValueError("mc needs n_rollouts or time_limit (or both)")
        self.scoring = check_choice("scoring", scoring, SCORINGS)
        self.w_self, self.w_other = float(w_self), float(w_other)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        if self.scoring == "squares":
            return self._squares(root, rng, deadline)
        n = root.mask.size
        sums, counts = np.zeros(n), np.zeros(n, dtype=np.int64)
        if root.kind in TILE_KINDS:
            game, board, cards, moves, rewards, preview = tiles.tile_position(
                root.kind, root.env
            )
            for chunk in rounds(self.n_rollouts, root.mask, 16, deadline):
                tiles.mc_chunk(
                    game, board, cards, chunk, rng, moves, rewards, preview, sums
                )
                counts += chunk
        elif root.kind in DUEL_KINDS:
            game, state = duels.position(root.kind, root.env)
            for chunk in rounds(self.n_rollouts, root.mask, 256, deadline):
                duels.mc_chunk(game, state, chunk, rng, sums)
                counts += chunk
        else:
            model = GenericGame(root.env, rng)
            for chunk in rounds(self.n_rollouts, root.mask, 1, deadline):
                for a in np.repeat(np.arange(n), chunk):
                    child, reward, over = model.step(model.root, int(a))
                    if not over:
                        reward = reward + model.rollout(child)
                    sums[a] += reward[root.player]
                counts += chunk
        values = masked(root.score + sums / np.maximum(counts, 1), root.mask)
        stats = {"rollouts": int(counts.sum())}
        return Analysis(pick_max(values, rng), values, counts, value_kind(root), stats)

    def _squares(self, root: Root, rng: np.random.Generator, deadline: float):
        if root.kind not in ("tictactoe", "connect_four"):
            raise ValueError(
                "scoring='squares' scores the squares of tic-tac-toe and Connect Four "
                f"(playahead's own envs); this env's backend is {root.kind!r}"
            )
        game, state = duels.position(root.kind, root.env)
        cells = root.env.board
        if root.kind == "tictactoe":
            targets = np.arange(root.mask.size)  # action = cell
        else:  # action = column: the cell where the disc would land
            heights = np.minimum(np.count_nonzero(cells, axis=0), cells.shape[0] - 1)
            targets = (cells.shape[0] - 1 - heights) * cells.shape[1] + np.arange(7)
        scores = np.zeros(cells.size)
        done = 0
        for chunk in rounds(self.n_rollouts, np.ones(1, dtype=bool), 64, deadline):
            n = int(chunk[0])
            duels.squares_chunk(game, state, n, rng, self.w_self, self.w_other, scores)
            done += n
        values = masked(scores[targets] / done, root.mask)
        stats = {"rollouts": done}
        return Analysis(pick_max(values, rng), values, None, "squares", stats)


class Lookahead(Planner):
    """``lookahead``: depth-limited Monte Carlo lookahead (see the module docstring).

    Args:
        depth: moves per sequence (plies in two-player games), >= 1.
        n_sims: samples of the whole lookahead per decision (None: until
            ``time_limit``); in two-player games, playouts per leaf (None: 20).
        empty_bonus: 2048 and Threes: multiply each leaf's score by 16 / non-empty
            cells (rewards keeping the board open).
        seed: seed of the planner's generator.
        time_limit: seconds per decision, or None.
        compiled: use compiled kernels for playahead's games.
    """

    name = "lookahead"

    def __init__(
        self,
        depth: int = 3,
        n_sims: int | None = 20,
        empty_bonus: bool = False,
        seed: int | None = None,
        time_limit: float | None = None,
        compiled: bool = True,
    ):
        super().__init__(seed, time_limit, compiled)
        self.depth = check_positive("depth", depth)
        self.n_sims = check_positive("n_sims", n_sims, allow_none=True)
        if self.n_sims is None and self.time_limit is None:
            raise ValueError("lookahead needs n_sims or time_limit (or both)")
        self.empty_bonus = bool(empty_bonus)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        if self.empty_bonus and root.kind not in TILE_KINDS:
            raise ValueError(
                "empty_bonus counts the empty cells of 2048 and Threes boards "
                f"(playahead's own envs); this env's backend is {root.kind!r}"
            )
        stats = {"depth": self.depth}
        if root.num_players == 2:
            values = self._two_player(root, rng)
            stats["playouts_per_leaf"] = self.n_sims or 20
        else:
            sums, sims = self._one_player(root, rng, deadline)
            values = masked(sums / sims, root.mask)
            stats["sims"] = sims
        kind = "weighted_score" if self.empty_bonus else value_kind(root)
        if kind == "score":  # the score ``depth`` moves on, not at the game's end
            kind = "depth_score"
        return Analysis(pick_max(values, rng), values, None, kind, stats)

    def _one_player(self, root: Root, rng, deadline: float) -> tuple[np.ndarray, int]:
        """Sums over samples of each first move's best score at depth ``depth``."""
        sums = np.zeros(root.mask.size)
        sims = 0
        if root.kind in TILE_KINDS:
            game, board, cards, moves, rewards, preview = tiles.tile_position(
                root.kind, root.env
            )
        else:
            model = GenericGame(root.env, rng)
        for chunk in rounds(self.n_sims, np.ones(1, dtype=bool), 1, deadline):
            k = int(chunk[0])
            if root.kind in TILE_KINDS:
                # One kernel call per first move: the recursive kernel is called from
                # Python (a cached kernel calling a recursive one can crash numba).
                for _ in range(k):
                    for a in root.legal:
                        sums[a] += tiles.best_at_depth(
                            game,
                            board,
                            cards,
                            root.score,
                            self.depth,
                            rng,
                            moves,
                            rewards,
                            preview,
                            self.empty_bonus,
                            a,
                        )
            else:
                for _ in range(k):
                    for a in root.legal:
                        child, reward, over = model.step(model.root, int(a))
                        sums[a] += reward[0] + self._best(model, child, over, 1)
            sims += k
        return sums, sims

    def _best(self, model: GenericGame, state, over: bool, depth: int) -> float:
        """Best reward sum over the move sequences from ``state`` down to ``depth``."""
        if over or depth >= self.depth:
            return 0.0
        best = None
        for a in np.flatnonzero(model.legal(state)):
            child, reward, child_over = model.step(state, int(a))
            total = reward[0] + self._best(model, child, child_over, depth + 1)
            best = total if best is None else max(best, total)
        return 0.0 if best is None else best

    def _two_player(self, root: Root, rng) -> np.ndarray:
        """Negamax over ``depth`` plies, leaves scored by the mean of ``n_sims``
        playouts (the first chance-free ply counts fully, each further one
        ``DISCOUNT`` times)."""
        n_playouts = self.n_sims or 20
        values = np.full(root.mask.size, np.nan)
        if root.kind in DUEL_KINDS:
            game, state = duels.position(root.kind, root.env)
            for a in root.legal:
                child = duels.g_apply(game, state, a)
                v = duels.sampled_negamax(game, child, self.depth - 1, n_playouts, rng)
                same = duels.g_player(game, child) == root.player
                values[a] = v if same else -v
            return values
        model = GenericGame(root.env, rng)
        for a in root.legal:
            values[a] = self._negamax(model, model.root, int(a), 1, n_playouts)
        return values

    def _negamax(self, model: GenericGame, state, action: int, depth: int, n: int):
        """Value of ``action`` for the player making it (generic two-player)."""
        mover = model.player(state)
        child, reward, over = model.step(state, action)
        value = reward[mover]
        if over:
            return value
        if depth >= self.depth:
            total = sum(model.rollout(child)[mover] for _ in range(n))
            return value + total / n
        replies = [
            self._negamax(model, child, int(b), depth + 1, n)
            for b in np.flatnonzero(model.legal(child))
        ]
        sign = 1.0 if model.player(child) == mover else -1.0
        return value + sign * duels.DISCOUNT * max(replies, default=0.0)


register_agent("mc", MonteCarlo, "flat Monte Carlo: random playouts after each move")
register_agent(
    "lookahead", Lookahead, "depth-limited Monte Carlo lookahead over all sequences"
)
