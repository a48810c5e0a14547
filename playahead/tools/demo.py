"""The main demo (``make demo``, ``playahead demo``): learning against search on Threes.

1. Trains a short MaskablePPO on Threes-v0.
2. Plays it head to head against random, greedy, flat Monte Carlo, MCTS and
   expectimax on the same seeded games (common random numbers), prints the table and
   writes the plot, JSON and Markdown.
3. Replays the best game of the best agent: move by move on a terminal; only the
   final board and a one-line summary when the output is a log or a pipe.

The table printed fits 80 columns (agent, mean, interval, median, the highest
milestone tile, thinking time); the full tables (every milestone, moves per game,
pairwise comparisons) are in ``threes.md`` and ``threes.json``. The output ends with
the table's headline and where the files are.

Everything goes under one folder (``--out``, default ``playahead-demo``), named at the
end. Re-running resumes: a trained model is reused and finished games are not replayed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

#: Search budgets sized so that the demo's 20 games fit in a few minutes on 2 cores.
SEARCH_AGENTS = (
    "random",
    "greedy",
    "mc:n_rollouts=1000",
    "mcts:n_simulations=2000",
    "expectimax:depth=2",
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead demo`` (``--help`` shows each default)."""
    parser.formatter_class = argparse.ArgumentDefaultsHelpFormatter
    parser.add_argument("--out", default="playahead-demo", help="folder for everything")
    parser.add_argument("--games", type=int, default=20, help="seeded games per agent")
    parser.add_argument(
        "--train-steps",
        type=int,
        default=100_000,
        help="MaskablePPO training steps (0: no learned agent)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=list(SEARCH_AGENTS),
        metavar="SPEC",
        help="the search agents",
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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from playahead.evaluate import evaluate

    _check(args)
    console = Console()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    agents = list(args.agents)
    if args.train_steps > 0:
        console.rule("[bold]1. Learning: MaskablePPO on Threes-v0")
        agents.append(f"ppo:path={_train(args, out, console)}")
    console.rule(f"[bold]2. Head to head on {args.games} seeded games of Threes-v0")
    result = evaluate(
        "Threes-v0",
        agents,
        args.games,
        args.seed,
        store=out / "threes.sqlite",
        workers=args.workers,
        progress=True,
    )
    console.print(compact_table(result))
    result.to_json(out / "threes.json")
    result.to_markdown(out / "threes.md")
    result.plot(out / "threes.png")
    console.rule("[bold]3. The best game of the best agent")
    _replay_best(result, args, console)
    console.rule()
    console.print(headline(result), highlight=False)
    console.print(
        f"Everything is in [bold]{out.resolve()}[/]: threes.md and threes.json (the "
        "full tables, with every milestone and the pairwise comparisons), threes.png "
        "(plot), threes.sqlite (every game), ppo-threes/ (the model, TensorBoard "
        "logs).",
        highlight=False,
    )
    return 0


#: The accepted range of each budget: name -> (least, most).
LIMITS = {
    "games": (1, 10_000),
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
    return "MaskablePPO (trained)" if spec.startswith("ppo:path=") else spec


def _top_milestone(result) -> int:
    """The highest milestone tile some agent reached (the first if none did)."""
    reached = [
        m for m in result.milestones if any(a.milestones[m] for a in result.agents)
    ]
    return reached[-1] if reached else result.milestones[0]


def compact_table(result):
    """The demo's summary table for an 80-column terminal or a log: agent, mean score,
    its 95% interval, median, share of games reaching the highest milestone reached,
    and milliseconds per move."""
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
    for name in ("mean", "95% CI", "median", f">={top}", "ms/move"):
        table.add_column(name, justify="right", no_wrap=True)
    for a in sorted(result.agents, key=lambda a: -a.mean):
        lo, hi = a.ci95
        table.add_row(
            label(a.spec),
            f"{a.mean:,.0f}",
            f"[{lo:,.0f}, {hi:,.0f}]",
            f"{a.median:,.0f}",
            f"{100 * a.milestones[top]:.0f}%",
            _ms(a.seconds_per_move),
        )
    return table


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2f}" if ms < 10 else f"{ms:,.0f}"


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
        pair = {frozenset((p.a, p.b)): p for p in result.pairs}.get(
            frozenset((best.spec, ranked[1].spec))
        )
        if pair is not None:
            verdict = pair.verdict
            for a in ranked:
                verdict = verdict.replace(a.spec, label(a.spec))
            text += f" Against the runner-up: {verdict}."
    return text


def _train(args, out: Path, console) -> Path:
    from playahead.train import train

    run_dir = out / "ppo-threes"
    model = run_dir / "model.zip"
    if model.exists():
        console.print(f"Reusing the model trained before: {model}")
        return model
    start = time.perf_counter()
    model = train(
        "ppo", "Threes-v0", args.train_steps, args.seed, run_dir, progress_bar=True
    )
    console.print(
        f"Trained {args.train_steps:,} steps in "
        f"{time.perf_counter() - start:.0f} s: {model}"
    )
    return model


def _replay_best(result, args, console) -> None:
    """Replay the best game of the best agent: frame by frame on a terminal, only the
    final board (no colours) and one line in a log or pipe."""
    import gymnasium as gym

    from playahead.evaluate.play import build_agent, game_seeds
    from playahead.tools.games import strip_ansi

    best = max(result.agents, key=lambda a: a.mean)
    game = max(range(best.games), key=lambda i: best.scores[i])
    env_seed, agent_seed, _ = game_seeds(args.seed, game)
    env = gym.make("Threes-v0", render_mode="ansi")
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
        f"score {info['score']:,} after {moves} moves, largest card "
        f"{info['max_tile']} (the evaluation recorded {best.scores[game]:,.0f}).",
        highlight=False,
    )
