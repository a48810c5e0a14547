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

Online TD(0) (``online``; :func:`play` with its ``learning``): instead of the
backward pass after the game, each afterstate moves toward ``r + V(next)`` as
soon as the next afterstate is chosen (``V(next)`` as read for that choice), and the
last toward 0 at the end: the order of Szubert and Jaskowski and of TDL2048+'s
default, whose updates find their weights still in the cache. It learns other
weights than the backward TD(0) pass.

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
with bit operations, each pattern cut out as runs of nibbles, loads prefetched) and
the sums through :func:`~playahead.kernels.ntuple.read_inlined`, both inlined into
the loops (a call per afterstate, with its arrays' reference counts, cost more than
the arithmetic). With temporal coherence the trainer keeps each weight beside its E
and A (:func:`pack`, ``g.spread`` 3), so an update touches one cache line a lookup
instead of three. The values and updates are bit for bit those of ``value`` and
``update``. The kernels
release the GIL (``nogil``), so several threads can train one net (``workers``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from playahead.games import threes, twenty48
from playahead.kernels.expectimax import (
    LeafNet,
    SearchConfig,
    SearchContext,
    leaf_net,
    new_table,
    root_threes,
    search_config,
    search_context,
)
from playahead.kernels.fixed_patterns import kind_of
from playahead.kernels.ntuple import (
    N_CODES,
    lookups,
    preview_code,
    read_inlined,
    staged,
)
from playahead.kernels.prefetch import prefetch
from playahead.kernels.rows import score_table

MAX_MOVES = 1 << 17  # longer than any 2048 (or Threes) game the 4-bit board can hold
RESTART_MIN = 10  # episodes at least this long are replayed from their middle
NO_STARTS = (np.zeros(0, np.uint64), np.zeros(0, np.int64))


class TDGame(NamedTuple):
    """What every game of a training run shares: the game and its rules, the net it
    plays and learns, and where a game stops."""

    #: 0 is 2048, 1 Threes.
    game: int
    #: ``float32[P, C, size]``: the net's weights, trained in place.
    weights: np.ndarray
    #: ``int64[P, R, 3]``: the patterns as runs
    #: (:func:`playahead.kernels.ntuple.pattern_runs`).
    runs: np.ndarray
    #: ``int64[S - 1]``: the stage ranks of a multi-stage net (size 0: one stage).
    stages: np.ndarray
    #: the game's row tables (``moves``, ``rewards``).
    moves: np.ndarray
    rewards: np.ndarray
    #: Threes' bonus-preview model (0 for 2048).
    bonus_preview: int
    #: the stage-stop (module docstring): a game stops at its first afterstate whose
    #: largest rank reaches it; 0 plays every game to its end.
    stop_rank: int
    #: 1: ``weights`` holds the weights alone; 3: it is :func:`pack`'s layout, each
    #: weight followed by its temporal-coherence E and A (``float32[P, C, 3 *
    #: size]``).
    spread: int
    #: :func:`~playahead.kernels.fixed_patterns.kind_of` ``runs``.
    kind: int


def td_game(
    game, weights, runs, stages, moves, rewards, bonus_preview=0, stop_rank=0, spread=1
) -> TDGame:
    """The :class:`TDGame` of a training run (the fields' types fixed, so every run
    shares one compiled kernel)."""
    return TDGame(
        np.int64(game),
        weights,
        runs,
        np.asarray(stages, np.int64),
        moves,
        rewards,
        np.int64(bonus_preview),
        np.int64(stop_rank),
        np.int64(spread),
        np.int64(kind_of(runs)),
    )


def pack(weights, tc_e, tc_a):
    """The packed layout of a net trained with temporal coherence:
    ``float32[P, C, 3 * size]`` holding each weight and then its E and A, so that a
    TD update reads and writes one cache line a lookup instead of three (the
    values are the same bits). :func:`unpack` writes it back."""
    p, c, size = weights.shape
    out = np.empty((p, c, 3 * size), np.float32)
    _interleave(
        out.reshape(-1), weights.reshape(-1), tc_e.reshape(-1), tc_a.reshape(-1)
    )
    return out


def unpack(packed, weights, tc_e, tc_a):
    """Write :func:`pack`'s layout back into ``weights``, ``tc_e`` and ``tc_a``."""
    flat = packed.reshape(-1)
    _deinterleave(flat, weights.reshape(-1), tc_e.reshape(-1), tc_a.reshape(-1))


@nb.njit(cache=True, nogil=True)
def _interleave(out, w, e, a):
    """``out[3 i], out[3 i + 1], out[3 i + 2] = w[i], e[i], a[i]`` in one pass."""
    for i in range(w.size):
        out[3 * i], out[3 * i + 1], out[3 * i + 2] = w[i], e[i], a[i]


@nb.njit(cache=True, nogil=True)
def _deinterleave(flat, w, e, a):
    """:func:`_interleave` undone."""
    for i in range(w.size):
        w[i], e[i], a[i] = flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]


