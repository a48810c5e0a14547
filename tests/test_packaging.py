"""The wheel as users install it: built, installed in a clean venv, the README tour run
there (slow: it installs the dependencies from the package index)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOUR = """
import gymnasium as gym
import playahead
from importlib.resources import files

env = gym.make("Threes-v0")
obs, info = env.reset(seed=0)
action = int(info["action_mask"].argmax())
env.step(action)
state = env.unwrapped.clone_state()
env.step(action)
env.unwrapped.restore_state(state)
assert env.unwrapped.clone_state() == state
assert playahead.make_agent("expectimax:depth=1").act(env) in range(4)
static = files("playahead") / "tools" / "serve" / "static"
assert {p.name for p in static.iterdir()} >= {"app.js", "index.html", "style.css"}
print("tour ok")
"""


@pytest.mark.slow
@pytest.mark.timeout(3000)  # its steps' own limits add up to 2,520 s
def test_wheel_installs_in_a_clean_venv_and_runs_the_tour(tmp_path):
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path, ROOT],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    assert "deprecated" not in built.stderr.lower()
    (wheel,) = tmp_path.glob("playahead-*.whl")
    assert wheel.stat().st_size <= 60 * 2**20  # the nets included
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", wheel], check=True, timeout=1200
    )
    tour = subprocess.run(
        [python, "-c", TOUR], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert tour.stdout.strip().endswith("tour ok"), tour.stderr
