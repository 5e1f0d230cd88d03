"""Readable SQL views of a file: positions decoded from their keys with bit operations.

A key packs a position into an integer, and where the fields sit depends on the spec
(a hand takes ``num_cards`` bits). Each game declares its fields once
(``gamedb.games.layout.KeyLayout``); the DDL is generated here from that declaration,
once per file: by ``create_schema`` for a new file and by migration 0002 for an old one. Plain SQLite (the ``sqlite3``
shell, Datasette) can then browse a file without any gamedb code.

Two views per file (docs/format.md lists their columns):

* ``positions``: ``key, layer``, the decoded fields, ``position`` (the text
  ``gamedb show`` reads), ``value``, ``gap`` and, for an impartial family (Nim,
  Hackenbush), ``grundy`` (its Sprague-Grundy value, table ``grundy``);
* ``position_strategies``: the same position columns plus ``player``, ``action``
  (the stored label), the real action in the decoded position (``card``, ``bid``,
  ``move`` or ``cell``) and ``prob``.

A canonical key decodes to its class's representative (ranks as cards, players maybe
swapped), which is itself a position of the game, so its real actions are its labels.

>>> from gamedb.games import load_game
>>> stages, columns = decoding_of(load_game("oshi_zumo(coins=5)"))
>>> stages[0][:3], columns
([('coins1', 'key & 1023'), ('pos', '(key >> 10 & 255) - 128'), ('coins2', 'key >> 18 & 1023')], ['coins1', 'coins2', 'pos'])
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from gamedb.games.base import Game
from gamedb.games.layout import Stages

VIEWS = ("positions", "position_strategies")


def create_views(connection: Connection, game: Game[Any], *, grundy: bool = True) -> bool:
    """Create (or replace) the readable views of ``game``'s file; False if none exist
    (``grundy=False``: without the ``grundy`` column, as before schema 0005)."""
    ddl = view_ddl(game, grundy=grundy)
    for name in VIEWS:
        connection.execute(text(f"DROP VIEW IF EXISTS {name}"))
    for statement in ddl:
        connection.execute(text(statement))
    return bool(ddl)


def drop_views(connection: Connection) -> None:
    """Drop the readable views (migration 0002's downgrade)."""
    for name in reversed(VIEWS):
        connection.execute(text(f"DROP VIEW IF EXISTS {name}"))


def view_ddl(game: Game[Any], *, grundy: bool = True) -> list[str]:
    """Return the CREATE VIEW statements for ``game``;
    an impartial family's ``positions`` has a ``grundy`` column unless ``grundy`` is False."""
    stages, public = decoding_of(game)
    grundy = grundy and game.capabilities.impartial
    source = decoded_select(stages, _GRUNDY_SOURCE if grundy else _SOURCE)
    columns = ", ".join(public)
    return [
        f"CREATE VIEW positions AS\nSELECT key, layer, position, {columns}, value, gap"
        f"{', grundy' if grundy else ''}\n"
        f"FROM ({source})",
        f"CREATE VIEW position_strategies AS\n"
        f"SELECT p.key, p.layer, p.position, {', '.join('p.' + c for c in public)}, p.value,\n"
        f"       s.player, s.action, s.action AS {game.action_noun}, s.prob\n"
        f"FROM positions AS p JOIN strategies AS s ON s.key = p.key",
    ]


_SOURCE = "SELECT key, layer, value, gap FROM states"
#: An impartial family's positions carry their Sprague-Grundy value.
_GRUNDY_SOURCE = ("SELECT s.key, s.layer, s.value, s.gap, g.grundy "
                  "FROM states AS s LEFT JOIN grundy AS g ON g.key = s.key")


def decoded_select(stages: Stages, source: str = _SOURCE) -> str:
    """Return a SELECT of every column of ``stages`` (inner ones too) over ``source``."""
    for stage in stages:  # each stage may use the names of the stages before it
        source = f"SELECT *, {', '.join(f'{expr} AS {name}' for name, expr in stage)}\n" \
                 f"  FROM ({source})"
    return source


def decoding_of(game: Game[Any]) -> tuple[Stages, list[str]]:
    """Return how ``key`` decodes in SQL: stages of ``(name, expression)`` and the
    public column names, derived from the game's declared ``layout`` (``position`` is
    always computed, the text ``gamedb show`` reads:
    ``game.format_position(game.decode(key))``)."""
    return game.layout.sql_stages(), game.layout.public_columns()
