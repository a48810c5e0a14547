"""The HTTP side of ``playahead serve``: Starlette on uvicorn, searches in workers.

What a client can and cannot do (the caps are module constants):

* Every error is JSON ``{"error": "..."}``: 400 (bad JSON, a refused move or rule,
  a game file that does not open, JSON nested deeper than
  :data:`models.MAX_NESTING`), 404, 405 (wrong method), 408 (the request was not
  sent within :data:`READ_SECONDS`), 411/413 (no length, body over
  :data:`MAX_BODY` bytes, a game file over
  :data:`~playahead.tools.serve.api.MAX_FILE_BYTES`), 415 (not
  ``application/json``; ``/api/open`` also takes ``application/octet-stream``), 422
  (a field of the wrong type or range, a budget over its cap), 503 (every search
  worker busy, or too many connections), 504 (a search ran past the deadline: its
  worker was killed).
* Searches (hints, and moves against a planner other than ``random``) run in
  :class:`~playahead.tools.serve.pool.SearchPool` workers, at most ``max_seconds``
  each by the planners' clocks (an expectimax search by its node budget, at most
  :func:`models.node_cap` of ``max_seconds``) and killed at ``max_seconds +
  DEADLINE_GRACE``; the rest
  (pages, new games, moves) is answered by the server process, which a search never
  holds.
* Slow clients: a request must arrive whole within :data:`READ_SECONDS` of the
  connection (or of the previous response); idle keep-alive connections close after
  :data:`KEEP_ALIVE_SECONDS`; at most :data:`MAX_CONNECTIONS` connections at once;
  listen backlog :data:`BACKLOG`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
import json
import socket
import sys
import threading
import time

import anyio
import h11
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn import Config, Server
from uvicorn.protocols.http.h11_impl import H11Protocol

from playahead.tools.serve import api
from playahead.tools.serve.pool import SearchBusy, SearchPool, SearchTimeout

#: Largest request body, in bytes.
MAX_BODY = 64 * 1024
#: Seconds a client has to send a whole request (headers and body).
READ_SECONDS = 10.0
#: Seconds an idle keep-alive connection stays open.
KEEP_ALIVE_SECONDS = 5
#: Open connections at most; past it a new one gets a 503 and is closed.
MAX_CONNECTIONS = 1000
#: Connections the kernel queues before the server accepts them.
BACKLOG = 2048
#: Seconds past ``max_seconds`` before a search's worker is killed.
DEADLINE_GRACE = 5.0
_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
_STATIC_DIR = importlib.resources.files("playahead.tools.serve") / "static"
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}


class _Refused(Exception):
    def __init__(self, status: int, message: str, close: bool = False):
        super().__init__(message)
        self.status, self.close = status, close


def _error(status: int, message: str, close: bool = False) -> JSONResponse:
    headers = _HEADERS | ({"Connection": "close"} if close else {})
    return JSONResponse({"error": message}, status, headers=headers)


def _raw_error(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response (for the protocol level, before any request)."""
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class Protocol(H11Protocol):
    """uvicorn's h11 protocol with a whole-request read timeout, a connection cap and
    JSON for the errors it answers itself."""

    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # noqa: D102
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            message = f"the server has {MAX_CONNECTIONS} connections open; retry soon"
            transport.write(_raw_error(503, "Service Unavailable", message))
            transport.close()
            return
        self._arm()

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(READ_SECONDS, self._read_timeout)

    def _read_timeout(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # the app is answering (it times out a slow body itself)
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            message = f"the request did not arrive whole within {READ_SECONDS:g} s"
            self.transport.write(_raw_error(408, "Request Timeout", message))
        self.transport.close()

    def on_response_complete(self) -> None:  # noqa: D102
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc) -> None:  # noqa: D102
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:  # noqa: D102
        # Called inside uvicorn's ``except h11.RemoteProtocolError``: name the fault.
        fault = sys.exc_info()[1]
        detail = str(fault) if fault is not None and str(fault) else msg
        message = f"invalid HTTP request: {detail}"
        self.transport.write(_raw_error(400, "Bad Request", message))
        self.transport.close()


