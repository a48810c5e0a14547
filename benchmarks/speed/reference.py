"""Slow, obviously-correct rules on face values, written from the specs.

The compiled kernels are checked against these functions; the benchmarks use them as
the plain-Python baseline. Boards are lists of 4 lists of ints (row 0 = top).
"""

from __future__ import annotations

import random

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3


def lines(board, action):
    """The four lines of a move, each listed from the wall the tiles move toward."""
    if action == LEFT:
        return [[board[r][c] for c in range(4)] for r in range(4)]
    if action == RIGHT:
        return [[board[r][c] for c in (3, 2, 1, 0)] for r in range(4)]
    if action == UP:
        return [[board[r][c] for r in range(4)] for c in range(4)]
    return [[board[r][c] for r in (3, 2, 1, 0)] for c in range(4)]


def unlines(ls, action):
    """Inverse of :func:`lines`."""
    board = [[0] * 4 for _ in range(4)]
    for i, line in enumerate(ls):
        for j, v in enumerate(line):
            if action == LEFT:
                board[i][j] = v
            elif action == RIGHT:
                board[i][3 - j] = v
            elif action == UP:
                board[j][i] = v
            else:
                board[3 - j][i] = v
    return board


# ---------------------------------------------------------------------- 2048


def line_2048(line):
    """Slide and merge one line toward index 0: (new line, reward)."""
    tiles = [v for v in line if v]
    out, reward, i = [], 0, 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            reward += 2 * tiles[i]
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (4 - len(out)), reward


def move_2048(board, action):
    """(board after the slide, reward); reward -1 and the same board if illegal."""
    moved = [line_2048(line) for line in lines(board, action)]
    new = unlines([m[0] for m in moved], action)
    if new == [list(r) for r in board]:
        return new, -1
    return new, sum(m[1] for m in moved)


def spawn_2048(board, rnd: random.Random):
    empty = [(r, c) for r in range(4) for c in range(4) if board[r][c] == 0]
    r, c = rnd.choice(empty)
    board = [list(row) for row in board]
    board[r][c] = 4 if rnd.random() < 0.1 else 2
    return board


def rollout_2048(board, rnd: random.Random):
    """Random legal moves to the end; returns (score gained, moves)."""
    score = moves = 0
    while True:
        options = [m for a in range(4) if (m := move_2048(board, a))[1] >= 0]
        if not options:
            return score, moves
        board, reward = rnd.choice(options)
        board = spawn_2048(board, rnd)
        score += reward
        moves += 1


# ---------------------------------------------------------------------- Threes


def line_threes(line, merge_6144=True):
    """One Threes line toward index 0: the first cell that can absorb its neighbour."""
    for i in range(3):
        a, b = line[i], line[i + 1]
        if a == 0 and b:
            new = b
        elif {a, b} == {1, 2}:
            new = 3
        elif a == b and a >= 3 and (merge_6144 or a != 6144):
            new = 2 * a
        else:
            continue
        return line[:i] + [new] + line[i + 2 :] + [0], True
    return list(line), False


def card_points(v):
    if v < 3:
        return 0
    return 3 ** ((v // 3).bit_length())


def score_threes(board):
    return sum(card_points(v) for row in board for v in row)


def move_threes(board, action, merge_6144=True):
    """(board after the move, indices of moved lines)."""
    results = [line_threes(line, merge_6144) for line in lines(board, action)]
    new = unlines([r[0] for r in results], action)
    return new, [i for i, r in enumerate(results) if r[1]]


def spawn_cells_threes(action, moved):
    """Cells where the new card may enter after ``action`` moved lines ``moved``."""
    if action == UP:
        return [[3, c] for c in moved]
    if action == DOWN:
        return [[0, c] for c in moved]
    if action == LEFT:
        return [[r, 3] for r in moved]
    return [[r, 0] for r in moved]
