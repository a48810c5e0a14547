"""Plain-Python n-tuple value, TD(lambda)/TC training with restarts and saved start
positions: the references the compiled kernels of ``playahead.ntuple`` are checked
against.

Boards are read into a 4x4 list grid; the 8 images are made with list flips and a
transpose; weights are read one by one. Chance comes from the games' own rule
functions (``twenty48.move/spawn/new_game``, ``threes.move/turn/new_game``) with the
same generator, so a seed gives the same games as the kernels. Sums follow the
documented order (one float64 partial sum per image over the patterns, then a balanced
tree of the eight), weights are float32 and each addition is rounded once.
"""

from __future__ import annotations

import numpy as np

from playahead.games import threes, twenty48


def grid(board) -> list[list[int]]:
    """uint64 board -> 4x4 list of ranks."""
    b = int(board)
    return [[(b >> (4 * (4 * r + c))) & 15 for c in range(4)] for r in range(4)]


def image(g, s):
    """Image ``s`` of grid ``g``: mirror columns if ``s & 2``, rows if ``s & 1``,
    then transpose if ``s >= 4`` (cells of a pattern read on it are its image s)."""
    if s & 2:
        g = [row[::-1] for row in g]
    if s & 1:
        g = g[::-1]
    if s >= 4:
        g = [list(col) for col in zip(*g, strict=True)]
    return g


def indices(board, patterns) -> list[tuple[int, int]]:
    """``(p, index)`` of the 8 * P lookups, pattern-major, images 0..7."""
    images = [image(grid(board), s) for s in range(8)]
    out = []
    for p, pattern in enumerate(patterns):
        for g in images:
            flat = [v for row in g for v in row]
            out.append((p, sum(flat[c] << (4 * j) for j, c in enumerate(pattern))))
    return out


def preview_code(cards) -> int:
    lo, hi = (int(cards) >> 9) & 15, int(cards) >> 13
    return lo - 1 if lo == hi and 1 <= lo <= 3 else 3


def staged(board, code, n_base, stages) -> int:
    """Code of a multi-stage net: ``code + n_base *`` (stage ranks the board's largest
    rank reaches)."""
    top = max(max(row) for row in grid(board))
    return code + n_base * sum(top >= r for r in stages)


def value(board, code, weights, patterns) -> float:
    lanes = [0.0] * 8
    for q, (p, i) in enumerate(indices(board, patterns)):
        lanes[q % 8] += float(weights[p, code, i])
    a = lanes
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))


def _add(arr, key, x):
    arr[key] = np.float32(float(arr[key]) + x)


def td_step(board, code, exact, alpha, weights, patterns, tc=None) -> float:
    """One backward TD step on afterstate ``board``; returns its new value."""
    lookups = indices(board, patterns)
    error = exact - value(board, code, weights, patterns)
    per = alpha / len(lookups)
    for p, i in lookups:
        key = (p, code, i)
        if tc is None:
            _add(weights, key, per * error)
            continue
        e, a = tc
        rate = abs(float(e[key])) / float(a[key]) if a[key] > 0 else 1.0
        _add(weights, key, per * error * rate)
        _add(e, key, error)
        _add(a, key, abs(error))
    return value(board, code, weights, patterns)


def _first(game, rng, bonus_preview, start):
    """A game's first (board, cards): ``start``, or a new game."""
    if start is not None:
        board, cards = start
    elif game == 0:
        board, cards = np.uint64(twenty48.new_game(rng)), 0
    else:
        board, cards = threes.new_game(rng, bonus_preview)
    return np.uint64(board), cards


def _greedy(game, board, cards, weights, patterns, moves, rewards, stages):
    """The greedy move on ``r + V(after)`` (first of equals): ``((action, after,
    r, code), V(after))``, or ``(None, 0.0)`` when no move is legal."""
    n_base = weights.shape[1] // (len(stages) + 1)  # 1: no preview index
    code = preview_code(cards) if n_base == 4 else 0
    best, choice, seen = -np.inf, None, 0.0
    for a in range(4):
        if game == 0:
            after, r = twenty48.move(board, a, moves, rewards)
            legal = r >= 0
        else:
            after, moved, r = threes.move(board, a, moves, rewards)
            legal = moved != 0
        if not legal:
            continue
        c = staged(after, code, n_base, stages)
        v_after = 0.0
        if game == 0 or twenty48.max_rank(after) != threes.RANK_12288:
            v_after = value(after, c, weights, patterns)
        if float(r) + v_after > best:
            best, choice, seen = (
                float(r) + v_after,
                (a, np.uint64(after), int(r), c),
                v_after,
            )
    return choice, seen


