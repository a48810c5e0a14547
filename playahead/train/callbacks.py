"""Callbacks of a training run: checkpoints, self-play snapshots, game statistics."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import deque
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import (
    BaseCallback,
    CallbackList,
    CheckpointCallback,
)

from playahead.train.config import TrainConfig


class RunCheckpoint(CheckpointCallback):
    """SB3's ``CheckpointCallback`` (model, replay buffer, VecNormalize statistics)
    that can also save on demand (Ctrl-C, end of run) and keeps only the newest
    replay buffer, which is by far the largest file.

    Every save also writes ``{algo}_cost_{steps}_steps.json`` beside the checkpoint:
    the CPU seconds (``time.process_time``, this process: the learner and in-process
    envs) and wall seconds the run has spent up to it, counted across resumes, so the
    run's training cost is known however many times it stopped.

    Args:
        every: env steps between checkpoints (rounded to whole vector steps).
        folder: where ``{algo}_{steps}_steps.zip`` and friends go.
        algo: file name prefix.
        n_envs: envs per vector step.
        resumed_cost: the cost file of the checkpoint this run continues (carried
            on), or None for a new run.
    """

    def __init__(
        self,
        every: int,
        folder: Path,
        algo: str,
        n_envs: int,
        resumed_cost: Path | None = None,
    ):
        super().__init__(
            save_freq=max(int(every) // n_envs, 1),
            save_path=str(folder),
            name_prefix=algo,
            save_replay_buffer=True,
            save_vecnormalize=True,
        )
        self.every = max(int(every), 1)
        self._trained = None  # on-policy: steps whose rollouts have been trained on
        self._saved_at = 0
        self._base = read_cost(resumed_cost) if resumed_cost else _NO_COST
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()

    def _on_policy(self) -> bool:
        return getattr(self.model, "rollout_buffer", None) is not None

    def _on_training_start(self) -> None:
        self._trained = self._saved_at = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        # On-policy algorithms train between rollouts: every step counted so far has
        # been learned from, so this is where a checkpoint loses nothing.
        self._trained = self.model.num_timesteps
        if self._on_policy() and self._trained - self._saved_at >= self.every:
            self._save()

    def _on_step(self) -> bool:
        if not self._on_policy() and self.n_calls % self.save_freq == 0:
            self._save()
        return True

    def save_now(self, model, interrupted: bool = False) -> Path:
        """Checkpoint ``model``; returns the zip's path.

        ``interrupted``: the run stopped mid-rollout (Ctrl-C); an on-policy model is
        saved at the steps it has trained on, so the discarded part of the rollout is
        collected again on ``--resume`` rather than counted.
        """
        self.model = model
        if interrupted and self._on_policy() and self._trained is not None:
            model.num_timesteps = self._trained
        self.num_timesteps = model.num_timesteps
        os.makedirs(self.save_path, exist_ok=True)
        return self._save()

    def _save(self) -> Path:
        self.num_timesteps = self._saved_at = self.model.num_timesteps
        path = Path(self._checkpoint_path(extension="zip"))
        self.model.save(path)
        if getattr(self.model, "replay_buffer", None) is not None:
            buffer = Path(self._checkpoint_path("replay_buffer_", extension="pkl"))
            self.model.save_replay_buffer(buffer)
            for old in buffer.parent.glob(f"{self.name_prefix}_replay_buffer_*.pkl"):
                if old != buffer:
                    old.unlink()
        normalizer = self.model.get_vec_normalize_env()
        if normalizer is not None:
            normalizer.save(self._checkpoint_path("vecnormalize_", extension="pkl"))
        cost = self.cost()
        Path(self._checkpoint_path("cost_", extension="json")).write_text(
            json.dumps(cost, indent=2) + "\n"
        )
        return path

    def cost(self) -> dict:
        """The run's training cost so far (see the class docstring)."""
        return {
            "steps": int(self.model.num_timesteps),
            "cpu_seconds": round(
                self._base["cpu_seconds"] + time.process_time() - self._cpu0, 3
            ),
            "wall_seconds": round(
                self._base["wall_seconds"] + time.perf_counter() - self._wall0, 3
            ),
            "clock": "process_time",
            "complete": self._base["complete"],
        }


