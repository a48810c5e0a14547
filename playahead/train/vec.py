"""Vectorized training envs for Stable-Baselines3.

:func:`make_vec_env` picks how to batch an env id:

* ``"compiled"`` (the default for 2048-v0 and Threes-v0): the compiled vector env
  (``gym.make_vec(id, vectorization_mode="vector_entry_point")``) behind
  :class:`GymVectorToSB3`, which steps every board in one numba call.
* ``"dummy"`` (the default for everything else): SB3's ``DummyVecEnv`` of
  ``Monitor``-wrapped single envs, stepped one after another in this process.
* ``"subproc"``: SB3's ``SubprocVecEnv``, one worker process per env. It pays off only
  when one env step costs far more than the pipe round trip (~50-100 us per step and
  worker). A playahead step costs 1-30 us (a compiled tile move, a tic-tac-toe mark)
  and the built-in random opponent a few more, so workers make these games *slower*;
  use them for a strong planner as the opponent (``--opponent mcts:...``), where each
  step costs milliseconds.

Autoreset semantics. SB3's ``VecEnv`` resets a finished env in the same step: ``step``
returns the first observation of the next episode, ``done=True``, and puts the last
observation in ``infos[i]["terminal_observation"]``. Gymnasium's vector envs default to
next-step autoreset (the finished env returns its last observation, and the *next*
``step`` ignores its action and resets it). :class:`GymVectorToSB3` converts:

* same-step vector envs: ``infos["final_obs"]`` becomes ``terminal_observation``;
* next-step or disabled-autoreset envs: the finished envs are reset at once with
  ``reset(options={"reset_mask": done})`` (Gymnasium >= 1.1's partial reset, which
  ``SyncVectorEnv``, ``AsyncVectorEnv`` and playahead's compiled tile envs support), so
  the next ``step`` sees no finished env and skips nothing.

The adapter also keeps per-env return and length (``infos[i]["episode"]``, what SB3's
``Monitor`` would add) and answers ``env_method("action_masks")`` with one
``bool[n_actions]`` row per env: the legal moves of the observation SB3 holds, which is
what sb3-contrib's ``get_action_masks`` asks for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

VEC_KINDS = ("auto", "compiled", "dummy", "subproc")


# --------------------------------------------------------------------------- adapter
def _index(obs, i: int):
    if isinstance(obs, dict):
        return {k: np.array(v[i]) for k, v in obs.items()}
    return np.array(obs[i])


def _put(dst, src, rows: np.ndarray) -> None:
    if isinstance(dst, dict):
        for k in dst:
            dst[k][rows] = src[k][rows]
    else:
        dst[rows] = src[rows]


def _split_infos(infos: dict, n: int) -> list[dict[str, Any]]:
    """Gymnasium's dict of arrays (with ``_key`` presence masks) -> n dicts."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, value in infos.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        present = infos.get(f"_{key}")
        for i in range(n):
            if present is None or present[i]:
                out[i][key] = value[i]
    return out


