"""Compiled expectimax for 2048 and Threes on packed boards (the planner:
:mod:`playahead.planners.expectimax`).

Depth counts the moves after the first, as nneonneo's 2048-ai does: at depth ``d`` the
search plays the root move, then ``d`` times (chance, best move), and evaluates the
last board. A chance node whose cumulative probability ``cprob`` is below ``cutoff``
is evaluated instead of expanded. A position with no legal move is worth 0.

Every search function takes three records (``typing.NamedTuple``, each built by one
builder; numba reads their fields by name):

* ``ctx``, a :class:`SearchContext` (:func:`search_context`): the game's row tables,
  the evaluator's table, the transposition table and the counters.
* ``cfg``, a :class:`SearchConfig` (:func:`search_config`): cut-off, reward weight,
  the table's stamp and size, and the bonus model.
* ``net``: None, or a :class:`LeafNet` (:func:`leaf_net`), the learned leaf of an
  n-tuple net, whose afterstate value is added to the table's value wherever a leaf is
  an afterstate. It is an argument of its own, tested only as ``net is None``, so
  numba compiles the search without a net with the learned branches pruned away and
  ``ctx`` stays small (each recursive call copies it; a bigger ``ctx``, or the learned
  code left in the plain search, slows it visibly in ``python -m benchmarks
  expectimax``).

The roots (:func:`root_2048`, :func:`root_threes`) hand ``ctx`` and ``net`` to the
nodes below as borrowed views (:mod:`playahead.kernels.borrow`), so no node counts
references to their arrays, and a 2048 search takes the scratch of its chance nodes
from one allocation per search, a row per depth left (:func:`_scratch_2048`).

The Threes nodes, their leaves and the helpers they call are compiled without
numba's reference counting (``_nrt=False``): they allocate nothing and return no
array, and every array below the roots is borrowed, so each count they would make is
a call that does nothing (23% of a default Threes decision's instructions, with the
counting).

Learned leaves (with the score table, so values are expected final scores): a leaf is
always an afterstate, whose value is the score so far plus the learned value
``V(afterstate, code)`` of the score still to come. In 2048 the leaves are afterstates
already (a chance node cut by depth or probability, or a move of the last round). In
Threes the last round's move is valued at its afterstate with the preview code of the
card the search drew for it (0, 1, 2 for a 1, 2, 3; 3 for a bonus card) instead of
averaging over the lines the card may enter; a 12288 afterstate is worth its score;
depth 0 values the root moves with the env's preview code (the greedy n-tuple player); a
card node cut by probability expands one more round of leaves.

Transposition table: ``tt_keys: uint64[n, 2]`` (board, aux) and ``tt_values:
float64[n]``, ``n = 2**tt_bits``, always-replace. ``aux = stamp << 24 |
depth_left << 16 | deck`` keys an entry on the remaining depth and, for Threes, the
deck counts; the caller bumps ``stamp`` once per decision, which empties the table
without clearing it.

Moves act on "line space": rows of the board for left/right, rows of its transpose for
up/down; side 0 moves toward column 0 (left, up) and side 1 toward column 3.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from playahead.games._board64 import count_empty, max_rank, transpose
from playahead.games.chance import (
    P_FOUR,
    basic_share,
    bonus_count,
    bonus_p,
    pack_cards,
    refilled,
    unpack_cards,
)
from playahead.kernels.borrow import borrowed_members
from playahead.kernels.counters import LIMIT, NODES, TT_HITS
from playahead.kernels.fixed_patterns import kind_of
from playahead.kernels.ntuple import (
    code_shift,
    leaf_layout,
    leaf_lookups,
    preview_code,
    read,
    staged,
)
from playahead.kernels.rows import evaluate_pair

_K1 = np.uint64(0x9E3779B1)
_K2 = np.uint64(0x85EBCA6B)
_M24 = np.uint64(0xFFFFFF)
_M32 = np.uint64(0xFFFFFFFF)
#: Slots of a 2048 chance node's memo of leaf values (:func:`_leaf_moves_2048`).
_MEMO_BITS = 6
#: Slots of a Threes search's memo of learned leaf values (:func:`_memo_probe`).
_THREES_MEMO_BITS = 14
_ONES = np.uint64(0x1111111111111111)
_NIB = np.uint64(0xF)
_ROW = np.uint64(0xFFFF)
_U16 = np.uint64(16)
_U24 = np.uint64(24)
_U32 = np.uint64(32)
_U48 = np.uint64(48)


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table with ``2**bits`` slots: (keys, values)."""
    return np.zeros((1 << bits, 2), dtype=np.uint64), np.zeros(1 << bits)


