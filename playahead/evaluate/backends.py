"""Where games run: in this process, in a local process pool, or on a Ray cluster.

Every backend takes :class:`~playahead.evaluate.play.Task` objects and yields
:class:`~playahead.evaluate.store.GameRecord` objects as games finish (in any order);
the caller stores each one at once. A game's result depends only on its task, so all
backends give the same results for the same seed.

* ``"local"`` with ``workers=1``: games run one after another in this process.
* ``"local"`` with ``workers>1``: a ``concurrent.futures.ProcessPoolExecutor`` with the
  ``"spawn"`` start method (safe with numba and threads). Each worker imports
  ``imports`` (modules that register custom agents) and builds agents from their specs.
* ``"ray"``: each game is a Ray task on the cluster at ``address`` (``None`` starts or
  joins a local Ray). Needs the ``distributed`` extra (``pip install
  'playahead[distributed]'``); playahead and the ``imports`` modules must be importable
  on every node. Ray is imported only for this backend.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import multiprocessing
import os
import queue
from collections.abc import Iterator, Sequence

from playahead._procs import die_with_parent
from playahead.evaluate.play import Task, play_task, set_reporter
from playahead.evaluate.store import GameRecord

BACKENDS = ("local", "ray")


def import_modules(imports: Sequence[str]) -> None:
    """Import each module (they register agents with ``register_agent``).

    Raises:
        ValueError: a module cannot be imported.
    """
    for name in imports:
        try:
            importlib.import_module(name)
        except ImportError as err:
            raise ValueError(
                f"cannot import {name!r} (given to register agents): {err}"
            ) from None


def _play_with_imports(task: Task, imports: tuple[str, ...]) -> GameRecord:
    import_modules(imports)
    return play_task(task)


def run_tasks(
    tasks: Sequence[Task],
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    imports: Sequence[str] = (),
    report=None,
) -> Iterator[GameRecord]:
    """Play ``tasks`` and yield each record as soon as its game ends.

    Args:
        tasks: the games to play.
        backend: ``"local"`` or ``"ray"``.
        workers: processes for the local backend (1 = this process).
        address: the Ray cluster's address (``"auto"``, ``"ray://host:10001"``,
            ``"host:6379"``), or None for a local Ray.
        imports: modules every worker imports first.
        report: ``report(task_key, moves, score)``, called with the games in flight
            (local backend; ``moves`` None when a game ends), or None.

    Raises:
        ValueError: unknown backend, ``workers < 1``, or Ray is not installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
    if int(workers) < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    imports = tuple(imports)
    if not tasks:
        return iter(())
    if backend == "ray":
        return _run_ray(tasks, address, imports)
    if workers == 1:
        return _run_here(tasks, report)
    return _run_processes(tasks, int(workers), imports, report)


def _run_here(tasks: Sequence[Task], report) -> Iterator[GameRecord]:
    if report is not None:
        set_reporter(lambda task, moves, score: report(task.key, moves, score))
    try:
        for task in tasks:
            yield play_task(task)
    finally:
        set_reporter(None)


def _start_worker(imports: tuple[str, ...], reports, parent_pid: int) -> None:
    die_with_parent(parent_pid)  # no orphans after kill -9 or SIGTERM of the parent
    import_modules(imports)
    if reports is not None:
        set_reporter(lambda task, moves, score: reports.put((task.key, moves, score)))


def _run_processes(
    tasks: Sequence[Task], workers: int, imports: tuple[str, ...], report=None
) -> Iterator[GameRecord]:
    context = multiprocessing.get_context("spawn")
    reports = context.Queue() if report is not None else None
    pool = cf.ProcessPoolExecutor(
        max_workers=min(workers, len(tasks)),
        mp_context=context,
        initializer=_start_worker,
        initargs=(imports, reports, os.getpid()),
    )
    error = None
    try:
        pending = {pool.submit(play_task, task) for task in tasks}
        while pending:
            finished, pending = cf.wait(
                pending, timeout=0.5, return_when=cf.FIRST_COMPLETED
            )
            _drain(reports, report)
            for future in finished:
                if future.cancelled():
                    continue
                if future.exception() is None:
                    yield future.result()
                elif error is None:
                    # Stop queued games; games already running finish and are kept.
                    error = future.exception()
                    for other in pending:
                        other.cancel()
        if error is not None:
            raise error
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        # A worker's last reports can reach the queue after its game's result (the
        # queue is fed by a thread of the worker); once the workers have exited,
        # everything they put is there to read.
        _drain(reports, report)
        if reports is not None:
            reports.close()


def _drain(reports, report) -> None:
    """Pass the workers' in-flight reports on to ``report(key, moves, score)``."""
    while reports is not None:
        try:
            report(*reports.get_nowait())
        except queue.Empty:
            return


def _run_ray(
    tasks: Sequence[Task], address: str | None, imports: tuple[str, ...]
) -> Iterator[GameRecord]:
    try:
        import ray
    except ImportError:
        raise ValueError(
            "the ray backend needs Ray: pip install 'playahead[distributed]'"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    remote = ray.remote(_play_with_imports)
    pending = [remote.remote(task, imports) for task in tasks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        for ref in pending:
            ray.cancel(ref)
