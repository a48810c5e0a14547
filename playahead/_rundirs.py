"""Run directories the trainers share: a new run never replaces another one."""

from __future__ import annotations

from pathlib import Path


def refuse_another_run(out: str | Path, marker: str) -> None:
    """Refuse to start a new run in ``out`` if it holds a run (the file ``marker``).

    Raises:
        ValueError: ``out / marker`` exists; the message says to resume or to choose
            another directory (the same words for every trainer).
    """
    if (Path(out) / marker).exists():
        raise ValueError(
            f"{out} already holds a run; pass resume=True (--resume) to "
            "continue it, or choose another output directory"
        )
