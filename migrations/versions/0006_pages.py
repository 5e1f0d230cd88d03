"""Page layers: tables ``page_layers`` and ``pages`` (``gamedb.store.pages``).

A big game's values-only layers can be stored as compressed pages of values in key
order instead of one ``states`` row per position (13-card Goofspiel: 1.3e9 rows, 37 GB).
Files of schema 0005 have no page layers and stay readable as they are; upgrading only
adds the two (empty) tables.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(  # exactly as gamedb.store.schema declares them
        "page_layers",
        sa.Column("layer", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("codec", sa.Text(), nullable=False, comment="f64-shuffle-zlib (docs/format.md)"),
        sa.Column("page_size", sa.Integer(), nullable=False,
                  comment="values per page (the last: fewer)"),
        sa.Column("tail_bits", sa.Integer(), nullable=False, comment="tails < 2**tail_bits"),
        sa.Column("heads", sa.LargeBinary(), nullable=False, comment="sorted int64 LE, zlib"),
        sa.Column("tails", sa.LargeBinary(), nullable=False, comment="sorted int64 LE, zlib"),
        sa.PrimaryKeyConstraint("layer", name="pk_page_layers"),
    )
    op.create_table(
        "pages",
        sa.Column("layer", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("page", sa.Integer(), autoincrement=False, nullable=False,
                  comment="positions page * page_size and up, in key order"),
        sa.Column("first_key", sa.Integer(), nullable=False,
                  comment="the key of its first value"),
        sa.Column("count", sa.Integer(), nullable=False, comment="values in the page"),
        sa.Column("data", sa.LargeBinary(), nullable=False,
                  comment="the values (page_layers.codec)"),
        sa.PrimaryKeyConstraint("layer", "page", name="pk_pages"),
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT count(*) FROM page_layers")).scalar():
        raise RuntimeError("this file stores page layers, which schema 0005 cannot hold")
    op.drop_table("pages")
    op.drop_table("page_layers")
