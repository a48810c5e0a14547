"""n-tuple TD on 2048: the learning curve of the default recipe and TD updates per CPU
second.

Measures ``playahead.kernels.td.train_games`` (one kernel per batch of games: the
greedy move over the afterstates, the env step and the backward TD pass, with the
weight indices of each chosen afterstate kept for the backward pass and the loads
prefetched) against the unfused loop it replaced, measured in the same run: that loop
(:func:`unfused_games`, the code before this benchmark existed) calls ``value`` for
every afterstate and ``value`` + ``update`` for every TD step. Both start from the same
network and the same seed and must end with identical weights (checked).

The start network matters (a trained net plays long games whose lookups miss the
cache): by default it is TDL2048-Demo's 4 x 6-tuples after ``--warmup`` (5,000)
training games from zeros with seed 0 (not timed; mean score about 16k, games of about
750 moves); ``--start DIR`` takes a saved 2048 model instead. CPU time is
``time.process_time`` (the machine may be shared); each side runs ``--repeats`` times
from the same start and the best rate counts. The report also gives the ratio to the
2.3-6.5 M updates/s per core quoted for C++ (issue 10).

Learning curve: the default 2048 recipe (TD(0.5), TC, restarts) trained with ``--seed``
for ``--curve-games`` games, its greedy mean on ``--curve-eval`` held-out games every
``--curve-every`` games against training games and CPU seconds (evaluation outside the
clock), and the recipe's TD updates per CPU second. ``--ziap DIR`` first trains and
evaluates ziap/2048-tdl (built in DIR as its HOW-TO-BUILD.md says; ``./2048 train
-e 6 -a 1.0 -l 0.5 -c -r -o`` then ``./2048 agent -e 1000``) in the same run, CPU
seconds of the child process.

TDL2048+ (moporgic/TDL2048+, the fastest published trainer), in the same run: built
once from ``--tdl`` (default: the project's copy of its source, ``../shared/peers/
tdl2048plus`` beside the repository) into ``~/.cache/playahead/peers/tdl2048plus``
with the build line of its HOW-TO-BUILD.md, it trains ``--tdl-games`` (6,000) games of
TD(0) (``./2048 -n 4x6patt -t 6x1000 -s 1``, which learns online: each afterstate
once the next move is chosen) and of TC + TD(0.5) + restarts (``-a 1.0 -l 0.5 -tt
restart -s 1``), CPU seconds of each child (user + sys), then the second again with
``-o r.w`` and 1,000 greedy games of that net (``-e 1x1000 -i r.w -s 7``). The timed
runs write no weight file (writing one takes TDL2048+ seconds; ours saves outside its
clock too). Ours trains as many games of TD(0) (rate 0.1) online (``online=True``)
and in the backward pass after each game, and of the default recipe, each from zeros
with ``--seed``, and plays its recipe net greedily on 1,000 held-out games. Without
the source it says so in one line and measures ours alone.

``--ablation GAMES`` trains TD(0), +TC, +lambda and
+restarts to GAMES games each and reports each greedy mean with its 95% interval.
``--workers-games N`` measures the wall-clock speed-up of two trainer threads on the
default recipe (N games from the net after 2,000). ``--record DIR`` writes
``tdl-<games>.json``, ``workers-<games>.json``, ``curve-<games>.json`` and
``ablation-<games>.json``.

Run: ``python -m benchmarks ntuple`` (TDL2048+ beside ours, a 1,000-game curve and
the update rate) or
``python -m benchmarks.speed.bench_ntuple [--games 200] [--repeats 3] [--warmup 5000 |
--start DIR] [--curve-games N --curve-every K --curve-eval M] [--ziap DIR]
[--tdl DIR --tdl-games N] [--workers-games N]
[--ablation N] [--record DIR]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numba as nb
import numpy as np

from benchmarks.common import Report
from playahead.games import twenty48
from playahead.kernels import ntuple as k
from playahead.kernels import td
from playahead.ntuple.model import DEFAULT_PATTERNS, NTupleModel, load_model

WARMUP = 5000
ONE_STAGE = np.zeros(0, np.int64)  # the net has one stage
CPP_RATES = (2.3e6, 6.5e6)


@nb.njit(cache=True)
def unfused_games(n_games, alpha, weights, cells, rng, moves, rewards):
    """The replaced 2048 training loop: ``value`` per afterstate while playing, then
    ``value`` + ``update`` (which re-reads the value) per backward TD step."""
    afters = np.empty(td.MAX_MOVES, np.uint64)
    gains = np.empty(td.MAX_MOVES, np.int64)
    per = alpha / (8 * cells.shape[0])
    updates = 0
    for _ in range(n_games):
        board = twenty48.new_game(rng)
        n = 0
        while True:
            best, best_after, best_r = -np.inf, board, np.int64(-1)
            for a in range(4):
                after, r = twenty48.move(board, a, moves, rewards)
                if r >= 0:
                    v = r + k.value(after, 0, weights, cells)
                    if v > best:
                        best, best_after, best_r = v, after, r
            if best_r < 0:
                break
            if n > 0:
                gains[n - 1] += best_r
            afters[n], gains[n] = best_after, 0
            board = twenty48.spawn(best_after, rng)
            n += 1
        exact = 0.0
        for t in range(n - 1, -1, -1):
            error = exact - k.value(afters[t], 0, weights, cells)
            v = k.update(afters[t], 0, per * error, weights, cells)
            if t > 0:
                exact = gains[t - 1] + v
        updates += n
    return updates


def _start_model(start, warmup: int) -> NTupleModel:
    """The saved model ``start``, or the default net after ``warmup`` games."""
    if start is not None:
        return load_model(start, "2048-v0")
    model = NTupleModel.new("2048-v0", DEFAULT_PATTERNS)
    none = np.zeros(0, np.float32)
    g = td.td_game(
        0, model.weights, k.pattern_runs(model.cells), ONE_STAGE, *twenty48.TABLES
    )
    rng, rows = np.random.default_rng(0), np.empty((warmup, 3), np.int64)
    td.run_games(
        g, warmup, 0.1, 0.0, False, rng, rows, (none, none), (*td.NO_STARTS, 0.0)
    )
    model.meta["games"] = warmup
    return model


def measure(
    games: int = 200, repeats: int = 3, start=None, seed: int = 1, warmup=WARMUP
) -> dict:
    """Best updates per CPU second of both loops over ``games`` games from ``start``
    (a model directory, or None: the default net after ``warmup`` games).

    Returns:
        ``{"fused": rate, "unfused": rate, "updates": n, "games": games}``.

    Raises:
        AssertionError: the two loops ended with different weights.
    """
    model = _start_model(start, warmup)
    moves, rewards = twenty48.TABLES
    cells = model.cells
    runs = k.pattern_runs(cells)
    none = np.zeros(0, np.float32)
    rows = np.empty((games, 3), np.int64)

    def fused(w, rng):
        g = td.td_game(0, w, runs, ONE_STAGE, moves, rewards)
        return td.run_games(
            g, games, 0.1, 0.0, False, rng, rows, (none, none), (*td.NO_STARTS, 0.0)
        )

    def unfused(w, rng):
        return unfused_games(games, 0.1, w, cells, rng, moves, rewards)

    small = NTupleModel.new("2048-v0", ("01",))  # compile outside the clock
    small_runs = k.pattern_runs(small.cells)
    g = td.td_game(0, small.weights, small_runs, ONE_STAGE, moves, rewards)
    rng = np.random.default_rng(0)
    td.run_games(
        g, 1, 0.1, 0.0, False, rng, rows[:1], (none, none), (*td.NO_STARTS, 0.0)
    )
    unfused_games(
        1, 0.1, small.weights, small.cells, np.random.default_rng(0), moves, rewards
    )
    best, final, updates = {}, {}, 0
    for _ in range(repeats):
        for name, fn in (("fused", fused), ("unfused", unfused)):
            w = model.weights.copy()
            t0 = time.process_time()
            updates = int(fn(w, np.random.default_rng(seed)))
            rate = updates / max(time.process_time() - t0, 1e-9)
            best[name] = max(best.get(name, 0.0), rate)
            final[name] = w
    if not np.array_equal(final["fused"], final["unfused"]):
        raise AssertionError("the fused and unfused loops learned different weights")
    return {**best, "updates": updates, "games": games, "from": model.meta["games"]}


#: The ablation: each row adds one piece of the default 2048 recipe (rates: 0.1 for
#: TD(0), 1.0 with TC, as ziap/2048-tdl and TDL2048+ use).
ABLATION = {
    "TD(0)": {"tc": False, "lam": 0.0, "restarts": False},
    "+TC": {"tc": True, "lam": 0.0, "restarts": False},
    "+lambda 0.5": {"tc": True, "lam": 0.5, "restarts": False},
    "+restarts (default)": {"tc": True, "lam": 0.5, "restarts": True},
}
ZIAP_TRAIN = ("train", "-a", "1.0", "-l", "0.5", "-c", "-r", "-o")


def _child_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_ziap(directory, games: int) -> dict:
    """Train ziap/2048-tdl (built in ``directory`` as its HOW-TO-BUILD.md says) for
    ``games`` games (a multiple of 1000) with TD(0.5), TC and restarts, then 1,000
    greedy games of its own; CPU seconds of each (user + sys of the child)."""
    import re
    import subprocess

    def run(*args):
        t0 = _child_cpu()
        text = subprocess.run(
            ["./2048", *args], cwd=directory, capture_output=True, text=True, check=True
        ).stdout
        return text, _child_cpu() - t0

    _, train_cpu = run(*ZIAP_TRAIN[:1], "-e", str(games // 1000), *ZIAP_TRAIN[1:])
    text, eval_cpu = run("agent", "-e", "1000")
    rates = {
        int(t): round(float(p) / 100, 4)
        for t, p in re.findall(r"(\d+)\s+([\d.]+)%", text)
    }
    return {
        "command": f"./2048 train -e {games // 1000} " + " ".join(ZIAP_TRAIN[1:]),
        "eval_command": "./2048 agent -e 1000",
        "train_games": games,
        "train_cpu_seconds": round(train_cpu, 2),
        "eval_games": 1000,
        "eval_score_mean": float(re.findall(r"avg:\s+(\d+)", text)[-1]),
        "eval_cpu_seconds": round(eval_cpu, 2),
        "reached": {str(t): rates[t] for t in sorted(rates) if t >= 2048},
    }


#: TDL2048+ (moporgic/TDL2048+), whose source the project keeps beside its tree, and
#: where its build lives (outside the tree).
TDL_SOURCE = Path(__file__).resolve().parents[3] / "shared" / "peers" / "tdl2048plus"
TDL_BUILD = Path.home() / ".cache" / "playahead" / "peers" / "tdl2048plus"
TDL_NET = ("-n", "4x6patt")
TDL_TD0 = ("-s", "1")
TDL_RECIPE = ("-a", "1.0", "-l", "0.5", "-tt", "restart", "-s", "1")
TDL_SAVE = ("-o", "r.w")
TDL_EVAL = ("-e", "1x1000", "-i", "r.w", "-s", "7")


def build_tdl(source=TDL_SOURCE, build=TDL_BUILD) -> Path | None:
    """The TDL2048+ binary built in ``build`` from ``source`` with its
    HOW-TO-BUILD.md line (a copy of the source, then ``make``), or the one already
    there; None if neither exists."""
    import shutil
    import subprocess

    binary = Path(build) / "2048"
    if binary.is_file():
        return binary
    if not Path(source).is_dir():
        return None
    shutil.copytree(source, build, dirs_exist_ok=True)
    subprocess.run(["make"], cwd=build, check=True, capture_output=True)
    return binary


def _tdl_moves(text: str) -> int:
    """Moves TDL2048+ played: the sum over its ``NNN/NNN <ms>ms <ops>ops`` block
    lines of milliseconds times moves per second."""
    import re

    blocks = re.findall(r"^\d+/\d+ (\d+)ms ([\d.]+)ops", text, re.M)
    return round(sum(int(ms) * float(ops) / 1000 for ms, ops in blocks))


#: Rounds of the TD(0) comparison (:func:`against_tdl`).
TD0_ROUNDS = 5


def _tdl_child(binary, work, *args) -> tuple[str, float]:
    """TDL2048+ (its 4 x 6-tuples) run in ``work`` with ``args``: its output and the
    CPU seconds of the child (user + sys, its start-up included)."""
    import subprocess

    t0 = _child_cpu()
    text = subprocess.run(
        [str(binary), *TDL_NET, *args],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return text, _child_cpu() - t0


def tdl_td0(binary, games: int) -> tuple[str, float]:
    """TDL2048+'s TD(0) on ``games`` games (a multiple of 1000): its output and the
    CPU seconds of the child."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-tdl-") as work:
        return _tdl_child(binary, work, "-t", f"{games // 1000}x1000", *TDL_TD0)


