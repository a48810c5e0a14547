"""playahead's PPO hyperparameters in rl-zoo3's layout (``-conf playahead.train.zoo``).

rl-zoo3 reads a Python package's ``hyperparams`` dict (env id -> hyperparameters) as
its config, so this module gives rl-zoo3 the PPO entries of ``hyperparams.yml`` (the
numbers ``playahead train ppo`` uses), with the encoders as classes::

    python -m rl_zoo3.train --algo ppo --env 2048-v0 --gym-packages playahead \
        -conf playahead.train.zoo
    python -m rl_zoo3.enjoy --algo ppo --env 2048-v0 --gym-packages playahead \
        -f logs --no-render

Every playahead id has an entry, including the ``-flat-v0``/``-onehot-v0`` ids, which
take the file's ``default`` with the policy their observation needs. ``vec``
(playahead's own vector-env choice) and ``shaping`` (its reward-shaping wrapper) are
left out. The entries are PPO's: with another ``--algo``, give rl-zoo3 that
algorithm's own hyperparameters.

Masks: rl-zoo3 2.9.2 has no MaskablePPO (its ``--algo`` choices are a2c, ddpg, dqn,
ppo, sac, td3, ars, crossq, qrdqn, tqc, trpo and ppo_lstm), so ``--algo ppo`` learns
without masks: an illegal move is a no-op, and 100 in a row truncate the episode. For
masked PPO run ``playahead train ppo`` (sb3-contrib's MaskablePPO).

Without ``-conf``, rl-zoo3 uses its own ``default`` entry, ``MlpPolicy``, which SB3
refuses on a Dict observation (Threes-v0, Threes-onehot-v0) with ``ValueError: You
must use `MultiInputPolicy` when working with dict observation space, not
MlpPolicy``. Add ``-conf playahead.train.zoo`` (playahead's numbers), or keep
rl-zoo3's numbers with ``--hyperparams "policy:'MultiInputPolicy'"``, or train on
``Threes-flat-v0``. The other ids have Box observations and run either way.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from playahead.envs import ENV_IDS, WRAPPED_IDS
from playahead.train.config import HYPERPARAMS_FILE, _policy_kwargs


def _policy_for(env_id: str) -> str:
    env = gym.make(env_id)
    dict_obs = isinstance(env.observation_space, gym.spaces.Dict)
    env.close()
    return "MultiInputPolicy" if dict_obs else "MlpPolicy"


def zoo_hyperparams(algo: str = "ppo") -> dict[str, dict[str, Any]]:
    """``algo``'s entries of ``hyperparams.yml`` as rl-zoo3 reads them.

    Args:
        algo: the top key of ``hyperparams.yml`` (``"ppo"``).

    Returns:
        env id -> hyperparameters: ``policy`` resolved (``auto`` becomes
        ``MlpPolicy`` or ``MultiInputPolicy``), ``policy_kwargs`` with classes,
        ``lin_<x>`` schedules and ``normalize`` dicts kept (rl-zoo3 reads both).
    """
    import yaml

    with open(HYPERPARAMS_FILE) as f:
        table = yaml.safe_load(f)[algo]
    out = {}
    for env_id in [*ENV_IDS, *WRAPPED_IDS]:
        entry = dict(table.get(env_id, table["default"]))
        entry.pop("vec", None)
        entry.pop("shaping", None)  # playahead's own wrapper; rl-zoo3 has no such key
        if entry.get("policy", "auto") == "auto":
            entry["policy"] = _policy_for(env_id)
        if "policy_kwargs" in entry:
            entry["policy_kwargs"] = _policy_kwargs(entry["policy_kwargs"])
        out[env_id] = entry
    return out


hyperparams = zoo_hyperparams("ppo")
