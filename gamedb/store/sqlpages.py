"""Every position for SQL: a file's page layers read into temporary tables.

Plain SQL sees the rows of ``states`` only; the positions of page layers
(``gamedb.store.pages``) are compressed BLOBs. For ``gamedb sql`` a read-only
connection gets a *temporary* ``states`` table holding the rows and every page
position (values, gaps and strategy texts, as rows hold them), and temporary copies of
the file's views, which then read it: SQLite looks names up in the temporary schema
first, so a query names ``states``, ``positions`` and ``strategies`` as on any file.
Nothing is written to the file; the temporary tables live in SQLite's temporary
storage and go with the connection. Python's ``sqlite3`` cannot define virtual tables,
so the positions are copied, which is bounded by ``SQL_PAGE_LIMIT``.
"""

from __future__ import annotations

import re
import sqlite3

import numpy as np

from gamedb.store.pages import PageError, PageReader
from gamedb.store.views import VIEWS as POSITION_VIEWS
from gamedb.types import Progress

#: Page positions ``gamedb sql`` reads into temporary tables without being asked to
#: (about a minute and 2 GB of temporary storage; 8- and 9-card Goofspiel are below).
SQL_PAGE_LIMIT = 15_000_000


def reads_positions(sql: str) -> bool:
    """True if ``sql`` names ``states`` or a view over it (a word of the statement:
    a statement on ``meta`` or ``layers`` alone reads no pages)."""
    names = {"states", "strategies", *POSITION_VIEWS}
    return any(word.lower() in names for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql))


def page_positions(conn: sqlite3.Connection) -> dict[int, int]:
    """Return layer -> positions stored in pages (empty for a file without them)."""
    try:
        rows = conn.execute("SELECT layer, coalesce(sum(count), 0) FROM pages "
                            "GROUP BY layer ORDER BY layer").fetchall()
    except sqlite3.Error:  # before schema 0006, or not a gamedb file
        return {}
    return {int(layer): int(count) for layer, count in rows}


def shadow_pages(conn: sqlite3.Connection, on_progress: Progress | None = None) -> int:
    """Create temporary ``states`` (rows and page positions) and views over it on
    ``conn`` (read-only is fine: the temporary schema is the connection's own); return
    the page positions read.

    Raises:
        PageError: a page does not decode.
    """
    from gamedb.store.database import page_cells  # NumPy and the reader: on demand

    total = sum(page_positions(conn).values())
    if not total:
        return 0
    reader = PageReader(conn, frozen=True)
    conn.execute("CREATE TEMP TABLE states(key INTEGER PRIMARY KEY, layer INTEGER NOT NULL, "
                 "value REAL, gap REAL, strategy1 TEXT, strategy2 TEXT)")
    conn.execute("INSERT INTO temp.states SELECT key, layer, value, gap, strategy1, "
                 "strategy2 FROM main.states")
    done = 0
    for layer in sorted(reader.layers):
        for rows in reader.layer_pages(layer):
            conn.executemany("INSERT INTO temp.states VALUES (?, ?, ?, ?, ?, ?)",
                             page_cells(layer, rows, np.arange(len(rows.keys))))
            done += len(rows.keys)
            if on_progress is not None:
                on_progress(done, total)
    for sql, in conn.execute("SELECT sql FROM main.sqlite_master WHERE type = 'view'").fetchall():
        conn.execute(re.sub(r"^\s*CREATE\s+VIEW", "CREATE TEMP VIEW", sql, flags=re.I))
    conn.commit()
    return done


__all__ = ["PageError", "SQL_PAGE_LIMIT", "page_positions", "reads_positions", "shadow_pages"]
