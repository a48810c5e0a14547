"""``minimax``: negamax with alpha-beta pruning, iterative deepening and a
transposition table, for two-player games.

Every legal move at the root is searched with a full window, so each gets its exact
value at the searched depth. Depths 1, 2, ... are searched until ``depth`` plies, the
time limit, or the moment every root value is *exact* (no static evaluation was used
below it). With ``depth=None`` the planner solves the game: one search as deep as the
game can last (iterative deepening only with a ``budget`` or a ``time_limit``).
Tic-tac-toe, Nim and Chips are solved in a blink; Connect Four needs a ``depth`` (or a
``budget``), below which positions are scored by counting open lines of four.

``budget`` bounds a decision by a count of nodes, never a clock: the deepest iteration
completed within that many nodes is played (depth 1 always completes), so a seed gives
the same move on any machine and under any load. ``time_limit`` is the clock option a
user picks knowingly; with both, whichever ends first stops the deepening.

Values are results for the player to move: 1 (a proven win), -1 (a proven loss), 0 (a
proven draw) or a static evaluation in (-1, 1) (``value_kind="heuristic"``);
``stats["plies"]`` gives the length of each proven win or loss, and a sooner win (a
later loss) is preferred. Envs other than playahead's are searched through clone/restore
with the sum of the env's rewards as the result.
"""

from __future__ import annotations

import math
import time

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.kernels import duels
from playahead.kernels.counters import ABORTED, LIMIT, NODES, new_counters
from playahead.planner import (
    GenericGame,
    Planner,
    Root,
    check_positive,
    masked,
    state_key,
)
from playahead.planners.mc import DUEL_KINDS, TILE_KINDS

TT_SIZE = 1 << 18  # transposition-table slots (compiled games), kept between moves


class _Timeout(Exception):
    pass


class Minimax(Planner):
    """``minimax``: alpha-beta negamax (see the module docstring).

    Args:
        depth: plies to search (None: until solved; only feasible for small games).
        seed: seed of the planner's generator (breaks ties between equal moves).
        time_limit: seconds per decision, or None. The deepest completed iteration is
            used; depth 1 always completes.
        compiled: use compiled kernels for playahead's games.
        budget: nodes per decision (an integer, at least 1), or None for no count.
            The deepest iteration completed within it is used; depth 1 always
            completes. ``stats["nodes"]`` counts the nodes of every iteration,
            the abandoned one included; ``stats["budget_cut"]`` says whether the
            budget abandoned one.
    """

    name = "minimax"

    def __init__(
        self,
        depth: int | None = None,
        seed: int | None = None,
        time_limit: float | None = None,
        compiled: bool = True,
        budget: int | None = None,
    ):
        super().__init__(seed, time_limit, compiled)
        self.depth = check_positive("depth", depth, allow_none=True)
        self.budget = check_positive("budget", budget, allow_none=True)
        # (rules, transposition table), kept from one decision to the next
        self._tt = None

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        if root.num_players != 2 or root.kind in TILE_KINDS:
            raise ValueError(
                "minimax searches two-player games; for one-player games such as 2048 "
                "and Threes use expectimax, mcts, mc or lookahead"
            )
        if root.kind in DUEL_KINDS:
            scores, exact, stats = self._compiled(root, deadline)
            scores = masked(scores, root.mask)
            won = np.abs(scores) > duels.WIN / 2
            values = np.where(won, np.sign(scores), scores / duels.HEURISTIC)
            values[exact & ~won] = 0.0
            plies = np.where(won, duels.WIN - np.abs(scores), 0)
        else:
            search = _GenericAlphaBeta(root, rng, self.depth, self.budget)
            scores, exact, stats = search.run(deadline)
            scores = values = masked(scores, root.mask)
            plies = np.zeros(root.mask.size)
        values = masked(values, root.mask)
        stats["plies"] = np.where(root.mask, plies, 0).astype(int).tolist()
        stats["exact"] = (exact & root.mask).tolist()
        best = np.flatnonzero(scores == np.nanmax(scores))
        action = int(best[rng.integers(best.size)])
        kind = "solved" if all(exact[root.mask]) else "heuristic"
        return Analysis(action, values, None, kind, stats)

    def _compiled(self, root: Root, deadline: float):
        game, state = duels.position(root.kind, root.env)
        order = duels.move_order(game, root.env)
        rules = (root.kind, root.env.clone_state().rules)
        if self._tt is None or self._tt[0] != rules:  # values do not depend on history
            self._tt = (
                rules,
                np.full(TT_SIZE, -1, dtype=np.int64),
                np.zeros(TT_SIZE),
                np.zeros((TT_SIZE, 3), dtype=np.int64),
            )
        _, tt_keys, tt_vals, tt_info = self._tt
        counters = new_counters(0)
        n = root.mask.size
        best = (np.zeros(n), np.zeros(n, dtype=bool))

        def negamax(s, depth, counts):
            args = (-math.inf, math.inf, 1, order, tt_keys, tt_vals, tt_info, counts)
            return duels.negamax(game, s, depth, *args)

        # The first call loads (or compiles) the kernel: done here, on a limit of 0
        # nodes (it gives up at once and touches nothing), so that the node rate
        # measured below is the search's, not the loading's.
        negamax(state, 0, new_counters(0))
        reached, start = 0, time.perf_counter()
        horizon = int(duels.g_max_plies(game, state))
        target = min(self.depth or horizon, horizon)
        unbounded = deadline == math.inf and self.budget is None
        first = target if self.depth is None and unbounded else 1
        for depth in range(first, target + 1):
            counters[LIMIT] = _node_limit(
                counters[NODES], start, deadline, depth, self.budget
            )
            values, exact = np.zeros(n), np.zeros(n, dtype=bool)
            for a in order[root.mask[order]]:
                child = duels.g_apply(game, state, a)
                v, e = negamax(child, depth - 1, counters)
                if counters[ABORTED]:
                    break
                mover = duels.g_player(game, child) == root.player
                values[a] = v if mover else -v
                exact[a] = e or abs(v) > duels.WIN / 2
            if counters[ABORTED]:
                break
            best, reached = (values, exact), depth
            if exact[root.mask].all() or time.perf_counter() > deadline:
                break
        stats = {
            "nodes": int(counters[NODES]),
            "depth": reached,
            "budget": self.budget,
            "budget_cut": bool(counters[ABORTED])
            and _spent(int(counters[NODES]), self.budget),
        }
        return best[0], best[1], stats


