"""The builder's side of the store: one writer, chunked transactions, resume queries.

Every transaction holds whole chunks: their states (with their strategies, one row per
state) and their layers' progress, so the file alone says what is done (resume needs
nothing else). Bulk rows go through the raw DB-API ``executemany``: 3-4x faster than
Core inserts.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

import gamedb
from gamedb.games.base import Game, layer_bounds, param_values
from gamedb.store import schema
from gamedb.store.checked import check_tables
from gamedb.store.database import StoredRows, game_for_meta
from gamedb.store.engine import (
    BuildProgress, dispose, file_uri, interrupts_deferred, read_meta, readonly_engine,
    roll_back_interrupted_write, sqlite_connection, writable_engine, write_meta,
)
from gamedb.store.errors import DamagedFile, DiskFull, SpecMismatch
from gamedb.store.lock import BuildLock
from gamedb.store.migrate import check_schema, create_schema
from gamedb.store.schema import SCHEMA_REVISION
from gamedb.store.pages import (CODEC, ROWS, KeyMap, PageReader, PageRows, damage_said,
                                decode_numbers, encode_rows, pack_ints)


@dataclass(frozen=True, slots=True)
class ChunkRows:
    """Solved states of one chunk, ready to store."""

    layer: int
    keys: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]
    gaps: npt.NDArray[np.float64]
    strategy1: list[str] | None
    """Player 1's strategy of each state as JSON text (``gamedb.store.codec``), or
    None in a values-only build."""
    strategy2: list[str] | None
    seconds: float

    @property
    def size(self) -> int:
        """Positions in the chunk."""
        return len(self.keys)

    @property
    def max_gap(self) -> float:
        """The largest gap of the chunk's positions."""
        return float(self.gaps.max()) if len(self.gaps) else 0.0


@dataclass(frozen=True, slots=True, eq=False)
class ChunkPages:
    """Solved positions of one chunk of a page layer: finished pages, ready to append
    (compressed by the worker that solved them: ``gamedb.store.pages``)."""

    layer: int
    first_page: int
    """The number of the chunk's first page; -1: the next of its layer (keyed layers)."""
    first_keys: list[int]
    counts: list[int]
    blobs: list[bytes]
    values: npt.NDArray[np.float64]
    """The chunk's values, for the builder's summary (not written again)."""
    max_gap: float
    seconds: float

    @property
    def size(self) -> int:
        """Positions in the chunk."""
        return sum(self.counts)

    @classmethod
    def keyed(cls, layer: int, rows: PageRows, gaps: npt.NDArray[np.float64],
              seconds: float) -> ChunkPages:
        """A solved chunk as one keyed page (``store.pages.encode_rows``), numbered by
        the writer; ``gaps`` gives its largest gap (a values-only page stores none)."""
        return cls(layer, -1, [int(rows.keys[0])], [len(rows.keys)], [encode_rows(rows)],
                   rows.values, float(gaps.max()) if len(gaps) else 0.0, seconds)


Chunk = ChunkRows | ChunkPages


