"""Make a finished file ready to publish: one self-contained file, checksummed, and
optionally smaller, its page layers' values rounded to float32.

* ``ship``: ``journal_mode=DELETE`` and ``VACUUM`` in place, and the file's SHA-256;
* ``ship_float32``: a new file beside the exact one, whose page layers hold float32
  values (``f32-shuffle-zlib``, ``gamedb.store.pages``): about half the bytes of a page
  layer, with the largest error it introduces measured while converting and stored in
  ``meta.precision`` (``gamedb info`` prints it; ``verify`` allows it).

>>> import tempfile, pathlib
>>> from gamedb.builder import build
>>> where = pathlib.Path(tempfile.mkdtemp())
>>> _ = build("goofspiel(num_cards=4,returns_type=point_difference)", where / "g4.sqlite",
...           pages_below=4, strategies_from=4)
>>> small = ship_float32(where / "g4.sqlite", where / "g4.f32.sqlite")
>>> small.max_error < 1e-6, small.report.size > 0
(True, True)
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamedb.store.database import open_db
from gamedb.store.engine import connect_file, terminations_interrupt
from gamedb.store.errors import StoreError, refuse_own_database, refuse_unwritable
from gamedb.store.migrate import copy_database
from gamedb.store.pages import CODEC, FLOAT32, decode_page, encode_page
from gamedb.types import Progress



@dataclass(frozen=True, slots=True)
class ShipReport:
    """A file made ready to publish."""

    path: str
    sha256: str
    size: int
    """Bytes."""


@dataclass(frozen=True, slots=True)
class Float32Report:
    """A float32 copy of a file, shipped."""

    report: ShipReport
    values: int
    """Page values rounded to float32."""
    max_error: float
    """Largest |exact value - stored float32 value| over them."""


def ship(path: str | Path) -> ShipReport:
    """Finalise a complete file for shipping: ``journal_mode=DELETE``, ``VACUUM``.

    A shipped file is one self-contained file (no ``-wal``), as small as SQLite makes
    it; gamedb only ever opens it read-only afterwards.

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch: as ``open_db``.
        StoreError: the build is not complete.
    """
    path = Path(path)
    with open_db(path) as db:
        db.require_finished("ship it")
    conn = connect_file(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()
    _reset_write_counters(path)
    return ShipReport(str(path), sha256_of(path), path.stat().st_size)


#: Offsets of the header's write counters (https://www.sqlite.org/fileformat.html):
#: the file change counter, the schema cookie, the version-valid-for number.
_COUNTERS = (24, 40, 92)


def _reset_write_counters(path: Path) -> None:
    """Set a closed, shipped file's write counters to 1, so that shipping it again gives
    the same bytes (VACUUM is a write: each ``ship`` moved them). The change counter and
    the version-valid-for number stay equal, as SQLite needs to trust the header's page
    count; a fresh connection reads the schema whatever its cookie."""
    with path.open("r+b") as file:
        for offset in _COUNTERS:
            file.seek(offset)
            file.write((1).to_bytes(4, "big"))


def ship_float32(source: str | Path, output: str | Path, *,
                 on_progress: Progress | None = None) -> Float32Report:
    """Write ``output``: ``source`` with its page layers' values rounded to float32,
    shipped. ``source`` is only read; a failure removes ``output``.

    Raises:
        NotAGameDB, SchemaOutOfDate, SpecMismatch, DamagedFile: as ``open_db``.
        StoreError: ``source`` is unfinished or has no page layers; ``output`` exists
            or cannot be created (``refuse_unwritable``); the disk filled up.
    """
    source, output = Path(source), Path(output)
    refuse_own_database(output, source)  # not the source, nor its journal
    refuse_unwritable(output)  # before the source is read
    with open_db(source) as db:
        db.require_finished("ship it")
        layers = sorted(layer for layer, about in db.pages.layers.items() if about.codec == CODEC)
        rounded = any(about.codec == FLOAT32 for about in db.pages.layers.values())
    if not layers and rounded:
        raise StoreError(f"{source} is a float32 copy already: its page layers hold float32 "
                         "values; ship it as it is")
    if not layers:
        raise StoreError(f"{source} has no values-only page layers (gamedb build "
                         "--pages-below): its rows and keyed pages (with strategies) stay "
                         "float64; ship it as it is")
    try:
        with terminations_interrupt():  # a kill too leaves no half-made copy
            copy_database(source, output)
            values, error = _round_pages(output, on_progress)
            return Float32Report(ship(output), values, error)
    except sqlite3.OperationalError as exc:
        output.unlink(missing_ok=True)
        if "full" not in str(exc):
            raise
        raise StoreError(f"{output}: the disk filled up while writing the float32 copy (it "
                         f"is removed; {source} is unchanged): free some space") from None
    except BaseException:
        output.unlink(missing_ok=True)
        raise


def _round_pages(path: Path, on_progress: Progress | None) -> tuple[int, float]:
    """Re-encode every f64 page of ``path`` as f32; return (values, largest error)."""
    conn = connect_file(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        total = conn.execute("SELECT coalesce(sum(count), 0) FROM pages").fetchone()[0]
        rowids = [rowid for (rowid,) in conn.execute(  # one page in memory at a time
            "SELECT p.rowid FROM pages AS p JOIN page_layers AS l ON l.layer = p.layer "
            "WHERE l.codec = ? ORDER BY p.rowid", (CODEC,))]
        done, error = 0, 0.0
        for rowid in rowids:
            count, data = conn.execute("SELECT count, data FROM pages WHERE rowid = ?",
                                       (rowid,)).fetchone()
            exact = decode_page(data, count, CODEC)
            rounded = encode_page(exact, codec=FLOAT32)
            error = max(error, float(np.abs(decode_page(rounded, count, FLOAT32) - exact).max()))
            conn.execute("UPDATE pages SET data = ? WHERE rowid = ?", (rounded, rowid))
            done += count
            if on_progress is not None:
                on_progress(done, total)
        conn.execute("UPDATE page_layers SET codec = ? WHERE codec = ?", (FLOAT32, CODEC))
        conn.execute("INSERT OR REPLACE INTO meta(name, value) VALUES ('precision', ?)",
                     (json.dumps({"page_values": "float32", "max_error": error}),))
        conn.execute("COMMIT")
        return done, error
    finally:
        conn.close()


def sha256_of(path: str | Path) -> str:
    """Return the hex SHA-256 of a file (as ``sha256sum`` prints it)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = ["Float32Report", "ShipReport", "sha256_of", "ship", "ship_float32"]
