"""Strength benchmark: named agent settings over seeded games, one results file each.

    python -m benchmarks strength --list
    python -m benchmarks strength --setting threes-features-d2 [--games N] [--workers W]
    python -m benchmarks strength --setting threes-features-d2 --replay 7
    python -m benchmarks strength --setting threes-features-d2 --stamp
    python -m benchmarks strength --setting threes-features-d2 --paired threes-default
    python -m benchmarks strength --setting threes-default --retime

A run plays the evaluator's games (:mod:`playahead.evaluate`) with an SQLite store under
``runs/strength/``, then writes ``benchmarks/results/strength/<setting>.json`` and
``.md``. The JSON holds ``command`` (the ``playahead evaluate`` line that plays the
same games), ``env``, ``agent``, ``seed``, ``identity`` (the agent's fully resolved
options and playahead's version, with the sha256 of a net it loads) and its
``fingerprint``, and ``games``: ``{"index", "score", "max_tile", "moves",
"ms_per_move", "ms_worst_move"}`` in game order. Game ``i`` is game ``i`` of every run
with the same seed whatever ``--games`` is (its seeds come from
``SeedSequence(seed, spawn_key=(i,))``), so ``--replay i`` plays that one game alone
and says whether it ends as recorded.

Resuming: a run keeps the games of the committed results file when its fingerprint is
the agent's of today, and of the store, and plays only the missing ones, so a record
resumes on a fresh machine from the repository alone. A file of another fingerprint (a
default changed, another version, a file from before fingerprints) is not reused: the
run says why and writes the file anew from the games it plays. ``--stamp`` names
today's agent in such a file instead, once its shortest game replays as recorded
(after a version change that left the agent's games as they were). ``--retime``
plays the committed games again too, each checked to end as recorded, so the file
gets this machine's times (run it on an otherwise idle machine, after a change that
made the agent faster but left its moves as they were).

``ms_per_move`` is the agent's thinking time per move as the evaluator measures it:
CPU time of the thread that runs the agent (``"clock": "thread_time"``; files without
that key were measured in wall-clock time, an upper bound on a loaded machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
from pathlib import Path

import numpy as np

from benchmarks.common import evaluate_command, name_records, record_identity
from benchmarks.records.comparison import (
    THREES_TUNED,
    TRAIN_THREES_SPLIT,
    TRAIN_THREES_TUNED,
)

RESULTS = Path(__file__).resolve().parent.parent / "results" / "strength"
STORES = Path("runs") / "strength"


@dataclasses.dataclass(frozen=True)
class Setting:
    """One named benchmark setting; ``build``: the command that makes what the agent
    loads (a learned net under ``runs/``), if anything."""

    env: str
    agent: str
    games: int
    seed: int = 0
    build: str | None = None


#: The Threes n-tuple net of ``benchmarks/results/ntuple-threes/`` (weights not
#: committed: this rebuilds them, the same network for the same seed).
THREES_NET = "runs/threes-nt-6m"
_BUILD_THREES_NET = (
    "playahead train ntuple --env Threes-v0 --games 6000000 --seed 0 "
    f"--out {THREES_NET} (evaluation options and resumes as in "
    "benchmarks/results/ntuple-threes/)"
)


#: The float32 2048 net the shipped one was written from (step 16): the 5 x 6 run's
#: checkpoint at 230,000 games (``benchmarks/results/ntuple-2048-5x6/``). Two threads
#: trained it, racing over one net, so a rebuild learns a net of its own: the copy
#: kept outside the work tree is the one the record was played with.
NET_2048 = "runs/2048-nt-5x6-230k"
_BUILD_2048_NET = (
    "copy weights.npz and model.json of ~/.cache/playahead/2048-nt-5x6-230k/ (the "
    "5 x 6 run's checkpoint at 230,000 games) to "
    f"{NET_2048}; without it, playahead train ntuple --env 2048-v0 --patterns 5x6 "
    "--games 230000 --seed 0 --eval-every 5000 --eval-games 100 --workers 2 "
    f"--out {NET_2048} trains a net of the same recipe (not the same bits)"
)
#: The 4 x 6 net shipped before it (its float32 weights): the 1M run's checkpoint at
#: 130,000 games (``benchmarks/results/ntuple-2048-1m/``), one worker, so the command
#: rebuilds the same net.
NET_2048_4X6 = "runs/2048-nt-130k"
_BUILD_2048_4X6 = (
    "playahead train ntuple --env 2048-v0 --games 130000 --seed 0 --eval-every 5000 "
    f"--eval-games 100 --out {NET_2048_4X6}"
)

#: The command that builds the tuned Threes net, from nothing.
_BUILD_THREES_TUNED = f"{_BUILD_THREES_NET}; {TRAIN_THREES_SPLIT}; {TRAIN_THREES_TUNED}"

#: The named settings, in the order of the strength table. A setting without a file in
#: ``results/strength/`` has no record yet; ``python -m benchmarks strength --setting
#: NAME --every 1`` plays one.
SETTINGS: dict[str, Setting] = {
    # the default: expectimax over the shipped n-tuple net (LEARNED_AUTO)
    "threes-default": Setting("Threes-v0", "expectimax", 500),
    # features at the automatic depth 3 .. 4, cut-off 1e-4
    "threes-d4-cut1e-4": Setting(
        "Threes-v0",
        "expectimax:max_depth=4,min_depth=3,prob_cutoff=0.0001,evaluator=features",
        60,
    ),
    # features at the automatic depth 3 .. 6, cut-off 1e-3
    "threes-auto6-cut1e-3": Setting(
        "Threes-v0", "expectimax:min_depth=3,evaluator=features", 60
    ),
    # features at its automatic depth (6, cut-off 1e-3), with and without its budget
    "threes-features-default": Setting(
        "Threes-v0", "expectimax:evaluator=features", 60
    ),
    "threes-nobudget": Setting(
        "Threes-v0", "expectimax:budget=none,evaluator=features", 60
    ),
    "threes-openness-d1": Setting(
        "Threes-v0", "expectimax:depth=1,evaluator=openness", 100
    ),
    "threes-openness-d2": Setting(
        "Threes-v0", "expectimax:depth=2,evaluator=openness", 100
    ),
    "threes-openness-d3": Setting(
        "Threes-v0", "expectimax:depth=3,evaluator=openness", 100
    ),
    "threes-features-d1": Setting(
        "Threes-v0", "expectimax:depth=1,evaluator=features", 100
    ),
    "threes-features-d2": Setting(
        "Threes-v0", "expectimax:depth=2,evaluator=features", 100
    ),
    "threes-features-d3": Setting(
        "Threes-v0", "expectimax:depth=3,evaluator=features", 100
    ),
    "threes-features-d4": Setting(
        "Threes-v0", "expectimax:depth=4,evaluator=features", 20
    ),
    # the probability cut-off, not the depth, bounds these searches: at 1e-3 a
    # depth-6 search costs about what depth 4 at 1e-4 does
    "threes-d6-cut1e-3": Setting(
        "Threes-v0", "expectimax:depth=6,prob_cutoff=0.001,evaluator=features", 60
    ),
    "threes-d5-cut1e-3": Setting(
        "Threes-v0", "expectimax:depth=5,prob_cutoff=0.001,evaluator=features", 60
    ),
    "threes-d5-cut3e-4": Setting(
        "Threes-v0", "expectimax:depth=5,prob_cutoff=0.0003,evaluator=features", 60
    ),
    "threes-ntuple-d2": Setting(
        "Threes-v0",
        f"expectimax:depth=2,evaluator=ntuple:path={THREES_NET}",
        100,
        build=_BUILD_THREES_NET,
    ),
    "threes-ntuple-d3": Setting(
        "Threes-v0",
        f"expectimax:depth=3,evaluator=ntuple:path={THREES_NET}",
        60,
        build=_BUILD_THREES_NET,
    ),
    # learning against sampling, on 200 paired games
    "threes-mc1000": Setting("Threes-v0", "mc:n_rollouts=1000", 200),
    "threes-ntuple-greedy": Setting(
        "Threes-v0", f"ntuple:path={THREES_TUNED}", 200, build=_BUILD_THREES_TUNED
    ),
    # the n-tuple net playahead ships (evaluator=ntuple: playahead/data, built as in
    # benchmarks/results/ntuple-threes-staged/) against features at the same searches
    "threes-ntuple-d2-cut1e-2": Setting(
        "Threes-v0", "expectimax:depth=2,prob_cutoff=0.01,evaluator=ntuple", 100
    ),
    "threes-features-d2-cut1e-2": Setting(
        "Threes-v0", "expectimax:depth=2,prob_cutoff=0.01,evaluator=features", 100
    ),
    "threes-ntuple-d3-cut1e-2": Setting(
        "Threes-v0", "expectimax:depth=3,prob_cutoff=0.01,evaluator=ntuple", 60
    ),
    "threes-features-d3-cut1e-2": Setting(
        "Threes-v0", "expectimax:depth=3,prob_cutoff=0.01,evaluator=features", 60
    ),
    "threes-ntuple-d4-cut1e-2": Setting(
        "Threes-v0", "expectimax:depth=4,prob_cutoff=0.01,evaluator=ntuple", 60
    ),
    "threes-ntuple-d2-cut1e-3": Setting(
        "Threes-v0", "expectimax:depth=2,prob_cutoff=0.001,evaluator=ntuple", 100
    ),
    # the 2048 default: expectimax over the shipped n-tuple net (LEARNED_AUTO_2048)
    "2048-default": Setting("2048-v0", "expectimax", 300),
    # the same search over the float32 net the shipped one was written from
    "2048-default-float32": Setting(
        "2048-v0",
        f"expectimax:evaluator=ntuple:path={NET_2048}",
        100,
        build=_BUILD_2048_NET,
    ),
    # the same search over the 4 x 6 net shipped before (float32)
    "2048-4x6-float32": Setting(
        "2048-v0",
        f"expectimax:evaluator=ntuple:path={NET_2048_4X6}",
        50,
        build=_BUILD_2048_4X6,
    ),
    # the hand-made search the learned default replaced: ten times slower a move
    "2048-monotonic": Setting("2048-v0", "expectimax:evaluator=monotonic", 10),
    "2048-d2": Setting("2048-v0", "expectimax:max_depth=2,evaluator=monotonic", 100),
}

MILESTONES = {
    "Threes-v0": (768, 1536, 3072, 6144, 12288),
    "2048-v0": (2048, 4096, 8192, 16384, 32768),
}


def command(setting: Setting, n_games: int, store: Path) -> str:
    """The ``playahead evaluate`` line that plays (or resumes) the same games."""
    return evaluate_command(setting.env, [setting.agent], n_games, setting.seed, store)


def game_row(record) -> dict:
    """One game of the results file."""
    times = record.move_seconds
    some = times is not None and times.size
    ms = 1000.0 * float(np.mean(times)) if some else 0.0
    worst = 1000.0 * float(np.max(times)) if some else 0.0
    return {
        "index": int(record.game_index),
        "score": int(record.score),
        "max_tile": int(record.max_tile),
        "moves": int(record.moves),
        "ms_per_move": round(ms, 3),
        "ms_worst_move": round(worst, 3),
    }


def summary(env: str, games: list[dict], n_resamples: int = 2000) -> dict:
    """Mean with a 95% bootstrap CI, median, reach rates, ms per move (over all moves),
    the p90 of the games' ms per move, and the slowest single move of all."""
    from playahead.evaluate.stats import bootstrap_mean_ci

    scores = np.array([g["score"] for g in games], dtype=float)
    tiles = np.array([g["max_tile"] for g in games])
    ms = np.array([g["ms_per_move"] for g in games])
    moves = np.array([g["moves"] for g in games])
    lo, hi = bootstrap_mean_ci(scores, np.random.default_rng(0), n_resamples)
    return {
        "n_games": len(games),
        "mean": float(scores.mean()),
        "ci95": [float(lo), float(hi)],
        "median": float(np.median(scores)),
        "reach": {str(t): float(np.mean(tiles >= t)) for t in MILESTONES[env]},
        "ms_per_move_mean": float(np.sum(ms * moves) / max(np.sum(moves), 1)),
        "ms_per_move_p90": float(np.percentile(ms, 90)),
        "ms_worst_move": float(max(g.get("ms_worst_move", 0.0) for g in games)),
    }


