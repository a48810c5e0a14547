"""Compiled search kernels for the two-player games (tic-tac-toe, Connect Four, Nim,
Chips): playouts, flat Monte Carlo, sampled lookahead, MCTS and alpha-beta.

The kernels are written once over a common position type, a ``UniTuple(int64, 6)``,
and a ``game`` code (:data:`TICTACTOE`, :data:`CONNECT_FOUR`, :data:`NIM`); the ``g_*``
functions translate to each game's own rules module (:mod:`playahead.games.tictactoe`,
``connect_four``, ``nim``) and back:

* tic-tac-toe: ``(cells 0..31, cells 32..63, 0, 0, size, 0)``, 2 bits per cell (0
  empty, 1 X, 2 O), so boards up to 8x8;
* Connect Four: ``(discs of player 0, discs of player 1, 0, 0, 0, 0)``;
* Nim and Chips: the game's own state tuple.

(Passing the rules functions as arguments would compile too, but numba cannot cache
functions that take other functions as arguments, and a cold compile costs seconds.)

Values are from player 0's side inside playouts (``+1`` player 0 won, ``-1`` player 1
won, 0 a draw) and from the mover's side in searches (negamax). ``g_eval`` is a static
evaluation in (-1, 1) for player 0 (Connect Four: open lines; others: 0).

The MCTS tree lives in arrays so a search can run in chunks and keep a subtree:
``links: int64[C, 7]`` (``FIRST`` child, ``NCHILD`` children stored contiguously,
``ACTION``, ``VISITS``, ``MOVER``: the player who made the move into the node,
``KEY`` of its position or -1 until it is first reached, ``END``: 0 not yet looked
at, 1 game goes on, 2 + winner code + 1 once over), ``vals: float64[C]`` (sum of
results for ``MOVER``), ``states: int64[C, 6]`` (the positions, filled when first
reached) and ``count: int64[1]``.

Run with ``NUMBA_DISABLE_JIT=1`` to step through the same code as plain Python.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from playahead.games import connect_four, nim, tictactoe
from playahead.kernels.counters import ABORTED, LIMIT, NODES

TICTACTOE, CONNECT_FOUR, NIM = 0, 1, 2
GAMES = {"tictactoe": TICTACTOE, "connect_four": CONNECT_FOUR, "nim": NIM}
MAX_TTT_SIZE = 8  # 64 cells of 2 bits fill the two words of a packed board
FIRST, NCHILD, ACTION, VISITS, MOVER, KEY, END = range(7)
WIN = 1_000_000.0  # a won position scores WIN - plies from the root
HEURISTIC = 1000.0  # static evaluations score within +-HEURISTIC
SOLVED = 1 << 30  # transposition-table depth of a value no horizon touched
EXACT, LOWER, UPPER = 0, 1, 2
DISCOUNT = 0.999  # per ply in lookahead: of two equal results, the sooner is better


# ----------------------------------------------------------------- positions


@nb.njit(cache=True)
def ttt_pack(board):
    """int8[n, n] board -> position: ``X in cell 1 -> (4, 0, 0, 0, 3, 0)``."""
    n = board.shape[0]
    words = np.zeros(2, dtype=np.int64)
    for i in range(n * n):
        words[i // 32] |= np.int64(board[i // n, i % n]) << (2 * (i % 32))
    return (words[0], words[1], np.int64(0), np.int64(0), np.int64(n), np.int64(0))


@nb.njit(cache=True)
def ttt_unpack(s):
    """Position -> int8[n, n] board (the inverse of :func:`ttt_pack`)."""
    n = s[4]
    board = np.empty((n, n), dtype=np.int8)
    for i in range(n * n):
        board[i // n, i % n] = (s[i // 32] >> (2 * (i % 32))) & 3
    return board


@nb.njit(cache=True)
def _c4(s):
    return (s[0], s[1])


@nb.njit(cache=True)
def _from_c4(st):
    return (st[0], st[1], np.int64(0), np.int64(0), np.int64(0), np.int64(0))


@nb.njit(cache=True)
def g_apply(game, s, a):
    """The position after move ``a`` (not checked)."""
    if game == TICTACTOE:
        return ttt_pack(tictactoe.apply(ttt_unpack(s), a))
    if game == CONNECT_FOUR:
        return _from_c4(connect_four.apply(_c4(s), a))
    return nim.apply(s, a)


@nb.njit(cache=True)
def g_legal(game, s):
    """bool[n_actions] legal moves."""
    if game == TICTACTOE:
        return tictactoe.legal_mask(ttt_unpack(s))
    if game == CONNECT_FOUR:
        return connect_four.legal_mask(_c4(s))
    return nim.legal_mask(s)


@nb.njit(cache=True)
def g_player(game, s):
    """The player to move."""
    if game == TICTACTOE:
        return tictactoe.current_player(ttt_unpack(s))
    if game == CONNECT_FOUR:
        return connect_four.current_player(_c4(s))
    return nim.current_player(s)


@nb.njit(cache=True)
def g_winner(game, s):
    """0 or 1, or -1 while nobody has won."""
    if game == TICTACTOE:
        return tictactoe.winner(ttt_unpack(s))
    if game == CONNECT_FOUR:
        return connect_four.winner(_c4(s))
    return nim.winner(s)


@nb.njit(cache=True)
def g_terminal(game, s):
    """Is the game over?"""
    if game == TICTACTOE:
        return tictactoe.is_terminal(ttt_unpack(s))
    if game == CONNECT_FOUR:
        return connect_four.is_terminal(_c4(s))
    return nim.is_terminal(s)


@nb.njit(cache=True)
def g_end(game, s):
    """1 while the game goes on, else 2 + winner code + 1 (2 draw, 3 and 4 a win of
    player 0 and 1): one look at the position for both questions."""
    if game == TICTACTOE:
        board = ttt_unpack(s)
        w = tictactoe.winner(board)
        over = w >= 0 or np.count_nonzero(board) == board.size
    elif game == CONNECT_FOUR:
        w = connect_four.winner(_c4(s))
        over = w >= 0 or (s[0] | s[1]) == connect_four.FULL
    else:
        w = nim.winner(s)
        over = nim.is_terminal(s)
    return 3 + w if over else 1


@nb.njit(cache=True)
def g_playout(game, s, rng):
    """The game's own random playout: winner or -1."""
    if game == TICTACTOE:
        return tictactoe.random_playout(ttt_unpack(s), rng)
    if game == CONNECT_FOUR:
        return connect_four.random_playout(_c4(s), rng)
    return nim.random_playout(s, rng)


