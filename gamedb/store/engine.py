"""SQLite engines for building (WAL, one writer) and for reading (read-only URI)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError

from gamedb.store import schema
from gamedb.games.base import shown
from gamedb.store.errors import DamagedFile, NotAGameDB


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
    uri = f"file:{path.resolve()}?mode=ro"
    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True))
    return engine


def read_meta(conn: Connection, path: Path) -> dict[str, Any]:
    """Return the ``meta`` table as a dict, or raise ``NotAGameDB``."""
    try:
        rows = conn.execute(select(schema.meta.c.name, schema.meta.c.value)).all()
    except (OperationalError, DatabaseError) as exc:
        reason = "not a gamedb database" if "no such table" in str(exc) else str(exc.orig)
        raise NotAGameDB(f"{path}: {reason}") from None
    meta = {str(name): _meta_value(path, name, value) for name, value in rows}
    if "spec" not in meta:
        raise NotAGameDB(f"{path}: not a gamedb database (no spec in meta)")
    for name, kinds in _META_KINDS.items():
        if name in meta and (not isinstance(meta[name], kinds)
                             or (isinstance(meta[name], bool) and bool not in kinds)):
            raise DamagedFile(path, f"meta {name!r} holds {shown(json.dumps(meta[name]), 40)}, "
                              f"not {' or '.join(k.__name__ for k in kinds)}")
    return meta


#: The type of each meta entry gamedb reads (``bool`` is refused where a number is due).
_META_KINDS: dict[str, tuple[type, ...]] = {
    "spec": (str,), "family": (str,), "key_layout": (str,), "status": (str,),
    "canonical_keys": (bool,), "values_only": (bool,), "params": (dict,),
    "root_value": (float, int, type(None)), "states": (int,), "root_keys": (list,),
    "progress": (dict, type(None)), "solver": (dict,),
}


def _meta_value(path: Path, name: object, value: object) -> Any:
    """Parse one meta entry's JSON, or raise ``DamagedFile``."""
    try:
        return json.loads(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise DamagedFile(path, f"meta {name!r} is not JSON: {shown(str(value), 40)}") from None


def write_meta(conn: Connection, values: dict[str, Any]) -> None:
    """Insert or replace ``meta`` entries (JSON-encoded)."""
    for name, value in values.items():
        conn.execute(text("INSERT OR REPLACE INTO meta(name, value) VALUES (:n, :v)"),
                     {"n": name, "v": json.dumps(value)})
