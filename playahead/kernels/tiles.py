"""Compiled search kernels for 2048 and Threes (flat Monte Carlo, lookahead, MCTS).

Both games are searched through one interface: a position is ``(board: uint64, cards:
int64)`` (``cards`` is Threes' cards word, 0 in 2048) and :func:`turn` plays a move and
then draws its chance (new tile, card, next preview) from the planner's generator.
``game`` selects the rules (:data:`TWENTY48` or :data:`THREES`); ``moves``/``rewards``
are the game's row tables and ``preview`` Threes' bonus-preview model.

The MCTS tree lives in preallocated arrays so that a search can be continued in chunks
(time limits) and a subtree kept for the next move:

* ``boards: uint64[C]``, ``cards: int64[C]``: the position of each node.
* ``links: int64[C, 4]``: ``FIRST`` child, ``NEXT`` sibling, ``ACTION`` (-1 for a
  decision node, the move for a chance node), ``VISITS``.
* ``vals: float64[C, 2]``: ``SUM`` of returns seen below the node, ``REWARD`` of the
  edge into a decision node.
* ``count: int64[1]``: nodes in use. Node 0 is the root (a decision node).

A decision node's children are one chance node per legal move; a chance node's
children are the outcomes sampled so far, keyed by the resulting position.

Run with ``NUMBA_DISABLE_JIT=1`` to step through the same code as plain Python.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from playahead.games import threes, twenty48
from playahead.games._board64 import count_empty, max_rank, move_rows

TWENTY48, THREES = 0, 1
NO_CAP = 1 << 60  # "play to the end" for move caps
FIRST, NEXT, ACTION, VISITS = 0, 1, 2, 3
SUM, REWARD = 0, 1
NONE, UNEXPANDED, TERMINAL = -1, -2, -3


@nb.njit(cache=True)
def is_done(game, board):
    """Threes ends at once when a 12288 is made (no move is legal after it)."""
    return game == THREES and max_rank(board) == threes.RANK_12288


@nb.njit(cache=True)
def turn(game, board, cards, action, rng, moves, rewards, preview):
    """Move then chance: ``(board, cards, reward)``; reward -1 (nothing changes) if
    the move is illegal."""
    if game == TWENTY48:
        after, r = twenty48.move(board, action, moves, rewards)
        if r < 0:
            return board, cards, r
        return twenty48.spawn(after, rng), cards, r
    return threes.turn(board, cards, action, rng, moves, rewards, preview)


@nb.njit(cache=True)
def legal(game, board, moves, rewards):
    """bool[4] legal moves: 2048 ``[[2, 0, 0, 0], 0...] -> [F, T, T, F]``."""
    if game == TWENTY48:
        return twenty48.legal_mask(board, moves, rewards)
    return threes.legal_mask(board, moves, rewards)


@nb.njit(cache=True)
def greedy_move(board, rng, moves, rewards):
    """The legal move with the largest merge reward, ties uniform; -1 if none."""
    best = np.int64(-1)
    ties = 0
    choice = -1
    for a in range(4):
        _, moved, r = move_rows(board, a, moves, rewards)
        if moved == 0:
            continue
        if r > best:
            best, ties, choice = r, 1, a
        elif r == best:
            ties += 1
            if rng.random() * ties < 1.0:
                choice = a
    return choice


@nb.njit(cache=True)
def rollout(game, board, cards, rng, moves, rewards, preview, greedy, max_moves):
    """Score gained by random (or greedy) moves until the end or ``max_moves``."""
    if not greedy:
        if game == TWENTY48:
            _, gained, _ = twenty48.random_rollout(
                board, rng, max_moves, moves, rewards
            )
            return gained
        _, _, gained, _ = threes.random_rollout(
            board, cards, rng, max_moves, moves, rewards, preview
        )
        return gained
    gained = np.int64(0)
    played = 0
    while played < max_moves and not is_done(game, board):
        a = greedy_move(board, rng, moves, rewards)
        if a < 0:
            break
        board, cards, r = turn(game, board, cards, a, rng, moves, rewards, preview)
        gained += r
        played += 1
    return gained


# ----------------------------------------------------------------- flat Monte Carlo


@nb.njit(cache=True)
def mc_chunk(game, board, cards, counts, rng, moves, rewards, preview, sums):
    """Add ``counts[a]`` playouts after move ``a`` to ``sums[a]`` (score gained)."""
    for a in range(4):
        for _ in range(counts[a]):
            b, c, r = turn(game, board, cards, a, rng, moves, rewards, preview)
            sums[a] += r + rollout(
                game, b, c, rng, moves, rewards, preview, False, NO_CAP
            )


# ----------------------------------------------------------------- lookahead


@nb.njit(cache=True)
def leaf_score(board, score, empty_bonus):
    """The score, times 16 / non-empty cells with ``empty_bonus``."""
    if empty_bonus:
        return score * 16.0 / max(16 - count_empty(board), 1)
    return float(score)


@nb.njit(cache=True)
def best_at_depth(
    game, board, cards, score, depth, rng, moves, rewards, preview, bonus, first
):
    """Best leaf score over every move sequence of ``depth`` moves starting with move
    ``first`` (-1: any), chance sampled once per branch; a game that ends earlier
    scores where it ended; -1 if ``first`` is illegal.

    Depth-first with an explicit stack (numba's cache cannot hold recursive kernels,
    numba issue #6061); the chance draws come in the order of the recursive search.
    """
    boards = np.empty(depth + 1, dtype=np.uint64)
    words = np.empty(depth + 1, dtype=np.int64)
    scores = np.empty(depth + 1, dtype=np.float64)
    nxt = np.zeros(depth + 1, dtype=np.int64)
    best = np.full(depth + 1, -1.0)
    boards[0], words[0], scores[0] = board, cards, score
    nxt[0] = max(first, 0)
    lvl = 0
    while True:
        a = nxt[lvl]
        if (
            lvl < depth
            and a < 4
            and (lvl > 0 or first < 0 or a == first)
            and not is_done(game, boards[lvl])
        ):
            nxt[lvl] = a + 1
            b, c, r = turn(
                game, boards[lvl], words[lvl], a, rng, moves, rewards, preview
            )
            if r >= 0:
                lvl += 1
                boards[lvl], words[lvl], scores[lvl] = b, c, scores[lvl - 1] + r
                nxt[lvl] = 0
                best[lvl] = -1.0
            continue
        if best[lvl] >= 0.0:
            v = best[lvl]
        elif lvl == 0 and first >= 0:
            v = -1.0
        else:  # the horizon, or no legal move: the game ended here
            v = leaf_score(boards[lvl], scores[lvl], bonus)
        if lvl == 0:
            return v
        lvl -= 1
        best[lvl] = max(best[lvl], v)


# ----------------------------------------------------------------- MCTS


def new_tree(capacity: int):
    """Empty arrays ``(boards, cards, links, vals, count)`` for ``capacity`` nodes."""
    return (
        np.zeros(capacity, dtype=np.uint64),
        np.zeros(capacity, dtype=np.int64),
        np.zeros((capacity, 4), dtype=np.int64),
        np.zeros((capacity, 2), dtype=np.float64),
        np.zeros(1, dtype=np.int64),
    )


@nb.njit(cache=True)
def add_node(boards, cards, links, vals, count, board, card_word, action, reward):
    """Append a node; returns its index."""
    i = count[0]
    count[0] = i + 1
    boards[i] = board
    cards[i] = card_word
    links[i, FIRST] = UNEXPANDED
    links[i, NEXT] = NONE
    links[i, ACTION] = action
    links[i, VISITS] = 0
    vals[i, SUM] = 0.0
    vals[i, REWARD] = reward
    return i


@nb.njit(cache=True)
def select(node, c, rng, links, vals):
    """UCT over a decision node's chance children; Q is min-max normalised among
    siblings. An unvisited child is tried first (uniformly among them)."""
    pick = NONE
    unvisited = 0
    qmin, qmax = np.inf, -np.inf
    child = links[node, FIRST]
    while child != NONE:
        n = links[child, VISITS]
        if n == 0:
            unvisited += 1
            if rng.random() * unvisited < 1.0:
                pick = child
        else:
            q = vals[child, SUM] / n
            qmin = min(qmin, q)
            qmax = max(qmax, q)
        child = links[child, NEXT]
    if pick != NONE:
        return pick
    span = qmax - qmin
    log_n = math.log(links[node, VISITS])
    best = -np.inf
    child = links[node, FIRST]
    while child != NONE:
        n = links[child, VISITS]
        q = (vals[child, SUM] / n - qmin) / span if span > 0 else 0.5
        score = q + c * math.sqrt(log_n / n)
        if score > best:
            best, pick = score, child
        child = links[child, NEXT]
    return pick


@nb.njit(cache=True)
def mcts_chunk(
    game,
    n_sims,
    c,
    rng,
    moves,
    rewards,
    preview,
    greedy,
    rollout_depth,
    boards,
    cards,
    links,
    vals,
    count,
):
    """Run ``n_sims`` simulations from node 0 (the caller leaves room for
    ``5 * n_sims`` new nodes)."""
    path = np.empty(links.shape[0], dtype=np.int64)
    for _ in range(n_sims):
        node = 0
        path[0] = 0
        plen = 1
        leaf = 0.0
        while True:
            if links[node, FIRST] == UNEXPANDED:
                mask = legal(game, boards[node], moves, rewards)
                first = NONE
                for a in range(3, -1, -1):
                    if mask[a]:
                        ch = add_node(
                            boards,
                            cards,
                            links,
                            vals,
                            count,
                            boards[node],
                            cards[node],
                            a,
                            0.0,
                        )
                        links[ch, NEXT] = first
                        first = ch
                links[node, FIRST] = first if first != NONE else TERMINAL
            if links[node, FIRST] == TERMINAL:
                break
            chance = select(node, c, rng, links, vals)
            path[plen] = chance
            plen += 1
            b, w, r = turn(
                game,
                boards[node],
                cards[node],
                links[chance, ACTION],
                rng,
                moves,
                rewards,
                preview,
            )
            outcome = links[chance, FIRST]
            while outcome >= 0 and (boards[outcome] != b or cards[outcome] != w):
                outcome = links[outcome, NEXT]
            if outcome < 0:
                outcome = add_node(boards, cards, links, vals, count, b, w, -1, r)
                links[outcome, NEXT] = max(links[chance, FIRST], NONE)
                links[chance, FIRST] = outcome
                path[plen] = outcome
                plen += 1
                leaf = float(
                    rollout(
                        game, b, w, rng, moves, rewards, preview, greedy, rollout_depth
                    )
                )
                break
            path[plen] = outcome
            plen += 1
            node = outcome
        g = leaf
        for i in range(plen - 1, -1, -1):
            n = path[i]
            links[n, VISITS] += 1
            vals[n, SUM] += g
            if links[n, ACTION] < 0:
                g += vals[n, REWARD]


@nb.njit(cache=True)
def find_outcome(boards, cards, links, board, card_word):
    """A grandchild of the root (a chance outcome) at this position, or -1."""
    chance = links[0, FIRST]
    while chance >= 0:
        o = links[chance, FIRST]
        while o >= 0:
            if boards[o] == board and cards[o] == card_word:
                return o
            o = links[o, NEXT]
        chance = links[chance, NEXT]
    return NONE


@nb.njit(cache=True)
def copy_subtree(node, boards, cards, links, vals, out_b, out_c, out_l, out_v):
    """Copy the subtree under ``node`` into the ``out_*`` arrays with ``node`` as the
    root; returns the number of nodes copied."""
    index = np.full(links.shape[0], NONE, dtype=np.int64)
    stack = np.empty(links.shape[0], dtype=np.int64)
    order = np.empty(links.shape[0], dtype=np.int64)
    stack[0] = node
    top, n = 1, 0
    while top > 0:
        top -= 1
        src = stack[top]
        index[src] = n
        order[n] = src
        n += 1
        ch = links[src, FIRST]
        while ch >= 0:
            stack[top] = ch
            top += 1
            ch = links[ch, NEXT]
    for j in range(n):
        src = order[j]
        out_b[j] = boards[src]
        out_c[j] = cards[src]
        out_v[j] = vals[src]
        out_l[j] = links[src]
        if links[src, FIRST] >= 0:
            out_l[j, FIRST] = index[links[src, FIRST]]
        out_l[j, NEXT] = index[links[src, NEXT]] if links[src, NEXT] >= 0 else NONE
    out_l[0, NEXT] = NONE
    out_v[0, REWARD] = 0.0
    return n


def tile_position(kind: str, env) -> tuple:
    """``(game, board, cards, moves, rewards, preview)`` kernel arguments for the
    position of a 2048 or Threes env (read through ``clone_state``)."""
    state = env.clone_state()
    if kind == "2048":
        moves, rewards = twenty48.TABLES
        return TWENTY48, np.uint64(state.board), np.int64(0), moves, rewards, 0
    moves, rewards, _ = threes.tables(state.merge_6144)
    preview = threes.BONUS_PREVIEWS[state.bonus_preview]
    return (
        THREES,
        np.uint64(state.board),
        np.int64(state.cards),
        moves,
        rewards,
        preview,
    )
