"""The exact Connect Four solver against a plain-Python negamax, Pons' solver's labels
and facts of the game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from playahead.games import connect_four as c4
from playahead.games import connect_four_solver as solver
from tests import naive_connect_four as naive

DATA = Path(__file__).parent / "data" / "c4_pons_labels.txt"


@pytest.fixture(scope="module")
def small():
    """A solver with a small table (the default one takes 80 MiB)."""
    return solver.Solver(table_bits=16)


def random_moves(rng: np.random.Generator, discs: int) -> str:
    """A move string of ``discs`` uniformly random drops that nobody has won."""
    while True:
        state, moves = c4.initial_state(), ""
        for _ in range(discs):
            cols = np.flatnonzero(c4.legal_mask(state))
            if cols.size == 0:
                break
            col = int(rng.choice(cols))
            state, moves = c4.apply(state, col), moves + str(col + 1)
        if len(moves) == discs and c4.winner(state) < 0:
            return moves


def pons_scores(result: solver.ColumnScores) -> list[int | str]:
    """The columns as ``c4solver -a`` prints them (``-1000``: full); a column not
    solved within the budget as ``"LOW:HIGH"``, never as a score or as full."""
    return [
        solver.INVALID if lo is None else lo if lo == hi else f"{lo}:{hi}"
        for lo, hi in zip(result.lower, result.upper, strict=True)
    ]


@pytest.mark.kernel
@given(seed=st.integers(0, 2**32 - 1), discs=st.integers(28, 41))
def test_late_positions_match_plain_negamax(small, seed, discs):
    moves = random_moves(np.random.default_rng(seed), discs)
    result = small.analyze(moves, node_budget=10**7)
    assert result.solved
    assert pons_scores(result) == naive.analyze(moves)


@pytest.mark.kernel
def test_a_small_table_tells_its_keys_apart(small):
    """A table of 2**16 entries keeps whole keys: with 32 bits of a key (the default
    table's) two positions in one slot could pass for each other, and this position
    came out 0 for a column that loses (found by the test above)."""
    moves = random_moves(np.random.default_rng(149041378), 28)
    assert small._keys.dtype == np.uint64
    assert solver.Solver(table_bits=17)._keys.dtype == np.uint32
    result = small.analyze(moves, node_budget=10**7)
    assert pons_scores(result) == naive.analyze(moves)


@pytest.mark.kernel
def test_solve_is_the_best_column(small):
    rng = np.random.default_rng(5)
    for discs in (30, 33, 36, 39):
        moves = random_moves(rng, discs)
        scores = [s for s in naive.analyze(moves) if s != solver.INVALID]
        assert small.solve(moves).score == max(scores)


@pytest.mark.kernel
def test_state_and_move_string_agree(small):
    moves = "2252576253462244111563365343671351441"
    state = solver.parse_moves(moves)
    assert small.analyze(state).scores == small.analyze(moves).scores
    assert pons_scores(small.analyze(moves)) == [-1000] * 5 + [-1, -2]


@pytest.mark.kernel
def test_pons_labels_late(small):
    """Pons' solver's labels (``c4solver -a``) of positions with 30 discs or more."""
    rows = [line.split() for line in DATA.read_text().splitlines()]
    late = [r for r in rows if len(r[0]) >= 30]
    assert len(late) >= 20
    for moves, *scores in late[:: len(late) // 20][:20]:
        assert pons_scores(small.analyze(moves)) == [int(s) for s in scores], moves


def test_pons_labels_all():
    """Every committed label of Pons' solver (6 to 40 discs) with the JIT on."""
    rows = [line.split() for line in DATA.read_text().splitlines()]
    fast = [r for r in rows if len(r[0]) >= 16]
    assert len(fast) >= 500
    shared = solver.Solver()
    for moves, *scores in fast:
        assert pons_scores(shared.analyze(moves)) == [int(s) for s in scores], moves


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 317 positions, about 5 CPU minutes
def test_pons_labels_early():
    """The labels of positions with 6 to 15 discs, at the budget of the record that
    compared them (``benchmarks/records/c4solver.py``): some take more than the
    default budget (``"13463334"`` about 28,000,000 nodes from an empty table), and
    within it get bounds, not scores."""
    rows = [line.split() for line in DATA.read_text().splitlines()]
    shared = solver.Solver()
    for moves, *scores in (r for r in rows if len(r[0]) < 16):
        result = shared.analyze(moves, solver.MAX_NODE_BUDGET)
        assert pons_scores(result) == [int(s) for s in scores], moves


def test_a_column_not_solved_within_the_budget_keeps_bounds_not_a_score():
    """Over budget, the columns not solved keep bounds that hold (Pons' labels of
    "13463334": -3 -3 -3 -3 -3 -2 -2), none reported as a score or as full."""
    result = solver.Solver(table_bits=16).analyze("13463334", node_budget=20_000)
    assert not result.solved and result.nodes == 20_000
    labels = [-3, -3, -3, -3, -3, -2, -2]
    for lo, hi, exact in zip(result.lower, result.upper, labels, strict=True):
        assert lo is not None and lo <= exact <= hi
    assert solver.INVALID not in pons_scores(result)  # no column is full


def test_known_scores():
    """Pons' tutorial and solver: "4455" -> -4 -3 18 2 2 18 -3 for each column;
    "44554" -> -17 -17 -2 -17 -17 -3 -17."""
    shared = solver.Solver()
    assert pons_scores(shared.analyze("4455", 10**9)) == [-4, -3, 18, 2, 2, 18, -3]
    assert pons_scores(shared.analyze("44554")) == [-17, -17, -2, -17, -17, -3, -17]


@pytest.mark.kernel
@given(seed=st.integers(0, 2**32 - 1), budget=st.integers(1, 300))
def test_a_small_budget_gives_bounds_that_hold(seed, budget):
    moves = random_moves(np.random.default_rng(seed), 30)
    result = solver.Solver(table_bits=12).analyze(moves, node_budget=budget)
    assert result.nodes <= budget
    for lo, hi, exact in zip(
        result.lower, result.upper, naive.analyze(moves), strict=True
    ):
        if exact == solver.INVALID:
            assert lo is None and hi is None
        else:
            assert lo <= exact <= hi


def test_unsolved_empty_board_stops_at_the_budget(small):
    result = small.analyze("", node_budget=20_000)
    assert not result.solved and result.nodes == 20_000
    assert result.scores == (None,) * 7
    score = small.solve("", node_budget=1_000)
    assert score.score is None and score.lower < 1 < score.upper


@pytest.mark.parametrize(
    ("moves", "words"),
    [
        ("48", "'8' is not a column"),
        ("4444444", "column 4 is full"),
        ("1122334", "ends with four in a row"),
        ("11223344", "comes after four in a row"),
    ],
)
def test_bad_move_strings_are_named(moves, words):
    with pytest.raises(ValueError, match=words):
        solver.parse_moves(moves)


@pytest.mark.parametrize("budget", [0, -1, 1.5, True, solver.MAX_NODE_BUDGET + 1])
def test_bad_budgets_are_refused(small, budget):
    with pytest.raises(ValueError, match="node budget"):
        small.solve("44", node_budget=budget)


def test_bad_states_are_refused(small):
    for state in [(1, 1), (1 << 1, 0), (0, 1), "x"]:
        with pytest.raises(ValueError):
            small.solve(state)


def test_last_disc_is_a_draw(small):
    moves = "666165577462463234152541333211132724554777"  # a drawn random game
    assert pons_scores(small.analyze(moves[:-1])) == [-1000] * 6 + [0]
    assert small.solve(moves).score == 0


@pytest.mark.parametrize(
    ("score", "words"),
    [
        (1, "win with your 21st disc"),
        (18, "win with your 4th disc"),
        (0, "draw"),
        (-9, "loss to the opponent's 13th disc"),
        (None, "full"),
    ],
)
def test_describe(score, words):
    assert solver.describe(score) == words


def test_pons_labels_file_is_well_formed():
    rows = [line.split() for line in DATA.read_text().splitlines()]
    assert len(rows) >= 2000
    assert all(len(r) == 8 and 6 <= len(r[0]) <= 40 for r in rows)
    assert len({r[0] for r in rows}) == len(rows)
