"""``playahead.kernels.borrow``: a borrowed view (``borrowed``, or each array of a
record with ``borrowed_members``) reads and writes the array it borrows and adds no
reference, compiled and with the JIT disabled; a search through borrowed tables decides
as the plain-Python reference does (``test_expectimax``)."""

from __future__ import annotations

import sys
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
