"""Gymnasium environments. ``import playahead`` registers every id in ``ENV_IDS``."""

from __future__ import annotations

import warnings

import gymnasium as gym

# id -> (entry point, vector entry point or None)
ENV_IDS: dict[str, tuple[str, str | None]] = {
    "Threes-v0": (
        "playahead.envs.tiles:ThreesEnv",
        "playahead.envs.vector:ThreesVectorEnv",
    ),
    "2048-v0": (
        "playahead.envs.tiles:Twenty48Env",
        "playahead.envs.vector:Twenty48VectorEnv",
    ),
    "TicTacToe-v0": ("playahead.envs.tictactoe:TicTacToeEnv", None),
    "ConnectFour-v0": ("playahead.envs.connect_four:ConnectFourEnv", None),
    "Nim-v0": ("playahead.envs.nim:NimEnv", None),
    "Chips-v0": ("playahead.envs.nim:ChipsEnv", None),
}

NAMESPACE = "playahead"


def _ours(spec: gym.envs.registration.EnvSpec, entry_point: str) -> bool:
    return spec.entry_point == entry_point


def register_envs() -> None:
    """Register every playahead id, plain and namespaced (``playahead/Threes-v0``).

    An id that another package already registered is left alone (with a warning);
    the namespaced id still works.
    """
    for env_id, (entry_point, vector_entry_point) in ENV_IDS.items():
        for full_id in (env_id, f"{NAMESPACE}/{env_id}"):
            existing = gym.registry.get(full_id)
            if existing is not None:
                if not _ours(existing, entry_point):
                    warnings.warn(
                        f"{full_id!r} is already registered by "
                        f"{existing.entry_point!r};"
                        f" playahead's version stays reachable as "
                        f"'{NAMESPACE}/{env_id}'",
                        stacklevel=2,
                    )
                continue
            gym.register(
                id=full_id,
                entry_point=entry_point,
                vector_entry_point=vector_entry_point,
                disable_env_checker=True,
            )