def run_tdl(binary, games: int) -> dict:
    """TDL2048+ on 2048 (its 4 x 6-tuples): ``games`` (a multiple of 1000) of TD(0),
    and of TC + TD(0.5) + restarts, CPU seconds of each child (user + sys, its
    start-up included); then the second again with ``-o r.w`` (its 268 MB weight
    file takes seconds to write, which ours leaves out of its clock too) and 1,000
    greedy games of that net."""
    import re
    import tempfile

    def run(*args):
        return _tdl_child(binary, work, *args)

    train = ("-t", f"{games // 1000}x1000")
    with tempfile.TemporaryDirectory(prefix="bench-tdl-") as work:
        td0, td0_cpu = tdl_td0(binary, games)
        recipe, recipe_cpu = run(*train, *TDL_RECIPE)
        _, saved_cpu = run(*train, *TDL_RECIPE, *TDL_SAVE)
        text, eval_cpu = run(*TDL_EVAL)
    score = float(re.findall(r"total:\s+avg=(\d+)", text)[-1])
    rates = re.findall(r"^(\d+)\s+\d+\s+\d+\s+\d+\s+([\d.]+)%", text, re.M)
    head = ("./2048",) + TDL_NET + train
    return {
        "td0": {
            "command": " ".join(head + TDL_TD0),
            "games": games,
            "moves": _tdl_moves(td0),
            "cpu_seconds": round(td0_cpu, 2),
            "cpu_seconds_runs": [round(td0_cpu, 2)],
        },
        "recipe": {
            "command": " ".join(head + TDL_RECIPE),
            "games": games,
            "moves": _tdl_moves(recipe),
            "cpu_seconds": round(recipe_cpu, 2),
            "saved_cpu_seconds": round(saved_cpu, 2),
        },
        "eval": {
            "command": " ".join(("./2048",) + TDL_NET + TDL_EVAL),
            "games": 1000,
            "score_mean": score,
            "cpu_seconds": round(eval_cpu, 2),
            "tile_rates": {t: round(float(r) / 100, 4) for t, r in rates},
        },
    }


