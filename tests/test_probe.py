"""The standard-library probe: same keys and answers as gamedb, nothing but sqlite3."""

from __future__ import annotations

import ast
import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gamedb import probe
from gamedb.bits import cards
from gamedb.cli import cli
from gamedb.games import load_game
from gamedb.games.base import LAYER_SHIFT
from gamedb.probe import GameFile, NotStored, UnreadableFile, jujitsu_key
from gamedb.store import open_db
from gamedb.store.schema import SCHEMA_REVISION
from tests.walk import decision_states

DATA = Path(__file__).resolve().parents[1] / "data"
SHIPPED = sorted(DATA.glob("*.shipped.sqlite"))
OLD_FILE = Path(__file__).resolve().parent / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"
EVERY_FAMILY = [("jujitsu(num_cards=4)", True), ("goofspiel(num_cards=4)", True),
                ("goofspiel(num_cards=3,ties=carry)", False), ("goofspiel(dummy=true,num_cards=4)", True),
                ("goofspiel(dummy=true,num_cards=3,rounds=2)", False),
                ("goofspiel(num_cards=6,rounds=3)", True), ("goofspiel(committed=true,num_cards=4)", True),
                ("oshi_zumo(coins=5,size=2)", True),
                ("nim(heaps=1-2-3)", True), ("tictoe", True), ("tictoe", False),
                ("hackenbush(edges=0-1,1-2,2-0,0-0)", True), ("hackenbush(edges=0-1,1-1)", False)]


def _reachable(spec: str) -> list:
    """Every non-terminal position reachable from the start (reference face)."""
    states = decision_states(load_game(spec, canonical_keys=False))
    return sorted(states, key=lambda s: (s.hand1, s.hand2, s.pot, s.diff))


@pytest.mark.parametrize("spec", ["jujitsu(num_cards=6)", "jujitsu(num_cards=5,ties=discard)"])
def test_jujitsu_key_matches_the_game_on_every_reachable_position(spec: str) -> None:
    game = load_game(spec)
    for state in _reachable(spec):
        canon = game.canonical(state)
        where = jujitsu_key(list(cards(state.hand1)), list(cards(state.hand2)), state.pot,
                            state.diff, num_cards=game.num_cards)
        assert (where.key, where.swapped, where.ranks) == (canon.key, canon.swapped,
                                                           dict(canon.actions[0])), state


def test_probe_jujitsu_answers_like_open_db_on_every_position(built) -> None:
    spec = "jujitsu(num_cards=5)"
    path = built(spec)
    with open_db(path) as db, GameFile(path) as book:
        for state in _reachable(spec):
            expected = db.probe(state)
            got = book.probe_jujitsu(list(cards(state.hand1)), list(cards(state.hand2)),
                                     state.pot, state.diff)
            assert got.value == pytest.approx(expected.value, abs=1e-12)
            assert got.strategies == expected.strategies and got.key == expected.key


def test_probe_by_key_gives_stored_labels_and_raises_for_unknown_keys(built) -> None:
    path = built("jujitsu(num_cards=4)")
    with GameFile(path) as book:
        stored = book.probe(book.root_keys[0])
        assert book.spec == "jujitsu(num_cards=4,ties=carry)"
        assert set(stored.strategies) == {1, 2} and sum(stored.strategies[1].values()) == pytest.approx(1)
        with pytest.raises(NotStored):
            book.probe(12345)
        assert book.get(12345) is None
        assert book.probe_jujitsu([], [], diff=2).value == 1.0


def test_probe_jujitsu_refuses_another_game() -> None:
    with GameFile(DATA / "oshi_zumo_alesia=false_coins=50_min_bid=1_size=3.shipped.sqlite") as book:
        with pytest.raises(ValueError, match="not 'jujitsu-v1'"):
            book.probe_jujitsu([1], [2])


@pytest.mark.parametrize("spec, canonical", EVERY_FAMILY, ids=[f"{s}-{c}" for s, c in EVERY_FAMILY])
def test_probe_decodes_every_family_like_the_game(built, spec: str, canonical: bool) -> None:
    game = load_game(spec, canonical_keys=canonical)
    path = built(spec, canonical_keys=canonical)
    with sqlite3.connect(path) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM states")]
    with GameFile(path) as book:
        assert book.key_layout == game.key_layout and book.revision == SCHEMA_REVISION
        for key in keys:
            state = game.decode(key)
            position = book.position(key)
            assert position["position"] == game.format_position(state)
            assert position["layer"] == game.layer(state)
            assert book.probe(key).key == key
        with pytest.raises(NotStored):
            book.position(12345)


@pytest.mark.parametrize("options", [dict(page_min=100, page_size=64),  # keyed pages
                                     dict(pages_below=4, strategies_from=4)])  # values only
