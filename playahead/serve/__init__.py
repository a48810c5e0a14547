"""``playahead serve``: play Threes, 2048 and the two-player games in the browser.

A local web page (standard-library ``http.server``, no extra dependencies) with hint
and autoplay controls, planner settings (depth, simulations) and a choice of opponent.
The server is stateless: the page holds the game state and sends it with every move
(see :mod:`playahead.serve.app` for the JSON API under ``/api/``).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead serve``."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0: any free port)"
    )
    parser.add_argument("--quiet", action="store_true", help="do not log every request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead serve`` until Ctrl-C."""
    from playahead.serve.app import serve

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    try:
        serve(args.host, args.port, verbose=not args.quiet)
    except OSError as err:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {err}") from None
    return 0
