"""Connect Four rules (playahead.games.connect_four) against facts and a naive board."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.games import connect_four as c4

ROWS, COLS = 6, 7
# A full board without four in a row, filled by this alternating move order.
DRAW_MOVES = [0] * 6 + [1] * 6 + [2] * 6 + [4] + [3] * 6 + [4] * 5 + [5] * 6 + [6] * 6
DRAW_BOARD = np.array([[2, 2, 2, 1, 2, 2, 2], [1, 1, 1, 2, 1, 1, 1]] * 3, dtype=np.int8)


# ----------------------------------------------------------------- naive reference
def naive_lines() -> list[list[tuple[int, int]]]:
    """Every window of four cells in a row, column or diagonal (row 0 on top)."""
    lines = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(4)]
                if all(0 <= y < ROWS and 0 <= x < COLS for y, x in cells):
                    lines.append(cells)
    return lines


def naive_winner(board: np.ndarray) -> int:
    for line in naive_lines():
        marks = {int(board[cell]) for cell in line}
        if len(marks) == 1 and 0 not in marks:
            return marks.pop() - 1
    return -1


def naive_drop(board: np.ndarray, col: int) -> np.ndarray:
    board = board.copy()
    row = max(r for r in range(ROWS) if board[r, col] == 0)
    board[row, col] = 1 if np.count_nonzero(board) % 2 == 0 else 2
    return board


def naive_legal(board: np.ndarray) -> np.ndarray:
    if naive_winner(board) >= 0:
        return np.zeros(COLS, dtype=bool)
    return board[0] == 0


# ----------------------------------------------------------------- facts
def test_there_are_69_lines():
    assert len(naive_lines()) == 69


@pytest.mark.parametrize("player", [0, 1])
def test_each_of_the_69_lines_wins_for_either_player(player):
    for line in naive_lines():
        board = np.zeros((ROWS, COLS), dtype=np.int8)
        for cell in line:
            board[cell] = player + 1
        state = c4.from_board(board)
        assert c4.winner(state) == player, line
        assert c4.is_terminal(state) and c4.result(state) == 1 - 2 * player
        assert not c4.legal_mask(state).any()
        board[line[1]] = 0  # three of the four
        assert c4.winner(c4.from_board(board)) == -1, line


def test_a_full_board_without_four_is_a_draw():
    state = c4.initial_state()
    for i, col in enumerate(DRAW_MOVES):
        assert c4.legal_mask(state)[col], f"move {i} (column {col}) should be legal"
        state = c4.apply(state, col)
        assert c4.winner(state) == -1
    assert np.array_equal(c4.to_board(state), DRAW_BOARD)
    assert c4.is_terminal(state) and c4.result(state) == 0
    assert not c4.legal_mask(state).any()
    assert c4.random_playout(state, np.random.default_rng(0)) == -1


def test_discs_fall_and_a_full_column_is_illegal():
    state = c4.initial_state()
    for _ in range(6):
        assert c4.legal_mask(state)[2]
        state = c4.apply(state, 2)
    board = c4.to_board(state)
    assert np.array_equal(board[:, 2], [2, 1, 2, 1, 2, 1])  # red at the bottom
    assert not c4.legal_mask(state)[2] and c4.legal_mask(state).sum() == 6


def test_red_moves_first_and_players_alternate():
    state = c4.initial_state()
    assert c4.current_player(state) == 0
    state = c4.apply(state, 3)
    assert c4.current_player(state) == 1 and c4.to_board(state)[5, 3] == 1
    assert c4.to_board(c4.apply(state, 3))[4, 3] == 2


def test_sentinel_row_stops_lines_wrapping_across_columns():
    # Three discs on top of column 0 and one at the bottom of column 1 are adjacent
    # bits in a plain 6-bit layout, but no line.
    board = np.zeros((ROWS, COLS), dtype=np.int8)
    board[0:3, 0] = 1
    board[5, 1] = 1
    assert c4.winner(c4.from_board(board)) == -1


# ----------------------------------------------------------------- kernels vs naive
@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(0, 6), max_size=42))
def test_kernels_match_naive_reference(choices):
    state, board = c4.initial_state(), np.zeros((ROWS, COLS), dtype=np.int8)
    for choice in [*choices, None]:
        assert np.array_equal(c4.to_board(state), board)
        assert c4.from_board(board) == state
        assert c4.current_player(state) == np.count_nonzero(board) % 2
        assert c4.winner(state) == naive_winner(board)
        assert np.array_equal(c4.legal_mask(state), naive_legal(board))
        over = naive_winner(board) >= 0 or board.all()
        assert c4.is_terminal(state) == over
        player, winner, terminal, mask = c4.status(state)
        assert (player, winner, terminal) == (
            np.count_nonzero(board) % 2,
            naive_winner(board),
            over,
        )
        assert np.array_equal(mask, naive_legal(board))
        for me in (0, 1):
            planes = c4.observe(state, me)
            assert np.array_equal(planes[0], board == me + 1)
            assert np.array_equal(planes[1], board == 2 - me)
        legal = np.flatnonzero(naive_legal(board))
        if choice is None or legal.size == 0:
            break
        col = int(legal[choice % legal.size])
        state, board = c4.apply(state, col), naive_drop(board, col)


@settings(max_examples=30, deadline=None)
@given(choices=st.lists(st.integers(0, 6), max_size=20), seed=st.integers(0, 2**32))
def test_random_playout_is_reproducible_and_legal(choices, seed):
    state = c4.initial_state()
    for choice in choices:
        legal = np.flatnonzero(c4.legal_mask(state))
        if legal.size == 0:
            break
        state = c4.apply(state, int(legal[choice % legal.size]))
    outcome = c4.random_playout(state, np.random.default_rng(seed))
    assert outcome in (-1, 0, 1)
    if c4.is_terminal(state):
        assert outcome == c4.winner(state)
    assert c4.random_playout(state, np.random.default_rng(seed)) == outcome


def test_first_player_wins_more_random_playouts():
    counts = c4.random_playouts(c4.initial_state(), 5_000, np.random.default_rng(2))
    assert counts.sum() == 5_000
    assert counts[1] > counts[2] > counts[0]