def against_tdl(runs, games: int, seed: int, tdl: dict | None, binary=None) -> dict:
    """Ours beside TDL2048+ (``tdl``, :func:`run_tdl`, or None): ``games`` of TD(0)
    (rate 0.1) and of the default recipe, each from zeros with ``seed``, CPU seconds
    of the training kernel (compiling outside the clock); the recipe's net played
    greedily on 1,000 held-out games. TD(0) twice: online (each afterstate learned
    once the next move is chosen, the order of TDL2048+'s ``-t`` default) and in the
    backward pass after each game (TDL2048-Demo's order).

    TD(0) takes seconds a run, so the machine's speed of the moment weighs on one
    run: with ``binary`` (TDL2048+'s), TD(0) runs :data:`TD0_ROUNDS` times, TDL2048+,
    ours online and ours backward in turn, and each side's least CPU counts (every
    run's CPU is kept, ``cpu_seconds_runs``); the same seed learns the same net every
    time."""
    td0 = ABLATION["TD(0)"]
    ours = {}
    for r in range(TD0_ROUNDS if binary is not None else 1):
        if r and tdl is not None:
            tdl["td0"]["cpu_seconds_runs"].append(tdl_td0(binary, games)[1])
        for key, extra in (("td0_online", {"online": True}), ("td0", {})):
            out = runs / f"tdl-{key}-{r}"
            curve = learning_curve(out, games, games, 100, seed, **td0, **extra)
            ours.setdefault(key, curve)
            ours[key]["final"].setdefault("cpu_seconds_runs", [])
            ours[key]["final"]["cpu_seconds_runs"].append(curve["final"]["cpu_seconds"])
    for side in [ours["td0_online"]["final"], ours["td0"]["final"]] + (
        [tdl["td0"]] if tdl is not None else []
    ):
        side["cpu_seconds"] = min(side["cpu_seconds_runs"])
    ours["recipe"] = learning_curve(runs / "tdl-recipe", games, games, 1000, seed)
    return {"ours": ours, "tdl2048plus": tdl}


