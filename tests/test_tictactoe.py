"""Tic-tac-toe rules (playahead.games.tictactoe) against facts and a naive reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.games import tictactoe as ttt


# ----------------------------------------------------------------- naive reference
def naive_lines(n: int) -> list[list[tuple[int, int]]]:
    rows = [[(r, c) for c in range(n)] for r in range(n)]
    cols = [[(r, c) for r in range(n)] for c in range(n)]
    diagonals = [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    return rows + cols + diagonals


def naive_winner(board: np.ndarray) -> int:
    for line in naive_lines(board.shape[0]):
        marks = {int(board[cell]) for cell in line}
        if len(marks) == 1 and 0 not in marks:
            return marks.pop() - 1
    return -1


def naive_legal(board: np.ndarray) -> np.ndarray:
    if naive_winner(board) >= 0:
        return np.zeros(board.size, dtype=bool)
    return board.ravel() == 0


def play_choices(n: int, choices: list[int]) -> list[np.ndarray]:
    """Boards along a game whose i-th move is legal move number choices[i] % count."""
    board = ttt.initial_state(n)
    boards = [board]
    for choice in choices:
        legal = np.flatnonzero(naive_legal(board))
        if legal.size == 0:
            break
        board = ttt.apply(board, int(legal[choice % legal.size]))
        boards.append(board)
    return boards


# ----------------------------------------------------------------- facts
def test_3x3_has_5478_reachable_positions():
    seen = set()
    stack = [ttt.initial_state(3)]
    while stack:
        board = stack.pop()
        key = board.tobytes()
        if key in seen:
            continue
        seen.add(key)
        for action in np.flatnonzero(ttt.legal_mask(board)):
            stack.append(ttt.apply(board, int(action)))
    assert len(seen) == 5478


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("player", [0, 1])
def test_every_line_wins_for_either_player(n, player):
    lines = naive_lines(n)
    assert len(lines) == 2 * n + 2  # 8 lines on 3x3
    for line in lines:
        board = ttt.initial_state(n)
        for cell in line:
            board[cell] = player + 1
        assert ttt.winner(board) == player
        assert ttt.is_terminal(board)
        assert ttt.result(board) == (1 if player == 0 else -1)
        assert not ttt.legal_mask(board).any()
        board[line[0]] = 0  # one mark short of the line
        assert ttt.winner(board) == -1


def test_full_board_without_a_line_is_a_draw():
    board = np.array([[1, 2, 1], [1, 2, 2], [2, 1, 1]], dtype=np.int8)
    assert ttt.winner(board) == -1
    assert ttt.is_terminal(board)
    assert ttt.result(board) == 0
    assert not ttt.legal_mask(board).any()
    assert ttt.random_playout(board, np.random.default_rng(0)) == -1


def test_x_moves_first_and_players_alternate():
    board = ttt.initial_state(3)
    assert ttt.current_player(board) == 0
    after = ttt.apply(board, 4)
    assert after[1, 1] == ttt.X and ttt.current_player(after) == 1
    assert ttt.apply(after, 0)[0, 0] == ttt.O
    assert not board.any(), "apply must not modify its input"


def test_action_a_marks_row_a_div_n_col_a_mod_n():
    board = ttt.apply(ttt.initial_state(4), 7)
    assert board[1, 3] == ttt.X and np.count_nonzero(board) == 1


# ----------------------------------------------------------------- kernels vs naive
@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from([3, 4]), choices=st.lists(st.integers(0, 15), max_size=16))
def test_kernels_match_naive_reference(n, choices):
    for board in play_choices(n, choices):
        stones = np.count_nonzero(board)
        assert ttt.current_player(board) == stones % 2
        assert ttt.winner(board) == naive_winner(board)
        assert np.array_equal(ttt.legal_mask(board), naive_legal(board))
        over = naive_winner(board) >= 0 or stones == board.size
        assert ttt.is_terminal(board) == over
        player, winner, terminal, mask = ttt.status(board)
        assert (player, winner, terminal) == (stones % 2, naive_winner(board), over)
        assert np.array_equal(mask, naive_legal(board))
        for me in (0, 1):
            planes = ttt.observe(board, me)
            assert np.array_equal(planes[0], board == me + 1)
            assert np.array_equal(planes[1], board == 2 - me)


@settings(max_examples=30, deadline=None)
@given(choices=st.lists(st.integers(0, 8), max_size=9), seed=st.integers(0, 2**32))
def test_random_playout_ends_in_a_reachable_result(choices, seed):
    board = play_choices(3, choices)[-1]
    outcome = ttt.random_playout(board, np.random.default_rng(seed))
    assert outcome in (-1, 0, 1)
    if ttt.is_terminal(board):
        assert outcome == ttt.winner(board)
    again = ttt.random_playout(board, np.random.default_rng(seed))
    assert again == outcome, "the same generator state must give the same playout"


def test_random_playouts_from_empty_match_known_odds():
    # Uniformly random play on 3x3: X wins ~58.5%, O ~28.8%, draws ~12.7%.
    counts = ttt.random_playouts(ttt.initial_state(3), 20_000, np.random.default_rng(1))
    assert counts.sum() == 20_000
    draws, x_wins, o_wins = counts / counts.sum()
    assert abs(x_wins - 0.585) < 0.015
    assert abs(o_wins - 0.288) < 0.015
    assert abs(draws - 0.127) < 0.015
