"""SQLite engines for building (WAL, one writer) and for reading (read-only URI)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError

from gamedb.store import schema
from gamedb.store.errors import NotAGameDB


def writable_engine(path: Path) -> Engine:
    """Return an engine for building: WAL journal, relaxed fsync between chunks."""
    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN/COMMIT ourselves
        dbapi_conn.execute("PRAGMA journal_mode=WAL")
        dbapi_conn.execute("PRAGMA synchronous=NORMAL")
        dbapi_conn.execute("PRAGMA busy_timeout=5000")
        dbapi_conn.execute("PRAGMA cache_size=-262144")  # 256 MiB of page cache

    return engine


def readonly_engine(path: Path) -> Engine:
    """Return an engine that can never write to ``path`` (``mode=ro`` URI)."""
    if not path.is_file():
        raise NotAGameDB(f"{path}: no such database file")
    uri = f"file:{path.resolve()}?mode=ro{_immutable(path)}"
    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True))
    return engine


def _immutable(path: Path) -> str:
    """``&immutable=1`` for a WAL file no writer holds, in a directory nobody can write
    (older builds stayed in WAL mode: SQLite cannot open them there otherwise)."""
    with path.open("rb") as file:
        wal = file.read(20)[18:20] == b"\x02\x02"
    idle = not path.with_name(path.name + "-wal").exists()
    return "&immutable=1" if wal and idle and not os.access(path.parent, os.W_OK) else ""


def read_meta(conn: Connection, path: Path) -> dict[str, Any]:
    """Return the ``meta`` table as a dict, or raise ``NotAGameDB``."""
    try:
        rows = conn.execute(select(schema.meta.c.name, schema.meta.c.value)).all()
    except (OperationalError, DatabaseError) as exc:
        reason = "not a gamedb database" if "no such table" in str(exc) else str(exc.orig)
        raise NotAGameDB(f"{path}: {reason}") from None
    meta = {name: json.loads(value) for name, value in rows}
    if "spec" not in meta:
        raise NotAGameDB(f"{path}: not a gamedb database (no spec in meta)")
    return meta


def write_meta(conn: Connection, values: dict[str, Any]) -> None:
    """Insert or replace ``meta`` entries (JSON-encoded)."""
    for name, value in values.items():
        conn.execute(text("INSERT OR REPLACE INTO meta(name, value) VALUES (:n, :v)"),
                     {"n": name, "v": json.dumps(value)})
