"""Readable views: ``positions`` and ``position_strategies`` decode keys in SQL.

The views depend on the file's spec (where a key's fields sit depends on its
parameters), so this revision reads ``meta.spec`` and generates them with
``gamedb.store.views``. A file without a spec (an empty schema) or with a key layout
this gamedb does not decode gets no views. A later revision that changes the views
must drop and recreate them itself.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from gamedb.games import GameError, load_game
    from gamedb.store.views import create_views

    bind = op.get_bind()
    meta = {name: json.loads(value) for name, value in
            bind.execute(sa.text("SELECT name, value FROM meta")).all()}
    if "spec" not in meta:
        return
    try:
        game = load_game(meta["spec"], canonical_keys=bool(meta.get("canonical_keys", True)))
    except GameError:
        return
    if meta.get("key_layout") == game.key_layout:
        create_views(bind, game)


def downgrade() -> None:
    from gamedb.store.views import drop_views

    drop_views(op.get_bind())