_NO_COST = {"cpu_seconds": 0.0, "wall_seconds": 0.0, "complete": True}


def read_cost(path: Path) -> dict:
    """A checkpoint's cost record (``{algo}_cost_{steps}_steps.json``); a missing or
    unreadable one (a checkpoint written before costs were recorded) counts as 0 with
    ``"complete": False``, so the total is marked a lower bound."""
    try:
        saved = json.loads(path.read_text())
        return {
            "cpu_seconds": float(saved["cpu_seconds"]),
            "wall_seconds": float(saved["wall_seconds"]),
            "complete": bool(saved.get("complete", True)),
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {"cpu_seconds": 0.0, "wall_seconds": 0.0, "complete": False}


class SelfPlaySnapshots(BaseCallback):
    """Every ``every`` env steps, save the learner where its
    :class:`~playahead.train.agents.SnapshotOpponent` will reload it (first at step
    0, so the opponent is the initial network rather than random only until then).

    The file is written to a temporary name and renamed, so the opponent never reads
    a half-written snapshot.
    """

    def __init__(self, path: Path, every: int):
        super().__init__()
        self.path = Path(path)
        self.every = int(every)
        self._next = 0

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.stem + ".tmp.zip")
        self.model.save(tmp)
        os.replace(tmp, self.path)
        self._next = self.num_timesteps + self.every

    def _on_training_start(self) -> None:
        self.num_timesteps = self.model.num_timesteps
        if not self.path.exists():
            self._save()
        else:
            self._next = self.num_timesteps + self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._save()
        return True


class GameStats(BaseCallback):
    """Logs what the games say about progress, over the last ``window`` episodes:
    ``rollout/score_mean`` and ``rollout/max_tile_mean`` (tile games, from the final
    ``info``), ``rollout/win_rate``, ``draw_rate`` and ``loss_rate`` (two-player games,
    from the episode's return: +1 win, 0 draw, -1 loss)."""

    def __init__(self, window: int = 100):
        super().__init__()
        self.scores: deque = deque(maxlen=window)
        self.tiles: deque = deque(maxlen=window)
        self.results: deque = deque(maxlen=window)

    def _on_step(self) -> bool:
        dones, infos = self.locals["dones"], self.locals["infos"]
        for i in np.flatnonzero(dones):
            info = infos[i]
            if "score" in info:
                self.scores.append(float(info["score"]))
            if "max_tile" in info:
                self.tiles.append(float(info["max_tile"]))
            if "agent_player" in info and "episode" in info:
                self.results.append(np.sign(info["episode"]["r"]))
        return True

    def _on_rollout_end(self) -> None:
        if self.scores:
            self.logger.record("rollout/score_mean", float(np.mean(self.scores)))
        if self.tiles:
            self.logger.record("rollout/max_tile_mean", float(np.mean(self.tiles)))
        if self.results:
            r = np.asarray(self.results)
            self.logger.record("rollout/win_rate", float(np.mean(r > 0)))
            self.logger.record("rollout/draw_rate", float(np.mean(r == 0)))
            self.logger.record("rollout/loss_rate", float(np.mean(r < 0)))


@dataclasses.dataclass
class RunCallbacks:
    """The callbacks of a run; ``checkpoint`` is also used directly (Ctrl-C, end)."""

    checkpoint: RunCheckpoint
    all: CallbackList


def make_callbacks(
    cfg: TrainConfig, out: Path, n_envs: int, resumed_cost: Path | None = None
) -> RunCallbacks:
    """Checkpoints every ``cfg.checkpoint_every`` steps, game statistics, and
    self-play snapshots when ``cfg.self_play_every`` is set."""
    checkpoint = RunCheckpoint(
        cfg.checkpoint_every, out / "checkpoints", cfg.algo, n_envs, resumed_cost
    )
    callbacks: list[BaseCallback] = [checkpoint, GameStats()]
    if cfg.self_play_every:
        callbacks.append(
            SelfPlaySnapshots(out / "selfplay" / "opponent.zip", cfg.self_play_every)
        )
    return RunCallbacks(checkpoint, CallbackList(callbacks))
