"""Statistics of head-to-head results: bootstrap intervals, Elo by maximum likelihood.

Every function takes its own ``np.random.Generator``; the same generator state and the
same data give the same interval. Intervals are percentile bootstrap intervals.

Elo: a Bradley-Terry model ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))`` is
fitted by maximum likelihood to all games, a draw counting half a win for each side.
One virtual draw per pair of agents that met (a weak prior, as in BayesElo) keeps the
ratings finite when an agent wins every game. Ratings are anchored so that their mean
is 1500; only differences carry meaning.
"""

from __future__ import annotations

import numpy as np

ELO_SCALE = 400.0 / np.log(10.0)  # Elo points per natural-log-odds unit
ELO_MEAN = 1500.0


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a np.random.Generator, got {type(rng).__name__}")
    return rng


def bootstrap_mean_ci(
    values,
    rng: np.random.Generator,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values``.

    Args:
        values: ``float[n]`` observations (n >= 1).
        rng: the generator that draws the resamples.
        n_resamples: bootstrap resamples.
        level: coverage of the interval, in (0, 1).

    Returns:
        ``(lo, hi)``; both equal the single value when ``n == 1``.

    Raises:
        ValueError: empty ``values``, ``n_resamples < 1`` or ``level`` outside (0, 1).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("bootstrap_mean_ci needs at least one value")
    if int(n_resamples) < 1 or not 0.0 < level < 1.0:
        raise ValueError(
            f"need n_resamples >= 1 and 0 < level < 1, got {n_resamples}, {level}"
        )
    _check_rng(rng)
    means = np.empty(int(n_resamples))
    chunk = max(1, 2_000_000 // x.size)  # bound memory: chunk * n indices at a time
    for start in range(0, means.size, chunk):
        stop = min(start + chunk, means.size)
        idx = rng.integers(0, x.size, size=(stop - start, x.size))
        means[start:stop] = x[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def paired_difference(
    a,
    b,
    rng: np.random.Generator,
    n_resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Mean of ``a - b`` over paired games with a bootstrap interval.

    Args:
        a, b: ``float[n]`` scores of two agents on the same n games (same seeds).
        rng, n_resamples, level: as in :func:`bootstrap_mean_ci`.

    Returns:
        ``(mean_difference, lo, hi)``.

    Raises:
        ValueError: ``a`` and ``b`` differ in length or are empty.
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.size} vs {b.size}")
    diff = a - b
    lo, hi = bootstrap_mean_ci(diff, rng, n_resamples, level)
    return float(diff.mean()) if diff.size else float("nan"), lo, hi


def _pair_tables(first, second, points, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """``(W, N)``: points of i against j and games between i and j, ``float[n, n]``."""
    w = np.zeros((n_agents, n_agents))
    n = np.zeros((n_agents, n_agents))
    np.add.at(w, (first, second), points)
    np.add.at(w, (second, first), 1.0 - points)
    np.add.at(n, (first, second), 1.0)
    np.add.at(n, (second, first), 1.0)
    return w, n


def _fit(w: np.ndarray, n: np.ndarray, virtual: np.ndarray) -> np.ndarray:
    """Newton's method on the Bradley-Terry log-likelihood; ratings in log-odds units,
    mean 0. ``virtual[i, j]``: virtual draws added between i and j."""
    w = w + 0.5 * virtual
    n = n + virtual
    k = w.shape[0]
    r = np.zeros(k)
    ones = np.ones((k, k))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))  # p[i, j] = P(i beats j)
        grad = (w - n * p).sum(axis=1)
        h = n * p * (1.0 - p)
        hess = h - np.diag(h.sum(axis=1))
        # The likelihood ignores a common shift; subtracting ones pins sum(step) = 0.
        step = np.linalg.lstsq(hess - ones, -grad, rcond=None)[0]
        step = np.clip(step, -4.0, 4.0)
        r = r + step
        r -= r.mean()
        if np.abs(step).max() < 1e-10:
            break
    return r


def fit_elo(first, second, points, n_agents: int, prior: float = 1.0) -> np.ndarray:
    """Elo ratings by maximum likelihood (Bradley-Terry), mean 1500.

    Args:
        first, second: ``int[g]`` agent indices of the two sides of each game.
        points: ``float[g]`` what ``first`` scored: 1 win, 0.5 draw, 0 loss.
        n_agents: number of agents (indices are ``0..n_agents-1``).
        prior: virtual draws added to every pair that met (keeps ratings finite).

    Returns:
        ``float[n_agents]`` Elo ratings. An agent that played no game gets 1500.

    Raises:
        ValueError: shapes differ, indices out of range, or points outside [0, 1].
    """
    first, second, points = _check_games(first, second, points, n_agents)
    w, n = _pair_tables(first, second, points, n_agents)
    return ELO_MEAN + ELO_SCALE * _fit(w, n, prior * (n > 0))


def bootstrap_elo(
    first,
    second,
    points,
    n_agents: int,
    rng: np.random.Generator,
    n_resamples: int = 1000,
    level: float = 0.95,
    prior: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of :func:`fit_elo`, resampling whole games.

    Returns:
        ``(lo, hi)``, each ``float[n_agents]``.
    """
    first, second, points = _check_games(first, second, points, n_agents)
    _check_rng(rng)
    g = first.size
    pair = first * n_agents + second
    cells = n_agents * n_agents
    virtual = prior * (_pair_tables(first, second, points, n_agents)[1] > 0)
    ratings = np.empty((int(n_resamples), n_agents))
    for b in range(int(n_resamples)):
        counts = np.bincount(rng.integers(0, g, size=g), minlength=g).astype(float)
        won = np.bincount(pair, weights=counts * points, minlength=cells)
        played = np.bincount(pair, weights=counts, minlength=cells)
        won = won.reshape(n_agents, n_agents)
        played = played.reshape(n_agents, n_agents)
        w = won + (played - won).T
        n = played + played.T
        ratings[b] = ELO_MEAN + ELO_SCALE * _fit(w, n, virtual)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(ratings, [alpha, 1.0 - alpha], axis=0)
    return lo, hi


def _check_games(first, second, points, n_agents: int):
    first = np.asarray(first, dtype=np.int64).ravel()
    second = np.asarray(second, dtype=np.int64).ravel()
    points = np.asarray(points, dtype=np.float64).ravel()
    if not first.size == second.size == points.size:
        raise ValueError(
            f"first, second and points differ in length: {first.size}, "
            f"{second.size}, {points.size}"
        )
    if first.size == 0:
        raise ValueError("Elo needs at least one game")
    for side in (first, second):
        if side.min() < 0 or side.max() >= n_agents:
            raise ValueError(f"agent indices must be in 0..{n_agents - 1}")
    if (first == second).any():
        raise ValueError("an agent cannot play itself in an Elo fit")
    if points.min() < 0.0 or points.max() > 1.0:
        raise ValueError("points must be 1 (win), 0.5 (draw) or 0 (loss)")
    return first, second, points