@nb.njit(cache=True)
def g_key(game, s):
    """An int64 naming the position (exact but for tic-tac-toe above 5x5)."""
    if game == TICTACTOE:
        return s[0] ^ (s[1] << 1)
    if game == CONNECT_FOUR:
        own = s[0] if connect_four.current_player(_c4(s)) == 0 else s[1]
        return own + (s[0] | s[1])  # the classic unique Connect Four key
    pile, player, limit, held_0, _, _ = s
    return (pile << 32) | (limit << 2) | (player << 1) | (held_0 & 1)


@nb.njit(cache=True)
def g_max_plies(game, s):
    """An upper bound on the moves left: empty cells, or sticks in the pile."""
    if game == TICTACTOE:
        board = ttt_unpack(s)
        return board.size - np.count_nonzero(board)
    if game == CONNECT_FOUR:
        return 42 - connect_four._popcount(s[0] | s[1])
    return s[0]


@nb.njit(cache=True)
def g_cells(game, s):
    """int8[n_cells] of a grid game (0 empty, 1 player 0, 2 player 1)."""
    if game == TICTACTOE:
        return ttt_unpack(s).ravel()
    return connect_four.to_board(_c4(s)).ravel()


def _c4_windows() -> np.ndarray:
    """The 69 four-cell lines of Connect Four as bit masks (bit ``7 * col + row``)."""
    out = []
    for c in range(connect_four.COLS):
        for r in range(connect_four.ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(c + i * dc, r + i * dr) for i in range(4)]
                if all(0 <= x < 7 and 0 <= y < 6 for x, y in line):
                    out.append(sum(1 << (7 * x + y) for x, y in line))
    return np.array(out, dtype=np.int64)


C4_WINDOWS = _c4_windows()
C4_WEIGHTS = np.array([0.0, 1.0, 4.0, 16.0, 0.0])


@nb.njit(cache=True)
def c4_eval(p0, p1):
    """Open windows: a line of four holding discs of one player only counts 1, 4 or
    16 for that player (1, 2 or 3 discs); squashed to (-1, 1) for player 0."""
    total = 0.0
    for w in C4_WINDOWS:
        a = connect_four._popcount(p0 & w)
        b = connect_four._popcount(p1 & w)
        if b == 0:
            total += C4_WEIGHTS[a]
        elif a == 0:
            total -= C4_WEIGHTS[b]
    return math.tanh(total / 32.0)


