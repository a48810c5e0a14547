"""Killing ``playahead evaluate`` (kill -9 or SIGTERM) leaves no worker processes."""

import os
import signal
import subprocess
import sys
import time

import pytest


def children_of(pid: int) -> set[int]:
    """Every live process whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_the_evaluation_is_killed(sig, tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "playahead",
        "evaluate",
        "--env",
        "Threes-v0",
        "--agents",
        "expectimax:depth=3",
        "--games",
        "50",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "games.sqlite"),
    ]
    parent = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    for _ in range(600):  # up to 60 s for the pool to start
        workers = children_of(parent.pid)
        if len(workers) >= 3:  # two workers and the resource tracker
            break
        time.sleep(0.1)
    assert len(workers) >= 3, "the evaluation did not start its workers"
    os.kill(parent.pid, sig)
    parent.wait(timeout=30)
    for _ in range(300):  # up to 30 s for the workers to go
        if not any(alive(pid) for pid in workers):
            break
        time.sleep(0.1)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} processes outlived the evaluation"
