"""A file for the world outside gamedb: read-only SQL, exports, keys, opening books.

* ``run_query``: any SQL on a file opened read-only (a write fails, never happens);
* ``export``: every stored position decoded, with its value and strategies, as CSV or
  JSON lines;
* ``key_info``: where a real position is stored and how its actions are labelled;
* ``copy_top_layers``: a new file holding only the top layers of a finished one (an
  opening book).

>>> import tempfile, pathlib
>>> from gamedb.builder import build
>>> path = pathlib.Path(tempfile.mkdtemp()) / "j3.sqlite"
>>> _ = build("jujitsu(num_cards=3)", path)
>>> with run_query(path, "SELECT count(*) AS n FROM positions") as (columns, rows):
...     columns, list(rows)
(['n'], [(10,)])
"""

from __future__ import annotations

import base64
import csv
import json
import math
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from gamedb.games import load_game
from gamedb.games.base import LAYER_SHIFT
from gamedb.store.engine import (file_uri, interrupted_write, missing_file_said,
                                 terminations_interrupt)
from gamedb.store.checked import checked_grundy, checked_row
from gamedb.store.database import GameDB, StoredRows, open_db
from gamedb.store.errors import (
    DamagedFile, NotAGameDB, StoreError, is_corrupt, refuse_own_database,
)
from gamedb.store.pages import PageError
from gamedb.store.sqlpages import page_positions, shadow_pages
from gamedb.store.sqlsummary import rewrite, summarize
from gamedb.types import Progress


class QueryError(StoreError):
    """A query that SQLite refused (syntax, unknown table, an attempt to write...)."""


