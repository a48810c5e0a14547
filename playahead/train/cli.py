"""``playahead train {ppo,dqn} --env ID --steps N --seed S --out DIR [...]``.

Examples::

    playahead train ppo --env Threes-v0 --steps 1_000_000 --seed 0 --out runs/threes-ppo
    playahead train dqn --env 2048-v0 --hp learning_rate=1e-4 --hp batch_size=256
    playahead train ppo --env TicTacToe-v0 --self-play-every 20_000 --out runs/ttt
    playahead train ppo --env Threes-v0 --out runs/threes-ppo --resume --steps 2_000_000

Ctrl-C saves a checkpoint; ``--resume`` continues from it.
"""

from __future__ import annotations

import argparse


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``train`` arguments to ``parser``."""
    parser.add_argument(
        "algo",
        choices=("ppo", "dqn"),
        help="ppo: sb3-contrib MaskablePPO; dqn: DQN with action masks",
    )
    parser.add_argument(
        "--env",
        required=True,
        dest="env_id",
        help="env id, e.g. Threes-v0, 2048-v0, TicTacToe-v0",
    )
    parser.add_argument(
        "--steps",
        type=_positive_int,
        default=None,
        help="total env steps (default: n_timesteps of hyperparams.yml)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out", default=None, help="run directory (default runs/<env>-<algo>-s<seed>)"
    )
    parser.add_argument(
        "--n-envs",
        type=_positive_int,
        default=None,
        help="envs stepped together (default: hyperparams.yml)",
    )
    parser.add_argument(
        "--hp",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a hyperparameter (repeatable; YAML values, "
        "dotted keys: --hp policy_kwargs.net_arch=[64,64])",
    )
    parser.add_argument(
        "--env-kwarg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="env_kwarg",
        help="env argument (repeatable), e.g. bonus_preview=plus",
    )
    parser.add_argument(
        "--opponent",
        default=None,
        help="two-player envs: opponent agent spec (default random)",
    )
    parser.add_argument(
        "--self-play-every",
        type=_positive_int,
        default=None,
        metavar="K",
        help="two-player envs: play against a snapshot "
        "of the learner refreshed every K steps",
    )
    parser.add_argument(
        "--vec",
        choices=("auto", "compiled", "dummy", "subproc"),
        default=None,
        help="how envs are batched (default auto)",
    )
    parser.add_argument(
        "--threads", type=_positive_int, default=1, help="torch threads (default 1)"
    )
    parser.add_argument(
        "--checkpoint-every",
        type=_positive_int,
        default=100_000,
        help="env steps between checkpoints (default 100000)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --out from its last checkpoint",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-tensorboard", action="store_true", help="no TensorBoard logs"
    )
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument(
        "--verbose", type=int, default=0, choices=(0, 1, 2), help="SB3 verbosity"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train as ``args`` say and print where the model went."""
    from playahead.train.config import TrainConfig, canonical_env_id, parse_overrides
    from playahead.train.trainer import run as run_training

    env_id = canonical_env_id(args.env_id)
    out = args.out or f"runs/{env_id.lower()}-{args.algo}-s{args.seed}"
    cfg = TrainConfig(
        algo=args.algo,
        env_id=env_id,
        steps=args.steps,
        seed=args.seed,
        out=out,
        hp=parse_overrides(args.hp),
        n_envs=args.n_envs,
        env_kwargs=parse_overrides(args.env_kwarg),
        opponent=args.opponent,
        self_play_every=args.self_play_every,
        vec=args.vec,
        threads=args.threads,
        checkpoint_every=args.checkpoint_every,
        resume=args.resume,
        progress_bar=not args.no_progress,
        tensorboard=not args.no_tensorboard,
        device=args.device,
        verbose=args.verbose,
    )
    path = run_training(cfg)
    print(f"model: {path}\nplay it: make_agent('{args.algo}:path={path.parent}')")
    return 0
