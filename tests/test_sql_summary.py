"""SQL aggregates over every position from per-layer summaries of page layers
(``gamedb.store.sqlsummary``): the same answers as SQLite over rows, at any size."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gamedb.builder import build
from gamedb.cli import cli
from gamedb.store import sqlpages
from gamedb.store.errors import DamagedFile
from gamedb.store.export import QueryError, run_query
from gamedb.store.sqlsummary import rewrite

POINTS = "goofspiel(num_cards=7,returns_type=point_difference)"
WIN_LOSS = "goofspiel(num_cards=6)"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Each game as rows everywhere and with page layers: 7-card point difference with
    values-only pages under a product of keys (layers 1-6), 6-card win/loss with keyed
    pages holding gaps and strategies (layers of 200 positions or more)."""
    where = tmp_path_factory.mktemp("summary")
    made = {}
    for name, spec, paged in (("points", POINTS, {"pages_below": 7, "page_size": 300}),
                              ("winloss", WIN_LOSS, {"page_min": 200})):
        rows, pages = where / f"{name}-rows.sqlite", where / f"{name}-pages.sqlite"
        build(spec, rows, strategies_from=7 if name == "points" else None, page_min=0)
        build(spec, pages, strategies_from=7 if name == "points" else None, chunk_size=700,
              **paged)  # type: ignore[arg-type]
        made[name] = (rows, pages)
    return made


def _answer(path: Path, sql: str, pages: bool) -> tuple[list[str], list[tuple[Any, ...]]]:
    with run_query(path, sql, pages=pages) as (columns, rows):
        return columns, list(rows)


QUERIES = [
    "SELECT layer, count(*), avg(value) FROM states GROUP BY layer",
    "SELECT layer, count(value) AS n_values, sum(value), total(value), min(value), max(value),"
    " count(gap), max(gap), min(gap), avg(gap) FROM positions GROUP BY layer ORDER BY layer DESC",
    "SELECT count(*), avg(layer), sum(layer), min(layer), max(layer), count(key) FROM states",
    "SELECT layer, round(avg(value), 6) AS mean, 1 / avg(value) FROM states "
    "WHERE layer BETWEEN 2 AND 5 AND layer <> 4 GROUP BY layer HAVING count(*) > 10 "
    "ORDER BY mean LIMIT 3;",
    "SELECT count(*) c, max(value) - min(value) AS spread FROM states WHERE layer IN (3, 6)",
    "SELECT count(*) FROM states WHERE layer > 100",
    "SELECT sum(value), avg(gap), min(gap) FROM states WHERE layer = 2",
    "SELECT layer FROM states GROUP BY layer ORDER BY layer",  # no aggregate, grouped
    "SELECT layer % 2 AS parity, count(*), max(value) FROM states GROUP BY layer % 2",
    # the columns keep SQLite's names: the item's text up to the next token
    "SELECT abs(max(value)), coalesce(0, max(value)), 1 + (count(*)), ((count(*))) FROM states",
    "SELECT /* c */ count(*) /* d */, max(value)-- e\n FROM states -- tail",
    "SELECT count(*) AS c, max(value) m FROM states",
    "SELECT count(*) FROM states WHERE layer IN (SELECT 3 ORDER BY 1)",  # ORDER BY in WHERE
    "SELECT layer % 2 AS p, count(*) FROM states GROUP BY p ORDER BY p",
    "SELECT layer % 2, count(*) FROM states GROUP BY 1 ORDER BY layer % 2 DESC",
    'SELECT max(value) a, count(gap) AS "q r" FROM states GROUP BY layer ORDER BY a DESC, 1',
]


def _same_answer(files: dict[str, tuple[Path, Path]], game: str, sql: str) -> None:
    rows_file, pages_file = files[game]
    with sqlite3.connect(pages_file) as conn:
        assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] > 1
    expected_columns, expected = _answer(rows_file, sql, pages=False)
    columns, got = _answer(pages_file, sql, pages=True)
    assert columns == expected_columns and len(got) == len(expected)
    for mine, theirs in zip(got, expected):
        for a, b in zip(mine, theirs):
            if isinstance(b, float) and isinstance(a, float):
                # counts, least and largest exact; sums added in another order
                assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (a, b)
            else:
                assert a == b and type(a) is type(b)


@pytest.mark.parametrize("game", ["points", "winloss"])
@pytest.mark.parametrize("sql", QUERIES)
def test_aggregates_over_page_layers_equal_sqlite_over_rows(
        files: dict[str, tuple[Path, Path]], game: str, sql: str) -> None:
    assert rewrite(sql) is not None
    _same_answer(files, game, sql)


#: Statements a summary answered wrong (now left to SQLite over the positions).
ONCE_WRONG = [
    # a bare layer outside the grouping: SQLite takes it from one position of the group
    "SELECT layer, count(*) FROM states",
    "SELECT layer % 2 AS p, layer, count(*) FROM states GROUP BY layer % 2",
    "SELECT layer % 2 AS p, count(*) FROM states GROUP BY p ORDER BY layer",
    "SELECT layer % 2 AS p, count(*) FROM states GROUP BY layer % 2 HAVING layer > 2",
    # an alias named like a column: GROUP BY and HAVING read the column
    "SELECT layer % 2 AS value, count(*) FROM states GROUP BY value",
    "SELECT layer, count(*) AS value FROM states GROUP BY layer HAVING value > 0.5",
    "SELECT layer, count(*) gap FROM states GROUP BY layer HAVING gap > 0.001",
    "SELECT layer % 3 AS position, count(*) FROM positions GROUP BY position",
    # an aggregate in a subquery is the subquery's: one row, of 1
    "SELECT (SELECT count(*)), count(*) FROM states",
    "SELECT count(*) FROM states GROUP BY layer HAVING count(*) > (SELECT count(*))",
]


