"""``playahead.kernels.borrow``: a borrowed view (``borrowed``, or each array of a
record with ``borrowed_members``) reads and writes the array it borrows and adds no
reference, compiled and with the JIT disabled; a search through borrowed tables decides
as the plain-Python reference does (``test_expectimax``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import numba as nb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from playahead.kernels.borrow import borrowed, borrowed_members

pytestmark = pytest.mark.kernel


@nb.njit(cache=True)
def _sum_and_bump(a, row):
    """The sum of ``a`` read through a borrowed view, after adding 1 to row ``row``
    through a view of that view."""
    view = borrowed(a)
    part = view[row]
    for j in range(part.shape[0]):
        part[j] += 1.0
    return view.sum(), view.shape[0], view.shape[1]


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2),
        elements=st.floats(-1e6, 1e6),
    ),  # fmt: skip
    st.data(),
)
def test_a_borrowed_view_reads_and_writes_the_array(a, data):
    row = data.draw(st.integers(0, a.shape[0] - 1))
    expected = a.copy()
    expected[row] += 1.0
    total, rows, cols = _sum_and_bump(a, row)
    np.testing.assert_array_equal(a, expected)
    assert (rows, cols) == a.shape
    assert total == pytest.approx(expected.sum(), rel=1e-12, abs=1e-6)


def test_the_borrowed_array_keeps_its_own_reference_count():
    """Borrowing adds no reference: the caller's array is freed as before."""
    a = np.zeros((3, 4))
    before = sys.getrefcount(a)
    _sum_and_bump(a, 0)
    assert sys.getrefcount(a) == before


class _Record(NamedTuple):
    table: np.ndarray
    scale: float
    rows: int
    keys: np.ndarray


@nb.njit(cache=True)
def _through_members(record):
    """Bump ``keys[0]`` and sum ``table`` through the borrowed members of
    ``record``; its scalars come back as they were."""
    view = borrowed_members(record)
    view.keys[0] += np.uint64(1)
    return view.table.sum() * view.scale, view.rows, view.keys.shape[0]


def test_borrowed_members_keep_every_field_and_write_through():
    record = _Record(np.arange(6.0), 0.5, 3, np.zeros(4, np.uint64))
    before = [sys.getrefcount(record.table), sys.getrefcount(record.keys)]
    assert _through_members(record) == (7.5, 3, 4)
    assert record.keys[0] == 1
    assert [sys.getrefcount(record.table), sys.getrefcount(record.keys)] == before


@pytest.fixture
def allocations():
    """numba's allocation counters (allocations, frees, memory records made and
    freed), counted for the test; all 0 with the JIT disabled."""
    from numba.core.runtime import _nrt_python, rtsys

    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield lambda: tuple(rtsys.get_allocation_stats())
    if not was_on:
        _nrt_python.memsys_disable_stats()


def _net_allocations(stats_before, stats_after):
    alloc, free, mi_alloc, mi_free = np.subtract(stats_after, stats_before)
    return alloc - free, mi_alloc - mi_free


def test_borrowed_views_leak_nothing(allocations):
    """Every allocation a kernel makes through borrowed views is freed, and the
    borrowed arrays themselves are freed once the caller lets them go."""
    import weakref

    record = _Record(np.arange(6.0), 0.5, 3, np.zeros(4, np.uint64))
    a = np.zeros((3, 4))
    _through_members(record), _sum_and_bump(a, 0)  # compiled before counting
    before = allocations()
    for _ in range(50):
        _through_members(record)
        _sum_and_bump(a, 1)
    assert _net_allocations(before, allocations()) == (0, 0)
    gone = [weakref.ref(a), weakref.ref(record.table), weakref.ref(record.keys)]
    del a, record
    assert [ref() for ref in gone] == [None, None, None]


def _leaky_hold(array, kept):
    """Keep a reference to ``array`` nobody gives back: a leak, for the check below
    (compiled, a reference count added in LLVM code; without the JIT, a list)."""
    if nb.config.DISABLE_JIT:
        kept.append(array)
        return
    from numba.core.extending import intrinsic

    @intrinsic
    def incref(typingctx, arr):
        def codegen(context, builder, signature, args):
            context.nrt.incref(builder, signature.args[0], args[0])
            return context.get_dummy_value()

        return nb.types.none(arr), codegen

    @nb.njit
    def hold(arr):
        incref(arr)

    hold(array)


def test_the_leak_check_sees_a_reference_never_given_back():
    import weakref

    a, kept = np.zeros(3), []
    _leaky_hold(a, kept)
    gone = weakref.ref(a)
    del a
    assert gone() is not None  # the leak keeps it alive: the check above would fail


def test_a_search_through_borrowed_tables_leaks_nothing(allocations):
    """The expectimax roots borrow their context and net: after many searches
    every allocation is freed (a missing decref of a borrowed record would show)."""
    from playahead.games import threes, twenty48
    from playahead.kernels import expectimax as kernels
    from playahead.planners.evaluators import get_evaluator

    def search(game, board, cards):
        moves, rewards = threes.tables()[:2] if game == "threes" else twenty48.TABLES
        table = get_evaluator("score", "Threes" if game == "threes" else "2048").table
        counters = np.array([0, 0, 10**9], np.int64)
        ctx = kernels.search_context(
            moves, rewards, table, kernels.new_table(8), counters
        )
        cfg = kernels.search_config(0.0, 0.0, 1, 8, True)
        if game == "threes":
            return kernels.root_threes(board, cards, np.int64(1), ctx, cfg, None)
        return kernels.root_2048(board, np.int64(1), ctx, cfg, None)

    threes_board = threes.from_faces([[1, 2, 0, 3], [0, 6, 0, 0], [0] * 4, [3] * 4])
    twenty48_board = twenty48.from_faces([[2, 2, 0, 0], [4, 0, 0, 0], [0] * 4, [8] * 4])
    cards = np.int64(threes.pack_cards(3, 4, 4, 2, 2))
    search("threes", threes_board, cards), search("2048", twenty48_board, 0)
    before = allocations()
    for _ in range(5):
        assert np.isfinite(search("threes", threes_board, cards)).any()
        assert np.isfinite(search("2048", twenty48_board, 0)).any()
    alloc, mi = _net_allocations(before, allocations())
    assert (alloc, mi) == (0, 0)


def test_numba_is_the_pinned_version():
    """``borrow`` builds LLVM code on numba's internals: the versions it is tested
    on are pinned in ``constraints.txt``, and these tests run on them."""
    import llvmlite

    root = Path(__file__).resolve().parents[1]
    pins = dict(
        line.split("==")
        for line in (root / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert pins["numba"] == nb.__version__
    assert pins["llvmlite"] == llvmlite.__version__
