"""Observation wrappers for RL libraries that expect another shape of observation.

playahead's envs give compact integer observations (ranks as ``uint8``, a Threes
``Dict``, two-player planes as ``int8``). Many tools want something else:

* :class:`FlatObservation`: one ``float32`` vector (CleanRL's ``ppo.py``/``dqn.py``,
  SB3's ``MlpPolicy``, RLlib's default encoder). Works on every playahead env; a Dict
  (Threes: board, preview, deck) is flattened in key order.
* :class:`OneHotTiles`: 2048 and Threes boards as 16 one-hot planes, ``float32[16, 4,
  4]`` (plane ``r`` marks the cells of rank ``r``); in Threes the preview and deck stay
  beside it in the Dict.
* :class:`ActionMaskObservation`: a Dict of the observation and the legal-move mask,
  where masked algorithms of other libraries look for it: RLlib's action-masking
  module reads ``{"observations", "action_mask"}``; Tianshou reads ``obs["mask"]``;
  PettingZoo's convention is ``{"observation", "action_mask"}`` (the default).

Each is a Gymnasium ``ObservationWrapper``, so ``action_masks()`` still reaches the
env through it (``env.get_wrapper_attr("action_masks")()``), and they compose:
``ActionMaskObservation(FlatObservation(gym.make("Threes-v0")))``. With Gymnasium's
vector envs: ``gym.make_vec("2048-v0", 8, vectorization_mode="sync",
wrappers=[FlatObservation])``.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["ActionMaskObservation", "FlatObservation", "OneHotTiles"]

N_PLANES = 16


class FlatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The observation as one ``float32`` vector (a Dict flattened in key order)."""

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        flat = spaces.flatten_space(env.observation_space)
        self.observation_space = spaces.Box(
            flat.low.astype(np.float32), flat.high.astype(np.float32), dtype=np.float32
        )

    def observation(self, observation) -> np.ndarray:
        flat = spaces.flatten(self.env.observation_space, observation)
        return np.asarray(flat, dtype=np.float32)


def _one_hot(board: np.ndarray) -> np.ndarray:
    planes = np.zeros((N_PLANES, 4, 4), dtype=np.float32)
    rows, cols = np.indices((4, 4))
    planes[board.astype(np.intp), rows, cols] = 1.0
    return planes


class OneHotTiles(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """2048 or Threes boards as one-hot planes, ``float32[16, 4, 4]``.

    Raises:
        ValueError: the env is not a 2048 or Threes env.
    """

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space
        board = space["board"] if isinstance(space, spaces.Dict) else space
        if not (isinstance(board, spaces.Box) and board.shape == (4, 4)):
            raise ValueError(
                f"OneHotTiles takes 2048-v0 or Threes-v0 (a 4x4 board of ranks), got "
                f"an env with observation space {space}"
            )
        planes = spaces.Box(0.0, 1.0, (N_PLANES, 4, 4), dtype=np.float32)
        if isinstance(space, spaces.Dict):
            self.observation_space = spaces.Dict({**space.spaces, "board": planes})
        else:
            self.observation_space = planes

    def observation(self, observation):
        if isinstance(observation, dict):
            return {**observation, "board": _one_hot(observation["board"])}
        return _one_hot(observation)


class ActionMaskObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """``{obs_key: observation, mask_key: int8[n_actions]}`` (1 = legal).

    Args:
        env: any playahead env (or one wrapped in other wrappers).
        obs_key: ``"observation"`` (PettingZoo, Tianshou) or ``"observations"``
            (RLlib's action-masking module).
        mask_key: ``"action_mask"`` (PettingZoo, RLlib) or ``"mask"`` (Tianshou).
    """

    def __init__(
        self, env: gym.Env, obs_key: str = "observation", mask_key: str = "action_mask"
    ):
        gym.utils.RecordConstructorArgs.__init__(
            self, obs_key=obs_key, mask_key=mask_key
        )
        gym.ObservationWrapper.__init__(self, env)
        if obs_key == mask_key:
            raise ValueError(f"obs_key and mask_key are both {obs_key!r}")
        self.obs_key, self.mask_key = obs_key, mask_key
        n = env.action_space.n
        self.observation_space = spaces.Dict(
            {
                obs_key: env.observation_space,
                mask_key: spaces.Box(0, 1, (n,), dtype=np.int8),
            }
        )

    def observation(self, observation) -> dict:
        mask = self.env.get_wrapper_attr("action_masks")()
        return {self.obs_key: observation, self.mask_key: mask.astype(np.int8)}
