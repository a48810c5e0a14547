"""A Threes net whose four preview codes share one set of weights per stage.

    python -m benchmarks.records.tie_preview RUN_DIR OUT_DIR [--single]

Copies the checkpoint of ``RUN_DIR`` (a staged Threes net, four preview codes per
stage: the next card is a 1, 2, 3 or a bonus card) to ``OUT_DIR`` with every code of a
stage set to the mean of that stage's codes 0-2 (the basic cards; the bonus code is
trained on few games). The result values an afterstate alike whatever card comes
next, as threes-meadow-ai's net does: a measure of what the preview index is worth
in a trained net (``benchmarks/results/ntuple-threes-staged/training-steps/README.md``).

``--single`` writes that mean as a net without the preview index (one code per stage,
``"preview": false``; the temporal-coherence accumulators, if the run has them,
averaged alike), which ``playahead train ntuple --resume`` trains on from the run's
counters: each weight then learns from every move of its stage, not a third of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from playahead.ntuple.model import load_model, read_sparse


def _basic_mean(array: np.ndarray) -> np.ndarray:
    """float32[P, S, 1, size]: the mean of each stage's codes 0-2."""
    p, codes, size = array.shape
    grouped = array.reshape(p, codes // 4, 4, size)
    return grouped[:, :, :3].astype(np.float64).mean(axis=2, keepdims=True)


def tie(run_dir: str, out_dir: str, single: bool = False) -> None:
    """Write the tied copy of ``run_dir``'s net to ``out_dir``."""
    model = load_model(run_dir, "Threes-v0")
    if model.n_base != 4:
        raise ValueError(f"{run_dir}: not a net with the preview index")
    p, codes, size = model.weights.shape
    mean = _basic_mean(model.weights).astype(np.float32)
    extra = {}
    if single:
        model.weights = np.ascontiguousarray(mean.reshape(p, codes // 4, size))
        model.meta = {**model.meta, "preview": False}
        for name in ("tc_e.npz", "tc_a.npz"):
            path = Path(run_dir) / name
            if path.is_file():
                acc = _basic_mean(read_sparse(path, (p, codes, size)))
                extra[name] = acc.astype(np.float32).reshape(p, codes // 4, size)
    else:
        tied = np.broadcast_to(mean, (p, codes // 4, 4, size))
        model.weights = np.ascontiguousarray(tied).reshape(p, codes, size)
        model.meta = {**model.meta, "tied_preview": True}
    model.save(out_dir, extra)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("out_dir")
    parser.add_argument(
        "--single", action="store_true", help="a net without the preview index"
    )
    args = parser.parse_args(argv)
    tie(args.run_dir, args.out_dir, args.single)
    what = "one code per stage" if args.single else "preview codes tied"
    print(f"{args.run_dir} -> {args.out_dir}: {what}")


if __name__ == "__main__":
    main()
