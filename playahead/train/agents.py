"""Trained models as agents: ``make_agent("ppo:path=runs/threes-ppo/model.zip")``.

``ppo`` loads a MaskablePPO model and ``dqn`` a :class:`~playahead.train.masked_dqn.
MaskedDQN` model written by ``playahead train`` (a ``model.zip``, or the run directory
that holds one). The agent's ``act(env)`` reads the observation from the side of the
player to move and always passes the env's ``action_masks()``, so it never plays an
illegal move. Options:

* ``deterministic`` (default true): the policy's best action; ``false`` samples from
  the policy (PPO) or plays epsilon-greedy (DQN, ``epsilon``, default 0.05), with the
  agent's own generator seeded by ``seed``.
* ``device`` (default ``cpu``).

The model records the env id it was trained on; playing it in another env raises
ValueError, as does a file that is not a playahead/SB3 model. **Loading a model runs
pickled code from the file** (SB3 stores spaces and classes with cloudpickle): load
only files you trust.

This module imports torch and Stable-Baselines3 only when an agent is made, so
registering the names costs nothing.
"""

from __future__ import annotations

import json
import os
import weakref
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from playahead.agents import Analysis, register_agent

_NAMESPACE = "playahead/"


def resolve_model_path(path: str | os.PathLike) -> Path:
    """``path`` itself if it is a file, else ``path/model.zip`` for a run directory.

    Raises:
        FileNotFoundError: neither exists.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "model.zip"
    if not p.is_file():
        raise FileNotFoundError(
            f"no model at {str(path)!r} (expected a model.zip from `playahead train` "
            "or the run directory that holds it)"
        )
    return p


def read_model_meta(path: Path) -> dict[str, Any]:
    """The plain-JSON fields of an SB3 model zip (no pickled code is run).

    Returns:
        ``{"algo": ..., "env_id": ..., "num_timesteps": ...}``; values are None when
        the model was not written by playahead.

    Raises:
        ValueError: not a zip, or not an SB3 model.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if not {"data", "policy.pth"} <= names:
                raise ValueError(
                    f"{path} is a zip file but not a Stable-Baselines3 "
                    "model (no data/policy.pth inside)"
                )
            data = json.loads(archive.read("data"))
    except (
        zipfile.BadZipFile,
        json.JSONDecodeError,
        UnicodeDecodeError,
        OSError,
    ) as err:
        raise ValueError(f"{path} is not a readable model file ({err})") from None
    return {
        "algo": data.get("playahead_algo"),
        "env_id": data.get("playahead_env_id"),
        "num_timesteps": data.get("num_timesteps"),
    }


def load_model(
    path: str | os.PathLike,
    algo: str,
    device: str = "cpu",
    for_inference: bool = True,
    trusted: bool = False,
):
    """Load a ``ppo`` or ``dqn`` model written by ``playahead train``.

    By default nothing in the file is unpickled: the network is rebuilt from the run's
    ``config.json`` (plain JSON: env id, env options, hyperparameters) and the weights
    come from the zip's ``policy.pth`` through ``torch.load(weights_only=True)``,
    which refuses anything but tensors. ``trusted=True`` loads the whole SB3 zip with
    ``.load()``, which runs pickled code from the file: only for files you trust
    (and for models trained outside ``playahead train``).

    Args:
        path: ``model.zip``, a checkpoint, or a run directory.
        algo: ``"ppo"`` or ``"dqn"``; must match the model.
        device: torch device.
        for_inference: skip allocating a DQN replay buffer and unpickling schedules.
        trusted: load the full zip (runs pickled code from it).

    Raises:
        FileNotFoundError: no model there.
        ValueError: corrupt file, a model of the other algorithm, or (not trusted) no
            ``config.json`` beside it or weights that are not plain tensors.
    """
    from playahead._extras import require
    from playahead.train.config import algo_class

    p = resolve_model_path(path)
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        require(module, f"the {algo} agent")
    meta = read_model_meta(p)
    if meta["algo"] is not None and meta["algo"] != algo:
        raise ValueError(
            f"{p} is a {meta['algo']} model; load it with '{meta['algo']}:path=...'"
        )
    if not trusted:
        model = _load_weights_only(p, algo, device)
        model.num_timesteps = int(meta.get("num_timesteps") or 0)
        return model
    custom: dict[str, Any] = {}
    if for_inference:
        custom = {
            "learning_rate": 0.0,
            "lr_schedule": _zero,
            "clip_range": _zero,
            "exploration_schedule": _zero,
        }
        if algo == "dqn":
            custom["buffer_size"] = 1
    try:
        model = algo_class(algo).load(p, device=device, custom_objects=custom)
    except (KeyError, RuntimeError, TypeError, AttributeError, EOFError) as err:
        raise ValueError(f"cannot load {p} as a {algo} model: {err}") from None
    return model


def _zero(_progress: float) -> float:
    return 0.0


