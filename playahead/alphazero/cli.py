"""``playahead train alphazero``: options generated from
:class:`~playahead.alphazero.config.AlphaZeroConfig`."""

from __future__ import annotations

import argparse

_COMMON = ("env_id", "out")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the AlphaZero options to ``parser``."""
    from playahead._options import add_options
    from playahead.alphazero.config import AlphaZeroConfig

    parser.add_argument(
        "--env",
        required=True,
        dest="env_id",
        help="env id or game name: ConnectFour-v0 (connect4) or TicTacToe-v0",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="run directory (default runs/<env>-alphazero-s<seed>)",
    )
    parser.set_defaults(
        alphazero_fields=add_options(parser, AlphaZeroConfig, _COMMON), func=run
    )


def run(args: argparse.Namespace) -> int:
    """Train as ``args`` say; print where the net went."""
    from playahead.alphazero.config import AlphaZeroConfig
    from playahead.alphazero.net import NetFileError
    from playahead.envs import registered_id

    env_id = registered_id(args.env_id).removeprefix("playahead/")
    out = args.out or f"runs/{env_id.lower()}-alphazero-s{args.seed}"
    try:
        cfg = AlphaZeroConfig(
            env_id=env_id,
            out=out,
            **{name: getattr(args, name) for name in args.alphazero_fields},
        )
        from playahead.alphazero.train import train_alphazero

        path = train_alphazero(cfg)
    except (ValueError, NetFileError) as err:
        raise SystemExit(f"playahead train alphazero: {err}") from None
    except KeyboardInterrupt:
        raise SystemExit(
            f"playahead train alphazero: interrupted; the last finished iteration is "
            f"saved in {out}; continue with --resume"
        ) from None
    print(f"net: {path}\nplay it: make_agent('alphazero:path={path.parent}')")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m playahead.alphazero``."""
    parser = argparse.ArgumentParser(prog="playahead train alphazero")
    configure(parser)
    args = parser.parse_args(argv)
    return args.func(args)