async def _read_body(
    request: Request, kinds=("application/json",), too_big: str | None = None
) -> bytes:
    """The request's body, whole: of a Content-Type in ``kinds``, at most the route's
    limit (``too_big``: the 413's message), within :data:`READ_SECONDS`."""
    limit = api.FILE_ROUTES.get(request.url.path, MAX_BODY)
    too_big = too_big or f"request body over {limit} bytes"
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in kinds:
        raise _Refused(415, f"send the body with Content-Type: {' or '.join(kinds)}")
    length = request.headers.get("content-length")
    if length is None and "chunked" not in request.headers.get("transfer-encoding", ""):
        raise _Refused(411, "Content-Length is required")
    if length is not None and int(length) > limit:
        raise _Refused(413, too_big, close=True)
    body = bytearray()
    try:
        with anyio.fail_after(READ_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise _Refused(413, too_big, True)
    except TimeoutError:
        message = f"the request body did not arrive within {READ_SECONDS:g} s"
        raise _Refused(408, message, close=True) from None
    return bytes(body)


async def _read_json(request: Request):
    body = await _read_body(request)
    try:
        return json.loads(body, parse_constant=_no_constant)
    except RecursionError:
        nesting = f"nests deeper than {api.models.MAX_NESTING} levels"
        raise _Refused(400, f"the JSON body {nesting}") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, huge integers
        raise _Refused(400, f"the body is not valid JSON: {err}") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def create_app(
    max_seconds: float = api.MAX_SECONDS,
    workers: int = 2,
    deadline: float | None = None,
    warm: bool = True,
) -> Starlette:
    """The Starlette app: static page, ``/api/...``, searches in a worker pool.

    Args:
        max_seconds: cap of every planner's ``time_limit``.
        workers: search worker processes.
        deadline: seconds before a search's worker is killed (default
            ``max_seconds + DEADLINE_GRACE``).
        warm: load the compiled kernels in each worker before it takes work.
    """
    deadline = max_seconds + DEADLINE_GRACE if deadline is None else deadline
    games = api.api_games(max_seconds) | {"deadline": deadline}
    agents = api.api_agents(max_seconds)
    state: dict = {}
    limiter = anyio.CapacityLimiter(8)

    async def static(request: Request) -> Response:
        name, content_type = STATIC[request.url.path]
        body = (_STATIC_DIR / name).read_bytes()
        return Response(body, media_type=content_type, headers=_HEADERS)

    async def get_games(request: Request) -> Response:
        return JSONResponse(games, headers=_HEADERS)

    async def get_agents(request: Request) -> Response:
        return JSONResponse(agents, headers=_HEADERS)

    async def open_file(request: Request) -> Response:
        name = request.query_params.get("name")
        length = request.headers.get("content-length", "")
        size = int(length) if length.isdigit() else api.MAX_FILE_BYTES + 1
        try:
            kinds = ("application/octet-stream", "application/json")
            data = await _read_body(request, kinds, api.file_too_big(name, size))
            body = await anyio.to_thread.run_sync(
                api.api_open, data, name, limiter=limiter
            )
        except _Refused as err:
            return _error(err.status, str(err), err.close)
        except api.ApiError as err:
            return _error(err.status, str(err))
        return JSONResponse(body, headers=_HEADERS)

    async def get_status(request: Request) -> Response:
        return JSONResponse(state["pool"].status(), headers=_HEADERS)

    async def post(request: Request) -> Response:
        path = request.url.path
        try:
            payload = await _read_json(request)
            req = api.parse(path, payload)
            if api.needs_search(path, req):
                status, body = await state["pool"].run(path, payload)
            else:
                run = api.handle
                status, body = await anyio.to_thread.run_sync(
                    run, path, payload, max_seconds, limiter=limiter
                )
        except _Refused as err:
            return _error(err.status, str(err), err.close)
        except api.ApiError as err:
            return _error(err.status, str(err))
        except SearchBusy as err:
            return _error(503, f"{err}; try again in a few seconds")
        except SearchTimeout as err:
            return _error(504, str(err))
        return JSONResponse(body, status, headers=_HEADERS)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        message = exc.detail
        if exc.status_code == 404:
            message = f"not found: {request.url.path}"
        elif exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "").split(", ")
            allowed = ", ".join(sorted(allowed))
            message = f"{request.url.path} takes {allowed}, not {request.method}"
            if request.url.path in api.ROUTES:
                message += " (with a JSON body)"
        return JSONResponse(
            {"error": message}, exc.status_code, headers=_HEADERS | (exc.headers or {})
        )

    async def crash(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        pool = SearchPool(workers, deadline, max_seconds, warm=warm)
        state["pool"] = pool
        await pool.start()
        try:
            yield
        finally:
            await pool.close()

    get = ["GET", "HEAD"]
    routes = [Route(path, static, methods=get) for path in STATIC]
    routes += [
        Route("/api/games", get_games, methods=get),
        Route("/api/status", get_status, methods=get),
        Route("/api/agents", get_agents, methods=get),
        Route("/api/open", open_file, methods=["POST"]),
    ]
    routes += [Route(path, post, methods=["POST"]) for path in api.ROUTES]
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: crash},
        lifespan=lifespan,
    )