def _tdl_report(report: Report, run: dict) -> None:
    recipe, tdl = run["ours"]["recipe"]["final"], run["tdl2048plus"]
    name = "TDL2048+"
    theirs = tdl["td0"]["moves"] / tdl["td0"]["cpu_seconds"] if tdl else None
    for key, what in (("td0_online", "online"), ("td0", "backward")):
        td0 = run["ours"][key]["final"]
        rate = td0["updates"] / td0["cpu_seconds"]
        report.add("2048", f"TD(0) {what}: moves / CPU s", rate, name, theirs, 1.0)
    games = recipe["games"]
    report.add(
        "2048",
        f"recipe: {games:,} games / CPU s (ours {recipe['cpu_seconds']:.1f} s"
        + (f", theirs {tdl['recipe']['cpu_seconds']:.1f} s)" if tdl else ")"),
        games / recipe["cpu_seconds"],
        name,
        games / tdl["recipe"]["cpu_seconds"] if tdl else None,
        0.71,  # 1 / 1.4
    )
    low, high = recipe["ci95"]
    report.add(
        "2048",
        f"recipe: greedy mean, 1,000 games (ours [{low:,.0f}, {high:,.0f}])",
        recipe["score_mean"],
        name,
        tdl["eval"]["score_mean"] if tdl else None,
    )


