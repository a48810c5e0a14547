"""playahead.wrappers with Gymnasium's checker, vector envs and a CleanRL-style loop."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import playahead.wrappers
from playahead.envs import WRAPPED_IDS
from playahead.wrappers import ActionMaskObservation, FlatObservation, OneHotTiles

IDS = ["2048-v0", "Threes-v0", "TicTacToe-v0", "ConnectFour-v0", "Nim-v0", "Chips-v0"]
#: These tests give Gymnasium's checker the wrapper itself (its spaces are what they
#: check), and the checker warns whenever an env is not its own unwrapped version.
CHECKS_A_WRAPPER = pytest.mark.filterwarnings(
    "ignore:.*is different from the unwrapped version:UserWarning"
)


@CHECKS_A_WRAPPER
@pytest.mark.parametrize("env_id", IDS)
def test_flat_observation_passes_check_env(env_id):
    env = FlatObservation(gym.make(env_id))
    check_env(env.unwrapped)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.ndim == 1
    assert env.observation_space.contains(obs)


def test_flat_threes_holds_board_preview_and_deck():
    env = FlatObservation(gym.make("Threes-v0"))
    obs, _ = env.reset(seed=0)
    raw = env.unwrapped._observation()
    # Dict spaces flatten in sorted key order: board (16), deck (3), next (2)
    assert obs.shape == (21,)
    np.testing.assert_array_equal(obs[:16], raw["board"].ravel())
    np.testing.assert_array_equal(obs[16:19], raw["deck"])
    np.testing.assert_array_equal(obs[19:], raw["next"])


@CHECKS_A_WRAPPER
@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_one_hot_planes_mark_each_cell_once(env_id):
    env = OneHotTiles(gym.make(env_id))
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=2)
    planes = obs["board"] if isinstance(obs, dict) else obs
    ranks = env.unwrapped._ranks() if env_id == "Threes-v0" else env.unwrapped._obs
    assert planes.shape == (16, 4, 4)
    np.testing.assert_array_equal(planes.sum(axis=0), np.ones((4, 4)))
    np.testing.assert_array_equal(planes.argmax(axis=0), ranks)


def test_one_hot_refuses_board_games():
    with pytest.raises(ValueError, match="2048-v0 or Threes-v0"):
        OneHotTiles(gym.make("TicTacToe-v0"))


@CHECKS_A_WRAPPER
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(
    ("obs_key", "mask_key"),
    [("observation", "action_mask"), ("observations", "action_mask"), ("obs", "mask")],
)
def test_mask_in_observation_matches_action_masks(env_id, obs_key, mask_key):
    env = ActionMaskObservation(FlatObservation(gym.make(env_id)), obs_key, mask_key)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = env.get_wrapper_attr("action_masks")()
        np.testing.assert_array_equal(obs[mask_key], mask.astype(np.int8))
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, _ = env.step(
            int(rng.choice(np.flatnonzero(mask)))
        )
        if terminated or truncated:
            obs, _ = env.reset()


def test_cleanrl_style_loop_over_flat_vector_env():
    torch = pytest.importorskip("torch")
    envs = gym.make_vec(
        "Threes-v0", num_envs=4, vectorization_mode="sync", wrappers=[FlatObservation]
    )
    torch.manual_seed(0)
    n_obs = int(np.prod(envs.single_observation_space.shape))
    net = torch.nn.Sequential(
        torch.nn.Linear(n_obs, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4)
    )
    obs, infos = envs.reset(seed=0)
    returns = np.zeros(4)
    finished = 0
    for _ in range(300):
        logits = net(torch.as_tensor(obs))  # float32 batch: no dtype or shape clash
        masks = torch.as_tensor(np.stack(infos["action_mask"]))
        logits = logits.masked_fill(~masks, -1e9)
        actions = torch.distributions.Categorical(logits=logits).sample().numpy()
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        returns += rewards
        finished += int(np.sum(terminated | truncated))
    assert obs.dtype == np.float32 and obs.shape == (4, n_obs)
    assert finished > 0 and returns.sum() > 0
    envs.close()


@CHECKS_A_WRAPPER
@pytest.mark.parametrize("env_id", sorted(WRAPPED_IDS))
def test_registered_wrapped_id_is_the_wrapper_over_the_plain_id(env_id):
    plain_id, wrapper = WRAPPED_IDS[env_id]
    env = gym.make(env_id)
    check_env(env, skip_render_check=True)
    by_hand = getattr(playahead.wrappers, wrapper)(gym.make(plain_id))
    assert env.observation_space == by_hand.observation_space
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=5)
    expected, _ = by_hand.reset(seed=5)
    for _ in range(30):
        assert_same_observation(obs, expected)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        expected, *_ = by_hand.step(action)
        if terminated or truncated:
            break
    # the spec names the wrapper once, so gym.make(env.spec) rebuilds the same env
    again = gym.make(env.spec)
    assert again.observation_space == env.observation_space
    assert_same_observation(again.reset(seed=5)[0], by_hand.reset(seed=5)[0])
    assert gym.make(f"playahead/{env_id}").observation_space == env.observation_space


def assert_same_observation(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    else:
        np.testing.assert_array_equal(a, b)


def test_wrapped_ids_take_the_plain_ids_options_and_vectorize():
    env = gym.make("2048-flat-v0", max_noop_moves=3)
    assert env.unwrapped.max_noop_moves == 3
    envs = gym.make_vec("Threes-onehot-v0", num_envs=2)  # sync: the wrapper applies
    obs, _ = envs.reset(seed=0)
    assert obs["board"].shape == (2, 16, 4, 4) and obs["board"].dtype == np.float32
    envs.close()
    with pytest.raises(gym.error.Error, match="additional_wrappers"):
        gym.make_vec("2048-flat-v0", 2, vectorization_mode="vector_entry_point")