class Trail(NamedTuple):
    """What :func:`play` records of one game, move by move."""

    #: ``int64[moves, 8 * P]``: the flat weight indices of each chosen afterstate.
    afters: np.ndarray
    #: ``int64[moves]``: the reward that came after each afterstate.
    gains: np.ndarray
    #: ``uint64[m]``, ``int64[m]``: the position (board, cards word) before each
    #: move; ``m`` is 0 where no position is recorded.
    states: np.ndarray
    cards: np.ndarray


@nb.njit(cache=True, nogil=True)
def trail_buffers(runs, moves=MAX_MOVES, positions=False):
    """A :class:`Trail` for games of up to ``moves`` moves of a net of pattern
    ``runs``; ``positions``: also room for the position before each move."""
    m = moves if positions else 0
    return Trail(
        np.empty((moves, 8 * runs.shape[0]), np.int64),
        np.empty(moves, np.int64),
        np.empty(m, np.uint64),
        np.empty(m, np.int64),
    )


class FixedSearch(NamedTuple):
    """The search that plays a search-driven training game (module docstring)."""

    #: moves searched after the first.
    depth: int
    ctx: SearchContext
    cfg: SearchConfig
    net: LeafNet
    #: ``int64[1]``: the last decision's stamp.
    stamp: np.ndarray


def fixed_search(g: TDGame, depth: int, tt_bits: int = 20) -> FixedSearch:
    """The :class:`FixedSearch` of the :func:`play` and :func:`train_games` of
    ``g`` (one per thread: its tables are its scratch space): the compiled Threes
    search over ``g.weights`` (shared, so it always reads the net as trained so far)
    to ``depth`` at a 0.01 probability cut-off, bonus values alike, leaves clamped at
    0, with a transposition table of ``2**tt_bits`` entries."""
    table, reward_weight = score_table("Threes")
    counters = np.array([0, 0, 1 << 62], np.int64)
    ctx = search_context(g.moves, g.rewards, table, new_table(tt_bits), counters)
    cfg = search_config(0.01, reward_weight, 0, tt_bits, True, False)
    n_base = g.weights.shape[1] // (g.stages.size + 1)
    net = leaf_net(g.weights, g.runs, n_base, g.stages, clamp=True, grouped=False)
    return FixedSearch(np.int64(depth), ctx, cfg, net, np.zeros(1, np.int64))


class Coherence(NamedTuple):
    """Temporal coherence's accumulators (``tc``; Jaskowski's TC(0)): ``E`` and ``A``
    of every weight, flat, float32 like the weights; both empty without it."""

    #: ``float32[P * C * size]`` (or empty): the sum of each weight's errors.
    e: np.ndarray
    #: ``float32[P * C * size]`` (or empty): the sum of their absolute values.
    a: np.ndarray


def coherence(e, a) -> Coherence:
    """The :class:`Coherence` of accumulators ``e`` and ``a`` (any shape: flattened;
    empty arrays for no temporal coherence)."""
    return Coherence(e.reshape(-1), a.reshape(-1))


class Starts(NamedTuple):
    """Saved start positions and the share of games that start from one."""

    #: ``uint64[M]``: the boards.
    boards: np.ndarray
    #: ``int64[M]``: their cards words (0 for 2048).
    cards: np.ndarray
    #: the share of games that start from a saved position.
    share: float


def saved_starts(boards, cards, share) -> Starts:
    """The :class:`Starts` of ``boards`` (uint64[M]), ``cards`` (int64[M]) and
    ``share``; ``saved_starts(*NO_STARTS, 0.0)``: none."""
    return Starts(
        np.asarray(boards, np.uint64), np.asarray(cards, np.int64), float(share)
    )


class OnlineLearning(NamedTuple):
    """What :func:`play` learns online TD(0) with (``learning``): the rate and the
    temporal-coherence accumulators, as :func:`learn` takes them."""

    #: the learning rate.
    alpha: float
    #: ``float32[...]``: E of each weight (empty without temporal coherence, or
    #: ``packed``).
    e: np.ndarray
    #: ``float32[...]``: A of each weight (as ``e``).
    a: np.ndarray
    #: the weights are :func:`pack`'s layout, E and A beside each weight.
    packed: bool