def play(
    game,
    weights,
    patterns,
    rng,
    moves,
    rewards,
    bonus_preview,
    stages=(),
    start=None,
    stop_rank=0,
):
    """One greedy game from a new start or from ``start = (board, cards)``:
    ``(afterstates, codes, gains, points, top_rank, positions)``, ``positions[t]`` the
    (board, cards) before move ``t``; ``stages``: the stage ranks of a multi-stage
    net; ``stop_rank``: the game ends at the first afterstate whose largest rank
    reaches it, before a card enters (``top_rank`` is then that afterstate's)."""
    board, cards = _first(game, rng, bonus_preview, start)
    afters, codes, gains, positions, score = [], [], [], [], 0
    while not (game == 1 and twenty48.max_rank(board) == threes.RANK_12288):
        choice, _ = _greedy(
            game, board, cards, weights, patterns, moves, rewards, stages
        )
        if choice is None:
            break
        a, after, r, code = choice
        after = np.uint64(after)  # numba returns uint64 results as Python ints
        if gains:
            gains[-1] += r
        afters.append(after)
        codes.append(code)
        positions.append((board, cards))
        if stop_rank and twenty48.max_rank(after) >= stop_rank:
            gains.append(0)
            return (
                afters,
                codes,
                gains,
                score + r,
                int(twenty48.max_rank(after)),
                positions,
            )
        if game == 0:
            board = np.uint64(twenty48.spawn(after, rng))
            gains.append(0)
            score += r
        else:
            board, cards, full = threes.turn(
                board, cards, a, rng, moves, rewards, bonus_preview
            )
            board = np.uint64(board)
            gains.append(int(full) - r)
            score += int(full)
    return afters, codes, gains, score, int(twenty48.max_rank(board)), positions


def learn(
    afters, codes, gains, alpha, weights, patterns, tc=None, lam=0.0, bootstrap=False
):
    """The backward pass: the lambda-return ``exact = r + (lam * exact + (1 - lam) *
    V')`` from the end of the game (``exact = r + V'`` for TD(0)); with
    ``bootstrap`` the last afterstate is not learned, and the target before it is
    its value plus the reward between them."""
    exact = 0.0
    last = len(afters) - 1
    if bootstrap:
        v = value(afters[last], codes[last], weights, patterns)
        last -= 1
        exact = gains[last] + v if last >= 0 else v
    for t in range(last, -1, -1):
        v = td_step(afters[t], codes[t], exact, alpha, weights, patterns, tc)
        if t > 0:
            if lam == 0:
                exact = gains[t - 1] + v
            else:
                exact = gains[t - 1] + (lam * exact + (1 - lam) * v)


def play_online(
    game, weights, patterns, rng, rules, alpha, tc=None, stages=(), start=None
):
    """One greedy game as :func:`play` plays it, learning online TD(0) as it goes:
    once the next afterstate is chosen, the one before it takes a TD step toward
    ``r + V(next)`` (``V(next)`` as read for the choice), the last one toward 0 when
    the game ends. ``(points, top_rank, moves, positions)``."""
    moves, rewards, bonus_preview = rules
    board, cards = _first(game, rng, bonus_preview, start)
    prev, pending, positions, score = None, 0, [], 0
    while not (game == 1 and twenty48.max_rank(board) == threes.RANK_12288):
        choice, seen = _greedy(
            game, board, cards, weights, patterns, moves, rewards, stages
        )
        if choice is None:
            break
        a, after, r, c = choice
        if prev is not None:
            td_step(*prev, float(pending + r) + seen, alpha, weights, patterns, tc)
        prev = (after, c)
        positions.append((board, cards))
        if game == 0:
            board = np.uint64(twenty48.spawn(after, rng))
            pending = 0
            score += r
        else:
            board, cards, full = threes.turn(
                board, cards, a, rng, moves, rewards, bonus_preview
            )
            board = np.uint64(board)
            pending = int(full) - r
            score += int(full)
    if prev is not None:
        td_step(*prev, 0.0, alpha, weights, patterns, tc)
    return score, int(twenty48.max_rank(board)), len(positions), positions


