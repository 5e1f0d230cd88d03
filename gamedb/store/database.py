"""Open a strategy database and probe positions in real cards.

>>> import tempfile, pathlib
>>> from gamedb.builder import build
>>> path = pathlib.Path(tempfile.mkdtemp()) / "j3.sqlite"
>>> _ = build("jujitsu(num_cards=3)", path)
>>> with open_db(path) as db:
...     entry = db.probe("hand1=1,2,3 hand2=1,2,3 pot=0 diff=0")
>>> round(entry.value, 12)
0.0
>>> {card: round(p, 3) for card, p in sorted(entry.strategies[1].items())}
{1: 0.2, 2: 0.6, 3: 0.2}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from gamedb.games import GameError, load_game
from gamedb.games.base import Game, layer_bounds, shown
from gamedb.games.expansion import top_layer
from gamedb.store import schema
from gamedb.store.checked import check_number, check_tables, checked_grundy, checked_row, is_number
from gamedb.store.codec import encode, no_gc
from gamedb.store.engine import (
    BuildProgress, read_meta, readonly_engine, sqlite_connection, writable_engine,
)
from gamedb.store.errors import DamagedFile, NotSolved, SpecMismatch, StoreError
from gamedb.store.pages import PageReader, PageRows, damage_said
from gamedb.store.solving import OnDemand, Solved
from gamedb.store.migrate import check_schema



@dataclass(frozen=True, slots=True)
class Entry:
    """What a probe returns: one real position's value and both strategies."""

    position: str
    """The position, written the way ``gamedb show`` reads it."""
    value: float
    """Player 1's expected payoff under optimal play."""
    strategies: dict[int, dict[int, float]] = field(default_factory=dict)
    """Real player (1, 2) -> real action -> probability (non-zero only)."""
    key: int | None = None
    """Canonical key of the stored position (None for terminal positions)."""
    gap: float | None = 0.0
    """Equilibrium gap of the stored solution (None: a values-only row keeps none)."""
    grundy: int | None = None
    """Sprague-Grundy value of an impartial family's position (``Capabilities.impartial``:
    nonzero exactly when the mover wins); None for other families."""


@dataclass(frozen=True, slots=True)
class LayerInfo:
    """Progress and cost of one layer."""

    layer: int
    states: int
    done: int
    seconds: float
    max_gap: float


@dataclass(frozen=True, slots=True)
class DBInfo:
    """Summary of a database file."""

    path: str
    spec: str
    status: str
    states: int
    done: int
    root_value: float | None
    layers: list[LayerInfo]
    meta: dict[str, Any]
    progress: BuildProgress | None = None
    """A live (unfinished) build's progress as of its last chunk."""
    page_layers: tuple[int, ...] = ()
    """The layers stored as compressed pages (``gamedb.store.pages``), not rows."""


@dataclass(frozen=True, slots=True)
class StoredRows:
    """Rows of the ``states`` table in key order, each column as SQLite returned it.

    Nothing is trusted: ``verify`` checks every field (``store.checked.checked_row`` says
    what is wrong with a row).
    """

    keys: npt.NDArray[np.int64]
    layers: tuple[Any, ...]
    values: tuple[Any, ...]
    gaps: tuple[Any, ...]
    strategy1: tuple[str | None, ...]
    strategy2: tuple[str | None, ...]
    texts: bool = True
    """False when the strategies were not read (``store.checked.joined_strategies`` reads
    them)."""

    @classmethod
    def of(cls, rows: list[tuple[Any, ...]], texts: bool = True) -> StoredRows:
        """Columns of fetched ``(key, layer, value, gap, strategy1, strategy2)`` rows."""
        if not rows:
            return cls(np.empty(0, np.int64), (), (), (), (), (), texts)
        key, layer, value, gap, first, second = zip(*rows)
        # Keys go through int64, never float64: keys of layer 32 and up exceed 2**53.
        return cls(np.array(key, np.int64), layer, value, gap, first, second, texts)

    def numbers(self) -> npt.NDArray[np.float64]:
        """The values as floats, NaN where a value is not a finite number."""
        try:
            values = np.array(self.values, dtype=np.float64)
        except (TypeError, ValueError):
            values = np.array([v if is_number(v) else np.nan for v in self.values], np.float64)
        values[~np.isfinite(values)] = np.nan
        return values


