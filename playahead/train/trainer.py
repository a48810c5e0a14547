"""One function trains a baseline: :func:`train`.

A run directory (``out``) ends up holding::

    model.zip          the final model (load with make_agent("ppo:path=out"))
    config.json        the exact configuration, hyperparameters included
    versions.json      Python, platform and library versions
    vecnormalize.pkl   reward-normalisation statistics (when ``normalize`` is set)
    cost.json          training cost: steps, CPU and wall seconds (across resumes)
    checkpoints/       {algo}_{steps}_steps.zip every ``checkpoint_every`` steps, on
                       Ctrl-C or SIGTERM and at the end, each with its
                       {algo}_cost_... .json; DQN's latest replay buffer beside them
    selfplay/          the opponent snapshot (with ``self_play_every``)
    tb/                TensorBoard logs (``tensorboard --logdir out/tb``)

``resume=True`` continues from the newest checkpoint: the step count, the schedules,
the replay buffer and the normalisation statistics go on where they stopped, up to
``steps`` in total.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from playahead._rundirs import refuse_another_run
from playahead.train.config import (
    TrainConfig,
    algo_class,
    algo_kwargs,
    canonical_env_id,
    library_versions,
    load_hyperparams,
)

# Options that may differ when resuming; everything else comes from config.json.
_RESUME_FREE = (
    "steps",
    "threads",
    "checkpoint_every",
    "resume",
    "progress_bar",
    "tensorboard",
    "device",
    "verbose",
    "out",
)


def train(
    algo: str,
    env_id: str,
    steps: int | None = None,
    seed: int = 0,
    out: str | os.PathLike = "runs/run",
    **options: Any,
) -> Path:
    """Train ``algo`` on ``env_id`` and return the path of ``model.zip``.

    Args:
        algo: ``"ppo"`` (MaskablePPO) or ``"dqn"`` (masked DQN).
        env_id: e.g. ``"Threes-v0"``, ``"2048-v0"``, ``"TicTacToe-v0"``.
        steps: total env steps (None: the hyperparameters' ``n_timesteps``).
        seed: seeds envs, network initialisation and exploration.
        out: run directory (must not hold another run unless ``resume``).
        **options: any other :class:`~playahead.train.config.TrainConfig` field, e.g.
            ``hp={"n_epochs": 4}``, ``n_envs=16``, ``opponent="mcts"``,
            ``self_play_every=50_000``, ``resume=True``, ``progress_bar=True``.

    Raises:
        ValueError: unknown algorithm, env id, option or hyperparameter; a run
            directory that holds another run; a resume that changes the run.
        KeyboardInterrupt: on Ctrl-C or SIGTERM, after saving a checkpoint.
    """
    unknown = sorted(set(options) - {f.name for f in _fields()})
    if unknown:
        raise ValueError(
            f"train() has no option(s) {', '.join(unknown)}; accepted: "
            f"{', '.join(f.name for f in _fields())}"
        )
    cfg = TrainConfig(
        algo=algo, env_id=env_id, steps=steps, seed=seed, out=str(out), **options
    )
    return run(cfg)


def _fields():
    import dataclasses

    return [
        f
        for f in dataclasses.fields(TrainConfig)
        if f.name not in ("algo", "env_id", "steps", "seed", "out")
    ]


def run(cfg: TrainConfig) -> Path:
    """Train as ``cfg`` says (see :func:`train`); returns the path of ``model.zip``."""
    import torch

    torch.set_num_threads(max(int(cfg.threads), 1))
    out = Path(cfg.out)
    cfg.env_id = canonical_env_id(cfg.env_id)
    algo_class(cfg.algo)  # fail early on an unknown algorithm
    if cfg.resume:
        cfg, saved = _resume_config(cfg, out)
    else:
        refuse_another_run(out, "config.json")
    hp = (
        load_hyperparams(cfg.algo, cfg.env_id, cfg.hp)
        if not cfg.resume
        else saved["hyperparams"]
    )
    n_envs = int(cfg.n_envs or hp.get("n_envs", 1))
    steps = int(cfg.steps or hp.get("n_timesteps", 100_000))
    for name, value in (
        ("steps", steps),
        ("n_envs", n_envs),
        ("checkpoint_every", cfg.checkpoint_every),
    ):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    env_kwargs = {**hp.get("env_kwargs", {}), **cfg.env_kwargs}
    cfg.steps, cfg.n_envs, cfg.vec = steps, n_envs, cfg.vec or hp.get("vec", "auto")

    probe = gym.make(cfg.env_id, **env_kwargs)
    two_player = getattr(probe.unwrapped, "num_players", 1) == 2
    obs_space = probe.observation_space
    probe.close()
    opponent = _opponent(cfg, out, two_player)
    policy, kwargs = algo_kwargs(cfg.algo, hp, obs_space)
    shaping = None
    if hp.get("shaping"):
        from playahead.train.shaping import check_shaping

        shaping = check_shaping(hp["shaping"], cfg.env_id)  # before any env is built

    from playahead.train.vec import make_vec_env

    venv = make_vec_env(
        cfg.env_id,
        n_envs,
        seed=cfg.seed,
        env_kwargs=env_kwargs,
        vec=cfg.vec,
        opponent=opponent,
    )
    checkpoint = _last_checkpoint(out / "checkpoints", cfg.algo) if cfg.resume else None
    if cfg.resume and checkpoint is None:
        venv.close()
        raise ValueError(
            f"nothing to resume in {out}: it holds no readable checkpoint yet (the run "
            "stopped before its first one); start it again without --resume in a new "
            "folder"
        )
    if shaping is not None:
        from playahead.train.shaping import ShapedReward

        venv = ShapedReward(venv, shaping)
    venv = _normalize(venv, hp, checkpoint)
    tb = str(out / "tb") if cfg.tensorboard else None
    try:
        if checkpoint is None:
            model = algo_class(cfg.algo)(
                policy,
                venv,
                seed=cfg.seed,
                device=cfg.device,
                tensorboard_log=tb,
                verbose=cfg.verbose,
                **kwargs,
            )
        else:
            model = _load_checkpoint(cfg, checkpoint, venv, tb)
    except (AssertionError, TypeError, ValueError) as err:
        venv.close()
        raise ValueError(f"{cfg.algo} on {cfg.env_id}: {err}") from None
    model.playahead_env_id = cfg.env_id
    model.playahead_algo = cfg.algo

    # the run directory is written only once everything above has been accepted
    out.mkdir(parents=True, exist_ok=True)
    record = {**cfg.to_json(), "env_kwargs": env_kwargs, "hyperparams": hp}
    (out / "config.json").write_text(json.dumps(record, indent=2, default=str) + "\n")
    (out / "versions.json").write_text(json.dumps(library_versions(), indent=2) + "\n")

    from playahead.train.callbacks import make_callbacks

    cost = _sibling(checkpoint, "cost", "json") if checkpoint is not None else None
    callbacks = make_callbacks(cfg, out, n_envs, cost)
    remaining = steps - model.num_timesteps
    if remaining <= 0 and checkpoint is not None:
        print(
            f"{out} is already at {model.num_timesteps} steps (>= {steps}); nothing "
            "to train: pass a larger --steps to continue",
            file=sys.stderr,
        )
    from playahead._procs import stop_on_sigterm

    restore = stop_on_sigterm()
    try:
        if remaining > 0:
            model.learn(
                remaining,
                callback=callbacks.all,
                reset_num_timesteps=checkpoint is None,
                tb_log_name=cfg.algo,
                progress_bar=cfg.progress_bar,
            )
    except KeyboardInterrupt:
        saved = callbacks.checkpoint.save_now(model, interrupted=True)
        print(
            f"interrupted: saved {saved} at {model.num_timesteps} steps; continue "
            f"with: playahead train {cfg.algo} --env {cfg.env_id} --out {out} --resume",
            file=sys.stderr,
        )
        raise
    finally:
        restore()
        venv.close()
    callbacks.checkpoint.save_now(model)
    path = out / "model.zip"
    model.save(path)
    (out / "cost.json").write_text(
        json.dumps(callbacks.checkpoint.cost(), indent=2) + "\n"
    )
    if model.get_vec_normalize_env() is not None:
        model.get_vec_normalize_env().save(str(out / "vecnormalize.pkl"))
    return path


def _opponent(cfg: TrainConfig, out: Path, two_player: bool):
    if not two_player:
        if cfg.self_play_every or cfg.opponent not in (None, "random"):
            raise ValueError(
                f"{cfg.env_id} is a one-player game; opponent and "
                "self_play_every apply to two-player envs"
            )
        return None
    if cfg.self_play_every:
        if cfg.self_play_every < 1:
            raise ValueError(f"self_play_every must be >= 1, got {cfg.self_play_every}")
        from playahead.train.agents import SnapshotOpponent

        return SnapshotOpponent(
            out / "selfplay" / "opponent.zip", cfg.algo, seed=cfg.seed
        )
    if cfg.opponent is not None:
        from playahead.agents import parse_spec

        parse_spec(cfg.opponent)
    return cfg.opponent or "random"


def _resume_config(cfg: TrainConfig, out: Path) -> tuple[TrainConfig, dict]:
    """The saved config with the options that may change taken from ``cfg``."""
    import dataclasses

    path = out / "config.json"
    if not path.exists():
        raise FileNotFoundError(f"nothing to resume: {path} does not exist")
    saved = json.loads(path.read_text())
    if (saved["algo"], saved["env_id"]) != (cfg.algo, cfg.env_id):
        raise ValueError(
            f"{out} holds a {saved['algo']} run on {saved['env_id']}, "
            f"not {cfg.algo} on {cfg.env_id}"
        )
    defaults = TrainConfig(algo=cfg.algo, env_id=cfg.env_id)
    names = [f.name for f in dataclasses.fields(TrainConfig)]
    kept = [n for n in names if n not in _RESUME_FREE]
    changed = [
        n
        for n in kept
        if getattr(cfg, n) != getattr(defaults, n) and getattr(cfg, n) != saved[n]
    ]
    if changed:
        raise ValueError(
            f"cannot change {', '.join(changed)} when resuming {out}; "
            "only steps, threads, device and logging options may change"
        )
    values = {n: saved[n] for n in kept}
    values.update({n: getattr(cfg, n) for n in _RESUME_FREE})
    if cfg.steps is None:
        values["steps"] = saved["steps"]
    return TrainConfig(**values), saved


_CHECKPOINT = re.compile(r"^(?P<algo>ppo|dqn)_(?P<steps>\d+)_steps\.zip$")


def _last_checkpoint(folder: Path, algo: str) -> Path | None:
    """The readable checkpoint with the most steps in ``folder``, or None; a newer
    one that is truncated or damaged (a crash while writing) is passed over with a
    warning."""
    found = []
    for p in folder.glob(f"{algo}_*_steps.zip"):
        m = _CHECKPOINT.match(p.name)
        if m:
            found.append((int(m["steps"]), p))
    for _, p in sorted(found, reverse=True):
        try:
            with zipfile.ZipFile(p) as archive:
                if archive.testzip() is None and "policy.pth" in archive.namelist():
                    return p
        except (OSError, zipfile.BadZipFile):
            pass
        warnings.warn(
            f"{p} is damaged; resuming from an earlier checkpoint", stacklevel=2
        )
    return None


def _sibling(checkpoint: Path, kind: str, ext: str = "pkl") -> Path:
    algo, steps = _CHECKPOINT.match(checkpoint.name).group("algo", "steps")
    return checkpoint.with_name(f"{algo}_{kind}_{steps}_steps.{ext}")


def _normalize(venv, hp: dict, checkpoint: Path | None):
    from stable_baselines3.common.vec_env import VecNormalize

    options = hp.get("normalize")
    if not options:
        return venv
    options = {} if options is True else dict(options)
    stats = _sibling(checkpoint, "vecnormalize") if checkpoint else None
    if stats is not None and stats.exists():
        return VecNormalize.load(str(stats), venv)
    return VecNormalize(venv, gamma=hp.get("gamma", 0.99), **options)


def _load_checkpoint(cfg: TrainConfig, checkpoint: Path, venv, tb):
    model = algo_class(cfg.algo).load(
        checkpoint, env=venv, device=cfg.device, tensorboard_log=tb, verbose=cfg.verbose
    )
    buffer = _sibling(checkpoint, "replay_buffer")
    if cfg.algo == "dqn" and buffer.exists():
        model.load_replay_buffer(buffer)
    model.set_random_seed(int(np.uint32(cfg.seed + model.num_timesteps)))
    return model
