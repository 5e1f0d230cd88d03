"""Initial schema: meta, layers, states, strategies.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_meta"),
    )
    op.create_table(
        "layers",
        sa.Column("layer", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("states", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("max_gap", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("layer", name="pk_layers"),
    )
    op.create_table(
        "states",
        sa.Column("key", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("layer", sa.Integer(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("gap", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_states"),
    )
    op.create_table(
        "strategies",
        sa.Column("key", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("action", sa.Integer(), nullable=False),
        sa.Column("prob", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", "player", "action", name="pk_strategies"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("strategies")
    op.drop_table("states")
    op.drop_table("layers")
    op.drop_table("meta")
