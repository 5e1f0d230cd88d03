"""What a stored cell must be before anyone trusts it, and the reads only ``verify`` makes.

A file is read as untrusted: a row's value, gap and strategy texts, a Grundy cell and
the tables themselves are checked here against what gamedb writes, and anything else
raises ``DamagedFile`` naming the file and the position. The reader (``GameDB.probe``,
``GameDB.value``), ``export`` and ``verify`` all judge cells with these functions, so
each kind of damage reads the same wherever it is met.

>>> from pathlib import Path
>>> checked_row(Path("x.sqlite"), "position p", 0.5, 0.0, '{"1":1.0}', '{"2":1.0}',
...             stores=True)
(0.5, 0.0, {1: {1: 1.0}, 2: {2: 1.0}})
>>> try:
...     checked_row(Path("x.sqlite"), "position p", 0.5, -5, '{"1":1.0}', '{"2":1.0}',
...                 stores=True)
... except DamagedFile as exc:
...     print(exc.what)
position p: the gap -5 is negative (a gap is the stage game's max minus min, at least 0)
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from collections.abc import Iterable
from typing import Any, TypeGuard

from sqlalchemy import text
from sqlalchemy.engine import Connection

from gamedb.games.base import Game, layer_bounds, shown
from gamedb.store.codec import decode
from gamedb.store.errors import DamagedFile
from gamedb.store.pages import PageReader
from gamedb.store.views import VIEWS

#: How far a stored strategy's probabilities may sum from 1 (the solver's are within
#: 1e-12; a strategy whose mass was moved or removed is damage, not a strategy).
STRATEGY_SUM_ROUNDING = 1e-6

#: The rounding a stored gap may show below 0 (relative to max(1, |value|)): the solver's
#: ``max_i (M y)_i - min_j (x M)_j`` is -1.1e-16 in some shipped rows; -5 is damage.
NEGATIVE_GAP_ROUNDING = 1e-9


def is_number(value: Any) -> bool:
    """True for a cell SQLite returned as a number (an int or a float, not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_grundy(cell: Any) -> TypeGuard[int]:
    """True for a stored Grundy cell gamedb could have written: an int >= 0."""
    return isinstance(cell, int) and not isinstance(cell, bool) and cell >= 0


def is_negative_gap(gap: float, value: float) -> bool:
    """True for a gap below 0 by more than rounding (a tampered or damaged row)."""
    return gap < -NEGATIVE_GAP_ROUNDING * max(1.0, abs(value))


def check_number(path: Path, where: str, name: str, number: Any) -> None:
    """Raise ``DamagedFile`` unless ``number`` (the ``name`` cell of the position
    ``where``) is a finite number."""
    if not is_number(number) or not math.isfinite(number):
        raise DamagedFile(path, f"{where}: the {name} {shown(str(number))} "
                          "is not a finite number")


def checked_row(path: Path, where: str, value: Any, gap: Any, first: str | None,
                second: str | None, *, stores: bool
                ) -> tuple[float, float | None, dict[int, dict[int, float]]]:
    """Return a stored row's value, gap and stored strategies, or raise ``DamagedFile``.

    Args:
        path: the file, for the message.
        where: the position, for the message.
        value, gap, first, second: the row's columns as SQLite returned them.
        stores: the row's layer stores strategies (``GameDB.stores_strategies``): then
            both strategies and the gap must be there.
    """
    check_number(path, where, "value", value)
    if (first is None or second is None) and stores:  # the gap too, in a bare layer
        raise DamagedFile(path, f"{where}: no strategy stored (NULL) in a file "
                          "built with strategies")
    if gap is not None or stores:  # a values-only row keeps no gap (schema 0004)
        check_number(path, where, "gap", gap)
        if is_negative_gap(gap, value):
            raise DamagedFile(path, f"{where}: the gap {gap!r} is negative (a gap "
                              "is the stage game's max minus min, at least 0)")
    try:
        strategies = {1: decode(first), 2: decode(second)}
    except ValueError as exc:
        raise DamagedFile(path, f"{where}: {exc}") from None
    for player, stored in zip((1, 2), (first, second)):
        total = math.fsum(strategies[player].values())
        if stored is not None and not abs(total - 1.0) <= STRATEGY_SUM_ROUNDING:
            raise DamagedFile(path, f"{where}: the strategy of stored player {player} "
                              f"sums to {total:.6g}, not 1")
    return float(value), None if gap is None else float(gap), strategies


def checked_grundy(path: Path, key: int, cell: Any) -> int:
    """Return a stored Grundy cell as an int, or raise ``DamagedFile``."""
    if not is_grundy(cell):
        raise DamagedFile(path, f"key {key}: the Grundy value {shown(str(cell))} "
                          "is not a non-negative integer")
    return int(cell)


def check_tables(conn: Connection, path: Path, game: Game[Any]) -> None:
    """Raise ``DamagedFile`` if a table or view gamedb creates is missing."""
    names = {name for (name,) in conn.execute(text(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))}
    wanted = ["layers", "states", "strategies", *VIEWS,
              *(("grundy",) if game.capabilities.impartial else ())]
    missing = [name for name in wanted if name not in names]
    if missing:
        raise DamagedFile(path, f"the table or view {missing[0]!r} is missing")


#: A ``states`` row that stores a strategy (either player's).
_KEEPS = "(strategy1 IS NOT NULL OR strategy2 IS NOT NULL)"


def strategies_below(conn: sqlite3.Connection, pages: PageReader,
                     below: int | None = None) -> tuple[int, int | None]:
    """Return how many stored positions of the layers below ``below`` (of every layer:
    None) keep a strategy, as ``states`` rows or in keyed pages, and the smallest such
    key (None: none does): what ``verify`` holds against ``meta.values_only`` and
    ``meta.strategies_from``. Raises ``PageError`` for a damaged page."""
    count, first = conn.execute(
        f"SELECT count(*), min(key) FROM states WHERE {_KEEPS}"
        + ("" if below is None else " AND key < ?"),
        () if below is None else (layer_bounds(below)[0],)).fetchone()
    count, firsts = int(count), [] if first is None else [int(first)]
    for layer in sorted(pages.layers):
        if below is None or layer < below:
            kept = [(key, n) for key, n, keeps in pages.page_strategies(layer) if keeps]
            count += sum(n for _, n in kept)
            firsts += [key for key, _ in kept[:1]]
    return count, min(firsts, default=None)


def bare_layers(conn: sqlite3.Connection, pages: PageReader,
                layers: Iterable[int]) -> dict[int, int]:
    """Return those of ``layers`` whose stored positions, rows and pages, keep not one
    strategy, with how many positions each holds (a layer with none stored is left
    out). A layer with strategies is told by its first row or page."""
    bare = {}
    for layer in layers:
        low, high = layer_bounds(layer)
        if conn.execute(f"SELECT 1 FROM states WHERE key BETWEEN ? AND ? AND {_KEEPS} "
                        "LIMIT 1", (low, high)).fetchone():
            continue
        paged = _bare_pages(pages, layer) if layer in pages.layers else 0
        if paged is None:
            continue
        positions = paged + conn.execute("SELECT count(*) FROM states WHERE key BETWEEN "
                                         "? AND ?", (low, high)).fetchone()[0]
        if positions:
            bare[layer] = positions
    return bare


def _bare_pages(pages: PageReader, layer: int) -> int | None:
    """Return how many positions the pages of ``layer`` hold, None if one of them keeps
    strategies (read up to that page)."""
    positions = 0
    for _, count, keeps in pages.page_strategies(layer):
        if keeps:
            return None
        positions += count
    return positions


def joined_strategies(conn: sqlite3.Connection, first: int, last: int) -> tuple[str, str]:
    """Return the strategies of the ``states`` rows with keys ``first`` to ``last``, each
    player's joined by commas in key order (NULL as ``null``): one string, not one a row
    (``verify`` reads a layer without its strategies, ``GameDB.layer_rows``, and decodes
    them a batch at a time, ``codec.decode_joined``)."""
    joined = conn.execute(
        "SELECT group_concat(coalesce(strategy1, 'null'), ','), "
        "group_concat(coalesce(strategy2, 'null'), ',') FROM "
        "(SELECT strategy1, strategy2 FROM states WHERE key BETWEEN ? AND ? ORDER BY key)",
        (first, last)).fetchone()
    return joined[0] or "", joined[1] or ""
