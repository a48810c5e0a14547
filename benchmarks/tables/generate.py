"""Every generated results table of the README and the docs, from the committed records.

    python -m benchmarks tables           # rewrite the tables in the pages
    python -m benchmarks tables --check   # exit 1, naming each stale page and table

A generated table sits in its page between ``<!-- table:NAME -->`` and
``<!-- /table:NAME -->``. Each study folder under ``benchmarks/results/`` has a
``manifest.json``: its ``study`` (one line), its ``records`` (every file it holds) and
its ``tables``, NAME -> ``{"kind": ..., ...}``: the renderer (:data:`KINDS`) and what it
reads, the records, row labels and pairings, with paths relative to the folder. This
module holds renderers only; which records a table shows, and how their rows are
labelled, is the manifests'. A page links a record where GitHub can follow the link
(the README); the docs name it as a path.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import re
import string
import sys
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.records.alphazero_curve import share_text

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "benchmarks" / "results"
#: The file of a study folder that names its records and the tables drawn from them.
MANIFEST = "manifest.json"
#: The pages outside ``benchmarks/results/`` that hold generated tables.
PAGES = ("README.md", "docs/results.md", "docs/speed.md")
MARKER = re.compile(
    r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.S
)


_num = "{:,.0f}".format  # 412,300
_ci = "[{0[0]:,.0f}, {0[1]:,.0f}]".format  # [1, 2]


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2g}" if ms < 1 else f"{ms:.1f}" if ms < 10 else f"{ms:,.0f}"


def _table(head: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------ tables
# Each renderer draws one table from the records of a study folder: ``folder`` is
# that folder, ``spec`` its manifest's entry for the table (the records, labels and
# pairings), ``link(target, text)`` names a record as the page can (see _link_for).
Link = Callable[[str, str], str]


def _read(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text())


def _cost(data: dict, spec: str) -> str:
    cost = (data.get("training", {}).get(spec) or {}).get("cost")
    if not cost:
        return "-"
    if "cpu_minutes" in cost:
        return f"{cost['cpu_minutes']:.0f} CPU min"
    return f"{cost['wall_minutes']:.0f} min wall"


def headline(folder: Path, spec: dict, link: Link) -> str:
    """Search against learning on both tile games: one row per ``rows`` entry
    ``[label, spec in the first record, spec in the second]``."""
    records = [_read(folder, name) for name in spec["records"]]
    by_spec = [{a["spec"]: a for a in r["agents"]} for r in records]
    envs = [r["env_id"] for r in records]
    head = ["agent", *(f"{env}: mean [95% CI]" for env in envs)]
    head += ["ms/move", "training"]
    rows = []
    for label, *specs in spec["rows"]:
        mine = [agents[s] for s, agents in zip(specs, by_spec, strict=True)]
        cells = [label, *(f"{_num(a['mean'])} {_ci(a['ci95'])}" for a in mine)]
        cells.append(" / ".join(_ms(a["seconds_per_move"]) for a in mine))
        costs = [_cost(r, s) for r, s in zip(records, specs, strict=True)]
        cells.append("" if costs == ["-", "-"] else " / ".join(costs))
        rows.append(cells)
    games = {r["n_games"] for r in records}
    where = f"benchmarks/results/{folder.relative_to(RESULTS).as_posix()}/"
    return (
        f"{' / '.join(map(str, sorted(games)))} seeded games per agent and game, the "
        "same games for every agent; two figures in a cell are "
        f"{' / '.join(e.removesuffix('-v0') for e in envs)}; every "
        f"game in {link(where, 'the comparison records')}.\n\n" + _table(head, rows)
    )


def comparison_table(folder: Path, spec: dict, link: Link) -> str:
    """The full comparison table of a record
    (:func:`benchmarks.records.comparison.markdown`)."""
    from benchmarks.records import comparison

    data = _read(folder, spec["record"])
    env = data["env_id"]
    specs = {a["spec"] for a in data["agents"]}
    entries = [e for e in comparison.AGENTS[env] if e.spec in specs]
    return comparison.markdown(env, entries, data).rstrip("\n")


def strength(folder: Path, spec: dict, link: Link) -> str:
    """:func:`benchmarks.records.strength.readme_table`, records named as paths."""
    from benchmarks.records import strength as s

    table = s.readme_table(folder)
    return re.sub(r"\[([^\]]+)\]\(benchmarks/results/[^)]+\)", r"\1", table)


def strength_paired(folder: Path, spec: dict, link: Link) -> str:
    """Settings compared on the games both played
    (:func:`benchmarks.records.strength.paired`); a pair whose records are not (yet)
    there is left out."""
    from benchmarks.records import strength as s

    rows = []
    for a, b in spec["pairs"]:
        if not all((folder / f"{x}.json").is_file() for x in (a, b)):
            continue  # a setting not (yet) recorded has no row, as in the table above
        p = s.paired(a, b, folder)
        row = [a, b, str(p["games"]), _num(p[a]), _num(p[b])]
        rows.append([*row, f"{p['difference']:+,.0f}", _ci(p["ci95"])])
    head = ["A", "B", "games both played", "A mean", "B mean", "A - B", "95% CI"]
    table = _table(head, rows, right_from=2)
    return f"`python -m benchmarks strength --setting A --paired B`:\n\n{table}"


def file_table(folder: Path, spec: dict, link: Link) -> str:
    """The table a text ``file`` holds: its Markdown table rows (``|`` lines) as they
    are, or, under the manifest's ``head``, the rows of a box-drawn table (``│``
    lines) as a speed benchmark printed it."""
    lines = (folder / spec["file"]).read_text().splitlines()
    if "head" not in spec:
        return "\n".join(x for x in lines if x.startswith("|"))
    rows = [[c.strip() for c in x.strip("│").split("│")] for x in lines if x[:1] == "│"]
    head = spec["head"]
    return _table(head, [r[: len(head)] for r in rows], right_from=2)


def tdl_speed(folder: Path, spec: dict, link: Link) -> str:
    """Our trainer beside TDL2048+ from one ``bench_ntuple`` record (``record``):
    TD(0) moves per CPU second, the default recipe's CPU seconds and the greedy mean
    of the net each trained; with ``workers`` (a ``--workers-games`` record) our
    recipe's TD updates per wall second with one worker and with two."""
    data = _read(folder, spec["record"])
    ours, tdl = data["ours"], data["tdl2048plus"]
    rec = ours["recipe"]["final"]

    def per_s(run: dict, moves: str) -> tuple[float, str]:
        rate = run[moves] / run["cpu_seconds"]
        return rate, f"{rate:,.0f} ({run[moves]:,} moves, {run['cpu_seconds']:.2f} s)"

    theirs, their_cell = per_s(tdl["td0"], "moves")
    rows = []
    for key, what in (("td0_online", "online"), ("td0", "after each game")):
        mine, cell = per_s(ours[key]["final"], "updates")
        row = [f"TD(0) {what}, rate 0.1: moves / CPU s", cell, their_cell]
        rows.append([*row, f"{mine / theirs:.2f}x"])
    cpu, their_cpu = rec["cpu_seconds"], tdl["recipe"]["cpu_seconds"]
    flags = f"{their_cpu:.1f} (`-a 1.0 -l 0.5 -tt restart`)"
    ratio = f"{cpu / their_cpu:.2f}x the CPU"
    rows.append(["TC + TD(0.5) + restarts: CPU s", f"{cpu:.1f}", flags, ratio])
    greedy = f"{_num(rec['score_mean'])} {_ci(rec['ci95'])}"
    flags = f"{_num(tdl['eval']['score_mean'])} (`-e 1x1000 -s 7`)"
    rows.append(["the same net, greedy, 1,000 games", greedy, flags, ""])
    if spec.get("workers"):
        w = _read(folder, spec["workers"])
        one, two = w["runs"]["1"], w["runs"]["2"]
        what = f"the recipe, {one['games']:,} games: TD updates / wall s, 1 and 2"
        walls = f"{one['updates_per_wall_s']:,.0f}; {two['updates_per_wall_s']:,.0f}"
        rows.append([f"{what} workers", walls, "", f"{w['speedup']:.2f}x with 2"])
    head = [f"{rec['games']:,} games from zeros", "ours", "TDL2048+", "ratio"]
    return _table(head, rows, right_from=4)


