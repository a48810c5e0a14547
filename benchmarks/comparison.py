"""Search against learning on the same seeded games, with what each learned agent cost.

    python -m benchmarks comparison --env Threes-v0 [--games 50] [--workers 1]
    python -m benchmarks comparison --env 2048-v0 --list

Plays every agent of :data:`AGENTS` for the env through
:func:`playahead.evaluate.evaluate` (store ``runs/comparison/<env>.sqlite``: re-running
resumes, and agents added later play only their own games), then writes
``benchmarks/results/comparison/<env>.json`` (the evaluator's JSON: every game of every
agent, paired bootstrap differences) and ``<env>.md``: one row per agent with its mean,
95% CI, reach rates, thinking time, the paired difference against greedy, and for a
learned agent its training budget and cost.

The learned agents load from run directories under ``runs/`` that the listed
``playahead train`` commands rebuild (same seed, same network); an agent whose run is
missing is left out with the command that builds it. Training cost is read from the
run: ``model.json`` of an n-tuple net, ``cost.json`` of an SB3 run (CPU seconds of the
training process); an SB3 run from before costs were recorded gives the wall-clock span
of its TensorBoard log instead, marked as such (an upper bound on a shared machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from benchmarks.common import evaluate_command

RESULTS = Path(__file__).parent / "results" / "comparison"
STORES = Path("runs") / "comparison"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One agent of the comparison; ``run`` and ``train`` for a learned one."""

    label: str
    spec: str
    run: str | None = None
    train: str | None = None


#: The reward-shaped MaskablePPO run on 2048 (the cited agent's terms and PPO
#: settings, see playahead/train/shaping.py), as a file of overrides.
SHAPED_2048 = "--conf benchmarks/results/deeprl/ppo-2048-shaped.yml"
#: The same with a padded first convolution in the encoder.
SHAPED_PADDED_2048 = "--conf benchmarks/results/deeprl/ppo-2048-shaped-padded.yml"


#: The 6M-game Threes net split into stages at 384 and 768, trained to 8M games.
THREES_SPLIT = "runs/threes-nt-6m-split"
TRAIN_THREES_SPLIT = (
    f"cp -r runs/threes-nt-6m {THREES_SPLIT} (the plain 6M-game net); "
    "playahead train ntuple --env Threes-v0 --games 8000000 --seed 0 "
    "--resume --stages 384,768 --eval-every 200000 --eval-games 100 "
    f"--out {THREES_SPLIT}"
)
#: The split net trained on to 9.5M games at a quarter of the learning rate.
THREES_TUNED = "runs/threes-nt-split-lr025"
TRAIN_THREES_TUNED = (
    f"cp -r {THREES_SPLIT} {THREES_TUNED} (the split net at 8M games); "
    "playahead train ntuple --env Threes-v0 --games 9500000 --seed 0 --resume "
    f"--lr 0.025 --eval-every 250000 --eval-games 100 --out {THREES_TUNED}"
)


def _deep(env: str, label: str, algo: str, run: str, steps: int, extra: str = ""):
    """A deep-RL agent of ``playahead train ALGO`` (seed 0) in ``run``."""
    train = f"playahead train {algo} --env {env} --steps {steps} --seed 0 --out {run}"
    return Entry(label, f"{algo}:path={run}/model.zip", run, f"{train} {extra}".strip())


def _learned(env: str, net: str, *deep: Entry) -> list[Entry]:
    """The learned agents: an n-tuple net (greedy, and as expectimax leaves), then
    the deep-RL ones."""
    net_cmd = {
        "Threes-v0": (
            f"playahead train ntuple --env {env} --games 200000 --seed 0 "
            f"--eval-every 20000 --eval-games 100 --out {net}, then --games 2000000, "
            f"then --games 6000000 --eval-every 500000, each with --resume"
        ),
        "2048-v0": (
            f"playahead train ntuple --env {env} --games 100000 --seed 0 "
            "--no-tc --lambda 0 --no-restarts "
            f"--eval-every 10000 --eval-games 100 --out {net}"
        ),
    }[env]
    leaf = f"evaluator=ntuple:path={net}"
    return [
        Entry("n-tuple TD, greedy", f"ntuple:path={net}", net, net_cmd),
        Entry(
            "expectimax depth 1, n-tuple leaves",
            f"expectimax:depth=1,{leaf}",
            net,
            net_cmd,
        ),
        Entry(
            "expectimax depth 2, n-tuple leaves",
            f"expectimax:depth=2,{leaf}",
            net,
            net_cmd,
        ),
        *deep,
    ]


