"""Opening books: the first rounds of a finished build, small enough to ship.

A book is a gamedb file like any other (same schema, views and spec) that holds only
the layers from ``from_layer`` up, every one with its strategies. It is made from a
finished full file only after those layers verify there (each position against its
successors' stored values), and says so in its meta: ``book_from_layer`` and
``book_source`` (the source's name, size, position count, and that check). A position
below the book is answered "not in this book" with the way to get it.

>>> import tempfile, pathlib
>>> from gamedb.build import build
>>> where = pathlib.Path(tempfile.mkdtemp())
>>> _ = build("jujitsu(num_cards=5)", where / "j5.sqlite")
>>> book = make_book(where / "j5.sqlite", where / "j5.book.sqlite", 4)
>>> book.positions, book.checked == book.positions
(12, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gamedb.store import open_db
from gamedb.store.errors import StoreError
from gamedb.store.export import copy_top_layers, ship
from gamedb.verify import Progress, verify


@dataclass(frozen=True, slots=True)
class Book:
    """An opening book written by ``make_book``."""

    path: str
    from_layer: int
    positions: int
    checked: int
    """Positions verified in the source before copying (all of the book's)."""
    max_gap: float
    sha256: str
    size: int
    """Bytes."""


def make_book(source: str | Path, output: str | Path, from_layer: int, *,
              on_progress: Progress | None = None) -> Book:
    """Write the layers ``from_layer`` and up of ``source`` to the new file ``output``.

    Raises:
        StoreError: ``source`` is unfinished, stores no strategies in those layers, or
            fails to verify there; ``output`` exists.
        NotAGameDB, SchemaOutOfDate, SpecMismatch, DamagedFile: as ``open_db``.
    """
    source, output = Path(source), Path(output)
    if output.exists():  # before the long check
        raise StoreError(f"{output} exists; choose a new file name")
    with open_db(source) as db:
        info = db.info()
        layers = [x.layer for x in info.layers if x.layer >= from_layer]
        if not layers:
            raise StoreError(f"{source} has no layer {from_layer} or above")
        if not db.stores_strategies(from_layer):
            raise StoreError(f"{source} stores no strategies in layer {from_layer} (built "
                             f"with --strategies-from {db.meta.get('strategies_from')}); "
                             "a book needs them")
    report = verify(source, from_layer=from_layer, on_progress=on_progress)
    if not report.ok:
        raise StoreError(f"{source}: {report.failures} position(s) of layers {from_layer} "
                         "and up fail to verify; no book written")
    checked = {"positions": report.checked, "max_gap": report.max_gap}
    copied = copy_top_layers(source, output, from_layer, {
        "book_from_layer": from_layer,
        "book_source": {"name": source.name, "bytes": source.stat().st_size,
                        "states": info.states, "verified": checked}})
    shipped = ship(output)
    return Book(str(output), from_layer, copied, report.checked, report.max_gap,
                shipped.sha256, shipped.size)