def train(
    game,
    n_games,
    alpha,
    weights,
    patterns,
    rng,
    rules,
    tc=None,
    stages=(),
    lam=0.0,
    restart=False,
    starts=(),
    share=0.0,
    stop_rank=0,
    online=False,
):
    """Play and learn ``n_games`` games in place; rows of (points, top rank, moves)
    of each game's first episode, and the number of TD updates. ``restart``: replay
    each episode of at least 10 moves from the position before its middle move, until
    one is shorter; ``starts``: (board, cards) pairs a game starts from with
    probability ``share``; ``stop_rank``: the stage-stop of :func:`play`;
    ``online``: TD(0) learned during each game (:func:`play_online`)."""
    moves, rewards, bonus = rules
    rows, updates = [], 0
    for g in range(n_games):
        start = None
        if starts and rng.random() < share:
            start = starts[min(int(rng.random() * len(starts)), len(starts) - 1)]
        while True:
            if online:  # learned during the game (online TD(0))
                score, top, n, positions = play_online(
                    game, weights, patterns, rng, rules, alpha, tc, stages, start
                )
                updates += n
            else:
                afters, codes, gains, score, top, positions = play(
                    game,
                    weights,
                    patterns,
                    rng,
                    moves,
                    rewards,
                    bonus,
                    stages,
                    start,
                    stop_rank,
                )
                stopped = bool(stop_rank) and top >= stop_rank
                learn(afters, codes, gains, alpha, weights, patterns, tc, lam, stopped)
                n = len(afters)
                updates += n - stopped
            if len(rows) == g:  # the first episode stands for the game
                rows.append((score, top, n))
            if not (restart and n >= 10):
                break
            start = positions[n // 2]
    return rows, updates


# ------------------------------------------- expectimax with learned leaves (faces)


def _packed(board, game):
    faces = np.array(board)
    return np.uint64(
        twenty48.from_faces(faces) if game == "2048" else threes.from_faces(faces)
    )


def expectimax_2048(board, depth, cutoff, weights, patterns, stages=()):
    """Value of each first move (None where illegal): merge rewards along the path
    plus the learned value of the afterstate where the search stops (the reference
    expectimax of ``naive_expectimax`` with this value as its evaluator)."""
    from benchmarks.speed.naive_expectimax import values_2048

    def learned(b):
        packed = _packed(b, "2048")
        return value(packed, staged(packed, 0, 1, stages), weights, patterns)

    return values_2048(board, depth, cutoff, learned)


def card_code(card: int) -> int:
    """Preview code of a drawn card face: 1, 2, 3 -> 0, 1, 2; a bonus card -> 3."""
    return card - 1 if card <= 3 else 3


def expectimax_threes(
    board, deck, preview, depth, cutoff, weights, patterns, stages=(), window=False
):
    """Value of each first move (None where illegal) as expected final scores: the
    score of the afterstate where the search stops plus its learned value, with the
    preview code of the card about to enter (``preview``: the faces the env's preview
    allows; depth 0 uses the env's code)."""
    from benchmarks.speed import reference as ref
    from benchmarks.speed.naive_expectimax import _put, next_cards

    def over(b):
        return any(12288 in row for row in b)

    def leaf(after, code):
        v = float(ref.score_threes(after))
        packed = _packed(after, "Threes")
        n_base = weights.shape[1] // (len(stages) + 1)  # 1: every card alike
        code = code if n_base == 4 else 0
        staged_code = staged(packed, code, n_base, stages)
        return v + value(packed, staged_code, weights, patterns)

    def card_value(b, dk, d, cprob):
        cut = d <= 0 or cprob < cutoff
        total = 0.0
        for card, p, deck_after in next_cards(b, dk, window):
            best = 0.0
            for a in range(4):
                after, moved = ref.move_threes(b, a)
                if not moved:
                    continue
                cells = ref.spawn_cells_threes(a, moved)
                child_prob = cprob * p / len(cells)
                if over(after):
                    v = float(ref.score_threes(after))
                elif cut or d <= 1 or child_prob < cutoff:
                    v = leaf(after, card_code(card))
                else:
                    v = sum(
                        card_value(_put(after, c, card), deck_after, d - 1, child_prob)
                        for c in cells
                    ) / len(cells)
                best = max(best, v)
            total += p * best
        return total

    code = card_code(preview[0]) if len(preview) == 1 else 3
    values = []
    for a in range(4):
        after, moved = ref.move_threes(board, a)
        if not moved:
            values.append(None)
        elif over(after):
            values.append(float(ref.score_threes(after)))
        elif depth == 0:
            values.append(leaf(after, code))
        else:
            cells = ref.spawn_cells_threes(a, moved)
            kids = [_put(after, c, card) for card in preview for c in cells]
            p = 1.0 / len(kids)
            values.append(sum(p * card_value(k, deck, depth, p) for k in kids))
    return values
