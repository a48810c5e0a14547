"""``bonus_odds="window"``: below the root, a Threes bonus card's value has the
marginal of the game's own draw (a window of up to three consecutive values first,
then the card uniform in it), not each value alike. The compiled search against the
plain-Python reference, which counts the draw window by window, with hand-made and
with learned leaves; the default (``"uniform"``) is the agent of before."""

from __future__ import annotations

import re

import numpy as np
import pytest

from benchmarks.speed import naive_expectimax as naive
from playahead.agents import make_agent, resolved_options
from playahead.games import chance, threes
from playahead.planners.expectimax import ExpectimaxAgent
from tests import naive_ntuple
from tests.helpers.expectimax import (
    CELLS,
    assert_values_match,
    env_threes,
    model_dir,
    random_preview,
    random_threes,
    weights_of,
)

#: every test here checks a kernel (``make test-nojit`` runs them as plain Python)
pytestmark = pytest.mark.kernel

THREES = "Threes-v0"


@pytest.mark.parametrize("n", range(1, 10))
def test_the_kernel_odds_are_the_draw_counted_window_by_window(n):
    for window in (False, True):
        want = naive.bonus_odds(n, window)
        got = [chance.bonus_p(j, n, window) for j in range(n)]
        assert got == pytest.approx([chance.BONUS_PROBABILITY * w for w in want])
        assert sum(got) == pytest.approx(chance.BONUS_PROBABILITY)


def test_the_odds_of_the_rules_example():
    # the rules: with a 768 on the board (values 6 .. 96) the marginals are
    # 1/9, 2/9, 3/9, 2/9, 1/9
    ninths = [1, 2, 3, 2, 1]
    assert naive.bonus_odds(5, True) == pytest.approx([k / 9 for k in ninths])
    # up to three values, the window holds them all: each alike
    assert naive.bonus_odds(3, True) == pytest.approx([1 / 3] * 3)


def late_board(rng, top_rank):
    """A random board whose largest card has ``top_rank`` (768 and up: at least five
    bonus values, where the odds differ), with room to move."""
    while True:
        faces = random_threes(rng, int(rng.integers(8, 12)), top_rank - 1)
        faces[np.unravel_index(int(rng.integers(16)), (4, 4))] = threes.card_values()[
            top_rank
        ]
        if not threes.is_over(threes.from_faces(faces), *threes.tables(True)[:2]):
            return faces


@pytest.mark.parametrize(("seed", "top_rank"), [(0, 11), (1, 12), (2, 13)])
def test_features_search_matches_reference(seed, top_rank):
    rng = np.random.default_rng(seed)
    faces = late_board(rng, top_rank)
    deck = tuple(int(x) for x in rng.integers(0, 3, 3))
    preview, cards = random_preview(rng, int(faces.max()))
    env = env_threes(faces, deck, preview)
    got = ExpectimaxAgent(
        seed=0, depth=1, prob_cutoff=0.0, evaluator="features", bonus_odds="window"
    ).analyze(env)
    want = naive.values_threes(faces.tolist(), deck, cards, 1, 0.0, window=True)
    assert_values_match(got.values, want)
    # and the odds acted: the uniform search values the same moves otherwise
    uniform = naive.values_threes(faces.tolist(), deck, cards, 1, 0.0)
    assert not np.allclose(
        [np.nan if v is None else v for v in want],
        [np.nan if v is None else v for v in uniform],
        equal_nan=True,
    )


@pytest.mark.parametrize(
    ("seed", "depth", "cutoff", "tt"),
    [(0, 1, 0.0, True), (1, 2, 5e-3, False), (2, 2, 1e-2, True), (3, 2, 2e-2, False)],
)
def test_learned_search_matches_reference(tmp_path, seed, depth, cutoff, tt):
    """Cut-offs where some bonus values of a node are leaves and others not: the
    middle ones are likelier, so they are searched on where the edges stop."""
    rng = np.random.default_rng(seed)
    path = model_dir(tmp_path, THREES, seed)
    weights = weights_of(path)
    faces = late_board(rng, int(rng.integers(11, 13)))
    deck = tuple(int(x) for x in rng.integers(0, 3, 3))
    preview, cards = random_preview(rng, int(faces.max()))
    agent = ExpectimaxAgent(
        depth=depth,
        prob_cutoff=cutoff,
        transposition=tt,
        evaluator=f"ntuple:path={path}",
        bonus_odds="window",
        seed=0,
    )
    got = agent.analyze(env_threes(faces, deck, preview))
    want = naive_ntuple.expectimax_threes(
        faces.tolist(), deck, cards, depth, cutoff, weights, CELLS, window=True
    )
    assert_values_match(got.values, want)


def test_uniform_is_the_agent_of_before():
    assert resolved_options("expectimax:bonus_odds=uniform", THREES) == (
        resolved_options("expectimax", THREES)
    )
    got = resolved_options("expectimax:bonus_odds=window", THREES)
    assert got["bonus_odds"] == "window"
    # 2048 has no bonus cards: the option cannot act, so it is the same agent
    assert resolved_options("expectimax:bonus_odds=window", "2048-v0") == (
        resolved_options("expectimax", "2048-v0")
    )


def test_a_bad_value_gets_a_one_line_error():
    with pytest.raises(ValueError, match=re.escape("bonus_odds='exact' is not")) as err:
        make_agent("expectimax:bonus_odds=exact")
    assert "uniform" in str(err.value) and "\n" not in str(err.value)