@pytest.mark.parametrize("game", ["points", "winloss"])
@pytest.mark.parametrize("sql", ONCE_WRONG)
def test_statements_a_summary_answered_wrong_are_left_to_sqlite(
        files: dict[str, tuple[Path, Path]], game: str, sql: str) -> None:
    assert rewrite(sql) is None
    _same_answer(files, game, sql)


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM states WHERE layer >",
    "SELECT count(*) FROM states WHERE layer = nosuch(1)",
    "SELECT count(*) FROM states WHERE layer = 'x' GROUP BY",
])
def test_a_statement_sqlite_refuses_is_its_one_line_error(
        files: dict[str, tuple[Path, Path]], sql: str) -> None:
    rows_file, pages_file = files["winloss"]
    with pytest.raises(QueryError) as expected:
        _answer(rows_file, sql, pages=False)
    with pytest.raises(QueryError) as got:
        _answer(pages_file, sql, pages=True)
    assert str(got.value).split(": ", 1)[1] == str(expected.value).split(": ", 1)[1]


def test_the_summary_reads_only_the_page_layers_the_where_clause_keeps(
        files: dict[str, tuple[Path, Path]]) -> None:
    seen: list[tuple[int, int]] = []
    pages_file = files["points"][1]
    with sqlite3.connect(pages_file) as conn:
        wanted = conn.execute("SELECT sum(count) FROM pages WHERE layer IN (2, 5)").fetchone()[0]
    with run_query(pages_file, "SELECT count(*) FROM states WHERE layer IN (2, 5, 7)",
                   pages=True, on_progress=lambda done, total: seen.append((done, total))
                   ) as (_, rows):
        (count,), = list(rows)
    assert seen[-1] == (wanted, wanted)
    with sqlite3.connect(files["points"][0]) as conn:
        assert count == conn.execute("SELECT count(*) FROM states WHERE layer IN (2, 5, 7)"
                                     ).fetchone()[0]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM states",                                  # one row per position
    "SELECT value FROM states WHERE layer = 3",
    "SELECT layer FROM states",                              # no aggregate, no GROUP BY
    "SELECT layer * 2 AS twice FROM positions WHERE layer > 3",
    "SELECT count(*) FROM states WHERE value > 0",           # a condition on value
    "SELECT count(DISTINCT value) FROM states",
    "SELECT count(*) FROM states AS s",                      # aliases, joins, subqueries
    "SELECT count(*) FROM states JOIN layers USING (layer)",
    "SELECT count(*) FROM states WHERE layer IN (SELECT layer FROM layers)",
    "SELECT count(*) FROM strategies",
    "SELECT min(value, 3) FROM states",                      # scalar min
    "SELECT sum(key) FROM states",
    "SELECT count(*) AS n FROM states",                      # an alias naming a summary column
    "SELECT count(*) FROM states WHERE layer = ?",
    "SELECT count(*) FROM states; SELECT 1",
    "SELECT layer, count(*) FROM states GROUP BY layer UNION SELECT 1, 2",
    "SELECT avg(value) OVER () FROM states",
    'SELECT count(*) FROM "states"',
])
def test_statements_a_summary_cannot_answer_are_left_to_sqlite(sql: str) -> None:
    assert rewrite(sql) is None


def test_the_cli_answers_aggregates_over_pages_past_the_copy_limit(
        files: dict[str, tuple[Path, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlpages, "SQL_PAGE_LIMIT", 10)  # every file is "too big" to copy
    rows_file, pages_file = files["winloss"]
    sql = "SELECT layer, count(*) AS c FROM states GROUP BY layer"
    result = CliRunner().invoke(cli, ["sql", str(pages_file), sql, "--json"])
    expected = CliRunner().invoke(cli, ["sql", str(rows_file), sql, "--json"])
    assert result.exit_code == 0 and result.stdout == expected.stdout
    assert "note" not in result.stderr  # every position seen (a progress bar only)
    other = CliRunner().invoke(cli, ["sql", str(pages_file), "SELECT count(*) FROM states "
                                     "WHERE value > 0"])
    assert other.exit_code == 0 and "saw the rows alone" in other.stderr
    assert "counts, sums, averages" in other.stderr


def test_a_damaged_page_is_one_line_from_an_aggregate(
        files: dict[str, tuple[Path, Path]], tmp_path: Path) -> None:
    copy = tmp_path / "damaged.sqlite"
    copy.write_bytes(files["winloss"][1].read_bytes())
    with sqlite3.connect(copy) as conn:
        layer = conn.execute("SELECT min(layer) FROM pages").fetchone()[0]
        conn.execute("UPDATE pages SET data = x'00ff00ff' WHERE layer = ?", (layer,))
    with pytest.raises(DamagedFile):
        _answer(copy, "SELECT count(*) FROM states", pages=True)
    result = CliRunner().invoke(cli, ["sql", str(copy), "SELECT avg(value) FROM states"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and "damaged" in result.output
