"""A real ``gamedb serve`` process on a free port, and an HTTP client for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason='the web extra is not installed: pip install -e ".[web]"')
pytest.importorskip("uvicorn", reason='the web extra is not installed: pip install -e ".[web]"')

DATA = Path(__file__).resolve().parents[2] / "data"
J8 = "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
OZ = "oshi_zumo_alesia=false_coins=50_min_bid=1_size=3.shipped.sqlite"
G7 = "goofspiel_num_cards=7_points_order=random_returns_type=win_loss_ties=discard.shipped.sqlite"
#: Small files built by the tests, by served name -> spec.
BUILT = {"tictoe.sqlite": "tictoe", "nim.sqlite": "nim(heaps=1-2-3)"}


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


def start_server(paths: list[Path]) -> Server:
    """Start ``gamedb serve`` on a free port and wait for its ready line."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    process = subprocess.Popen([sys.executable, "-m", "gamedb", "serve", *map(str, paths),
                                "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    line = process.stdout.readline() if process.stdout else ""
    if "http://" not in line:
        process.kill()
        raise RuntimeError(f"gamedb serve did not start: {line}{process.stderr.read() if process.stderr else ''}")
    url = line.split(" at ")[1].split()[0]
    return Server(url, process, {p.name: p for p in paths})


def stop_server(server: Server) -> str:
    """Stop the server and return what it wrote on stderr."""
    server.process.terminate()
    _, err = server.process.communicate(timeout=20)
    return err


@pytest.fixture(scope="session")
def served_paths(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from gamedb.build import build

    folder = tmp_path_factory.mktemp("served")
    built = [folder / name for name in BUILT]
    for path in built:
        build(BUILT[path.name], path)
    return [DATA / J8, DATA / OZ, DATA / G7, *built]


@pytest.fixture(scope="session")
def server(served_paths: list[Path]) -> Iterator[Server]:
    running = start_server(served_paths)
    yield running
    stop_server(running)
