"""A Threes net whose four preview codes share one set of weights per stage.

    python -m benchmarks.tie_preview RUN_DIR OUT_DIR

Copies the checkpoint of ``RUN_DIR`` (a staged Threes net, four preview codes per
stage: the next card is a 1, 2, 3 or a bonus card) to ``OUT_DIR`` with every code of a
stage set to the mean of that stage's codes 0-2 (the basic cards; the bonus code is
trained on few games). The result values an afterstate alike whatever card comes
next, as threes-meadow-ai's net does, while keeping the format, so expectimax and the
trainer read it as any other net: a measure of what the preview index is worth in a
trained net (``benchmarks/results/ntuple-threes-v2/phase3/README.md``).
"""

from __future__ import annotations

import argparse

import numpy as np

from playahead.ntuple.model import load_model


def tie(run_dir: str, out_dir: str) -> None:
    """Write the tied copy of ``run_dir``'s net to ``out_dir``."""
    model = load_model(run_dir, "Threes-v0")
    p, codes, size = model.weights.shape
    grouped = model.weights.reshape(p, codes // 4, 4, size)
    basic = grouped[:, :, :3].astype(np.float64).mean(axis=2, keepdims=True)
    tied = np.broadcast_to(basic.astype(np.float32), grouped.shape)
    model.weights = np.ascontiguousarray(tied).reshape(p, codes, size)
    model.meta = {**model.meta, "tied_preview": True}
    model.save(out_dir)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("out_dir")
    args = parser.parse_args(argv)
    tie(args.run_dir, args.out_dir)
    print(f"{args.run_dir} -> {args.out_dir}: preview codes tied")


if __name__ == "__main__":
    main()
