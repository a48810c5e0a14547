"""The expectimax planner: compiled search vs the plain-Python reference, chance
probabilities, fairness, determinism and errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playahead
from benchmarks.speed import naive_expectimax as naive
from playahead.envs.tiles import Twenty48Env
from playahead.games import threes, twenty48
from playahead.kernels import expectimax as kernels
from playahead.planners.evaluators import evaluate, get_evaluator
from playahead.planners.expectimax import LEARNED_AUTO, ExpectimaxAgent
from tests.helpers.expectimax import (
    assert_ignores_the_env_generator,
    assert_values_match,
    env_2048,
    env_threes,
    random_2048,
    random_preview,
    random_threes,
)

#: The hand-made 2048 evaluator the plain-Python reference scores with (the default
#: is the shipped net).
MONOTONIC = {"evaluator": "monotonic"}


def analyze(env, **options):
    return ExpectimaxAgent(seed=0, **options).analyze(env)


# ---------------------------------------------------------------- vs the reference


@pytest.mark.kernel
@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n_tiles=st.integers(3, 15))
def test_2048_depth_1_matches_reference(seed, n_tiles):
    faces = random_2048(np.random.default_rng(seed), n_tiles)
    if twenty48.is_over(twenty48.from_faces(faces), *twenty48.TABLES):
        return
    for cutoff, tt in ((0.0, True), (0.04, False)):
        got = analyze(
            env_2048(faces), depth=1, prob_cutoff=cutoff, transposition=tt, **MONOTONIC
        )
        assert_values_match(got.values, naive.values_2048(faces.tolist(), 1, cutoff))


@pytest.mark.kernel
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("cutoff", "tt"), [(0.0, True), (0.01, False)])
def test_2048_depth_2_matches_reference(seed, cutoff, tt):
    faces = random_2048(np.random.default_rng(seed), 11)
    got = analyze(
        env_2048(faces), depth=2, prob_cutoff=cutoff, transposition=tt, **MONOTONIC
    )
    assert_values_match(got.values, naive.values_2048(faces.tolist(), 2, cutoff))


@pytest.mark.kernel
def test_2048_score_evaluator_matches_reference():
    faces = random_2048(np.random.default_rng(7), 10)
    got = analyze(env_2048(faces, score=100), depth=1, evaluator="score")
    ref = naive.values_2048(faces.tolist(), 1, 1e-4, "score")
    assert got.value_kind == "score"  # the expected score: 100 so far + what comes
    assert_values_match(got.values - 100, ref)


@pytest.mark.kernel
@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_cards=st.integers(4, 14),
    top_rank=st.integers(3, 10),
    deck=st.tuples(*[st.integers(0, 4)] * 3),
)
def test_threes_depth_1_matches_reference(seed, n_cards, top_rank, deck):
    rng = np.random.default_rng(seed)
    faces = random_threes(rng, n_cards, top_rank)
    if threes.is_over(threes.from_faces(faces), *threes.tables(True)[:2]):
        return
    preview, cards = random_preview(rng, int(faces.max()))
    for cutoff, tt in ((0.0, True), (0.05, False)):
        env = env_threes(faces, deck, preview)
        got = analyze(
            env, depth=1, prob_cutoff=cutoff, transposition=tt, evaluator="features"
        )
        ref = naive.values_threes(faces.tolist(), deck, cards, 1, cutoff)
        assert_values_match(got.values, ref)


@pytest.mark.kernel
@pytest.mark.parametrize(("seed", "top_rank"), [(0, 5), (1, 8)])
def test_threes_depth_2_matches_reference(seed, top_rank):
    faces = random_threes(np.random.default_rng(seed), 11, top_rank)
    env = env_threes(faces, (1, 2, 0), (3, 3))
    got = analyze(env, depth=2, prob_cutoff=1e-3, evaluator="features")
    ref = naive.values_threes(faces.tolist(), (1, 2, 0), [3], 2, 1e-3)
    assert_values_match(got.values, ref)


# ---------------------------------------------------------------- chance is exact


def face_sum_table(game):
    """Half the sum of the face values of each line: rows + columns = the tile sum."""
    rows = np.arange(1 << 16)
    ranks = [(rows >> (4 * i)) & 0xF for i in range(4)]
    to_face = np.array(
        [0] + [2**r for r in range(1, 16)] if game == "2048" else threes.card_values(),
        dtype=np.float64,
    )
    return sum(to_face[r] for r in ranks) / 2.0


def search(game, faces, depth, cards=0, table=None):
    """The compiled search with a custom evaluator table, everything expanded."""
    moves, rewards = twenty48.TABLES if game == "2048" else threes.tables(True)[:2]
    counters = np.array([0, 0, 1 << 62], np.int64)
    ctx = kernels.search_context(moves, rewards, table, kernels.new_table(10), counters)
    cfg = kernels.search_config(0.0, 0.0, 1, 10, True)
    if game == "2048":
        board = np.uint64(twenty48.from_faces(faces))
        return kernels.root_2048(board, np.int64(depth), ctx, cfg, None)
    board = np.uint64(threes.from_faces(faces))
    return kernels.root_threes(board, np.int64(cards), np.int64(depth), ctx, cfg, None)


OPEN_2048 = [[2, 0, 0, 0], [4, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]]


@pytest.mark.kernel
def test_2048_spawns_a_two_with_probability_0_9_on_any_empty_cell():
    values = search("2048", OPEN_2048, 2, table=np.ones(1 << 16))  # 8 lines of 1
    assert np.allclose(values[~np.isnan(values)], 8.0, rtol=1e-12)
    # Merges keep the tile sum, so each spawn adds 0.9 * 2 + 0.1 * 4 = 2.2 to it.
    values = search("2048", OPEN_2048, 2, table=face_sum_table("2048"))
    assert np.allclose(values[~np.isnan(values)], 14 + 2 * 2.2, rtol=1e-12)


OPEN_THREES = [[1, 0, 0, 3], [0, 0, 0, 0], [0, 2, 0, 0], [6, 0, 0, 0]]


@pytest.mark.kernel
@pytest.mark.parametrize(
    ("deck", "expected"),
    [
        ((0, 0, 1), 3 + 2),  # surely a 3; then a refilled deck: (4 + 8 + 12) / 12
        ((1, 0, 0), 1 + 2),
        ((0, 2, 0), 2 + 2),
        ((2, 1, 1), 7 / 4 + 7 / 4),  # two draws without replacement, same mean
        ((0, 0, 0), 2 + 2),  # refilled at once
    ],
)
def test_threes_deck_counting(deck, expected):
    cards = threes.pack_cards(*deck, 2, 2)  # the previewed 2 enters first
    values = search("Threes", OPEN_THREES, 2, cards, face_sum_table("Threes"))
    assert np.allclose(values[~np.isnan(values)], 12 + 2 + expected, rtol=1e-12)


@pytest.mark.kernel
def test_threes_bonus_cards_once_48_is_on_the_board():
    faces = [[1, 0, 0, 3], [0, 0, 0, 0], [0, 2, 0, 0], [96, 0, 0, 0]]  # bonus 6 or 12
    cards = threes.pack_cards(0, 0, 1, 3, 3)
    values = search("Threes", faces, 1, cards, face_sum_table("Threes"))
    expected = 102 + 3 + 20 / 21 * 3 + 1 / 21 * (6 + 12) / 2
    assert np.allclose(values[~np.isnan(values)], expected, rtol=1e-12)
    for deck in ((0, 0, 1), (4, 4, 4), (0, 0, 0)):  # probabilities sum to one
        cards = threes.pack_cards(*deck, 4, 5)  # a bonus window (6 or 12)
        values = search("Threes", faces, 2, cards, np.ones(1 << 16))
        assert np.allclose(values[~np.isnan(values)], 8.0, rtol=1e-12)


# ---------------------------------------------------------------- evaluators


@pytest.mark.kernel
@pytest.mark.parametrize(
    ("name", "game", "line_score"),
    [
        ("monotonic", "2048", naive.monotonic_line),
        ("openness", "Threes", naive.openness_line),
        ("features", "Threes", naive.features_line),
    ],
)
def test_evaluator_tables_equal_slow_line_scores(name, game, line_score):
    table = get_evaluator(name, game).table
    rows = np.random.default_rng(0).integers(0, 1 << 16, size=3000).tolist()
    for row in rows + [0, 0xFFFF, 0x1234, 0x4321, 0x2211]:
        ranks = [(row >> (4 * i)) & 0xF for i in range(4)]
        assert table[row] == pytest.approx(line_score(ranks), rel=1e-12)


@pytest.mark.kernel
def test_threes_score_evaluator_is_the_score():
    rng = np.random.default_rng(1)
    table = get_evaluator("score", "Threes").table
    for _ in range(50):
        faces = random_threes(rng, 12, 12)
        board = threes.from_faces(faces)
        assert evaluate(board, table) == threes.score_faces(faces)


# ---------------------------------------------------------------- agent behaviour


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), n_tiles=st.integers(12, 16))
def test_never_chooses_an_illegal_move(seed, n_tiles):
    faces = random_2048(np.random.default_rng(seed), n_tiles)
    board = twenty48.from_faces(faces)
    mask = twenty48.legal_mask(board, *twenty48.TABLES)
    if not mask.any():
        return
    analysis = analyze(env_2048(faces), depth=2)
    assert mask[analysis.action]
    assert np.array_equal(np.isnan(analysis.values), ~mask)


def test_same_seed_same_decision_even_on_ties():
    symmetric = env_2048([[2, 0, 0, 2], [0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 0, 2]])
    actions = set()
    for seed in range(8):  # every move merges two pairs: four values of exactly 8
        first, again = (
            ExpectimaxAgent(depth=0, evaluator="score", seed=seed).analyze(symmetric)
            for _ in range(2)
        )
        assert first.action == again.action
        assert np.array_equal(first.values, again.values, equal_nan=True)
        actions.add(first.action)
    assert len(actions) > 1  # four equal values: the seed decides


def test_threes_decision_ignores_the_env_generator():
    assert_ignores_the_env_generator(lambda: ExpectimaxAgent(depth=2, seed=3))


def test_transposition_table_saves_work_without_changing_values():
    faces = random_2048(np.random.default_rng(3), 8)
    on = analyze(env_2048(faces), depth=2, prob_cutoff=0.0)
    off = analyze(env_2048(faces), depth=2, prob_cutoff=0.0, transposition=False)
    assert np.array_equal(on.values, off.values, equal_nan=True)
    assert on.stats["tt_hits"] > 0 and on.stats["nodes"] < off.stats["nodes"]


def test_expectimax_beats_greedy_on_2048():
    def play(agent, seed):
        env = gym.make("2048-v0")
        env.reset(seed=seed)
        for _ in range(1500):  # greedy ends long before; expectimax may not
            _, _, over, _, info = env.step(agent.act(env))
            if over:
                break
        return info["score"]

    greedy = [play(playahead.make_agent("greedy", seed=s), s) for s in range(3)]
    smart = [play(ExpectimaxAgent(depth=1, seed=s), s) for s in range(3)]
    assert np.mean(smart) > np.mean(greedy)


def test_make_agent_and_stats():
    agent = playahead.make_agent("expectimax:depth=1,evaluator=score")
    analysis = agent.analyze(env_2048(OPEN_2048))
    assert analysis.value_kind == "score"
    assert analysis.stats["depth"] == 1 and analysis.stats["nodes"] > 0
    # Threes' default: the shipped net's expected final scores, always to max_depth
    default = ExpectimaxAgent(seed=0).analyze(env_threes(OPEN_THREES))
    assert default.value_kind == "score" and default.stats["evaluator"] == "ntuple"
    assert default.stats["depth"] == LEARNED_AUTO["max_depth"]
    hand_made = ExpectimaxAgent(seed=0, evaluator="features")
    features = hand_made.analyze(env_threes(OPEN_THREES))
    assert features.value_kind == "eval" and features.stats["evaluator"] == "features"
    assert features.stats["depth"] == 6
    board = ExpectimaxAgent(seed=0, min_depth=3).analyze(env_threes(OPEN_THREES))
    assert board.stats["depth"] == 3  # 4 distinct cards: max(3, 4 - 2)
    timed = ExpectimaxAgent(time_limit=0.05, seed=0).analyze(env_2048(OPEN_2048))
    assert timed.stats["depth"] >= 1  # iterative deepening: at least depth 1


def test_bad_input_raises_value_error():
    tictactoe = gym.make("TicTacToe-v0")
    tictactoe.reset(seed=0)
    subclass = Modified2048()  # may change the rules: not for the compiled search
    subclass.reset(seed=0)
    for env in (tictactoe, subclass):
        with pytest.raises(ValueError, match="plays 2048-v0 and Threes-v0"):
            ExpectimaxAgent(depth=1).act(env)
    with pytest.raises(ValueError, match="is not for Threes"):
        ExpectimaxAgent(evaluator="monotonic").act(env_threes(OPEN_THREES))
    bad = dict(depth=-1, prob_cutoff=1.5, evaluator="nope", tt_bits=3, max_depth=0)
    for key, value in bad.items():
        with pytest.raises(ValueError, match=key):
            ExpectimaxAgent(**{key: value})
    full = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    with pytest.raises(ValueError, match="game is over"):
        ExpectimaxAgent(depth=1).act(env_2048(full))


class Modified2048(Twenty48Env):
    """A subclass of the 2048 env."""
