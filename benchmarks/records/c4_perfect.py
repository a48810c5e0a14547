"""``python -m benchmarks.records.c4_perfect``: the Connect Four test set for learners,
and the share of perfect moves an agent makes on it.

``--build`` plays seeded games of agents of many strengths
(:func:`benchmarks.records.c4positions.play_positions`) and keeps positions of 4 to 36
discs (:func:`default_quotas`: 1,035), each labelled with every column's exact score by
:mod:`playahead.games.connect_four_solver` (Pons' convention, ``-1000`` for a full
column), in ``TESTSET`` (``positions.csv``). A position *matters* when its legal
columns' outcomes (win, draw or loss for the side to move) are not all the same.

``--agent SPEC`` asks the agent for a move in every position that matters (a fresh
agent each position, seeded from ``--seed`` and the position's index) and counts the
move perfect when it keeps the position's best outcome (its column's score has the
sign of the best column's). It writes one row a position to ``records/<slug>.csv``
(moves, discs, the move, its score, the best score, perfect) and prints the share
overall and by number of discs; :func:`perfect_moves` does the same from Python.

Examples::

    python -m benchmarks.records.c4_perfect --build
    python -m benchmarks.records.c4_perfect --build --build-seed 2 \\
        --folder benchmarks/results/c4-devset --exclude benchmarks/results/c4-testset
    python -m benchmarks.records.c4_perfect --agent "mcts:n_simulations=1000"
    python -m benchmarks.records.c4_perfect --table   # the records' table
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import time
from pathlib import Path

import numpy as np

TESTSET = Path(__file__).resolve().parents[1] / "results" / "c4-testset"
#: Disc-count buckets of the report.
BUCKETS = ((4, 8), (9, 12), (13, 16), (17, 20), (21, 24), (25, 28), (29, 32), (33, 36))


def default_quotas() -> dict[int, int]:
    """Positions per disc count: 4 at 4-5 discs, 6 at 6-7 (each takes the solver
    seconds), 35 at 8-36: 1,035 in all."""
    quotas = {4: 4, 5: 4, 6: 6, 7: 6}
    quotas.update({d: 35 for d in range(8, 37)})
    return quotas


def build(seed: int = 1, folder: Path = TESTSET, exclude: Path | None = None) -> Path:
    """Play, label and write the test set; the path of ``positions.csv``.

    ``exclude``: another set's folder whose positions this one leaves out (a
    development set beside the test set)."""
    from benchmarks.records.c4positions import play_positions
    from playahead.games import connect_four_solver as c4s

    positions = play_positions(default_quotas(), seed)
    if exclude is not None:
        taken = {row["moves"] for row in load(exclude)}
        positions = [p for p in positions if p["moves"] not in taken]
    solver = c4s.Solver()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "positions.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["moves", "discs", "players", "scores", "matters", "nodes"])
        for p in sorted(positions, key=lambda p: (p["discs"], p["moves"])):
            result = solver.analyze(p["moves"], c4s.MAX_NODE_BUDGET)
            scores = [c4s.INVALID if s is None else s for s in result.scores]
            writer.writerow(
                [
                    p["moves"],
                    p["discs"],
                    p["players"],
                    " ".join(map(str, scores)),
                    int(matters(scores)),
                    result.nodes,
                ]
            )
            f.flush()
    return path


def matters(scores: list[int]) -> bool:
    """The legal columns' outcomes (sign of the score) are not all the same."""
    return len({int(np.sign(s)) for s in scores if s != -1000}) > 1


def load(folder: Path = TESTSET) -> list[dict]:
    """The test set's rows with ``scores`` as a list of 7 ints."""
    with open(folder / "positions.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["scores"] = [int(s) for s in row["scores"].split()]
        row["discs"] = int(row["discs"])
        row["matters"] = row["matters"] == "1"
    return rows


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9=._-]+", "_", spec)


