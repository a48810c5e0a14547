"""``playahead.train.train`` and ``playahead train``: smoke runs, run directories,
checkpoints, resume, Ctrl-C, and clear errors."""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import playahead  # noqa: E402
from playahead.train import cli, train  # noqa: E402
from playahead.train.callbacks import GameStats  # noqa: E402
from playahead.train.config import load_hyperparams, parse_overrides  # noqa: E402
from tests.helpers.train import small_hp  # noqa: E402


def play_a_game(agent, env, moves: int = 60) -> int:
    env.reset(seed=0)
    played = 0
    for _ in range(moves):
        _, _, term, trunc, _ = env.step(agent.act(env))
        played += 1
        if term or trunc:
            break
    return played


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0", "TicTacToe-v0"])
def test_smoke_run_writes_a_playable_model(tmp_path, algo, env_id):
    out = tmp_path / "run"
    path = train(
        algo,
        env_id,
        steps=256,
        seed=0,
        out=out,
        n_envs=4,
        hp=small_hp(algo, env_id),
        checkpoint_every=128,
    )
    assert path == out / "model.zip" and path.is_file()
    config = json.loads((out / "config.json").read_text())
    assert (config["algo"], config["env_id"], config["steps"]) == (algo, env_id, 256)
    assert config["hyperparams"]["n_envs"] == load_hyperparams(algo, env_id)["n_envs"]
    versions = json.loads((out / "versions.json").read_text())
    assert {"python", "torch", "stable_baselines3", "sb3_contrib"} <= set(versions)
    assert any((out / "checkpoints").glob(f"{algo}_*_steps.zip"))
    assert any((out / "tb").iterdir())
    # the model plays legal moves only: this env refuses anything else
    agent = playahead.make_agent(f"{algo}:path={out}")
    env = gym.make(env_id, illegal_action="raise")
    assert play_a_game(agent, env) >= 1


