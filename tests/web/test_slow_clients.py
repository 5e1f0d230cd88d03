"""Slow and idle clients, and slow solves, never hold up the server's other requests.

An adversarial run found: 101 idle or slowly-sending sockets made every other request
503 and none was closed after 40 s; one slow ``/api/solve`` made every other request
wait (an ``/api/show`` of 15 ms took 2 s) and every other solve 429 for minutes.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.conftest import J8, WEB_EXTRA, Server, start_server, stop_server

pytest.importorskip("starlette", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)

from gamedb.web.server import HEAD_SECONDS  # noqa: E402  (needs the extra)

#: A solve of several seconds (Oshi-Zumo with 100 coins: 8 s on this machine), past the
#: limit the module's server is given.
SLOW = {"spec": "oshi_zumo(coins=100,size=3)", "position": "start"}
LIMIT = 2.0


@pytest.fixture(scope="module")
def limited(served_paths: list[Path]) -> Iterator[Server]:
    """A server whose solves may run ``LIMIT`` seconds."""
    running = start_server(served_paths, "--solve-seconds", str(LIMIT))
    yield running
    err = stop_server(running)
    assert "Traceback" not in err, err


def _address(server: Server) -> tuple[str, int]:
    host, port = server.url.split("//")[1].rstrip("/").split(":")
    return host, int(port)


def _open_sockets(server: Server, idle: int, half_sent: int) -> list[socket.socket]:
    sockets = []
    for i in range(idle + half_sent):
        sock = socket.create_connection(_address(server), timeout=10)
        if i >= idle:  # a request head that never ends (slowloris)
            sock.sendall(b"GET /api/dbs HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        sockets.append(sock)
    return sockets


def _closed(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_idle_and_half_sent_connections_do_not_block_other_requests(limited: Server) -> None:
    sockets = _open_sockets(limited, 150, 150)
    try:
        started = time.monotonic()
        answer = limited.get("api/dbs", timeout=10)
        assert answer.status == 200 and time.monotonic() - started < 2
    finally:
        for sock in sockets:
            sock.close()


def test_idle_and_half_sent_connections_are_closed_after_the_head_deadline(
        limited: Server) -> None:
    sockets = _open_sockets(limited, 20, 20)
    try:
        time.sleep(HEAD_SECONDS + 1.5)
        assert sum(map(_closed, sockets)) == len(sockets)
    finally:
        for sock in sockets:
            sock.close()


def _solve_folders() -> set[str]:
    folders = {tempfile.gettempdir(), "/dev/shm"}
    return {os.path.join(f, n) for f in folders if os.path.isdir(f) for n in os.listdir(f)
            if n.startswith("gamedb-solve-")}


def test_a_slow_solve_does_not_slow_other_requests_and_is_stopped_at_its_limit(
        limited: Server) -> None:
    before = _solve_folders()
    first = limited.get("api/solve", spec="nim(heaps=1-2)", position="start")
    assert first.status == 200  # the solver's process is started (1-2 s) and ready
    assert limited.get("api/show", db=J8, position="start").status == 200
    answers: list[object] = []
    solving = threading.Thread(target=lambda: answers.append(limited.get("api/solve", **SLOW)))
    started = time.monotonic()
    solving.start()
    time.sleep(0.5)
    shows = []
    while time.monotonic() - started < LIMIT - 0.3:
        asked = time.monotonic()
        assert limited.get("api/show", db=J8, position="start").status == 200
        shows.append(time.monotonic() - asked)
    busy = limited.get("api/solve", spec="nim(heaps=1-2)", position="start")
    solving.join(30)
    took = time.monotonic() - started
    assert shows and max(shows) < 0.5, shows
    assert busy.status == 429 and "another solve is running" in busy.body["error"]
    refused = answers[0]
    assert refused.status == 400, refused  # type: ignore[attr-defined]
    assert "took longer than 2 s" in refused.body["error"]  # type: ignore[attr-defined]
    assert "gamedb solve" in refused.body["error"]  # type: ignore[attr-defined]
    assert took < LIMIT + 6
    after = limited.get("api/solve", spec="nim(heaps=1-2)", position="start")
    assert after.status == 200 and after.body == first.body  # a new process answers
    time.sleep(0.5)
    assert not _solve_folders() - before  # the stopped solve removed its temporary file


def test_a_solve_past_its_memory_limit_is_stopped_and_the_next_one_answers() -> None:
    """The worker's resident memory is watched while it solves (``/api/solve`` of a
    big subgame once grew the server's solver without bound)."""
    from gamedb.web.app import SOLVE_LIMIT
    from gamedb.web.solving import MEMORY_CAP, SolveRefused, Solver, default_memory

    assert 0 < default_memory() <= MEMORY_CAP
    tight = Solver(SOLVE_LIMIT, seconds=60, memory=1)  # less than any process holds
    try:
        started = time.monotonic()
        with pytest.raises(SolveRefused, match="needed more than 1 B of memory, the "
                                               "server's limit, and was stopped; run gamedb "
                                               "solve") as refused:
            tight.solve(SLOW["spec"], SLOW["position"])
        assert refused.value.status == 400 and time.monotonic() - started < 30
        assert tight._worker is None  # stopped
        tight.memory = default_memory()
        assert tight.solve("nim(heaps=1-2)", "start")["value"] is not None  # a new worker
    finally:
        tight.stop()
