"""The calibration of the default search's values to expected final scores.

    python -m benchmarks calibration --game threes|2048 [--games N] [--openings MOVES]
        [--replay-only]

1. **Replay.** Games ``0 .. N-1`` of the committed default record
   (``benchmarks/results/strength/{game}-default.json``: ``playahead evaluate
   --agents expectimax --seed 0``) are played again as the record played them
   (:func:`playahead.agents.game_seeds`, one agent built from the record's spec per
   game, ``analyze`` deciding every move as ``act`` does). Every :data:`STRIDE`-th
   position is kept: its move number, the score so far and the search's value of the
   move it plays (the largest value, the one ``hint`` lists first). Each game is
   appended as one line to ``benchmarks/results/calibration/{game}-positions.jsonl``
   with its final score and the record's (equal when the code plays as the record
   did); a game already there is not played again. ``--openings MOVES`` plays only the
   first MOVES moves (every :data:`OPENING_STRIDE`-th position kept) into
   ``{game}-openings.jsonl``, with the record's final score: cheap positions of many
   games, where the final score varies most.
2. **Fit.** On the replayed games below :data:`HELD_OUT_FROM` (a whole game where
   there is one, else its opening), the map of
   :func:`playahead.tools.calibration.to_points` (:func:`fit_map`), written to
   ``playahead/data/calibration.json``: the map the tools show.
3. **Measure.** The shipped map on the held-out games, from :data:`HELD_OUT_FROM`
   on, which the fit never saw. The shown values (and, before, the search's own) are
   binned by decile; each bin's mean shown value is compared with the mean final
   score of its positions, whose 95% interval resamples whole games (:func:`bins`).
   Written to ``benchmarks/results/calibration/{game}.json`` (``bins``; ``before``),
   drawn as a reliability diagram into ``docs/calibration-{game}.png`` and tabled in
   docs/tools.md.

   The held-out games are a fixed set rather than each game in turn
   (leave-one-game-out): a map fitted on the other games is lower where the held-out
   game scored high, since its cells' means lose that game, so binning by the shown
   value sorts the high-scoring games into the low bins. ``--null-check`` prints
   both measurements' bins with the final scores shuffled among the games
   (:func:`null_check`): the low bins of the leave-one-game-out measurement stand
   further above zero (the top bin is off in both, as a shuffled final can fall below
   the score already made).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "calibration"
STRENGTH = ROOT / "benchmarks" / "results" / "strength"
IMAGES = ROOT / "docs"
#: Every STRIDE-th position of a replayed game is kept (position 0 included).
STRIDE = {"threes": 5, "2048": 40}
#: ... of a game's opening (``--openings``).
OPENING_STRIDE = {"threes": 3, "2048": 20}
ENV_IDS = {"threes": "Threes-v0", "2048": "2048-v0"}
#: Goal of the measurement: every bin's mean final score within this share of its
#: mean shown value.
GOAL = 0.10
BINS = 10
#: Games of the record from this index on are held out: measured, never fitted.
HELD_OUT_FROM = {"threes": 300, "2048": 150}
#: Bootstrap draws of a bin's interval (:func:`bins`).
RESAMPLES = 2000


def positions_path(game: str, openings: bool = False) -> Path:
    """The replayed games' file: whole games, or (``openings``) openings only."""
    return RESULTS / f"{game}-{'openings' if openings else 'positions'}.jsonl"


def read_positions(game: str) -> dict[int, dict]:
    """The replayed games so far, by game index: a whole game where there is one,
    else its opening."""
    games: dict[int, dict] = {}
    for openings in (True, False):
        path = positions_path(game, openings)
        if path.exists():
            for line in _whole_lines(path):
                row = json.loads(line)
                games[row["index"]] = row
    return games


