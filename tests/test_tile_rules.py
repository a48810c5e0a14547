"""The tile games' rules: reference vectors, edge cases, kernels vs the reference."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.speed import reference as ref
from playahead.games import _board64, threes, twenty48

#: every test here checks a kernel (``make test-nojit`` runs them as plain Python)
pytestmark = pytest.mark.kernel

DATA = Path(__file__).parent / "data"
DIRECTIONS = {"up": 0, "right": 1, "down": 2, "left": 3}


def _cases(game):
    return json.loads((DATA / f"{game}_vectors.json").read_text())["cases"]


@pytest.mark.parametrize("case", _cases("2048"), ids=lambda c: c["id"])
def test_2048_reference_vectors(case):
    result, reward = twenty48.slide(case["board"], DIRECTIONS[case["direction"]])
    assert result.tolist() == case["result"]
    assert reward == case["reward"]
    assert (result.tolist() != case["board"]) == case["legal"]
    empty = [[r, c] for r in range(4) for c in range(4) if result[r, c] == 0]
    assert (empty if case["legal"] else []) == case["spawn_cells"]


@pytest.mark.parametrize("case", _cases("threes"), ids=lambda c: c["id"])
def test_threes_reference_vectors(case):
    action = DIRECTIONS[case["direction"]]
    result, _ = threes.slide(case["board"], action)
    assert result.tolist() == case["result"]
    assert threes.score_faces(result) == case["score"]
    moved = threes.moved_lines(case["board"], action)
    assert moved == case["lines_moved"]
    assert bool(moved) == case["legal"]
    assert ref.spawn_cells_threes(action, moved) == case["spawn_cells"]


@pytest.mark.parametrize("game", ["2048", "threes"])
def test_game_over_vectors(game):
    module = twenty48 if game == "2048" else threes
    for case in _cases(game):
        if case["tags"] and "implementation_defined" in case["tags"]:
            continue
        board = module.from_faces(case["board"])
        tables = twenty48.TABLES if game == "2048" else threes.tables()[:2]
        assert bool(module.is_over(board, *tables)) == case["game_over_before"]


def test_2048_one_merge_per_tile():
    assert twenty48.slide([[4, 4, 8, 0]] + [[0] * 4] * 3, 3)[0][0].tolist() == [
        8,
        8,
        0,
        0,
    ]


def test_threes_1_plus_2_only():
    for line, expected in [
        ([1, 1, 0, 0], [1, 1, 0, 0]),
        ([2, 2, 0, 0], [2, 2, 0, 0]),
        ([2, 1, 0, 0], [3, 0, 0, 0]),
        ([3, 6, 0, 0], [3, 6, 0, 0]),
    ]:
        assert threes.slide([line] + [[0] * 4] * 3, 3)[0][0].tolist() == expected


def test_threes_6144_variant_does_not_merge():
    board = [[6144, 6144, 0, 0]] + [[0] * 4] * 3
    assert threes.slide(board, 3)[0][0].tolist() == [12288, 0, 0, 0]
    assert threes.slide(board, 3, merge_6144=False)[0][0].tolist() == [6144, 6144, 0, 0]


@pytest.mark.parametrize(
    "bad", [[[5] * 4] * 4, [[0] * 3] * 4, [[7, 0, 0, 0]] + [[0] * 4] * 3]
)
def test_threes_malformed_board_is_refused(bad):
    with pytest.raises(ValueError, match="Threes"):
        threes.slide(bad, 0)


def test_2048_malformed_board_and_action_are_refused():
    with pytest.raises(ValueError, match="power of two"):
        twenty48.slide([[3, 0, 0, 0]] + [[0] * 4] * 3, 0)
    with pytest.raises(ValueError, match="0 up"):
        twenty48.slide([[0] * 4] * 4, 4)


# ---------------------------------------------------------------------- kernels

ranks_2048 = st.lists(st.integers(0, 14), min_size=16, max_size=16)
ranks_threes = st.lists(st.integers(0, 14), min_size=16, max_size=16)


def _faces(values, to_face):
    return [[to_face(values[4 * r + c]) for c in range(4)] for r in range(4)]


@settings(max_examples=300, deadline=None)
@given(ranks_2048, st.integers(0, 3))
def test_2048_kernel_matches_reference(values, action):
    faces = _faces(values, lambda r: 1 << r if r else 0)
    expected, reward = ref.move_2048(faces, action)
    after, got_reward = twenty48.move(
        twenty48.from_faces(faces), action, *twenty48.TABLES
    )
    assert got_reward == reward
    assert twenty48.to_faces(after).tolist() == expected
    assert twenty48.slide(faces, action)[0].tolist() == expected


@settings(max_examples=300, deadline=None)
@given(ranks_threes, st.integers(0, 3), st.booleans())
def test_threes_kernel_matches_reference(values, action, merge_6144):
    faces = _faces(values, lambda r: threes.card_values()[r])
    expected, moved = ref.move_threes(faces, action, merge_6144)
    moves, rewards, row_scores = threes.tables(merge_6144)
    board = threes.from_faces(faces)
    after, moved_lines, delta = threes.move(board, action, moves, rewards)
    assert threes.to_faces(after).tolist() == expected
    assert [i for i in range(4) if moved_lines >> i & 1] == moved
    assert delta == ref.score_threes(expected) - ref.score_threes(faces)
    assert threes.score(np.uint64(after), row_scores) == ref.score_threes(expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 15), min_size=16, max_size=16))
def test_packing_round_trips_and_transposes(values):
    ranks = np.array(values, dtype=np.uint8).reshape(4, 4)
    board = np.uint64(_board64.pack(ranks))
    assert (_board64.unpack(board) == ranks).all()
    assert (_board64.unpack(np.uint64(_board64.transpose(board))) == ranks.T).all()
    assert _board64.count_empty(board) == int((ranks == 0).sum())
    empties = np.flatnonzero(ranks.ravel() == 0)
    assert [
        _board64.nth_empty(board, k) for k in range(len(empties))
    ] == empties.tolist()


@settings(max_examples=100, deadline=None)
@given(ranks_2048)
def test_2048_mask_is_legality_and_over_is_no_legal_move(values):
    faces = _faces(values, lambda r: 1 << r if r else 0)
    board = twenty48.from_faces(faces)
    mask = twenty48.legal_mask(board, *twenty48.TABLES)
    assert mask.tolist() == [ref.move_2048(faces, a)[1] >= 0 for a in range(4)]
    assert twenty48.is_over(board, *twenty48.TABLES) == (not mask.any())
