"""Nim and Chips rules (playahead.games.nim): solved facts and a naive reference."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.games import nim

FIBONACCI = {1, 2, 3, 5, 8, 13, 21, 34, 55}


# ----------------------------------------------------------------- solvers
def mover_wins(state, key=lambda s: s) -> bool:
    """Negamax through the rules API, memoized on ``key(state)``."""
    memo: dict = {}

    def search(s) -> bool:
        k = key(s)
        if k not in memo:
            if nim.is_terminal(s):
                memo[k] = nim.winner(s) == nim.current_player(s)
            else:
                memo[k] = any(
                    not search(nim.apply(s, int(a)))
                    for a in np.flatnonzero(nim.legal_mask(s))
                )
        return memo[k]

    return search(state)


def pile_and_cap(s):
    """Under ``last_chip`` only the pile and the current cap matter."""
    return s[nim.PILE], min(s[nim.LIMIT], s[nim.PILE])


# ----------------------------------------------------------------- naive reference
def naive_moves(state) -> list[int]:
    pile, _, limit, *_ = state
    return list(range(1, min(limit, pile) + 1))


def naive_after(state, take: int):
    pile, player, limit, held_0, held_1, rule = state
    held = [held_0, held_1]
    held[player] += take
    limit = limit if rule in (nim.NIM, nim.MISERE) else 2 * take
    return (pile - take, 1 - player, limit, held[0], held[1], rule)


def naive_winner(state) -> int:
    pile, player, _, held_0, _, rule = state
    if pile:
        return -1
    last_taker = 1 - player
    return {
        nim.NIM: last_taker,
        nim.MISERE: 1 - last_taker,
        nim.LAST_CHIP: last_taker,
        nim.EVEN_TOTAL: 0 if held_0 % 2 == 0 else 1,
    }[rule]


# ----------------------------------------------------------------- facts
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_nim_mover_loses_iff_n_is_a_multiple_of_k_plus_1(k):
    for n in range(1, 31):
        assert mover_wins(nim.nim_state(n, k)) == (n % (k + 1) != 0), (n, k)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_misere_nim_mover_loses_iff_n_mod_k_plus_1_is_1(k):
    for n in range(1, 31):
        assert mover_wins(nim.nim_state(n, k, misere=True)) == (n % (k + 1) != 1)


def test_chips_last_chip_first_player_loses_iff_n_is_fibonacci():
    for n in range(2, 41):
        wins = mover_wins(nim.chips_state(n, "last_chip"), key=pile_and_cap)
        assert wins == (n not in FIBONACCI), n


def test_chips_even_total_solves_like_the_naive_rules():
    # n=3: the first player must take 1; the second takes both and holds 2 (even).
    assert not mover_wins(nim.chips_state(3, "even_total"))

    def parities(s):  # the outcome depends on the pile, the cap and held parities
        return (
            s[nim.PILE],
            s[nim.LIMIT],
            s[nim.PLAYER],
            s[nim.HELD_0] % 2,
            s[nim.HELD_1] % 2,
        )

    @cache
    def naive_mover_wins(s) -> bool:
        if s[nim.PILE] == 0:
            return naive_winner(s) == s[nim.PLAYER]
        return any(not naive_mover_wins(naive_after(s, t)) for t in naive_moves(s))

    for n in range(3, 26, 2):
        state = nim.chips_state(n, "even_total")
        assert mover_wins(state, key=parities) == naive_mover_wins(state), n


def test_action_a_takes_a_plus_1():
    state = nim.apply(nim.nim_state(21, 3), 2)
    assert state[nim.PILE] == 18 and state[nim.HELD_0] == 3
    assert nim.current_player(state) == 1


def test_chips_first_move_caps_and_doubling_limit():
    assert nim.legal_mask(nim.chips_state(10, "last_chip")).sum() == 9
    assert nim.legal_mask(nim.chips_state(11, "even_total")).sum() == 5
    state = nim.apply(nim.chips_state(21), 2)  # took 3: the reply may take 1..6
    assert np.flatnonzero(nim.legal_mask(state)).tolist() == [0, 1, 2, 3, 4, 5]
    state = nim.apply(nim.chips_state(9), 5)  # took 6 of 9: the reply takes 1..3
    assert nim.legal_mask(state).sum() == 3


def test_action_space_sizes():
    assert nim.num_actions(nim.nim_state(21, 3)) == 3
    assert nim.num_actions(nim.chips_state(21)) == 20
    state = nim.apply(nim.chips_state(21, "even_total"), 6)
    assert nim.legal_mask(state).size == 20  # the size never changes within a game


@pytest.mark.parametrize(
    "make",
    [
        lambda: nim.chips_state(1, "last_chip"),
        lambda: nim.chips_state(4, "even_total"),
        lambda: nim.chips_state(1, "even_total"),
        lambda: nim.chips_state(21, "odd_total"),
        lambda: nim.chips_state(2.5),
        lambda: nim.nim_state(0, 3),
        lambda: nim.nim_state(10, 0),
    ],
)
def test_invalid_options_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


# ----------------------------------------------------------------- kernels vs naive
RULES = st.sampled_from(
    [("nim", False), ("nim", True), ("chips", "last_chip"), ("chips", "even_total")]
)


def start(game, n, k, option):
    if game == "nim":
        return nim.nim_state(n, k, misere=option)
    return nim.chips_state(n | 1 if option == "even_total" else n, option)


@settings(max_examples=80, deadline=None)
@given(
    rules=RULES,
    n=st.integers(3, 40),
    k=st.integers(1, 6),
    choices=st.lists(st.integers(0, 40), max_size=40),
)
def test_kernels_match_naive_reference(rules, n, k, choices):
    state = start(rules[0], n, k, rules[1])
    for choice in [*choices, None]:
        moves = naive_moves(state)
        mask = nim.legal_mask(state)
        assert mask.size == nim.num_actions(state)
        assert (np.flatnonzero(mask) + 1).tolist() == moves
        assert nim.winner(state) == naive_winner(state)
        assert nim.is_terminal(state) == (state[nim.PILE] == 0)
        player, winner, terminal, status_mask = nim.status(state)
        assert (player, winner) == (state[nim.PLAYER], naive_winner(state))
        assert terminal == (state[nim.PILE] == 0)
        assert np.array_equal(status_mask, mask)
        if choice is None or not moves:
            break
        take = moves[choice % len(moves)]
        expected = naive_after(state, take)
        state = nim.apply(state, take - 1)
        assert state == expected


@settings(max_examples=30, deadline=None)
@given(rules=RULES, n=st.integers(3, 40), seed=st.integers(0, 2**32))
def test_random_playout_is_reproducible_with_no_draws(rules, n, seed):
    state = start(rules[0], n, 3, rules[1])
    outcome = nim.random_playout(state, np.random.default_rng(seed))
    assert outcome in (0, 1)
    assert nim.random_playout(state, np.random.default_rng(seed)) == outcome
    counts = nim.random_playouts(state, 50, np.random.default_rng(seed))
    assert counts[0] == 0 and counts.sum() == 50
