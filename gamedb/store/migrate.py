"""Alembic, driven from code: create + stamp new files, check and upgrade old ones.

The scripts live in top-level ``migrations/`` and are installed as
``gamedb.migrations``, so an installed wheel can migrate user files (alembic cookbook:
"sharing a connection"; Optuna does the same).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from gamedb.store.schema import metadata


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
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """Return the newest schema revision shipped with this gamedb."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    """Return the schema revision stamped in the file, None if unstamped."""
    return MigrationContext.configure(connection).get_current_revision()


def create_schema(connection: Connection) -> None:
    """Create every table of a new file and stamp it at head."""
    metadata.create_all(connection)
    command.stamp(alembic_config(connection), "head")


def upgrade(connection: Connection) -> None:
    """Upgrade a file's schema to head."""
    command.upgrade(alembic_config(connection), "head")


def check_schema(connection: Connection, path: str) -> None:
    """Raise ``SchemaOutOfDate`` unless the file is at head."""
    current, head = current_revision(connection), head_revision()
    if current != head:
        raise SchemaOutOfDate(
            f"{path} has schema revision {current}, this gamedb needs {head}; "
            f"run: gamedb upgrade {path}"
        )