class SearchContext(NamedTuple):
    """The tables a search reads and the state it keeps (``ctx``)."""

    #: ``uint16[2, 65536]``: each row moved toward side 0 and side 1.
    moves: np.ndarray
    #: ``int32[2, 65536]``: the merge reward of each of those moves.
    rewards: np.ndarray
    #: ``float64[65536]``: the evaluator's row table
    #: (:mod:`playahead.planners.evaluators`).
    table: np.ndarray
    #: ``uint64[n, 2]``: the transposition table's keys (board, aux).
    tt_keys: np.ndarray
    #: ``float64[n]``: the transposition table's values.
    tt_values: np.ndarray
    #: ``int64[3]``: nodes, tt hits, node limit, read by the names of
    #: :mod:`playahead.kernels.counters` (a node is a position reached by a legal
    #: move). Once the node count passes the limit every chance node that would
    #: expand returns 0 at once: the search is abandoned, and its caller must see
    #: ``nodes > limit`` and throw its values away (how a node budget stops a search
    #: that runs long).
    counters: np.ndarray


def search_context(moves, rewards, table, tt, counters) -> SearchContext:
    """The :class:`SearchContext` of a search over the game's row tables ``moves``,
    ``rewards``, the evaluator's ``table``, the transposition table ``tt``
    (:func:`new_table`) and ``counters``. The search reads ``table`` through a
    read-only view, whichever evaluator made it, so every search of a game shares one
    compiled kernel per leaf net type."""
    view = table.view()
    view.flags.writeable = False
    return SearchContext(moves, rewards, view, tt[0], tt[1], counters)


class SearchConfig(NamedTuple):
    """The settings of one search (``cfg``)."""

    #: chance nodes whose cumulative probability is below it are evaluated.
    cutoff: float
    #: scales the merge rewards added along the path (2048 only).
    reward_weight: float
    #: the decision's stamp, part of every table key (module docstring).
    stamp: int
    #: the table has ``2**tt_bits`` slots.
    tt_bits: int
    #: whether the transposition table is used.
    use_tt: bool
    #: Threes: an unknown bonus card's value has the marginal of the game's draw (a
    #: window of up to three consecutive values first, the card uniform in it:
    #: :func:`~playahead.games.chance.bonus_p`), not each value alike.
    window: bool


@nb.njit(cache=True)
def search_config(cutoff, reward_weight, stamp, tt_bits, use_tt, window=False):
    """The :class:`SearchConfig` of decision ``stamp`` with a table of ``2**tt_bits``
    slots (:func:`new_table`); compiled, so a kernel restamps a search with it too."""
    return SearchConfig(
        np.float64(cutoff),
        np.float64(reward_weight),
        np.int64(stamp),
        np.int64(tt_bits),
        bool(use_tt),
        bool(window),
    )


class LeafNet(NamedTuple):
    """An n-tuple net as the search's learned leaf (``net``): its weights in one of
    two layouts, its patterns and its scratch space.

    With ``clamp`` a negative learned value counts as 0, since no score still to come
    is below 0 (as threes-meadow-ai clamps its leaves).
    """

    #: ``float32[P * C * size]``, or ``int16`` multiples of ``scale``: the weights,
    #: flat, in the layout ``stride`` names.
    flat: np.ndarray
    #: ``int64[P, R, 3]``: the patterns as runs
    #: (:func:`playahead.kernels.ntuple.pattern_runs`).
    runs: np.ndarray
    #: ``uint64[8]``: scratch for the board's eight images.
    imgs: np.ndarray
    #: ``int64[8 * P]``: scratch for one afterstate's lookups.
    idx: np.ndarray
    #: codes of the net (preview codes times stages).
    n_codes: int
    #: entries of one pattern's table (``16**K``).
    size: int
    #: codes of one stage: 4 for a Threes net with the preview index, else 1.
    n_base: int
    #: negative learned values count as 0.
    clamp: bool
    #: 1 for ``weights.reshape(-1)``, ``n_base`` for
    #: :func:`playahead.kernels.ntuple.leaf_layout`, where the preview codes of one
    #: index share a cache line.
    stride: int
    #: ``int64[S - 1]``: the stage ranks (:func:`playahead.kernels.ntuple.staged`).
    stages: np.ndarray
    #: points per unit of ``flat``: 1.0 for float32 weights; for int16 weights (a
    #: packaged net's multiples of its step, half the memory) the step. Sums of
    #: entries are taken first and scaled once, so with a power-of-two step the
    #: values are those of the float32 weights ``flat * scale``, bit for bit.
    scale: float
    #: :func:`~playahead.kernels.fixed_patterns.kind_of` ``runs``.
    kind: int