def _run_config(model_path: Path) -> dict[str, Any]:
    """The ``config.json`` of the run that wrote ``model_path`` (the model's folder,
    or the one above it for checkpoints and self-play snapshots)."""
    for folder in (model_path.parent, model_path.parent.parent):
        config = folder / "config.json"
        if config.is_file():
            try:
                return json.loads(config.read_text())
            except (OSError, ValueError) as err:
                raise ValueError(f"cannot read {config}: {err}") from None
    raise ValueError(
        f"{model_path} has no config.json from `playahead train` beside it, so it "
        "cannot be rebuilt without unpickling the file; if you trust the file, load "
        "it with trusted=true (e.g. 'ppo:path=...,trusted=true'), which runs pickled "
        "code from it"
    )


def _load_weights_only(path: Path, algo: str, device: str):
    """Rebuild the network from the run's JSON config; weights as plain tensors."""
    import io

    import torch

    from playahead.train.config import algo_class, algo_kwargs

    config = _run_config(path)
    try:
        env = gym.make(config["env_id"], **config.get("env_kwargs", {}))
        policy, kwargs = algo_kwargs(algo, config["hyperparams"], env.observation_space)
    except (KeyError, TypeError) as err:
        raise ValueError(f"malformed config.json beside {path}: {err}") from None
    if algo == "dqn":
        kwargs.update(buffer_size=1, learning_starts=0)
    model = algo_class(algo)(policy, env, device=device, **kwargs)
    try:
        with zipfile.ZipFile(path) as archive:
            raw = archive.read("policy.pth")
        weights = torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
        model.policy.load_state_dict(weights)
    except Exception as err:  # noqa: BLE001 - hostile bytes fail in many ways
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(
            f"cannot load the weights in {path} as plain tensors ({first}); the file "
            "is damaged, or holds more than weights (load it with trusted=true only if "
            "you trust it)"
        ) from None
    model.playahead_env_id = config["env_id"]
    model.playahead_algo = algo
    return model


def _spec_id(env) -> str | None:
    spec = getattr(env, "spec", None) or getattr(env.unwrapped, "spec", None)
    if spec is None:
        return None
    return spec.id[len(_NAMESPACE) :] if spec.id.startswith(_NAMESPACE) else spec.id


def observation_of(env):
    """The observation of ``env``'s current position from the player to move's side."""
    base = env.unwrapped
    if hasattr(base, "observe"):
        return base.observe(base.current_player)
    return base._observation()


class SB3Agent:
    """A trained MaskablePPO or MaskedDQN model playing through ``act(env)``.

    Args:
        path: ``model.zip``, a checkpoint, or a run directory.
        algo: ``"ppo"`` or ``"dqn"``.
        deterministic: best action (default) or sample (PPO) / epsilon-greedy (DQN).
        seed: seeds the agent's generator (used only when not deterministic).
        epsilon: DQN's exploration rate when not deterministic.
        device: torch device.
        trusted: load the full SB3 zip, running pickled code from it (see
            :func:`load_model`); by default only JSON and plain tensors are read.

    Raises:
        FileNotFoundError: no model at ``path``.
        ValueError: corrupt file or a model of the other algorithm.
    """

    def __init__(
        self,
        path,
        algo: str,
        deterministic: bool = True,
        seed: int | None = None,
        epsilon: float = 0.05,
        device: str = "cpu",
        trusted: bool = False,
    ):
        if path is None:
            raise ValueError(f"the {algo} agent needs a model: '{algo}:path=runs/NAME'")
        self.path = resolve_model_path(path)
        self.algo = algo
        self.model = load_model(self.path, algo, device=device, trusted=bool(trusted))
        self.env_id = getattr(self.model, "playahead_env_id", None)
        self.deterministic = bool(deterministic)
        self.epsilon = float(epsilon)
        self.rng = np.random.default_rng(seed)
        self._checked: weakref.WeakSet = weakref.WeakSet()

    def _check_env(self, env) -> None:
        if env in self._checked:
            return
        env_id = _spec_id(env)
        if self.env_id and env_id and env_id != self.env_id:
            raise ValueError(
                f"model {self.path} was trained on {self.env_id}, not {env_id}"
            )
        base = env.unwrapped
        for name in ("observation_space", "action_space"):
            ours, theirs = getattr(self.model, name), getattr(base, name)
            if ours != theirs:
                raise ValueError(
                    f"model {self.path} expects {name} {ours}, but this "
                    f"{env_id or type(base).__name__} env has {theirs}"
                )
        self._checked.add(env)

    def _scores(self, obs, mask: np.ndarray) -> np.ndarray:
        """``float[n_actions]``: action probabilities (PPO) or Q-values (DQN)."""
        import torch as th

        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(obs)
        with th.no_grad():
            if self.algo == "ppo":
                dist = policy.get_distribution(obs_tensor, action_masks=mask)
                return dist.distribution.probs[0].cpu().numpy().astype(np.float64)
            return policy.q_net(obs_tensor)[0].cpu().numpy().astype(np.float64)

    def act(self, env) -> int:
        """The model's move in ``env``'s current position (always a legal one)."""
        self._check_env(env)
        mask = np.asarray(env.unwrapped.action_masks(), dtype=bool)
        if not mask.any():
            raise ValueError("act() called in a finished game (no legal action)")
        obs = observation_of(env)
        if self.deterministic:
            action, _ = self.model.predict(obs, deterministic=True, action_masks=mask)
            return int(action)
        if self.algo == "dqn" and self.rng.random() >= self.epsilon:
            action, _ = self.model.predict(obs, deterministic=True, action_masks=mask)
            return int(action)
        legal = np.flatnonzero(mask)
        if self.algo == "dqn":
            return int(legal[self.rng.integers(legal.size)])
        probs = self._scores(obs, mask)[legal]
        return int(legal[self.rng.choice(legal.size, p=probs / probs.sum())])

    def analyze(self, env) -> Analysis:
        """Probabilities (PPO, ``value_kind="policy"``) or Q-values (DQN, ``"q"``) of
        each legal action, NaN where illegal; ``action`` is what :meth:`act` would play
        deterministically."""
        self._check_env(env)
        mask = np.asarray(env.unwrapped.action_masks(), dtype=bool)
        if not mask.any():
            raise ValueError("analyze() called in a finished game (no legal action)")
        values = np.where(mask, self._scores(observation_of(env), mask), np.nan)
        kind = "policy" if self.algo == "ppo" else "q"
        action = int(np.nanargmax(values))
        return Analysis(
            action, values, value_kind=kind, stats={"model": str(self.path)}
        )


