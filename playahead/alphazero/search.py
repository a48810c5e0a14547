"""Net-guided PUCT search for many positions at once, and self-play games.

:func:`search` runs ``n_simulations`` rounds of the compiled kernels
(:mod:`playahead.alphazero.kernels`) over a batch of trees, one net call a round for
every tree that reached a new leaf. :func:`self_play` plays whole games with it, as
many at once as it has slots, and returns the positions with their search policies
and the games' results: the training data of AlphaZero.

Every game of a self-play batch has its own generator,
``np.random.default_rng([seed, iteration, game])``, for its root noise and its
sampled opening moves, so a game is the same whichever slot or worker plays it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from playahead.alphazero import kernels as k
from playahead.alphazero.kernels import MAX_SIMULATIONS  # noqa: F401  (re-exported)


class Evaluator:
    """A net in eval mode behind ``(obs: float32[B, 2, r, c]) -> (logits, values)``
    as numpy arrays; counts the positions it evaluated (``calls``, ``positions``).

    With ``mirror`` (the action each action becomes when the board is mirrored
    left-right, :func:`mirror_actions`) every position is evaluated as given and
    mirrored in the same net call, and the two answers are averaged: the logits
    (mirrored back) and the values. The games are symmetric, so this removes the
    net's left-right bias at the cost of a batch twice as large.
    """

    def __init__(self, net: torch.nn.Module, mirror: np.ndarray | None = None) -> None:
        self.net = net.eval()
        self.mirror = mirror
        self.calls = 0
        self.positions = 0

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self.positions += len(obs)
        if self.mirror is not None:
            obs = np.concatenate([obs, obs[..., ::-1]])  # a contiguous copy
        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(obs))
        logits, values = logits.numpy(), values.numpy()
        if self.mirror is None:
            return logits, values
        n = len(logits) // 2
        return (
            (logits[:n] + logits[n:, self.mirror]) / 2,
            (values[:n] + values[n:]) / 2,
        )


def mirror_actions(game: int) -> np.ndarray:
    """The action each action becomes when the board is mirrored left-right."""
    rows, cols = k.SHAPES[game]
    if k.N_ACTIONS[game] == cols:
        return np.arange(cols)[::-1].copy()
    a = np.arange(rows * cols)
    return (a // cols) * cols + (cols - 1 - a % cols)


@dataclasses.dataclass
class Batch:
    """Scratch for a batch of searches: the trees and the kernels' in/out arrays."""

    game: int
    trees: k.Trees
    obs: np.ndarray
    need_eval: np.ndarray
    leaf_value: np.ndarray
    logits: np.ndarray
    values: np.ndarray

    @classmethod
    def new(cls, game: int, n_slots: int, n_simulations: int) -> Batch:
        """Scratch for ``n_slots`` searches of up to ``n_simulations`` each."""
        rows, cols = k.SHAPES[game]
        return cls(
            game=game,
            trees=k.new_trees(game, n_slots, n_simulations),
            obs=np.zeros((n_slots, 2, rows, cols), np.float32),
            need_eval=np.zeros(n_slots, np.bool_),
            leaf_value=np.zeros(n_slots, np.float32),
            logits=np.zeros((n_slots, k.N_ACTIONS[game]), np.float32),
            values=np.zeros(n_slots, np.float32),
        )

    def round(self, active: np.ndarray, evaluate: Evaluator, c_puct: float) -> None:
        """One simulation in every active tree: descend, evaluate, back up."""
        k.select_leaves(
            self.game,
            self.trees,
            active,
            c_puct,
            self.obs,
            self.need_eval,
            self.leaf_value,
        )
        idx = np.flatnonzero(self.need_eval)
        if len(idx):
            logits, values = evaluate(self.obs[idx])
            self.logits[idx] = logits
            self.values[idx] = values
        k.expand_backup(
            self.trees,
            active,
            self.need_eval,
            self.logits,
            self.values,
            self.leaf_value,
        )


def search(
    batch: Batch,
    roots: np.ndarray,
    active: np.ndarray,
    evaluate: Evaluator,
    n_simulations: int,
    c_puct: float,
    noise: list[np.ndarray | None] | None = None,
    noise_fraction: float = 0.25,
) -> None:
    """Search from ``roots: int64[B, 2]`` in the ``active`` slots.

    The root is expanded by one net call, ``noise[b]`` (one entry per legal move) is
    mixed into its priors where given, then ``n_simulations`` rounds follow. The
    root's edge visits and values are in ``batch.trees`` afterwards.
    """
    slots = np.flatnonzero(active).astype(np.int64)
    k.reset_roots(batch.game, batch.trees, slots, roots[slots])
    batch.round(active, evaluate, c_puct)
    if noise is not None:
        for b in slots:
            if noise[b] is not None:
                k.add_root_noise(
                    batch.trees, b, noise[b].astype(np.float32), noise_fraction
                )
    for _ in range(n_simulations):
        batch.round(active, evaluate, c_puct)


