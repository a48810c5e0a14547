"""Board evaluators for the 2048 and Threes planners, as 65536-entry row tables.

Every evaluator here is a sum of one per-line score over the four rows and the four
columns of the packed board (:func:`evaluate`), so a board costs eight table lookups.
A line is four ranks read from the wall outward (``line[0]`` is column 0 of a row, or
row 0 of a column); the scores below are symmetric enough that reading direction does
not matter.

* ``"monotonic"`` (2048): the heuristic of nneonneo's 2048-ai, per line
  ``LOST + EMPTY * empty + MERGES * merges - MONOTONICITY * min(left, right)
  - SUM * sum(rank ** 3.5)``, where ``merges`` counts the tiles in runs of equal ranks
  (gaps ignored), and ``left``/``right`` sum the rises ``rank ** 4`` toward each end.
  Weights are the published ones (200000, 270, 700, 47, 11).
* ``"openness"`` (Threes): in the spirit of Threesus's "openness": points for empty
  cells, for neighbours that can merge (1 + 2, or equal cards >= 3) and for a card next
  to the card of twice its value; a penalty for a card trapped between walls or higher
  white cards; a bonus when the line's largest card (>= 12) sits at an end of the line.
* ``"features"`` (Threes; the hand-made alternative to the n-tuple net playahead
  ships, which needs no file): a weighted sum of eleven line features
  (:data:`FEATURES`: the openness terms, nneonneo-style monotonicity in rank ** 4 and
  rank ** 2, the rank sum, small cards, stuck 1-1 / 2-2 pairs), with weights tuned by
  CMA-ES over seeded self-play (:data:`TUNED_WEIGHTS`); the table is shifted so its
  lowest line scores ``TUNED_LOST``. On 2048, ``"features"`` is ``"monotonic"``, so
  ``evaluator=features`` names the hand-made search on either game.
* ``"score"`` (both): the game's score. For Threes, half the board's score on each of
  rows and columns (the sum is the exact score). For 2048 the table is zero and the
  planner adds each move's merge reward instead (:attr:`Evaluator.reward_weight`).

Positions with no legal move are worth 0 to the planner; the heuristic tables carry a
per-line constant (``LOST``) so that every living board is worth more than that.
"""

from __future__ import annotations

import dataclasses
import functools

import numba as nb
import numpy as np

from playahead.games._board64 import transpose
from playahead.kernels.rows import evaluate_pair, score_table

__all__ = ["EVALUATORS", "Evaluator", "evaluate", "get_evaluator"]

GAMES = ("2048", "Threes")

# nneonneo/2048-ai's published heuristic weights.
MONO_LOST = 200000.0
MONO_POWER = 4.0
MONO_WEIGHT = 47.0
MONO_SUM_POWER = 3.5
MONO_SUM_WEIGHT = 11.0
MONO_MERGES_WEIGHT = 700.0
MONO_EMPTY_WEIGHT = 270.0

# Openness (per line; a board counts every cell in one row and one column): the
# constant below plus the features of :data:`OPENNESS_WEIGHTS`.
OPEN_LOST = 100.0
OPEN_EDGE_MIN_RANK = 5  # a 12: the smallest card the "edge" feature rewards


@dataclasses.dataclass(frozen=True)
class Evaluator:
    """A board evaluator ready for the compiled search.

    Attributes:
        name: the evaluator's name (a key of :data:`EVALUATORS`).
        game: ``"2048"`` or ``"Threes"``.
        table: ``float64[65536]``, the score of each 16-bit line; a board scores the sum
            over its 4 rows and 4 columns.
        reward_weight: weight of each move's merge reward added along the search path
            (1.0 for 2048's ``"score"``, else 0.0).
        value_kind: ``"eval"`` (heuristic units) or ``"score"`` (game points).
    """

    name: str
    game: str
    table: np.ndarray
    reward_weight: float
    value_kind: str


@nb.njit(cache=True)
def evaluate(board, table):
    """Sum of ``table`` over the 4 rows and 4 columns of a packed board."""
    return evaluate_pair(board, transpose(board), table)