def measure_workers(warm: int, games: int) -> dict:
    """Wall-clock speed-up of two trainer threads (``--workers 2``, racing over one
    net) on the default recipe: the net after ``warm`` games with seed 0, then
    ``games`` more with one worker and with two from that same net (twice each, the
    best of each counts), TD updates per wall second."""
    from playahead.ntuple.train import _Trainer, rules

    model = NTupleModel.new("2048-v0", DEFAULT_PATTERNS)
    tc_e, tc_a = np.zeros_like(model.weights), np.zeros_like(model.weights)
    tables = (k.pattern_runs(model.cells), *rules(model))
    rest = (tc_e, tc_a, model.stage_ranks, *td.NO_STARTS, 0.0)
    trainer = _Trainer(model, (1.0, 0.5, True, False), tables, rest)
    rng = np.random.default_rng(0)
    trainer(0, rng, 1)  # compiles
    trainer(warm, rng, 1)
    start = trainer.packed.copy()
    best = {}
    for workers in (1, 2, 1, 2):
        trainer.packed[...] = start
        wall, cpu = time.perf_counter(), time.process_time()
        _, updates = trainer(games, np.random.default_rng(1), workers)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        run = {
            "games": games,
            "updates": int(updates),
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "updates_per_wall_s": round(updates / wall),
            "updates_per_cpu_s": round(updates / cpu),
        }
        if run["updates_per_wall_s"] > best.get(workers, {}).get(
            "updates_per_wall_s", 0
        ):
            best[workers] = run
    speedup = best[2]["updates_per_wall_s"] / best[1]["updates_per_wall_s"]
    return {"warm_games": warm, "runs": best, "speedup": round(speedup, 3)}


