"""Loading a trained model never runs code from the file unless the user trusts it."""

import base64
import json
import pickle
import shutil
import zipfile

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import playahead  # noqa: E402
from playahead.train import train  # noqa: E402
from tests.helpers.train import TINY  # noqa: E402


class Plant:
    """Unpickling this writes a marker file: proof that code from the file ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("safe") / "ppo"
    train(
        "ppo",
        "2048-v0",
        steps=64,
        out=out,
        n_envs=2,
        hp={"n_steps": 32, "batch_size": 64, **TINY},
        tensorboard=False,
    )
    return out


def rewrite(src, dst, **replace):
    """Copy the zip ``src`` to ``dst`` with some members' bytes replaced."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w") as new:
        for item in old.infolist():
            new.writestr(item, replace.get(item.filename, old.read(item.filename)))


def copy_run(run, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(run, folder)
    return folder


def test_default_load_plays_like_the_trusted_load(run):
    env = gym.make("2048-v0")
    env.reset(seed=3)
    safe = playahead.make_agent(f"ppo:path={run}")
    full = playahead.make_agent(f"ppo:path={run},trusted=true")
    np.testing.assert_allclose(
        safe.analyze(env).values, full.analyze(env).values, rtol=1e-6
    )
    assert safe.model.num_timesteps == full.model.num_timesteps > 0


# torch.load warns about the crafted file's pickle protocol before refusing it
@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_pickle_in_the_weights_is_refused_and_never_runs(run, tmp_path):
    folder = copy_run(run, tmp_path)
    marker = tmp_path / "ran"
    rewrite(
        run / "model.zip",
        folder / "model.zip",
        **{"policy.pth": pickle.dumps(Plant(marker))},
    )
    with pytest.raises(ValueError, match="plain tensors"):
        playahead.make_agent(f"ppo:path={folder}")
    assert not marker.exists()


def test_pickle_in_the_data_entry_never_runs(run, tmp_path):
    folder = copy_run(run, tmp_path)
    marker = tmp_path / "ran"
    with zipfile.ZipFile(run / "model.zip") as archive:
        data = json.loads(archive.read("data"))
    blob = base64.b64encode(pickle.dumps(Plant(marker))).decode()
    data["policy_kwargs"] = {":type:": "<class 'dict'>", ":serialized:": blob}
    rewrite(run / "model.zip", folder / "model.zip", data=json.dumps(data).encode())
    agent = playahead.make_agent(f"ppo:path={folder}")
    assert agent.model is not None
    assert not marker.exists()


# torch.load warns about the crafted file's pickle protocol before refusing it
@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
def test_damaged_weights_give_a_clear_error(run, tmp_path):
    folder = copy_run(run, tmp_path)
    rewrite(run / "model.zip", folder / "model.zip", **{"policy.pth": b"\x80garbage"})
    with pytest.raises(ValueError, match="damaged"):
        playahead.make_agent(f"ppo:path={folder}")


def test_a_zip_without_its_run_config_needs_trust(run, tmp_path):
    lone = tmp_path / "model.zip"
    shutil.copy(run / "model.zip", lone)
    with pytest.raises(ValueError, match="trusted=true"):
        playahead.make_agent(f"ppo:path={lone}")
    assert playahead.make_agent(f"ppo:path={lone},trusted=true").model is not None