def markdown(name: str, result: dict) -> str:
    """The results file's table, for the README."""
    s = result["summary"]
    head = ["games", "mean", "95% CI", "median"]
    head += [f"{t}" for t in s["reach"]] + ["ms/move", "p90 ms/move", "worst move ms"]
    row = [
        str(s["n_games"]),
        f"{s['mean']:,.0f}",
        f"[{s['ci95'][0]:,.0f}, {s['ci95'][1]:,.0f}]",
        f"{s['median']:,.0f}",
    ]
    row += [f"{100 * r:.0f}%" for r in s["reach"].values()]
    row += [f"{s['ms_per_move_mean']:.1f}", f"{s['ms_per_move_p90']:.1f}"]
    row += [f"{s['ms_worst_move']:.0f}"]
    return "\n".join(
        [
            f"**{name}**: `{result['agent']}` on {result['env']}, seed "
            f"{result['seed']} (`{result['command']}`; reach columns: share of games "
            "whose largest tile reached at least that value)"
            + (f"; the net: `{result['build']}`" if result.get("build") else ""),
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---:|" * len(head),
            "| " + " | ".join(row) + " |",
            "",
        ]
    )


def identity(setting: Setting) -> dict:
    """The agent of ``setting`` as its results file names it: its fully resolved
    options and playahead's version (:func:`playahead.evaluate.store.agent_identity`),
    plus ``files_sha256`` of a net it loads, if present."""
    return record_identity(setting.agent, setting.env)