def learning_curve(
    out, games: int, every: int, eval_games: int, seed: int = 0, **recipe
) -> dict:
    """Train the 2048 default net (or ``recipe``: ``tc``, ``lam``, ``restarts``,
    ``lr``) into ``out`` with a greedy evaluation on ``eval_games`` held-out games
    every ``every`` games; returns the rows of ``progress.csv`` (greedy mean against
    games, TD updates and training CPU seconds) and the last net's per-game scores."""
    import csv

    from playahead.ntuple.train import EVAL_SEED_BASE, evaluate, train_ntuple

    train_ntuple(
        "2048-v0",
        games,
        out,
        seed=seed,
        eval_every=every,
        eval_games=eval_games,
        progress=False,
        tensorboard=False,
        **recipe,
    )
    with open(f"{out}/progress.csv") as f:
        rows = [
            {k: float(v) if "." in v else int(v) for k, v in row.items()}
            for row in csv.DictReader(f)
        ]
    model = load_model(out)
    scores = evaluate(model, eval_games)[:, 0]
    mean = float(scores.mean())
    half = 1.96 * float(scores.std(ddof=1)) / np.sqrt(len(scores))
    return {
        "recipe": {
            k: model.meta[k]
            for k in ("lr", "tc", "lambda", "restarts", "online")
            if k in model.meta
        },
        "seed": seed,
        "rows": rows,
        "eval_first_seed": EVAL_SEED_BASE,
        "final": {
            "games": games,
            "score_mean": mean,
            "ci95": [mean - half, mean + half],
            "cpu_seconds": model.meta["cpu_seconds"],
            "updates": model.meta["updates"],
            "scores": [int(x) for x in scores],
        },
    }


def _curve_report(report: Report, curve: dict, ziap: dict | None) -> None:
    for row in curve["rows"]:
        report.add(
            "2048",
            f"greedy mean at {row['games']:,} games, {row['cpu_seconds']:.0f} CPU s",
            row["eval_score_mean"],
        )
    last = curve["rows"][-1]
    report.add(
        "2048", "TD updates / CPU s (recipe)", last["updates"] / last["cpu_seconds"]
    )
    if ziap is None:
        return
    at = [r for r in curve["rows"] if r["games"] == ziap["train_games"]]
    if at:
        row = at[0]
        report.add(
            "2048",
            f"greedy mean at {row['games']:,} games",
            row["eval_score_mean"],
            "ziap/2048-tdl",
            ziap["eval_score_mean"],
        )
        report.add(
            "2048",
            f"training games per CPU s to {row['games']:,}",
            row["games"] / row["cpu_seconds"],
            "ziap/2048-tdl",
            ziap["train_games"] / ziap["train_cpu_seconds"],
        )


