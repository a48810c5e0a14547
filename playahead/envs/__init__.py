"""Gymnasium environments. ``import playahead`` registers every id in ``ENV_IDS`` and
``WRAPPED_IDS``."""

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

#: Observation views (see :mod:`playahead.wrappers`) -> the wrapper that gives them.
VIEWS = {
    "flat": "FlatObservation",
    "onehot": "OneHotTiles",
}

#: ``<name>-<view>-v0`` -> (plain id, wrapper class in :mod:`playahead.wrappers`):
#: ``-flat-v0`` for every id, ``-onehot-v0`` for the tile games. ``gym.make`` gives
#: the wrapped env directly, with the plain id's keyword arguments.
WRAPPED_IDS: dict[str, tuple[str, str]] = {
    f"{env_id.removesuffix('-v0')}-{view}-v0": (env_id, wrapper)
    for env_id, (_, vector_entry_point) in ENV_IDS.items()
    for view, wrapper in VIEWS.items()
    if view == "flat" or vector_entry_point is not None  # one-hot: 2048 and Threes
}

#: The games' short names, as the command line calls them -> their env ids.
GAME_NAMES: dict[str, str] = {
    "threes": "Threes-v0",
    "2048": "2048-v0",
    "tictactoe": "TicTacToe-v0",
    "connect4": "ConnectFour-v0",
    "nim": "Nim-v0",
    "chips": "Chips-v0",
}


def _key(name: str) -> str:
    """``"playahead/Connect_Four-v0"`` -> ``"connectfour"``."""
    name = name.strip().split("/")[-1].lower().removesuffix("-v0")
    return name.replace("_", "").replace("-", "")


def env_id_of(name: str) -> str:
    """The env id of a game, by any of its names: the command line's short name
    (``"connect4"``), the env id (``"ConnectFour-v0"``, ``"playahead/ConnectFour-v0"``,
    ``"2048-flat-v0"``), or the id without its version, any case, ``_`` or ``-``
    (``"connect_four"``).

    Raises:
        ValueError: not a name of a playahead game; the message lists the names.
    """
    key = _key(name) if isinstance(name, str) else ""
    for env_id in (*ENV_IDS, *WRAPPED_IDS):
        if key == _key(env_id):
            return env_id
    for short, env_id in GAME_NAMES.items():
        if key == _key(short):
            return env_id
    names = ", ".join(f"{short} ({env_id})" for short, env_id in GAME_NAMES.items())
    raise ValueError(f"unknown game {name!r}; playahead's games: {names}")


def game_name_of(name: str) -> str:
    """The command line's short name of a game, by any of its names
    (:func:`env_id_of`): ``"ConnectFour-v0"`` -> ``"connect4"``; a view's id gives its
    game's (``"2048-flat-v0"`` -> ``"2048"``).

    Raises:
        ValueError: not a name of a playahead game; the message lists the names.
    """
    env_id = env_id_of(name)
    env_id = WRAPPED_IDS.get(env_id, (env_id,))[0]
    return next(short for short, e in GAME_NAMES.items() if e == env_id)


def registered_id(name: str) -> str:
    """``name`` if Gymnasium knows it as it is (any registered id, playahead's or
    not), else the env id of a playahead game's name (:func:`env_id_of`), else
    ``name`` unchanged, for the caller's own error."""
    if not isinstance(name, str) or name in gym.registry:
        return name
    try:
        return env_id_of(name)
    except ValueError:
        return name


def _ours(spec: gym.envs.registration.EnvSpec, entry_point: str) -> bool:
    return spec.entry_point == entry_point


def register_envs() -> None:
    """Register every playahead id, plain and namespaced (``playahead/Threes-v0``).

    An id that another package already registered is left alone (with a warning);
    the namespaced id still works. The ids of ``WRAPPED_IDS`` are the plain env with
    the wrapper as a registered ``additional_wrappers`` entry, so ``env.spec`` of a
    made env rebuilds it exactly (``gym.make(env.spec)``); ``gym.make_vec`` makes
    them with ``vectorization_mode="sync"`` by default.
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
    for env_id, (plain_id, wrapper) in WRAPPED_IDS.items():
        wrapper_spec = gym.envs.registration.WrapperSpec(
            name=wrapper, entry_point=f"playahead.wrappers:{wrapper}", kwargs={}
        )
        entry_point = ENV_IDS[plain_id][0]
        for full_id in (env_id, f"{NAMESPACE}/{env_id}"):
            if full_id not in gym.registry:
                gym.register(
                    id=full_id,
                    entry_point=entry_point,
                    additional_wrappers=(wrapper_spec,),
                    disable_env_checker=True,
                )
