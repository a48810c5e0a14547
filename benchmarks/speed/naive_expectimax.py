"""Plain-Python expectimax on face-value boards: the reference for the compiled search.

The same model as :mod:`playahead.planners.expectimax`, written for clarity: the rules
come from :mod:`benchmarks.speed.reference`, the evaluators are per-line functions
written again from their definitions, and there is no transposition table. Depth counts
the moves after the first; a chance node whose cumulative probability is below
``prob_cutoff`` is evaluated instead of expanded; a position with no legal move is worth
0. Boards are lists of 4 lists of face values (row 0 = top). The benchmark uses it as
the baseline."""

from __future__ import annotations

import functools

from benchmarks.speed import reference as ref

# ---------------------------------------------------------------------- evaluators


def rank_2048(v: int) -> int:
    return v.bit_length() - 1 if v else 0


def rank_threes(v: int) -> int:
    return v if v <= 3 else (v // 3).bit_length() + 2


def monotonic_line(ranks: list[int]) -> float:
    """nneonneo's 2048 line heuristic with the published weights."""
    empty = ranks.count(0)
    tiles = [r for r in ranks if r]
    merges = 0
    i = 0
    while i < len(tiles):  # a run of k >= 2 equal tiles (gaps ignored) counts k
        j = i
        while j + 1 < len(tiles) and tiles[j + 1] == tiles[i]:
            j += 1
        if j > i:
            merges += j - i + 1
        i = j + 1
    rises_left = sum(
        ranks[i - 1] ** 4 - ranks[i] ** 4
        for i in range(1, 4)
        if ranks[i - 1] > ranks[i]
    )
    rises_right = sum(
        ranks[i] ** 4 - ranks[i - 1] ** 4
        for i in range(1, 4)
        if ranks[i - 1] <= ranks[i]
    )
    return (
        200000.0
        + 270.0 * empty
        + 700.0 * merges
        - 47.0 * min(rises_left, rises_right)
        - 11.0 * sum(r**3.5 for r in ranks)
    )


def openness_line(ranks: list[int]) -> float:
    """Threes openness of one line (see ``playahead.planners.evaluators``)."""
    total = 100.0 + 3.0 * ranks.count(0)
    for a, b in zip(ranks, ranks[1:], strict=False):
        if a and b and (a + b == 3 or (a == b and a >= 3)):
            total += 4.0
        if a >= 3 and b >= 3 and abs(a - b) == 1:
            total += 2.0
    for i, c in enumerate(ranks):
        if c == 0:
            continue
        walled_left = i == 0 or (ranks[i - 1] >= 3 and c < ranks[i - 1])
        walled_right = i == 3 or (ranks[i + 1] >= 3 and c < ranks[i + 1])
        if walled_left and walled_right:
            total -= 5.0
    top = max(ranks)
    if top >= 5 and top in (ranks[0], ranks[3]):
        total += 3.0
    return total


FEATURE_NAMES = (
    "empty", "merge", "merge12", "double", "trapped", "edge", "mono", "mono2", "ranks",
    "small", "stuck",
)  # fmt: skip


def line_features(line: list[int]) -> dict[str, float]:
    """The Threes line features of the ``"features"`` evaluator, written out plainly."""
    f = dict.fromkeys(FEATURE_NAMES, 0.0)
    f["empty"] = float(line.count(0))
    f["ranks"] = sum(line) / 10
    f["small"] = float(sum(1 for c in line if c in (1, 2)))
    pairs = list(zip(line[:-1], line[1:], strict=True))
    for c, d in pairs:
        if c and d:
            f["merge"] += c == d >= 3
            f["merge12"] += c + d == 3
            f["double"] += c >= 3 and d >= 3 and abs(c - d) == 1
            f["stuck"] += c == d and c <= 2
    for i, c in enumerate(line):
        if c == 0:
            continue
        left = i == 0 or (line[i - 1] >= 3 and c < line[i - 1])
        right = i == 3 or (line[i + 1] >= 3 and c < line[i + 1])
        f["trapped"] += left and right
    top = max(line)
    f["edge"] = float(top >= 5 and top in (line[0], line[3]))
    for power, name, scale in ((4, "mono", 1000), (2, "mono2", 10)):
        down = sum(max(a**power - b**power, 0) for a, b in pairs)
        up = sum(max(b**power - a**power, 0) for a, b in pairs)
        f[name] = min(down, up) / scale
    return f


@functools.cache
def _weighted(ranks: tuple[int, ...]) -> float:
    from playahead.planners.evaluators import TUNED_WEIGHTS

    f = line_features(list(ranks))
    return sum(w * f[name] for name, w in TUNED_WEIGHTS.items())


@functools.cache
def _weighted_min() -> float:
    lines = [tuple((row >> (4 * i)) & 15 for i in range(4)) for row in range(1 << 16)]
    return min(_weighted(line) for line in lines)


def features_line(ranks: list[int]) -> float:
    """The tuned ``"features"`` line score: the weighted features, shifted so that the
    lowest of all 65536 lines scores ``TUNED_LOST``."""
    from playahead.planners.evaluators import TUNED_LOST

    return _weighted(tuple(ranks)) - _weighted_min() + TUNED_LOST


LINE_SCORES = {"features": features_line}


def evaluate(board, game: str, evaluator: str) -> float:
    """An evaluator's value of a face-value board (rows plus columns); a callable
    evaluator (a learned value of 2048 afterstates) is called on the board."""
    if callable(evaluator):
        return evaluator(board)
    if evaluator == "score":
        return 0.0 if game == "2048" else float(ref.score_threes(board))
    rank = rank_2048 if game == "2048" else rank_threes
    line_score = LINE_SCORES.get(evaluator) or (
        monotonic_line if evaluator == "monotonic" else openness_line
    )
    rows = [[rank(v) for v in row] for row in board]
    cols = [[rows[r][c] for r in range(4)] for c in range(4)]
    return sum(line_score(line) for line in rows + cols)


# ---------------------------------------------------------------------- 2048


def values_2048(
    board, depth: int, prob_cutoff: float, evaluator: str = "monotonic", stats=None
):
    """Value of each first move (None where illegal).

    ``stats``, a dict, gets ``"nodes"``: the positions reached by a legal move.
    """
    stats = {} if stats is None else stats
    stats.setdefault("nodes", 0)
    values = []
    for action in range(4):
        after, reward = ref.move_2048(board, action)
        if reward < 0:
            values.append(None)
            continue
        stats["nodes"] += 1
        gain = reward if evaluator == "score" or callable(evaluator) else 0
        value = _spawn_value(after, depth, 1.0, prob_cutoff, evaluator, stats)
        values.append(gain + value)
    return values


def _spawn_value(board, depth_left, cprob, prob_cutoff, evaluator, stats) -> float:
    empty = [(r, c) for r in range(4) for c in range(4) if board[r][c] == 0]
    if depth_left <= 0 or cprob < prob_cutoff or not empty:
        return evaluate(board, "2048", evaluator)
    total = 0.0
    for r, c in empty:
        for tile, p in ((2, 0.9), (4, 0.1)):
            child = [list(row) for row in board]
            child[r][c] = tile
            child_prob = cprob * p / len(empty)
            best = 0.0
            for action in range(4):
                after, reward = ref.move_2048(child, action)
                if reward < 0:
                    continue
                stats["nodes"] += 1
                gain = reward if evaluator == "score" or callable(evaluator) else 0
                value = _spawn_value(
                    after, depth_left - 1, child_prob, prob_cutoff, evaluator, stats
                )
                best = max(best, gain + value)
            total += p * best
    return total / len(empty)


# ---------------------------------------------------------------------- Threes


def values_threes(
    board,
    deck,
    preview,
    depth: int,
    prob_cutoff: float,
    evaluator: str = "features",
    window: bool = False,
):
    """Value of each first move (None where illegal).

    Args:
        board: face values.
        deck: (1s, 2s, 3s) left in the deck after the preview was taken.
        preview: the card values the preview allows (one value, or a bonus window).
    """
    values = []
    for action in range(4):
        after, moved = ref.move_threes(board, action)
        if not moved:
            values.append(None)
            continue
        if any(12288 in row for row in after):
            values.append(evaluate(after, "Threes", evaluator))
            continue
        cells = ref.spawn_cells_threes(action, moved)
        children = [_put(after, cell, card) for card in preview for cell in cells]
        p = 1.0 / len(children)
        values.append(
            sum(
                p * _card_value(child, deck, depth, p, prob_cutoff, evaluator, window)
                for child in children
            )
        )
    return values


def _put(board, cell, card):
    child = [list(row) for row in board]
    child[cell[0]][cell[1]] = card
    return child


def bonus_odds(n: int, window: bool) -> list[float]:
    """Probability of each of ``n`` bonus values (of the bonus draw): alike, or with
    ``window`` counted over the game's draw, window by window (each of the ``n - 2``
    windows of three consecutive values alike, each value in it alike)."""
    if not window or n <= 3:
        return [1 / n] * n if n else []
    odds = [0.0] * n
    for start in range(n - 2):
        for j in range(start, start + 3):
            odds[j] += 1 / (n - 2) / 3
    return odds


def next_cards(board, deck, window=False):
    """[(card, probability, deck after drawing it)] for the next card; ``window``: a
    bonus card's value as the game draws it (:func:`bonus_odds`)."""
    if sum(deck) == 0:
        deck = (4, 4, 4)
    top = max(max(row) for row in board)
    bonus = [6 * 2**k for k in range(20) if 6 * 2**k <= top // 8] if top >= 48 else []
    p_basic = 20 / 21 if bonus else 1.0
    out = []
    for i, count in enumerate(deck):
        if count:
            after = tuple(n - (j == i) for j, n in enumerate(deck))
            out.append((i + 1, p_basic * count / sum(deck), after))
    odds = bonus_odds(len(bonus), window)
    out += [(card, odds[j] / 21, deck) for j, card in enumerate(bonus)]
    return out


def _card_value(
    board, deck, depth_left, cprob, prob_cutoff, evaluator, window=False
) -> float:
    if depth_left <= 0 or cprob < prob_cutoff:
        return evaluate(board, "Threes", evaluator)
    total = 0.0
    for card, p, deck_after in next_cards(board, deck, window):
        best = 0.0
        for action in range(4):
            after, moved = ref.move_threes(board, action)
            if not moved:
                continue
            if any(12288 in row for row in after):
                value = evaluate(after, "Threes", evaluator)
            else:
                cells = ref.spawn_cells_threes(action, moved)
                value = sum(
                    _card_value(
                        _put(after, cell, card),
                        deck_after,
                        depth_left - 1,
                        cprob * p / len(cells),
                        prob_cutoff,
                        evaluator,
                        window,
                    )
                    for cell in cells
                ) / len(cells)
            best = max(best, value)
        total += p * best
    return total
