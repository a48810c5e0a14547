"""RL baselines: MaskablePPO and masked DQN on playahead's envs.

``playahead.train.train("ppo", "Threes-v0", steps=1_000_000, seed=0,
out="runs/threes-ppo")`` returns the path of the trained ``model.zip``; the command
line is ``playahead train ppo --env Threes-v0 ...``. Trained models play as agents:
``make_agent("ppo:path=runs/threes-ppo")``.

``train_ntuple("2048-v0", 100_000, "runs/2048-nt")`` trains an n-tuple network
(:mod:`playahead.ntuple`, no torch needed).

Importing this package is cheap: torch and Stable-Baselines3 load on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["train", "train_ntuple"]


def __getattr__(name: str) -> Any:
    if name == "train":
        from playahead.train.trainer import train

        return train
    if name == "train_ntuple":
        from playahead.ntuple.train import train_ntuple

        return train_ntuple
    raise AttributeError(f"module 'playahead.train' has no attribute {name!r}")
