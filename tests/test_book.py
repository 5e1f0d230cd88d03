"""Opening books: the top layers of a finished file, verified first, readable by every command."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gamedb.book import make_book
from gamedb.builder import build
from gamedb.cli import cli
from gamedb.store import NotSolved, open_db
from gamedb.store.errors import StoreError
from gamedb.verify import verify

SPEC = "goofspiel(num_cards=6,returns_type=point_difference)"


def _rows(path: Path, low: int = 0) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM states WHERE key >= ? ORDER BY key",
                            (low << 48,)).fetchall()


def test_a_book_holds_the_top_layers_exactly_and_reads_like_the_full_file(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    full = built(SPEC)
    book = make_book(full, tmp_path / "book.sqlite", 5)
    rows = _rows(Path(book.path))
    assert rows == _rows(full, 5) and len(rows) == book.positions == book.checked > 6
    assert {r[1] for r in rows} == {5, 6} and all(r[4] is not None for r in rows)
    assert book.sha256 == hashlib.sha256(Path(book.path).read_bytes()).hexdigest()
    with open_db(book.path) as small, open_db(full) as big:
        assert small.info().status == "complete" and small.info().states == len(rows)
        for position in ("start", "hand1=1,2,3,4,5,6 hand2=1,2,3,4,5,6 prizes=1,2,3,5,6 prize=4"):
            assert small.probe(position) == big.probe(position)
        with pytest.raises(NotSolved, match="an opening book: it holds layer 5 and up"):
            small.probe("hand1=1,2,3,4 hand2=1,2,3,4 prizes=1,2,3 prize=4")
    with sqlite3.connect(book.path) as conn:  # the readable views come along
        assert conn.execute("SELECT count(*) FROM positions").fetchone()[0] == len(rows)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    report = verify(book.path)  # layer 6 from layer 5; layer 5 was checked in the full file
    assert report.ok and report.checked == 6 and "its layer 5 was verified" in report.note


def test_a_book_is_refused_where_the_full_file_fails_and_nothing_is_left(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(built(SPEC), damaged)
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE states SET value = value + 0.5 WHERE key = "
                     "(SELECT min(key) FROM states WHERE layer = 4)")  # a successor of layer 5
    with pytest.raises(StoreError, match="fail to verify; no book written"):
        make_book(damaged, tmp_path / "book.sqlite", 5)
    assert not (tmp_path / "book.sqlite").exists()


@pytest.mark.parametrize("how", [{"strategies_from": 6}, {"values_only": True}])
def test_a_book_solves_the_strategies_its_source_does_not_store_as_the_build_stores_them(  # type: ignore[no-untyped-def]
        built, tmp_path: Path, how: dict[str, Any]) -> None:
    source = tmp_path / "split.sqlite"
    build(SPEC, source, **how)
    book = make_book(source, tmp_path / "book.sqlite", 5)
    assert _rows(Path(book.path)) == _rows(built(SPEC), 5)  # every strategy text, bit for bit
    with open_db(book.path) as small:
        assert small.stores_strategies(5) and small.meta["strategies_from"] == 5
        solved = small.meta["book_source"]["strategies_solved"]
        assert solved == ([5] if "strategies_from" in how else [5, 6])
    assert verify(book.path).ok


def test_a_book_refuses_strategies_it_would_solve_from_pages_or_past_its_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paged = tmp_path / "paged.sqlite"  # layers 1-5 pages, 6-7 rows without strategies
    build("goofspiel(num_cards=8,returns_type=point_difference)", paged, pages_below=6,
          strategies_from=8)
    with pytest.raises(StoreError, match=r"no strategies in layer 5 \(built with "
                                         r"--strategies-from 8\) and layer 5 is stored as "
                                         r"pages: make the book from layer 6,"):
        make_book(paged, tmp_path / "b.sqlite", 5)
    monkeypatch.setattr("gamedb.book.SOLVE_LIMIT", 2_000)  # layer 6: 38,976; 7: 1,624
    with pytest.raises(StoreError, match=r"no strategies in layer 6 .* solving their 40,600 "
                                         r"positions is past the book's 2,000: make the "
                                         r"book from layer 7,"):
        make_book(paged, tmp_path / "b.sqlite", 6)
    assert not (tmp_path / "b.sqlite").exists()
    book = make_book(paged, tmp_path / "b.sqlite", 7)
    assert book.positions == 1_632 and verify(book.path).ok


def test_a_book_needs_a_finished_file_and_a_new_name(tmp_path: Path) -> None:
    split = tmp_path / "split.sqlite"
    build(SPEC, split, strategies_from=6)
    with pytest.raises(StoreError, match="has no layer 9 or above"):
        make_book(split, tmp_path / "b.sqlite", 9)
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(b"mine")
    with pytest.raises(StoreError, match="exists; choose a new file name"):
        make_book(split, taken, 6)
    assert taken.read_bytes() == b"mine"


def test_book_command_prints_the_checksum_line_and_errors_in_one_line(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "b.sqlite"
    result = CliRunner().invoke(cli, ["book", str(built(SPEC)), str(out), "--from-layer", "6",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{hashlib.sha256(out.read_bytes()).hexdigest()}  b.sqlite\n"
    again = CliRunner().invoke(cli, ["book", str(built(SPEC)), str(out), "--from-layer", "6"])
    assert again.exit_code == 1 and again.stderr.strip().splitlines() == [
        f"Error: {out} exists; choose a new file name"]
    missing = CliRunner().invoke(cli, ["book", str(built(SPEC)), str(tmp_path / "c.sqlite")])
    assert missing.exit_code == 2 and "--from-layer" in missing.stderr


def test_the_equilibrium_plays_the_book_and_stops_in_one_line_beyond_it(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gamedb.play.equilibrium import Equilibrium

    full = built(SPEC)
    book = make_book(full, tmp_path / "book.sqlite", 5)
    with open_db(book.path) as small, open_db(full) as big:
        start = small.game.parse_position("hand1=1,2,3,4,5,6 hand2=1,2,3,4,5,6 prizes=1,2,4,5,6 "
                                          "prize=3")
        assert Equilibrium(small.game, small).strategies(start) == \
            Equilibrium(big.game, big).strategies(start)
    code = CliRunner().invoke(cli, ["match", book.path, "equilibrium", "random", "--games", "3"])
    *progress, error = code.stderr.strip().splitlines()  # the games move in step: a round
    assert code.exit_code == 1 and all("games/s]" in line for line in progress)  # was played
    assert error.startswith("Error: ") and "is beyond the opening book book.sqlite (layer 5 " \
        "and up)" in error


def test_a_book_of_an_impartial_game_keeps_the_grundy_values_of_its_layers(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    full = built("nim(heaps=1-3-5-7)")
    book = make_book(full, tmp_path / "book.sqlite", 12)
    query = "SELECT key, grundy FROM grundy WHERE key >= ? ORDER BY key"
    with sqlite3.connect(full) as big, sqlite3.connect(book.path) as small:
        kept = small.execute(query, (0,)).fetchall()
        assert kept == big.execute(query, (12 << 48,)).fetchall() and len(kept) == book.positions
    with open_db(book.path) as db:
        assert db.probe("heaps=1,3,5,6 mover=2").grundy == 1


SHIPPED_BOOK = Path(__file__).resolve().parents[1] / "data" / (
    "goofspiel_num_cards=13_points_order=random_returns_type=point_difference_ties=discard"
    ".book.shipped.sqlite")
BELOW = ("hand1=3,4,5,6,7,8,9,10,11,12,13 hand2=1,2,3,4,5,6,8,9,10,12,13 "
         "prizes=1,3,4,6,8,9,10,11,12,13 prize=5 diff=-9")


def test_show_below_the_shipped_book_suggests_no_command_that_is_refused() -> None:
    result = CliRunner().invoke(cli, ["show", str(SHIPPED_BOOK), BELOW])
    assert result.exit_code == 1 and "opening book" in result.stderr
    assert "gamedb solve" not in result.stderr and "too many positions below it" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_show_below_a_small_book_still_suggests_solve(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    book = make_book(built(SPEC), tmp_path / "g6.book.sqlite", 5).path
    result = CliRunner().invoke(cli, ["show", book, "hand1=1,2,3 hand2=4,5,6 prizes=1,2 prize=3 diff=0"])
    assert result.exit_code == 1 and "try: gamedb solve" in result.stderr, result.output


def test_info_on_a_book_says_it_is_one() -> None:
    result = CliRunner().invoke(cli, ["info", str(SHIPPED_BOOK)])
    assert result.exit_code == 0 and "opening book" in result.stdout
    assert "layer 12 and up" in result.stdout and "g13.sqlite" in result.stdout


def test_a_book_of_a_file_whose_meta_was_changed_says_what_changed(tmp_path: Path) -> None:
    """It said ``0 position(s) of layers 3 and up fail to verify``: every position
    passes, ``meta`` is what lies (here: strategies stored below its ``strategies_from``,
    in keyed pages)."""
    source = tmp_path / "j4.sqlite"
    build("jujitsu(num_cards=4)", source, page_min=1)
    with sqlite3.connect(source) as conn:
        conn.execute("INSERT INTO meta VALUES ('strategies_from', '3')")
    conn.close()
    with pytest.raises(StoreError) as refused:
        make_book(source, tmp_path / "book.sqlite", 3)
    assert str(refused.value) == (
        f"{source}: meta says strategies_from 3 (no strategy stored below layer 3), but 24 "
        "position(s) store strategies, from layer 1: the flag was changed; no book written")
    assert not (tmp_path / "book.sqlite").exists()


def test_a_book_of_a_file_whose_every_layer_is_values_only_pages_names_no_layer(
        tmp_path: Path) -> None:
    """It said ``make the book from layer 4`` (the top, itself a page layer without
    strategies), and from layer 4 the same again."""
    source = tmp_path / "v4.sqlite"
    build("jujitsu(num_cards=4)", source, page_min=1, values_only=True)
    for layer in (2, 4):
        with pytest.raises(StoreError) as refused:
            make_book(source, tmp_path / "b.sqlite", layer)
        assert str(refused.value) == (
            f"{source} stores no strategies in layer {layer} (built with --values-only) "
            "and layer 4 is stored as pages: no layer can start a book; make the book "
            "from a build without --values-only")
    assert not (tmp_path / "b.sqlite").exists()


@pytest.mark.parametrize("said", [99, -1, 4, 6])
def test_a_book_whose_lowest_layer_meta_names_another_is_not_sound(  # type: ignore[no-untyped-def]
        built, tmp_path: Path, said: int) -> None:
    """``meta.book_from_layer`` changed to a layer the book does not start at: 99 (no
    layer) made verify check nothing and say only "no position was checked"; -1 and 4
    (below its lowest layer) made it fail every position of layer 5 for a successor the
    book never held. Now it names the entry, as for the other meta entries."""
    book = make_book(built(SPEC), tmp_path / "book.sqlite", 5).path
    with sqlite3.connect(book) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE name = 'book_from_layer'", (str(said),))
    report = verify(book)
    assert not report.ok
    assert report.problems[:1] == [f"meta book_from_layer {said} is not this book's lowest "
                                   "layer, 5"], report.problems
    result = CliRunner().invoke(cli, ["verify", str(book)])
    assert result.exit_code == 1
    assert f"meta book_from_layer {said} is not this book's lowest layer, 5" in result.stderr