def test_same_seed_same_model(tmp_path):
    def weights(out, seed):
        train(
            "ppo",
            "Threes-v0",
            steps=256,
            seed=seed,
            out=out,
            n_envs=4,
            hp=small_hp("ppo", "Threes-v0"),
            tensorboard=False,
        )
        agent = playahead.make_agent(f"ppo:path={out}")
        return [p.detach().numpy() for p in agent.model.policy.parameters()]

    a, b = weights(tmp_path / "a", 1), weights(tmp_path / "b", 1)
    c = weights(tmp_path / "c", 2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def buffer_size(out) -> int:
    (pkl,) = (out / "checkpoints").glob("dqn_replay_buffer_*_steps.pkl")
    with open(pkl, "rb") as f:
        buf = pickle.load(f)
    return buf.size() * buf.n_envs


def test_resume_continues_the_step_count_and_the_replay_buffer(tmp_path):
    out = tmp_path / "run"
    hp = small_hp("dqn", "2048-v0")
    train("dqn", "2048-v0", steps=256, seed=0, out=out, n_envs=4, hp=hp)
    assert buffer_size(out) == 256
    train("dqn", "2048-v0", steps=512, seed=0, out=out, resume=True)
    agent = playahead.make_agent(f"dqn:path={out}")
    assert agent.model.num_timesteps == 512
    assert (out / "checkpoints" / "dqn_512_steps.zip").is_file()
    assert buffer_size(out) == 512  # the first 256 transitions were kept
    assert len(list((out / "checkpoints").glob("dqn_replay_buffer_*"))) == 1
    # the training cost is carried across the resume
    first = json.loads((out / "checkpoints" / "dqn_cost_256_steps.json").read_text())
    total = json.loads((out / "cost.json").read_text())
    assert first["steps"] == 256 and total["steps"] == 512
    assert 0 < first["cpu_seconds"] < total["cpu_seconds"]
    assert first["wall_seconds"] < total["wall_seconds"]
    assert total["clock"] == "process_time" and total["complete"]
    with pytest.raises(ValueError, match="cannot change n_envs"):
        train("dqn", "2048-v0", steps=1024, out=out, resume=True, n_envs=8)
    with pytest.raises(ValueError, match="holds a dqn run on 2048-v0"):
        train("ppo", "2048-v0", steps=1024, out=out, resume=True)


def interrupted_run(out, monkeypatch, after_calls: int) -> None:
    """A 2048 PPO run (4 envs, 128-step rollouts) stopped by Ctrl-C after
    ``after_calls`` vector steps."""
    calls = []

    def interrupt(self):
        calls.append(1)
        if len(calls) >= after_calls:
            raise KeyboardInterrupt
        return True

    monkeypatch.setattr(GameStats, "_on_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(
            "ppo",
            "2048-v0",
            steps=4096,
            seed=0,
            out=out,
            n_envs=4,
            hp=small_hp("ppo", "2048-v0"),
        )
    monkeypatch.undo()


def test_ctrl_c_saves_a_checkpoint_to_resume_from(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    interrupted_run(out, monkeypatch, 40)  # 160 steps: 128 trained on, 32 collected
    # saved at the steps it trained on; the discarded 32 are collected again
    assert (out / "checkpoints" / "ppo_128_steps.zip").is_file()
    assert "--resume" in capsys.readouterr().err
    assert not (out / "model.zip").exists()
    (out / "checkpoints" / "ppo_cost_128_steps.json").unlink()  # an older run's files
    train("ppo", "2048-v0", steps=256, out=out, resume=True)
    agent = playahead.make_agent(f"ppo:path={out},trusted=true")
    assert agent.model.num_timesteps == 256
    cost = json.loads((out / "cost.json").read_text())
    assert cost["steps"] == 256 and not cost["complete"]  # a lower bound
    assert agent.model._n_updates == 2  # one PPO update per 128-step rollout


def test_resume_without_a_checkpoint_says_so(tmp_path, monkeypatch):
    out = tmp_path / "run"
    interrupted_run(out, monkeypatch, 1)
    for checkpoint in (out / "checkpoints").glob("*.zip"):
        checkpoint.unlink()
    with pytest.raises(ValueError, match="no readable checkpoint"):
        train("ppo", "2048-v0", steps=256, out=out, resume=True)


def test_a_truncated_newest_checkpoint_falls_back_to_the_previous(tmp_path):
    out = tmp_path / "run"
    hp = small_hp("ppo", "2048-v0")
    train("ppo", "2048-v0", steps=256, out=out, n_envs=4, hp=hp, checkpoint_every=128)
    newest = out / "checkpoints" / "ppo_256_steps.zip"
    newest.write_bytes(newest.read_bytes()[:200])  # a crash while writing
    with pytest.warns(UserWarning, match="damaged"):
        train("ppo", "2048-v0", steps=384, out=out, resume=True)
    agent = playahead.make_agent(f"ppo:path={out},trusted=true")
    assert agent.model.num_timesteps == 384


def test_command_line(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    out = tmp_path / "cli"
    args = parser.parse_args(
        [
            "ppo",
            "--env",
            "playahead/2048-v0",
            "--steps",
            "1_28",
            "--seed",
            "3",
            "--out",
            str(out),
            "--n-envs",
            "4",
            "--hp",
            "n_steps=32",
            "--hp",
            "batch_size=64",
            "--hp",
            "policy_kwargs.net_arch=[8]",
            "--hp",
            "policy_kwargs.features_extractor_kwargs.arch=mlp",
            "--no-progress",
            "--no-tensorboard",
        ]
    )
    assert args.func(args) == 0
    assert str(out / "model.zip") in capsys.readouterr().out
    config = json.loads((out / "config.json").read_text())
    assert config["env_id"] == "2048-v0" and config["seed"] == 3
    assert config["hyperparams"]["policy_kwargs"]["net_arch"] == [8]
    assert config["hyperparams"]["policy_kwargs"]["features_extractor_kwargs"] == {
        "arch": "mlp",
        "channels": 64,
        "features_dim": 256,
    }
    with pytest.raises(SystemExit):
        parser.parse_args(["ppo", "--env", "2048-v0", "--steps", "0"])


def test_hp_overrides_parse_as_yaml():
    assert parse_overrides(["a=1", "b=lin_3e-4", "c.d=[1, 2]", "c.e=true"]) == {
        "a": 1,
        "b": "lin_3e-4",
        "c": {"d": [1, 2], "e": True},
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["n_epochs"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"algo": "a2c"}, "unknown algorithm 'a2c'"),
        ({"env_id": "Nope-v0"}, "unknown env id 'Nope-v0'"),
        ({"hp": {"n_epoch": 3}}, "no hyperparameter.*n_epoch.*accepted"),
        ({"hp": {"learning_rate": "lin_fast"}}, "lin_<number>"),
        (
            {"hp": {"policy_kwargs": {"features_extractor_class": "Big"}}},
            "features_extractor_class='Big'",
        ),
        ({"self_play_every": 100}, "one-player game"),
        ({"colour": "red"}, "no option.*colour"),
        ({"algo": "dqn", "hp": {"train_freq": [4, "fortnight"]}}, "fortnight"),
        (
            {"env_id": "Threes-v0", "env_kwargs": {"bonus_preview": "x"}},
            "bonus_preview",
        ),
    ],
)
def test_bad_settings_are_refused(tmp_path, kwargs, message):
    args = {
        "algo": "ppo",
        "env_id": "2048-v0",
        "steps": 64,
        "out": tmp_path / "r",
        **kwargs,
    }
    with pytest.raises(ValueError, match=message):
        train(**args)
    assert not (tmp_path / "r").exists()  # nothing written


def test_an_existing_run_is_not_overwritten(tmp_path):
    out = tmp_path / "run"
    train("ppo", "2048-v0", steps=64, out=out, n_envs=4, hp=small_hp("ppo", "2048-v0"))
    before = (out / "model.zip").read_bytes()
    with pytest.raises(ValueError, match="already holds a run"):
        train("ppo", "2048-v0", steps=64, out=out)
    assert (out / "model.zip").read_bytes() == before
    with pytest.raises(FileNotFoundError, match="nothing to resume"):
        train("ppo", "2048-v0", steps=64, out=tmp_path / "empty", resume=True)


def test_conf_file_sets_hyperparameters_and_hp_goes_on_top(tmp_path, capsys):
    conf = tmp_path / "small.yml"
    conf.write_text(
        "n_steps: 32\nbatch_size: 64\nn_epochs: 1\n"
        "policy_kwargs:\n  net_arch: [8]\n"
        "  features_extractor_kwargs: {arch: mlp, features_dim: 32}\n"
        "shaping: {merge: 1.0}\n"
    )
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    out = tmp_path / "run"
    args = parser.parse_args(
        ["ppo", "--env", "2048-v0", "--steps", "128", "--n-envs", "4"]
        + ["--out", str(out)]
        + ["--conf", str(conf), "--hp", "n_epochs=2", "--hp", "shaping.empty=0.5"]
        + ["--no-progress", "--no-tensorboard"]
    )
    assert args.func(args) == 0
    hp = json.loads((out / "config.json").read_text())["hyperparams"]
    assert (hp["n_steps"], hp["batch_size"], hp["n_epochs"]) == (32, 64, 2)
    assert hp["shaping"] == {"merge": 1.0, "empty": 0.5}
    assert hp["policy_kwargs"]["net_arch"] == [8]
    # the file's nested keys merge into hyperparams.yml's, not replace them
    assert hp["policy_kwargs"]["features_extractor_class"] == "TileEncoder"
    assert hp["policy_kwargs"]["features_extractor_kwargs"]["channels"] == 64
    # the same file and options resume the run
    args = parser.parse_args(
        ["ppo", "--env", "2048-v0", "--steps", "256", "--out", str(out), "--resume"]
        + ["--conf", str(conf), "--hp", "n_epochs=2", "--hp", "shaping.empty=0.5"]
        + ["--no-progress", "--no-tensorboard"]
    )
    assert args.func(args) == 0


@pytest.mark.parametrize(
    ("name", "padding"),
    [("ppo-2048-shaped.yml", 0), ("ppo-2048-shaped-padded.yml", 1)],
)
def test_the_shaped_2048_settings_are_accepted(name, padding):
    from playahead.train.config import algo_kwargs, load_overrides_file

    root = Path(__file__).resolve().parents[1]
    path = root / "benchmarks/results/deeprl" / name
    hp = load_hyperparams("ppo", "2048-v0", load_overrides_file(path))
    assert hp["shaping"]["merge2"] == 1.0 and hp["n_envs"] == 8
    assert hp["learning_rate"] == pytest.approx(2.5e-4)
    env = gym.make("playahead/2048-v0")
    _, kwargs = algo_kwargs("ppo", hp, env.observation_space)
    assert kwargs["n_steps"] == 4096 and kwargs["gae_lambda"] == 0.9
    extractor = kwargs["policy_kwargs"]["features_extractor_kwargs"]
    assert extractor.get("padding", 0) == padding and extractor["channels"] == 64


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("n_steps: [1, 2\n", "not readable as YAML"),
        ("- n_steps\n", "expected a mapping.*got list"),
        ("", "expected a mapping.*got NoneType"),
        ("{}\n", "expected a mapping.*got an empty mapping"),
        ("1: 2\n", "keys must be names"),
        ("a: '" + "x" * (1 << 20) + "'\n", "at most 1,048,576"),
        (b"n_steps: \xff\xfe\n", "not readable as YAML"),
    ],
)
def test_bad_conf_files_are_refused(tmp_path, text, message):
    from playahead.train.config import load_overrides_file

    path = tmp_path / "conf.yml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_overrides_file(path)


