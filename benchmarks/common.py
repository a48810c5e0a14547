"""Shared helpers: timing and a report of rates next to same-run baselines."""

from __future__ import annotations

import dataclasses
import itertools
import json
import shlex
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


def evaluate_command(env: str, agents, n_games: int, seed: int, store) -> str:
    """The ``playahead evaluate`` line that plays (or resumes) the same games."""
    return shlex.join(
        [
            "playahead",
            "evaluate",
            "--env",
            env,
            "--agents",
            *agents,
            "--games",
            str(n_games),
            "--seed",
            str(seed),
            "--out",
            str(store),
        ]
    )


def record_identity(spec: str, env: str) -> dict:
    """An agent as a results file names it: its fully resolved options and playahead's
    version (:func:`playahead.evaluate.store.agent_identity`), plus ``files_sha256``
    of a net it loads, if present."""
    import playahead  # noqa: F401  (registers the envs and agents)
    from playahead.evaluate.runner import file_fingerprint
    from playahead.evaluate.store import agent_identity

    ident = agent_identity(spec, env)
    digest = file_fingerprint(spec)
    if digest is not None:
        ident["files_sha256"] = digest
    return ident


def name_records(folder: Path, names: Iterable[str]) -> None:
    """Add ``names`` (files of ``folder``) to the ``records`` of the folder's
    ``manifest.json``, kept sorted; a folder without a manifest is left alone."""
    path = Path(folder) / "manifest.json"
    if not path.is_file():
        return
    manifest = json.loads(path.read_text())
    records = sorted(set(manifest.get("records", [])) | set(names))
    if records != manifest.get("records"):
        manifest["records"] = records
        path.write_text(manifest_text(manifest))


def manifest_text(manifest: dict) -> str:
    """A manifest's file text: JSON, two-space indents, as every committed one."""
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def sampled_states(
    env_id: str,
    agent,
    every: int,
    first: int = 0,
    seeds: Iterable[int] | None = None,
) -> Iterator:
    """States (``clone_state()``) every ``every`` moves, from move ``first`` on, of
    games ``agent`` plays with ``seeds`` (0, 1, ... without end if None); never the
    final position of a game."""
    import gymnasium as gym

    import playahead  # noqa: F401  (registers the envs)

    env = gym.make(env_id)
    for seed in itertools.count() if seeds is None else seeds:
        env.reset(seed=seed)
        move, over = 0, False
        while not over:
            _, _, over, _, _ = env.step(agent.act(env))
            move += 1
            if not over and move >= first and move % every == 0:
                yield env.unwrapped.clone_state()


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """(fn's result, seconds it took)."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def interleaved(rates: list[Callable[[], float | None]], rounds: int = 3) -> list:
    """The median of ``rounds`` calls of each rate function, called in turn (ours,
    theirs, ours, theirs, ...), so a slow spell of a shared machine falls on both
    sides of a ratio instead of on one; a function that returns None (a baseline
    that is not installed) gives None."""
    import statistics

    seen: list[list[float]] = [[] for _ in rates]
    for _ in range(rounds):
        for got, rate in zip(seen, rates, strict=True):
            value = rate()
            if value is not None:
                got.append(value)
    return [statistics.median(got) if got else None for got in seen]


@dataclasses.dataclass
class Row:
    game: str
    what: str
    value: float
    baseline: str | None
    baseline_value: float | None
    target: float | None


@dataclasses.dataclass
class Report:
    """Rows of ``what: value`` with the ratio to a baseline measured in the same run."""

    title: str
    rows: list[Row] = dataclasses.field(default_factory=list)

    def add(self, game, what, value, baseline=None, baseline_value=None, target=None):
        self.rows.append(Row(game, what, value, baseline, baseline_value, target))

    def print(self) -> None:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"playahead benchmarks: {self.title}")
        for col in ("game", "measure", "ours", "baseline", "theirs", "ratio", "target"):
            table.add_column(
                col, justify="right" if col in ("ours", "theirs", "ratio") else "left"
            )
        for r in self.rows:
            if r.baseline and r.baseline_value is None:
                theirs, ratio = "not installed", ""
            elif r.baseline_value:
                theirs = f"{r.baseline_value:,.0f}"
                x = r.value / r.baseline_value
                ratio = f"{x:,.1f}x" if x >= 1 else f"{x:.2f}x"
            else:
                theirs, ratio = "", ""
            target = f">= {r.target:g}x" if r.target else ""
            table.add_row(
                r.game,
                r.what,
                f"{r.value:,.0f}",
                r.baseline or "",
                theirs,
                ratio,
                target,
            )
        Console(width=140).print(table)