@nb.njit(cache=True)
def g_eval(game, s):
    """Static evaluation for player 0 in (-1, 1)."""
    if game == CONNECT_FOUR:
        return c4_eval(s[0], s[1])
    return 0.0


def position(kind: str, env) -> tuple[int, tuple]:
    """``(game code, position)`` of a playahead two-player env."""
    state = env.clone_state().position
    if kind == "tictactoe":
        board = np.array(state, dtype=np.int8).reshape(env.size, env.size)
        return TICTACTOE, ttt_pack(board)
    if kind == "connect_four":
        p0, p1 = (np.int64(x) for x in state)
        return CONNECT_FOUR, (
            p0,
            p1,
            np.int64(0),
            np.int64(0),
            np.int64(0),
            np.int64(0),
        )
    return NIM, tuple(np.int64(x) for x in state)


def move_order(game: int, env) -> np.ndarray:
    """``int64[n_actions]``: moves in the order alpha-beta tries them."""
    if game == TICTACTOE:  # centre, then diagonals, then the rest
        n = env.size
        cells = np.arange(n * n)
        centre = (n - 1) / 2
        dist = np.abs(cells // n - centre) + np.abs(cells % n - centre)
        on_diag = (cells // n == cells % n) | (cells // n + cells % n == n - 1)
        return np.lexsort((~on_diag, dist)).astype(np.int64)
    if game == CONNECT_FOUR:
        return np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
    return np.arange(env.action_space.n - 1, -1, -1, dtype=np.int64)  # big takes


def exact_keys(game: int, env) -> bool:
    """Do distinct positions always get distinct :func:`g_key` values?"""
    return game != TICTACTOE or env.size <= 5


# ----------------------------------------------------------------- playouts


@nb.njit(cache=True)
def outcome(w):
    """Result for player 0 of a winner code: ``0 -> 1.0, 1 -> -1.0, -1 -> 0.0``."""
    return 0.0 if w < 0 else (1.0 if w == 0 else -1.0)


@nb.njit(cache=True)
def choose(game, s, rng, greedy):
    """A legal move: uniform, or with ``greedy`` the best one-move result for the
    mover (a win over a neutral move over a move that loses), ties uniform."""
    mask = g_legal(game, s)
    p = g_player(game, s)
    best, ties, pick = -2, 0, -1
    for a in range(mask.size):
        if not mask[a]:
            continue
        score = 0
        if greedy:
            child = g_apply(game, s, a)
            w = g_winner(game, child)
            score = 0 if w < 0 else (1 if w == p else -1)
        if score > best:
            best, ties, pick = score, 1, a
        elif score == best:
            ties += 1
            if rng.random() * ties < 1.0:
                pick = a
    return pick


@nb.njit(cache=True)
def playout(game, s, rng, greedy, max_depth):
    """Result for player 0 of random (or greedy) play to the end, or the static
    evaluation after ``max_depth`` moves (``max_depth < 0``: no cap)."""
    if not greedy and max_depth < 0:
        return outcome(g_playout(game, s, rng))
    depth = 0
    while not g_terminal(game, s):
        if 0 <= max_depth <= depth:
            return g_eval(game, s)
        s = g_apply(game, s, choose(game, s, rng, greedy))
        depth += 1
    return outcome(g_winner(game, s))


@nb.njit(cache=True)
def mc_chunk(game, s, counts, rng, sums):
    """Add ``counts[a]`` random playouts after move ``a`` to ``sums[a]`` (results for
    the mover)."""
    sign = 1.0 if g_player(game, s) == 0 else -1.0
    for a in range(counts.size):
        if counts[a] > 0:
            child = g_apply(game, s, a)
            for _ in range(counts[a]):
                sums[a] += sign * outcome(g_playout(game, child, rng))


@nb.njit(cache=True)
def squares_chunk(game, s, n, rng, w_self, w_other, scores):
    """Score cells over ``n`` random games from ``s`` (Rice's "Monte Carlo
    tic-tac-toe"): when the mover wins, its cells gain ``w_self`` and the other's lose
    ``w_other``; when it loses, the reverse; draws score nothing."""
    me = g_player(game, s) + 1
    for _ in range(n):
        end = s
        while not g_terminal(game, end):
            end = g_apply(game, end, choose(game, end, rng, False))
        w = g_winner(game, end)
        if w < 0:
            continue
        sign = 1.0 if w + 1 == me else -1.0
        cells = g_cells(game, end)
        for i in range(cells.size):
            if cells[i] == me:
                scores[i] += sign * w_self
            elif cells[i] != 0:
                scores[i] -= sign * w_other


# ----------------------------------------------------------------- sampled lookahead


@nb.njit(cache=True)
def _load(states, lvl):
    return (
        states[lvl, 0],
        states[lvl, 1],
        states[lvl, 2],
        states[lvl, 3],
        states[lvl, 4],
        states[lvl, 5],
    )


@nb.njit(cache=True)
def _store(states, lvl, s):
    for i in range(6):
        states[lvl, i] = s[i]


@nb.njit(cache=True)
def sampled_negamax(game, s, depth, n_playouts, rng):
    """Mover's value with every move sequence of ``depth`` plies searched exactly and
    each leaf scored by the mean of ``n_playouts`` random playouts; a value found one
    ply deeper counts ``DISCOUNT`` times as much.

    Depth-first with an explicit stack (numba's cache cannot hold recursive kernels,
    numba issue #6061); playouts run in the order of the recursive search.
    """
    states = np.empty((depth + 1, 6), dtype=np.int64)
    players = np.empty(depth + 1, dtype=np.int64)
    nxt = np.zeros(depth + 1, dtype=np.int64)
    best = np.full(depth + 1, -np.inf)
    _store(states, 0, s)
    lvl = 0
    while True:
        st = _load(states, lvl)
        p = g_player(game, st)
        players[lvl] = p
        if nxt[lvl] == 0 and g_terminal(game, st):
            w = g_winner(game, st)
            v = 0.0 if w < 0 else (1.0 if w == p else -1.0)
        elif nxt[lvl] == 0 and lvl == depth:
            total = 0.0
            for _ in range(n_playouts):
                total += outcome(g_playout(game, st, rng))
            v = total / n_playouts if p == 0 else -total / n_playouts
        else:
            mask = g_legal(game, st)
            a = nxt[lvl]
            while a < mask.size and not mask[a]:
                a += 1
            if a < mask.size:
                nxt[lvl] = a + 1
                lvl += 1
                _store(states, lvl, g_apply(game, st, a))
                nxt[lvl] = 0
                best[lvl] = -np.inf
                continue
            v = DISCOUNT * best[lvl]
        if lvl == 0:
            return v
        lvl -= 1
        best[lvl] = max(best[lvl], v if p == players[lvl] else -v)


# ----------------------------------------------------------------- MCTS


def new_tree(capacity: int, root) -> tuple:
    """MCTS arrays ``(links, vals, states, count)`` holding only the root ``root``."""
    links = np.zeros((capacity, 7), dtype=np.int64)
    links[0] = (-1, 0, -1, 0, -1, 0, 0)
    states = np.zeros((capacity, 6), dtype=np.int64)
    states[0] = root
    return links, np.zeros(capacity), states, np.ones(1, dtype=np.int64)


@nb.njit(cache=True)
def select(node, c, rng, links, vals):
    """UCT over a node's children, results mapped to [0, 1]; an unvisited child is
    tried first (uniformly among them)."""
    first = links[node, FIRST]
    pick = -1
    unvisited = 0
    for ch in range(first, first + links[node, NCHILD]):
        if links[ch, VISITS] == 0:
            unvisited += 1
            if rng.random() * unvisited < 1.0:
                pick = ch
    if pick >= 0:
        return pick
    log_n = math.log(links[node, VISITS])
    best = -np.inf
    for ch in range(first, first + links[node, NCHILD]):
        n = links[ch, VISITS]
        score = 0.5 * (vals[ch] / n + 1.0) + c * math.sqrt(log_n / n)
        if score > best:
            best, pick = score, ch
    return pick


@nb.njit(cache=True)
def mcts_chunk(game, n_sims, c, rng, greedy, rollout_depth, links, vals, states, count):
    """Run ``n_sims`` UCT simulations from node 0 (the caller leaves room for
    ``n_actions`` new nodes per simulation). A node's position is computed once, when
    the search first reaches it."""
    path = np.empty(links.shape[0], dtype=np.int64)
    for _ in range(n_sims):
        node = 0
        path[0] = 0
        plen = 1
        while True:
            if links[node, END] == 0:
                links[node, END] = g_end(game, _load(states, node))
            if links[node, END] >= 2:
                v0 = outcome(links[node, END] - 3)
                break
            s = _load(states, node)
            if links[node, FIRST] < 0:
                if node != 0 and links[node, VISITS] == 0:
                    v0 = playout(game, s, rng, greedy, rollout_depth)
                    break
                mask = g_legal(game, s)
                p = g_player(game, s)
                first = count[0]
                for a in range(mask.size):
                    if mask[a]:
                        i = count[0]
                        count[0] = i + 1
                        links[i] = (-1, 0, a, 0, p, -1, 0)
                        vals[i] = 0.0
                links[node, FIRST] = first
                links[node, NCHILD] = count[0] - first
            child = select(node, c, rng, links, vals)
            if links[child, KEY] == -1:
                t = g_apply(game, s, links[child, ACTION])
                _store(states, child, t)
                links[child, KEY] = g_key(game, t)
            node = child
            path[plen] = node
            plen += 1
        for i in range(plen):
            n = path[i]
            links[n, VISITS] += 1
            vals[n] += v0 if links[n, MOVER] == 0 else -v0


@nb.njit(cache=True)
def find_descendant(links, key, max_depth):
    """A node at most ``max_depth`` plies below the root whose position has ``key``,
    or -1 (breadth first)."""
    frontier = np.zeros(1, dtype=np.int64)
    for _ in range(max_depth):
        size = 0
        for node in frontier:
            if links[node, FIRST] >= 0:
                size += links[node, NCHILD]
        nxt = np.empty(size, dtype=np.int64)
        k = 0
        for node in frontier:
            first = links[node, FIRST]
            if first < 0:
                continue
            for ch in range(first, first + links[node, NCHILD]):
                if links[ch, KEY] == key:
                    return ch
                nxt[k] = ch
                k += 1
        frontier = nxt
    return -1


@nb.njit(cache=True)
def copy_subtree(node, links, vals, states, out_links, out_vals, out_states):
    """Copy the subtree under ``node`` into ``out_*`` with ``node`` as node 0;
    returns the number of nodes copied."""
    src = np.empty(links.shape[0], dtype=np.int64)
    dst = np.empty(links.shape[0], dtype=np.int64)
    out_links[0] = links[node]
    out_vals[0] = vals[node]
    out_states[0] = states[node]
    src[0], dst[0] = node, 0
    head, tail, n = 0, 1, 1
    while head < tail:
        s, d = src[head], dst[head]
        head += 1
        first, k = links[s, FIRST], links[s, NCHILD]
        if first < 0:
            continue
        out_links[d, FIRST] = n
        for j in range(k):
            out_links[n + j] = links[first + j]
            out_vals[n + j] = vals[first + j]
            out_states[n + j] = states[first + j]
            src[tail], dst[tail] = first + j, n + j
            tail += 1
        n += k
    return n


# ----------------------------------------------------------------- alpha-beta


@nb.njit(cache=True)
def _tt_slot(key, mask):
    k = key ^ (key >> 31)  # fold, then a multiply that cannot overflow int64
    return (((k & 0x7FFFFFFF) * 0x9E3779B1) >> 16) & mask


_ENTER, _ADVANCE, _FINISH, _RETURN = 0, 1, 2, 3


@nb.njit(cache=True)
def negamax(
    game, s, depth, alpha, beta, ply, order, tt_keys, tt_vals, tt_info, counters
):
    """Alpha-beta value for the mover and whether it is exact (no static evaluation
    decided it). Wins score ``WIN - ply``. ``counters``
    (:mod:`playahead.kernels.counters`): the search counts its nodes and gives up
    (``ABORTED`` = 1) at the node ``LIMIT``.
    ``tt_info[slot] = (depth, flag, best move)``.

    Depth-first with an explicit stack (numba's cache cannot hold recursive kernels,
    numba issue #6061): each level walks ``_ENTER`` (probe), ``_ADVANCE`` (next
    move), ``_FINISH`` (store) and ``_RETURN`` (hand the value to the parent).
    """
    n = depth + 1
    states = np.empty((n, 6), dtype=np.int64)
    masks = np.zeros((n, order.size), dtype=np.bool_)
    lo, hi, lo0, best = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    best_move, move = np.empty(n, np.int64), np.empty(n, np.int64)
    idx = np.empty(n, dtype=np.int64)
    hint, keys = np.empty(n, np.int64), np.empty(n, np.int64)
    slots, players = np.empty(n, np.int64), np.empty(n, np.int64)
    exact, negate = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
    _store(states, 0, s)
    lo[0], hi[0] = alpha, beta
    lvl, mode = 0, _ENTER
    ret_v, ret_e = 0.0, False
    while True:
        if mode == _ENTER:
            st = _load(states, lvl)
            here = ply + lvl
            counters[NODES] += 1
            if counters[NODES] >= counters[LIMIT]:
                counters[ABORTED] = 1
            mode = _RETURN
            if counters[ABORTED]:
                ret_v, ret_e = 0.0, False
                continue
            p = g_player(game, st)
            players[lvl] = p
            if g_terminal(game, st):
                w = g_winner(game, st)
                ret_v = 0.0 if w < 0 else ((WIN - here) if w == p else -(WIN - here))
                ret_e = True
                continue
            if lvl == depth:
                v = g_eval(game, st) * HEURISTIC
                ret_v, ret_e = (v if p == 0 else -v), False
                continue
            key = g_key(game, st)
            slot = _tt_slot(key, tt_keys.size - 1)
            keys[lvl], slots[lvl], hint[lvl] = key, slot, -1
            if tt_keys[slot] == key:
                hint[lvl] = tt_info[slot, 2]
                if tt_info[slot, 0] >= depth - lvl:
                    v = tt_vals[slot]
                    v = v - here if v > WIN / 2 else (v + here if v < -WIN / 2 else v)
                    flag = tt_info[slot, 1]
                    if (
                        flag == EXACT
                        or (flag == LOWER and v >= hi[lvl])
                        or (flag == UPPER and v <= lo[lvl])
                    ):
                        ret_v, ret_e = v, tt_info[slot, 0] == SOLVED
                        continue
            masks[lvl] = g_legal(game, st)
            lo0[lvl], best[lvl], best_move[lvl] = lo[lvl], -np.inf, -1
            exact[lvl], idx[lvl] = True, -1
            mode = _ADVANCE
        elif mode == _ADVANCE:
            mode = _FINISH
            while idx[lvl] < order.size:
                i = idx[lvl]
                idx[lvl] = i + 1
                a = hint[lvl] if i < 0 else order[i]
                if a < 0 or not masks[lvl, a] or (i >= 0 and a == hint[lvl]):
                    continue
                child = g_apply(game, _load(states, lvl), a)
                negate[lvl] = g_player(game, child) != players[lvl]
                move[lvl] = a
                _store(states, lvl + 1, child)
                if negate[lvl]:
                    lo[lvl + 1], hi[lvl + 1] = -hi[lvl], -lo[lvl]
                else:
                    lo[lvl + 1], hi[lvl + 1] = lo[lvl], hi[lvl]
                lvl += 1
                mode = _ENTER
                break
        elif mode == _FINISH:
            mode = _RETURN
            b = best[lvl]
            if counters[ABORTED]:
                ret_v, ret_e = b, False
                continue
            e = exact[lvl] or abs(b) > WIN / 2  # a proven result needs nothing else
            here = ply + lvl
            slot = slots[lvl]
            tt_keys[slot] = keys[lvl]
            if b > WIN / 2:
                tt_vals[slot] = b + here
            elif b < -WIN / 2:
                tt_vals[slot] = b - here
            else:
                tt_vals[slot] = b
            tt_info[slot, 0] = SOLVED if e else depth - lvl
            if b <= lo0[lvl]:
                tt_info[slot, 1] = UPPER
            else:
                tt_info[slot, 1] = LOWER if b >= hi[lvl] else EXACT
            tt_info[slot, 2] = best_move[lvl]
            ret_v, ret_e = b, e
        else:  # _RETURN
            if lvl == 0:
                return ret_v, ret_e
            lvl -= 1
            v = -ret_v if negate[lvl] else ret_v
            exact[lvl] = exact[lvl] and ret_e
            if v > best[lvl]:
                best[lvl], best_move[lvl] = v, move[lvl]
            lo[lvl] = max(lo[lvl], v)
            mode = _FINISH if lo[lvl] >= hi[lvl] or counters[ABORTED] else _ADVANCE
