"""Every generated results table of the README and the docs, from the committed records.

    python -m benchmarks tables           # rewrite the tables in the pages
    python -m benchmarks tables --check   # exit 1, naming each stale page and table

A generated table sits in its page between ``<!-- table:NAME -->`` and
``<!-- /table:NAME -->``; :data:`TABLES` says how each NAME is rendered, from which
files under ``benchmarks/results/`` (the strength files, ``comparison/``, ``readme/``,
``deeprl/``, ``leaves/``, ``ntuple-*/``). The strength and comparison tables are the
renderers of :mod:`benchmarks.records.strength` and :mod:`benchmarks.records.comparison`. A page links a
record where GitHub can follow the link (the README); the docs name it as a path.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PAGES = ("README.md", "docs/results.md", "docs/speed.md")
MARKER = re.compile(
    r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.S
)


def _load(path: str) -> dict:
    return json.loads((RESULTS / path).read_text())


def _num(x: float) -> str:
    return f"{x:,.0f}"


def _ci(ci) -> str:
    return f"[{ci[0]:,.0f}, {ci[1]:,.0f}]"


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2g}" if ms < 1 else f"{ms:.1f}" if ms < 10 else f"{ms:,.0f}"


def _table(head: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _paired(data: dict, a: str, b: str) -> tuple[float, list[float]] | None:
    """``a - b`` over the same games and its 95% CI, from a record's ``pairs``."""
    for p in data["pairs"]:
        if (p["a"], p["b"]) in ((a, b), (b, a)):
            sign = 1 if p["a"] == a else -1
            lo, hi = sorted(sign * x for x in p["ci95"])
            return sign * p["mean_difference"], [lo, hi]
    return None


def _reach(agent: dict, tiles: list[str]) -> list[str]:
    return [f"{100 * agent['milestones'][t]:.0f}%" for t in tiles]


def single_table(
    data: dict,
    labels: dict[str, str] | None = None,
    tiles: list[str] | None = None,
    versus: str | None = None,
    specs: list[str] | None = None,
) -> str:
    """One row per agent of a one-player evaluator record: mean, 95% CI, median, the
    share of games reaching ``tiles`` (default: the two highest any agent reached),
    ms/move and, with ``versus``, the paired difference against that agent."""
    labels = labels or {}
    agents = [a for a in data["agents"] if specs is None or a["spec"] in specs]
    if tiles is None:
        reached = [
            t
            for t in data["agents"][0]["milestones"]
            if any(a["milestones"][t] for a in agents)
        ]
        tiles = reached[-2:] or list(data["agents"][0]["milestones"])[:1]
    head = ["agent", "games", "mean", "95% CI", "median"]
    head += [f"reached {t}" for t in tiles] + ["ms/move"]
    if versus:
        head.append(f"vs {labels.get(versus, versus)}, paired")
    rows = []
    for a in agents:
        row = [labels.get(a["spec"], f"`{a['spec']}`"), str(a["games"])]
        row += [_num(a["mean"]), _ci(a["ci95"]), _num(a["median"])]
        row += _reach(a, tiles) + [_ms(a["seconds_per_move"])]
        if versus:
            d = _paired(data, a["spec"], versus) if a["spec"] != versus else None
            row.append(f"{d[0]:+,.0f} {_ci(d[1])}" if d else "")
        rows.append(row)
    return _table(head, rows)


def elo_table(data: dict, labels: dict[str, str], versus: str) -> str:
    """A two-player round robin: Elo with its 95% CI, W-D-L over all games and
    against ``versus``."""
    head = ["agent", "Elo", "95% CI", "W-D-L", f"vs {labels.get(versus, versus)}"]
    rows = []
    for p in sorted(data["agents"], key=lambda p: -p["elo"]):
        vs = ""
        for r in data["pairs"]:
            if p["spec"] != versus and {r["a"], r["b"]} == {p["spec"], versus}:
                w, d, l_ = r["wins"], r["draws"], r["losses"]
                vs = f"{w}-{d}-{l_}" if r["a"] == p["spec"] else f"{l_}-{d}-{w}"
        lo, hi = p["elo_ci95"]
        rows.append(
            [
                labels.get(p["spec"], f"`{p['spec']}`"),
                f"{p['elo']:.0f}",
                f"[{lo:.0f}, {hi:.0f}]",
                f"{p['wins']}-{p['draws']}-{p['losses']}",
                vs,
            ]
        )
    return _table(head, rows)


# ------------------------------------------------------------------------ tables
#: The README's one table, search against learning: (row label, Threes spec, 2048
#: spec), each from the comparison records.
HEADLINE = [
    ("random", "random", "random"),
    ("greedy (one move)", "greedy", "greedy"),
    (
        "flat Monte Carlo (1000 / 200 rollouts)",
        "mc:n_rollouts=1000",
        "mc:n_rollouts=200",
    ),
    (
        "MCTS (2000 / 200 simulations)",
        "mcts:n_simulations=2000",
        "mcts:n_simulations=200",
    ),
    (
        "expectimax depth 2, hand-made evaluator",
        "expectimax:depth=2,evaluator=features",
        "expectimax:depth=2",
    ),
    (
        "n-tuple net (Threes: TD(0); 2048: TD(lambda)+TC+restarts), greedy",
        "ntuple:path=runs/threes-nt-split-lr025",
        "ntuple:path=runs/2048-nt-20k",
    ),
    (
        "expectimax depth 2, n-tuple net at the leaves (the same 2048 net)",
        "expectimax:depth=2,evaluator=ntuple:path=runs/threes-nt-6m",
        "expectimax:depth=2,evaluator=ntuple:path=runs/2048-nt-20k",
    ),
    (
        "MaskablePPO, 10M steps (2048: shaped reward, padded encoder)",
        "ppo:path=runs/threes-ppo-10m/model.zip",
        "ppo:path=runs/2048-ppo-shaped-p1/model.zip",
    ),
    (
        "masked DQN (10M / 1M steps)",
        "dqn:path=runs/threes-dqn-10m/model.zip",
        "dqn:path=runs/2048-dqn-1m/model.zip",
    ),
]


