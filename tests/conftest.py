"""Test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=nojit`` keeps plain-Python
runs of the kernel tests short), pytest's assert messages for :mod:`tests.helpers`, and
the fixtures tests share."""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import settings

# The helpers' asserts explain a failure as a test's own do.
pytest.register_assert_rewrite("tests.helpers")

settings.register_profile("default", deadline=None)
settings.register_profile("nojit", deadline=None, max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Decoded packaged nets (``PLAYAHEAD_CACHE``: playahead.ntuple.packaged.cache_dir) and
# Stable-Baselines3's logger directories (``SB3_LOGDIR``: one for every model that
# learns without TensorBoard, else a new ``SB3-<time>`` in the system's temp directory)
# go to directories of this test session's, which the CLI's subprocesses inherit and
# which go at its end; the user's cache is not touched.
for name, prefix in (("PLAYAHEAD_CACHE", "cache"), ("SB3_LOGDIR", "sb3")):
    if name not in os.environ:
        os.environ[name] = tempfile.mkdtemp(prefix=f"playahead-test-{prefix}-")
        atexit.register(shutil.rmtree, os.environ[name], ignore_errors=True)


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A random multi-stage Threes net installed as the packaged net (what
    ``evaluator=ntuple`` reads); returns its weights."""
    from playahead.ntuple import packaged
    from playahead.ntuple.model import load_model
    from tests.helpers.expectimax import model_dir

    run = model_dir(tmp_path, "Threes-v0", 11, stages=(12, 48))
    sha = packaged.export_packaged(run, tmp_path / "net.npz")
    monkeypatch.setattr(packaged, "DATA", tmp_path)
    monkeypatch.setattr(packaged, "PACKAGED", {"Threes-v0": ("net.npz", sha)})
    packaged.packaged_model.cache_clear()
    yield load_model(run)
    packaged.packaged_model.cache_clear()
