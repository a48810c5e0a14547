"""CMA-ES over the weights of the Threes ``"features"`` evaluator, by seeded self-play.

    python -m benchmarks tune-threes --generations 30 --popsize 10 --games 60 \\
        --depth 1 --out benchmarks/results/tune-threes

Each generation asks CMA-ES (the ``cma`` package, seeded) for ``--popsize`` weight
vectors and plays every one of them on the same ``--games`` Threes games with
``expectimax:depth=<depth>`` (common random numbers: the candidates of a generation
differ only in their weights). The fitness is the mean score. The games' seeds come
from ``SeedSequence(TUNE_ENTROPY, spawn_key=(generation, i))``, a stream that the
strength benchmark's seeds (``SeedSequence(seed, spawn_key=(i,))`` with small
``seed``) never meet, so the evaluation games are not the tuning games.

Everything goes to ``<out>/log.jsonl``, one line per finished generation with every
candidate's weights and per-game scores. Re-running the same command resumes: the
logged generations are told to a fresh, identically seeded CMA-ES (which then asks for
the same vectors again) and only the missing generations are played. ``<out>/best.json``
holds the distribution mean after the last generation (CMA-ES's estimate of the best
weights, steadier under noise than the luckiest candidate).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from playahead.planners.evaluators import (
    FEATURES,
    OPENNESS_WEIGHTS,
    TUNED_LOST,
    TUNED_WEIGHTS,
    Evaluator,
    weighted_table,
)

#: Entropy of the tuning games' seed stream (disjoint from the evaluation seeds).
TUNE_ENTROPY = 20261123
NAMES = (*FEATURES, "lost")
START_LOST = 90.0  # the openness table's smallest line


def _seed(entropy: int, *key: int) -> int:
    return int(np.random.SeedSequence(entropy, spawn_key=key).generate_state(1)[0])


def game_seed(generation: int, index: int) -> int:
    """Seed of tuning game ``index`` of ``generation``."""
    return _seed(TUNE_ENTROPY, generation, index)


def decode(x) -> tuple[dict[str, float], float]:
    """A CMA-ES vector -> (feature weights, lost >= 0)."""
    weights = {name: float(v) for name, v in zip(FEATURES, x[:-1], strict=True)}
    return weights, abs(float(x[-1]))


def start_vector(start: str | None = None) -> np.ndarray:
    """Where the search starts: the openness evaluator, or ``"tuned"`` for the
    evaluator's current weights (:data:`TUNED_WEIGHTS`, :data:`TUNED_LOST`)."""
    if start is None:
        weights, lost = OPENNESS_WEIGHTS, START_LOST
    elif start == "tuned":
        weights, lost = TUNED_WEIGHTS, TUNED_LOST
    else:
        raise ValueError(f"start must be none or 'tuned', got {start!r}")
    return np.array([weights.get(n, 0.0) for n in FEATURES] + [lost])


def evaluator(weights: dict[str, float], lost: float) -> Evaluator:
    table = weighted_table(weights, lost)
    table.setflags(write=False)
    return Evaluator("features", "Threes", table, 0.0, "eval")


def play(ev: Evaluator, seeds: list[int], depth: int) -> list[int]:
    """Final score of one game per seed: ``expectimax`` at ``depth`` using ``ev``."""
    import gymnasium as gym

    import playahead  # noqa: F401  (registers the envs)
    from playahead.planners.expectimax import ExpectimaxAgent

    env = gym.make("Threes-v0").unwrapped
    agent = ExpectimaxAgent(depth=depth, evaluator=ev, seed=0)
    scores = []
    for seed in seeds:
        env.reset(seed=seed)
        info = {"score": 0}
        while True:
            _, _, term, trunc, info = env.step(agent.act(env))
            if term or trunc:
                break
        scores.append(int(info["score"]))
    return scores


def _strategy(popsize: int, seed: int, sigma: float, start: str | None = None):
    from playahead._extras import require

    cma = require("cma", "python -m benchmarks tune-threes")

    opts = {"popsize": popsize, "seed": seed, "verbose": -9}
    return cma.CMAEvolutionStrategy(start_vector(start), sigma, opts)