def _cost(data: dict, spec: str) -> str:
    cost = (data.get("training", {}).get(spec) or {}).get("cost")
    if not cost:
        return "-"
    if "cpu_minutes" in cost:
        return f"{cost['cpu_minutes']:.0f} CPU min"
    return f"{cost['wall_minutes']:.0f} min wall"


COMPARISON = "benchmarks/results/comparison/"


def headline(link: Callable[[str, str], str]) -> str:
    """Search against learning on both tile games, from ``comparison/*.json``."""
    records = [_load("comparison/Threes-v0.json"), _load("comparison/2048-v0.json")]
    by_spec = [{a["spec"]: a for a in r["agents"]} for r in records]
    head = ["agent", "Threes-v0: mean [95% CI]", "2048-v0: mean [95% CI]"]
    head += ["ms/move", "training"]
    rows = []
    for label, *specs in HEADLINE:
        cells = [label]
        for spec, agents in zip(specs, by_spec, strict=True):
            a = agents[spec]
            cells.append(f"{_num(a['mean'])} {_ci(a['ci95'])}")
        cells.append(
            " / ".join(
                _ms(agents[spec]["seconds_per_move"])
                for spec, agents in zip(specs, by_spec, strict=True)
            )
        )
        costs = [_cost(r, s) for r, s in zip(records, specs, strict=True)]
        cells.append("" if costs == ["-", "-"] else " / ".join(costs))
        rows.append(cells)
    games = {r["n_games"] for r in records}
    return (
        f"{' / '.join(map(str, sorted(games)))} seeded games per agent and game, the "
        "same games for every agent; two figures in a cell are Threes / 2048; every "
        f"game in {link(COMPARISON, 'the comparison records')}.\n\n"
        + _table(head, rows)
    )


def comparison_table(env: str) -> Callable[[Callable], str]:
    """The full comparison table of ``env`` (:func:`benchmarks.records.comparison.markdown`)."""

    def render(link):
        from benchmarks.records import comparison

        data = _load(f"comparison/{env}.json")
        specs = {a["spec"] for a in data["agents"]}
        entries = [e for e in comparison.AGENTS[env] if e.spec in specs]
        return comparison.markdown(env, entries, data).rstrip("\n")

    return render


def demo(link) -> str:
    """The demo's record: ``head-to-head/demo-2048.json`` (``playahead demo --record``)."""
    from playahead.tools.demo import label

    data = _load("head-to-head/demo-2048.json")
    labels = {a["spec"]: label(a["spec"]) for a in data["agents"]}
    t = data.get("training", {})
    cost = []
    if "ntuple" in t:
        cost.append(
            f"the n-tuple net trained {t['ntuple']['games']:,} games in "
            f"{t['ntuple']['cpu_seconds']:.0f} CPU s"
        )
    if "ppo" in t:
        cost.append(
            f"MaskablePPO {t['ppo']['steps']:,} steps in "
            f"{t['ppo']['cpu_seconds']:.0f} CPU s"
        )
    learned = [a["spec"] for a in data["agents"] if "path=" in a["spec"]]
    search = [
        a["spec"]
        for a in data["agents"]
        if "path=" not in a["spec"] and a["spec"] not in ("random", "greedy")
    ]
    return (
        f"`{data['command']}`: {data['n_games']} seeded games per agent, seed "
        f"{data['seed']}; {'; '.join(cost)}.\n\n"
        + single_table(data, labels, versus="greedy")
        + "\n\nEach learned agent against each planner, paired over the same games "
        "(row - column, 95% CI):\n\n" + pair_matrix(data, learned, search, labels)
    )


def pair_matrix(data: dict, rows: list[str], cols: list[str], labels: dict) -> str:
    """``row - column`` over the same games with its 95% CI, for every pair."""
    head = ["", *(labels.get(c, c) for c in cols)]
    body = []
    for r in rows:
        cells = []
        for c in cols:
            d, ci = _paired(data, r, c)
            cells.append(f"{d:+,.0f} {_ci(ci)}")
        body.append([labels.get(r, r), *cells])
    return _table(head, body)


def eval_2048(link) -> str:
    data = _load("head-to-head/eval-2048.json")
    labels = {
        "mc:n_rollouts=50": "mc, 50 rollouts per decision",
        "mc:n_rollouts=200": "mc, 200 rollouts per decision",
        "mcts:n_simulations=200": "mcts, 200 simulations",
        "expectimax:max_depth=2": "expectimax, depth 2",
    }
    return single_table(data, labels, tiles=["2048", "4096"], versus="greedy")


