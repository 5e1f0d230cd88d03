"""Solve any position from itself down, without a database file (``gamedb solve``).

The position's subgame (``Game.subgame``: the same game, started at the position) goes
through the ordinary builder into a temporary file, and the answer is that file's probe:
the builder's enumeration and per-layer solve, and ``show``'s reading in real cards,
players and points. Nothing here solves a stage game itself.

Before building, the positions below the position are counted, and a subgame of more
than ``max_positions`` is refused (``SubgameTooBig``) with what the count found: by the
family's formula where it has one (``Capabilities.positions_below``: Nim), else by the
builder's own forward enumeration (a lower bound, layer by layer). The count stops as
soon as the positions it has found pass the cap (inside a layer, not after it: a whole
layer can be many times the cap), or before expanding a layer into more successors
than a subgame of the cap's size would have, so a refusal is quick (a second at most
for the start of every family's biggest sizes; 13-card Goofspiel with 10 cards left:
0.1 s).

>>> game, entry = solve_position("goofspiel(num_cards=13)",
...                              "hand1=5,7,10 hand2=6,7,8 prizes=4,6 prize=11 diff=-7")
>>> game.spec
'goofspiel(num_cards=13,points_order=random,returns_type=win_loss,ties=discard)'
>>> entry.position, round(entry.value, 6)
('hand1=5,7,10 hand2=6,7,8 prizes=4,6 prize=11 diff=-7', -0.333333)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from gamedb.builder import build
from gamedb.builder.progress import Observer, Quiet
from gamedb.games import GameError, load_game
from gamedb.games.base import Game, root_of
from gamedb.types import Keys
from gamedb.solver.backward import batches, distinct_successors, enumerate_layers
from gamedb.solver.hashing import unique_keys
from gamedb.store import Entry, GameDB, open_db

T = TypeVar("T")

#: Positions below a position that ``solve_position`` solves without being asked: a
#: second or two of CPU on this machine (13-card Goofspiel, 7 cards left: 120,927
#: positions in 0.6 s).
MAX_POSITIONS = 200_000

#: Successor entries (joint moves x outcomes) the count may expand per position of the
#: cap: bounds the time and memory of a refusal.
ENTRIES_PER_POSITION = 100

#: Successor entries the count expands between two looks at what it has found: a
#: layer's batches are cut this small so that a layer many times the cap is not
#: expanded whole first (40-edge Hackenbush: 2 s for a layer of 658,008).
PIECE_ENTRIES = 250_000

#: Positions solved a second of CPU, roughly (for the refusal): 125,000-190,000 in
#: subgames of 13-card win/loss Goofspiel with 7-8 cards left, on this machine.
SOLVED_PER_SECOND = 100_000


class SubgameTooBig(GameError):
    """The positions below a position are more than the cap allows: ``what`` says what
    the count found against which cap ("too many positions below P to solve here: N,
    over" ``limit``), the message adds how to go on (``--max-positions``)."""

    def __init__(self, what: str, limit: int):
        super().__init__(f"{what} --max-positions {limit:,}; raise it to solve anyway "
                         f"(roughly {SOLVED_PER_SECOND:,} positions a second)")
        self.what, self.limit = what, limit

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as itself (its __init__ takes two)
        return (SubgameTooBig, (self.what, self.limit))


@dataclass(frozen=True, slots=True)
class SubgameCount:
    """Positions below a position, by layer, as far as the count went."""

    layers: dict[int, int]
    """Canonical positions of each layer counted (the position's own layer first)."""
    complete: bool
    """False when the count stopped at the cap: more layers lie below."""
    next_at_most: int = 0
    """When stopped before a layer: the successor entries of the last layer counted
    (joint moves x outcomes), an upper bound on the next layer's positions."""
    below: int = 0
    """When stopped inside a layer: the distinct positions found below the layers
    counted."""

    @property
    def positions(self) -> int:
        """Positions counted (a lower bound of the subgame's when not ``complete``)."""
        return sum(self.layers.values()) + self.below


def solve_position(spec: str, position: str, *, max_positions: int = MAX_POSITIONS,
                   observer: Observer | None = None) -> tuple[Game[Any], Entry]:
    """Return the game and ``position``'s value and both optimal strategies.

    Args:
        spec: the game, e.g. ``"goofspiel(num_cards=13)"``.
        position: as ``gamedb show`` reads it (``gamedb rules FAMILY``), or ``start``.
        max_positions: refuse a subgame with more canonical positions than this.
        observer: as ``gamedb.builder.build``'s (told a stage before the count too).

    Returns:
        The game and the same ``Entry`` that ``GameDB.probe`` returns from a file of the
        whole game: real cards, players and points.

    Raises:
        GameError: an unknown spec or a position that is not one of the game.
        SubgameTooBig: more than ``max_positions`` positions lie below the position.
    """
    game = load_game(spec)
    return game, _answered(game, position, max_positions, lambda db, state: db.probe(state),
                           observer=observer)


def solve_json(spec: str, position: str, *, max_positions: int = MAX_POSITIONS,
               observer: Observer | None = None) -> dict[str, Any]:
    """Return what ``gamedb show --json`` prints for ``position`` in a file of the whole
    game (``gamedb.explore.show_json``: moves' values included), solved as
    ``solve_position`` solves it. Raises as ``solve_position``."""
    from gamedb.explore import show_json

    return _answered(load_game(spec), position, max_positions, show_json,
                     observer=observer)


def _answered(game: Game[Any], position: str, max_positions: int,
              answer: Callable[[GameDB, Any], T], *, observer: Observer | None = None) -> T:
    """Solve the subgame below ``position`` into a temporary file; ``answer`` reads it."""
    state = game.parse_position(position)
    subgame = game.subgame(state)
    observer = Quiet() if observer is None else observer
    formula = game.capabilities.positions_below
    if formula is not None and (known := formula(state)) > max_positions:
        raise _too_big_by_formula(game.format_position(state), known, max_positions)
    observer.stage(f"counting the positions below (at most {max_positions:,})")
    count = count_subgame(subgame, max_positions)
    if not count.complete:
        raise _too_big(game.format_position(state), count, max_positions)
    with tempfile.TemporaryDirectory(prefix="gamedb-solve-", dir=_scratch(count)) as folder:
        path = Path(folder) / "subgame.sqlite"
        build(subgame, path, workers=1, observer=observer)
        with open_db(path) as db:
            return answer(db, state)


def count_subgame(subgame: Game[Any], limit: int) -> SubgameCount:
    """Count the positions of ``subgame`` by layer with the builder's enumeration.

    The count stops (``complete`` False) as soon as the distinct positions found (the
    layers counted and what their expanded batches lead to) pass ``limit``, or before
    expanding a layer into more than ``ENTRIES_PER_POSITION`` x ``limit`` successor
    entries (the next layer would then be the enumeration's cost).
    """
    layers: dict[int, int] = {}
    found = _Found(root_of(subgame).keys, limit)

    def counted(parts: list[Keys]) -> Iterator[Keys]:
        layer, size = int(subgame.layer_of(parts[0][:1])[0]), sum(map(len, parts))
        layers[layer] = size
        each = subgame.expand(parts[0][:1]).succ.size
        if sum(layers.values()) > limit or size * each > ENTRIES_PER_POSITION * limit:
            raise _OverCap(entries=size * each)
        return (found.add(distinct_successors(subgame, piece)) for keys in parts
                for piece in batches(keys, each, PIECE_ENTRIES))

    try:
        every = enumerate_layers(subgame, counted)
    except _OverCap as over:
        below = over.found - sum(layers.values()) if over.found else 0
        return SubgameCount(layers, False, over.entries, below)
    return SubgameCount({layer: len(keys) for layer, keys in sorted(every.items(), reverse=True)},
                        True)


class _OverCap(Exception):
    def __init__(self, *, entries: int = 0, found: int = 0):
        super().__init__(entries, found)
        self.entries, self.found = entries, found


class _Found:
    """The distinct positions an enumeration has found so far: its start and every
    batch of successors (each layer's positions are among them). Kept as sorted
    arrays, merged when their lengths could add up past ``limit`` (and twice the last
    merge, so merges stay few); ``add`` raises ``_OverCap`` once the merge is past it."""

    def __init__(self, start: Keys, limit: int):
        self._parts, self._limit = [unique_keys(start)], limit

    def add(self, keys: Keys) -> Keys:
        """Note ``keys`` (sorted, distinct) as found; return them."""
        self._parts.append(keys)
        if sum(map(len, self._parts)) > max(self._limit, 2 * len(self._parts[0])):
            self._parts = [unique_keys(np.concatenate(self._parts))]
            if len(self._parts[0]) > self._limit:
                raise _OverCap(found=len(self._parts[0]))
        return keys


#: A RAM-backed folder (Linux) for the files of small subgames: creating a SQLite file
#: costs a few synced writes, most of the time of a small solve on a busy disk.
_MEMORY_FOLDER = Path("/dev/shm")
#: Subgames up to this many positions are solved there, if it has room for twice their
#: file (a container's may be small: Docker gives 64 MiB).
_IN_MEMORY = 1_000_000
_FILE_BYTES_PER_POSITION = 300


def _scratch(count: SubgameCount) -> str | None:
    """The folder for the subgame's file: in memory when small and possible, else the
    system's temporary folder (None)."""
    if count.positions > _IN_MEMORY or not os.access(_MEMORY_FOLDER, os.W_OK):
        return None
    room = shutil.disk_usage(_MEMORY_FOLDER).free
    return str(_MEMORY_FOLDER) if room > 2 * _FILE_BYTES_PER_POSITION * count.positions else None


def _too_big(position: str, count: SubgameCount, limit: int) -> SubgameTooBig:
    """The refusal, one line: what the count saw and how to go on."""
    last = list(count.layers)[-1]
    each = [f"{n:,}" for n in count.layers.values()]
    sizes = " + ".join(each if len(each) <= 6 else [*each[:3], "...", *each[-2:]])
    start = list(count.layers)[0]
    if count.below:  # stopped inside a layer: what it found below the layers counted
        return _refusal(position, f"at least {count.positions:,} (by layer from {start} "
                        f"down: {sizes}, and {count.below:,} found in the layers below)", limit)
    if count.positions <= limit:  # the next layer was not counted: its bound is the reason
        return _refusal(position, f"{count.positions:,} by layer from {start} down ({sizes}), "
                        f"and layer {last}'s moves lead to up to {count.next_at_most:,} more",
                        limit, "past")
    return _refusal(position, f"at least {count.positions:,} (by layer from {start} down: "
                    f"{sizes}; more below)", limit)


def _too_big_by_formula(position: str, positions: int, limit: int) -> SubgameTooBig:
    """The refusal of a subgame whose size the family's formula gives, one line."""
    return _refusal(position, f"{positions:,} (by the rules' count)", limit)


def _refusal(position: str, found: str, limit: int, beyond: str = "over") -> SubgameTooBig:
    """``too many positions below POSITION to solve here: FOUND, over --max-positions
    LIMIT; raise it ...``."""
    return SubgameTooBig(f"too many positions below {position} to solve here: {found}, "
                         f"{beyond}", limit)


__all__ = ["MAX_POSITIONS", "SubgameCount", "SubgameTooBig", "count_subgame", "solve_position"]
