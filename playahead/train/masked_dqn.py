"""DQN that never considers an illegal action: :class:`MaskedDQN`.

SB3's DQN takes the argmax over all actions. In games where most actions are often
illegal (a full tic-tac-toe row, a 2048 board that cannot slide left) that wastes the
exploration budget on no-ops and, worse, lets the bootstrap target ``max_a Q(s', a)``
pick a value the player could never realise. :class:`MaskedDQN` applies the env's mask
(``action_masks()``, True = legal) in all three places:

1. **Exploration** (the warm-up before ``learning_starts`` and every epsilon draw)
   samples uniformly among the legal actions, with the model's own generator.
2. **The greedy choice** (:meth:`MaskedDQN.predict` with ``action_masks``) is the
   best *legal* action.
3. **The target**: ``r + gamma * (1 - done) * max over legal a' of Q_target(s', a')``,
   using the mask of ``s'`` stored with each transition by
   :class:`MaskedReplayBuffer` (see :func:`masked_td_target`).

Everything else (epsilon schedule, target network updates, Huber loss, gradient
clipping, checkpoints) is SB3's DQN unchanged. Not supported: n-step returns and
``optimize_memory_usage``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F
from gymnasium import spaces
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import DictReplayBuffer, ReplayBuffer


class MaskedReplayBufferSamples(NamedTuple):
    """A sampled batch: SB3's replay fields plus the next state's legal actions.

    Attributes:
        observations: ``float[B, *obs_shape]`` (or a dict of such tensors).
        actions: ``int64[B, 1]``.
        next_observations: like ``observations``; the last observation of the
            episode when it ended (not the first of the next one).
        dones: ``float[B, 1]``, 1 where the episode terminated (timeouts count 0).
        rewards: ``float[B, 1]``.
        next_action_masks: ``bool[B, n_actions]``, True = legal in the next state;
            all False when the episode terminated there.
    """

    observations: Any
    actions: th.Tensor
    next_observations: Any
    dones: th.Tensor
    rewards: th.Tensor
    next_action_masks: th.Tensor


class _NextMaskMixin:
    """What both masked buffers add to SB3's: a ``next_action_masks`` array."""

    def __init__(
        self,
        buffer_size: int,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        device="auto",
        n_envs: int = 1,
        optimize_memory_usage: bool = False,
        handle_timeout_termination: bool = True,
    ):
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(
                f"masked replay needs a Discrete action space, got {action_space}"
            )
        if optimize_memory_usage:
            raise ValueError(
                f"{type(self).__name__} does not support optimize_memory_usage=True"
            )
        super().__init__(
            buffer_size,
            observation_space,
            action_space,
            device,
            n_envs=n_envs,
            optimize_memory_usage=False,
            handle_timeout_termination=handle_timeout_termination,
        )
        self.next_action_masks = np.ones(
            (self.buffer_size, self.n_envs, int(action_space.n)), dtype=bool
        )

    def add(
        self,
        obs,
        next_obs,
        action,
        reward,
        done,
        infos,
        next_action_masks: np.ndarray | None = None,
    ) -> None:
        """SB3's ``add`` plus ``next_action_masks``: ``bool[n_envs, n_actions]``."""
        self.next_action_masks[self.pos] = _check_masks(
            next_action_masks, self.next_action_masks.shape[1:]
        )
        super().add(obs, next_obs, action, reward, done, infos)

    def _common(self, batch_inds: np.ndarray, env) -> tuple[np.ndarray, dict]:
        """Draw the env of each row; the fields that are not observations."""
        # SB3 draws batch_inds from NumPy's global RNG (seeded by the algorithm's
        # set_random_seed); the env indices come from the same stream, as in SB3.
        env_indices = np.random.randint(0, self.n_envs, size=len(batch_inds))  # noqa: NPY002
        done = self.dones[batch_inds, env_indices] * (
            1 - self.timeouts[batch_inds, env_indices]
        )
        reward = self._normalize_reward(
            self.rewards[batch_inds, env_indices].reshape(-1, 1), env
        )
        fields = {
            "actions": self.to_torch(self.actions[batch_inds, env_indices]),
            "dones": self.to_torch(done.reshape(-1, 1)),
            "rewards": self.to_torch(reward),
            "next_action_masks": th.as_tensor(
                self.next_action_masks[batch_inds, env_indices], device=self.device
            ),
        }
        return env_indices, fields