def main(argv: list[str] | None = None) -> Report:
    """Measure and return the report (``python -m benchmarks ntuple``)."""
    import json
    import shlex
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=WARMUP)
    parser.add_argument("--start", default=None, help="a saved 2048 model directory")
    parser.add_argument(
        "--curve-games", type=int, default=1000, help="learning curve: games (0: none)"
    )
    parser.add_argument("--curve-every", type=int, default=500)
    parser.add_argument("--curve-eval", type=int, default=100, help="held-out games")
    parser.add_argument("--seed", type=int, default=0, help="training seed")
    parser.add_argument(
        "--ziap", default=None, help="a built ziap/2048-tdl directory to measure first"
    )
    parser.add_argument("--ziap-games", type=int, default=6000)
    parser.add_argument(
        "--tdl",
        default=str(TDL_SOURCE),
        help="TDL2048+'s source, built outside the tree (default: the project's copy)",
    )
    parser.add_argument(
        "--tdl-games", type=int, default=6000, help="TDL2048+ comparison (0: none)"
    )
    parser.add_argument(
        "--ablation", type=int, default=0, help="games of each ablation run (0: none)"
    )
    parser.add_argument(
        "--workers-games",
        type=int,
        default=0,
        help="two workers' speed-up over this many games (0: none)",
    )
    parser.add_argument("--record", default=None, help="directory for JSON records")
    parser.add_argument("--runs", default=None, help="directory for the training runs")
    args = parser.parse_args([] if argv is None else argv)
    runs = Path(args.runs or tempfile.mkdtemp(prefix="bench-ntuple-"))
    command = "python -m benchmarks.speed.bench_ntuple " + shlex.join(
        {"--ziap": "ZIAP_DIR", "--tdl": "TDL_DIR"}.get(prev, a)
        for prev, a in zip(["", *(argv or [])], argv or [], strict=False)
        if prev not in ("--runs", "--record") and a not in ("--runs", "--record")
    )
    if args.record:
        Path(args.record).mkdir(parents=True, exist_ok=True)
    report = Report("n-tuple TD on 2048")
    if args.tdl_games:
        binary = build_tdl(Path(args.tdl))
        if binary is None:
            print(f"TDL2048+: no source at {args.tdl}; measuring ours alone")
        tdl = run_tdl(binary, args.tdl_games) if binary else None
        run = against_tdl(runs, args.tdl_games, args.seed, tdl, binary)
        _tdl_report(report, run)
        if args.record:
            path = Path(args.record) / f"tdl-{args.tdl_games}.json"
            path.write_text(json.dumps({"command": command, **run}, indent=1) + "\n")
    if args.curve_games:
        ziap = run_ziap(args.ziap, args.ziap_games) if args.ziap else None
        curve = learning_curve(
            runs / "curve",
            args.curve_games,
            args.curve_every,
            args.curve_eval,
            args.seed,
        )
        _curve_report(report, curve, ziap)
        if args.record:
            record = {"command": command, "ours": curve, "ziap": ziap}
            path = Path(args.record) / f"curve-{args.curve_games}.json"
            path.write_text(json.dumps(record, indent=1) + "\n")
    if args.ablation:
        rows = {}
        for name, recipe in ABLATION.items():
            if args.curve_games == args.ablation and name.endswith("(default)"):
                rows[name] = curve  # the learning curve's run is this one
                continue
            rows[name] = learning_curve(
                runs / f"ablation-{len(rows)}",
                args.ablation,
                args.ablation,
                args.curve_eval,
                args.seed,
                **recipe,
            )
        for name, run in rows.items():
            final = run["final"]
            report.add(
                "2048",
                f"{name}: greedy at {args.ablation:,} games "
                f"[{final['ci95'][0]:,.0f}, {final['ci95'][1]:,.0f}], "
                f"{final['cpu_seconds']:.0f} CPU s",
                final["score_mean"],
            )
        if args.record:
            record = {"command": command, "runs": rows}
            path = Path(args.record) / f"ablation-{args.ablation}.json"
            path.write_text(json.dumps(record, indent=1) + "\n")
    if args.workers_games:
        speed = measure_workers(2000, args.workers_games)
        report.add(
            "2048",
            "recipe: TD updates / wall s, 2 workers (baseline: 1)",
            speed["runs"][2]["updates_per_wall_s"],
            "1 worker",
            speed["runs"][1]["updates_per_wall_s"],
        )
        if args.record:
            path = Path(args.record) / f"workers-{args.workers_games}.json"
            path.write_text(json.dumps({"command": command, **speed}, indent=1) + "\n")
    r = measure(args.games, args.repeats, args.start, warmup=args.warmup)
    report.title = (
        f"n-tuple TD on 2048; update rate of TD(0): {r['updates']:,} updates over "
        f"{r['games']} games from a net after {r['from']:,} games, best of "
        f"{args.repeats}"
    )
    report.add("2048", "TD updates / CPU s", r["fused"], "unfused loop", r["unfused"])
    for rate in CPP_RATES:
        report.add("2048", "TD updates / CPU s", r["fused"], "C++ (issue 10)", rate)
    return report


if __name__ == "__main__":
    import sys

    main(sys.argv[1:]).print()
