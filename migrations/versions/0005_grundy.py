"""Sprague-Grundy values: table ``grundy(key, grundy)`` for impartial families.

In an impartial game (Nim, Hackenbush: both players have the same moves) a position's
Grundy value says more than its value +1/-1: the mover wins exactly when it is
nonzero, and a sum of positions has the xor of their values. A build stores one row
per stored position of an impartial family (``gamedb.solver.grundy``); other families
keep the table empty, so their rows cost nothing. For an impartial family the
``positions`` view gains a ``grundy`` column.

A complete impartial file is filled here from its stored keys (the values depend on
the keys alone), and its views are regenerated; an unfinished one is filled by the
build that finishes it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(  # exactly as gamedb.store.schema declares it
        "grundy",
        sa.Column("key", sa.Integer(), autoincrement=False, nullable=False, comment="states.key"),
        sa.Column("grundy", sa.Integer(), nullable=False,
                  comment="Sprague-Grundy value (mex of the moves')"),
        sa.PrimaryKeyConstraint("key", name="pk_grundy"),
        sqlite_with_rowid=False,
    )
    bind = op.get_bind()
    game, meta = _impartial_game(bind)
    if game is None:
        return
    if meta.get("status") == "complete":
        _fill(bind, game)
    _recreate_views(bind, game)


def downgrade() -> None:
    bind = op.get_bind()
    game, _ = _impartial_game(bind)
    if game is not None:
        from gamedb.store.views import create_views

        create_views(bind, game, grundy=False)
    op.drop_table("grundy")


def _impartial_game(bind: sa.engine.Connection) -> tuple[Any, dict[str, Any]]:
    """The file's game if it is an impartial family this gamedb reads, else None."""
    from gamedb.games import GameError, load_game

    meta = {name: json.loads(value) for name, value in
            bind.execute(sa.text("SELECT name, value FROM meta")).all()}
    if "spec" not in meta:
        return None, meta
    try:
        game = load_game(meta["spec"], canonical_keys=bool(meta.get("canonical_keys", True)))
    except GameError:
        return None, meta
    if meta.get("key_layout") != game.key_layout or not game.capabilities.impartial:
        return None, meta
    return game, meta


def _fill(bind: sa.engine.Connection, game: Any) -> None:
    """Store the Grundy value of every stored key, computed layer by layer."""
    import numpy as np

    from gamedb.solver.grundy import grundy_values

    keys = np.array([k for (k,) in bind.execute(sa.text("SELECT key FROM states ORDER BY key"))],
                    np.int64)
    layers = game.layer_of(keys)
    values = grundy_values(game, {int(layer): keys[layers == layer] for layer in np.unique(layers)})
    if values:
        bind.execute(sa.text("INSERT INTO grundy(key, grundy) VALUES (:k, :g)"),
                     [{"k": k, "g": g} for k, g in values.items()])


def _recreate_views(bind: sa.engine.Connection, game: Any) -> None:
    """Regenerate the readable views (``positions`` gains ``grundy``)."""
    from gamedb.store.views import create_views

    create_views(bind, game)
