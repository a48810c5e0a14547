"""Gymnasium's own vector envs and wrappers on every id, and unmasked deterministic
policies that must still finish their episodes (SB3's evaluate_policy)."""

import textwrap

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import playahead  # noqa: F401  (registers the ids)

IDS = ["2048-v0", "Threes-v0", "TicTacToe-v0", "ConnectFour-v0", "Nim-v0", "Chips-v0"]


def masked_random_steps(envs, n_steps, seed):
    """Step ``envs`` with uniformly random legal actions; yield every infos dict."""
    rng = np.random.default_rng(seed)
    _, infos = envs.reset(seed=seed)
    for _ in range(n_steps):
        masks = infos["action_mask"]
        # a finished game's mask is all False; its next step is the autoreset
        actions = np.array(
            [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]
        )
        _, _, _, _, infos = envs.step(actions)
        yield infos


@pytest.mark.parametrize("env_id", IDS)
def test_sync_vector_env_with_episode_statistics(env_id):
    envs = RecordEpisodeStatistics(
        gym.make_vec(env_id, num_envs=4, vectorization_mode="sync")
    )
    episodes = 0
    for infos in masked_random_steps(envs, 1500, seed=3):
        if "episode" in infos:
            episodes += int(infos["_episode"].sum())
    assert episodes > 0
    envs.close()


def test_threes_infos_batch_through_bonus_cards():
    envs = RecordEpisodeStatistics(
        gym.make_vec("Threes-v0", num_envs=4, vectorization_mode="sync")
    )
    bonus = 0
    for infos in masked_random_steps(envs, 3000, seed=0):
        assert infos["next_card"].dtype.kind == "i"
        assert infos["next_range"].shape == (4, 2)
        is_bonus = infos["next_card"] == 0
        bonus += int(is_bonus.sum())
        lo, hi = infos["next_range"][:, 0], infos["next_range"][:, 1]
        assert np.all(lo[is_bonus] >= 6) and np.all(lo <= hi)
        assert np.all(lo[~is_bonus] == infos["next_card"][~is_bonus])
    assert bonus > 0  # the run met bonus cards, where the old tuple info broke batching
    envs.close()


def test_threes_async_vector_env():
    envs = gym.make_vec("Threes-v0", num_envs=2, vectorization_mode="async")
    for infos in masked_random_steps(envs, 600, seed=1):
        assert infos["next_range"].shape == (2, 2)
    envs.close()


def reset_at_a_wall(env) -> tuple[dict, int]:
    """Reset ``env`` with the first seed whose start has a move that changes nothing."""
    for seed in range(200):
        _, info = env.reset(seed=seed)
        walls = np.flatnonzero(~info["action_mask"])
        if walls.size:
            return info, int(walls[0])
    raise AssertionError("no start position with an illegal move in 200 seeds")


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_always_illegal_policy_is_truncated_after_max_noop_moves(env_id):
    env = gym.make(env_id, max_noop_moves=7)
    info, wall = reset_at_a_wall(env)
    for step in range(1, 8):
        _, reward, terminated, truncated, info = env.step(wall)
        assert reward == 0 and not terminated and info["illegal_action"]
        assert truncated == (step == 7) and info.get("stalled", False) == (step == 7)


def test_no_op_count_restarts_after_a_legal_move():
    env = gym.make("2048-v0", max_noop_moves=3)
    info, wall = reset_at_a_wall(env)
    env.step(wall)
    env.step(wall)
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    wall = np.flatnonzero(~info["action_mask"])
    assert wall.size, "this seed's next position has a move that changes nothing"
    # two more no-ops after the legal move do not truncate: the count restarted
    assert not env.step(int(wall[0]))[3]
    assert not env.step(int(wall[0]))[3]


def test_max_noop_moves_none_keeps_the_old_behaviour():
    env = gym.make("2048-v0", max_noop_moves=None)
    _, wall = reset_at_a_wall(env)
    assert not any(env.step(wall)[3] for _ in range(500))
    with pytest.raises(ValueError, match="max_noop_moves"):
        gym.make("2048-v0", max_noop_moves=0)


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_evaluate_policy_deterministic_untrained_finishes(env_id):
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(gym.make(env_id))  # SB3 warns that episode stats need Monitor
    is_dict = isinstance(env.observation_space, gym.spaces.Dict)
    policy = "MultiInputPolicy" if is_dict else "MlpPolicy"
    model = PPO(policy, env, seed=0, device="cpu", n_steps=64, batch_size=64)
    rewards, lengths = evaluate_policy(
        model, env, n_eval_episodes=2, deterministic=True, return_episode_rewards=True
    )
    assert len(rewards) == 2 and all(n > 0 for n in lengths)


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
@pytest.mark.parametrize(
    ("option", "message"),
    [({"render_mode": "rgb_array"}, "do not render"), ({"illegal": 1}, "no option")],
)
def test_compiled_vector_envs_refuse_what_they_would_drop(env_id, option, message):
    with pytest.raises(ValueError, match=message):
        gym.make_vec(env_id, 4, vectorization_mode="vector_entry_point", **option)


