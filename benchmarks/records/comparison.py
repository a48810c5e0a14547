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
``playahead train`` commands rebuild (same seed, same network). Training cost is read
from the run: ``model.json`` of an n-tuple net, ``cost.json`` of an SB3 run (CPU
seconds of the training process); an SB3 run from before costs were recorded gives the
wall-clock span of its TensorBoard log instead, marked as such (an upper bound on a
shared machine).

Resuming from the committed record: a run first reads the committed ``<env>.json``. If
it holds the same number of games per agent and the same seed as asked, an agent whose
games it holds is kept, not replayed: when its fingerprint there (``identities``: spec
-> ``{"identity", "fingerprint"}``, the agent's resolved options, playahead's version
and the sha256 of a net it loads, as :mod:`benchmarks.records.strength` records them) is
today's agent's; when its run directory is absent on this machine, so that no
fingerprint can be computed (then its committed training cost is kept too, and the run
says so); and when the record names no fingerprint for it (a file written before
fingerprints, whose agents are kept by spec string until their entry is removed from the
file). An agent of another fingerprint plays again, and the run says what differs. Only
the agents without kept games play (from the store if it has them); an agent with
neither kept games nor a run directory is left out with the command that builds it. The
pairwise comparisons are computed again over all the agents' per-game scores
(:func:`playahead.evaluate.summary.pairwise`: the same numbers for the same games). A
record of another games count or seed is not reused: the run says so and writes the file
anew from the games it plays."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path

from benchmarks.common import evaluate_command, record_identity

RESULTS = Path(__file__).resolve().parent.parent / "results" / "comparison"
STORES = Path("runs") / "comparison"
#: Bootstrap resamples of every interval (the evaluator's default).
N_RESAMPLES = 2000


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


#: The 2048 net of the old recipe: TDL2048's backward TD(0), one learning rate.
NET_2048_TD0 = "runs/2048-nt-100k"
TRAIN_2048_TD0 = (
    f"playahead train ntuple --env 2048-v0 --games 100000 --seed 0 "
    "--no-tc --lambda 0 --no-restarts "
    f"--eval-every 10000 --eval-games 100 --out {NET_2048_TD0}"
)
#: The 2048 net of the default recipe: backward TD(lambda=0.5), temporal coherence
#: and restarts.
NET_2048 = "runs/2048-nt-20k"
TRAIN_2048 = (
    f"playahead train ntuple --env 2048-v0 --games 20000 --seed 0 "
    f"--eval-every 5000 --eval-games 100 --out {NET_2048}"
)
TRAIN_THREES = (
    "playahead train ntuple --env Threes-v0 --games 200000 --seed 0 "
    "--eval-every 20000 --eval-games 100 --out runs/threes-nt-6m, then --games "
    "2000000, then --games 6000000 --eval-every 500000, each with --resume"
)


def _ntuple(net: str, train: str, recipe: str = "", ply: str = "") -> list[Entry]:
    """An n-tuple net's agents: greedy, and as the leaves of expectimax at depths 1
    and 2. ``recipe`` names the training recipe in the labels, ``ply`` what depth 2
    is called besides (on 2048 the root move and two rounds of chance and move are
    what the literature calls 3-ply)."""
    td = f"n-tuple {recipe}" if recipe else "n-tuple TD"
    leaves = f"n-tuple leaves, {recipe}" if recipe else "n-tuple leaves"
    leaf = f"evaluator=ntuple:path={net}"
    return [
        Entry(f"{td}, greedy", f"ntuple:path={net}", net, train),
        Entry(
            f"expectimax depth 1, {leaves}", f"expectimax:depth=1,{leaf}", net, train
        ),
        Entry(
            f"expectimax depth 2{ply}, {leaves}",
            f"expectimax:depth=2,{leaf}",
            net,
            train,
        ),
    ]