def leaf_net(
    weights, runs, n_base, stages, clamp=False, grouped=True, scale=1.0
) -> LeafNet:
    """The :class:`LeafNet` of ``weights`` (``float32[P, C, size]``, or int16
    multiples of ``scale``) and its pattern ``runs``: ``grouped`` copies the weights
    into the leaf layout, else the search reads ``weights`` themselves (code-major,
    so it always reads them as trained)."""
    stride = n_base if grouped else 1
    flat = leaf_layout(weights, n_base) if grouped else weights.reshape(-1)
    return LeafNet(
        flat,
        runs,
        np.zeros(8, np.uint64),
        np.zeros(8 * runs.shape[0], np.int64),
        np.int64(weights.shape[1]),
        np.int64(weights.shape[2]),
        np.int64(n_base),
        bool(clamp),
        np.int64(stride),
        np.asarray(stages, np.int64),
        np.float64(scale),
        np.int64(kind_of(runs)),
    )


@nb.njit(cache=True)
def _slot(board, aux, tt_bits):
    """Hash of (board, aux) into ``2**tt_bits`` slots (32-bit products only, so
    nothing overflows when the kernels run as plain Python)."""
    x = (board & _M32) ^ (((board >> _U32) * _K1) & _M32) ^ (aux & _M24)
    x = (x * _K2) & _M32
    x ^= x >> np.uint64(15)
    x = (x * _K1) & _M32
    return np.int64(x >> np.uint64(32 - tt_bits))


@nb.njit(cache=True, _nrt=False)
def _lookup(x, side, moves):
    """Rows of ``x`` through ``moves[side]``: [2, 2, 4, 0] side 0 -> [4, 4, 0, 0]."""
    return (
        np.uint64(moves[side, x & _ROW])
        | (np.uint64(moves[side, (x >> _U16) & _ROW]) << _U16)
        | (np.uint64(moves[side, (x >> _U32) & _ROW]) << _U32)
        | (np.uint64(moves[side, (x >> _U48) & _ROW]) << _U48)
    )


@nb.njit(cache=True, _nrt=False)
def _move(board, board_t, a, moves):
    """``(vertical, side, src, out)`` of move ``a`` (0 up, 1 right, 2 down, 3 left):
    ``src`` is the board in line space (``board_t`` for up and down), ``out`` the
    lines moved toward ``side`` (``out == src``: the move is illegal)."""
    vertical = a == 0 or a == 2
    side = 0 if a == 0 or a == 3 else 1
    src = board_t if vertical else board
    return vertical, side, src, _lookup(src, side, moves)


@nb.njit(cache=True, _nrt=False)
def _reward(x, side, rewards):
    """Merge reward of moving the rows of ``x`` toward ``side``."""
    return np.float64(
        rewards[side, x & _ROW]
        + rewards[side, (x >> _U16) & _ROW]
        + rewards[side, (x >> _U32) & _ROW]
        + rewards[side, (x >> _U48) & _ROW]
    )


@nb.njit(cache=True)
def _has_top_rank(board):
    """True if some cell holds rank 15 (Threes' 12288, which ends the game)."""
    x = board & (board >> np.uint64(1))
    x &= x >> np.uint64(2)
    return (x & _ONES) != 0


@nb.njit(cache=True, _nrt=False)
def _lookup_probe(board, aux, ctx, cfg):
    """(slot, value or NaN) of the transposition table."""
    tt_keys, tt_values, counters = ctx.tt_keys, ctx.tt_values, ctx.counters
    slot = _slot(board, aux, cfg.tt_bits)
    if tt_keys[slot, 0] == board and tt_keys[slot, 1] == aux:
        counters[TT_HITS] += 1
        return slot, tt_values[slot]
    return slot, np.nan


@nb.njit(cache=True, _nrt=False)
def _net_lookups(board, net, idx, off):
    """Look up afterstate ``board`` (board orientation) for code 0 of its stage into
    ``idx[off:off + 8 * P]``; code ``c`` is read at ``c * _shift(net)`` further."""
    stage = staged(board, 0, 1, net.stages)
    leaf_lookups(
        board,
        stage,
        net.runs,
        net.n_codes,
        net.size,
        net.n_base,
        net.stride,
        net.imgs,
        idx,
        off,
        net.flat,
        net.kind,
    )


@nb.njit(cache=True, _nrt=False)
def _shift(net):
    """What reads code ``c``: ``c * _shift(net)`` further; 0 for a net of one code
    per stage (2048, or a Threes net without the preview index: every card alike)."""
    return code_shift(net.size, net.n_base, net.stride)


@nb.njit(cache=True, _nrt=False)
def _learned(board, code, net):
    """The net's value of afterstate ``board`` (board orientation) with ``code``
    (the preview code; the board's stage is added here)."""
    idx = net.idx
    _net_lookups(board, net, idx, 0)
    v = read(net.flat, idx, 0, idx.shape[0], code * _shift(net))
    return _clamped(v, net)


@nb.njit(cache=True, _nrt=False)
def _clamped(v, net):
    """``v``, a sum of ``net``'s entries, in points (times ``net.scale``), or 0
    where ``net`` clamps and it is negative."""
    v *= net.scale
    if net.clamp and v < 0.0:  # clamped: no future score is below 0
        return 0.0
    return v


