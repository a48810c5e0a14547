"""``playahead serve``: play Threes, 2048 and the two-player games in the browser.

A local web page with hint and autoplay controls, planner settings (depth,
simulations) and a choice of opponent. The server is stateless: the page holds the
game state and sends it with every move (the JSON API under ``/api/`` is in
:mod:`playahead.tools.serve.api`). It runs on Starlette and uvicorn with searches in
worker processes (:mod:`playahead.tools.serve.app`); those packages come with the
``serve`` extra: ``pip install "playahead[serve]"``.
"""

from __future__ import annotations

import argparse
import importlib.util

from playahead.tools.games import NODES_PER_SECOND

#: Packages of the ``serve`` extra.
SERVE_PACKAGES = ("starlette", "uvicorn", "pydantic")
MAX_WORKERS = 8
MAX_SECONDS_CAP = 60.0


def missing_packages() -> list[str]:
    """The ``serve`` extra's packages that are not installed."""
    return [name for name in SERVE_PACKAGES if importlib.util.find_spec(name) is None]


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
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help=f"search worker processes (1..{MAX_WORKERS}, default 2)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=10.0,
        help="longest search of one request, in seconds (at most "
        f"{MAX_SECONDS_CAP:g}; default 10); a search still running 5 s later is "
        f"stopped; an expectimax budget is at most {NODES_PER_SECOND:,} nodes per "
        "second of it",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log every request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead serve`` until Ctrl-C."""
    missing = missing_packages()
    if missing:
        raise ValueError(
            f"the web server needs {', '.join(missing)} (the 'serve' extra): "
            "pip install 'playahead[serve]'"
        )
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise ValueError(f"--workers must be in 1..{MAX_WORKERS}, got {args.workers}")
    if not 0 < args.max_seconds <= MAX_SECONDS_CAP:
        raise ValueError(
            f"--max-seconds must be in (0, {MAX_SECONDS_CAP:g}], got {args.max_seconds}"
        )
    from playahead.tools.serve.app import serve

    try:
        serve(
            args.host,
            args.port,
            verbose=not args.quiet,
            workers=args.workers,
            max_seconds=args.max_seconds,
        )
    except OSError as err:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {err}") from None
    return 0
