"""Schema history: a fresh create+stamp equals base+upgrade; old files are refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine

from gamedb.builder import build
from gamedb.cli import cli
from gamedb.store import SchemaOutOfDate, open_db
from gamedb.store.schema import SCHEMA_REVISION
from gamedb.store.migrate import create_schema, current_revision, head_revision, upgrade


def _schema(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                            "ORDER BY name").fetchall()
    return [(name, " ".join((sql or "").split()).replace('"', "")) for name, sql in rows]


def test_create_and_stamp_equals_upgrade_from_empty(tmp_path: Path) -> None:
    created, upgraded = tmp_path / "created.sqlite", tmp_path / "upgraded.sqlite"
    for path, action in ((created, create_schema), (upgraded, upgrade)):
        engine = create_engine(f"sqlite:///{path}")
        with engine.begin() as conn:
            action(conn)
            assert current_revision(conn) == head_revision()
        engine.dispose()
    assert _table_columns(created) == _table_columns(upgraded)
    view = [row for row in _schema(created) if row[0] == "strategies"]
    assert view and view == [row for row in _schema(upgraded) if row[0] == "strategies"]
    # create_schema stamps by hand (no alembic import); the version table must be alembic's.
    stamp = [row for row in _schema(created) if row[0].startswith(("alembic", "sqlite_auto"))]
    assert stamp and stamp == [row for row in _schema(upgraded)
                               if row[0].startswith(("alembic", "sqlite_auto"))]


def _table_columns(path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f"PRAGMA table_info({t})").fetchall() for t in sorted(tables)}


def test_file_with_an_older_schema_is_refused_with_the_command_to_run(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    build("jujitsu(num_cards=3)", path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0000'")
    with pytest.raises(SchemaOutOfDate, match=f"run: gamedb upgrade {path}"):
        open_db(path)


def test_migrations_are_found_inside_the_package() -> None:
    from gamedb.store.migrate import migrations_dir
    assert (migrations_dir() / "versions" / "0001_initial.py").is_file()
    assert head_revision() == SCHEMA_REVISION == "0007"


def test_upgrading_to_0003_keeps_every_probability_exactly(tmp_path: Path) -> None:
    import shutil

    from gamedb.store.migrate import upgrade_file
    from gamedb.verify import verify

    old = Path(__file__).resolve().parents[1] / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"
    path = tmp_path / "old.sqlite"
    shutil.copy(old, path)
    query = "SELECT key, player, action, prob FROM strategies ORDER BY key, player, action"
    with sqlite3.connect(old) as conn:
        before = conn.execute(query).fetchall()
    assert upgrade_file(path) == ("0001", "0007")
    with sqlite3.connect(path) as conn:
        assert conn.execute(query).fetchall() == before and len(before) > 32
        assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'strategies'").fetchone() \
            == ("view",)
    assert verify(path).ok


def test_0004_drops_only_the_not_null_of_gap_and_back(tmp_path: Path) -> None:
    """0004 edits the table's SQL in place (no copy); a downgrade fills the NULL gaps of
    values-only rows with their layer's largest gap, an upper bound, and restores NOT NULL."""
    from alembic import command

    from gamedb.store.migrate import alembic_config, upgrade_file
    from gamedb.verify import verify

    path = tmp_path / "lean.sqlite"
    build("jujitsu(num_cards=5)", path, values_only=True)
    rows = "SELECT key, layer, value, gap FROM states ORDER BY key"
    with sqlite3.connect(path) as conn:
        before = conn.execute(rows).fetchall()
        max_gaps = dict(conn.execute("SELECT layer, max_gap FROM layers").fetchall())
    assert before and {gap for *_, gap in before} == {None}
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0003")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        assert _not_null(conn)["gap"] == 1
        assert conn.execute(rows).fetchall() == [(k, l, v, max_gaps[l]) for k, l, v, _ in before]
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert upgrade_file(path) == ("0003", "0007")
    with sqlite3.connect(path) as conn:
        assert _not_null(conn) == {"key": 1, "layer": 1, "value": 1, "gap": 0,
                                   "strategy1": 0, "strategy2": 0}
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.execute("UPDATE states SET gap = NULL")  # allowed now
    assert verify(path).ok


def _not_null(conn: sqlite3.Connection) -> dict[str, int]:
    return {row[1]: row[3] for row in conn.execute("PRAGMA table_info(states)")}


def test_a_null_gap_next_to_stored_strategies_is_damage(tmp_path: Path) -> None:
    from gamedb.verify import verify

    path = tmp_path / "full.sqlite"
    build("jujitsu(num_cards=4)", path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE states SET gap = NULL WHERE layer = 2")
        damaged = conn.execute("SELECT count(*) FROM states WHERE layer = 2").fetchone()[0]
    report = verify(path)
    assert not report.ok and report.failures >= damaged > 0
    assert all("gap" in f.reason for f in report.failed if f.layer == 2)


@pytest.mark.parametrize("spec", ["nim(heaps=1-2-3)", "hackenbush(edges=0-1,1-2,2-0,0-0)"])
def test_0005_fills_the_grundy_values_of_an_impartial_file_and_back(tmp_path: Path, spec: str) -> None:
    """Downgraded to 0004 a file has no grundy table (positions no grundy column);
    upgraded again it has every position's Grundy value, as a fresh build writes them."""
    from alembic import command

    from gamedb.store.migrate import alembic_config, upgrade_file

    path = tmp_path / "impartial.sqlite"
    build(spec, path)
    query = "SELECT key, grundy FROM positions ORDER BY key"
    with sqlite3.connect(path) as conn:
        fresh = conn.execute(query).fetchall()
    assert fresh and any(g for _, g in fresh) and not any(g is None for _, g in fresh)
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0004")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'grundy'").fetchone() == (0,)
        assert "grundy" not in [d[0] for d in conn.execute("SELECT * FROM positions").description]
    assert upgrade_file(path) == ("0004", "0007")
    with sqlite3.connect(path) as conn:
        assert conn.execute(query).fetchall() == fresh
    with open_db(path) as db:
        assert db.probe("start").grundy == fresh[-1][1]


