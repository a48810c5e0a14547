"""The rules of 2048 (Cirulli, 2014) on a packed board.

State: a uint64 board of 4-bit ranks (0 empty, rank r = tile 2**r; see
:mod:`playahead.games._board64`) plus the running score. One turn is two steps, the
player's move to an *afterstate* and then chance:

* :func:`move` slides every line toward the wall; equal neighbours merge once per move,
  nearest the wall first; the reward is the sum of the merged tiles' values.
* :func:`spawn` puts a 2 (p = 0.9) or a 4 (p = 0.1) on a uniformly chosen empty cell
  (the rule is in :mod:`playahead.games.chance`, with every other chance rule).

The game is over when no move changes the board. Actions: 0 up, 1 right, 2 down,
3 left.

Public helpers take and return 4x4 arrays of face values (0 = empty): :func:`slide`
is the pure rule a user or the hint tool calls. Kernels (``move``, ``spawn``,
``legal_mask``, ``random_rollout``, ...) take the packed board, the row tables in
:data:`TABLES` and an ``np.random.Generator``.

Cap: 4 bits hold tiles up to 32768. :func:`slide` on face values is exact (32768 +
32768 -> 65536), but the packed engine keeps 32768 + 32768 as one 32768 with reward
65536, as nneonneo's 2048-ai does; no game of ours gets near it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games._board64 import (
    ACTION_NAMES,
    build_row_tables,
    legal_bits,
    line_cell,
    max_rank,
    move_rows,
    pack,
    unpack,
    unpack_into,
)
from playahead.games.chance import P_FOUR, spawn_outcomes, spawn_with

__all__ = [
    "ACTION_NAMES",
    "P_FOUR",
    "TABLES",
    "faces_to_ranks",
    "is_over",
    "legal_mask",
    "move",
    "new_game",
    "pack",
    "random_rollout",
    "ranks_to_faces",
    "slide",
    "spawn",
    "spawn_outcomes",
    "spawn_with",
    "unpack",
]


@nb.njit(cache=True)
def slide_line(line):
    """One line toward index 0 on ranks; [1, 1, 1, 1] -> ([2, 2, 0, 0], 8)."""
    out = np.zeros(4, dtype=np.uint8)
    reward = 0
    n = 0
    merged = False
    for i in range(4):
        v = line[i]
        if v == 0:
            continue
        if n > 0 and not merged and out[n - 1] == v:
            out[n - 1] = v + 1
            reward += 1 << (int(v) + 1)
            merged = True
        else:
            out[n] = v
            n += 1
            merged = False
    return out, reward


@nb.njit(cache=True)
def slide_lines(lines):
    """:func:`slide_line` over ``uint8[n, 4]`` lines."""
    out = np.empty_like(lines)
    rewards = np.empty(lines.shape[0], dtype=np.int64)
    for i in range(lines.shape[0]):
        out[i], rewards[i] = slide_line(lines[i])
    return out, rewards


#: ``(moves, rewards)``: the row tables every kernel takes (see ``_board64.move_rows``).
TABLES = build_row_tables(slide_lines)


@nb.njit(cache=True)
def move(board, action, moves, rewards):
    """Afterstate and reward of ``action``; an illegal move returns ``(board, -1)``."""
    after, moved, reward = move_rows(board, action, moves, rewards)
    if moved == 0:
        return board, np.int64(-1)
    return after, reward


@nb.njit(cache=True)
def spawn(board, rng):
    """Board with a 2 (p=0.9) or 4 (p=0.1) on a uniform empty cell (board not full)."""
    return spawn_with(board, rng.random())


@nb.njit(cache=True)
def step_with(board, action, u, moves, rewards, ranks_out):
    """Move, spawn with draw ``u``, find the legal moves and write the ranks of the new
    board into ``ranks_out`` (uint8[4, 4]), in one call (what an env step needs).

    Returns ``(board, reward, legal_bits, top_rank)``; an illegal move returns the same
    board and reward -1.
    """
    after, reward = move(board, action, moves, rewards)
    if reward >= 0:
        board = spawn_with(after, u)
    top = unpack_into(board, ranks_out)
    return board, reward, legal_bits(board, moves, rewards), top


@nb.njit(cache=True)
def legal_mask(board, moves, rewards):
    """bool[4]: True where the move changes the board."""
    mask = np.zeros(4, dtype=np.bool_)
    for a in range(4):
        _, moved, _ = move_rows(board, a, moves, rewards)
        mask[a] = moved != 0
    return mask


@nb.njit(cache=True)
def is_over(board, moves, rewards):
    """True when no move changes the board."""
    for a in range(4):
        _, moved, _ = move_rows(board, a, moves, rewards)
        if moved != 0:
            return False
    return True


@nb.njit(cache=True)
def new_game(rng):
    """An empty board with two spawned tiles."""
    return spawn(spawn(np.uint64(0), rng), rng)


@nb.njit(cache=True)
def random_rollout(board, rng, max_moves, moves, rewards):
    """Play uniformly random legal moves; returns (final board, score gained, moves).

    Picks a uniform action and redraws while it is illegal (uniform over the legal
    ones), which tries fewer moves per turn than testing all four first.
    """
    b = np.uint64(board)
    score = 0
    played = 0
    while played < max_moves:
        tried = 0
        while tried != 15:
            a = min(int(rng.random() * 4), 3)
            after, r = move(b, a, moves, rewards)
            if r >= 0:
                break
            tried |= 1 << a
        if tried == 15:
            break
        score += r
        b = spawn(after, rng)
        played += 1
    return b, score, played


# ------------------------------------------------------------------ face values


def faces_to_ranks(board) -> np.ndarray:
    """4x4 face values (0 or a power of two >= 2) -> uint8[4, 4] ranks.

    Raises:
        ValueError: wrong shape, or a value that is not 0 or a power of two >= 2.
    """
    arr = np.asarray(board)
    if arr.shape != (4, 4):
        raise ValueError(f"a 2048 board is 4x4, got shape {arr.shape}")
    ranks = np.zeros((4, 4), dtype=np.uint8)
    for (r, c), v in np.ndenumerate(arr):
        v = int(v)
        if v == 0:
            continue
        if v < 2 or v & (v - 1):
            raise ValueError(
                f"2048 tile {v} at row {r}, column {c} is not a power of two >= 2 "
                "(0 = empty)"
            )
        ranks[r, c] = v.bit_length() - 1
    return ranks


def ranks_to_faces(ranks) -> np.ndarray:
    """uint8[4, 4] ranks -> int64[4, 4] face values."""
    ranks = np.asarray(ranks, dtype=np.int64)
    return np.where(ranks > 0, np.left_shift(1, ranks), 0)


@nb.njit(cache=True)
def _slide_ranks(ranks, action):
    out = np.zeros((4, 4), dtype=np.uint8)
    line = np.empty(4, dtype=np.uint8)
    reward = 0
    for i in range(4):
        for j in range(4):  # j = distance from the wall the tiles move toward
            r, c = line_cell(action, i, j)
            line[j] = ranks[r, c]
        new, rew = slide_line(line)
        reward += rew
        for j in range(4):
            r, c = line_cell(action, i, j)
            out[r, c] = new[j]
    return out, reward


def slide(board, action: int) -> tuple[np.ndarray, int]:
    """Move a 2048 board, before the new tile appears.

    Args:
        board: 4x4 face values (0 = empty).
        action: 0 up, 1 right, 2 down, 3 left.

    Returns:
        ``(int64[4, 4] board after the slide, reward)``; an illegal move returns the
        same board and 0.

    Example:
        >>> slide([[2, 2, 2, 2]] + [[0] * 4] * 3, 3)[0][0].tolist()
        [4, 4, 0, 0]
    """
    if action not in (0, 1, 2, 3):
        raise ValueError(f"action {action!r} is not 0 up, 1 right, 2 down or 3 left")
    out, reward = _slide_ranks(faces_to_ranks(board), action)
    return ranks_to_faces(out), int(reward)


def max_tile(board: int) -> int:
    """Largest face value on a packed board."""
    rank = max_rank(np.uint64(board))
    return 1 << rank if rank else 0


def to_faces(board: int) -> np.ndarray:
    """Packed board -> int64[4, 4] face values."""
    return ranks_to_faces(unpack(np.uint64(board)))


def from_faces(board) -> np.uint64:
    """4x4 face values -> packed board (tiles above 32768 cannot be packed)."""
    ranks = faces_to_ranks(board)
    if ranks.max() > 15:
        raise ValueError("the packed engine holds tiles up to 32768")
    return np.uint64(pack(ranks))


def downgrade(board: int, from_tile: int = 32768) -> np.uint64:
    """The packed ``board`` with its largest tiles one rank down, once its largest
    tile is at least ``from_tile``; else ``board`` itself (tile-downgrading, as
    TDL2048+'s search does: a net that has rarely seen a 32768 values the board it
    knows).

    The gap is the largest tile value missing below the largest tile (2 counts, an
    empty cell does not); every tile above it goes one rank down, so tiles that were
    equal stay equal, unequal ones stay unequal, and the downgraded board has the
    same legal moves, each sliding the same cells. A board with no gap (every tile
    from 2 up to its largest) is returned as it is.
    """
    board = np.uint64(board)
    ranks = unpack(board)
    top = int(ranks.max())
    if top == 0 or (1 << top) < from_tile:
        return board
    present = set(ranks.ravel().tolist())
    gaps = [r for r in range(1, top) if r not in present]
    if not gaps:
        return board
    gap = gaps[-1]
    return np.uint64(pack(np.where(ranks > gap, ranks - 1, ranks)))
