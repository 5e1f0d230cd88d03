"""Opening books: the first rounds of a finished build, small enough to ship.

A book is a gamedb file like any other (same schema, views and spec) that holds only
the layers from ``from_layer`` up, every one with its strategies. It is made from a
finished full file only after those layers verify there (each position against its
successors' stored values), and says so in its meta: ``book_from_layer`` and
``book_source`` (the source's name, size, position count, and that check). A position
below the book is answered "not in this book" with the way to get it.

Layers the source stores as rows without strategies (a build's default keeps them for
its top layers only; ``--values-only`` for none) get them in the book: each stage game
is solved from the source's stored successor values, as ``gamedb show`` does on demand
and as the build would have stored them, and its value must equal the stored one bit
for bit (``book_source.strategies_solved`` lists those layers). At most
``SOLVE_LIMIT`` positions are solved so; beyond, the book is refused up front.

>>> import tempfile, pathlib
>>> from gamedb.builder import build
>>> where = pathlib.Path(tempfile.mkdtemp())
>>> _ = build("jujitsu(num_cards=5)", where / "j5.sqlite")
>>> book = make_book(where / "j5.sqlite", where / "j5.book.sqlite", 4)
>>> book.positions, book.checked == book.positions
(12, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


import numpy as np

from gamedb.store import GameDB, open_db
from gamedb.store.engine import connect_file, terminations_interrupt
from gamedb.store.errors import StoreError, is_disk_full, refuse_own_database, refuse_unwritable
from gamedb.store.export import copy_top_layers
from gamedb.store.ship import ship
from gamedb.types import Progress
from gamedb.verify import verify


#: Positions without stored strategies that a book solves them for (about a minute).
SOLVE_LIMIT = 2_000_000


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
    refuse_own_database(output, source)  # not the source, nor its journal
    refuse_unwritable(output)  # before the long check
    with open_db(source) as db:
        db.require_finished("make the book")  # before the long check
        info = db.info()
        layers = [x.layer for x in info.layers if x.layer >= from_layer]
        if not layers:
            raise StoreError(f"{source} has no layer {from_layer} or above")
        from_layer = min(layers)  # below the lowest layer: the book of every layer
        unsolved = _unsolved_layers(db, source, from_layer,
                                    {x.layer: x.states for x in info.layers})
    report = verify(source, from_layer=from_layer, on_progress=on_progress)
    if report.problems and not report.failures:  # every position passes: meta lies
        raise StoreError(f"{source}: {report.problems[0]}; no book written")
    if not report.ok:
        raise StoreError(f"{source}: {report.failures:,} position(s) of layers {from_layer} "
                         "and up fail to verify; no book written")
    checked = {"positions": report.checked, "max_gap": report.max_gap}
    solved = {"strategies_solved": unsolved} if unsolved else {}
    every_layer = {"strategies_from": from_layer, "values_only": False} if unsolved else {}
    try:
        with terminations_interrupt():  # a kill too leaves no half-made book
            copied = copy_top_layers(source, output, from_layer, {
                "book_from_layer": from_layer, **every_layer,
                "book_source": {"name": source.name, "bytes": source.stat().st_size,
                                "states": info.states, "verified": checked, **solved}})
            _solve_strategies(source, output, unsolved)
            shipped = ship(output)
    except BaseException as exc:
        output.unlink(missing_ok=True)  # no half-made book is left
        if isinstance(exc, Exception) and is_disk_full(exc):  # not the source's fault
            raise StoreError(f"cannot write {output}: the disk is full; no book was written "
                             f"and {source} is unchanged: free some space and run again"
                             ) from None
        raise
    return Book(str(output), from_layer, copied, report.checked, report.max_gap,
                shipped.sha256, shipped.size)


def _unsolved_layers(db: GameDB, source: Path, from_layer: int,
                     sizes: dict[int, int]) -> list[int]:
    """Return the layers ``from_layer`` and up stored without strategies (the book
    solves them); refuse an opening book's lowest layer (its successors are not in it,
    so it cannot be verified again), and layers the book cannot solve: page layers, or
    more than ``SOLVE_LIMIT`` positions."""
    book = db.meta.get("book_from_layer")
    if book is not None and from_layer <= book:
        raise StoreError(f"{source} is an opening book of layer {book} and up: the "
                         f"successors of layer {book} are not in it, so a book from it "
                         f"starts at layer {book + 1} or above (or make it from the full file)")
    unsolved = sorted(layer for layer in sizes
                      if layer >= from_layer and not db.stores_strategies(layer))
    paged = [layer for layer in unsolved if layer in db.pages.layers]
    count = sum(sizes[layer] for layer in unsolved)
    if paged or count > SOLVE_LIMIT:
        split = db.meta.get("strategies_from")
        how = "--values-only" if db.meta.get("values_only") else f"--strategies-from {split}"
        why = (f"layer {paged[-1]} is stored as pages" if paged else
               f"solving their {count:,} positions is past the book's {SOLVE_LIMIT:,}")
        higher = min((layer for layer in sizes if layer > max(paged, default=from_layer)
                      and sum(sizes[u] for u in unsolved if u >= layer) <= SOLVE_LIMIT),
                     default=None)
        rebuild = ("a build without --values-only" if db.meta.get("values_only")
                   else "a build with a lower --strategies-from")
        where = (f"make the book from layer {higher}, or from {rebuild}" if higher is not None
                 else f"no layer can start a book; make the book from {rebuild}")
        raise StoreError(f"{source} stores no strategies in layer {unsolved[0]} (built "
                         f"with {how}) and {why}: {where}")
    return unsolved


def _solve_strategies(source: Path, output: Path, layers: Sequence[int]) -> None:
    """Store in the book ``output`` the strategies (and gaps) of the row ``layers``, solved from the
    stored values of ``source`` (each value must come out as stored, bit for bit)."""
    if not layers:
        return
    book = connect_file(output)
    try:
        with open_db(source) as db, book:  # one transaction
            for layer in layers:
                for rows in db.layer_rows(layer, strategies=False):
                    values, gaps, first, second = db.solved_strategies(rows.keys)
                    if not np.array_equal(values, rows.numbers()):
                        wrong = int(rows.keys[values != rows.numbers()][0])
                        raise StoreError(f"{source}: key {wrong} solves to another value "
                                         "than the stored one; no book written (gamedb "
                                         "verify says more)")
                    book.executemany("UPDATE states SET gap = ?, strategy1 = ?, strategy2 = ? "
                                     "WHERE key = ?", zip(gaps.tolist(), first, second,
                                                          rows.keys.tolist()))
    finally:
        book.close()