def run(
    out: Path,
    generations: int,
    popsize: int,
    games: int,
    depth: int,
    seed: int = 1,
    sigma: float = 2.0,
    progress=print,
    start: str | None = None,
) -> dict:
    """Run (or resume) the tuning; returns the contents of ``best.json``."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.jsonl"
    settings = {
        "popsize": popsize,
        "games": games,
        "depth": depth,
        "seed": seed,
        "sigma": sigma,
    }
    if start is not None:
        settings["start"] = start
        settings["start_x"] = [float(v) for v in start_vector(start)]
    done = []
    if log.exists():
        done = [json.loads(line) for line in log.read_text().splitlines() if line]
    es = _strategy(popsize, seed, sigma, start)
    for record in done:
        if record["settings"] != settings:
            raise ValueError(
                f"{log} was written with {record['settings']}, not {settings}; "
                "use another --out or the same options"
            )
        xs = es.ask()
        logged = np.array([c["x"] for c in record["candidates"]])
        if not np.allclose(np.array(xs), logged):
            raise ValueError(f"{log} does not replay (cma version or options changed)")
        es.tell(xs, [-c["mean"] for c in record["candidates"]])
    for generation in range(len(done), generations):
        seeds = [game_seed(generation, i) for i in range(games)]
        xs = es.ask()
        candidates = []
        start = time.process_time()
        for x in xs:
            weights, lost = decode(x)
            scores = play(evaluator(weights, lost), seeds, depth)
            candidates.append(
                {
                    "x": [float(v) for v in x],
                    "scores": scores,
                    "mean": float(np.mean(scores)),
                }
            )
        es.tell(xs, [-c["mean"] for c in candidates])
        record = {
            "generation": generation,
            "settings": settings,
            "seeds": seeds,
            "cpu_seconds": round(time.process_time() - start, 2),
            "candidates": candidates,
            "mean_x": [float(v) for v in es.mean],
        }
        with log.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
        means = [c["mean"] for c in candidates]
        progress(
            f"generation {generation}: best {max(means):,.0f}, "
            f"median {np.median(means):,.0f} ({record['cpu_seconds']:.0f} CPU s)"
        )
    weights, lost = decode(es.mean)
    best = {
        "weights": weights,
        "lost": lost,
        "generations": max(generations, len(done)),
        "settings": settings,
    }
    (out / "best.json").write_text(json.dumps(best, indent=2) + "\n")
    return best


#: Entropy of the seeds of :func:`compare` (neither tuning nor evaluation games).
COMPARE_ENTROPY = 777


def compare(out: Path, depth: int, games: int) -> dict:
    """Play the distribution mean of ``out``'s last logged generation against the
    evaluator's current tuned weights on the same ``games`` seeded games at ``depth``;
    writes and returns ``<out>/compare-d<depth>.json`` (per-game scores of both, the
    mean paired difference and its normal 95% interval)."""
    from playahead.planners.evaluators import get_evaluator

    lines = (out / "log.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    weights, lost = decode(np.array(last["mean_x"]))
    seeds = [_seed(COMPARE_ENTROPY, i) for i in range(games)]
    mine = play(evaluator(weights, lost), seeds, depth)
    tuned = play(get_evaluator("features", "Threes"), seeds, depth)
    diff = np.array(mine, dtype=float) - np.array(tuned, dtype=float)
    half = 1.96 * diff.std(ddof=1) / np.sqrt(games) if games > 1 else float("nan")
    result = {
        "command": f"python -m benchmarks tune-threes --compare {out.as_posix()} "
        f"--depth {depth} --games {games}",
        "generation": last["generation"],
        "depth": depth,
        "seeds": seeds,
        "log_mean": mine,
        "tuned": tuned,
        "mean_difference": float(diff.mean()),
        "ci95": [float(diff.mean() - half), float(diff.mean() + half)],
    }
    (out / f"compare-d{depth}.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks tune-threes")
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--popsize", type=int, default=10)
    parser.add_argument("--games", type=int, default=60, help="games per candidate")
    parser.add_argument("--depth", type=int, default=1, help="expectimax depth")
    parser.add_argument("--seed", type=int, default=1, help="CMA-ES seed")
    parser.add_argument("--sigma", type=float, default=2.0, help="initial step size")
    parser.add_argument("--out", type=Path, default=Path("runs/tune-threes"))
    parser.add_argument(
        "--start",
        choices=["tuned"],
        help="start from the evaluator's current tuned weights (default: openness)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="play DIR's last distribution mean against the tuned weights instead",
    )
    args = parser.parse_args(argv)
    for name in ("generations", "popsize", "games"):
        if not 1 <= getattr(args, name) <= 100_000:
            parser.error(f"--{name} must be in 1..100000")
    if not 0 <= args.depth <= 4:
        parser.error("--depth must be in 0..4")
    if args.compare is not None:
        r = compare(args.compare, args.depth, args.games)
        print(
            f"generation {r['generation']} mean {np.mean(r['log_mean']):,.0f}, tuned "
            f"{np.mean(r['tuned']):,.0f}: difference {r['mean_difference']:,.0f}, "
            f"95% CI [{r['ci95'][0]:,.0f}, {r['ci95'][1]:,.0f}]"
        )
        return
    best = run(
        args.out,
        args.generations,
        args.popsize,
        args.games,
        args.depth,
        args.seed,
        args.sigma,
    )
    print(json.dumps(best, indent=2))
