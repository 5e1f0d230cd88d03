"""A served file damaged while the server runs (issue 21): the others are still served,
the damaged one's answers say what is wrong with it, as JSON with a 4xx status, and no
answer shows a folder of the server's."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.conftest import WEB_EXTRA, Server, start_server, stop_server

pytest.importorskip("starlette", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)


@pytest.fixture
def two_served(built, tmp_path: Path) -> Iterator[tuple[Server, Path]]:  # type: ignore[no-untyped-def]
    """A server of two healthy files; the test damages ``bad.sqlite`` once it runs."""
    good, bad = tmp_path / "good.sqlite", tmp_path / "bad.sqlite"
    shutil.copy(built("jujitsu(num_cards=4)"), good)
    shutil.copy(built("jujitsu(num_cards=5)"), bad)
    running = start_server([good.resolve(), bad.resolve()])
    try:
        yield running, bad
    finally:
        err = stop_server(running)
        assert "Traceback" not in err, err


@pytest.mark.parametrize("damage, said", [
    ("UPDATE meta SET value = 'NaN' WHERE name = 'root_value'", "root_value"),
    ("UPDATE meta SET value = '{broken' WHERE name = 'params'", "is not JSON"),
    ("DROP VIEW positions", "is missing"),
])
def test_one_damaged_file_leaves_the_others_served(two_served: tuple[Server, Path],
                                                   damage: str, said: str) -> None:
    """One damaged file made ``/api/dbs`` answer 500 for all; its ``/api/show`` answered
    500, with the server's absolute path."""
    server, bad = two_served
    with sqlite3.connect(bad) as conn:
        conn.execute(damage)
    conn.close()
    folder = str(bad.resolve().parent)
    dbs = server.get("api/dbs")
    assert dbs.status == 200, dbs.body
    good, damaged = dbs.body["dbs"]
    assert good["name"] == "good.sqlite" and good["info"]["spec"].startswith("jujitsu")
    assert damaged["name"] == "bad.sqlite" and said in damaged["error"]
    assert "info" not in damaged and folder not in str(dbs.body)
    show = server.get("api/show", db="bad.sqlite", position="start")
    assert show.status == 422 and said in show.body["error"], show.body
    assert "bad.sqlite" in show.body["error"] and folder not in show.body["error"]
    assert server.get("api/show", db="good.sqlite", position="start").status == 200


def test_a_file_cut_short_while_served_is_a_422_from_show_and_sql_alike(
        two_served: tuple[Server, Path]) -> None:
    """``/api/sql`` answered 400 "database disk image is malformed", where ``/api/show``
    answers 422 with "(the file is damaged ...)", as docs/api.md says of a damaged file."""
    server, bad = two_served
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    said = "bad.sqlite: database disk image is malformed (the file is damaged; rebuild it " \
        "or restore a copy)"
    show = server.get("api/show", db="bad.sqlite", position="start")
    sql = server.get("api/sql", db="bad.sqlite", q="SELECT count(*) FROM states")
    assert (show.status, show.body) == (sql.status, sql.body) == (422, {"error": said})
    assert server.get("api/sql", db="good.sqlite", q="SELECT count(*) FROM states").status == 200


def test_head_is_answered(two_served: tuple[Server, Path]) -> None:
    server, _ = two_served
    for path in ("", "api/dbs", "static/explorer.js"):
        request = urllib.request.Request(f"{server.url}{path}", method="HEAD")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200 and response.read() == b""


def test_a_get_with_a_big_body_is_not_a_500(two_served: tuple[Server, Path]) -> None:
    """A GET with a 2 MB body answered 500."""
    server, _ = two_served
    host, port = server.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    body = b"x" * 2_000_000
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET /api/dbs HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                     % len(body))
        try:
            sock.sendall(body)
            head = sock.recv(200)
        except (ConnectionResetError, BrokenPipeError):
            head = b""  # the server cut the connection: refused as well
    assert head == b"" or not head.split()[1].startswith(b"5"), head
    assert server.get("api/dbs").status == 200
