"""Test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=nojit`` keeps plain-Python
runs of the kernel tests short)."""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.register_profile("nojit", deadline=None, max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
