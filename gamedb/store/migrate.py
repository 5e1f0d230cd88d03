"""Alembic, driven from code: create + stamp new files, check and upgrade old ones.

The scripts live in top-level ``migrations/`` and are installed as
``gamedb.migrations``, so an installed wheel can migrate user files (alembic cookbook:
"sharing a connection"; Optuna does the same).
"""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError

from gamedb.store.engine import connect_file, file_uri, file_url
from gamedb.store.errors import StoreError, is_disk_full
from gamedb.store.schema import READABLE_REVISIONS, SCHEMA_REVISION, STRATEGIES_VIEW, metadata

if TYPE_CHECKING:  # alembic is imported only to create or migrate a file (start-up time)
    from alembic.config import Config

    from gamedb.games.base import Game


class SchemaOutOfDate(RuntimeError):
    """The file was written with an older schema; ``gamedb upgrade`` fixes it."""


def migrations_dir() -> Path:
    """Return the directory of the alembic scripts (installed package or checkout)."""
    spec = importlib.util.find_spec("gamedb.migrations")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    """Return an alembic Config built in code, optionally bound to ``connection``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """Return the newest schema revision shipped with this gamedb."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    """Return the schema revision stamped in the file, None if unstamped."""
    try:
        row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    except OperationalError:
        return None
    return None if row is None else str(row[0])


def create_schema(connection: Connection, game: Game[Any] | None = None) -> None:
    """Create every table of a new file (and ``game``'s readable views), stamp it at head.

    The stamp writes alembic's own version table by hand, exactly as ``command.stamp``
    would (``tests/store/test_migrate.py`` compares the result with an alembic upgrade):
    importing alembic costs ~0.2-0.3 s, a fifth of a small build's whole command.
    """
    from gamedb.store.views import create_views

    metadata.create_all(connection)
    connection.execute(text(STRATEGIES_VIEW))
    if game is not None:
        create_views(connection, game)
    connection.execute(text(  # byte for byte the DDL alembic emits
        "CREATE TABLE alembic_version (\n\tversion_num VARCHAR(32) NOT NULL, \n\t"
        "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n)"))
    connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:rev)"),
                       {"rev": SCHEMA_REVISION})


def upgrade(connection: Connection) -> None:
    """Upgrade a file's schema to head."""
    from alembic import command

    command.upgrade(alembic_config(connection), "head")


def check_schema(connection: Connection, path: str) -> None:
    """Raise ``SchemaOutOfDate`` unless this gamedb reads the file's revision as it is
    (``READABLE_REVISIONS``: head, and 0005, which only lacks the page tables)."""
    current, head = current_revision(connection), SCHEMA_REVISION
    if current is not None and current > head:  # readable ids: "0001" < "0002" < ...
        raise SchemaOutOfDate(
            f"{path} has schema revision {current}, newer than this gamedb reads ({head}); "
            "upgrade gamedb to read it")
    if current not in READABLE_REVISIONS:
        raise SchemaOutOfDate(
            f"{path} has schema revision {current}, this gamedb needs {head}; "
            f"run: gamedb upgrade {path}"
        )


def backup_path(path: Path, revision: str | None) -> Path:
    """Return where ``upgrade_file`` keeps the copy of a file at ``revision``.

    >>> backup_path(Path("data/j8.sqlite"), "0001").as_posix()
    'data/j8.sqlite.bak-0001'
    """
    return path.with_name(f"{path.name}.bak-{revision or 'none'}")


#: Bound at import: a test may replace the module's ``sqlite3`` to fake a failing copy.
_SQLITE_FAILURE = sqlite3.OperationalError


def upgrade_file(path: Path, *, backup: bool = True) -> tuple[str | None, str]:
    """Upgrade the gamedb file at ``path`` in place; return (old, new) revisions.

    A file already at head is only read. Otherwise a consistent copy goes to
    ``backup_path(path, old)`` first (unless ``backup`` is false: a file too big to
    copy), and the upgrade runs in one transaction (SQLite DDL is transactional), so a
    failure or a kill leaves the file as it was, backup or not.

    Raises:
        NotAGameDB: missing file, or not a gamedb file.
        StoreError: the backup file exists already (it is never overwritten), or the
            disk has no room for it.
    """
    path = Path(path)
    before = _checked_revision(path)
    if before == SCHEMA_REVISION:
        return before, before
    _refuse_unknown(path, before)
    copy = backup_path(path, before) if backup else None
    if copy is not None:
        _make_backup(path, copy)
    engine = _transactional_engine(path)
    try:
        with engine.begin() as conn:
            upgrade(conn)
            return before, current_revision(conn) or SCHEMA_REVISION
    except BaseException as exc:
        if copy is not None:
            copy.unlink()  # the transaction left the file as it was: the copy is not needed
        if isinstance(exc, Exception) and is_disk_full(exc):  # not the file's fault
            raise StoreError(f"{path}: the disk is full (the upgrade needs room for its "
                             "journal and new tables); the file is unchanged: free some "
                             "space and run again") from None
        raise
    finally:
        engine.dispose()


def _make_backup(path: Path, backup: Path) -> None:
    """Copy ``path`` to ``backup``, refusing up front when the disk has no room."""
    if backup.exists():
        raise StoreError(f"{backup} exists already; move it away and run again")
    need, free = path.stat().st_size, shutil.disk_usage(backup.parent).free
    hint = (f"free some space, or run `gamedb upgrade {path} --no-backup` (the upgrade is "
            "one transaction either way: a failure leaves the file as it was)")
    if free < need:
        raise StoreError(f"{path}: no room for the backup ({need / 2**30:.2f} GiB needed, "
                         f"{free / 2**30:.2f} GiB free); {hint}")
    try:
        copy_database(path, backup)
    except _SQLITE_FAILURE as exc:
        if "full" not in str(exc):
            raise
        raise StoreError(f"{path}: the disk filled up while copying the backup (the file is "
                         f"unchanged); {hint}") from None


def _refuse_unknown(path: Path, revision: str | None) -> None:
    """Raise ``SchemaOutOfDate`` for a revision no script of this gamedb knows.

    A newer gamedb's revision or a foreign one cannot be upgraded from here, and alembic
    would only say so with a long traceback.
    """
    from alembic.script import ScriptDirectory

    if revision is None:
        return
    known = {script.revision for script in
             ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if revision in known:
        return
    if revision.isdigit() and revision > SCHEMA_REVISION:
        raise SchemaOutOfDate(f"{path} was written by a newer gamedb (revision {revision}); "
                              f"this gamedb knows up to {SCHEMA_REVISION}: upgrade gamedb")
    raise SchemaOutOfDate(f"{path} has an unknown schema revision {revision!r}; this gamedb "
                          f"knows up to {SCHEMA_REVISION} (the file is damaged or not "
                          "written by gamedb)")


def _checked_revision(path: Path) -> str | None:
    """Read a file's revision read-only, checking it is a gamedb file."""
    from gamedb.store.engine import read_meta, readonly_engine

    engine = readonly_engine(path)
    try:
        with engine.connect() as conn:
            read_meta(conn, path)
            return current_revision(conn)
    finally:
        engine.dispose()


def copy_database(path: Path, target: Path) -> None:
    """Copy a database with SQLite's backup API (consistent even with a WAL file).

    The copy is made under a temporary name and renamed when whole: an interrupted copy
    leaves nothing that would block the next try.
    """
    partial = target.with_name(f".{target.name}.part")
    source = sqlite3.connect(file_uri(path, "mode=ro"), uri=True)
    try:
        copy = connect_file(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        source.close()


def _transactional_engine(path: Path) -> Engine:
    """An engine whose transactions include DDL (pysqlite's implicit BEGIN skips it)."""
    engine = create_engine(file_url(path))

    @event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
