"""The options of an AlphaZero training run: :class:`AlphaZeroConfig`, declared once.

:func:`playahead.alphazero.train.train_alphazero` takes one, and ``playahead train
alphazero`` generates its options from the fields (:mod:`playahead._options`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from playahead.alphazero.kernels import MAX_SIMULATIONS

ENVS = ("ConnectFour-v0", "TicTacToe-v0")
MAX_ITERATIONS = 1_000_000
MAX_GAMES_PER_ITERATION = 100_000
MAX_WORKERS = 64
MAX_BUFFER = 20_000_000


def _check(name, value, lo, hi, kind=int):
    ok = isinstance(value, kind) and not isinstance(value, bool) and lo <= value <= hi
    if not ok:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class AlphaZeroConfig:
    """One AlphaZero run: self-play with a net-guided PUCT search, and the net
    trained on the search's visit shares and the games' results.

    Raises:
        ValueError: an option out of its range (checked on construction).
    """

    env_id: str
    """env id: ConnectFour-v0 or TicTacToe-v0."""
    out: str | Path
    """run directory.

    It must not hold another run unless ``resume``."""
    seed: int = 0
    """seed of the run: the net's initial weights, every game's chance, the batches."""
    iterations: int = 100
    """training iterations (self-play, then training); a resumed run plays the rest."""
    games_per_iteration: int = 256
    """self-play games an iteration."""
    n_simulations: int = 96
    """PUCT simulations a self-play move (one net evaluation each)."""
    c_puct: float = 1.5
    """exploration constant of PUCT."""
    dirichlet_alpha: float = 1.0
    """Dirichlet noise parameter at self-play roots."""
    noise_fraction: float = 0.25
    """share of the noise in the root priors."""
    sample_moves: int = 10
    """opening plies chosen in proportion to visits (later: the most visited)."""
    channels: int = 48
    """filters of the net's convolutions (a new run only)."""
    blocks: int = 4
    """residual blocks of the net (a new run only)."""
    buffer_positions: int = 300_000
    """replay buffer: the most recent positions kept for training."""
    batch_size: int = 512
    """positions a training step."""
    replay_ratio: float = 4.0
    """positions trained on per new self-play position."""
    lr: float = 1e-3
    """AdamW learning rate (of the first iteration, with ``lr_final``)."""
    lr_final: float | None = None
    """if given, the learning rate of iteration ``iterations``: the rate falls
    geometrically from ``lr`` to it, by iteration (:meth:`learning_rate`)."""
    weight_decay: float = 1e-4
    """AdamW weight decay."""
    slots: int = 128
    """games a worker plays at once (their leaves share a net call)."""
    workers: int = 1
    """self-play worker processes (0: in this process)."""
    ray: bool = False
    """run self-play as Ray actors (the ``distributed`` extra); with RAY_ADDRESS set,
    on that cluster."""
    snapshot_every: int = 5
    """iterations between the nets kept in ``snapshots/`` for learning curves."""
    max_cpu_hours: float | None = None
    """stop after this much training CPU time (self-play and learning), if given."""
    resume: bool = False
    """continue the run in ``out`` from its last checkpoint."""
    init: str | None = None
    """a new run starts from this net (``.npz``, e.g. a snapshot of another run) and
    carries on its iteration, games, positions and CPU hours; its architecture is the
    net's (a new run only)."""
    progress: bool = True
    """show a progress bar."""
    tensorboard: bool = True
    """write TensorBoard scalars under ``out/tb``."""

    def __post_init__(self) -> None:
        if self.env_id not in ENVS:
            raise ValueError(
                f"alphazero trains on {', '.join(ENVS)}, not {self.env_id!r}"
            )
        _check("seed", self.seed, 0, 2**63 - 1)
        _check("iterations", self.iterations, 1, MAX_ITERATIONS)
        _check(
            "games_per_iteration", self.games_per_iteration, 1, MAX_GAMES_PER_ITERATION
        )
        _check("n_simulations", self.n_simulations, 1, MAX_SIMULATIONS)
        _check("channels", self.channels, 1, 512)
        _check("blocks", self.blocks, 0, 40)
        _check("buffer_positions", self.buffer_positions, 1, MAX_BUFFER)
        _check("batch_size", self.batch_size, 1, 65_536)
        _check("sample_moves", self.sample_moves, 0, 100)
        _check("slots", self.slots, 1, 4096)
        _check("workers", self.workers, 0, MAX_WORKERS)
        _check("snapshot_every", self.snapshot_every, 1, MAX_ITERATIONS)
        rates = ("c_puct", "dirichlet_alpha", "lr", "replay_ratio")
        for name in rates + (("lr_final",) if self.lr_final is not None else ()):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value <= 1e3):
                raise ValueError(f"{name} must be in (0, 1000], got {value!r}")
        for name in ("noise_fraction", "weight_decay"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 <= value <= 1):
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        if self.max_cpu_hours is not None and not 0 < self.max_cpu_hours <= 1e5:
            raise ValueError(
                f"max_cpu_hours must be in (0, 1e5], got {self.max_cpu_hours}"
            )
        if self.init is not None and self.resume:
            raise ValueError(
                "init starts a new run from a net and resume continues a run: give one"
            )
        if self.ray and self.workers < 1:
            raise ValueError("ray runs self-play in workers: workers must be >= 1")

    def learning_rate(self, iteration: int) -> float:
        """The learning rate of ``iteration`` (1 to ``iterations``): ``lr``, or
        with ``lr_final``, ``lr * (lr_final / lr) ** t``, where ``t`` is
        ``(iteration - 1) / (iterations - 1)``."""
        if self.lr_final is None or self.iterations == 1:
            return float(self.lr)
        t = min(iteration - 1, self.iterations - 1) / (self.iterations - 1)
        return float(self.lr * (self.lr_final / self.lr) ** t)
