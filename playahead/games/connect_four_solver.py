"""An exact Connect Four solver: every column's score, capped by a node budget.

Scores follow Pascal Pons' convention (the "solving Connect 4" tutorial and
gamesolver.org): from the side to move, ``22 - n`` for a win with the mover's ``n``-th
disc, ``0`` for a draw, ``-(22 - n)`` for a loss to the opponent's ``n``-th disc. The
empty board scores ``1``: the first player wins, with their 21st disc.

A position is a move string (the columns played, ``1``-``7`` from the left, as
gamesolver.org and Pons' solver take them: ``"4453"``) or a state of
:mod:`playahead.games.connect_four` (two ``int64`` bitboards in the Pons/Tromp layout).

API:

* :func:`parse_moves` ``(moves) -> state``: a checked move string.
* :class:`Solver`: owns a transposition table (``2**24``-odd entries, 80 MiB); its
  :meth:`Solver.solve` scores a position and :meth:`Solver.analyze` every column.
  Entries stay valid across positions, so one solver answers a series faster.
* :func:`solve` / :func:`analyze`: the same with one shared module-level solver.
* :func:`describe` ``(score) -> str``: a score in words (``"win with your 8th disc"``).

Every search counts nodes (calls of the search function) and stops at ``node_budget``
(default :data:`DEFAULT_NODE_BUDGET`, at most :data:`MAX_NODE_BUDGET`). A search stopped
by its budget leaves what it proved: the score lies between the bounds its null-window
searches reached (``lower``/``upper``; ``solved`` is False).

The search (compiled with numba; ``NUMBA_DISABLE_JIT=1`` runs it as plain Python):
negamax with alpha-beta on null windows, the window narrowed by bisection around the
score; a transposition table of bounds keyed by ``current + mask`` (unique per
position), a prime number of entries holding the low 32 bits of the key; only moves
that do not hand the opponent an immediate win are searched (a forced block is the
only move; two opponent threats lose at once); children in order of the number of
winning spots they make, ties to the centre.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np

from playahead.games import connect_four

WIDTH, HEIGHT = connect_four.COLS, connect_four.ROWS
#: Nodes a search may take by default (the ``solver`` agent's budget too).
DEFAULT_NODE_BUDGET = 20_000_000
#: The largest node budget accepted.
MAX_NODE_BUDGET = 200_000_000_000
#: Score of a column that is full (Pons' solver prints -1000 there too).
INVALID = -1000

_CELLS = WIDTH * HEIGHT
_BOTTOM_MASK = int(connect_four.BOTTOM.sum())
_BOARD_MASK = connect_four.FULL
_MIN_SCORE = -(_CELLS // 2) + 3  # -18: the quickest loss once nobody wins at once
_MAX_SCORE = (_CELLS + 1) // 2 - 3  # 18
_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)  # centre first
_COLUMN = connect_four.COLUMN
_TOP = connect_four.TOP
_LOW32 = 0xFFFFFFFF


@numba.njit(cache=True, inline="always")
def _stored_key(key, keys):
    """What the table keeps of a position's 49-bit ``key``: its low 32 bits in a
    table of ``uint32`` keys, which with the slot (``key`` modulo a prime above 2**17)
    tell every key apart; the whole key in a smaller table (``uint64`` keys)."""
    if keys.itemsize == 4:
        return key & _LOW32
    return key


def _next_prime(n: int) -> int:
    """Smallest prime >= n (n >= 2)."""
    while any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n += 1
    return n


@numba.njit(cache=True)
def _half(x) -> int:
    """``x / 2`` rounded toward zero (as C does): ``-7 -> -3``."""
    return -((-x) // 2) if x < 0 else x // 2


@numba.njit(cache=True)
def _winning_spots(position, mask):
    """Empty cells completing four of ``position``: ``3 stacked -> the 4th``."""
    # vertical
    r = (position << 1) & (position << 2) & (position << 3)
    for s in (HEIGHT + 1, HEIGHT, HEIGHT + 2):  # horizontal, two diagonals
        p = (position << s) & (position << (2 * s))
        r |= p & (position << (3 * s))
        r |= p & (position >> s)
        p = (position >> s) & (position >> (2 * s))
        r |= p & (position << s)
        r |= p & (position >> (3 * s))
    return r & (_BOARD_MASK ^ mask)


@numba.njit(cache=True)
def _can_win_next(current, mask) -> bool:
    """The mover has a winning drop: ``three stacked, room above -> True``."""
    possible = (mask + _BOTTOM_MASK) & _BOARD_MASK
    return (_winning_spots(current, mask) & possible) != 0


@numba.njit(cache=True)
def _negamax(current, mask, moves, alpha, beta, keys, values, counters) -> int:
    """Score within ``(alpha, beta)`` (fail-soft bound outside); nobody wins at once.

    ``counters``: ``[nodes, budget, stopped]``; over budget sets ``stopped`` and the
    caller discards the answer. ``(mover 3 stacked's opponent..., -1, 1) -> -k``.
    """
    counters[0] += 1
    if counters[0] > counters[1]:
        counters[2] = 1
        return 0
    possible = (mask + _BOTTOM_MASK) & _BOARD_MASK
    opponent_win = _winning_spots(current ^ mask, mask)
    forced = possible & opponent_win
    if forced:
        if forced & (forced - 1):  # two threats: the opponent wins next move
            return -((_CELLS - moves) // 2)
        possible = forced
    possible &= ~(opponent_win >> 1)  # never play below an opponent's winning spot
    if possible == 0:
        return -((_CELLS - moves) // 2)
    if moves >= _CELLS - 2:  # the last two discs cannot win
        return 0

    low = -((_CELLS - 2 - moves) // 2)  # the opponent cannot win next move
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (_CELLS - 1 - moves) // 2  # we cannot win at once
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    key = current + mask
    slot = key % keys.size
    if keys[slot] == _stored_key(key, keys):
        val = np.int64(values[slot])
        if val > _MAX_SCORE - _MIN_SCORE + 1:  # a lower bound
            low = val + 2 * _MIN_SCORE - _MAX_SCORE - 2
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        elif val > 0:  # an upper bound
            high = val + _MIN_SCORE - 1
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta

    # children by the number of winning spots they make, ties to the centre:
    # 8 bits per entry of _ORDER, (spots + 1) or 0 when not a candidate
    packed = np.int64(0)
    for i in range(WIDTH):
        move = possible & _COLUMN[_ORDER[i]]
        if move:
            spots = connect_four._popcount(_winning_spots(current | move, mask))
            packed |= np.int64(spots + 1) << (8 * i)
    while packed:
        best_i, best = -1, np.int64(0)
        for i in range(WIDTH):
            field = (packed >> (8 * i)) & 255
            if field > best:
                best_i, best = i, field
        packed &= ~(np.int64(255) << (8 * best_i))
        move = possible & _COLUMN[_ORDER[best_i]]
        score = -_negamax(
            current ^ mask,
            mask | move,
            moves + 1,
            -beta,
            -alpha,
            keys,
            values,
            counters,
        )
        if counters[2]:
            return 0
        if score >= beta:
            keys[slot] = _stored_key(key, keys)
            values[slot] = score + _MAX_SCORE - 2 * _MIN_SCORE + 2
            return score
        if score > alpha:
            alpha = score
    keys[slot] = _stored_key(key, keys)
    values[slot] = alpha - _MIN_SCORE + 1
    return alpha


@numba.njit(cache=True)
def _solve_bounds(current, mask, moves, keys, values, counters):
    """``(lower, upper)`` of the mover's score; equal once solved: ``empty -> (1, 1)``.

    The window narrows by null-window searches around its middle (pulled toward 0,
    where most scores lie) until it closes or the budget runs out.
    """
    if _can_win_next(current, mask):
        s = (_CELLS + 1 - moves) // 2
        return s, s
    low = -((_CELLS - moves) // 2)
    high = (_CELLS + 1 - moves) // 2
    while low < high:
        med = low + (high - low) // 2
        if med <= 0 and _half(low) < med:
            med = _half(low)
        elif med >= 0 and _half(high) > med:
            med = _half(high)
        r = _negamax(current, mask, moves, med, med + 1, keys, values, counters)
        if counters[2]:
            break
        if r <= med:
            high = r
        else:
            low = r
    return low, high


@numba.njit(cache=True)
def _analyze_bounds(current, mask, moves, keys, values, counters, lower, upper):
    """Fill ``lower``/``upper`` (``int64[7]``) with each column's score bounds for the
    mover (``INVALID`` for a full column); columns left to right, each searched in
    turn while the budget lasts, the rest keep what costs no search."""
    for col in range(WIDTH):
        if mask & _TOP[col]:
            lower[col] = INVALID
            upper[col] = INVALID
            continue
        move = (mask + (np.int64(1) << (col * (HEIGHT + 1)))) & _COLUMN[col]
        if _winning_spots(current, mask) & move:
            lower[col] = upper[col] = (_CELLS + 1 - moves) // 2
            continue
        child_current, child_mask = current ^ mask, mask | move
        if _can_win_next(child_current, child_mask):
            lower[col] = upper[col] = -((_CELLS - moves) // 2)
            continue
        if counters[2]:
            lower[col] = -((_CELLS - 2 - moves) // 2)  # the child cannot win at once
            upper[col] = (_CELLS - 1 - moves) // 2
            continue
        lo, hi = _solve_bounds(
            child_current, child_mask, moves + 1, keys, values, counters
        )
        lower[col], upper[col] = -hi, -lo


def _table_size(bits: int) -> int:
    return _next_prime(1 << bits)


def check_budget(node_budget) -> int:
    """``node_budget`` as an int in ``1 .. MAX_NODE_BUDGET``.

    Raises:
        ValueError: not a positive integer, or over :data:`MAX_NODE_BUDGET`.
    """
    ok = isinstance(node_budget, int | np.integer) and not isinstance(node_budget, bool)
    if not ok or node_budget < 1:
        raise ValueError(f"node budget must be a positive integer, got {node_budget!r}")
    if node_budget > MAX_NODE_BUDGET:
        raise ValueError(
            f"node budget {node_budget:,} is over the cap of {MAX_NODE_BUDGET:,} nodes"
        )
    return int(node_budget)


def parse_moves(moves: str) -> tuple[int, int]:
    """The position after ``moves``, checked: ``"44" -> (1 << 21, 1 << 22)``.

    Args:
        moves: the columns played in order, ``1``-``7`` from the left (gamesolver.org,
            Pons' solver); spaces around it are ignored; ``""`` is the empty board.

    Returns:
        ``(stones of player 0, stones of player 1)`` as in
        :mod:`playahead.games.connect_four`.

    Raises:
        ValueError: a character other than 1-7, a move into a full column, or a move
            after four in a row, or a string that ends with four in a row (the game
            is over: nothing to solve); the message names the move.
    """
    if not isinstance(moves, str):
        raise ValueError(f"moves must be a string of columns 1-7, got {moves!r}")
    text = moves.strip()
    state = connect_four.initial_state()
    for i, ch in enumerate(text):
        where = f"move {i + 1} of {text!r}"
        if ch not in "1234567":
            raise ValueError(f"{where}: {ch!r} is not a column (columns are 1-7)")
        if connect_four.winner(state) >= 0:
            raise ValueError(f"{where} comes after four in a row: the game was over")
        col = int(ch) - 1
        if (state[0] | state[1]) & int(_TOP[col]):
            raise ValueError(f"{where}: column {ch} is full (6 discs)")
        state = connect_four.apply(state, col)
    if connect_four.winner(state) >= 0:
        raise ValueError(
            f"{text!r} ends with four in a row: the game is over, nothing to solve"
        )
    return (int(state[0]), int(state[1]))


def _check_state(state) -> tuple[int, int, int]:
    """``(current, mask, moves)`` of a checked state (two bitboards)."""
    if isinstance(state, str):
        state = parse_moves(state)
    ok = (
        isinstance(state, tuple | list)
        and len(state) == 2
        and all(
            isinstance(p, int | np.integer) and 0 <= p <= _BOARD_MASK for p in state
        )
    )
    if ok:
        p0, p1 = int(state[0]), int(state[1])
        filled = p0 | p1
        cols = [(filled >> ((HEIGHT + 1) * c)) & 0x7F for c in range(WIDTH)]
        ok = (
            p0 & p1 == 0
            and filled & ~_BOARD_MASK == 0
            and all(col & (col + 1) == 0 for col in cols)
            and 0 <= p0.bit_count() - p1.bit_count() <= 1
        )
    if not ok:
        raise ValueError(
            f"not a Connect Four position: {state!r} (give a move string such as "
            "'4453' or two disjoint bitboards of stacked discs, player 0 first)"
        )
    if connect_four.winner((np.int64(p0), np.int64(p1))) >= 0:
        raise ValueError("the game is over (four in a row): nothing to solve")
    moves = filled.bit_count()
    current = p0 if moves % 2 == 0 else p1
    return current, filled, moves


def describe(score: int | None) -> str:
    """A score in words for the player to move: ``3 -> "win with your 19th disc"``,
    ``0 -> "draw"``, ``-4 -> "loss to the opponent's 18th disc"``, ``None -> "full"``.
    """
    if score is None or score == INVALID:
        return "full"
    if score == 0:
        return "draw"
    n = 22 - abs(int(score))
    if score > 0:
        return f"win with your {_ordinal(n)} disc"
    return f"loss to the opponent's {_ordinal(n)} disc"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10)
    return f"{n}{suffix or 'th'}"


@dataclasses.dataclass(frozen=True)
class Score:
    """A position's score for the side to move (Pons' convention).

    Attributes:
        lower, upper: bounds the search proved; equal once solved.
        nodes: search nodes spent.
    """

    lower: int
    upper: int
    nodes: int

    @property
    def solved(self) -> bool:
        return self.lower == self.upper

    @property
    def score(self) -> int | None:
        """The exact score, or None when the budget ran out first."""
        return self.lower if self.solved else None


@dataclasses.dataclass(frozen=True)
class ColumnScores:
    """Every column's score for the side to move, left to right.

    Attributes:
        lower, upper: ``tuple[int | None, ...]`` of 7: bounds of the score after a
            disc in that column (None: the column is full); equal where solved.
        nodes: search nodes spent.
        discs: discs on the board.
    """

    lower: tuple[int | None, ...]
    upper: tuple[int | None, ...]
    nodes: int
    discs: int

    @property
    def legal(self) -> tuple[bool, ...]:
        return tuple(lo is not None for lo in self.lower)

    @property
    def solved(self) -> bool:
        """Every legal column's score is exact."""
        return all(lo == hi for lo, hi in zip(self.lower, self.upper, strict=True))

    @property
    def scores(self) -> tuple[int | None, ...]:
        """Exact scores (None for a full column or one not solved)."""
        return tuple(
            lo if lo == hi else None
            for lo, hi in zip(self.lower, self.upper, strict=True)
        )

    @property
    def best(self) -> tuple[int, ...]:
        """Columns (0-based) of the highest score; when not solved, of the highest
        lower bound among those whose upper bound no other column's lower bound
        beats."""
        legal = [c for c in range(WIDTH) if self.lower[c] is not None]
        if not legal:
            return ()
        floor = max(self.lower[c] for c in legal)
        keep = [c for c in legal if self.upper[c] >= floor]
        top = max(self.lower[c] for c in keep)
        return tuple(c for c in keep if self.lower[c] == top)


class Solver:
    """An exact solver with its own transposition table.

    Args:
        table_bits: the table holds the first prime above ``2**table_bits`` entries of
            5 bytes (24: 80 MiB, Pons' size; 9 bytes below 17); 10 to 27.
    """

    def __init__(self, table_bits: int = 24):
        if not isinstance(table_bits, int) or not 10 <= table_bits <= 27:
            raise ValueError(
                f"table_bits must be an integer in 10..27, got {table_bits!r}"
            )
        size = _table_size(table_bits)
        # 32 bits of a key and its slot identify it only in a table above 2**17
        # entries (Pons' argument: 2**32 times the size exceeds 2**49)
        wide = size <= 1 << 17
        self._keys = np.zeros(size, dtype=np.uint64 if wide else np.uint32)
        self._values = np.zeros(size, dtype=np.uint8)
        self.nodes = 0  # nodes searched over this solver's life

    def reset(self) -> None:
        """Empty the table (later answers then do not depend on earlier ones)."""
        self._keys[:] = 0
        self._values[:] = 0

    def _counters(self, node_budget: int) -> np.ndarray:
        return np.array([0, check_budget(node_budget), 0], dtype=np.int64)

    def solve(self, position, node_budget: int = DEFAULT_NODE_BUDGET) -> Score:
        """The score of ``position`` for the side to move.

        Args:
            position: a move string (``"4453"``) or a state (two bitboards).
            node_budget: nodes the search may spend (at most :data:`MAX_NODE_BUDGET`).

        Raises:
            ValueError: a malformed or finished position, or a bad budget.
        """
        current, mask, moves = _check_state(position)
        counters = self._counters(node_budget)
        if moves == _CELLS:
            return Score(0, 0, 0)
        lo, hi = _solve_bounds(
            np.int64(current),
            np.int64(mask),
            moves,
            self._keys,
            self._values,
            counters,
        )
        self.nodes += int(counters[0])
        return Score(int(lo), int(hi), int(min(counters[0], counters[1])))

    def analyze(self, position, node_budget: int = DEFAULT_NODE_BUDGET) -> ColumnScores:
        """Every column's score for the side to move (as Pons' ``c4solver -a``).

        Columns are searched left to right within one shared ``node_budget``; once it
        runs out the rest keep the bounds known without search.

        Raises:
            ValueError: a malformed or finished position, or a bad budget.
        """
        current, mask, moves = _check_state(position)
        counters = self._counters(node_budget)
        lower = np.zeros(WIDTH, dtype=np.int64)
        upper = np.zeros(WIDTH, dtype=np.int64)
        _analyze_bounds(
            np.int64(current),
            np.int64(mask),
            moves,
            self._keys,
            self._values,
            counters,
            lower,
            upper,
        )
        self.nodes += int(counters[0])

        def cols(a):
            return tuple(None if v == INVALID else int(v) for v in a)

        spent = int(min(counters[0], counters[1]))
        return ColumnScores(cols(lower), cols(upper), spent, moves)


_shared: Solver | None = None


def shared_solver() -> Solver:
    """The module's solver (made on first use; 80 MiB)."""
    global _shared
    if _shared is None:
        _shared = Solver()
    return _shared


def solve(position, node_budget: int = DEFAULT_NODE_BUDGET) -> Score:
    """:meth:`Solver.solve` with the shared solver."""
    return shared_solver().solve(position, node_budget)


def analyze(position, node_budget: int = DEFAULT_NODE_BUDGET) -> ColumnScores:
    """:meth:`Solver.analyze` with the shared solver."""
    return shared_solver().analyze(position, node_budget)