def committed(name: str, setting: Setting, results: Path = RESULTS):
    """``(games by index, note)`` of the committed results file: its games if its
    fingerprint is the agent's of today, else none and a note that says why (None
    when there is nothing to say)."""
    from playahead.evaluate.store import fingerprint, identity_difference

    path = results / f"{name}.json"
    if not path.is_file():
        return {}, None
    data = json.loads(path.read_text())
    games = {int(g["index"]): g for g in data.get("games", [])}
    ident = identity(setting)
    if data.get("fingerprint") == fingerprint(ident) and games:
        return games, None
    if not games:
        return {}, None
    diff = identity_difference(data.get("identity"), ident)
    return {}, (
        f"{path.name}: its {len(games)} games were played with {diff}: not reused "
        "(the file is written anew from the games played now)"
    )


def run(
    name: str,
    n_games: int | None = None,
    workers: int = 1,
    stores: Path = STORES,
    results: Path = RESULTS,
    progress: bool = True,
    every: int | None = None,
    retime: bool = False,
) -> dict:
    """Play (or resume) setting ``name`` and write its results files.

    Games the committed results file holds (with today's fingerprint) and games in
    the store are kept; only the others are played. With ``retime``, the committed
    file's games are played again too (not the store's), each checked to end as the
    file says, and the file gets their times (written at the end only: the committed
    games already make ``every``'s prefix whole).

    With ``every``, the files are also written while the games play, each time the
    finished games that start at game 0 without a gap have grown by ``every``, so a long
    run has a file to commit. All missing games are in flight together (``workers``
    at a time); the writes read the store from a second thread."""
    setting = SETTINGS[name]
    n = setting.games if n_games is None else int(n_games)
    stores.mkdir(parents=True, exist_ok=True)
    store = stores / f"{name}.sqlite"
    kept, note = committed(name, setting, results)
    if note:
        print(f"strength: {note}", file=sys.stderr)
    writer = None
    if every:
        writer = _Writer(name, setting, n, store, results, int(every), kept)
        writer.start()
    try:
        _play(setting, n, store, workers, progress, set() if retime else set(kept))
    finally:
        if writer is not None:
            writer.stop()
    return _write(name, setting, n, store, results, kept)


