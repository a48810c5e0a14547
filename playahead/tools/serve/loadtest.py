"""A bounded load test of ``playahead serve``, on this machine only (127.0.0.1).

``python -m playahead.tools.serve.loadtest`` (``make loadtest``) starts ``playahead
serve`` on a free loopback port in a child process, keeps one capped search running
(a minimax hint whose ``time_limit`` and ``budget`` the request leaves open, so it
runs to the server's cap), and meanwhile lets ``--clients`` threads play games
through the API (new games, moves, a few small hints) until ``--requests`` requests
are done. It
prints requests per second, errors (any answer but 200, or a dropped connection) and
latency percentiles, overall and while the capped search was running. The run is
bounded: at most ``--requests`` requests and ``--max-seconds`` seconds.

The client helpers (:func:`call`, :func:`wait_ready`, :func:`run_load`) are also what
the tests use.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import numpy as np

#: Games the load plays (hot seat for the two-player ones: no opponent search).
LOAD_GAMES = ("2048", "threes", "connect4", "tictactoe", "nim")


class _Connection(http.client.HTTPConnection):
    """A keep-alive connection that sends small writes at once (as browsers do:
    ``http.client`` writes headers and body apart, and Nagle's algorithm would hold
    the body for the server's delayed ACK)."""

    def connect(self) -> None:  # noqa: D102
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _connection(base: str, timeout: float) -> http.client.HTTPConnection:
    parts = urlsplit(base)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"load only goes to this machine (127.0.0.1), not {base}")
    return _Connection(parts.hostname, parts.port, timeout=timeout)


def call(
    base: str,
    path: str,
    body=None,
    method: str | None = None,
    timeout: float = 60.0,
    conn: http.client.HTTPConnection | None = None,
    headers: dict | None = None,
) -> tuple[int, dict | None, str]:
    """One request: ``(status, JSON body or None, content type)``.

    ``body`` is sent as JSON (bytes as they are); ``conn`` reuses a keep-alive
    connection.
    """
    own = conn is None
    conn = conn or _connection(base, timeout)
    data = body if isinstance(body, bytes | None) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json"} if data is not None else {}
    try:
        conn.request(
            method or ("GET" if data is None else "POST"),
            "/" + path.lstrip("/"),
            body=data,
            headers=sent | (headers or {}),
        )
        response = conn.getresponse()
        raw = response.read()
        kind = response.getheader("Content-Type", "")
        parsed = json.loads(raw) if kind.startswith("application/json") else None
        return response.status, parsed, kind
    finally:
        if own:
            conn.close()


def wait_ready(base: str, timeout: float = 900.0) -> dict:
    """Wait until every search worker is up (a cold numba cache compiles first)."""
    end = time.monotonic() + timeout
    while True:
        try:
            status = call(base, "api/status")[1]
        except OSError:  # not listening yet
            status = {"idle": 0, "workers": 1}
        if status["idle"] == status["workers"] or time.monotonic() > end:
            return status
        time.sleep(0.2)


def _client(base, rng, budget, hint_every, results, lock, stop):
    conn = _connection(base, 60.0)
    view = None
    while not stop.is_set():
        with lock:
            if budget[0] <= 0:
                break
            budget[0] -= 1
        game = str(rng.choice(LOAD_GAMES))
        if view is None or view["done"]:
            path, body = (
                "api/new",
                {"game": game, "side": None, "seed": int(rng.integers(1e9))},
            )
        elif hint_every and rng.random() < 1 / hint_every:
            agent = "greedy" if rng.random() < 0.5 else "mcts:n_simulations=20"
            path, body = (
                "api/hint",
                {"game": view["game"], "state": view["state"], "agent": agent},
            )
        else:
            move = int(rng.choice(view["legal"]))
            path, body = (
                "api/move",
                {"game": view["game"], "state": view["state"], "move": move},
            )
        start = time.perf_counter()
        try:
            status, data, _ = call(base, path, body, conn=conn)
        except (OSError, http.client.HTTPException, ValueError) as err:
            status, data = 0, {"error": repr(err)}
            conn.close()
            conn = _connection(base, 60.0)
        took = time.perf_counter() - start
        with lock:
            results.append((start, took, status, path, (data or {}).get("error")))
        if status == 200 and path != "api/hint":
            view = data
        elif status != 200:
            view = None
    conn.close()


