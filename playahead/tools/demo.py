"""The main demo (``make demo``, ``playahead demo``): learning against search.

1. Trains two learners on the game (2048 by default): an n-tuple network by TD
   learning (:mod:`playahead.ntuple`, about a CPU minute) and a short MaskablePPO.
2. Plays them head to head against random, greedy, flat Monte Carlo, MCTS and
   expectimax (and expectimax with the n-tuple net at its leaves) on the same seeded
   games (common random numbers), prints the table, one line on what it means, and
   writes the plot, JSON and Markdown.
3. Replays the best game of the best agent: move by move on a terminal; only the
   final board and a one-line summary when the output is a log or a pipe.

The table printed fits 80 columns (agent, mean, interval, the highest milestone
tile, thinking time); the full tables (every milestone, moves per game,
pairwise comparisons) are in ``<game>.md`` and ``<game>.json``. The output ends with
the table's headline and where the files are.

Everything goes under one folder (``--out``, default ``playahead-demo``), named at the
end. Re-running resumes: trained models are reused and finished games are not replayed.
``--record DIR`` also writes the demo's record (``demo-<game>.json`` and ``.md``: the
evaluation, the command and what training cost), the one the docs' tables are
generated from.
"""

from __future__ import annotations

import argparse
import json
import shlex
import time
from pathlib import Path

from playahead._extras import require

#: Search budgets sized so that the demo's games fit in a few minutes on 2 cores.
SEARCH_AGENTS = {
    "2048-v0": (
        "random",
        "greedy",
        "mc:n_rollouts=200",
        "mcts:n_simulations=200",
        # the hand-made evaluator: 2048's default is a learned net too, and the demo
        # sets search against learning
        "expectimax:depth=2,evaluator=monotonic",
    ),
    "Threes-v0": (
        "random",
        "greedy",
        "mc:n_rollouts=1000",
        "mcts:n_simulations=2000",
        # the hand-made evaluator: Threes' default is a learned net, and the demo
        # sets search against learning
        "expectimax:depth=2,evaluator=features",
    ),
}
#: Training games of the n-tuple learner, with each game's default recipe: about one
#: CPU minute of the TD kernel on a shared 2-core machine (2048, TD(lambda) with
#: restarts: 3,000 games took 57.7 CPU s; Threes, TD(0): 50,000 games took 10.2 CPU s,
#: and later games are longer).
NTUPLE_GAMES = {"2048-v0": 3_000, "Threes-v0": 250_000}
#: File names of each game's outputs.
SHORT = {"2048-v0": "2048", "Threes-v0": "threes"}


def _env_id(name: str) -> str:
    """``--env``: the env id of any name of the game (see ``envs.env_id_of``)."""
    from playahead.envs import env_id_of

    try:
        return env_id_of(name)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


