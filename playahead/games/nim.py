"""Nim and Chips, one-pile take-away games: pure rules, compiled with numba.

* **Nim** (``n`` sticks, take 1..``k``): taking the last stick wins; in misère play it
  loses. Default ``n=21, k=3``. The player to move loses exactly when ``n % (k+1) == 0``
  (misère: ``== 1``).
* **Chips** (``n`` chips): after the first move a player may take 1 up to twice what
  the opponent just took, never more than what is left. Two rule sets:

  - ``"last_chip"`` (Fibonacci Nim), ``n >= 2``: the first move takes 1..n-1; taking
    the last chip wins. The first player loses exactly when ``n`` is a Fibonacci number.
  - ``"even_total"``, ``n`` odd and ``>= 3``: the first move takes 1..n//2; once the
    pile is empty the player holding an even number of chips wins.

State: a tuple of six ints ``(pile, player, limit, held_0, held_1, rule)``: chips
left, player to move (0 moves first), the most the mover may take before the pile caps
it (``k`` in Nim; the first-move cap, then twice the last take in Chips), chips taken so
far by each player, and the rule code (:data:`NIM`, :data:`MISERE`, :data:`LAST_CHIP`,
:data:`EVEN_TOTAL`). Action ``a`` means "take ``a + 1``". The number of actions is
``k`` for Nim and ``n - 1`` for Chips (no take can be larger under either rule).
There are no draws.

API (the state constructors check their inputs; the rest are numba kernels, callable
from Python and from compiled code):

* ``nim_state(n=21, k=3, misere=False)``, ``chips_state(n, rule="last_chip")``
* ``current_player(state) -> int``; ``num_actions(state) -> int``
* ``legal_mask(state) -> bool[num_actions]``: True = legal; all False at the end.
* ``apply(state, action) -> state``: the action is not checked.
* ``winner(state) -> int``: 0 or 1 once the pile is empty, else -1.
* ``is_terminal(state) -> bool``; ``result(state) -> int``: +1 / -1 / 0 for player 0.
* ``status(state) -> (player, winner, terminal, legal_mask)`` in one call.
* ``random_playout(state, rng) -> int``: the winner after uniformly random legal takes
  drawn from ``rng: np.random.Generator``.
* ``random_playouts(state, n_playouts, rng) -> int64[3]``: counts of ``winner + 1``
  (index 0, draws, stays 0). Handing a Generator from Python to a kernel costs ~8 us,
  so batch playouts from Python.

Run with ``NUMBA_DISABLE_JIT=1`` to step through the same code as plain Python.
"""

from __future__ import annotations

import numba
import numpy as np

NIM, MISERE, LAST_CHIP, EVEN_TOTAL = 0, 1, 2, 3
CHIPS_RULES = {"last_chip": LAST_CHIP, "even_total": EVEN_TOTAL}
PILE, PLAYER, LIMIT, HELD_0, HELD_1, RULE = range(6)

State = tuple[int, int, int, int, int, int]


def nim_state(n: int = 21, k: int = 3, misere: bool = False) -> State:
    """The start of Nim with ``n`` sticks and takes of 1..``k``.

    Raises:
        ValueError: ``n < 1`` or ``k < 1``.
    """
    if int(n) != n or n < 1:
        raise ValueError(f"Nim needs at least one stick, got n={n!r}")
    if int(k) != k or k < 1:
        raise ValueError(f"Nim needs a maximum take k >= 1, got k={k!r}")
    return (int(n), 0, int(k), 0, 0, MISERE if misere else NIM)


