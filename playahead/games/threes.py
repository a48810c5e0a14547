"""The rules of Threes! (Sirvo, 2014) on a packed board; see ``threes.md`` in the specs.

Ranks: 0 empty, 1 and 2 the blue and red cards, rank r >= 3 the white card
``3 * 2**(r - 3)`` (3 = rank 3, 6144 = rank 14, 12288 = rank 15). The board is a uint64
of 4-bit ranks (:mod:`playahead.games._board64`); the cards a player can know are one
int64 "cards word" (:func:`pack_cards`): how many 1s, 2s and 3s remain in the 12-card
deck after the previewed card was taken, and the preview as a rank window ``lo..hi``
(``lo == hi`` for a basic card; a bonus card shows up to three candidates).

One turn (the chance of steps 3 and 4, and the deal, are in
:mod:`playahead.games.chance`; this module re-exports its Threes names):

1. :func:`move`: every line moves toward the wall; in each line the cell nearest the
   wall that can absorb its neighbour does (empty <- card, 1 + 2 -> 3, v + v -> 2v for
   v >= 3), everything behind it shifts one cell, the far cell empties. Legal iff a
   line moved.
2. Merging two 6144s makes 12288 and ends the game at once (default), or 6144s do not
   merge (``merge_6144=False``, the variant of Yeh et al. 2016).
3. :func:`insert_card`: the previewed card enters at the far end of a uniformly chosen
   moved line (a bonus preview resolves uniformly within its window).
4. :func:`draw_next`: once the highest card is >= 48, with probability 1/21 the next
   card is a bonus card (values 6 .. max/8; the preview is a window of up to three
   consecutive values, or all of them with ``bonus_preview="plus"``); otherwise the
   next basic card comes from the deck, refilled with four of each when empty.

The score of a board is the sum of ``3**(r - 2)`` over white cards; the game is over
when no move is legal (or a 12288 was made). Kernels take the tables of
:func:`tables` and an ``np.random.Generator``; :func:`slide` is the pure rule on face
values for users and the hint tool.
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
    rows_sum,
    unpack,
)
from playahead.games.chance import (
    BONUS_ELIGIBLE_RANK,
    BONUS_MAX_RANK,
    BONUS_MIN_RANK,
    BONUS_PREVIEWS,
    BONUS_PROBABILITY,
    PLUS,
    WINDOW,
    deal,
    draw_next_with,
    insert_card,
    pack_cards,
    unpack_cards,
)

__all__ = [
    "ACTION_NAMES",
    "BONUS_ELIGIBLE_RANK",
    "BONUS_MAX_RANK",
    "BONUS_MIN_RANK",
    "BONUS_PREVIEWS",
    "BONUS_PROBABILITY",
    "PLUS",
    "WINDOW",
    "card_values",
    "draw_next",
    "draw_next_with",
    "faces_to_ranks",
    "insert_card",
    "is_over",
    "legal_mask",
    "move",
    "new_game",
    "pack",
    "pack_cards",
    "random_rollout",
    "ranks_to_faces",
    "score",
    "slide",
    "step_with",
    "tables",
    "turn",
    "turn_with",
    "unpack",
    "unpack_cards",
]

RANK_6144 = 14
RANK_12288 = 15


@nb.njit(cache=True)
def card_score(rank):
    """Points of one card: 3 -> 3, 6 -> 9, 12 -> 27; 1, 2 and empty -> 0."""
    return 3 ** (rank - 2) if rank >= 3 else 0


@nb.njit(cache=True)
def slide_line(line, merge_6144):
    """One line toward index 0 on ranks; [3, 3, 3, 3] (3s) -> [4, 3, 3, 0] (6, 3, 3)."""
    out = line.copy()
    for i in range(3):
        a = line[i]
        b = line[i + 1]
        if a == 0 and b != 0:
            new = b
        elif (a == 1 and b == 2) or (a == 2 and b == 1):
            new = 3
        elif a == b and a >= 3 and (merge_6144 or a != RANK_6144):
            new = a + 1
        else:
            continue
        out[i] = new
        for j in range(i + 1, 3):
            out[j] = line[j + 1]
        out[3] = 0
        break
    return out


@nb.njit(cache=True)
def _line_score(line):
    total = 0
    for v in line:
        total += card_score(np.int64(v))
    return total


@nb.njit(cache=True)
def slide_lines(lines, merge_6144):
    """:func:`slide_line` over ``uint8[n, 4]``; rewards are score changes."""
    out = np.empty_like(lines)
    rewards = np.empty(lines.shape[0], dtype=np.int64)
    for i in range(lines.shape[0]):
        out[i] = slide_line(lines[i], merge_6144)
        rewards[i] = _line_score(out[i]) - _line_score(lines[i])
    return out, rewards


_TABLES = {}


def tables(merge_6144: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(moves, rewards, row_scores)`` for the kernels, built once per rule variant.

    In the packed tables 12288 + 12288 stays one 12288; the default rule ends the game
    at the first 12288, so no game reaches that case.
    """
    key = bool(merge_6144)
    if key not in _TABLES:
        moves, rewards = build_row_tables(lambda lines: slide_lines(lines, key))
        rows = np.arange(1 << 16, dtype=np.int64)
        points = np.array([card_score(r) for r in range(16)], dtype=np.int64)
        row_scores = sum(points[(rows >> (4 * i)) & 0xF] for i in range(4))
        _TABLES[key] = (moves, rewards, row_scores.astype(np.int64))
    return _TABLES[key]