class GymVectorToSB3(VecEnv):
    """A Gymnasium ``VectorEnv`` seen as an SB3 ``VecEnv`` (see the module docstring).

    Args:
        venv: a Gymnasium vector env with a ``Discrete`` single action space, e.g.
            ``gym.make_vec("Threes-v0", num_envs=64,
            vectorization_mode="vector_entry_point")``.

    Observations are what ``venv`` returns (``uint8[n_envs, 4, 4]`` for 2048, a dict of
    batched arrays for Threes). ``infos[i]`` holds the env's per-board infos (for the
    tile games ``score``, ``max_tile`` and ``action_mask`` of the board that just
    moved, i.e. of the final board when the episode ended), plus ``episode``
    (``{"r": return, "l": length, "t": seconds}``), ``terminal_observation`` and
    ``TimeLimit.truncated`` when it ended.
    """

    def __init__(self, venv: gym.vector.VectorEnv):
        if not isinstance(venv.single_action_space, gym.spaces.Discrete):
            raise ValueError(
                f"GymVectorToSB3 needs a Discrete action space, got "
                f"{venv.single_action_space}"
            )
        self.venv = venv
        super().__init__(
            venv.num_envs, venv.single_observation_space, venv.single_action_space
        )
        mode = venv.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        self._same_step = mode in (AutoresetMode.SAME_STEP, "SameStep")
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._masks: np.ndarray | None = None
        self._t0 = time.perf_counter()

    # ---------------------------------------------------------------- stepping
    def reset(self):
        seed = self._seeds[0]
        obs, infos = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0
        self._lengths[:] = 0
        self._masks = self._read_masks(infos)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terms, truncs, infos = self.venv.step(self._actions)
        dones = np.logical_or(terms, truncs)
        env_infos = _split_infos(infos, self.num_envs)
        self._returns += rewards
        self._lengths += 1
        self._masks = self._read_masks(infos)
        if dones.any():
            obs = self._autoreset(obs, dones, truncs & ~terms, infos, env_infos)
        return obs, rewards.astype(np.float32), dones, env_infos

    def _autoreset(self, obs, dones, timeouts, infos, env_infos):
        elapsed = round(time.perf_counter() - self._t0, 6)
        rows = np.flatnonzero(dones)
        if self._same_step:
            final = infos["final_obs"]
            terminal = [
                _index(final, i) if dones[i] else None for i in range(self.num_envs)
            ]
            final_infos = _split_infos(infos.get("final_info", {}), self.num_envs)
            for i in rows:
                env_infos[i] = final_infos[i]
        else:
            terminal = [
                _index(obs, i) if dones[i] else None for i in range(self.num_envs)
            ]
            fresh, reset_infos = self.venv.reset(options={"reset_mask": dones})
            self._masks = self._read_masks(reset_infos, fallback=self._masks)
            obs = (
                {k: v.copy() for k, v in obs.items()}
                if isinstance(obs, dict)
                else obs.copy()
            )
            _put(obs, fresh, rows)
        for i in rows:
            env_infos[i]["terminal_observation"] = terminal[i]
            env_infos[i]["TimeLimit.truncated"] = bool(timeouts[i])
            env_infos[i]["episode"] = {
                "r": float(self._returns[i]),
                "l": int(self._lengths[i]),
                "t": elapsed,
            }
        self._returns[rows] = 0
        self._lengths[rows] = 0
        return obs

    def _read_masks(self, infos, fallback=None) -> np.ndarray:
        if hasattr(self.venv.unwrapped, "action_masks"):
            return np.asarray(self.venv.unwrapped.action_masks(), dtype=bool)
        if "action_mask" in infos:
            masks = np.asarray(infos["action_mask"], dtype=bool)
            if fallback is not None and "_action_mask" in infos:
                return np.where(infos["_action_mask"][:, None], masks, fallback)
            return masks
        return np.ones((self.num_envs, self.action_space.n), dtype=bool)

    def action_masks(self) -> np.ndarray:
        """``bool[n_envs, n_actions]``: legal actions for the observations SB3 holds."""
        if self._masks is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._masks.copy()

    def close(self) -> None:
        self.venv.close()

    # ---------------------------------------------------------------- VecEnv plumbing
    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "action_masks":
            value = self.action_masks
        else:
            value = getattr(self.venv.unwrapped, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.venv.unwrapped, attr_name, value)

    def env_method(
        self, method_name: str, *method_args, indices=None, **method_kwargs
    ) -> list[Any]:
        """``env_method("action_masks")`` gives one ``bool[n_actions]`` per env; other
        methods are called once on the vector env and the result repeated."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv.unwrapped, method_name)(
            *method_args, **method_kwargs
        )
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


# --------------------------------------------------------------------------- factory
def has_compiled_vector(env_id: str) -> bool:
    """True if ``env_id`` has one of playahead's compiled vector envs (2048, Threes)."""
    entry = gym.spec(env_id).vector_entry_point
    return isinstance(entry, str) and entry.startswith("playahead.")


def make_vec_env(
    env_id: str,
    n_envs: int,
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    vec: str = "auto",
    opponent: Any = None,
) -> VecEnv:
    """Build the SB3 ``VecEnv`` used for training (see the module docstring).

    Args:
        env_id: a registered id, e.g. ``"Threes-v0"``.
        n_envs: number of envs stepped together (>= 1).
        seed: seeds the envs (the compiled env from ``seed``, single envs from
            ``seed + i``); None draws fresh entropy.
        env_kwargs: keyword arguments of the env (e.g. ``{"bonus_preview": "plus"}``).
        vec: ``"auto"`` (compiled when the id has one, else dummy), ``"compiled"``,
            ``"dummy"`` or ``"subproc"``.
        opponent: for two-player envs, the ``opponent`` argument (agent spec or
            callable); ignored (must be None) for one-player envs.

    Raises:
        ValueError: bad ``n_envs`` or ``vec``, or ``"compiled"`` for an id without one.
    """
    if vec not in VEC_KINDS:
        raise ValueError(f"vec={vec!r} is not one of {', '.join(VEC_KINDS)}")
    if not isinstance(n_envs, int | np.integer) or n_envs < 1:
        raise ValueError(f"n_envs must be an integer >= 1, got {n_envs!r}")
    kwargs = dict(env_kwargs or {})
    if opponent is not None:
        kwargs["opponent"] = opponent
    compiled = has_compiled_vector(env_id)
    if vec == "compiled" and not compiled:
        raise ValueError(f"{env_id} has no compiled vector env; use vec='dummy'")
    if vec == "auto":
        vec = "compiled" if compiled else "dummy"
    if vec == "compiled":
        venv = gym.make_vec(
            env_id,
            num_envs=int(n_envs),
            vectorization_mode="vector_entry_point",
            vector_kwargs=kwargs,
        )
        env = GymVectorToSB3(venv)
    else:
        fns = [_env_fn(env_id, kwargs) for _ in range(int(n_envs))]
        env = DummyVecEnv(fns) if vec == "dummy" else SubprocVecEnv(fns)
    env.seed(seed)
    return env


def _env_fn(env_id: str, kwargs: dict[str, Any]) -> Callable[[], gym.Env]:
    def make() -> gym.Env:
        return Monitor(gym.make(env_id, **kwargs))

    return make