def _deeprl(path: str, spec: str) -> tuple[dict, dict]:
    data = _load(f"deeprl/{path}")
    return data, next(a for a in data["agents"] if a["spec"] == spec)


#: The 10M-step table: (record, spec, label).
DEEPRL = [
    ("ppo-2048-10m.json", "ppo:path=runs/2048-ppo-10m/model.zip", "MaskablePPO"),
    ("ppo-threes-10m.json", "ppo:path=runs/threes-ppo-10m/model.zip", "MaskablePPO"),
    ("dqn-threes-10m.json", "dqn:path=runs/threes-dqn-10m/model.zip", "masked DQN"),
    (
        "ppo-2048-shaped-seeds.json",
        "ppo:path=runs/2048-ppo-shaped-10m/model.zip",
        "MaskablePPO, shaped reward, seed 0",
    ),
    (
        "ppo-2048-shaped-seeds.json",
        "ppo:path=runs/2048-ppo-shaped-10m-s1/model.zip",
        "MaskablePPO, shaped reward, seed 1",
    ),
    (
        "ppo-2048-shaped-seeds.json",
        "ppo:path=runs/2048-ppo-shaped-10m-s2/model.zip",
        "MaskablePPO, shaped reward, seed 2",
    ),
    (
        "ppo-2048-shaped-padded.json",
        "ppo:path=runs/2048-ppo-shaped-p1/model.zip",
        "MaskablePPO, shaped reward, padded encoder, seed 0",
    ),
    (
        "ppo-2048-shaped-padded.json",
        "ppo:path=runs/2048-ppo-shaped-p1-s1/model.zip",
        "MaskablePPO, shaped reward, padded encoder, seed 1",
    ),
]


def deeprl(link) -> str:
    """The 10M-step deep-RL runs, each on 100 seeded games beside greedy."""
    head = ["env", "agent, 10M steps", "games", "mean", "95% CI", "vs greedy, paired"]
    head.append("largest tiles reached")
    rows = []
    for path, spec, label in DEEPRL:
        data, a = _deeprl(path, spec)
        d, ci = _paired(data, spec, "greedy")
        reached = [(t, v) for t, v in a["milestones"].items() if v > 0][-2:]
        rows.append(
            [
                data["env_id"],
                label,
                str(a["games"]),
                _num(a["mean"]),
                _ci(a["ci95"]),
                f"{d:+,.0f} {_ci(ci)}",
                ", ".join(f"{t} in {100 * v:.0f}%" for t, v in reached),
            ]
        )
    return _table(head, rows, right_from=2)


def leaves(path: str, pairs: list[tuple[str, str]]) -> Callable[[Callable], str]:
    """A leaves record's agents and the paired differences of ``pairs``."""

    def render(link):
        data = _load(f"leaves/{path}")
        table = single_table(data)
        rows = []
        for a, b in pairs:
            d, ci = _paired(data, a, b)
            rows.append([f"`{a}`", f"`{b}`", f"{d:+,.0f}", _ci(ci)])
        return (
            table
            + "\n\nPaired, A - B over the same games:\n\n"
            + _table(["A", "B", "A - B", "95% CI"], rows, right_from=2)
        )

    return render


LEAVES_THREES = [
    (
        "expectimax:depth=1,evaluator=ntuple:path=runs/threes-nt-2m",
        "expectimax:depth=1",
    ),
    (
        "expectimax:depth=2,evaluator=ntuple:path=runs/threes-nt-2m",
        "expectimax:depth=2",
    ),
    ("ntuple:path=runs/threes-nt-2m", "mc:n_rollouts=1000"),
]
LEAVES_2048 = [
    ("expectimax:depth=1,evaluator=ntuple:path=runs/2048-nt-100k", "expectimax:depth=1")
]


def ntuple_2048(link) -> str:
    """The 100k-game 2048 net on 1,000 held-out games (``ntuple-2048/``)."""
    ev = _load("ntuple-2048/eval-1000.json")
    model = _load("ntuple-2048/model.json")
    s, games = ev["summary"], ev["games"]
    tiles = (2048, 4096, 8192)
    head = ["games", "mean", "SEM"] + [f"reached {t}" for t in tiles]
    head += ["training", "TD updates", "CPU s"]
    row = [str(s["games"]), _num(s["score_mean"]), _num(s["score_sem"])]
    row += [
        f"{100 * sum(g['max_tile'] >= t for g in games) / len(games):.1f}%"
        for t in tiles
    ]
    row += [f"{model['games']:,} games", f"{model['updates']:,}"]
    row.append(f"{model['cpu_seconds']:,.0f}")
    return _table(head, [row], right_from=0)


def strength(link) -> str:
    """:func:`benchmarks.records.strength.readme_table`, records named as paths."""
    from benchmarks.records import strength as s

    table = s.readme_table(RESULTS / "strength")
    return re.sub(r"\[([^\]]+)\]\(benchmarks/results/[^)]+\)", r"\1", table)


