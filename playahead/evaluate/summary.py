"""Summaries from stored games: per-agent statistics, paired comparisons, Elo.

:func:`build_result` reads the finished games from a :class:`~.store.Store` and computes
every statistic with a generator seeded from the evaluation's seed and the agents'
specs (not their positions), so the same stored games always give the same numbers and
an agent's interval does not change when other agents join the comparison.
"""

from __future__ import annotations

import math
import zlib
from pathlib import Path

import numpy as np

from playahead.evaluate import stats
from playahead.evaluate.report import (
    AgentSummary,
    EvaluationResult,
    PairComparison,
    PairRecord,
    PlayerSummary,
)
from playahead.evaluate.store import GameRecord, Store

# Milestone tiles per game (share of games whose largest tile reached each).
MILESTONES: dict[str, tuple[int, ...]] = {
    "Threes": (384, 768, 1536, 3072, 6144, 12288),
    "2048": (512, 1024, 2048, 4096, 8192, 16384, 32768),
}


def shown_path(path: str) -> str:
    """``path`` as a results file records it: relative to the working directory when
    it lies inside it, else only its file name, so a committed results file never
    carries the layout of the machine that wrote it."""
    p = Path(path).resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.name


def _rng(seed: int, *keys: str) -> np.random.Generator:
    """A generator for one statistic, keyed by spec strings (not positions), so an
    agent's interval does not change when other agents are added."""
    return np.random.default_rng([int(seed), *(zlib.crc32(k.encode()) for k in keys)])


def _times(records: list[GameRecord], spec: str) -> np.ndarray:
    parts = []
    for r in records:
        if r.agent == spec:
            parts.append(r.move_seconds)
        elif r.opponent == spec and r.opponent_move_seconds is not None:
            parts.append(r.opponent_move_seconds)
    return np.concatenate(parts) if parts else np.zeros(0)


def _mean_p90(times: np.ndarray) -> tuple[float, float]:
    if times.size == 0:
        return math.nan, math.nan
    return float(times.mean()), float(np.quantile(times, 0.9))


def single_summary(
    spec: str, records: list[GameRecord], milestones, seed: int, n_resamples: int
) -> AgentSummary:
    """Summary statistics of one agent's games (``records`` ordered by game index)."""
    scores = np.array([r.score for r in records], dtype=np.float64)
    tiles = [r.max_tile for r in records]
    moves = [r.moves for r in records]
    lo, hi = stats.bootstrap_mean_ci(scores, _rng(seed, spec), n_resamples)
    reach = {
        m: float(np.mean([t is not None and t >= m for t in tiles])) for m in milestones
    }
    mean_t, p90_t = _mean_p90(_times(records, spec))
    return AgentSummary(
        spec=spec,
        games=len(records),
        mean=float(scores.mean()),
        ci95=(lo, hi),
        median=float(np.median(scores)),
        min=float(scores.min()),
        max=float(scores.max()),
        milestones=reach,
        moves_per_game=float(np.mean(moves)),
        seconds_per_move=mean_t,
        p90_seconds_per_move=p90_t,
        scores=scores.tolist(),
        max_tiles=tiles,
        moves=moves,
    )


def compare(a: AgentSummary, b: AgentSummary, seed: int, n_resamples: int):
    """Paired comparison of two summaries over the games both played."""
    diff, lo, hi = stats.paired_difference(
        a.scores, b.scores, _rng(seed, a.spec, b.spec), n_resamples
    )
    sa, sb = np.asarray(a.scores), np.asarray(b.scores)
    return PairComparison(
        a=a.spec,
        b=b.spec,
        games=sa.size,
        mean_difference=diff,
        ci95=(lo, hi),
        a_better=float(np.mean(sa > sb)),
        b_better=float(np.mean(sb > sa)),
    )


def pairwise(
    agents: list[AgentSummary], seed: int, n_resamples: int
) -> list[PairComparison]:
    """Every pair of ``agents`` compared (:func:`compare`), in their order: the first
    with each later one, then the second, ..."""
    return [
        compare(a, b, seed, n_resamples)
        for i, a in enumerate(agents)
        for b in agents[i + 1 :]
    ]


def pair_record(a: str, b: str, records: list[GameRecord]) -> PairRecord:
    """``a``'s record against ``b`` (``records`` stored with ``agent=a``)."""

    def wdl(rs) -> tuple[int, int, int]:
        points = [r.score for r in rs]
        return (points.count(1.0), points.count(0.5), points.count(0.0))

    wins, draws, losses = wdl(records)
    return PairRecord(
        a=a,
        b=b,
        games=len(records),
        wins=wins,
        draws=draws,
        losses=losses,
        first=wdl([r for r in records if r.side == 0]),
        second=wdl([r for r in records if r.side == 1]),
        results=[(r.game_index, r.side, r.score) for r in records],
    )


def build_result(
    store: Store,
    specs: list[str],
    n_games: int,
    seed: int,
    kind: str,
    env_kwargs: dict,
    game_name: str = "",
    n_resamples: int = 2000,
) -> EvaluationResult:
    """Summaries of ``specs`` from the games in ``store`` (indices < ``n_games``)."""
    from playahead import __version__

    common = dict(
        env_id=store.env_id,
        env_kwargs=dict(env_kwargs),
        seed=seed,
        n_games=n_games,
        kind=kind,
        store=None if store.path == ":memory:" else shown_path(store.path),
        version=__version__,
    )
    if kind == "single":
        milestones = MILESTONES.get(game_name, ())
        agents = [
            single_summary(
                s, store.records(s, "", n_games), milestones, seed, n_resamples
            )
            for s in specs
        ]
        return EvaluationResult(
            agents=agents,
            pairs=pairwise(agents, seed, n_resamples),
            milestones=milestones,
            **common,
        )
    index = {s: i for i, s in enumerate(specs)}
    all_records: list[GameRecord] = []
    pairs = []
    for a, b in round_robin(specs):
        recs = store.records(a, b, n_games)
        all_records += recs
        pairs.append(pair_record(a, b, recs))
    all_records.sort(key=lambda r: r.key)  # the same list whatever the agents' order
    first = np.array([index[r.agent] for r in all_records])
    second = np.array([index[r.opponent] for r in all_records])
    points = np.array([r.score for r in all_records])
    elo = stats.fit_elo(first, second, points, len(specs))
    lo, hi = stats.bootstrap_elo(
        first,
        second,
        points,
        len(specs),
        _rng(seed, "elo", *sorted(specs)),
        n_resamples=max(1, n_resamples // 2),
    )
    agents = []
    for k, spec in enumerate(specs):
        mine = [r for r in all_records if spec in (r.agent, r.opponent)]
        my_points = [r.score if r.agent == spec else 1.0 - r.score for r in mine]
        mean_t, p90_t = _mean_p90(_times(mine, spec))
        agents.append(
            PlayerSummary(
                spec=spec,
                games=len(mine),
                wins=my_points.count(1.0),
                draws=my_points.count(0.5),
                losses=my_points.count(0.0),
                points=float(np.mean(my_points)) if my_points else math.nan,
                elo=float(elo[k]),
                elo_ci95=(float(lo[k]), float(hi[k])),
                seconds_per_move=mean_t,
                p90_seconds_per_move=p90_t,
            )
        )
    return EvaluationResult(agents=agents, pairs=pairs, **common)


def round_robin(specs: list[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, each as ``(a, b)`` with ``a < b`` (sorted), so the
    store's keys do not depend on the order agents are given in."""
    return [tuple(sorted((a, b))) for i, a in enumerate(specs) for b in specs[i + 1 :]]