def _progress_rows(folder: Path, progress: str) -> dict[int, dict]:
    """A training run's ``progress.csv`` rows, by training games."""
    import csv

    with (folder / progress).open() as f:
        return {int(r["games"]): r for r in csv.DictReader(f)}


def curves(folder: Path, spec: dict, link: Link) -> str:
    """Training runs side by side (``runs``: ``[label, progress.csv]``), one row per
    ``every`` training games that any run has reached: each run's
    ``train_score_mean`` (the mean score of the last 500 training games before the
    row), its greedy mean on the held-out games of that row (``eval_games`` of
    them) and the CPU hours it had spent."""
    runs = [(label, _progress_rows(folder, path)) for label, path in spec["runs"]]
    every, n_eval = spec["every"], spec["eval_games"]
    head = ["games"]
    for label, _ in runs:
        head += [f"{label}: training", f"greedy, {n_eval}", "CPU h"]
    reached = max(max(rows, default=0) for _, rows in runs)
    out = []
    for games in range(every, reached + 1, every):
        row = [f"{games:,}"]
        for _, rows in runs:
            r = rows.get(games)
            if r is None:
                row += ["", "", ""]
                continue
            row += [_num(float(r[k])) for k in ("train_score_mean", "eval_score_mean")]
            row.append(f"{float(r['cpu_seconds']) / 3600:.2f}")
        out.append(row)
    return _table(head, out, right_from=0)


