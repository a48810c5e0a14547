"""``python -m benchmarks.records.tie_preview``: a Threes net whose preview codes share
their stage's weights."""

import numpy as np

from benchmarks.records.tie_preview import main
from playahead.ntuple.model import load_model
from playahead.ntuple.train import train_ntuple


def _train(out, games, **kw):
    return train_ntuple(
        "Threes-v0",
        games,
        out,
        eval_every=games,
        eval_games=2,
        progress=False,
        tensorboard=False,
        **kw,
    )


def test_every_code_of_a_stage_is_the_mean_of_its_basic_codes(tmp_path, capsys):
    run = _train(tmp_path / "run", 40, patterns=["0123", "4567"], stages="48")
    main([str(run), str(tmp_path / "tied")])
    assert "preview codes tied" in capsys.readouterr().out
    before = load_model(run).weights.reshape(2, 2, 4, -1).astype(np.float64)
    tied = load_model(tmp_path / "tied")
    assert tied.meta["tied_preview"] and tied.meta["games"] == 40
    after = tied.weights.reshape(2, 2, 4, -1)
    want = before[:, :, :3].mean(axis=2).astype(np.float32)
    assert not np.array_equal(before[:, :, 0], before[:, :, 1])  # trained apart
    for code in range(4):
        np.testing.assert_array_equal(after[:, :, code], want)


def test_single_writes_a_net_without_the_preview_index_that_trains_on(tmp_path):
    run = _train(tmp_path / "run", 30, patterns=["0123", "4567"], stages="48", tc=True)
    main([str(run), str(tmp_path / "one"), "--single"])
    before = load_model(run).weights.reshape(2, 2, 4, -1).astype(np.float64)
    one = load_model(tmp_path / "one")
    assert one.n_base == 1 and one.meta["preview"] is False
    want = before[:, :, :3].mean(axis=2).astype(np.float32)
    np.testing.assert_array_equal(one.weights, want)
    trained = load_model(_train(tmp_path / "one", 40, resume=True))
    assert trained.meta["games"] == 40 and trained.meta["preview"] is False
    assert not np.array_equal(trained.weights, one.weights)
