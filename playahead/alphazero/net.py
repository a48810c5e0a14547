"""The policy-value net of AlphaZero and its file format (no pickle).

:class:`PolicyValueNet` is a small residual convolutional net: the two observation
planes (own discs, other's discs) in, a logit per action and a value in ``[-1, 1]``
for the player to move out.

A net is saved as one ``.npz`` file read with ``allow_pickle=False``: an array per
parameter and buffer, and ``__meta__``, UTF-8 JSON with the game, the architecture
and the sha256 of the weights' bytes. :func:`load_net` checks that digest, so a
damaged file is refused with one line, as is a file of another game or shape.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np
import torch
from torch import nn

from playahead.alphazero.kernels import CONNECT_FOUR, N_ACTIONS, SHAPES, TIC_TAC_TOE

#: game code -> env id, and back
ENV_IDS = {CONNECT_FOUR: "ConnectFour-v0", TIC_TAC_TOE: "TicTacToe-v0"}
GAMES = {v: k for k, v in ENV_IDS.items()}
FORMAT = "playahead-alphazero-1"


class NetFileError(ValueError):
    """A net or checkpoint file that cannot be used (the message says why)."""


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class PolicyValueNet(nn.Module):
    """Residual policy-value net for a board of ``SHAPES[game]``.

    Args:
        game: :data:`~playahead.alphazero.kernels.CONNECT_FOUR` or ``TIC_TAC_TOE``.
        channels: filters of every convolution.
        blocks: residual blocks.

    ``forward(obs: float32[B, 2, rows, cols]) -> (logits: [B, A], value: [B])``.
    """

    def __init__(self, game: int, channels: int = 48, blocks: int = 4) -> None:
        super().__init__()
        self.game, self.channels, self.blocks = game, channels, blocks
        rows, cols = SHAPES[game]
        cells = rows * cols
        self.stem = nn.Sequential(
            nn.Conv2d(2, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        self.body = nn.Sequential(*[_Block(channels) for _ in range(blocks)])
        self.policy_conv = nn.Sequential(
            nn.Conv2d(channels, 4, 1, bias=False), nn.BatchNorm2d(4), nn.ReLU()
        )
        self.policy_fc = nn.Linear(4 * cells, N_ACTIONS[game])
        self.value_conv = nn.Sequential(
            nn.Conv2d(channels, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU()
        )
        self.value_fc = nn.Sequential(
            nn.Linear(2 * cells, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh()
        )

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.body(self.stem(obs))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        value = self.value_fc(self.value_conv(x).flatten(1)).squeeze(1)
        return logits, value

    def meta(self) -> dict:
        """The architecture, as saved with the weights."""
        return {
            "format": FORMAT,
            "env_id": ENV_IDS[self.game],
            "channels": self.channels,
            "blocks": self.blocks,
        }


def _weights_digest(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def net_bytes(net: PolicyValueNet, extra: dict | None = None) -> bytes:
    """``net`` as the bytes of its ``.npz`` file (``extra`` goes into the metadata)."""
    arrays = {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}
    meta = {**net.meta(), **(extra or {}), "weights_sha256": _weights_digest(arrays)}
    buf = io.BytesIO()
    np.savez(
        buf,
        __meta__=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8),
        **arrays,
    )
    return buf.getvalue()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader sees the old file or the new, whole."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save_net(net: PolicyValueNet, path: str | Path, extra: dict | None = None) -> Path:
    """Save ``net`` to ``path`` (``.npz``) atomically; returns the path."""
    path = Path(path)
    write_atomic(path, net_bytes(net, extra))
    return path


def _parse(data: bytes, name: str) -> tuple[dict, dict[str, np.ndarray]]:
    """``(metadata, arrays)`` of a net file's bytes, checked (``name`` for errors)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        meta = json.loads(arrays.pop("__meta__").tobytes().decode())
    except Exception as err:  # noqa: BLE001 - any damage gets the same one line
        raise NetFileError(
            f"{name} is not a readable AlphaZero net file ({type(err).__name__})"
        ) from None
    if meta.get("format") != FORMAT or meta.get("env_id") not in GAMES:
        raise NetFileError(f"{name} is not an AlphaZero net of playahead ({FORMAT})")
    if _weights_digest(arrays) != meta.get("weights_sha256"):
        raise NetFileError(
            f"{name} is damaged: its weights' sha256 does not match its metadata"
        )
    return meta, arrays


def read_net_file(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(metadata, arrays)`` of a net file, checked.

    Raises:
        NetFileError: missing, not a net file, or its weights' sha256 differs.
    """
    path = Path(path)
    if not path.is_file():
        raise NetFileError(f"no AlphaZero net at {path}")
    return _parse(path.read_bytes(), str(path))


def _build(meta: dict, arrays: dict[str, np.ndarray], name: str) -> PolicyValueNet:
    net = PolicyValueNet(GAMES[meta["env_id"]], meta["channels"], meta["blocks"])
    state = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}
    try:
        net.load_state_dict(state, strict=True)
    except RuntimeError:
        raise NetFileError(
            f"{name}: the weights do not fit a {meta['channels']}x{meta['blocks']} net"
        ) from None
    return net.eval()


def net_from_bytes(data: bytes, name: str = "the net") -> PolicyValueNet:
    """The net whose file bytes are ``data`` (as :func:`net_bytes` writes them),
    checked as :func:`load_net` checks a file."""
    return _build(*_parse(data, name), name)


def load_net(
    path: str | Path, env_id: str | None = None
) -> tuple[PolicyValueNet, dict]:
    """The net saved at ``path`` (in eval mode) and its metadata.

    Args:
        env_id: if given, the env the net must be for.

    Raises:
        NetFileError: see :func:`read_net_file`; a net for another env; weights that
            do not fit the architecture its metadata names.
    """
    meta, arrays = read_net_file(path)
    if env_id is not None and meta["env_id"] != env_id:
        raise NetFileError(f"{path} is a net for {meta['env_id']}, not for {env_id}")
    return _build(meta, arrays, str(path)), meta


def frozen(net: PolicyValueNet, batch: int) -> torch.jit.ScriptModule:
    """``net`` traced, frozen and optimized for inference by TorchScript: the same
    function (to float rounding) for any batch size, run by oneDNN, which evaluates
    more positions a CPU second than the eager net (``python
    benchmarks/speed/bench_alphazero.py`` prints the ratio in self-play).

    torch 2.x marks TorchScript deprecated, and its warnings are silenced here;
    ``torch.compile`` would need a C++ compiler and compile anew in every worker.

    ``batch``: the batch size of the example the trace runs on."""
    import warnings

    rows, cols = SHAPES[net.game]
    example = torch.zeros(batch, 2, rows, cols)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        traced = torch.jit.trace(net.eval(), example)
        return torch.jit.optimize_for_inference(torch.jit.freeze(traced))
