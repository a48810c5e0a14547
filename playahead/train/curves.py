"""Learning curves from the TensorBoard logs of training runs (``playahead curves``).

Each run directory written by ``playahead train`` holds TensorBoard event files under
``tb/``; :func:`load_curve` reads one scalar from them and :func:`plot_curves` draws
several runs on one figure: the game score for tile games (``rollout/score_mean``), the
win rate for two-player games (``rollout/win_rate``), AlphaZero's loss
(``alphazero/loss``, by self-play positions), else the mean episode return.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

PREFERRED_TAGS = (
    "rollout/score_mean",
    "rollout/win_rate",
    "rollout/ep_rew_mean",
    "alphazero/loss",
)
#: What the axis says for each TensorBoard tag (others are shown as logged).
TAG_NAMES = {
    "rollout/score_mean": "game score (mean over recent games)",
    "rollout/win_rate": "win rate (recent games)",
    "rollout/ep_rew_mean": "episode return (mean over recent episodes)",
    "alphazero/loss": "AlphaZero training loss (policy cross-entropy + value error)",
}


def axis_label(tags: set[str]) -> str:
    """The y-axis label for curves of ``tags``: ``"win rate (recent games)"``."""
    return " / ".join(TAG_NAMES.get(t, t) for t in sorted(tags))


def _accumulators(run_dir: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = sorted(Path(run_dir).glob("tb/**/events.out.tfevents.*"))
    if not files:
        raise FileNotFoundError(
            f"no TensorBoard events under {Path(run_dir) / 'tb'}; is {run_dir} a run "
            "directory of `playahead train`?"
        )
    for path in files:
        acc = EventAccumulator(str(path), size_guidance={"scalars": 0})
        acc.Reload()
        yield acc


def load_curve(
    run_dir: str | Path, tag: str | None = None
) -> tuple[str, np.ndarray, np.ndarray]:
    """``(tag, steps: int64[n], values: float64[n])`` of one run, sorted by step.

    Args:
        run_dir: a run directory of ``playahead train``.
        tag: the scalar to read; None picks the first of :data:`PREFERRED_TAGS` the run
            logged (a resumed run's event files are joined).

    Raises:
        FileNotFoundError: no event files.
        ValueError: the run logged none of the tags asked for.
    """
    accs = list(_accumulators(Path(run_dir)))
    logged = set().union(*(a.Tags()["scalars"] for a in accs))
    wanted = [tag] if tag else list(PREFERRED_TAGS)
    chosen = next((t for t in wanted if t in logged), None)
    if chosen is None:
        raise ValueError(
            f"{run_dir} logged none of {', '.join(wanted)}; it has: "
            f"{', '.join(sorted(logged))}"
        )
    points = {
        e.step: e.value
        for a in accs
        if chosen in a.Tags()["scalars"]
        for e in a.Scalars(chosen)
    }
    steps = np.array(sorted(points), dtype=np.int64)
    return chosen, steps, np.array([points[s] for s in steps], dtype=np.float64)


def plot_curves(
    runs: list[str | Path], out: str | Path, tag: str | None = None
) -> Path:
    """Draw the curves of ``runs`` (labelled by directory name) into ``out`` (.png,
    .svg or .pdf) and return its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    tags = set()
    for run in runs:
        chosen, steps, values = load_curve(run, tag)
        tags.add(chosen)
        ax.plot(steps, values, label=Path(run).name)
    ax.set_xlabel("environment steps")
    ax.set_ylabel(axis_label(tags))
    if tags == {"rollout/score_mean"}:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("learning curves")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``playahead curves`` to ``parser``."""
    parser.add_argument("runs", nargs="+", help="run directories of `playahead train`")
    parser.add_argument(
        "--out",
        default="curves.png",
        help="figure to write (default curves.png; an existing file only with --force)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite the --out file if it exists"
    )
    parser.add_argument(
        "--tag",
        default=None,
        help=f"TensorBoard scalar (default: first of {PREFERRED_TAGS})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``playahead curves``: draw the runs' curves into ``args.out``; returns 0.

    Raises:
        ValueError: ``args.out`` exists and ``args.force`` is not set.
    """
    if Path(args.out).exists() and not args.force:
        raise ValueError(
            f"{args.out} exists; pass --force to overwrite it, or --out another name"
        )
    path = plot_curves(args.runs, args.out, args.tag)
    print(f"wrote {path}")
    return 0
