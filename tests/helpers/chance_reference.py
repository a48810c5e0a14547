"""The tile games' chance as the code at commit 018869d wrote it, in plain Python: the
slow, obviously-correct reference :mod:`playahead.games.chance` is checked against
(``tests/test_chance.py``), draw for draw and probability for probability.

Sources, transcribed: ``games/threes.py`` (``_draw_basic``, ``draw_next_with``,
``insert_card``, ``new_game``), ``games/twenty48.py`` (``spawn_with``) and
``kernels/expectimax.py`` (the card odds of ``card_node`` and ``_bonus_p``, the spawn
odds of ``chance_2048``). Boards are Python ints of 4-bit ranks.
"""

from __future__ import annotations

P_FOUR = 0.1
BONUS_PROBABILITY = 1.0 / 21.0
BONUS_MIN_RANK = 4
BONUS_ELIGIBLE_RANK = 7
WINDOW = 0


def max_rank(board: int) -> int:
    return max((board >> (4 * i)) & 15 for i in range(16))


def empty_cells(board: int) -> list[int]:
    return [i for i in range(16) if not (board >> (4 * i)) & 15]


def unpack_cards(cards: int) -> tuple[int, int, int, int, int]:
    return cards & 7, (cards >> 3) & 7, (cards >> 6) & 7, (cards >> 9) & 15, cards >> 13


def pack_cards(ones, twos, threes, lo, hi) -> int:
    return ones | (twos << 3) | (threes << 6) | (lo << 9) | (hi << 13)


def spawn_with(board: int, u: float) -> int:
    empty = empty_cells(board)
    n = len(empty)
    x = u * n
    k = min(int(x), n - 1)
    rank = 2 if x - k < P_FOUR else 1
    return board | rank << (4 * empty[k])


def spawn_odds(board: int) -> dict[int, float]:
    """Board -> probability of each spawn, as ``chance_2048`` weighs them."""
    empty = empty_cells(board)
    n = len(empty)
    out = {}
    for cell in empty:
        for k in range(2):
            p = P_FOUR if k else 1.0 - P_FOUR
            out[board | (k + 1) << (4 * cell)] = p / n
    return out


def draw_basic(ones, twos, threes, u):
    total = ones + twos + threes
    if total == 0:
        ones, twos, threes, total = 4, 4, 4, 12
    k = min(int(u * total), total - 1)
    if k < ones:
        return 1, ones - 1, twos, threes
    if k < ones + twos:
        return 2, ones, twos - 1, threes
    return 3, ones, twos, threes - 1


def draw_next_with(board, cards, u_bonus, u_pick, bonus_preview) -> int:
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


def preview_odds(board, cards, bonus_preview) -> dict[int, float]:
    """Cards word -> probability of each next preview: the basic cards with the odds
    ``card_node`` gives them, the bonus windows with ``u_bonus``'s odds split evenly
    among the windows ``u_pick`` chooses from."""
    ones, twos, threes, _, _ = unpack_cards(cards)
    total = ones + twos + threes
    if total == 0:
        ones, twos, threes, total = 4, 4, 4, 12
    top = max_rank(board)
    n_bonus = top - BONUS_ELIGIBLE_RANK + 1 if top >= BONUS_ELIGIBLE_RANK else 0
    p_basic = 1.0 - BONUS_PROBABILITY if n_bonus > 0 else 1.0
    out = {}
    for card, count in ((1, ones), (2, twos), (3, threes)):
        if count:
            left = [ones, twos, threes]
            left[card - 1] -= 1
            out[pack_cards(*left, card, card)] = p_basic * count / total
    if n_bonus:
        o, t, h, _, _ = unpack_cards(cards)
        windows = n_bonus - 2 if bonus_preview == WINDOW and n_bonus > 3 else 1
        for w in range(windows):
            lo = BONUS_MIN_RANK + w
            hi = lo + 2 if windows > 1 else top - 3
            out[pack_cards(o, t, h, lo, hi)] = BONUS_PROBABILITY / windows
    return out


def bonus_p(j, n, window) -> float:
    if not window or n <= 3:
        return BONUS_PROBABILITY / n
    inside = min(j, n - 3) - max(0, j - 2) + 1
    return BONUS_PROBABILITY * inside / (3.0 * (n - 2))


def far_cell(action: int, line: int) -> int:
    return (12 + line, 4 * line + 0, line, 4 * line + 3)[action]


def insert_card(after, action, moved_lines, rank, u) -> int:
    lines = [i for i in range(4) if (moved_lines >> i) & 1]
    n = len(lines)
    k = min(int(u * n), n - 1)
    return after | rank << (4 * far_cell(action, lines[k]))  # the cell is empty
