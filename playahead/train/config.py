"""Training configuration: the arguments of a run and the per-env hyperparameters.

Hyperparameters live in ``hyperparams.yml`` next to this file, in playahead's own
format (not rl-zoo3's: the algorithm is the top key)::

    ppo:
      Threes-v0:
        n_envs: 64
        n_timesteps: 1000000
        policy: MultiInputPolicy
        learning_rate: lin_3e-4          # linear from 3e-4 to 0
        policy_kwargs:
          features_extractor_class: TileEncoder
        ...
      default: {...}                    # any env id without its own entry

Keys that are not arguments of the SB3 algorithm: ``n_envs``, ``n_timesteps`` (the
default ``--steps``), ``policy`` (``MlpPolicy``, ``MultiInputPolicy`` or ``auto``),
``normalize`` (``VecNormalize`` keyword arguments, or false), ``shaping`` (reward
shaping weights for the tile games, see :mod:`playahead.train.shaping`), ``env_kwargs``
and ``vec`` (see :func:`playahead.train.vec.make_vec_env`). ``lin_<x>`` is a linear
schedule from ``x`` to 0 over the run. In ``policy_kwargs``,
``features_extractor_class`` names a class of :mod:`playahead.train.encoders` and
``activation_fn`` one of ``relu, tanh, elu, leaky_relu, gelu``.

``--hp key=value`` overrides a key (values are read as YAML: ``--hp n_epochs=4``,
``--hp learning_rate=lin_1e-3``, ``--hp policy_kwargs.net_arch=[128,128]``).
``--conf FILE`` reads a whole set of overrides from a YAML mapping of the same keys
(:func:`load_overrides_file`); ``--hp`` goes on top of it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.metadata
import inspect
import platform
from pathlib import Path
from typing import Any

import gymnasium as gym

HYPERPARAMS_FILE = Path(__file__).with_name("hyperparams.yml")
ALGOS = ("ppo", "dqn")
SPECIAL_KEYS = (
    "n_envs",
    "n_timesteps",
    "policy",
    "normalize",
    "shaping",
    "env_kwargs",
    "vec",
)
SCHEDULE_KEYS = ("learning_rate", "clip_range", "clip_range_vf")
ACTIVATIONS = ("relu", "tanh", "elu", "leaky_relu", "gelu")
NAMESPACE = "playahead/"


def positive_int(text: str) -> int:
    """A command line's positive integer, or argparse's one-line error."""
    import argparse

    try:
        value = int(str(text).replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


@dataclasses.dataclass
class TrainConfig:
    """Everything that defines a training run; saved as ``config.json`` in ``out``."""

    algo: str
    """ppo (sb3-contrib MaskablePPO) or dqn (:class:`MaskedDQN`)."""
    env_id: str = dataclasses.field(metadata={"flag": "--env"})
    """env id or game name, e.g. Threes-v0, 2048-v0, TicTacToe-v0, connect4."""
    steps: int | None = dataclasses.field(default=None, metadata={"type": positive_int})
    """total env steps (default: n_timesteps of hyperparams.yml)."""
    seed: int = 0
    """random seed: the envs, the network initialisation and exploration."""
    out: str = dataclasses.field(default="runs/run", metadata={"cli_default": None})
    """run directory (default runs/<env>-<algo>-s<seed>).

    It holds model.zip, config.json, versions.json, checkpoints/ and tb/."""
    hp: dict[str, Any] = dataclasses.field(default_factory=dict)
    """override a hyperparameter (repeatable; YAML values, dotted keys:
    --hp policy_kwargs.net_arch=[64,64]).

    Dotted keys are allowed (see the module docstring)."""
    n_envs: int | None = dataclasses.field(
        default=None, metadata={"type": positive_int}
    )
    """envs stepped together (default: hyperparams.yml)."""
    env_kwargs: dict[str, Any] = dataclasses.field(
        default_factory=dict, metadata={"flag": "--env-kwarg"}
    )
    """env argument (repeatable), e.g. bonus_preview=plus.

    Keyword arguments of the env, over the hyperparameters' ``env_kwargs``."""
    opponent: str | None = None
    """two-player envs: opponent agent spec (default random)."""
    self_play_every: int | None = dataclasses.field(
        default=None, metadata={"type": positive_int, "metavar": "K"}
    )
    """two-player envs: play against a snapshot of the learner refreshed every K
    steps."""
    vec: str | None = dataclasses.field(
        default=None, metadata={"choices": ("auto", "compiled", "dummy", "subproc")}
    )
    """how envs are batched (default auto, or the hyperparameters')."""
    threads: int = dataclasses.field(default=1, metadata={"type": positive_int})
    """torch threads (1 is fastest for these small networks on a shared machine)."""
    checkpoint_every: int = dataclasses.field(
        default=100_000, metadata={"type": positive_int}
    )
    """env steps between checkpoints (and one on Ctrl-C)."""
    resume: bool = False
    """continue the run in --out from its last checkpoint (the step count goes on)."""
    progress_bar: bool = dataclasses.field(
        default=False, metadata={"flag": "--no-progress", "cli_default": True}
    )
    """show a tqdm/rich progress bar."""
    tensorboard: bool = True
    """write TensorBoard logs to out/tb."""
    device: str = "cpu"
    """torch device."""
    verbose: int = dataclasses.field(default=0, metadata={"choices": (0, 1, 2)})
    """SB3 verbosity (0 quiet, 1 prints the training table)."""

    def to_json(self) -> dict[str, Any]:
        """The config as a JSON-ready dict (the run's ``config.json``)."""
        return dataclasses.asdict(self)


