"""The results of an evaluation and their exports.

:class:`EvaluationResult` holds per-agent summaries and pairwise results (built by
:mod:`.summary`) and renders them as a rich table, Markdown, CSV or JSON, and as a
figure (:mod:`.plots`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np


@dataclasses.dataclass
class AgentSummary:
    """One agent in a one-player game (2048, Threes).

    Attributes:
        spec: the agent's spec string.
        games: games played.
        mean, ci95, median, min, max: of the final scores; ``ci95`` is a percentile
            bootstrap interval ``(lo, hi)`` of the mean.
        milestones: milestone tile -> share of games whose largest tile reached it.
        moves_per_game: mean moves per game.
        seconds_per_move, p90_seconds_per_move: mean and 90th percentile of the
            agent's thinking time over all its moves.
        scores, max_tiles, moves: per game, ``list[games]``, by game index.
    """

    spec: str
    games: int
    mean: float
    ci95: tuple[float, float]
    median: float
    min: float
    max: float
    milestones: dict[int, float]
    moves_per_game: float
    seconds_per_move: float
    p90_seconds_per_move: float
    scores: list[float]
    max_tiles: list[int | None]
    moves: list[int]


@dataclasses.dataclass
class PairComparison:
    """Paired comparison of two agents over the same games (one-player games).

    Attributes:
        a, b: the agents' specs.
        games: games both played (same seeds).
        mean_difference: mean of ``score(a) - score(b)`` per game.
        ci95: bootstrap interval of ``mean_difference``.
        a_better, b_better: share of games where a (b) scored strictly more.
    """

    a: str
    b: str
    games: int
    mean_difference: float
    ci95: tuple[float, float]
    a_better: float
    b_better: float

    @property
    def verdict(self) -> str:
        """``"A beats B by X, 95% CI [lo, hi]"``, or says that no clear winner."""
        lo, hi = self.ci95
        d = self.mean_difference
        if lo > 0:
            return f"{self.a} beats {self.b} by {_num(d)}, 95% CI {_ci((lo, hi))}"
        if hi < 0:
            return f"{self.b} beats {self.a} by {_num(-d)}, 95% CI {_ci((-hi, -lo))}"
        return (
            f"no clear difference ({self.a} - {self.b}: {_num(d)}, "
            f"95% CI {_ci((lo, hi))})"
        )


@dataclasses.dataclass
class PlayerSummary:
    """One agent in a two-player round robin.

    Attributes:
        spec: the agent's spec string.
        games, wins, draws, losses: over all its games.
        points: share of points (a win 1, a draw 1/2).
        elo, elo_ci95: maximum-likelihood Elo (mean of all agents 1500) and its
            bootstrap interval over games.
        seconds_per_move, p90_seconds_per_move: thinking time over all its moves.
    """

    spec: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    elo_ci95: tuple[float, float]
    seconds_per_move: float
    p90_seconds_per_move: float


@dataclasses.dataclass
class PairRecord:
    """The games between two agents (two-player); counts are from ``a``'s side.

    Attributes:
        a, b: the agents' specs (in sorted order).
        games, wins, draws, losses: ``a``'s record against ``b``.
        first, second: ``(wins, draws, losses)`` of ``a`` when it moved first / second.
        results: per game ``(game_index, side of a, points of a)``.
    """

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    first: tuple[int, int, int]
    second: tuple[int, int, int]
    results: list[tuple[int, int, float]]


@dataclasses.dataclass
class EvaluationResult:
    """What :func:`playahead.evaluate.evaluate` returns.

    Attributes:
        env_id, env_kwargs, seed, n_games: what was evaluated (``n_games`` per agent
            in one-player games; game seeds per pair, each played from both sides, in
            two-player games).
        kind: ``"single"`` or ``"two_player"``.
        agents: ``list[AgentSummary]`` (one-player) or ``list[PlayerSummary]``, in the
            order the agents were given.
        pairs: ``list[PairComparison]`` (one-player) or ``list[PairRecord]``.
        milestones: the milestone tiles of this game (empty for two-player games).
        store: path of the results store, or None.
        version: playahead's version.
        notes: one line per agent whose stored games were not reused because
            another version of it played them (other resolved options or playahead
            version), naming the difference (see :meth:`.store.Store.notes`).
    """

    env_id: str
    env_kwargs: dict[str, Any]
    seed: int
    n_games: int
    kind: str
    agents: list
    pairs: list
    milestones: tuple[int, ...] = ()
    store: str | None = None
    version: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)

    # ------------------------------------------------------------------ exports
    def to_dict(self, timings: bool = True) -> dict:
        """Everything as JSON-ready data; ``timings=False`` drops thinking times (the
        only numbers that differ between two runs of the same evaluation)."""
        data = _jsonable(dataclasses.asdict(self))
        for agent in data["agents"]:
            if not timings:
                agent.pop("seconds_per_move")
                agent.pop("p90_seconds_per_move")
        for pair, obj in zip(data["pairs"], self.pairs, strict=True):
            if isinstance(obj, PairComparison):
                pair["verdict"] = obj.verdict
        return data

    def to_json(self, path: str | Path | None = None, timings: bool = True) -> str:
        """JSON text (written to ``path`` if given): settings, per-agent summaries with
        per-game scores and max tiles (one-player) or per-pair records (two-player)."""
        text = _dumps(self.to_dict(timings))
        _write(path, text + "\n")
        return text

    def rows(self) -> tuple[list[str], list[list[str]]]:
        """The summary table as ``(header, rows)`` of display strings."""
        if self.kind == "single":
            shown = _shown_milestones(self)
            header = ["agent", "games", "mean", "95% CI", "median", "min", "max"]
            header += [f">={m}" for m in shown]
            header += ["moves/game", "ms/move", "p90 ms"]
            body = [
                [
                    a.spec,
                    str(a.games),
                    _num(a.mean),
                    _ci(a.ci95),
                    _num(a.median),
                    _num(a.min),
                    _num(a.max),
                ]
                + [f"{100 * a.milestones[m]:.0f}%" for m in shown]
                + [
                    _num(a.moves_per_game),
                    _ms(a.seconds_per_move),
                    _ms(a.p90_seconds_per_move),
                ]
                for a in self.agents
            ]
            return header, body
        header = [
            "rank",
            "agent",
            "Elo",
            "95% CI",
            "games",
            "W",
            "D",
            "L",
            "points",
            "ms/move",
            "p90 ms",
        ]
        ranked = sorted(self.agents, key=lambda p: -p.elo)
        body = [
            [
                str(i + 1),
                p.spec,
                f"{p.elo:.0f}",
                _ci(p.elo_ci95, 0),
                str(p.games),
                str(p.wins),
                str(p.draws),
                str(p.losses),
                f"{100 * p.points:.1f}%",
                _ms(p.seconds_per_move),
                _ms(p.p90_seconds_per_move),
            ]
            for i, p in enumerate(ranked)
        ]
        return header, body

    def pair_rows(self) -> tuple[list[str], list[list[str]]]:
        """The pairwise table as ``(header, rows)`` of display strings."""
        if self.kind == "single":
            header = [
                "A",
                "B",
                "games",
                "A better",
                "B better",
                "verdict",
            ]
            body = [
                [
                    p.a,
                    p.b,
                    str(p.games),
                    f"{100 * p.a_better:.0f}%",
                    f"{100 * p.b_better:.0f}%",
                    p.verdict,
                ]
                for p in self.pairs
            ]
            return header, body
        header = [
            "A",
            "B",
            "games",
            "A wins",
            "draws",
            "B wins",
            "A first (W-D-L)",
            "A second (W-D-L)",
        ]
        body = [
            [
                p.a,
                p.b,
                str(p.games),
                str(p.wins),
                str(p.draws),
                str(p.losses),
                "-".join(map(str, p.first)),
                "-".join(map(str, p.second)),
            ]
            for p in self.pairs
        ]
        return header, body

    def title(self) -> str:
        """One line naming the env, its options, the games and the seed."""
        options = f" {json.dumps(self.env_kwargs)}" if self.env_kwargs else ""
        if self.kind == "single":
            return (
                f"{self.env_id}{options}: {self.n_games} games per agent, "
                f"seed {self.seed}"
            )
        return (
            f"{self.env_id}{options}: round robin, {self.n_games} seeds x 2 sides per "
            f"pair, seed {self.seed}; Elo by maximum likelihood, mean 1500"
        )

    def pair_title(self) -> str:
        """The heading of the pairwise table (paired bootstrap, or head to head)."""
        if self.kind == "single":
            return "pairwise, over the same games (paired bootstrap)"
        return "head to head, counted from A's side"

    def table(self):
        """A rich renderable: the summary table and the pairwise table."""
        from rich.console import Group
        from rich.table import Table

        header, body = self.rows()
        main = Table(title=self.title(), title_justify="left")
        width = min(max(len(a.spec) for a in self.agents), 32)
        for name in header:
            if name == "agent":
                main.add_column(name, min_width=width, overflow="fold")
            else:
                main.add_column(name, justify="right", no_wrap=True)
        for row in body:
            main.add_row(*row)
        parts = [main]
        header, body = self.pair_rows()
        if body:
            pairs = Table(title=self.pair_title(), title_justify="left")
            for name in header:
                if name in ("A", "B"):
                    pairs.add_column(name, min_width=min(width, 20), overflow="fold")
                elif name == "verdict":
                    pairs.add_column(name, min_width=30)
                else:
                    pairs.add_column(name, justify="right", no_wrap=True)
            for row in body:
                pairs.add_row(*row)
            parts.append(pairs)
        parts += [f"note: {note}" for note in self.notes]
        return Group(*parts)

    def to_markdown(self, path: str | Path | None = None) -> str:
        """Markdown text (written to ``path`` if given): both tables."""
        lines = [f"**{self.title()}**", ""]
        lines += _md_table(*self.rows())
        header, body = self.pair_rows()
        if body:
            lines += ["", f"**{self.pair_title()}**", ""]
            lines += _md_table(header, body)
        if self.notes:
            lines += [""] + [f"- note: {note}" for note in self.notes]
        text = "\n".join(lines) + "\n"
        _write(path, text)
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """The per-agent summary as CSV with raw numbers (written to ``path`` if
        given)."""
        out = io.StringIO()
        if self.kind == "single":
            fields = (
                ["spec", "games", "mean", "ci95_lo", "ci95_hi", "median", "min", "max"]
                + [f"reach_{m}" for m in self.milestones]
                + ["moves_per_game", "seconds_per_move", "p90_seconds_per_move"]
            )
        else:
            fields = [
                "spec",
                "elo",
                "elo_ci95_lo",
                "elo_ci95_hi",
                "games",
                "wins",
                "draws",
                "losses",
                "points",
                "seconds_per_move",
                "p90_seconds_per_move",
            ]
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for agent in self.agents:
            row = dataclasses.asdict(agent)
            lo_hi = row.pop("ci95" if self.kind == "single" else "elo_ci95")
            prefix = "ci95" if self.kind == "single" else "elo_ci95"
            row[f"{prefix}_lo"], row[f"{prefix}_hi"] = lo_hi
            for m, share in row.pop("milestones", {}).items():
                row[f"reach_{m}"] = share
            writer.writerow({k: row[k] for k in fields})
        _write(path, out.getvalue())
        return out.getvalue()

    def plot(self, path: str | Path) -> Path:
        """Save the figure (PNG, SVG or PDF by the suffix) and return its path."""
        from playahead.evaluate.plots import plot_result

        return plot_result(self, path)


# ---------------------------------------------------------------------- formatting
def _num(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 100 or float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:.3g}" if abs(x) < 1 else f"{x:.1f}"


def _ci(ci, digits: int | None = None) -> str:
    lo, hi = ci
    if digits is not None:
        return f"[{lo:.{digits}f}, {hi:.{digits}f}]"
    return f"[{_num(lo)}, {_num(hi)}]"


def _ms(seconds: float) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    ms = 1000.0 * seconds
    return f"{ms:.3f}" if ms < 1 else f"{ms:.1f}" if ms < 100 else f"{ms:,.0f}"


def _shown_milestones(result: EvaluationResult) -> list[int]:
    """Milestones some agent reached, plus the next one (the first one if none)."""
    shown = []
    for m in result.milestones:
        shown.append(m)
        if not any(a.milestones[m] > 0 for a in result.agents):
            break
    return shown


def _md_table(header: list[str], body: list[list[str]]) -> list[str]:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|")

    align = ["---" if h in ("agent", "A", "B", "verdict") else "---:" for h in header]
    lines = ["| " + " | ".join(map(esc, header)) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in body]
    return lines


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    return value


def _dumps(value, indent: str = "") -> str:
    """JSON with one key per line but lists of numbers (per-game data) on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [
            f"{inner}{json.dumps(k)}: {_dumps(v, inner)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        items = [inner + _dumps(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    return json.dumps(value, separators=(", ", ": "))


def _write(path, text: str) -> None:
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
