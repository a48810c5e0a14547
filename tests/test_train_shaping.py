"""Reward shaping of the tile games: the vectorised terms against a plain-Python
reference, the final board of a finished game, the score left alone, clear errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("stable_baselines3")

from playahead.train import train  # noqa: E402
from playahead.train.shaping import (  # noqa: E402
    ShapedReward,
    check_shaping,
    monotonicity,
    shaped,
)
from playahead.train.vec import make_vec_env  # noqa: E402


def reference(reward, board, merge, empty, mono, merge2=0.0, survival=0.0):
    """One shaped reward, written out line by line."""
    lines = [list(row) for row in board] + [
        list(col) for col in zip(*board, strict=True)
    ]
    ordered = []
    for line in lines:
        up = sum(line[j] <= line[j + 1] for j in range(3))
        down = sum(line[j] >= line[j + 1] for j in range(3))
        ordered.append(max(up, down) / 3)
    value = merge * (math.log2(reward) if reward > 0 else 0.0)
    value += merge2 * (math.log2(reward) ** 2 if reward > 0 else 0.0)
    value += empty * sum(c == 0 for row in board for c in row) / 16
    value += mono * sum(ordered) / 8
    return value + survival


boards = st.lists(st.integers(0, 15), min_size=16, max_size=16)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0, 4, 8, 36, 1024]), boards), min_size=1),
    st.tuples(*[st.floats(-2, 2, allow_nan=False)] * 5),
)
def test_shaped_matches_the_reference(batch, w):
    rewards = np.array([r for r, _ in batch], dtype=np.float32)
    cells = np.array([b for _, b in batch]).reshape(-1, 4, 4)
    weights = dict(
        zip(("merge", "empty", "monotonic", "merge2", "survival"), w, strict=True)
    )
    got = shaped(rewards, cells, weights)
    for i, (r, b) in enumerate(batch):
        board = np.array(b).reshape(4, 4).tolist()
        assert got[i] == pytest.approx(reference(r, board, *w), abs=1e-4)


def test_monotonicity_of_known_boards():
    sorted_board = np.arange(16).reshape(1, 4, 4)
    assert monotonicity(sorted_board)[0] == 1.0
    zigzag = np.array([[1, 3, 1, 3]] * 4).reshape(1, 4, 4)  # rows 2 of 3, columns 3
    assert monotonicity(zigzag)[0] == pytest.approx((4 * 2 / 3 + 4 * 1) / 8)


def test_finished_games_are_shaped_on_their_last_board_and_score_is_untouched():
    venv = ShapedReward(
        make_vec_env("2048-v0", 8, seed=0),
        {"empty": 1.0} | dict(merge=0.0, merge2=0.0, monotonic=0.0, survival=0.0),
    )
    venv.reset()
    rng = np.random.default_rng(0)
    seen_end = False
    for _ in range(3000):
        masks = np.array(venv.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        for i in range(8):
            board = infos[i]["terminal_observation"] if dones[i] else obs[i]
            assert rewards[i] == pytest.approx((np.asarray(board) == 0).sum() / 16)
            if dones[i]:
                seen_end = True
                assert infos[i]["score"] >= 0  # the game's own score is still there
        if seen_end:
            break
    assert seen_end
    venv.close()


@pytest.mark.parametrize(
    "options, env_id, message",
    [
        ({"merge": 1.0}, "TicTacToe-v0", "tile games"),
        ({"merg": 1.0}, "2048-v0", "unknown shaping term 'merg'; accepted: merge"),
        ({"merge": "big"}, "2048-v0", "must be a number"),
        ({"merge": float("inf")}, "2048-v0", "finite"),
        ([1, 2], "2048-v0", "must map some of merge, merge2, empty"),
    ],
)
def test_bad_shaping_is_refused_clearly(options, env_id, message):
    with pytest.raises(ValueError, match=message):
        check_shaping(options, env_id)


def test_a_run_with_bad_shaping_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match="unknown shaping term"):
        train(
            "ppo",
            "2048-v0",
            steps=64,
            out=tmp_path / "run",
            hp={"shaping": {"bonus": 1.0}},
        )
    assert not (tmp_path / "run").exists()


def test_a_shaped_run_trains_from_the_command_line_override(tmp_path):
    import json

    from playahead.train.config import parse_overrides
    from tests.helpers.train import small_hp

    hp = small_hp("ppo", "Threes-v0") | parse_overrides(
        ["shaping.merge=1.0", "shaping.monotonic=0.5"]
    )
    out = tmp_path / "run"
    train("ppo", "Threes-v0", steps=256, seed=0, out=out, n_envs=4, hp=hp)
    saved = json.loads((out / "config.json").read_text())["hyperparams"]
    assert saved["shaping"] == {"merge": 1.0, "monotonic": 0.5}
    assert (out / "model.zip").is_file()