def alphazero_levers(folder: Path, spec: dict, link: Link) -> str:
    """AlphaZero runs that differ in one lever, compared at equal training CPU:
    ``runs`` is ``[label, curve folder]`` pairs (each written by ``python -m benchmarks
    alphazero-curve``); a row a run, its last snapshot within ``cpu_hours`` that was
    measured at every simulation count of ``sims``: iteration, self-play games,
    training CPU hours, and each count's share of perfect moves with its 95% Wilson
    interval."""
    import csv

    sims = spec["sims"]
    head = ["run", "iteration", "self-play games", "training CPU h"]
    head += [f"perfect, {n} simulations" if n else "perfect, raw policy" for n in sims]
    out = []
    for label, curve in spec["runs"]:
        with (folder / curve / "curve.csv").open() as f:
            rows = list(csv.DictReader(f))
        cell = {(int(r["iteration"]), int(r["simulations"])): r for r in rows}
        within = [
            int(r["iteration"])
            for r in rows
            if float(r["cpu_hours"]) <= spec["cpu_hours"]
            and all((int(r["iteration"]), n) in cell for n in sims)
        ]
        it = max(within)
        first = cell[it, sims[0]]
        row = [label, str(it), f"{int(first['games']):,}"]
        row.append(f"{float(first['cpu_hours']):.2f}")
        for n in sims:
            r = cell[it, n]
            row.append(share_text(int(r["perfect"]), int(r["matters"])))
        out.append(row)
    return _table(head, out)


def _difference(a, b) -> str:
    """``a - b`` over the same games with its 95% interval, as a cell."""
    d, ci = _pair(a, b)
    return f"{d:+,.0f} {_ci(ci)}"


def default_searches(folder: Path, spec: dict, link: Link) -> str:
    """A search's record (``before``: its first games) against other searches over
    the same net (``searches``: ``[record, label]``), then later records of the same
    games (``later``, then ``now``: ``[record, label, name]``, in order) on the games
    all hold, each paired with ``before`` (the column ``versus_head``) and with the
    record before it."""
    before = _read(folder, spec["before"])
    games = sorted(before["games"], key=lambda g: g["index"])
    head = ["search", "games", "mean", "95% CI", "3072", "6144"]
    head += ["ms/move", spec["versus_head"]]
    rows = []

    def add(label: str, g: _Games | _Agent, base: _Games | None = None) -> None:
        row = [label, str(g.n), _num(g.mean), _ci(g.ci), g.reach[3072], g.reach[6144]]
        paired = "" if base is None else _difference(g.scores, base.scores)
        rows.append([*row, _ms(g.ms), paired])

    for name, label in spec["searches"]:
        agent = _Agent(_read(folder, name))
        base = _Games(games[: len(agent.scores)])
        assert [g["index"] for g in base.games] == list(range(base.n)), "the games 0.."
        add(spec["before_label"].format(last=base.n - 1), base)
        add(label, agent, base)
    now = {g["index"] for g in _read(folder, spec["now"][0])["games"]}
    common = [g for g in games if g["index"] in now]
    if common:
        base = _Games(common)
        add(spec["common_label"].format(games=len(common)), base)
        runs = []  # (whose default, its games of the common ones), in order
        for record, label, name in [*spec["later"], spec["now"]]:
            later = {g["index"]: g for g in _read(folder, record)["games"]}
            runs.append((name, _Games([later[g["index"]] for g in common])))
            add(label, runs[-1][1], base)
        for (before, old), (after, new) in itertools.pairwise(runs):
            label = f"{after} against {before}, paired"
            rows.append([label, *[""] * 6, _difference(new.scores, old.scores)])
    return _table(head, rows, right_from=1)


def _our_row(folder: Path, entry: dict) -> list[str]:
    """One of our rows of :func:`field`: a strength record (``setting``: games of
    its planned number), a greedy record of a net, or one agent (``spec``) of a
    comparison record."""
    from benchmarks.records.strength import SETTINGS

    data = _read(folder, entry["record"])
    if "spec" in entry:
        agent = next(a for a in data["agents"] if a["spec"] == entry["spec"])
        scores, tops = np.array(agent["scores"], float), np.array(agent["max_tiles"])
        ms = f"{_ms(agent['seconds_per_move'])} ms"
        training = _cost(data, entry["spec"])
    else:
        games = _Games(data["games"])
        scores, tops, training = games.scores, games.tops, ""
        ms = data.get("summary", {}).get("ms_per_move_mean")
        ms = "" if ms is None else f"{ms:.1f} ms"
    if "training" in entry:
        progress, games = entry["training"]
        hours = float(_progress_rows(folder, progress)[games]["cpu_seconds"]) / 3600
        training = f"{hours:.1f} CPU h ({games:,} games)"
    played = f"{len(scores):,}"
    planned = SETTINGS[entry["setting"]].games if "setting" in entry else len(scores)
    if planned > len(scores):
        played += f" of {planned:,} (in progress)"
    where = f"`{Path(entry['record']).parent.name}/{Path(entry['record']).name}`"
    rate = f"{100 * (tops >= 32768).mean():.0f}%"
    row = [entry["label"], f"ours: {where}", played, _num(scores.mean())]
    return [*row, _ci(_boot(scores)), rate, ms, training]


def field(folder: Path, spec: dict, link: Link) -> str:
    """Our records (``ours``) beside the published figures of other players
    (``anchors``, a record of figures as their authors state them): games, mean
    final score with its 95% interval (ours only), 32768 rate, CPU ms a move (ours)
    or speed as stated (theirs), and what training cost (ours: CPU hours, from the
    run's ``progress.csv``) or was (theirs, as stated). ``pick`` (``[who, search]``
    pairs) keeps only those rows of theirs; ``short`` drops the column that names
    the records (their rows say "theirs") and puts the interval beside the mean."""
    head = ["agent", "figures", "games", "mean", "95% CI", "32768", "a move"]
    head += ["training"]
    rows = [_our_row(folder, entry) for entry in spec["ours"]]
    anchors = _read(folder, spec["anchors"])
    pick = spec.get("pick")
    for player in anchors["players"]:
        for r in player["rows"]:
            if pick is not None and [player["who"], r["search"]] not in pick:
                continue
            rate, games = r["rate_32768"], r["games"]
            row = [f"{player['label']}: {r['search']}", "theirs, as published"]
            row += ["" if games is None else f"{games:,}", _num(r["mean"]), ""]
            row += ["" if rate is None else f"{rate:.1f}%", r["speed"] or ""]
            rows.append([*row, player["training"]])
    if spec.get("short"):
        head = ["agent", "games", "mean [95% CI]", "32768", "a move", "training"]
        rows = [
            [label if who.startswith("ours") else f"{label} (theirs)", games]
            + [f"{mean} {ci}".strip(), *rest]
            for label, who, games, mean, ci, *rest in rows
        ]
        return _table(head, rows, right_from=1)
    return _table(head, rows, right_from=2)


# ------------------------------------------------------------------ generic table
def _boot(values) -> tuple[float, float]:
    """The 95% bootstrap interval of the mean of ``values`` (seed 0, 2,000 draws)."""
    from playahead.evaluate.stats import bootstrap_mean_ci

    return bootstrap_mean_ci(np.asarray(values, float), np.random.default_rng(0), 2000)


def _pair(a, b, rng=None) -> tuple[float, list[float]]:
    """``a - b`` over the same games and its 95% bootstrap interval (2,000 draws
    from ``rng``, by default a generator seeded 0)."""
    from playahead.evaluate.stats import paired_difference

    rng = np.random.default_rng(0) if rng is None else rng
    d, lo, hi = paired_difference(a, b, rng, 2000)
    return d, [lo, hi]


class _ByKey(dict):
    """A dict whose values ``of(key)`` makes on first use."""

    def __init__(self, of):
        super().__init__()
        self.of = of

    def __missing__(self, key):
        self[key] = value = self.of(key)
        return value


def _reach(agent: dict) -> _ByKey:
    """By tile, the share of an evaluator agent's games that reached it (``"63%"``)."""
    return _ByKey(lambda t: f"{100 * agent['milestones'][str(t)]:.0f}%")


class _Games:
    """The ``games`` of a record, for cell templates: ``n``, ``mean``, ``ci`` (of
    the scores), ``moves`` (mean), ``ms`` (seconds a move), and by tile ``reach[T]``
    (``"63%"``), ``made[T]`` (a count), ``share[T]`` (its percentage) and
    ``share_ci[T]`` (that percentage's 95% interval)."""

    def __init__(self, games: list[dict]):
        self.games, self.n = games, len(games)
        self.scores = np.array([g["score"] for g in games], float)
        self.mean = self.scores.mean()
        self.moves = np.mean([g["moves"] for g in games])
        self.tops = tops = np.array([g["max_tile"] for g in games])
        self.reach = _ByKey(lambda t: f"{100 * (tops >= t).mean():.0f}%")
        self.made = _ByKey(lambda t: int((tops >= t).sum()))
        self.share = _ByKey(lambda t: 100 * int((tops >= t).sum()) / self.n)
        self.share_ci = _ByKey(lambda t: [100 * x for x in _boot(tops >= t)])

    @functools.cached_property
    def ci(self) -> tuple[float, float]:
        return _boot(self.scores)

    @functools.cached_property
    def ms(self) -> float:
        moves = np.array([g["moves"] for g in self.games], float)
        ms = np.array([g["ms_per_move"] for g in self.games]) * moves
        return float(ms.sum()) / moves.sum() / 1000

    @staticmethod
    def of(record: dict) -> _Games | _Agent:
        """The games of a record of games, or its first agent's in an evaluator's."""
        return _Games(record["games"]) if "games" in record else _Agent(record)


class _Agent:
    """An evaluator record's first agent as :class:`_Games` reads a record (``n``,
    ``mean``, ``ci``, ``reach[T]``), with ``ms`` (seconds a move) and its spec's
    ``option[NAME]``."""

    def __init__(self, record: dict):
        from playahead.agents import parse_spec

        a = record["agents"][0]
        self.n, self.mean, self.ci = a["games"], a["mean"], a["ci95"]
        self.ms, self.scores = a["seconds_per_move"], np.array(a["scores"], float)
        self.reach = _reach(a)
        self.option = parse_spec(a["spec"])[1]


class _Versus:
    """A row's games paired with another row's, the first ``n`` games of each (game
    i: one deal): ``d`` and ``ci`` of the scores, by tile ``share[T]`` (``d``, ``ci``
    of reaching it, in percentage points), and ``row``, the other row's number. The
    pairs draw from one generator seeded 0, in the order the cells ask for them."""

    def __init__(self, mine: _Games | _Agent, other: _Games | _Agent, row: int):
        self.n, self.row = min(len(mine.scores), len(other.scores)), row
        self.rng, self.mine, self.other = np.random.default_rng(0), mine, other
        self.share = _ByKey(self._share)

    @functools.cached_property
    def _scores(self) -> tuple[float, list[float]]:
        n = self.n
        return _pair(self.mine.scores[:n], self.other.scores[:n], self.rng)

    d = property(lambda self: self._scores[0])
    ci = property(lambda self: self._scores[1])

    def _share(self, tile: int) -> types.SimpleNamespace:
        a, b = (x.tops[: self.n] >= tile for x in (self.mine, self.other))
        d, (lo, hi) = _pair(a, b, self.rng)
        return types.SimpleNamespace(d=100 * d, ci=[100 * lo, 100 * hi])


def _stored_pair(record: dict, name: str, other: str) -> types.SimpleNamespace | None:
    """Agent ``name`` against ``other`` in a record's ``pairs`` (None if no pair):
    ``d`` and ``ci`` of ``name - other`` over the same games (one player), or
    ``result``, W-D-L from ``name``'s side (two players)."""
    for p in record["pairs"]:
        if (p["a"], p["b"]) not in ((name, other), (other, name)):
            continue
        if "wins" in p:
            w, dr, lo = p["wins"], p["draws"], p["losses"]
            won = f"{w}-{dr}-{lo}" if p["a"] == name else f"{lo}-{dr}-{w}"
            return types.SimpleNamespace(result=won)
        sign = 1 if p["a"] == name else -1
        lo, hi = sorted(sign * x for x in p["ci95"])
        return types.SimpleNamespace(d=sign * p["mean_difference"], ci=[lo, hi])
    return None


class _Missing(Exception):
    """A cell names a value its row does not have: the cell is left empty."""


class _Cells(string.Formatter):
    """Cell templates: ``str.format`` fields over a row's values, with the specs
    ``num`` (``412,300``), ``ci`` (``[1, 2]``), ``ms`` and ``mib`` beside Python's; a
    template that names a value its row lacks (or None) is an empty cell."""

    SPECS = {"num": _num, "ci": _ci, "ms": _ms, "mib": lambda b: f"{b / 2**20:.1f} MiB"}
    #: the two largest tiles an agent reached, with how often: ``milestones:top2``
    SPECS["top2"] = lambda m: ", ".join(
        f"{t} in {100 * v:.0f}%" for t, v in [(t, v) for t, v in m.items() if v][-2:]
    )
    #: a training run's TD updates per CPU second: ``model:mups`` (``1.15 M``)
    SPECS["mups"] = lambda m: f"{m['updates'] / m['cpu_seconds'] / 1e6:.2f} M"
    #: ``perfect`` of ``positions`` with its 95% Wilson interval: ``r:share``
    SPECS["share"] = lambda r: share_text(r["perfect"], r["positions"])

    def get_field(self, name, args, kwargs):
        try:
            value, key = super().get_field(name, args, kwargs)
        except (KeyError, TypeError, IndexError, AttributeError):
            raise _Missing from None
        if value is None:
            raise _Missing
        return value, key

    def format_field(self, value, spec):
        if spec in self.SPECS:
            return self.SPECS[spec](value)
        return super().format_field(value, spec)

    def cell(self, template: str, row: dict) -> str:
        try:
            return self.vformat(template, (), row)
        except _Missing:
            return ""


def rows_table(folder: Path, spec: dict, link: Link) -> str:
    """The generic table: one row per ``rows`` entry, whose values ``row`` names (a
    value naming a ``.json`` file is that record, read), or per agent of the record
    ``agents`` names (highest ``sort`` first); its ``columns`` are ``[head,
    template]`` pairs (:class:`_Cells`) over a row's values and:

    * ``n``, the row's number;
    * ``games``: :class:`_Games` of the record ``games`` names (default
      ``record``), and ``vs``, those games paired (:class:`_Versus`) with the first
      row's (``versus: "first"``) or with the row whose record its value ``versus``
      names;
    * for a row with an agent ``spec`` (of its ``record``, by default the record
      ``agents`` names): ``agent``, its entry in the record, ``label`` (the
      manifest's ``labels``, else the spec), ``reach[T]``, ``pair[OTHER]``, its
      stored pair with agent OTHER (``d``, ``ci``; or ``result``, W-D-L), and
      ``vs``, its pair with the agent its value ``versus`` names.

    ``right_from``: the first right-aligned column (default 1)."""
    cells, rows, seen, first = _Cells(), [], {}, None
    games_of, versus = spec.get("games", "record"), spec.get("versus")
    entries, names = spec.get("rows"), spec.get("row", ["spec"])
    record = _read(folder, spec["agents"]) if "agents" in spec else None
    if entries is None:
        agents = record["agents"]
        if "sort" in spec:
            agents = sorted(agents, key=lambda a: -a[spec["sort"]])
        entries = [[a["spec"]] for a in agents]
    for number, entry in enumerate(entries, 1):
        values = dict(zip(names, entry, strict=True))
        row = {"n": number, "record": record}
        for key, value in values.items():
            json_file = isinstance(value, str) and value.endswith(".json")
            row[key] = _read(folder, value) if json_file and key != versus else value
        if "spec" in values:
            labels = spec.get("labels", {})
            row = _agent_values(row["record"], values["spec"], labels) | row
            row["vs"] = row["pair"][values[versus]] if versus in values else None
        elif games_of in values:
            row["games"] = mine = _Games.of(row[games_of])
            other = first if versus == "first" else seen.get(values.get(versus))
            if other is not None and other[1] is not mine:
                row["vs"] = _Versus(mine, other[1], other[0])
            seen[values[games_of]] = (number, mine)
            first = first or seen[values[games_of]]
        rows.append([cells.cell(template, row) for _, template in spec["columns"]])
    head = [h for h, _ in spec["columns"]]
    return _table(head, rows, right_from=spec.get("right_from", 1))


def _agent_values(record: dict, name: str, labels: dict) -> dict:
    """The values of agent ``name``'s row of ``record`` (:func:`rows_table`)."""
    a = next(a for a in record["agents"] if a["spec"] == name)
    return {
        "agent": a,
        "label": labels.get(name, f"`{name}`"),
        "reach": _reach(a),
        "pair": _ByKey(lambda other: _stored_pair(record, name, other)),
    }


def parts(folder: Path, spec: dict, link: Link) -> str:
    """Text and tables in turn (``parts``): a string is a template
    (:class:`_Cells`) over ``record``, the record the manifest names, if any; a
    dict, a table of its own ``kind``."""
    values = {"record": _read(folder, spec["record"])} if "record" in spec else {}
    return "".join(
        _Cells().cell(part, values)
        if isinstance(part, str)
        else KINDS[part["kind"]](folder, part, link)
        for part in spec["parts"]
    )


#: A manifest table's ``kind`` -> its renderer.
KINDS: dict[str, Callable[[Path, dict, Link], str]] = {
    "rows": rows_table,
    "parts": parts,
    "headline": headline,
    "field": field,
    "comparison": comparison_table,
    "strength": strength,
    "strength-paired": strength_paired,
    "file": file_table,
    "curves": curves,
    "alphazero-levers": alphazero_levers,
    "tdl-speed": tdl_speed,
    "default-searches": default_searches,
}


def manifests() -> dict[Path, dict]:
    """Every study folder's manifest under :data:`RESULTS`: folder -> its
    ``manifest.json`` (``study``, ``records``, and ``tables``: name -> the table's
    ``kind`` and what that renderer reads)."""
    return {
        path.parent: json.loads(path.read_text())
        for path in sorted(RESULTS.rglob(MANIFEST))
    }


def tables() -> dict[str, tuple[Path, dict]]:
    """Every generated table: name -> (its study folder, its manifest entry).

    Raises:
        ValueError: two manifests name the same table, or a table of unknown kind.
    """
    found: dict[str, tuple[Path, dict]] = {}
    for folder, manifest in manifests().items():
        for name, spec in manifest.get("tables", {}).items():
            where = folder.relative_to(RESULTS).as_posix()
            if name in found:
                other = found[name][0].relative_to(RESULTS).as_posix()
                raise ValueError(f"table {name!r} is in {other}/ and {where}/")
            if spec.get("kind") not in KINDS:
                raise ValueError(
                    f"{where}/{MANIFEST}: table {name!r} has kind {spec.get('kind')!r}"
                    f" (known: {', '.join(KINDS)})"
                )
            found[name] = (folder, spec)
    return found


def pages() -> list[str]:
    """Every page with generated tables: :data:`PAGES`, then the ``README.md`` of each
    study whose manifest has tables (a study's own tables sit in its README)."""
    studies = [
        f"benchmarks/results/{folder.relative_to(RESULTS).as_posix()}/README.md"
        for folder, manifest in manifests().items()
        if manifest.get("tables")
    ]
    return [*PAGES, *studies]


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
    known = tables()

    def fill(m: re.Match) -> str:
        name = m["name"]
        if name not in known:
            raise ValueError(
                f"{page}: unknown table {name!r} (known: {', '.join(known)})"
            )
        folder, spec = known[name]
        return f"{m[1]}{KINDS[spec['kind']](folder, spec, link)}\n{m[4]}"

    return MARKER.sub(fill, text)


def stale(root: Path | None = None) -> list[str]:
    """``"PAGE: table NAME"`` of every generated table that differs from its
    records."""
    out = []
    for page in pages():
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
    for page in pages():
        path = ROOT / page
        if path.is_file():
            text = path.read_text()
            new = render(page, text)
            if new != text:
                path.write_text(new)
                print(f"rewrote {page}")