@nb.njit(cache=True, _nrt=False)
def _leaf_round(board, board_t, moves, table, net, row, memo):
    """``(best0, best1, best2, best3, legal)``: for each preview code ``c`` the best
    over the legal moves of the afterstate's value with code ``c`` (score table plus
    the learned value, a 12288 afterstate its score alone; 0 if no move is legal),
    and the number of legal moves. The same values as :func:`_learned` per move and
    code (same bits), with the afterstate's lookups found once for the four codes:
    the lookups of every move are written (and prefetched) into the scratch ``row``
    (:func:`_scratch_threes`) first, then read, so their loads overlap. With one
    code a stage, ``memo`` (:func:`_memo_probe`) gives the learned values of
    afterstates met before in this search."""
    found, known, afters, slots = row
    flat = net.flat
    shift = _shift(net)
    n = net.idx.shape[0]
    legal = 0
    for a in range(4):
        known[a] = np.nan
        vertical, side, src, out = _move(board, board_t, a, moves)
        if out == src:
            continue
        legal += 1
        out_t = transpose(out)
        known[a] = evaluate_pair(out, out_t, table)
        known[4 + a] = np.nan
        slots[a] = -1
        if _has_top_rank(out):  # the game ends: the score alone
            known[4 + a] = 0.0
            continue
        after = out_t if vertical else out
        if shift == 0:
            slot, hit = _memo_probe(after, memo)
            afters[a], slots[a] = after, slot
            if not np.isnan(hit):
                known[4 + a] = hit
                continue
        _net_lookups(after, net, found, a * n)
    b0 = b1 = b2 = b3 = 0.0
    for a in range(4):
        s = known[a]
        if np.isnan(s):
            continue
        v = known[4 + a]
        if shift == 0 or not np.isnan(v):
            if np.isnan(v):
                v = _clamped(read(flat, found, a * n, n), net)
                memo[0][slots[a]], memo[1][slots[a]] = afters[a], v
            v0 = v1 = v2 = v3 = s + v
        else:
            off = a * n
            v0 = s + _clamped(read(flat, found, off, n), net)
            v1 = s + _clamped(read(flat, found, off, n, shift), net)
            v2 = s + _clamped(read(flat, found, off, n, 2 * shift), net)
            v3 = s + _clamped(read(flat, found, off, n, 3 * shift), net)
        b0 = max(b0, v0)
        b1 = max(b1, v1)
        b2 = max(b2, v2)
        b3 = max(b3, v3)
    return b0, b1, b2, b3, legal


@nb.njit(cache=True, _nrt=False)
def _memo_probe(after, memo):
    """(slot, learned value or NaN) of afterstate ``after`` in ``memo = (keys,
    values)``, a direct-mapped table of the learned values of one search, of a
    power of two slots (key 0: empty; no afterstate is the empty board)."""
    keys, values = memo
    slot = _slot(after, np.uint64(0), _THREES_MEMO_BITS) & (keys.shape[0] - 1)
    if keys[slot] == after:
        return slot, values[slot]
    return slot, np.nan


@nb.njit(cache=True, _nrt=False)
def _store(slot, board, aux, value, ctx):
    ctx.tt_keys[slot, 0] = board
    ctx.tt_keys[slot, 1] = aux
    ctx.tt_values[slot] = value


# ------------------------------------------------------------------------- 2048