POLL_SECONDS = 10.0


class _Writer(threading.Thread):
    """Rewrites the results files for the longest finished prefix of games whenever it
    has grown by ``every`` since the last write (polled every ``poll`` seconds)."""

    def __init__(
        self, name, setting, n, store, results, every, kept=None, poll=POLL_SECONDS
    ):
        super().__init__(daemon=True)
        self.setting_name, self.setting = name, setting
        self.store, self.results = store, results
        self.n, self.every, self.poll = n, every, poll
        self.kept = kept or {}
        self.written = finished_prefix(setting, store, n, self.kept)
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(self.poll):
            self.tick()

    def tick(self) -> int | None:
        """One look at the store; returns the number of games written, if any."""
        k = finished_prefix(self.setting, self.store, self.n, self.kept)
        if k < self.written + self.every or k >= self.n:
            return None
        _write(self.setting_name, self.setting, k, self.store, self.results, self.kept)
        self.written = k
        return k

    def stop(self) -> None:
        self._stopping.set()
        self.join()


def _open(setting: Setting, store: Path):
    """The setting's results store (one-player games, no env options), with its
    agent registered: only games of today's fingerprint count."""
    from playahead.evaluate.store import Store

    db = Store(store, setting.env, {}, setting.seed, "single")
    db.use_agents({setting.agent: identity(setting)})
    return db


