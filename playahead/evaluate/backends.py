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
from collections.abc import Iterator, Sequence

from playahead.evaluate.play import Task, play_task
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
) -> Iterator[GameRecord]:
    """Play ``tasks`` and yield each record as soon as its game ends.

    Args:
        tasks: the games to play.
        backend: ``"local"`` or ``"ray"``.
        workers: processes for the local backend (1 = this process).
        address: the Ray cluster's address (``"auto"``, ``"ray://host:10001"``,
            ``"host:6379"``), or None for a local Ray.
        imports: modules every worker imports first.

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
        return (play_task(task) for task in tasks)
    return _run_processes(tasks, int(workers), imports)


def _run_processes(
    tasks: Sequence[Task], workers: int, imports: tuple[str, ...]
) -> Iterator[GameRecord]:
    context = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(
        max_workers=min(workers, len(tasks)),
        mp_context=context,
        initializer=import_modules,
        initargs=(imports,),
    )
    error = None
    try:
        futures = [pool.submit(play_task, task) for task in tasks]
        for future in cf.as_completed(futures):
            if future.cancelled():
                continue
            if future.exception() is None:
                yield future.result()
            elif error is None:
                # Stop queued games; games already running finish and are kept.
                error = future.exception()
                for other in futures:
                    other.cancel()
        if error is not None:
            raise error
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


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
