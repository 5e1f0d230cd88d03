"""Readable views and schema 0002: decoding in SQL agrees with the games, old files upgrade."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine

from gamedb.cli import cli
from gamedb.games import load_game
from gamedb.store import SchemaOutOfDate, StoreError, open_db
from gamedb.store.migrate import alembic_config, upgrade_file
from gamedb.store.views import view_ddl
from gamedb.store.schema import SCHEMA_REVISION

ASSETS = Path(__file__).resolve().parents[1] / "assets"
OLD_FILE = ASSETS / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"

SPECS = [
    ("jujitsu(num_cards=5)", True), ("jujitsu(num_cards=4,ties=discard)", True),
    ("jujitsu(num_cards=4)", False), ("goofspiel(num_cards=4)", True),
    ("goofspiel(num_cards=3,returns_type=point_difference)", True),
    ("goofspiel(num_cards=3,ties=carry)", True), ("goofspiel(num_cards=3)", False),
    ("goofspiel(num_cards=4,points_order=descending,ties=carry)", False),
    ("goofspiel(dummy=true,num_cards=4)", True), ("goofspiel(dummy=true,num_cards=3)", False),
    ("goofspiel(dummy=true,num_cards=4,returns_type=point_difference,rounds=3)", True),
    ("goofspiel(num_cards=5,rounds=3)", True), ("goofspiel(num_cards=4,rounds=2)", False),
    ("goofspiel(committed=true,num_cards=4)", True), ("goofspiel(committed=true,num_cards=3)", False),
    ("oshi_zumo(coins=6,size=2,min_bid=1)", True), ("oshi_zumo(coins=5,size=2,min_bid=0)", False),
    ("nim(heaps=1-2-3)", True), ("nim(heaps=2-3)", False), ("tictoe", True), ("tictoe", False),
    ("hackenbush(edges=0-1,1-2,2-0,0-0)", True), ("hackenbush(edges=0-1,1-2,1-1)", False),
]


@pytest.mark.parametrize("spec, canonical", SPECS, ids=[f"{s}-{c}" for s, c in SPECS])
def test_positions_view_decodes_every_key_like_the_game(built, spec: str, canonical: bool) -> None:
    path = built(spec, canonical_keys=canonical)
    game = load_game(spec, canonical_keys=canonical)
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT key, position, * FROM positions").fetchall()
        names = [d[0] for d in conn.execute("SELECT * FROM positions LIMIT 0").description]
        assert conn.execute("SELECT count(*) FROM position_strategies").fetchone() == \
            conn.execute("SELECT count(*) FROM strategies").fetchone()
    assert rows and len(rows) == len({r[0] for r in rows})
    for key, position, *columns in rows:
        state = game.decode(key)
        assert position == game.format_position(state), key
        fields = dict(zip(names, columns))
        for name in ("hand1", "hand2"):
            if name in fields:
                assert fields[f"{name}_mask"] == getattr(state, name)


def test_position_strategies_name_the_action_after_the_game() -> None:
    assert "s.action AS card" in view_ddl(load_game("jujitsu(num_cards=3)"))[1]
    assert "s.action AS bid" in view_ddl(load_game("oshi_zumo(coins=3)"))[1]


def test_an_old_file_is_refused_then_upgraded_with_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    with pytest.raises(SchemaOutOfDate, match=f"run: gamedb upgrade {path}"):
        open_db(path)
    result = CliRunner().invoke(cli, ["upgrade", str(path)])
    assert result.exit_code == 0, result.output
    assert "schema 0001 -> 0007" in result.output and "old.sqlite.bak-0001" in result.output
    backup = tmp_path / "old.sqlite.bak-0001"
    with sqlite3.connect(backup) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
        assert conn.execute("SELECT count(*) FROM states").fetchone() == (32,)
    with open_db(path) as db:
        entry = db.probe("start")
        assert entry.value == pytest.approx(0.0, abs=1e-12)
    with sqlite3.connect(path) as conn:
        top = conn.execute("SELECT position FROM positions ORDER BY layer DESC").fetchone()
    assert top == ("hand1=1,2,3,4 hand2=1,2,3,4 pot=0 diff=0",)


def test_an_upgraded_file_has_the_schema_of_a_new_one(tmp_path: Path, built) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    upgrade_file(path)
    assert _schema(path) == _schema(built("jujitsu(num_cards=4)"))


def test_upgrade_never_overwrites_a_backup_and_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    (tmp_path / "old.sqlite.bak-0001").write_bytes(b"an earlier backup")
    with pytest.raises(StoreError, match="bak-0001 exists already"):
        upgrade_file(path)
    assert path.read_bytes() == OLD_FILE.read_bytes()


def test_a_current_file_is_only_read_by_upgrade(built) -> None:
    path = built("jujitsu(num_cards=4)")
    before = path.read_bytes()
    assert upgrade_file(path) == (SCHEMA_REVISION, SCHEMA_REVISION)
    assert path.read_bytes() == before and not path.with_name(path.name + f".bak-{SCHEMA_REVISION}").exists()


def test_a_file_from_a_newer_gamedb_asks_for_a_newer_gamedb(tmp_path: Path, built) -> None:
    path = tmp_path / "new.sqlite"
    shutil.copy(built("jujitsu(num_cards=3)"), path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(SchemaOutOfDate, match="newer than this gamedb reads"):
        open_db(path)


def test_downgrade_to_0001_drops_the_views(tmp_path: Path) -> None:
    from alembic import command

    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    upgrade_file(path)
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")
    engine.dispose()
    assert _schema(path) == _schema(OLD_FILE)


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master "
                            "WHERE name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    return [(kind, name, " ".join((sql or "").split()).replace('"', "")) for kind, name, sql in rows]


@pytest.mark.parametrize("revision, message", [
    ("0099", "was written by a newer gamedb (revision 0099); this gamedb knows up to 0007"),
    ("ab12cd", "has an unknown schema revision 'ab12cd'; this gamedb knows up to 0007"),
])
def test_upgrade_of_a_newer_or_unknown_revision_is_one_line_and_leaves_no_trace(
        tmp_path: Path, built, revision: str, message: str) -> None:
    path = tmp_path / "new.sqlite"
    shutil.copy(built("jujitsu(num_cards=3)"), path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))
    conn.execute("PRAGMA journal_mode=DELETE")  # as shipped: readers leave no -wal beside it
    conn.close()
    before = path.read_bytes()
    for _ in range(2):  # a second try meets the same answer, not a leftover backup
        result = CliRunner().invoke(cli, ["upgrade", str(path)])
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1 and message in lines[0], result.output
        assert "Traceback" not in result.output
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["new.sqlite"]


def test_upgrade_without_a_backup_gives_the_same_file_and_writes_no_copy(tmp_path: Path) -> None:
    with_copy, without = tmp_path / "a" / "old.sqlite", tmp_path / "b" / "old.sqlite"
    for path in (with_copy, without):
        path.parent.mkdir()
        shutil.copy(OLD_FILE, path)
    upgrade_file(with_copy)
    result = CliRunner().invoke(cli, ["upgrade", str(without), "--no-backup"])
    assert result.exit_code == 0, result.output
    assert "schema 0001 -> 0007 (no backup)" in result.output
    assert [p.name for p in without.parent.iterdir()] == ["old.sqlite"]
    assert _schema(without) == _schema(with_copy) and _rows(without) == _rows(with_copy)


def test_a_failed_upgrade_without_a_backup_leaves_the_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.store.migrate as migrate

    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)

    def half_then_fail(connection) -> None:  # some DDL done, then a failure
        connection.exec_driver_sql("CREATE TABLE half_done (x INTEGER)")
        connection.exec_driver_sql("DROP VIEW IF EXISTS positions")
        raise KeyboardInterrupt

    monkeypatch.setattr(migrate, "upgrade", half_then_fail)
    with pytest.raises(KeyboardInterrupt):
        upgrade_file(path, backup=False)
    assert path.read_bytes() == OLD_FILE.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["old.sqlite"]


def test_upgrade_without_room_for_the_backup_says_so_up_front(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gamedb.store.migrate as migrate

    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    monkeypatch.setattr(migrate.shutil, "disk_usage",
                        lambda _: shutil._ntuple_diskusage(10**9, 10**9 - 1000, 1000))
    result = CliRunner().invoke(cli, ["upgrade", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "no room for the backup" in result.stderr and "--no-backup" in result.stderr
    assert path.read_bytes() == OLD_FILE.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["old.sqlite"]


def test_a_backup_copy_that_fills_the_disk_is_one_line_and_leaves_no_partial_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    import gamedb.store.migrate as migrate

    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_FILE, path)
    real_connect = sqlite3.connect

    class FullDisk:  # copies one table, then the disk is full
        def __init__(self, conn: sqlite3.Connection):
            self.conn = conn

        def backup(self, target: sqlite3.Connection) -> None:
            target.execute("CREATE TABLE half(x)")
            target.commit()
            raise sqlite3.OperationalError("database or disk is full")

        def close(self) -> None:
            self.conn.close()

    def connect(target: str, *args: object, **kwargs: object) -> object:
        conn = real_connect(target, *args, **kwargs)  # type: ignore[arg-type]
        return FullDisk(conn) if "mode=ro" in str(target) else conn

    monkeypatch.setattr(migrate, "sqlite3", types.SimpleNamespace(
        connect=connect))
    result = CliRunner().invoke(cli, ["upgrade", str(path)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and "Traceback" not in result.output
    assert "disk filled up" in lines[0] and "--no-backup" in lines[0], lines
    assert path.read_bytes() == OLD_FILE.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["old.sqlite"]


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT * FROM states ORDER BY key").fetchall()
