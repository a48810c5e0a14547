"""Game records for the evaluation store's tests."""

from __future__ import annotations

import numpy as np

from playahead.evaluate.store import GameRecord


def game_record(
    agent="a", opponent="", index=0, side=0, score=10.0, times=(0.5, 0.25)
) -> GameRecord:
    """A finished game's record with ``len(times)`` moves."""
    return GameRecord(
        agent=agent,
        opponent=opponent,
        game_index=index,
        side=side,
        seed=123 + index,
        score=score,
        max_tile=64,
        moves=len(times),
        winner=None,
        seconds=sum(times),
        move_seconds=np.array(times, dtype=np.float32),
        version="0.1.0",
    )