@nb.njit(cache=True)
def chance_2048(board, depth_left, cprob, ctx, cfg, net, scratch):
    """Expected value of a 2048 afterstate: a 2 (0.9) or 4 (0.1) on each empty cell.
    ``scratch``: :func:`_scratch_2048`'s, whose row ``depth_left`` this node uses."""
    moves, rewards, table, counters = ctx.moves, ctx.rewards, ctx.table, ctx.counters
    cutoff, reward_weight, use_tt = cfg.cutoff, cfg.reward_weight, cfg.use_tt
    stamp = np.uint64(cfg.stamp)
    board_t = transpose(board)
    n = count_empty(board)
    if depth_left <= 0 or cprob < cutoff or n == 0:
        v = evaluate_pair(board, board_t, table)
        if net is not None:
            v += _learned(board, 0, net)
        return v
    if counters[NODES] > counters[LIMIT]:  # over the node limit: abandoned
        return 0.0
    aux = (stamp << _U24) | (np.uint64(depth_left) << _U16)
    slot = np.int64(0)
    if use_tt:
        slot, hit = _lookup_probe(board, aux, ctx, cfg)
        if not np.isnan(hit):
            return hit
    res = 0.0
    # scratch for leaf children only (a child is a leaf at depth 1, or below the
    # cut-off, which the likelier 2 reaches after the 4 does)
    if net is not None and (depth_left <= 1 or cprob * P_FOUR / n < cutoff):
        level = _level(scratch, depth_left)
        level[4][:] = 0  # the memo starts empty at each node
    for cell in range(16):
        at = np.uint64(4 * cell)
        if (board >> at) & _NIB:
            continue
        at_t = np.uint64(4 * (4 * (cell & 3) + (cell >> 2)))
        for k in range(2):
            p = P_FOUR if k else 1.0 - P_FOUR
            child_prob = cprob * p / n
            leaf = depth_left <= 1 or child_prob < cutoff  # children are evaluated
            child = board | (np.uint64(k + 1) << at)
            child_t = board_t | (np.uint64(k + 1) << at_t)
            best = 0.0
            if leaf and net is not None:
                res += p * _leaf_moves_2048(
                    child, child_t, ctx, reward_weight, net, level
                )  # fmt: skip
                continue
            for a in range(4):
                vertical, side, src, out = _move(child, child_t, a, moves)
                if out == src:
                    continue
                counters[NODES] += 1
                out_t = transpose(out)
                after = out_t if vertical else out
                if leaf:
                    v = evaluate_pair(out, out_t, table)
                    if net is not None:
                        v += _learned(after, 0, net)
                else:
                    v = chance_2048(
                        after, depth_left - 1, child_prob, ctx, cfg, net, scratch
                    )
                if reward_weight != 0.0:
                    v += reward_weight * _reward(src, side, rewards)
                if v > best:
                    best = v
            res += p * best
    res /= n
    if use_tt:
        _store(slot, board, aux, res, ctx)
    return res


@nb.njit(cache=True)
def _leaf_moves_2048(child, child_t, ctx, reward_weight, net, scratch):
    """The best move's value of 2048 position ``child`` whose afterstates are leaves
    (learned value plus the table's, plus the merge reward; 0 if no move is legal):
    the lookups of all four afterstates are written (and prefetched) into ``found``
    first, then read, so their memory loads overlap. ``scratch``: ``(found, known,
    afters, slots, memo_keys, memo_values)``; ``known`` holds each move's table value
    (NaN if illegal), its reward and its learned value (NaN until read), ``afters``
    and ``slots`` each move's afterstate and memo slot, and the memo the learned
    values of afterstates met before under the same chance node, read instead of
    looked up again. Same values, same bits as one at a time."""
    found, known, afters, slots, memo_keys, memo_values = scratch
    moves, rewards, table, counters = ctx.moves, ctx.rewards, ctx.table, ctx.counters
    width = net.idx.shape[0]
    for a in range(4):
        known[a] = np.nan
        vertical, side, src, out = _move(child, child_t, a, moves)
        if out == src:
            continue
        counters[NODES] += 1
        out_t = transpose(out)
        known[a] = evaluate_pair(out, out_t, table)
        known[4 + a] = 0.0
        if reward_weight != 0.0:
            known[4 + a] = reward_weight * _reward(src, side, rewards)
        after = out_t if vertical else out
        slot = _slot(after, np.uint64(0), _MEMO_BITS)
        afters[a], slots[a] = after, slot
        if memo_keys[slot] == after:
            known[8 + a] = memo_values[slot]
        else:
            known[8 + a] = np.nan
            _net_lookups(after, net, found, a * width)
    best = 0.0
    for a in range(4):
        if np.isnan(known[a]):
            continue
        learned = known[8 + a]
        if np.isnan(learned):
            learned = _clamped(read(net.flat, found, a * width, width), net)
            memo_keys[slots[a]], memo_values[slots[a]] = afters[a], learned
        v = known[a] + learned
        v += known[4 + a]  # the reward after the learned value, as one at a time
        if v > best:
            best = v
    return best


@nb.njit(cache=True)
def _scratch_2048(net, depth):
    """The scratch of a 2048 search to ``depth`` over ``net``, one row per depth
    left (a chance node whose children are leaves uses its row, while the nodes
    below it use theirs): for each, the four afterstates' lookups (``found``), each
    move's table value (NaN: illegal), reward and learned value (``known``), each
    move's afterstate and memo slot, and the memo of learned values that children
    whose tile lands in the same line often share (keys, values)."""
    width = 0 if net is None else net.idx.shape[0]
    rows = depth + 1
    return (
        np.empty((rows, 4 * width), np.int64),
        np.empty((rows, 12)),
        np.zeros((rows, 4), np.uint64),
        np.zeros((rows, 4), np.int64),
        np.zeros((rows, 1 << _MEMO_BITS), np.uint64),
        np.empty((rows, 1 << _MEMO_BITS)),
    )


@nb.njit(cache=True)
def _level(scratch, depth_left):
    """Row ``depth_left`` of each array of :func:`_scratch_2048`'s ``scratch``."""
    found, known, afters, slots, memo_keys, memo_values = scratch
    d = depth_left
    return found[d], known[d], afters[d], slots[d], memo_keys[d], memo_values[d]


