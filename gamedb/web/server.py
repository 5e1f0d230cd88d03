"""Run the explorer's application with uvicorn on a socket bound here.

Binding the socket before uvicorn starts turns a busy port into one ``OSError`` (a
one-line error from the command line) and lets ``--port 0`` pick a free port that the
ready line then names.

Slow and idle clients cost a socket each, never a worker: the server is asynchronous
(every request's work runs in a thread), a connection that has not sent a whole request
head ``HEAD_SECONDS`` after it opened (or after its last answer) is closed, and up to
``MAX_CONNECTIONS`` are held at once (101 idle sockets had made every other request
503, and none was ever closed).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import h11
import uvicorn
from starlette.responses import JSONResponse
from uvicorn.protocols.http.h11_impl import H11Protocol

from gamedb.web.app import HEADERS, SQL_SECONDS, create_app
from gamedb.web.solving import SOLVE_SECONDS

#: Most connections held at once (idle ones included); more get 503 at once.
MAX_CONNECTIONS = 1000
#: Seconds an idle keep-alive connection stays open.
KEEP_ALIVE = 5
#: Seconds a client has to send a whole request head, from connecting or from its last
#: answer: a connection idle or sending slowly past it is closed.
HEAD_SECONDS = 5.0
#: Longest request line plus headers, in bytes: h11 answers 400 past it (httptools,
#: uvicorn's other parser, reads URLs of any length into memory).
MAX_HEAD = 16_384


def serve(paths: Sequence[Path], *, host: str = "127.0.0.1", port: int = 8000,
          on_ready: Callable[[str], None] | None = None, solve_seconds: float = SOLVE_SECONDS,
          sql_seconds: float = SQL_SECONDS, head_seconds: float = HEAD_SECONDS) -> None:
    """Serve ``paths`` until interrupted (Ctrl-C or SIGTERM).

    Args:
        paths: gamedb files; each is served under its file name.
        host, port: where to listen (port 0: any free port).
        on_ready: called with the server's URL once it listens.
        solve_seconds: longest an ``/api/solve`` may run.
        sql_seconds: longest an ``/api/sql`` statement may run.
        head_seconds: longest a client may take to send a request head.

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch: a file cannot be served.
        OSError: the address cannot be bound (in use, not local).
    """
    app = _head_limited(create_app(paths, solve_seconds=solve_seconds,
                                   sql_seconds=sql_seconds))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=128)
    config = uvicorn.Config(app, http=_head_deadline(head_seconds),
                            h11_max_incomplete_event_size=MAX_HEAD,
                            log_level="warning", access_log=False,
                            limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE)
    bound = sock.getsockname()[1]
    if on_ready is not None:
        on_ready(f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{bound}/")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _head_limited(app: Any) -> Any:
    """``app``, answering 431 (JSON, as every refusal) to a request whose line and
    headers are over ``MAX_HEAD`` bytes: h11 refuses only a head still incomplete past
    it, and one that arrives whole in a single read (80 KB on a local socket) passed."""

    async def limited(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (size := _head_bytes(scope)) > MAX_HEAD:
            refused = JSONResponse({"error": f"the request line and headers are {size:,} "
                                             f"bytes; at most {MAX_HEAD:,}"},
                                   status_code=431, headers=HEADERS)  # as every refusal
            await refused(scope, receive, send)
            return
        await app(scope, receive, send)

    return limited


def _head_bytes(scope: dict[str, Any]) -> int:
    """The bytes of a request's line and headers, as sent (``NAME: VALUE`` and CRLF)."""
    line = len(scope["method"]) + len(scope.get("raw_path") or b"") + len(
        scope.get("query_string") or b"") + 12  # two spaces, "?", "HTTP/1.1", CRLF
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"])


def _head_deadline(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection that has not sent a whole request
    head ``seconds`` after it opened or after its last answer."""

    class HeadDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _expired(self) -> None:
            answering = not getattr(self.cycle, "response_complete", True)  # None: none yet
            waiting = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
            if waiting and not answering and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadline
