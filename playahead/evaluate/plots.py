"""Figures of an evaluation (matplotlib with the Agg backend, imported only here).

One-player games: the score distribution of every agent (violin, box and one dot per
game, with the mean and its 95% interval) and the share of games reaching each milestone
tile. Two-player games: Elo ratings with their 95% intervals, and wins / draws / losses
of every pair.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

_COLORS = (
    "#4C72B0",
    "#DD8452",
    "#55A868",
    "#C44E52",
    "#8172B3",
    "#937860",
    "#DA8BC3",
    "#8C8C8C",
    "#CCB974",
    "#64B5CD",
)


def check_plot_path(path: str | Path) -> Path:
    """``path`` as a Path if its suffix is a format we save and matplotlib is there.

    Raises:
        ValueError: the suffix is not ``.png``, ``.svg`` or ``.pdf``.
        ModuleNotFoundError: matplotlib is missing (the message names the extra).
    """
    from playahead._extras import require

    require("matplotlib", "--plot")
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"plot file must end in .png, .svg or .pdf, got {path.name!r}")
    return path


def plot_result(result, path: str | Path) -> Path:
    """Save the figure of ``result`` (an ``EvaluationResult``) to ``path``.

    The format follows the suffix (``.png``, ``.svg``, ``.pdf``).

    Raises:
        ValueError: matplotlib is missing, or the suffix is not a supported format.
    """
    try:
        import matplotlib
    except ImportError:
        raise ValueError(
            "plots need matplotlib: pip install 'playahead[plots]'"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = check_plot_path(path)
    if result.kind == "single":
        fig = _single(plt, result)
    else:
        fig = _two_player(plt, result)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def _label(spec: str, width: int = 28) -> str:
    """``spec`` in lines of about ``width`` characters, broken after ``:``, ``,`` or
    ``/``; never cut (``"ppo:path=runs/a/model.zip"`` -> ``"ppo:\npath=runs/a/..."``).
    """
    pieces = re.findall(r"[^:,/]*[:,/]?", spec)
    lines = [""]
    for piece in filter(None, pieces):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def _log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks between ``low`` and ``high`` (about 4 to 10 of them)."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for steps in ((1, 2, 5), (1, 3), (1,)):
        ticks = [
            m * 10.0**d for d in decades for m in steps if low <= m * 10.0**d <= high
        ]
        if len(ticks) <= 10:
            return ticks
    return ticks


def _single(plt, result):
    import matplotlib

    version = tuple(int(v) for v in matplotlib.__version__.split(".")[:2])
    horizontal = (
        {"orientation": "horizontal"} if version >= (3, 10) else {"vert": False}
    )
    agents = result.agents
    n = len(agents)
    shown = [m for m in result.milestones if any(a.milestones[m] > 0 for a in agents)]
    ncols = 2 if shown else 1
    fig, axes = plt.subplots(
        1,
        ncols,
        figsize=(7 * ncols, max(3.0, 1.2 + 0.8 * n)),
        squeeze=False,
        gridspec_kw={"width_ratios": [3, 2][:ncols]},
    )
    ax = axes[0, 0]
    rng = np.random.default_rng(0)  # jitter of the dots only
    scores = [np.asarray(a.scores, dtype=float) for a in agents]
    positions = np.arange(n)[::-1]
    low = min(s.min() for s in scores)
    high = max(s.max() for s in scores)
    log = low > 0 and high / low > 30
    data = [np.log10(s) if log else s for s in scores]
    varied = [k for k, d in enumerate(data) if d.min() < d.max()]  # KDE needs spread
    if varied:
        parts = ax.violinplot(
            [data[k] for k in varied],
            positions=positions[varied],
            widths=0.8,
            showextrema=False,
            **horizontal,
        )
        for body, k in zip(parts["bodies"], varied, strict=True):
            body.set_facecolor(_COLORS[k % len(_COLORS)])
            body.set_alpha(0.25)
    ax.boxplot(
        data,
        positions=positions,
        widths=0.25,
        showfliers=False,
        medianprops={"color": "0.3"},
        boxprops={"color": "0.5"},
        whiskerprops={"color": "0.5", "linestyle": "--"},
        capprops={"color": "0.5"},
        **horizontal,
    )
    for k, (d, pos) in enumerate(zip(data, positions, strict=True)):
        color = _COLORS[k % len(_COLORS)]
        jitter = rng.uniform(-0.3, 0.3, d.size)
        ax.scatter(d, pos + jitter, s=8, color=color, alpha=0.6, linewidths=0)
        a = agents[k]
        lo, hi = (np.log10(v) if log else v for v in a.ci95)
        mean = np.log10(a.mean) if log else a.mean
        ax.errorbar(
            mean,
            pos,
            xerr=[[mean - lo], [hi - mean]],
            fmt="D",
            color="black",
            markersize=6,
            elinewidth=2.5,
            capsize=5,
            capthick=2.5,
            zorder=5,
        )
    ax.set_yticks(positions, [_label(a.spec) for a in agents])
    left, right = min(d.min() for d in data), max(d.max() for d in data)
    pad = 0.04 * (right - left) or 1.0  # the widest violin and its dots stay inside
    ax.set_xlim(left - pad, right + pad)
    ax.set_ylim(-0.6, n - 0.4)
    if log:
        ticks = _log_ticks(low, high)
        ax.set_xticks(np.log10(ticks), [f"{t:,.0f}" for t in ticks])
    ax.set_xlabel("final score" + (" (log scale)" if log else ""))
    ax.set_title("scores: one dot per game, box = quartiles, ◆ mean with 95% CI")
    ax.grid(axis="x", alpha=0.3)
    if shown:
        ax2 = axes[0, 1]
        width = 0.8 / n
        x = np.arange(len(shown))
        for k, a in enumerate(agents):
            shares = [100 * a.milestones[m] for m in shown]
            ax2.bar(
                x + (k - (n - 1) / 2) * width,
                shares,
                width,
                color=_COLORS[k % len(_COLORS)],
                label=_label(a.spec, 24),
            )
        ax2.set_xticks(x, [f"{m:,}" for m in shown])
        ax2.set_ylim(0, 105)
        ax2.set_ylabel("% of games")
        ax2.set_xlabel("largest tile reached at least")
        ax2.set_title("milestones")
        ax2.legend(fontsize="small", frameon=False)
        ax2.grid(axis="y", alpha=0.3)
    fig.suptitle(result.title(), fontsize="medium")
    fig.tight_layout()
    return fig


def _two_player(plt, result):
    players = sorted(result.agents, key=lambda p: p.elo)
    pairs = result.pairs
    height = max(3.0, 1.2 + 0.5 * max(len(players), len(pairs)))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, height))
    y = np.arange(len(players))
    elo = np.array([p.elo for p in players])
    lo = np.array([p.elo_ci95[0] for p in players])
    hi = np.array([p.elo_ci95[1] for p in players])
    ax.errorbar(
        elo,
        y,
        xerr=[elo - lo, hi - elo],
        fmt="o",
        color=_COLORS[0],
        capsize=5,
        markersize=7,
    )
    for yi, value in zip(y, elo, strict=True):
        ax.annotate(
            f"{value:.0f}",
            (value, yi),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize="small",
        )
    ax.axvline(1500, color="grey", linestyle=":", linewidth=1)
    ax.set_yticks(y, [_label(p.spec) for p in players])
    ax.set_ylim(-0.7, len(players) - 0.3)
    ax.set_xlabel("Elo (mean of all agents 1500) with 95% CI")
    ax.set_title("ratings")
    ax.grid(axis="x", alpha=0.3)
    y2 = np.arange(len(pairs))[::-1]
    for yi, p in zip(y2, pairs, strict=True):
        total = max(p.games, 1)
        left = 0.0
        for count, color, label in (
            (p.wins, "#55A868", "A wins" if yi == y2[0] else None),
            (p.draws, "#BBBBBB", "draws" if yi == y2[0] else None),
            (p.losses, "#C44E52", "B wins" if yi == y2[0] else None),
        ):
            share = 100 * count / total
            ax2.barh(yi, share, left=left, color=color, height=0.6, label=label)
            if share >= 8:
                ax2.text(
                    left + share / 2,
                    yi,
                    str(count),
                    ha="center",
                    va="center",
                    fontsize="small",
                    color="white",
                )
            left += share
    ax2.set_yticks(y2, [f"{_label(p.a, 18)} vs {_label(p.b, 18)}" for p in pairs])
    ax2.set_xlim(0, 100)
    ax2.set_xlabel("% of games: A wins / draws / B wins")
    ax2.set_title("head to head (A vs B)")
    ax2.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.25),
        ncol=3,
        frameon=False,
        fontsize="small",
    )
    fig.suptitle(result.title(), fontsize="medium")
    fig.tight_layout()
    return fig
