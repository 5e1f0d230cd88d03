"""Build a game through its indexed face (``games.indexed``): solving meets storing.

The builder of ``gamedb.build`` for families that offer ``Game.indexed_face()``
(point-difference Goofspiel): no enumeration and no value table. Layers are solved in
the face's order, each in chunks of consecutive positions *in key order*
(``IndexedFace.sorted_chunks``), from the summary of the layer before (a few bytes per
position: Goofspiel's chance values). Each chunk becomes ``states`` rows whose keys all
follow the rows already stored, so SQLite appends at the end of its B-tree (9 cards,
values-only rows: 597 k rows/s in key order against 192 k sorted per chunk in index
order). Rows hold strategies only in layers ``>= strategies_from``; below, NULL (solved
on demand by ``GameDB.probe``, as in a values-only file).

Resume: chunks are committed in key order, so a layer's state in the file is one
number, ``layers.done``: its smallest ``done`` keys are stored. A restarted build
re-accumulates the summary of the layer below and of the done part of the current
layer from the stored values (streamed in key order; the same doubles in the same
order, so the same summary) and continues at position ``done``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamedb.games.base import Game, root_of
from gamedb.games.indexed import IndexedFace
from gamedb.types import Floats
from gamedb.solver.indexed import CHUNK_SIZE, solve_sorted
from gamedb.store.codec import MIN_PROB, encode
from gamedb.store.errors import DamagedFile
from gamedb.store.pages import PAGE_TARGET, KeyMap, PageLayer, PageRows, Sparse, encode_page
from gamedb.store.writer import Chunk, ChunkCommitter, ChunkPages, ChunkRows, Writer
from gamedb.cluster import Executor, Local, ordered

Progress = Callable[[int, int], None]

#: Stored values read at once when a resumed build rebuilds a summary.
READ_CHUNK = 1_000_000

#: The ETA's cost model of a position (``layer_weights``): writing its row costs as
#: much as solving this many stage-game entries, and a row with strategies this many
#: values-only rows. Fitted to the wall rate of each layer of the 13-card build (2.18 µs
#: + 0.0111 µs per entry: the one writer sets the pace, solving adds little; 50, the
#: first guess, made its ETA up to 42% high): docs/estimate.md.
ENTRIES_PER_ROW = 200.0
STRATEGY_ROW_COST = 2.0


@dataclass(frozen=True, slots=True)
class IndexedRun:
    """What one run of the indexed builder did."""

    states: int
    solved: int
    fallbacks: int


def build_layers(face: IndexedFace, writer: Writer, *, workers: int | Executor = 1,
                 chunk_size: int = CHUNK_SIZE, strategies_from: int = 0, pages_below: int = 0,
                 page_size: int = PAGE_TARGET, page_min: int = 0,
                 on_progress: Progress | None = None,
                 on_eta: Callable[[float], None] | None = None,
                 on_stage: Callable[[str], None] | None = None) -> IndexedRun:
    """Solve and store every position of ``face`` that ``writer``'s file lacks.

    Args:
        face: the game's indexed face.
        writer: the open file (a partial build is continued at its ``layers.done``).
        workers: solver processes for layers of several chunks (one process writes),
            or where they run (``gamedb.cluster.executor``).
        chunk_size: target positions per chunk and per transaction.
        strategies_from: layers below this store NULL strategies (values only).
        pages_below: layers below this are page layers (values only, ``store.pages``):
            workers return finished pages, the writer appends them.
        page_size: values per page, at most (whole blocks, at least one; a resumed
            layer keeps the size it was started with); about, in a keyed page layer.
        page_min: the other layers of at least this many positions (0: none) are keyed
            page layers (``store.pages.ROWS``: keys, values and, from
            ``strategies_from``, gaps and strategies in each page).
        on_progress: called with (positions done, positions total) after each chunk.
        on_eta: called with the seconds left after each chunk (``layer_weights``).
        on_stage: told when a resumed build re-reads the values it stored (minutes at
            13 cards, with no chunk solved meanwhile), and when solving starts again.
    """
    sizes = {layer: face.size(layer) for layer in face.layers()}
    writer.ensure_layers(sizes)
    run_on = Local(workers) if isinstance(workers, int) else workers
    run = _Run(face, writer, sizes, run_on, chunk_size, strategies_from, on_progress, on_eta)
    run.on_stage = on_stage
    writer.ensure_page_layers(page_plan(face, sizes, pages_below, page_min), page_size)
    run.paged = writer.pages.layers  # as stored: a resumed layer keeps its page size
    below: Floats | None = None
    for layer in face.layers():
        if run.done.get(layer, 0) < sizes[layer]:
            if below is None and layer != min(sizes):
                below = run.stored_summary(layer - 1, run.done.get(layer - 1, 0))
            below = run.layer(layer, below)
        else:
            below = None  # read from the file only if a later layer needs it
    run.flush()
    return IndexedRun(sum(sizes.values()), run.solved, run.fallbacks)


class _Run(ChunkCommitter):
    """One run of the indexed builder: the face, the workers, the committer's counts."""

    def __init__(self, face: IndexedFace, writer: Writer, sizes: dict[int, int], run_on: Executor,
                 chunk_size: int, strategies_from: int, on_progress: Progress | None,
                 on_eta: Callable[[float], None] | None = None):
        super().__init__(writer, sizes, chunk_size, on_progress,
                         layer_weights(face, strategies_from), on_eta)
        self.face, self.run_on, self.split = face, run_on, strategies_from
        self.paged: dict[int, PageLayer] = {}
        """The page layers of the build."""
        self.on_stage: Callable[[str], None] | None = None
        """Told when stored values are re-read (``build_layers``' ``on_stage``)."""

    def stored_summary(self, layer: int, done: int) -> Floats:
        """``_stored_summary``, announced on ``on_stage`` when there is anything to read."""
        if not done or self.on_stage is None:
            return _stored_summary(self.face, self.writer, layer, done)
        self.on_stage(f"re-reading the {done:,} positions of layer {layer} stored before, "
                      "to resume")
        summary = _stored_summary(self.face, self.writer, layer, done)
        self.on_stage("solving")
        return summary

    def layer(self, layer: int, below: Floats | None) -> Floats:
        """Solve and store the rest of ``layer``; return its whole summary."""
        done = self.done.get(layer, 0)
        summary = self.stored_summary(layer, done)
        paged = self.paged.get(layer)
        if paged is None:
            target = self.chunk_size
        elif paged.keyed:
            target = paged.page_size  # a chunk is one page (whole blocks)
        else:
            target = max(1, self.chunk_size // paged.page_size) * paged.page_size
        chunks = self.face.sorted_chunks(layer, target)
        ranges = [(max(a, done), b) for a, b in chunks if b > done]
        for (start, stop), (rows, fell_back) in zip(ranges, self._solved(layer, ranges, below)):
            self.face.accumulate(layer, start, stop, rows.values, summary)
            self.commit(rows, fell_back, stop)
        return summary

    def _solved(self, layer: int, ranges: list[tuple[int, int]],
                below: Floats | None) -> Iterator[tuple[Chunk, int]]:
        solve: Callable[[tuple[int, int]], tuple[Chunk, int]]
        paged = self.paged.get(layer)
        if paged is not None and paged.keyed:
            solve = functools.partial(_chunk_keyed, self.face, layer, below, layer >= self.split)
        elif paged is not None:
            solve = functools.partial(_chunk_pages, self.face, layer, below, paged)
        else:
            solve = functools.partial(_chunk_rows, self.face, layer, below, layer >= self.split)
        if not self.run_on.parallel or len(ranges) <= 1:
            yield from map(solve, ranges)
            return
        solved: Iterator[tuple[Chunk, int]] = ordered(self.run_on, solve, ranges)
        yield from solved  # the workers get ``below`` once


def layer_weights(face: IndexedFace, strategies_from: int) -> dict[int, float]:
    """Return the relative cost of a position of each layer, for the ETA: one row
    written (``STRATEGY_ROW_COST`` with strategies) plus its stage game's entries, as
    the mean rows x columns of the layer's first positions (a layer's positions have
    the same number of moves in Goofspiel)."""
    weights = {}
    for layer in face.layers():
        start, stop = face.sorted_chunks(layer, 256)[0]
        rows, cols = face.sorted_actions(layer, start, stop)
        entries = float(np.mean((rows >= 0).sum(axis=1) * (cols >= 0).sum(axis=1)))
        row = STRATEGY_ROW_COST if layer >= strategies_from else 1.0
        weights[layer] = row + entries / ENTRIES_PER_ROW
    return weights


def _chunk_rows(face: IndexedFace, layer: int, below: Floats | None, strategies: bool,
                bounds: tuple[int, int]) -> tuple[ChunkRows, int]:
    """Solve positions start..stop-1 (key order); return their rows and fallbacks."""
    start, stop = bounds
    began = time.perf_counter()
    solution = solve_sorted(face, layer, start, stop, below)
    first = second = None
    if strategies:
        row_actions, col_actions = face.sorted_actions(layer, start, stop)
        first = encode(solution.row_strategies, row_actions)
        second = encode(solution.col_strategies, col_actions)
    rows = ChunkRows(layer, face.sorted_keys(layer, start, stop), solution.values,
                     solution.gaps, first, second, time.perf_counter() - began)
    return rows, solution.fallbacks


def page_plan(face: IndexedFace, sizes: dict[int, int], pages_below: int,
              page_min: int) -> dict[int, KeyMap | None]:
    """Return the page layers of a build: the layers below ``pages_below`` under their
    product of keys (values only), and the others of at least ``page_min`` positions
    (0: none) as keyed pages (None)."""
    plan: dict[int, KeyMap | None] = {}
    for layer in face.layers():
        if layer < pages_below:
            plan[layer] = _keymap(face, layer)
        elif page_min and sizes[layer] >= page_min:
            plan[layer] = None
    return plan


def _chunk_keyed(face: IndexedFace, layer: int, below: Floats | None, strategies: bool,
                 bounds: tuple[int, int]) -> tuple[ChunkPages, int]:
    """Solve positions start..stop-1 (key order: one page of a keyed layer); return
    the finished page (``store.pages.encode_rows``)."""
    start, stop = bounds
    began = time.perf_counter()
    solution = solve_sorted(face, layer, start, stop, below)
    keys = face.sorted_keys(layer, start, stop)
    rows = PageRows(keys, solution.values)
    if strategies:
        row_actions, col_actions = face.sorted_actions(layer, start, stop)
        rows = PageRows(keys, solution.values, solution.gaps,
                        Sparse.of(solution.row_strategies, row_actions, MIN_PROB),
                        Sparse.of(solution.col_strategies, col_actions, MIN_PROB))
    return (ChunkPages.keyed(layer, rows, solution.gaps, time.perf_counter() - began),
            solution.fallbacks)


def _keymap(face: IndexedFace, layer: int) -> KeyMap:
    """Return the keys of ``layer`` as a page layer holds them (its key factors)."""
    factors = face.key_factors(layer)
    if factors is None:
        raise ValueError(f"layer {layer} of this game cannot be stored as pages")
    keymap = KeyMap(*factors)
    if keymap.size != face.size(layer):
        raise ValueError(f"layer {layer}: {keymap.size:,} keys in its factors, "
                         f"{face.size(layer):,} positions")
    return keymap


def _chunk_pages(face: IndexedFace, layer: int, below: Floats | None, paged: PageLayer,
                 bounds: tuple[int, int]) -> tuple[ChunkPages, int]:
    """Solve positions start..stop-1 (key order, whole pages); return finished pages."""
    start, stop = bounds
    began = time.perf_counter()
    assert paged.keymap is not None, "a layer of values under a product of keys"
    solution = solve_sorted(face, layer, start, stop, below)
    size, values = paged.page_size, solution.values
    firsts = np.arange(start, stop, size)
    blobs = [encode_page(values[i - start:i - start + size]) for i in firsts.tolist()]
    pages = ChunkPages(layer, start // size, paged.keymap.at(firsts).tolist(),
                       np.minimum(size, stop - firsts).tolist(), blobs, values,
                       float(solution.gaps.max()) if len(values) else 0.0,
                       time.perf_counter() - began)
    return pages, solution.fallbacks


def _stored_summary(face: IndexedFace, writer: Writer, layer: int, done: int) -> Floats:
    """Return the summary of the first ``done`` positions (key order) of ``layer``,
    accumulated from the stored values as the build accumulated them (same doubles)."""
    summary = np.zeros(face.summary_size(layer))
    start = 0
    if done:
        step = face.sorted_chunks(layer, READ_CHUNK)[0][1]  # whole blocks
        for values in writer.sorted_values(layer, step):
            stop = start + len(values)
            if stop > done:
                break
            try:
                face.accumulate(layer, start, stop, values, summary)
            except ValueError:  # not whole blocks
                break
            start = stop
    if start != done:
        raise DamagedFile(writer.path, f"layer {layer}: the layers table says {done:,} "
                                       "position(s) solved; the stored ones differ")
    return summary


def root_value(game: Game[Any], writer: Writer) -> float:
    """Return the value of the start: the root keys' stored values, weighted."""
    root = root_of(game)
    values: dict[int, float] = {}
    for layer in set(game.layer_of(root.keys).tolist()):
        keys, stored = writer.layer_values(layer)
        values.update(zip(keys.tolist(), stored.tolist()))
    looked_up = np.array([values[k] for k in root.keys.tolist()])
    return float(np.dot(root.weight, looked_up)) + 0.0


__all__ = ["IndexedRun", "build_layers", "root_value"]
