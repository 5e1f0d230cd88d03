"""Datasette metadata: every table, view and column of a file is described, and the
canned queries run in plain SQLite."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from gamedb.cli import cli
from gamedb.store import open_db
from gamedb.store.datasette import datasette_metadata


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=4)", "goofspiel(num_cards=4)", "tictoe"])
def test_every_column_of_every_table_and_view_is_described(built, spec: str) -> None:  # type: ignore[no-untyped-def]
    path = built(spec)
    with open_db(path) as db:
        meta = datasette_metadata(db, database="g")
    tables = meta["databases"]["g"]["tables"]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        assert set(names) == set(tables)
        for name in names:
            columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
            if name == "alembic_version":
                assert tables[name] == {"hidden": True}
                continue
            assert tables[name]["description"] and list(tables[name]["columns"]) == columns
            assert all(tables[name]["columns"].values())
    assert meta["title"] == f"gamedb: {db.game.spec}"


def test_the_canned_queries_run_and_the_start_query_finds_the_start(built) -> None:  # type: ignore[no-untyped-def]
    path = built("jujitsu(num_cards=4)")
    with open_db(path) as db:
        queries = datasette_metadata(db, database="g")["databases"]["g"]["queries"]
        root = db.meta["root_keys"][0]
        start = db.probe("start")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        rows = conn.execute(queries["start"]["sql"]).fetchall()
        assert {r[0] for r in rows} == {root} and len(rows) == sum(map(len, start.strategies.values()))
        assert conn.execute(queries["by_key"]["sql"], {"key": root}).fetchall() == rows
        assert len(conn.execute(queries["layers"]["sql"]).fetchall()) == 4


def test_the_command_prints_the_metadata_named_as_datasette_names_the_file(built) -> None:  # type: ignore[no-untyped-def]
    path = built("tictoe")
    result = CliRunner().invoke(cli, ["datasette-metadata", str(path)])
    assert result.exit_code == 0 and list(json.loads(result.stdout)["databases"]) == [path.stem]
    result = CliRunner().invoke(cli, ["datasette-metadata", str(path.with_name("missing.sqlite"))])
    assert result.exit_code == 1 and "no such database file" in result.stderr