def canonical_env_id(env_id: str) -> str:
    """``"playahead/Threes-v0"`` -> ``"Threes-v0"``, after checking it is registered;
    a game's short name gives its env id (``"threes"`` -> ``"Threes-v0"``,
    :func:`playahead.envs.env_id_of`).

    Raises:
        ValueError: the id is not registered (the message lists playahead's ids).
    """
    import playahead  # noqa: F401  (registers the envs)
    from playahead.envs import env_id_of

    if isinstance(env_id, str) and env_id not in gym.registry:
        with contextlib.suppress(ValueError):
            env_id = env_id_of(env_id)
    if not isinstance(env_id, str) or env_id not in gym.registry:
        ours = sorted(
            k[len(NAMESPACE) :] for k in gym.registry if k.startswith(NAMESPACE)
        )
        raise ValueError(f"unknown env id {env_id!r}; playahead's: {', '.join(ours)}")
    return env_id[len(NAMESPACE) :] if env_id.startswith(NAMESPACE) else env_id


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """``["n_epochs=4", "policy_kwargs.net_arch=[64,64]"]`` -> a nested dict.

    Raises:
        ValueError: an item is not ``key=value``.
    """
    import yaml

    out: dict[str, Any] = {}
    for item in items or []:
        key, eq, text = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--hp {item!r} is not key=value (e.g. n_epochs=4)")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ValueError(f"--hp {item!r}: cannot read value: {err}") from None
        node = out
        *parents, leaf = key.strip().split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


#: The largest ``--conf`` file read, in bytes.
MAX_CONF_BYTES = 1 << 20


def load_overrides_file(path: Path | str) -> dict[str, Any]:
    """The overrides in a YAML file: a mapping of hyperparameter keys, as in an
    entry of ``hyperparams.yml`` (nested mappings merge key by key).

    Raises:
        ValueError: the file is missing, too large, not YAML, or not such a mapping.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"--conf {path}: no such file")
    size = path.stat().st_size
    if size > MAX_CONF_BYTES:
        raise ValueError(
            f"--conf {path}: {size:,} bytes; a hyperparameter file is at most "
            f"{MAX_CONF_BYTES:,}"
        )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise ValueError(f"--conf {path}: not readable as YAML: {err}") from None
    if not isinstance(data, dict) or not data:
        got = "an empty mapping" if data == {} else type(data).__name__
        raise ValueError(
            f"--conf {path}: expected a mapping of hyperparameters such as "
            f"'n_epochs: 4', got {got}"
        )
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ValueError(f"--conf {path}: keys must be names, got {bad[0]!r}")
    return data


def merge_overrides(base: dict, over: dict) -> dict:
    """``over`` laid on ``base``; nested mappings merge key by key."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_overrides(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_hyperparams(
    algo: str,
    env_id: str,
    overrides: dict | None = None,
    path: Path | str = HYPERPARAMS_FILE,
) -> dict[str, Any]:
    """The hyperparameters of ``algo`` on ``env_id`` (the file's entry, else its
    ``default``), with ``overrides`` merged in. Values stay as written (``lin_3e-4``,
    class names); :func:`algo_kwargs` resolves them.

    Raises:
        ValueError: unknown algorithm.
    """
    import yaml

    if algo not in ALGOS:
        raise ValueError(f"unknown algorithm {algo!r}; choose from {', '.join(ALGOS)}")
    with open(path) as f:
        table = yaml.safe_load(f)[algo]
    entry = table.get(canonical_env_id(env_id), table["default"])
    return merge_overrides(entry, overrides or {})


