"""SQLite engines for building (WAL, one writer) and for reading (read-only URI)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError

from gamedb.store import schema
from gamedb.games.base import shown
from gamedb.games.layout import LAYER_SHIFT
from gamedb.store.errors import DamagedFile, NotAGameDB, is_corrupt


#: The builder's SQLite page cache. Rows are appended in key order (a rowid B-tree's
#: rightmost path), so a bigger cache buys no speed; 256 MiB (the old setting) filled up
#: on every build over ~250 MB of file and was most of the peak memory of 8-9 card
#: Goofspiel (9-card win/loss values only: 588 MiB RSS with 256 MiB, 339 MiB with 16 MiB,
#: same CPU time; BENCHMARKS.md, GOPSsolver side by side).
WRITER_CACHE_KIB = 16 * 1024


def file_uri(path: Path, query: str = "") -> str:
    """Return the ``file:`` URI of ``path`` for ``sqlite3.connect(uri, uri=True)``.

    A file name is a file name: ``?``, ``#`` and ``%`` in it are percent-encoded, else
    SQLite reads them as the URI's query, fragment or escapes and opens another file
    (``j#1.sqlite`` opened ``j``; ``a?b.sqlite`` created ``a``). ``query`` is SQLite's
    (``mode=ro``).

    >>> file_uri(Path("/data/a?b#1%41.sqlite"), "mode=ro")
    'file:///data/a%3Fb%231%2541.sqlite?mode=ro'
    """
    return path.resolve().as_uri() + (f"?{query}" if query else "")


def connect_file(path: Path, **options: Any) -> sqlite3.Connection:
    """Open ``path`` read-write with ``sqlite3.connect``, as a file name: this SQLite
    reads even a plain name as a URI when it starts with ``file:`` (``ship
    file:j.sqlite`` VACUUMed ``j.sqlite``), so the name goes through ``file_uri``."""
    conn: sqlite3.Connection = sqlite3.connect(file_uri(path), uri=True, **options)
    return conn


def file_url(path: Path) -> URL:
    """Return SQLAlchemy's URL of the file ``path``, built, not parsed: a ``?`` in the
    name stays in the name (``sqlite:///t.sqlite?x=1`` opened ``t.sqlite``)."""
    return URL.create("sqlite", database=str(path.resolve()))


def writable_engine(path: Path) -> Engine:
    """Return an engine for building: WAL journal, relaxed fsync between chunks."""
    engine = create_engine(file_url(path))

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN/COMMIT ourselves
        dbapi_conn.execute("PRAGMA journal_mode=WAL")
        dbapi_conn.execute("PRAGMA synchronous=NORMAL")
        dbapi_conn.execute("PRAGMA busy_timeout=5000")
        dbapi_conn.execute(f"PRAGMA cache_size={-WRITER_CACHE_KIB}")

    return engine


@contextlib.contextmanager
def terminations_interrupt() -> Iterator[None]:
    """Take a SIGTERM (``kill``) for a Ctrl-C in the block: what a Ctrl-C cleans up (a
    half-written output file) is then cleaned up too, instead of the process dying at
    once. The Ctrl-C's own handler runs, so ``interrupts_deferred`` holds it alike. Main
    thread only (Python handles signals there); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def as_ctrl_c(_signum: int, frame: Any) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # Ctrl-C ignored or not Python's: stop as Python does
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    previous = signal.signal(signal.SIGTERM, as_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) until the block is done, then raise it (``KeyboardInterrupt``).

    For the steps that must not stop halfway: SQLAlchemy's pool logs an interrupted
    close with its traceback on stderr, and a finished file interrupted between its last
    commit and its switch out of WAL would stay in WAL mode. Python handles signals in
    the main thread only: elsewhere, or when SIGINT is not Python's to handle (ignored),
    the block runs as it is.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:  # Python's handler raises KeyboardInterrupt; an outer deferral holds it
            previous(signal.SIGINT, None)


def dispose(engine: Engine, conn: Connection | None = None) -> None:
    """Close ``conn`` and ``engine``'s pooled connections, never stopped halfway by a
    Ctrl-C (``interrupts_deferred``): it comes once they are closed."""
    with interrupts_deferred():
        try:
            if conn is not None:
                conn.close()
        finally:
            engine.dispose()


def missing_file_said(path: Path) -> str:
    """What to say of a database path that is not a file (a folder, or nothing)."""
    if path.is_dir():
        return (f"{path}: a folder, not a database file; give the .sqlite file(s) in it "
                f"(e.g. {path / '*.sqlite'})")
    return f"{path}: no such database file"


def _hot_journal(path: Path) -> bool:
    """True when a write to ``path`` was killed while SQLite's rollback journal was live
    (a "hot journal", e.g. a build killed as its finished file left WAL mode)."""
    journal = path.with_name(path.name + "-journal")
    return journal.is_file() and journal.stat().st_size > 0


def interrupted_write(path: Path, exc: Exception) -> NotAGameDB | None:
    """The error to raise instead of ``exc`` when it is a read-only open meeting a hot
    journal: only a writable connection can roll it back, a read-only one fails with
    "attempt to write a readonly database". ``None`` for any other error."""
    if "readonly database" not in str(exc) or not _hot_journal(path):
        return None
    return NotAGameDB(f"{path}: a write to it was interrupted ({path.name}-journal holds "
                      "the pages it changed) and read-only commands cannot restore them: "
                      "run the `gamedb build` that wrote it again (it restores the file "
                      "first)")


def roll_back_interrupted_write(path: Path) -> None:
    """Roll back a killed write's hot journal, as any writable SQLite connection does on
    its first read (the builder calls it under its build lock, before its read-only
    checks). A journal a live writer still holds is not hot: SQLite leaves it alone. A
    damaged file is left for the checks that follow to name precisely."""
    if not (path.is_file() and _hot_journal(path)):
        return
    with contextlib.suppress(sqlite3.Error), contextlib.closing(connect_file(path)) as conn:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def readonly_engine(path: Path) -> Engine:
    """Return an engine that can never write to ``path`` (``mode=ro`` URI)."""
    if not path.is_file():
        raise NotAGameDB(missing_file_said(path))
    uri = file_uri(path, f"mode=ro{_immutable(path)}")
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
    except UnicodeDecodeError as exc:  # sqlite3 decodes TEXT as UTF-8 (found by tests/test_fuzz.py)
        raise DamagedFile(path, f"meta holds text that is not UTF-8 ({exc.reason} at byte "
                          f"{exc.start})") from None
    except (OperationalError, DatabaseError) as exc:
        if (interrupted := interrupted_write(path, exc)) is not None:
            raise interrupted from None
        if is_corrupt(exc):
            raise DamagedFile(path, str(exc.orig)) from None
        reason = ("not a gamedb database" if "no such table" in str(exc) else
                  "not a gamedb database (not an SQLite file)"
                  if "file is not a database" in str(exc) else str(exc.orig))
        raise NotAGameDB(f"{path}: {reason}") from None
    meta = {str(name): _meta_value(path, name, value) for name, value in rows}
    if "spec" not in meta:
        raise NotAGameDB(f"{path}: not a gamedb database (no spec in meta)")
    for name, (kind, fits) in _META_CHECKS.items():
        if name in meta and not fits(meta[name]):
            raise DamagedFile(path, f"meta {name!r} holds {shown(json.dumps(meta[name]), 40)}, "
                              f"not {kind}")
    return meta


def _is(*kinds: type) -> Callable[[Any], bool]:
    """A check that a JSON value is of one of ``kinds`` (``bool`` only when named)."""
    return lambda v: isinstance(v, kinds) and (bool in kinds or not isinstance(v, bool))


_NUMBER = _is(int, float)
#: How many layers a key can name: its bits from ``LAYER_SHIFT`` up, in a positive int64.
_LAYERS = 1 << (63 - LAYER_SHIFT)


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """A live build's progress as of its last stored chunk (``meta.progress``)."""

    layer: int
    """The layer being solved."""
    layer_done: int
    """Positions of that layer solved so far."""
    layer_states: int
    """Positions in that layer."""
    rate: float
    """Positions solved per second since this run started."""
    eta_seconds: float
    """Estimated seconds to the end of the build at that rate."""
    done: int | None = None
    """Positions of the whole build solved (None: not recorded)."""
    total: int | None = None
    """Positions of the whole build."""
    updated: float | None = None
    """When it was written (Unix time)."""

    @classmethod
    def from_meta(cls, value: dict[str, Any] | None) -> BuildProgress | None:
        """Read ``meta.progress`` (checked on open: the required fields are numbers)."""
        if value is None:
            return None
        return cls(**{f.name: value[f.name] for f in fields(cls) if f.name in value})


#: What ``info`` reads of a live build's progress (the fields without a default).
_PROGRESS = tuple(f.name for f in fields(BuildProgress) if f.default is MISSING)

#: Each meta entry gamedb reads: what it must be, and the check.
_META_CHECKS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "spec": ("a string", _is(str)), "family": ("a string", _is(str)),
    "key_layout": ("a string", _is(str)), "status": ("a string", _is(str)),
    "canonical_keys": ("true or false", _is(bool)), "values_only": ("true or false", _is(bool)),
    "params": ("an object", _is(dict)), "solver": ("an object", _is(dict)),
    "root_value": ("a finite number or null", lambda v: v is None or (
        _NUMBER(v) and math.isfinite(v))),  # json.loads reads NaN and Infinity
    "states": ("an integer", _is(int)),
    "book_from_layer": ("an integer", _is(int)), "book_source": ("an object", _is(dict)),
    "strategies_from": (f"a layer (an integer from 0 to {_LAYERS - 1})",
                        lambda v: _is(int)(v) and 0 <= v < _LAYERS),
    "root_keys": ("a list of integers", lambda v: isinstance(v, list) and all(map(_is(int), v))),
    "progress": (f"null or an object of numbers {', '.join(_PROGRESS)}", lambda v: v is None or (
        isinstance(v, dict) and all(_NUMBER(v.get(k)) for k in _PROGRESS))),
}


def _meta_value(path: Path, name: object, value: object) -> Any:
    """Parse one meta entry's JSON, or raise ``DamagedFile``."""
    try:
        if isinstance(value, (str, bytes, bytearray)):
            return json.loads(value)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        pass
    raise DamagedFile(path, f"meta {name!r} is not JSON: {shown(str(value), 40)}")


def sqlite_connection(conn: Connection) -> sqlite3.Connection:
    """Return the ``sqlite3`` connection under ``conn`` (bulk statements, transactions)."""
    raw = conn.connection.driver_connection
    if not isinstance(raw, sqlite3.Connection):
        raise TypeError(f"expected an sqlite3 connection, got {type(raw).__name__}")
    return raw


def write_meta(conn: Connection, values: dict[str, Any]) -> None:
    """Insert or replace ``meta`` entries (JSON-encoded)."""
    for name, value in values.items():
        conn.execute(text("INSERT OR REPLACE INTO meta(name, value) VALUES (:n, :v)"),
                     {"n": name, "v": json.dumps(value)})
