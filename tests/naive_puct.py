"""A slow, plain-Python PUCT search: the reference for playahead.alphazero.kernels.

One tree of dict nodes, the same formula and the same float32 storage as the kernels,
so the two must give the same visit counts on the same evaluator.
"""

from __future__ import annotations

import math

import numpy as np

from playahead.alphazero import kernels as k


class Node:
    def __init__(self, game, s0, s1):
        self.state = (s0, s1)
        n_actions = k.N_ACTIONS[game]
        self.legal = np.zeros(n_actions, np.bool_)
        done, value = k.game_status(game, s0, s1, self.legal)
        self.terminal = bool(done)
        self.value = np.float32(value)
        self.expanded = False
        self.prior = np.zeros(n_actions, np.float32)
        self.visits = np.zeros(n_actions, np.int64)
        self.value_sum = np.zeros(n_actions, np.float32)
        self.children: dict[int, Node] = {}


def observe(game, node) -> np.ndarray:
    rows, cols = k.SHAPES[game]
    out = np.zeros((2, rows, cols), np.float32)
    k.game_observe(game, node.state[0], node.state[1], out)
    return out


def expand(node, logits, value) -> None:
    top = max(float(logits[a]) for a in np.flatnonzero(node.legal))
    total = sum(math.exp(float(logits[a]) - top) for a in np.flatnonzero(node.legal))
    for a in range(len(node.prior)):
        p = math.exp(float(logits[a]) - top) / total if node.legal[a] else 0.0
        node.prior[a] = np.float32(p)
    node.expanded = True
    node.value = np.float32(value)


def choose(node, c_puct) -> int:
    scale = c_puct * math.sqrt(max(int(node.visits.sum()), 1))
    best, best_a = -math.inf, -1
    for a in np.flatnonzero(node.legal):
        n = int(node.visits[a])
        q = float(node.value_sum[a]) / n if n > 0 else float(node.value)
        u = q + scale * float(node.prior[a]) / (1 + n)
        if u > best:
            best, best_a = u, int(a)
    return best_a


def search(game, s0, s1, evaluate, n_simulations, c_puct) -> Node:
    """``evaluate(obs: float32[1, 2, r, c]) -> (logits[1, A], values[1])``."""
    root = Node(game, s0, s1)
    for _ in range(n_simulations + 1):
        node, path = root, []
        while node.expanded and not node.terminal:
            a = choose(node, c_puct)
            if a not in node.children:
                node.children[a] = Node(game, *k.game_apply(game, *node.state, a))
            path.append((node, a))
            node = node.children[a]
        if node.terminal:
            v = np.float32(node.value)
        else:
            logits, values = evaluate(observe(game, node)[None])
            expand(node, logits[0], values[0])
            v = np.float32(values[0])
        for parent, a in reversed(path):
            v = np.float32(-v)
            parent.visits[a] += 1
            parent.value_sum[a] = np.float32(parent.value_sum[a] + v)
    return root
