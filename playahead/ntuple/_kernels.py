"""Compiled n-tuple networks and afterstate TD(0) for 2048 and Threes.

Public kernel signatures (stable; the expectimax leaf uses the first three):

* ``value(board: uint64, code: int64, weights: float32[P, C, 16**K],
  cells: int64[P, 8, K]) -> float64``: the sum over the ``P`` tuple patterns and their
  8 symmetric images of ``weights[p, code, index]``, where ``index`` packs the ranks of
  the ``K`` cells ``cells[p, s]`` (4 bits each, first cell lowest).
* ``value_2048(board, weights, cells) -> float64``: ``value(board, 0, ...)``.
* ``value_threes(board, code, weights, cells) -> float64``: ``code`` is
  :func:`preview_code` of the Threes cards word (0, 1, 2: the next card is a 1, 2 or 3;
  3: a bonus card).
* ``update(board, code, delta, weights, cells) -> float64``: adds ``delta`` to each of
  the ``8 * P`` weights ``value`` reads; returns the new value.

The value of an afterstate (the board after the move, before chance) estimates the
score still to come, for Threes including the card about to enter. Training is the
backward pass of TDL2048-Demo over each finished game: with ``exact = 0`` at the end,
each afterstate, last first, gets ``error = exact - V(after)``, then ``V += alpha *
error`` spread over the ``8 * P`` lookups, and ``exact = r_move + r_chance_before +
V(after)``. Chance comes from the ``np.random.Generator`` the caller passes in, through
the games' own compiled rules (:mod:`playahead.games.twenty48`,
:mod:`playahead.games.threes`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games import threes, twenty48

_NIB = np.uint64(0xF)
MAX_MOVES = 1 << 17  # longer than any 2048 (or Threes) game the 4-bit board can hold
N_CODES = 4  # Threes preview codes: 1, 2, 3, bonus


def symmetric_cells(patterns) -> np.ndarray:
    """int64[P, 8, K]: each pattern's cells under the 8 symmetries of the square.

    Image ``s``: transpose when ``s >= 4``, then flip rows if ``s & 1``, columns if
    ``s & 2``; image 0 is the pattern itself.
    """
    out = np.empty((len(patterns), 8, len(patterns[0])), dtype=np.int64)
    for p, pattern in enumerate(patterns):
        for s in range(8):
            for j, cell in enumerate(pattern):
                r, c = divmod(int(cell), 4)
                if s >= 4:
                    r, c = c, r
                if s & 1:
                    r = 3 - r
                if s & 2:
                    c = 3 - c
                out[p, s, j] = 4 * r + c
    return out


@nb.njit(cache=True)
def preview_code(cards):
    """Threes cards word -> 0, 1, 2 (next card 1, 2, 3) or 3 (a bonus card)."""
    lo = (cards >> 9) & 15
    hi = cards >> 13
    if lo == hi and 1 <= lo <= 3:
        return np.int64(lo - 1)
    return np.int64(3)


@nb.njit(cache=True)
def _index(board, cells, p, s):
    idx = np.int64(0)
    for j in range(cells.shape[2]):
        rank = np.int64((board >> np.uint64(4 * cells[p, s, j])) & _NIB)
        idx |= rank << (4 * j)
    return idx


@nb.njit(cache=True)
def value(board, code, weights, cells):
    """Sum of the ``8 * P`` weights of ``board`` (see the module docstring)."""
    total = 0.0
    for p in range(cells.shape[0]):
        for s in range(8):
            total += np.float64(weights[p, code, _index(board, cells, p, s)])
    return total


@nb.njit(cache=True)
def value_2048(board, weights, cells):
    """Value of a 2048 afterstate."""
    return value(board, 0, weights, cells)


@nb.njit(cache=True)
def value_threes(board, code, weights, cells):
    """Value of a Threes afterstate; ``code`` is :func:`preview_code` of the cards."""
    return value(board, code, weights, cells)


@nb.njit(cache=True)
def update(board, code, delta, weights, cells):
    """Add ``delta`` to every weight ``value`` reads (twice where a symmetric board
    reads one weight twice); returns the new value."""
    for p in range(cells.shape[0]):
        for s in range(8):
            weights[p, code, _index(board, cells, p, s)] += delta
    return value(board, code, weights, cells)


@nb.njit(cache=True)
def best_move(game, board, cards, weights, cells, moves, rewards):
    """Greedy move on ``reward + V(afterstate)``: ``(action, afterstate, reward)``;
    action -1 when no move is legal. ``game`` 0 is 2048, 1 Threes."""
    best = -np.inf
    choice = -1
    best_after = board
    best_r = np.int64(0)
    code = preview_code(cards) if game == 1 else np.int64(0)
    for a in range(4):
        if game == 0:
            after, r = twenty48.move(board, a, moves, rewards)
            if r < 0:
                continue
        else:
            after, moved, r = threes.move(board, a, moves, rewards)
            if moved == 0:
                continue
        v = r
        if game == 0 or twenty48.max_rank(after) != threes.RANK_12288:
            v += value(after, code, weights, cells)
        if v > best:
            best, choice, best_after, best_r = v, a, after, r
    return choice, best_after, np.int64(best_r)


@nb.njit(cache=True)
def play(
    game, weights, cells, rng, moves, rewards, bonus_preview, afters, codes, gains
):
    """One greedy game from a new start; records each afterstate, its preview code and
    the reward that came after it (the next move's, plus the chance reward in between)
    in the buffers. Returns ``(score, top_rank, n_moves)``."""
    if game == 0:
        board = twenty48.new_game(rng)
        cards = np.int64(0)
    else:
        board, cards = threes.new_game(rng, bonus_preview)
    score = np.int64(0)
    n = 0
    while n < afters.shape[0]:
        if game == 1 and twenty48.max_rank(board) == threes.RANK_12288:
            break
        a, after, r = best_move(game, board, cards, weights, cells, moves, rewards)
        if a < 0:
            break
        if n > 0:
            gains[n - 1] += r
        afters[n] = after
        codes[n] = preview_code(cards) if game == 1 else 0
        gains[n] = 0
        if game == 0:
            board = twenty48.spawn(after, rng)
            score += r
        else:
            board, cards, full = threes.turn(
                board, cards, a, rng, moves, rewards, bonus_preview
            )
            gains[n] = full - r  # the entering card's points
            score += full
        n += 1
    return score, twenty48.max_rank(board), n


@nb.njit(cache=True)
def learn(afters, codes, gains, n, alpha, weights, cells):
    """Backward TD(0) pass over one game's ``n`` afterstates (see module docstring)."""
    per = alpha / (8 * cells.shape[0])
    exact = 0.0
    for t in range(n - 1, -1, -1):
        board = afters[t]
        code = codes[t]
        error = exact - value(board, code, weights, cells)
        v = update(board, code, per * error, weights, cells)
        if t > 0:
            exact = gains[t - 1] + v


@nb.njit(cache=True)
def train_games(
    game, n_games, alpha, weights, cells, rng, moves, rewards, bonus_preview, out
):
    """Play and learn ``n_games`` games; ``out: int64[n_games, 3]`` gets each game's
    (score, top rank, moves). Returns the number of TD updates."""
    afters = np.empty(MAX_MOVES, dtype=np.uint64)
    codes = np.empty(MAX_MOVES, dtype=np.int64)
    gains = np.empty(MAX_MOVES, dtype=np.int64)
    updates = np.int64(0)
    for g in range(n_games):
        s, top, n = play(
            game,
            weights,
            cells,
            rng,
            moves,
            rewards,
            bonus_preview,
            afters,
            codes,
            gains,
        )
        learn(afters, codes, gains, n, alpha, weights, cells)
        out[g, 0], out[g, 1], out[g, 2] = s, top, n
        updates += n
    return updates