# ------------------------------------------------------------------ the cards word
# (its rules, and chance, are in :mod:`playahead.games.chance`)


@nb.njit(cache=True)
def draw_next(board, cards, rng, bonus_preview):
    """Cards word with the next preview drawn (deck card or bonus window)."""
    return draw_next_with(board, cards, rng.random(), rng.random(), bonus_preview)


@nb.njit(cache=True)
def move(board, action, moves, rewards):
    """(afterstate, moved_lines, score change); moved_lines == 0 means illegal."""
    return move_rows(board, action, moves, rewards)


@nb.njit(cache=True)
def turn_with(board, cards, action, u1, u2, u3, u4, moves, rewards, bonus_preview):
    """One full turn with four uniform draws: (board, cards, reward); reward -1 with
    nothing changed if the move is illegal.

    ``u1`` resolves a bonus window, ``u2`` picks the moved line, ``u3``/``u4`` draw the
    next preview. A move that makes a 12288 ends the game at once: no card enters.
    """
    after, moved_lines, reward = move_rows(board, action, moves, rewards)
    if moved_lines == 0:
        return board, cards, np.int64(-1)
    if max_rank(after) == RANK_12288:
        return after, cards, reward
    _, _, _, lo, hi = unpack_cards(cards)
    rank = lo + min(int(u1 * (hi - lo + 1)), hi - lo)
    after = insert_card(after, action, moved_lines, rank, u2)
    cards = draw_next_with(after, cards, u3, u4, bonus_preview)
    return after, cards, reward + card_score(rank)


@nb.njit(cache=True)
def turn(board, cards, action, rng, moves, rewards, bonus_preview):
    """:func:`turn_with` drawing from ``rng``."""
    return turn_with(
        board,
        cards,
        action,
        rng.random(),
        rng.random(),
        rng.random(),
        rng.random(),
        moves,
        rewards,
        bonus_preview,
    )


@nb.njit(cache=True)
def step_with(board, cards, action, u1, u2, u3, u4, moves, rewards, bonus_preview):
    """:func:`turn_with` plus the legal moves afterwards: (board, cards, reward,
    legal_bits), where a 12288 on the board leaves no legal move."""
    board, cards, reward = turn_with(
        board, cards, action, u1, u2, u3, u4, moves, rewards, bonus_preview
    )
    if max_rank(board) == RANK_12288:
        return board, cards, reward, 0
    return board, cards, reward, legal_bits(board, moves, rewards)


@nb.njit(cache=True)
def legal_mask(board, moves, rewards):
    """bool[4]: True where some line moves (False everywhere once a 12288 exists)."""
    mask = np.zeros(4, dtype=np.bool_)
    if max_rank(board) == RANK_12288:
        return mask
    for a in range(4):
        _, moved, _ = move_rows(board, a, moves, rewards)
        mask[a] = moved != 0
    return mask


@nb.njit(cache=True)
def is_over(board, moves, rewards):
    """True when no move is legal or the 12288 ending was reached."""
    return not legal_mask(board, moves, rewards).any()


@nb.njit(cache=True)
def score(board, row_scores):
    """Score of a packed board."""
    return rows_sum(board, row_scores)


@nb.njit(cache=True)
def new_game(rng, bonus_preview):
    """A fresh deck; 9 cards on distinct uniform cells; the 10th card as preview
    (:func:`playahead.games.chance.deal`)."""
    return deal(rng, bonus_preview)


@nb.njit(cache=True)
def random_rollout(board, cards, rng, max_moves, moves, rewards, bonus_preview):
    """Random legal moves to the end; returns (board, cards, score gained, moves)."""
    b = np.uint64(board)
    c = np.int64(cards)
    gained = 0
    played = 0
    while played < max_moves:
        if max_rank(b) == RANK_12288:
            break
        tried = 0
        while tried != 15:
            a = min(int(rng.random() * 4), 3)
            nb_, nc, r = turn(b, c, a, rng, moves, rewards, bonus_preview)
            if r >= 0:
                break
            tried |= 1 << a
        if tried == 15:
            break
        b, c = nb_, nc
        gained += r
        played += 1
    return b, c, gained, played