def _listen(host: str, port: int) -> socket.socket:
    """A bound TCP socket (uvicorn calls ``listen`` with :data:`BACKLOG`)."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    family, kind, proto, _, address = info
    # proto IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are
    # TCP (proto 0 would leave Nagle on: ~40 ms per response with delayed ACKs).
    sock = socket.socket(family, kind, proto or socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def make_server(app: Starlette, verbose: bool = False) -> Server:
    """A uvicorn server for ``app`` with this module's limits."""
    config = Config(
        app,
        http=Protocol,
        ws="none",
        lifespan="on",
        backlog=BACKLOG,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=2,
        h11_max_incomplete_event_size=16 * 1024,
        log_level="info" if verbose else "warning",
        access_log=verbose,
    )
    return Server(config)


class RunningServer:
    """A server running in a daemon thread (see :func:`start_in_thread`)."""

    def __init__(self, server: Server, thread: threading.Thread, url: str):
        self.server, self.thread, self.url = server, thread, url

    def shutdown(self) -> None:
        """Stop serving and wait for the thread (the workers stop with it)."""
        self.server.should_exit = True
        self.thread.join(timeout=30)

    def server_close(self) -> None:
        """Nothing left to close (kept for callers of the old ``http.server`` API)."""


def start_in_thread(host: str = "127.0.0.1", port: int = 0, **app_options):
    """Serve from a daemon thread; returns ``(server, url)`` once it listens. Stop it
    with ``server.shutdown()``. ``app_options`` go to :func:`create_app`."""
    sock = _listen(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    server = make_server(create_app(**app_options))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="serve"
    )
    thread.start()
    for _ in range(600):
        if server.started or not thread.is_alive():
            break
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("the server did not start")
    url = _url(bound_host, bound_port)
    return RunningServer(server, thread, url), url


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    verbose: bool = True,
    **app_options,
) -> None:
    """Serve until interrupted (Ctrl-C)."""
    sock = _listen(host, port)
    bound_port = sock.getsockname()[1]
    print(f"playahead serve: {_url(host, bound_port)}  (Ctrl-C stops)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"playahead serve: listening on {host}: anyone who can reach it can use "
            "the CPU for searches",
            file=sys.stderr,
        )
    make_server(create_app(**app_options), verbose).run(sockets=[sock])
