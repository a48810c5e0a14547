"""The main demo (``make demo``, ``playahead demo``): learning against search on Threes.

1. Trains a short MaskablePPO on Threes-v0.
2. Plays it head to head against random, greedy, flat Monte Carlo, MCTS and
   expectimax on the same seeded games (common random numbers), prints the table and
   writes the plot, JSON and Markdown.
3. Replays the best game of the best agent in the terminal.

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
    "expectimax:depth=3",
)


def configure(parser: argparse.ArgumentParser) -> None:
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
        help="the search agents (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed")
    parser.add_argument("--workers", type=int, default=2, help="evaluation processes")
    parser.add_argument(
        "--replay-speed",
        type=float,
        default=100.0,
        help="moves per second of the replay (0: only the last board)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from playahead.evaluate import evaluate

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
    console.print(result.table())
    result.to_json(out / "threes.json")
    result.to_markdown(out / "threes.md")
    result.plot(out / "threes.png")
    console.rule("[bold]3. The best game of the best agent")
    _replay_best(result, args, console)
    console.rule()
    console.print(
        f"Everything is in [bold]{out.resolve()}[/]: threes.png (plot), threes.md and "
        "threes.json (tables), threes.sqlite (every game), ppo-threes/ (the model, "
        "TensorBoard logs)."
    )
    return 0


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
    import gymnasium as gym

    from playahead.evaluate.play import build_agent, game_seeds

    best = max(result.agents, key=lambda a: a.mean)
    game = max(range(best.games), key=lambda i: best.scores[i])
    env_seed, agent_seed, _ = game_seeds(args.seed, game)
    env = gym.make("Threes-v0", render_mode="ansi")
    agent = build_agent(best.spec, agent_seed)
    _, info = env.reset(seed=env_seed)
    delay = 1.0 / args.replay_speed if args.replay_speed > 0 else 0.0
    done, moves = False, 0
    while not done:
        _, _, terminated, truncated, info = env.step(agent.act(env))
        done, moves = terminated or truncated, moves + 1
        if delay:
            console.clear()
            console.print(f"{best.spec}, game {game}, move {moves}")
            print(env.render())
            time.sleep(delay)
    if not delay:
        print(env.render())
    console.print(
        f"{best.spec} (best mean score {best.mean:,.0f}) in game {game}: final score "
        f"{info['score']:,} after {moves} moves, largest card {info['max_tile']} "
        f"(the evaluation recorded {best.scores[game]:,.0f})."
    )
