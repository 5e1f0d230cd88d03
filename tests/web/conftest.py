"""A real ``gamedb serve`` process on a free port, and an HTTP client for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

#: Test modules that need a server skip without the web extra (a conftest cannot skip).
WEB_EXTRA = 'the web extra is not installed: pip install -e ".[web]"'

DATA = Path(__file__).resolve().parents[2] / "data"
J8 = "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
OZ = "oshi_zumo_alesia=false_coins=50_min_bid=1_size=3.shipped.sqlite"
G7 = "goofspiel_num_cards=7_points_order=random_returns_type=win_loss_ties=discard.shipped.sqlite"
BOOK = ("goofspiel_num_cards=13_points_order=random_returns_type=point_difference_ties=discard"
        ".book.shipped.sqlite")
#: Small files built by the tests, by served name -> spec.
BUILT = {"tictoe.sqlite": "tictoe", "nim.sqlite": "nim(heaps=1-2-3)",
         "hackenbush.sqlite": "hackenbush"}


@dataclass
class Answer:
    status: int
    body: Any
    """The JSON answer (None when the body was not JSON)."""


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]
    paths: dict[str, Path]
    log: Any
    """The server's stderr (a temporary file)."""

    def get(self, path: str, timeout: float = 30, **params: str) -> Answer:
        """GET ``path`` with ``params`` (URL-encoded) and return status and JSON."""
        query = urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(f"{self.url}{path}{'?' * bool(query)}{query}",
                                        timeout=timeout) as response:
                return Answer(response.status, json.loads(response.read()))
        except urllib.error.HTTPError as error:
            body = error.read()
            try:
                return Answer(error.code, json.loads(body))
            except ValueError:
                return Answer(error.code, None)


def start_server(paths: list[Path], *options: str) -> Server:
    """Start ``gamedb serve`` on a free port (with ``options``) and wait for its ready
    line."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    log = tempfile.TemporaryFile("w+")  # a file, not a pipe: the server never blocks on it
    process = subprocess.Popen([sys.executable, "-m", "gamedb", "serve", *map(str, paths),
                                "--port", "0", *options], stdout=subprocess.PIPE, stderr=log,
                               text=True, env=env)
    line = process.stdout.readline() if process.stdout else ""
    if "http://" not in line:
        process.kill()
        log.seek(0)
        raise RuntimeError(f"gamedb serve did not start: {line}{log.read()}")
    url = line.split(" at ")[1].split()[0]
    return Server(url, process, {p.name: p for p in paths}, log)


def stop_server(server: Server) -> str:
    """Stop the server (SIGTERM) and return what it wrote on stderr."""
    server.process.terminate()
    server.process.communicate(timeout=20)
    server.log.seek(0)
    return server.log.read()


@pytest.fixture(scope="session")
def served_paths(tmp_path_factory: pytest.TempPathFactory, built: Any) -> list[Path]:
    """The shipped files and small built ones, the latter under names of their own
    (links to the session's shared builds, which are all named game.sqlite)."""
    folder = tmp_path_factory.mktemp("served")
    links = [folder / name for name in BUILT]
    for link in links:
        link.symlink_to(built(BUILT[link.name]))
    return [DATA / J8, DATA / OZ, DATA / G7, *links, DATA / BOOK]  # tictoe at 3: tests use it


@pytest.fixture(scope="session")
def server(served_paths: list[Path]) -> Iterator[Server]:
    running = start_server(served_paths)
    yield running
    assert running.process.poll() is None, "the server died during the tests"
    err = stop_server(running)  # SIGTERM: uvicorn shuts down cleanly
    assert "Traceback" not in err and running.process.returncode in (0, -15), err
