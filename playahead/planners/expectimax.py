"""``expectimax``: exact expectimax with a probability cut-off for 2048 and Threes.

The search alternates the player's best move with exact chance nodes (2048: a 2 or a
4 on each empty cell; Threes: the previewed card at the far end of each moved line,
deeper down a card of the counted deck or a bonus card). Depth counts the moves after
the first, as nneonneo's 2048-ai does; chance branches below the cut-off are evaluated
instead of expanded. The leaves are valued by the n-tuple net playahead ships for the
game (the default; values are expected final scores), by a net of ``playahead train
ntuple`` or by a hand-made row table (:mod:`playahead.planners.evaluators`).

Every option is a field of :class:`ExpectimaxSettings`; the defaults that depend on
the game are :func:`game_defaults`'. Budgets count nodes, never the clock, so a seed
gives the same game on any machine. The planner reads the position through
``clone_state()`` only and draws no chance; its own generator breaks ties.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from pathlib import Path

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.games import threes, twenty48
from playahead.kernels import expectimax as kernels
from playahead.kernels.counters import LIMIT, NO_LIMIT, NODES, TT_HITS, new_counters
from playahead.kernels.ntuple import pattern_runs
from playahead.planner import Planner, Root, check_choice, check_positive, pick_max
from playahead.planners.evaluators import (
    EVALUATORS,
    Evaluator,
    canonical,
    get_evaluator,
)

__all__ = ["ExpectimaxAgent", "ExpectimaxSettings", "game_defaults"]

#: Nodes per decision of the automatic depth with a hand-made evaluator.
DEFAULT_BUDGET = 30_000_000
#: ``budget``'s default: the budget :func:`game_defaults` gives the game and evaluator.
AUTO_BUDGET = "auto"
#: The accepted budgets, in nodes per decision.
MIN_BUDGET = 1_000
MAX_BUDGET = 10_000_000_000
#: The cut-off of a fixed ``depth``, and of the automatic depth by game (hand-made
#: evaluators).
DEFAULT_PROB_CUTOFF = 1e-4
AUTO_PROB_CUTOFF = {"2048": 1e-4, "Threes": 1e-3}
#: The automatic depth's defaults on Threes with learned leaves.
LEARNED_AUTO = dict(
    prob_cutoff=0.01, late_cutoff=0.004, end_cutoff=0.003, max_depth=5, budget=4_000_000
)
#: The automatic depth's defaults on 2048 with learned leaves.
LEARNED_AUTO_2048 = dict(
    prob_cutoff=0.01, min_depth=2, max_depth=3, budget=500_000, downgrade=32768
)
#: A budgeted decision goes straight to the automatic depth when this agent's last
#: search at that depth took at most ``DIRECT_SHARE`` of the budget's nodes; that
#: search may then use ``DIRECT_LIMIT`` of them before the shallower ones take over.
DIRECT_SHARE = 0.125
DIRECT_LIMIT = 0.75
#: Largest ``late_from`` and ``end_from``: above any card or tile a packed board holds.
MAX_FACE = 1 << 20
#: ``downgrade``'s values: 0 (never) or a 2048 tile from 4 to 32768.
DOWNGRADE_TILES = tuple(1 << r for r in range(2, 16))
#: ``bonus_odds``' values, the default first.
BONUS_ODDS = ("uniform", "window")
#: Root kinds (:func:`playahead.planner.backend_kind`) -> the game's name here.
_GAMES = {"2048": "2048", "threes": "Threes"}
_MAX_STAMP = 1 << 39


def game_defaults(game: str, evaluator, depth: int | None) -> dict:
    """What a search on ``game`` (``"2048"`` or ``"Threes"``) with ``evaluator`` (a
    name, the default filled in) uses where an option is not given: a fixed ``depth``
    a cut-off of 1e-4; the automatic depth (``depth`` None) :data:`AUTO_PROB_CUTOFF`
    within ``min_depth`` (2048: 3; Threes, None: ``max_depth``) .. 6, in
    :data:`DEFAULT_BUDGET` nodes, or with learned leaves :data:`LEARNED_AUTO`
    (Threes) and :data:`LEARNED_AUTO_2048`. No late tier (None), no ``downgrade``
    (0)."""
    auto = depth is None
    cutoff = AUTO_PROB_CUTOFF[game] if auto else DEFAULT_PROB_CUTOFF
    out = dict(prob_cutoff=cutoff, late_cutoff=None, end_cutoff=None, max_depth=6)
    out |= dict(min_depth=3 if game == "2048" else None, budget=DEFAULT_BUDGET)
    out["downgrade"] = 0
    if auto and _learned(evaluator):
        out.update(LEARNED_AUTO if game == "Threes" else LEARNED_AUTO_2048)
    return out


@dataclasses.dataclass(frozen=True)
class ExpectimaxSettings:
    """The options of an ``expectimax`` agent, checked: one field per option, each
    with its default. :meth:`for_game` fills in a game's defaults.

    Raises:
        ValueError: an option out of range, one line naming what is accepted.
    """

    depth: int | None = None
    """Moves searched after the first, or None for the automatic depth ``distinct
    ranks - 2`` within ``min_depth`` .. ``max_depth``."""
    evaluator: str | Evaluator | None = None
    """``ntuple`` (the net playahead ships for the game, the default),
    ``ntuple:path=DIR`` (a net of ``playahead train ntuple``, or a packaged net's
    ``.npz``), ``features`` (hand-made, no file), ``openness`` (Threes),
    ``monotonic`` (2048), ``score``; from Python also an
    :class:`~playahead.planners.evaluators.Evaluator`."""
    prob_cutoff: float | None = None
    """Chance branches with cumulative probability below this are evaluated instead
    of expanded, in [0, 1) (None: the game's default, :func:`game_defaults`)."""
    late_cutoff: float | None = None
    """The cut-off once the board holds a card or tile of at least ``late_from``
    (None: the default's where no cut-off is given, else ``prob_cutoff``)."""
    late_from: int = 3072
    """The card or tile from which ``late_cutoff`` applies, 1 .. 2**20."""
    end_cutoff: float | None = None
    """The cut-off once the board holds a card or tile of at least ``end_from``
    (None: the default's where no cut-off is given, else none)."""
    end_from: int = 6144
    """The card or tile from which ``end_cutoff`` applies, 1 .. 2**20."""
    budget: int | str | None = AUTO_BUDGET
    """Nodes per decision, 1,000 .. 10,000,000,000, ``auto`` (the game's default) or
    None. It bounds the automatic depth and a ``time_limit``'s deepening: shallower
    searches first, a deeper one only if its nodes are predicted to fit, abandoned at
    the budget's last node; a fixed ``depth`` is searched in full unless
    ``bounded``."""
    bounded: bool = False
    """The budget bounds a fixed ``depth`` too (``playahead hint`` and ``serve`` set
    it): a depth that does not fit gives way to the deepest shallower one that does."""
    time_limit: float | None = None
    """Seconds per decision (soft): deepen 1, 2, ... while the next depth is predicted
    to fit. The moves then depend on the machine: never a default."""
    max_depth: int | None = None
    """Cap of the automatic and time-limited depth (None: the game's default)."""
    min_depth: int | None = None
    """Floor of the automatic depth (None: the game's default; capped at
    ``max_depth``)."""
    downgrade: int | None = None
    """2048: the tile from which the search values the board tile-downgraded
    (:func:`playahead.games.twenty48.downgrade`), a power of two 4 .. 32768, 0 never
    (None: the game's default)."""
    bonus_odds: str = "uniform"
    """Threes: how an unseen bonus card is weighed, ``uniform`` (each value alike)
    or ``window`` (the game's own draw)."""
    tt_bits: int = 16
    """The transposition table has ``2**tt_bits`` slots, 8 .. 28."""
    transposition: bool = True
    """False turns the transposition table off."""

    def __post_init__(self):
        ev, budget = self.evaluator, self.budget
        if isinstance(budget, str) and budget.strip().lower() == AUTO_BUDGET:
            object.__setattr__(self, "budget", budget := AUTO_BUDGET)
        face = f"a card or tile value, an integer in 1..{MAX_FACE}"
        cut = "a number in [0, 1) or none"
        depth_ok = self.depth is None or _is(self.depth, 0, np.inf)
        rules = [
            ("depth", depth_ok, "an integer >= 0 or none"),
            ("prob_cutoff", _is_cutoff(self.prob_cutoff), cut),
            ("late_cutoff", _is_cutoff(self.late_cutoff), cut),
            ("end_cutoff", _is_cutoff(self.end_cutoff), cut),
            ("late_from", _is(self.late_from, 1, MAX_FACE), face),
            ("end_from", _is(self.end_from, 1, MAX_FACE), face),
            ("bounded", isinstance(self.bounded, bool | np.bool_), "true or false"),
            ("tt_bits", _is(self.tt_bits, 8, 28), "an integer in 8..28"),
        ]
        for name, ok, accepted in rules:
            if not ok:
                value = getattr(self, name)
                raise ValueError(f"{name} must be {accepted}, got {value!r}")
        if not (ev is None or isinstance(ev, Evaluator) or ev in EVALUATORS):
            if not _learned(ev):
                raise ValueError(
                    f"unknown evaluator {ev!r}; choose from {sorted(EVALUATORS)}, "
                    "ntuple:path=DIR (or none for the game's default)"
                )
        nodes = _is(budget, MIN_BUDGET, MAX_BUDGET, _NUMBERS)
        if not (budget in (None, AUTO_BUDGET) or nodes and float(budget).is_integer()):
            raise ValueError(
                f"budget is nodes per decision, an integer in {MIN_BUDGET:,} .. "
                f"{MAX_BUDGET:,}, auto (the game's default) or none, got {budget!r} "
                "(seconds per decision are time_limit=SECONDS)"
            )
        down = self.downgrade
        if not (
            down is None
            or _is(down, 0, 0)
            or _is(down, 4, 32768)
            and down in DOWNGRADE_TILES
        ):
            raise ValueError(
                "downgrade is the 2048 tile from which the board is searched "
                f"downgraded, a power of two in 4..32768, or 0 for never; got {down!r}"
            )
        check_positive("time_limit", self.time_limit, integer=False, allow_none=True)
        check_positive("max_depth", self.max_depth, allow_none=True)
        check_positive("min_depth", self.min_depth, allow_none=True)
        check_choice("bonus_odds", self.bonus_odds, BONUS_ODDS)
        for f in dataclasses.fields(self):  # kept as given (records name them so)
            value = getattr(self, f.name)
            if isinstance(value, np.generic):
                object.__setattr__(self, f.name, value.item())

    def for_game(self, game: str) -> dict:
        """Every option as a search on ``game`` (``"2048"`` or ``"Threes"``) uses it:
        :func:`game_defaults` filled in where an option is not given, the evaluator
        named (``evaluator_name``, :func:`~playahead.planners.evaluators.canonical`),
        ``min_depth`` capped at ``max_depth``, ``bounded`` true only where it acts
        (a budget and no time limit)."""
        out, ev = dict(vars(self)), self.evaluator
        named = "ntuple" if ev is None else ev.name if isinstance(ev, Evaluator) else ev
        defaults = game_defaults(game, named, self.depth)
        cuts = ("prob_cutoff", "late_cutoff", "end_cutoff")
        given = [out[k] for k in cuts]
        if given == [None, None, None]:  # the default's schedule, late tiers too
            for k in cuts:
                out[k] = defaults[k]
        elif out["prob_cutoff"] is None:
            out["prob_cutoff"] = defaults["prob_cutoff"]
        for key in ("max_depth", "downgrade"):
            if out[key] is None:
                out[key] = defaults[key]
        floor = out["min_depth"] or defaults["min_depth"] or out["max_depth"]
        out["min_depth"] = min(floor, out["max_depth"])
        if out["budget"] == AUTO_BUDGET:
            out["budget"] = defaults["budget"]
        out["bounded"] = bool(
            out["bounded"] and out["budget"] is not None and out["time_limit"] is None
        )
        out["evaluator_name"] = canonical(named, game)
        return out

    @classmethod
    def of(cls, **options) -> ExpectimaxSettings:
        """``ExpectimaxSettings(**options)``, checked once per process where every
        value is hashable (an agent built again from the same spec shares them)."""
        try:
            keys = sorted(options)
            values = list(map(options.get, keys))
            return _checked(tuple(zip(keys, map(type, values), values, strict=True)))
        except TypeError:  # e.g. an Evaluator object
            return cls(**options)


@functools.lru_cache(maxsize=256)
def _checked(items: tuple) -> ExpectimaxSettings:
    return ExpectimaxSettings(**{k: v for k, _, v in items})


@functools.lru_cache(maxsize=256)
def _searched(settings: ExpectimaxSettings, game: str) -> dict:
    """:meth:`ExpectimaxSettings.for_game` as the agent's search reads it, once per
    process (never changed: a record copies its own)."""
    return settings.for_game(game)


def record_options(settings: ExpectimaxSettings, game: str | None) -> dict:
    """The options that name an agent of ``settings`` on ``game`` (None: no game) in
    a record (:func:`playahead.agents.resolved_options`, its games' fingerprint):
    :meth:`ExpectimaxSettings.for_game`, the packaged net named by its sha256, less
    the options that cannot act, so records keep their fingerprints when an option
    is added: ``budget``, ``min_depth``, ``max_depth`` of a fixed ``depth`` without a
    time limit and ``bounded``; ``bounded`` when false; a late tier without its
    cut-off; ``bonus_odds`` when ``uniform`` or on 2048; ``downgrade`` when never or
    on Threes. Resolving resolved options changes nothing."""
    if game is None:  # no game: nothing filled in but the largest default budget
        out = dict(vars(settings))
        if out["budget"] == AUTO_BUDGET:
            out["budget"] = DEFAULT_BUDGET
        if not out["bounded"] or out["time_limit"] is not None or not out["budget"]:
            out.pop("bounded")
    else:
        out = settings.for_game(game)
        out["evaluator"] = out.pop("evaluator_name")
        if not out["bounded"]:
            out.pop("bounded")
    if isinstance(out["evaluator"], Evaluator):
        out["evaluator"] = out["evaluator"].name
    if out["evaluator"] == "ntuple":  # the packaged net, named by its sha256
        from playahead.ntuple.packaged import PACKAGED

        shipped = PACKAGED.get(f"{game or 'Threes'}-v0", ("", ""))[1]
        out["evaluator"] = f"ntuple:sha256={shipped}"
    if out["depth"] is not None:
        out.pop("min_depth")
        if out["time_limit"] is None:
            out.pop("max_depth")
            if not out.get("bounded"):
                out.pop("budget")
    elif out["time_limit"] is not None:
        out.pop("min_depth")
    for tier in ("late", "end"):
        if out[f"{tier}_cutoff"] is None:
            del out[f"{tier}_cutoff"], out[f"{tier}_from"]
    if out["bonus_odds"] == BONUS_ODDS[0] or game == "2048":
        del out["bonus_odds"]
    if not out["downgrade"] or game == "Threes":
        del out["downgrade"]
    return out


class ExpectimaxAgent(Planner):
    """``expectimax``: depth-limited expectimax with exact chance for 2048 and Threes.

    ``analyze`` gives every legal first move its expected evaluation at the horizon
    (NaN for illegal moves); ``value_kind`` is ``"score"`` for learned leaves
    (expected final score) and ``evaluator="score"``, ``"eval"`` for the hand-made
    evaluators. Stats: ``nodes``, ``tt_hits``, ``depth`` (deepest completed search),
    ``budget_cut``, ``searches`` (the depths started), ``budget`` (None where none
    acted), ``prob_cutoff`` (the cut-off searched at), ``evaluator``, ``downgraded``.

    Args:
        seed: seed of the generator that breaks ties (None: fresh entropy).
        **options: the fields of :class:`ExpectimaxSettings` (``self.settings``;
            each is also readable as an attribute, ``agent.budget``).

    Raises:
        ValueError: a bad option; in ``analyze``/``act``, a game other than 2048 and
            Threes, an evaluator for the other game, or a finished game.
    """

    name = "expectimax"
    Settings = ExpectimaxSettings

    def __init__(self, *, seed: int | None = None, **options):
        unknown = sorted(set(options) - _FIELDS)
        if unknown:
            raise ValueError(
                f"expectimax has no option(s) {', '.join(map(repr, unknown))}; "
                f"accepted: seed, {', '.join(sorted(_FIELDS))}"
            )
        self.settings = ExpectimaxSettings.of(**options)
        super().__init__(seed=seed, time_limit=self.settings.time_limit)
        ev = self.settings.evaluator
        #: the net of ``evaluator=ntuple:path=DIR``, loaded now to fail early
        self._leaf = _load_leaf(ev) if _learned(ev) and ev.strip() != "ntuple" else None
        #: the packaged nets used (``evaluator=ntuple``, or a game's default), by game
        self._packaged: dict[str, _Leaf] = {}
        #: :meth:`ExpectimaxSettings.for_game` of each game played, resolved once
        self._games: dict[str, dict] = {}
        self._tt: tuple[np.ndarray, np.ndarray] | None = None
        self._stamp = 0
        #: nodes of this agent's last finished search, by depth
        self._cost: dict[int, int] = {}

    def __getattr__(self, name: str):
        if name in _FIELDS and "settings" in self.__dict__:
            return getattr(self.settings, name)
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"ExpectimaxAgent({self.settings!r}, seed={self.seed!r})"

    @staticmethod
    def resolve_options(options: dict, env_id: str | None = None) -> dict:
        """The options that decide this agent's moves on ``env_id``, the game's
        defaults filled in (:func:`record_options`; what
        :func:`playahead.agents.resolved_options` gives)."""
        game = {"2048-v0": "2048", "Threes-v0": "Threes"}.get(env_id or "")
        fields = {k: v for k, v in options.items() if k != "seed"}
        return record_options(ExpectimaxSettings(**fields), game)

    # ------------------------------------------------------------------ search
    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        game = _GAMES.get(root.kind)
        if game is None:
            raise ValueError(
                "expectimax plays 2048-v0 and Threes-v0 (playahead's own env classes); "
                f"got {type(root.env).__name__}"
            )
        opts = self._games.get(game)
        if opts is None:
            try:
                opts = _searched(self.settings, game)
            except TypeError:  # an Evaluator object
                opts = self.settings.for_game(game)
            self._games[game] = opts
        state = root.env.clone_state()
        ev, leaf = self._evaluator(game)
        if leaf is not None:
            leaf.model.check_position(f"{game}-v0", state)
        board = np.uint64(state.board)
        face = twenty48.max_tile(board) if game == "2048" else threes.max_card(board)
        cutoff = float(opts["prob_cutoff"])
        if opts["end_cutoff"] is not None and face >= opts["end_from"]:
            cutoff = float(opts["end_cutoff"])
        elif opts["late_cutoff"] is not None and face >= opts["late_from"]:
            cutoff = float(opts["late_cutoff"])
        searched = board
        if game == "2048" and opts["downgrade"]:
            searched = twenty48.downgrade(board, opts["downgrade"])
        search = functools.partial(
            self._search, game, state, searched, ev, leaf, cutoff
        )
        depth, cap, node_budget = opts["depth"], int(opts["max_depth"]), opts["budget"]
        node_budget = None if node_budget is None else int(node_budget)
        timed, bounded = self.time_limit is not None, opts["bounded"]
        if timed:
            deepest = cap if depth is None else depth
            depths = list(range(min(1, deepest), deepest + 1))
        elif depth is not None:
            depths = [depth]
            if bounded:  # straight to it (below); if it runs long, 1, 2, ...
                depths = list(range(min(1, depth), depth + 1))
        else:
            ranks = kernels.distinct_ranks(searched) - 2
            target = min(cap, max(int(opts["min_depth"]), ranks))
            depths = [target]
            if node_budget is not None and target >= 2:
                depths = list(range(max(1, target - 2), target + 1))
        budget = node_budget if len(depths) > 1 or bounded else None
        goal = depths[-1]
        counters = new_counters()
        values, done, searches = None, 0, []
        seen = None if budget is None or timed else self._cost.get(goal)
        fixed = bounded and depth is not None
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
                    if counters[NODES] + nodes > budget:
                        break
                    limit = budget  # a hard stop too: the budget's last node
                if (
                    timed
                    and time.perf_counter() + last[1] * _growth(prev[1], last[1])
                    > deadline
                ):
                    break
            searches.append(d)
            start, before = time.perf_counter(), int(counters[NODES])
            found = self._limited(search, d, counters, limit)
            if found is None:  # abandoned at the budget: keep the last one
                break
            values, done = found, d
            spent = int(counters[NODES]) - before
            prev, last = last, (spent, time.perf_counter() - start)
        if values is None:  # bounded, and even the first search ran past the budget
            done = min(1, goal)
            searches.append(done)
            values = self._limited(search, done, counters, None)
        if ev.value_kind == "score" and game == "2048":
            values = values + root.score
        stats = {
            "nodes": int(counters[NODES]),
            "tt_hits": int(counters[TT_HITS]),
            "depth": done,
            "budget_cut": done < goal,
            "searches": searches,
            "budget": budget,
            "prob_cutoff": cutoff,
            "evaluator": ev.name if leaf is None else "ntuple",
            "downgraded": bool(searched != board),
        }
        action = pick_max(values, rng)
        return Analysis(action, values, value_kind=ev.value_kind, stats=stats)

    def _evaluator(self, game: str) -> tuple[Evaluator, _Leaf | None]:
        """The evaluator on ``game`` and its learned leaf (None: hand-made)."""
        given = self.settings.evaluator
        named = "ntuple" if given is None else given
        leaf = self._leaf
        if leaf is None and _learned(named):
            leaf = self._packaged_leaf(game)
        if leaf is not None:
            return get_evaluator("score", game), leaf
        if isinstance(given, Evaluator):
            if given.game != game:
                raise ValueError(
                    f"evaluator {given.name!r} is for {given.game}, not {game}"
                )
            return given, None
        return get_evaluator(named, game), None

    def _limited(self, search, depth, counters, limit):
        """Run ``search`` to ``depth`` with a fresh table (a new stamp empties it),
        abandoning it once the decision's node count passes ``limit`` (None: no
        limit). The values, or None if abandoned; a finished search's node count goes
        to ``_cost``."""
        counters[LIMIT] = NO_LIMIT if limit is None else limit
        before = int(counters[NODES])
        # a fresh table per depth: the last search is the same as a direct one
        self._stamp += 1
        if self._tt is None or self._stamp >= _MAX_STAMP:
            s = self.settings
            self._tt = kernels.new_table(s.tt_bits if s.transposition else 1)
            self._stamp = 1
        found = search(depth, self._tt, counters)
        if counters[NODES] > counters[LIMIT]:
            return None
        self._cost[depth] = int(counters[NODES]) - before
        return found

    def _search(self, game, state, board, ev, leaf, cutoff, depth, tt, counters):
        if game == "2048":
            moves, rewards = twenty48.TABLES
        else:
            moves, rewards, _ = threes.tables(state.merge_6144)
        net = None if leaf is None else leaf.net
        ctx = kernels.search_context(moves, rewards, ev.table, tt, counters)
        s = self.settings
        cfg = kernels.search_config(
            cutoff,
            ev.reward_weight,
            self._stamp,
            s.tt_bits,
            bool(s.transposition),
            s.bonus_odds == "window",
        )
        if game == "2048":
            return kernels.root_2048(board, np.int64(depth), ctx, cfg, net)
        return kernels.root_threes(
            board, np.int64(state.cards), np.int64(depth), ctx, cfg, net
        )

    def _packaged_leaf(self, game: str) -> _Leaf:
        """The n-tuple net playahead ships for ``game``, loaded on first use, so an
        agent never reads the file of a game it does not play.

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
                which = "default" if self.settings.evaluator is None else "ntuple"
                raise PackagedNetError(
                    f"expectimax's {which} {game} evaluator is the n-tuple net "
                    f"playahead ships: {why}"
                ) from None
        return self._packaged[game]


_FIELDS = frozenset(f.name for f in dataclasses.fields(ExpectimaxSettings))


def _growth(before: float, last: float) -> float:
    """How much costlier the next depth is predicted to be: the last growth factor,
    at least 2 (8 without two searches to compare)."""
    return max(last / before, 2.0) if before > 0 else 8.0


def _learned(evaluator) -> bool:
    """Whether ``evaluator`` (an option's value) is learned leaves: ``"ntuple"``, the
    net playahead ships, or ``"ntuple:path=DIR"`` (``"ntuple:sha256=..."`` once
    resolved)."""
    return isinstance(evaluator, str) and evaluator.split(":")[0].strip() == "ntuple"


def _is(value, low, high, kinds: tuple = (int, np.integer)) -> bool:
    """Whether ``value`` is of ``kinds`` (never a bool) and in ``low`` .. ``high``."""
    ok = isinstance(value, kinds) and not isinstance(value, bool)
    return ok and low <= value <= high


def _is_cutoff(value) -> bool:
    """Whether ``value`` is None or a probability cut-off, a number in [0, 1)."""
    return value is None or (_is(value, 0, 1, _NUMBERS) and value < 1)


_NUMBERS = (int, float, np.integer, np.floating)


#: The leaf nets built, by (model identity, clamp, grouped), each with its model (so
#: the identity is not reused): a player's model is never changed (``shared_model``).
_NETS: dict[tuple[int, bool, bool], tuple[object, kernels.LeafNet]] = {}
_MAX_NETS = 4


class _Leaf:
    """An n-tuple model as the search's learned leaf (``net``, a
    :class:`~playahead.kernels.expectimax.LeafNet`, built once per process and model;
    scratch space of its own): ``grouped=False`` reads the weights code-major, as
    trained; ``clamp``: a negative learned value counts as 0."""

    def __init__(self, model, clamp: bool = False, grouped: bool = True):
        self.model = model
        key = (id(model), bool(clamp), bool(grouped))
        if key not in _NETS:
            if len(_NETS) >= _MAX_NETS:
                del _NETS[next(iter(_NETS))]
            layout = (model.weights, pattern_runs(model.cells), model.n_base)
            layout += (model.stage_ranks, clamp, grouped, model.step)
            _NETS[key] = (model, kernels.leaf_net(*layout))
        net = _NETS[key][1]
        self.net = net._replace(
            imgs=np.zeros_like(net.imgs), idx=np.zeros_like(net.idx)
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