AGENTS: dict[str, list[Entry]] = {
    "Threes-v0": [
        Entry("random", "random"),
        Entry("greedy (one move, score)", "greedy"),
        Entry("flat Monte Carlo, 1000 rollouts", "mc:n_rollouts=1000"),
        Entry("MCTS, 2000 simulations", "mcts:n_simulations=2000"),
        Entry("expectimax depth 1, tuned features", "expectimax:depth=1"),
        Entry("expectimax depth 2, tuned features", "expectimax:depth=2"),
        *_learned(
            "Threes-v0",
            "runs/threes-nt-6m",
            Entry(
                "n-tuple TD, greedy, split into 3 stages at 6M games",
                f"ntuple:path={THREES_SPLIT}",
                THREES_SPLIT,
                TRAIN_THREES_SPLIT,
            ),
            Entry(
                "n-tuple TD, greedy, the split net at 9.5M games, lr 0.025 from 8M",
                f"ntuple:path={THREES_TUNED}",
                THREES_TUNED,
                TRAIN_THREES_TUNED,
            ),
            _deep("Threes-v0", "MaskablePPO", "ppo", "runs/threes-ppo-10m", 10**7),
            _deep("Threes-v0", "masked DQN", "dqn", "runs/threes-dqn-1m", 10**6),
            _deep("Threes-v0", "masked DQN", "dqn", "runs/threes-dqn-10m", 10**7),
        ),
    ],
    "2048-v0": [
        Entry("random", "random"),
        Entry("greedy (one move, score)", "greedy"),
        Entry("flat Monte Carlo, 200 rollouts", "mc:n_rollouts=200"),
        Entry("MCTS, 200 simulations", "mcts:n_simulations=200"),
        Entry("expectimax depth 1, monotonic", "expectimax:depth=1"),
        Entry("expectimax depth 2, monotonic", "expectimax:depth=2"),
        *_learned(
            "2048-v0",
            "runs/2048-nt-100k",
            _deep("2048-v0", "MaskablePPO", "ppo", "runs/2048-ppo-10m", 10**7),
            _deep(
                "2048-v0",
                "MaskablePPO, shaped reward",
                "ppo",
                "runs/2048-ppo-shaped-10m",
                10**7,
                SHAPED_2048,
            ),
            _deep(
                "2048-v0",
                "MaskablePPO, shaped reward, padded encoder",
                "ppo",
                "runs/2048-ppo-shaped-p1",
                10**7,
                SHAPED_PADDED_2048,
            ),
            _deep("2048-v0", "masked DQN", "dqn", "runs/2048-dqn-1m", 10**6),
        ),
    ],
}


def training_cost(run: str | Path) -> dict | None:
    """``{"budget", "cpu_minutes" or "wall_minutes", "note"}`` of a run directory, or
    None when it holds nothing to read."""
    run = Path(run)
    meta = run / "model.json"
    if meta.is_file():  # an n-tuple net
        m = json.loads(meta.read_text())
        return {
            "budget": f"{m['games']:,} games",
            "cpu_minutes": m["cpu_seconds"] / 60,
            "note": "",
        }
    cost = run / "cost.json"
    if cost.is_file():
        c = json.loads(cost.read_text())
        return {
            "budget": f"{c['steps']:,} steps",
            "cpu_minutes": c["cpu_seconds"] / 60,
            "note": "" if c.get("complete", True) else "at least",
        }
    config = run / "config.json"
    if config.is_file():
        steps = json.loads(config.read_text()).get("steps")
        wall = _tensorboard_span(run / "tb")
        if wall is not None:
            return {
                "budget": f"{steps:,} steps" if steps else "",
                "wall_minutes": wall / 60,
                "note": "wall-clock",
            }
    return None


