"""Resident memory of a loaded agent, next to a random agent's in the same run.

Each agent is made and plays ``--moves`` moves of a seeded game in a fresh Python
process, which then reports its resident set (``VmRSS``) and its peak (``VmHWM``) from
``/proc/self/status`` (Linux). The baseline is the same process with the ``random``
agent: what importing playahead, Gymnasium and numba costs before any agent holds
anything. By default the games' default agents (``expectimax``, which loads the net
playahead ships for the game); ``--spec`` measures others, e.g. a packaged net of your
own with ``expectimax:evaluator=ntuple:path=net.npz``.

Run: ``python -m benchmarks memory`` or ``python -m benchmarks.speed.bench_memory
[--env 2048-v0] [--spec SPEC ...] [--moves 50]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from benchmarks.common import Report

_CHILD = """
import json, sys
import gymnasium as gym
import playahead
env_id, spec, moves = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = gym.make(env_id)
env.reset(seed=0)
agent = playahead.make_agent(spec, seed=0)
for _ in range(moves):
    _, _, over, _, _ = env.step(agent.act(env))
    if over:
        break
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({k: int(status[k].split()[0]) for k in ("VmRSS", "VmHWM")}))
"""


def resident(env_id: str, spec: str, moves: int) -> dict:
    """``{"VmRSS": kB, "VmHWM": kB}`` of a fresh process that made ``spec`` and
    played ``moves`` moves of ``env_id``."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, env_id, spec, str(moves)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> Report:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.bench_memory")
    parser.add_argument("--env", nargs="*", default=["2048-v0", "Threes-v0"])
    parser.add_argument("--spec", nargs="*", default=["expectimax"])
    parser.add_argument("--moves", type=int, default=50)
    a = parser.parse_args([] if argv is None else argv)
    report = Report("resident memory of a loaded agent, MB (a fresh process each)")
    for env_id in a.env:
        base = resident(env_id, "random", a.moves)
        for spec in a.spec:
            got = resident(env_id, spec, a.moves)
            for key, what in (("VmRSS", "resident"), ("VmHWM", "peak")):
                report.add(
                    env_id,
                    f"{spec}: {what} MB",
                    got[key] / 1024,
                    "random agent",
                    base[key] / 1024,
                )
    return report


if __name__ == "__main__":
    main(sys.argv[1:]).print()
