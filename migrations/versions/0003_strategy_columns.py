"""Strategies move into their position's row: ``states.strategy1/strategy2`` (JSON).

Before: one ``strategies`` row per (key, player, action) plus a covering index, about
five rows per position. Writing those rows was most of an 8-card Goofspiel build, so
a position's strategy is now one JSON object per player in ``states`` (see
``gamedb.store.codec``), and ``strategies`` is a view over them with the same columns,
so queries written for the table keep working. Probabilities are copied exactly
(Python's ``repr`` is the shortest text that reads back to the same double).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import itertools

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_VIEW = """CREATE VIEW strategies(key, player, action, prob) AS
SELECT s.key, 1, CAST(j.key AS INTEGER), j.value FROM states AS s, json_each(s.strategy1) AS j
UNION ALL
SELECT s.key, 2, CAST(j.key AS INTEGER), j.value FROM states AS s, json_each(s.strategy2) AS j"""


def upgrade() -> None:
    bind = op.get_bind()
    views = _drop_readable_views(bind)
    bind.execute(sa.text("ALTER TABLE states ADD COLUMN strategy1 TEXT"))
    bind.execute(sa.text("ALTER TABLE states ADD COLUMN strategy2 TEXT"))
    rows = bind.execute(sa.text(
        "SELECT key, player, action, prob FROM strategies ORDER BY key, player, action"))
    update = sa.text("UPDATE states SET strategy1 = :s1, strategy2 = :s2 WHERE key = :k")
    updates = []
    for key, group in itertools.groupby(rows, key=lambda r: r[0]):
        texts: dict[int, dict[str, float]] = {1: {}, 2: {}}
        for _, player, action, prob in group:
            texts[player][str(action)] = prob
        updates.append({"k": key, **{f"s{p}": _json(t) for p, t in texts.items()}})
        if len(updates) == 50_000:  # bounded memory on big files
            bind.execute(update, updates)
            updates = []
    if updates:
        bind.execute(update, updates)
    bind.execute(sa.text("DROP INDEX IF EXISTS ix_strategies_player_action_prob"))
    bind.execute(sa.text("DROP TABLE strategies"))
    bind.execute(sa.text(_VIEW))
    _restore_readable_views(bind, views)


def downgrade() -> None:
    bind = op.get_bind()
    views = _drop_readable_views(bind)
    rows = bind.execute(sa.text("SELECT key, player, action, prob FROM strategies")).all()
    bind.execute(sa.text("DROP VIEW strategies"))
    op.create_table(  # exactly as revision 0001 created it
        "strategies",
        sa.Column("key", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("action", sa.Integer(), nullable=False),
        sa.Column("prob", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", "player", "action", name="pk_strategies"),
        sqlite_with_rowid=False,
    )
    if rows:
        bind.execute(sa.text("INSERT INTO strategies VALUES (:k, :p, :a, :q)"),
                     [{"k": k, "p": p, "a": a, "q": q} for k, p, a, q in rows])
    bind.execute(sa.text("CREATE INDEX ix_strategies_player_action_prob "
                         "ON strategies (player, action, prob, key)"))
    bind.execute(sa.text("ALTER TABLE states DROP COLUMN strategy1"))
    bind.execute(sa.text("ALTER TABLE states DROP COLUMN strategy2"))
    _restore_readable_views(bind, views)


def _json(strategy: dict[str, float]) -> str | None:
    if not strategy:
        return None
    return "{" + ",".join(f'"{a}":{p!r}' for a, p in
                          sorted(strategy.items(), key=lambda item: int(item[0]))) + "}"


def _drop_readable_views(bind: sa.engine.Connection) -> list[str]:
    """Drop the readable views (they name ``states`` and ``strategies``); return their DDL."""
    views = bind.execute(sa.text(
        "SELECT name, sql FROM sqlite_master WHERE type = 'view' "
        "AND name IN ('positions', 'position_strategies')")).all()
    for name, _ in reversed(sorted(views)):
        bind.execute(sa.text(f"DROP VIEW {name}"))
    return [sql for _, sql in sorted(views, key=lambda v: v[0] != "positions")]


def _restore_readable_views(bind: sa.engine.Connection, views: list[str]) -> None:
    for sql in views:  # positions first: position_strategies reads it
        bind.execute(sa.text(sql))