#: Settings compared on the games both played (:func:`benchmarks.records.strength.paired`);
#: a pair whose records are not (yet) there is left out.
STRENGTH_PAIRS = [
    ("threes-default", "threes-d4-cut1e-4"),
    ("threes-default", "threes-auto6-cut1e-3"),
    ("threes-d6-cut1e-3", "threes-d4-cut1e-4"),
    ("threes-d5-cut1e-3", "threes-d4-cut1e-4"),
    ("threes-features-d3", "threes-openness-d3"),
    ("threes-features-d4", "threes-d4-cut1e-4"),
    ("threes-ntuple-d3", "threes-d4-cut1e-4"),
    ("threes-ntuple-greedy", "threes-mc1000"),
    ("threes-d6-cut1e-3", "threes-d5-cut1e-3"),
    ("threes-features-d4", "threes-features-d3"),
    ("threes-ntuple-d3", "threes-features-d3"),
    ("threes-ntuple-d2-cut1e-2", "threes-features-d2-cut1e-2"),
    ("threes-ntuple-d3-cut1e-2", "threes-features-d3-cut1e-2"),
    ("threes-ntuple-d2-cut1e-3", "threes-ntuple-d2-cut1e-2"),
    ("threes-ntuple-d3-cut1e-2", "threes-ntuple-d2-cut1e-2"),
    ("threes-ntuple-d4-cut1e-2", "threes-ntuple-d3-cut1e-2"),
    ("threes-default", "threes-ntuple-d4-cut1e-2"),
    ("threes-default", "threes-d5-cut1e-3"),
    ("threes-default", "threes-d6-cut1e-3"),
]


def strength_paired(link) -> str:
    from benchmarks.records import strength as s

    rows = []
    for a, b in STRENGTH_PAIRS:
        if not all((RESULTS / "strength" / f"{x}.json").is_file() for x in (a, b)):
            continue  # a setting not (yet) recorded has no row, as in the table above
        p = s.paired(a, b, RESULTS / "strength")
        rows.append(
            [
                a,
                b,
                str(p["games"]),
                _num(p[a]),
                _num(p[b]),
                f"{p['difference']:+,.0f}",
                _ci(p["ci95"]),
            ]
        )
    head = ["A", "B", "games both played", "A mean", "B mean", "A - B", "95% CI"]
    return "`python -m benchmarks strength --setting A --paired B`:\n\n" + _table(
        head, rows, right_from=2
    )


def cutoffs(link) -> str:
    """The table of ``threes-cutoffs.md`` (``python -m benchmarks cutoffs``)."""
    text = (RESULTS / "cutoffs" / "threes-cutoffs.md").read_text()
    return "\n".join(x for x in text.splitlines() if x.startswith("|"))


def tictactoe(link) -> str:
    labels = {
        "minimax": "minimax (solved)",
        "ppo:path=runs/ttt-ppo-mcts/model.zip": "PPO trained against mcts",
        "mcts:n_simulations=50": "mcts, 50 simulations",
        "ppo:path=runs/ttt-ppo-random/model.zip": "PPO trained against random",
    }
    return elo_table(_load("head-to-head/eval-tictactoe.json"), labels, "minimax")


def connectfour(link) -> str:
    labels = {
        "mcts:n_simulations=200": "mcts, 200 simulations",
        "ppo:path=runs/c4-ppo/model.zip": "PPO, 300k steps against random",
    }
    return elo_table(
        _load("head-to-head/eval-connectfour.json"), labels, "mcts:n_simulations=200"
    )


def ntuple_speed(link) -> str:
    """The 10,000-game 2048 training run of ``ntuple-speed/`` and the fused-kernel
    benchmark recorded beside it."""
    m = _load("ntuple-speed/model.json")
    rate = m["updates"] / m["cpu_seconds"]
    row = [f"{m['games']:,}", f"{m['updates']:,}", f"{m['cpu_seconds']:.1f}"]
    row.append(f"{rate / 1e6:.2f} M")
    return _table(
        ["training games", "TD updates", "CPU s (kernel)", "updates per CPU s"],
        [row],
        right_from=0,
    )


def ntuple_fused(link) -> str:
    """The fused TD kernel against the unfused loop, as ``python -m benchmarks ntuple``
    printed it (the box table of ``ntuple-speed/README.md``)."""
    text = (RESULTS / "ntuple-speed" / "README.md").read_text()
    rows = [
        [c.strip() for c in line.strip("│").split("│")]
        for line in text.splitlines()
        if line.startswith("│")
    ]
    head = ["game", "measure", "ours", "baseline", "theirs", "ratio"]
    return _table(head, [r[: len(head)] for r in rows], right_from=2)


