"""The env contract as a function you can run on your own game.

``check_game_env(env)`` asserts what every playahead env promises (see
:mod:`playahead.envs.base`): Gymnasium's ``check_env`` passes without warnings, the same
seed gives the same game, the mask equals the set of legal moves, masks are never all
False while the game goes on, clone -> steps -> restore gives back the identical state,
states pickle, and random legal play reaches the end of the game.
"""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env


def _random_game(env, seed: int, max_steps: int) -> list:
    """Play random legal moves from ``reset(seed)``; return the observations seen."""
    rng = np.random.default_rng(seed + 1)
    obs, info = env.reset(seed=seed)
    seen = [obs]
    for _ in range(max_steps):
        mask = info["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, _, terminated, truncated, info = env.step(action)
        seen.append(obs)
        if terminated or truncated:
            return seen
    return seen


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def check_game_env(env: gym.Env, seed: int = 0, max_steps: int = 100_000) -> None:
    """Assert the playahead env contract on ``env`` (e.g. ``gym.make("Threes-v0")``).

    Raises:
        AssertionError: naming the first promise that does not hold.
    """
    base = env.unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(base, skip_render_check=True)

    # Same seed, same game.
    first = _random_game(env, seed, max_steps)
    second = _random_game(env, seed, max_steps)
    assert len(first) == len(second) and all(
        _same(a, b) for a, b in zip(first, second, strict=True)
    ), "the same seed and the same actions gave different games"

    # Walk one game, checking masks and clone/restore at every decision point.
    rng = np.random.default_rng(seed + 2)
    obs, info = env.reset(seed=seed + 3)
    for step in range(max_steps):
        mask = base.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert np.array_equal(mask, info["action_mask"]), (
            "action_masks() differs from info['action_mask']"
        )
        assert mask.any(), f"all actions masked at step {step} of a game still going"
        state = base.clone_state()
        assert pickle.loads(pickle.dumps(state)) == state, "state does not pickle"
        hash(state)  # immutable states are hashable
        for action in range(env.action_space.n):
            base.restore_state(state)
            if base.illegal_action == "noop":
                _, _, _, _, probe = base.step(action)
                legal = not probe.get("illegal_action", False)
                assert legal == mask[action], (
                    f"mask says {bool(mask[action])} for action {action}, rules say "
                    f"{legal}"
                )
        base.restore_state(state)
        assert base.clone_state() == state, "restore_state did not restore exactly"
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert not base.action_masks().any() or truncated
            return
    raise AssertionError(f"random legal play did not end within {max_steps} steps")