def run_load(
    base: str,
    clients: int = 64,
    requests: int = 3000,
    hint_every: int = 20,
    seed: int = 0,
    max_seconds: float = 300.0,
) -> list[tuple]:
    """``clients`` threads play through the API until ``requests`` are done (or
    ``max_seconds`` pass): one row ``(start, seconds, status, path, error)`` each."""
    results: list[tuple] = []
    lock, stop, budget = threading.Lock(), threading.Event(), [requests]
    rngs = np.random.default_rng(seed).spawn(clients)
    threads = [
        threading.Thread(
            target=_client,
            args=(base, rng, budget, hint_every, results, lock, stop),
            daemon=True,
        )
        for rng in rngs
    ]
    for thread in threads:
        thread.start()
    end = time.monotonic() + max_seconds
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    stop.set()
    for thread in threads:
        thread.join(60.0)
    return list(results)


def summary(rows: list[tuple]) -> dict:
    """Requests, errors, requests/s (over the rows' span) and latency percentiles
    (ms) of ``rows``."""
    seconds = max(r[0] + r[1] for r in rows) - min(r[0] for r in rows) if rows else 1
    took = np.array([row[1] for row in rows]) * 1000 if rows else np.zeros(1)
    errors = [row for row in rows if row[2] != 200]
    p50, p90, p99 = np.percentile(took, [50, 90, 99])
    return {
        "requests": len(rows),
        "errors": len(errors),
        "per_second": len(rows) / seconds,
        "p50_ms": p50,
        "p90_ms": p90,
        "p99_ms": p99,
        "max_ms": float(took.max()),
        "first_errors": [row[2:] for row in errors[:5]],
    }


def _start_server(workers: int, max_seconds: float) -> tuple[subprocess.Popen, str]:
    command = [
        sys.executable,
        "-m",
        "playahead",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--quiet",
        "--workers",
        str(workers),
        "--max-seconds",
        str(max_seconds),
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()  # "playahead serve: http://127.0.0.1:PORT/ ..."
    if "http://" not in line:
        server.kill()
        raise RuntimeError(f"playahead serve did not start: {line!r}")
    return server, line.split()[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--search-seconds",
        type=float,
        default=10.0,
        help="the server's --max-seconds (the capped search's length)",
    )
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not (1 <= args.clients <= 256 and 1 <= args.requests <= 100_000):
        parser.error("--clients must be in 1..256 and --requests in 1..100000")
    server, base = _start_server(args.workers, args.search_seconds)
    try:
        wait_ready(base)
        print(
            f"playahead serve load test: {args.workers} search workers, searches "
            f"capped at {args.search_seconds:g} s, seed {args.seed}"
        )
        # One client alone, then args.clients at once, each while a capped search runs.
        failed = False
        for clients, requests in ((1, 200), (args.clients, args.requests)):
            search = CappedSearch(base, args.seed)
            rows = run_load(
                base,
                clients,
                requests,
                hint_every=20 if clients > 1 else 0,
                seed=args.seed,
                max_seconds=args.max_seconds,
            )
            search.join()
            during = [
                r for r in rows if search.began <= r[0] <= r[0] + r[1] <= search.ended
            ]
            print(f"{clients} client(s), {requests} requests:")
            _report("all", summary(rows))
            _report("during the capped search", summary(during))
            print(
                f"{'the capped search':>26}: status {search.status} after "
                f"{search.ended - search.began:.1f} s"
            )
            failed |= any(row[2] != 200 for row in rows) or search.status != 200
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    return int(failed)


class CappedSearch(threading.Thread):
    """A hint that leaves its budget open (``minimax:time_limit=none,budget=none`` on
    an empty Connect Four board: it deepens until the server's cap stops it); it is
    running once the constructor returns."""

    SPEC = "minimax:time_limit=none,budget=none"

    def __init__(self, base: str, seed: int = 0):
        super().__init__(daemon=True)
        self.base, self.status = base, None
        view = call(base, "api/new", {"game": "connect4", "side": None})[1]
        self.body = {"game": "connect4", "state": view["state"], "agent": self.SPEC}
        self.began = self.ended = time.perf_counter()
        super().start()
        while call(base, "api/status")[1]["busy"] < 1 and self.is_alive():
            time.sleep(0.01)

    def run(self) -> None:  # noqa: D102
        self.began = time.perf_counter()
        self.status = call(self.base, "api/hint", self.body)[0]
        self.ended = time.perf_counter()


def _report(name: str, s: dict) -> None:
    print(
        f"{name:>26}: {s['requests']} requests, {s['errors']} errors, "
        f"{s['per_second']:.0f} requests/s, latency p50 {s['p50_ms']:.1f} ms, "
        f"p90 {s['p90_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, max {s['max_ms']:.1f} ms"
    )
    if s["first_errors"]:
        print(f"{'':>26}  first errors: {s['first_errors']}")


if __name__ == "__main__":
    sys.exit(main())