@nb.njit(cache=True)
def _borrowed_net(net):
    """``net`` with every array borrowed (``borrowed_members``, of
    :mod:`playahead.kernels.borrow`); None stays None."""
    if net is None:
        return None
    return borrowed_members(net)


@nb.njit(cache=True)
def root_2048(board, depth, ctx, cfg, net):
    """float64[4]: the value of each first move (NaN if illegal)."""
    return _root_2048(board, depth, ctx, cfg, net, _scratch_2048(net, depth))


@nb.njit(cache=True)
def _root_2048(board, depth, ctx, cfg, net, held):
    """:func:`root_2048` with its scratch ``held``. The nodes below read ``ctx``,
    ``net`` and the scratch through borrowed views (:mod:`playahead.kernels.borrow`),
    which the caller's references keep alive for the whole search."""
    inner, leaf = borrowed_members(ctx), _borrowed_net(net)
    scratch = borrowed_members(held)
    moves, rewards, counters = ctx.moves, ctx.rewards, ctx.counters
    values = np.full(4, np.nan)
    board_t = transpose(board)
    for a in range(4):
        vertical, side, src, out = _move(board, board_t, a, moves)
        if out == src:
            continue
        counters[NODES] += 1
        after = transpose(out) if vertical else out
        values[a] = cfg.reward_weight * _reward(src, side, rewards) + chance_2048(
            after, depth, 1.0, inner, cfg, leaf, scratch
        )
    return values


# ------------------------------------------------------------------------- Threes


@nb.njit(cache=True)
def _moved_lines(diff):
    """Number of 16-bit lines where ``diff`` is non-zero."""
    n = 0
    for line in range(4):
        if (diff >> np.uint64(16 * line)) & _ROW:
            n += 1
    return n


@nb.njit(cache=True)
def _card_at(out, line, side, card):
    """``out`` (line space) with ``card`` at the far end of ``line`` from ``side``."""
    far = 16 * line + (12 if side == 0 else 0)
    return out | (np.uint64(card) << np.uint64(far))


@nb.njit(cache=True, _nrt=False)
def _card_leaves(
    board,
    board_t,
    ones,
    twos,
    threes,
    total,
    n_bonus,
    p_basic,
    ctx,
    net,
    window,
    row,
    memo,
):
    """:func:`card_node`'s value where every (card, move) is a leaf, in its order of
    additions (same bits): the drawn card picks the preview code of the afterstates
    (0, 1, 2 for a 1, 2, 3; 3 for any bonus card). ``row``, ``memo``: as for
    :func:`_leaf_round`."""
    b0, b1, b2, b3, legal = _leaf_round(
        board, board_t, ctx.moves, ctx.table, net, row, memo
    )
    res = 0.0
    seen = 0
    if ones > 0:
        res += p_basic * ones / total * b0
        seen += 1
    if twos > 0:
        res += p_basic * twos / total * b1
        seen += 1
    if threes > 0:
        res += p_basic * threes / total * b2
        seen += 1
    for j in range(n_bonus):
        res += bonus_p(j, n_bonus, window) * b3
    ctx.counters[NODES] += legal * (seen + (n_bonus > 0))
    return res


@nb.njit(cache=True, _nrt=False)
def _leaf_after(out, vertical, a, option, table, net, row, memo, shift):
    """The leaf value of move ``a``'s afterstate ``out`` (line space) under card
    ``option``'s preview code: the table's value plus the learned one, each found
    once per node (``row``, :func:`_scratch_threes`) and, with one code a stage
    (``shift == 0``), the learned value looked up in ``memo`` first."""
    found, known, _, _ = row
    width = net.idx.shape[0]
    if np.isnan(known[a]):
        out_t = transpose(out)
        known[a] = evaluate_pair(out, out_t, table)
        after = out_t if vertical else out
        if shift == 0:
            slot, hit = _memo_probe(after, memo)
            if np.isnan(hit):
                _net_lookups(after, net, found, a * width)
                hit = _clamped(read(net.flat, found, a * width, width), net)
                memo[0][slot], memo[1][slot] = after, hit
            known[4 + a] = hit
        else:
            _net_lookups(after, net, found, a * width)
    if shift == 0:
        return known[a] + known[4 + a]
    learned = read(net.flat, found, a * width, width, min(option, 3) * shift)
    return known[a] + _clamped(learned, net)


