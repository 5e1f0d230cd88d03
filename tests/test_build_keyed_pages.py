"""Keyed page layers (codec ``rows-shuffle-zlib``): each page holds its keys, values,
gaps and both strategies; every reader answers as from rows, to the bit."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb import probe as stdlib_probe
from gamedb.book import make_book
from gamedb.builder import build
from gamedb.builder.progress import Counting
from gamedb.cli import cli
from gamedb.store.database import open_db
from gamedb.store.pages import ROWS
from gamedb.verify import verify
from tests.stored import every_position, stored_tables

WIN_LOSS = "goofspiel(num_cards=7)"
POINTS = "goofspiel(num_cards=7,returns_type=point_difference)"


@pytest.fixture(scope="module", params=[WIN_LOSS, POINTS])
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[Path, Path]:
    """A 7-card Goofspiel as rows everywhere, and with its layers of 1,000 positions or
    more as keyed pages of about 700 positions, built by two workers."""
    where = tmp_path_factory.mktemp("keyed")
    rows, pages = where / "rows.sqlite", where / "pages.sqlite"
    build(request.param, rows, page_min=0, strategies_from=0)
    build(request.param, pages, page_min=1000, page_size=700, strategies_from=0, workers=2)
    return rows, pages


def test_every_value_gap_and_strategy_is_identical_to_the_row_build(pair: tuple[Path, Path]
                                                                    ) -> None:
    with open_db(pair[1]) as db:
        keyed = {layer for layer, about in db.pages.layers.items() if about.codec == ROWS}
    with sqlite3.connect(pair[0]) as conn:
        big = {layer for (layer,) in conn.execute("SELECT layer FROM layers WHERE states >= 1000")}
    assert keyed == big and len(keyed) >= 3
    rows, pages = every_position(pair[0]), every_position(pair[1])
    assert len(rows) == len(pages) > 30_000 and rows == pages
    assert all(a is not None and b is not None for *_, a, b in pages)  # strategies kept


def test_keyed_layers_are_pages_of_about_the_page_size_not_rows(pair: tuple[Path, Path]) -> None:
    with sqlite3.connect(pair[1]) as conn:
        row_layers = {layer for (layer,) in conn.execute("SELECT DISTINCT layer FROM states")}
        counts = dict(conn.execute("SELECT layer, sum(count) FROM pages GROUP BY layer"))
        largest = conn.execute("SELECT max(count), count(*) FROM pages").fetchone()
        states = dict(conn.execute("SELECT layer, states FROM layers"))
    assert not row_layers & set(counts)
    assert {layer: states[layer] for layer in counts} == counts
    assert largest[1] > 20 and 350 <= largest[0] < 1400  # whole blocks, about 700


def test_the_file_is_a_fraction_of_the_row_file(pair: tuple[Path, Path]) -> None:
    assert pair[1].stat().st_size < 0.4 * pair[0].stat().st_size


def test_probe_answers_the_same_from_pages_and_rows(pair: tuple[Path, Path]) -> None:
    with open_db(pair[0]) as rows, open_db(pair[1]) as pages:
        assert pages.probe("start") == rows.probe("start")
        keys = np.concatenate([part.keys for layer in (3, 4, 5)
                               for part in rows.layer_rows(layer, strategies=False)])
        for key in np.random.default_rng(3).choice(keys, 40, replace=False).tolist():
            state = rows.game.decode(key)
            assert pages.probe(state) == rows.probe(state)


def test_the_standard_library_probe_reads_keyed_pages_to_the_bit(pair: tuple[Path, Path]) -> None:
    with sqlite3.connect(pair[0]) as conn:
        keys = [k for (k,) in conn.execute("SELECT key FROM states ORDER BY key")]
    picks = np.random.default_rng(7).choice(len(keys), 150, replace=False)
    with stdlib_probe.GameFile(pair[0]) as rows, stdlib_probe.GameFile(pair[1]) as pages:
        for i in picks.tolist():
            assert pages.probe(keys[i]) == rows.probe(keys[i])
        absent = next(k for k in range(keys[len(keys) // 2], keys[-1]) if k not in set(keys))
        with pytest.raises(stdlib_probe.NotStored):
            pages.probe(absent)


def test_verify_checks_every_position_of_keyed_pages(pair: tuple[Path, Path]) -> None:
    report = verify(pair[1])
    with sqlite3.connect(pair[1]) as conn:
        total = conn.execute("SELECT sum(states) FROM layers").fetchone()[0]
    assert report.ok and report.checked == total


def test_a_book_copies_keyed_pages(pair: tuple[Path, Path], tmp_path: Path) -> None:
    book = tmp_path / "book.sqlite"
    report = make_book(pair[1], book, 4)
    with open_db(pair[1]) as whole, open_db(book) as opening:
        assert report.positions == sum(x.states for x in whole.info().layers if x.layer >= 4)
        keys = next(whole.layer_rows(4, strategies=False)).keys
        for key in keys[::max(1, len(keys) // 20)].tolist():
            state = whole.game.decode(key)
            assert opening.probe(state) == whole.probe(state)


def test_a_killed_keyed_build_resumes_to_the_same_file(tmp_path: Path) -> None:
    done: list[int] = []

    def stop_after_five(solved: int, total: int) -> None:
        done.append(solved)
        if len(done) == 5:
            raise KeyboardInterrupt
    settings = dict(page_min=500, page_size=300, chunk_size=300, strategies_from=0)
    build(WIN_LOSS.replace("7", "6"), tmp_path / "whole.sqlite", **settings)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        build(WIN_LOSS.replace("7", "6"), tmp_path / "cut.sqlite", observer=Counting(stop_after_five),
              **settings)  # type: ignore[arg-type]
    with sqlite3.connect(tmp_path / "cut.sqlite") as conn:
        assert 0 < conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    build(WIN_LOSS.replace("7", "6"), tmp_path / "cut.sqlite", strategies_from=0)  # its own
    whole, cut = (stored_tables(tmp_path / f"{name}.sqlite") for name in ("whole", "cut"))
    assert whole == cut and len(whole[0]) > 5


def test_resuming_with_another_page_minimum_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build(WIN_LOSS.replace("7", "5"), path, page_min=100,
              observer=Counting(lambda *_: (_ for _ in ()).throw(KeyboardInterrupt)))
    result = CliRunner().invoke(cli, ["build", WIN_LOSS.replace("7", "5"), "--db", str(path),
                                      "--page-min", "0"])
    assert result.exit_code == 1 and "--page-min 100" in result.output
    assert "Traceback" not in result.output


def test_a_damaged_keyed_page_is_one_line_for_every_reader(pair: tuple[Path, Path],
                                                           tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    shutil.copy(pair[1], path)
    with sqlite3.connect(path) as conn:
        layer = conn.execute("SELECT min(layer) FROM pages").fetchone()[0]
        key = conn.execute("SELECT first_key FROM pages WHERE layer = ? AND page = 0",
                           (layer,)).fetchone()[0]
        conn.execute("UPDATE pages SET data = x'01ff00ff' WHERE layer = ?", (layer,))
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"layer {layer}" in result.output
    with stdlib_probe.GameFile(path) as book:
        with pytest.raises(stdlib_probe.UnreadableFile, match="is damaged"):
            book.probe(key)


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=9)",
                                  "hackenbush(edges=0-1,1-2,2-3,3-0,0-4,4-5,5-6,6-4,1-5,2-6)"])
def test_the_enumerating_builder_writes_keyed_pages_too(spec: str, tmp_path: Path) -> None:
    """Families without an index keep rows by default; --page-min pages them, killed
    and resumed, with the same positions as the row build (and Grundy values)."""
    rows, pages = tmp_path / "rows.sqlite", tmp_path / "pages.sqlite"
    build(spec, rows)
    done: list[int] = []

    def stop_after_four(solved: int, total: int) -> None:
        done.append(solved)
        if len(done) == 4:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        build(spec, pages, page_min=40, chunk_size=60, observer=Counting(stop_after_four))
    build(spec, pages, workers=2)
    with sqlite3.connect(rows) as conn:
        assert conn.execute("SELECT count(*) FROM page_layers").fetchone()[0] == 0
        grundy = conn.execute("SELECT * FROM grundy ORDER BY key").fetchall()
    with sqlite3.connect(pages) as conn:
        assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] > 4
        assert conn.execute("SELECT * FROM grundy ORDER BY key").fetchall() == grundy
    assert every_position(rows) == every_position(pages)
    assert verify(pages).ok


def test_sql_reads_every_position_of_a_file_with_pages(pair: tuple[Path, Path]) -> None:
    """``gamedb sql`` answers over rows and pages alike (temporary tables), through the
    documented names, and leaves the file as it was."""
    before = pair[1].read_bytes()
    query = ("SELECT layer, count(*), sum(value), count(strategy1), count(gap) "
             "FROM states GROUP BY layer")
    got = CliRunner().invoke(cli, ["sql", str(pair[1]), query, "--json"])
    want = CliRunner().invoke(cli, ["sql", str(pair[0]), query, "--json"])
    assert got.exit_code == 0 and got.stdout == want.stdout
    for view in ("SELECT count(*), sum(prob) FROM strategies",
                 "SELECT count(*), min(position) FROM positions"):
        assert CliRunner().invoke(cli, ["sql", str(pair[1]), view]).stdout == \
            CliRunner().invoke(cli, ["sql", str(pair[0]), view]).stdout
    rows_only = CliRunner().invoke(cli, ["sql", str(pair[1]), "SELECT count(*) FROM states",
                                         "--no-pages"])
    assert rows_only.exit_code == 0 and "with --pages" in rows_only.stderr
    write = CliRunner().invoke(cli, ["sql", str(pair[1]), "DELETE FROM states"])
    assert write.exit_code == 1 and "Traceback" not in write.output
    assert pair[1].read_bytes() == before
