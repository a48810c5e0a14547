"""A 4x4 board of 4-bit ranks packed in one uint64, shared by 2048 and Threes.

Layout: the cell at (row, col) is the nibble at bit ``4 * (4 * row + col)``, so row
``r`` is the 16-bit word at bit ``16 * r`` with column 0 in its lowest nibble. A move is
four lookups in 65536-entry row tables: side 0 moves a row toward column 0, side 1
toward column 3, and up/down are the same on the transposed board.

Actions everywhere: 0 up, 1 right, 2 down, 3 left.
"""

from __future__ import annotations

import numba as nb
import numpy as np

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
ACTION_NAMES = ("up", "right", "down", "left")

_ROW = np.uint64(0xFFFF)
_NIB = np.uint64(0xF)
_ONES = np.uint64(0x1111111111111111)


@nb.njit(cache=True)
def pack(ranks):
    """uint8[4, 4] ranks -> uint64 board; [[1,0,0,0],...] -> 0x...0001."""
    board = np.uint64(0)
    for r in range(4):
        for c in range(4):
            board |= np.uint64(ranks[r, c] & 0xF) << np.uint64(4 * (4 * r + c))
    return board


@nb.njit(cache=True)
def unpack(board):
    """uint64 board -> uint8[4, 4] ranks."""
    out = np.zeros((4, 4), dtype=np.uint8)
    for i in range(16):
        out[i // 4, i % 4] = (board >> np.uint64(4 * i)) & _NIB
    return out


@nb.njit(cache=True)
def unpack_into(board, out):
    """Write the ranks of ``board`` into ``out`` (uint8[4, 4]); returns the top rank."""
    top = 0
    for i in range(16):
        v = (board >> np.uint64(4 * i)) & _NIB
        out[i // 4, i % 4] = v
        top = max(top, np.int64(v))
    return top


@nb.njit(cache=True)
def line_cell(action, line, j):
    """(row, col) of position j (0 = at the wall) of line ``line`` for ``action``."""
    if action == UP:
        return j, line
    if action == RIGHT:
        return line, 3 - j
    if action == DOWN:
        return 3 - j, line
    return line, j


@nb.njit(cache=True)
def get_cell(board, index):
    """Rank of cell ``index = 4 * row + col``."""
    return np.int64((board >> np.uint64(4 * index)) & _NIB)


@nb.njit(cache=True)
def set_cell(board, index, rank):
    """Board with cell ``index`` set to ``rank`` (the cell must be empty)."""
    return board | (np.uint64(rank) << np.uint64(4 * index))


@nb.njit(cache=True)
def transpose(x):
    """Swap rows and columns: cell (r, c) -> (c, r)."""
    a1 = x & np.uint64(0xF0F00F0FF0F00F0F)
    a2 = x & np.uint64(0x0000F0F00000F0F0)
    a3 = x & np.uint64(0x0F0F00000F0F0000)
    a = a1 | (a2 << np.uint64(12)) | (a3 >> np.uint64(12))
    b1 = a & np.uint64(0xFF00FF0000FF00FF)
    b2 = a & np.uint64(0x00FF00FF00000000)
    b3 = a & np.uint64(0x00000000FF00FF00)
    return b1 | (b2 >> np.uint64(24)) | (b3 << np.uint64(24))


@nb.njit(cache=True)
def get_row(board, r):
    """The 16-bit row ``r``."""
    return np.int64((board >> np.uint64(16 * r)) & _ROW)


@nb.njit(cache=True)
def empty_bits(board):
    """One bit per empty cell, at the lowest bit of its nibble."""
    x = board | (board >> np.uint64(2))
    x |= x >> np.uint64(1)
    return ~x & _ONES


@nb.njit(cache=True)
def count_empty(board):
    """Number of empty cells."""
    x = empty_bits(board)
    x += x >> np.uint64(32)  # fold the nibble flags: no nibble exceeds 8 below
    x += x >> np.uint64(16)
    x += x >> np.uint64(8)
    return np.int64((x & _NIB) + ((x >> np.uint64(4)) & _NIB))


@nb.njit(cache=True)
def max_rank(board):
    """Largest rank on the board, found bit by bit from the highest: a bit is the
    top rank's when a cell that holds every higher bit found holds it too (four
    steps over all cells at once, not a loop over the cells)."""
    board = np.uint64(board)  # an int64 board too: every step in uint64
    live = ~np.uint64(0)  # the nibbles of the cells still in the running
    m = np.uint64(0)
    for bit in range(3, -1, -1):
        hit = board & live & (_ONES << np.uint64(bit))
        if hit != 0:
            m |= np.uint64(1) << np.uint64(bit)
            live = (hit >> np.uint64(bit)) * _NIB
    return np.int64(m)


@nb.njit(cache=True)
def lowest_nibble_index(x):
    """Index of the lowest non-zero nibble of a non-zero uint64 (binary search)."""
    i = 0
    if x & np.uint64(0xFFFFFFFF) == 0:
        i += 8
        x >>= np.uint64(32)
    if x & np.uint64(0xFFFF) == 0:
        i += 4
        x >>= np.uint64(16)
    if x & np.uint64(0xFF) == 0:
        i += 2
        x >>= np.uint64(8)
    if x & _NIB == 0:
        i += 1
    return i


@nb.njit(cache=True)
def nth_empty(board, k):
    """Index (4 * row + col) of the k-th empty cell in reading order (-1 if none)."""
    x = empty_bits(board)
    for _ in range(k):
        x &= x - np.uint64(1)
    if x == 0:
        return -1
    return lowest_nibble_index(x)


@nb.njit(cache=True)
def move_rows(board, action, moves, rewards):
    """Apply the row tables to the four lines of ``action``.

    ``moves[side, row]`` is the row after the move and ``rewards[side, row]`` its
    reward, with side 0 toward column 0 (left, or up on the transposed board) and side
    1 toward column 3. Returns ``(board, moved_lines, reward)``: ``moved_lines`` has bit
    ``i`` set when line ``i`` changed (rows for left/right, columns for up/down).
    """
    vertical = action == UP or action == DOWN
    side = 0 if action == UP or action == LEFT else 1
    t = transpose(board) if vertical else board
    out = np.uint64(0)
    moved = 0
    reward = np.int64(0)
    for i in range(4):
        row = (t >> np.uint64(16 * i)) & _ROW
        new = np.uint64(moves[side, row])
        if new != row:
            moved |= 1 << i
            reward += rewards[side, row]
        out |= new << np.uint64(16 * i)
    if vertical:
        out = transpose(out)
    return out, moved, reward


@nb.njit(cache=True)
def legal_bits(board, moves, rewards):
    """Bit ``a`` set when action ``a`` moves some line."""
    bits = 0
    for a in range(4):
        _, moved, _ = move_rows(board, a, moves, rewards)
        if moved != 0:
            bits |= 1 << a
    return bits


#: ``MASKS[bits]`` is the bool[4] mask of a :func:`legal_bits` value.
MASKS = np.array([[(b >> a) & 1 == 1 for a in range(4)] for b in range(16)], dtype=bool)


@nb.njit(cache=True)
def rows_sum(board, table):
    """Sum of a per-row table over the four rows (e.g. a score table)."""
    total = np.int64(0)
    for i in range(4):
        total += np.int64(table[(board >> np.uint64(16 * i)) & _ROW])
    return total


def build_row_tables(slide_lines) -> tuple[np.ndarray, np.ndarray]:
    """Row tables from a game's rule on lines.

    Args:
        slide_lines: ``(lines: uint8[n, 4]) -> (new_lines: uint8[n, 4], reward:
            int64[n])``, moving each line toward its index 0.

    Returns:
        ``(moves: uint16[2, 65536], rewards: int32[2, 65536])`` for :func:`move_rows`.
        Ranks above 15 are clamped to 15 (each game documents what that means).
    """
    rows = np.arange(1 << 16, dtype=np.uint32)
    shifts = 4 * np.arange(4, dtype=np.uint32)
    lines = ((rows[:, None] >> shifts) & 0xF).astype(np.uint8)
    moves = np.empty((2, 1 << 16), dtype=np.uint16)
    rewards = np.empty((2, 1 << 16), dtype=np.int32)
    for side, oriented in enumerate((lines, lines[:, ::-1])):
        new, reward = slide_lines(np.ascontiguousarray(oriented))
        new = np.minimum(new, 15).astype(np.uint32)
        if side == 1:
            new = new[:, ::-1]
        moves[side] = (new << shifts).sum(axis=1)
        rewards[side] = reward
    return moves, rewards