@nb.njit(cache=True)
def _scratch_threes(net, depth):
    """The scratch of a Threes search to ``depth`` over ``net``: one row per depth
    left (a node uses its row while the nodes below it use theirs) holding each
    move's lookups (``found``), table and learned values (``known``), afterstate
    (line space) and moved lines, and memo slot or flags (:func:`_move_flags`); and
    the search's memo of learned values (keys, values), empty."""
    width = 0 if net is None else net.idx.shape[0]
    rows = max(depth, 0) + 1
    bits = 0 if net is None else min(_THREES_MEMO_BITS, 6 + 2 * depth)
    return (
        np.empty((rows, 4 * width), np.int64),
        np.empty((rows, 8)),
        np.zeros((rows, 8), np.uint64),
        np.zeros((rows, 4), np.int64),
        np.zeros(1 << bits, np.uint64),
        np.empty(1 << bits),
    )


@nb.njit(cache=True)
def _move_flags(vertical, side, top, diff):
    """One int of a legal move's facts: 1, plus 2 if ``vertical``, 4 if toward
    ``side`` 1, 8 if it made a 12288 (``top``), and its number of moved lines
    (``diff``'s non-zero lines) times 16; 0 stands for an illegal move."""
    return (
        1
        | (np.int64(vertical) << 1)
        | (np.int64(side) << 2)
        | (np.int64(top) << 3)
        | (np.int64(_moved_lines(diff)) << 4)
    )


@nb.njit(cache=True, inline="always")
def _row(scratch, depth_left):
    """Row ``depth_left`` of each per-depth array of :func:`_scratch_threes`'s
    ``scratch``."""
    found, known, afters, slots, _, _ = scratch
    d = depth_left
    return found[d], known[d], afters[d], slots[d]


@nb.njit(cache=True, _nrt=False)
def card_node(board, deck, depth_left, cprob, ctx, cfg, net, scratch):
    """Expected value of a Threes board whose next card is still unknown.

    ``deck``: the low bits of a cards word, the basic cards left. The next card and
    its odds are :mod:`playahead.games.chance`'s (a bonus card with
    :func:`~playahead.games.chance.bonus_p`, else a basic card from the deck,
    refilled when empty). The player sees it and moves; it enters at the far end of
    a uniformly chosen moved line. (One self-recursive function: numba's cache does
    not keep mutually recursive ones.) ``scratch``: :func:`_scratch_threes`'s, whose row
    ``depth_left`` this node uses, and its memo of learned leaf values.
    """
    moves, table, counters = ctx.moves, ctx.table, ctx.counters
    cutoff, use_tt = cfg.cutoff, cfg.use_tt
    stamp = np.uint64(cfg.stamp)
    board_t = transpose(board)
    cut = depth_left <= 0 or cprob < cutoff
    if net is None:
        if cut:
            return evaluate_pair(board, board_t, table)
    if counters[NODES] > counters[LIMIT]:  # over the node limit: abandoned
        return 0.0
    use_tt = use_tt and not cut  # a cut learned node: one round of leaves, not cached
    aux = (stamp << _U24) | (np.uint64(max(depth_left, 0)) << _U16) | np.uint64(deck)
    slot = np.int64(0)
    if use_tt:
        slot, hit = _lookup_probe(board, aux, ctx, cfg)
        if not np.isnan(hit):
            return hit
    ones, twos, threes, _, _ = unpack_cards(deck)
    ones, twos, threes, total = refilled(ones, twos, threes)
    n_bonus = bonus_count(max_rank(board))
    p_basic = basic_share(n_bonus)
    row = _row(scratch, max(depth_left, 0))
    if net is not None:
        memo = (scratch[4], scratch[5])
        if cut or depth_left <= 1:  # every (card, move) is a leaf: one round
            res = _card_leaves(
                board,
                board_t,
                ones,
                twos,
                threes,
                total,
                n_bonus,
                p_basic,
                ctx,
                net,
                cfg.window,
                row,
                memo,
            )
            if use_tt:
                _store(slot, board, aux, res, ctx)
            return res
    res = 0.0
    # With a net, a bonus card whose every move is a leaf is valued at the
    # afterstates, before the card enters: the same best for each bonus value, so
    # it is found once (and added once per value, in the same order: same bits).
    # A value of a probability no larger is a leaf wherever that one was.
    bonus_best = np.nan
    best_p = 0.0
    if net is not None:
        # an afterstate is the same whichever card was drawn: each move's leaf is
        # looked up once, into part ``a`` of ``found``, and read under each card's
        # code; with one code a stage its learned value is read once (``known[4 +
        # a]``, same bits), or found in the memo
        shift = _shift(net)
        known = row[1]
        known[:8] = np.nan
    # each move once: its afterstate and moved lines (line space) and its flags
    outs, flags = row[2], row[3]
    for a in range(4):
        vertical, side, src, out = _move(board, board_t, a, moves)
        flags[a] = 0
        if out == src:
            continue
        outs[a], outs[4 + a] = out, out ^ src
        flags[a] = _move_flags(vertical, side, _has_top_rank(out), out ^ src)
    for option in range(3 + n_bonus):
        card = option + 1  # ranks 1, 2, 3, then the bonus ranks 4 .. top - 3
        p = 0.0
        if option >= 3:
            p = bonus_p(option - 3, n_bonus, cfg.window)
            if not np.isnan(bonus_best) and p <= best_p:
                res += p * bonus_best
                continue
        if option < 3:
            count = ones if card == 1 else (twos if card == 2 else threes)
            if count == 0:
                continue
            p = p_basic * count / total
            child_deck = (
                ones
                - (card == 1)
                + ((twos - (card == 2)) << 3)
                + ((threes - (card == 3)) << 6)
            )
        else:
            child_deck = deck
        best = 0.0
        all_leaves = net is not None
        for a in range(4):
            f = flags[a]
            if f == 0:  # illegal
                continue
            counters[NODES] += 1
            out = outs[a]
            vertical = (f & 2) != 0
            side = (f >> 2) & 1
            if f & 8:  # 6144 + 6144: the game ends, no card enters
                v = evaluate_pair(out, transpose(out), table)
            else:
                diff = outs[4 + a]
                q = 1.0 / (f >> 4)
                child_prob = cprob * p * q
                leaf = cut or depth_left <= 1 or child_prob < cutoff
                v = 0.0
                expand = True
                if net is not None:
                    if leaf:  # the afterstate, before the drawn card enters
                        if shift == 0 and not np.isnan(row[1][a]):
                            v = row[1][a] + row[1][4 + a]  # as _leaf_after
                        else:
                            v = _leaf_after(
                                out, vertical, a, option, table, net, row, memo, shift
                            )
                        expand = False
                if expand:
                    all_leaves = False
                    for line in range(4):
                        if (diff >> np.uint64(16 * line)) & _ROW == 0:
                            continue
                        x = _card_at(out, line, side, card)
                        if leaf:
                            v += evaluate_pair(x, transpose(x), table)
                        else:
                            child = transpose(x) if vertical else x
                            v += card_node(
                                child,
                                child_deck,
                                depth_left - 1,
                                child_prob,
                                ctx,
                                cfg,
                                net,
                                scratch,
                            )
                    v *= q
            if v > best:
                best = v
        res += p * best
        if option >= 3 and all_leaves:
            bonus_best = best
            best_p = p
    if use_tt:
        _store(slot, board, aux, res, ctx)
    return res