#: The Threes net's training steps (``ntuple-threes-staged/training-steps/``, each file a
#: ``playahead evaluate --json`` record of the net of that step on the same seeded
#: games): (file, step, the file it is compared with on the same games, or None).
THREES_NET_STEPS = [
    ("d2-interim-1278k.json", "the interim net shipped before: 1,278,000 games", None),
    (
        "d2-phase2-3000k.json",
        "phase 2 on to 3,000,000 games",
        "d2-interim-1278k.json",
    ),
    ("d2-phase2-3500k.json", "phase 2 on to 3,500,000 games", "d2-phase2-3000k.json"),
    (
        "d2-tc01-3500k.json",
        "from 3,000,000: TC at rate 0.1, to 3,500,000",
        "d2-phase2-3500k.json",
    ),
    (
        "d2-nt3starts-3500k.json",
        "from 3,000,000: round-1 positions, to 3,500,000",
        "d2-phase2-3500k.json",
    ),
    (
        "d2-nt3starts-4500k.json",
        "round-1 positions on to 4,500,000",
        "d2-nt3starts-3500k.json",
    ),
    (
        "d2-nt3starts-tc01-4500k.json",
        "round-1 positions, TC at 0.1 from 3,500,000, to 4,500,000",
        "d2-nt3starts-4500k.json",
    ),
    (
        "d3-nt3starts-tc01-4500k.json",
        "the same net, depth 3",
        "d2-nt3starts-tc01-4500k.json",
    ),
    (
        "d4-nt3starts-tc01-4500k.json",
        "the same net, depth 4",
        "d3-nt3starts-tc01-4500k.json",
    ),
    (
        "d3-ntc-7022k.json",
        "the net shipped: round-2 positions from 5,715,000, to 7,022,000",
        "d3-nt3starts-tc01-4500k.json",
    ),
    (
        "d3-late-greedy-8000k.json",
        "from 7,022,000: 90% of games from its 3072 and 6144 positions, to 8,000,000",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-late-search-7050k.json",
        "from 7,022,000: the same, every game played by depth-1 search, to 7,050,000",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-late-search-7122k.json",
        "that run on to 7,122,000",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-search-7050k.json",
        "from 7,022,000: round-2 positions as before, every game played by depth-1 "
        "search, to 7,050,500",
        "d3-ntc-7022k.json",
    ),
    ("d3-search-7124k.json", "that run on to 7,124,000", "d3-ntc-7022k.json"),
    ("d3-search-7175k.json", "that run on to 7,175,500", "d3-ntc-7022k.json"),
    (
        "d3-stagewise-7722k.json",
        "from 7,022,000: stage by stage, the last first: the 6144 stage from its "
        "positions, then the 3072 stage stopped at 6144, to 7,722,000",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-stagewise-8222k.json",
        "that run on: the 1536 stage stopped at 3072, to 8,222,000",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-tied-7022k.json",
        "the net shipped, its four preview codes tied (each the mean of codes 0-2)",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-control-7522k.json",
        "from 7,022,000: the shipped recipe on, to 7,522,000 (the control)",
        "d3-ntc-7022k.json",
    ),
    (
        "d3-nopreview-7522k.json",
        "from row 19 as a net without the preview index: the same recipe, to 7,522,000",
        "d3-control-7522k.json",
    ),
    (
        "d3-nopreview-search-7062k.json",
        "from row 19 as a net without the preview index: every game played by "
        "depth-1 search, to 7,062,000",
        "d3-tied-7022k.json",
    ),
    (
        "d3-nopreview-search-7240k.json",
        "that run on to 7,240,500",
        "d3-tied-7022k.json",
    ),
    (
        "d3-nopreview-search-7426k.json",
        "that run on to 7,426,000",
        "d3-nopreview-search-7240k.json",
    ),
    (
        "d3-nopreview-lr03-7550k.json",
        "that run from 7,450,000 at a base learning rate of 0.03 instead of 0.1, "
        "to 7,550,000",
        "d3-nopreview-search-7426k.json",
    ),
    (
        "d3-nopreview-lr01-7550k.json",
        "the same from 7,450,000 at 0.01, to 7,550,000",
        "d3-nopreview-search-7426k.json",
    ),
    (
        "d3-nopreview-lr03-7550k.json",
        "row 25's net, shipped next, against the net shipped before (row 10)",
        "d3-ntc-7022k.json",
    ),
]


def threes_net_steps(link) -> str:
    """Each training step of the Threes net: expectimax over it at a 0.01 cut-off on
    the same seeded games, and the paired difference with the step before."""
    from playahead.evaluate.stats import paired_difference

    folder = "ntuple-threes-staged/training-steps"
    head = ["net", "search", "games", "mean", "95% CI", "3072", "6144", "ms/move"]
    head.append("vs the row named, paired")
    rows, names = [], {}
    for i, (name, step, versus) in enumerate(THREES_NET_STEPS):
        data = _load(f"{folder}/{name}")
        agent = data["agents"][0]
        names[name] = str(i + 1)
        depth = re.search(r"depth=(\d+)", agent["spec"]).group(1)
        vs = ""
        if versus is not None:
            other = _load(f"{folder}/{versus}")["agents"][0]["scores"]
            n = min(len(other), len(agent["scores"]))  # game i: the same deal
            d, lo, hi = paired_difference(
                agent["scores"][:n], other[:n], np.random.default_rng(0), 2000
            )
            vs = f"{d:+,.0f} {_ci([lo, hi])} (row {names[versus]})"
        rows.append(
            [
                f"{i + 1}. {step}",
                f"depth {depth}",
                str(agent["games"]),
                _num(agent["mean"]),
                _ci(agent["ci95"]),
                *_reach(agent, ["3072", "6144"]),
                _ms(agent["seconds_per_move"]),
                vs,
            ]
        )
    return _table(head, rows, right_from=2)


