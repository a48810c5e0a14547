"""Plain-Python Connect Four scores: the reference the compiled solver
(:mod:`playahead.games.connect_four_solver`) is checked against.

A position is a 6x7 list grid (row 0 at the bottom, 0 empty, 1 and 2 the players) and
the number of discs. The score is plain negamax over every continuation, with a
dictionary of positions already scored: no pruning, no move ordering, no bounds. A win
with the mover's disc ``n`` scores ``22 - n`` (Pons' convention), a full board 0.
"""

from __future__ import annotations

ROWS, COLS = 6, 7
INVALID = -1000


def grid_of(moves: str) -> tuple[list[list[int]], int]:
    """The grid after a move string (columns 1-7; not checked)."""
    grid = [[0] * COLS for _ in range(ROWS)]
    for i, ch in enumerate(moves):
        col = int(ch) - 1
        row = next(r for r in range(ROWS) if grid[r][col] == 0)
        grid[row][col] = 1 + i % 2
    return grid, len(moves)


def fours_through(grid, row: int, col: int) -> bool:
    """The disc at (row, col) is part of four in a line of its colour."""
    who = grid[row][col]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < ROWS and 0 <= c < COLS and grid[r][c] == who:
                n += 1
                r, c = r + sign * dr, c + sign * dc
        if n >= 4:
            return True
    return False


def score(grid, discs: int, memo: dict | None = None) -> int:
    """The side to move's score by full negamax (nobody has four yet)."""
    memo = {} if memo is None else memo
    key = tuple(map(tuple, grid))
    if key in memo:
        return memo[key]
    if discs == ROWS * COLS:
        return 0
    best = -99
    for col in range(COLS):
        best = max(best, column_score(grid, discs, col, memo))
    memo[key] = best
    return best


def column_score(grid, discs: int, col: int, memo: dict | None = None) -> int:
    """The mover's score after a disc in ``col`` (``INVALID`` when full)."""
    rows = [r for r in range(ROWS) if grid[r][col] == 0]
    if not rows:
        return INVALID
    row = rows[0]
    grid[row][col] = 1 + discs % 2
    try:
        if fours_through(grid, row, col):
            return 22 - (discs // 2 + 1)  # the mover's disc number discs // 2 + 1
        return -score(grid, discs + 1, memo)
    finally:
        grid[row][col] = 0


def analyze(moves: str) -> list[int]:
    """Every column's score after ``moves``, as ``c4solver -a`` prints them."""
    grid, discs = grid_of(moves)
    memo: dict = {}
    return [column_score(grid, discs, col, memo) for col in range(COLS)]