class Writer:
    """The single writer of a database file during a build."""

    def __init__(self, path: Path, game: Game[Any], settings: dict[str, Any], *,
                 values_only: bool = False, strategies_from: int = 0, pages_below: int = 0,
                 pages_default: bool = False, page_min: tuple[int, bool] = (0, False)):
        self.path = path
        self.values_only = values_only
        self.strategies_from = strategies_from
        self.pages_below = pages_below
        """Layers below this one are page layers (``gamedb.store.pages``); 0: none (an
        existing file's own when ``pages_default``: the caller chose nothing)."""
        self._pages_default = pages_default
        self.page_min, self._page_min_default = page_min
        """Other layers of at least this many positions are keyed page layers (0: none;
        an existing file's own when the caller chose nothing)."""
        self._game = game
        self._lock = BuildLock(path)
        self._lock.acquire()
        try:
            with _full_disk_said(path):
                self._open(game, settings)
        except BaseException:
            self._lock.release()
            raise

    def _open(self, game: Game[Any], settings: dict[str, Any]) -> None:
        path = self.path
        roll_back_interrupted_write(path)  # a killed write's journal: read-only opens fail
        fresh = _is_empty(path)
        if not fresh:
            # Check an existing file read-only first: even switching it to WAL would
            # change a foreign or mismatched file, and nothing may be damaged.
            self.meta = _checked_meta(path, game)
            if bool(self.meta.get("values_only", False)) != self.values_only:
                mode = "values only" if self.meta.get("values_only") else "with strategies"
                raise SpecMismatch(f"{path} was built {mode}; build it the same way "
                                   f"({'with' if self.meta.get('values_only') else 'without'}"
                                   " --values-only) or use another file")
            self._check_split()
            if self.complete:  # finished, maybe shipped: never write to it, not even WAL
                self._engine = None
                return
        self._engine = writable_engine(path)
        self._conn = self._engine.connect()
        self._raw = sqlite_connection(self._conn)
        if fresh:
            self._create(game, settings)
        else:
            _mark_keyed_pages(self._raw)
        self.meta = read_meta(self._conn, path)
        self.pages = self._page_reader()

    def _create(self, game: Game[Any], settings: dict[str, Any]) -> None:
        self._raw.execute("BEGIN")
        create_schema(self._conn, game)
        write_meta(self._conn, {
            "spec": game.spec, "family": game.name, "params": param_values(game),
            "key_layout": game.key_layout, "canonical_keys": game.canonical_keys,
            "gamedb_version": gamedb.__version__, "solver": settings,
            "values_only": self.values_only,
            **({"strategies_from": self.strategies_from} if self.strategies_from else {}),
            **({"pages_below": self.pages_below} if self.pages_below else {}),
            **({"page_min": self.page_min} if self.page_min else {}),
            "status": "building", "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        })
        self._raw.execute("COMMIT")


    def _check_split(self) -> None:
        """Refuse to continue a build whose ``strategies_from`` differs from this one's."""
        stored = int(self.meta.get("strategies_from") or 0)
        if stored != self.strategies_from and not self.complete:
            raise SpecMismatch(f"{self.path} stores strategies from layer {stored}; build it "
                               f"the same way (--strategies-from {stored}) or use another file")
        pages = int(self.meta.get("pages_below") or 0)
        if self._pages_default:
            self.pages_below = pages
        elif pages != self.pages_below and not self.complete:
            raise SpecMismatch(f"{self.path} stores the layers below {pages} as pages; build "
                               f"it the same way (--pages-below {pages}) or use another file")
        least = int(self.meta.get("page_min") or 0)
        if self._page_min_default:
            self.page_min = least
        elif least != self.page_min and not self.complete:
            raise SpecMismatch(f"{self.path} stores its layers of {least:,} positions or more "
                               f"as pages; build it the same way (--page-min {least}) or use "
                               "another file")

    @property
    def complete(self) -> bool:
        """True when the file holds a finished build."""
        return bool(self.meta.get("status") == "complete")

    def ensure_layers(self, counts: dict[int, int]) -> None:
        """Record the number of states of every layer (once, at the first start)."""
        with _full_disk_said(self.path), _transaction(self._raw):
            self._raw.executemany(
                "INSERT OR IGNORE INTO layers(layer, states, done, seconds, max_gap) "
                "VALUES (?, ?, 0, 0.0, 0.0)", [(int(k), int(v)) for k, v in counts.items()])

    def ensure_page_layers(self, keymaps: dict[int, KeyMap | None], page_target: int) -> None:
        """Record how each layer of ``keymaps`` is paged (once, at the first start: a
        resumed layer keeps its page size) and read them back into ``pages``: values
        under a product of keys (``CODEC``), or keyed pages (``ROWS``) for None."""
        if not keymaps:
            return
        with _full_disk_said(self.path), _transaction(self._raw):
            self._raw.executemany(
                "INSERT OR IGNORE INTO page_layers(layer, codec, page_size, tail_bits, heads, "
                "tails) VALUES (?, ?, ?, ?, ?, ?)",
                [(layer, CODEC, keymap.page_size(page_target), keymap.tail_bits,
                  pack_ints(keymap.heads), pack_ints(keymap.tails)) if keymap is not None
                 else (layer, ROWS, page_target, 0, b"", b"")
                 for layer, keymap in keymaps.items()])
        self.pages = self._page_reader()

    def _page_reader(self) -> PageReader:
        with damage_said(self.path, "page_layers"):
            return PageReader(self._raw)

    def done_counts(self) -> dict[int, int]:
        """Return layer -> number of states already stored."""
        rows = self._conn.execute(select(schema.layers.c.layer, schema.layers.c.done))
        return {int(layer): int(done) for layer, done in rows}

    def page_numbers(self, layer: int) -> set[int]:
        """Return the numbers of the stored pages of a page layer (a keyed layer built
        on a cluster stores them in any order)."""
        return {int(page) for (page,) in self._raw.execute(
            "SELECT page FROM pages WHERE layer = ?", (layer,))}

    def page_values(self, layer: int, page: int) -> npt.NDArray[np.float64]:
        """Return the values of one stored page, checked finite (``DamagedFile``): its
        values section alone is decoded (no keys, no strategies)."""
        row = self._raw.execute("SELECT count, data FROM pages WHERE layer = ? AND page = ?",
                                (layer, page)).fetchone()
        values = None
        if row is not None:
            with damage_said(self.path, f"layer {layer}"):
                values, _ = decode_numbers(row[1], int(row[0]), self.pages.layers[layer].codec)
        if values is None or not np.isfinite(values).all():
            raise DamagedFile(self.path, f"layer {layer}: page {page} is missing or holds "
                                         "a value that is not a finite number")
        return values

    def layer_values(self, layer: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Return the stored keys (sorted) and values of one layer."""
        if layer in self.pages.layers:
            parts = list(self._stored_pages(layer))
            keys = np.concatenate([k for k, _ in parts]) if parts else np.zeros(0, np.int64)
            values = np.concatenate([v for _, v in parts]) if parts else np.zeros(0)
            self._check_done(layer, len(keys))
            return keys, values
        rows = self._raw.execute("SELECT key, value FROM states WHERE key BETWEEN ? AND ? "
                                 "ORDER BY key", layer_bounds(layer)).fetchall()
        self._check_done(layer, len(rows))
        stored = StoredRows.of([(k, layer, v, 0.0, None, None) for k, v in rows])
        return stored.keys, self._finite(stored)

    def _check_done(self, layer: int, stored: int) -> None:
        done = self._raw.execute("SELECT done FROM layers WHERE layer = ?", (layer,)).fetchone()
        if done is not None and done[0] != stored:  # resuming on a damaged file
            raise DamagedFile(self.path, f"layer {layer}: the layers table says {done[0]:,} "
                                         f"position(s) solved, {stored:,} are stored")

    def _stored_pages(self, layer: int) -> Iterator[tuple[npt.NDArray[np.int64],
                                                          npt.NDArray[np.float64]]]:
        """Yield the keys and values of ``layer``'s stored pages, checked finite."""
        with damage_said(self.path, f"layer {layer}"):
            for rows in self.pages.layer_pages(layer):
                if not np.isfinite(rows.values).all():
                    raise DamagedFile(self.path, f"layer {layer}: a stored value is not finite")
                yield rows.keys, rows.values

    def sorted_values(self, layer: int, step: int) -> Iterator[npt.NDArray[np.float64]]:
        """Yield the stored values of one layer in key order, ``step`` at a time (a page
        layer: a page at a time, whatever ``step``); ``DamagedFile`` when the layers
        table's count differs or a value is not a finite number (naming its position)."""
        if layer in self.pages.layers:
            stored = self._raw.execute("SELECT coalesce(sum(count), 0) FROM pages "
                                       "WHERE layer = ?", (layer,)).fetchone()[0]
            self._check_done(layer, int(stored))
            yield from (values for _, values in self._stored_pages(layer))
            return
        bounds = layer_bounds(layer)
        self._check_done(layer, self._raw.execute(
            "SELECT count(*) FROM states WHERE key BETWEEN ? AND ?", bounds).fetchone()[0])
        cursor = self._raw.execute("SELECT key, value FROM states WHERE key BETWEEN ? AND ? "
                                   "ORDER BY key", bounds)
        while rows := cursor.fetchmany(step):
            yield self._finite(StoredRows.of([(k, layer, v, 0.0, None, None) for k, v in rows]))

    def _finite(self, stored: StoredRows) -> npt.NDArray[np.float64]:
        """The rows' values; ``DamagedFile`` naming the first that is not a finite number."""
        values = stored.numbers()
        if not np.isfinite(values).all():
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            key = int(stored.keys[bad])
            raise DamagedFile(self.path, f"position {self._position(key)} (key {key}): the "
                                         f"value {stored.values[bad]!r} is not a finite number")
        return values

    def _position(self, key: int) -> str:
        try:
            return self._game.format_position(self._game.decode(key))
        except Exception:  # a key no position has: the message must still come out
            return "(no position of this game)"

    def write_chunks(self, chunks: list[Chunk], progress: BuildProgress | None = None) -> None:
        """Store solved chunks (one or several small layers) and the progress in a
        single transaction.

        ``progress`` (layer, rate, ETA...) goes to ``meta.progress`` for live ``info``.
        """
        raw = self._raw
        with _full_disk_said(self.path), _transaction(raw):
            for chunk in chunks:
                _insert(raw, chunk)
                raw.execute("UPDATE layers SET done = done + ?, seconds = seconds + ?, "
                            "max_gap = max(max_gap, ?) WHERE layer = ?",
                            (chunk.size, chunk.seconds, chunk.max_gap, chunk.layer))
            if progress is not None:
                raw.execute("INSERT OR REPLACE INTO meta(name, value) VALUES ('progress', ?)",
                            (json.dumps(asdict(progress)),))

    def write_grundy(self, values: dict[int, int]) -> None:
        """Store the Sprague-Grundy value of every key in ``values`` (one transaction;
        a resumed build writes them again)."""
        with _full_disk_said(self.path), _transaction(self._raw):
            self._raw.executemany("INSERT OR REPLACE INTO grundy(key, grundy) VALUES (?, ?)",
                                  values.items())

    def finalize(self, values: dict[str, Any]) -> None:
        """Mark the build complete and leave WAL mode (a Ctrl-C waits for both: a
        complete file left in WAL would stay so, as nothing writes to it again)."""
        with interrupts_deferred():
            with _full_disk_said(self.path), _transaction(self._raw):
                write_meta(self._conn, {**values, "status": "complete"})
                self._raw.execute("DELETE FROM meta WHERE name = 'progress'")
            self._leave_wal()
            self.meta = read_meta(self._conn, self.path)

    def _leave_wal(self) -> None:
        """Switch a finished file to the rollback journal: one file, readable from a
        read-only directory, and readers leave no ``-wal``/``-shm`` files behind.

        No VACUUM: a build only appends, so it frees nothing (8-card Goofspiel: 182 MB
        before and after, 1.5 s on a 20 s build).
        """
        try:
            with _full_disk_said(self.path):
                _checkpoint(self._raw)
                self._raw.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError as exc:  # a reader holds it: stays WAL, still fine
            if "locked" not in str(exc):
                raise

    def close(self) -> None:
        """Checkpoint the WAL and release the file and its lock (a Ctrl-C waits until
        they are released: ``interrupts_deferred``)."""
        with interrupts_deferred():
            if self._engine is None:  # a finished file, only read
                self._lock.release()
                return
            try:
                _checkpoint(self._raw)
            except sqlite3.Error:
                pass  # e.g. a full disk: the WAL keeps every commit, the next open replays it
            finally:
                try:
                    dispose(self._engine, self._conn)
                finally:
                    self._lock.release()


def _insert(raw: sqlite3.Connection, chunk: Chunk) -> None:
    """Append one chunk's pages, or its rows."""
    if isinstance(chunk, ChunkPages):
        first = chunk.first_page
        if first < 0:  # a keyed layer: its pages are numbered as they come
            first = raw.execute("SELECT coalesce(max(page) + 1, 0) FROM pages WHERE layer = ?",
                                (chunk.layer,)).fetchone()[0]
        raw.executemany("INSERT INTO pages(layer, page, first_key, count, data) "
                        "VALUES (?, ?, ?, ?, ?)",
                        zip([chunk.layer] * len(chunk.blobs),
                            range(first, first + len(chunk.blobs)),
                            chunk.first_keys, chunk.counts, chunk.blobs))
    elif chunk.strategy1 is None or chunk.strategy2 is None:
        # Values only: no strategies, no gap (0004). Two bound parameters a row instead
        # of six: the writer bounded a 13-card build's speed when it wrote rows.
        raw.executemany(f"INSERT INTO states(key, layer, value) VALUES (?, {int(chunk.layer)}, ?)",
                        zip(chunk.keys.tolist(), chunk.values.tolist()))
    else:
        raw.executemany("INSERT INTO states(key, layer, value, gap, strategy1, strategy2) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        zip(chunk.keys.tolist(), [chunk.layer] * chunk.size,
                            chunk.values.tolist(), chunk.gaps.tolist(), chunk.strategy1,
                            chunk.strategy2))


def _mark_keyed_pages(raw: sqlite3.Connection) -> None:
    """Stamp a 0006 file this build continues as 0007 (it may now hold keyed pages, which
    a gamedb of 0006 would take for damage): migration 0007 changes no table."""
    with _transaction(raw):
        raw.execute("UPDATE alembic_version SET version_num = ? WHERE version_num = '0006'",
                    (SCHEMA_REVISION,))


def _checkpoint(raw: sqlite3.Connection) -> None:
    """Move the WAL into the main file and empty it."""
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")


@contextlib.contextmanager
def _transaction(raw: sqlite3.Connection) -> Iterator[None]:
    """BEGIN ... COMMIT, rolled back on any error or interrupt."""
    raw.execute("BEGIN")
    try:
        yield
        raw.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # closed (SQLAlchemy drops a connection
            if raw.in_transaction:                 # interrupted by Ctrl-C): rolled back
                raw.execute("ROLLBACK")
        raise


@contextlib.contextmanager
def _full_disk_said(path: Path) -> Iterator[None]:
    """Turn SQLite's "database or disk is full" into ``DiskFull`` with what to do."""
    try:
        yield
    except (sqlite3.OperationalError, OperationalError) as exc:
        if "database or disk is full" not in str(exc):
            raise
        raise DiskFull(f"{path}: the disk is full; every finished chunk is saved: "
                       "free some space and run the same command to resume") from None


def _is_empty(path: Path) -> bool:
    """True for a missing or empty file, or one with no tables yet (a build killed
    before its schema was committed); such a file holds nothing to protect."""
    if not path.exists() or path.stat().st_size == 0:
        return True
    try:
        with sqlite3.connect(file_uri(path, "mode=ro"), uri=True) as conn:
            return bool(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0)
    except sqlite3.DatabaseError:
        return False  # damaged or foreign: _checked_meta says so precisely


def _checked_meta(path: Path, game: Game[Any]) -> dict[str, Any]:
    """Read an existing file's meta without writing, and check it holds ``game``."""
    engine = readonly_engine(path)
    try:
        with engine.connect() as conn:
            meta = read_meta(conn, path)
            check_schema(conn, str(path))
            if meta["spec"] != game.spec:
                raise SpecMismatch(f"{path} holds {meta['spec']}, not {game.spec}")
            if (book := meta.get("book_from_layer")) is not None:  # was: "nothing to do"
                raise SpecMismatch(f"{path} is an opening book (layers {book} and up of a "
                                   "finished file): it is not built on; build the whole "
                                   "game into a new file")
            check_tables(conn, path, game_for_meta(meta, path))
    finally:
        dispose(engine)
    if bool(meta.get("canonical_keys", True)) != game.canonical_keys:
        raise SpecMismatch(f"{path} was built with canonical_keys={meta.get('canonical_keys')}")
    return meta