@nb.njit(cache=True)
def monotonic_line(line):
    """nneonneo's 2048 line heuristic; [0, 0, 0, 0] -> 200000 + 4 * 270."""
    total_sum = 0.0
    empty = 0
    merges = 0
    prev = 0
    run = 0
    for i in range(4):
        rank = line[i]
        total_sum += float(rank) ** MONO_SUM_POWER
        if rank == 0:
            empty += 1
        else:
            if prev == rank:
                run += 1
            elif run > 0:
                merges += 1 + run
                run = 0
            prev = rank
    if run > 0:
        merges += 1 + run
    left = 0.0
    right = 0.0
    for i in range(1, 4):
        a = float(line[i - 1]) ** MONO_POWER
        b = float(line[i]) ** MONO_POWER
        if line[i - 1] > line[i]:
            left += a - b
        else:
            right += b - a
    return (
        MONO_LOST
        + MONO_EMPTY_WEIGHT * empty
        + MONO_MERGES_WEIGHT * merges
        - MONO_WEIGHT * min(left, right)
        - MONO_SUM_WEIGHT * total_sum
    )


@nb.njit(cache=True)
def _monotonic_table():
    """float64[65536]: :func:`monotonic_line` of every 16-bit row."""
    out = np.empty(1 << 16, dtype=np.float64)
    line = np.empty(4, dtype=np.int64)
    for row in range(1 << 16):
        for i in range(4):
            line[i] = (row >> (4 * i)) & 0xF
        out[row] = monotonic_line(line)
    return out


# Threes line features: the "features" evaluator is a weighted sum of these per line.
FEATURES = (
    "empty",  # empty cells
    "merge",  # neighbours that merge: equal cards >= 3
    "merge12",  # neighbours that merge: a 1 beside a 2
    "double",  # neighbours >= 3 where one is twice the other
    "trapped",  # cards walled in on both sides (by a wall or a higher card >= 3)
    "edge",  # the line's largest card (>= 12) at an end of the line
    "mono",  # min(rises toward either end), in rank ** 4 / 1000
    "mono2",  # the same in rank ** 2 / 10
    "ranks",  # sum of the ranks / 10
    "small",  # 1s and 2s
    "stuck",  # neighbours 1-1 or 2-2 (they cannot merge)
)
#: The openness evaluator as feature weights: its table is ``OPEN_LOST`` plus this
#: weighted sum of the features (tuning starts here too).
OPENNESS_WEIGHTS = {
    "empty": 3.0,
    "merge": 4.0,
    "merge12": 4.0,
    "double": 2.0,
    "trapped": -5.0,
    "edge": 3.0,
}
#: Weights of the ``"features"`` evaluator and the per-line constant ``lost`` that
#: keeps every living board above a dead one (0). Found by CMA-ES over depth-1
#: self-play on tuning seeds disjoint from the evaluation seeds (the distribution mean
#: after 30 generations, rounded); the command and every candidate's games are in
#: ``benchmarks/results/tune-threes/``.
TUNED_WEIGHTS: dict[str, float] = {
    "empty": 2.686,
    "merge": 9.775,
    "merge12": 15.562,
    "double": 2.103,
    "trapped": -8.856,
    "edge": -5.664,
    "mono": -3.533,
    "mono2": -3.732,
    "ranks": -10.794,
    "small": -1.785,
    "stuck": -15.530,
}
TUNED_LOST = 89.044


