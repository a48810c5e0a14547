"""The SB3 VecEnv adapter: same-step autoreset, masks, episode records, seeding."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from gymnasium.vector import AutoresetMode  # noqa: E402
from sb3_contrib.common.maskable.utils import (  # noqa: E402
    get_action_masks,
    is_masking_supported,
)
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import playahead  # noqa: E402, F401
from playahead.games import threes, twenty48  # noqa: E402
from playahead.games._board64 import pack  # noqa: E402
from playahead.train.vec import GymVectorToSB3, make_vec_env  # noqa: E402

THREES_TABLES = threes.tables(True)


def legal_2048(ranks) -> np.ndarray:
    return twenty48.legal_mask(
        np.uint64(pack(np.asarray(ranks, np.uint8))), *twenty48.TABLES
    )


def legal_threes(obs) -> np.ndarray:
    board = np.uint64(pack(np.asarray(obs["board"], np.uint8)))
    return threes.legal_mask(board, THREES_TABLES[0], THREES_TABLES[1])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def play(env, n_steps: int, seed: int = 0):
    """Random legal play; yields (obs_before, actions, obs, rewards, dones, infos)."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    for _ in range(n_steps):
        actions = random_actions(get_action_masks(env), rng)
        new_obs, rewards, dones, infos = env.step(actions)
        yield obs, actions, new_obs, rewards, dones, infos
        obs = new_obs


def test_compiled_2048_resets_finished_boards_in_the_same_step():
    env = make_vec_env("2048-v0", n_envs=4, seed=3)
    assert isinstance(env, GymVectorToSB3)
    returns, lengths, ended = np.zeros(4), np.zeros(4, int), 0
    for _, _, obs, rewards, dones, infos in play(env, 700):
        returns += rewards
        lengths += 1
        assert get_action_masks(env).shape == (4, 4)
        for i in range(4):
            # the mask SB3 sees belongs to the observation SB3 holds
            assert np.array_equal(env.action_masks()[i], legal_2048(obs[i]))
            if dones[i]:
                ended += 1
                terminal = infos[i]["terminal_observation"]
                assert not legal_2048(terminal).any()  # the game was really over
                assert not infos[i]["action_mask"].any()
                assert np.count_nonzero(obs[i]) == 2  # a fresh game: two tiles
                assert set(obs[i][obs[i] > 0].tolist()) <= {1, 2}
                assert infos[i]["episode"]["r"] == pytest.approx(returns[i])
                assert infos[i]["episode"]["l"] == lengths[i]
                assert infos[i]["score"] == returns[i]  # 2048's return is its score
                assert infos[i]["TimeLimit.truncated"] is False
                returns[i], lengths[i] = 0, 0
    assert ended >= 4


def test_compiled_threes_resets_finished_boards_in_the_same_step():
    env = make_vec_env("Threes-v0", n_envs=3, seed=1)
    ended = 0
    for _, _, obs, _, dones, infos in play(env, 500):
        for i in range(3):
            board_i = {k: v[i] for k, v in obs.items()}
            assert np.array_equal(env.action_masks()[i], legal_threes(board_i))
            if dones[i]:
                ended += 1
                assert not legal_threes(infos[i]["terminal_observation"]).any()
                assert np.count_nonzero(board_i["board"]) == 9  # nine cards dealt
                # the tenth card is the preview: 12 - 9 - 1 left in the deck
                assert board_i["deck"].sum() == 2
    assert ended >= 2


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_gymnasium_sync_vector_matches_sb3_dummy_vec_env(mode):
    """Both autoreset modes, adapted, give exactly what SB3's DummyVecEnv gives."""
    n = 3
    ours = GymVectorToSB3(
        gym.make_vec(
            "2048-v0",
            num_envs=n,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": mode},
        )
    )
    theirs = DummyVecEnv([lambda: Monitor(gym.make("2048-v0")) for _ in range(n)])
    ours.seed(5)
    theirs.seed(5)
    ended = 0
    for a, b in zip(play(ours, 400), play(theirs, 400), strict=True):
        _, actions_a, obs_a, rew_a, done_a, info_a = a
        _, actions_b, obs_b, rew_b, done_b, info_b = b
        assert np.array_equal(actions_a, actions_b)
        assert np.array_equal(obs_a, obs_b)
        assert np.array_equal(rew_a, rew_b) and np.array_equal(done_a, done_b)
        for i in np.flatnonzero(done_a):
            ended += 1
            assert np.array_equal(
                info_a[i]["terminal_observation"], info_b[i]["terminal_observation"]
            )
            assert info_a[i]["score"] == info_b[i]["score"]
            assert info_a[i]["episode"]["r"] == info_b[i]["episode"]["r"]
            assert info_a[i]["episode"]["l"] == info_b[i]["episode"]["l"]
    assert ended >= 3


def test_sb3_contrib_sees_the_masks():
    env = make_vec_env("2048-v0", n_envs=5, seed=0)
    env.reset()
    assert is_masking_supported(env)
    rows = env.env_method("action_masks")
    assert len(rows) == 5 and all(r.shape == (4,) for r in rows)
    assert np.array_equal(np.stack(rows), env.action_masks())
    assert env.env_method("action_masks", indices=[2])[0].shape == (4,)


def test_same_seed_same_games():
    def trace(seed):
        out = []
        for _, _, obs, rew, dones, _ in play(
            make_vec_env("Threes-v0", 4, seed=seed), 150
        ):
            out.append((obs["board"].copy(), rew.copy(), dones.copy()))
        return out

    first, again, other = trace(7), trace(7), trace(8)
    for (b1, r1, d1), (b2, r2, d2) in zip(first, again, strict=True):
        assert np.array_equal(b1, b2) and np.array_equal(r1, r2)
        assert np.array_equal(d1, d2)
    assert any(
        not np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True)
    )


def test_dummy_backend_for_envs_without_a_compiled_vector():
    env = make_vec_env("2048-v0", n_envs=2, seed=0, vec="dummy")
    assert isinstance(env, DummyVecEnv)
    env.reset()
    assert get_action_masks(env).shape == (2, 4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"env_id": "2048-v0", "n_envs": 0}, "n_envs"),
        ({"env_id": "2048-v0", "n_envs": 2, "vec": "threads"}, "vec="),
        ({"env_id": "CartPole-v1", "n_envs": 2, "vec": "compiled"}, "no compiled"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_vec_env(**kwargs)
