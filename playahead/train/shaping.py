"""Reward shaping for the tile games, a documented training option.

``shaping: {merge2: 1.0, empty: 0.1, monotonic: 0.4}`` in ``hyperparams.yml`` (or
``--hp shaping.merge2=1.0`` ...) trains on::

    merge * log2(score gained)      (0 when the move scored nothing)
    + merge2 * log2(score gained)**2
    + empty * (empty cells / 16)    after the move
    + monotonic * mean over the 4 rows and 4 columns of the share of adjacent pairs
      in order, in the better of the two directions (1: every line sorted)
    + survival                      (a constant for every move)

instead of the score gained: the merge, superlinear-merge, empty-cell,
monotonicity and survival terms of Corentinjst/2048-RL's MaskablePPO agent (a term
left out weighs 0). Only the learner sees
it: ``info["score"]``, the evaluator and the TensorBoard score curves keep the game's
own score. It wraps the vector env before ``VecNormalize``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

TERMS = ("merge", "merge2", "empty", "monotonic", "survival")
GAMES = ("2048-v0", "Threes-v0")


def check_shaping(options, env_id: str) -> dict[str, float]:
    """The weights of ``options`` (a mapping of :data:`TERMS` to numbers), or a
    ValueError that says what is accepted."""
    if env_id not in GAMES:
        raise ValueError(
            f"shaping is for the tile games ({', '.join(GAMES)}), not {env_id}"
        )
    if not isinstance(options, Mapping) or not options:
        raise ValueError(
            f"shaping must map some of {', '.join(TERMS)} to weights, e.g. "
            f"{{merge: 1.0, empty: 0.5}}; got {options!r}"
        )
    weights = {}
    for key, value in options.items():
        if key not in TERMS:
            raise ValueError(
                f"unknown shaping term {key!r}; accepted: {', '.join(TERMS)}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"shaping.{key} must be a number, got {value!r}")
        if not np.isfinite(value) or abs(value) > 1e6:
            raise ValueError(f"shaping.{key} must be finite and within 1e6")
        weights[key] = float(value)
    return {t: weights.get(t, 0.0) for t in TERMS}


def _boards(obs) -> np.ndarray:
    """int array (n, 4, 4) of ranks from a batch of observations."""
    board = obs["board"] if isinstance(obs, Mapping) else obs
    return np.asarray(board).reshape(-1, 4, 4).astype(np.int64)


def monotonicity(boards: np.ndarray) -> np.ndarray:
    """Mean over the 8 lines of ``max(ascending pairs, descending pairs) / 3``."""
    lines = np.concatenate([boards, boards.transpose(0, 2, 1)], axis=1)  # (n, 8, 4)
    d = np.diff(lines, axis=2)
    up = (d >= 0).sum(axis=2)
    down = (d <= 0).sum(axis=2)
    return (np.maximum(up, down) / 3.0).mean(axis=1)


def shaped(rewards: np.ndarray, boards: np.ndarray, w: dict[str, float]) -> np.ndarray:
    """The shaped rewards of a batch (``boards`` after the moves)."""
    r = np.asarray(rewards, dtype=np.float64)
    out = np.zeros(len(r))
    if w["merge"] or w["merge2"]:
        gain = np.where(r > 0, np.log2(np.maximum(r, 1.0)), 0.0)
        out += w["merge"] * gain + w["merge2"] * gain**2
    if w["empty"]:
        out += w["empty"] * (boards == 0).sum(axis=(1, 2)) / 16.0
    if w["monotonic"]:
        out += w["monotonic"] * monotonicity(boards)
    out += w["survival"]
    return out.astype(np.float32)


class ShapedReward(VecEnvWrapper):
    """A vector env whose rewards are :func:`shaped` (see the module docstring)."""

    def __init__(self, venv, weights: dict[str, float]):
        super().__init__(venv)
        self.weights = dict(weights)

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        boards = _boards(obs)
        for i in np.flatnonzero(dones):  # the board the move left, not the next game's
            final = infos[i].get("terminal_observation")
            if final is not None:
                boards[i] = _boards(final)[0]
        return obs, shaped(rewards, boards, self.weights), dones, infos