def _whole_lines(path: Path) -> list[str]:
    """The lines of an append-only file, without a last line cut short by a kill
    (one that does not end the file with a newline)."""
    text = path.read_text()
    lines = text.split("\n")
    return [line for line in lines[:-1] if line.strip()]


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line that a kill left without its newline, before appending."""
    if path.exists():
        text = path.read_text()
        if text and not text.endswith("\n"):
            path.write_text(text[: text.rfind("\n") + 1])


def replay_game(game: str, record: dict, index: int, upto: int | None = None):
    """Play game ``index`` of ``record`` again (its first ``upto`` moves, None: to
    the end); its kept positions and final score (the record's when not played to the
    end)."""
    import gymnasium as gym

    import playahead  # noqa: F401  (registers the envs and agents)
    from playahead.agents import build_agent, game_seeds

    env_seed, agent_seed, _ = game_seeds(record["seed"], index)
    env = gym.make(record["env"])
    _, info = env.reset(seed=env_seed)
    agent = build_agent(record["agent"], agent_seed)
    stride = STRIDE[game] if upto is None else OPENING_STRIDE[game]
    kept, move, over = [], 0, False
    while upto is None or move < upto:
        if not env.unwrapped.action_masks().any():
            over = True
            break
        analysis = agent.analyze(env.unwrapped)
        if move % stride == 0:
            best = float(np.nanmax(analysis.values))
            kept.append([move, int(info["score"]), round(best, 1)])
        _, _, terminated, truncated, info = env.step(int(analysis.action))
        move += 1
        if terminated or truncated:
            over = True
            break
    env.close()
    recorded = int(record["games"][index]["score"])
    row = {"index": index, "final": int(info["score"]) if over else recorded}
    if not over:
        row["final_from"] = "record"
    return row | {"record_score": recorded, "moves": move, "positions": kept}


def replay(game: str, n_games: int, upto: int | None = None, first: int = 0) -> None:
    """Replay games ``first .. n_games-1`` not yet in the file (whole, or their first
    ``upto`` moves)."""
    record = json.loads((STRENGTH / f"{game}-default.json").read_text())
    done = read_positions(game)
    if upto is None:  # a whole game is played even where its opening was
        done = {i: g for i, g in done.items() if "final_from" not in g}
    RESULTS.mkdir(parents=True, exist_ok=True)
    for index in range(first, min(n_games, len(record["games"]))):
        if index in done:
            continue
        start = time.process_time()
        row = replay_game(game, record, index, upto)
        path = positions_path(game, upto is not None)
        _drop_torn_tail(path)
        with path.open("a") as out:
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
        same = "as recorded" if row["final"] == row["record_score"] else "DIFFERS"
        what = "whole" if upto is None else "opening"
        print(
            f"{game} game {index} ({what}): {row['moves']} moves, final "
            f"{row['final']:,} ({same}), {time.process_time() - start:.0f} CPU s",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks calibration")
    parser.add_argument("--game", choices=sorted(STRIDE), required=True)
    parser.add_argument("--games", type=int, default=60, help="record games replayed")
    parser.add_argument(
        "--openings",
        type=int,
        metavar="MOVES",
        help="replay only the first MOVES moves of each game (the final score: the "
        "record's)",
    )
    parser.add_argument(
        "--first", type=int, default=0, help="the first game replayed (default 0)"
    )
    parser.add_argument("--replay-only", action="store_true")
    parser.add_argument(
        "--null-check",
        action="store_true",
        help="only print the held-out and the leave-one-game-out bins of the "
        "replayed games with their final scores shuffled (seed 0)",
    )
    args = parser.parse_args(argv)
    if args.null_check:
        for name, rows in null_check(args.game).items():
            print(name, " ".join(f"{r['final'] / r['shown'] - 1:+.1%}" for r in rows))
        return
    replay(args.game, args.games, args.openings, args.first)
    if args.replay_only:
        return
    fit(args.game)
    measure(args.game)


# ----------------------------------------------------------------- fit


def _arrays(games: list[dict]) -> tuple[np.ndarray, ...]:
    """``(score so far, search value, final score, game index)`` of every kept
    position of ``games``."""
    rows = [(p[1], p[2], g["final"], g["index"]) for g in games for p in g["positions"]]
    return tuple(np.array(column, dtype=float) for column in np.transpose(rows))


def fit_map(
    score: np.ndarray,
    ahead: np.ndarray,
    future: np.ndarray,
    n_scores: int = 8,
    n_knots: int = 12,
) -> dict:
    """The map of :func:`playahead.tools.calibration.to_points`: at the median score
    of each of ``n_scores`` quantile bins of the score so far, the points beyond what
    the search sees (``future - ahead``, ``ahead`` the best move's) as a function of
    ``ahead`` (means over ``n_knots`` quantile bins of ``ahead``: one offset a
    position, so it need not rise with ``ahead``), and a first knot at
    ``ahead = -score`` (the search sees the game lost) where the expected future is 0
    as far as ``h`` may fall there (``h = min(score, h at the first bin)``)."""
    by_score = np.array_split(np.argsort(score, kind="stable"), n_scores)
    out: dict = {"score": [], "x": [], "h": []}
    for rows in by_score:
        order = rows[np.argsort(ahead[rows], kind="stable")]
        groups = np.array_split(order, n_knots)
        x = np.array([ahead[g].mean() for g in groups])
        extra = np.array([(future[g] - ahead[g]).mean() for g in groups])
        h = extra
        centre = float(np.median(score[rows]))
        # below the data, toward a search that sees the game lost (value 0, ahead =
        # -score): the default scores nothing more there, where h stays monotone
        x = np.concatenate([[min(-centre, x[0] - 1.0)], x])
        h = np.concatenate([[min(centre, h[0])], h])
        out["score"].append(round(centre, 1))
        out["x"].append([round(float(v), 1) for v in x])
        out["h"].append([round(float(v), 1) for v in h])
    return out


def _fit(games: list[dict]) -> dict:
    score, value, final, _ = _arrays(games)
    return fit_map(score, value - score, final - score)


def _shown(game: str, fitted: list[dict], shown_on: list[dict]) -> tuple:
    """``(shown, search value, final score, game index)`` of every kept position of
    ``shown_on``, shown by the map fitted on ``fitted``."""
    from playahead.tools import calibration

    score, value, final, index = _arrays(shown_on)
    shown = calibration.to_points(game, score, value, _fit(fitted), best=value)
    return shown, value, final, index


def split(game: str, games: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """``games`` (default: the replayed ones) as ``(fitted, held_out)``: below
    :data:`HELD_OUT_FROM` and from it on, in game order."""
    if games is None:
        games = list(read_positions(game).values())
    games = sorted(games, key=lambda g: g["index"])
    cut = HELD_OUT_FROM[game]
    return [g for g in games if g["index"] < cut], [
        g for g in games if g["index"] >= cut
    ]


def fit(game: str) -> None:
    """Fit the map on the replayed games that are not held out and write it into
    ``calibration.json``."""
    from playahead.tools import calibration

    games, _ = split(game)
    record = json.loads((STRENGTH / f"{game}-default.json").read_text())
    data = json.loads(calibration.DATA.read_text()) if calibration.DATA.exists() else {}
    whole = sum("final_from" not in g for g in games)
    data[game] = {
        "evaluator": record["identity"]["options"]["evaluator"],
        "fitted_on": f"{sum(len(g['positions']) for g in games)} positions of "
        f"{len(games)} record games ({whole} whole, {len(games) - whole} openings) "
        f"below game {HELD_OUT_FROM[game]}: benchmarks/results/calibration/"
        f"{game}-*.jsonl",
        "command": f"python -m benchmarks calibration --game {game}",
        **_fit(games),
    }
    calibration.DATA.write_text(json.dumps(data, indent=1) + "\n")
    calibration.maps.cache_clear()
    print(f"{game}: fitted on {data[game]['fitted_on']}")


# ----------------------------------------------------------------- measure


def bins(
    shown: np.ndarray, final: np.ndarray, game: np.ndarray, n: int = BINS
) -> list[dict]:
    """Deciles of ``shown``: each bin's mean shown value, mean final score, number of
    positions, number of games they come from, and ``final_ci95``: the 95% interval
    of the mean final score with the games resampled (positions of one game share
    its final score, so a game, not a position, is the unit of the sample:
    :data:`RESAMPLES` draws of as many games with replacement, seeded 0, the same
    draws for every bin)."""
    order = np.argsort(shown, kind="stable")
    ids, which = np.unique(game, return_inverse=True)
    rng = np.random.default_rng(0)
    draws = rng.multinomial(ids.size, np.full(ids.size, 1 / ids.size), RESAMPLES)
    rows = []
    for g in np.array_split(order, n):
        total = np.bincount(which[g], weights=final[g], minlength=ids.size)
        count = np.bincount(which[g], minlength=ids.size).astype(float)
        weight = draws @ count
        means = (draws @ total)[weight > 0] / weight[weight > 0]
        lo, hi = np.percentile(means, [2.5, 97.5])
        rows.append(
            {
                "shown": round(float(shown[g].mean()), 1),
                "final": round(float(final[g].mean()), 1),
                "n": int(g.size),
                "games": int((count > 0).sum()),
                "final_ci95": [round(float(lo), 1), round(float(hi), 1)],
            }
        )
    return rows


def consistent(rows: list[dict]) -> int:
    """The bins whose ``final_ci95`` holds their mean shown value."""
    return sum(r["final_ci95"][0] <= r["shown"] <= r["final_ci95"][1] for r in rows)


def games_for_goal(rows: list[dict], games: int) -> int:
    """About how many games would make every bin's 95% interval no wider than the
    goal (half-width at most :data:`GOAL` of its shown value), the half-widths taken
    to shrink as one over the square root of the games: ``games`` times the largest
    ``(half-width / (GOAL * shown)) ** 2``."""
    ratio = max(
        (r["final_ci95"][1] - r["final_ci95"][0]) / 2 / (GOAL * r["shown"])
        for r in rows
    )
    return int(np.ceil(games * ratio**2))


def worst(rows: list[dict]) -> float:
    """The largest ``|final / shown - 1|`` over the bins."""
    return max(abs(r["final"] / r["shown"] - 1) for r in rows)


def measure(game: str) -> dict:
    """:func:`measurement`, written: the record, the reliability diagram and the
    docs' table."""
    result = measurement(game)
    (RESULTS / f"{game}.json").write_text(json.dumps(result, indent=1) + "\n")
    plot(game, result)
    write_page()
    print(
        f"{game}: {result['positions']} held-out positions of {result['games']} "
        f"games; worst bin {result['worst_before']:.1%} off before, "
        f"{result['worst']:.1%} after"
    )
    return result


def measurement(game: str) -> dict:
    """The map fitted on the games below :data:`HELD_OUT_FROM` shown on the games from
    it on (whole games only: an opening's final score is not its own replay's), and
    the search's own values, binned."""
    fitted_games, held = split(game)
    held = [g for g in held if "final_from" not in g]
    if not held:
        raise ValueError(
            f"no held-out {game} game is replayed yet: run python -m benchmarks "
            f"calibration --game {game} --first {HELD_OUT_FROM[game]} --games N"
        )
    shown, value, final, index = _shown(game, fitted_games, held)
    after, before = bins(shown, final, index), bins(value, final, index)
    whole = [g for g in fitted_games + held if "final_from" not in g]
    matched = sum(g["final"] == g["record_score"] for g in whole)
    result = {
        "command": f"python -m benchmarks calibration --game {game}",
        "what": "positions of the default's held-out record games (from game "
        f"{HELD_OUT_FROM[game]} on), shown by the map fitted on the games before "
        "them, binned by decile of the shown value: mean shown value, mean final "
        "score, positions, games, and the final score's 95% interval with the games "
        "resampled; before: the search's own values binned the same way; "
        "consistent: the bins whose interval holds the shown value; games_for_goal: "
        "about how many held-out games would narrow every bin's interval to the goal",
        "fitted_games": len(fitted_games),
        "held_out_from": HELD_OUT_FROM[game],
        "games": len(held),
        "whole_games": len(whole),
        "whole_games_as_recorded": matched,
        "positions": int(len(shown)),
        "goal": GOAL,
        "worst": round(worst(after), 4),
        "worst_before": round(worst(before), 4),
        "consistent": consistent(after),
        "games_for_goal": games_for_goal(after, len(held)),
        "bins": after,
        "before": before,
    }
    return result


def null_check(game: str, seed: int = 0) -> dict[str, list[dict]]:
    """Both measurements where the map has nothing to find: the replayed whole games'
    final scores shuffled among them (``seed``). The bins of the held-out games
    under the map fitted on the others, and of every game under the map fitted on all
    the rest (leave-one-game-out)."""
    games = [g for g in read_positions(game).values() if "final_from" not in g]
    finals = np.random.default_rng(seed).permutation([g["final"] for g in games])
    games = [g | {"final": int(f)} for g, f in zip(games, finals, strict=True)]
    shown, _, final, index = _shown(game, *split(game, games))
    out = {"held-out": bins(shown, final, index)}
    parts = [_shown(game, [h for h in games if h is not g], [g]) for g in games]
    shown, _, final, index = (np.concatenate(c) for c in zip(*parts, strict=True))
    out["leave-one-game-out"] = bins(shown, final, index)
    return out


PAGE = ROOT / "docs" / "tools.md"
MARKER = re.compile(
    r"(<!-- table:calibration -->\n).*?(<!-- /table:calibration -->)", re.S
)


def table() -> str:
    """The docs' table of the committed measurements."""
    lines = [
        "| game | fitted on (games) | held-out positions (games) | worst bin before | "
        "worst bin after | bins within ±10% | bins whose 95% interval holds the shown "
        "value | held-out games for ±10% intervals (estimate) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for game, name in (("threes", "Threes"), ("2048", "2048")):
        path = RESULTS / f"{game}.json"
        if not path.exists():
            continue
        r = json.loads(path.read_text())
        inside = sum(abs(b["final"] / b["shown"] - 1) <= r["goal"] for b in r["bins"])
        lines.append(
            f"| {name} | {r['fitted_games']} | {r['positions']:,} ({r['games']}) | "
            f"{r['worst_before']:.0%} | "
            f"{r['worst']:.0%} | {inside} of {len(r['bins'])} | "
            f"{r['consistent']} of {len(r['bins'])} | {r['games_for_goal']:,} |"
        )
    return "\n".join(lines) + "\n"


def write_page() -> None:
    text = PAGE.read_text()
    new, n = MARKER.subn(lambda m: m.group(1) + table() + m.group(2), text)
    if n == 1:
        PAGE.write_text(new)


def plot(game: str, result: dict) -> Path:
    """The reliability diagram: mean final score against mean shown value per bin,
    before and after the map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, ax = plt.subplots(figsize=(5.2, 4.4), layout="constrained")
    top = max(max(r["final"], r["shown"]) for r in result["bins"] + result["before"])
    ax.plot([0, top], [0, top], color="grey", lw=0.8, label="final = shown")
    ax.fill_between(
        [0, top],
        [0, top * (1 - GOAL)],
        [0, top * (1 + GOAL)],
        color="grey",
        alpha=0.15,
        label=f"±{GOAL:.0%}",
    )
    rows = result["before"]
    ax.plot([r["shown"] for r in rows], [r["final"] for r in rows], "s--", ms=4)
    ax.lines[-1].set_label("search value (before)")
    rows = result["bins"]
    final = np.array([r["final"] for r in rows])
    spread = np.abs(np.array([r["final_ci95"] for r in rows]).T - final)
    ax.errorbar(
        [r["shown"] for r in rows],
        final,
        yerr=spread,
        fmt="o-",
        ms=4,
        capsize=2,
        label="shown value (calibrated), 95% interval",
    )
    thousands = FuncFormatter(lambda v, _: f"{v / 1000:,.0f}k")
    ax.xaxis.set_major_formatter(thousands)
    ax.yaxis.set_major_formatter(thousands)
    ax.set_xlabel("mean shown value (decile bin)")
    ax.set_ylabel("mean final score")
    ax.set_title(
        f"{game}: {result['positions']:,} held-out positions, {result['games']} games"
    )
    ax.legend(fontsize="small")
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / f"calibration-{game}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
