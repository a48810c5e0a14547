"""Cost of the 2048 PPO encoders: boards per CPU second through one PPO minibatch
step (forward, backward, Adam) of ``TileEncoder``, against the default encoder
measured in the same run.

The rows: the default (64 channels, no padding, 64x2x2 features), 64 channels with a
padded first convolution (64x4x4), the cited MaskablePPO agent's encoder (128
channels, padded: 128x4x4), and that one in torch's ``channels_last`` memory format.
The rounds interleave the encoders and each reports its median round
(:func:`benchmarks.common.interleaved`), so a busy machine slows all of them alike.
One torch thread, as in training.

Run: ``python -m benchmarks encoders [--batch 512] [--steps 15] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import Report, interleaved

ENCODERS = {
    "64 channels, padded": {"channels": 64, "padding": 1},
    "128 channels, padded (cited)": {"channels": 128, "padding": 1},
    "128 channels, padded, channels_last": {
        "channels": 128,
        "padding": 1,
        "channels_last": True,
    },
}
DEFAULT = {"channels": 64, "padding": 0}


def _stepper(kwargs: dict, batch: int):
    """A function that runs one minibatch step of the encoder on a fixed batch."""
    import gymnasium as gym
    import numpy as np
    import torch as th

    from playahead.train.encoders import TileEncoder

    kwargs = dict(kwargs)
    channels_last = kwargs.pop("channels_last", False)
    th.manual_seed(0)
    space = gym.spaces.Box(0, 17, (4, 4), np.int8)
    encoder = TileEncoder(space, **kwargs)
    boards = th.randint(0, 12, (batch, 4, 4)).float()
    if channels_last:
        encoder = encoder.to(memory_format=th.channels_last)
    optimiser = th.optim.Adam(encoder.parameters())

    def step():
        optimiser.zero_grad()
        encoder(boards).sum().backward()
        optimiser.step()

    return step


def measure(batch: int, steps: int, rounds: int) -> dict[str, float]:
    """Boards per CPU second of each encoder (median round), the default under
    ``"default"``."""
    import torch as th

    th.set_num_threads(1)
    configs = {"default": DEFAULT, **ENCODERS}

    def rate(kwargs: dict):
        step = _stepper(kwargs, batch)
        step()  # warm up

        def timed() -> float:
            start = time.process_time()
            for _ in range(steps):
                step()
            return batch * steps / max(time.process_time() - start, 1e-9)

        return timed

    medians = interleaved([rate(kw) for kw in configs.values()], rounds)
    return dict(zip(configs, medians, strict=True))


def main(argv: list[str] | None = None) -> Report:
    """Measure and return the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args([] if argv is None else argv)
    rates = measure(args.batch, args.steps, args.rounds)
    report = Report(
        f"2048 PPO encoders, boards / CPU s through a {args.batch}-board minibatch "
        f"step, median of {args.rounds} interleaved rounds"
    )
    for name in ENCODERS:
        report.add("2048", name, rates[name], "64 channels (default)", rates["default"])
    return report


if __name__ == "__main__":
    import sys

    main(sys.argv[1:]).print()