@nb.njit(cache=True, nogil=True)
def online_learning(alpha, e, a, packed):
    """The :class:`OnlineLearning` of rate ``alpha``, accumulators ``e`` and ``a``
    and layout ``packed`` (compiled: :func:`train_games` builds it)."""
    return OnlineLearning(np.float64(alpha), e, a, bool(packed))


@nb.njit(cache=True, nogil=True)
def play(
    g, rng, trail, start=0, start_cards=0, search=None, searching=True, learning=None
):
    """One greedy game of ``g`` (a :class:`TDGame`) on ``reward + V(afterstate)``
    (first action wins ties) from a new start (``start`` 0) or from board ``start``
    with cards word ``start_cards`` (0 for 2048).

    Records in ``trail.afters[t]`` the flat weight indices of the ``t``-th afterstate
    (its preview code and, with ``g.stages``, its stage included: see
    :func:`~playahead.kernels.ntuple.staged`) and in ``trail.gains[t]`` the reward
    that came after it (the next move's plus, for Threes, the entering card's
    points); where the trail has room for them (:func:`trail_buffers`), the position
    before move ``t`` in ``trail.states[t]`` and ``trail.cards[t]``. With ``search``
    (Threes; :func:`fixed_search`) and ``searching``, each move is the search's
    instead of the greedy one. With ``g.stop_rank`` (not 0) the game stops at the
    first afterstate whose largest rank reaches it, recorded as
    ``trail.afters[n_moves - 1]`` before any card enters (the stage-stop of the
    module docstring). With ``learning`` (an :class:`OnlineLearning`; no search and
    no stage-stop) the game learns online TD(0) as it goes (module docstring): once
    afterstate ``t`` is chosen, afterstate ``t - 1`` moves toward the reward between
    them plus ``V(t)`` as read for the choice, and the last one toward 0 when the
    game ends. Returns ``(points, top_rank, n_moves)``; ``points`` are those gained
    in this game (from a saved position: since that position); ``top_rank`` is that
    afterstate's largest rank after a stage-stop.
    """
    weights, runs, stages = g.weights, g.runs, g.stages
    moves, rewards, stop_rank = g.moves, g.rewards, g.stop_rank
    afters, gains = trail.afters, trail.gains
    states, cards_at = trail.states, trail.cards
    flat = weights.reshape(-1)
    n_codes, size = weights.shape[1], weights.shape[2] // g.spread
    n_base = n_codes // (stages.size + 1)  # 4 preview codes, or 1 (2048, or none)
    width = afters.shape[1]
    record = states.size > 0
    imgs = np.empty(8, np.uint64)
    idx = np.empty(4 * width, np.int64)
    acts = np.empty(4, np.int64)
    afts = np.empty(4, np.uint64)
    rews = np.empty(4, np.int64)
    vals = np.empty(4, np.float64)
    found = afters.reshape(-1)  # afterstate t's indices at t * width
    if start != 0:
        board, cards = np.uint64(start), np.int64(start_cards)
    elif g.game == 0:
        board = twenty48.new_game(rng)
        cards = np.int64(0)
    else:
        board, cards = threes.new_game(rng, g.bonus_preview)
    score = np.int64(0)
    n = 0
    while n < afters.shape[0]:
        if g.game == 1 and twenty48.max_rank(board) == threes.RANK_12288:
            break
        code = preview_code(cards) if n_base == N_CODES else np.int64(0)
        k = 0
        for a in range(4):
            if g.game == 0:
                after, r = twenty48.move(board, a, moves, rewards)
                if r < 0:
                    continue
            else:
                after, moved, r = threes.move(board, a, moves, rewards)
                if moved == 0:
                    continue
            acts[k], afts[k], rews[k] = a, after, r
            sc = staged(after, code, n_base, stages) if stages.size else code
            o = k * width
            lookups(
                after, sc, runs, n_codes, size, imgs, idx, o, flat, g.spread, g.kind
            )
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
                vals[j] = 0.0
                if g.game == 0 or twenty48.max_rank(afts[j]) != threes.RANK_12288:
                    vals[j] = read_inlined(flat, idx, j * width, width)
                    v += vals[j]
                if v > best:
                    best, c = v, j
        r = rews[c]
        if n > 0:
            gains[n - 1] += r
        for q in range(width):
            afters[n, q] = idx[c * width + q]
        if learning is not None and n > 0:
            target = np.float64(gains[n - 1]) + vals[c]
            _online_step(found, (n - 1) * width, width, target, flat, learning)
        if record:
            states[n], cards_at[n] = board, cards
        gains[n] = 0
        if stop_rank > 0 and twenty48.max_rank(afts[c]) >= stop_rank:
            return score + r, twenty48.max_rank(afts[c]), n + 1
        if g.game == 0:
            board = twenty48.spawn(afts[c], rng)
            score += r
        else:
            board, cards, full = threes.turn(
                board, cards, acts[c], rng, moves, rewards, g.bonus_preview
            )
            gains[n] = full - r  # the entering card's points
            score += full
        n += 1
    if learning is not None and n > 0:
        _online_step(found, (n - 1) * width, width, 0.0, flat, learning)
    return score, twenty48.max_rank(board), n


