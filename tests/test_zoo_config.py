"""playahead.train.zoo: hyperparams.yml's PPO entries in rl-zoo3's layout.

rl-zoo3 itself runs in tests/test_thirdparty.py (``make test-thirdparty``); this checks
the dict it reads without it."""

import gymnasium as gym

from playahead.envs import ENV_IDS, WRAPPED_IDS
from playahead.train.config import load_hyperparams
from playahead.train.encoders import EXTRACTORS
from playahead.train.zoo import hyperparams


def test_every_id_has_an_entry_with_the_policy_its_observation_needs():
    assert set(hyperparams) == set(ENV_IDS) | set(WRAPPED_IDS)
    for env_id, entry in hyperparams.items():
        space = gym.make(env_id, **entry.get("env_kwargs", {})).observation_space
        wanted = (
            "MultiInputPolicy" if isinstance(space, gym.spaces.Dict) else "MlpPolicy"
        )
        assert entry["policy"] == wanted, env_id
        assert "vec" not in entry


def test_entries_are_playahead_train_numbers_with_encoder_classes():
    for env_id in ENV_IDS:
        ours = load_hyperparams("ppo", env_id)
        zoo = hyperparams[env_id]
        for key, value in ours.items():
            if key not in ("vec", "policy", "policy_kwargs"):
                assert zoo[key] == value, (env_id, key)  # lin_3e-4 stays for rl-zoo3
        name = ours.get("policy_kwargs", {}).get("features_extractor_class")
        if name is not None:
            assert zoo["policy_kwargs"]["features_extractor_class"] is EXTRACTORS[name]