AGENTS: dict[str, list[Entry]] = {
    "Threes-v0": [
        Entry("random", "random"),
        Entry("greedy (one move, score)", "greedy"),
        Entry("flat Monte Carlo, 1000 rollouts", "mc:n_rollouts=1000"),
        Entry("MCTS, 2000 simulations", "mcts:n_simulations=2000"),
        Entry(
            "expectimax depth 1, tuned features",
            "expectimax:depth=1,evaluator=features",
        ),
        Entry(
            "expectimax depth 2, tuned features",
            "expectimax:depth=2,evaluator=features",
        ),
        *_ntuple("runs/threes-nt-6m", TRAIN_THREES),
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
    ],
    "2048-v0": [
        Entry("random", "random"),
        Entry("greedy (one move, score)", "greedy"),
        Entry("flat Monte Carlo, 200 rollouts", "mc:n_rollouts=200"),
        Entry("MCTS, 200 simulations", "mcts:n_simulations=200"),
        Entry(
            "expectimax depth 1, monotonic", "expectimax:depth=1,evaluator=monotonic"
        ),
        Entry(
            "expectimax depth 2, monotonic", "expectimax:depth=2,evaluator=monotonic"
        ),
        *_ntuple(NET_2048_TD0, TRAIN_2048_TD0, "TD(0)", " (3-ply)"),
        *_ntuple(NET_2048, TRAIN_2048, "TD(lambda)+TC+restarts", " (3-ply)"),
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
        (missing if _absent(e) else have).append(e)
    return have, missing


def _absent(e: Entry) -> bool:
    """Whether ``e`` loads a run directory that this machine does not have."""
    return e.run is not None and not Path(e.run).exists()


def _unfinished(e: Entry) -> str | None:
    """Why the n-tuple net of ``e`` is not the one its command builds (fewer games
    than the command's last ``--games``: still training), or None."""
    meta = Path(e.run or "") / "model.json"
    wanted = re.findall(r"--games (\d+)", e.train or "")
    if not (meta.is_file() and wanted):
        return None
    games = json.loads(meta.read_text())["games"]
    if games >= int(wanted[-1]):
        return None
    return (
        f"{e.run} holds a net of {games:,} games, its command trains "
        f"{int(wanted[-1]):,} (still training?)"
    )


@dataclasses.dataclass
class Kept:
    """An agent's entries in the committed record: its summary, training and
    identity (``{"identity", "fingerprint"}``; None in a file from before them)."""

    agent: dict
    training: dict | None
    identity: dict | None


def committed(
    env: str, n_games: int, seed: int, results: Path = RESULTS
) -> tuple[dict[str, Kept], list[str]]:
    """``(kept agents by spec, notes)``: the agents of :data:`AGENTS` whose games
    the committed ``<env>.json`` holds and this run keeps (see the module
    docstring), and one line for each kept or not reused."""
    from playahead.evaluate.store import fingerprint, identity_difference

    path = results / f"{env}.json"
    if not path.is_file():
        return {}, []
    data = json.loads(path.read_text())
    if (data.get("n_games"), data.get("seed")) != (n_games, seed):
        return {}, [
            f"{path.name} holds {data.get('n_games')} games per agent with seed "
            f"{data.get('seed')}, this run asks for {n_games} with seed {seed}: not "
            "reused (the file is written anew from the games played now)"
        ]
    agents = {a["spec"]: a for a in data.get("agents", [])}
    identities = data.get("identities", {})
    kept, notes, by_spec = {}, [], []
    for e in AGENTS[env]:
        a = agents.get(e.spec)
        if a is None or a.get("games") != n_games:
            continue
        old = identities.get(e.spec)
        keep = Kept(a, data.get("training", {}).get(e.spec), old)
        if _absent(e):
            kept[e.spec] = keep
            notes.append(
                f"kept {e.spec} from the record, not replayed: no {e.run} on this "
                f"machine (its games and training cost are the record's)"
            )
        elif old is None:
            kept[e.spec] = keep
            by_spec.append(e.spec)
        elif old["fingerprint"] == fingerprint(today := record_identity(e.spec, env)):
            kept[e.spec] = keep
        else:
            diff = identity_difference(old["identity"], today)
            notes.append(
                f"{e.spec}: its games in {path.name} were played with {diff}: "
                "played again"
            )
    if by_spec:
        notes.append(
            f"kept by spec from {path.name}, which names no fingerprint for them: "
            + ", ".join(by_spec)
        )
    return kept, notes


def run(
    env: str,
    n_games: int = 50,
    seed: int = 0,
    workers: int = 1,
    stores: Path = STORES,
    results: Path = RESULTS,
    progress: bool = True,
) -> Path:
    """Play what the committed record and the store lack, write the record; returns
    the Markdown file written.

    Raises:
        ValueError: no agent to show (none kept, none whose run exists).
    """
    from playahead import __version__
    from playahead.evaluate import evaluate
    from playahead.evaluate.report import EvaluationResult
    from playahead.evaluate.store import fingerprint
    from playahead.evaluate.summary import pairwise, shown_path

    kept, notes = committed(env, n_games, seed, results)
    for note in notes:
        print(f"comparison: {note}", file=sys.stderr)
    entries, play = [], []
    for e in AGENTS[env]:
        if e.spec in kept:
            entries.append(e)
        elif _absent(e):
            print(
                f"left out {e.spec}: no {e.run} (build it with: {e.train})",
                file=sys.stderr,
            )
        elif why := _unfinished(e):
            print(f"left out {e.spec}: {why}", file=sys.stderr)
        else:
            entries.append(e)
            play.append(e.spec)
    if not entries:
        raise ValueError(f"no agent of {env} to show: none recorded, none available")
    stores.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    store = stores / f"{env}.sqlite"
    played, milestones = {}, None
    if play:
        report = evaluate(
            env,
            play,
            n_games,
            seed,
            store=store,
            workers=workers,
            progress=progress,
            n_resamples=N_RESAMPLES,
        )
        for note in report.notes:
            print(f"comparison: {note}", file=sys.stderr)
        played = {a.spec: a for a in report.agents}
        milestones = report.milestones
    else:
        old = json.loads((results / f"{env}.json").read_text())
        milestones = tuple(old["milestones"])
    agents = [
        played[e.spec] if e.spec in played else _summary(kept[e.spec].agent)
        for e in entries
    ]
    specs = [e.spec for e in entries]
    result = EvaluationResult(
        env_id=env,
        env_kwargs={},
        seed=seed,
        n_games=n_games,
        kind="single",
        agents=agents,
        pairs=pairwise(agents, seed, N_RESAMPLES),
        milestones=milestones,
        store=shown_path(str(store)),
        version=__version__,
    )
    data = result.to_dict()
    data.pop("notes")
    data["command"] = evaluate_command(env, specs, n_games, seed, store)
    data["training"] = {
        e.spec: _training(e, kept.get(e.spec)) for e in entries if e.run is not None
    }
    data["identities"] = {}
    for e in entries:
        if e.spec in played:
            ident = record_identity(e.spec, env)
            data["identities"][e.spec] = {
                "identity": ident,
                "fingerprint": fingerprint(ident),
            }
        elif kept[e.spec].identity is not None:
            data["identities"][e.spec] = kept[e.spec].identity
    (results / f"{env}.json").write_text(json.dumps(data, indent=1) + "\n")
    path = results / f"{env}.md"
    path.write_text(markdown(env, entries, data))
    return path


def _training(e: Entry, kept: Kept | None) -> dict:
    """The record's ``training`` entry of ``e``: the run's cost, or the committed
    cost when the run is absent here."""
    if _absent(e) and kept is not None and kept.training is not None:
        cost = kept.training.get("cost")
    else:
        cost = training_cost(e.run)
    return {"run": e.run, "command": e.train, "cost": cost}


def _summary(agent: dict):
    """An :class:`~playahead.evaluate.report.AgentSummary` from its JSON form."""
    from playahead.evaluate.report import AgentSummary

    fields = {f.name for f in dataclasses.fields(AgentSummary)}
    summary = AgentSummary(**{k: v for k, v in agent.items() if k in fields})
    summary.milestones = {int(k): v for k, v in summary.milestones.items()}
    summary.ci95 = tuple(summary.ci95)
    return summary


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