class _DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's defaults in the help, less the ``(default: None)`` of an option
    whose help already says what its absence does."""

    def _get_help_string(self, action):
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead demo`` (``--help`` shows each default)."""
    parser.formatter_class = _DefaultsHelp
    parser.add_argument(
        "--env",
        default="2048-v0",
        type=_env_id,
        choices=sorted(SEARCH_AGENTS),
        help="the game (its env id or name: 2048, threes)",
    )
    parser.add_argument("--out", default="playahead-demo", help="folder for everything")
    parser.add_argument("--games", type=int, default=20, help="seeded games per agent")
    parser.add_argument(
        "--ntuple-games",
        type=int,
        default=None,
        help="n-tuple TD training games (0: none; default: about a CPU minute, "
        + ", ".join(f"{n:,} on {e}" for e, n in NTUPLE_GAMES.items())
        + ")",
    )
    parser.add_argument(
        "--train-steps",
        type=int,
        default=100_000,
        help="MaskablePPO training steps (0: none)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=None,
        metavar="SPEC",
        help="the search agents (default: "
        + "; ".join(f"{e}: {' '.join(a)}" for e, a in SEARCH_AGENTS.items())
        + ")",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    parser.add_argument("--workers", type=int, default=2, help="evaluation processes")
    parser.add_argument(
        "--replay-speed",
        type=float,
        default=100.0,
        help="moves per second of the replay on a terminal (0: only the last board; "
        "a log or pipe always gets only the last board)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="also write the demo's record, demo-<game>.json and .md, into DIR",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from playahead.evaluate import evaluate

    if args.ntuple_games is None:
        args.ntuple_games = NTUPLE_GAMES[args.env]
    _check(args)
    if args.train_steps > 0:  # before any training, not after the n-tuple net's
        for module in ("torch", "sb3_contrib"):
            try:
                require(module, "the demo's MaskablePPO")
            except ModuleNotFoundError as err:
                raise ValueError(f"{err}; --train-steps 0 leaves it out") from None
    console = Console()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    short = SHORT[args.env]
    agents = list(args.agents or SEARCH_AGENTS[args.env])
    training = {}
    if args.ntuple_games > 0:
        console.rule(f"[bold]1a. Learning: an n-tuple network by TD on {args.env}")
        net, training["ntuple"] = _train_ntuple(args, out / f"ntuple-{short}", console)
        agents += [
            f"ntuple:path={net}",
            f"expectimax:depth=1,evaluator=ntuple:path={net}",
        ]
    if args.train_steps > 0:
        console.rule(f"[bold]1b. Learning: MaskablePPO on {args.env}")
        model, training["ppo"] = _train_ppo(args, out / f"ppo-{short}", console)
        agents.append(f"ppo:path={model}")
    console.rule(f"[bold]2. Head to head on {args.games} seeded games of {args.env}")
    result = evaluate(
        args.env,
        agents,
        args.games,
        args.seed,
        store=out / f"{short}.sqlite",
        workers=args.workers,
        progress=True,
    )
    console.print(compact_table(result))
    console.print(meaning(result, training), highlight=False)
    result.to_json(out / f"{short}.json")
    result.to_markdown(out / f"{short}.md")
    result.plot(out / f"{short}.png")
    if args.record:
        paths = write_record(result, args, training, Path(args.record))
        console.print(f"Record: {', '.join(map(str, paths))}", highlight=False)
    console.rule("[bold]3. The best game of the best agent")
    _replay_best(result, args, console)
    console.rule()
    console.print(headline(result), highlight=False)
    learned = ", ".join(
        f"{name}-{short}/" for name in ("ntuple", "ppo") if name in training
    )
    console.print(
        f"Everything is in [bold]{out.resolve()}[/]: {short}.md and {short}.json (the "
        f"full tables, with every milestone and the pairwise comparisons), {short}.png "
        f"(plot), {short}.sqlite (every game)"
        + (f", {learned} (the trained models, TensorBoard logs)." if learned else "."),
        highlight=False,
    )
    return 0


#: The accepted range of each budget: name -> (least, most).
LIMITS = {
    "games": (1, 10_000),
    "ntuple_games": (0, 100_000_000),
    "train_steps": (0, 100_000_000),
    "workers": (1, 64),
    "replay_speed": (0, 100_000),
}


def _check(args: argparse.Namespace) -> None:
    """Refuse budgets out of :data:`LIMITS` with a message naming the range."""
    for name, (least, most) in LIMITS.items():
        value = getattr(args, name)
        if not least <= value <= most:
            raise ValueError(
                f"--{name.replace('_', '-')} must be from {least:,} to {most:,}, "
                f"got {value:,}"
            )


def label(spec: str) -> str:
    """A short name for an agent in the demo's table: a trained model's path is left
    out (it is in the files)."""
    if spec.startswith("ppo:path="):
        return "MaskablePPO (trained)"
    if spec.startswith("ntuple:path="):
        return "n-tuple TD (trained)"
    if spec.startswith("expectimax:depth=1,evaluator=ntuple:path="):
        return "expectimax d1, n-tuple"
    return spec


def _learned(spec: str) -> bool:
    return "path=" in spec


def _top_milestone(result) -> int:
    """The highest milestone tile some agent reached (the first if none did)."""
    reached = [
        m for m in result.milestones if any(a.milestones[m] for a in result.agents)
    ]
    return reached[-1] if reached else result.milestones[0]


def compact_table(result):
    """The demo's summary table for an 80-column terminal or a log: agent, mean score,
    its 95% interval, share of games reaching the highest milestone reached, and
    milliseconds per move (the median and the rest are in the Markdown file)."""
    from rich import box
    from rich.table import Table

    top = _top_milestone(result)
    table = Table(
        title=result.title(),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("agent", overflow="fold")
    for name in ("mean", "95% CI", f">={top}", "ms/move"):
        table.add_column(name, justify="right", no_wrap=True)
    for a in sorted(result.agents, key=lambda a: -a.mean):
        lo, hi = a.ci95
        table.add_row(
            label(a.spec),
            f"{a.mean:,.0f}",
            f"[{lo:,.0f}, {hi:,.0f}]",
            f"{100 * a.milestones[top]:.0f}%",
            _ms(a.seconds_per_move),
        )
    return table


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2f}" if ms < 10 else f"{ms:,.0f}"


def _verdict(result, a: str, b: str) -> str | None:
    """The paired verdict of agents ``a`` and ``b`` with short labels, if played."""
    pair = {frozenset((p.a, p.b)): p for p in result.pairs}.get(frozenset((a, b)))
    if pair is None:
        return None
    verdict = pair.verdict
    for spec in sorted((x.spec for x in result.agents), key=len, reverse=True):
        verdict = verdict.replace(spec, label(spec))
    return verdict


def headline(result) -> str:
    """One line: the best agent, its mean and interval, and how it compares with the
    runner-up over the same games."""
    ranked = sorted(result.agents, key=lambda a: -a.mean)
    best = ranked[0]
    lo, hi = best.ci95
    text = (
        f"Best: {label(best.spec)}, mean score {best.mean:,.0f} (95% CI "
        f"[{lo:,.0f}, {hi:,.0f}]) over {best.games} games."
    )
    if len(ranked) > 1:
        verdict = _verdict(result, best.spec, ranked[1].spec)
        if verdict is not None:
            text += f" Against the runner-up: {verdict}."
    return text


def meaning(result, training: dict) -> str:
    """One line on what the table means: the same games for everyone, search against
    learning, what the learners cost, and the best learner against the best search
    agent (a paired verdict)."""
    parts = []
    if "ntuple" in training:
        t = training["ntuple"]
        parts.append(f"n-tuple TD: {t['games']:,} games, {t['cpu_seconds']:.0f} CPU s")
    if "ppo" in training:
        t = training["ppo"]
        parts.append(f"MaskablePPO: {t['steps']:,} steps, {t['cpu_seconds']:.0f} CPU s")
    text = (
        f"What it means: every agent played the same {result.n_games} seeded games; "
        "search agents plan with the rules at every move, learned agents"
        + (f" ({'; '.join(parts)})" if parts else "")
        + " play what training taught them"
    )
    ranked = sorted(result.agents, key=lambda a: -a.mean)
    learned = [a for a in ranked if _learned(a.spec) and "expectimax" not in a.spec]
    search = [a for a in ranked if not _learned(a.spec)]
    if learned and search:
        verdict = _verdict(result, learned[0].spec, search[0].spec)
        text += f"; best learner against best search agent: {verdict}"
    return text + "."


def _train_ntuple(args, run_dir: Path, console) -> tuple[Path, dict]:
    """The demo's n-tuple net in ``run_dir`` (reused, or resumed if cut short) and
    what it cost."""
    from playahead.ntuple.train import train_ntuple

    meta = run_dir / "model.json"
    done = json.loads(meta.read_text()).get("games", 0) if meta.is_file() else 0
    if done > args.ntuple_games:
        raise ValueError(
            f"{run_dir} holds a net trained on {done:,} games, more than "
            f"--ntuple-games {args.ntuple_games:,}: use another --out"
        )
    if done == args.ntuple_games:
        console.print(f"Reusing the n-tuple net trained before: {run_dir}")
    else:
        train_ntuple(
            args.env,
            args.ntuple_games,
            run_dir,
            seed=args.seed,
            eval_every=args.ntuple_games,
            eval_games=100,
            resume=done > 0,
        )
    m = json.loads(meta.read_text())
    cost = {
        "games": int(m["games"]),
        "seed": int(m.get("seed", args.seed)),
        "cpu_seconds": float(m["cpu_seconds"]),
        "updates": int(m.get("updates", 0)),
    }
    console.print(
        f"n-tuple TD: {cost['games']:,} games, {cost['updates']:,} TD updates in "
        f"{cost['cpu_seconds']:.0f} CPU s: {run_dir}",
        highlight=False,
    )
    return run_dir, cost


def _train_ppo(args, run_dir: Path, console) -> tuple[Path, dict]:
    """The demo's MaskablePPO model (reused if trained before) and what it cost."""
    from playahead.train import train

    model = run_dir / "model.zip"
    if model.exists():
        console.print(f"Reusing the model trained before: {model}")
    else:
        start = time.perf_counter()
        model = train(
            "ppo", args.env, args.train_steps, args.seed, run_dir, progress_bar=True
        )
        console.print(
            f"Trained {args.train_steps:,} steps in "
            f"{time.perf_counter() - start:.0f} s: {model}"
        )
    cost_file = run_dir / "cost.json"
    cost = json.loads(cost_file.read_text()) if cost_file.is_file() else {}
    return model, {
        "steps": int(cost.get("steps", args.train_steps)),
        "seed": args.seed,
        "cpu_seconds": float(cost.get("cpu_seconds", 0.0)),
    }


def command(args: argparse.Namespace) -> str:
    """The ``playahead demo`` line that plays the same games with the same agents."""
    line = [
        "playahead",
        "demo",
        "--env",
        args.env,
        "--out",
        str(args.out),
        "--games",
        str(args.games),
        "--ntuple-games",
        str(args.ntuple_games),
        "--train-steps",
        str(args.train_steps),
        "--seed",
        str(args.seed),
    ]
    if args.agents:
        line += ["--agents", *args.agents]
    return shlex.join(line)


def write_record(result, args, training: dict, folder: Path) -> list[Path]:
    """Write ``demo-<game>.json`` (the evaluation, ``command`` and ``training``) and
    ``demo-<game>.md`` into ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    data = result.to_dict()
    data["command"] = command(args)
    data["training"] = training
    stem = folder / f"demo-{SHORT[args.env]}"
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    json_path.write_text(json.dumps(data, indent=1) + "\n")
    md_path.write_text(f"`{data['command']}`\n\n{result.to_markdown()}")
    return [json_path, md_path]


def _replay_best(result, args, console) -> None:
    """Replay the best game of the best agent: frame by frame on a terminal, only the
    final board (no colours) and one line in a log or pipe."""
    import gymnasium as gym

    from playahead.agents import build_agent, game_seeds
    from playahead.tools.games import strip_ansi

    best = max(result.agents, key=lambda a: a.mean)
    game = max(range(best.games), key=lambda i: best.scores[i])
    env_seed, agent_seed, _ = game_seeds(args.seed, game)
    env = gym.make(args.env, render_mode="ansi")
    agent = build_agent(best.spec, agent_seed)
    _, info = env.reset(seed=env_seed)
    animate = console.is_terminal and args.replay_speed > 0
    delay = 1.0 / args.replay_speed if animate else 0.0
    done, moves = False, 0
    while not done:
        _, _, terminated, truncated, info = env.step(agent.act(env))
        done, moves = terminated or truncated, moves + 1
        if animate:
            console.clear()
            console.print(f"{label(best.spec)}, game {game}, move {moves}")
            print(env.render())
            time.sleep(delay)
    if not animate:
        board = env.render()
        print(board if console.is_terminal else strip_ansi(board))
    console.print(
        f"{label(best.spec)} (best mean score {best.mean:,.0f}) in game {game}: final "
        f"score {info['score']:,} after {moves} moves, largest tile "
        f"{info['max_tile']} (the evaluation recorded {best.scores[game]:,.0f}).",
        highlight=False,
    )