#: Searches on the strength benchmark's first games, paired with the default's
#: record over the net shipped before (``ntuple-threes-staged/training-steps/``, a copy of
#: ``strength-threes-default.json`` as it stood then): (record there, label).
THREES_DEFAULT_SEARCHES = [
    ("search-d5-cut7e-3-seed0.json", "depth 5, cut-off 0.007, the same net"),
]
#: The default's record over the net shipped before (7,022,000 games).
THREES_DEFAULT_BEFORE = "ntuple-threes-staged/training-steps/default-7022k-seed0.json"
#: The default's records between that one and today's, in the order they were the
#: default: (record, its row's label, its name in the paired rows).
THREES_DEFAULT_LATER = [
    (
        f"ntuple-threes-staged/{phase}/default-{games}k-seed0.json",
        f"the default over {net}: the same search",
        f"the default over {net}",
    )
    for phase, games, net in [
        ("stage6144-to-8150k", 7550, "the net of 7,550,000 games"),
        ("stage6144-to-9150k", 8150, "the net of 8,150,000 games"),
        ("cutoff-from-3072", 9150, "the net of 9,150,000 games"),
    ]
] + [
    (
        "ntuple-threes-staged/cutoff-from-6144/default-late5e-3-seed0.json",
        "the default of phase 7: the same net, a 0.005 cut-off once a 3072 is on "
        "the board",
        "the default of phase 7",
    ),
    (
        "ntuple-threes-staged/stage6144-to-10150k/default-9150k-seed0.json",
        "the default of phase 8: the same net, a 0.004 cut-off once a 3072 is on "
        "the board and 0.003 once a 6144 is",
        "the default of phase 8",
    ),
]
#: The last row's search: the default of today, over the net shipped now.
THREES_DEFAULT_NOW = (
    "the default now: the same search over the net of 10,150,000 games (shipped now)"
)


def _record_row(label: str, games: list[dict]) -> tuple[list[str], np.ndarray]:
    from playahead.evaluate.stats import bootstrap_mean_ci

    scores = np.array([g["score"] for g in games], float)
    tops = np.array([g["max_tile"] for g in games])
    moves = np.array([g["moves"] for g in games], float)
    ms = float((np.array([g["ms_per_move"] for g in games]) * moves).sum())
    lo, hi = bootstrap_mean_ci(scores, np.random.default_rng(0), 2000)
    row = [
        label,
        str(len(games)),
        _num(scores.mean()),
        _ci([lo, hi]),
        f"{100 * (tops >= 3072).mean():.0f}%",
        f"{100 * (tops >= 6144).mean():.0f}%",
        _ms(ms / moves.sum() / 1000),
    ]
    return row, scores


def threes_default_searches(link) -> str:
    """The default Threes search over the net shipped before (the first games of its
    strength record) against a deeper search over the same net and against today's
    default (over the net shipped now) on the same games, paired."""
    from playahead.evaluate.stats import paired_difference

    before = _load(THREES_DEFAULT_BEFORE)
    games = sorted(before["games"], key=lambda g: g["index"])
    head = ["search", "games", "mean", "95% CI", "3072", "6144"]
    head += ["ms/move", "vs the default before, paired"]
    rows = []
    for name, label in THREES_DEFAULT_SEARCHES:
        agent = _load(f"ntuple-threes-staged/training-steps/{name}")["agents"][0]
        n = len(agent["scores"])
        base = games[:n]
        assert [g["index"] for g in base] == list(range(n)), "the record's games 0.."
        row, scores = _record_row(
            "the default before: depth 5, cut-off 0.01, over the net shipped before "
            f"(its record's games 0-{n - 1})",
            base,
        )
        rows.append([*row, ""])
        d, dlo, dhi = paired_difference(
            agent["scores"], scores, np.random.default_rng(0), 2000
        )
        rows.append(
            [
                label,
                str(n),
                _num(agent["mean"]),
                _ci(agent["ci95"]),
                *_reach(agent, ["3072", "6144"]),
                _ms(agent["seconds_per_move"]),
                f"{d:+,.0f} {_ci([dlo, dhi])}",
            ]
        )
    now = {g["index"]: g for g in _load("strength/threes-default.json")["games"]}
    common = [g for g in games if g["index"] in now]
    if common:
        row, scores = _record_row(
            f"the default before, on the {len(common)} games of the one now", common
        )
        rows.append([*row, ""])
        runs = []  # (whose default, its scores on the common games), in order
        for record, label, name in THREES_DEFAULT_LATER:
            later = {g["index"]: g for g in _load(record)["games"]}
            row, last = _record_row(label, [later[g["index"]] for g in common])
            d, dlo, dhi = paired_difference(
                last, scores, np.random.default_rng(0), 2000
            )
            rows.append([*row, f"{d:+,.0f} {_ci([dlo, dhi])}"])
            runs.append((name, last))
        row, mine = _record_row(THREES_DEFAULT_NOW, [now[g["index"]] for g in common])
        d, dlo, dhi = paired_difference(mine, scores, np.random.default_rng(0), 2000)
        rows.append([*row, f"{d:+,.0f} {_ci([dlo, dhi])}"])
        runs.append(("the default now", mine))
        for (before, old), (after, new) in itertools.pairwise(runs):
            d, dlo, dhi = paired_difference(new, old, np.random.default_rng(0), 2000)
            label = f"{after} against {before}, paired"
            rows.append([label, *[""] * 6, f"{d:+,.0f} {_ci([dlo, dhi])}"])
    return _table(head, rows, right_from=1)


