"""The database schema, in SQLAlchemy Core.

One file holds one game spec. Values are always from player 1's point of view; the
strategies of a stored position are kept per stored player (1 = row, 2 = column) with
stored action labels (ranks for rank-compressed games), as one JSON object per player
in the position's own row (``gamedb.store.codec``); the ``strategies`` view unpacks
them into ``(key, player, action, prob)`` rows. See docs/format.md.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, LargeBinary, MetaData, Table, Text

#: Bump when the meaning of a table changes; alembic revisions carry the history.
SCHEMA_REVISION = "0007"
#: Revisions this gamedb reads as they are (0005 files simply have no page layers; 0006
#: only no mark that they may hold keyed ones).
READABLE_REVISIONS = ("0005", "0006", "0007")

metadata = MetaData(naming_convention={
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})

meta = Table(
    "meta", metadata,
    Column("name", Text, primary_key=True),
    Column("value", Text, nullable=False, comment="JSON-encoded"),
)

layers = Table(
    "layers", metadata,
    Column("layer", Integer, primary_key=True, autoincrement=False),
    Column("states", Integer, nullable=False, comment="canonical states in the layer"),
    Column("done", Integer, nullable=False, default=0, comment="states solved and stored"),
    Column("seconds", Float, nullable=False, default=0.0, comment="solve + write time"),
    Column("max_gap", Float, nullable=False, default=0.0, comment="largest equilibrium gap"),
)

states = Table(
    "states", metadata,
    Column("key", Integer, primary_key=True, autoincrement=False, comment="canonical key"),
    Column("layer", Integer, nullable=False),
    Column("value", Float, nullable=False, comment="player 1's expected payoff"),
    Column("gap", Float, comment="max_i (My)_i - min_j (xM)_j; NULL in a values-only row "
                                 "(the layer's largest gap is layers.max_gap)"),
    Column("strategy1", Text, comment='player 1 (row): JSON {"label": prob}; NULL: values only'),
    Column("strategy2", Text, comment='player 2 (column): JSON {"label": prob}'),
)

#: Sprague-Grundy values of the stored positions of an impartial family
#: (``Capabilities.impartial``: Nim, Hackenbush); empty for every other family.
grundy = Table(
    "grundy", metadata,
    Column("key", Integer, primary_key=True, autoincrement=False, comment="states.key"),
    Column("grundy", Integer, nullable=False, comment="Sprague-Grundy value (mex of the moves')"),
    sqlite_with_rowid=False,
)

#: Page layers (schema 0006, ``gamedb.store.pages``): a layer of a big game stored as its
#: values in key order, ``page_size`` a page, with no ``states`` rows. Its keys are every
#: ``head | tail`` of two sorted lists, so a key's place is two binary searches.
page_layers = Table(
    "page_layers", metadata,
    Column("layer", Integer, primary_key=True, autoincrement=False),
    Column("codec", Text, nullable=False, comment="f64-shuffle-zlib (docs/format.md)"),
    Column("page_size", Integer, nullable=False, comment="values per page (the last: fewer)"),
    Column("tail_bits", Integer, nullable=False, comment="tails < 2**tail_bits"),
    Column("heads", LargeBinary, nullable=False, comment="sorted int64 LE, zlib"),
    Column("tails", LargeBinary, nullable=False, comment="sorted int64 LE, zlib"),
)

pages = Table(
    "pages", metadata,
    Column("layer", Integer, primary_key=True, autoincrement=False),
    Column("page", Integer, primary_key=True, autoincrement=False,
           comment="positions page * page_size and up, in key order"),
    Column("first_key", Integer, nullable=False, comment="the key of its first value"),
    Column("count", Integer, nullable=False, comment="values in the page"),
    Column("data", LargeBinary, nullable=False, comment="the values (page_layers.codec)"),
)

#: One row per stored non-zero probability, unpacked from the JSON columns of ``states``
#: (a key's rows come from its primary-key row, so ``WHERE key = ...`` stays a lookup).
STRATEGIES_VIEW = """CREATE VIEW strategies(key, player, action, prob) AS
SELECT s.key, 1, CAST(j.key AS INTEGER), j.value FROM states AS s, json_each(s.strategy1) AS j
UNION ALL
SELECT s.key, 2, CAST(j.key AS INTEGER), j.value FROM states AS s, json_each(s.strategy2) AS j"""
