"""Run the explorer's application with uvicorn on a socket bound here.

Binding the socket before uvicorn starts turns a busy port into one ``OSError`` (a
one-line error from the command line) and lets ``--port 0`` pick a free port that the
ready line then names.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from pathlib import Path

import uvicorn

from gamedb.web.app import create_app

#: Most connections served at once; more get 503 at once instead of queueing forever.
MAX_CONNECTIONS = 100
#: Seconds an idle keep-alive connection stays open.
KEEP_ALIVE = 5
#: Longest request line plus headers, in bytes: h11 answers 400 past it (httptools,
#: uvicorn's other parser, reads URLs of any length into memory).
MAX_HEAD = 16_384


def serve(paths: Sequence[Path], *, host: str = "127.0.0.1", port: int = 8000,
          on_ready: Callable[[str], None] | None = None) -> None:
    """Serve ``paths`` until interrupted (Ctrl-C or SIGTERM).

    Args:
        paths: gamedb files; each is served under its file name.
        host, port: where to listen (port 0: any free port).
        on_ready: called with the server's URL once it listens.

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch: a file cannot be served.
        OSError: the address cannot be bound (in use, not local).
    """
    app = create_app(paths)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=MAX_CONNECTIONS)
    config = uvicorn.Config(app, http="h11", h11_max_incomplete_event_size=MAX_HEAD,
                            log_level="warning", access_log=False,
                            limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE)
    bound = sock.getsockname()[1]
    if on_ready is not None:
        on_ready(f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{bound}/")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