def chips_state(n: int, rule: str = "last_chip") -> State:
    """The start of Chips with ``n`` chips under ``rule`` (see the module docstring).

    Raises:
        ValueError: unknown rule, or ``n`` invalid for it (``last_chip``: ``n >= 2``;
            ``even_total``: ``n`` odd and ``>= 3``).
    """
    if rule not in CHIPS_RULES:
        raise ValueError(
            f"unknown Chips rule {rule!r}; choose from {list(CHIPS_RULES)}"
        )
    if int(n) != n:
        raise ValueError(f"Chips needs an integer number of chips, got n={n!r}")
    n = int(n)
    if rule == "last_chip" and n < 2:
        raise ValueError(f"Chips rule 'last_chip' needs n >= 2 chips, got n={n}")
    if rule == "even_total" and (n < 3 or n % 2 == 0):
        raise ValueError(
            f"Chips rule 'even_total' needs an odd n >= 3 (so exactly one player ends "
            f"with an even total), got n={n}"
        )
    first_cap = n - 1 if rule == "last_chip" else n // 2
    return (n, 0, first_cap, 0, 0, CHIPS_RULES[rule])


@numba.njit(cache=True)
def current_player(state) -> int:
    """Player to move: ``(20, 1, 3, 1, 0, NIM) -> 1``."""
    return state[PLAYER]


@numba.njit(cache=True)
def num_actions(state) -> int:
    """Size of the action space: ``Nim k=3 -> 3``, ``Chips n=21 -> 20``."""
    if state[RULE] <= MISERE:
        return state[LIMIT]
    return state[PILE] + state[HELD_0] + state[HELD_1] - 1


@numba.njit(cache=True)
def legal_mask(state) -> np.ndarray:
    """Takes 1..min(limit, pile): ``(2, 0, 3, ...) -> [True, True, False]``."""
    mask = np.zeros(num_actions(state), dtype=np.bool_)
    mask[: min(state[LIMIT], state[PILE])] = True
    return mask


@numba.njit(cache=True)
def apply(state, action: int):
    """Take ``action + 1``: ``(21, 0, 3, 0, 0, NIM), 2 -> (18, 1, 3, 3, 0, NIM)``."""
    pile, player, limit, held_0, held_1, rule = state
    take = action + 1
    if player == 0:
        held_0 += take
    else:
        held_1 += take
    if rule >= LAST_CHIP:
        limit = 2 * take
    return (pile - take, 1 - player, limit, held_0, held_1, rule)


@numba.njit(cache=True)
def winner(state) -> int:
    """Winner once the pile is empty, else -1: ``(0, 1, 3, 21, 0, NIM) -> 0``."""
    if state[PILE] > 0:
        return -1
    rule = state[RULE]
    if rule == MISERE:  # whoever took the last stick lost
        return state[PLAYER]
    if rule == EVEN_TOTAL:
        return 0 if state[HELD_0] % 2 == 0 else 1
    return 1 - state[PLAYER]


@numba.njit(cache=True)
def is_terminal(state) -> bool:
    """The pile is empty: ``(0, ...) -> True``."""
    return state[PILE] == 0


@numba.njit(cache=True)
def result(state) -> int:
    """+1 / -1 / 0 from player 0's side: ``player 1 took the last stick -> -1``."""
    w = winner(state)
    return 0 if w < 0 else 1 - 2 * w


@numba.njit(cache=True)
def status(state):
    """(player, winner, terminal, mask): ``Nim 21/3 -> (0, -1, False, [T, T, T])``."""
    return state[PLAYER], winner(state), state[PILE] == 0, legal_mask(state)


@numba.njit(cache=True)
def random_playout(state, rng: np.random.Generator) -> int:
    """Uniformly random legal takes to the end; the winner: ``Nim 21/3 -> 0 (~50%)``."""
    while state[PILE] > 0:
        most = min(state[LIMIT], state[PILE])
        state = apply(state, int(rng.random() * most))
    return winner(state)


@numba.njit(cache=True)
def random_playouts(state, n_playouts: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of ``winner + 1`` over playouts: ``Nim 21/3, 1000 -> ~[0, 500, 500]``."""
    counts = np.zeros(3, dtype=np.int64)
    for _ in range(n_playouts):
        counts[random_playout(state, rng) + 1] += 1
    return counts
