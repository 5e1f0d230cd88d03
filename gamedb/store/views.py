"""Readable SQL views of a file: positions decoded from their keys with bit operations.

A key packs a position into an integer (each game's state docstring draws the layout),
and where the fields sit depends on the spec (Jujitsu's hands take ``num_cards`` bits
each). So the DDL is generated here from the game, once per file: by ``create_schema``
for a new file and by migration 0002 for an old one. Plain SQLite (the ``sqlite3``
shell, Datasette) can then browse a file without any gamedb code.

Two views per file (docs/format.md lists their columns):

* ``positions``: ``key, layer``, the decoded fields, ``position`` (the text
  ``gamedb show`` reads), ``value``, ``gap``;
* ``position_strategies``: the same position columns plus ``player``, ``action``
  (the stored label), the real action in the decoded position (``card``, ``bid``,
  ``move`` or ``cell``) and ``prob``.

A canonical key decodes to its class's representative (ranks as cards, players maybe
swapped), which is itself a position of the game, so its real actions are its labels.

>>> from gamedb.games import load_game
>>> stages, columns = decoding_of(load_game("oshi_zumo(coins=5)"))
>>> stages[0], columns
([('coins1', 'key & 1023'), ('coins2', 'key >> 18 & 1023'), ('pos', '(key >> 10 & 255) - 128')], ['coins1', 'coins2', 'pos'])
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from gamedb.games.base import LAYER_SHIFT, Game

VIEWS = ("positions", "position_strategies")

_GOOFSPIEL_LAYOUTS = ("goofspiel-v1", "goofspiel-v1-raw")


def create_views(connection: Connection, game: Game[Any]) -> bool:
    """Create (or replace) the readable views of ``game``'s file; False if none exist."""
    ddl = view_ddl(game)
    for name in VIEWS:
        connection.execute(text(f"DROP VIEW IF EXISTS {name}"))
    for statement in ddl:
        connection.execute(text(statement))
    return bool(ddl)


def drop_views(connection: Connection) -> None:
    """Drop the readable views (migration 0002's downgrade)."""
    for name in reversed(VIEWS):
        connection.execute(text(f"DROP VIEW IF EXISTS {name}"))


def view_ddl(game: Game[Any]) -> list[str]:
    """Return the CREATE VIEW statements for ``game`` (empty for an unknown key layout)."""
    decoding = decoding_of(game)
    if decoding is None:
        return []
    stages, public = decoding
    source = "SELECT key, layer, value, gap FROM states"
    for stage in stages:  # each stage may use the names of the stages before it
        source = f"SELECT *, {', '.join(f'{expr} AS {name}' for name, expr in stage)}\n" \
                 f"  FROM ({source})"
    columns = ", ".join(public)
    return [
        f"CREATE VIEW positions AS\nSELECT key, layer, position, {columns}, value, gap\n"
        f"FROM ({source})",
        f"CREATE VIEW position_strategies AS\n"
        f"SELECT p.key, p.layer, p.position, {', '.join('p.' + c for c in public)}, p.value,\n"
        f"       s.player, s.action, s.action AS {game.action_noun}, s.prob\n"
        f"FROM positions AS p JOIN strategies AS s ON s.key = p.key",
    ]


Stages = list[list[tuple[str, str]]]


def decoding_of(game: Game[Any]) -> tuple[Stages, list[str]] | None:
    """Return how ``key`` decodes in SQL: stages of ``(name, expression)`` and the
    public column names (``position`` is always computed, the text ``gamedb show``
    reads: ``game.format_position(game.decode(key))``); None for an unknown layout."""
    builders = {"jujitsu": _jujitsu, "oshi_zumo": _oshi_zumo, "nim": _nim,
                "tictoe": _tictoe, "goofspiel": _goofspiel}
    layout = game.key_layout.removesuffix("-raw")
    if game.name not in builders or layout != f"{game.name}-v1":
        return None
    return builders[game.name](game)


def _card_list(mask: str, labels: range) -> str:
    """SQL text '1,3,5' (or '-') of the cards set in ``mask``: bit c-1 is card c."""
    parts = " || ".join(f"CASE WHEN {mask} & {1 << (c - 1)} THEN ',{c}' ELSE '' END"
                        for c in labels)
    return f"coalesce(nullif(substr({parts}, 2), ''), '-')"


def _highest(mask: str, n: int) -> str:
    whens = " ".join(f"WHEN {mask} & {1 << (c - 1)} THEN {c}" for c in range(n, 0, -1))
    return f"CASE {whens} END"


def _hands(n: int) -> list[tuple[str, str]]:
    cards = range(1, n + 1)
    return [("hand1", _card_list("hand1_mask", cards)), ("hand2", _card_list("hand2_mask", cards)),
            ("high1", _highest("hand1_mask", n)), ("high2", _highest("hand2_mask", n))]


