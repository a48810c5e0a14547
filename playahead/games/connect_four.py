"""Connect Four (6 rows x 7 columns): pure rules on bitboards, compiled with numba.

Players drop discs into columns; four of one colour in a row, column or diagonal wins;
a full board without one is a draw.

State: ``(stones of player 0, stones of player 1)``, two ``int64`` bitboards in the
Pons/Tromp layout: column ``c`` uses bits ``7c .. 7c+5`` (bottom to top) and bit
``7c+6`` stays empty as a sentinel, so shifting by 1, 6, 7 or 8 never wraps a line
across columns. Only 49 bits are used, so signed ``int64`` is safe and mixes with
numba's default integers without the float promotion that ``uint64 op int64`` gets.
The player to move follows from the number of discs (player 0 moves first). Action
``a`` drops a disc into column ``a``.

API (every function is a numba kernel, callable from Python and from compiled code):

* ``initial_state() -> state``
* ``current_player(state) -> int``: 0 or 1.
* ``legal_mask(state) -> bool[7]``: columns with room; all False once the game is over.
* ``apply(state, action) -> state``: a new state; the action is not checked.
* ``winner(state) -> int``: 0 or 1, or -1 while nobody has four (ongoing or draw).
* ``is_terminal(state) -> bool``: four in a row or a full board.
* ``result(state) -> int``: +1 if player 0 won, -1 if player 1 won, else 0.
* ``status(state) -> (player, winner, terminal, legal_mask)``: the four above in one
  call (one dispatch from Python instead of four; the env shell uses it).
* ``observe(state, player) -> int8[2, 6, 7]``: planes (row 0 on top) of ``player``'s
  own discs and of the other player's.
* ``random_playout(state, rng) -> int``: uniformly random legal moves to the end with
  ``rng: np.random.Generator``; the winner or -1 for a draw.
* ``random_playouts(state, n_playouts, rng) -> int64[3]``: counts of ``winner + 1``.
  Handing a Generator from Python to a kernel costs ~8 us, so batch from Python.
* ``to_board(state) -> int8[6, 7]`` (row 0 on top; 0 empty, 1 player 0, 2 player 1) and
  ``from_board(board) -> state`` (the board is not checked).

Run with ``NUMBA_DISABLE_JIT=1`` to step through the same code as plain Python.
"""

from __future__ import annotations

import numba
import numpy as np

ROWS, COLS = 6, 7
_STRIDE = ROWS + 1  # bits per column, sentinel included
BOTTOM = np.array([1 << (_STRIDE * c) for c in range(COLS)], dtype=np.int64)
TOP = np.array([1 << (_STRIDE * c + ROWS - 1) for c in range(COLS)], dtype=np.int64)
COLUMN = np.array(
    [((1 << ROWS) - 1) << (_STRIDE * c) for c in range(COLS)], dtype=np.int64
)
FULL = int(COLUMN.sum())  # every playable cell
_SHIFTS = (1, ROWS, _STRIDE, _STRIDE + 1)  # vertical, two diagonals, horizontal


@numba.njit(cache=True)
def initial_state() -> tuple[int, int]:
    """The empty board: ``() -> (0, 0)``."""
    return (np.int64(0), np.int64(0))


@numba.njit(cache=True)
def _popcount(x) -> int:
    """Number of set bits: ``0b1011 -> 3``."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(cache=True)
def current_player(state) -> int:
    """Player to move: ``one disc on the board -> 1``."""
    return _popcount(state[0] | state[1]) & 1


@numba.njit(cache=True)
def has_four(stones) -> bool:
    """Four in a line among ``stones``: ``bits 0, 7, 14, 21 (a bottom row) -> True``."""
    for s in _SHIFTS:
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (2 * s)):
            return True
    return False


@numba.njit(cache=True)
def winner(state) -> int:
    """Player with four in a row, else -1: ``(bottom-row four, 0) -> 0``."""
    if has_four(state[0]):
        return 0
    if has_four(state[1]):
        return 1
    return -1


@numba.njit(cache=True)
def is_terminal(state) -> bool:
    """Four in a row or full: ``full drawn board -> True``."""
    return winner(state) >= 0 or (state[0] | state[1]) == FULL


@numba.njit(cache=True)
def result(state) -> int:
    """+1 / -1 / 0 from player 0's side: ``player 1 has four -> -1``."""
    w = winner(state)
    return 0 if w < 0 else 1 - 2 * w


