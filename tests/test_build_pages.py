"""Builds with page layers: the same values as row builds, read by every reader."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gamedb import probe as stdlib_probe
from gamedb.builder import build
from gamedb.builder.progress import Counting, Quiet
from gamedb.cli import cli
from gamedb.games import GameError, load_game
from gamedb.builder.estimate import page_split
from gamedb.store.database import open_db
from gamedb.verify import verify
from tests.stored import stored_tables

POINTS = "goofspiel(num_cards={n},returns_type=point_difference)"


def _rows(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT key, value FROM states ORDER BY key").fetchall()
    return np.array([k for k, _ in rows], np.int64), np.array([v for _, v in rows])


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """7-card point difference as rows everywhere, and with layers 1-6 as small pages."""
    where = tmp_path_factory.mktemp("pages")
    rows, pages = where / "rows.sqlite", where / "pages.sqlite"
    build(POINTS.format(n=7), rows, strategies_from=7)
    build(POINTS.format(n=7), pages, strategies_from=7, pages_below=7, page_size=300,
          chunk_size=700, workers=2)
    return rows, pages


def test_every_value_is_bit_identical_to_the_row_build(pair: tuple[Path, Path]) -> None:
    keys, values = _rows(pair[0])
    with open_db(pair[1]) as db:
        found, paged = db.values_of(keys)
        assert sorted(db.pages.layers) == [1, 2, 3, 4, 5, 6]
    assert found.tolist() == keys.tolist()
    assert paged.tobytes() == values.tobytes()


def test_page_layers_hold_no_rows_and_several_pages(pair: tuple[Path, Path]) -> None:
    with sqlite3.connect(pair[1]) as conn:
        assert conn.execute("SELECT DISTINCT layer FROM states").fetchall() == [(7,)]
        pages = dict(conn.execute("SELECT layer, count(*) FROM pages GROUP BY layer"))
        counts = dict(conn.execute("SELECT layer, sum(count) FROM pages GROUP BY layer"))
        states = dict(conn.execute("SELECT layer, states FROM layers WHERE layer < 7"))
    assert counts == states and pages[4] > 1


@pytest.mark.parametrize("position", [
    "hand1=1,2,3 hand2=2,3,4 prizes=1,5 prize=6",  # layer 3: a page layer
    "hand1=1,2,3,4,5,6,7 hand2=1,2,3,4,5,6,7 prizes=1,2,3,4,5,6 prize=7",  # rows
    "start",
])
def test_probe_answers_the_same_from_pages_and_rows(pair: tuple[Path, Path], position: str) -> None:
    with open_db(pair[0]) as rows, open_db(pair[1]) as pages:
        assert pages.probe(position) == rows.probe(position)


def test_verify_checks_every_position_of_a_file_with_pages(pair: tuple[Path, Path]) -> None:
    report = verify(pair[1])
    assert report.ok and report.checked == sum(load_game(POINTS.format(n=7))
                                                  .indexed_face().size(k) for k in range(1, 8))


def test_the_standard_library_probe_reads_page_values(pair: tuple[Path, Path]) -> None:
    keys, values = _rows(pair[0])
    picks = np.random.default_rng(1).choice(len(keys), 200, replace=False)
    with stdlib_probe.GameFile(pair[1]) as book:
        got = [book.probe(int(keys[i])).value for i in picks]
        with pytest.raises(stdlib_probe.NotStored):
            book.probe(int(keys[0]) + 1 if int(keys[0]) + 1 not in set(keys.tolist()) else -1)
    assert got == values[picks].tolist()


def test_a_killed_page_build_resumes_to_the_same_pages(tmp_path: Path) -> None:
    spec, done = POINTS.format(n=6), []
    build(spec, tmp_path / "whole.sqlite", pages_below=6, strategies_from=6, page_size=50)

    def stop_after_three(solved: int, total: int) -> None:
        done.append(solved)
        if len(done) == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        build(spec, tmp_path / "cut.sqlite", pages_below=6, strategies_from=6, page_size=50,
              chunk_size=50, observer=Counting(stop_after_three))
    build(spec, tmp_path / "cut.sqlite", strategies_from=6)  # resumed: the file's pages
    whole, cut = (stored_tables(tmp_path / f"{name}.sqlite") for name in ("whole", "cut"))
    assert whole == cut and len(whole[0]) > 3


def test_big_point_difference_games_page_their_values_only_layers_by_default() -> None:
    def default(spec: str, split: int) -> int:
        game = load_game(spec)
        return page_split(game.indexed_face(), game.spec, split, None)
    assert default(POINTS.format(n=11), 11) == 11
    assert default(POINTS.format(n=10), 0) == 0  # small: rows
    assert default("goofspiel(num_cards=11)", 11) == 0  # win/loss: no product of keys
    assert default("jujitsu(num_cards=13)", 0) == 0


@pytest.mark.parametrize("spec,pages_below,split,message", [
    ("jujitsu(num_cards=4)", 3, 0, "cannot store its layers as pages"),
    (POINTS.format(n=5), 4, 3, "page layers keep no strategies"),
])
def test_pages_a_game_cannot_have_are_refused(spec: str, pages_below: int, split: int,
                                              message: str) -> None:
    game = load_game(spec)
    with pytest.raises(GameError, match=message):
        page_split(game.indexed_face(), game.spec, split, pages_below)


def test_the_cli_refuses_impossible_pages_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", "jujitsu(num_cards=4)", "--db",
                                      str(tmp_path / "j.sqlite"), "--pages-below", "3"])
    assert result.exit_code == 1 and "cannot store its layers as pages" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "j.sqlite").exists()


def test_pages_below_in_a_build_with_every_strategy_names_the_option_to_add(
        tmp_path: Path) -> None:
    """It said "give --pages-below 0 or less" (0 means no pages at all)."""
    result = CliRunner().invoke(cli, ["build", POINTS.format(n=5), "--db",
                                      str(tmp_path / "g.sqlite"), "--pages-below", "4"])
    assert result.exit_code == 1 and not (tmp_path / "g.sqlite").exists()
    assert result.stderr.strip() == (
        "Error: --pages-below 4: page layers keep no strategies, and this build stores "
        "strategies in every layer; add --strategies-from 4 (or --values-only) to store "
        "the layers below 4 as pages")


def test_resuming_with_another_page_split_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build(POINTS.format(n=5), path, pages_below=5, strategies_from=5,
              observer=Counting(lambda *_: (_ for _ in ()).throw(KeyboardInterrupt)))
    result = CliRunner().invoke(cli, ["build", POINTS.format(n=5), "--db", str(path),
                                      "--strategies-from", "5", "--pages-below", "0"])
    assert result.exit_code == 1 and "--pages-below 5" in result.output


def test_sql_says_which_layers_it_does_not_see_as_rows(pair: tuple[Path, Path]) -> None:
    result = CliRunner().invoke(
        cli, ["sql", str(pair[1]), "SELECT count(*) FROM states", "--no-pages"])
    assert result.exit_code == 0 and result.stdout.split()[-1] == "7"  # layer 7 alone
    assert "layer(s) 1, 2, 3, 4, 5, 6 (" in result.stderr and "pages" in result.stderr
    every = CliRunner().invoke(cli, ["sql", str(pair[1]), "SELECT count(*) FROM states"])
    with sqlite3.connect(pair[0]) as conn:
        total = conn.execute("SELECT count(*) FROM states").fetchone()[0]
    assert every.exit_code == 0 and every.stdout.split()[-1] == str(total)
    assert every.stderr == ""  # no progress bar into a log (stderr is not a terminal)
    plain = CliRunner().invoke(cli, ["sql", str(pair[0]), "SELECT 1"])
    assert plain.exit_code == 0 and plain.stderr == ""


def test_info_says_how_each_layer_is_stored(pair: tuple[Path, Path]) -> None:
    import json

    text = CliRunner().invoke(cli, ["info", str(pair[1])]).output
    assert "stored" in text and text.count("pages") == 6 and text.count("rows") == 1
    layers = json.loads(CliRunner().invoke(cli, ["info", str(pair[1]), "--json"]).output)["layers"]
    assert {x["layer"]: x["stored_as"] for x in layers} == {7: "rows", **{k: "pages" for k in range(1, 7)}}


@pytest.fixture()
def damaged(pair: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the page file whose layer-3 pages hold bytes that are no page."""
    import shutil

    path = tmp_path / "damaged.sqlite"
    shutil.copy(pair[1], path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE pages SET data = x'00ff00ff' WHERE layer = 3")
    return path


def test_a_damaged_page_is_one_line_from_show_and_verify(damaged: Path) -> None:
    position = "hand1=1,2,3 hand2=2,3,4 prizes=1,5 prize=6"
    for args in (["show", str(damaged), position], ["verify", str(damaged)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, args
        assert "layer 3: a page does not decompress" in result.output, args


def test_the_standard_library_probe_says_a_page_is_damaged(damaged: Path) -> None:
    with open_db(damaged) as db:
        keymap = db.pages.layers[3].keymap
    with stdlib_probe.GameFile(damaged) as book:
        with pytest.raises(stdlib_probe.UnreadableFile, match="page .* is damaged"):
            book.probe(int(keymap.keys(0, 1)[0]))


def test_a_damaged_key_list_is_one_line_for_readers_and_the_builder(pair: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    import shutil

    path = tmp_path / "keys.sqlite"
    shutil.copy(pair[1], path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE page_layers SET tails = x'0102' WHERE layer = 2")
        conn.execute("UPDATE meta SET value = '\"building\"' WHERE name = 'status'")
    for args in (["info", str(path)], ["build", POINTS.format(n=7), "--db", str(path),
                                       "--strategies-from", "7"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1 and "Traceback" not in result.output, args
        assert "a key list does not decode" in result.output, args


def _interrupted_build(path: Path) -> None:
    """A 6-card point-difference build stopped by Ctrl-C after three chunks."""
    done: list[int] = []

    def stop_after_three(solved: int, total: int) -> None:
        done.append(solved)
        if len(done) == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        build(POINTS.format(n=6), path, pages_below=6, strategies_from=6, page_size=50,
              chunk_size=50, observer=Counting(stop_after_three))


def test_a_resumed_build_says_it_is_re_reading_what_is_stored(tmp_path: Path) -> None:
    _interrupted_build(tmp_path / "cut.sqlite")
    stages: list[str] = []
    observer = Quiet()
    observer.stage = stages.append  # type: ignore[method-assign]
    build(POINTS.format(n=6), tmp_path / "cut.sqlite", strategies_from=6, observer=observer)
    reading = [s for s in stages if s.startswith("re-reading")]
    assert reading and "positions" in reading[0] and "to resume" in reading[0], stages
    assert stages.index(reading[0]) < len(stages) - 1  # solving follows


def test_info_after_ctrl_c_says_no_build_is_running_and_shows_no_eta(tmp_path: Path) -> None:
    _interrupted_build(tmp_path / "cut.sqlite")
    result = CliRunner().invoke(cli, ["info", str(tmp_path / "cut.sqlite")])
    assert result.exit_code == 0 and "ETA" not in result.stdout, result.stdout
    assert "no build is running" in result.stdout and "to resume" in result.stdout
