"""What a file stores, for tests that compare two builds of the same game."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def stored_tables(path: Path) -> tuple[list[Any], list[Any], list[Any]]:
    """Every page, page layer and row of ``path``, in a fixed order (two files with
    equal dumps hold the same positions in the same pages)."""
    with sqlite3.connect(path) as conn:
        return (conn.execute("SELECT * FROM pages ORDER BY layer, page").fetchall(),
                conn.execute("SELECT * FROM page_layers ORDER BY layer").fetchall(),
                conn.execute("SELECT * FROM states ORDER BY key").fetchall())


def every_position(path: Path) -> list[tuple[Any, ...]]:
    """Every stored position of ``path`` as a ``states`` row (key, layer, value, gap,
    strategy texts), read through gamedb from rows and page layers alike."""
    from gamedb.store.database import open_db

    with open_db(path) as db:
        return [(int(k), layer, v, g, a, b)
                for layer in db.stored_layers() for rows in db.layer_rows(layer)
                for k, layer, v, g, a, b in zip(rows.keys, rows.layers, rows.values, rows.gaps,
                                                rows.strategy1, rows.strategy2)]
