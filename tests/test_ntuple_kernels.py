"""The compiled n-tuple value and TD update against plain Python (also run with
NUMBA_DISABLE_JIT=1, see the Makefile), and the 8 symmetries."""

from __future__ import annotations

import numpy as np
import pytest

from playahead.games._board64 import pack
from playahead.ntuple import _kernels as k

PATTERNS = [(0, 1, 2), (4, 5, 9)]


def _random_board(rng):
    return np.uint64(pack(rng.integers(0, 16, size=(4, 4)).astype(np.uint8)))


def _ref_value(board, code, weights, patterns):
    """Plain Python: rotate/flip the 4x4 grid, read each pattern's cells."""
    grid = np.array([(int(board) >> (4 * i)) & 15 for i in range(16)]).reshape(4, 4)
    images = []
    for t in (grid, grid.T):
        images += [t, t[::-1], t[:, ::-1], t[::-1, ::-1]]
    total = 0.0
    for p, pattern in enumerate(patterns):
        for img in images:
            flat = img.reshape(-1)
            idx = sum(int(flat[c]) << (4 * j) for j, c in enumerate(pattern))
            total += float(weights[p, code, idx])
    return total


def test_value_matches_reference_on_random_boards():
    rng = np.random.default_rng(1)
    cells = k.symmetric_cells(PATTERNS)
    weights = rng.normal(size=(2, 4, 16**3)).astype(np.float32)
    for _ in range(20):
        board = _random_board(rng)
        code = int(rng.integers(4))
        want = _ref_value(board, code, weights, PATTERNS)
        assert k.value(board, code, weights, cells) == pytest.approx(want, rel=1e-9)
        if code == 0:
            assert k.value_2048(board, weights, cells) == pytest.approx(want)
        assert k.value_threes(board, code, weights, cells) == pytest.approx(want)


def test_update_adds_delta_to_each_lookup():
    rng = np.random.default_rng(2)
    cells = k.symmetric_cells(PATTERNS)
    for _ in range(10):
        weights = rng.normal(size=(2, 1, 16**3)).astype(np.float32)
        ref = weights.copy()
        board = _random_board(rng)
        before = k.value(board, 0, weights, cells)
        new = k.update(board, 0, 0.25, weights, cells)
        # each of the 16 lookups gained 0.25 (a repeated index gains it twice)
        for p in range(2):
            for s in range(8):
                idx = sum(
                    ((int(board) >> (4 * int(c))) & 15) << (4 * j)
                    for j, c in enumerate(cells[p, s])
                )
                ref[p, 0, idx] += np.float32(0.25)
        np.testing.assert_allclose(weights, ref, rtol=1e-6)
        assert new == pytest.approx(_ref_value(board, 0, ref, PATTERNS), rel=1e-6)
        assert new > before


def test_eight_distinct_images_and_invariant_value():
    rng = np.random.default_rng(3)
    # an asymmetric board: all 16 cells distinct
    board = np.uint64(pack(np.arange(16, dtype=np.uint8).reshape(4, 4)))
    cells = k.symmetric_cells([tuple(range(16))])
    images = {k._index(board, cells, 0, s) for s in range(8)}
    assert len(images) == 8
    weights = rng.normal(size=(2, 1, 16**3)).astype(np.float32)
    cells3 = k.symmetric_cells(PATTERNS)
    grid = np.arange(16, dtype=np.uint8).reshape(4, 4)
    v = k.value(board, 0, weights, cells3)
    for t in (grid, grid.T):
        for img in (t, t[::-1], t[:, ::-1], t[::-1, ::-1]):
            b = np.uint64(pack(np.ascontiguousarray(img)))
            assert k.value(b, 0, weights, cells3) == pytest.approx(v, rel=1e-6)


def test_preview_code_reads_only_the_preview():
    from playahead.games.threes import pack_cards

    assert [k.preview_code(pack_cards(4, 4, 4, r, r)) for r in (1, 2, 3)] == [0, 1, 2]
    assert k.preview_code(pack_cards(1, 2, 3, 4, 6)) == 3
    assert k.preview_code(pack_cards(0, 0, 0, 2, 2)) == 1


def test_learn_moves_last_afterstate_toward_zero_and_earlier_toward_target():
    cells = k.symmetric_cells(PATTERNS)
    weights = np.full((2, 1, 16**3), 1.0, np.float32)  # V = 16 everywhere
    rng = np.random.default_rng(4)
    afters = np.array([_random_board(rng) for _ in range(2)], dtype=np.uint64)
    codes = np.zeros(2, np.int64)
    gains = np.array([100, 0], np.int64)  # reward after the first afterstate
    v0 = k.value(afters[0], 0, weights, cells)
    k.learn(afters, codes, gains, 2, 0.5, weights, cells)
    v1 = k.value(afters[1], 0, weights, cells)
    assert v1 < 16.0  # pulled toward 0, the end of the game
    assert k.value(afters[0], 0, weights, cells) > v0  # toward 100 + V(next)
