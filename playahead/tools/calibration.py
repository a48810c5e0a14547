"""Values in real points: the default search's values mapped to expected final scores.

The default Threes and 2048 search (``expectimax`` over the n-tuple net playahead
ships) values a move by the score so far plus the points its net expects still to
come. The net learned what its own greedy play scores, far less than the search goes
on to score, so those values are not the final score the default reaches from the
position. The tools (``hint``, ``review``, ``assist``, the web page) therefore show
:func:`calibrate`'s values: for each move,

    shown = score so far + ahead + h(score so far, best),  ahead = value - score so far

where ``best`` is the ``ahead`` of the position's best move and ``h``, the points the
default scores beyond what the search sees coming from there, is fitted on positions
of the default's recorded games and their final scores (``python -m benchmarks
calibration --game GAME``; the knots are ``playahead/data/calibration.json``,
:func:`to_points`). ``h`` is one offset a position, the same for all its moves, so the
moves keep the search's order and its gaps in points, and the best move is shown at
the final score the default reaches on average from such positions; the search
itself, and so the move the default plays, is not touched. A move after which the
game is over whatever comes in is shown at the game's final score (the mean over the
chance outcomes when they differ).

Only the planner the map was fitted for is calibrated (:func:`calibrates`:
``expectimax`` over the net playahead ships); other planners' values are returned as
they are, in their own units (another ``expectimax`` search's points are labelled
``search_score``: the search's value in points, not a final score).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import numpy as np

#: The knots of the maps, per game: ``{"threes": {"x": [...], "y": [...]}, ...}``.
DATA = Path(__file__).resolve().parent.parent / "data" / "calibration.json"
_GAMES = {"Threes-v0": "threes", "2048-v0": "2048", "threes": "threes", "2048": "2048"}


@functools.cache
def maps() -> dict[str, dict]:
    """The fitted maps by game (``"threes"``, ``"2048"``): knots ``x`` (points the
    search sees coming) and ``y`` (points the default scores from there), and the
    net's ``evaluator`` spec they were fitted for."""
    return json.loads(DATA.read_text())


def to_points(
    game: str, score, values, knots: dict | None = None, best=None
) -> np.ndarray:
    """The search values ``values`` (float[n], NaN kept) of ``game`` moves whose
    score so far is ``score`` (a number, or one per value), as expected final scores
    (by the game's map in :func:`maps`, or by ``knots`` of the same form).

    ``best``: the search value of the best move of each value's position (a number,
    or one per value); by default the largest of ``values``, which are then the moves
    of one position. With ``ahead = value - score`` (the points the search sees
    coming; below 0 on Threes, where the search counts a lost position as 0, when it
    sees the game end soon): ``score + max(ahead + h(score, best - score), 0)``, where
    ``h`` (the points the default scores beyond what the search sees from the
    position) is piecewise linear in the best move's ``ahead`` at each of a few scores
    so far and linear between them. ``h`` is the same for every move of a position, so
    moves are shown as far apart as the search has them (unless held at the score so
    far, below which no final score lies).

    Example:
        >>> a, b = to_points("threes", 1000.0, [30_000.0, 20_000.0])
        >>> round(float(a - b))
        10000
    """
    knots = knots or maps()[_GAMES[game]]
    shape = np.shape(values)
    values = np.asarray(values, dtype=float).ravel()
    score = np.broadcast_to(np.asarray(score, dtype=float), shape).ravel()
    if best is None:
        finite = values[~np.isnan(values)]
        best = finite.max() if finite.size else np.nan
    best = np.broadcast_to(np.asarray(best, dtype=float), shape).ravel()
    ahead = values - score
    centres = np.asarray(knots["score"], dtype=float)
    seen = best - score  # what the search sees coming from the best move
    extra = np.empty((len(knots["x"]), values.size))  # h at each map's score
    for i, (x, h) in enumerate(zip(knots["x"], knots["h"], strict=True)):
        extra[i] = np.interp(seen, x, h)
    # linear in the score so far between the maps' scores, the end maps beyond them
    where = np.interp(score, centres, np.arange(len(centres)))
    low = np.floor(where).astype(int)
    high = np.minimum(low + 1, len(centres) - 1)
    t = where - low
    cols = np.arange(values.size)
    bonus = (1 - t) * extra[low, cols] + t * extra[high, cols]
    return (score + np.maximum(ahead + bonus, 0.0)).reshape(shape)


