"""``playahead serve`` under load on 127.0.0.1: searches run in worker processes, so a
running search does not hold other clients; a search past the deadline has its worker
killed and replaced (504); workers die with the server. (``make loadtest`` is the big
version of the load test, with numbers.)"""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playahead.tools.serve import api, app
from playahead.tools.serve.loadtest import CappedSearch, call, run_load, wait_ready
from playahead.tools.serve.pool import SearchBusy, SearchPool, SearchTimeout
from tests.helpers.procs import alive, children


@pytest.fixture(scope="module")
def server():
    srv, url = app.start_in_thread(max_seconds=3.0, workers=2)
    wait_ready(url)
    yield url
    srv.shutdown()


def test_other_clients_are_answered_while_a_capped_search_runs(server):
    search = CappedSearch(server)  # minimax with time_limit=none: runs to the cap
    answered = []
    view = call(server, "api/new", {"game": "2048", "seed": 3})[1]
    while search.is_alive() and len(answered) < 50:
        body = {"game": "2048", "state": view["state"], "move": view["legal"][0]}
        status, after, _ = call(server, "api/move", body)
        assert status == 200 and after["state"]["moves"] == view["state"]["moves"] + 1
        answered.append(search.is_alive())
        view = (
            after if not after["done"] else call(server, "api/new", {"game": "2048"})[1]
        )
    search.join()
    assert search.status == 200
    assert answered and answered[0]  # the first move came back before the search did


def test_a_small_load_has_no_errors(server):
    rows = run_load(server, clients=16, requests=400, hint_every=10, max_seconds=300)
    assert len(rows) == 400
    assert [row for row in rows if row[2] != 200] == []
    assert {row[3] for row in rows} == {"api/new", "api/move", "api/hint"}


def test_a_search_past_the_deadline_is_killed_and_its_worker_replaced():
    # The planners may take 3 s, the deadline is 1 s: the worker must be stopped.
    srv, url = app.start_in_thread(max_seconds=3.0, deadline=1.0, workers=1)
    try:
        wait_ready(url)
        view = call(url, "api/new", {"game": "connect4", "side": None})[1]
        spec = "minimax:budget=none"  # the server's node cap: seconds of search
        body = {"game": "connect4", "state": view["state"], "agent": spec}
        status, data, _ = call(url, "api/hint", body)
        assert status == 504 and "deadline" in data["error"]
        assert call(url, "api/new", {"game": "nim"})[0] == 200  # served meanwhile
        status = wait_ready(url)
        assert status["killed"] == 1 and status["idle"] == 1
        body["agent"] = "greedy"
        assert call(url, "api/hint", body)[0] == 200
    finally:
        srv.shutdown()


def test_workers_exit_when_the_server_is_killed():
    command = [sys.executable, "-m", "playahead", "serve", "--port", "0", "--quiet"]
    env = os.environ | {"PYTHONPATH": str(Path(__file__).parents[1])}
    pipe = {"stdout": subprocess.PIPE, "text": True, "env": env}
    with subprocess.Popen(command, **pipe) as server:  # closes the pipe at the end
        try:
            url = server.stdout.readline().split()[2]
            assert wait_ready(url)["idle"] == 2
            workers = children(server.pid)
            assert len(workers) >= 2  # the two workers (and multiprocessing's tracker)
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait()
    for _ in range(300):
        if not any(alive(pid) for pid in workers):
            break
        time.sleep(0.1)
    assert [pid for pid in workers if alive(pid)] == []


def test_the_pool_says_busy_rather_than_queueing_forever():
    async def scenario():
        pool = SearchPool(size=1, deadline=1.0, max_seconds=3.0, max_waiting=1)
        await pool.start()
        while pool.status()["idle"] < 1:
            await asyncio.sleep(0.05)
        view = api.handle("/api/new", {"game": "connect4", "side": None})[1]
        spec = "minimax:budget=none"  # the server's node cap: seconds of search
        body = {"game": "connect4", "state": view["state"], "agent": spec}
        long = asyncio.create_task(pool.run("/api/hint", body))  # 3 s > deadline
        await asyncio.sleep(0.1)
        waiting = asyncio.create_task(pool.run("/api/hint", body))
        await asyncio.sleep(0.1)
        results = await asyncio.gather(
            long, waiting, pool.run("/api/hint", body), return_exceptions=True
        )
        while pool.status()["idle"] < 1:  # the killed worker's replacement
            await asyncio.sleep(0.05)
        worker = next(iter(pool._workers))
        crashed = asyncio.create_task(pool.run("/api/hint", body))
        await asyncio.sleep(0.3)
        worker.process.kill()  # a worker that dies mid-search
        results.append((await asyncio.gather(crashed, return_exceptions=True))[0])
        await pool.close()
        return results

    long, waiting, third, crashed = asyncio.run(scenario())
    assert isinstance(long, SearchTimeout) and "deadline" in str(long)
    assert isinstance(waiting, SearchBusy) and "stayed busy" in str(waiting)
    assert isinstance(third, SearchBusy) and "already waiting" in str(third)
    assert isinstance(crashed, SearchBusy) and "died" in str(crashed)
