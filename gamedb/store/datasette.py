"""A Datasette metadata file for a gamedb file: what every table, view and column means.

``datasette FILE`` already browses a gamedb file (plain SQLite with readable views);
``datasette FILE --metadata META.json`` with this metadata adds a title, a description
of every table and view and of their columns, hides alembic's bookkeeping table, and
offers canned queries (the start position, a position by key, the layers). The columns
are read from the file itself, so the decoded columns of every family are described.
``gamedb datasette-metadata FILE`` prints it (``docs/queries.md``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gamedb.store.database import GameDB
from gamedb.store.engine import file_uri

_TABLES = {
    "meta": "What the file is, one JSON value per name: spec, family, params, key_layout, "
            "gamedb_version, status, states, root_keys, root_value, timings.",
    "layers": "Per layer (positions are solved layer by layer from the end of the game): "
              "the positions, how many are solved, the seconds spent and the largest "
              "equilibrium gap.",
    "states": "One row per stored position (one per class of equivalent positions: rank "
              "compression and player swap), keyed by its canonical key; both strategies as "
              "JSON objects of stored action label -> probability (NULL where solved on "
              "demand). The views below read it for people.",
    "strategies": "The strategies of states unpacked: one row per key, player, stored action "
                  "label and probability (zero probabilities left out).",
    "grundy": "Sprague-Grundy value of each stored position of an impartial game (no one "
              "owns a move); empty in other games.",
    "page_layers": "The layers stored as compressed pages of values instead of states rows "
                   "(big games' values-only layers): codec, page size and the sorted key "
                   "heads and tails that place a key in its layer (docs/format.md).",
    "pages": "The values of the page layers, page_size a page in key order, each a "
             "compressed BLOB (gamedb show and the Python API read them; SQL sees bytes).",
    "positions": "Every stored position, decoded from its key into readable columns, with "
                 "player 1's value. position can be pasted into gamedb show.",
    "position_strategies": "positions joined with strategies: per position, player and "
                           "action, the equilibrium's probability.",
}

_COLUMNS = {
    "key": "Canonical key of the stored position (gamedb key SPEC POSITION prints any "
           "position's); its layer is in bits 48 and up.",
    "layer": "The position's layer: it strictly decreases along every move (in card games, "
             "the cards left in a hand).",
    "position": "The stored position as gamedb show reads it (the representative of its class).",
    "value": "Player 1's expected payoff under optimal play (+1 win, -1 loss in win/loss games).",
    "gap": "Equilibrium gap of the stored solution (<= 1e-9 when checked); NULL where "
           "only the value is stored.",
    "strategy1": "Player 1's strategy: JSON object of stored action label -> probability.",
    "strategy2": "Player 2's strategy: JSON object of stored action label -> probability.",
    "player": "1 or 2.",
    "action": "Stored action label (a rank in rank-compressed games).",
    "prob": "Probability the equilibrium plays the action.",
    "states": "Positions of the layer.",
    "done": "Positions solved and stored.",
    "seconds": "Seconds spent solving the layer.",
    "max_gap": "Largest equilibrium gap of the layer.",
    "grundy": "Sprague-Grundy value: the mover wins exactly when it is not 0.",
    "codec": "How a page's BLOB is encoded (f64-shuffle-zlib: docs/format.md).",
    "page_size": "Values per page (the layer's last page may hold fewer).",
    "tail_bits": "Width of a key's tail: key = head | tail, tail < 2**tail_bits.",
    "heads": "The layer's key heads, sorted int64 little-endian, zlib-compressed.",
    "tails": "The layer's key tails, sorted int64 little-endian, zlib-compressed.",
    "page": "Page number: the page holds positions page * page_size and up, in key order.",
    "first_key": "Key of the page's first value.",
    "count": "Values in the page.",
    "data": "The page's values in its layer's codec.",
}
#: The meta table's columns mean something else.
_META_COLUMNS = {"name": "Entry name (spec, family, params, status, root_keys, ...).",
                 "value": "The entry's value, as JSON."}


def datasette_metadata(db: GameDB, *, database: str | None = None) -> dict[str, Any]:
    """Return Datasette metadata describing ``db`` (``database``: its name in Datasette,
    by default the file name without its extension, as Datasette names it)."""
    game = db.game
    name = database or db.path.stem
    tables: dict[str, Any] = {"alembic_version": {"hidden": True}}
    for table, description in _TABLES.items():
        columns = _columns_of(db, table)
        known = _META_COLUMNS if table == "meta" else _COLUMNS
        tables[table] = {"description": description, "columns": {
            column: known.get(column, _decoded(column, game.action_noun, game.name))
            for column in columns}}
    tables["positions"]["sort_desc"] = "layer"
    return {"title": f"gamedb: {game.spec}",
            "description": f"Exact equilibrium values and strategies of {game.spec}, "
                           f"{db.meta.get('states', 0):,} stored positions "
                           f"(status {db.meta.get('status', 'building')}). Values are player "
                           "1's expected payoff. See docs/format.md of gamedb.",
            "databases": {name: {"tables": tables, "queries": _queries(db, game.action_noun)}}}


def _decoded(column: str, noun: str, family: str) -> str:
    if column == noun:
        return f"The action as a real {noun} of the stored position."
    return (f"A field of the position, decoded from the key: gamedb rules {family} explains "
            "the position's fields, docs/format.md ('Readable views') every column.")


def _columns_of(db: GameDB, table: str) -> list[str]:
    """Return the columns of a table or view, read from the file (read-only)."""
    with sqlite3.connect(file_uri(db.path, "mode=ro"), uri=True) as conn:
        return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]


def _queries(db: GameDB, noun: str) -> dict[str, Any]:
    roots = ", ".join(str(int(key)) for key in db.meta.get("root_keys", [])) or "NULL"
    shown = f'SELECT key, position, value, player, "{noun}", prob FROM position_strategies'
    return {
        "start": {"title": "The start position(s) and their strategies",
                  "sql": f"{shown} WHERE key IN ({roots}) ORDER BY key, player, action"},
        "by_key": {"title": "A position and its strategies by key (gamedb key SPEC POSITION "
                            "prints the key of any position)",
                   "sql": f"{shown} WHERE key = :key ORDER BY player, action"},
        "layers": {"title": "Positions, time and largest gap per layer",
                   "sql": "SELECT layer, states, done, seconds, max_gap FROM layers "
                          "ORDER BY layer DESC"},
    }


__all__ = ["datasette_metadata"]
