"""Alembic, driven from code: create + stamp new files, check and upgrade old ones.

The scripts live in top-level ``migrations/`` and are installed as
``gamedb.migrations``, so an installed wheel can migrate user files (alembic cookbook:
"sharing a connection"; Optuna does the same).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from gamedb.store.schema import SCHEMA_REVISION, metadata

if TYPE_CHECKING:  # alembic is imported only to create or migrate a file (start-up time)
    from alembic.config import Config


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


def create_schema(connection: Connection) -> None:
    """Create every table of a new file and stamp it at head."""
    from alembic import command

    metadata.create_all(connection)
    command.stamp(alembic_config(connection), "head")


def upgrade(connection: Connection) -> None:
    """Upgrade a file's schema to head."""
    from alembic import command

    command.upgrade(alembic_config(connection), "head")


def check_schema(connection: Connection, path: str) -> None:
    """Raise ``SchemaOutOfDate`` unless the file is at head (``SCHEMA_REVISION``)."""
    current, head = current_revision(connection), SCHEMA_REVISION
    if current != head:
        raise SchemaOutOfDate(
            f"{path} has schema revision {current}, this gamedb needs {head}; "
            f"run: gamedb upgrade {path}"
        )


def upgrade_file(path: Path) -> tuple[str | None, str]:
    """Upgrade the gamedb file at ``path`` in place; return (old, new) revisions."""
    from sqlalchemy import create_engine

    from gamedb.store.engine import read_meta

    if not Path(path).is_file():
        from gamedb.store.errors import NotAGameDB
        raise NotAGameDB(f"{path}: no such database file")
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            read_meta(conn, Path(path))
            before = current_revision(conn)
            upgrade(conn)
            return before, current_revision(conn) or SCHEMA_REVISION
    finally:
        engine.dispose()
