"""``playahead evaluate``: agents head to head on the same seeded games.

Example::

    playahead evaluate --env Threes-v0 --agents random greedy "mc:n_rollouts=50" \\
        --games 100 --seed 0 --workers 2 --out results/threes.sqlite \\
        --json results/threes.json --plot results/threes.png

Every finished game is stored in ``--out`` at once; running the same command again
plays only the missing games (after a crash, ``kill -9`` or Ctrl-C) and prints the
same table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``evaluate``'s arguments to ``parser`` and set ``func=run``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "One-player games (2048-v0, Threes-v0): every agent plays the same --games "
        "seeded games;\nthe table shows mean scores with 95% bootstrap intervals, "
        "milestone tiles and paired\ndifferences. Two-player games (TicTacToe-v0, "
        "ConnectFour-v0, Nim-v0, Chips-v0): a round\nrobin where each pair plays every "
        "seed from both sides, with Elo ratings (mean 1500)."
    )
    parser.add_argument(
        "--env",
        required=True,
        help="environment id or game name, e.g. Threes-v0, threes",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="agent specs, e.g. random greedy 'mc:n_rollouts=50' "
        "'ppo:path=runs/threes-ppo/model.zip'",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        help="games per agent (two-player: seeds per pair, each played from both "
        "sides) (default: 100)",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed (default: 0)")
    parser.add_argument(
        "--env-kwargs",
        default="{}",
        metavar="JSON",
        help='env options as a JSON object, e.g. \'{"bonus_preview": "plus"}\'',
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local worker processes (default: 1, play in this process)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where games run (default: local)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster address for --backend ray (e.g. auto, ray://host:10001)",
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="module to import (here and in every worker) that registers custom "
        "agents; repeatable",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="SQLITE",
        help="results store, kept game by game and resumed on re-run (default: "
        "results/<env>[-<options hash>]-seed<seed>.sqlite)",
    )
    parser.add_argument(
        "--no-store",
        action="store_true",
        help="keep games in memory only (nothing to resume)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the tables (.md)")
    parser.add_argument("--csv", metavar="PATH", help="write the per-agent table")
    parser.add_argument(
        "--plot", metavar="PATH", help="save a figure (.png, .svg or .pdf)"
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=2000,
        help="bootstrap resamples for intervals (default: 2000)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def default_store(env_id: str, env_kwargs: dict, seed: int) -> Path:
    """``results/<env>[-<options hash>]-seed<seed>.sqlite``."""
    name = env_id.replace("/", "_")
    if env_kwargs:
        text = json.dumps(env_kwargs, sort_keys=True).encode()
        name += "-" + hashlib.sha1(text).hexdigest()[:8]
    return Path("results") / f"{name}-seed{seed}.sqlite"


def parse_env_kwargs(text: str) -> dict:
    """``--env-kwargs`` as a dict.

    Raises:
        ValueError: not JSON, or not a JSON object.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"--env-kwargs is not valid JSON ({err}); example: "
            '\'{"bonus_preview": "plus"}\''
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"--env-kwargs must be a JSON object, got {text!r}")
    return value


def check_writable(option: str, path) -> None:
    """Fail before any game is played if ``path`` cannot be written.

    Raises:
        ValueError: naming the option, the path and why.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file name")
    existed = path.exists()
    missing = [d for d in path.absolute().parents if not d.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as err:
        raise ValueError(
            f"cannot write {option} {path}: {err.strerror or err}; choose a path "
            "you can write"
        ) from None
    finally:  # leave no trace: the writers make their folders when they write
        if not existed and path.is_file():
            path.unlink()
        for folder in missing:  # deepest first
            try:
                folder.rmdir()
            except OSError:
                break


def run(args: argparse.Namespace) -> int:
    """Run the evaluation, print the tables and write the requested files."""
    from rich.console import Console

    from playahead.envs import registered_id
    from playahead.evaluate import AgentError, evaluate
    from playahead.evaluate.plots import check_plot_path

    args.env = registered_id(args.env)
    env_kwargs = parse_env_kwargs(args.env_kwargs)
    if args.plot:
        check_plot_path(args.plot)  # fail before playing, not after
    store = None
    if not args.no_store:
        store = args.out or default_store(args.env, env_kwargs, args.seed)
    for option, path in (
        ("--out", store),
        ("--json", args.json),
        ("--markdown", args.markdown),
        ("--csv", args.csv),
        ("--plot", args.plot),
    ):
        if path:
            check_writable(option, path)
    try:
        result = evaluate(
            args.env,
            args.agents,
            args.games,
            args.seed,
            env_kwargs=env_kwargs,
            store=store,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            imports=args.imports,
            progress=not args.quiet,
            n_resamples=args.resamples,
        )
    except AgentError as err:
        kept = f"; finished games are kept in {store}, re-run to resume"
        kept = kept if store else ""
        print(f"playahead evaluate: error: {err}{kept}", file=sys.stderr)
        return 1
    # Piped output keeps the full table rather than rich's 80 columns.
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(result.table())
    written = []
    for path, write in (
        (args.json, result.to_json),
        (args.markdown, result.to_markdown),
        (args.csv, result.to_csv),
        (args.plot, result.plot),
    ):
        if path:
            write(path)
            written.append(str(path))
    if store:
        written.append(f"{store} (games)")
    if written:
        console.print("wrote " + ", ".join(written), style="dim")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m playahead.evaluate``: the same command without the ``playahead``
    entry point."""
    parser = argparse.ArgumentParser(
        prog="playahead evaluate", description="agents head to head on seeded games"
    )
    configure(parser)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as err:
        print(f"playahead evaluate: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("playahead evaluate: interrupted; re-run to resume", file=sys.stderr)
        return 130
