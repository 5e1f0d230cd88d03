"""``/api/sql``: read-only SQL on a served file, page layers included, bounded in rows,
time and statements at once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.cli import cli
from tests.web.conftest import DATA, J8, WEB_EXTRA, Server, start_server, stop_server

pytest.importorskip("starlette", reason=WEB_EXTRA)
pytest.importorskip("uvicorn", reason=WEB_EXTRA)

#: A statement that runs for minutes: SQLite counts to a billion.
SLOW = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) "
        "SELECT count(*) FROM c")


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6-card win/loss Goofspiel with its layers of 200 positions or more as pages."""
    path = tmp_path_factory.mktemp("sql") / "g6.sqlite"
    build("goofspiel(num_cards=6)", path, page_min=200)
    return path


@pytest.fixture(scope="module")
def sql_server(paged: Path) -> Iterator[Server]:
    running = start_server([paged, DATA / J8], "--sql-seconds", "2")
    yield running
    err = stop_server(running)
    assert "Traceback" not in err, err


def test_an_aggregate_sees_every_position_as_gamedb_sql_does(sql_server: Server,
                                                             paged: Path) -> None:
    sql = "SELECT layer, count(*) AS n_positions, avg(value) FROM states GROUP BY layer"
    answer = sql_server.get("api/sql", db=paged.name, q=sql)
    cli_rows = json.loads(CliRunner().invoke(cli, ["sql", str(paged), sql, "--json"]).stdout)
    assert answer.status == 200 and answer.body["truncated"] is False
    assert answer.body["columns"] == ["layer", "n_positions", "avg(value)"]
    assert [dict(zip(answer.body["columns"], row)) for row in answer.body["rows"]] == cli_rows
    total = CliRunner().invoke(cli, ["info", str(paged), "--json"])
    assert sum(row[1] for row in answer.body["rows"]) == json.loads(total.stdout)["states"]


def test_rows_past_the_cap_are_cut_and_said(sql_server: Server) -> None:
    answer = sql_server.get("api/sql", db=J8, q="SELECT key, value FROM states")
    assert answer.status == 200 and answer.body["truncated"] is True
    assert len(answer.body["rows"]) == 1000


@pytest.mark.parametrize("params, status, said", [
    ({"db": J8, "q": "DELETE FROM states"}, 400, "readonly"),
    ({"db": J8, "q": "SELEC 1"}, 400, "syntax error"),
    ({"db": J8, "q": "ATTACH 'x.sqlite' AS x"}, 400, "not authorized"),
    ({"db": "nope.sqlite", "q": "SELECT 1"}, 404, "no served file"),
    ({"db": J8}, 400, "missing parameter 'q'"),
    ({"db": J8, "q": SLOW}, 400, "more than 2 s"),
])
def test_bad_statements_are_one_line_errors(sql_server: Server, params: dict[str, str],
                                            status: int, said: str) -> None:
    answer = sql_server.get("api/sql", **params)
    assert answer.status == status and said in answer.body["error"]
    assert "\n" not in answer.body["error"] and str(DATA) not in answer.body["error"]


def test_a_third_statement_at_once_waits_its_turn(sql_server: Server) -> None:
    with ThreadPoolExecutor(3) as pool:
        answers = list(pool.map(lambda _: sql_server.get("api/sql", db=J8, q=SLOW), range(3)))
    assert sorted(a.status for a in answers) == [400, 400, 429]
    assert sql_server.get("api/sql", db=J8, q="SELECT 1 AS one").body["rows"] == [[1]]
