"""Search workers of ``playahead serve``: a few processes, each search under a hard
deadline enforced from outside.

A compiled search holds its process's interpreter, so searches run in worker
processes (``spawn`` context), one request at a time each, and the server's event loop
only waits on a pipe. When a search is not answered within ``deadline`` seconds the
worker is killed (SIGKILL) and a fresh one started; the request fails with
:class:`SearchTimeout`. When every worker is busy a request waits up to ``deadline``
seconds for one (at most ``max_waiting`` requests wait), else it fails with
:class:`SearchBusy`. A worker exits when the server process dies (Linux's parent-death
signal, and a thread that watches the parent elsewhere).

Each new worker loads every planner's compiled kernels before it takes work
(:func:`playahead.tools.serve.api.warm_up`), so a cold numba cache is compiled once,
not inside a request that a deadline would cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal

from playahead._procs import die_with_parent

_log = logging.getLogger("uvicorn.error")


class SearchBusy(Exception):
    """No worker could take the search (all busy, or starting): HTTP 503."""


class SearchTimeout(Exception):
    """The search ran past the deadline; its worker was killed: HTTP 504."""


def _worker_main(conn, parent_pid: int, max_seconds: float, warm: bool) -> None:
    """A worker's loop: ``(path, payload)`` in, ``(status, body)`` out."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    from playahead.tools.serve import api

    if warm:
        api.warm_up()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            path, payload = conn.recv()
        except (EOFError, OSError):
            return
        try:
            result = api.handle(path, payload, max_seconds)
        except Exception as err:  # noqa: BLE001 - the server reports it as a 500
            result = (500, {"error": f"internal error: {type(err).__name__}: {err}"})
        conn.send(result)


class _Worker:
    def __init__(self, ctx, max_seconds: float, warm: bool):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main,
            args=(child, os.getpid(), max_seconds, warm),
            daemon=True,
            name="playahead-search",
        )
        self.process.start()
        child.close()

    def kill(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.process.kill()
        self.conn.close()


async def _readable(conn, timeout: float | None) -> None:
    """Wait until ``conn`` has data (or is closed); TimeoutError after ``timeout``."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    fd = conn.fileno()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await asyncio.wait_for(ready, timeout)
    finally:
        loop.remove_reader(fd)


class SearchPool:
    """``size`` search workers with a hard ``deadline`` per search.

    Create and use it inside one running event loop (the server's): :meth:`start`,
    then :meth:`run` from request handlers, then :meth:`close`.

    Args:
        size: worker processes.
        deadline: seconds a search may take, from sending it to its answer.
        max_seconds: the planners' ``time_limit`` cap, passed to the workers.
        max_waiting: requests that may wait for a free worker at once.
        warm: load the compiled kernels in each new worker before it takes work.
        startup: seconds a new worker may take to get ready before it is replaced.
    """

    def __init__(
        self,
        size: int = 2,
        deadline: float = 15.0,
        max_seconds: float = 10.0,
        max_waiting: int = 16,
        warm: bool = True,
        startup: float = 600.0,
    ):
        if size < 1 or deadline <= 0:
            raise ValueError("a pool needs size >= 1 and deadline > 0")
        self.size, self.deadline, self.max_seconds = size, deadline, max_seconds
        self.max_waiting, self.warm, self.startup = max_waiting, warm, startup
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._workers: set[_Worker] = set()  # ready (idle or busy)
        self._processes: set[_Worker] = set()  # every live one, starting or ready
        self._tasks: set[asyncio.Task] = set()
        self.waiting = 0
        self.killed = 0
        self.closed = False

    def status(self) -> dict:
        """Workers ready, busy and starting; requests waiting; workers killed so far."""
        ready = self._idle.qsize()
        starting = self.size - len(self._workers)
        return {
            "workers": self.size,
            "idle": ready,
            "busy": len(self._workers) - ready,
            "starting": starting,
            "waiting": self.waiting,
            "killed": self.killed,
            "deadline_seconds": self.deadline,
        }

    async def start(self) -> None:
        """Start the workers (they get ready in the background)."""
        for _ in range(self.size):
            self._spawn()

    def _spawn(self) -> None:
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(self._bring_up())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _bring_up(self) -> None:
        delay = 1.0
        while not self.closed:
            # Started from the event loop's thread, which lives as long as the server:
            # the parent-death signal follows the thread that started the child.
            try:
                worker = _Worker(self._ctx, self.max_seconds, self.warm)
            except Exception as err:  # noqa: BLE001 - e.g. no process can be spawned
                _log.error("cannot start a search worker: %s", err)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 30.0)
                continue
            self._processes.add(worker)
            try:
                await _readable(worker.conn, self.startup)
                message = worker.conn.recv()
            except (TimeoutError, EOFError, OSError):
                self._discard(worker)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 30.0)
                continue
            if message[0] == "ready" and not self.closed:
                self._workers.add(worker)
                self._idle.put_nowait(worker)
            else:
                self._discard(worker)
            return

    def _discard(self, worker: _Worker) -> None:
        self._workers.discard(worker)
        self._processes.discard(worker)
        worker.kill()
        worker.process.join(0)  # reaps it if it is gone already

    def _replace(self, worker: _Worker) -> None:
        self._discard(worker)
        self._spawn()

    async def run(self, path: str, payload: dict) -> tuple[int, dict]:
        """``api.handle(path, payload)`` in a worker: ``(status, body)``.

        Raises:
            SearchBusy: no worker became free in time, too many requests wait, or the
                worker died.
            SearchTimeout: no answer within ``deadline``; the worker was replaced.
        """
        if self.waiting >= self.max_waiting:
            raise SearchBusy(f"{self.waiting} searches are already waiting")
        self.waiting += 1
        try:
            worker = await asyncio.wait_for(self._idle.get(), self.deadline)
        except TimeoutError:
            raise SearchBusy(
                f"all {self.size} search workers stayed busy for {self.deadline:g} s"
            ) from None
        finally:
            self.waiting -= 1
        try:
            worker.conn.send((path, payload))
            await _readable(worker.conn, self.deadline)
            result = worker.conn.recv()
        except TimeoutError:
            self.killed += 1
            self._replace(worker)
            raise SearchTimeout(
                f"the search ran past the {self.deadline:g} s deadline and was stopped"
            ) from None
        except (EOFError, OSError):
            self._replace(worker)
            raise SearchBusy("the search worker died; a new one is starting") from None
        except BaseException:  # cancelled mid-search: the worker's state is unknown
            self._replace(worker)
            raise
        self._idle.put_nowait(worker)
        return result

    async def close(self) -> None:
        """Stop every worker (and those still starting)."""
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        for worker in list(self._processes):
            worker.kill()
        loop = asyncio.get_running_loop()
        for worker in list(self._processes):
            await loop.run_in_executor(None, worker.process.join, 5.0)
        self._workers.clear()
        self._processes.clear()