def _spent(nodes: int, budget: int | None) -> bool:
    """Whether an abandoned iteration was stopped by the node budget (not the clock)."""
    return budget is not None and nodes >= budget


def _node_limit(
    nodes: int, start: float, deadline: float, depth: int, budget: int | None = None
) -> int:
    """Total nodes the next iteration may reach: unlimited at depth 1, else the
    ``budget`` (nodes per decision, counted from its start) and, with a deadline, the
    nodes the remaining time allows at the speed measured so far, whichever is less."""
    if depth == 1:
        return 1 << 62
    limit = 1 << 62 if budget is None else budget
    if deadline == math.inf:
        return limit
    elapsed = max(time.perf_counter() - start, 1e-4)
    timed = nodes + int(max(deadline - time.perf_counter(), 0.0) * nodes / elapsed)
    return min(limit, timed)


class _GenericAlphaBeta:
    """The same search over any two-player env through :class:`GenericGame`; the
    result of a line is the sum of the rewards (each belongs to the player who moved),
    and there is no static evaluation (0 at the horizon) and no preference for sooner
    wins."""

    def __init__(self, root: Root, rng, depth: int | None, budget: int | None = None):
        self.model = GenericGame(root.env, rng)
        self.root, self.max_depth = root, depth
        self.budget = budget
        self.limit = 1 << 62  # nodes the current iteration may reach (_node_limit)
        self.deadline = math.inf
        self.tt: dict = {}
        self.nodes = 0

    def run(self, deadline: float):
        n = self.root.mask.size
        best = (np.zeros(n), np.zeros(n, dtype=bool))
        reached, cut = 0, False
        for depth in range(1, (self.max_depth or 10_000) + 1):
            self.deadline = deadline if depth > 1 else math.inf
            self.limit = _node_limit(self.nodes, 0.0, math.inf, depth, self.budget)
            values, exact = np.zeros(n), np.zeros(n, dtype=bool)
            try:
                for a in self.root.legal:
                    values[a], exact[a] = self._move(
                        self.model.root,
                        int(a),
                        self.root.player,
                        depth,
                        -math.inf,
                        math.inf,
                    )
            except _Timeout:
                cut = _spent(self.nodes, self.budget)
                break
            best, reached = (values, exact), depth
            if exact[self.root.mask].all() or time.perf_counter() > deadline:
                break
        stats = {"nodes": self.nodes, "depth": reached, "budget": self.budget}
        stats["budget_cut"] = cut
        return best[0], best[1], stats

    def _move(self, state, action, mover, depth, alpha, beta):
        """Value for ``mover`` of ``action`` in ``state`` and whether it is exact."""
        child, reward, over = self.model.step(state, action)
        r = reward[mover]
        if over:
            return r, True
        if self.model.player(child) == mover:
            v, e = self._negamax(child, depth - 1, alpha - r, beta - r)
            return r + v, e
        v, e = self._negamax(child, depth - 1, r - beta, r - alpha)
        return r - v, e

    def _negamax(self, state, depth, alpha, beta):
        self.nodes += 1
        if self.nodes >= self.limit:
            raise _Timeout
        if self.nodes % 256 == 0 and time.perf_counter() > self.deadline:
            raise _Timeout
        legal = np.flatnonzero(self.model.legal(state))
        if legal.size == 0:
            return 0.0, True
        if depth <= 0:
            return 0.0, False
        key = state_key(state)
        hit = self.tt.get(key)
        if hit is not None and hit[0] >= depth:
            _, v, flag, e = hit
            if flag == 0 or (flag == 1 and v >= beta) or (flag == 2 and v <= alpha):
                return v, e
        alpha0, best, exact = alpha, -math.inf, True
        mover = self.model.player(state)
        for a in legal:
            v, e = self._move(state, int(a), mover, depth, alpha, beta)
            exact = exact and e
            best = max(best, v)
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        flag = 2 if best <= alpha0 else (1 if best >= beta else 0)
        self.tt[key] = (math.inf if exact else depth, best, flag, exact)
        return best, exact


register_agent(
    "minimax", Minimax, "negamax alpha-beta with iterative deepening (two players)"
)