def _schedule(key: str, value: Any):
    from stable_baselines3.common.utils import LinearSchedule

    if isinstance(value, str) and value.startswith("lin_"):
        try:
            start = float(value[4:])
        except ValueError:
            raise ValueError(
                f"{key}={value!r}: expected lin_<number>, e.g. lin_3e-4"
            ) from None
        return LinearSchedule(start, 0.0, 1.0)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{key}={value!r}: expected a number or lin_<number>")


def _policy_kwargs(raw: dict[str, Any] | None) -> dict[str, Any]:
    from torch import nn

    from playahead.train.encoders import EXTRACTORS

    kwargs = dict(raw or {})
    name = kwargs.get("features_extractor_class")
    if isinstance(name, str):
        if name not in EXTRACTORS:
            raise ValueError(
                f"features_extractor_class={name!r} is not one of "
                f"{', '.join(EXTRACTORS)}"
            )
        kwargs["features_extractor_class"] = EXTRACTORS[name]
    act = kwargs.get("activation_fn")
    if isinstance(act, str):
        if act not in ACTIVATIONS:
            raise ValueError(
                f"activation_fn={act!r} is not one of {', '.join(ACTIVATIONS)}"
            )
        classes = {
            "relu": nn.ReLU,
            "tanh": nn.Tanh,
            "elu": nn.ELU,
            "leaky_relu": nn.LeakyReLU,
            "gelu": nn.GELU,
        }
        kwargs["activation_fn"] = classes[act]
    return kwargs


def algo_class(algo: str):
    """The SB3 class of ``algo``: MaskablePPO or :class:`MaskedDQN`."""
    if algo == "ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    if algo == "dqn":
        from playahead.train.masked_dqn import MaskedDQN

        return MaskedDQN
    raise ValueError(f"unknown algorithm {algo!r}; choose from {', '.join(ALGOS)}")


def algo_kwargs(
    algo: str, hp: dict[str, Any], observation_space: gym.Space
) -> tuple[str, dict[str, Any]]:
    """Split resolved hyperparameters into ``(policy, kwargs for the SB3 class)``.

    Raises:
        ValueError: a key the algorithm does not take (the message lists them), or a
            malformed schedule, extractor or activation name.
    """
    cls = algo_class(algo)
    kwargs = {k: v for k, v in hp.items() if k not in SPECIAL_KEYS}
    # MaskedDQN passes its arguments through to SB3's DQN.
    signature_of = cls.__mro__[1] if algo == "dqn" else cls
    accepted = set(inspect.signature(signature_of.__init__).parameters) - {
        "self",
        "policy",
        "env",
        "seed",
        "device",
        "tensorboard_log",
        "verbose",
        "_init_setup_model",
    }
    unknown = sorted(set(kwargs) - accepted)
    if unknown:
        raise ValueError(
            f"{algo} has no hyperparameter(s) {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(accepted | set(SPECIAL_KEYS)))}"
        )
    for key in SCHEDULE_KEYS:
        if key in kwargs and kwargs[key] is not None:
            kwargs[key] = _schedule(key, kwargs[key])
    if isinstance(kwargs.get("train_freq"), list):  # YAML has no tuples: [4, step]
        kwargs["train_freq"] = tuple(kwargs["train_freq"])
    kwargs["policy_kwargs"] = _policy_kwargs(kwargs.get("policy_kwargs"))
    policy = hp.get("policy", "auto")
    if policy == "auto":
        dict_obs = isinstance(observation_space, gym.spaces.Dict)
        policy = "MultiInputPolicy" if dict_obs else "MlpPolicy"
    if policy not in ("MlpPolicy", "MultiInputPolicy"):
        raise ValueError(f"policy={policy!r}: use MlpPolicy, MultiInputPolicy or auto")
    return policy, kwargs


def library_versions() -> dict[str, str]:
    """Versions of Python, the platform and the libraries a run depends on."""
    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in (
        "playahead",
        "numpy",
        "numba",
        "gymnasium",
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "pyyaml",
        "tensorboard",
    ):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    return versions
