"""Training throughput: MaskablePPO on 2048 with playahead's compiled vector env
versus the same MaskablePPO on gymnasium-2048's env, in the same run.

Both sides use playahead's PPO hyperparameters for 2048-v0 (``hyperparams.yml``: the
``TileEncoder`` CNN, which reads gymnasium-2048's one-hot boards as they are, the same
PPO settings and reward normalisation; ``--hp`` changes both) and one torch thread.
playahead steps all boards in one compiled call behind the SB3 adapter; gymnasium-2048
runs in SB3's ``DummyVecEnv`` with sb3-contrib's
``ActionMasker`` computing its masks with the package's own ``apply_action``.

Prints env frames per second for the whole of ``learn`` (collection + updates), for
collection alone, and the ratios (target: >= 2x on the whole). gymnasium-2048 is the
optional ``bench`` extra; it pins an older gymnasium, so install it with
``pip install --no-deps gymnasium-2048 pygame``.

Run: ``python benchmarks/speed/bench_train.py [--steps 8192] [--n-envs 64]`` (about a
minute and a half with the defaults on a 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def _ppo(env, seed: int, n_steps: int, overrides: dict):
    """MaskablePPO with playahead's 2048-v0 hyperparameters (hyperparams.yml)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from playahead.train.config import algo_kwargs, load_hyperparams

    hp = load_hyperparams("ppo", "2048-v0", {"n_steps": n_steps, **overrides})
    _, kwargs = algo_kwargs("ppo", hp, env.observation_space)
    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", **kwargs)
    # A logger with no outputs: SB3's default one makes an empty SB3-<time>
    # directory in the system's temp directory for every learn().
    model.set_logger(Logger(None, []))
    return model


def _gymnasium_2048_env(n_envs: int, seed: int):
    import gymnasium as gym
    import gymnasium_2048  # noqa: F401  (registers its id)
    import numpy as np
    from gymnasium_2048.envs import TwentyFortyEightEnv
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    def mask(env) -> np.ndarray:
        board = env.unwrapped.board
        return np.array(
            [TwentyFortyEightEnv.apply_action(board, a)[2] for a in range(4)]
        )

    def make():
        env = gym.make("gymnasium_2048/TwentyFortyEight-v0")
        return ActionMasker(Monitor(env), mask)

    venv = DummyVecEnv([make for _ in range(n_envs)])
    venv.seed(seed)
    return venv


def _measure(
    venv, steps: int, n_steps: int, seed: int, overrides: dict
) -> tuple[float, float]:
    """(frames/s of learn, frames/s of collection alone)."""
    from stable_baselines3.common.vec_env import VecNormalize

    model = _ppo(
        VecNormalize(venv, norm_obs=False, norm_reward=True), seed, n_steps, overrides
    )
    spent = {"train": 0.0}
    update = model.train

    def timed_train():
        t0 = time.perf_counter()
        update()
        spent["train"] += time.perf_counter() - t0

    model.train = timed_train
    model.learn(n_steps * venv.num_envs)  # warm-up: numba, torch, first allocations
    spent["train"] = 0.0
    start, before = time.perf_counter(), model.num_timesteps
    model.learn(steps, reset_num_timesteps=False)
    total = time.perf_counter() - start
    frames = model.num_timesteps - before
    return frames / total, frames / (total - spent["train"])


def main(argv: list[str] | None = None) -> None:
    """Measure and print; ``argv`` are this script's options (None: the defaults, as
    when ``python -m benchmarks`` runs it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--steps",
        type=int,
        default=8192,
        help="env frames measured per side (default 8192)",
    )
    parser.add_argument("--n-envs", type=int, default=64, help="envs (default 64)")
    parser.add_argument(
        "--n-steps",
        type=int,
        default=64,
        help="PPO rollout length per env (default 64)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--hp",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a hyperparameter of both sides, as in `playahead train --hp`",
    )
    args = parser.parse_args([] if argv is None else argv)

    import torch

    torch.set_num_threads(1)
    import playahead  # noqa: F401
    from playahead.train.config import parse_overrides
    from playahead.train.vec import make_vec_env

    hp = parse_overrides(args.hp)
    ours = _measure(
        make_vec_env("2048-v0", args.n_envs, seed=args.seed),
        args.steps,
        args.n_steps,
        args.seed,
        hp,
    )
    print(
        f"MaskablePPO, 2048, {args.n_envs} envs, n_steps {args.n_steps}, "
        f"{args.steps} frames per side, 1 torch thread"
    )
    print(
        f"  playahead compiled vector env: {ours[0]:8.0f} frames/s  "
        f"(collection alone {ours[1]:8.0f} frames/s)"
    )
    try:
        theirs = _measure(
            _gymnasium_2048_env(args.n_envs, args.seed),
            args.steps,
            args.n_steps,
            args.seed,
            hp,
        )
    except ImportError:
        print(
            "  gymnasium-2048 is not installed (pip install --no-deps "
            "gymnasium-2048 pygame); no baseline measured"
        )
        return
    print(
        f"  gymnasium-2048 + ActionMasker: {theirs[0]:8.0f} frames/s  "
        f"(collection alone {theirs[1]:8.0f} frames/s)"
    )
    print(
        f"  ratio: {ours[0] / theirs[0]:.2f}x training, "
        f"{ours[1] / theirs[1]:.2f}x collection (target >= 2x training)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