class MaskedReplayBuffer(_NextMaskMixin, ReplayBuffer):
    """SB3's ``ReplayBuffer`` that also stores the legal actions of the next state.

    ``add`` takes one extra argument, ``next_action_masks`` (``bool[n_envs,
    n_actions]``), the mask of ``next_obs``: for a transition that ended an episode,
    the mask of the *final* state (all False if the game is over; the legal moves if
    the episode was cut by a time limit), not of the new episode's first state.
    ``sample`` returns :class:`MaskedReplayBufferSamples`. Rows are drawn as SB3
    draws them (uniform over stored steps, then uniform over envs, with NumPy's
    global RNG that SB3 seeds). Pickled whole by ``save_replay_buffer``.

    Raises:
        ValueError: the action space is not ``Discrete``, or ``optimize_memory_usage``.
    """

    def _get_samples(self, batch_inds: np.ndarray, env=None):
        env_indices, fields = self._common(batch_inds, env)
        obs = self._normalize_obs(self.observations[batch_inds, env_indices], env)
        nxt = self._normalize_obs(self.next_observations[batch_inds, env_indices], env)
        return MaskedReplayBufferSamples(
            observations=self.to_torch(obs),
            next_observations=self.to_torch(nxt),
            **fields,
        )


class MaskedDictReplayBuffer(_NextMaskMixin, DictReplayBuffer):
    """:class:`MaskedReplayBuffer` for ``Dict`` observations (Threes)."""

    def _get_samples(self, batch_inds: np.ndarray, env=None):
        env_indices, fields = self._common(batch_inds, env)
        obs = self._normalize_obs(
            {k: v[batch_inds, env_indices] for k, v in self.observations.items()}, env
        )
        nxt = self._normalize_obs(
            {k: v[batch_inds, env_indices] for k, v in self.next_observations.items()},
            env,
        )
        return MaskedReplayBufferSamples(
            observations={k: self.to_torch(v) for k, v in obs.items()},
            next_observations={k: self.to_torch(v) for k, v in nxt.items()},
            **fields,
        )


def _check_masks(masks, shape: tuple[int, int]) -> np.ndarray:
    if masks is None:
        raise ValueError(
            f"MaskedReplayBuffer.add needs next_action_masks (bool{list(shape)})"
        )
    masks = np.asarray(masks, dtype=bool)
    if masks.shape != shape:
        raise ValueError(
            f"next_action_masks must have shape {shape}, got {masks.shape}"
        )
    return masks


