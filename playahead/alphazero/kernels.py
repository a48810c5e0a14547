"""PUCT search over many trees at once, compiled with numba, for AlphaZero.

Each of ``B`` slots holds one search tree in flat arrays (a :class:`Trees` record);
one *round* descends every active tree from its root to a leaf
(:func:`select_leaves`), the caller evaluates all the new leaves with the net in one
batch, and :func:`expand_backup` writes the priors and backs the values up. So a
net call is shared by ``B`` games, and a round costs two kernel calls from Python.

Games are identified by a code (:data:`CONNECT_FOUR`, :data:`TIC_TAC_TOE`) and their
states are two ``int64`` bitboards: Connect Four's own (``games.connect_four``);
tic-tac-toe's are the X and O cells, bit ``3 * row + col``, converted to the board
of ``games.tictactoe`` whose rules decide. The rules live in those modules only.

Values are from the view of the player to move at a node: ``+1`` a win, ``-1`` a
loss. An edge's ``value_sum`` is from the view of the player who chooses it.
Unvisited edges take the parent's net value as their Q (first-play urgency).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from playahead.games import connect_four as c4
from playahead.games import tictactoe as ttt

CONNECT_FOUR, TIC_TAC_TOE = 0, 1
#: The most simulations a decision may take (a tree of that many nodes, per slot).
MAX_SIMULATIONS = 100_000
#: actions, observation planes' shape (rows, cols) per game code
N_ACTIONS = (7, 9)
SHAPES = ((6, 7), (3, 3))


class Trees(NamedTuple):
    """The search trees of ``B`` slots, ``M`` nodes each, ``A`` actions.

    Attributes:
        state: ``int64[B, M, 2]`` the node's position (two bitboards).
        child: ``int32[B, M, A]`` child node index, -1 while the edge is untried.
        legal: ``bool[B, M, A]`` legal actions (set when the node is expanded).
        prior: ``float32[B, M, A]`` the net's policy over legal actions.
        visits: ``int32[B, M, A]`` edge visit counts.
        value_sum: ``float32[B, M, A]`` sum of backed-up values, chooser's view.
        node_value: ``float32[B, M]`` the net's value (or the result) at the node.
        expanded: ``bool[B, M]`` the node has priors.
        terminal: ``bool[B, M]`` the game is over at the node.
        n_nodes: ``int32[B]`` nodes in use.
        path: ``int32[B, D]`` nodes of the last descent, root first.
        path_action: ``int32[B, D]`` the action taken from ``path[b, d]``.
        path_len: ``int32[B]`` nodes on the last path.
    """

    state: np.ndarray
    child: np.ndarray
    legal: np.ndarray
    prior: np.ndarray
    visits: np.ndarray
    value_sum: np.ndarray
    node_value: np.ndarray
    expanded: np.ndarray
    terminal: np.ndarray
    n_nodes: np.ndarray
    path: np.ndarray
    path_action: np.ndarray
    path_len: np.ndarray


def new_trees(game: int, n_slots: int, n_simulations: int) -> Trees:
    """Empty trees for ``n_slots`` searches of ``n_simulations`` each (+ the root)."""
    a = N_ACTIONS[game]
    m = n_simulations + 2
    rows, cols = SHAPES[game]
    depth = rows * cols + 2
    return Trees(
        state=np.zeros((n_slots, m, 2), np.int64),
        child=np.full((n_slots, m, a), -1, np.int32),
        legal=np.zeros((n_slots, m, a), np.bool_),
        prior=np.zeros((n_slots, m, a), np.float32),
        visits=np.zeros((n_slots, m, a), np.int32),
        value_sum=np.zeros((n_slots, m, a), np.float32),
        node_value=np.zeros((n_slots, m), np.float32),
        expanded=np.zeros((n_slots, m), np.bool_),
        terminal=np.zeros((n_slots, m), np.bool_),
        n_nodes=np.zeros(n_slots, np.int32),
        path=np.zeros((n_slots, depth), np.int32),
        path_action=np.zeros((n_slots, depth), np.int32),
        path_len=np.zeros(n_slots, np.int32),
    )


# ---- the games, on two int64 bitboards -------------------------------------------


@numba.njit(cache=True)
def ttt_board(s0, s1) -> np.ndarray:
    """Tic-tac-toe bitboards to a board: ``(1, 2) -> [[1, 2, 0], ...]``."""
    board = np.zeros((3, 3), np.int8)
    for i in range(9):
        if (s0 >> i) & 1:
            board[i // 3, i % 3] = 1
        elif (s1 >> i) & 1:
            board[i // 3, i % 3] = 2
    return board


@numba.njit(cache=True)
def game_apply(game, s0, s1, action):
    """The position after ``action``: C4 ``(0, 0), 3 -> (1 << 21, 0)``."""
    if game == CONNECT_FOUR:
        nxt = c4.apply((s0, s1), action)
        return nxt[0], nxt[1]
    bit = np.int64(1) << action
    if c4._popcount(s0 | s1) & 1:  # a count of bits, whatever the board
        return s0, s1 | bit
    return s0 | bit, s1


@numba.njit(cache=True)
def game_status(game, s0, s1, legal_out):
    """Fill ``legal_out``; return ``(terminal, value for the player to move)``."""
    if game == CONNECT_FOUR:
        _, w, done, mask = c4.status((s0, s1))
    else:
        _, w, done, mask = ttt.status(ttt_board(s0, s1))
    for a in range(legal_out.shape[0]):
        legal_out[a] = mask[a]
    # the player who just moved is the only one who can have won
    return done, (-1.0 if w >= 0 else 0.0)


@numba.njit(cache=True)
def game_observe(game, s0, s1, out):
    """Own and other's planes (player to move first) into ``out: float32[2, r, c]``."""
    if game == CONNECT_FOUR:
        planes = c4.observe((s0, s1), c4.current_player((s0, s1)))
    else:
        board = ttt_board(s0, s1)
        planes = ttt.observe(board, ttt.current_player(board))
    for k in range(2):
        for r in range(planes.shape[1]):
            for c in range(planes.shape[2]):
                out[k, r, c] = planes[k, r, c]


