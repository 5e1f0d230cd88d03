"""The database schema, in SQLAlchemy Core.

One file holds one game spec. Values are always from player 1's point of view; the
strategies of a stored position are kept per stored player (1 = row, 2 = column) with
stored action labels (ranks for rank-compressed games). See docs/ for the file format.
"""

from __future__ import annotations

from sqlalchemy import (
    Column, Float, Index, Integer, MetaData, PrimaryKeyConstraint, Table, Text,
)

#: Bump when the meaning of a table changes; alembic revisions carry the history.
SCHEMA_REVISION = "0002"

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
    Column("gap", Float, nullable=False, comment="max_i (My)_i - min_j (xM)_j"),
)

strategies = Table(
    "strategies", metadata,
    Column("key", Integer, nullable=False),
    Column("player", Integer, nullable=False, comment="1 = row, 2 = column (stored)"),
    Column("action", Integer, nullable=False, comment="stored action label"),
    Column("prob", Float, nullable=False, comment="non-zero probabilities only"),
    PrimaryKeyConstraint("key", "player", "action"),
    sqlite_with_rowid=False,
)

#: Built after the load, not during it (writes stay append-only).
strategy_index = Index("ix_strategies_player_action_prob",
                       strategies.c.player, strategies.c.action, strategies.c.prob,
                       strategies.c.key)