@nb.njit(cache=True, nogil=True, inline="always")
def _online_step(found, o, width, target, flat, learning):
    """:func:`play`'s online TD(0) step of the afterstate whose indices are
    ``found[o:o + width]`` toward ``target`` (``learning``: an
    :class:`OnlineLearning`)."""
    packed = learning.packed
    tc = packed or learning.e.size > 0
    e_at, a_at = (1, 2) if packed else (0, 0)
    e_of, a_of = (flat, flat) if packed else (learning.e, learning.a)
    error = target - read_inlined(flat, found, o, width)
    per = learning.alpha / width
    _nudge(flat, found, o, width, per, error, tc, e_of, a_of, e_at, a_at)


@nb.njit(cache=True, nogil=True)
def _searched(board, cards, acts, k, search):
    """Index in ``acts[:k]`` of the move the search values highest (the first of
    equals), the search stamped as a new decision."""
    search.stamp[0] += 1
    was = search.cfg
    cfg = search_config(
        was.cutoff,
        was.reward_weight,
        search.stamp[0],
        was.tt_bits,
        was.use_tt,
        was.window,
    )
    values = root_threes(board, cards, search.depth, search.ctx, cfg, search.net)
    best = -np.inf
    c = 0
    for j in range(k):
        v = values[acts[j]]
        if v > best:
            best, c = v, j
    return c


@nb.njit(cache=True, nogil=True, inline="always")
def _nudge(flat, found, o, width, per, error, tc, e_of, a_of, e_at, a_at):
    """The TD step of one afterstate, whose flat weight indices are
    ``found[o:o + width]``: each weight moves by ``per * error`` (with ``tc``, times
    its rate ``|E| / A``, then ``E += error`` and ``A += |error|``; E and A of weight
    ``i`` at ``e_of[i + e_at]`` and ``a_of[i + a_at]``). Positions are ``uint64``:
    numba adds no negative-index wraparound to them."""
    if tc:
        for q in range(o, o + width):
            j = found[np.uint64(q)]
            i, ie, ia = np.uint64(j), np.uint64(j + e_at), np.uint64(j + a_at)
            rate = 1.0
            if a_of[ia] > 0:
                rate = abs(np.float64(e_of[ie])) / np.float64(a_of[ia])
            flat[i] = np.float32(np.float64(flat[i]) + per * error * rate)
            e_of[ie] = np.float32(np.float64(e_of[ie]) + error)
            a_of[ia] = np.float32(np.float64(a_of[ia]) + abs(error))
    else:
        delta = per * error
        for q in range(o, o + width):
            i = np.uint64(found[np.uint64(q)])
            flat[i] = np.float32(np.float64(flat[i]) + delta)