def finished_prefix(setting: Setting, store: Path, n: int, kept=None) -> int:
    """How many games ``0, 1, ...`` (below ``n``) are in the store or ``kept`` (the
    committed file's) without a gap."""
    done = set(kept or ())
    if Path(store).exists():
        with _open(setting, store) as db:
            done |= {i for agent, _, i, _ in db.done() if agent == setting.agent}
    k = 0
    while k < n and k in done:
        k += 1
    return k


def _play(setting, n, store, workers, progress, skip=frozenset()) -> None:
    """Play the games below ``n`` that neither ``skip`` nor the store holds."""
    from playahead.evaluate.backends import run_tasks
    from playahead.evaluate.play import Task, check_agent
    from playahead.evaluate.runner import GameProgress, file_fingerprint

    with _open(setting, store) as db:
        digest = file_fingerprint(setting.agent)
        if digest is not None:
            db.check_files({setting.agent: digest})
        done = {i for agent, _, i, _ in db.done() if agent == setting.agent}
        tasks = [
            Task(setting.env, "{}", (setting.agent,), i, 0, setting.seed)
            for i in range(n)
            if i not in done and i not in skip
        ]
        if tasks:
            check_agent(setting.env, "{}", setting.agent, False, setting.seed)
        with GameProgress(progress, setting.env, n, n - len(tasks)) as bar:
            advance, report = bar
            for record in run_tasks(tasks, "local", workers, report=report):
                db.add(record)
                advance()


def _write(name, setting, n, store, results, kept=None) -> dict:
    """Write the results files for games ``0 .. n-1`` of the store and ``kept``; a
    game in both is the store's (its times), and must end as ``kept`` says.

    Raises:
        ValueError: a game of the store ended otherwise than the committed file's.
    """
    from playahead.evaluate.store import fingerprint

    rows = {i: g for i, g in (kept or {}).items() if i < n}
    with _open(setting, store) as db:
        for record in db.records(setting.agent, n_games=n):
            row = game_row(record)
            old = rows.get(row["index"])
            if old is not None and (old["score"], old["moves"]) != (
                row["score"],
                row["moves"],
            ):
                raise ValueError(
                    f"{name}: game {row['index']} ended with {row['score']:,} in "
                    f"{row['moves']} moves, the committed file says {old['score']:,} "
                    f"in {old['moves']}: the agent does not replay its games"
                )
            rows[row["index"]] = row
    games = [rows[i] for i in sorted(rows)]
    ident = identity(setting)
    result = {
        "command": command(setting, n, store),
        **({"build": setting.build} if setting.build else {}),
        "env": setting.env,
        "agent": setting.agent,
        "seed": setting.seed,
        "identity": ident,
        "fingerprint": fingerprint(ident),
        "clock": "thread_time",
        "summary": summary(setting.env, games),
        "games": games,
    }
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (results / f"{name}.md").write_text(markdown(name, result))
    name_records(results, [f"{name}.json", f"{name}.md"])
    return result


