"""Small networks and budgets for the RL tests: they check plumbing, not learning."""

from __future__ import annotations

SMALL = {
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
    "dqn": {"learning_starts": 64, "buffer_size": 4096, "batch_size": 32},
}
TILE_NET = {
    "features_extractor_kwargs": {"arch": "mlp", "features_dim": 32},
    "net_arch": [16],
}
#: The smallest policy the agents' tests train.
TINY = {
    "policy_kwargs": {
        "net_arch": [8],
        "features_extractor_kwargs": {"arch": "mlp", "features_dim": 16},
    }
}


def small_hp(algo: str, env_id: str) -> dict:
    """Hyperparameters of a tiny ``algo`` run on ``env_id``."""
    hp = dict(SMALL[algo])
    hp["policy_kwargs"] = (
        TILE_NET if env_id in ("2048-v0", "Threes-v0") else {"net_arch": [16]}
    )
    return hp
