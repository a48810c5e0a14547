"""Compiled afterstate TD(lambda) for n-tuple nets: greedy games and the backward pass.

Training is the backward pass of TDL2048-Demo over each finished game, with the
lambda-return of ziap/2048-tdl and TDL2048+: with ``exact = 0`` at the end, each
afterstate, last first, gets ``error = exact - V(after)``, then ``V += alpha * error``
spread over the ``8 * P`` lookups, and ``exact = r + (lambda * exact + (1 - lambda) *
V'(after))``, where ``r`` is the reward that came before this afterstate's successor
(the next move's, plus for Threes the entering card's) and ``V'`` the value just
updated. ``lambda = 0`` is TD(0) (``exact = r + V'``, the same bits as before lambda
existed). With temporal coherence (``tc``, Jaskowski's TC(0)) each weight ``i`` moves by
``alpha / (8 * P) * error * |E_i| / A_i`` instead (1 while ``A_i`` is 0), then ``E_i +=
error`` and ``A_i += |error|``; a weight a board reads twice gets both steps, one after
the other.

Restarts (Matsuzaki's restart strategy, as ziap/2048-tdl and TDL2048+ run it): after a
game of ``n >= RESTART_MIN`` moves, play again from the position before move ``n //
2`` of it (the recorded board and, for Threes, the cards word), learn from that episode
alone, and repeat while the episodes are that long. They count as one training game
(the first episode's score, top tile and moves are reported); every episode's moves
are TD updates. No draw decides a restart, so the run's generator stays the one owner
of chance, and a game's restarts end inside the game: a checkpoint between games holds
no restart state.

Start positions: a game starts from saved position ``j`` (a board and a cards word)
when ``rng.random() < start_share``, ``j = min(int(rng.random() * M), M - 1)``; with
no saved positions nothing is drawn.

Search-driven games (``search``, Threes only): a game is played by expectimax over the
net itself (:func:`playahead.kernels.expectimax.root_threes` at a fixed depth
and probability cut-off, leaves clamped at 0, as the shipped search plays) instead of
greedily when ``search_share > 0`` and ``rng.random() < search_share``, drawn after
the start position's draws (with no search nothing is drawn, so the greedy trainer's
games are the same bits). Its moves are learned from like any other: the trail is the
chosen afterstates. The search is exact over chance (no draw of its own), and its
transposition table is stamped anew per decision, so a game does not depend on what
the table held before.

Stage-stop (``stop_rank``, threes-meadow-ai's way of training one stage of a staged
net against the next): a game stops at its first afterstate whose largest rank
reaches ``stop_rank``, before a card enters; that afterstate is not learned, its value
(read from the next stage's weights, which games stopped there never change) is the
target the game's earlier afterstates learn toward, as the end of a game is otherwise
0. Games that start from positions of one stage and stop at the next train that stage
alone, consistent with the next.

Chance comes from the ``np.random.Generator`` the caller passes in, through the
games' own compiled rules (:mod:`playahead.games.twenty48`,
:mod:`playahead.games.threes`); the network only decides moves.

Speed: :func:`play` writes the flat weight indices of every chosen afterstate into a
trail while it picks moves, so :func:`learn` only reads, adds and re-reads them; all
lookups go through :func:`~playahead.kernels.ntuple.lookups` (eight board images made
with bit operations, each pattern cut out as runs of nibbles, loads prefetched).
The values and updates are bit for bit those of ``value`` and ``update``. The kernels
release the GIL (``nogil``), so several threads can train one net (``workers``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games import threes, twenty48
from playahead.kernels.ntuple import N_CODES, lookups, preview_code, read, staged
from playahead.kernels.prefetch import prefetch
from playahead.kernels.expectimax import restamped, root_threes

MAX_MOVES = 1 << 17  # longer than any 2048 (or Threes) game the 4-bit board can hold
RESTART_MIN = 10  # episodes at least this long are replayed from their middle
NO_STARTS = (np.zeros(0, np.uint64), np.zeros(0, np.int64))


def trail_buffers(runs, moves: int = MAX_MOVES):
    """``(trail, gains)`` for :func:`play`: int64[moves, 8 * P] and int64[moves]."""
    return (
        np.empty((moves, 8 * runs.shape[0]), np.int64),
        np.empty(moves, np.int64),
    )


@nb.njit(cache=True, nogil=True)
def play(
    game,
    weights,
    runs,
    rng,
    moves,
    rewards,
    bonus_preview,
    trail,
    gains,
    stages,
    start,
    start_cards,
    states,
    cards_at,
    search=None,
    searching=True,
    stop_rank=0,
):
    """One greedy game on ``reward + V(afterstate)`` (``game`` 0 is 2048, 1 Threes;
    first action wins ties) from a new start (``start`` 0) or from board ``start``
    with cards word ``start_cards`` (0 for 2048).

    Records in ``trail[t]`` the flat weight indices of the ``t``-th afterstate (its
    preview code and, with ``stages``, its stage included: see
    :func:`~playahead.kernels.ntuple.staged`) and in ``gains[t]`` the reward that
    came after it (the next move's plus, for Threes, the entering card's points); if
    ``states`` (uint64) and ``cards_at`` (int64) are not empty, the position before
    move ``t`` in them. With ``search`` (Threes; :func:`search_context`) and
    ``searching``, each move is the search's instead of the greedy one. With
    ``stop_rank`` (not 0) the game stops at the first afterstate whose largest rank
    reaches it, recorded as ``trail[n_moves - 1]`` before any card enters (the
    stage-stop of the module docstring). Returns ``(points, top_rank, n_moves)``;
    ``points`` are those gained in this game (from a saved position: since that
    position); ``top_rank`` is that afterstate's largest rank after a stage-stop.
    """
    flat = weights.reshape(-1)
    n_codes, size = weights.shape[1], weights.shape[2]
    n_base = n_codes // (stages.size + 1)  # 4 preview codes, or 1 (2048, or none)
    width = trail.shape[1]
    record = states.size > 0
    imgs = np.empty(8, np.uint64)
    idx = np.empty(4 * width, np.int64)
    acts = np.empty(4, np.int64)
    afts = np.empty(4, np.uint64)
    rews = np.empty(4, np.int64)
    if start != 0:
        board, cards = np.uint64(start), np.int64(start_cards)
    elif game == 0:
        board = twenty48.new_game(rng)
        cards = np.int64(0)
    else:
        board, cards = threes.new_game(rng, bonus_preview)
    score = np.int64(0)
    n = 0
    while n < trail.shape[0]:
        if game == 1 and twenty48.max_rank(board) == threes.RANK_12288:
            break
        code = preview_code(cards) if n_base == N_CODES else np.int64(0)
        k = 0
        for a in range(4):
            if game == 0:
                after, r = twenty48.move(board, a, moves, rewards)
                if r < 0:
                    continue
            else:
                after, moved, r = threes.move(board, a, moves, rewards)
                if moved == 0:
                    continue
            acts[k], afts[k], rews[k] = a, after, r
            sc = staged(after, code, n_base, stages)
            lookups(after, sc, runs, n_codes, size, imgs, idx, k * width, flat)
            k += 1
        if k == 0:
            break
        best = -np.inf
        c = 0
        if search is not None and searching:
            c = _searched(board, cards, acts, k, search)
        else:
            for j in range(k):
                v = np.float64(rews[j])
                if game == 0 or twenty48.max_rank(afts[j]) != threes.RANK_12288:
                    v += read(flat, idx, j * width, width)
                if v > best:
                    best, c = v, j
        r = rews[c]
        if n > 0:
            gains[n - 1] += r
        for q in range(width):
            trail[n, q] = idx[c * width + q]
        if record:
            states[n], cards_at[n] = board, cards
        gains[n] = 0
        if stop_rank > 0 and twenty48.max_rank(afts[c]) >= stop_rank:
            return score + r, twenty48.max_rank(afts[c]), n + 1
        if game == 0:
            board = twenty48.spawn(afts[c], rng)
            score += r
        else:
            board, cards, full = threes.turn(
                board, cards, acts[c], rng, moves, rewards, bonus_preview
            )
            gains[n] = full - r  # the entering card's points
            score += full
        n += 1
    return score, twenty48.max_rank(board), n


@nb.njit(cache=True, nogil=True)
def _searched(board, cards, acts, k, search):
    """Index in ``acts[:k]`` of the move the search values highest (the first of
    equals), the search stamped as a new decision."""
    depth, ctx, cfg, net, stamp = search
    stamp[0] += 1
    values = root_threes(board, cards, depth, ctx, restamped(cfg, stamp[0]), net)
    best = -np.inf
    c = 0
    for j in range(k):
        v = values[acts[j]]
        if v > best:
            best, c = v, j
    return c


def search_context(weights, runs, n_base, stages, moves, rewards, depth, tt_bits=20):
    """The ``search`` of :func:`play` and :func:`train_games` (one per thread): the
    compiled Threes search over ``weights`` (shared, so it always reads the net as
    trained so far) to ``depth`` at a 0.01 probability cut-off, leaves clamped at 0,
    with a transposition table of ``2**tt_bits`` entries."""
    from playahead.kernels import expectimax as ek
    from playahead.planners.evaluators import get_evaluator

    score = get_evaluator("score", "Threes")
    keys, values = ek.new_table(tt_bits)
    counters = np.array([0, 0, 1 << 62], np.int64)
    ctx = (moves, rewards, score.table, keys, values, counters)
    # bonus values alike, as the default search
    cfg = ek.search_config(0.01, score.reward_weight, 0, tt_bits, True)
    # the live weights, code-major (stride 1): the search reads them as trained
    dims = np.array([*weights.shape[1:], n_base, 1, 1, *stages], np.int64)
    net = (
        weights.reshape(-1),
        runs,
        np.zeros(8, np.uint64),
        np.zeros(8 * runs.shape[0], np.int64),
        dims,
    )
    return (np.int64(depth), ctx, cfg, net, np.zeros(1, np.int64))


@nb.njit(cache=True, nogil=True)
def learn(trail, gains, n, alpha, lam, flat, tc_e, tc_a, bootstrap=False):
    """Backward TD(lambda) pass over one game's ``n`` afterstates (module docstring);
    ``flat`` is ``weights.reshape(-1)``. Temporal coherence when ``tc_e`` (and
    ``tc_a``, float32 like ``flat``) are not empty. With ``bootstrap`` the last
    afterstate is not learned: its value is the target the others learn toward (a
    game stopped at the next stage)."""
    width = trail.shape[1]
    per = alpha / width
    tc = tc_e.size > 0
    exact = 0.0
    last = n - 1
    if bootstrap and n > 0:
        exact = read(flat, trail[last], 0, width)
        last = n - 2
        if last >= 0:
            exact = gains[last] + exact
    for t in range(last, -1, -1):
        if t > 0:
            for q in range(width):
                prefetch(flat, trail[t - 1, q])
                if tc:
                    prefetch(tc_e, trail[t - 1, q])
                    prefetch(tc_a, trail[t - 1, q])
        error = exact - read(flat, trail[t], 0, width)
        if tc:
            for q in range(width):
                i = trail[t, q]
                rate = 1.0
                if tc_a[i] > 0:
                    rate = abs(np.float64(tc_e[i])) / np.float64(tc_a[i])
                flat[i] = np.float32(np.float64(flat[i]) + per * error * rate)
                tc_e[i] = np.float32(np.float64(tc_e[i]) + error)
                tc_a[i] = np.float32(np.float64(tc_a[i]) + abs(error))
        else:
            delta = per * error
            for q in range(width):
                i = trail[t, q]
                flat[i] = np.float32(np.float64(flat[i]) + delta)
        if t > 0:
            v = read(flat, trail[t], 0, width)
            if lam == 0.0:
                exact = gains[t - 1] + v
            else:
                exact = gains[t - 1] + (lam * exact + (1.0 - lam) * v)


@nb.njit(cache=True, nogil=True)
def train_games(
    game,
    n_games,
    alpha,
    lam,
    restart,
    weights,
    runs,
    rng,
    moves,
    rewards,
    bonus_preview,
    out,
    tc_e,
    tc_a,
    stages,
    start_boards,
    start_cards,
    start_share,
    search_share=0.0,
    search=None,
    stop_rank=0,
):
    """Play and learn ``n_games`` games; ``out: int64[n_games, 3]`` gets each game's
    (points, top rank, moves) of its first episode. ``lam``: lambda in [0, 1];
    ``restart``: the restart strategy; ``tc_e``/``tc_a``: temporal-coherence
    accumulators shaped like ``weights`` (size 0 for plain TD); ``stages``: the
    stage ranks of a multi-stage net (size 0 for one stage); ``start_boards``
    (uint64[M]), ``start_cards`` (int64[M]), ``start_share``: saved start positions
    and the share of games that start from one; ``search`` (:func:`search_context`)
    and ``search_share``: the share of games the search plays (module docstring);
    ``stop_rank``: the stage-stop (0: none). Returns the number of TD updates (the
    afterstates learned, of every episode)."""
    trail = np.empty((MAX_MOVES, 8 * runs.shape[0]), np.int64)
    gains = np.empty(MAX_MOVES, np.int64)
    states = np.empty(MAX_MOVES if restart else 0, np.uint64)
    cards_at = np.empty(MAX_MOVES if restart else 0, np.int64)
    flat = weights.reshape(-1)
    e, a = tc_e.reshape(-1), tc_a.reshape(-1)
    updates = np.int64(0)
    bonus = bonus_preview
    n_starts = start_boards.size
    for g in range(n_games):
        board, cards = np.uint64(0), np.int64(0)
        if n_starts > 0 and rng.random() < start_share:
            j = min(int(rng.random() * n_starts), n_starts - 1)
            board, cards = start_boards[j], start_cards[j]
        searching = False
        if search is not None and search_share > 0.0:
            searching = rng.random() < search_share
        first = True
        while True:  # the game, then its restarts
            s, top, n = play(
                game,
                weights,
                runs,
                rng,
                moves,
                rewards,
                bonus,
                trail,
                gains,
                stages,
                board,
                cards,
                states,
                cards_at,
                search,
                searching,
                stop_rank,
            )
            stopped = stop_rank > 0 and top >= stop_rank
            learn(trail, gains, n, alpha, lam, flat, e, a, stopped)
            updates += n - 1 if stopped else n
            if first:
                out[g, 0], out[g, 1], out[g, 2] = s, top, n
                first = False
            if not (restart and n >= RESTART_MIN):
                break
            board, cards = states[n // 2], cards_at[n // 2]
    return updates