@nb.njit(cache=True)
def root_threes(board, cards, depth, ctx, cfg, net):
    """float64[4]: the value of each first move (NaN if illegal).

    ``cards`` is the env's cards word: the deck counts after the preview was taken
    (bits 0-8) and the preview window ``lo..hi`` (bits 9-12 and 13-16); the card that
    enters is uniform in the window. The nodes below read ``ctx`` and ``net``
    through borrowed views (:func:`~playahead.kernels.borrow.borrowed_members`).
    """
    return _root_threes(board, cards, depth, ctx, cfg, net, _scratch_threes(net, depth))


@nb.njit(cache=True)
def _root_threes(board, cards, depth, ctx, cfg, net, held):
    """:func:`root_threes` with its scratch ``held``, borrowed below as ``ctx``
    and ``net`` are."""
    moves, table, counters = ctx.moves, ctx.table, ctx.counters
    inner, leaf = borrowed_members(ctx), _borrowed_net(net)
    scratch = borrowed_members(held)
    values = np.full(4, np.nan)
    if _has_top_rank(board):
        return values
    ones, twos, threes, lo, hi = unpack_cards(cards)
    deck = pack_cards(ones, twos, threes, 0, 0)
    board_t = transpose(board)
    for a in range(4):
        vertical, side, src, out = _move(board, board_t, a, moves)
        if out == src:
            continue
        counters[NODES] += 1
        if _has_top_rank(out):
            values[a] = evaluate_pair(out, transpose(out), table)
            continue
        if net is not None:
            if depth == 0:  # greedy on the learned afterstate value
                out_t = transpose(out)
                v = evaluate_pair(out, out_t, table)
                values[a] = v + _learned(
                    out_t if vertical else out, preview_code(cards), net
                )
                continue
        diff = out ^ src
        q = 1.0 / (_moved_lines(diff) * (hi - lo + 1))
        v = 0.0
        for card in range(lo, hi + 1):
            for line in range(4):
                if (diff >> np.uint64(16 * line)) & _ROW:
                    x = _card_at(out, line, side, card)
                    child = transpose(x) if vertical else x
                    v += card_node(child, deck, depth, q, inner, cfg, leaf, scratch)
        values[a] = v * q
    return values


@nb.njit(cache=True)
def distinct_ranks(board):
    """Number of distinct non-zero ranks on the board."""
    seen = 0
    for i in range(16):
        seen |= 1 << np.int64((board >> np.uint64(4 * i)) & _NIB)
    count = 0
    for r in range(1, 16):
        count += (seen >> r) & 1
    return count