# ------------------------------------------------------------------ face values


#: Face values by rank: (0, 1, 2, 3, 6, ..., 12288).
CARD_VALUES = (0, 1, 2) + tuple(3 << (r - 3) for r in range(3, 16))


def card_values() -> list[int]:
    """Face values by rank: [0, 1, 2, 3, 6, ..., 12288]."""
    return list(CARD_VALUES)


def faces_to_ranks(board) -> np.ndarray:
    """4x4 face values (0, 1, 2 or 3 * 2**k) -> uint8[4, 4] ranks.

    Raises:
        ValueError: wrong shape, or a value that is not a Threes card.
    """
    arr = np.asarray(board)
    if arr.shape != (4, 4):
        raise ValueError(f"a Threes board is 4x4, got shape {arr.shape}")
    ranks = np.zeros((4, 4), dtype=np.uint8)
    for (r, c), v in np.ndenumerate(arr):
        ranks[r, c] = face_to_rank(v, where=f"row {r}, column {c}")
    return ranks


def face_to_rank(value, where: str = "") -> int:
    """A Threes card's rank (0 for empty); ValueError for anything else."""
    v = int(value)
    if v != value or v < 0:
        raise ValueError(f"Threes card {value!r} {where} is not a non-negative integer")
    if v <= 3:
        return v
    q, rem = divmod(v, 3)
    if rem or q & (q - 1):
        raise ValueError(
            f"{v} {where} is not a Threes card (cards are 1, 2 and 3 * 2**k: "
            "3, 6, 12, 24, ...; 0 = empty)".replace("  ", " ")
        )
    return q.bit_length() + 2


def ranks_to_faces(ranks) -> np.ndarray:
    """uint8[4, 4] ranks -> int64[4, 4] face values."""
    ranks = np.asarray(ranks, dtype=np.int64)
    return np.where(ranks >= 3, 3 * np.left_shift(1, np.maximum(ranks - 3, 0)), ranks)


def score_faces(board) -> int:
    """Score of a board of face values: sum of 3**(log2(v / 3) + 1) over cards >= 3."""
    return int(sum(card_score(int(r)) for r in faces_to_ranks(board).ravel()))


@nb.njit(cache=True)
def _slide_ranks(ranks, action, merge_6144):
    out = np.zeros((4, 4), dtype=np.uint8)
    line = np.empty(4, dtype=np.uint8)
    moved = 0
    for i in range(4):
        for j in range(4):  # j = distance from the wall the cards move toward
            r, c = line_cell(action, i, j)
            line[j] = ranks[r, c]
        new = slide_line(line, merge_6144)
        for j in range(4):
            r, c = line_cell(action, i, j)
            out[r, c] = new[j]
            if new[j] != line[j]:
                moved |= 1 << i
    return out, moved


def slide(board, action: int, merge_6144: bool = True) -> tuple[np.ndarray, int]:
    """Move a Threes board, before the new card enters.

    Args:
        board: 4x4 face values (0 = empty; 1, 2, 3, 6, 12, ...).
        action: 0 up, 1 right, 2 down, 3 left.
        merge_6144: False for the variant where 6144s do not merge.

    Returns:
        ``(int64[4, 4] board after the move, change in score)``; an illegal move returns
        the same board and 0. Exact for any card size (12288 + 12288 -> 24576).

    Example:
        >>> slide([[3, 3, 3, 3]] + [[0] * 4] * 3, 3)[0][0].tolist()
        [6, 3, 3, 0]
    """
    if action not in (0, 1, 2, 3):
        raise ValueError(f"action {action!r} is not 0 up, 1 right, 2 down or 3 left")
    before = faces_to_ranks(board)
    out, _ = _slide_ranks(before, action, merge_6144)
    faces = ranks_to_faces(out)
    return faces, score_faces(faces) - score_faces(ranks_to_faces(before))


def moved_lines(board, action: int, merge_6144: bool = True) -> list[int]:
    """Indices of the lines that move (rows for left/right, columns for up/down)."""
    _, moved = _slide_ranks(faces_to_ranks(board), action, merge_6144)
    return [i for i in range(4) if moved >> i & 1]


def to_faces(board) -> np.ndarray:
    """Packed board -> int64[4, 4] face values."""
    return ranks_to_faces(unpack(np.uint64(board)))


def from_faces(board) -> np.uint64:
    """4x4 face values -> packed board (cards above 12288 cannot be packed)."""
    ranks = faces_to_ranks(board)
    if ranks.max() > RANK_12288:
        raise ValueError("the packed engine holds cards up to 12288")
    return np.uint64(pack(ranks))


def max_card(board) -> int:
    """Largest face value on a packed board."""
    return int(CARD_VALUES[max_rank(np.uint64(board))])