@nb.njit(cache=True)
def threes_line_features(line, out):
    """Write the :data:`FEATURES` of one Threes line (4 ranks) into ``out``."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    top = 0
    left = 0.0
    right = 0.0
    left2 = 0.0
    right2 = 0.0
    for i in range(4):
        c = line[i]
        top = max(top, c)
        out[8] += c / 10.0
        if c == 0:
            out[0] += 1.0
            continue
        if c <= 2:
            out[9] += 1.0
        if i < 3:
            d = line[i + 1]
            if d != 0:
                if c == d and c >= 3:
                    out[1] += 1.0
                if c + d == 3:
                    out[2] += 1.0
                if c >= 3 and d >= 3 and (c == d + 1 or d == c + 1):
                    out[3] += 1.0
                if c == d and c <= 2:
                    out[10] += 1.0
        left_wall = i == 0 or (line[i - 1] >= 3 and c < line[i - 1])
        right_wall = i == 3 or (line[i + 1] >= 3 and c < line[i + 1])
        if left_wall and right_wall:
            out[4] += 1.0
    if top >= OPEN_EDGE_MIN_RANK and (line[0] == top or line[3] == top):
        out[5] = 1.0
    for i in range(1, 4):
        a = float(line[i - 1])
        b = float(line[i])
        if a > b:
            left += (a**4 - b**4) / 1000.0
            left2 += (a**2 - b**2) / 10.0
        else:
            right += (b**4 - a**4) / 1000.0
            right2 += (b**2 - a**2) / 10.0
    out[6] = min(left, right)
    out[7] = min(left2, right2)


@nb.njit(cache=True)
def _feature_tables(n):
    out = np.empty((n, 1 << 16), dtype=np.float64)
    line = np.empty(4, dtype=np.int64)
    f = np.empty(n, dtype=np.float64)
    for row in range(1 << 16):
        for i in range(4):
            line[i] = (row >> (4 * i)) & 0xF
        threes_line_features(line, f)
        out[:, row] = f
    return out


@functools.cache
def feature_tables() -> np.ndarray:
    """``float64[len(FEATURES), 65536]``: every feature of every 16-bit line."""
    tables = _feature_tables(len(FEATURES))
    tables.setflags(write=False)
    return tables


def weighted_table(weights: dict[str, float], lost: float) -> np.ndarray:
    """The line table ``sum(w * feature)``, shifted so its smallest line is ``lost``.

    Raises:
        ValueError: an unknown feature name, or ``lost`` not a finite number >= 0.
    """
    unknown = set(weights) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}; known: {FEATURES}")
    if not (np.isfinite(lost) and lost >= 0):
        raise ValueError(f"lost must be a finite number >= 0, got {lost!r}")
    table = _weighted_sum(weights)
    return table - table.min() + float(lost)


def _weighted_sum(weights: dict[str, float]) -> np.ndarray:
    w = np.array([float(weights.get(name, 0.0)) for name in FEATURES])
    return w @ feature_tables()


#: name -> (games it applies to, value kind, one-line description)
EVALUATORS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "monotonic": (("2048",), "eval", "nneonneo's 2048 heuristic (rows and columns)"),
    "openness": (("Threes",), "eval", "Threesus-style openness (rows and columns)"),
    "score": (GAMES, "score", "the game's score"),
    "features": (
        GAMES,
        "eval",
        "the game's hand-made evaluator: tuned line features (Threes), "
        "the same as monotonic (2048)",
    ),
}
#: (name, game) -> the evaluator that name stands for on that game: ``features``
#: names each game's hand-made evaluator, on 2048 ``monotonic``.
ALIASES: dict[tuple[str, str], str] = {("features", "2048"): "monotonic"}


def canonical(name: str, game: str) -> str:
    """The name of the evaluator ``name`` stands for on ``game`` (:data:`ALIASES`;
    any other name as it is), so that two spellings are one agent."""
    return ALIASES.get((name, game), name)


@functools.cache
def get_evaluator(name: str, game: str) -> Evaluator:
    """The evaluator ``name`` for ``game`` (tables built once, then cached).

    Args:
        name: a key of :data:`EVALUATORS`.
        game: ``"2048"`` or ``"Threes"``.

    Raises:
        ValueError: unknown name, or an evaluator that does not apply to ``game``.
    """
    if game not in GAMES:
        raise ValueError(f"evaluators exist for {GAMES}, not {game!r}")
    if name not in EVALUATORS:
        raise ValueError(
            f"unknown evaluator {name!r}; choose from {sorted(EVALUATORS)}"
        )
    if canonical(name, game) != name:
        return get_evaluator(canonical(name, game), game)
    games, kind, _ = EVALUATORS[name]
    if game not in games:
        fits = sorted(n for n, (g, _, _) in EVALUATORS.items() if game in g)
        raise ValueError(f"evaluator {name!r} is not for {game}; for {game} use {fits}")
    if name == "score":
        table, reward_weight = score_table(game)
    elif name == "features":
        table, reward_weight = weighted_table(TUNED_WEIGHTS, TUNED_LOST), 0.0
    elif name == "openness":
        table, reward_weight = OPEN_LOST + _weighted_sum(OPENNESS_WEIGHTS), 0.0
    else:
        table, reward_weight = _monotonic_table(), 0.0
    table.setflags(write=False)
    return Evaluator(name, game, table, reward_weight, kind)
