"""Results survive ``kill -9`` and do not depend on where games run (processes, Ray)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playahead.evaluate import cli
from tests.helpers.eval_agents import AGENTS_MODULE

ROOT = Path(__file__).resolve().parents[1]
DAWDLE = "evaltest_dawdle:delay=0.002"  # a random player slow enough to be killed


def _env() -> dict:
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path)


def _strip(data: dict) -> dict:
    """The JSON without what legitimately differs between runs (timings, paths)."""
    data = dict(data, store=None)
    for agent in data["agents"]:
        agent.pop("seconds_per_move")
        agent.pop("p90_seconds_per_move")
    return data


def _command(store: Path, json_path: Path, workers: int) -> list[str]:
    args = f"--env 2048-v0 --agents random {DAWDLE} --games 8 --seed 5 --workers"
    return [
        sys.executable, "-m", "playahead.evaluate", "--quiet", *args.split(),
        str(workers), "--import", AGENTS_MODULE, "--resamples", "200",
        "--out", str(store), "--json", str(json_path),
    ]  # fmt: skip


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        db = sqlite3.connect(store, timeout=5)
        try:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def test_kill_9_then_resume_gives_the_uninterrupted_result(tmp_path):
    whole = _command(tmp_path / "a.sqlite", tmp_path / "a.json", 1)
    assert cli.main(whole[3:]) == 0  # uninterrupted, in this process
    run = dict(cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    store = tmp_path / "b.sqlite"
    proc = subprocess.Popen(
        _command(store, tmp_path / "b.json", 2), cwd=ROOT, env=_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while _stored(store) < 3 and time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be killed"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its worker processes
    proc.wait()
    assert 3 <= _stored(store) < 16
    assert not (tmp_path / "b.json").exists()
    resumed = subprocess.run(_command(store, tmp_path / "b.json", 1), **run)
    assert resumed.returncode == 0, resumed.stderr
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert _strip(a) == _strip(b)
    db = sqlite3.connect(store)
    keys = db.execute("SELECT agent, game_index FROM games").fetchall()
    db.close()
    assert sorted(keys) == sorted((s, i) for s in ("random", DAWDLE) for i in range(8))


@pytest.mark.slow  # a Ray cluster takes about a minute to start and stop
def test_ray_backend_on_a_loopback_cluster_matches_local(tmp_path, monkeypatch):
    # Keep Ray on 127.0.0.1 (read when ray is imported) and quiet.
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("PYTHONPATH", _env()["PYTHONPATH"])
    ray = pytest.importorskip("ray")
    argv = (
        f"--quiet --env Nim-v0 --agents random evaltest_nim_perfect --games 3 --seed 1"
        f" --import {AGENTS_MODULE} --no-store --resamples 200"
    ).split()
    assert cli.main([*argv, "--json", str(tmp_path / "local.json")]) == 0
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        assert address.startswith("127.0.0.1:"), address
        # A separate driver process joins the cluster this test started.
        done = subprocess.run(
            [sys.executable, "-m", "playahead.evaluate", *argv, "--backend", "ray",
             "--address", address, "--json", str(tmp_path / "ray.json")],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:
        ray.shutdown()
    local = json.loads((tmp_path / "local.json").read_text())
    remote = json.loads((tmp_path / "ray.json").read_text())
    assert _strip(local) == _strip(remote)
    assert local["pairs"][0]["wins"] == 6  # perfect Nim play wins from both sides
