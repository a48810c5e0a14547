"""Row tables: a packed board's value as a 65536-entry table summed over its lines.

A table scores one 16-bit line (four 4-bit ranks); a board scores the sum over its
4 rows and its 4 columns (the rows of its transpose), so a board costs eight lookups.
The evaluators of :mod:`playahead.planners.evaluators` are such tables, and the
search (:mod:`playahead.kernels.expectimax`) values its leaves with them. The
lookups allocate nothing and return no array: they are compiled without numba's
reference counting (``_nrt=False``), as the search's nodes are.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games import threes

_ROW = np.uint64(0xFFFF)


@nb.njit(cache=True, _nrt=False)
def rows_value(x, table):
    """Sum of ``table`` over the four 16-bit rows of ``x``."""
    return (
        table[x & _ROW]
        + table[(x >> np.uint64(16)) & _ROW]
        + table[(x >> np.uint64(32)) & _ROW]
        + table[(x >> np.uint64(48)) & _ROW]
    )


@nb.njit(cache=True, _nrt=False)
def evaluate_pair(board, board_t, table):
    """Sum of ``table`` over the rows and columns of a board given with its transpose
    (in either order)."""
    return rows_value(board, table) + rows_value(board_t, table)


def score_table(game: str) -> tuple[np.ndarray, float]:
    """``(table, reward_weight)``: the game's score as a row table. Threes: half the
    board's score on each of rows and columns (the sum is the exact score). 2048: a
    table of zeros and ``reward_weight`` 1, the search adding each move's merge
    reward instead. The table is read-only: every search reads it so, and the
    planner's search and the training search then share one compiled kernel."""
    if game == "2048":
        table, reward_weight = np.zeros(1 << 16), 1.0
    else:
        table, reward_weight = threes.tables(True)[2].astype(np.float64) / 2.0, 0.0
    table.setflags(write=False)
    return table, reward_weight
