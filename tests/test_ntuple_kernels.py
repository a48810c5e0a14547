"""The compiled n-tuple value and TD update against plain Python (also run with
NUMBA_DISABLE_JIT=1, see the Makefile), and the 8 symmetries."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.games import threes, twenty48
from playahead.games._board64 import pack
from playahead.kernels import fixed_patterns as fixed
from playahead.kernels import ntuple as k
from playahead.kernels import td
from tests import naive_ntuple as naive

#: every test here checks a kernel (``make test-nojit`` runs them as plain Python)
pytestmark = pytest.mark.kernel

PATTERNS = [(0, 1, 2), (4, 5, 9)]
RUNS_1_2_3 = [(0, 1, 2, 3), (4, 5, 8, 9), (10, 3, 1, 2)]


def _random_board(rng):
    return np.uint64(pack(rng.integers(0, 16, size=(4, 4)).astype(np.uint8)))


def test_value_matches_reference_on_random_boards():
    rng = np.random.default_rng(1)
    cells = k.symmetric_cells(PATTERNS)
    weights = rng.normal(size=(2, 4, 16**3)).astype(np.float32)
    for _ in range(20):
        board = _random_board(rng)
        code = int(rng.integers(4))
        want = naive.value(board, code, weights, PATTERNS)
        assert k.value(board, code, weights, cells) == want
        if code == 0:
            assert k.value_2048(board, weights, cells) == want
        assert k.value_threes(board, code, weights, cells) == want


@pytest.mark.parametrize("patterns", [PATTERNS, RUNS_1_2_3, ((3, 2, 1, 0),)])
def test_fast_lookups_read_what_value_reads(patterns):
    """Runs of 1, 2 and 3 nibbles, and a reversed pattern: the fast path (images by
    bit operations, runs) gives the same indices as the cells and the same bits."""
    rng = np.random.default_rng(5)
    cells = k.symmetric_cells(patterns)
    runs = k.pattern_runs(cells)
    size = 16 ** len(patterns[0])
    weights = rng.normal(size=(len(patterns), 4, size)).astype(np.float32)
    flat = weights.reshape(-1)
    imgs = np.empty(8, np.uint64)
    idx = np.empty(8 * len(patterns), np.int64)
    for _ in range(30):
        board = _random_board(rng)
        code = int(rng.integers(4))
        k.lookups(board, code, runs, 4, size, imgs, idx, 0, flat)
        want = [(p * 4 + code) * size + i for p, i in naive.indices(board, patterns)]
        assert idx.tolist() == want
        leaf = np.empty_like(idx)
        k.leaf_lookups(board, code, runs, 4, size, 1, 1, imgs, leaf, 0, flat)
        assert leaf.tolist() == want  # the trainer's copy of the leaf's lookups
        got = k.fast_value(board, code, flat, runs, 4, size, imgs, idx)
        assert got == k.value(board, code, weights, cells)


FOUR_RUNS = [(0, 2, 8, 10)]  # four runs of one cell: the general path


@pytest.mark.parametrize("patterns", [PATTERNS, RUNS_1_2_3, FOUR_RUNS])
@pytest.mark.parametrize("n_base", [1, 4])
def test_leaf_lookups_read_value_in_both_layouts(patterns, n_base):
    """The expectimax leaf's lookups, in the code-major layout of the weights and in
    the leaf layout (a stage's codes side by side), read what ``value`` reads for
    every code of every stage, with the same bits."""
    rng = np.random.default_rng(11)
    cells = k.symmetric_cells(patterns)
    runs = k.pattern_runs(cells)
    size = 16 ** len(patterns[0])
    stages = 3
    n_codes = stages * n_base
    weights = rng.normal(size=(len(patterns), n_codes, size)).astype(np.float32)
    leaf = k.leaf_layout(weights, n_base)
    assert leaf.shape == (weights.size,)
    p, stage, i, c = len(patterns) - 1, 2, size - 3, n_base - 1
    assert (
        leaf[((p * stages + stage) * size + i) * n_base + c]
        == weights[p, stage * n_base + c, i]
    )
    imgs = np.empty(8, np.uint64)
    idx = np.empty(8 * len(patterns), np.int64)
    for flat, stride in ((weights.reshape(-1), 1), (leaf, n_base)):
        shift = k.code_shift(size, n_base, stride)
        for _ in range(15):
            board = _random_board(rng)
            stage = int(rng.integers(stages))
            k.leaf_lookups(
                board, stage, runs, n_codes, size, n_base, stride, imgs, idx, 0, flat
            )
            for code in range(n_base):
                want = k.value(board, stage * n_base + code, weights, cells)
                assert k.read(flat, idx, 0, idx.size, code * shift) == want


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
        for p, i in naive.indices(board, PATTERNS):
            ref[p, 0, i] = np.float32(float(ref[p, 0, i]) + 0.25)
        np.testing.assert_array_equal(weights, ref)
        assert new == naive.value(board, 0, ref, PATTERNS)
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


def _train_games(
    g, n, alpha, lam, restart, rng, out, e, a, boards, cards, share, *, online=False
):
    """``td.run_games``, the trainer's way in: these tests run the kernel the trainer
    compiled instead of compiling one of their own."""
    return td.run_games(
        g,
        n,
        alpha,
        lam,
        restart,
        rng,
        out,
        (e, a),
        (boards, cards, share),
        online=online,
    )


def _rules(game):
    if game == 0:
        return (*twenty48.TABLES, 0)
    moves, rewards, _ = threes.tables(True)
    return moves, rewards, threes.BONUS_PREVIEWS["window"]


@pytest.mark.parametrize(
    ("game", "n_games", "tc", "stages", "lam", "restart"),
    [
        (0, 3, False, (), 0.0, False),
        (1, 2, False, (), 0.0, False),
        (0, 2, True, (), 0.0, False),
        (1, 1, True, (), 0.0, False),
        (0, 3, False, (5, 7), 0.0, False),  # multi-stage: 32 and 128 start new sets
        (1, 2, True, (6,), 0.0, False),  # 24
        (0, 2, False, (), 0.5, False),  # TD(lambda)
        (1, 2, False, (6,), 1.0, False),  # Monte Carlo returns, staged Threes
        (0, 2, True, (), 0.5, True),  # the default recipe: TC, lambda, restarts
        (1, 1, True, (6,), 0.5, True),
        (2, 2, False, (6,), 0.5, False),  # Threes without the preview index
    ],
)
def test_training_matches_reference(game, n_games, tc, stages, lam, restart):
    """Same seed, same games and bit for bit the same weights (and TC accumulators)
    as the plain-Python TD(lambda) / TC reference, from an optimistic start. Game 2
    is Threes with a net of one code per stage (no preview index)."""
    runs = k.pattern_runs(k.symmetric_cells(PATTERNS))
    codes = (4 if game == 1 else 1) * (len(stages) + 1)
    game = min(game, 1)
    weights = np.full((2, codes, 16**3), 0.5, np.float32)
    ref = weights.copy()
    if tc:
        e, a = np.zeros_like(weights), np.zeros_like(weights)
        ref_tc = (e.copy(), a.copy())
    else:
        e = a = np.zeros(0, np.float32)
        ref_tc = None
    out = np.empty((n_games, 3), np.int64)
    rules = _rules(game)
    rng = np.random.default_rng(11)
    ranks = np.array(stages, np.int64)
    g = td.td_game(game, weights, runs, ranks, *rules)
    n = _train_games(g, n_games, 0.1, lam, restart, rng, out, e, a, *td.NO_STARTS, 0.0)
    rows, updates = naive.train(
        game,
        n_games,
        0.1,
        ref,
        PATTERNS,
        np.random.default_rng(11),
        rules,
        ref_tc,
        stages,
        lam=lam,
        restart=restart,
    )
    assert out.tolist() == [list(r) for r in rows]
    assert n == updates > 20
    assert (n > sum(r[2] for r in rows)) == restart  # restarts add episodes
    np.testing.assert_array_equal(weights, ref)
    assert not np.array_equal(weights, np.full_like(weights, 0.5))
    base = codes // (len(stages) + 1)
    for s in range(len(stages) + 1):  # every stage's weight set was trained
        assert (weights[:, s * base : (s + 1) * base] != 0.5).any()
    if tc:
        np.testing.assert_array_equal(e, ref_tc[0])
        np.testing.assert_array_equal(a, ref_tc[1])
        assert (a >= np.abs(e)).all() and a.max() > 0


@pytest.mark.parametrize(
    ("game", "n_games", "tc", "stages", "restart", "packed"),
    [
        (0, 3, False, (), False, False),
        (1, 2, False, (), False, False),
        (0, 2, True, (), True, False),
        (0, 2, True, (), False, True),  # TC in the trainer's packed layout
        (0, 2, False, (5, 7), False, False),
        (1, 2, True, (6,), True, True),
    ],
)
def test_online_training_matches_reference(game, n_games, tc, stages, restart, packed):
    """Online TD(0) (each afterstate learned once the next one is chosen): the same
    games and bit for bit the same weights and accumulators as the plain-Python
    reference, and not the weights of the backward pass after each game."""
    runs = k.pattern_runs(k.symmetric_cells(PATTERNS))
    codes = (4 if game == 1 else 1) * (len(stages) + 1)
    weights = np.full((2, codes, 16**3), 0.5, np.float32)
    ref, backward = weights.copy(), weights.copy()
    e, a = np.zeros_like(weights), np.zeros_like(weights)
    ref_tc = (e.copy(), a.copy()) if tc else None
    rules, ranks = _rules(game), np.array(stages, np.int64)
    out = np.empty((n_games, 3), np.int64)
    if packed:
        net = td.pack(weights, e, a)
        g = td.td_game(game, net, runs, ranks, *rules, spread=3)
        e_k = a_k = np.zeros(0, np.float32)
    else:
        g = td.td_game(game, weights, runs, ranks, *rules)
        e_k, a_k = (e, a) if tc else (np.zeros(0, np.float32),) * 2
    rng = np.random.default_rng(5)
    n = _train_games(
        g,
        n_games,
        0.1,
        0.0,
        restart,
        rng,
        out,
        e_k,
        a_k,
        *td.NO_STARTS,
        0.0,
        online=True,
    )
    if packed:
        td.unpack(net, weights, e, a)
    rows, updates = naive.train(
        game,
        n_games,
        0.1,
        ref,
        PATTERNS,
        np.random.default_rng(5),
        rules,
        ref_tc,
        stages,
        restart=restart,
        online=True,
    )
    assert out.tolist() == [list(r) for r in rows]
    assert n == updates > 20
    np.testing.assert_array_equal(weights, ref)
    if tc:
        np.testing.assert_array_equal(e, ref_tc[0])
        np.testing.assert_array_equal(a, ref_tc[1])
        assert a.max() > 0
    gb = td.td_game(game, backward, runs, ranks, *rules)
    none = np.zeros(0, np.float32)
    _train_games(
        gb,
        n_games,
        0.1,
        0.0,
        restart,
        np.random.default_rng(5),
        out.copy(),
        *(none, none) if not tc else (np.zeros_like(e), np.zeros_like(a)),
        *td.NO_STARTS,
        0.0,
    )
    assert not np.array_equal(weights, backward)


def _train_kernel(game, lam, weights, seed=3, n_games=2, starts=td.NO_STARTS, share=0):
    runs = k.pattern_runs(k.symmetric_cells(PATTERNS))
    none = np.zeros(0, np.float32)
    out = np.empty((n_games, 3), np.int64)
    rng = np.random.default_rng(seed)
    g = td.td_game(game, weights, runs, (), *_rules(game))
    _train_games(g, n_games, 0.1, lam, False, rng, out, none, none, *starts, share)
    return out


@pytest.mark.parametrize(
    ("game", "stages", "stop", "lam"),
    [
        (1, (5, 6), 6, 0.0),  # Threes: stage 12 .. 23 stops at the first 24
        (1, (5, 6), 6, 0.5),
        (0, (5, 6), 6, 0.5),  # 2048: stops at the first 64
    ],
)
def test_stage_stop_trains_one_stage_against_the_next(game, stages, stop, lam):
    """Games from positions of the middle stage that stop at the next stage's first
    afterstate: the same bits as the reference, only the middle stage's weights
    move, and the last afterstate's value is the target (not 0)."""
    runs = k.pattern_runs(k.symmetric_cells(PATTERNS))
    base = 1 if game == 0 else 4
    rng = np.random.default_rng(3)
    weights = rng.normal(5.0, 1.0, size=(2, base * 3, 16**3)).astype(np.float32)
    ref = weights.copy()
    e = a = np.zeros(0, np.float32)
    rules = _rules(game)
    # starts whose largest rank is in the middle stage (5 .. stop - 1), the rest small
    grid = np.array([[stages[0], 1, 2, 0], [1, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    board = np.uint64(pack(grid.astype(np.uint8)))
    cards = threes.pack_cards(4, 4, 4, 1, 1) if game == 1 else 0
    boards, cards_at = np.array([board], np.uint64), np.array([cards], np.int64)
    out = np.empty((3, 3), np.int64)
    g = td.td_game(game, weights, runs, stages, *rules, stop_rank=stop)
    rng = np.random.default_rng(4)
    n = _train_games(g, 3, 0.1, lam, False, rng, out, e, a, boards, cards_at, 1.0)
    rows, updates = naive.train(
        game,
        3,
        0.1,
        ref,
        PATTERNS,
        np.random.default_rng(4),
        rules,
        None,
        stages,
        lam=lam,
        starts=[(board, cards)],
        share=1.0,
        stop_rank=stop,
    )
    assert out.tolist() == [list(r) for r in rows]
    assert n == updates > 10
    assert (out[:, 1] == stop).all()  # every game reached the next stage and stopped
    np.testing.assert_array_equal(weights, ref)
    original = np.random.default_rng(3).normal(5.0, 1.0, size=weights.shape)
    moved = weights != original.astype(np.float32)
    assert [moved[:, s * base : (s + 1) * base].any() for s in range(3)] == [
        False,
        True,
        False,
    ]


def test_lambda_changes_the_targets_and_zero_is_td0():
    """lambda = 0 is TD(0) bit for bit (the reference's TD(0) pass); lambda = 0.5
    learns other weights from the same games."""
    w0 = np.zeros((2, 1, 16**3), np.float32)
    ref = w0.copy()
    _train_kernel(0, 0.0, w0)
    naive.train(0, 2, 0.1, ref, PATTERNS, np.random.default_rng(3), _rules(0))
    np.testing.assert_array_equal(w0, ref)
    half = np.zeros_like(w0)
    _train_kernel(0, 0.5, half)
    assert not np.array_equal(half, w0)


@pytest.mark.parametrize("game", [0, 1])
def test_games_start_from_saved_positions(game):
    """With share 1 every game starts from one of the saved positions (the same one
    the reference picks), and a saved position's points count from there."""
    rng = np.random.default_rng(4)
    rules = _rules(game)
    saved = []
    for _ in range(3):  # positions 20 moves into greedy games of an empty net
        w = np.zeros((2, 4, 16**3), np.float32)
        _, _, _, _, _, positions = naive.play(game, w, PATTERNS, rng, *rules)
        saved.append(positions[min(20, len(positions) - 1)])
    boards = np.array([b for b, _ in saved], np.uint64)
    cards = np.array([c for _, c in saved], np.int64)
    codes = 1 if game == 0 else 4
    weights = np.zeros((2, codes, 16**3), np.float32)
    ref = weights.copy()
    out = _train_kernel(game, 0.5, weights, 9, 4, (boards, cards), 1.0)
    rows, _ = naive.train(
        game,
        4,
        0.1,
        ref,
        PATTERNS,
        np.random.default_rng(9),
        rules,
        lam=0.5,
        starts=saved,
        share=1.0,
    )
    assert out.tolist() == [list(r) for r in rows]
    np.testing.assert_array_equal(weights, ref)
    assert (out[:, 2] > 0).all()


def test_staged_code_counts_the_stages_the_largest_tile_reaches():
    board = np.uint64(twenty48.from_faces(np.array([[2, 4, 0, 0]] + [[0] * 4] * 3)))
    stages = np.array([2, 3, 5], np.int64)  # largest rank here: 2 (a 4)
    assert k.staged(board, 1, 4, stages) == 1 + 4 * 1
    assert k.staged(board, 0, 1, stages[:0]) == 0
    assert k.staged(board, 2, 4, np.array([1, 2], np.int64)) == 2 + 4 * 2
    assert k.staged(board, 3, 4, np.array([3], np.int64)) == 3
    for code in range(4):
        got = k.staged(board, code, 4, stages)
        assert got == naive.staged(board, code, 4, tuple(stages))


@pytest.mark.parametrize("depth", [1, 2])
def test_search_driven_games_play_the_planners_moves(depth, monkeypatch):
    """A search-driven training game (Threes) plays, at every position, the move the
    expectimax planner values highest (the first of equals) at that depth and 0.01
    cut-off over the same net with leaves clamped at 0, and its trail holds that
    move's afterstate."""
    import types

    import gymnasium as gym

    import playahead.envs  # noqa: F401
    from playahead.planners import expectimax

    rng = np.random.default_rng(8)
    cells = k.symmetric_cells(PATTERNS)
    runs = k.pattern_runs(cells)
    stages = np.array([7], np.int64)  # a second weight set from the first 48
    weights = rng.normal(scale=20.0, size=(2, 8, 16**3)).astype(np.float32)
    moves, rewards, bonus = _rules(1)
    g = td.td_game(1, weights, runs, stages, moves, rewards, bonus)
    search = td.fixed_search(g, depth, 16)
    # test-nojit runs the search as plain Python: the game's first 40 moves, 10 checked
    plain = bool(numba.config.DISABLE_JIT)
    trail = td.trail_buffers(runs, 40 if plain else 4000, True)
    states, cards_at = trail.states, trail.cards
    _, _, n = td.play(g, np.random.default_rng(21), trail, 0, 0, search)
    assert n > 20
    model = types.SimpleNamespace(
        cells=cells,
        weights=weights,
        n_base=4,
        stage_ranks=stages,
        step=1.0,
        check_position=lambda *a: None,
    )
    monkeypatch.setattr(
        expectimax, "_load_leaf", lambda spec: expectimax._Leaf(model, clamp=True)
    )
    agent = expectimax.ExpectimaxAgent(
        depth=depth, prob_cutoff=0.01, evaluator="ntuple:path=unused", seed=0
    )
    env = gym.make("Threes-v0").unwrapped
    env.reset(seed=0)
    imgs, idx = np.empty(8, np.uint64), np.empty(8 * len(PATTERNS), np.int64)
    greedy_differs = 0
    for t in range(0, n, max(1, n // (10 if plain else 40))):
        state = env.clone_state()
        env.restore_state(
            type(state)(int(states[t]), int(cards_at[t]), t, "window", True)
        )
        values = agent.analyze(env).values  # the search's (act breaks ties at random)
        action = int(np.nanargmax(values))  # the first of the best, as training takes
        after, moved, _ = threes.move(states[t], action, moves, rewards)
        assert moved
        code = k.staged(after, k.preview_code(cards_at[t]), 4, stages)
        k.lookups(after, code, runs, 8, 16**3, imgs, idx, 0, weights.reshape(-1))
        assert trail.afters[t].tolist() == idx.tolist()
        greedy = []  # the greedy move of the same position, for contrast
        for a in range(4):
            aft, ok, r = threes.move(states[t], a, moves, rewards)
            if ok:
                c = k.staged(aft, k.preview_code(cards_at[t]), 4, stages)
                v = k.value(aft, c, weights, cells)
                greedy.append((r + v, -a))
        greedy_differs += -max(greedy)[1] != action
    assert greedy_differs > 0  # the search is not the greedy player in disguise


#: sha256 of (weights, TC accumulators, per-game rows) after six 2048 games from zeros
#: with seed 0 on the PATTERNS net, as the trainer made them before its speed-ups: a
#: run resumed from a checkpoint must go on with exactly the same bits.
PINNED = {
    "TD(0)": "0f850b673f3b2c4da53959e02e1f54fd0c1e09b96ed9ff1f26cd1d3e2d3cb565",
    "recipe": "35f179a6e51657168a0e7db11be080c55c514dbc27db4e3bc5bde7c46e10ebc3",
}


@pytest.mark.parametrize(
    ("name", "tc", "lam", "restart", "rate", "packed"),
    [
        ("TD(0)", False, 0.0, False, 0.1, False),
        ("recipe", True, 0.5, True, 1.0, False),
        ("recipe", True, 0.5, True, 1.0, True),  # td.pack's layout, as trained
    ],
)
def test_training_keeps_its_pinned_bits(name, tc, lam, restart, rate, packed):
    import hashlib

    runs = k.pattern_runs(k.symmetric_cells(PATTERNS))
    weights = np.zeros((2, 1, 16**3), np.float32)
    e = np.zeros_like(weights) if tc else np.zeros(0, np.float32)
    a = np.zeros_like(weights) if tc else np.zeros(0, np.float32)
    out = np.empty((6, 3), np.int64)
    rng = np.random.default_rng(0)
    if packed:
        both = td.pack(weights, e, a)
        g = td.td_game(0, both, runs, (), *twenty48.TABLES, spread=3)
        none = np.zeros(0, np.float32)
        _train_games(g, 6, rate, lam, restart, rng, out, none, none, *td.NO_STARTS, 0)
        td.unpack(both, weights, e, a)
    else:
        g = td.td_game(0, weights, runs, (), *twenty48.TABLES)
        _train_games(g, 6, rate, lam, restart, rng, out, e, a, *td.NO_STARTS, 0.0)
    digest = hashlib.sha256()
    for array in (weights, e, a, out):
        digest.update(array.tobytes())
    assert digest.hexdigest() == PINNED[name]


# ---------------------------------------------------- the fixed pattern kernels
FIXED_KINDS = range(1, len(fixed.FIXED) + 1)


@pytest.mark.parametrize("kind", FIXED_KINDS)
@settings(max_examples=25, deadline=None)
@given(
    board=st.integers(0, 2**64 - 1),
    code=st.integers(0, 3),
    spread=st.sampled_from([1, 3]),
    stride=st.sampled_from([1, 4]),
)
def test_fixed_kernels_write_the_general_lookups(kind, board, code, spread, stride):
    """Each set's compiled kernel writes, for any board, code, spread (the trainer's
    packed layout) and stride (the leaf layout), the indices of the general path."""
    runs = fixed.runs_of(fixed.FIXED[kind - 1])
    assert fixed.kind_of(runs) == kind
    width = 8 * runs.shape[0]
    size = 16 ** len(fixed.FIXED[kind - 1][0])
    flat = np.zeros(8, np.float32)  # only prefetched: any address is harmless
    imgs = np.empty(8, np.uint64)
    want, got = np.zeros(width + 3, np.int64), np.zeros(width + 3, np.int64)
    b = np.uint64(board)
    k.lookups(b, code, runs, 4, size, imgs, want, 3, flat, spread, 0)
    k.lookups(b, code, runs, 4, size, imgs, got, 3, flat, spread, kind)
    assert got.tolist() == want.tolist()
    stage, n_base = code % 3, stride
    args = (runs, 3 * n_base, size, n_base, stride, imgs)
    k.leaf_lookups(b, stage, *args, want, 3, flat, 0)
    k.leaf_lookups(b, stage, *args, got, 3, flat, kind)
    assert got.tolist() == want.tolist()


def test_fixed_kinds_are_found_and_their_source_is_current():
    """A net of a listed set gets its kind (in the trainer's game and the search's
    leaf), any other set the general path; ``_fixed.py`` is what the generator
    writes today (``python -m playahead.kernels.fixed_patterns``)."""
    from playahead.kernels.expectimax import leaf_net

    for kind, patterns in enumerate(fixed.FIXED, 1):
        runs = fixed.runs_of(patterns)
        weights = np.zeros((len(patterns), 1, 1), np.float32)
        game = td.td_game(0, weights, runs, [], *twenty48.TABLES)
        assert game.kind == kind
        assert leaf_net(weights, runs, 1, []).kind == kind
    assert fixed.kind_of(fixed.runs_of(("012345", "456789"))) == 0
    assert fixed.kind_of(k.pattern_runs(k.symmetric_cells(PATTERNS))) == 0
    assert fixed.TARGET.read_text() == fixed.source()
