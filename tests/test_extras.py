"""Without an optional extra, the commands and APIs that need it stop at once with a
message naming the extra (not a bare ModuleNotFoundError traceback)."""

import subprocess
import sys

import pytest

HIDE = """
import sys
for name in {hidden!r}:
    sys.modules[name] = None  # as if not installed
"""

RL = ["torch", "stable_baselines3", "sb3_contrib", "tensorboard", "yaml"]


def run_hidden(hidden, code):
    script = HIDE.format(hidden=hidden) + code
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("hidden", "argv", "extra"),
    [
        (RL, ["train", "ppo", "--env", "Threes-v0", "--steps", "64"], "rl"),
        (["matplotlib"], ["curves", "nowhere"], "plots"),
        (
            ["matplotlib"],
            ["evaluate", "--env", "2048-v0", "--agents", "random", "--plot", "p.png"],
            "plots",
        ),
    ],
)
def test_cli_names_the_missing_extra(hidden, argv, extra, tmp_path):
    code = f"from playahead.cli import main; sys.exit(main({argv!r}))"
    done = run_hidden(hidden, f"import os; os.chdir({str(tmp_path)!r})\n" + code)
    assert done.returncode == 2
    assert f"pip install 'playahead[{extra}]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert "random" not in done.stdout  # --plot: refused before any game was played


def test_demo_without_torch_stops_before_any_training(tmp_path):
    code = "from playahead.cli import main\n"  # this tree's, imported before the cd
    code += f"import os; os.chdir({str(tmp_path)!r})\n"
    done = run_hidden(RL, code + "sys.exit(main(['demo', '--out', 'd']))")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "playahead demo: error: the demo's MaskablePPO needs torch (the 'rl' extra): "
        "pip install 'playahead[rl]'; --train-steps 0 leaves it out"
    ]
    assert not (tmp_path / "d").exists()  # no n-tuple net was trained first


def test_ppo_agent_names_the_rl_extra(tmp_path):
    (tmp_path / "model.zip").write_bytes(b"PK")
    code = (
        "import playahead\n"
        "try:\n"
        f"    playahead.make_agent('ppo:path={tmp_path / 'model.zip'}')\n"
        "except ModuleNotFoundError as err:\n"
        "    print(err)\n"
    )
    done = run_hidden(RL, code)
    assert "pip install 'playahead[rl]'" in done.stdout, done.stderr


def test_pettingzoo_view_names_its_extra():
    code = (
        "try:\n"
        "    import playahead.envs.pettingzoo_aec\n"
        "except ModuleNotFoundError as err:\n"
        "    print(err)\n"
    )
    done = run_hidden(["pettingzoo"], code)
    assert "pip install 'playahead[pettingzoo]'" in done.stdout, done.stderr


def test_the_thirdparty_extra_and_the_recipe_name_what_rl_zoo3_enjoy_imports():
    # rl-zoo3 2.9.2's enjoy imports requests (rl_zoo3.load_from_hub) without declaring
    # it; Ray brings it into the thirdparty venv, which must not hide the need
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["thirdparty"]
    assert any(r.startswith("requests") for r in extra), extra
    recipe = (root / "docs" / "recipes.md").read_text()
    assert "pip install rl_zoo3==2.9.2 requests" in recipe