def readme_table(results: Path = RESULTS) -> str:
    """One row per results file present, in :data:`SETTINGS` order."""
    head = "| setting | agent | env | games | mean | 95% CI | median | reach "
    head += "| ms/move: mean / p90 / worst |"
    lines = [head, "|---|---|---|---:|---:|---:|---:|---|---:|"]
    for name in SETTINGS:
        path = results / f"{name}.json"
        if not path.exists():
            continue
        r = json.loads(path.read_text())
        s = r["summary"]
        reach = ", ".join(
            f"{t}: {100 * v:.0f}%" for t, v in s["reach"].items() if v > 0
        )
        ms = (
            f"{s['ms_per_move_mean']:.1f} / {s['ms_per_move_p90']:.1f} / "
            f"{s.get('ms_worst_move', float('nan')):.0f}"
        )
        lines.append(
            f"| [{name}](benchmarks/results/strength/{name}.md) | `{r['agent']}` | "
            f"{r['env']} | {s['n_games']} | {s['mean']:,.0f} | "
            f"[{s['ci95'][0]:,.0f}, {s['ci95'][1]:,.0f}] | {s['median']:,.0f} | "
            f"{reach} | {ms} |"
        )
    return "\n".join(lines)


def replay(name: str, index: int) -> dict:
    """Play game ``index`` of setting ``name`` alone; the row it would store."""
    import playahead  # noqa: F401  (registers the envs)
    from playahead.evaluate.play import Task, play_task

    setting = SETTINGS[name]
    task = Task(setting.env, "{}", (setting.agent,), int(index), 0, setting.seed)
    return game_row(play_task(task))


def stamp(name: str, results: Path = RESULTS) -> str:
    """Name today's agent in a results file that does not (a file from before
    fingerprints, or of another playahead version) once its shortest game replays as
    recorded; the file is left alone otherwise.

    Raises:
        ValueError: no results file, or the game ends otherwise than recorded.
    """
    from playahead.evaluate.store import fingerprint

    setting = SETTINGS[name]
    path = results / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"no results for {name} ({path})")
    data = json.loads(path.read_text())
    row = min(data["games"], key=lambda g: (g["moves"], g["index"]))
    got = replay(name, row["index"])
    keys = ("score", "moves", "max_tile")
    if [got[k] for k in keys] != [row[k] for k in keys]:
        raise ValueError(
            f"{path.name}: game {row['index']} ends with {got['score']:,} in "
            f"{got['moves']} moves, recorded {row['score']:,} in {row['moves']}: "
            "not today's agent's games; re-record them"
        )
    ident = identity(setting)
    out = {}
    for key, value in data.items():
        if key not in ("identity", "fingerprint"):
            out[key] = value
        if key == "seed":
            out["identity"], out["fingerprint"] = ident, fingerprint(ident)
    path.write_text(json.dumps(out, indent=1) + "\n")
    return f"{path.name}: game {row['index']} replays as recorded; stamped"


def replay_check(name: str, index: int, results: Path = RESULTS) -> str:
    """Replay game ``index`` and say how it compares with the committed file."""
    row = replay(name, index)
    line = json.dumps(row)
    kept, note = committed(name, SETTINGS[name], results)
    if note:
        return f"{line}\n{note}"
    old = kept.get(int(index))
    if old is None:
        return f"{line}\n(game {index} is not in the committed file)"
    same = (old["score"], old["moves"], old["max_tile"]) == (
        row["score"],
        row["moves"],
        row["max_tile"],
    )
    verdict = "as recorded" if same else f"NOT as recorded ({old['score']:,})"
    return f"{line}\ngame {index}: {row['score']:,} in {row['moves']} moves, {verdict}"


