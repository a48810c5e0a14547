"""Tic-tac-toe on an N x N board (default 3): pure rules, compiled with numba.

A full row, column or main diagonal of one player's marks wins; a full board without one
is a draw.

State: ``board: int8[n, n]``, 0 = empty, 1 = first player (X), 2 = second player (O).
The player to move follows from the board: X moves when both have as many marks.
Action ``a`` marks the cell ``(a // n, a % n)``. Players are 0 (X, moves first) and 1.

API (every function is a numba kernel, callable from Python and from compiled code):

* ``initial_state(n) -> board``
* ``current_player(board) -> int``: 0 or 1.
* ``legal_mask(board) -> bool[n * n]``: True = legal; all False once the game is over.
* ``apply(board, action) -> board``: a new board; the input is not modified and the
  action is not checked (use ``legal_mask``).
* ``winner(board) -> int``: 0 or 1, or -1 while nobody has a line (ongoing or draw).
* ``is_terminal(board) -> bool``: a line is complete or the board is full.
* ``result(board) -> int``: +1 if player 0 won, -1 if player 1 won, else 0.
* ``status(board) -> (player, winner, terminal, legal_mask)``: the four above in one
  call (one dispatch from Python instead of four; the env shell uses it).
* ``observe(board, player) -> int8[2, n, n]``: planes of ``player``'s own marks and of
  the other player's.
* ``random_playout(board, rng) -> int``: play uniformly random legal moves to the end
  with ``rng: np.random.Generator``; returns the winner (0, 1) or -1 for a draw.
* ``random_playouts(board, n_playouts, rng) -> int64[3]``: that many playouts, counted
  by ``winner + 1``: ``[draws, wins of player 0, wins of player 1]``. Handing a
  Generator from Python to a kernel costs ~8 us, so batch playouts from Python.

Run with ``NUMBA_DISABLE_JIT=1`` to step through the same code as plain Python.
"""

from __future__ import annotations

import numba
import numpy as np

EMPTY, X, O = 0, 1, 2


@numba.njit(cache=True)
def initial_state(n: int = 3) -> np.ndarray:
    """The empty board: ``initial_state(3) -> int8[3, 3] zeros``."""
    return np.zeros((n, n), dtype=np.int8)


@numba.njit(cache=True)
def current_player(board: np.ndarray) -> int:
    """Player to move: ``[[1, 0, 0], [0, 0, 0], [0, 0, 0]] -> 1``."""
    return np.count_nonzero(board) % 2


@numba.njit(cache=True)
def _line_owner(board, r, c, dr, dc) -> int:
    """Mark filling the line from (r, c) along (dr, dc), else 0: ``[2, 2, 2] -> 2``."""
    mark = int(board[r, c])
    for i in range(1, board.shape[0]):
        if board[r + i * dr, c + i * dc] != mark:
            return 0
    return mark


@numba.njit(cache=True)
def _wins_through(board, r, c) -> bool:
    """Is a line through the marked cell (r, c) complete? ``X row 0, r=0 -> True``."""
    n = board.shape[0]
    if _line_owner(board, r, 0, 0, 1) or _line_owner(board, 0, c, 1, 0):
        return True
    if r == c and _line_owner(board, 0, 0, 1, 1):
        return True
    return r + c == n - 1 and _line_owner(board, 0, n - 1, 1, -1) != 0


@numba.njit(cache=True)
def winner(board: np.ndarray) -> int:
    """Player with a full line, else -1: ``X on the main diagonal -> 0``."""
    n = board.shape[0]
    for i in range(n):
        mark = _line_owner(board, i, 0, 0, 1) or _line_owner(board, 0, i, 1, 0)
        if mark:
            return mark - 1
    mark = _line_owner(board, 0, 0, 1, 1) or _line_owner(board, 0, n - 1, 1, -1)
    return mark - 1 if mark else -1


@numba.njit(cache=True)
def is_terminal(board: np.ndarray) -> bool:
    """Line complete or board full: ``full drawn board -> True``."""
    return winner(board) >= 0 or np.count_nonzero(board) == board.size


@numba.njit(cache=True)
def result(board: np.ndarray) -> int:
    """+1 / -1 / 0 from player 0's side: ``O has a row -> -1``."""
    w = winner(board)
    return 0 if w < 0 else 1 - 2 * w


@numba.njit(cache=True)
def legal_mask(board: np.ndarray) -> np.ndarray:
    """Empty cells while the game goes on: ``empty 3x3 -> 9 x True``."""
    if winner(board) >= 0:
        return np.zeros(board.size, dtype=np.bool_)
    return board.reshape(board.size) == EMPTY


@numba.njit(cache=True)
def status(board: np.ndarray):
    """(player, winner, terminal, legal mask): ``empty -> (0, -1, False, 9 x True)``."""
    stones = np.count_nonzero(board)
    w = winner(board)
    if w >= 0:
        return stones % 2, w, True, np.zeros(board.size, dtype=np.bool_)
    return stones % 2, w, stones == board.size, board.reshape(board.size) == EMPTY


@numba.njit(cache=True)
def observe(board: np.ndarray, player: int) -> np.ndarray:
    """Own marks, then the other's: ``X centre, player 1 -> [0, 1, 1] == 1``."""
    n = board.shape[0]
    planes = np.zeros((2, n, n), dtype=np.int8)
    for r in range(n):
        for c in range(n):
            if board[r, c] != EMPTY:
                planes[0 if board[r, c] == player + 1 else 1, r, c] = 1
    return planes


@numba.njit(cache=True)
def apply(board: np.ndarray, action: int) -> np.ndarray:
    """Copy with the mover's mark at ``action``: ``empty, 4 -> X in the centre``."""
    new = board.copy()
    n = board.shape[0]
    new[action // n, action % n] = current_player(board) + 1
    return new


@numba.njit(cache=True)
def random_playout(board: np.ndarray, rng: np.random.Generator) -> int:
    """Random legal moves to the end; winner or -1: ``empty 3x3 -> 0 (~58%)``."""
    w = winner(board)
    if w >= 0:
        return w
    n = board.shape[0]
    b = board.copy()
    flat = b.reshape(b.size)
    empty = np.flatnonzero(flat == EMPTY)
    m = empty.size
    player = (b.size - m) % 2
    while m > 0:
        i = int(rng.random() * m)
        cell = empty[i]
        m -= 1
        empty[i] = empty[m]
        flat[cell] = player + 1
        if _wins_through(b, cell // n, cell % n):
            return player
        player = 1 - player
    return -1


@numba.njit(cache=True)
def random_playouts(board: np.ndarray, n_playouts: int, rng: np.random.Generator):
    """Counts of ``winner + 1`` over playouts: ``empty, 1000 -> ~[130, 585, 285]``."""
    counts = np.zeros(3, dtype=np.int64)
    for _ in range(n_playouts):
        counts[random_playout(board, rng) + 1] += 1
    return counts
