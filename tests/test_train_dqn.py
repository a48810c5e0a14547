"""Masked DQN: legal exploration, legal greedy choice, targets over legal actions."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")

from stable_baselines3.common.vec_env import VecEnvWrapper  # noqa: E402

import playahead  # noqa: E402, F401
from playahead.games import twenty48  # noqa: E402
from playahead.games._board64 import pack  # noqa: E402
from playahead.train.masked_dqn import (  # noqa: E402
    MaskedDictReplayBuffer,
    MaskedDQN,
    MaskedReplayBuffer,
    masked_max,
    masked_td_target,
    random_legal,
)
from playahead.train.vec import make_vec_env  # noqa: E402

TINY = {"net_arch": [16]}


def test_target_maxes_over_the_next_states_legal_actions_only():
    next_q = th.tensor(
        [
            [9.0, 1.0, 2.0, 3.0],  # best action 0 is illegal there
            [5.0, 7.0, -1.0, 0.0],  # all legal
            [4.0, 4.0, 4.0, 4.0],  # episode over: nothing legal
            [-3.0, -8.0, 6.0, -2.0],
        ]
    )
    masks = th.tensor(
        [
            [False, True, True, True],
            [True, True, True, True],
            [False, False, False, False],
            [True, True, False, False],
        ]
    )
    rewards = th.tensor([[1.0], [0.0], [2.0], [0.5]])
    dones = th.tensor([[0.0], [0.0], [1.0], [0.0]])
    target = masked_td_target(next_q, masks, rewards, dones, gamma=0.5)
    expected = th.tensor([[1.0 + 0.5 * 3.0], [0.5 * 7.0], [2.0], [0.5 - 0.5 * 3.0]])
    assert th.allclose(target, expected)
    # an unmasked max would have used 9.0 and 6.0
    assert masked_max(next_q, masks)[2] == 0.0


def test_random_legal_draws_uniformly_among_legal_actions():
    masks = np.array([[True, False, True, True]] * 6000 + [[False] * 4])
    draws = random_legal(masks, np.random.default_rng(0))
    assert np.all(masks[np.arange(6000), draws[:6000]])
    counts = np.bincount(draws[:6000], minlength=4)
    assert counts[1] == 0 and np.all(np.abs(counts[[0, 2, 3]] - 2000) < 150)
    assert np.array_equal(draws, random_legal(masks, np.random.default_rng(0)))


def make_model(env_id="2048-v0", n_envs=4, seed=0, **kwargs):
    env = make_vec_env(env_id, n_envs=n_envs, seed=seed)
    policy = "MultiInputPolicy" if env_id == "Threes-v0" else "MlpPolicy"
    kwargs.setdefault("learning_starts", 10**9)
    return MaskedDQN(
        policy,
        env,
        seed=seed,
        buffer_size=5000,
        batch_size=32,
        policy_kwargs=TINY,
        device="cpu",
        **kwargs,
    )


def test_predict_is_legal_when_exploring_and_when_greedy():
    model = make_model()
    obs = model.env.reset()
    rng = np.random.default_rng(1)
    masks = rng.random((4, 4)) < 0.5
    masks[np.arange(4), rng.integers(0, 4, 4)] = True
    model.exploration_rate = 1.0
    for _ in range(200):
        actions, _ = model.predict(obs, deterministic=False, action_masks=masks)
        assert masks[np.arange(4), actions].all()
    # rig the Q-network so that action 0 is always valued highest
    with th.no_grad():
        model.q_net.q_net[-1].bias[:] = th.tensor([100.0, 3.0, 2.0, 1.0])
    no_zero = masks.copy()
    no_zero[:, 0] = False
    no_zero[:, 1] = True
    actions, _ = model.predict(obs, deterministic=True, action_masks=no_zero)
    assert np.all(actions == 1)  # the best legal action, never the illegal 0
    actions, _ = model.predict(obs, deterministic=True)  # no mask: plain argmax
    assert np.all(actions == 0)


class RefuseIllegal(VecEnvWrapper):
    """Fails the test if an action is illegal for the observation it answers."""

    def __init__(self, venv):
        super().__init__(venv)
        self.checked = 0

    def step_async(self, actions):
        masks = np.stack(self.venv.env_method("action_masks"))
        assert masks[np.arange(len(actions)), actions].all(), "illegal action"
        self.checked += len(actions)
        self.venv.step_async(actions)

    def step_wait(self):
        return self.venv.step_wait()

    def reset(self):
        return self.venv.reset()


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_training_with_full_exploration_never_plays_an_illegal_move(env_id):
    env = RefuseIllegal(make_vec_env(env_id, n_envs=4, seed=2))
    policy = "MultiInputPolicy" if env_id == "Threes-v0" else "MlpPolicy"
    model = MaskedDQN(
        policy,
        env,
        seed=2,
        learning_starts=200,
        buffer_size=5000,
        batch_size=32,
        exploration_initial_eps=1.0,
        exploration_final_eps=1.0,
        policy_kwargs=TINY,
        device="cpu",
    )
    model.learn(1200)
    assert env.checked >= 1200 and model._n_updates > 0


def test_replay_buffer_stores_the_mask_of_each_next_state():
    model = make_model(n_envs=4, seed=4)
    model.learn(1600)  # warm-up only: random legal play, several games end
    buf = model.replay_buffer
    assert isinstance(buf, MaskedReplayBuffer)
    n = buf.pos
    ended = 0
    for t in range(n):
        for e in range(4):
            board = np.uint64(pack(buf.next_observations[t, e]))
            legal = twenty48.legal_mask(board, *twenty48.TABLES)
            assert np.array_equal(buf.next_action_masks[t, e], legal)
            ended += bool(buf.dones[t, e])
            if buf.dones[t, e]:
                assert not buf.next_action_masks[t, e].any()
    assert ended >= 2
    batch = buf.sample(64)
    assert batch.next_action_masks.shape == (64, 4)
    assert batch.next_action_masks.dtype == th.bool


def test_dict_observations_use_the_dict_buffer():
    model = make_model("Threes-v0", n_envs=2, learning_starts=50)
    model.learn(200)
    assert isinstance(model.replay_buffer, MaskedDictReplayBuffer)
    batch = model.replay_buffer.sample(8)
    assert set(batch.observations) == {"board", "next", "deck"}
    assert batch.next_action_masks.shape == (8, 4)


def first_moves(seed):
    model = make_model(n_envs=2, seed=seed, learning_starts=100)
    seen = []

    def record(locals_, _globals):
        seen.append((locals_["actions"].copy(), locals_["rewards"].copy()))
        return len(seen) < 150

    from stable_baselines3.common.callbacks import ConvertCallback

    model.learn(400, callback=ConvertCallback(record))
    return seen


def test_same_seed_same_first_actions_and_rewards():
    a, b, c = first_moves(11), first_moves(11), first_moves(12)
    assert len(a) == 150
    for (act_a, rew_a), (act_b, rew_b) in zip(a, b, strict=True):
        assert np.array_equal(act_a, act_b) and np.array_equal(rew_a, rew_b)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, c, strict=True))


def test_unsupported_options_are_refused():
    env = make_vec_env("2048-v0", n_envs=1, seed=0)
    with pytest.raises(ValueError, match="n-step"):
        MaskedDQN("MlpPolicy", env, n_steps=3)
    with pytest.raises(ValueError, match="optimize_memory_usage"):
        MaskedDQN("MlpPolicy", env, optimize_memory_usage=True)


def test_update_step_uses_the_stored_next_masks():
    """One gradient step on a hand-made batch: the loss is the Huber loss against
    the masked target, not against the unmasked max."""
    from stable_baselines3.common.logger import configure

    model = make_model(n_envs=1, learning_rate=0.0, gamma=0.5)
    model.set_logger(configure(None, []))
    with th.no_grad():
        for net in (model.q_net, model.q_net_target):
            net.q_net[-1].weight.zero_()
            net.q_net[-1].bias[:] = th.tensor([50.0, 1.0, 2.0, 3.0])
    board = np.zeros((1, 4, 4), np.uint8)
    for _ in range(8):
        model.replay_buffer.add(
            board,
            board,
            np.array([1]),
            np.array([0.0]),
            np.array([0.0]),
            [{}],
            next_action_masks=np.array([[False, True, True, True]]),
        )
    model.train(gradient_steps=1, batch_size=8)
    # Q(s, 1) = 1, target = 0 + 0.5 * max(1, 2, 3) = 1.5; Huber(0.5) = 0.125
    assert model.logger.name_to_value["train/loss"] == pytest.approx(0.125)