@nb.njit(cache=True, nogil=True)
def learn(
    afters, gains, n, alpha, lam, flat, tc_e, tc_a, bootstrap=False, packed=False
):
    """Backward TD(lambda) pass over one game's ``n`` afterstates (module docstring);
    ``flat`` is ``weights.reshape(-1)``. Temporal coherence when ``tc_e`` (and
    ``tc_a``, float32 like ``flat``) are not empty, or with ``packed``: ``flat`` is
    then :func:`pack`'s layout (E and A right after each weight; ``tc_e`` and
    ``tc_a`` unused). With ``bootstrap`` the last afterstate is not learned: its
    value is the target the others learn toward (a game stopped at the next
    stage)."""
    width = afters.shape[1]
    found = afters.reshape(-1)  # afterstate t's indices at t * width
    per = alpha / width
    tc = packed or tc_e.size > 0
    e_at, a_at = (1, 2) if packed else (0, 0)  # E of weight i at e_of[i + e_at]
    e_of, a_of = (flat, flat) if packed else (tc_e, tc_a)
    exact = 0.0
    last = n - 1
    if bootstrap and n > 0:
        exact = read_inlined(flat, found, last * width, width)
        last = n - 2
        if last >= 0:
            exact = gains[last] + exact
    for t in range(last, -1, -1):
        o = t * width
        if t > 0:
            for q in range(o - width, o):
                prefetch(flat, found[q])
                if tc:  # packed: E shares a line with the weight or with A
                    if not packed:
                        prefetch(e_of, found[q])
                    prefetch(a_of, found[q] + a_at)
        error = exact - read_inlined(flat, found, o, width)
        _nudge(flat, found, o, width, per, error, tc, e_of, a_of, e_at, a_at)
        if t > 0:
            v = read_inlined(flat, found, o, width)
            if lam == 0.0:
                exact = gains[t - 1] + v
            else:
                exact = gains[t - 1] + (lam * exact + (1.0 - lam) * v)


@nb.njit(cache=True, nogil=True)
def train_games(
    g,
    n_games,
    alpha,
    lam,
    restart,
    rng,
    out,
    tc,
    starts,
    search_share=0.0,
    search=None,
    online=False,
):
    """Play and learn ``n_games`` games of ``g`` (a :class:`TDGame`); ``out:
    int64[n_games, 3]`` gets each game's (points, top rank, moves) of its first
    episode. ``lam``: lambda in [0, 1]; ``restart``: the restart strategy;
    ``tc``: a :class:`Coherence` (empty for plain TD, and with ``g.spread`` 3,
    whose weights hold the accumulators); ``starts``: a :class:`Starts`;
    ``search`` (:func:`fixed_search`) and ``search_share``: the share of games the
    search plays (module docstring); ``online``: learn TD(0) during each game
    (:func:`play` with an :class:`OnlineLearning`; ``lam`` 0, no search and no
    stage-stop) instead of the backward pass after it. Returns the number of TD
    updates (the afterstates learned, of every episode)."""
    trail = trail_buffers(g.runs, MAX_MOVES, restart)
    stop_rank = g.stop_rank
    flat = g.weights.reshape(-1)
    e, a = tc.e, tc.a
    packed = g.spread > 1
    updates = np.int64(0)
    n_starts = starts.boards.size
    for i in range(n_games):
        board, cards = np.uint64(0), np.int64(0)
        if n_starts > 0 and rng.random() < starts.share:
            j = min(int(rng.random() * n_starts), n_starts - 1)
            board, cards = starts.boards[j], starts.cards[j]
        searching = False
        if search is not None and search_share > 0.0:
            searching = rng.random() < search_share
        first = True
        while True:  # the game, then its restarts
            if online:
                learning = online_learning(alpha, e, a, packed)
                s, top, n = play(g, rng, trail, board, cards, None, False, learning)
                stopped = False
            else:
                s, top, n = play(g, rng, trail, board, cards, search, searching)
                stopped = stop_rank > 0 and top >= stop_rank
                afters, gains = trail.afters, trail.gains
                learn(afters, gains, n, alpha, lam, flat, e, a, stopped, packed)
            updates += n - 1 if stopped else n
            if first:
                out[i, 0], out[i, 1], out[i, 2] = s, top, n
                first = False
            if not (restart and n >= RESTART_MIN):
                break
            board, cards = trail.states[n // 2], trail.cards[n // 2]
    return updates


def run_games(
    g, n_games, alpha, lam, restart, rng, out, tc, starts, share=0.0, search=None,
    online=False,
) -> int:  # fmt: skip
    """:func:`train_games` with its arguments' types fixed (floats, bools, flat
    accumulators, every option given), so the trainer, the benchmarks and the tests
    all run the one compiled kernel of each kind of game (with or without a search).
    ``tc``: the accumulators ``(tc_e, tc_a)`` or a :class:`Coherence`;
    ``starts``: ``(boards, cards, share)`` or a :class:`Starts`; ``share``:
    ``search_share``; ``online``: learn online TD(0) (:func:`train_games`)."""
    return int(
        train_games(
            g, int(n_games), float(alpha), float(lam), bool(restart), rng, out,
            coherence(*tc), saved_starts(*starts), float(share), search,
            bool(online),
        )
    )  # fmt: skip
