"""AlphaZero runs: resume after ``kill -9``, no overwritten run, damaged checkpoints,
worker processes and Ray actors playing the same games."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from playahead.alphazero.net import read_net_file
from tests.helpers.procs import alive, children

TINY = [
    "--env",
    "TicTacToe-v0",
    "--games-per-iteration",
    "48",
    "--n-simulations",
    "12",
    "--channels",
    "8",
    "--blocks",
    "1",
    "--batch-size",
    "64",
    "--slots",
    "16",
    "--no-progress",
    "--no-tensorboard",
    "--seed",
    "5",
]


def _train(out: Path, *extra: str, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playahead.alphazero", "--out", str(out), *TINY, *extra],
        capture_output=True,
        text=True,
        check=check,
        timeout=600,
    )


def _curve(out: Path) -> list[dict]:
    with open(out / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row.pop("cpu_hours")
    return rows


def _weights(out: Path) -> str:
    return read_net_file(out / "net.npz")[0]["weights_sha256"]


DECAY = ("--lr", "0.002", "--lr-final", "0.0005")


def test_a_run_killed_and_resumed_is_the_unbroken_run(tmp_path):
    """Also with a learning rate that falls by iteration: the resumed run's rate is
    the unbroken run's, which ends at ``--lr-final``."""
    whole = tmp_path / "whole"
    _train(whole, "--iterations", "4", "--workers", "0", *DECAY)
    broken = tmp_path / "broken"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "playahead.alphazero",
            "--out",
            str(broken),
            *TINY,
            "--iterations",
            "4",
            "--workers",
            "0",
            *DECAY,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    state = broken / "checkpoint" / "state.json"
    done = 0
    try:
        while proc.poll() is None:
            if state.exists():
                done = json.loads(state.read_text())["iteration"]
                if done >= 1:
                    break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    killed_at = json.loads(state.read_text())["iteration"]
    assert 1 <= killed_at < 4, "the run ended before it could be killed"
    refused = _train(broken, "--iterations", "4", "--workers", "0", check=False)
    assert refused.returncode != 0 and "--resume" in refused.stderr
    assert "Traceback" not in refused.stderr
    _train(broken, "--iterations", "4", "--workers", "0", "--resume", *DECAY)
    assert _curve(broken) == _curve(whole)
    assert _weights(broken) == _weights(whole)
    assert len(list((broken / "checkpoint").glob("net-*.npz"))) == 1
    for run in (whole, broken):
        opt = torch.load(
            next((run / "checkpoint").glob("optimizer-*.pt")), weights_only=True
        )
        assert opt["param_groups"][0]["lr"] == pytest.approx(0.0005)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sigterm_ends_the_workers_and_says_how_to_resume(tmp_path):
    """SIGTERM stops a run as Ctrl-C does: its worker processes end with it, one line
    (no traceback, no leaked semaphores) says how to go on, and ``--resume``
    carries on from the last finished iteration."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "playahead.alphazero", "--out", str(out), *TINY]
    proc = subprocess.Popen(
        [*command, "--iterations", "500", "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    state = out / "checkpoint" / "state.json"
    try:
        while proc.poll() is None and not (
            state.exists() and json.loads(state.read_text())["iteration"] >= 1
        ):
            time.sleep(0.02)
        workers = children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 1, err
    assert "interrupted" in err and "--resume" in err, err
    assert "Traceback" not in err and "leaked" not in err, err
    # The resource tracker leaves when it sees its parent's pipe close: soon after.
    deadline = time.monotonic() + 60
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and not any(alive(pid) for pid in workers)
    done = json.loads(state.read_text())["iteration"]
    assert 1 <= done < 500
    _train(out, "--iterations", str(done + 1), "--workers", "0", "--resume")
    assert [int(r["iteration"]) for r in _curve(out)] == list(range(1, done + 2))


def test_a_damaged_checkpoint_gets_one_line(tmp_path):
    out = tmp_path / "run"
    _train(out, "--iterations", "1", "--workers", "0")
    buffer = next((out / "checkpoint").glob("buffer-*.npz"))
    buffer.write_bytes(buffer.read_bytes()[:-10])
    result = _train(out, "--iterations", "2", "--workers", "0", "--resume", check=False)
    assert result.returncode != 0
    assert "damaged" in result.stderr and "Traceback" not in result.stderr
    (out / "checkpoint" / "state.json").unlink()
    result = _train(out, "--iterations", "2", "--workers", "0", "--resume", check=False)
    assert "missing or damaged" in result.stderr and "Traceback" not in result.stderr


def test_a_run_started_from_a_net_carries_on_its_counts(tmp_path):
    first = tmp_path / "first"
    _train(first, "--iterations", "2", "--workers", "0")
    meta = read_net_file(first / "net.npz")[0]
    branch = tmp_path / "branch"
    init = ("--init", str(first / "net.npz"), "--channels", "16", "--seed", "6")
    _train(branch, "--iterations", "3", "--workers", "0", *init)
    rows = _curve(branch)
    assert [int(r["iteration"]) for r in rows] == [3]
    assert int(rows[0]["games"]) == meta["games"] + 48
    branched = read_net_file(branch / "net.npz")[0]
    assert branched["channels"] == meta["channels"] == 8  # the net's, not --channels
    assert branched["cpu_hours"] > meta["cpu_hours"]
    refused = _train(tmp_path / "both", *init, "--resume", check=False)
    assert refused.returncode != 0 and "give one" in refused.stderr
    assert "Traceback" not in refused.stderr
    missing = _train(
        tmp_path / "missing", "--init", str(tmp_path / "no.npz"), check=False
    )
    assert missing.returncode != 0 and "no.npz" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_run_that_spends_its_cpu_hours_keeps_its_last_net_as_a_snapshot(tmp_path):
    """The iteration that reaches ``--max-cpu-hours`` is the run's last; its net is a
    snapshot (what ``alphazero-curve`` measures), though not a multiple of
    ``--snapshot-every``."""
    out = tmp_path / "run"
    _train(out, "--iterations", "4", "--workers", "0", "--max-cpu-hours", "1e-6")
    assert [int(r["iteration"]) for r in _curve(out)] == [1]
    assert [p.name for p in (out / "snapshots").iterdir()] == ["iter-00001.npz"]
    meta = read_net_file(out / "snapshots" / "iter-00001.npz")[0]
    assert meta["weights_sha256"] == _weights(out) and meta["iteration"] == 1


@pytest.mark.parametrize(
    "option, message",
    [
        (("--n-simulations", "1000000"), "n_simulations must be in"),
        (("--workers", "1000"), "workers must be in"),
        (("--env", "2048-v0"), "alphazero trains on"),
        (("--lr-final", "0"), "lr_final must be in"),
    ],
)
def test_options_over_their_caps_get_one_line(tmp_path, option, message):
    result = _train(tmp_path / "run", *option, check=False)
    assert result.returncode != 0 and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()


def test_worker_processes_and_ray_actors_play_the_same_run(tmp_path):
    pytest.importorskip("ray", reason="the distributed extra (ray) is not installed")
    procs = tmp_path / "procs"
    _train(procs, "--iterations", "1", "--workers", "2")
    ray_run = tmp_path / "ray"
    env = {**os.environ, "RAY_ADDRESS": "", "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "playahead.alphazero",
            "--out",
            str(ray_run),
            *TINY,
            "--iterations",
            "1",
            "--workers",
            "2",
            "--ray",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=env,
    )
    assert _curve(procs) == _curve(ray_run)
    assert _weights(procs) == _weights(ray_run)