def masked_max(q_values: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """Max of ``q_values`` over legal actions; 0 in rows with no legal action.

    Args:
        q_values: ``float[B, n_actions]``.
        masks: ``bool[B, n_actions]``, True = legal.

    Returns:
        ``float[B]``.
    """
    best = q_values.masked_fill(~masks, -th.inf).max(dim=1).values
    return th.where(masks.any(dim=1), best, th.zeros_like(best))


def masked_td_target(
    next_q: th.Tensor,
    next_masks: th.Tensor,
    rewards: th.Tensor,
    dones: th.Tensor,
    gamma: float,
) -> th.Tensor:
    """One-step TD target ``r + gamma * (1 - done) * max_{legal a'} Q(s', a')``.

    Args:
        next_q: ``float[B, n_actions]`` target-network values of the next states.
        next_masks: ``bool[B, n_actions]`` legal actions there.
        rewards: ``float[B, 1]``.
        dones: ``float[B, 1]``, 1 where the episode terminated.
        gamma: discount.

    Returns:
        ``float[B, 1]``.
    """
    best = masked_max(next_q, next_masks).reshape(-1, 1)
    return rewards + (1 - dones) * gamma * best


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per row of ``masks`` (``bool[B, n]``).

    A row with no legal action (only after the game ended) draws among all actions.
    """
    masks = np.asarray(masks, dtype=bool)
    masks = np.where(masks.any(axis=1, keepdims=True), masks, True)
    counts = masks.sum(axis=1)
    k = np.minimum((rng.random(len(masks)) * counts).astype(np.int64), counts - 1)
    return np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1)


class MaskedDQN(DQN):
    """SB3's DQN with action masks in exploration, greedy choice and target.

    Takes SB3 ``DQN``'s arguments. The env must expose ``action_masks()`` (through
    ``env_method("action_masks")`` on a ``VecEnv``), as every playahead env does.
    Exploration draws come from a generator seeded with ``seed`` (no global RNG);
    SB3 itself still seeds torch and NumPy's global RNG for initialisation and replay
    sampling.

    Raises:
        ValueError: ``n_steps != 1``, ``optimize_memory_usage``, or a non-Discrete
            action space.
    """

    def __init__(self, policy, env, *args, **kwargs):
        if kwargs.get("n_steps", 1) != 1:
            raise ValueError("MaskedDQN does not support n-step returns (n_steps=1)")
        if kwargs.get("optimize_memory_usage"):
            raise ValueError("MaskedDQN does not support optimize_memory_usage")
        self._last_action_masks: np.ndarray | None = None
        self._explore_rng = np.random.default_rng(kwargs.get("seed"))
        super().__init__(policy, env, *args, **kwargs)

    def _setup_model(self) -> None:
        if self.replay_buffer_class is None:
            dict_obs = isinstance(self.observation_space, spaces.Dict)
            self.replay_buffer_class = (
                MaskedDictReplayBuffer if dict_obs else MaskedReplayBuffer
            )
        super()._setup_model()

    def set_random_seed(self, seed: int | None = None) -> None:
        super().set_random_seed(seed)
        self._explore_rng = np.random.default_rng(seed)

    def _setup_learn(self, *args, **kwargs):
        self._last_action_masks = None
        return super()._setup_learn(*args, **kwargs)

    # ------------------------------------------------------------------- acting
    def predict(
        self,
        observation,
        state=None,
        episode_start=None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ):
        """Epsilon-greedy (or greedy if ``deterministic``) among legal actions.

        Args:
            observation: one observation or a batch.
            deterministic: greedy only; else each row explores with probability
                ``exploration_rate`` (uniform among its legal actions).
            action_masks: ``bool[n_actions]`` or ``bool[B, n_actions]``; None treats
                every action as legal.

        Returns:
            ``(actions, state)``: ``int64[B]`` (or a 0-d array for one observation).
        """
        obs_tensor, vectorized = self.policy.obs_to_tensor(observation)
        with th.no_grad():
            q = self.policy.q_net(obs_tensor).cpu().numpy()
        n = q.shape[1]
        masks = (
            np.ones_like(q, dtype=bool)
            if action_masks is None
            else np.asarray(action_masks, dtype=bool).reshape(-1, n)
        )
        legal = np.where(masks.any(axis=1, keepdims=True), masks, True)
        actions = np.where(legal, q, -np.inf).argmax(axis=1)
        if not deterministic and self.exploration_rate > 0:
            explore = self._explore_rng.random(len(actions)) < self.exploration_rate
            if explore.any():
                actions[explore] = random_legal(masks[explore], self._explore_rng)
        return (actions if vectorized else actions[0]), state

    def _sample_action(
        self, learning_starts: int, action_noise=None, n_envs: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        masks = self._last_action_masks
        if masks is None:
            masks = get_action_masks(self.env)
        if self.num_timesteps < learning_starts:
            actions = random_legal(masks, self._explore_rng)
        else:
            actions, _ = self.predict(
                self._last_obs, deterministic=False, action_masks=masks
            )
        return actions, actions

    def _store_transition(
        self, replay_buffer, buffer_action, new_obs, reward, dones, infos
    ) -> None:
        """SB3's ``_store_transition`` plus the next state's mask (see the buffer)."""
        current = np.asarray(get_action_masks(self.env), dtype=bool)
        next_masks = current.copy()
        for i in np.flatnonzero(dones):
            final = infos[i].get("action_mask")
            next_masks[i] = True if final is None else final
        self._last_action_masks = current
        normalizer = self._vec_normalize_env
        if normalizer is not None:
            new_obs_ = normalizer.get_original_obs()
            reward_ = normalizer.get_original_reward()
        else:
            self._last_original_obs, new_obs_, reward_ = self._last_obs, new_obs, reward
        next_obs = deepcopy(new_obs_)
        for i in np.flatnonzero(dones):
            terminal = infos[i].get("terminal_observation")
            if terminal is None:
                continue
            if normalizer is not None:
                terminal = normalizer.unnormalize_obs(terminal)
            if isinstance(next_obs, dict):
                for key in next_obs:
                    next_obs[key][i] = terminal[key]
            else:
                next_obs[i] = terminal
        replay_buffer.add(
            self._last_original_obs,
            next_obs,
            buffer_action,
            reward_,
            dones,
            infos,
            next_action_masks=next_masks,
        )
        self._last_obs = new_obs
        if normalizer is not None:
            self._last_original_obs = new_obs_

    # ------------------------------------------------------------------- learning
    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        """SB3's DQN update with :func:`masked_td_target` as the target."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)
            with th.no_grad():
                target = masked_td_target(
                    self.q_net_target(data.next_observations),
                    data.next_action_masks,
                    data.rewards,
                    data.dones,
                    self.gamma,
                )
            current = th.gather(
                self.q_net(data.observations), dim=1, index=data.actions.long()
            )
            loss = F.smooth_l1_loss(current, target)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)))

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_last_action_masks"]
