"""Vectorized 2048 and Threes: all boards step in one compiled call.

``gym.make_vec("2048-v0", num_envs=1024, vectorization_mode="vector_entry_point")``
returns a :class:`Twenty48VectorEnv`. It follows Gymnasium's ``VectorEnv`` API with
next-step autoreset (Gymnasium's default): the step after an episode ends resets that
board, ignores its action and returns reward 0. Illegal moves are no-ops with reward 0;
as in the single envs, ``max_noop_moves`` (default 100; None: never) no-ops in a row on
a board truncate its episode (``infos["stalled"]`` is True for it on that step).
``autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP`` (or ``"NextStep"``) may be given
to ``gym.make_vec``; the other modes are refused.
``reset(options={"reset_mask": mask})`` resets only the boards where ``mask`` is True.
``infos`` holds ``score``, ``max_tile``, ``stalled`` and ``action_mask``
(``bool[num_envs, 4]``, also returned by :meth:`action_masks`).

All boards draw chance from the vector env's one generator, so a vector env is
reproducible from its seed but does not replay the same games as separate envs.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from playahead.envs.base import check_max_noop_moves
from playahead.envs.tiles import DEFAULT_MAX_NOOP_MOVES
from playahead.games import threes, twenty48
from playahead.games._board64 import max_rank, unpack


@nb.njit(cache=True)
def _unpack_all(boards, out):
    for i in range(boards.shape[0]):
        out[i] = unpack(boards[i])


@nb.njit(cache=True)
def _twenty48_step(
    boards, scores, done, actions, rng, moves, rewards, out_r, out_term, masks, top
):
    for i in range(boards.shape[0]):
        if done[i]:
            boards[i] = twenty48.new_game(rng)
            scores[i] = 0
            out_r[i] = 0.0
        else:
            after, r = twenty48.move(boards[i], actions[i], moves, rewards)
            if r >= 0:
                boards[i] = twenty48.spawn(after, rng)
                scores[i] += r
                out_r[i] = r
            else:
                out_r[i] = 0.0
        masks[i] = twenty48.legal_mask(boards[i], moves, rewards)
        done[i] = not masks[i].any()
        out_term[i] = done[i]
        top[i] = max_rank(boards[i])


@nb.njit(cache=True)
def _threes_step(
    boards,
    cards,
    done,
    actions,
    rng,
    moves,
    rewards,
    row_scores,
    preview,
    out_r,
    out_term,
    masks,
    top,
    scores,
):
    for i in range(boards.shape[0]):
        if done[i]:
            boards[i], cards[i] = threes.new_game(rng, preview)
            out_r[i] = 0.0
        else:
            b, c, r = threes.turn(
                boards[i], cards[i], actions[i], rng, moves, rewards, preview
            )
            boards[i], cards[i] = b, c
            out_r[i] = max(r, 0)
        masks[i] = threes.legal_mask(boards[i], moves, rewards)
        done[i] = not masks[i].any()
        out_term[i] = done[i]
        top[i] = max_rank(boards[i])
        scores[i] = threes.score(boards[i], row_scores)


@nb.njit(cache=True)
def _twenty48_reset(which, boards, scores, done, masks, top, rng, moves, rewards):
    """New games on the boards where ``which[i]``; the others are untouched."""
    for i in range(boards.shape[0]):
        if which[i]:
            boards[i] = twenty48.new_game(rng)
            scores[i] = 0
            masks[i] = twenty48.legal_mask(boards[i], moves, rewards)
            done[i] = False
            top[i] = max_rank(boards[i])


@nb.njit(cache=True)
def _threes_reset(
    which,
    boards,
    cards,
    scores,
    done,
    masks,
    top,
    rng,
    moves,
    rewards,
    row_scores,
    preview,
):
    """New Threes games on the boards where ``which[i]``; the others are untouched."""
    for i in range(boards.shape[0]):
        if which[i]:
            boards[i], cards[i] = threes.new_game(rng, preview)
            masks[i] = threes.legal_mask(boards[i], moves, rewards)
            done[i] = False
            top[i] = max_rank(boards[i])
            scores[i] = threes.score(boards[i], row_scores)


class _TileVectorEnv(VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, single_observation_space, max_noop_moves):
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.max_noop_moves = check_max_noop_moves(max_noop_moves)
        self.num_envs = int(num_envs)
        self.single_action_space = spaces.Discrete(4)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, 4))
        self.single_observation_space = single_observation_space
        self.observation_space = batch_space(single_observation_space, self.num_envs)
        self._boards = np.zeros(self.num_envs, dtype=np.uint64)
        self._done = np.ones(self.num_envs, dtype=np.bool_)
        self._masks = np.zeros((self.num_envs, 4), dtype=np.bool_)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terms = np.zeros(self.num_envs, dtype=np.bool_)
        self._ranks = np.zeros((self.num_envs, 4, 4), dtype=np.uint8)
        self._top = np.zeros(self.num_envs, dtype=np.int64)
        self._scores = np.zeros(self.num_envs, dtype=np.int64)
        self._noops = np.zeros(self.num_envs, dtype=np.int64)  # no-ops in a row
        self._stalled = np.zeros(self.num_envs, dtype=np.bool_)

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 4]`` legal moves of every board."""
        return self._masks.copy()

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integers in 0..3, got shape {a.shape}"
                f" and dtype {a.dtype}"
            )
        if a.size and (a.min() < 0 or a.max() > 3):
            raise ValueError("actions must be in 0..3 (0 up, 1 right, 2 down, 3 left)")
        return a.astype(np.int64)

    def reset(self, *, seed=None, options=None):
        """Reset every board, or with ``options={"reset_mask": bool[num_envs]}`` only
        those (Gymnasium's partial-reset convention; the others keep their games)."""
        which = None if options is None else options.get("reset_mask")
        if which is None:
            which = np.ones(self.num_envs, dtype=np.bool_)
        else:
            which = np.asarray(which)
            if which.shape != (self.num_envs,) or which.dtype != np.bool_:
                raise ValueError(
                    f"reset_mask must be bool[{self.num_envs}], got shape "
                    f"{which.shape} and dtype {which.dtype}"
                )
        if seed is not None or options is None or "reset_mask" not in options:
            super().reset(seed=seed)
        self._reset_kernel(which)
        self._noops[which] = 0
        self._stalled[which] = False
        return self._obs(), self._infos()

    def step(self, actions):
        a = self._check_actions(actions)
        # a no-op: a board still in play (not reset by this step) and an illegal move
        noop = ~self._done & ~self._masks[np.arange(self.num_envs), a]
        self._step_kernel(a)
        self._noops = np.where(noop, self._noops + 1, 0)
        if self.max_noop_moves is None:
            self._stalled[:] = False
        else:
            np.greater_equal(self._noops, self.max_noop_moves, out=self._stalled)
            self._done |= self._stalled  # next-step autoreset of the stalled boards
        return (
            self._obs(),
            self._rewards.copy(),
            self._terms.copy(),
            self._stalled.copy(),
            self._infos(),
        )