#: The ``value_kind`` of an ``expectimax`` search the maps were not fitted for (another
#: net, or ``evaluator=score``): points, but not a final score.
UNCALIBRATED = "search_score"


def _is_expectimax(planner) -> bool:
    from playahead.planners.expectimax import ExpectimaxAgent

    return isinstance(planner, ExpectimaxAgent)


def calibrates(planner) -> bool:
    """Whether ``planner``'s values are the ones the maps were fitted for: the
    ``expectimax`` search over the n-tuple net playahead ships."""
    from playahead.planners.expectimax import ExpectimaxAgent

    if not isinstance(planner, ExpectimaxAgent):
        return False
    evaluator = planner.settings.evaluator
    if evaluator is None or evaluator == "ntuple":
        return True
    shipped = {m["evaluator"] for m in maps().values()}
    return isinstance(evaluator, str) and evaluator.replace(" ", "") in shipped


def calibrate(env, analysis, planner):
    """``analysis`` (of ``env``'s position, by ``planner``) with its values as
    expected final scores. Unchanged if ``planner`` is not one :func:`calibrates`,
    except that another ``expectimax`` search's points (another net, ``evaluator=
    score``) are labelled :data:`UNCALIBRATED`, not final scores.

    The search's own values stay in ``stats["search_values"]``; ``stats
    ["calibrated"]`` says whether the values were mapped. A move that ends the game
    whatever comes in is valued at the game's final score.
    """
    base = env.unwrapped
    game = _GAMES.get(str(getattr(base, "game_name", "")).lower())
    if (
        analysis.value_kind != "score"
        or game is None
        or analysis.stats.get("calibrated")
    ):
        return analysis
    if not calibrates(planner):
        if _is_expectimax(planner):  # another net, or the score at the horizon
            return dataclasses.replace(analysis, value_kind=UNCALIBRATED)
        return analysis
    from playahead.planner import make_root

    score = make_root(base).score
    raw = np.asarray(analysis.values, dtype=float)
    shown = to_points(game, score, raw)  # the moves of one position
    for action in np.flatnonzero(~np.isnan(raw)):
        final = ending_score(base, int(action))
        if final is not None:
            shown[action] = final
    stats = dict(analysis.stats, calibrated=True, search_values=raw.tolist())
    return dataclasses.replace(analysis, values=shown, stats=stats)


def ending_score(base, action: int) -> float | None:
    """The final score if ``action`` ends the game whatever comes in (the mean over
    the equally likely chance outcomes), else None. ``base`` is an unwrapped 2048 or
    Threes env; it is not changed."""
    from playahead.games import threes, twenty48
    from playahead.games._board64 import get_cell, max_rank, move_rows, set_cell

    state = base.clone_state()
    board = np.uint64(state.board)
    if base.game_name == "2048":
        moves, rewards = twenty48.TABLES
        after, moved, reward = move_rows(board, action, moves, rewards)
        after = np.uint64(after)  # numba hands a uint64 back as a Python int
        if not moved:
            return None
        for cell in range(16):
            if get_cell(after, cell) == 0:
                for rank in (1, 2):
                    placed = np.uint64(set_cell(after, cell, rank))
                    if not twenty48.is_over(placed, moves, rewards):
                        return None
        return float(state.score + reward)
    moves, rewards, row_scores = threes.tables(state.merge_6144)
    after, moved, _ = move_rows(board, action, moves, rewards)
    after = np.uint64(after)
    if not moved:
        return None
    if int(max_rank(after)) == threes.RANK_12288:
        return float(threes.score(after, row_scores))  # the 12288 ending: no card
    _, _, _, lo, hi = map(int, threes.unpack_cards(state.cards))
    finals = []
    for line in range(4):
        if not moved >> line & 1:
            continue
        for rank in range(lo, hi + 1):
            placed = np.uint64(threes.insert_card(after, action, 1 << line, rank, 0.0))
            if not threes.is_over(placed, moves, rewards):
                return None
            finals.append(float(threes.score(placed, row_scores)))
    return float(np.mean(finals))