class _Deadline:
    """When a query must stop (never without ``seconds``)."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self._at = None if seconds is None else time.monotonic() + seconds

    def passed(self) -> bool:
        return self._at is not None and time.monotonic() > self._at

    def check(self, path: str | Path) -> None:
        """Raise ``QueryError`` once the deadline has passed."""
        if self.passed():
            raise QueryError(f"{path}: the statement ran for more than {self.seconds:g} s, "
                             "the limit here")


@contextmanager
def run_query(path: str | Path, sql: str, params: tuple[Any, ...] = (), *,
              pages: bool = False, on_progress: Progress | None = None,
              seconds: float | None = None
              ) -> Iterator[tuple[list[str], Iterator[tuple[Any, ...]]]]:
    """Run one SQL statement on a file opened read-only; yield (columns, rows).

    ``pages``: the statement sees every position, page layers included: an aggregate
    per layer (``store.sqlsummary``: counts, sums, averages, extremes of ``value``,
    ``gap`` and ``layer``, filtered and grouped by ``layer``) reads a summary of each
    layer, at any size; any other statement first reads the positions of page layers
    into temporary tables that shadow ``states`` and the views (``store.sqlpages``).
    ``on_progress`` gets (positions read, positions to read). ``seconds``: stop the
    statement (reading pages included) after that long, with ``QueryError``.

    Raises:
        NotAGameDB: no such file.
        DamagedFile: a page of the file does not decode (SQLite's, or with ``pages``
            gamedb's).
        QueryError: SQLite refused the statement, e.g. any write, or it ran too long.
    """
    deadline = _Deadline(seconds)
    prepare: Callable[[sqlite3.Connection], None] | None = None
    if pages:
        summary = None if params else rewrite(sql)
        statement = sql
        if summary is not None:
            sql = summary.sql

        def progress(done: int, total: int) -> None:
            deadline.check(path)
            if on_progress is not None:
                on_progress(done, total)

        def with_pages(conn: sqlite3.Connection) -> None:
            try:
                if summary is not None:
                    # SQLite's own word on a statement it refuses, not on the summary's
                    conn.execute(f"EXPLAIN {statement}")
                    summarize(conn, summary.layers, progress)
                else:
                    shadow_pages(conn, progress)
            except PageError as exc:
                raise DamagedFile(Path(path), str(exc)) from None
            except sqlite3.Error as exc:
                if summary is None:
                    raise
                _interrupted(exc, path, deadline)
                raise _refused(exc, path) from None

        prepare = with_pages
    conn = _readonly(Path(path), prepare)
    # no cell bigger than this: randomblob(1000000000) ended in a MemoryError
    if (setlimit := getattr(conn, "setlimit", None)) is not None:  # Python 3.11+
        setlimit(_SQLITE_LIMIT_LENGTH, QUERY_CELL_LIMIT)
    # Python runs a Ctrl-C's handler only between its own steps, never inside one SQLite
    # call: a handler SQLite calls every so often lets it run; its KeyboardInterrupt
    # stops the query ("interrupted"), and _interrupted raises it again; past the
    # deadline the handler returns 1, which stops it too
    conn.set_progress_handler(lambda: int(deadline.passed()), 100_000)
    rows: Generator[tuple[Any, ...], None, None] | None = None
    try:
        try:
            cursor = conn.execute(sql, params)
        except sqlite3.Error as exc:
            _interrupted(exc, path, deadline)
            raise _refused(exc, path) from None
        if cursor.description is None:  # blanks or comments: a blank line said nothing
            raise QueryError(f"{path}: no SQL statement to run (the text holds "
                             "only blanks or comments)")
        columns = [d[0] for d in cursor.description]
        rows = _rows(cursor, path, deadline)
        yield columns, rows
    finally:
        if rows is not None:
            rows.close()  # before its connection: else it is closed after, and complains
        conn.close()


#: The largest string or BLOB a query may return (bytes): a page BLOB is a few MiB.
QUERY_CELL_LIMIT = 64 << 20
_SQLITE_LIMIT_LENGTH = 0  # sqlite3.SQLITE_LIMIT_LENGTH (Python 3.11+)


def _interrupted(exc: sqlite3.Error, path: str | Path, deadline: _Deadline) -> None:
    """Raise ``QueryError`` for a query stopped by its deadline, ``KeyboardInterrupt``
    for one a Ctrl-C stopped (see ``run_query``)."""
    if str(exc) == "interrupted":
        deadline.check(path)
        raise KeyboardInterrupt from None


def _refused(exc: sqlite3.Error, path: str | Path) -> StoreError:
    """The error of a statement SQLite stopped: ``DamagedFile`` where the file is (a
    page that does not decode: "database disk image is malformed"), else ``QueryError``."""
    if is_corrupt(exc):
        return DamagedFile(Path(path), str(exc))
    return QueryError(f"{path}: {_query_error(exc)}")


def _query_error(exc: sqlite3.Error) -> str:
    if "one statement at a time" in str(exc):  # Python's own words: "You can only ..."
        return "one statement at a time: run each on its own"
    if str(exc) == "not authorized":  # the read-only connection's authorizer said no
        return ("not authorized: a file is read here only, so statements that attach "
                "another file or change settings are refused")
    if "too big" in str(exc):
        return (f"{exc}: a cell of the result is over {QUERY_CELL_LIMIT >> 20} MiB, the "
                "limit of gamedb sql")
    return str(exc)


def sees_pages(sql: str, paged: int) -> bool:
    """Whether ``run_query`` should read the page layers for ``sql`` when not told
    (``gamedb sql`` without ``--pages``/``--no-pages``, ``serve``), in a file with
    ``paged`` positions in pages (``paged_positions``): for an aggregate a summary
    answers (any size), and for any other statement that names the positions when the
    pages hold at most ``SQL_PAGE_LIMIT`` positions."""
    from gamedb.store import sqlpages  # its limit, as tests set it

    if not paged or not sqlpages.reads_positions(sql):
        return False  # a statement on meta or layers alone needs no pages
    return paged <= sqlpages.SQL_PAGE_LIMIT or rewrite(sql) is not None


def json_cell(value: Any) -> Any:
    """A cell as JSON has it: a BLOB as Datasette writes one (``{"$base64": true,
    "encoded": ...}``), an infinity as the string ``"Infinity"`` (JSON has no number
    for it), NaN as null (SQLite's own NaN)."""
    if isinstance(value, bytes):
        return {"$base64": True, "encoded": base64.b64encode(value).decode("ascii")}
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def paged_positions(path: str | Path) -> int:
    """Return how many positions of the file are stored in pages (0: none)."""
    conn = _readonly(Path(path))
    try:
        return sum(page_positions(conn).values())
    finally:
        conn.close()


def page_layers_note(path: str | Path) -> str | None:
    """Return a one-line note naming the file's page layers, which plain SQL does not
    see as rows (None for a file without them)."""
    conn = _readonly(Path(path))
    try:
        rows = conn.execute("SELECT p.layer, l.done FROM page_layers AS p JOIN layers AS l "
                            "ON l.layer = p.layer ORDER BY p.layer").fetchall()
    except sqlite3.Error:  # before schema 0006, or not a gamedb file: nothing to say
        return None
    finally:
        conn.close()
    if not rows:
        return None
    layers = ", ".join(str(layer) for layer, _ in rows)
    return (f"note: layer(s) {layers} ({sum(done for _, done in rows):,} positions) are stored "
            "as compressed pages, not as rows of states, positions or strategies: this "
            "statement saw the rows alone. gamedb sql answers counts, sums, averages and "
            "extremes of value, gap and layer per layer over every position at any size, and "
            "reads the pages for any other statement with --pages (docs/queries.md)")


def _rows(cursor: sqlite3.Cursor, path: str | Path,
          deadline: _Deadline) -> Generator[tuple[Any, ...], None, None]:
    try:
        yield from cursor
    except sqlite3.Error as exc:
        _interrupted(exc, path, deadline)
        raise _refused(exc, path) from None


def _readonly(path: Path, prepare: Callable[[sqlite3.Connection], None] | None = None
              ) -> sqlite3.Connection:
    """Open ``path`` so that nothing can write: ``mode=ro``, ``query_only``, no ATTACH
    (``prepare`` runs before, e.g. to fill temporary tables)."""
    if not path.is_file():
        raise NotAGameDB(missing_file_said(path))
    conn = sqlite3.connect(file_uri(path, "mode=ro"), uri=True)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        if (interrupted := interrupted_write(path, exc)) is not None:
            conn.close()
            raise interrupted from None
        # anything else (not a database, ...): the statement run on it says so
    if prepare is not None:
        try:
            prepare(conn)
        except BaseException:
            conn.close()
            raise
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_no_attach)  # ATTACH could create or write another file
    return conn


def _no_attach(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_ATTACH else sqlite3.SQLITE_OK


@dataclass(frozen=True, slots=True)
class Exported:
    """One stored position, decoded."""

    key: int
    layer: int
    position: str
    """``game.format_position(game.decode(key))``: the canonical representative
    (Jujitsu and Goofspiel hands in ranks, players maybe swapped)."""
    value: float
    gap: float | None
    stored: dict[int, dict[int, float]]
    """Stored player -> stored action label -> probability."""
    labels: dict[int, dict[int, int]] | None
    """Player -> stored label -> real action in ``position``; None when the
    representative is not itself a position of the game."""
    grundy: int | None = None
    """Its Sprague-Grundy value (table ``grundy``) in an impartial family's file, else
    None (and None where the table lacks the position)."""

    @property
    def real(self) -> dict[int, dict[int, float]] | None:
        """Player -> real action in ``position`` -> probability (None: see ``labels``)."""
        if self.labels is None:
            return None
        return {p: {self.labels[p][a]: prob for a, prob in self.stored[p].items()}
                for p in (1, 2)}


def exported_positions(path: str | Path, *, on_progress: Progress | None = None) -> Iterator[Exported]:
    """Yield every stored position of a file in key order (streamed, read-only).

    Raises:
        DamagedFile: a row is not as gamedb wrote it (nothing of it is yielded).
    """
    with open_db(path) as db:
        total, done = db.info().done, 0
        impartial = db.game.capabilities.impartial
        for layer in db.stored_layers():
            for rows in db.layer_rows(layer):
                grundy = db.grundy_cells(rows.keys) if impartial else {}
                yield from (_decoded(db, rows, i, layer, grundy) for i in range(len(rows.keys)))
                done += len(rows.keys)
                if on_progress is not None:
                    on_progress(done, max(done, total))


def _decoded(db: GameDB, rows: StoredRows, i: int, layer: int,
             grundy: dict[int, Any]) -> Exported:
    """Row ``i`` of ``rows`` with its Grundy cell (if any in ``grundy``), decoded and
    checked (``DamagedFile`` if it is damaged)."""
    game, key = db.game, int(rows.keys[i])
    state = game.decode(key)
    position = game.format_position(state)
    where = f"position {position} (key {key})"
    if rows.layers[i] != layer:
        raise DamagedFile(db.path, f"{where}: its layer column says {rows.layers[i]!r}, "
                                   f"its key says {layer}")
    value, gap, stored = checked_row(db.path, where, rows.values[i], rows.gaps[i],
                                     rows.strategy1[i], rows.strategy2[i],
                                     stores=db.stores_strategies(layer))
    canon = game.canonical(state)
    labels: dict[int, dict[int, int]] | None = None
    if canon.key == key and not canon.swapped:
        labels = {p: {label: act for act, label in canon.actions[p - 1].items()} for p in (1, 2)}
        for p in (1, 2):
            if unknown := sorted(set(stored[p]) - set(labels[p])):
                raise DamagedFile(db.path, f"{where}: the strategy of stored player {p} names "
                                           f"action label {unknown[0]}, not an action of it")
    cell = grundy.get(key)
    return Exported(key, layer, position, value, gap, stored, labels,
                    None if cell is None else checked_grundy(db.path, key, cell))


def export(path: str | Path, out: TextIO, fmt: str, *,
           on_progress: Progress | None = None) -> int:
    """Write every stored position of ``path`` to ``out``; return how many.

    Args:
        fmt: ``jsonl`` (one object per position) or ``csv`` (one row per position,
            player and action with non-zero probability; a position without stored
            strategies, in a values-only layer, has one row with those columns empty).
            An impartial family's file adds each position's ``grundy`` (a field, a
            column after ``gap``).
    """
    with open_db(path) as db:
        noun, impartial = db.game.action_noun, db.game.capabilities.impartial
    rows = exported_positions(path, on_progress=on_progress)
    if fmt == "jsonl":
        return _write_jsonl(rows, out, impartial)
    if fmt == "csv":
        return _write_csv(rows, out, noun, impartial)
    raise ValueError(f"unknown export format {fmt!r}: expected csv or jsonl")


def export_to_file(path: str | Path, output: str | Path, fmt: str, *,
                   on_progress: Progress | None = None, replace: bool = False) -> int:
    """Like ``export``, into the new file ``output`` (``replace``: or over an existing
    one, which is replaced only on success).

    The rows go to a temporary file next to ``output`` that is renamed over it once
    complete, so a damaged input or an interrupted export never touches an existing
    ``output``.

    Raises:
        StoreError: ``output`` exists (without ``replace``), is the database ``path``
            itself (under any name), or its folder is missing or not writable.
    """
    output = Path(output)
    if output.name in ("", "..") or output.is_dir():  # Path("") is "."
        raise StoreError(f"cannot write {str(output)!r}: a folder, not a file; name the "
                         "file to write")
    refuse_own_database(output, path)
    if not replace and output.exists():  # book and ship refuse one too
        raise StoreError(f"{output} exists; choose a new file name, or give --force to "
                         "replace it")
    if not output.parent.is_dir():
        raise StoreError(f"cannot write {output}: folder {str(output.parent)!r} does not exist")
    handle, temp = _temporary_next_to(output)
    try:
        with terminations_interrupt(), os.fdopen(handle, "w", newline="") as out:
            count = export(path, out, fmt, on_progress=on_progress)
        os.replace(temp, output)
    except BaseException:  # a Ctrl-C or a kill too: no hidden .part file is left
        os.unlink(temp)
        raise
    return count


def _temporary_next_to(output: Path) -> tuple[int, str]:
    """Create the temporary file that will replace ``output``: with the mode of the
    file it replaces, or a new file's (0666 less the umask; ``mkstemp`` gives 0600)."""
    temp = output.with_name(f".{output.name}.{secrets.token_hex(4)}.part")
    try:
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        if output.is_file():
            os.chmod(handle, stat.S_IMODE(output.stat().st_mode))
    except OSError as exc:  # named by the user's path, not the temporary one
        raise StoreError(f"cannot write {output}: {exc.strerror}") from None
    return handle, str(temp)


def _write_jsonl(rows: Iterator[Exported], out: TextIO, impartial: bool) -> int:
    count = 0
    for row in rows:
        record = {"key": row.key, "layer": row.layer, "position": row.position,
                  "value": row.value, "gap": row.gap,
                  **({"grundy": row.grundy} if impartial else {}),
                  "strategy": _json_strategy(row.real),
                  "stored_strategy": _json_strategy(row.stored)}
        out.write(json.dumps(record) + "\n")
        count += 1
    return count


def _json_strategy(strategy: dict[int, dict[int, float]] | None) -> dict[str, Any] | None:
    if strategy is None:
        return None
    return {str(p): {str(a): prob for a, prob in sorted(s.items())} for p, s in strategy.items()}


def _write_csv(rows: Iterator[Exported], out: TextIO, noun: str, impartial: bool) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["key", "layer", "position", "value", "gap",
                     *(["grundy"] if impartial else []), "player", "action", noun, "prob"])
    count = 0
    for row in rows:
        grundy = ["" if row.grundy is None else row.grundy] if impartial else []
        entries = 0
        for player in (1, 2):
            real = {} if row.labels is None else row.labels[player]
            for action, prob in sorted(row.stored[player].items()):
                writer.writerow([row.key, row.layer, row.position, row.value, row.gap, *grundy,
                                 player, action, real.get(action, ""), prob])
                entries += 1
        if not entries:  # no strategy stored (values only): the position on a row alone
            writer.writerow([row.key, row.layer, row.position, row.value, row.gap, *grundy,
                             "", "", "", ""])
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """Where a real position is stored (``gamedb key``)."""

    spec: str
    position: str
    key: int
    layer: int
    swapped: bool
    """True when the stored position has the players swapped (value negated)."""
    stored_position: str
    """The canonical representative: ``format_position(decode(key))``."""
    actions: dict[int, dict[int, int]]
    """Real player -> each of their legal real actions -> stored label."""
    stored_player: dict[int, int]
    """Real player -> the stored player whose strategy it plays."""
    offset: float = 0.0
    """Real value = (-1 if swapped else 1) * stored value + offset."""
    names: dict[int, dict[int, str]] = field(default_factory=dict)
    """Real player -> each legal real action -> its name (``Game.action_name``)."""
    unreachable: str | None = None
    """Why no play reaches the position, where its key is stored all the same (a score
    the cards cannot give, not part of the key: ``Capabilities.score_in_key``)."""


def key_info(spec: str, position: str) -> KeyInfo:
    """Return the canonical key of ``position`` in ``spec`` and its action labels.

    Raises:
        GameError: bad spec or position, or one that is never stored (the game is
            over, a chance draw comes next, or the game can tell no play reaches it).

    >>> info = key_info("jujitsu(num_cards=8)", "hand1=2,7 hand2=4,8 pot=0 diff=-2")
    >>> info.key, info.swapped, info.stored_position
    (562950016338437, False, 'hand1=1,3 hand2=2,4 pot=0 diff=-2')
    >>> info.actions[1], info.actions[2]   # own card -> rank in the union of both hands
    ({2: 1, 7: 3}, {4: 2, 8: 4})
    """
    from gamedb.games import GameError

    game = load_game(spec)
    state = game.parse_position(position)
    if game.value(state) is not None:
        raise GameError(f"{game.format_position(state)}: the game is over; nothing is stored")
    if game.chance(state) is not None:
        raise GameError(f"{game.format_position(state)}: a chance draw comes next; "
                        "give the drawn prize (prize=...)")
    why = game.unreachable(state)
    if why is not None and game.capabilities.score_in_key:
        raise GameError(f"{why}: no play reaches this position; nothing is stored")
    canon, legal = game.canonical(state), game.actions(state)
    return KeyInfo(game.spec, game.format_position(state), canon.key, canon.key >> LAYER_SHIFT,
                   canon.swapped, game.format_position(game.decode(canon.key)),
                   {p: {a: canon.actions[p - 1][a] for a in sorted(legal[p - 1])} for p in (1, 2)},
                   {p: canon.stored_player(p) for p in (1, 2)}, canon.offset,
                   {p: {a: game.action_name(state, p, a) for a in legal[p - 1]} for p in (1, 2)},
                   why)


def copy_top_layers(source: str | Path, output: str | Path, from_layer: int,
                    meta: dict[str, Any]) -> int:
    """Write ``output``: the layers ``from_layer`` and up of the finished ``source``, with
    their rows and pages as stored, the same schema and views, and ``meta`` added to its meta.

    Returns the number of positions copied.

    Raises:
        StoreError: ``output`` exists, or ``source`` is not a finished build.
    """
    source, output = Path(source), Path(output)
    with open_db(source) as db:
        db.require_finished("make the book")
        game = db.game
    if output.exists():
        raise StoreError(f"{output} exists; choose a new file name")
    try:
        return _copy_rows(source, output, game, from_layer, meta)
    except BaseException:
        output.unlink(missing_ok=True)  # nothing half-written is left behind
        raise


def _copy_rows(source: Path, output: Path, game: Any, from_layer: int,
               meta: dict[str, Any]) -> int:
    from sqlalchemy import create_engine

    from gamedb.store.engine import write_meta
    from gamedb.store.migrate import create_schema

    def connect() -> sqlite3.Connection:  # URIs on: ATTACH reads the source read-only
        return sqlite3.connect(file_uri(output), uri=True)

    engine = create_engine("sqlite://", creator=connect)
    try:
        with engine.begin() as conn:
            create_schema(conn, game)
            conn.exec_driver_sql("ATTACH DATABASE ? AS src",
                                 (file_uri(source, "mode=ro"),))
            conn.exec_driver_sql("INSERT INTO meta SELECT * FROM src.meta")
            conn.exec_driver_sql("INSERT INTO layers SELECT * FROM src.layers WHERE layer >= ?",
                                 (from_layer,))
            copied = conn.exec_driver_sql("INSERT INTO states SELECT * FROM src.states "
                                          "WHERE key >= ?", (from_layer << LAYER_SHIFT,))
            conn.exec_driver_sql("INSERT INTO grundy SELECT * FROM src.grundy WHERE key >= ?",
                                 (from_layer << LAYER_SHIFT,))  # impartial families only
            paged = 0
            if conn.exec_driver_sql("SELECT 1 FROM src.sqlite_master WHERE name = 'pages'"
                                    ).first():  # page layers (schema 0006) as stored
                conn.exec_driver_sql("INSERT INTO page_layers SELECT * FROM src.page_layers "
                                     "WHERE layer >= ?", (from_layer,))
                conn.exec_driver_sql("INSERT INTO pages SELECT * FROM src.pages WHERE layer >= ?",
                                     (from_layer,))
                paged = int(conn.exec_driver_sql("SELECT coalesce(sum(count), 0) FROM pages"
                                                 ).scalar() or 0)
            write_meta(conn, {**meta, "states": copied.rowcount + paged})
        return int(copied.rowcount) + paged
    finally:
        engine.dispose()