#: Searches played on from the position where each of the default's games first
#: made a 6144 (``ntuple-threes-staged/stage6144-to-8150k/``: each file the record of ``python -m
#: playahead.ntuple.positions --from-positions``, one row per game, game i from
#: position i on the same deal): (file, label, the file it is compared with, or None).
THREES_LATE_GAME: list[tuple[str, str, str | None]] = [
    (
        "stage6144-to-8150k/late-7550k.json",
        "the net of 7,550,000 games, the default search",
        None,
    ),
    (
        "stage6144-to-8150k/late-stage6144-8150k.json",
        "its 6144 stage trained on from 6144 positions, to 8,150,000",
        "stage6144-to-8150k/late-7550k.json",
    ),
    (
        "stage6144-to-8150k/late-stage6144-8150k-cut3e-3.json",
        "the net of 8,150,000 games, the default search at a 0.003 cut-off",
        "stage6144-to-8150k/late-stage6144-8150k.json",
    ),
    (
        "stage6144-to-9150k/late-stage6144-9150k.json",
        "the same 6144 stage trained on to 9,150,000",
        "stage6144-to-8150k/late-stage6144-8150k.json",
    ),
    (
        "stage6144-to-9150k/late-stage6144-8150k-seed2.json",
        "the net of 8,150,000 games, the deals of seed 2",
        None,
    ),
    (
        "stage6144-to-9150k/late-stage6144-9150k-seed2.json",
        "the net of 9,150,000 games, the deals of seed 2",
        "stage6144-to-9150k/late-stage6144-8150k-seed2.json",
    ),
    (
        "cutoff-from-3072/late-default-now.json",
        "the default of phase 7 (row 4's net, a 0.005 cut-off), row 4's deals",
        "stage6144-to-9150k/late-stage6144-9150k.json",
    ),
    (
        "cutoff-from-6144/late-window.json",
        "row 7's search with an unseen bonus card weighed by the game's draw "
        "(bonus_odds=window), row 4's deals",
        "cutoff-from-3072/late-default-now.json",
    ),
    (
        "stage6144-to-10150k/late-depth6.json",
        "row 7's search one move deeper (max_depth=6), row 4's deals",
        "cutoff-from-3072/late-default-now.json",
    ),
]


def _played_on(records: list[tuple[str, str, str | None]]):
    """The records of a play-on table (files under ``ntuple-threes-staged/``), in order:
    ``(row number, label, games, compared)``, ``compared`` the games and number of
    the row named, or None. A compared row holds the same positions and deals."""
    loaded: dict[str, tuple[int, list]] = {}
    for number, (name, label, versus) in enumerate(records, 1):
        games = _load(f"ntuple-threes-staged/{name}")["games"]
        loaded[name] = (number, games)
        compared = None
        if versus is not None:
            compared = loaded[versus]
            assert len(compared[1]) == len(games), "the same positions and deals"
        yield number, label, games, compared


def _scores(games: list[dict]) -> np.ndarray:
    return np.array([g["score"] for g in games], float)


def threes_late_game(link) -> str:
    """Each net or search played on from the first 6144 of the default's games: the
    final score, how often a 12288 was made, and the paired difference."""
    from playahead.evaluate.stats import bootstrap_mean_ci, paired_difference

    head = ["net and search", "games", "mean final score", "95% CI", "12288"]
    head += ["moves on", "vs the row named, paired"]
    rows = []
    for number, label, games, compared in _played_on(THREES_LATE_GAME):
        mine = _scores(games)
        lo, hi = bootstrap_mean_ci(mine, np.random.default_rng(0), 2000)
        made = sum(g["max_tile"] >= 12288 for g in games)
        vs = ""
        if compared is not None:
            other, theirs = compared
            d, dlo, dhi = paired_difference(
                mine, _scores(theirs), np.random.default_rng(0), 2000
            )
            vs = f"{d:+,.0f} {_ci([dlo, dhi])} (row {other})"
        rows.append(
            [
                f"{number}. {label}",
                str(len(games)),
                _num(mine.mean()),
                _ci([lo, hi]),
                f"{made} ({100 * made / len(games):.1f}%)",
                f"{np.mean([g['moves'] for g in games]):.0f}",
                vs,
            ]
        )
    return _table(head, rows, right_from=1)


#: Records of the default's search played on from the first 3072 of the default's
#: games until their first 6144 (``--stop-at 6144``; game i from position i on the
#: same deal): (file, label, the file it is compared with, or None).
THREES_FROM_3072: list[tuple[str, str, str | None]] = [
    (
        "stage6144-to-9150k/to-6144-default.json",
        "the default over the package of 8,150,000 games",
        None,
    ),
    (
        "stage3072-tried/to-6144-9150k.json",
        "the net of 9,150,000 games, read from its directory",
        "stage6144-to-9150k/to-6144-default.json",
    ),
    (
        "stage3072-tried/to-6144-stage3072-9400k.json",
        "its 3072 stage trained on from 3072 positions, to 9,400,000",
        "stage3072-tried/to-6144-9150k.json",
    ),
    (
        "stage3072-tried/to-6144-stage3072-9650k.json",
        "the same 3072 stage trained on to 9,650,000",
        "stage3072-tried/to-6144-9150k.json",
    ),
    (
        "stage3072-tried/to-6144-stage3072-depth2-9184k.json",
        "row 2's 3072 stage trained as rows 3-4, the games played two moves deep,"
        " to 9,184,500",
        "stage3072-tried/to-6144-9150k.json",
    ),
    (
        "stage3072-tried/to-6144-9150k-cut3e-3.json",
        "row 2's net, the default search at a 0.003 cut-off",
        "stage3072-tried/to-6144-9150k.json",
    ),
    (
        "stage3072-tried/to-6144-stage3072-own-9400k.json",
        "row 2's 3072 stage trained as row 3, from the default's own 3072 positions",
        "stage3072-tried/to-6144-9150k.json",
    ),
    (
        "stage3072-tried/to-6144-stage3072-own-9650k.json",
        "the same run on to 9,650,000",
        "stage3072-tried/to-6144-9150k.json",
    ),
]