def perfect_moves(
    spec: str, seed: int = 0, folder: Path = TESTSET, out: Path | None = None
) -> dict:
    """Share of perfect moves of the agent ``spec`` on the test set's positions that
    matter, overall and by disc bucket; writes the per-position record to ``out``
    (default ``folder/records/<slug>.csv``).

    Returns:
        ``{"agent", "seed", "positions", "perfect", "share", "by_discs": {"4-8":
        {"positions", "perfect", "share"}, ...}, "record", "cpu_s"}``.
    """
    import playahead  # noqa: F401  (registers the envs and agents)
    from playahead.agents import build_agent
    from playahead.envs.connect_four import ConnectFourEnv

    rows = [r for r in load(folder) if r["matters"]]
    out = out or folder / "records" / f"{slug(spec)}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    seeds = np.random.SeedSequence(seed).generate_state(len(rows), np.uint32)
    start = time.process_time()
    results = []
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["moves", "discs", "move", "score", "best", "perfect"])
        for row, agent_seed in zip(rows, seeds, strict=True):
            env = ConnectFourEnv(opponent=None)
            env.reset(seed=0)
            for ch in row["moves"]:
                env.step(int(ch) - 1)
            agent = build_agent(spec, int(agent_seed))
            move = int(agent.act(env))
            scores = row["scores"]
            best = max(scores)
            ok = scores[move] != -1000 and np.sign(scores[move]) == np.sign(best)
            row_out = [row["moves"], row["discs"], move + 1, scores[move], best]
            writer.writerow([*row_out, int(ok)])
            results.append((row["discs"], bool(ok)))
            f.flush()

    def share(items):
        n, k = len(items), sum(ok for _, ok in items)
        return {"positions": n, "perfect": k, "share": round(k / n, 4) if n else None}

    report = {"agent": spec, "seed": seed, **share(results), "by_discs": {}}
    for lo, hi in BUCKETS:
        report["by_discs"][f"{lo}-{hi}"] = share(
            [r for r in results if lo <= r[0] <= hi]
        )
    report["record"] = out.name
    report["cpu_s"] = round(time.process_time() - start, 1)
    return report


def table(folder: Path = TESTSET) -> str:
    """A markdown table of every ``records/*.json``: share of perfect moves overall
    and by disc bucket, best agent first."""
    reports = [json.loads(p.read_text()) for p in (folder / "records").glob("*.json")]
    reports.sort(key=lambda r: -r["share"])
    names = [f"{lo}-{hi}" for lo, hi in BUCKETS]
    lines = [
        "| agent | positions | perfect | " + " | ".join(names) + " |",
        "|---|---:|---:|" + "---:|" * len(names),
    ]
    for r in reports:
        cells = [f"{r['by_discs'][n]['share']:.1%}" for n in names]
        head = f"| `{r['agent']}` | {r['positions']} | {r['share']:.1%} | "
        lines.append(head + " | ".join(cells) + " |")
    n = reports[0]["by_discs"] if reports else {}
    lines.append(
        "| positions a bucket | | | "
        + " | ".join(str(n[k]["positions"]) for k in names)
        + " |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.records.c4_perfect")
    parser.add_argument("--build", action="store_true", help="play and label the set")
    parser.add_argument(
        "--build-seed", type=int, default=1, help="seed of the games --build plays"
    )
    parser.add_argument(
        "--exclude",
        type=Path,
        help="a set's folder whose positions --build leaves out",
    )
    parser.add_argument("--agent", action="append", default=[], help="agent spec")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agents")
    parser.add_argument("--folder", type=Path, default=TESTSET, help="test set folder")
    parser.add_argument("--table", action="store_true", help="print the records' table")
    args = parser.parse_args(argv)
    if args.build:
        print(build(args.build_seed, args.folder, args.exclude))
    for spec in args.agent:
        report = perfect_moves(spec, args.seed, args.folder)
        summary = args.folder / "records" / f"{slug(spec)}.json"
        summary.write_text(json.dumps(report, indent=1) + "\n")
        print(json.dumps(report, indent=1))
    if args.table:
        print(table(args.folder))


if __name__ == "__main__":
    main()
