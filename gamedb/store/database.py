"""Open a strategy database and probe positions in real cards.

>>> import tempfile, pathlib
>>> from gamedb.build import build
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

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from gamedb.games import GameError, load_game
from gamedb.games.base import TERMINAL, Game
from gamedb.store import schema
from gamedb.store.codec import decode, encode
from gamedb.store.engine import read_meta, readonly_engine, writable_engine
from gamedb.store.errors import NotSolved, SpecMismatch
from gamedb.store.migrate import check_schema


#: Keys per ``IN (...)`` query (SQLite allows 32766 parameters).
_MAX_PARAMS = 30_000


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
    gap: float = 0.0
    """Equilibrium gap of the stored solution."""


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


class GameDB:
    """A gamedb file opened for reading; use ``open_db``."""

    def __init__(self, engine: Engine, path: Path):
        self.path = path
        self._engine = engine
        self._conn: Connection = engine.connect()
        self.meta = read_meta(self._conn, path)
        check_schema(self._conn, str(path))
        self.game: Game[Any] = game_for_meta(self.meta, path)
        # a values-only file's stage solutions, per canonical key (many positions share one)
        self._solve_stage = functools.lru_cache(maxsize=1 << 14)(self._solve_stage_uncached)

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
            return Entry(text, self.value(state))
        canon = self.game.canonical(state)
        row = self._row(canon.key, text)
        if row.strategy1 is None:  # a values-only file
            stored = dict(zip((1, 2), self._solve_stage(canon.key)))
        else:
            stored = {1: decode(row.strategy1), 2: decode(row.strategy2)}
        strategies: dict[int, dict[int, float]] = {}
        for player in (1, 2):
            real_of = {label: real for real, label in canon.actions[player - 1].items()}
            mine = stored[canon.stored_player(player)]
            strategies[player] = {real_of[a]: p for a, p in sorted(mine.items())}
        value = canon.sign * row.value + canon.offset + 0.0
        return Entry(text, value, strategies, canon.key, row.gap)

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
            return sum(p * self.value(child) for p, child in draws)
        canon = self.game.canonical(state)
        row = self._row(canon.key, self.game.format_position(state))
        return canon.sign * row.value + canon.offset + 0.0

    def _row(self, key: int, text: str) -> Any:
        states = schema.states.c
        row = self._conn.execute(
            select(states.value, states.gap, states.strategy1, states.strategy2)
            .where(states.key == key)).first()
        if row is None:
            raise NotSolved(f"position not in {self.path.name}: {text}")
        return row

    def _solve_stage_uncached(self, key: int) -> tuple[dict[int, float], dict[int, float]]:
        """Solve a stored position's stage game from its successors' stored values, as
        the build does (same kernel, same labels, same rounding of the stored text)."""
        from gamedb.solver.backward import ValueTable, solve_states  # LP kernels: on demand
        keys = np.array([key], np.int64)
        succ = np.unique(self.game.expand(keys).succ)
        succ = succ[succ != TERMINAL]
        table = ValueTable()
        table.add(0, succ, self._stored_values(succ))  # one pseudo-layer, never evicted
        solved = solve_states(self.game, keys, table)
        first = encode(solved.row_strategies, solved.expansion.row_actions)[0]
        second = encode(solved.col_strategies, solved.expansion.col_actions)[0]
        return decode(first), decode(second)

    def _stored_values(self, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Return the stored values of sorted ``keys`` (all must be stored)."""
        states, found = schema.states.c, {}
        for start in range(0, len(keys), _MAX_PARAMS):
            part = keys[start:start + _MAX_PARAMS].tolist()
            rows = self._conn.execute(select(states.key, states.value).where(states.key.in_(part)))
            found.update((key, value) for key, value in rows)
        missing = [k for k in keys.tolist() if k not in found]
        if missing:
            raise NotSolved(f"{self.path.name} lacks successor key {missing[0]} of a "
                            "values-only position (an unfinished build?)")
        return np.array([found[k] for k in keys.tolist()], np.float64)

    def get(self, position: Any, default: Entry | None = None) -> Entry | None:
        """Like ``probe`` but return ``default`` for a position that is not stored."""
        try:
            return self.probe(position)
        except NotSolved:
            return default

    def info(self) -> DBInfo:
        """Return the spec, status, per-layer progress and root value."""
        rows = self._conn.execute(select(schema.layers).order_by(schema.layers.c.layer.desc()))
        layers = [LayerInfo(r.layer, r.states, r.done, r.seconds, r.max_gap) for r in rows]
        return DBInfo(str(self.path), self.meta["spec"], self.meta.get("status", "building"),
                      sum(x.states for x in layers), sum(x.done for x in layers),
                      self.meta.get("root_value"), layers, dict(self.meta))


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
