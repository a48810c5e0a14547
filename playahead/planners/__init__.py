"""Look-ahead planners; importing this package registers them with ``make_agent``.

* ``random``, ``greedy``: :mod:`playahead.planners.basic`
* ``mc`` (flat Monte Carlo), ``lookahead`` (depth-limited Monte Carlo lookahead):
  :mod:`playahead.planners.mc`
* ``mcts`` (UCT with chance nodes and negamax backups): :mod:`playahead.planners.mcts`
* ``minimax`` (negamax, alpha-beta, iterative deepening):
  :mod:`playahead.planners.minimax`
* ``expectimax``: :mod:`playahead.planners.expectimax`

Every planner has ``act(env)`` and ``analyze(env) -> Analysis``; see
:mod:`playahead.planner` for what they share.
"""

from __future__ import annotations

from playahead.planner import Planner
from playahead.planners import basic, expectimax, mc, mcts, minimax

__all__ = ["Planner", "basic", "expectimax", "mc", "mcts", "minimax"]
