"""``solver``: perfect Connect Four play from the exact solver
(:mod:`playahead.games.connect_four_solver`).

Every column is scored exactly within ``budget`` nodes per decision. Scores follow
Pons' convention (``value_kind="pons_score"``): from the side to move, ``22 - n`` for a
win with the mover's ``n``-th disc, 0 for a draw, ``-(22 - n)`` for a loss to the
opponent's ``n``-th disc (NaN for a full column). The highest score is played, so the
agent takes the quickest win and the slowest loss; equal columns are broken with the
agent's seeded generator.

When the budget runs out before every column is exact (early positions), the move
comes from ``minimax`` with a budget of ``fallback_budget`` nodes, among the columns
whose proven upper bound reaches the best proven lower bound; the analysis then
carries minimax's values and ``value_kind`` and ``stats["solved"] = False``, with
minimax's ``depth``, ``fallback_nodes`` and ``fallback_budget``. ``stats`` always
holds the solver's ``lower`` and ``upper`` bounds per column, its ``nodes`` and its
``budget``. At the default budget it keeps the best outcome in 469 of the 472
positions of the Connect Four test set where the choice matters; the three others,
of 4 and 6 discs, were not solved within it
(``benchmarks/results/c4-testset/records/solver.json``).

The table is emptied before each decision, so a decision depends only on the position,
the options and the seed.
"""

from __future__ import annotations

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.games import connect_four_solver as c4s
from playahead.planner import Planner, Root, check_positive

#: Nodes a decision may search by default.
DEFAULT_NODE_BUDGET = c4s.DEFAULT_NODE_BUDGET
#: Nodes of the minimax fallback by default.
DEFAULT_FALLBACK_BUDGET = 1_000_000


class SolverAgent(Planner):
    """``solver``: exact Connect Four play (see the module docstring).

    Args:
        budget: solver nodes per decision, at most
            :data:`~playahead.games.connect_four_solver.MAX_NODE_BUDGET`.
        fallback_budget: minimax nodes per decision when the position is not solved
            within ``budget`` (at most the same cap).
        table_bits: the transposition table holds about ``2**table_bits`` entries of
            5 bytes (10 to 27).
        seed: seed of the generator that breaks ties between equal columns.
    """

    name = "solver"

    def __init__(
        self,
        budget: int = DEFAULT_NODE_BUDGET,
        fallback_budget: int = DEFAULT_FALLBACK_BUDGET,
        table_bits: int = 22,
        seed: int | None = None,
    ):
        super().__init__(seed)
        self.budget = c4s.check_budget(budget)
        self.fallback_budget = c4s.check_budget(
            check_positive("fallback_budget", fallback_budget)
        )
        self._solver = c4s.Solver(table_bits)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        if root.kind != "connect_four":
            raise ValueError(
                "the solver agent plays Connect Four only (ConnectFour-v0); for other "
                "two-player games use minimax"
            )
        self._solver.reset()
        result = self._solver.analyze(root.env.clone_state().position, self.budget)
        stats = {
            "nodes": result.nodes,
            "budget": self.budget,
            "solved": result.solved,
            "lower": list(result.lower),
            "upper": list(result.upper),
        }
        if result.solved:
            values = np.array(
                [np.nan if s is None else float(s) for s in result.scores]
            )
            best = np.flatnonzero(values == np.nanmax(values))
            action = int(best[rng.integers(best.size)])
            return Analysis(action, values, None, "pons_score", stats)
        return self._fallback(root, rng, result, stats)

    def _fallback(self, root: Root, rng, result: c4s.ColumnScores, stats: dict):
        from playahead.planners.minimax import Minimax

        # columns no other column is proven better than
        keep = np.zeros(root.mask.size, dtype=bool)
        floor = max(lo for lo in result.lower if lo is not None)
        for col, hi in enumerate(result.upper):
            keep[col] = hi is not None and hi >= floor
        seed = int(rng.integers(2**63 - 1))
        minimax = Minimax(seed=seed, budget=self.fallback_budget)
        analysis = minimax.analyze(root.env)
        values = np.asarray(analysis.values, dtype=np.float64)
        among = np.where(keep, values, np.nan)
        best = np.flatnonzero(among == np.nanmax(among))
        action = int(best[rng.integers(best.size)])
        stats = {**analysis.stats, "fallback": "minimax", **stats}
        stats["fallback_nodes"] = analysis.stats.get("nodes")
        stats["fallback_budget"] = self.fallback_budget
        return Analysis(action, values, None, analysis.value_kind, stats)


register_agent(
    "solver",
    SolverAgent,
    "exact Connect Four solver: perfect play within a node budget",
)
