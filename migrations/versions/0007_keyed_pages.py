"""Keyed page layers: a page layer may use codec ``rows-shuffle-zlib``.

Schema 0006's page layers held values under a product of keys (``f64-shuffle-zlib``).
Keyed pages (``gamedb.store.pages.ROWS``: each page its own keys, values, gaps and
strategies) use the same two tables, so nothing changes in the tables; the revision
says that a file may hold them. A gamedb that knows only 0006 then calls the file
"written by a newer gamedb" instead of reading a keyed page as a damaged one.
Upgrading a 0006 file only stamps it; files of 0006 and 0005 stay readable as they are.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

#: ``gamedb.store.pages.ROWS`` (a migration must not import the package it migrates for).
KEYED_CODEC = "rows-shuffle-zlib"


def upgrade() -> None:
    """Nothing to change: the tables of 0006 hold keyed pages as they are."""


def downgrade() -> None:
    bind = op.get_bind()
    keyed = bind.execute(sa.text("SELECT count(*) FROM page_layers WHERE codec = :codec"),
                         {"codec": KEYED_CODEC}).scalar()
    if keyed:
        raise RuntimeError("this file stores keyed page layers, which schema 0006 cannot hold")
