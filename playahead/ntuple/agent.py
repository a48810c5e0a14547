"""The ``ntuple`` agent: greedy on ``reward + V(afterstate)`` of a trained net; its
values are that plus the score so far, the expected final score.

Fairness: it reads the position through ``clone_state()`` only (the board and, for
Threes, the preview); it draws no chance. ``make_agent("ntuple:path=DIR")``.
"""

from __future__ import annotations

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.games._board64 import max_rank, move_rows
from playahead.kernels import ntuple as k
from playahead.ntuple.model import shared_model
from playahead.planner import Planner, Root, masked, pick_max

_KINDS = {"2048": "2048-v0", "threes": "Threes-v0"}


class NTupleAgent(Planner):
    """``ntuple``: the move with the best reward plus learned afterstate value.

    Args:
        path: a model directory written by ``playahead train ntuple``.
        seed: seed of the generator that breaks exact ties.
    """

    name = "ntuple"

    def __init__(self, path: str | None = None, seed: int | None = None):
        super().__init__(seed=seed)
        if path is None:
            raise ValueError(
                "ntuple needs path=DIR, a model of `playahead train ntuple`"
            )
        self.model = shared_model(path)
        self.cells = self.model.cells
        self.stage_ranks = self.model.stage_ranks
        self.path = str(path)

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        from playahead.ntuple.train import rules

        state = root.env.clone_state()
        env_id = _KINDS.get(root.kind, type(root.env).__name__)
        self.model.check_position(env_id, state)
        moves, rewards, _ = rules(self.model)
        board = np.uint64(state.board)
        cards = np.int64(getattr(state, "cards", 0))
        code = k.preview_code(cards) if self.model.n_base > 1 else 0
        n_base, stages = self.model.n_base, self.stage_ranks
        values = np.full(root.mask.size, np.nan)
        for a in root.legal:
            after, _, r = move_rows(board, int(a), moves, rewards)
            after = np.uint64(after)  # numba returns uint64 as a Python int
            values[a] = r
            if self.model.game == 0 or max_rank(after) != 15:  # 12288 ends Threes
                c = k.staged(after, code, n_base, stages)
                values[a] += k.value(after, c, self.model.weights, self.cells)
        values += root.score  # expected final scores, as Analysis promises
        action = pick_max(values, rng)
        return Analysis(
            action, masked(values, root.mask), value_kind="score", stats={"nodes": 4}
        )


register_agent("ntuple", NTupleAgent, "greedy on a learned n-tuple afterstate value")
