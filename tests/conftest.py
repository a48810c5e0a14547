"""Test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=nojit`` keeps plain-Python
runs of the kernel tests short)."""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("nojit", deadline=None, max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Decoded packaged nets (playahead.ntuple.packaged.cache_dir) go to a directory of this
# test session's, which the CLI's subprocesses inherit; the user's cache is not touched.
if "PLAYAHEAD_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["PLAYAHEAD_CACHE"] = tempfile.mkdtemp(prefix="playahead-test-cache-")
    atexit.register(shutil.rmtree, os.environ["PLAYAHEAD_CACHE"], ignore_errors=True)


def early_2048_states(seed=3, n=3, moves=30):
    """``n`` 2048 states ``moves`` moves apart from a seeded game that always plays
    its first legal move: cheap positions for tests that search them."""
    import gymnasium as gym

    import playahead  # noqa: F401

    env = gym.make("2048-v0")
    env.reset(seed=seed)
    states = []
    for _ in range(n):
        for _ in range(moves):
            env.step(int(env.unwrapped.action_masks().argmax()))
        states.append(env.unwrapped.clone_state())
    return states
