"""Trained models as agents, model files that must be refused, self-play opponents,
and the feature extractors."""

from __future__ import annotations

import os
import time
import zipfile

import gymnasium as gym
import numpy as np
import pytest

th = pytest.importorskip("torch")

import playahead  # noqa: E402
from playahead.train import train  # noqa: E402
from playahead.train.agents import SnapshotOpponent  # noqa: E402
from playahead.train.encoders import IntOneHot, PlanesCNN, TileEncoder  # noqa: E402
from tests.helpers.train import TINY  # noqa: E402


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One tiny PPO and one tiny DQN run on 2048 (plus one on TicTacToe)."""
    root = tmp_path_factory.mktemp("runs")
    train(
        "ppo",
        "2048-v0",
        steps=128,
        out=root / "ppo",
        n_envs=4,
        hp={"n_steps": 32, "batch_size": 64, **TINY},
        tensorboard=False,
    )
    train(
        "dqn",
        "2048-v0",
        steps=128,
        out=root / "dqn",
        n_envs=4,
        hp={"learning_starts": 64, "buffer_size": 1024, **TINY},
        tensorboard=False,
    )
    train(
        "ppo",
        "TicTacToe-v0",
        steps=128,
        out=root / "ttt",
        n_envs=4,
        hp={"n_steps": 32, "batch_size": 64},
        tensorboard=False,
    )
    return root


def test_deterministic_agent_plays_a_whole_game_legally(runs):
    agent = playahead.make_agent(f"ppo:path={runs / 'ppo' / 'model.zip'}")
    env = gym.make("playahead/2048-v0", illegal_action="raise")
    env.reset(seed=1)
    first = agent.act(env)
    assert agent.act(env) == first  # deterministic by default
    done, moves = False, 0
    while not done:
        _, _, done, _, _ = env.step(agent.act(env))
        moves += 1
    assert moves > 20


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_stochastic_agent_repeats_itself_with_the_same_seed(runs, algo):
    def moves(seed):
        agent = playahead.make_agent(
            f"{algo}:path={runs / algo},deterministic=false,seed={seed}"
        )
        env = gym.make("2048-v0", illegal_action="raise")
        env.reset(seed=0)
        out = []
        for _ in range(40):
            out.append(agent.act(env))
            if env.step(out[-1])[2]:
                break
        return out

    assert moves(3) == moves(3)


@pytest.mark.parametrize(
    ("algo", "run", "env_id", "kind"),
    [("ppo", "ttt", "TicTacToe-v0", "policy"), ("dqn", "dqn", "2048-v0", "q")],
)
def test_analysis_values_legal_actions_only(runs, algo, run, env_id, kind):
    env = gym.make(env_id, **({"opponent": None} if env_id == "TicTacToe-v0" else {}))
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    agent = playahead.make_agent(f"{algo}:path={runs / run}")
    analysis = agent.analyze(env)
    mask = env.unwrapped.action_masks()
    assert not mask.all()  # some action is illegal, and gets no value
    assert analysis.value_kind == kind
    assert np.array_equal(np.isnan(analysis.values), ~mask)
    assert analysis.action == agent.act(env)


def test_missing_corrupt_and_mismatched_models_are_refused(runs, tmp_path):
    with pytest.raises(FileNotFoundError, match="no model"):
        playahead.make_agent(f"ppo:path={tmp_path / 'nothing.zip'}")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(os.urandom(300))
    with pytest.raises(ValueError, match="not a readable model"):
        playahead.make_agent(f"ppo:path={junk}")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("hello.txt", "not a model")
    with pytest.raises(ValueError, match="not a Stable-Baselines3 model"):
        playahead.make_agent(f"dqn:path={other}")
    with pytest.raises(ValueError, match="is a dqn model"):
        playahead.make_agent(f"ppo:path={runs / 'dqn'}")
    with pytest.raises(ValueError, match="needs a model"):
        playahead.make_agent("ppo")
    agent = playahead.make_agent(f"ppo:path={runs / 'ppo'}")
    threes = gym.make("Threes-v0")
    threes.reset(seed=0)
    with pytest.raises(ValueError, match="trained on 2048-v0, not Threes-v0"):
        agent.act(threes)
    bare = playahead.envs.tiles.ThreesEnv()  # no spec: the spaces still differ
    bare.reset(seed=0)
    with pytest.raises(ValueError, match="expects observation_space"):
        agent.act(bare)


def test_trained_agent_works_as_a_two_player_opponent(runs):
    env = gym.make(
        "TicTacToe-v0", opponent=f"ppo:path={runs / 'ttt'}", illegal_action="raise"
    )
    rng = np.random.default_rng(0)
    boards = set()
    for seed in range(5):
        env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            _, _, done, _, _ = env.step(int(rng.choice(legal)))
        board = env.unwrapped.board
        assert (board == 2).sum() in ((board == 1).sum(), (board == 1).sum() - 1)
        boards.add(board.tobytes())
    assert len(boards) > 1  # the games differ


def test_snapshot_opponent_reloads_when_the_snapshot_changes(runs, tmp_path):
    snapshot = tmp_path / "opponent.zip"
    opponent = SnapshotOpponent(snapshot, "ppo", seed=0)
    env = gym.make("TicTacToe-v0", opponent=opponent, illegal_action="raise")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert opponent.loads == 0  # no snapshot yet: random legal moves
    snapshot.write_bytes((runs / "ttt" / "model.zip").read_bytes())
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert opponent.loads == 1
    env.reset(seed=2)
    assert opponent.loads == 1  # unchanged file: no reload
    snapshot.write_bytes((runs / "ttt" / "model.zip").read_bytes())
    os.utime(snapshot, ns=(time.time_ns(), time.time_ns() + 10**9))
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert opponent.loads == 2


def test_self_play_training_snapshots_the_learner(tmp_path, runs):
    out = tmp_path / "sp"
    train(
        "ppo",
        "TicTacToe-v0",
        steps=256,
        out=out,
        n_envs=4,
        self_play_every=64,
        hp={"n_steps": 16, "batch_size": 64},
        tensorboard=False,
    )
    assert (out / "selfplay" / "opponent.zip").is_file()
    agent = playahead.make_agent(f"ppo:path={out / 'selfplay' / 'opponent.zip'}")
    assert agent.model.num_timesteps >= 192


def test_tile_encoder_reads_ranks_and_one_hot_boards_alike():
    ranks_space = gym.spaces.Box(0, 15, (4, 4), np.uint8)
    hot_space = gym.spaces.Box(0, 1, (4, 4, 16), np.uint8)
    for arch in ("cnn", "mlp"):
        th.manual_seed(0)
        from_ranks = TileEncoder(ranks_space, arch=arch, channels=8, features_dim=12)
        th.manual_seed(0)
        from_hot = TileEncoder(hot_space, arch=arch, channels=8, features_dim=12)
        ranks = th.randint(0, 16, (5, 4, 4))
        hot = th.nn.functional.one_hot(ranks, 16).float()
        assert th.allclose(from_ranks(ranks.float()), from_hot(hot))


def test_tile_encoder_padding_keeps_the_edges():
    """padding=1 (the cited agent's encoder): 4x4 positions after both convolutions
    instead of 2x2, the dense layer sized to match, and bad values refused."""
    space = gym.spaces.Box(0, 15, (4, 4), np.uint8)
    th.manual_seed(0)
    padded = TileEncoder(space, channels=8, features_dim=12, padding=1)
    assert padded.board_net(th.zeros(1, 16, 4, 4)).shape == (1, 8 * 4 * 4)
    assert TileEncoder(space, channels=8).board_net(th.zeros(1, 16, 4, 4)).shape == (
        1,
        8 * 2 * 2,
    )
    a, b = th.zeros(1, 4, 4), th.zeros(1, 4, 4)
    b[0, 0, 0] = 5.0
    assert not th.allclose(padded(a), padded(b))
    for bad in (2, -1, True):
        with pytest.raises(ValueError, match="padding must be 0 or 1"):
            TileEncoder(space, padding=bad)


def test_tile_encoder_uses_threes_preview_and_deck():
    space = gym.make("Threes-v0").observation_space
    enc = TileEncoder(space, channels=8, features_dim=12)
    obs = {
        "board": th.zeros(2, 4, 4),
        "next": th.tensor([[1.0, 1.0], [2.0, 2.0]]),
        "deck": th.tensor([[4.0, 3.0, 2.0], [4.0, 3.0, 2.0]]),
    }
    features = enc(obs)
    assert features.shape == (2, 12)
    assert not th.allclose(features[0], features[1])  # only the preview differs


def test_encoders_refuse_spaces_they_cannot_read():
    with pytest.raises(ValueError, match="arch"):
        TileEncoder(gym.spaces.Box(0, 15, (4, 4), np.uint8), arch="rnn")
    with pytest.raises(ValueError, match=r"\(C, H, W\)"):
        PlanesCNN(gym.spaces.Box(0, 1, (9,), np.int8))
    with pytest.raises(ValueError, match="1-D integer Box"):
        IntOneHot(gym.spaces.Box(0.0, 1.0, (3,), np.float32))
    assert IntOneHot(gym.spaces.Box(0, 21, (4,), np.int64))(
        th.tensor([[21.0, 3.0, 0.0, 5.0]])
    ).shape == (1, 64)
