"""Persistence: schema, migrations, the bulk writer and the probe API."""

from __future__ import annotations

from gamedb.store.database import DBInfo, Entry, GameDB, LayerInfo, StoredRows, open_db
from gamedb.store.engine import BuildProgress
from gamedb.store.errors import DamagedFile, NotAGameDB, NotSolved, SpecMismatch, StoreError
from gamedb.store.migrate import SchemaOutOfDate

__all__ = ["BuildProgress", "DBInfo", "DamagedFile", "Entry", "GameDB", "LayerInfo", "NotAGameDB", "NotSolved",
           "SchemaOutOfDate", "SpecMismatch", "StoreError", "StoredRows", "open_db"]
