"""``states.gap`` may be NULL: a position stored values-only keeps no gap of its own.

A build stores strategies only from ``--strategies-from`` on (13-card Goofspiel: the
positions with 11 or more cards in hand); below, a row is the position's value alone and
its gap, which bounds the LP's error at that position, adds 8 bytes to every one of 1.3e9
rows (47 GB instead of 36). Such rows now keep ``gap`` NULL; the layer's largest gap stays
in ``layers.max_gap``. Rows already written keep their gaps.

Removing a NOT NULL constraint changes no stored byte, so the table's SQL text is edited
in place (SQLite's documented procedure for dropping NOT NULL, "ALTER TABLE": PRAGMA
writable_schema), instantly even on a 40 GB file, instead of copying the table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_STRICT = "gap FLOAT NOT NULL,"
_LOOSE = "gap FLOAT,"


def upgrade() -> None:
    _edit_states_sql(op.get_bind(), _STRICT, _LOOSE)


def downgrade() -> None:
    bind = op.get_bind()
    bind.execute(sa.text(  # the layer's largest gap bounds each of its positions' gaps
        "UPDATE states SET gap = (SELECT max_gap FROM layers WHERE layers.layer = states.layer)"
        " WHERE gap IS NULL"))
    bind.execute(sa.text("UPDATE states SET gap = 0.0 WHERE gap IS NULL"))  # no layer row
    _edit_states_sql(bind, _LOOSE, _STRICT)


def _edit_states_sql(bind: sa.engine.Connection, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in the stored ``CREATE TABLE states`` text."""
    sql = bind.execute(sa.text(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'states'")).scalar()
    if sql is None or old not in " ".join(sql.split()):
        return  # no states table (an empty file) or already in the new form
    head, tail = _split_once(sql, old)
    edited = head + new + tail
    version = bind.execute(sa.text("PRAGMA schema_version")).scalar()
    bind.execute(sa.text("PRAGMA writable_schema = ON"))
    try:
        bind.execute(sa.text("UPDATE sqlite_master SET sql = :sql "
                             "WHERE type = 'table' AND name = 'states'"), {"sql": edited})
        bind.execute(sa.text(f"PRAGMA schema_version = {int(version) + 1}"))
    finally:
        bind.execute(sa.text("PRAGMA writable_schema = OFF"))


def _split_once(sql: str, phrase: str) -> tuple[str, str]:
    """Split ``sql`` around ``phrase``, matched with any whitespace between its words."""
    import re

    pattern = r"\s+".join(re.escape(word) for word in phrase.split())
    head, tail = re.split(pattern, sql, maxsplit=1)
    return head, tail
