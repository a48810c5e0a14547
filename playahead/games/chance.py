"""Chance in 2048 and Threes, in one place: what can follow a move, with what
probability; one outcome applied; an observed one checked.

A turn is the player's move to an *afterstate* (:func:`playahead.games.twenty48.move`,
:func:`playahead.games.threes.move`), then chance:

* 2048: a 2 (p = 0.9) or a 4 (p = :data:`P_FOUR` = 0.1) enters a uniformly chosen
  empty cell (:func:`spawn_with`, :func:`spawn_outcomes`).
* Threes (unless the move made a 12288, which ends the game at once): the previewed
  card enters at the far end of a uniformly chosen moved line, a bonus preview's card
  uniform in its window (:func:`insert_card`, :func:`entry_outcomes`); then the next
  preview is drawn (:func:`draw_next_with`, :func:`preview_outcomes`): once the
  highest card is >= 48 (rank :data:`BONUS_ELIGIBLE_RANK`), with probability
  :data:`BONUS_PROBABILITY` = 1/21 a bonus card (values 6 .. highest / 8; the preview
  a window of three consecutive values drawn uniformly, or all of them when there are
  three or fewer or with ``bonus_preview="plus"``), otherwise a basic card from the
  deck, which holds :data:`DECK_EACH` = 4 each of 1, 2 and 3 and is refilled so when
  empty (:func:`refilled`). The deal of a new game draws its nine cards and the first
  preview from a full deck.

What a player can know of the cards is one int64 *cards word* (:func:`pack_cards`):
the deck's counts after the previewed card was taken and the preview as a rank
window ``lo..hi``. The envs' step, the new-game deal, the expectimax kernels (and so
MCTS's chance nodes, which step the env), the game files, ``assist`` and ``hint``'s
positions read the rules here and nowhere else (``tests/test_chance.py`` checks it
by name). Kernels are compiled (``cache=True``); :func:`preview_problem` is the plain
check with a one-line reason.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games._board64 import (
    count_empty,
    line_cell,
    max_rank,
    nth_empty,
    set_cell,
)

__all__ = [
    "BONUS_ELIGIBLE_RANK",
    "BONUS_MAX_RANK",
    "BONUS_MIN_RANK",
    "BONUS_PREVIEWS",
    "BONUS_PROBABILITY",
    "DECK_EACH",
    "PLUS",
    "P_FOUR",
    "WINDOW",
    "basic_share",
    "bonus_count",
    "bonus_p",
    "card_cell",
    "deal",
    "deck_after",
    "draw_basic",
    "draw_next_with",
    "entry_outcomes",
    "full_deck",
    "insert_card",
    "pack_cards",
    "preview_outcomes",
    "preview_problem",
    "refilled",
    "spawn_outcomes",
    "spawn_with",
    "unpack_cards",
]

# ------------------------------------------------------------------------- 2048

#: Probability that 2048's new tile is a 4 (else a 2).
P_FOUR = 0.1


@nb.njit(cache=True)
def spawn_with(board, u):
    """Board with a new tile chosen by one uniform draw ``u`` in [0, 1).

    The whole part of ``u * n_empty`` picks the cell, the fraction the value (a 4 when
    it is below 0.1): one draw gives both, independent and uniform.
    """
    n = count_empty(board)
    x = u * n
    k = min(int(x), n - 1)
    rank = 2 if x - k < P_FOUR else 1
    return set_cell(board, nth_empty(board, k), rank)


@nb.njit(cache=True)
def spawn_outcomes(after):
    """``(boards uint64[2n], probabilities float64[2n])``: a 2 then a 4 on each of the
    ``n`` empty cells of afterstate ``after``, in cell order (``(1 - P_FOUR) / n`` and
    ``P_FOUR / n``)."""
    n = count_empty(after)
    boards = np.empty(2 * n, np.uint64)
    probs = np.empty(2 * n)
    for k in range(n):
        at = np.uint64(4 * nth_empty(after, k))
        for four in range(2):
            boards[2 * k + four] = after | (np.uint64(four + 1) << at)
            probs[2 * k + four] = (P_FOUR if four else 1.0 - P_FOUR) / n
    return boards, probs


# ------------------------------------------------------------------------ Threes

#: Cards of each of 1, 2 and 3 in a full deck (12 cards; refilled so when empty).
DECK_EACH = 4
#: Probability that the next card is a bonus card, once bonus cards can appear.
BONUS_PROBABILITY = 1.0 / 21.0
#: The lowest bonus card's rank (6).
BONUS_MIN_RANK = 4
#: The highest bonus card's rank (1536, the highest card a board holds / 8).
BONUS_MAX_RANK = 12
#: Bonus cards appear once the highest card is at least this rank (48).
BONUS_ELIGIBLE_RANK = 7
#: The bonus preview models: a window of up to three values, or all of them.
WINDOW, PLUS = 0, 1
#: The models by name (the envs' ``bonus_preview``).
BONUS_PREVIEWS = {"window": WINDOW, "plus": PLUS}


def full_deck() -> list[int]:
    """[1s, 2s, 3s] of a fresh deck: [4, 4, 4]."""
    return [DECK_EACH] * 3


def deck_after(rank: int) -> list[int]:
    """[1s, 2s, 3s] left in a fresh deck once preview ``rank`` was taken from it (a
    bonus preview takes nothing): 2 -> [4, 3, 4]."""
    counts = [DECK_EACH] * 3
    if 1 <= rank <= 3:
        counts[rank - 1] -= 1
    return counts


@nb.njit(cache=True)
def pack_cards(ones, twos, threes, lo, hi):
    """Deck counts and preview window -> one int64."""
    return ones | (twos << 3) | (threes << 6) | (lo << 9) | (hi << 13)


@nb.njit(cache=True)
def unpack_cards(cards):
    """int64 cards word -> (ones, twos, threes, lo, hi)."""
    return cards & 7, (cards >> 3) & 7, (cards >> 6) & 7, (cards >> 9) & 15, cards >> 13


@nb.njit(cache=True)
def refilled(ones, twos, threes):
    """``(ones, twos, threes, total)`` of the deck the next basic card comes from:
    these counts, or a full deck when they are all 0."""
    total = ones + twos + threes
    if total == 0:
        return DECK_EACH, DECK_EACH, DECK_EACH, 3 * DECK_EACH
    return ones, twos, threes, total


@nb.njit(cache=True)
def bonus_count(top):
    """How many bonus values the next card may take with highest rank ``top`` (6 ..
    highest / 8): 0 below 48."""
    return top - BONUS_ELIGIBLE_RANK + 1 if top >= BONUS_ELIGIBLE_RANK else 0


@nb.njit(cache=True)
def basic_share(n_bonus):
    """Probability that the next card is a basic one, with ``n_bonus`` bonus values
    possible."""
    return 1.0 - BONUS_PROBABILITY if n_bonus > 0 else 1.0


@nb.njit(cache=True)
def bonus_p(j, n, window):
    """Probability that the next card is bonus value ``j`` of the ``n`` possible
    (6 .. max/8, ``j`` 0 for 6). Each alike unless ``window``: the game draws one of
    the ``n - 2`` windows of three consecutive values, then the card uniform in it,
    so value ``j`` is in ``min(j, n - 3) - max(0, j - 2) + 1`` of them."""
    if not window or n <= 3:
        return BONUS_PROBABILITY / n
    inside = min(j, n - 3) - max(0, j - 2) + 1
    return BONUS_PROBABILITY * inside / (3.0 * (n - 2))


@nb.njit(cache=True)
def draw_basic(ones, twos, threes, u):
    """Draw a basic card with uniform ``u``: (rank, ones, twos, threes) after it."""
    ones, twos, threes, total = refilled(ones, twos, threes)
    k = min(int(u * total), total - 1)
    if k < ones:
        return 1, ones - 1, twos, threes
    if k < ones + twos:
        return 2, ones, twos - 1, threes
    return 3, ones, twos, threes - 1


@nb.njit(cache=True)
def draw_next_with(board, cards, u_bonus, u_pick, bonus_preview):
    """Cards word with the next preview drawn: ``u_bonus`` decides bonus or not,
    ``u_pick`` picks the bonus window or the deck card."""
    ones, twos, threes, _, _ = unpack_cards(cards)
    top = max_rank(board)
    if top >= BONUS_ELIGIBLE_RANK and u_bonus < BONUS_PROBABILITY:
        hi = top - 3
        n = hi - BONUS_MIN_RANK + 1
        lo = BONUS_MIN_RANK
        if bonus_preview == WINDOW and n > 3:
            lo = BONUS_MIN_RANK + min(int(u_pick * (n - 2)), n - 3)
            hi = lo + 2
        return pack_cards(ones, twos, threes, lo, hi)
    rank, ones, twos, threes = draw_basic(ones, twos, threes, u_pick)
    return pack_cards(ones, twos, threes, rank, rank)


@nb.njit(cache=True)
def deal(rng, bonus_preview):
    """A new game: 9 cards from a full deck on distinct uniform cells, the 10th card
    as preview; ``(board, cards)``."""
    board = np.uint64(0)
    ones, twos, threes = DECK_EACH, DECK_EACH, DECK_EACH
    for _ in range(9):
        rank, ones, twos, threes = draw_basic(ones, twos, threes, rng.random())
        n = count_empty(board)
        cell = nth_empty(board, min(int(rng.random() * n), n - 1))
        board = set_cell(board, cell, rank)
    cards = pack_cards(ones, twos, threes, 0, 0)
    return board, draw_next_with(
        board, cards, rng.random(), rng.random(), bonus_preview
    )


@nb.njit(cache=True)
def preview_outcomes(board, cards, bonus_preview):
    """``(cards words int64[k], probabilities float64[k])``: every next preview that
    can be drawn on ``board`` (the board after the card came in) from the deck of
    ``cards``, basic cards 1, 2, 3 first (those the deck holds), then the bonus
    windows from the lowest."""
    ones, twos, threes, _, _ = unpack_cards(cards)
    ones, twos, threes, total = refilled(ones, twos, threes)
    top = max_rank(board)
    n = bonus_count(top)
    windows = 0
    if n > 0:
        windows = n - 2 if bonus_preview == WINDOW and n > 3 else 1
    out = np.empty(3 + windows, np.int64)
    probs = np.empty(3 + windows)
    share = basic_share(n)
    k = 0
    for rank in range(1, 4):
        count = ones if rank == 1 else (twos if rank == 2 else threes)
        if count == 0:
            continue
        out[k] = pack_cards(
            ones - (rank == 1), twos - (rank == 2), threes - (rank == 3), rank, rank
        )
        probs[k] = share * count / total
        k += 1
    ones, twos, threes, _, _ = unpack_cards(cards)
    for w in range(windows):
        lo = BONUS_MIN_RANK + w
        hi = lo + 2 if windows > 1 else top - 3
        out[k] = pack_cards(ones, twos, threes, lo, hi)
        probs[k] = BONUS_PROBABILITY / windows
        k += 1
    return out[:k], probs[:k]


@nb.njit(cache=True)
def card_cell(action, line):
    """The cell where a Threes card comes in on ``line`` after ``action``: the far
    end of the line from the wall the cards moved toward (left: column 3)."""
    r, c = line_cell(action, line, 3)
    return 4 * r + c


@nb.njit(cache=True)
def insert_card(after, action, moved_lines, rank, u):
    """Put ``rank`` at the far end of the moved line picked by uniform ``u``."""
    n = 0
    for i in range(4):
        n += (moved_lines >> i) & 1
    k = min(int(u * n), n - 1)
    line = 0
    for i in range(4):
        if (moved_lines >> i) & 1:
            if k == 0:
                line = i
                break
            k -= 1
    return set_cell(after, card_cell(action, line), rank)


@nb.njit(cache=True)
def entry_outcomes(after, action, moved_lines, cards):
    """``(boards uint64[k], ranks int64[k], lines int64[k], probabilities
    float64[k])``: the previewed card of ``cards`` (each rank of its window alike)
    entering afterstate ``after`` of ``action`` on each moved line (each alike), rank
    by rank."""
    _, _, _, lo, hi = unpack_cards(cards)
    n = 0
    for i in range(4):
        n += (moved_lines >> i) & 1
    size = (hi - lo + 1) * n
    boards = np.empty(size, np.uint64)
    ranks = np.empty(size, np.int64)
    lines = np.empty(size, np.int64)
    probs = np.empty(size)
    k = 0
    for rank in range(lo, hi + 1):
        for line in range(4):
            if (moved_lines >> line) & 1:
                boards[k] = set_cell(after, card_cell(action, line), rank)
                ranks[k], lines[k] = rank, line
                probs[k] = 1.0 / size
                k += 1
    return boards, ranks, lines, probs


def preview_problem(
    board, cards_before, lo: int, hi: int, bonus_preview: str, shown: str = ""
) -> str:
    """Why preview ``lo..hi`` (ranks; ``shown`` as the user wrote it) cannot be drawn
    on ``board`` (packed, the card in) from the deck of ``cards_before``, in one
    line; ``""`` if it can."""
    outcomes, _ = preview_outcomes(
        np.uint64(board), np.int64(cards_before), BONUS_PREVIEWS[bonus_preview]
    )
    if any(int(c) >> 9 == lo | hi << 4 for c in outcomes):
        return ""
    ones, twos, threes, _, _ = (int(x) for x in unpack_cards(cards_before))
    top = int(max_rank(np.uint64(board)))
    if hi <= 3:
        left = "/".join(map(str, refilled(ones, twos, threes)[:3]))
        return (
            f"the next card cannot be a {lo}: the deck (1s/2s/3s {left}) has no "
            f"{lo} left"
        )
    if top < BONUS_ELIGIBLE_RANK:
        return "a bonus card comes only once the highest card is 48 or more"
    most = 3 << (top - 6)
    return (
        f"a bonus preview {shown or f'of ranks {lo}..{hi}'} is not possible here: the "
        "candidates are "
        f"three consecutive values from 6 up to {most} (the highest card / 8), or all "
        "of them when there are three or fewer"
    )
