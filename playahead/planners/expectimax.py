"""``expectimax``: exact expectimax with a probability cut-off for 2048 and Threes.

The search alternates the player's best move with exact chance nodes:

* 2048: after a move, a 2 (p = 0.9) or a 4 (p = 0.1) on each empty cell, uniformly.
* Threes: the previewed card (a basic card, or each value of a bonus window alike)
  enters at the far end of each moved line, uniformly. Deeper down the next card is
  unknown when it is drawn: a bonus card (each of 6 .. max/8 alike, as nneonneo's
  threes-ai models it) with probability 1/21 once the highest card is >= 48, else a
  basic card with the probabilities of the counted deck (1s, 2s and 3s left; 4/4/4
  after a refill). The player sees that card before moving, so the search draws it
  first and then picks the best move for it.

Depth counts the moves after the first, as nneonneo's 2048-ai does: depth ``d`` plays
the root move, then ``d`` rounds of (chance, best move), and evaluates the last board.
The default evaluator is the n-tuple net playahead ships for the game (learned leaves,
below); the hand-made row-table evaluators (:mod:`playahead.planners.evaluators`)
include the alternatives to the shipped nets, which need no file: ``features``, on
Threes tuned line features and on 2048 ``monotonic`` (nneonneo's). Chance branches
whose cumulative probability falls below ``prob_cutoff`` are evaluated instead of
expanded. With ``depth=None`` (the automatic depth) the depth follows the board:
``distinct ranks - 2``, at least ``min_depth`` and at most ``max_depth`` (6). On 2048
``min_depth`` is 3 (nneonneo's rule); on Threes it is ``max_depth``, so with a
hand-made evaluator the search always goes to depth 6, at a default cut-off of 1e-3
instead of 1e-4: there the cut-off, not the depth, is what bounds the search, so a
shallower search early in the game would save little (``python -m benchmarks
cutoffs``). With learned leaves on Threes, the default, the automatic depth has
defaults of its own (:data:`LEARNED_AUTO`: a coarser cut-off, a shallower depth, a
smaller budget), and so it has with learned leaves on 2048 (:data:`LEARNED_AUTO_2048`:
depth 2 to 3 at a cut-off of 0.01, and tile-downgrading once a 32768 is on the board,
``downgrade``). A transposition table keyed on the board, the remaining depth and
(Threes) the deck counts is shared by all root moves and emptied at each decision.

Budget: the automatic depth is bounded by ``budget`` nodes per decision (default
``"auto"``: 30,000,000, or the learned defaults' with learned leaves), never
by a clock: shallower searches first when the last one was costly, each deeper one
started only if its nodes are predicted to fit (from node counts of this agent's
earlier searches), so a seed gives the same game on any machine and under any load.
``time_limit=SECONDS`` is the explicit clock option. A fixed ``depth`` is searched in
full unless ``bounded=True`` (what ``playahead hint`` and ``playahead serve`` set): then
the budget bounds it too, and a depth that does not fit gives way to the deepest
shallower one that does.

Learned leaves: ``evaluator="ntuple:path=DIR"`` (spec
``expectimax:evaluator=ntuple:path=DIR``, other options before or after it, e.g.
``expectimax:depth=2,evaluator=ntuple:path=runs/2048-nt``; the path must not contain a
comma; a packaged net's ``.npz`` also works) values the leaves with an n-tuple net
of ``playahead train ntuple``: the score
table plus the net's afterstate value, so values are expected final scores
(``value_kind="score"``) and depth 0 is the greedy n-tuple player.
``evaluator="ntuple"`` (and no evaluator) is the net playahead ships for the game
being played (:mod:`playahead.ntuple.packaged`), read on first use after its sha256 is
checked; if the file is missing, damaged or not shipped
the search stops with a one-line :class:`~playahead.ntuple.packaged.PackagedNetError`
that names the file and its expected sha256 and says which hand-made evaluator works
without it (``features``). Where the
leaves sit is described in :mod:`playahead.kernels.expectimax`.

Fairness: the planner reads the position through ``clone_state()`` only (board, and for
Threes the preview and the deck counts a player can count); it never reads the env's
generator or the order of the deck. The search is exact, so it draws no chance at all;
its own generator breaks ties between equal values.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.games import threes, twenty48
from playahead.kernels import expectimax as kernels
from playahead.kernels.ntuple import pattern_runs
from playahead.planner import (
    Planner,
    Root,
    check_choice,
    check_positive,
    pick_max,
)
from playahead.planners.evaluators import (
    EVALUATORS,
    Evaluator,
    canonical,
    get_evaluator,
)

__all__ = ["ExpectimaxAgent"]

#: Evaluator used when none is given.
DEFAULT_EVALUATOR = {"2048": "ntuple", "Threes": "ntuple"}
#: Nodes per decision that a search at the automatic depth stays within (see
#: ``budget``): a count, never a clock, so the same seed plays the same game on any
#: machine and under any load.
DEFAULT_BUDGET = 30_000_000
#: ``budget``'s default: the budget of the game and evaluator (:data:`DEFAULT_BUDGET`,
#: or :data:`LEARNED_AUTO`'s), named in full by ``resolve_options``. A budget given
#: explicitly, ``budget=30000000`` too, is kept whatever the evaluator.
AUTO_BUDGET = "auto"
#: The automatic depth's defaults on Threes with learned leaves (``evaluator=ntuple``,
#: the net playahead ships, or ``ntuple:path=DIR``), each used where that option is
#: not given: a probability cut-off of 0.01, of 0.004 once a 3072 is on the board
#: (``late_cutoff``) and of 0.003 once a 6144 is (``end_cutoff``; both where no
#: cut-off is given), at most depth 5 (also the floor:
#: Threes' automatic depth is ``max_depth``) and a budget of 4,000,000 nodes per
#: decision. A learned leaf costs several times what a ``features`` leaf does, and at
#: these cut-offs a depth-5 search is cheap. A fixed ``depth`` keeps the plain defaults
#: (cut-off 1e-4 throughout, :data:`DEFAULT_BUDGET` when ``bounded``), so the records
#: of fixed-depth agents keep their fingerprints.
LEARNED_AUTO = {
    "prob_cutoff": 0.01,
    "late_cutoff": 0.004,
    "end_cutoff": 0.003,
    "max_depth": 5,
    "budget": 4_000_000,
}
#: The automatic depth's defaults on 2048 with learned leaves (``evaluator=ntuple`` or
#: ``ntuple:path=DIR``), each used where that option is not given: the depth
#: ``distinct ranks - 2`` within ``min_depth`` .. ``max_depth``, a probability
#: cut-off, a budget of nodes per decision, and tile-downgrading once a 32768 is on
#: the board (``downgrade``, :func:`playahead.games.twenty48.downgrade`).
LEARNED_AUTO_2048 = {
    "prob_cutoff": 0.01,
    "min_depth": 2,
    "max_depth": 3,
    "budget": 500_000,
    "downgrade": 32768,
}
#: The accepted budgets, in nodes per decision.
MIN_BUDGET = 1_000
MAX_BUDGET = 10_000_000_000
#: Largest automatic depth when ``max_depth`` is not given.
DEFAULT_MAX_DEPTH = {"2048": 6, "Threes": 6}
#: Probability cut-off when none is given: with a fixed ``depth``, and with the
#: automatic depth per game (:data:`AUTO_PROB_CUTOFF`).
DEFAULT_PROB_CUTOFF = 1e-4
AUTO_PROB_CUTOFF = {"2048": 1e-4, "Threes": 1e-3}
#: A budgeted decision goes straight to the automatic depth when this agent's last
#: search at that depth took at most ``DIRECT_SHARE`` of the budget's nodes; that
#: search may then use ``DIRECT_LIMIT`` of them before the shallower ones take over.
DIRECT_SHARE = 0.125
DIRECT_LIMIT = 0.75
_GAMES = {"2048": "2048", "threes": "Threes"}
_ENV_GAMES = {"2048-v0": "2048", "Threes-v0": "Threes"}
#: Largest ``late_from`` and ``end_from``: above any card or tile the packed boards
#: hold.
MAX_FACE = 1 << 20
#: ``downgrade``'s values: 0 (never) or a 2048 tile from 4 to 32768.
DOWNGRADE_TILES = tuple(1 << r for r in range(2, 16))
#: ``bonus_odds``' values, the default first.
BONUS_ODDS = ("uniform", "window")
#: The cut-off options: where none is given, the defaults' apply.
_CUTOFFS = ("prob_cutoff", "late_cutoff", "end_cutoff")
#: The options that spell the cut-off schedule (``cutoffs``) tier by tier, and the
#: tiles the late tiers start from where they are not given.
_TIERS = ("prob_cutoff", "late_cutoff", "late_from", "end_cutoff", "end_from")
DEFAULT_FROM = {"late_from": 3072, "end_from": 6144}
_MAX_STAMP = 1 << 39
_NO_LIMIT = 1 << 62


class ExpectimaxAgent(Planner):
    """``expectimax``: depth-limited expectimax with exact chance for 2048 and Threes.

    ``analyze`` gives every legal first move its expected evaluation at the horizon
    (NaN for illegal moves); ``value_kind`` is ``"score"`` for learned leaves (Threes'
    default: expected final score) and for ``evaluator="score"`` (expected score at
    the horizon), ``"eval"`` for the hand-made heuristic evaluators. Stats: ``nodes``
    (positions reached by a legal move), ``tt_hits``, ``depth`` (deepest completed
    search), ``seconds``, ``budget`` (the node budget the decision was held to; None
    when none could act, as for a fixed ``depth`` without ``bounded``),
    ``prob_cutoff`` (the cut-off the decision searched at), ``evaluator``.

    Args:
        depth: moves searched after the first (nneonneo's count), or None for the
            automatic depth ``distinct ranks - 2`` within ``min_depth`` ..
            ``max_depth``. With a ``time_limit`` the search deepens 1, 2, ... up to
            ``depth`` (or ``max_depth``) while the next iteration is predicted to
            fit.
        prob_cutoff: chance branches with cumulative probability below this are
            evaluated instead of expanded (0 expands everything to ``depth``). None:
            1e-4, except with the automatic depth on Threes: 1e-3, or with learned
            leaves :data:`LEARNED_AUTO`'s (Threes) or :data:`LEARNED_AUTO_2048`'s.
        evaluator: ``"ntuple"`` (learned leaves from the n-tuple net playahead
            ships for the game, the default; sha256-checked at load, negative
            learned values clamped at 0; values are expected final scores),
            ``"features"`` (the hand-made alternative, which needs no file: on
            Threes tuned line features, on 2048 the same agent as ``"monotonic"``,
            nneonneo's row table),
            ``"openness"`` (Threes), ``"score"`` (either game) or
            ``"ntuple:path=DIR"`` (learned leaves from the n-tuple model in ``DIR``,
            for the model's game); from Python also an
            :class:`~playahead.planners.evaluators.Evaluator` (e.g. one built by
            :func:`~playahead.planners.evaluators.weighted_table`).
        time_limit: seconds per decision (soft: a started iteration finishes), or
            None. With a time limit the search deepens 1, 2, ... while the next
            depth is predicted (from this decision's clock) to fit, so the moves
            depend on the machine and its load: a limit a user picks knowingly,
            never a default.
        budget: nodes per decision (a node is a position reached by a legal move),
            an integer in 1,000 .. 10,000,000,000, None for no budget, or
            ``"auto"`` (the default, :data:`AUTO_BUDGET`): the game's and
            evaluator's budget, :data:`LEARNED_AUTO`'s (Threes) or
            :data:`LEARNED_AUTO_2048`'s for the automatic depth with learned leaves,
            else 30,000,000 (:data:`DEFAULT_BUDGET`).
            A number given is kept, whatever the
            evaluator. 30,000,000 nodes is about one CPU second of search at 17-49
            million nodes per second; on the Threes and 2048 positions where it was
            measured, a decision searched at most 14.5 million nodes. It bounds the
            automatic depth (``depth`` None) and a ``time_limit``'s deepening; a
            fixed ``depth`` without a time limit is searched in full (unless
            ``bounded``). If this agent's last search at the automatic depth took
            at most an eighth of the budget, the decision searches that depth
            directly, abandoning it at three quarters of the budget. Otherwise (or
            once abandoned) it deepens from two below the automatic depth; it
            starts a deeper search only if that is predicted to fit (the nodes of
            the last search times the last growth factor, at least 2, else 8) and
            abandons one at the budget's last node, keeping the deepest finished
            one. Every prediction counts
            nodes, never time, so the same seed gives the same decisions on any
            machine. A search that finishes is the same as without a budget, so
            decisions differ only where the budget binds (``stats["budget_cut"]``;
            ``stats["searches"]`` lists the depths started).
        bounded: True: ``budget`` bounds every search without a time limit, a fixed
            ``depth`` too (default False: a fixed depth is searched in full, however
            long that takes). A fixed depth is then searched directly and abandoned
            at three quarters of the budget; if abandoned, the search deepens 1,
            2, ... within the rest, as the automatic depth does, and keeps the
            deepest search that finished (``stats["budget_cut"]``). At the
            automatic depth the first search is abandoned at the budget too (then
            depth 1 is searched). A fixed depth whose search takes at most three
            quarters of the budget gives the same values as without ``bounded``.
            ``playahead hint`` and ``playahead serve`` set it.
        seed: seed of the generator that breaks ties (None: fresh entropy).
        max_depth: cap of the automatic and time-limited depth (None: 6, or the
            learned defaults' for the automatic depth with learned leaves:
            :data:`LEARNED_AUTO`, :data:`LEARNED_AUTO_2048`).
        min_depth: floor of the automatic depth (None: 3 for 2048, 2 there with
            learned leaves, ``max_depth`` for Threes; capped at ``max_depth``).
        tt_bits: the transposition table has ``2**tt_bits`` slots (24 bytes each).
        transposition: False turns the transposition table off.
        late_cutoff: the probability cut-off of a decision whose board already
            holds a card (Threes) or tile (2048) of at least ``late_from``, in place
            of ``prob_cutoff``: a finer search for the late game only, where the
            moves are fewer but count more. None (the default): where
            ``prob_cutoff`` is not given either, :data:`LEARNED_AUTO`'s (0.004) for
            the automatic depth on Threes with learned leaves; else ``prob_cutoff``
            throughout, and neither option is part of the resolved options.
            ``late_cutoff=0.01`` searches the learned default at 0.01 throughout.
        late_from: the card or tile from which ``late_cutoff`` applies (None:
            3072), an integer in 1 .. 2**20.
        end_cutoff: a second late tier: the cut-off of a decision whose board
            holds a card or tile of at least ``end_from``, in place of the other two
            (the end game: fewer moves still, and the largest scores). None (the
            default): where no cut-off at all is given, :data:`LEARNED_AUTO`'s
            (0.003) for the automatic depth on Threes with learned leaves; else
            none, and neither option is part of the resolved options.
        end_from: the card or tile from which ``end_cutoff`` applies (None:
            6144), an integer in 1 .. 2**20.
        downgrade: 2048: the tile from which the search values a downgraded board
            (tile-downgrading, :func:`playahead.games.twenty48.downgrade`): once
            the board's largest tile reaches it, the tiles above the largest
            missing value go one rank down, so a net that has rarely seen a 32768
            searches the board it knows, and the move found is played on the real
            board (its values are then those of the downgraded board's game, plus
            the score so far). 0: never. None (the default): 32768 for the
            automatic depth with learned leaves (:data:`LEARNED_AUTO_2048`), else
            never; left out of the resolved options when never.
        cutoffs: the probability cut-off schedule, tile -> cut-off:
            ``"0:0.01,3072:0.004,6144:0.003"`` (or a dict) searches each decision
            at the cut-off of the largest tile listed that the board's largest card
            (Threes) or tile (2048) reaches; 0 is every board, and tiles not listed
            below the first take ``prob_cutoff``'s default. At most two tiers above
            0. None (the default): the schedule of ``prob_cutoff``, ``late_cutoff``
            and ``end_cutoff`` (with ``late_from`` and ``end_from``), which spell the
            same tiers one by one (``cutoffs="0:P,F:L"`` is ``prob_cutoff=P,
            late_cutoff=L,late_from=F``); without either, the defaults'. Resolved
            options spell it by tier, so the same schedule is the same agent either
            way.
        bonus_odds: how the search weighs the values of a Threes bonus card it
            cannot see yet (a card drawn below the root): ``"uniform"`` (the
            default), each of 6 .. max/8 alike, as nneonneo's search does; or
            ``"window"``, the marginal of the game's own draw (a window of up to
            three consecutive values first, then the card uniform in it, so the
            middle values are likelier: with values 6 .. 96, 1/9, 2/9, 3/9, 2/9,
            1/9). The previewed card at the root is exact either way. Left out of
            the resolved options when ``"uniform"``, and on 2048.

    Raises:
        ValueError: a bad option here; in ``analyze``/``act``, a game other than
            2048 and Threes, an evaluator for the other game, or a finished game.
    """

    name = "expectimax"

    def __init__(
        self,
        *,
        depth: int | None = None,
        prob_cutoff: float | None = None,
        evaluator: str | Evaluator | None = None,
        time_limit: float | None = None,
        budget: int | str | None = AUTO_BUDGET,
        bounded: bool = False,
        seed: int | None = None,
        max_depth: int | None = None,
        min_depth: int | None = None,
        tt_bits: int = 16,
        transposition: bool = True,
        late_cutoff: float | None = None,
        late_from: int | None = None,
        end_cutoff: float | None = None,
        end_from: int | None = None,
        bonus_odds: str = "uniform",
        cutoffs: str | dict | None = None,
        downgrade: int | None = None,
    ):
        super().__init__(seed=seed, time_limit=time_limit, compiled=True)
        if depth is not None and (
            isinstance(depth, bool)
            or not isinstance(depth, int | np.integer)
            or depth < 0
        ):
            raise ValueError(f"depth must be an integer >= 0 or none, got {depth!r}")
        self.depth = None if depth is None else int(depth)
        tiers = {"prob_cutoff": prob_cutoff, "late_cutoff": late_cutoff}
        tiers |= {"late_from": late_from, "end_cutoff": end_cutoff}
        tiers |= {"end_from": end_from}
        tiers = _by_tier(cutoffs, tiers)
        self.prob_cutoff = _check_cutoff("prob_cutoff", tiers["prob_cutoff"])
        self.late_cutoff = _check_cutoff("late_cutoff", tiers["late_cutoff"])
        self.late_from = _check_face("late_from", tiers["late_from"])
        self.end_cutoff = _check_cutoff("end_cutoff", tiers["end_cutoff"])
        self.end_from = _check_face("end_from", tiers["end_from"])
        self.bonus_odds = check_choice("bonus_odds", bonus_odds, BONUS_ODDS)
        self.downgrade = _check_downgrade(downgrade)
        self._leaf = None
        #: the packaged nets used (``evaluator=ntuple``, or a game's default), by game
        self._packaged: dict[str, _Leaf] = {}
        if _learned(evaluator) and evaluator.strip() != "ntuple":
            self._leaf = _load_leaf(evaluator)
        elif (
            evaluator is not None
            and not isinstance(evaluator, Evaluator)
            and evaluator not in EVALUATORS
            and not _learned(evaluator)
        ):
            raise ValueError(
                f"unknown evaluator {evaluator!r}; choose from {sorted(EVALUATORS)}, "
                "ntuple:path=DIR (or none for the game's default)"
            )
        self.evaluator = evaluator
        self.max_depth = check_positive("max_depth", max_depth, allow_none=True)
        self.min_depth = check_positive("min_depth", min_depth, allow_none=True)
        self.budget = _check_budget(budget)
        if not isinstance(bounded, bool | np.bool_):
            raise ValueError(f"bounded must be true or false, got {bounded!r}")
        self.bounded = bool(bounded)
        if (
            isinstance(tt_bits, bool)
            or not isinstance(tt_bits, int)
            or not (8 <= tt_bits <= 28)
        ):
            raise ValueError(f"tt_bits must be an integer in 8..28, got {tt_bits!r}")
        self.tt_bits = tt_bits
        self.transposition = bool(transposition)
        self._tt: tuple[np.ndarray, np.ndarray] | None = None
        self._stamp = 0
        #: nodes of this agent's last finished search, by depth
        self._cost: dict[int, int] = {}

    def __repr__(self) -> str:
        return (
            f"ExpectimaxAgent(depth={self.depth!r}, prob_cutoff={self.prob_cutoff!r}, "
            f"evaluator={self.evaluator!r}, seed={self.seed!r})"
        )

    @staticmethod
    def resolve_options(options: dict, env_id: str | None = None) -> dict:
        """The options that decide this agent's moves on ``env_id``, the game's
        defaults filled in (what :func:`playahead.agents.resolved_options` gives).

        ``options`` are the constructor's keyword arguments with every default
        filled. ``budget="auto"`` (the default) becomes the number of nodes the
        search counts (:data:`DEFAULT_BUDGET`, or for the automatic depth with
        learned leaves :data:`LEARNED_AUTO`'s or :data:`LEARNED_AUTO_2048`'s;
        without a game the largest, :data:`DEFAULT_BUDGET`), as do ``prob_cutoff``,
        ``max_depth`` and ``downgrade`` of none;
        resolving resolved options changes nothing. Options that cannot act are left
        out (``budget``, ``min_depth`` and ``max_depth`` of a fixed ``depth`` without
        a time limit and without ``bounded``; ``bounded`` when false, without a
        budget or with a time limit; ``downgrade`` when never), so games of
        ``expectimax:depth=3`` stay the same agent's games when a budget default
        changes or an option is added; an evaluator object is named by its
        ``name``, the packaged net (``evaluator=ntuple``) by its file's sha256.
        """
        out = dict(options)
        out |= _by_tier(out.pop("cutoffs", None), {k: out.get(k) for k in _TIERS})
        if out.pop("bounded", False) and out.get("time_limit") is None:
            if out.get("budget") is not None:
                out["bounded"] = True
        game = _ENV_GAMES.get(env_id or "")
        if isinstance(out.get("evaluator"), Evaluator):
            out["evaluator"] = out["evaluator"].name
        if game is not None:
            if out.get("evaluator") is None:
                out["evaluator"] = DEFAULT_EVALUATOR[game]
            out["evaluator"] = canonical(out["evaluator"], game)  # one agent
            defaults = _defaults(game, out["evaluator"], out.get("depth"))
            out.update(_cutoffs({k: out.get(k) for k in _CUTOFFS}, defaults))
            if out.get("max_depth") is None:
                out["max_depth"] = defaults["max_depth"]
            if _is_auto(out.get("budget", AUTO_BUDGET)):
                out["budget"] = defaults["budget"]
            if out.get("min_depth") is None:
                out["min_depth"] = defaults["min_depth"] or out["max_depth"]
            out["min_depth"] = min(out["min_depth"], out["max_depth"])
            if out.get("downgrade") is None:
                out["downgrade"] = defaults["downgrade"]
        elif _is_auto(out.get("budget")):  # no game: the largest default budget
            out["budget"] = DEFAULT_BUDGET
        if out.get("evaluator") == "ntuple":  # the packaged net, named by its sha256
            from playahead.ntuple.packaged import PACKAGED

            shipped = PACKAGED.get(f"{game or 'Threes'}-v0", ("", ""))[1]
            out["evaluator"] = f"ntuple:sha256={shipped}"
        if out.get("depth") is not None:
            out.pop("min_depth", None)
            if out.get("time_limit") is None:
                out.pop("max_depth", None)
                if not out.get("bounded"):
                    out.pop("budget", None)
        elif out.get("time_limit") is not None:
            out.pop("min_depth", None)
        for tier in ("late", "end"):
            if out.get(f"{tier}_cutoff") is None:  # inactive: the agent of before
                out.pop(f"{tier}_cutoff", None)
                out.pop(f"{tier}_from", None)
        if out.get("bonus_odds") == BONUS_ODDS[0] or game == "2048":
            out.pop("bonus_odds", None)  # the agent of before; 2048 has no bonus
        if not out.get("downgrade") or game == "Threes":
            out.pop("downgrade", None)  # never: the agent of before
        return out

    # ------------------------------------------------------------------ search
    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        game = _GAMES.get(root.kind)
        if game is None:
            raise ValueError(
                "expectimax plays 2048-v0 and Threes-v0 (playahead's own env classes); "
                f"got {type(root.env).__name__}"
            )
        state = root.env.clone_state()
        named = self.evaluator
        if named is None:
            named = DEFAULT_EVALUATOR[game]
        leaf = self._leaf
        if leaf is None and _learned(named):
            leaf = self._packaged_leaf(game)
        if leaf is not None:
            leaf.model.check_position(f"{game}-v0", state)
            ev = get_evaluator("score", game)
        elif isinstance(self.evaluator, Evaluator):
            ev = self.evaluator
            if ev.game != game:
                raise ValueError(f"evaluator {ev.name!r} is for {ev.game}, not {game}")
        else:
            ev = get_evaluator(named, game)
        board = np.uint64(state.board)
        defaults = _defaults(game, named, self.depth)
        cap = self.max_depth or defaults["max_depth"]
        given = {k: getattr(self, k) for k in _CUTOFFS}
        cutoff, late, end = _cutoffs(given, defaults).values()
        face = _max_face(game, board)
        if end is not None and face >= self.end_from:
            cutoff = end
        elif late is not None and face >= self.late_from:
            cutoff = late
        downgrade = defaults["downgrade"] if self.downgrade is None else self.downgrade
        searched = board
        if game == "2048" and downgrade:
            searched = twenty48.downgrade(board, downgrade)
        node_budget = defaults["budget"] if _is_auto(self.budget) else self.budget
        search = functools.partial(
            self._search, game, state, searched, ev, leaf, cutoff
        )
        timed = self.time_limit is not None
        bounded = self.bounded and node_budget is not None and not timed
        if timed:
            deepest = cap if self.depth is None else self.depth
            depths = list(range(min(1, deepest), deepest + 1))
        elif self.depth is not None:
            depths = [self.depth]
            if bounded:  # straight to it (below); if it runs long, 1, 2, ...
                depths = list(range(min(1, self.depth), self.depth + 1))
        else:
            floor = self.min_depth or defaults["min_depth"] or cap
            target = min(cap, max(floor, kernels.distinct_ranks(searched) - 2))
            depths = [target]
            if node_budget is not None and target >= 2:
                depths = list(range(max(1, target - 2), target + 1))
        budget = node_budget if len(depths) > 1 or bounded else None
        goal = depths[-1]
        counters = np.array([0, 0, _NO_LIMIT], dtype=np.int64)
        values, done, searches = None, 0, []
        seen = None if budget is None or timed else self._cost.get(goal)
        fixed = bounded and self.depth is not None
        if fixed or (seen is not None and seen <= DIRECT_SHARE * budget):
            # cheap last time, or bounded fixed depth: straight to the goal, with
            # most of the budget
            searches.append(goal)
            found = self._limited(search, goal, counters, int(DIRECT_LIMIT * budget))
            if found is not None:
                values, done, depths = found, goal, []
            else:  # abandoned: the shallower searches, never this one again
                depths = depths[:-1]
        prev, last = (0, 0.0), (0, 0.0)  # (nodes, seconds) of the last two searches
        for i, d in enumerate(depths):
            # the first search finishes, unless bounded (depth 1 always finishes)
            limit = budget if bounded and d > 1 else None
            if i > 0:
                if budget is not None:
                    nodes = last[0] * _growth(prev[0], last[0])
                    if counters[0] + nodes > budget:
                        break
                    limit = budget  # a hard stop too: the budget's last node
                if (
                    timed
                    and time.perf_counter() + last[1] * _growth(prev[1], last[1])
                    > deadline
                ):
                    break
            searches.append(d)
            start, before = time.perf_counter(), int(counters[0])
            found = self._limited(search, d, counters, limit)
            if found is None:  # abandoned at the budget: keep the last one
                break
            values, done = found, d
            prev, last = last, (int(counters[0]) - before, time.perf_counter() - start)
        if values is None:  # bounded, and even the first search ran past the budget
            done = min(1, goal)
            searches.append(done)
            values = self._limited(search, done, counters, None)
        if ev.value_kind == "score" and game == "2048":
            values = values + root.score
        action = pick_max(values, rng)
        stats = {
            "nodes": int(counters[0]),
            "tt_hits": int(counters[1]),
            "depth": done,
            "budget_cut": done < goal,
            "searches": searches,
            "budget": budget,
            "prob_cutoff": cutoff,
            "evaluator": ev.name if leaf is None else "ntuple",
            "downgraded": bool(searched != board),
        }
        return Analysis(action, values, value_kind=ev.value_kind, stats=stats)

    def _limited(self, search, depth, counters, limit):
        """Run ``search`` to ``depth`` with a fresh table, abandoning it once the
        decision's node count passes ``limit`` (None: no limit). The values, or None
        if abandoned; a finished search's node count goes to ``_cost``."""
        counters[2] = _NO_LIMIT if limit is None else limit
        before = int(counters[0])
        # a fresh table per depth: the last search is the same as a direct one
        found = search(depth, self._table(), counters)
        if counters[0] > counters[2]:
            return None
        self._cost[depth] = int(counters[0]) - before
        return found

    def _search(self, game, state, board, ev, leaf, cutoff, depth, tt, counters):
        if game == "2048":
            moves, rewards = twenty48.TABLES
        else:
            moves, rewards, _ = threes.tables(state.merge_6144)
        net = None if leaf is None else leaf.net
        ctx = kernels.search_context(moves, rewards, ev.table, tt, counters)
        cfg = kernels.search_config(
            cutoff,
            ev.reward_weight,
            self._stamp,
            self.tt_bits,
            self.transposition,
            self.bonus_odds == "window",
        )
        if game == "2048":
            return kernels.root_2048(board, np.int64(depth), ctx, cfg, net)
        return kernels.root_threes(
            board, np.int64(state.cards), np.int64(depth), ctx, cfg, net
        )

    def _packaged_leaf(self, game: str) -> _Leaf:
        """The n-tuple net playahead ships for ``game`` (``evaluator=ntuple``, and
        the default evaluator where :data:`DEFAULT_EVALUATOR` names it), loaded on
        first use, so an agent never reads the file of a game it does not play.

        Raises:
            PackagedNetError: the packaged net is missing or damaged, or none ships
                for ``game``: one line that names the file and its expected sha256
                and says that a hand-made evaluator plays without it.
        """
        if game not in self._packaged:
            from playahead.ntuple.packaged import (
                HAND_MADE,
                PackagedNetError,
                packaged_model,
            )

            fallback = HAND_MADE[f"{game}-v0"]
            try:
                self._packaged[game] = _Leaf(packaged_model(f"{game}-v0"), clamp=True)
            except PackagedNetError as err:
                why = " ".join(str(err).split())
                if why.endswith(f"use evaluator={fallback}"):
                    why += ", which works without it"
                else:
                    why += f"; evaluator={fallback} works without it"
                which = "default" if self.evaluator is None else "ntuple"
                raise PackagedNetError(
                    f"expectimax's {which} {game} evaluator is the n-tuple net "
                    f"playahead ships: {why}"
                ) from None
        return self._packaged[game]

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        """This decision's (empty) transposition table."""
        self._stamp += 1
        if self._tt is None or self._stamp >= _MAX_STAMP:
            self._tt = kernels.new_table(self.tt_bits if self.transposition else 1)
            self._stamp = 1
        return self._tt


def _growth(before: float, last: float) -> float:
    """How much costlier the next depth is predicted to be: the last growth factor,
    at least 2 (8 without two searches to compare)."""
    return max(last / before, 2.0) if before > 0 else 8.0


def _learned(evaluator) -> bool:
    """Whether ``evaluator`` (an option's value) is learned leaves: ``"ntuple"``, the
    net playahead ships, or ``"ntuple:path=DIR"`` (``"ntuple:sha256=..."`` once
    resolved)."""
    return isinstance(evaluator, str) and evaluator.split(":")[0].strip() == "ntuple"


def _defaults(game: str, evaluator, depth: int | None) -> dict:
    """``prob_cutoff``, ``late_cutoff`` and ``end_cutoff`` (None: none),
    ``max_depth``, ``min_depth`` (None: ``max_depth``), ``budget`` (nodes) and
    ``downgrade`` (0: never) of a search on ``game`` with ``evaluator`` (the game's
    default filled in) where the options are not given: :data:`LEARNED_AUTO` (Threes)
    or :data:`LEARNED_AUTO_2048` for the automatic depth (``depth`` None) with
    learned leaves, else :data:`AUTO_PROB_CUTOFF` (automatic depth) or
    :data:`DEFAULT_PROB_CUTOFF`, :data:`DEFAULT_MAX_DEPTH`, a ``min_depth`` of 3 on
    2048 and :data:`DEFAULT_BUDGET`."""
    auto = depth is None
    out = {
        "prob_cutoff": AUTO_PROB_CUTOFF[game] if auto else DEFAULT_PROB_CUTOFF,
        "late_cutoff": None,
        "end_cutoff": None,
        "max_depth": DEFAULT_MAX_DEPTH[game],
        "min_depth": 3 if game == "2048" else None,
        "budget": DEFAULT_BUDGET,
        "downgrade": 0,
    }
    if auto and _learned(evaluator):
        out.update(LEARNED_AUTO if game == "Threes" else LEARNED_AUTO_2048)
    return out


def _cutoffs(given: dict, defaults: dict) -> dict:
    """The cut-offs a search uses (``prob_cutoff``, ``late_cutoff``, ``end_cutoff``,
    in that order) from those ``given`` (None: not given) and the ``defaults`` of
    :func:`_defaults`: a ``prob_cutoff`` not given is the default's; the late tiers
    are the default's only where no cut-off at all is given."""
    out = {k: given.get(k) for k in _CUTOFFS}
    if all(v is None for v in out.values()):
        out.update({k: defaults[k] for k in _CUTOFFS[1:]})
    if out["prob_cutoff"] is None:
        out["prob_cutoff"] = defaults["prob_cutoff"]
    return out


def parse_cutoffs(schedule: str | dict) -> dict[int, float]:
    """A cut-off schedule, tile -> cut-off: ``"0:0.01,3072:0.004,6144:0.003"`` ->
    ``{0: 0.01, 3072: 0.004, 6144: 0.003}`` (a dict is checked as it is).

    Raises:
        ValueError: not ``tile:cutoff`` pairs, a tile out of 0 .. 2**20 or listed
            twice, a cut-off out of [0, 1), or more than two tiers above 0.
    """
    example = "e.g. cutoffs=0:0.01,3072:0.004,6144:0.003"
    if isinstance(schedule, str):
        pairs = [p.partition(":") for p in schedule.split(",") if p.strip()]
        if not pairs or any(not sep for _, sep, _ in pairs):
            raise ValueError(f"cutoffs must be tile:cutoff pairs, {example}")
        try:
            items = [(int(t), float(c)) for t, _, c in pairs]
        except ValueError:
            raise ValueError(f"cutoffs must be tile:cutoff pairs, {example}") from None
    elif isinstance(schedule, dict):
        items = list(schedule.items())
    else:
        raise ValueError(f"cutoffs must be tile:cutoff pairs, {example}")
    tiles = [t for t, _ in items]
    for tile, cutoff in items:
        if tile != 0:
            _check_face("a tile of cutoffs", tile)
        _check_cutoff(f"the cut-off of tile {tile}", cutoff)
    if len(set(tiles)) < len(tiles) or (not tiles):
        raise ValueError(f"cutoffs lists a tile twice ({schedule!r}); {example}")
    if sum(t != 0 for t in tiles) > 2:
        raise ValueError(
            f"cutoffs has at most two tiers above 0 (late and end), got {schedule!r}"
        )
    return {int(t): float(c) for t, c in sorted(items)}


def _by_tier(cutoffs, tiers: dict) -> dict:
    """The tier options (:data:`_TIERS`) of a decision's cut-off schedule: those
    given (``late_from`` and ``end_from`` None: their :data:`DEFAULT_FROM`), or
    those ``cutoffs`` spells, which may not come with any of them.

    Raises:
        ValueError: both spellings, or a bad schedule (:func:`parse_cutoffs`).
    """
    out = {k: tiers.get(k) for k in _TIERS}
    if cutoffs is None:
        return {
            k: DEFAULT_FROM[k] if v is None and k in DEFAULT_FROM else v
            for k, v in out.items()
        }
    given = sorted(
        k for k, v in out.items() if v is not None and v != DEFAULT_FROM.get(k)
    )
    if given:
        raise ValueError(
            f"give the cut-offs once: cutoffs={cutoffs!r} or {', '.join(given)}, "
            "not both"
        )
    schedule = parse_cutoffs(cutoffs)
    above = [t for t in schedule if t != 0]
    out = {"prob_cutoff": schedule.get(0), **DEFAULT_FROM}
    out["late_cutoff"] = out["end_cutoff"] = None
    for tier, tile in zip(("late", "end"), above, strict=False):
        out[f"{tier}_cutoff"], out[f"{tier}_from"] = schedule[tile], tile
    return out


def _check_cutoff(name: str, value) -> float | None:
    """A probability cut-off option as a float (None kept), or a one-line error."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not 0 <= value < 1
    ):
        raise ValueError(f"{name} must be a number in [0, 1) or none, got {value!r}")
    return float(value)


def _check_face(name: str, value) -> int:
    """A card or tile value option as an int, or a one-line error."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not 1 <= value <= MAX_FACE
    ):
        raise ValueError(
            f"{name} must be a card or tile value, an integer in 1..{MAX_FACE}, "
            f"got {value!r}"
        )
    return int(value)


def _check_downgrade(value) -> int | None:
    """A ``downgrade`` option as an int (None kept), or a one-line error."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or (value != 0 and value not in DOWNGRADE_TILES)
    ):
        raise ValueError(
            "downgrade is the 2048 tile from which the board is searched downgraded, "
            f"a power of two in 4..32768, or 0 for never; got {value!r}"
        )
    return int(value)


def _max_face(game: str, board: np.uint64) -> int:
    """The largest card (Threes) or tile (2048) on a packed board."""
    if game == "2048":
        return twenty48.max_tile(board)
    return threes.max_card(board)


def _is_auto(budget) -> bool:
    """Whether ``budget`` is :data:`AUTO_BUDGET` (any case, as a spec may write it)."""
    return isinstance(budget, str) and budget.strip().lower() == AUTO_BUDGET


def _check_budget(budget) -> int | str | None:
    """``budget`` as nodes per decision (:data:`AUTO_BUDGET` kept as it is), or a
    one-line error that names the unit."""
    if budget is None:
        return None
    if _is_auto(budget):
        return AUTO_BUDGET
    ok = isinstance(budget, int | float | np.integer | np.floating) and not isinstance(
        budget, bool
    )
    if (
        not ok
        or not float(budget).is_integer()
        or not (MIN_BUDGET <= budget <= MAX_BUDGET)
    ):
        raise ValueError(
            f"budget is nodes per decision, an integer in {MIN_BUDGET:,} .. "
            f"{MAX_BUDGET:,}, auto (the game's default) or none, got {budget!r} "
            "(seconds per decision are time_limit=SECONDS)"
        )
    return int(budget)


class _Leaf:
    """An n-tuple model as the compiled search's learned leaf (``net``, a
    :class:`~playahead.kernels.expectimax.LeafNet`), its weights copied into the leaf
    layout (:func:`playahead.kernels.ntuple.leaf_layout`: the preview codes of one
    index side by side, for 2048 the weights themselves; ``grouped=False`` reads the
    weights as they are, code-major, for comparison); ``clamp``: a negative learned
    value counts as 0."""

    def __init__(self, model, clamp: bool = False, grouped: bool = True):
        self.model = model
        runs = pattern_runs(model.cells)
        # grouped=False keeps the trainer's code-major layout (the benchmark's baseline)
        self.net = kernels.leaf_net(
            model.weights,
            runs,
            model.n_base,
            model.stage_ranks,
            clamp,
            grouped,
            model.step,
        )


def _load_leaf(spec: str) -> _Leaf:
    """``"ntuple:path=DIR"`` -> the loaded model (ValueError with the syntax if the
    path is missing, or with what is wrong with the files); a path to a packaged
    net's ``.npz`` reads it as the search reads the shipped net (a stepped net keeps
    its int16 multiples), without a sha256 to match."""
    from playahead.ntuple.model import shared_model

    _, _, rest = spec.partition(":")
    key, eq, path = rest.partition("=")
    if key.strip() != "path" or not eq or not path.strip():
        raise ValueError(
            f"evaluator {spec!r}: learned leaves need a model directory, "
            "evaluator=ntuple:path=DIR (spec: expectimax:evaluator=ntuple:path=DIR), "
            "or evaluator=ntuple for the net playahead ships"
        )
    path = path.strip()
    if path.endswith(".npz") and Path(path).is_file():  # a packaged net
        from playahead.ntuple.packaged import read_packaged

        return _Leaf(read_packaged(path, None, keep_steps=True))
    return _Leaf(shared_model(path))


register_agent(
    "expectimax",
    ExpectimaxAgent,
    "expectimax with exact chance, probability cut-off and row-table evaluators "
    "(2048, Threes)",
)
