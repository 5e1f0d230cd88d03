"""A layer of prize-set groups on a Dask cluster: map by Q, reduce by P.

A source that cuts its layers in groups (``Grouped``: win/loss Goofspiel,
``games.goofspiel.groups``) is built on a Dask scheduler's workers without any worker
holding a whole summary or a whole layer's tables (a ``local:N`` cluster's threads share
the builder's memory and solve chunk by chunk instead: ``grouped_layer``):

- one **map** task per group G of layer k reads G's part of layer k - 1's summary
  (``Parts``: a future per group, on the workers) and G's score sets (its *cells*; every
  worker holds only the tables all groups share), solves G's chunks into finished
  keyed pages (numbered: a page's number is its chunk's), and splits what their values
  add to layer k's summary by the reduce group they fall in, as whole segments (a term
  for every chance value of a prize set, for one draw);
- one **reduce** task per group H adds those contributions in increasing draw (the
  order a local build adds them: the same doubles) into H's part of layer k's summary,
  which stays on the cluster for layer k + 1's map tasks.

The builder only receives pages and writes them as they come. A layer stored in part
(a resumed build) keeps its stored chunks: the builder reads their values back and
sends them with their group's map task, which adds them up without solving them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from gamedb.builder.cluster import Dask, cancelled_here, completed, task_failed, translated
from gamedb.games.source import LayerSource
from gamedb.store.pages import PageLayer
from gamedb.store.writer import Chunk, ChunkPages
from gamedb.types import Floats, Ints

if TYPE_CHECKING:
    from gamedb.builder.cluster import Client, Future

Piece = tuple[Ints, Floats, Ints]
"""Contributions of a range to one reduce group: (entries of its part, terms, draws)."""
Dense = tuple[Ints, Ints, Floats]
"""A map task's contributions to one reduce group, as whole segments of its part:
(spans [start, stop), draws, values)."""
Solved = list[tuple[int, Chunk, int]]
"""A map task's chunks: (number, the finished chunk, the kernel's fallbacks)."""
MapResult = tuple[Solved, dict[int, Dense]]


class Grouped(LayerSource, Protocol):
    """A layer source cut in groups for map and reduce tasks
    (``games.goofspiel.winloss.WinLossIndex``)."""

    def set_bounds(self, size: int) -> Ints: ...

    def for_layer(self, layer: int) -> Grouped: ...

    def group_cells(self, layer: int, group: int) -> Any: ...

    def with_cells(self, cells: Any) -> Grouped: ...

    def map_groups(self, layer: int, target: int) -> dict[int, list[int]]: ...

    def partition(self, layer: int, group: int, summary: Floats) -> Floats: ...

    def group_slice(self, layer: int, group: int, part: Floats | None) -> Any: ...

    def contributions(self, layer: int, start: int, stop: int,
                      values: Floats) -> dict[int, Piece]: ...

    def dense(self, layer: int, group: int, piece: Piece) -> Dense: ...

    def reduce(self, size: int, pieces: list[Dense]) -> Floats: ...

    def feeds(self, layer: int) -> dict[int, list[int]]: ...

    def part_sizes(self, layer: int) -> list[int]: ...

    def map_group_sizes(self, layer: int) -> Ints: ...

    def stage_size(self, layer: int) -> int: ...

    def layer_bytes(self, layer: int) -> int: ...

    def cells_bytes(self, layer: int) -> Ints: ...


def is_grouped(source: LayerSource) -> bool:
    """True if ``source`` can be built by map and reduce tasks."""
    return callable(getattr(source, "map_groups", None))


@dataclasses.dataclass(eq=False)
class Parts:
    """A layer's summary held on the cluster: one future per group, in group order
    (their concatenation is the summary)."""

    layer: int
    futures: list[Future[Floats]]

    def gather(self, client: Client) -> Floats:
        """The whole summary, in this process."""
        with translated(client):
            parts = client.gather(self.futures)
        return np.concatenate(parts) if parts else np.zeros(0)


def map_task(tables: Grouped, cells: Any, layer: int, paged: PageLayer, strategies: bool,
             group: int, chunks: list[tuple[int, tuple[int, int]]], part: Floats | None,
             stored: dict[int, Floats]) -> MapResult:
    """Solve group ``group``'s ``chunks`` of ``layer`` (number, bounds; those not in
    ``stored``, whose values are given) from ``part``, with the layer's ``tables`` and the
    group's ``cells``; return them as pages numbered by their chunk, with the kernel's
    fallbacks, and their contributions by reduce group, as whole segments."""
    from gamedb.builder.runner import solve_range  # the runner imports this module
    source = tables.with_cells(cells)
    sliced = source.group_slice(layer, group, part)
    solved: Solved = []
    pieces: dict[int, list[Piece]] = {}
    for number, (start, stop) in chunks:
        values = stored.get(number)
        if values is None:
            chunk, fell_back = solve_range(source, layer, sliced, paged, strategies,
                                           (start, stop))
            values = chunk.values
            if isinstance(chunk, ChunkPages):  # numbered; its values are not sent back
                chunk = dataclasses.replace(chunk, first_page=number, values=np.zeros(0))
            solved.append((number, chunk, fell_back))
        for h, piece in source.contributions(layer, start, stop, values).items():
            pieces.setdefault(h, []).append(piece)
    dense: dict[int, Dense] = {}
    for h in sorted(pieces):  # each reduce group's raw terms freed once made whole
        dense[h] = source.dense(layer, h, _joined(pieces.pop(h)))
    return solved, dense


def _joined(pieces: list[Piece]) -> Piece:
    entry, term, draw = zip(*pieces)
    return np.concatenate(entry), np.concatenate(term), np.concatenate(draw)


def _pages(result: MapResult) -> Solved:
    return result[0]


def _piece(result: MapResult, h: int) -> Dense | None:
    return result[1].get(h)


def reduce_task(reduce: Callable[[int, list[Dense]], Floats], size: int,
                *pieces: Dense | None) -> Floats:
    """Group H's part of the layer's summary from the map tasks' pieces for H
    (``reduce``: the source's, which needs none of its tables)."""
    return reduce(size, [piece for piece in pieces if piece is not None])


class Forgotten(RuntimeError):
    """The cluster forgot data only this process had sent (a worker holding it was
    lost while the scheduler stayed): the layer must be sent and run again."""


class GroupedLayer:
    """Run one layer of a grouped source on a Dask executor."""

    def __init__(self, run_on: Dask, source: Grouped):
        self.client, self.source = run_on.client, source
        with translated(self.client):
            self.client.wait_for_workers(1)

    def parts(self, layer: int, summary: Floats) -> Parts:
        """Send a summary held here (read from the file) to the cluster as parts."""
        source = self.source
        groups = len(source.set_bounds(layer)) - 1
        with translated(self.client):
            futures = self.client.scatter([source.partition(layer, g, summary)
                                           for g in range(groups)], hash=False)
        return Parts(layer, list(futures))

    def run(self, layer: int, below: Parts | None, paged: PageLayer, strategies: bool,
            stored: Callable[[list[int]], dict[int, Floats]]) -> Iterator[tuple[Chunk, int]]:
        """Yield the solved chunks of ``layer`` as they come (keyed pages, numbered) with
        their fallbacks; afterwards ``self.summary`` holds the layer's ``Parts``.
        ``stored(numbers)``: the values of the chunks among ``numbers`` already stored."""
        client, source = self.client, self.source
        target = paged.page_size
        chunks = source.chunks(layer, target)  # cut once here, not in every task
        groups = source.map_groups(layer, target)
        with translated(client):  # every worker: the layer's tables; a task: its cells
            tables = client.scatter(source.for_layer(layer), broadcast=True, hash=False)
            maps: dict[int, Future[Any]] = {}
            for g, numbers in sorted(groups.items()):
                part = None if below is None else below.futures[g]
                given: Any = stored(numbers)
                if given:  # a resumed layer's stored chunks: data, not part of the graph
                    given = client.scatter(given, hash=False)
                cells = client.scatter(source.group_cells(layer, g), hash=False)
                maps[g] = client.submit(map_task, tables, cells, layer, paged, strategies, g,
                                        [(i, chunks[i]) for i in numbers], part, given,
                                        pure=False)
                del cells
            sizes = source.part_sizes(layer)
            reduces = []
            for h, feeders in sorted(source.feeds(layer).items()):
                pieces = [client.submit(_piece, maps[g], h, pure=False) for g in feeders]
                reduces.append(client.submit(reduce_task, type(source).reduce, sizes[h],
                                             *pieces, pure=False))
            pages = [client.submit(_pages, future, pure=False) for future in maps.values()]
            del maps
        for future in completed(client, pages):
            try:
                solved = future.result()
            except Exception as exc:
                if cancelled_here(client, exc):
                    raise Forgotten(str(exc)) from None
                if isinstance(exc, OSError) and future.status == "error":
                    raise task_failed(exc) from None  # the task's own, not the network's
                with translated(client):
                    raise
            for _, chunk, fell_back in solved:
                yield chunk, fell_back
            future.release()
        self.summary = Parts(layer, reduces)


def grouped_layer(run_on: Any, source: LayerSource, paged: PageLayer | None) -> bool:
    """True if this layer is built by map and reduce tasks: a grouped source, a keyed
    page layer, on a Dask cluster whose workers are not threads of this process
    (``local:N``'s see the whole summary: its chunks are tasks, as every other layer's;
    one map task a group ran 9-card win/loss, one group a layer, on one thread)."""
    return (isinstance(run_on, Dask) and not run_on.shares_memory and is_grouped(source)
            and paged is not None and paged.keyed)


__all__ = ["Dense", "Forgotten", "Grouped", "GroupedLayer", "Parts", "grouped_layer", "is_grouped",
           "map_task", "reduce_task"]
