"""``python -m benchmarks.records.c4solver``: playahead's Connect Four solver against
Pascal Pons' ``c4solver`` (the peer): the same scores on every column of seeded
positions, and the CPU each takes on the same sets.

The peer is built from its sources (``--peer``, by default ``../shared/peers/
pons-connect4`` beside the checkout; see its HOW-TO-BUILD.md) in a temporary
directory; neither its code nor its binary enters the project. Positions come from
:func:`benchmarks.records.c4positions.play_positions` (games of agents of many
strengths, seeded). Every position is answered by ``c4solver -a`` and by
:meth:`playahead.games.connect_four_solver.Solver.analyze` (all seven columns).

CPU is measured in one run, interleaved: the positions are cut into chunks of
``--chunk`` positions of one set (6-7 discs, 8-12, 13 or more); each chunk is answered
by a fresh peer process (its CPU: the child's user + system time) and by playahead's
solver in this process after emptying its table (``time.process_time``), the order
alternating from chunk to chunk. Both keep their table within a chunk, as the peer
does over the lines of its input. The peer's start-up (a process that allocates and
clears its 80 MiB table, on an empty input; the median of 5) is reported, and each
set's ratio also with it taken off every chunk. ``--empty`` also solves the empty
board once with each (score only, no ``-a``).

Writes to ``--out``: ``positions.csv`` (one row a position: moves, discs, players,
both solvers' scores, our nodes and CPU seconds, chunk), ``chunks.csv`` (one row a
chunk: set, positions, CPU of each), ``summary.json``; with ``--labels`` the peer's
lines (``moves s1 .. s7`` as ``c4solver -a`` prints them) for the tests.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT.parent / "shared" / "peers" / "pons-connect4"
SETS = (("6-7", 6, 7), ("8-12", 8, 12), ("13+", 13, 42))


def default_quotas() -> dict[int, int]:
    """Positions per disc count: 5 at 6-7 discs (each takes the peer seconds), 20 at
    8-12 and 69 at 13-40: 2,042 in all."""
    quotas = {6: 5, 7: 5}
    quotas.update({d: 20 for d in range(8, 13)})
    quotas.update({d: 69 for d in range(13, 41)})
    return quotas


def build_peer(source: Path, where: Path) -> Path:
    """Compile ``c4solver`` from ``source`` in ``where``; its path."""
    if not (source / "Solver.cpp").is_file():
        raise SystemExit(f"c4solver: no peer sources at {source} (give --peer)")
    shutil.copytree(source, where, dirs_exist_ok=True)
    subprocess.run(
        ["make", "c4solver"], cwd=where, check=True, capture_output=True, text=True
    )
    return where / "c4solver"


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_peer(
    binary: Path, lines: list[str], analyze: bool = True
) -> tuple[dict, float]:
    """The peer's answers ``{moves: [scores]}`` and its CPU seconds."""
    before = child_cpu()
    proc = subprocess.run(
        [str(binary), "-a"] if analyze else [str(binary)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        check=True,
        cwd=binary.parent,
    )
    cpu = child_cpu() - before
    answers = {}
    for line in proc.stdout.splitlines():
        moves, *scores = line.split(" ")
        answers[moves] = [int(s) for s in scores]
    return answers, cpu


def run_ours(solver, lines: list[str]) -> tuple[dict, dict, float]:
    """Our answers (as the peer prints them), per-position (nodes, CPU) and the CPU
    of the chunk, the table emptied first."""
    from playahead.games import connect_four_solver as c4s

    start = time.process_time()
    solver.reset()
    answers, costs = {}, {}
    for moves in lines:
        t = time.process_time()
        result = solver.analyze(moves, c4s.MAX_NODE_BUDGET)
        if not result.solved:
            raise SystemExit(f"c4solver: {moves} not solved within the cap")
        answers[moves] = [c4s.INVALID if s is None else s for s in result.scores]
        costs[moves] = (result.nodes, time.process_time() - t)
    return answers, costs, time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.records.c4solver")
    parser.add_argument("--peer", type=Path, default=PEER, help="the peer's sources")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every quota (0.05: a smoke)"
    )
    parser.add_argument("--chunk", type=int, default=20, help="positions per chunk")
    parser.add_argument("--out", type=Path, default=None, help="results folder")
    parser.add_argument("--labels", type=Path, default=None, help="peer labels file")
    parser.add_argument("--empty", action="store_true", help="solve the empty board")
    parser.add_argument(
        "--empty-only", action="store_true", help="only solve the empty board"
    )
    parser.add_argument(
        "--empty-side",
        choices=["both", "peer", "ours"],
        default="both",
        help="which solver solves the empty board (a side alone writes "
        "empty_board_<side>.json)",
    )
    args = parser.parse_args(argv)

    from benchmarks.records.c4positions import play_positions
    from playahead.games import connect_four_solver as c4s

    quotas = {d: max(1, round(n * args.scale)) for d, n in default_quotas().items()}
    if args.empty_only:
        args.empty, quotas = True, {}
    t0 = time.process_time()
    positions = play_positions(quotas, args.seed)
    print(
        f"{len(positions)} positions in {time.process_time() - t0:.0f} CPU s",
        flush=True,
    )

    build = Path(tempfile.mkdtemp(prefix="c4peer-"))
    try:
        binary = build_peer(args.peer, build)
        solver = c4s.Solver()
        # the peer's start-up (allocating and clearing its table) on an empty input
        startup = sorted(run_peer(binary, [])[1] for _ in range(5))[2]
        rows, chunks, mismatches = {}, [], []
        for name, lo, hi in SETS:
            chosen = [p for p in positions if lo <= p["discs"] <= hi]
            for k in range(0, len(chosen), args.chunk):
                lines = [p["moves"] for p in chosen[k : k + args.chunk]]
                order = ("peer", "ours") if len(chunks) % 2 == 0 else ("ours", "peer")
                cpu = {}
                for who in order:
                    if who == "peer":
                        peer, cpu["peer"] = run_peer(binary, lines)
                    else:
                        ours, costs, cpu["ours"] = run_ours(solver, lines)
                for p in chosen[k : k + args.chunk]:
                    m = p["moves"]
                    if peer.get(m) != ours[m]:
                        mismatches.append(m)
                    rows[m] = {
                        **p,
                        "peer": " ".join(map(str, peer.get(m, []))),
                        "ours": " ".join(map(str, ours[m])),
                        "equal": peer.get(m) == ours[m],
                        "our_nodes": costs[m][0],
                        "our_cpu_s": round(costs[m][1], 6),
                        "chunk": len(chunks),
                    }
                chunks.append(
                    {
                        "chunk": len(chunks),
                        "set": name,
                        "positions": len(lines),
                        "first": order[0],
                        "peer_cpu_s": round(cpu["peer"], 4),
                        "ours_cpu_s": round(cpu["ours"], 4),
                    }
                )
                print(
                    f"chunk {len(chunks) - 1} ({name}): peer {cpu['peer']:.2f} s, "
                    f"ours {cpu['ours']:.2f} s, mismatches so far {len(mismatches)}",
                    flush=True,
                )
        empty = None
        if args.empty:
            empty = {}
            if args.empty_side in ("both", "peer"):
                peer, peer_cpu = run_peer(binary, [""], analyze=False)
                empty["peer_score"] = peer[""][0]
                empty["peer_cpu_s"] = round(peer_cpu, 2)
            if args.empty_side in ("both", "ours"):
                big = c4s.Solver()
                t = time.process_time()
                score = big.solve("", c4s.MAX_NODE_BUDGET)
                empty["ours_score"] = score.score
                empty["ours_nodes"] = score.nodes
                empty["ours_cpu_s"] = round(time.process_time() - t, 2)
            print(f"empty board: {empty}", flush=True)
    finally:
        shutil.rmtree(build, ignore_errors=True)

    sets = {}
    for name, _, _ in SETS:
        mine = [c for c in chunks if c["set"] == name]
        peer_s = sum(c["peer_cpu_s"] for c in mine)
        ours_s = sum(c["ours_cpu_s"] for c in mine)
        sets[name] = {
            "positions": sum(c["positions"] for c in mine),
            "peer_cpu_s": round(peer_s, 2),
            "ours_cpu_s": round(ours_s, 2),
            "ratio": round(ours_s / peer_s, 3) if peer_s else None,
            "peer_cpu_less_startup_s": round(peer_s - len(mine) * startup, 2),
            "ratio_to_peer_less_startup": round(
                ours_s / (peer_s - len(mine) * startup), 3
            )
            if peer_s > len(mine) * startup
            else None,
        }
    summary = {
        "command": shlex.join(["python", "-m", "benchmarks.records.c4solver", *argv])
        if argv is not None
        else shlex.join(["python", "-m", "benchmarks.records.c4solver", *sys.argv[1:]]),
        "seed": args.seed,
        "positions": len(rows),
        "columns_compared": sum(7 for _ in rows),
        "mismatches": mismatches,
        "sets": sets,
        "peer_startup_cpu_s": round(startup, 4),
        "empty_board": empty,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_average_at_end": list(os.getloadavg()),
    }
    print(json.dumps(summary, indent=1))
    if args.out and args.empty_only:
        args.out.mkdir(parents=True, exist_ok=True)
        record = {"command": summary["command"], **empty, "machine": summary["machine"]}
        text = json.dumps(record, indent=1) + "\n"
        side = "" if args.empty_side == "both" else f"_{args.empty_side}"
        (args.out / f"empty_board{side}.json").write_text(text)
    elif args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        fields = list(next(iter(rows.values())))
        with open(args.out / "positions.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows.values())
        with open(args.out / "chunks.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(chunks[0]))
            writer.writeheader()
            writer.writerows(chunks)
        (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    if args.labels and rows:
        args.labels.parent.mkdir(parents=True, exist_ok=True)
        lines = sorted(f"{m} {r['peer']}" for m, r in rows.items())
        args.labels.write_text("\n".join(lines) + "\n")
    if mismatches:
        raise SystemExit(f"c4solver: {len(mismatches)} positions differ from the peer")


if __name__ == "__main__":
    main()
