"""``playahead train ALGO --env ID [...]``: each trainer with its own options, generated
from its config dataclass (:mod:`playahead._options`).

Examples::

    playahead train ppo --env Threes-v0 --steps 1_000_000 --seed 0 --out runs/threes-ppo
    playahead train dqn --env 2048-v0 --hp learning_rate=1e-4 --hp batch_size=256
    playahead train ppo --env TicTacToe-v0 --self-play-every 20_000 --out runs/ttt
    playahead train ppo --env Threes-v0 --out runs/threes-ppo --resume --steps 2_000_000
    playahead train ntuple --env 2048-v0 --games 100_000 --seed 0 --out runs/2048-nt
    playahead train ntuple --env 2048-v0 --patterns 8x6 --lambda 0 --no-tc
    playahead train alphazero --env connect4 --iterations 200 --out runs/c4-az

``ppo`` and ``dqn`` train with Stable-Baselines3; ``ntuple`` (n-tuple TD,
:mod:`playahead.ntuple`) needs neither torch nor SB3.

Ctrl-C saves a checkpoint; ``--resume`` continues from it.
"""

from __future__ import annotations

import argparse
import dataclasses


@dataclasses.dataclass
class SB3Files:
    """What ``ppo`` and ``dqn`` read besides their
    :class:`~playahead.train.config.TrainConfig`."""

    conf: str | None = dataclasses.field(default=None, metadata={"metavar": "FILE"})
    """YAML file of hyperparameter overrides (keys as in hyperparams.yml; --hp goes
    on top), e.g. benchmarks/results/deeprl/ppo-2048-shaped-padded.yml."""


def _sb3(parser: argparse.ArgumentParser) -> None:
    """The PPO and DQN options: :class:`~playahead.train.config.TrainConfig`'s
    fields and ``--conf``."""
    from playahead._options import add_options
    from playahead.train.config import TrainConfig

    fields = add_options(parser, TrainConfig, skip=("algo",))
    add_options(parser, SB3Files)
    parser.set_defaults(config_fields=fields, func=run)


def _ntuple(parser: argparse.ArgumentParser) -> None:
    """The n-tuple options: one per field of
    :class:`~playahead.ntuple.config.NTupleConfig`, help from its docstring."""
    from playahead._options import add_options
    from playahead.ntuple.config import NTupleConfig

    parser.set_defaults(config_fields=add_options(parser, NTupleConfig))
    # PPO/DQN options given here get a clear refusal rather than argparse's usage line
    parser.add_argument("--hp", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--conf", default=None, help=argparse.SUPPRESS)
    parser.set_defaults(func=run_ntuple)


def _alphazero(parser: argparse.ArgumentParser) -> None:
    """The AlphaZero options (:mod:`playahead.alphazero.cli`)."""
    from playahead.alphazero.cli import configure as configure_alphazero

    configure_alphazero(parser)


#: The trainers: name -> (one line, the function that adds its options to its parser
#: and sets ``func``, the handler of the parsed arguments).
TRAINERS = {
    "ppo": ("sb3-contrib MaskablePPO (action masks), any playahead env", _sb3),
    "dqn": ("DQN with action masks, any playahead env", _sb3),
    "ntuple": (
        "n-tuple network trained by afterstate TD(lambda) (2048, Threes); "
        "no torch needed",
        _ntuple,
    ),
    "alphazero": (
        "AlphaZero: self-play with a net-guided PUCT search (ConnectFour-v0, "
        "TicTacToe-v0)",
        _alphazero,
    ),
}
#: name -> one line, for ``playahead --help``.
ALGOS = {name: text for name, (text, _) in TRAINERS.items()}


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``train`` subcommands (:data:`TRAINERS`) to ``parser``."""
    sub = parser.add_subparsers(dest="algo", metavar="ALGO", required=True)
    for algo, (text, add) in TRAINERS.items():
        add(sub.add_parser(algo, help=text, description=text))


def config_options(args: argparse.Namespace, **given) -> dict:
    """The config fields of parsed arguments (``args.config_fields``), the
    ``KEY=VALUE`` lists of dict fields read as YAML values
    (:func:`~playahead.train.config.parse_overrides`; none given: the field's
    default); ``given`` wins."""
    from playahead.train.config import parse_overrides

    out = {}
    for name in args.config_fields:
        value = getattr(args, name)
        if isinstance(value, list):  # KEY=VALUE options; none: the field's default
            if not value:
                continue
            value = parse_overrides(value)
        out[name] = value
    return out | given


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
            NTupleConfig(**config_options(args, env_id=env_id, out=out))
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
    from playahead.train.config import TrainConfig, canonical_env_id
    from playahead.train.trainer import run as run_training

    env_id = canonical_env_id(args.env_id)
    out = args.out or f"runs/{env_id.lower()}-{args.algo}-s{args.seed}"
    given = {"algo": args.algo, "env_id": env_id, "out": out, "hp": hp_overrides(args)}
    path = run_training(TrainConfig(**config_options(args, **given)))
    print(f"model: {path}\nplay it: make_agent('{args.algo}:path={path.parent}')")
    return 0
