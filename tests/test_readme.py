"""The README is a short front door: its tour runs as written and prints what its
comments say, its commands parse, its links lead somewhere, and it stays short."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def _tour() -> str:
    text = README.read_text()
    section = text.split("## A 30-second tour", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_tour_prints_what_the_readme_shows():
    code = _tour()
    promised = [
        line.split("# ", 1)[1].strip()
        for line in code.splitlines()
        if line.startswith("print(") and "# " in line
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = [" ".join(line.split()) for line in out.getvalue().splitlines()]
    assert printed == [" ".join(p.split()) for p in promised]


def _readme_commands() -> list[str]:
    """Every ``playahead ...`` command in the README's bash blocks (continuation
    lines joined, comments dropped)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("playahead "):
                commands.append(line)
    return commands


def test_every_readme_command_parses():
    import shlex

    from playahead.cli import build_parser

    commands = _readme_commands()
    assert len(commands) >= 5
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(shlex.split(command)[1:])  # exits on a bad option
        assert getattr(args, "func", None), command


def test_the_readme_is_at_most_1500_words():
    # counted as len(text.split()): code blocks and tables included
    words = len(README.read_text().split())
    assert words <= 1500, f"README.md has {words} words; move the detail to docs/"


def test_every_relative_link_in_the_readme_leads_to_a_file():
    text = README.read_text()
    targets = re.findall(r"\]\(([^)#\s]+)[^)]*\)", text)
    local = [t for t in targets if "://" not in t]
    assert len(local) >= 10  # the pictures and the docs pages at least
    missing = [t for t in local if not (README.parent / t).exists()]
    assert not missing, missing


#: The extra each command of the README needs beyond the core (``playahead._extras``).
COMMAND_EXTRAS = {"serve": "serve", "curves": "plots", "demo": "rl"}


def test_make_demo_installs_every_extra_the_readme_commands_need():
    makefile = (README.parent / "Makefile").read_text()
    stamp = re.search(r"\.demo-installed:.*\n\t\$\(PIP\) -e \"\.\[([\w,]+)\]", makefile)
    installed = set(stamp.group(1).split(","))
    for command in _readme_commands():
        word = command.split()[1]
        if word == "train" and command.split()[2] in ("ppo", "dqn"):
            word = "demo"  # the same rl extra
        if word in COMMAND_EXTRAS:
            assert COMMAND_EXTRAS[word] in installed, (command, installed)
    assert any(c.split()[1] == "serve" for c in _readme_commands())


def test_the_tour_calls_action_masks_the_way_that_works_on_a_made_env():
    import gymnasium as gym
    import pytest

    import playahead  # noqa: F401

    tour = _tour()
    assert "env.unwrapped.action_masks()" in tour
    assert "env.action_masks()" not in tour
    env = gym.make("Threes-v0")
    env.reset(seed=0)
    with pytest.raises(AttributeError):  # why the tour goes through unwrapped
        env.action_masks()
    assert env.get_wrapper_attr("action_masks")().tolist() == [True] * 4


def test_getting_started_gives_the_30000_game_step_its_time_from_the_record():
    page = (README.parent / "docs" / "getting-started.md").read_text()
    text = " ".join(page.split())
    assert "--games 30_000" in page
    record = re.search(r"`(benchmarks/results/[\w/.-]+progress\.csv)`", text).group(1)
    seconds = float(
        re.search(r"30,000 games at ([\d,]+) CPU seconds", text)
        .group(1)
        .replace(",", "")
    )
    rows = (README.parent / record).read_text().splitlines()
    row = next(r.split(",") for r in rows if r.startswith("30000,"))
    assert round(float(row[-1])) == seconds
    minutes = int(re.search(r"about (\d+) minutes of one CPU core", text).group(1))
    assert minutes == round(seconds / 60)