def test_probe_decodes_a_key_of_a_page_layer(tmp_path: Path, options: dict[str, int]) -> None:
    """``position(key)`` read the ``positions`` view, which holds the row layers only:
    a key ``probe`` found in a page layer was "not in" the file."""
    from gamedb.builder import build

    spec = "goofspiel(num_cards=5,returns_type=point_difference)"
    game, path = load_game(spec), tmp_path / "g5.sqlite"
    build(spec, path, **options)  # type: ignore[arg-type]
    with open_db(path) as db:
        paged = [layer for layer in db.stored_layers() if layer in db.pages.layers]
        keys = [int(key) for layer in paged
                for rows in db.layer_rows(layer, strategies=False) for key in rows.keys]
    assert paged and keys
    with GameFile(path) as book:
        for key in keys:
            position = book.position(key)
            assert position["position"] == game.format_position(game.decode(key))
            assert position["layer"] == key >> LAYER_SHIFT
        with pytest.raises(NotStored):
            book.position(keys[0] + 1 if keys[0] + 1 not in keys else 12345)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name.split("_")[0])
def test_probe_decodes_the_roots_of_every_shipped_file(path: Path) -> None:
    with GameFile(path) as book, open_db(path) as db:
        for key in book.root_keys:
            assert book.position(key)["position"] == db.game.format_position(db.game.decode(key))


def _copy_with(tmp_path: Path, source: Path, sql: str) -> Path:
    path = tmp_path / "copy.sqlite"
    shutil.copy(source, path)
    with sqlite3.connect(path) as conn:
        conn.execute(sql)
    return path


def test_probe_refuses_a_schema_revision_it_does_not_know(tmp_path: Path, built) -> None:
    path = _copy_with(tmp_path, built("jujitsu(num_cards=3)"),
                      "UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(UnreadableFile, match="schema revision 0099; this reader knows 0001"):
        GameFile(path)


@pytest.mark.parametrize("layout", ['"nim-v1"', '"jujitsu"', '"jujitsu-vx"', '"jujitsux-v1"',
                                    '"nim-jujitsu-v1"', "null"])
def test_probe_refuses_a_key_layout_not_of_its_family(tmp_path: Path, built, layout: str) -> None:
    path = _copy_with(tmp_path, built("jujitsu(num_cards=3)"),
                      f"UPDATE meta SET value = '{layout}' WHERE name = 'key_layout'")
    with pytest.raises(UnreadableFile, match="key layout"):
        GameFile(path)


def test_probe_refuses_a_file_that_is_not_a_gamedb_file(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(UnreadableFile, match="not a gamedb file"):
        GameFile(path)


def test_probe_reads_values_of_a_schema_0001_file_but_asks_to_upgrade_to_decode() -> None:
    with GameFile(OLD_FILE) as book:
        assert book.revision == "0001" and book.probe(book.root_keys[0]).value == pytest.approx(0)
        with pytest.raises(UnreadableFile, match="gamedb upgrade"):
            book.position(book.root_keys[0])


def test_probe_module_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(probe.__file__).read_text())
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    names |= {node.module for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module}
    assert names <= {"__future__", "json", "sqlite3", "dataclasses", "pathlib", "typing",
                     "array", "bisect", "itertools", "struct", "zlib"}  # the last five read pages


def test_probe_runs_as_a_copied_file_without_site_packages(tmp_path: Path) -> None:
    shutil.copy(probe.__file__, tmp_path / "gamedb_probe.py")
    path = DATA / "jujitsu_num_cards=8_ties=carry.shipped.sqlite"
    code = ("import sys, gamedb_probe as p\n"
            "assert 'numpy' not in sys.modules\n"
            f"with p.GameFile({str(path)!r}) as book:\n"
            "    print(book.probe_jujitsu([2, 5, 8], [1, 6, 7], diff=1).value)\n")
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    with open_db(path) as db:
        expected = db.probe("hand1=2,5,8 hand2=1,6,7 pot=0 diff=1").value
    assert float(done.stdout) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name.split("_")[0])
def test_reading_a_shipped_file_leaves_its_bytes_unchanged(path: Path) -> None:
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    stat = path.stat()
    with GameFile(path) as book:
        book.probe(book.root_keys[0])
        spec = book.spec
    with open_db(path) as db:
        db.info()
        db.probe("start")
    runner = CliRunner()
    for args in (["sql", str(path), "SELECT count(*) FROM positions"],
                 ["sql", str(path), "DELETE FROM states"], ["info", str(path)],
                 ["upgrade", str(path)], ["show", str(path), "start"],
                 ["build", spec, "--db", str(path), "--quiet"]):
        runner.invoke(cli, args)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert not path.with_name(path.name + "-wal").exists()