def root_values(trees: k.Trees, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``(visits, q)`` of slot ``b``'s root edges; q is NaN where unvisited or
    illegal, from the view of the player to move at the root."""
    visits = trees.visits[b, 0].astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(visits > 0, trees.value_sum[b, 0] / np.maximum(visits, 1), np.nan)
    return visits, q


@dataclasses.dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play games are played."""

    n_simulations: int = 96
    c_puct: float = 1.5
    dirichlet_alpha: float = 1.0
    noise_fraction: float = 0.25
    #: moves (plies) sampled in proportion to visits before the search's choice
    sample_moves: int = 10
    slots: int = 128


@dataclasses.dataclass
class Games:
    """Positions of finished self-play games: ``obs: int8[N, 2, r, c]``,
    ``policy: float32[N, A]`` (root visit shares), ``legal: bool[N, A]``,
    ``z: float32[N]`` (the game's result for the player to move), and per game
    ``results: int8[G]`` (+1 first player won, -1 second, 0 draw) and
    ``lengths: int16[G]``."""

    obs: np.ndarray
    policy: np.ndarray
    legal: np.ndarray
    z: np.ndarray
    results: np.ndarray
    lengths: np.ndarray
    positions_evaluated: int = 0


def self_play(
    game: int,
    net: torch.nn.Module,
    game_ids: list[int],
    seed: int,
    iteration: int,
    settings: SelfPlaySettings,
) -> Games:
    """Play the games ``game_ids`` of ``iteration`` against itself, all at once.

    Game ``g``'s chance (root noise, sampled openings) comes from
    ``np.random.default_rng([seed, iteration, g])``. Games come back in the order of
    ``game_ids``.
    """
    evaluate = Evaluator(net)
    n_slots = max(1, min(settings.slots, len(game_ids)))
    batch = Batch.new(game, n_slots, settings.n_simulations)
    rows, cols = k.SHAPES[game]
    n_actions = k.N_ACTIONS[game]
    roots = np.zeros((n_slots, 2), np.int64)
    active = np.zeros(n_slots, np.bool_)
    slot_game = np.full(n_slots, -1, np.int64)
    rngs: dict[int, np.random.Generator] = {}
    records: dict[int, list] = {}
    finished: dict[int, tuple] = {}
    queue = list(game_ids)
    legal = np.zeros(n_actions, np.bool_)
    obs = np.zeros((2, rows, cols), np.float32)

    def start(b: int) -> None:
        g = queue.pop(0)
        slot_game[b] = g
        rngs[g] = np.random.default_rng([seed, iteration, g])
        records[g] = []
        roots[b] = 0
        active[b] = True

    for b in range(n_slots):
        if queue:
            start(b)
    while active.any():
        noise = [None] * n_slots
        for b in np.flatnonzero(active):
            k.game_status(game, roots[b, 0], roots[b, 1], legal)
            noise[b] = rngs[slot_game[b]].dirichlet(
                [settings.dirichlet_alpha] * int(legal.sum())
            )
        search(
            batch,
            roots,
            active,
            evaluate,
            settings.n_simulations,
            settings.c_puct,
            noise,
            settings.noise_fraction,
        )
        for b in np.flatnonzero(active):
            g = slot_game[b]
            rng = rngs[g]
            visits, _ = root_values(batch.trees, b)
            policy = visits / visits.sum()
            ply = len(records[g])
            if ply < settings.sample_moves:
                action = int(rng.choice(n_actions, p=policy))
            else:
                best = np.flatnonzero(visits == visits.max())
                action = int(best[0] if len(best) == 1 else rng.choice(best))
            k.game_observe(game, roots[b, 0], roots[b, 1], obs)
            k.game_status(game, roots[b, 0], roots[b, 1], legal)
            records[g].append(
                (obs.astype(np.int8), policy.astype(np.float32), legal.copy())
            )
            s0, s1 = k.game_apply(game, roots[b, 0], roots[b, 1], action)
            roots[b] = (s0, s1)
            done, value = k.game_status(game, s0, s1, legal)
            if done:
                # value is for the player to move now: -1 if the last mover won
                n = len(records[g])
                last_mover_result = -value
                # z for position i: +result if its mover is the last mover
                z = np.array(
                    [
                        last_mover_result
                        if (n - 1 - i) % 2 == 0
                        else -last_mover_result
                        for i in range(n)
                    ],
                    np.float32,
                )
                first = z[0]
                finished[g] = (records.pop(g), z, int(first), n)
                active[b] = False
                if queue:
                    start(b)
    rows_ = [finished[g] for g in game_ids]
    obs_all = np.stack([r[0] for recs, *_ in rows_ for r in recs])
    return Games(
        obs=obs_all,
        policy=np.stack([r[1] for recs, *_ in rows_ for r in recs]),
        legal=np.stack([r[2] for recs, *_ in rows_ for r in recs]),
        z=np.concatenate([z for _, z, _, _ in rows_]),
        results=np.array([res for _, _, res, _ in rows_], np.int8),
        lengths=np.array([n for *_, n in rows_], np.int16),
        positions_evaluated=evaluate.positions,
    )