@numba.njit(cache=True)
def legal_mask(state) -> np.ndarray:
    """Columns with room while the game goes on: ``empty -> 7 x True``."""
    mask = np.zeros(COLS, dtype=np.bool_)
    if winner(state) < 0:
        filled = state[0] | state[1]
        for c in range(COLS):
            mask[c] = (filled & TOP[c]) == 0
    return mask


@numba.njit(cache=True)
def status(state):
    """(player, winner, terminal, legal mask): ``empty -> (0, -1, False, 7 x True)``."""
    w = winner(state)
    filled = state[0] | state[1]
    return current_player(state), w, w >= 0 or filled == FULL, legal_mask(state)


@numba.njit(cache=True)
def observe(state, player: int) -> np.ndarray:
    """Own discs, then the other's: ``(1, 0), player 1 -> [1, 5, 0] == 1``."""
    planes = np.zeros((2, ROWS, COLS), dtype=np.int8)
    own, other = (state[0], state[1]) if player == 0 else (state[1], state[0])
    for c in range(COLS):
        for r in range(ROWS):
            bit = np.int64(1) << (_STRIDE * c + r)
            if own & bit:
                planes[0, ROWS - 1 - r, c] = 1
            elif other & bit:
                planes[1, ROWS - 1 - r, c] = 1
    return planes


@numba.njit(cache=True)
def apply(state, action: int):
    """Drop the mover's disc in column ``action``: ``(0, 0), 3 -> (1 << 21, 0)``."""
    p0, p1 = state[0], state[1]
    filled = p0 | p1
    stone = (filled & COLUMN[action]) + BOTTOM[action]
    if _popcount(filled) & 1:
        return (p0, p1 | stone)
    return (p0 | stone, p1)


@numba.njit(cache=True)
def random_playout(state, rng: np.random.Generator) -> int:
    """Uniformly random drops to the end; winner or -1: ``empty -> 0 (~55%)``."""
    w = winner(state)
    if w >= 0:
        return w
    p0, p1 = state[0], state[1]
    filled = p0 | p1
    player = _popcount(filled) & 1
    open_cols = np.empty(COLS, dtype=np.int64)
    while filled != FULL:
        k = 0
        for c in range(COLS):
            if (filled & TOP[c]) == 0:
                open_cols[k] = c
                k += 1
        c = open_cols[int(rng.random() * k)]
        stone = (filled & COLUMN[c]) + BOTTOM[c]
        filled |= stone
        if player == 0:
            p0 |= stone
            if has_four(p0):
                return 0
        else:
            p1 |= stone
            if has_four(p1):
                return 1
        player = 1 - player
    return -1


@numba.njit(cache=True)
def random_playouts(state, n_playouts: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of ``winner + 1`` over playouts: ``empty, 1000 -> ~[3, 555, 442]``."""
    counts = np.zeros(3, dtype=np.int64)
    for _ in range(n_playouts):
        counts[random_playout(state, rng) + 1] += 1
    return counts


@numba.njit(cache=True)
def to_board(state) -> np.ndarray:
    """``int8[6, 7]``, row 0 on top: ``(1, 0) -> 1 at [5, 0]``."""
    board = np.zeros((ROWS, COLS), dtype=np.int8)
    for c in range(COLS):
        for r in range(ROWS):
            bit = np.int64(1) << (_STRIDE * c + r)
            if state[0] & bit:
                board[ROWS - 1 - r, c] = 1
            elif state[1] & bit:
                board[ROWS - 1 - r, c] = 2
    return board


@numba.njit(cache=True)
def from_board(board: np.ndarray):
    """Bitboards of an ``int8[6, 7]`` board, row 0 on top: ``1 at [5, 0] -> (1, 0)``."""
    p0, p1 = np.int64(0), np.int64(0)
    for c in range(COLS):
        for r in range(ROWS):
            bit = np.int64(1) << (_STRIDE * c + r)
            if board[ROWS - 1 - r, c] == 1:
                p0 |= bit
            elif board[ROWS - 1 - r, c] == 2:
                p1 |= bit
    return (p0, p1)
