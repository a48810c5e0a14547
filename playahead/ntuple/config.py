"""The options of an n-tuple training run: :class:`NTupleConfig`, declared once.

:func:`playahead.ntuple.train.train_ntuple` takes one, and ``playahead train ntuple``
generates its options from the fields (:mod:`playahead._options`): the first paragraph
of each field's docstring is the option's help.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from playahead.ntuple.model import ENVS

MAX_GAMES = 100_000_000
MAX_EVAL_GAMES = 100_000
MAX_WORKERS = 64
#: The deepest search that may play training games (each level costs several times
#: the one before it, per move of every game).
MAX_SEARCH_DEPTH = 3
#: TD learning rate of a new run that gives none: with temporal coherence
#: (``tc``), and without (the recipes, :data:`~playahead.ntuple.train.RECIPES`).
LR_TC, LR_PLAIN = 1.0, 0.1


def _check(name, v, lo, hi, kind):
    if v is not None and not (isinstance(v, kind) and lo <= v <= hi):
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {v!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class NTupleConfig:
    """One n-tuple training run: what to train, where, and how (see
    :func:`~playahead.ntuple.train.train_ntuple`).

    The None options of a new run take the env's recipe
    (:data:`~playahead.ntuple.train.RECIPES`); on ``resume`` None keeps the run's own
    setting and a value changes it from the checkpoint on (recorded in ``model.json``'s
    ``"schedule"``).

    Raises:
        ValueError: an option out of its range, or options that do not go together
            (checked on construction, before any game).
    """

    env_id: str = dataclasses.field(metadata={"flag": "--env"})
    """env id or game name: 2048-v0, Threes-v0 (threes)."""
    out: str | Path = dataclasses.field(metadata={"cli_default": None})
    """run directory (default runs/<env>-ntuple-s<seed>).

    It must not hold another run unless ``resume``."""
    games: int = 100_000
    """training games.

    Total training games (a resumed run plays the rest); a game with restarts counts
    once."""
    seed: int = 0
    """seed of the training generator."""
    lr: float | None = dataclasses.field(
        default=None, metadata={"default": f"{LR_TC} with --tc, else {LR_PLAIN}"}
    )
    """TD learning rate.

    Spread over the ``8 * P`` lookups."""
    patterns: str | tuple[str, ...] | None = None
    """tuple patterns: a named set (4x6, 5x6, 8x6, 4x5, 5x4) or hex cells in reading
    order (default 2048: 4x6 = 012345,456789,012456,45689a; Threes: 4x5 =
    01234,45678,01245,45689).

    From Python also a sequence of hex strings (see
    :data:`~playahead.ntuple.model.PATTERN_SETS`)."""
    init: float = 0.0
    """optimistic initial value of every afterstate.

    Spread over the lookups; every stage starts there."""
    tc: bool | None = None
    """temporal coherence: per-weight learning rates abs(E)/A (Jaskowski's TC) (default
    2048: on; Threes: off).

    Each weight's step is ``lr`` times ``|E| / A`` of its accumulated errors (see
    :mod:`playahead.kernels.td`); the accumulators are saved beside the model
    (``tc_e.npz``, ``tc_a.npz``); switched on at a resume, they start from zero."""
    lam: float | None = dataclasses.field(
        default=None, metadata={"flag": "--lambda", "metavar": "LAMBDA"}
    )
    """lambda of the backward TD(lambda) pass, 0..1 (default 2048: 0.5; Threes: 0,
    TD(0))."""
    restarts: bool | None = None
    """restart strategy: replay each game of 10+ moves from its middle (default 2048:
    on; Threes: off)."""
    online: bool | None = None
    """online TD(0): learn each afterstate as soon as the next move is chosen, during
    the game, instead of in a backward pass after it (default off; a new run takes
    lambda 0 with it).

    The order of Szubert and Jaskowski's TD(0) and TDL2048+'s default: each update
    finds its weights still in the cache. Needs lambda 0; not with search-driven or
    stage-stopped games (see :mod:`playahead.kernels.td`)."""
    stages: str | tuple[int, ...] | None = None
    """multi-stage net: tile values where a new weight set takes over, by the
    afterstate's largest tile (e.g. Threes 1536,3072,6144; default one stage); with
    --resume, splits a one-stage net into stages that start as its copies.

    One weight set per stage (see :class:`~playahead.ntuple.model.NTupleModel`). On
    ``resume`` of a one-stage net every stage starts as a copy of the trained weights
    (so the split net plays as before, then specialises); the split is recorded in
    ``schedule``. A multi-stage run keeps its own."""
    preview: bool = True
    """Threes, a new run: a net without the preview index (False, --no-preview: one
    weight set per stage instead of one per next card, as threes-meadow-ai's).

    Recorded as ``"preview": false`` in ``model.json``; a resumed run keeps its own."""
    env_kwargs: dict | None = dataclasses.field(
        default=None, metadata={"flag": "--env-kwarg"}
    )
    """Threes' rule variant (repeatable), e.g. bonus_preview=plus, merge_6144=true."""
    starts: str | Path | None = dataclasses.field(
        default=None, metadata={"metavar": "FILE.npz"}
    )
    """saved start positions: arrays board (uint64) and, for Threes, cards (int64,
    the cards word).

    See :func:`~playahead.ntuple.train.load_starts`; a resumed run needs the same file
    again (its sha256 is in ``model.json``)."""
    start_share: float = 0.5
    """share of the games that start from a saved position."""
    switch_starts: bool = False
    """with --resume: train on from the --starts positions (and --start-share) in place
    of the run's own; the run's schedule records the switch.

    Without it a resumed run refuses other positions than its own."""
    search_share: float | None = None
    """Threes: share of the games played by expectimax over the net itself instead of
    greedily (a search-driven behaviour policy; default 0, with --resume the run's
    own).

    The search goes to ``search_depth`` at a 0.01 cut-off with leaves clamped at 0,
    and its games are learned from like the others: the late positions a search
    reaches, which a greedy player rarely does."""
    search_depth: int | None = None
    """depth of that search, 1..3 (default 2), at a 0.01 cut-off."""
    stop_at: int | None = None
    """a tile where a stage of the net starts: games stop at their first afterstate
    that reaches it and learn toward its value, so games from --starts of the stage
    below train that stage alone (0: play to the end; default: 0, with --resume the
    run's own).

    threes-meadow-ai's stage-by-stage training (see :mod:`playahead.kernels.td`)."""
    workers: int = 1
    """threads training the net together, lock-free (default 1, the deterministic
    trainer).

    The kernels release the GIL; as in the literature's multi-threaded trainers,
    updates may race. Each chunk, the run's generator seeds one generator per
    thread."""
    eval_every: int = 10_000
    """games between evaluations and checkpoints."""
    eval_games: int = 100
    """games per evaluation (held-out seeds, greedy)."""
    resume: bool = False
    """continue the run in --out from its last checkpoint."""
    progress: bool = True
    """show a progress bar."""
    tensorboard: bool = True
    """write TensorBoard scalars under out/tb."""

    def __post_init__(self):
        for name, cap in (
            ("games", MAX_GAMES),
            ("eval_every", MAX_GAMES),
            ("eval_games", MAX_EVAL_GAMES),
            ("workers", MAX_WORKERS),
        ):
            v = getattr(self, name)
            if not isinstance(v, int | np.integer) or not 1 <= v <= cap:
                raise ValueError(f"{name} must be an integer in 1..{cap}, got {v!r}")
        lr = self.lr
        if lr is not None and not (isinstance(lr, int | float) and 0 < lr <= 1):
            raise ValueError(f"lr must be in (0, 1], got {lr!r}")
        _check("lambda", self.lam, 0, 1, int | float)
        _check("start_share", self.start_share, 0, 1, int | float)
        _check("search_share", self.search_share, 0, 1, int | float)
        depth = self.search_depth
        if depth is not None and (
            isinstance(depth, bool)
            or not isinstance(depth, int | np.integer)
            or not 1 <= depth <= MAX_SEARCH_DEPTH
        ):
            raise ValueError(
                f"search_depth must be an integer in 1..{MAX_SEARCH_DEPTH}, got "
                f"{depth!r}"
            )
        if self.env_id != "Threes-v0" and (self.search_share or depth is not None):
            raise ValueError(
                "search-driven games (search_share) are for Threes-v0 only"
            )
        if self.online and (self.lam or self.search_share or self.stop_at):
            raise ValueError(
                "online TD learns TD(0) from greedy games played to their end: not "
                "with lambda > 0, search_share or stop_at"
            )
        if self.env_id not in ENVS:
            raise ValueError(
                f"env {self.env_id!r}: n-tuple nets play {', '.join(ENVS)}"
            )
        if not self.preview and (self.env_id != "Threes-v0" or self.resume):
            raise ValueError(
                "a net without the preview index (preview=False) is a new Threes-v0 run"
            )
        stop_at = self.stop_at
        if stop_at is not None and (
            isinstance(stop_at, bool) or not isinstance(stop_at, int | np.integer)
        ):
            raise ValueError(f"stop_at must be a tile value or 0, got {stop_at!r}")