def test_two_player_envs_truncate_a_repeated_illegal_move():
    env = gym.make("TicTacToe-v0")
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, _, over, _, info = env.step(legal)
    walls = np.flatnonzero(~info["action_mask"])  # the two occupied cells
    assert not over and walls.size == 2
    truncated = [env.step(int(walls[0]))[3] for _ in range(100)]
    assert truncated == [False] * 99 + [True]


def test_cleanrl_dqn_bookkeeping_with_the_one_line_fix():
    """CleanRL's dqn.py (docs/recipes.md) as Gymnasium 1.x runs it on a truncation:
    envs from ``gym.make("playahead:2048-flat-v0")`` in a ``SyncVectorEnv``, a greedy
    policy that pushes into a wall until the no-op cap truncates."""

    def make_env():  # dqn.py's, less video
        return gym.wrappers.RecordEpisodeStatistics(gym.make("playahead:2048-flat-v0"))

    envs = gym.vector.SyncVectorEnv([make_env])
    obs, _ = envs.reset(seed=1)
    for _ in range(200):
        next_obs, rewards, terminations, truncations, infos = envs.step(np.array([0]))
        if truncations[0]:
            break
        obs = next_obs
    assert truncations[0] and infos["stalled"][0] and not terminations[0]
    # dqn.py reads infos["final_observation"] here: the KeyError of Gymnasium 1.x
    assert "final_observation" not in infos and "final_obs" not in infos
    # the fix, real_next_obs[idx] = next_obs[idx], stores the board the episode ended
    # on: the no-ops left it as it was, and the reset comes on the next step
    np.testing.assert_array_equal(next_obs, obs)
    after, rewards, *_ = envs.step(np.array([0]))
    assert rewards[0] == 0 and not np.array_equal(after, next_obs)
    assert np.count_nonzero(after) == 2  # a new game's two tiles


def _recipe_log_episodes():
    """``log_episodes`` of docs/recipes.md, CleanRL ppo.py's loop for Gymnasium 1.x."""
    import re
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "recipes.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    block = next(b for b in blocks if "def log_episodes" in b)
    namespace = {}
    exec(compile(textwrap.dedent(block), "recipes.md", "exec"), namespace)
    return namespace["log_episodes"]


class _Writer:
    """A TensorBoard ``SummaryWriter``'s ``add_scalar``, kept in a list."""

    def __init__(self):
        self.scalars = []

    def add_scalar(self, tag, value, step):
        self.scalars.append((tag, float(value), step))


def test_cleanrl_ppo_logs_episode_returns_only_with_the_edit(capsys):
    """CleanRL's ppo.py (docs/recipes.md): its ``final_info`` loop never fires under
    Gymnasium 1.x; the recipe's loop logs every finished episode's return."""

    def make_env():  # ppo.py's, less video
        return gym.wrappers.RecordEpisodeStatistics(gym.make("playahead:2048-flat-v0"))

    envs = gym.vector.SyncVectorEnv([make_env, make_env])
    envs.reset(seed=0)
    log_episodes, writer = _recipe_log_episodes(), _Writer()
    rng = np.random.default_rng(0)
    returns, totals, final_info = [], np.zeros(2), 0
    for step in range(3000):
        _, rewards, term, trunc, infos = envs.step(rng.integers(0, 4, 2))
        final_info += "final_info" in infos  # ppo.py's loop
        log_episodes(infos, step, writer)
        totals += rewards
        for i in np.flatnonzero(term | trunc):  # the returns, summed here
            returns.append(totals[i])
            totals[i] = 0.0
        if len(returns) >= 3:
            break
    assert final_info == 0 and len(returns) >= 3
    logged = [v for tag, v, _ in writer.scalars if tag == "charts/episodic_return"]
    assert sorted(logged) == sorted(returns)
    assert capsys.readouterr().out.count("episodic_return=") == len(returns)
