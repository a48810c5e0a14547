"""The compiled search kernels against slow, obviously correct plain-Python
references (run them with ``NUMBA_DISABLE_JIT=1`` too: ``make test-nojit``)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.games import connect_four, nim, tictactoe, twenty48
from playahead.games._board64 import count_empty
from playahead.kernels import duels, tiles

#: every test here checks a kernel (``make test-nojit`` runs them as plain Python)
pytestmark = pytest.mark.kernel

# ----------------------------------------------------------------- 2048 and Threes


def _position(game: str, seed: int, moves: int):
    """Kernel arguments ``(game, board, cards, moves, rewards, preview)`` and the env
    after ``moves`` random legal moves."""
    env = gym.make("2048-v0" if game == "2048" else "Threes-v0")
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if not info["action_mask"].any():
            break
        _, _, _, _, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
    kind = "2048" if game == "2048" else "threes"
    return tiles.tile_position(kind, env.unwrapped), env


def _turn(*args):
    """``tiles.turn`` called from Python, with the board kept a uint64 (numba hands
    back a Python int, and int64 boards make the kernels compute in float64)."""
    board, cards, reward = tiles.turn(*args)
    return np.uint64(board), np.int64(cards), reward


def _reference_best(args, board, cards, score, depth, rng, bonus) -> float:
    """The lookahead's definition, recursively in plain Python (chance through the
    same compiled ``turn``, so the same generator gives the same draws)."""
    game, _, _, moves, rewards, preview = args
    if depth > 0 and not tiles.is_done(game, board):
        values = []
        for a in range(4):
            b, c, r = _turn(game, board, cards, a, rng, moves, rewards, preview)
            if r >= 0:
                values.append(
                    _reference_best(args, b, c, score + r, depth - 1, rng, bonus)
                )
        if values:
            return max(values)
    if bonus:
        return score * 16.0 / max(16 - count_empty(board), 1)
    return float(score)


@settings(max_examples=30)
@given(
    game=st.sampled_from(["2048", "Threes"]),
    seed=st.integers(0, 1000),
    moves=st.integers(0, 120),
    depth=st.integers(1, 3),
    bonus=st.booleans(),
)
def test_lookahead_kernel_matches_the_recursive_definition(
    game, seed, moves, depth, bonus
):
    args, env = _position(game, seed, moves)
    g, board, cards, tables_m, tables_r, preview = args
    mask = env.unwrapped.action_masks()
    for first in np.flatnonzero(mask):
        fast = tiles.best_at_depth(
            g,
            board,
            cards,
            7.0,
            depth,
            np.random.default_rng(seed),
            tables_m,
            tables_r,
            preview,
            bonus,
            first,
        )
        rng = np.random.default_rng(seed)
        b, c, r = _turn(g, board, cards, first, rng, tables_m, tables_r, preview)
        slow = _reference_best(args, b, c, 7.0 + r, depth - 1, rng, bonus)
        assert fast == slow


@settings(max_examples=20)
@given(game=st.sampled_from(["2048", "Threes"]), seed=st.integers(0, 1000))
def test_flat_monte_carlo_kernel_matches_a_python_loop(game, seed):
    args, env = _position(game, seed, 20)
    g, board, cards, moves, rewards, preview = args
    counts = np.array([3, 0, 2, 1]) * env.unwrapped.action_masks()
    sums = np.zeros(4)
    tiles.mc_chunk(
        g,
        board,
        cards,
        counts,
        np.random.default_rng(seed),
        moves,
        rewards,
        preview,
        sums,
    )
    rng = np.random.default_rng(seed)
    expected = np.zeros(4)
    for a in range(4):
        for _ in range(counts[a]):
            b, c, r = _turn(g, board, cards, a, rng, moves, rewards, preview)
            expected[a] += r + tiles.rollout(
                g, b, c, rng, moves, rewards, preview, False, tiles.NO_CAP
            )
    np.testing.assert_array_equal(sums, expected)


@settings(max_examples=30)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 200))
def test_greedy_rollout_move_has_the_largest_merge(seed, moves):
    (_, board, _, tm, tr, _), env = _position("2048", seed, moves)
    mask = env.unwrapped.action_masks()
    if not mask.any():
        return
    choice = tiles.greedy_move(board, np.random.default_rng(seed), tm, tr)
    rewards = [twenty48.move(board, a, tm, tr)[1] for a in range(4)]
    assert mask[choice]
    assert rewards[choice] == max(r for r, ok in zip(rewards, mask, strict=True) if ok)


def test_empty_bonus_weights_scores_by_open_cells():
    board = twenty48.from_faces([[2, 4, 0, 0]] + [[0, 0, 0, 0]] * 3)
    assert tiles.leaf_score(board, 100, True) == 100 * 16 / 2
    assert tiles.leaf_score(board, 100, False) == 100.0


# ----------------------------------------------------------------- two-player games


def _random_position(game: int, seed: int, plies: int):
    """A position ``plies`` random moves into a game (fewer if it ends)."""
    rng = np.random.default_rng(seed)
    if game == duels.TICTACTOE:
        s = duels.ttt_pack(tictactoe.initial_state(3))
    elif game == duels.CONNECT_FOUR:
        s = duels._from_c4(connect_four.initial_state())
    else:
        s = tuple(np.int64(x) for x in nim.nim_state(17, 3))
    for _ in range(plies):
        mask = duels.g_legal(game, s)
        if duels.g_terminal(game, s):
            break
        s = duels.g_apply(game, s, int(rng.choice(np.flatnonzero(mask))))
    return s


def _reference_negamax(game, s, depth, ply=0) -> float:
    """Plain minimax without pruning or table, scored like the kernel."""
    p = duels.g_player(game, s)
    if duels.g_terminal(game, s):
        w = duels.g_winner(game, s)
        return 0.0 if w < 0 else (1 if w == p else -1) * (duels.WIN - ply)
    if depth == 0:
        v = duels.g_eval(game, s) * duels.HEURISTIC
        return v if p == 0 else -v
    best = -math.inf
    mask = duels.g_legal(game, s)
    for a in np.flatnonzero(mask):
        child = duels.g_apply(game, s, int(a))
        v = _reference_negamax(game, child, depth - 1, ply + 1)
        best = max(best, v if duels.g_player(game, child) == p else -v)
    return best


@settings(max_examples=25)
@given(
    game=st.sampled_from([duels.TICTACTOE, duels.CONNECT_FOUR, duels.NIM]),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 30),
    depth=st.integers(1, 4),
)
def test_alpha_beta_kernel_matches_plain_minimax(game, seed, plies, depth):
    s = _random_position(game, seed, plies)
    size = 1 << 12
    order = np.arange(duels.g_legal(game, s).size, dtype=np.int64)[::-1].copy()
    tt = (np.full(size, -1, np.int64), np.zeros(size), np.zeros((size, 3), np.int64))
    counters = np.array([0, 0, 1 << 62])
    for d in range(1, depth + 1):  # iterative deepening shares the table
        value, _ = duels.negamax(
            game, s, d, -math.inf, math.inf, 0, order, *tt, counters
        )
        assert value == _reference_negamax(game, s, d)


def _reference_sampled(game, s, depth, n, rng) -> float:
    """The lookahead's definition, recursively (playouts through the same kernel, so
    the same generator gives the same playouts)."""
    p = duels.g_player(game, s)
    if duels.g_terminal(game, s):
        w = duels.g_winner(game, s)
        return 0.0 if w < 0 else (1.0 if w == p else -1.0)
    if depth == 0:
        total = sum(duels.outcome(duels.g_playout(game, s, rng)) for _ in range(n))
        return total / n if p == 0 else -total / n
    best = -math.inf
    for a in np.flatnonzero(duels.g_legal(game, s)):
        child = duels.g_apply(game, s, int(a))
        v = _reference_sampled(game, child, depth - 1, n, rng)
        best = max(best, v if duels.g_player(game, child) == p else -v)
    return duels.DISCOUNT * best


@settings(max_examples=20)
@given(
    game=st.sampled_from([duels.TICTACTOE, duels.CONNECT_FOUR, duels.NIM]),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 20),
    depth=st.integers(0, 2),
)
def test_sampled_negamax_kernel_matches_the_recursive_definition(
    game, seed, plies, depth
):
    s = _random_position(game, seed, plies)
    fast = duels.sampled_negamax(game, s, depth, 3, np.random.default_rng(seed))
    slow = _reference_sampled(game, s, depth, 3, np.random.default_rng(seed))
    assert fast == slow


def test_connect_four_eval_counts_open_lines():
    empty = connect_four.initial_state()
    assert duels.c4_eval(*empty) == 0.0
    centre = connect_four.apply(empty, 3)
    assert duels.c4_eval(*centre) > 0.0  # a centre disc opens more lines than an edge
    edge = connect_four.apply(empty, 0)
    assert duels.c4_eval(*centre) > duels.c4_eval(*edge) > 0.0


def test_packed_tictactoe_positions_round_trip():
    rng = np.random.default_rng(3)
    for size in (3, 5, 8):
        board = rng.integers(0, 3, (size, size)).astype(np.int8)
        packed = duels.ttt_pack(board)
        np.testing.assert_array_equal(duels.ttt_unpack(packed), board)
        assert duels.g_player(duels.TICTACTOE, packed) == tictactoe.current_player(
            board
        )


@settings(max_examples=15)
@given(
    game=st.sampled_from(["2048", "Threes"]),
    seed=st.integers(0, 1000),
    moves=st.integers(0, 80),
)
def test_tile_mcts_tree_counts_add_up(game, seed, moves):
    """Every simulation through a chance node lands in one of its outcomes, and a
    decision node is reached once as a new leaf, then once per simulation below it."""
    (g, board, cards, tm, tr, preview), env = _position(game, seed, moves)
    if not env.unwrapped.action_masks().any():
        return
    tree = tiles.new_tree(1 + 5 * 60)
    tiles.add_node(*tree, board, cards, -1, 0.0)
    rng = np.random.default_rng(seed)
    tiles.mcts_chunk(g, 60, 1.4, rng, tm, tr, preview, False, 50, *tree)
    _, _, links, _, count = tree
    for node in range(int(count[0])):
        kids, child = 0, links[node, tiles.FIRST]
        while child >= 0:
            kids += links[child, tiles.VISITS]
            child = links[child, tiles.NEXT]
        if links[node, tiles.ACTION] >= 0:  # a chance node
            assert kids == links[node, tiles.VISITS]
        elif links[node, tiles.FIRST] >= 0:
            assert kids == links[node, tiles.VISITS] - (node != 0)
    assert links[0, tiles.VISITS] == 60


@settings(max_examples=15)
@given(
    game=st.sampled_from([duels.TICTACTOE, duels.CONNECT_FOUR, duels.NIM]),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 12),
)
def test_duel_mcts_tree_counts_add_up(game, seed, plies):
    s = _random_position(game, seed, plies)
    if duels.g_terminal(game, s):
        return
    n_actions = duels.g_legal(game, s).size
    links, vals, states, count = duels.new_tree(1 + n_actions * 61, s)
    duels.mcts_chunk(
        game,
        60,
        1.4,
        np.random.default_rng(seed),
        False,
        -1,
        links,
        vals,
        states,
        count,
    )
    for node in range(int(count[0])):
        first, k = links[node, duels.FIRST], links[node, duels.NCHILD]
        n = links[node, duels.VISITS]
        assert abs(vals[node]) <= n
        if first >= 0:
            assert links[first : first + k, duels.VISITS].sum() == n - (node != 0)
    assert links[0, duels.VISITS] == 60
