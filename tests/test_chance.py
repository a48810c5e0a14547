"""``playahead.games.chance``: the tile games' chance in one place. Its outcomes and
draws equal those of the code before it (``tests/helpers/chance_reference.py``, the
rules as commit 018869d wrote them) bit for bit, on the reference vectors and on
10,000 random states; no other module keeps a copy of a chance rule."""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest

import playahead
from playahead.games import chance, threes, twenty48
from tests.helpers import chance_reference as ref

pytestmark = pytest.mark.kernel

PACKAGE = Path(playahead.__file__).parent
DATA = Path(__file__).parent / "data"
ACTIONS = {"up": 0, "right": 1, "down": 2, "left": 3}
N_STATES = 10_000


def _cases(game):
    return json.loads((DATA / f"{game}_vectors.json").read_text())["cases"]


def _cell(rc):
    return 4 * rc[0] + rc[1]


@pytest.mark.parametrize(
    "case",
    # a tile spawns after a legal move; 65536 does not pack
    [c for c in _cases("2048") if c["legal"] and max(map(max, c["result"])) < 65536],
    ids=lambda c: c["id"],
)
def test_2048_spawns_on_the_reference_cells(case):
    after = twenty48.from_faces(case["result"])
    boards, probs = chance.spawn_outcomes(after)
    cells = sorted({(int(b ^ after).bit_length() - 1) // 4 for b in boards})
    assert cells == sorted(_cell(rc) for rc in case["spawn_cells"])
    n = len(cells)
    assert probs.tolist() == [0.9 / n, 0.1 / n] * n
    assert dict(zip(boards.tolist(), probs.tolist(), strict=True)) == ref.spawn_odds(
        int(after)
    )


@pytest.mark.parametrize(
    "case",
    # a card enters after a legal move; 24576 does not pack
    [c for c in _cases("threes") if c["legal"] and max(map(max, c["result"])) < 24576],
    ids=lambda c: c["id"],
)
def test_threes_cards_enter_on_the_reference_cells(case):
    after = threes.from_faces(case["result"])
    action = ACTIONS[case["direction"]]
    moved = sum(1 << i for i in case["lines_moved"])
    cards = chance.pack_cards(4, 4, 3, 3, 3)
    boards, ranks, lines, probs = chance.entry_outcomes(after, action, moved, cards)
    assert sorted(chance.card_cell(action, int(i)) for i in lines) == sorted(
        _cell(rc) for rc in case["spawn_cells"]
    )
    assert set(ranks.tolist()) == {3} and set(probs.tolist()) == {1 / len(lines)}
    for board, line in zip(boards, lines, strict=True):
        u = (list(lines).index(line) + 0.5) / len(lines)
        assert board == ref.insert_card(int(after), action, moved, 3, u)


def _random_threes(rng):
    """A random board (top rank 1..14), cards word (deck counts 0..4, a preview the
    deck allows) and bonus model."""
    top = int(rng.integers(1, 15))
    ranks = rng.integers(0, top + 1, 16)
    ranks[rng.integers(16)] = top
    board = sum(int(r) << (4 * i) for i, r in enumerate(ranks))
    deck = [int(x) for x in rng.integers(0, 5, 3)]
    lo = int(rng.integers(1, 4))
    return board, chance.pack_cards(*deck, lo, lo), int(rng.integers(2))


def test_threes_draws_and_odds_equal_the_reference_on_random_states():
    rng = np.random.default_rng(56)
    for _ in range(N_STATES):
        board, cards, model = _random_threes(rng)
        u1, u2 = rng.random(2)
        got = chance.draw_next_with(np.uint64(board), cards, u1, u2, model)
        assert got == ref.draw_next_with(board, cards, u1, u2, model)
        outcomes, probs = chance.preview_outcomes(np.uint64(board), cards, model)
        odds = dict(zip(outcomes.tolist(), probs.tolist(), strict=True))
        assert odds == ref.preview_odds(board, cards, model)
        assert got in odds
        moved = int(rng.integers(1, 16))
        action, rank = int(rng.integers(4)), int(rng.integers(1, 13))
        for line in range(4):  # a moved line's far cell is empty
            if moved >> line & 1:
                board &= ~(15 << (4 * ref.far_cell(action, line)))
        placed = chance.insert_card(np.uint64(board), action, moved, rank, u1)
        assert placed == ref.insert_card(board, action, moved, rank, u1)


def test_2048_draws_and_odds_equal_the_reference_on_random_states():
    rng = np.random.default_rng(2048)
    for _ in range(N_STATES):
        ranks = rng.integers(0, 12, 16) * (rng.random(16) < 0.6)
        if ranks.all():
            ranks[rng.integers(16)] = 0
        board = sum(int(r) << (4 * i) for i, r in enumerate(ranks))
        u = rng.random()
        assert chance.spawn_with(np.uint64(board), u) == ref.spawn_with(board, u)
        boards, probs = chance.spawn_outcomes(np.uint64(board))
        odds = dict(zip(boards.tolist(), probs.tolist(), strict=True))
        assert odds == ref.spawn_odds(board)


def test_bonus_odds_equal_the_reference_and_the_windows_marginal():
    for n in range(1, 10):
        for window in (False, True):
            got = [chance.bonus_p(j, n, window) for j in range(n)]
            assert got == [ref.bonus_p(j, n, window) for j in range(n)]
    top = 12  # 3072: bonus values 6 .. 384, six of them, four windows
    outcomes, probs = chance.preview_outcomes(
        np.uint64(top), chance.pack_cards(4, 4, 4, 1, 1), chance.WINDOW
    )
    marginal = np.zeros(6)
    for cards, p in zip(outcomes, probs, strict=True):
        _, _, _, lo, hi = chance.unpack_cards(cards)
        if lo >= chance.BONUS_MIN_RANK:
            marginal[lo - 4 : hi - 3] += p / (hi - lo + 1)
    expected = [chance.bonus_p(j, 6, True) for j in range(6)]
    assert marginal == pytest.approx(expected, rel=1e-12)
    assert probs.sum() == pytest.approx(1.0, rel=1e-12)


def test_the_deal_is_the_reference_deal():
    for seed in range(50):
        board, cards = threes.new_game(np.random.default_rng(seed), chance.WINDOW)
        rng = np.random.default_rng(seed)
        b, deck = 0, (4, 4, 4)
        for _ in range(9):
            rank, *deck = ref.draw_basic(*deck, rng.random())
            empty = ref.empty_cells(b)
            n = len(empty)
            b |= rank << (4 * empty[min(int(rng.random() * n), n - 1)])
        start = ref.pack_cards(*deck, 0, 0)
        assert board == b
        assert cards == ref.draw_next_with(b, start, rng.random(), rng.random(), 0)


def test_an_impossible_preview_has_a_one_line_reason():
    empty_deck = chance.pack_cards(0, 2, 1, 0, 0)
    board = np.uint64(6)  # a 12: no bonus card yet
    assert chance.preview_problem(board, empty_deck, 2, 2, "window") == ""
    why = chance.preview_problem(board, empty_deck, 1, 1, "window")
    assert why == (
        "the next card cannot be a 1: the deck (1s/2s/3s 0/2/1) has no 1 left"
    )
    why = chance.preview_problem(board, empty_deck, 4, 6, "window")
    assert why == "a bonus card comes only once the highest card is 48 or more"
    big = np.uint64(12)  # a 3072: bonus values 6 .. 384
    assert chance.preview_problem(big, empty_deck, 5, 7, "window") == ""
    why = chance.preview_problem(big, empty_deck, 4, 9, "window", "[6, ..., 384]")
    assert why.startswith("a bonus preview [6, ..., 384] is not possible here")
    assert "\n" not in why
    assert chance.preview_problem(big, empty_deck, 4, 9, "plus") == ""


#: What a copy of a chance rule looks like in code (strings and comments left out):
#: the refill, the bonus odds, the spawn odds, the bonus ranks, the cards word's bits.
COPIES = {
    "the refilled deck": r"\b4\s*,\s*4\s*,\s*4\b|\[\s*4\s*\]\s*\*\s*3",
    "the bonus odds": r"/\s*21\b|\b21\.0\b",
    "a chance constant": (
        r"\b(P_FOUR|BONUS_PROBABILITY|BONUS_ELIGIBLE_RANK|BONUS_MIN_RANK|"
        r"BONUS_MAX_RANK|DECK_EACH)\s*="
    ),
    "the cards word's bits": r">>\s*13\b|>>\s*9\s*\)\s*&\s*15|>>\s*[36]\s*\)\s*&\s*7",
}


def chance_copies(source: str) -> list[str]:
    """``(what, line)`` of each copy of a chance rule in ``source``'s code."""
    kept = []
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type in (tokenize.STRING, tokenize.COMMENT):
            kept.append((tok.start[0], " "))
        else:
            kept.append((tok.start[0], tok.string))
    lines: dict[int, list[str]] = {}
    for line, text in kept:
        lines.setdefault(line, []).append(text)
    found = []
    for line, parts in sorted(lines.items()):
        code = " ".join(parts)
        found += [
            f"line {line}: {what}"
            for what, pattern in COPIES.items()
            if re.search(pattern, code)
        ]
    return found


def test_the_scan_sees_a_copy_of_a_chance_rule():
    source = (
        "counts = [4, 4, 4]  # the deck\n"
        "P_FOUR = 0.1\n"
        "p = 1.0 / 21\n"
        "hi = cards >> 13\n"
        "text = 'refilled to 4, 4, 4'\n"
    )
    assert chance_copies(source) == [
        "line 1: the refilled deck",
        "line 2: a chance constant",
        "line 3: the bonus odds",
        "line 4: the cards word's bits",
    ]


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "chance.py"],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_module_but_chance_keeps_a_chance_rule(path):
    copies = chance_copies(path.read_text())
    assert not copies, f"{path.relative_to(PACKAGE)} copies chance rules: {copies}"
