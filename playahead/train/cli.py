"""``playahead train {ppo,dqn,ntuple} --env ID [...]``: each with its own options.

Examples::

    playahead train ppo --env Threes-v0 --steps 1_000_000 --seed 0 --out runs/threes-ppo
    playahead train dqn --env 2048-v0 --hp learning_rate=1e-4 --hp batch_size=256
    playahead train ppo --env TicTacToe-v0 --self-play-every 20_000 --out runs/ttt
    playahead train ppo --env Threes-v0 --out runs/threes-ppo --resume --steps 2_000_000
    playahead train ntuple --env 2048-v0 --games 100_000 --seed 0 --out runs/2048-nt
    playahead train ntuple --env 2048-v0 --patterns 8x6 --lambda 0 --no-tc

``ppo`` and ``dqn`` train with Stable-Baselines3; ``ntuple`` (n-tuple TD,
:mod:`playahead.ntuple`) needs neither torch nor SB3.

Ctrl-C saves a checkpoint; ``--resume`` continues from it.
"""

from __future__ import annotations

import argparse

ALGOS = {
    "ppo": "sb3-contrib MaskablePPO (action masks), any playahead env",
    "dqn": "DQN with action masks, any playahead env",
    "ntuple": "n-tuple network trained by afterstate TD(lambda) (2048, Threes); "
    "no torch needed",
}


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def _common(parser: argparse.ArgumentParser, algo: str) -> None:
    """Options every algorithm takes."""
    parser.add_argument(
        "--env",
        required=True,
        dest="env_id",
        help="env id or game name, e.g. "
        + (
            "2048-v0, Threes-v0, threes"
            if algo == "ntuple"
            else "Threes-v0, 2048-v0, TicTacToe-v0, connect4"
        ),
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out", default=None, help=f"run directory (default runs/<env>-{algo}-s<seed>)"
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
        "--resume",
        action="store_true",
        help="continue the run in --out from its last checkpoint",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-tensorboard", action="store_true", help="no TensorBoard logs"
    )


def _sb3(parser: argparse.ArgumentParser) -> None:
    """The PPO and DQN options."""
    parser.add_argument(
        "--steps",
        type=_positive_int,
        default=None,
        help="total env steps (default: n_timesteps of hyperparams.yml)",
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
        "--conf",
        default=None,
        metavar="FILE",
        help="YAML file of hyperparameter overrides (keys as in hyperparams.yml; "
        "--hp goes on top), e.g. benchmarks/results/deeprl/ppo-2048-shaped-padded.yml",
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
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument(
        "--verbose", type=int, default=0, choices=(0, 1, 2), help="SB3 verbosity"
    )
    parser.set_defaults(func=run)


#: NTupleConfig's fields that every trainer's options give (``_common``).
_COMMON_FIELDS = ("env_id", "out", "seed", "env_kwargs", "resume", "progress")
_COMMON_FIELDS += ("tensorboard",)


def _ntuple(nt: argparse.ArgumentParser) -> None:
    """The n-tuple options: one per field of
    :class:`~playahead.ntuple.config.NTupleConfig`, help from its docstring."""
    from playahead._options import add_options
    from playahead.ntuple.config import NTupleConfig

    nt.set_defaults(ntuple_fields=add_options(nt, NTupleConfig, _COMMON_FIELDS))
    # PPO/DQN options given here get a clear refusal rather than argparse's usage line
    nt.add_argument("--hp", action="append", default=[], help=argparse.SUPPRESS)
    nt.add_argument("--conf", default=None, help=argparse.SUPPRESS)
    nt.set_defaults(func=run_ntuple)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``train`` subcommands (``ppo``, ``dqn``, ``ntuple``) to ``parser``."""
    sub = parser.add_subparsers(dest="algo", metavar="ALGO", required=True)
    for algo, text in ALGOS.items():
        p = sub.add_parser(algo, help=text, description=text)
        _common(p, algo)
        if algo == "ntuple":
            _ntuple(p)
        else:
            _sb3(p)


def ntuple_env_id(name: str) -> str:
    """The env id ``train ntuple --env`` names (an id or a game's name, ``threes``).

    Raises:
        SystemExit: not a game an n-tuple net plays (the message names them).
    """
    from playahead.envs import registered_id
    from playahead.ntuple.model import ENVS

    env_id = registered_id(name).removeprefix("playahead/")
    if env_id not in ENVS:
        raise SystemExit(f"ntuple trains on {', '.join(ENVS)}, not {name!r}")
    return env_id


def run_ntuple(args: argparse.Namespace) -> int:
    """``playahead train ntuple``: no torch import."""
    from playahead.ntuple.config import NTupleConfig
    from playahead.ntuple.train import train_ntuple
    from playahead.train.config import parse_overrides

    if args.hp or args.conf is not None:
        raise SystemExit(
            "playahead train ntuple: --hp and --conf set ppo and dqn hyperparameters; "
            "an n-tuple run takes --lr, --lambda, --tc, --restarts, --online, "
            "--patterns, --init and --stages"
        )
    env_id = ntuple_env_id(args.env_id)
    out = args.out or f"runs/{env_id.lower()}-ntuple-s{args.seed}"
    try:
        path = train_ntuple(
            NTupleConfig(
                env_id=env_id,
                out=out,
                seed=args.seed,
                env_kwargs=parse_overrides(args.env_kwarg),
                resume=args.resume,
                progress=not args.no_progress,
                tensorboard=not args.no_tensorboard,
                **{name: getattr(args, name) for name in args.ntuple_fields},
            )
        )
    except ValueError as err:
        raise SystemExit(f"playahead train ntuple: {err}") from None
    print(f"model: {path}\nplay it: make_agent('ntuple:path={path}')")
    return 0


def hp_overrides(args: argparse.Namespace) -> dict:
    """The hyperparameter overrides of parsed ``train`` arguments: the ``--conf``
    file, with the ``--hp`` options on top."""
    from playahead.train.config import (
        load_overrides_file,
        merge_overrides,
        parse_overrides,
    )

    hp = parse_overrides(args.hp)
    if args.conf is not None:
        hp = merge_overrides(load_overrides_file(args.conf), hp)
    return hp


def run(args: argparse.Namespace) -> int:
    """Train PPO or DQN as ``args`` say and print where the model went."""
    from playahead.train.config import TrainConfig, canonical_env_id, parse_overrides
    from playahead.train.trainer import run as run_training

    hp = hp_overrides(args)
    env_id = canonical_env_id(args.env_id)
    out = args.out or f"runs/{env_id.lower()}-{args.algo}-s{args.seed}"
    cfg = TrainConfig(
        algo=args.algo,
        env_id=env_id,
        steps=args.steps,
        seed=args.seed,
        out=out,
        hp=hp,
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