def _check_autoreset_mode(value) -> None:
    """Accept next-step autoreset, the one mode the kernels implement (the enum or
    its string, as Gymnasium's ``SyncVectorEnv`` takes them); refuse the others."""
    try:
        mode = AutoresetMode(value)
    except ValueError:
        mode = None
    if mode is not AutoresetMode.NEXT_STEP:
        got = str(mode) if mode is not None else repr(value)
        raise ValueError(
            f"the compiled vector envs autoreset on the next step only, not "
            f"autoreset_mode={got}: accepted is gym.vector.AutoresetMode.NEXT_STEP (or "
            "'NextStep'); use gym.make_vec(..., vectorization_mode='sync', "
            "vector_kwargs={'autoreset_mode': ...}) for SameStep or Disabled"
        )


def _check_options(kwargs: dict) -> None:
    """Refuse what the compiled vector envs do not do, rather than drop it."""
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if "autoreset_mode" in kwargs:
        _check_autoreset_mode(kwargs.pop("autoreset_mode"))
    if kwargs.pop("illegal_action", "noop") != "noop":
        raise ValueError(
            "the compiled vector envs play illegal moves as no-ops only "
            "(illegal_action='noop', truncated after max_noop_moves in a row); use "
            "gym.make_vec(..., vectorization_mode='sync') for 'raise' or 'end'"
        )
    if "render_mode" in kwargs:
        raise ValueError(
            f"the compiled vector envs do not render (render_mode="
            f"{kwargs['render_mode']!r}); use gym.make_vec(..., vectorization_mode="
            "'sync') for rendered copies, or render one env from gym.make"
        )
    if kwargs:
        raise ValueError(
            f"the compiled vector envs take no option {', '.join(map(repr, kwargs))}; "
            "use gym.make_vec(..., vectorization_mode='sync') for single-env options"
        )