class GameDB:
    """A gamedb file opened for reading; use ``open_db``."""

    def __init__(self, engine: Engine, path: Path):
        self.path = path
        self._engine = engine
        self._conn: Connection = engine.connect()
        try:
            self.connection = sqlite_connection(self._conn)
            """The file's DB-API connection (read-only unless opened ``readonly=False``):
            plain SQL sees the rows of ``states``, not the page layers."""
            self.meta = read_meta(self._conn, path)
            check_schema(self._conn, str(path))
            self.game: Game[Any] = game_for_meta(self.meta, path)
            with damage_said(path, "page_layers"):
                self.pages = PageReader(self.connection,
                                        frozen=self.meta.get("status") == "complete")
                """The file's page layers (``gamedb.store.pages``; none in most files)."""
            check_tables(self._conn, path, self.game)
        except BaseException:  # release the file here: a connection left to the garbage
            self.close()       # collector is closed by whichever thread runs it, and
            raise              # SQLite refuses that with a traceback on stderr (serve)
        self.on_demand = OnDemand(self.game, self._stored_values)
        """The strategies of positions stored without them (``gamedb.store.solving``)."""

    def __enter__(self) -> GameDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the file."""
        self._conn.close()
        self._engine.dispose()

    def probe(self, position: Any) -> Entry:
        """Return the value and strategies of ``position`` (text or game state).

        In a values-only file the strategies are solved on demand: the stage game is
        rebuilt from the stored successor values and solved by the build's own kernel
        (one small LP), so the answer is the one a full file stores.

        Raises:
            GameError: the text is not a valid position of this game.
            NotSolved: the position (or, in a values-only file, a successor) is not stored.
        """
        state = self.game.parse_position(position) if isinstance(position, str) else position
        text = self.game.format_position(state)
        if self.game.value(state) is not None or self.game.chance(state) is not None:
            return Entry(text, self.value(state), grundy=self._grundy(None))
        canon = self.game.canonical(state)
        row = self._row(canon.key, text, state)
        where = f"position {text} (key {canon.key})"
        layer = int(self.game.layer_of(np.array([canon.key], np.int64))[0])
        stored_value, gap, stored = checked_row(self.path, where, *row,
                                                stores=self.stores_strategies(layer))
        if row.strategy1 is None:  # a values-only file or layer
            stored = dict(zip((1, 2), self.on_demand.strategies(canon.key)))
        strategies: dict[int, dict[int, float]] = {}
        for player in (1, 2):
            real_of = {label: real for real, label in canon.actions[player - 1].items()}
            mine = stored[canon.stored_player(player)]
            if unknown := sorted(set(mine) - set(real_of)):
                raise DamagedFile(self.path, f"{where}: the strategy of stored player "
                                  f"{canon.stored_player(player)} names action label "
                                  f"{unknown[0]}, not an action of this position")
            strategies[player] = {real_of[a]: p for a, p in sorted(mine.items())}
        value = canon.sign * stored_value + canon.offset + 0.0
        return Entry(text, value, strategies, canon.key, gap, self._grundy(canon.key))

    def _grundy(self, key: int | None) -> int | None:
        """Return the stored Sprague-Grundy value of ``key`` (None: a finished game, 0)
        in an impartial family's file; None for other families or a missing row."""
        if not self.game.capabilities.impartial:
            return None
        if key is None:  # no move is left
            return 0
        row = self.connection.execute("SELECT grundy FROM grundy WHERE key = ?", (key,)).fetchone()
        return None if row is None else checked_grundy(self.path, key, row[0])

    def grundy_cells(self, keys: npt.NDArray[np.int64]) -> dict[int, Any]:
        """Return the stored ``grundy`` cells of ``keys`` (sorted), as stored: a key
        without a row is left out (an impartial family's table, schema 0005)."""
        if not len(keys):
            return {}
        rows = self.connection.execute("SELECT key, grundy FROM grundy WHERE key BETWEEN ? AND ?",
                                 (int(keys[0]), int(keys[-1])))
        wanted = set(keys.tolist())
        return {key: cell for key, cell in rows if key in wanted}

    def stores_strategies(self, layer: int | None = None) -> bool:
        """True if the file stores the strategies of ``layer`` (of every layer when
        None): not in a values-only file, nor below ``meta.strategies_from`` (there
        they are solved on demand, as in a values-only file)."""
        if self.meta.get("values_only"):
            return False
        return layer is None or layer >= int(self.meta.get("strategies_from") or 0)

    def value(self, position: Any) -> float:
        """Return player 1's value of ``position`` alone (no strategy is read or solved).

        Raises:
            GameError: the text is not a valid position of this game.
            NotSolved: the position is not stored.
        """
        state = self.game.parse_position(position) if isinstance(position, str) else position
        payoff = self.game.value(state)
        if payoff is not None:
            return payoff
        draws = self.game.chance(state)
        if draws is not None:  # before a chance draw: the expected value
            total = 0.0
            for p, child in draws:
                try:
                    total += p * self.value(child)
                except NotSolved:  # said of the position asked, not of one of its draws
                    raise NotSolved(f"position not in {self.path.name}: "
                                    f"{self.game.format_position(state)}"
                                    f"{self.why_missing(child)}") from None
            return total
        canon = self.game.canonical(state)
        text = self.game.format_position(state)
        row = self._row(canon.key, text, state)
        check_number(self.path, f"position {text} (key {canon.key})", "value", row.value)
        return canon.sign * float(row.value) + canon.offset + 0.0

    def _row(self, key: int, text: str, state: Any) -> Any:
        layer = int(self.game.layer_of(np.array([key], np.int64))[0])
        row: Any
        if layer in self.pages.layers:
            cells = self._paged_rows(layer, np.array([key], np.int64))
            row = _Cells(*cells[0][2:]) if cells else None
        else:
            states = schema.states.c
            row = self._conn.execute(
                select(states.value, states.gap, states.strategy1, states.strategy2)
                .where(states.key == key)).first()
        if row is None:
            raise NotSolved(f"position not in {self.path.name}: {text}{self.why_missing(state)}")
        return row

    def why_missing(self, state: Any) -> str:
        """Return why a position is missing: the build is unfinished, or (when the game
        can tell) no play reaches it; '' when neither is known."""
        book = self.meta.get("book_from_layer")
        if book is not None and self.game.layer(state) < book:
            return f" (an opening book: it holds layer {book} and up)"
        if self.meta.get("status", "building") == "complete":
            why = self.game.unreachable(state)
            return f" ({why}: no play reaches it)" if why else ""
        return f" ({self.unfinished()}; run the same build command to resume)"

    def unfinished(self) -> str:
        """Return '' for a finished build, else "the build is not finished: D of S
        positions" (as the layers table counts them)."""
        if self.meta.get("status", "building") == "complete":
            return ""
        layers = self._conn.execute(select(func.coalesce(func.sum(schema.layers.c.done), 0),
                                           func.coalesce(func.sum(schema.layers.c.states), 0)))
        done, states = layers.one()
        return f"the build is not finished: {done:,} of {states:,} positions"

    def require_finished(self, then: str) -> None:
        """Raise ``StoreError`` for an unfinished build: resume it, ``then`` (what the
        caller does with a finished file, e.g. "ship it")."""
        if unfinished := self.unfinished():
            raise StoreError(f"{self.path}: {unfinished}; run the same build command to "
                             f"resume, then {then}")

    def prefetch(self, states: Iterable[Any]) -> None:
        """Solve at once the stage games ``probe`` would solve one by one for these
        decision states (``OnDemand.prefetch``)."""
        keys = np.array([self.game.canonical(state).key for state in states], np.int64)
        layers = self.game.layer_of(keys)
        self.on_demand.prefetch([keys[layers == layer] for layer in np.unique(layers).tolist()
                                 if not self.stores_strategies(layer)])

    def solved_strategies(self, keys: npt.NDArray[np.int64]) -> Solved:
        """Solve the stage games of stored positions (sorted ``keys`` of one layer) from
        their successors' stored values (``OnDemand.solved``)."""
        return self.on_demand.solved(keys)

    def _stored_values(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Return the stored values of sorted, distinct ``keys`` (all must be stored)."""
        found, values = self.values_of(keys)
        if len(found) < len(keys):
            missing = int(np.setdiff1d(keys, found)[0])
            raise NotSolved(f"{self.path.name} lacks successor key {missing} of a "
                            "values-only position (an unfinished build?)")
        if np.isnan(values).any():
            key = int(found[np.isnan(values)][0])
            raise DamagedFile(self.path, f"key {key}: its value is not a finite number")
        return values

    def get(self, position: Any, default: Entry | None = None) -> Entry | None:
        """Like ``probe`` but return ``default`` for a position that is not stored."""
        try:
            return self.probe(position)
        except NotSolved:
            return default

    def stored_layers(self) -> list[int]:
        """Return the layers holding stored positions, lowest first (read from the keys
        and pages, not from the ``layers`` table)."""
        paged = [layer for layer in self.pages.layers if self.connection.execute(
            "SELECT 1 FROM pages WHERE layer = ? LIMIT 1", (layer,)).fetchone()]
        low, high = self.connection.execute("SELECT min(key), max(key) FROM states").fetchone()
        if low is None:
            return sorted(paged)
        self._check_key_range(low, high)
        first, last = (int(x) for x in self.game.layer_of(np.array([low, high], np.int64)))
        return sorted(paged + [layer for layer in range(first, last + 1) if self.connection.execute(
            "SELECT 1 FROM states WHERE key BETWEEN ? AND ? LIMIT 1",
            layer_bounds(layer)).fetchone()])

    def _check_key_range(self, low: Any, high: Any) -> None:
        """Raise ``DamagedFile`` for a stored key no position of the game has: below 0,
        or in a layer above the start's (every move lowers the layer). Such a key asked
        the game for arrays of its size (a key at the top of the integer range: 22 GB)."""
        top = top_layer(self.game)
        for key in (low, high):
            if not isinstance(key, int) or key < 0 or key > layer_bounds(top)[1]:
                named = key if isinstance(key, int) else shown(str(key))
                raise DamagedFile(self.path, f"the states table holds key {named}, "
                                  f"which no position of {self.game.spec} has (keys 0.."
                                  f"{layer_bounds(top)[1]}, layers up to {top})")

    def layer_rows(self, layer: int, *, size: int = 65_536,
                   strategies: bool = True) -> Iterator[StoredRows]:
        """Yield the stored rows of ``layer`` in key order, ``size`` at a time (without
        their strategies unless ``strategies``: ``store.checked.joined_strategies`` reads
        them a batch at a time)."""
        if layer in self.pages.layers:
            yield from self._page_rows(layer, size)
            return
        cursor = self.connection.execute((_ROWS if strategies else _NUMBERS)
                                   + "key BETWEEN ? AND ? ORDER BY key", layer_bounds(layer))
        while True:
            with no_gc():
                rows = StoredRows.of(cursor.fetchmany(size), strategies)
            if not len(rows.keys):
                return
            yield rows

    def _page_rows(self, layer: int, size: int) -> Iterator[StoredRows]:
        """``layer_rows`` of a page layer: its values (and, if it has them, gaps and
        strategies as the rows' text) in pages of at most ``size`` rows."""
        with damage_said(self.path, f"layer {layer}"):
            for rows in self.pages.layer_pages(layer):
                for i in range(0, len(rows.keys), size):
                    yield StoredRows.of(page_cells(layer, rows, np.arange(i, min(
                        i + size, len(rows.keys)))))

    def _paged_values(self, layer: int, keys: npt.NDArray[np.int64]
                      ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        with damage_said(self.path, f"layer {layer}"):
            return self.pages.values_of(layer, keys)

    def _paged_rows(self, layer: int, keys: npt.NDArray[np.int64]) -> list[tuple[Any, ...]]:
        """The stored rows among ``keys`` of a page layer, as ``states`` rows."""
        with damage_said(self.path, f"layer {layer}"):
            return [cells for _, rows, at in self.pages.found(layer, keys)
                    for cells in page_cells(layer, rows, at)]

    def _split_by_pages(self, keys: npt.NDArray[np.int64]
                        ) -> tuple[npt.NDArray[np.int64], dict[int, npt.NDArray[np.int64]]]:
        """Return the keys stored as rows, and the others by page layer."""
        if not self.pages.layers or not len(keys):
            return keys, {}
        layers = self.game.layer_of(keys)
        paged = {layer: keys[layers == layer] for layer in self.pages.layers
                 if (layers == layer).any()}
        rows = keys[~np.isin(layers, list(paged))] if paged else keys
        return rows, paged

    def rows_of(self, keys: npt.NDArray[np.int64]) -> StoredRows:
        """Return the stored rows of ``keys`` (sorted; absent keys are left out)."""
        keys, paged = self._split_by_pages(keys)
        rows = self._where_key_in(_ROWS, keys)
        for layer, mine in paged.items():
            rows += self._paged_rows(layer, mine)
        return StoredRows.of(sorted(rows))

    def values_of(self, keys: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64],
                                                              npt.NDArray[np.float64]]:
        """Return the stored keys among ``keys`` (sorted) and their values (NaN: damaged)."""
        keys, paged = self._split_by_pages(keys)
        rows = self._where_key_in("SELECT key, value FROM states WHERE ", keys)
        found = [np.array([k for k, _ in rows], np.int64)]
        values = [np.array([v if is_number(v) else math.nan for _, v in rows], np.float64)]
        for layer, mine in paged.items():  # arrays: a batch reads millions of them
            keys_, values_ = self._paged_values(layer, mine)
            found.append(keys_)
            values.append(values_)
        order = np.argsort(np.concatenate(found), kind="stable")
        numbers = np.concatenate(values)[order]
        numbers[~np.isfinite(numbers)] = math.nan
        return np.concatenate(found)[order], numbers

    def _where_key_in(self, query: str, keys: npt.NDArray[np.int64]) -> list[Any]:
        rows: list[Any] = []
        for start in range(0, len(keys), 500):  # SQLite allows 999 parameters
            part = keys[start:start + 500].tolist()
            rows += self.connection.execute(query + f"key IN ({','.join('?' * len(part))})",
                                      part).fetchall()
        return rows

    def info(self) -> DBInfo:
        """Return the spec, status, per-layer progress and root value."""
        rows = self._conn.execute(select(schema.layers).order_by(schema.layers.c.layer.desc()))
        layers = [self._checked_layer(*r) for r in rows]
        status = self.meta.get("status", "building")
        states, done = sum(x.states for x in layers), sum(x.done for x in layers)
        if status == "complete" and not states == done == self.meta.get("states", done):
            raise DamagedFile(self.path, f"the layers table counts {done:,} of {states:,} "
                              f"positions solved, meta says {self.meta.get('states'):,} "
                              "in a complete file")
        return DBInfo(str(self.path), self.meta["spec"], status, states, done,
                      self.meta.get("root_value"), layers, dict(self.meta),
                      BuildProgress.from_meta(self.meta.get("progress")),
                      tuple(sorted(self.pages.layers)))

    def _checked_layer(self, *row: Any) -> LayerInfo:
        """Return one row of the ``layers`` table, or raise ``DamagedFile``."""
        kinds: tuple[type | tuple[type, ...], ...] = (int, int, int, (int, float), (int, float))
        if any(isinstance(x, bool) or not isinstance(x, k) for x, k in zip(row, kinds)) \
                or not all(math.isfinite(x) for x in row[3:5]):  # JSON has no Infinity
            raise DamagedFile(self.path, f"the layers table holds a row that is not finite "
                              f"numbers: {shown(repr(row), 60)}")
        return LayerInfo(*row)


def page_cells(layer: int, rows: PageRows, at: npt.NDArray[np.int64]) -> list[tuple[Any, ...]]:
    """Return positions ``at`` of a decoded page as ``states`` rows (key, layer, value,
    gap, strategy1, strategy2): the strategies as the text a row would hold (the same
    doubles, ``store.codec.encode``), None in a page without them."""
    keys, values = rows.keys[at].tolist(), rows.values[at].tolist()
    n = len(keys)
    gaps: list[Any] = rows.gaps[at].tolist() if rows.gaps is not None else [None] * n
    texts: list[list[Any]] = [[None] * n, [None] * n]
    for i, player in enumerate((rows.first, rows.second)):
        if player is not None and n:
            texts[i] = list(encode(*player.padded(at)))
    return list(zip(keys, [layer] * n, values, gaps, *texts))


def game_for_meta(meta: dict[str, Any], path: Path) -> Game[Any]:
    """Load the game a file was built for, refusing an unknown key layout."""
    try:
        game = load_game(meta["spec"], canonical_keys=bool(meta.get("canonical_keys", True)))
    except GameError as exc:
        raise SpecMismatch(f"{path}: {exc}") from None
    if meta.get("key_layout") != game.key_layout:
        raise SpecMismatch(f"{path}: key layout {meta.get('key_layout')!r} is not "
                           f"{game.key_layout!r}, the one this gamedb reads for {game.spec}")
    return game


class _Cells(NamedTuple):
    """A stored position's cells (a ``states`` row's, or a page value's)."""

    value: Any
    gap: Any
    strategy1: str | None
    strategy2: str | None


_ROWS = "SELECT key, layer, value, gap, strategy1, strategy2 FROM states WHERE "
_NUMBERS = "SELECT key, layer, value, gap, NULL, NULL FROM states WHERE "


def open_db(path: str | Path, *, readonly: bool = True) -> GameDB:
    """Open a gamedb file (read-only by default: shipped files are never written).

    Raises:
        NotAGameDB: missing file, not SQLite, or not a gamedb file.
        SchemaOutOfDate: an older schema; ``gamedb upgrade PATH`` fixes it.
        SpecMismatch: a spec or key layout this gamedb cannot read.
    """
    path = Path(path)
    engine = readonly_engine(path) if readonly else writable_engine(path)
    return GameDB(engine, path)
