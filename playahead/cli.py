"""The ``playahead`` command line.

Each subcommand lives in its own module with a ``configure(parser)`` function that adds
its arguments and sets ``func``; modules are imported only when listed here, and must
keep heavy imports (numba kernels, torch) inside their ``run`` functions so that
``playahead --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> (module with configure(parser), one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "curves": (
        "playahead.train.curves",
        "plot learning curves of training runs (ppo, dqn, ntuple and alphazero)",
    ),
    "hint": (
        "playahead.tools.hint",
        "the value of every legal move in a position, with its unit",
    ),
    "solve": (
        "playahead.tools.solve",
        "Connect Four solved: every column's exact score, in words or as JSON",
    ),
    "demo": (
        "playahead.tools.demo",
        "learning against search in minutes: train an n-tuple net and PPO (2048 by "
        "default), play them against the planners on the same seeded games",
    ),
    "train": (
        "playahead.train.cli",
        "train ppo (MaskablePPO), dqn (masked DQN), ntuple (n-tuple TD) or "
        "alphazero (self-play PUCT); checkpoints, --resume",
    ),
    "evaluate": (
        "playahead.evaluate.cli",
        "play agents head to head on the same seeded games: tables, Elo, plots",
    ),
    "review": (
        "playahead.tools.review",
        "review a game file move by move: best move, loss, marks, accuracy",
    ),
    "export": (
        "playahead.tools.export",
        "a game of an evaluation store or strength record as a game file",
    ),
    "assist": (
        "playahead.tools.assist",
        "follow a Threes or 2048 game played on another device: values after every "
        "move, a game file",
    ),
    "watch": ("playahead.tools.watch", "watch an agent play a game in the terminal"),
    "play": (
        "playahead.tools.play",
        "play a game in the terminal, with hints and autoplay",
    ),
    "serve": (
        "playahead.tools.serve",
        "play in the browser: a local web page with hints",
    ),
    "media": ("playahead.tools.media", "write the README's GIF and screenshot"),
}


def build_parser() -> argparse.ArgumentParser:
    from playahead import __version__

    parser = argparse.ArgumentParser(
        prog="playahead",
        description="Look-ahead planners, RL baselines and head-to-head evaluation "
        "for Threes!, 2048 and classic two-player games.",
        epilog="`playahead COMMAND --help` lists a command's options; "
        "`playahead train ppo|dqn|ntuple --help` a trainer's.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).configure(sub_parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from playahead._procs import reader_may_leave

    with reader_may_leave():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as err:
        print(f"playahead {args.command}: error: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # an optional extra is not installed
        from playahead._extras import missing_message

        message = missing_message(err.name or "", f"playahead {args.command}")
        if message is None:
            raise
        print(f"playahead {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"playahead {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
