"""``python -m benchmarks alphazero-curve``: the learning curve of an AlphaZero run,
measured with the exact solver.

Every net a run kept (``RUN/snapshots/iter-NNNNN.npz``, with its training CPU hours in
its metadata) plays the Connect Four test set
(:func:`benchmarks.records.c4_perfect.perfect_moves`) at each ``--sims`` count; each
measurement writes its per-position record under ``OUT/records/`` and a row of
``OUT/curve.csv`` (iteration, games, positions, CPU hours, simulations, positions
that matter, perfect moves, share). A snapshot already in ``curve.csv`` is not measured
again, so the command resumes. ``OUT/curve.md`` is then written anew from
``curve.csv`` (:func:`table`, which the docs' table of the curve copies). The run's own
``curve.csv`` (losses, self-play results an iteration) is copied to
``OUT/training.csv``.

Example::

    python -m benchmarks alphazero-curve --run ~/.cache/playahead/az-c4-s0 \\
        --out benchmarks/results/alphazero-c4 --sims 0 100 --every 10
"""

from __future__ import annotations

import argparse
import csv
import shutil
from pathlib import Path

FIELDS = (
    "iteration",
    "games",
    "positions",
    "cpu_hours",
    "simulations",
    "matters",
    "perfect",
    "share",
)


def _done(path: Path) -> set[tuple[int, int]]:
    if not path.exists():
        return set()
    with open(path) as f:
        return {(int(r["iteration"]), int(r["simulations"])) for r in csv.DictReader(f)}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials."""
    p, z2 = k / n, z * z
    centre, half = p + z2 / (2 * n), z * (p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5
    return (centre - half) / (1 + z2 / n), (centre + half) / (1 + z2 / n)


def share_text(k: int, n: int) -> str:
    """``k`` of ``n`` with its 95% Wilson interval: ``92.8% [90.1, 94.8]``."""
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def table(curve: Path) -> str:
    """``curve.csv`` as a Markdown table: a row a snapshot (its iteration, self-play
    games, training CPU hours), a column a simulation count, each cell the share of
    perfect moves with its 95% Wilson interval."""
    with open(curve) as f:
        rows = list(csv.DictReader(f))
    sims = sorted({int(r["simulations"]) for r in rows})
    snaps = sorted({int(r["iteration"]) for r in rows})
    cell = {(int(r["iteration"]), int(r["simulations"])): r for r in rows}
    head = ["iteration", "self-play games", "training CPU h"]
    head += [f"perfect, {n} simulations" if n else "perfect, raw policy" for n in sims]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for it in snaps:
        first = next(cell[it, n] for n in sims if (it, n) in cell)
        out = [str(it), f"{int(first['games']):,}", f"{float(first['cpu_hours']):.2f}"]
        for n in sims:
            r = cell.get((it, n))
            if r is None:
                out.append("")
                continue
            out.append(share_text(int(r["perfect"]), int(r["matters"])))
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines) + "\n"


def measure(run: Path, out: Path, sims: list[int], every: int = 1) -> Path:
    """Measure the snapshots of ``run`` not yet in ``out/curve.csv``; its path."""
    from benchmarks.records.c4_perfect import perfect_moves
    from playahead.alphazero.net import read_net_file

    out.mkdir(parents=True, exist_ok=True)
    curve = out / "curve.csv"
    done = _done(curve)
    new_file = not curve.exists()
    shutil.copyfile(run / "curve.csv", out / "training.csv")
    with open(curve, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        if new_file:
            writer.writeheader()
        for snap in sorted((run / "snapshots").glob("iter-*.npz")):
            meta, _ = read_net_file(snap)
            it = int(meta["iteration"])
            if it % every:
                continue
            for n in sims:
                if (it, n) in done:
                    continue
                record = out / "records" / f"iter-{it:05d}-sims-{n}.csv"
                result = perfect_moves(
                    f"alphazero:path={snap},n_simulations={n}", seed=0, out=record
                )
                writer.writerow(
                    {
                        "iteration": it,
                        "games": meta["games"],
                        "positions": meta["positions"],
                        "cpu_hours": meta["cpu_hours"],
                        "simulations": n,
                        "matters": result["positions"],
                        "perfect": result["perfect"],
                        "share": round(result["share"], 4),
                    }
                )
                f.flush()
                print(
                    f"iteration {it} ({meta['cpu_hours']:.2f} CPU h), {n} "
                    f"simulations: {result['share']:.1%} perfect"
                )
    (out / "curve.md").write_text(table(curve))
    return curve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks alphazero-curve")
    parser.add_argument("--run", required=True, type=Path, help="AlphaZero run dir")
    parser.add_argument("--out", required=True, type=Path, help="study folder")
    parser.add_argument(
        "--sims",
        type=int,
        nargs="+",
        default=[0, 100],
        help="simulations a move (default 0 100)",
    )
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        help="measure snapshots whose iteration is a multiple of this",
    )
    args = parser.parse_args(argv)
    measure(args.run, args.out, args.sims, args.every)
