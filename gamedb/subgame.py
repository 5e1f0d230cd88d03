"""Solve any position from itself down, without a database file (``gamedb solve``).

The position's subgame (``Game.subgame``: the same game, started at the position) goes
through the ordinary builder into a temporary file, and the answer is that file's probe:
the builder's enumeration and per-layer solve, and ``show``'s reading in real cards,
players and points. Nothing here solves a stage game itself.

Before building, the positions below the position are counted by the builder's own
forward enumeration, and a subgame of more than ``max_positions`` is refused
(``SubgameTooBig``) with what the count found (a lower bound, layer by layer). The
count stops at the first layer past the cap, or before expanding a layer into more
successors than a subgame of the cap's size would have, so a refusal is quick (13-card
Goofspiel with 10 cards left: 0.1 s).

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

from gamedb.builder import build
from gamedb.builder.progress import Observer, Quiet
from gamedb.games import GameError, load_game
from gamedb.games.base import Game
from gamedb.types import Keys
from gamedb.solver.backward import distinct_successors, enumerate_layers
from gamedb.store import Entry, GameDB, open_db

T = TypeVar("T")

#: Positions below a position that ``solve_position`` solves without being asked: a
#: second or two of CPU on this machine (13-card Goofspiel, 7 cards left: 120,927
#: positions in 0.6 s).
MAX_POSITIONS = 200_000

#: Successor entries (joint moves x outcomes) the count may expand per position of the
#: cap: bounds the time and memory of a refusal.
ENTRIES_PER_POSITION = 100

#: Positions solved a second of CPU, roughly (for the refusal): 125,000-190,000 in
#: subgames of 13-card win/loss Goofspiel with 7-8 cards left, on this machine.
SOLVED_PER_SECOND = 100_000


class SubgameTooBig(GameError):
    """The positions below a position are more than the cap allows."""


@dataclass(frozen=True, slots=True)
class SubgameCount:
    """Positions below a position, by layer, as far as the count went."""

    layers: dict[int, int]
    """Canonical positions of each layer counted (the position's own layer first)."""
    complete: bool
    """False when the count stopped at the cap: more layers lie below."""
    next_at_most: int = 0
    """When stopped: the successor entries of the last layer counted (joint moves x
    outcomes), an upper bound on the next layer's positions."""

    @property
    def positions(self) -> int:
        """Positions counted."""
        return sum(self.layers.values())


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
    observer.stage(f"counting the positions below (at most {max_positions:,})")
    count = count_subgame(subgame, max_positions)
    if not count.complete:
        raise SubgameTooBig(_too_big(game.format_position(state), count, max_positions))
    with tempfile.TemporaryDirectory(prefix="gamedb-solve-", dir=_scratch(count)) as folder:
        path = Path(folder) / "subgame.sqlite"
        build(subgame, path, workers=1, observer=observer)
        with open_db(path) as db:
            return answer(db, state)


def count_subgame(subgame: Game[Any], limit: int) -> SubgameCount:
    """Count the positions of ``subgame`` by layer with the builder's enumeration.

    The count stops (``complete`` False) at the first layer that takes it past
    ``limit``, or before expanding a layer into more than ``ENTRIES_PER_POSITION`` x
    ``limit`` successor entries (the next layer would then be the enumeration's cost).
    """
    layers: dict[int, int] = {}

    def counted(parts: list[Keys]) -> Iterator[Keys]:
        layer, size = int(subgame.layer_of(parts[0][:1])[0]), sum(map(len, parts))
        layers[layer] = size
        entries = size * subgame.expand(parts[0][:1]).succ.size
        if sum(layers.values()) > limit or entries > ENTRIES_PER_POSITION * limit:
            raise _OverCap(entries)
        return (distinct_successors(subgame, keys) for keys in parts)

    try:
        found = enumerate_layers(subgame, counted)
    except _OverCap as over:
        return SubgameCount(layers, False, over.entries)
    return SubgameCount({layer: len(keys) for layer, keys in sorted(found.items(), reverse=True)},
                        True)


class _OverCap(Exception):
    def __init__(self, entries: int):
        super().__init__(entries)
        self.entries = entries


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


def _too_big(position: str, count: SubgameCount, limit: int) -> str:
    """The refusal, one line: what the count saw and how to go on."""
    last = list(count.layers)[-1]
    each = [f"{n:,}" for n in count.layers.values()]
    sizes = " + ".join(each if len(each) <= 6 else [*each[:3], "...", *each[-2:]])
    start = list(count.layers)[0]
    if count.positions <= limit:  # the next layer was not counted: its bound is the reason
        return (f"too many positions below {position} to solve here: {count.positions:,} by "
                f"layer from {start} down ({sizes}), and layer {last}'s moves lead to up to "
                f"{count.next_at_most:,} more, past --max-positions {limit:,}; raise it to "
                f"solve anyway (roughly {SOLVED_PER_SECOND:,} positions a second)")
    return (f"too many positions below {position} to solve here: at least "
            f"{count.positions:,} (by layer from {start} down: {sizes}; more below), over "
            f"--max-positions {limit:,}; raise it to solve anyway (roughly "
            f"{SOLVED_PER_SECOND:,} positions a second)")


__all__ = ["MAX_POSITIONS", "SubgameCount", "SubgameTooBig", "count_subgame", "solve_position"]