def _jujitsu(game: Game[Any]) -> tuple[Stages, list[str]]:
    n: int = game.num_cards  # type: ignore[attr-defined]
    fields = [("hand1_mask", f"key & {(1 << n) - 1}"), ("hand2_mask", f"key >> {n} & {(1 << n) - 1}"),
              ("pot", f"key >> {2 * n} & 31"), ("diff", f"(key >> {2 * n + 5} & 63) - 32")]
    text = "'hand1=' || hand1 || ' hand2=' || hand2 || ' pot=' || pot || ' diff=' || diff"
    return ([fields, _hands(n), [("position", text)]],
            ["hand1", "hand2", "pot", "diff", "high1", "high2", "hand1_mask", "hand2_mask"])


def _oshi_zumo(game: Game[Any]) -> tuple[Stages, list[str]]:
    fields = [("coins1", "key & 1023"), ("coins2", "key >> 18 & 1023"),
              ("pos", "(key >> 10 & 255) - 128")]
    text = "'coins1=' || coins1 || ' coins2=' || coins2 || ' pos=' || pos"
    return [fields, [("position", text)]], ["coins1", "coins2", "pos"]


def _nim(game: Game[Any]) -> tuple[Stages, list[str]]:
    heaps = [f"heap{i + 1}" for i in range(len(game.heaps))]  # type: ignore[attr-defined]
    fields = [(h, f"key >> {4 * i} & 15") for i, h in enumerate(heaps)]
    fields.append(("mover", "(key >> 32 & 1) + 1"))
    listed = " || ',' || ".join(heaps)
    text = f"'heaps=' || {listed} || ' mover=' || mover"
    return [fields, [("position", text)]], [*heaps, "mover"]


def _tictoe(game: Game[Any]) -> tuple[Stages, list[str]]:
    board = " || ".join(f"CASE WHEN key >> {c} & 1 THEN 'X' WHEN key >> {c + 4} & 1 "
                        f"THEN 'O' ELSE '.' END" for c in range(4))
    fields = [("board", board), ("mover", "(key >> 8 & 1) + 1")]
    return [fields, [("position", "'board=' || board || ' mover=' || mover")]], ["board", "mover"]


def _goofspiel(game: Game[Any]) -> tuple[Stages, list[str]]:
    """Goofspiel (see ``GoofspielState``): the field offsets come from the game."""
    from gamedb.games import goofspiel as g

    lay = [int(x) for x in game._layout]  # type: ignore[attr-defined]
    n, off_prizes, off_table, off_diff = (lay[g._N], lay[g._OFF_PRIZES], lay[g._OFF_TABLE],
                                         lay[g._OFF_DIFF])
    table = f"key >> {off_table} & {(1 << (off_diff - off_table)) - 1}"
    if lay[g._CANON]:
        stages = _goofspiel_ranks(n, off_prizes)
        last = [("prize", table), ("pot", "0")]
    else:
        bits = lay[g._PRIZE_BITS]
        stages = [[("hand1_mask", f"key & {(1 << n) - 1}"),
                   ("hand2_mask", f"key >> {n} & {(1 << n) - 1}")]]
        last = [("prize", f"({table}) & {(1 << bits) - 1}"), ("pot", f"({table}) >> {bits}")]
    win_loss = bool(lay[g._WL])
    diff = (f"(key >> {off_diff} & {(1 << (LAYER_SHIFT - off_diff)) - 1}) - {lay[g._HALF]}"
            if win_loss else "0")
    last += [("prizes_mask", f"key >> {off_prizes} & {(1 << n) - 1}"), ("diff", diff)]
    cards = _hands(n) + [("prizes", _card_list("prizes_mask", range(1, n + 1)))]
    text = ("'hand1=' || hand1 || ' hand2=' || hand2 || ' prizes=' || prizes"
            " || ' prize=' || prize" + (" || ' pot=' || pot" if game.ties == "carry" else "")  # type: ignore[attr-defined]
            + (" || ' diff=' || diff" if win_loss else ""))
    return ([*stages, last, cards, [("position", text)]],
            ["hand1", "hand2", "prizes", "prize", "pot", "diff", "high1", "high2",
             "hand1_mask", "hand2_mask"])


def _goofspiel_ranks(n: int, bits: int) -> Stages:
    """Both hands as masks over ranks (bit r = rank r + 1) from the base-3 ``hands``.

    Digit r of ``hands`` is 0 when both hold rank r + 1, 1 when only player 1 does, 2
    when only player 2 does; ranks past the union read 0, and the union has k + (number
    of 1 digits) ranks, k being the cards left in each hand (the layer). So hand 1 is
    the union without the 2 digits and hand 2 the union without the 1 digits. (Each
    digit is referenced a fixed number of times: SQLite inlines the stages, and a
    formula that used a mask once per card made a scan 7x slower.)
    """
    digits = [(f"d{r}", f"(key & {(1 << bits) - 1}) / {3 ** r} % 3") for r in range(n)]
    ones = " + ".join(f"(d{r} = 1)" for r in range(n))
    union = f"((1 << ((key >> {LAYER_SHIFT}) + {ones})) - 1)"
    only = {d: " | ".join(f"((d{r} = {d}) << {r})" for r in range(n)) for d in (1, 2)}
    return [digits, [("hand1_mask", f"{union} & ~({only[2]})"),
                     ("hand2_mask", f"{union} & ~({only[1]})")]]