# ---- the search ---------------------------------------------------------------------


@numba.njit(cache=True)
def reset_roots(game, trees, slots, roots):
    """Start a new search in each of ``slots`` from ``roots[i]`` (``int64[2]``)."""
    for i in range(slots.shape[0]):
        b = slots[i]
        trees.child[b, 0] = -1
        trees.visits[b, 0] = 0
        trees.value_sum[b, 0] = 0.0
        trees.expanded[b, 0] = False
        trees.state[b, 0, 0] = roots[i, 0]
        trees.state[b, 0, 1] = roots[i, 1]
        done, value = game_status(game, roots[i, 0], roots[i, 1], trees.legal[b, 0])
        trees.terminal[b, 0] = done
        trees.node_value[b, 0] = value
        trees.n_nodes[b] = 1


@numba.njit(cache=True)
def puct_action(trees, b, node, c_puct) -> int:
    """The edge of ``node`` with the highest ``Q + c * P * sqrt(N) / (1 + n)``;
    the lowest action among equals."""
    total = 0
    for a in range(trees.visits.shape[2]):
        total += trees.visits[b, node, a]
    scale = c_puct * math.sqrt(max(total, 1))
    fpu = float(trees.node_value[b, node])
    best, best_a = -np.inf, -1
    for a in range(trees.visits.shape[2]):
        if not trees.legal[b, node, a]:
            continue
        n = trees.visits[b, node, a]
        q = float(trees.value_sum[b, node, a]) / n if n > 0 else fpu
        u = q + scale * float(trees.prior[b, node, a]) / (1 + n)
        if u > best:
            best, best_a = u, a
    return best_a


@numba.njit(cache=True)
def select_leaves(game, trees, active, c_puct, obs_out, need_eval, leaf_value):
    """Descend each active tree to a new leaf.

    A leaf that needs the net gets ``need_eval[b] = True`` and its observation in
    ``obs_out[b]``; a game-over leaf gets its result in ``leaf_value[b]``.
    """
    for b in range(active.shape[0]):
        need_eval[b] = False
        if not active[b]:
            continue
        node = 0
        depth = 0
        trees.path[b, 0] = 0
        while trees.expanded[b, node] and not trees.terminal[b, node]:
            a = puct_action(trees, b, node, c_puct)
            trees.path_action[b, depth] = a
            nxt = trees.child[b, node, a]
            if nxt < 0:
                nxt = trees.n_nodes[b]
                trees.n_nodes[b] += 1
                s0, s1 = game_apply(
                    game, trees.state[b, node, 0], trees.state[b, node, 1], a
                )
                trees.state[b, nxt, 0] = s0
                trees.state[b, nxt, 1] = s1
                done, value = game_status(game, s0, s1, trees.legal[b, nxt])
                trees.terminal[b, nxt] = done
                trees.node_value[b, nxt] = value
                trees.expanded[b, nxt] = False
                trees.child[b, nxt] = -1
                trees.visits[b, nxt] = 0
                trees.value_sum[b, nxt] = 0.0
                trees.child[b, node, a] = nxt
            depth += 1
            trees.path[b, depth] = nxt
            node = nxt
        trees.path_len[b] = depth + 1
        if trees.terminal[b, node]:
            leaf_value[b] = trees.node_value[b, node]
        else:
            need_eval[b] = True
            game_observe(
                game, trees.state[b, node, 0], trees.state[b, node, 1], obs_out[b]
            )


@numba.njit(cache=True)
def expand_backup(trees, active, need_eval, logits, values, leaf_value):
    """Give each evaluated leaf its priors (softmax of ``logits`` over legal moves)
    and value, then add the leaf's value to every edge on its path."""
    n_actions = trees.prior.shape[2]
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        depth = trees.path_len[b] - 1
        node = trees.path[b, depth]
        if need_eval[b]:
            # float64 throughout, one rounding to float32: the same bits compiled
            # or as plain Python (numpy would divide float32 by a float in float32)
            top = -np.inf
            for a in range(n_actions):
                if trees.legal[b, node, a] and float(logits[b, a]) > top:
                    top = float(logits[b, a])
            total = 0.0
            for a in range(n_actions):
                if trees.legal[b, node, a]:
                    total += math.exp(float(logits[b, a]) - top)
            for a in range(n_actions):
                p = 0.0
                if trees.legal[b, node, a]:
                    p = math.exp(float(logits[b, a]) - top) / total
                trees.prior[b, node, a] = p
            trees.expanded[b, node] = True
            trees.node_value[b, node] = values[b]
            leaf_value[b] = values[b]
        v = leaf_value[b]
        for d in range(depth - 1, -1, -1):
            v = -v
            parent = trees.path[b, d]
            a = trees.path_action[b, d]
            trees.visits[b, parent, a] += 1
            trees.value_sum[b, parent, a] += v


@numba.njit(cache=True)
def add_root_noise(trees, b, noise, fraction):
    """Mix ``noise`` (one entry per legal root action, in action order) into the
    root's priors: ``(1 - fraction) * P + fraction * noise``."""
    k = 0
    for a in range(trees.prior.shape[2]):
        if trees.legal[b, 0, a]:
            mixed = (1.0 - fraction) * float(trees.prior[b, 0, a])
            trees.prior[b, 0, a] = mixed + fraction * float(noise[k])
            k += 1
