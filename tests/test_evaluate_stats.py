"""Statistics of the evaluator on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.evaluate import stats


def test_bootstrap_interval_covers_the_true_mean_about_95_percent():
    rng = np.random.default_rng(0)
    trials, hits = 200, 0
    for _ in range(trials):
        sample = rng.normal(10.0, 3.0, size=60)
        lo, hi = stats.bootstrap_mean_ci(sample, rng, n_resamples=1000)
        hits += lo <= 10.0 <= hi
    # Binomial(200, ~0.94): 3 sd is about 5 points either way.
    assert 0.88 <= hits / trials <= 0.99


def test_bootstrap_interval_shrinks_like_one_over_sqrt_n():
    rng = np.random.default_rng(1)
    small = rng.exponential(5.0, size=100)
    large = rng.exponential(5.0, size=1600)
    w_small = np.diff(stats.bootstrap_mean_ci(small, np.random.default_rng(2)))[0]
    w_large = np.diff(stats.bootstrap_mean_ci(large, np.random.default_rng(2)))[0]
    assert 2.5 < w_small / w_large < 6.0


def test_bootstrap_is_reproducible_and_brackets_the_mean():
    x = np.arange(20.0)
    a = stats.bootstrap_mean_ci(x, np.random.default_rng(5))
    b = stats.bootstrap_mean_ci(x, np.random.default_rng(5))
    assert a == b
    assert a[0] < x.mean() < a[1]
    assert stats.bootstrap_mean_ci([4.0], np.random.default_rng(0)) == (4.0, 4.0)


def test_paired_difference_sign_and_pairing_beats_unpaired_noise():
    rng = np.random.default_rng(3)
    game = rng.normal(1000.0, 300.0, size=80)  # shared luck of each game
    a = game + 25.0 + rng.normal(0.0, 5.0, size=80)
    b = game + rng.normal(0.0, 5.0, size=80)
    diff, lo, hi = stats.paired_difference(a, b, np.random.default_rng(0))
    assert 0 < lo < 25.0 < hi
    assert diff == pytest.approx(np.mean(a - b))
    rdiff, rlo, rhi = stats.paired_difference(b, a, np.random.default_rng(0))
    assert rhi < 0 and rdiff == pytest.approx(-diff)
    # The paired interval is far narrower than the spread of the scores.
    assert hi - lo < 0.1 * (np.std(a) + np.std(b))


def _simulate(true_elo, n_games_per_pair, rng, draw_rate=0.0):
    first, second, points = [], [], []
    k = len(true_elo)
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + 10 ** ((true_elo[j] - true_elo[i]) / 400.0))
            u = rng.random(n_games_per_pair)
            draw = rng.random(n_games_per_pair) < draw_rate
            pts = np.where(draw, 0.5, (u < p).astype(float))
            first += [i] * n_games_per_pair
            second += [j] * n_games_per_pair
            points += pts.tolist()
    return np.array(first), np.array(second), np.array(points)


def test_elo_orders_agents_of_known_strength_and_recovers_gaps():
    true = np.array([1200.0, 1400.0, 1500.0, 1800.0])
    first, second, points = _simulate(true, 400, np.random.default_rng(4))
    elo = stats.fit_elo(first, second, points, 4)
    assert list(np.argsort(elo)) == [0, 1, 2, 3]
    assert elo.mean() == pytest.approx(1500.0)
    gaps = np.diff(elo) - np.diff(true)
    assert np.all(np.abs(gaps) < 40.0)
    lo, hi = stats.bootstrap_elo(
        first, second, points, 4, np.random.default_rng(0), n_resamples=200
    )
    shifted = true - true.mean() + 1500.0
    assert np.all(lo < elo) and np.all(elo < hi)
    assert np.sum((lo <= shifted) & (shifted <= hi)) >= 3


def test_elo_of_even_match_is_equal_and_undefeated_stays_finite():
    first = np.array([0, 0, 1, 1])
    second = np.array([1, 1, 0, 0])
    even = stats.fit_elo(first, second, np.array([1.0, 0.0, 0.5, 0.5]), 2)
    assert even == pytest.approx([1500.0, 1500.0])
    sweep = stats.fit_elo(first, second, np.array([1.0, 1.0, 0.0, 0.0]), 2)
    assert np.all(np.isfinite(sweep)) and sweep[0] > sweep[1] + 200


def test_elo_known_value_two_agents():
    # With one virtual draw, 30 wins and 10 losses become 30.5 : 10.5 points,
    # so the gap is 400 * log10(30.5 / 10.5).
    first = np.zeros(40, dtype=int)
    second = np.ones(40, dtype=int)
    points = np.r_[np.ones(30), np.zeros(10)]
    elo = stats.fit_elo(first, second, points, 2)
    assert elo[0] - elo[1] == pytest.approx(400 * np.log10(30.5 / 10.5), abs=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=30))
def test_elo_swapping_sides_mirrors_the_ratings(points):
    pts = np.array(points)
    n = pts.size
    elo = stats.fit_elo(np.zeros(n, int), np.ones(n, int), pts, 2)
    mirror = stats.fit_elo(np.ones(n, int), np.zeros(n, int), pts, 2)
    assert elo == pytest.approx(mirror[::-1])
    assert (elo[0] > elo[1]) == (pts.mean() > 0.5)


def test_bad_inputs_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="at least one value"):
        stats.bootstrap_mean_ci([], rng)
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_difference([1.0, 2.0], [1.0], rng)
    with pytest.raises(ValueError, match="Generator"):
        stats.bootstrap_mean_ci([1.0], 3)
    with pytest.raises(ValueError, match="itself"):
        stats.fit_elo([0], [0], [1.0], 2)
    with pytest.raises(ValueError, match="0..1"):
        stats.fit_elo([0], [2], [1.0], 2)
    with pytest.raises(ValueError, match="points"):
        stats.fit_elo([0], [1], [2.0], 2)