class Twenty48VectorEnv(_TileVectorEnv):
    """``num_envs`` games of 2048 stepped together (see the module docstring)."""

    def __init__(
        self,
        num_envs: int = 8,
        max_noop_moves: int | None = DEFAULT_MAX_NOOP_MOVES,
        **kwargs,
    ):
        _check_options(kwargs)
        board = spaces.Box(0, 15, (4, 4), dtype=np.uint8)
        super().__init__(num_envs, board, max_noop_moves)

    def _reset_kernel(self, which):
        _twenty48_reset(
            which,
            self._boards,
            self._scores,
            self._done,
            self._masks,
            self._top,
            self.np_random,
            *twenty48.TABLES,
        )

    def _step_kernel(self, actions):
        _twenty48_step(
            self._boards,
            self._scores,
            self._done,
            actions,
            self.np_random,
            *twenty48.TABLES,
            self._rewards,
            self._terms,
            self._masks,
            self._top,
        )

    def _obs(self):
        _unpack_all(self._boards, self._ranks)
        return self._ranks.copy()

    def _infos(self):
        tiles = np.where(self._top > 0, np.left_shift(1, self._top), 0)
        return {
            "score": self._scores.copy(),
            "max_tile": tiles,
            "stalled": self._stalled.copy(),
            "action_mask": self._masks.copy(),
        }


class ThreesVectorEnv(_TileVectorEnv):
    """``num_envs`` games of Threes stepped together (see the module docstring)."""

    def __init__(
        self,
        num_envs: int = 8,
        bonus_preview: str = "window",
        merge_6144: bool = True,
        max_noop_moves: int | None = DEFAULT_MAX_NOOP_MOVES,
        **kwargs,
    ):
        _check_options(kwargs)
        if bonus_preview not in threes.BONUS_PREVIEWS:
            raise ValueError(
                f"bonus_preview={bonus_preview!r} is not one of "
                f"{sorted(threes.BONUS_PREVIEWS)}"
            )
        obs = spaces.Dict(
            {
                "board": spaces.Box(0, 15, (4, 4), dtype=np.uint8),
                "next": spaces.Box(0, 15, (2,), dtype=np.uint8),
                "deck": spaces.Box(0, 4, (3,), dtype=np.uint8),
            }
        )
        super().__init__(num_envs, obs, max_noop_moves)
        self._preview = threes.BONUS_PREVIEWS[bonus_preview]
        self._tables = threes.tables(merge_6144)
        self._cards = np.zeros(self.num_envs, dtype=np.int64)

    def _reset_kernel(self, which):
        _threes_reset(
            which,
            self._boards,
            self._cards,
            self._scores,
            self._done,
            self._masks,
            self._top,
            self.np_random,
            *self._tables,
            self._preview,
        )

    def _step_kernel(self, actions):
        _threes_step(
            self._boards,
            self._cards,
            self._done,
            actions,
            self.np_random,
            *self._tables,
            self._preview,
            self._rewards,
            self._terms,
            self._masks,
            self._top,
            self._scores,
        )

    def _obs(self):
        _unpack_all(self._boards, self._ranks)
        ones, twos, three, lo, hi = threes.unpack_cards(self._cards)
        nxt = np.stack([lo, hi], axis=1).astype(np.uint8)
        deck = np.stack([ones, twos, three], axis=1).astype(np.uint8)
        return {"board": self._ranks.copy(), "next": nxt, "deck": deck}

    def _infos(self):
        tiles = np.array(threes.card_values(), dtype=np.int64)[self._top]
        return {
            "score": self._scores.copy(),
            "max_tile": tiles,
            "stalled": self._stalled.copy(),
            "action_mask": self._masks.copy(),
        }
