"""``mcts``: Monte Carlo tree search (UCT) for every game.

* **Tile games** (2048, Threes, any one-player env): a move leads to a chance node whose
  outcomes (new tile, card, next preview) are sampled from the planner's generator and
  kept as separate children; values are expected score, and UCT compares moves on Q
  values rescaled to [0, 1] among siblings.
* **Two-player games**: both sides are searched (the env's built-in opponent plays no
  part); values are results in [-1, 1] for the player who made the move (negamax
  backups), mapped to [0, 1] inside UCT.

A new leaf is scored by a playout: uniformly random moves, or ``rollout="greedy"``
(best one-move reward; in two-player games: take a win, avoid a losing move). With
``rollout_depth`` a playout stops after that many moves and scores the score gained so
far (tile games) or the static evaluation (Connect Four: open lines; other games: 0).

The move played is the most visited one. With ``reuse`` the subtree under the position
reached after the real move (and the reply or chance that followed) is kept for the
next decision when the planner sees that position again.
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
    state_key,
)
from playahead.planners.mc import DUEL_KINDS, TILE_KINDS, value_kind

ROLLOUTS = ("random", "greedy")
_CHUNK = 64  # simulations between deadline checks
#: The most simulations a decision may ask for (``n_simulations``; a longer search:
#: ``time_limit``).
MAX_SIMULATIONS = 10**7


def _grow(arrays: tuple, needed: int) -> tuple:
    """The tree arrays with room for ``needed`` nodes (doubling); the count array
    (last) is kept as is."""
    capacity = arrays[0].shape[0]
    if needed <= capacity:
        return arrays
    size = max(needed, 2 * capacity)
    out = []
    for a in arrays[:-1]:
        b = np.zeros((size,) + a.shape[1:], dtype=a.dtype)
        b[:capacity] = a
        out.append(b)
    return (*out, arrays[-1])


def _robust_choice(visits: np.ndarray, values: np.ndarray) -> int:
    """Most visits; ties by value."""
    key = np.where(np.isnan(values), -np.inf, values)
    order = np.lexsort((-key, -visits))
    return int(order[0])


class MCTS(Planner):
    """``mcts``: UCT with chance nodes and negamax backups (see the module docstring).

    Args:
        n_simulations: simulations per decision (None: until ``time_limit``).
        c: exploration constant of UCT.
        rollout: ``"random"`` or ``"greedy"`` playouts.
        rollout_depth: moves per playout before it is scored (None: to the end).
        reuse: keep the subtree of the position reached for the next decision.
        seed: seed of the planner's generator.
        time_limit: seconds per decision, or None.
        compiled: use compiled kernels for playahead's games.
    """

    name = "mcts"

    def __init__(
        self,
        n_simulations: int | None = 400,
        c: float = 1.4,
        rollout: str = "random",
        rollout_depth: int | None = None,
        reuse: bool = True,
        seed: int | None = None,
        time_limit: float | None = None,
        compiled: bool = True,
    ):
        super().__init__(seed, time_limit, compiled)
        self.n_simulations = check_positive(
            "n_simulations", n_simulations, allow_none=True, at_most=MAX_SIMULATIONS
        )
        if self.n_simulations is None and self.time_limit is None:
            raise ValueError("mcts needs n_simulations or time_limit (or both)")
        if isinstance(c, bool) or not isinstance(c, int | float) or c < 0:
            raise ValueError(f"c must be a number >= 0, got {c!r}")
        self.c = float(c)
        self.rollout = check_choice("rollout", rollout, ROLLOUTS)
        self.rollout_depth = check_positive(
            "rollout_depth", rollout_depth, allow_none=True
        )
        self.reuse = bool(reuse)
        self._kept = None  # (backend key, tree arrays) of the last search

    def _budget(self, done: int, deadline: float) -> int:
        """Simulations for the next kernel call: all that are left without a time
        limit, else a chunk between two looks at the clock."""
        if self.n_simulations is None:
            return _CHUNK
        left = self.n_simulations - done
        return left if deadline == math.inf else min(left, _CHUNK)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        if root.kind in TILE_KINDS:
            values, visits, stats = self._tiles(root, rng, deadline)
        elif root.kind in DUEL_KINDS:
            values, visits, stats = self._duels(root, rng, deadline)
        else:
            values, visits, stats = _GenericSearch(self, root, rng).run(deadline)
        values = masked(values, root.mask)
        action = _robust_choice(visits, values)
        return Analysis(action, values, visits, value_kind(root), stats)

    def _loop(self, run, deadline: float) -> int:
        """Call ``run(k)`` for chunks of simulations until the budget or deadline."""
        done = 0
        while True:
            k = self._budget(done, deadline)
            if k <= 0:
                return done
            run(k)
            done += k
            if time.perf_counter() > deadline:
                return done

    # ----------------------------------------------------------------- 2048, Threes
    def _tiles(self, root: Root, rng, deadline):
        game, board, cards, moves, rewards, preview = tiles.tile_position(
            root.kind, root.env
        )
        key = (root.kind, id(moves), preview)
        tree, reused = None, 0
        if self.reuse and self._kept is not None and self._kept[0] == key:
            old = self._kept[1]
            node = tiles.find_outcome(old[0], old[1], old[2], board, cards)
            if node >= 0:
                tree = tiles.new_tree(int(old[4][0]) + 1)
                reused = tiles.copy_subtree(node, *old[:4], *tree[:4])
                tree[4][0] = reused
        if tree is None:
            tree = tiles.new_tree(1 + 5 * self._budget(0, deadline))
            tiles.add_node(*tree, board, cards, -1, 0.0)
        greedy = self.rollout == "greedy"
        cap = self.rollout_depth or tiles.NO_CAP

        def run(k):
            nonlocal tree
            tree = _grow(tree, int(tree[4][0]) + 5 * k + 1)
            tiles.mcts_chunk(
                game, k, self.c, rng, moves, rewards, preview, greedy, cap, *tree
            )

        sims = self._loop(run, deadline)
        self._kept = (key, tree) if self.reuse else None
        _, _, links, vals, count = tree
        values, visits = np.full(4, np.nan), np.zeros(4, dtype=np.int64)
        child = links[0, tiles.FIRST]
        while child >= 0:
            a, n = links[child, tiles.ACTION], links[child, tiles.VISITS]
            visits[a] = n
            values[a] = root.score + vals[child, tiles.SUM] / max(n, 1)
            child = links[child, tiles.NEXT]
        stats = {"simulations": sims, "nodes": int(count[0]), "reused_nodes": reused}
        return values, visits, stats

    # ----------------------------------------------------------------- two players
    def _duels(self, root: Root, rng, deadline):
        game, position = duels.position(root.kind, root.env)
        key = (root.kind, root.env.clone_state().rules)
        n_actions = root.mask.size
        tree, reused = None, 0
        exact = duels.exact_keys(game, root.env)
        if self.reuse and exact and self._kept and self._kept[0] == key:
            old = self._kept[1]
            node = duels.find_descendant(old[0], duels.g_key(game, position), 2)
            if node >= 0:
                tree = duels.new_tree(int(old[3][0]) + 1, position)
                reused = duels.copy_subtree(node, *old[:3], *tree[:3])
                tree[0][0, duels.MOVER] = -1
                tree[3][0] = reused
        if tree is None:
            capacity = 1 + n_actions * (self._budget(0, deadline) + 1)
            tree = duels.new_tree(capacity, position)
        greedy = self.rollout == "greedy"
        cap = -1 if self.rollout_depth is None else self.rollout_depth

        def run(k):
            nonlocal tree
            tree = _grow(tree, int(tree[3][0]) + n_actions * (k + 1))
            duels.mcts_chunk(game, k, self.c, rng, greedy, cap, *tree)

        sims = self._loop(run, deadline)
        links, vals, _, count = tree
        self._kept = (key, tree) if self.reuse else None
        values = np.full(n_actions, np.nan)
        visits = np.zeros(n_actions, dtype=np.int64)
        first = links[0, duels.FIRST]
        for ch in range(first, first + links[0, duels.NCHILD]):
            a, n = links[ch, duels.ACTION], links[ch, duels.VISITS]
            visits[a] = n
            values[a] = vals[ch] / max(n, 1)
        stats = {"simulations": sims, "nodes": int(count[0]), "reused_nodes": reused}
        return values, visits, stats


class _Node:
    """A decision node of the generic search."""

    __slots__ = ("state", "player", "edges", "visits")

    def __init__(self, state):
        self.state, self.player, self.edges, self.visits = state, 0, None, 0


class _Edge:
    """A move from a node: a chance node over the positions it led to."""

    __slots__ = ("action", "visits", "total", "outcomes")

    def __init__(self, action: int, num_players: int):
        self.action, self.visits = action, 0
        self.total = np.zeros(num_players)
        self.outcomes: dict = {}  # state key -> (node, rewards of the move)


class _GenericSearch:
    """MCTS over any env through :class:`GenericGame` (same rules as the kernels)."""

    def __init__(self, planner: MCTS, root: Root, rng):
        self.p, self.rng = planner, rng
        self.model = GenericGame(root.env, rng)
        self.root = _Node(self.model.root)
        self.two = self.model.num_players == 2

    def run(self, deadline: float):
        sims = self.p._loop(self._simulate, deadline)
        n = self.model.n_actions
        values, visits = np.full(n, np.nan), np.zeros(n, dtype=np.int64)
        player = self.root.player
        for e in self.root.edges or ():
            visits[e.action] = e.visits
            values[e.action] = e.total[player] / max(e.visits, 1)
        stats = {"simulations": sims, "steps": self.model.steps}
        return values, visits, stats

    def _expand(self, node: _Node) -> None:
        legal = np.flatnonzero(self.model.legal(node.state))
        node.player = self.model.player(node.state)
        node.edges = [_Edge(int(a), self.model.num_players) for a in legal]

    def _select(self, node: _Node) -> _Edge:
        fresh = [e for e in node.edges if e.visits == 0]
        if fresh:
            return fresh[self.rng.integers(len(fresh))]
        q = np.array([e.total[node.player] / e.visits for e in node.edges])
        if self.two:
            q = 0.5 * (q + 1.0)
        else:
            span = q.max() - q.min()
            q = (q - q.min()) / span if span > 0 else np.full(q.size, 0.5)
        n = np.array([e.visits for e in node.edges])
        score = q + self.p.c * np.sqrt(math.log(node.visits) / n)
        return node.edges[int(np.argmax(score))]

    def _simulate(self, k: int) -> None:
        model, greedy = self.model, self.p.rollout == "greedy"
        cap = -1 if self.p.rollout_depth is None else self.p.rollout_depth
        for _ in range(k):
            node, path = self.root, []
            leaf = np.zeros(model.num_players)
            while True:
                if node.edges is None:
                    self._expand(node)
                if not node.edges:
                    break
                edge = self._select(node)
                child, reward, over = model.step(node.state, edge.action)
                key = state_key(child)
                known = edge.outcomes.get(key)
                if known is None:
                    new = _Node(child)
                    if over:
                        new.edges = []
                    edge.outcomes[key] = (new, reward)
                    path.append((node, edge, reward))
                    if not over:
                        leaf = model.rollout(child, greedy, cap)
                    break
                path.append((node, edge, reward))
                node = known[0]
            g = leaf
            for parent, edge, reward in reversed(path):
                g = reward + g
                edge.visits += 1
                edge.total += g
                parent.visits += 1


register_agent("mcts", MCTS, "Monte Carlo tree search (UCT), chance nodes, negamax")
