"""The keys typed per move in ``playahead assist``, for the table of docs/tools.md.

    python -m benchmarks keys-per-move

For Threes and 2048: the default plays 300 moves of seed 1 (``playahead watch GAME
--agent expectimax --seed 1 --max-moves 300 --save``), and ``assist``'s shortest
entries that replay it are found (``playahead assist GAME --keys-of FILE``). Writes
``benchmarks/results/keys-per-move/{game}-300.json`` (the game file),
``benchmarks/results/keys-per-move/keys.json`` (every entry, moves, keys) and the
table between ``<!-- table:keys-per-move -->`` markers in docs/tools.md.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "keys-per-move"
PAGE = ROOT / "docs" / "tools.md"
GAMES = {"threes": "Threes", "2048": "2048"}
SEED, MOVES, AGENT = 1, 300, "expectimax"
MARKER = re.compile(
    r"(<!-- table:keys-per-move -->\n).*?(<!-- /table:keys-per-move -->)", re.S
)


def record() -> dict:
    """Play both games, find the entries, write the game files and ``keys.json``."""
    from playahead.tools import assist, gamefile, watch

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {
        "command": "python -m benchmarks keys-per-move",
        "agent": AGENT,
        "seed": SEED,
        "games": {},
    }
    for game in GAMES:
        path = RESULTS / f"{game}-{MOVES}.json"
        for _ in watch.frames(game, AGENT, seed=SEED, max_moves=MOVES, save=path):
            pass
        typed = list(assist.entries(gamefile.load(path), AGENT, 0))
        keys = sum(len(t) + 1 for t in typed)
        out["games"][game] = {
            "game_file": path.name,
            "moves": len(typed),
            "keys": keys,
            "entries": typed,
        }
        print(
            f"{game}: {len(typed)} moves, {keys} keys: {keys / len(typed):.2f} a move"
        )
    (RESULTS / "keys.json").write_text(json.dumps(out, indent=1) + "\n")
    return out


def table(data: dict) -> str:
    """The docs' table of ``data`` (``keys.json``)."""
    lines = ["| game | moves | keys typed | keys a move |", "|---|---:|---:|---:|"]
    for game, row in data["games"].items():
        lines.append(
            f"| {GAMES[game]} | {row['moves']} | {row['keys']:,} | "
            f"{row['keys'] / row['moves']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def write_page(data: dict) -> None:
    text = PAGE.read_text()
    new, n = MARKER.subn(lambda m: m.group(1) + table(data) + m.group(2), text)
    if n != 1:
        raise SystemExit(f"{PAGE}: no table:keys-per-move markers")
    PAGE.write_text(new)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks keys-per-move")
    parser.add_argument(
        "--page-only", action="store_true", help="rewrite the table from keys.json"
    )
    args = parser.parse_args(argv)
    if args.page_only:
        data = json.loads((RESULTS / "keys.json").read_text())
    else:
        data = record()
    write_page(data)