def paired(name: str, other: str, results: Path = RESULTS) -> dict:
    """Setting ``name`` against ``other`` on the games both files hold (same seed,
    same env: game i is the same deal in both): their means there and the mean
    difference with a 95% paired bootstrap interval.

    Raises:
        ValueError: a missing file, or files of another env or seed.
    """
    from playahead.evaluate.stats import paired_difference

    files = []
    for key in (name, other):
        path = results / f"{key}.json"
        if not path.is_file():
            raise ValueError(f"no results for {key} ({path}); play it first")
        files.append(json.loads(path.read_text()))
    a, b = files
    if (a["env"], a["seed"]) != (b["env"], b["seed"]):
        raise ValueError(
            f"{name} ({a['env']}, seed {a['seed']}) and {other} ({b['env']}, seed "
            f"{b['seed']}) did not play the same games"
        )
    sa = {g["index"]: g["score"] for g in a["games"]}
    sb = {g["index"]: g["score"] for g in b["games"]}
    both = sorted(sa.keys() & sb.keys())
    if not both:
        raise ValueError(f"{name} and {other} have no game in common")
    x, y = [sa[i] for i in both], [sb[i] for i in both]
    diff, lo, hi = paired_difference(x, y, np.random.default_rng(0))
    return {
        "games": len(both),
        name: float(np.mean(x)),
        other: float(np.mean(y)),
        "difference": diff,
        "ci95": [lo, hi],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks strength",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--setting", choices=sorted(SETTINGS), help="what to play")
    parser.add_argument("--games", type=int, help="games (default: the setting's)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--replay", type=int, help="play only this game index, alone")
    parser.add_argument(
        "--stamp",
        action="store_true",
        help="name today's agent in the results file if its shortest game replays "
        "as recorded (files from before fingerprints or of another version)",
    )
    parser.add_argument("--every", type=int, help="also write the files every N games")
    parser.add_argument(
        "--retime",
        action="store_true",
        help="play the committed file's games again too, each checked to end as "
        "recorded, so the file gets this machine's times (on an idle machine)",
    )
    parser.add_argument("--list", action="store_true", help="list the settings")
    parser.add_argument(
        "--paired",
        metavar="OTHER",
        choices=sorted(SETTINGS),
        help="compare --setting's results file with OTHER's on their common games",
    )
    parser.add_argument("--readme", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.readme:
        parser.error("the tables are rewritten by: python -m benchmarks tables")
    if args.list or args.setting is None:
        for key, s in SETTINGS.items():
            print(f"{key:20} {s.env:10} {s.agent:40} {s.games} games, seed {s.seed}")
        return
    if args.stamp:
        try:
            print(stamp(args.setting))
        except ValueError as err:
            parser.error(str(err))
        return
    if args.replay is not None:
        try:
            print(replay_check(args.setting, args.replay))
        except ValueError as err:
            build = SETTINGS[args.setting].build
            how = f"; the net is built by: {build}" if build else ""
            parser.error(f"{err}{how}")
        return
    if args.paired is not None:
        try:
            got = paired(args.setting, args.paired)
        except ValueError as err:
            parser.error(str(err))
        lo, hi = got["ci95"]
        print(
            f"{got['games']} games: {args.setting} {got[args.setting]:,.0f}, "
            f"{args.paired} {got[args.paired]:,.0f}; paired difference "
            f"{got['difference']:+,.0f}, 95% CI [{lo:,.0f}, {hi:,.0f}]"
        )
        return
    result = run(
        args.setting, args.games, args.workers, every=args.every, retime=args.retime
    )
    print(markdown(args.setting, result))


if __name__ == "__main__":
    main(sys.argv[1:])
