"""Tianshou, RLlib and rl-zoo3 on playahead's envs, as their users run them.

These libraries are not in the ``test`` extra (RLlib pins another gymnasium): ``make
test-thirdparty`` installs the ``thirdparty`` extra in a venv of its own and runs the
tests marked ``thirdparty``. Each test is a recipe of ``docs/recipes.md``, kept tiny.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead.wrappers import ActionMaskObservation

#: rl-zoo3's runs are subprocesses of up to 600 s each
pytestmark = [pytest.mark.thirdparty, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parent.parent


def seed_with_a_wall(env) -> tuple[dict, int]:
    """Reset ``env`` (a mask view) at the first seed whose start has an illegal move."""
    for seed in range(200):
        obs, _ = env.reset(seed=seed)
        mask = obs[env.get_wrapper_attr("mask_key")]
        if not mask.all():
            return obs, int(np.flatnonzero(mask == 0)[0])
    raise AssertionError("no start position with an illegal move in 200 seeds")


# ------------------------------------------------------------------------- Tianshou
def test_tianshou_masked_greedy_collector_plays_legal_moves_and_ends_episodes():
    import torch
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net

    def make_masked():
        env = gym.make("2048-flat-v0")
        return ActionMaskObservation(env, obs_key="obs", mask_key="mask")

    torch.manual_seed(0)
    net = Net(state_shape=16, action_shape=4, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=gym.spaces.Discrete(4))
    envs = DummyVectorEnv([make_masked, make_masked])
    envs.seed(0)  # seeds 0 and 1; the collector's resets go on from there
    buffer = VectorReplayBuffer(1000, 2)
    stats = Collector(policy, envs, buffer).collect(
        n_step=400, reset_before_collect=True
    )
    batch, _ = buffer.sample(0)  # every step collected
    assert len(batch) == 400 and stats.n_collected_episodes > 0
    # the greedy policy read obs["mask"]: it never chose an illegal move
    assert batch.obs.mask[np.arange(len(batch)), batch.act].all()

    # Without the mask the same greedy policy pushes into a wall; the no-op cap
    # still ends its episodes (Tianshou's greedy test used to hang here).
    plain = DummyVectorEnv([lambda: gym.make("2048-flat-v0")] * 2)
    plain.seed(0)
    stats = Collector(policy, plain).collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2 and (stats.lens >= 100).all()


# ------------------------------------------------------------------------- RLlib
def test_rllib_ppo_with_the_action_masking_module_trains_one_iteration():
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    def make_masked(env_config):
        env = gym.make("2048-flat-v0", **env_config)
        return ActionMaskObservation(env, obs_key="observations")

    register_env("playahead-2048-masked", make_masked)
    config = (
        PPOConfig()
        .environment("playahead-2048-masked")
        .env_runners(num_env_runners=0, rollout_fragment_length=256)
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={"fcnet_hiddens": [32], "head_fcnet_hiddens": [32]},
            )
        )
        .debugging(seed=0)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        runners = algo.train()["env_runners"]
        module = algo.get_module()
        algo.stop()
    finally:
        ray.shutdown()
    assert runners["num_env_steps_sampled"] == 256 and runners["num_episodes"] > 0
    obs, wall = seed_with_a_wall(make_masked({}))
    batch = {"obs": {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    logits = module.forward_inference(batch)["action_dist_inputs"][0]
    legal = torch.as_tensor(obs["action_mask"], dtype=torch.bool)
    assert logits[wall] < -1e30 and torch.isfinite(logits[legal]).all()
    assert logits[legal].min() > -1e30


# ------------------------------------------------------------------------- rl-zoo3
def run_zoo(args: list[str], cwd: Path, ok: bool = True) -> str:
    """rl-zoo3's output (stdout, or stderr when ``ok`` is False: it must fail)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (done.returncode == 0) == ok, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout if ok else done.stderr


def test_rl_zoo3_trains_evaluates_and_enjoys_with_playaheads_hyperparameters(
    tmp_path,
):
    common = ["--algo", "ppo", "--env", "2048-v0", "--gym-packages", "playahead"]
    run_zoo(
        ["rl_zoo3.train", *common, "-conf", "playahead.train.zoo", "-n", "256"]
        + ["--seed", "0", "-f", "logs", "--device", "cpu", "--eval-freq", "128"]
        + ["--eval-episodes", "2", "--n-eval-envs", "1", "--hyperparams"]
        + ["n_envs:2", "n_steps:64", "batch_size:64", "n_epochs:1"],
        tmp_path,
    )
    run_dir = tmp_path / "logs" / "ppo" / "2048-v0_1"
    config = (run_dir / "2048-v0" / "config.yml").read_text()
    assert "playahead.train.encoders.TileEncoder" in config  # the real encoder
    # the deterministic eval callback finished its episodes
    lengths = np.load(run_dir / "evaluations.npz")["ep_lengths"]
    assert lengths.shape == (2, 2) and (lengths > 0).all()  # at 128 and 256 steps
    out = run_zoo(
        ["rl_zoo3.enjoy", *common, "-f", "logs", "-n", "300", "--no-render"]
        + ["--deterministic", "--device", "cpu", "--seed", "0"],
        tmp_path,
    )
    episodes = [int(n) for n in re.findall(r"^Episode Length (\d+)$", out, re.M)]
    assert episodes and all(n < 300 for n in episodes)


def test_rl_zoo3_enjoy_needs_requests_and_the_extra_names_it_itself():
    # enjoy without requests (as in a venv of [rl] and rl_zoo3 alone): it stops
    hide = "import sys; sys.modules['requests'] = None; import rl_zoo3.enjoy"
    done = subprocess.run(
        [sys.executable, "-c", hide], capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0 and "requests" in done.stderr.splitlines()[-1]
    # so the extra names it, rather than getting it through ray[rllib]
    from importlib.metadata import requires

    extra = [r for r in requires("playahead") if 'extra == "thirdparty"' in r]
    assert any(r.startswith("requests") for r in extra), extra


def test_rl_zoo3_algos_are_the_ones_playahead_names_and_none_is_maskable():
    from rl_zoo3.utils import ALGOS

    import playahead.train.zoo

    named = re.search(
        r"choices are ([^)]*)\)", " ".join(playahead.train.zoo.__doc__.split())
    )
    assert sorted(re.split(r", | and ", named.group(1))) == sorted(ALGOS)
    assert "ppo_mask" not in ALGOS


def test_rl_zoo3_on_threes_without_conf_names_multiinputpolicy_and_the_fixes_run(
    tmp_path,
):
    common = ["rl_zoo3.train", "--algo", "ppo", "--env", "Threes-v0"]
    common += ["--gym-packages", "playahead", "-n", "64", "--device", "cpu"]
    tiny = ["n_envs:1", "n_steps:64", "batch_size:64", "n_epochs:1"]
    err = run_zoo(common, tmp_path, ok=False)  # rl-zoo3's default: MlpPolicy
    assert "You must use `MultiInputPolicy` when working with dict observation" in err
    # the two ways playahead.train.zoo's docstring and docs/recipes.md give
    run_zoo([*common, "--hyperparams", "policy:'MultiInputPolicy'", *tiny], tmp_path)
    run_zoo([*common, "-conf", "playahead.train.zoo", "--hyperparams", *tiny], tmp_path)
    assert len(list((tmp_path / "logs" / "ppo").glob("Threes-v0_*/Threes-v0.zip"))) == 2