def ppo_agent(
    path: str | None = None,
    deterministic: bool = True,
    seed: int | None = None,
    device: str = "cpu",
    trusted: bool = False,
) -> SB3Agent:
    """A MaskablePPO model from `playahead train ppo` (weights only unless trusted).

    Args:
        path: the run directory of ``playahead train ppo``, or its ``model.zip``.
        deterministic: true plays the policy's most likely legal action; false
            samples from the masked policy with the agent's own generator.
        seed: seed of that generator (None: fresh entropy).
        device: torch device, e.g. ``cpu``.
        trusted: load a zip without its run folder with SB3's ``.load()``, which runs
            pickled code from the file: only for files you trust.
    """
    return SB3Agent(
        path,
        "ppo",
        deterministic=deterministic,
        seed=seed,
        device=device,
        trusted=trusted,
    )


def dqn_agent(
    path: str | None = None,
    deterministic: bool = True,
    seed: int | None = None,
    epsilon: float = 0.05,
    device: str = "cpu",
    trusted: bool = False,
) -> SB3Agent:
    """A masked DQN model from `playahead train dqn` (weights only unless trusted).

    Args:
        path: the run directory of ``playahead train dqn``, or its ``model.zip``.
        deterministic: true plays the legal action of highest Q value; false plays
            epsilon-greedy among the legal actions.
        seed: seed of the agent's generator (None: fresh entropy).
        epsilon: with ``deterministic=false``, the probability of a uniformly
            random legal action.
        device: torch device, e.g. ``cpu``.
        trusted: as for ``ppo``: load with SB3's ``.load()`` (runs pickled code).
    """
    return SB3Agent(
        path,
        "dqn",
        deterministic=deterministic,
        seed=seed,
        epsilon=epsilon,
        device=device,
        trusted=trusted,
    )


class SnapshotOpponent:
    """Self-play opponent: the latest snapshot of the learner, as ``(env) -> action``.

    Training with ``--self-play-every K`` saves the learner to ``path`` every K steps;
    this callable (the two-player env's ``opponent``) reloads the file whenever it
    changed and samples its moves (``deterministic=False``) from the side of the
    player to move. Before the first snapshot exists it plays uniformly among the
    legal moves. Random draws come from its own generator (``seed``).

    Args:
        path: the snapshot file (``out/selfplay/opponent.zip``).
        algo: ``"ppo"`` or ``"dqn"``.
        seed: seeds the generator.
    """

    def __init__(self, path: str | os.PathLike, algo: str, seed: int | None = None):
        self.path = Path(path)
        self.algo = algo
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.loads = 0
        self._agent: SB3Agent | None = None
        self._stamp: int | None = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_agent"], state["_stamp"] = None, None
        return state

    def _refresh(self) -> None:
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return
        if stamp != self._stamp:
            self._agent = SB3Agent(
                self.path,
                self.algo,
                deterministic=False,
                seed=int(self.rng.integers(2**63 - 1)),
                trusted=True,  # this run's own learner wrote the snapshot
            )
            self._stamp = stamp
            self.loads += 1

    def __call__(self, env) -> int:
        self._refresh()
        if self._agent is None:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            return int(legal[self.rng.integers(legal.size)])
        return self._agent.act(env)


register_agent("ppo", ppo_agent)
register_agent("dqn", dqn_agent)