def test_0005_leaves_the_grundy_table_of_other_families_empty(tmp_path: Path) -> None:
    from gamedb.store.migrate import upgrade_file

    old = Path(__file__).resolve().parents[1] / "assets" / "jujitsu_num_cards=4_ties=carry.schema-0001.sqlite"
    path = tmp_path / "old.sqlite"
    import shutil
    shutil.copy(old, path)
    upgrade_file(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM grundy").fetchone() == (0,)
        assert "grundy" not in [d[0] for d in conn.execute("SELECT * FROM positions").description]
    with open_db(path) as db:
        assert db.probe("start").grundy is None


def test_a_0005_file_reads_as_it_is_and_0006_adds_only_the_page_tables(tmp_path: Path) -> None:
    """Schema 0006 adds ``page_layers`` and ``pages``; a 0005 file has no page layers, so
    every reader takes it as it is, and the upgrade changes no stored row."""
    from alembic import command

    from gamedb.store.migrate import alembic_config, upgrade_file

    path = tmp_path / "j.sqlite"
    build("jujitsu(num_cards=4)", path)
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0005")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'page%'"
                            ).fetchone() == (0,)
        rows = conn.execute("SELECT * FROM states ORDER BY key").fetchall()
    with open_db(path) as db:
        assert db.probe("start").value == pytest.approx(0) and not db.pages.layers
    assert upgrade_file(path) == ("0005", "0007")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM states ORDER BY key").fetchall() == rows
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name IN "
                            "('pages', 'page_layers')").fetchone() == (2,)


def test_a_file_with_page_layers_refuses_the_downgrade_to_0005(tmp_path: Path) -> None:
    from alembic import command

    from gamedb.store.migrate import alembic_config

    path = tmp_path / "g.sqlite"
    build("goofspiel(num_cards=4,returns_type=point_difference)", path, pages_below=4,
          strategies_from=4)
    engine = create_engine(f"sqlite:///{path}")
    with pytest.raises(RuntimeError, match="stores page layers"):
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0005")
    engine.dispose()
    with open_db(path) as db:
        assert sorted(db.pages.layers) == [1, 2, 3]


def _keyed_file(path: Path, stop_after: int | None = None) -> None:
    """A 6-card win/loss build whose layers of 200+ positions are keyed pages
    (stopped by Ctrl-C after ``stop_after`` chunks, if given)."""
    from gamedb.builder.progress import Counting

    def stop(done: int, total: int | None) -> None:
        seen.append(done)
        if stop_after is not None and len(seen) == stop_after:
            raise KeyboardInterrupt
    seen: list[int] = []
    try:
        build("goofspiel(num_cards=6)", path, page_min=200, observer=Counting(stop))
    except KeyboardInterrupt:
        assert stop_after is not None


def _stamp(path: Path, revision: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))


def test_a_file_with_keyed_pages_refuses_the_downgrade_to_0006(tmp_path: Path) -> None:
    from alembic import command

    from gamedb.store.migrate import alembic_config

    path = tmp_path / "g.sqlite"
    _keyed_file(path)
    engine = create_engine(f"sqlite:///{path}")
    with pytest.raises(RuntimeError, match="keyed page layers"):
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0006")
    engine.dispose()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0007",)


def test_a_0006_file_with_keyed_pages_reads_as_it_is_and_upgrades_by_a_stamp(
        tmp_path: Path) -> None:
    """gamedb 0.x of schema 0006 wrote keyed pages unmarked: such files read as they are,
    and ``upgrade`` only stamps them 0007 (every stored byte of the tables the same)."""
    from gamedb.store.migrate import upgrade_file

    path = tmp_path / "g.sqlite"
    _keyed_file(path)
    _stamp(path, "0006")
    with sqlite3.connect(path) as conn:
        pages = conn.execute("SELECT * FROM pages ORDER BY layer, page").fetchall()
    with open_db(path) as db:
        value = db.probe("start").value
    assert upgrade_file(path, backup=False) == ("0006", "0007")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM pages ORDER BY layer, page").fetchall() == pages
    with open_db(path) as db:
        assert db.probe("start").value == value


def test_a_build_resumed_on_a_0006_file_marks_it_0007(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    _keyed_file(path, stop_after=3)
    _stamp(path, "0006")  # as an older gamedb left it
    _keyed_file(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0007",)
    whole = tmp_path / "whole.sqlite"
    _keyed_file(whole)
    with sqlite3.connect(path) as a, sqlite3.connect(whole) as b:
        query = "SELECT layer, page, first_key, count, data FROM pages ORDER BY layer, page"
        assert a.execute(query).fetchall() == b.execute(query).fetchall()


def test_a_file_of_a_newer_schema_says_to_upgrade_gamedb(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    build("jujitsu(num_cards=4)", path)
    _stamp(path, "0008")
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code == 1 and "newer than this gamedb reads (0007)" in result.stderr
