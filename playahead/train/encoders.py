"""Feature extractors that turn playahead observations into network inputs.

The encoding happens here, in torch, rather than in an observation wrapper: the envs
keep their compact observations (ranks, planes, counts), so a trained model plays on
``gym.make(id)`` as it is, and the replay buffer stores 16 bytes per 4x4 board
instead of 256 floats.

* :class:`TileEncoder` (2048, Threes): one-hot ranks, 16 planes of 4x4, then a small
  CNN (two 2x2 convolutions, the usual choice for 4x4 tile games) or one dense layer;
  for Threes the preview window (two ranks, one-hot) and the deck counts (one-hot
  0..4) join after the board part. Also accepts boards that are already one-hot,
  channel last (``(4, 4, 16)``, as gymnasium-2048 gives them).
* :class:`PlanesCNN` (Connect Four, tic-tac-toe): ``(C, H, W)`` 0/1 planes, two 3x3
  same-padding convolutions and a dense layer.
* :class:`IntOneHot` (Nim, Chips): every entry of a small non-negative integer vector
  one-hot, then a dense layer (the right move in Nim depends on the pile modulo k+1,
  which a one-hot input exposes and a raw count hides).

Use them through ``policy_kwargs``, e.g. in ``hyperparams.yml``::

    policy_kwargs:
      features_extractor_class: TileEncoder
      features_extractor_kwargs: {arch: cnn, channels: 64, features_dim: 256}
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch as th
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

N_RANKS = 16  # ranks 0..15 of a packed 4x4 board
DECK_VALUES = 5  # 0..4 cards of each kind left


def _one_hot_planes(ranks: th.Tensor, depth: int) -> th.Tensor:
    """``float[B, H, W]`` ranks -> ``float[B, depth, H, W]`` one-hot planes."""
    idx = ranks.long().clamp_(0, depth - 1)
    return F.one_hot(idx, depth).permute(0, 3, 1, 2).float()


class TileEncoder(BaseFeaturesExtractor):
    """One-hot tile boards (+ Threes' preview and deck) -> ``features_dim`` features.

    Args:
        observation_space: ``Box((4, 4))`` ranks (2048), ``Box((4, 4, 16))`` one-hot
            boards, or the Threes ``Dict`` with ``board`` ``(4, 4)``, ``next`` ``(2,)``
            ranks and ``deck`` ``(3,)`` counts.
        arch: ``"cnn"`` (default: Conv2d(16, c, 2) -> ReLU -> Conv2d(c, c, 2) -> ReLU)
            or ``"mlp"`` (the 256 one-hot inputs straight into the dense layer).
        channels: convolution channels ``c``.
        features_dim: size of the output (after a dense layer and ReLU).
        padding: zero padding of the first convolution (0 or 1). With 1 the second
            convolution still sees the edge cells in every position: a 4x4 board gives
            ``c x 4 x 4`` features instead of ``c x 2 x 2`` (the encoder of the 2048
            MaskablePPO agent the issue cites: ``channels=128, padding=1``).
    """

    def __init__(
        self,
        observation_space: gym.Space,
        arch: str = "cnn",
        channels: int = 64,
        features_dim: int = 256,
        padding: int = 0,
    ):
        super().__init__(observation_space, features_dim)
        if arch not in ("cnn", "mlp"):
            raise ValueError(f"TileEncoder arch must be 'cnn' or 'mlp', got {arch!r}")
        if padding not in (0, 1) or isinstance(padding, bool):
            raise ValueError(f"TileEncoder padding must be 0 or 1, got {padding!r}")
        board = observation_space
        self.is_dict = isinstance(observation_space, gym.spaces.Dict)
        if self.is_dict:
            missing = {"board", "next", "deck"} - set(observation_space.spaces)
            if missing:
                raise ValueError(f"TileEncoder: Dict observation lacks {missing}")
            board = observation_space["board"]
        shape = board.shape
        self.one_hot_input = len(shape) == 3
        if len(shape) not in (2, 3):
            raise ValueError(
                f"TileEncoder expects (H, W) or (H, W, C) boards, got {shape}"
            )
        height, width = shape[:2]
        self.depth = shape[2] if self.one_hot_input else N_RANKS
        self.arch = arch
        if arch == "cnn":
            self.board_net = nn.Sequential(
                nn.Conv2d(self.depth, channels, 2, padding=padding),
                nn.ReLU(),
                nn.Conv2d(channels, channels, 2),
                nn.ReLU(),
                nn.Flatten(),
            )
            grow = 2 * padding - 2
            board_out = channels * max(height + grow, 1) * max(width + grow, 1)
        else:
            self.board_net = nn.Flatten()
            board_out = self.depth * height * width
        extra = 2 * N_RANKS + 3 * DECK_VALUES if self.is_dict else 0
        self.head = nn.Sequential(nn.Linear(board_out + extra, features_dim), nn.ReLU())

    def forward(self, observations) -> th.Tensor:
        board = observations["board"] if self.is_dict else observations
        if self.one_hot_input:
            planes = board.float().permute(0, 3, 1, 2)
        else:
            planes = _one_hot_planes(board, self.depth)
        parts = [self.board_net(planes)]
        if self.is_dict:
            nxt = observations["next"].long().clamp(0, N_RANKS - 1)
            deck = observations["deck"].long().clamp(0, DECK_VALUES - 1)
            parts.append(F.one_hot(nxt, N_RANKS).flatten(1).float())
            parts.append(F.one_hot(deck, DECK_VALUES).flatten(1).float())
        return self.head(th.cat(parts, dim=1))


class PlanesCNN(BaseFeaturesExtractor):
    """``(C, H, W)`` board planes -> two 3x3 convolutions -> ``features_dim``.

    Args:
        observation_space: ``Box((C, H, W))`` with values in {0, 1} (playahead's
            board games: own pieces, then the opponent's, from the mover's side).
        channels: convolution channels.
        features_dim: size of the output (after a dense layer and ReLU).
    """

    def __init__(
        self, observation_space: gym.Space, channels: int = 64, features_dim: int = 128
    ):
        super().__init__(observation_space, features_dim)
        shape = getattr(observation_space, "shape", None)
        if shape is None or len(shape) != 3:
            raise ValueError(
                f"PlanesCNN expects a (C, H, W) Box, got {observation_space}"
            )
        c, h, w = shape
        self.net = nn.Sequential(
            nn.Conv2d(c, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(channels * h * w, features_dim),
            nn.ReLU(),
        )

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.net(observations.float())


class IntOneHot(BaseFeaturesExtractor):
    """A vector of small non-negative integers, each one-hot -> ``features_dim``.

    Args:
        observation_space: ``Box(0, high, (n,))`` of integers with ``high <= 255``.
        features_dim: size of the output (after a dense layer and ReLU).
    """

    def __init__(self, observation_space: gym.Space, features_dim: int = 64):
        super().__init__(observation_space, features_dim)
        space = observation_space
        if (
            not isinstance(space, gym.spaces.Box)
            or len(space.shape) != 1
            or not np.issubdtype(space.dtype, np.integer)
            or np.any(space.low < 0)
            or np.any(space.high > 255)
        ):
            raise ValueError(
                "IntOneHot expects a 1-D integer Box with values in 0..255, got "
                f"{observation_space}"
            )
        self.depth = int(space.high.max()) + 1
        self.head = nn.Sequential(
            nn.Linear(space.shape[0] * self.depth, features_dim), nn.ReLU()
        )

    def forward(self, observations: th.Tensor) -> th.Tensor:
        idx = observations.long().clamp(0, self.depth - 1)
        return self.head(F.one_hot(idx, self.depth).flatten(1).float())


EXTRACTORS: dict[str, type[BaseFeaturesExtractor]] = {
    "TileEncoder": TileEncoder,
    "PlanesCNN": PlanesCNN,
    "IntOneHot": IntOneHot,
}
