"""The counters a search kernel shares with its planner: one ``int64[3]`` array,
read and written by these names (module-level ints, constants in compiled code).

``counters[NODES]`` counts the positions the search reached; the search gives up
once it passes ``counters[LIMIT]`` (expectimax) or reaches it (minimax, which then
sets ``counters[ABORTED]``). Expectimax counts its transposition-table hits in
``counters[TT_HITS]``.
"""

from __future__ import annotations

import numpy as np

NODES = 0
TT_HITS = 1
ABORTED = 1
LIMIT = 2
#: A limit no search reaches.
NO_LIMIT = 1 << 62


def new_counters(limit: int = NO_LIMIT) -> np.ndarray:
    """Fresh counters: no nodes, no hits, the node ``limit``."""
    out = np.zeros(3, dtype=np.int64)
    out[LIMIT] = limit
    return out
