"""Compiled n-tuple network values for 2048 and Threes (training:
:mod:`playahead.kernels.td`).

Public kernel signatures (stable; the expectimax leaf uses ``fast_value``):

* ``value(board: uint64, code: int64, weights: float32[P, C, 16**K],
  cells: int64[P, 8, K]) -> float64``: the sum over the ``P`` tuple patterns and their
  8 symmetric images of ``weights[p, code, index]``, where ``index`` packs the ranks of
  the ``K`` cells ``cells[p, s]`` (4 bits each, first cell lowest).
* ``value_2048(board, weights, cells) -> float64``: ``value(board, 0, ...)``.
* ``value_threes(board, code, weights, cells) -> float64``: ``code`` is
  :func:`preview_code` of the Threes cards word (0, 1, 2: the next card is a 1, 2 or 3;
  3: a bonus card).
* ``update(board, code, delta, weights, cells) -> float64``: adds ``delta`` to each of
  the ``8 * P`` weights ``value`` reads; returns the new value.
* ``fast_value(board, code, flat, runs, n_codes, size, imgs, idx) -> float64``: the
  same value (same bits) through :func:`lookups`, for hot loops (the TD training in
  :mod:`playahead.kernels.td`, the expectimax leaf); ``flat = weights.reshape(-1)``,
  ``runs = pattern_runs(cells)``.
* ``leaf_lookups(board, stage, runs, n_codes, size, n_base, stride, imgs, idx, off,
  flat)``: the lookups for code 0 of a stage in either weight layout (the
  expectimax leaf's, :func:`leaf_layout`); :func:`code_shift` is what to add to an
  index for code ``c`` of the same stage.
* ``staged(board, code, n_base, stages) -> int64``: the code a multi-stage net reads
  for afterstate ``board``: ``code + n_base * s``, where ``s`` counts the stage ranks
  (int64, ascending) that the board's largest rank reaches; ``n_base`` is the number
  of codes of one stage (1 for 2048, 4 for Threes). Without stages it is ``code``.

The value of an afterstate (the board after the move, before chance) estimates the
score still to come, for Threes including the card about to enter.

The expectimax leaf's kernels (``staged``, ``images``, ``leaf_lookups``, ``read``)
allocate nothing and return no array, so they are compiled without numba's
reference counting (``_nrt=False``): their caller's arrays outlive the call anyway.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from playahead.games._board64 import max_rank, transpose
from playahead.games.chance import unpack_cards
from playahead.kernels._fixed import dispatch
from playahead.kernels.prefetch import prefetch

_NIB = np.uint64(0xF)
N_CODES = 4  # Threes preview codes: 1, 2, 3, bonus


def symmetric_cells(patterns) -> np.ndarray:
    """int64[P, 8, K]: each pattern's cells under the 8 symmetries of the square.

    Image ``s``: transpose when ``s >= 4``, then flip rows if ``s & 1``, columns if
    ``s & 2``; image 0 is the pattern itself.
    """
    out = np.empty((len(patterns), 8, len(patterns[0])), dtype=np.int64)
    for p, pattern in enumerate(patterns):
        for s in range(8):
            for j, cell in enumerate(pattern):
                r, c = divmod(int(cell), 4)
                if s >= 4:
                    r, c = c, r
                if s & 1:
                    r = 3 - r
                if s & 2:
                    c = 3 - c
                out[p, s, j] = 4 * r + c
    return out


@nb.njit(cache=True)
def preview_code(cards):
    """Threes cards word -> 0, 1, 2 (next card 1, 2, 3) or 3 (a bonus card)."""
    _, _, _, lo, hi = unpack_cards(cards)
    if lo == hi and 1 <= lo <= 3:
        return np.int64(lo - 1)
    return np.int64(3)


@nb.njit(cache=True, _nrt=False)
def staged(board, code, n_base, stages):
    """Code of ``board`` in a multi-stage net (module docstring): one weight set per
    stage, the stage set by the largest tile of the afterstate."""
    s = np.int64(0)
    if stages.size:
        top = np.int64(max_rank(board))
        for r in stages:
            if top >= r:
                s += 1
    return np.int64(code) + np.int64(n_base) * s


@nb.njit(cache=True)
def _index(board, cells, p, s):
    idx = np.int64(0)
    for j in range(cells.shape[2]):
        rank = np.int64((board >> np.uint64(4 * cells[p, s, j])) & _NIB)
        idx |= rank << (4 * j)
    return idx


@nb.njit(cache=True)
def value(board, code, weights, cells):
    """Sum of the ``8 * P`` weights of ``board`` (see the module docstring), in
    float64 and in a fixed order: one partial sum per image ``s`` over the patterns,
    then the eight partial sums as a balanced tree (eight independent additions are
    faster than one chain; :func:`read` adds in the same order)."""
    a = np.zeros(8)
    for p in range(cells.shape[0]):
        w = weights[p, code]
        for s in range(8):  # a variable image: one compiled _index, not eight
            a[s] += np.float64(w[_index(board, cells, p, s)])
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))


@nb.njit(cache=True)
def value_2048(board, weights, cells):
    """Value of a 2048 afterstate."""
    return value(board, 0, weights, cells)


@nb.njit(cache=True)
def value_threes(board, code, weights, cells):
    """Value of a Threes afterstate; ``code`` is :func:`preview_code` of the cards."""
    return value(board, code, weights, cells)


@nb.njit(cache=True)
def update(board, code, delta, weights, cells):
    """Add ``delta`` to every weight ``value`` reads (twice where a symmetric board
    reads one weight twice); returns the new value."""
    for p in range(cells.shape[0]):
        for s in range(8):
            i = _index(board, cells, p, s)
            weights[p, code, i] = np.float32(np.float64(weights[p, code, i]) + delta)
    return value(board, code, weights, cells)


# ------------------------------------------------------------ the fast lookups
# The training loop and the expectimax leaf read the same weights as ``value`` and
# sum them in the same order, so they return the same bits; they build the 8 images
# of the board once with bit operations and cut each pattern out of an image as a few
# contiguous runs of nibbles.

_LO = np.uint64(0x000F000F000F000F)
_MID = np.uint64(0x00F000F000F000F0)
_ROW1 = np.uint64(0x0000FFFF00000000)
_ROW2 = np.uint64(0x00000000FFFF0000)


def pattern_runs(cells) -> np.ndarray:
    """int64[P, R, 3]: pattern ``p`` (image 0 of ``cells``) as runs of consecutive
    cells, each ``(4 * first cell, nibble mask, 4 * position in the pattern)``; unused
    runs have mask 0. ``R`` is the most runs any pattern needs (1 for ``012345``, 2 for
    ``012456``)."""
    cells = np.asarray(cells)
    all_runs = []
    for p in range(cells.shape[0]):
        c = [int(x) for x in cells[p, 0]]
        runs, j = [], 0
        while j < len(c):
            n = 1
            while j + n < len(c) and c[j + n] == c[j] + n:
                n += 1
            runs.append((4 * c[j], (1 << (4 * n)) - 1, 4 * j))
            j += n
        all_runs.append(runs)
    out = np.zeros((len(all_runs), max(map(len, all_runs)), 3), np.int64)
    for p, runs in enumerate(all_runs):
        out[p, : len(runs)] = runs
    return out


@nb.njit(cache=True)
def flip_rows(b):
    """Board upside down: row r -> row 3 - r."""
    return (
        (b << np.uint64(48))
        | ((b << np.uint64(16)) & _ROW1)
        | ((b >> np.uint64(16)) & _ROW2)
        | (b >> np.uint64(48))
    )


@nb.njit(cache=True)
def flip_cols(b):
    """Board mirrored: column c -> column 3 - c."""
    return (
        ((b & _LO) << np.uint64(12))
        | ((b & _MID) << np.uint64(4))
        | ((b >> np.uint64(4)) & _MID)
        | ((b >> np.uint64(12)) & _LO)
    )


@nb.njit(cache=True, _nrt=False)
def images(board, out):
    """``out[s]`` (uint64[8]): the board whose cell x holds ``board``'s cell
    ``cells[., s]`` maps x to, so pattern cells read on ``out[s]`` are image ``s``."""
    t = transpose(board)
    c = flip_cols(board)
    tc = flip_cols(t)
    out[0] = board
    out[1] = flip_rows(board)
    out[2] = c
    out[3] = flip_rows(c)
    out[4] = t
    out[5] = tc
    out[6] = flip_rows(t)
    out[7] = flip_rows(tc)


@nb.njit(cache=True, inline="always")
def lookups(board, code, runs, n_codes, size, imgs, idx, off, flat, spread=1, kind=0):
    """Write the ``8 * P`` flat indices (into ``weights.reshape(-1)``) that
    ``value(board, code, ...)`` reads into ``idx[off:off + 8 * P]`` and prefetch
    them; ``n_codes, size = weights.shape[1:]``. These are the indices of
    :func:`leaf_lookups` with ``stage = code``, ``n_base = 1`` and ``stride = 1``
    (tested), written out apart for the trainer's hot loop (inlined into it), which
    then has no stride multiply and no unused third run. ``spread``: each index
    times it, for a ``flat`` whose weights lie ``spread`` elements apart (the
    trainer's packed layout, :func:`playahead.kernels.td.pack`). ``kind``:
    :func:`~playahead.kernels.fixed_patterns.kind_of` ``runs``, whose compiled
    kernel (with its shifts and masks constant) writes the same indices."""
    images(board, imgs)
    if dispatch(kind, imgs, code, n_codes, size, 1, spread, idx, off, flat):
        return
    q = off
    n_runs = runs.shape[1]
    for p in range(runs.shape[0]):
        base = (p * n_codes + code) * size
        s0, m0, t0 = runs[p, 0, 0], runs[p, 0, 1], runs[p, 0, 2]
        s1, m1, t1 = s0, np.int64(0), t0
        s2, m2, t2 = s0, np.int64(0), t0
        if n_runs >= 2:
            s1, m1, t1 = runs[p, 1, 0], runs[p, 1, 1], runs[p, 1, 2]
        if n_runs >= 3:
            s2, m2, t2 = runs[p, 2, 0], runs[p, 2, 1], runs[p, 2, 2]
        for s in range(8):
            b = imgs[s]
            i = base + ((np.int64(b >> np.uint64(s0)) & m0) << t0)
            i += (np.int64(b >> np.uint64(s1)) & m1) << t1
            if n_runs >= 3:
                i += (np.int64(b >> np.uint64(s2)) & m2) << t2
                for r in range(3, n_runs):
                    part = np.int64(b >> np.uint64(runs[p, r, 0])) & runs[p, r, 1]
                    i += part << runs[p, r, 2]
            i *= spread
            prefetch(flat, i)
            idx[q] = i
            q += 1


def leaf_layout(weights, n_base: int) -> np.ndarray:
    """The expectimax leaf's copy of ``weights`` (``float32[P, C, size]``, ``C = S *
    n_base`` codes in ``S`` stages), flat, with the ``n_base`` codes of one stage
    next to each other: element ``((p * S + s) * size + i) * n_base + c`` is
    ``weights[p, s * n_base + c, i]``. The search reads an afterstate under all four
    Threes preview codes, which in this layout share a cache line instead of taking
    four; with ``n_base = 1`` (2048) it is ``weights.reshape(-1)`` itself."""
    p, codes, size = weights.shape
    if n_base == 1:
        return weights.reshape(-1)
    stages = codes // n_base
    grouped = weights.reshape(p, stages, n_base, size).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(grouped).reshape(-1)


@nb.njit(cache=True)
def code_shift(size, n_base, stride):
    """What to add to :func:`leaf_lookups`' indices to read code ``c`` of the same
    stage: ``c * code_shift``, in the code-major layout (``stride`` 1) one code's
    table further, in the leaf layout (``stride = n_base``) the next element; 0 for a
    net of one code a stage (2048, or a Threes net without the preview index, which
    reads every card alike)."""
    if n_base == 1:
        return np.int64(0)
    return np.int64(size) if stride == 1 else np.int64(1)


@nb.njit(cache=True, _nrt=False)
def leaf_lookups(
    board, stage, runs, n_codes, size, n_base, stride, imgs, idx, off, flat, kind=0
):
    """Write the ``8 * P`` flat indices that ``value`` reads for ``board`` under code
    0 of ``stage`` into ``idx[off:off + 8 * P]`` and prefetch them (unrolled for up
    to three runs a pattern), in the code-major layout of ``weights.reshape(-1)``
    (``stride`` 1) or the leaf layout of :func:`leaf_layout` (``stride = n_base``):
    pattern ``p``'s index ``i`` is at ``(p * n_codes + stage * n_base) * size + i *
    stride`` in both; ``kind`` as for :func:`lookups`."""
    images(board, imgs)
    c0 = stage * n_base
    if stride == 1:  # compiled apart with the stride a constant: no multiply
        if dispatch(kind, imgs, c0, n_codes, size, 1, 1, idx, off, flat):
            return
    elif dispatch(kind, imgs, c0, n_codes, size, stride, 1, idx, off, flat):
        return
    q = off
    if runs.shape[1] > 3:
        for p in range(runs.shape[0]):
            base = (p * n_codes + stage * n_base) * size
            for s in range(8):
                i = np.int64(0)
                for r in range(runs.shape[1]):
                    part = np.int64(imgs[s] >> np.uint64(runs[p, r, 0])) & runs[p, r, 1]
                    i += part << runs[p, r, 2]
                i = base + i * stride
                prefetch(flat, i)
                idx[q] = i
                q += 1
        return
    two = runs.shape[1] >= 2
    three = runs.shape[1] >= 3
    for p in range(runs.shape[0]):
        base = (p * n_codes + stage * n_base) * size
        s0, m0, t0 = runs[p, 0, 0], runs[p, 0, 1], runs[p, 0, 2]
        s1, m1, t1 = s0, np.int64(0), t0
        s2, m2, t2 = s0, np.int64(0), t0
        if two:
            s1, m1, t1 = runs[p, 1, 0], runs[p, 1, 1], runs[p, 1, 2]
        if three:
            s2, m2, t2 = runs[p, 2, 0], runs[p, 2, 1], runs[p, 2, 2]
        for s in range(8):
            b = imgs[s]
            i = (np.int64(b >> np.uint64(s0)) & m0) << t0
            i += (np.int64(b >> np.uint64(s1)) & m1) << t1
            i += (np.int64(b >> np.uint64(s2)) & m2) << t2
            i = base + i * stride
            prefetch(flat, i)
            idx[q] = i
            q += 1


@nb.njit(cache=True, _nrt=False)
def read(flat, idx, off, n, shift=0):
    """Sum (float64) of ``flat[idx[off:off + n] + shift]`` in :func:`value`'s order
    (``n`` a multiple of 8, the lookups ordered pattern-major as :func:`lookups`
    writes them). ``shift = c * size`` reads code ``code + c`` of the same board:
    the indices of code ``c`` are those of code 0 plus ``c * size``."""
    return read_inlined(flat, idx, off, n, shift)


@nb.njit(cache=True, inline="always")
def read_inlined(flat, idx, off, n, shift=0):
    """:func:`read`, inlined into the caller (the trainer's hot loops: no call and
    no reference counting per read). Indices are cast to ``uint64``, for which numba
    adds no negative-index wraparound (they are never negative here)."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    for q in range(off, off + n, 8):
        u = np.uint64(q)
        a0 += np.float64(flat[np.uint64(idx[u] + shift)])
        a1 += np.float64(flat[np.uint64(idx[u + np.uint64(1)] + shift)])
        a2 += np.float64(flat[np.uint64(idx[u + np.uint64(2)] + shift)])
        a3 += np.float64(flat[np.uint64(idx[u + np.uint64(3)] + shift)])
        a4 += np.float64(flat[np.uint64(idx[u + np.uint64(4)] + shift)])
        a5 += np.float64(flat[np.uint64(idx[u + np.uint64(5)] + shift)])
        a6 += np.float64(flat[np.uint64(idx[u + np.uint64(6)] + shift)])
        a7 += np.float64(flat[np.uint64(idx[u + np.uint64(7)] + shift)])
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@nb.njit(cache=True)
def fast_value(board, code, flat, runs, n_codes, size, imgs, idx):
    """``value(board, code, weights, cells)`` through :func:`lookups`: ``flat`` is
    ``weights.reshape(-1)``, ``runs = pattern_runs(cells)``; ``imgs`` (uint64[8]) and
    ``idx`` (int64[8 * P]) are scratch."""
    lookups(board, code, runs, n_codes, size, imgs, idx, 0, flat)
    return read(flat, idx, 0, idx.shape[0])