def test_ntuple_refuses_ppo_hyperparameters(tmp_path):
    parser = argparse.ArgumentParser()
    cli.configure(parser)
    for extra in (["--hp", "n_epochs=4"], ["--conf", str(tmp_path / "x.yml")]):
        args = parser.parse_args(
            ["ntuple", "--env", "2048-v0", "--out", str(tmp_path / "nt"), *extra]
        )
        with pytest.raises(SystemExit, match="--hp and --conf set ppo and dqn"):
            args.func(args)
    assert not (tmp_path / "nt").exists()


def test_sigterm_saves_a_checkpoint_like_ctrl_c(tmp_path):
    """``kill`` (or a batch scheduler's notice) on a background run: the run stops
    with a checkpoint to resume from, not with the work since the last one lost."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[1]
    conf = tmp_path / "small.yml"
    conf.write_text(
        "n_steps: 32\nbatch_size: 64\nn_epochs: 1\npolicy_kwargs:\n  net_arch: [8]\n"
        "  features_extractor_kwargs: {arch: mlp, features_dim: 16}\n"
    )
    out = tmp_path / "run"
    command = [sys.executable, "-m", "playahead", "train", "ppo", "--env", "2048-v0"]
    command += ["--steps", "10000000", "--n-envs", "4", "--conf", str(conf)]
    command += ["--out", str(out), "--checkpoint-every", "10000000"]
    command += ["--no-progress", "--no-tensorboard"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        command, cwd=root, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not (out / "versions.json").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3)  # some rollouts and updates
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "--resume" in err, err
    saved = [p.name for p in (out / "checkpoints").glob("ppo_*_steps.zip")]
    assert len(saved) == 1 and int(saved[0].split("_")[1]) > 0
    assert not (out / "model.zip").exists()