def threes_from_3072(link) -> str:
    """Each net played on from the first 3072 of the default's games to its first
    6144: how often it got there, the score it stopped at, the paired differences."""
    from playahead.evaluate.stats import bootstrap_mean_ci, paired_difference

    def reached(games):
        return np.array([g["max_tile"] >= 6144 for g in games], float)

    head = ["net and search", "games", "6144", "95% CI", "mean score at the stop"]
    head += ["moves on", "vs the row named, paired: 6144", "score"]
    rows = []
    for number, label, games, compared in _played_on(THREES_FROM_3072):
        got, mine = reached(games), _scores(games)
        lo, hi = bootstrap_mean_ci(got, np.random.default_rng(0), 2000)
        vs_made = vs_score = ""
        if compared is not None:
            other, theirs = compared
            rng = np.random.default_rng(0)
            d, dlo, dhi = paired_difference(got, reached(theirs), rng, 2000)
            vs_made = f"{100 * d:+.1f} pt [{100 * dlo:+.1f}, {100 * dhi:+.1f}]"
            vs_made += f" (row {other})"
            d, dlo, dhi = paired_difference(mine, _scores(theirs), rng, 2000)
            vs_score = f"{d:+,.0f} {_ci([dlo, dhi])}"
        rows.append(
            [
                f"{number}. {label}",
                str(len(games)),
                f"{int(got.sum())} ({100 * got.mean():.0f}%)",
                f"[{100 * lo:.0f}%, {100 * hi:.0f}%]",
                _num(mine.mean()),
                f"{np.mean([g['moves'] for g in games]):.0f}",
                vs_made,
                vs_score,
            ]
        )
    return _table(head, rows, right_from=1)


TABLES: dict[str, Callable[[Callable[[str, str], str]], str]] = {
    "headline": headline,
    "demo": demo,
    "comparison-threes": comparison_table("Threes-v0"),
    "comparison-2048": comparison_table("2048-v0"),
    "deeprl": deeprl,
    "leaves-threes": leaves("leaves-threes.json", LEAVES_THREES),
    "leaves-2048": leaves("leaves-2048-d1.json", LEAVES_2048),
    "ntuple-2048": ntuple_2048,
    "strength": strength,
    "strength-paired": strength_paired,
    "cutoffs": cutoffs,
    "eval-2048": eval_2048,
    "eval-tictactoe": tictactoe,
    "eval-connectfour": connectfour,
    "ntuple-speed": ntuple_speed,
    "ntuple-fused": ntuple_fused,
    "threes-net-steps": threes_net_steps,
    "threes-default-searches": threes_default_searches,
    "threes-late-game": threes_late_game,
    "threes-from-3072": threes_from_3072,
}


def _link_for(page: str) -> Callable[[str, str], str]:
    """README: a Markdown link (GitHub follows it); a docs page: the path as code
    (the site holds no records)."""
    if page == "README.md":
        return lambda target, text: f"[{text}]({target})"
    return lambda target, text: f"{text} (`{target}`)"


def render(page: str, text: str) -> str:
    """``text`` of ``page`` with every marked table regenerated.

    Raises:
        ValueError: a marker names no known table.
    """
    link = _link_for(page)

    def fill(m: re.Match) -> str:
        name = m["name"]
        if name not in TABLES:
            raise ValueError(
                f"{page}: unknown table {name!r} (known: {', '.join(TABLES)})"
            )
        return f"{m[1]}{TABLES[name](link)}\n{m[4]}"

    return MARKER.sub(fill, text)


def stale(root: Path | None = None) -> list[str]:
    """``"PAGE: table NAME"`` of every generated table that differs from its
    records."""
    out = []
    for page in PAGES:
        path = (root or ROOT) / page
        if not path.is_file():
            continue
        text = path.read_text()
        fresh = {m["name"]: m["body"] for m in MARKER.finditer(render(page, text))}
        for m in MARKER.finditer(text):
            if m["body"] != fresh[m["name"]]:
                out.append(f"{page}: table {m['name']}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks tables",
        description="rewrite every generated results table from the records",
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a table differs"
    )
    args = parser.parse_args(argv)
    if args.check:
        bad = stale()
        for line in bad:
            print(f"stale: {line} (python -m benchmarks tables rewrites it)")
        sys.exit(1 if bad else 0)
    for page in PAGES:
        path = ROOT / page
        if path.is_file():
            text = path.read_text()
            new = render(page, text)
            if new != text:
                path.write_text(new)
                print(f"rewrote {page}")