def _tensorboard_span(folder: Path) -> float | None:
    """Seconds from the first to the last event of the TensorBoard logs under
    ``folder``."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import (
            EventAccumulator,
        )
    except ImportError:
        return None
    first, last = None, None
    for path in sorted(folder.rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(path), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags().get("scalars", []):
            for event in acc.Scalars(tag):
                first = (
                    event.wall_time if first is None else min(first, event.wall_time)
                )
                last = event.wall_time if last is None else max(last, event.wall_time)
    return None if first is None else last - first


def available(env: str) -> tuple[list[Entry], list[Entry]]:
    """(entries whose run exists or that need none, entries left out)."""
    have, missing = [], []
    for e in AGENTS[env]:
        exists = e.run is None or Path(e.run).exists()
        (have if exists else missing).append(e)
    return have, missing


def run(
    env: str,
    n_games: int = 50,
    seed: int = 0,
    workers: int = 1,
    stores: Path = STORES,
    results: Path = RESULTS,
    progress: bool = True,
) -> Path:
    """Play (or resume) the comparison; returns the Markdown file written."""
    from playahead.evaluate import evaluate

    entries, missing = available(env)
    for e in missing:
        print(
            f"left out {e.spec}: no {e.run} (build it with: {e.train})", file=sys.stderr
        )
    stores.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    store = stores / f"{env}.sqlite"
    report = evaluate(
        env,
        [e.spec for e in entries],
        n_games,
        seed,
        store=store,
        workers=workers,
        progress=progress,
    )
    data = report.to_dict()
    data["command"] = evaluate_command(
        env, [e.spec for e in entries], n_games, seed, store
    )
    data["training"] = {
        e.spec: {"run": e.run, "command": e.train, "cost": training_cost(e.run)}
        for e in entries
        if e.run is not None
    }
    (results / f"{env}.json").write_text(json.dumps(data, indent=1) + "\n")
    path = results / f"{env}.md"
    path.write_text(markdown(env, entries, data))
    return path


def _cost_cell(cost: dict | None) -> str:
    if cost is None:
        return ""
    if "cpu_minutes" in cost:
        value = f"{cost['cpu_minutes']:,.1f} CPU min"
    else:
        value = f"{cost['wall_minutes']:,.0f} min wall-clock"
    prefix = f"{cost['note']} " if cost["note"] == "at least" else ""
    return f"{cost['budget']}, {prefix}{value}"


def markdown(env: str, entries: list[Entry], data: dict) -> str:
    """The comparison table: one row per agent, in :data:`AGENTS` order."""
    by_spec = {a["spec"]: a for a in data["agents"]}
    pairs = {(p["a"], p["b"]): p for p in data["pairs"]}
    tiles = [t for t in data["milestones"]][-4:]
    head = (
        "| agent | spec | mean | 95% CI | median | "
        + " | ".join(f">={t}" for t in tiles)
        + " | ms/move | vs greedy (paired, 95% CI) | training |"
    )
    lines = [
        f"**{env}: {data['n_games']} seeded games per agent, seed {data['seed']}**",
        "",
        f"    {data['command']}",
        "",
        head,
        "|---|---|---:|---:|---:|" + "---:|" * len(tiles) + "---:|---:|---|",
    ]
    for e in entries:
        a = by_spec[e.spec]
        vs = ""
        if e.spec != "greedy":
            p = pairs.get((e.spec, "greedy")) or pairs.get(("greedy", e.spec))
            if p is not None:
                sign = 1 if p["a"] == e.spec else -1
                d = sign * p["mean_difference"]
                lo, hi = sorted(sign * x for x in p["ci95"])
                vs = f"{d:+,.0f} [{lo:,.0f}, {hi:,.0f}]"
        cost = (data["training"].get(e.spec) or {}).get("cost")
        reach = " | ".join(f"{100 * a['milestones'][str(t)]:.0f}%" for t in tiles)
        lines.append(
            f"| {e.label} | `{e.spec}` | {a['mean']:,.0f} | "
            f"[{a['ci95'][0]:,.0f}, {a['ci95'][1]:,.0f}] | {a['median']:,.0f} | "
            f"{reach} | {_ms(a['seconds_per_move'])} | {vs} | "
            f"{_cost_cell(cost)} |"
        )
    runs = {e.run: e for e in entries if e.train}  # one line per run, not per agent
    if runs:
        lines += ["", "Training commands (same seed, same network):", ""]
        lines += [f"- `{e.run}`: `{e.train}`" for e in runs.values()]
    return "\n".join(lines) + "\n"


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2g}" if ms < 1 else f"{ms:.1f}" if ms < 10 else f"{ms:,.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks comparison",
        description="search against learning on the same seeded games",
    )
    parser.add_argument("--env", choices=sorted(AGENTS), required=True)
    parser.add_argument("--games", type=int, default=50, help="games per agent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--list", action="store_true", help="list the agents")
    args = parser.parse_args(argv)
    if args.list:
        for e in AGENTS[args.env]:
            print(f"{e.spec:60} {e.label}")
        return
    print(run(args.env, args.games, args.seed, args.workers))


if __name__ == "__main__":
    main()
