"""The builder's loop: every layer of a layer source, chunk by chunk, into the file.

Layers are solved in the source's order, each in chunks of consecutive positions *in
key order* (``LayerSource.chunks``), from what the layers below it left behind: their
*summaries* (``LayerSource.below``; Goofspiel's index: the chance values of the layer
before, a few bytes per position; an enumerated game: the values of the layers a move
reaches). A chunk is solved where the build's executor runs it (this process, forked
workers or a Dask cluster: ``gamedb.builder.cluster``), and comes back finished: rows
with their strategies as JSON text, or one keyed page, or pages of values
(``store.pages``), so the one writer only appends. Rows hold strategies only in layers
``>= strategies_from``; below, NULL (solved on demand by ``GameDB.probe``).

Resume: chunks are committed in key order, so a layer's state in the file is one
number, ``layers.done``: its smallest ``done`` keys are stored. A restarted build
re-accumulates the summaries it needs from the stored values (streamed in key order:
the same doubles in the same order, so the same summary) and continues at position
``done``.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamedb.builder.cluster import ClusterError, Dask, Executor, ordered
from gamedb.builder.grouped import Forgotten, GroupedLayer, Parts, grouped_layer
from gamedb.builder.progress import Committer, Observer, layer_weights
from gamedb.games.base import Game, root_of
from gamedb.games.source import LayerSource
from gamedb.solver.matrix_game import BatchSolution, solve_games
from gamedb.store.codec import MIN_PROB, encode
from gamedb.store.errors import DamagedFile
from gamedb.store.pages import PageLayer, PageRows, Sparse, encode_page
from gamedb.store.writer import Chunk, ChunkPages, ChunkRows, Writer
from gamedb.types import Floats

#: Stored values read at once when a resumed build rebuilds a summary.
READ_CHUNK = 1_000_000
#: Times a layer built by map and reduce tasks is sent again after the cluster forgot
#: data only the builder had (a worker lost with the only copy).
RESENDS = 3


@dataclass(frozen=True, slots=True)
class RunCounts:
    """What one run of the builder did."""

    states: int
    solved: int
    fallbacks: int


def run_layers(source: LayerSource, writer: Writer, run_on: Executor, *, chunk_size: int,
               strategies_from: int, observer: Observer) -> RunCounts:
    """Solve and store every position of ``source`` that ``writer``'s file lacks.

    Args:
        source: the game's layers (``writer``'s layers and page layers are set up).
        writer: the open file (a partial build is continued at its ``layers.done``).
        run_on: where chunks are solved (one process writes).
        chunk_size: positions per chunk and per transaction (a keyed page layer: its
            page size; a page layer of values: whole pages).
        strategies_from: layers below this one store no strategies.
        observer: told the counts, the ETA, and when stored values are re-read.
    """
    sizes = {layer: source.size(layer) for layer in source.layers()}
    run = _Run(source, writer, sizes, run_on, chunk_size, strategies_from, observer)
    summaries = _Summaries(source)
    for layer in summaries.order:
        if run.done.get(layer, 0) < sizes[layer]:
            for lower in source.needs(layer):
                if lower not in summaries.held:  # done before this run: read from the file
                    summaries.held[lower] = run.stored_summary(lower, run.done.get(lower, 0))
            summaries.solved(layer, run.layer(layer, source.below(layer, summaries.held)))
        else:
            summaries.passed(layer)
    run.flush()
    return RunCounts(sum(sizes.values()), run.solved, run.fallbacks)


class _Summaries:
    """The summaries a run holds: each layer's from the time it is solved (or read
    from the file) until the last layer that reads it (``LayerSource.needs``)."""

    def __init__(self, source: LayerSource):
        self.order = list(source.layers())
        self._last_read = {lower: i for i, layer in enumerate(self.order)
                           for lower in source.needs(layer)}
        self.held: dict[int, Any] = {}
        """Each summary held: Floats, or ``Parts`` on a cluster (``builder.grouped``)."""

    def solved(self, layer: int, summary: Floats | Parts) -> None:
        """Keep ``layer``'s summary if a later layer reads it; forget the others that
        no later layer reads."""
        self.held[layer] = summary
        self.passed(layer)

    def passed(self, layer: int) -> None:
        """Forget every summary that no layer after ``layer`` reads."""
        now = self.order.index(layer)
        for lower in [lower for lower in self.held if self._last_read.get(lower, -1) <= now]:
            del self.held[lower]


class _Run(Committer):
    """One run of the builder: the source, the executor, the committer's counts."""

    def __init__(self, source: LayerSource, writer: Writer, sizes: dict[int, int],
                 run_on: Executor, chunk_size: int, strategies_from: int, observer: Observer):
        super().__init__(writer, sizes, chunk_size, observer,
                         layer_weights(source, strategies_from))
        self.source, self.run_on, self.split = source, run_on, strategies_from
        self._groups: GroupedLayer | None = None

    def stored_summary(self, layer: int, done: int) -> Floats:
        """``stored_summary``, announced to the observer when there is anything to read."""
        if done:
            self.observer.stage(f"re-reading the {done:,} positions of layer {layer} "
                                "stored before, to resume")
        summary = stored_summary(self.source, self.writer, layer, done)
        if done:
            self.observer.stage("solving")
        return summary

    def layer(self, layer: int, below: Any) -> Floats | Parts:
        """Solve and store the rest of ``layer``; return its whole summary (or, built by
        map and reduce tasks on a cluster, its parts there)."""
        done = self.done.get(layer, 0)
        paged = self.writer.pages.layers.get(layer)  # as stored: a resumed layer keeps its size
        if paged is not None and grouped_layer(self.run_on, self.source, paged):
            return self._grouped(layer, below, paged, done)
        if isinstance(below, Parts):
            assert isinstance(self.run_on, Dask), "parts live on a cluster"
            below = below.gather(self.run_on.client)
        if paged is not None and paged.keyed:
            return self._keyed(layer, below, paged, done)
        summary = self.stored_summary(layer, done)
        if paged is None:
            target = self.chunk_size
        else:
            target = max(1, self.chunk_size // paged.page_size) * paged.page_size
        ranges = [(max(start, done), stop) for start, stop in self.source.chunks(layer, target)
                  if stop > done]
        solve = functools.partial(solve_range, self.source, layer, below, paged,
                                  layer >= self.split)
        for (start, stop), (chunk, fell_back) in zip(ranges, self._solved(solve, ranges)):
            self.source.accumulate(layer, start, stop, chunk.values, summary)
            self.commit(chunk, fell_back, stop)
        return summary

    def _keyed(self, layer: int, below: Any, paged: PageLayer, done: int) -> Floats:
        """Solve and store the chunks of a keyed page layer not stored yet (a chunk is one
        page, numbered by its place in key order; a cluster build stores them in any
        order), adding every chunk's values, stored or solved, in key order."""
        chunks = self.source.chunks(layer, paged.page_size)
        stored = self.writer.page_numbers(layer)
        if done:
            self.observer.stage(f"re-reading the {done:,} positions of layer {layer} "
                                "stored before, to resume")
        todo = [bounds for number, bounds in enumerate(chunks) if number not in stored]
        solve = functools.partial(solve_range, self.source, layer, below, paged,
                                  layer >= self.split)
        solved = self._solved(solve, todo)
        summary = np.zeros(self.source.summary_size(layer))
        rereading = bool(done)
        for number, (start, stop) in enumerate(chunks):
            if number in stored:
                values = self.writer.page_values(layer, number)
            else:
                if rereading:
                    self.observer.stage("solving")
                    rereading = False
                chunk, fell_back = next(solved)
                assert isinstance(chunk, ChunkPages), "a keyed layer's chunk is a page"
                chunk = dataclasses.replace(chunk, first_page=number)
                values = chunk.values
                done += chunk.size
                self.commit(chunk, fell_back, done)
            self.source.accumulate(layer, start, stop, values, summary)
        return summary

    def _grouped(self, layer: int, below: Any, paged: PageLayer, done: int) -> Parts:
        """Solve and store the rest of ``layer`` by map and reduce tasks on the cluster
        (``builder.grouped``); return its summary's parts there."""
        assert isinstance(self.run_on, Dask), "a grouped layer runs on a cluster"

        if self._groups is None:
            self._groups = GroupedLayer(self.run_on, self.source)  # type: ignore[arg-type]
        runner = self._groups
        for attempt in range(RESENDS + 1):
            stored = self.writer.page_numbers(layer)  # once an attempt, not once a group

            def values(numbers: list[int]) -> dict[int, Floats]:
                return {i: self.writer.page_values(layer, i) for i in numbers if i in stored}

            try:
                if below is not None and not isinstance(below, Parts):
                    below = runner.parts(layer - 1, below)
                for chunk, fell_back in runner.run(layer, below, paged, layer >= self.split,
                                                   values):
                    done += chunk.size
                    self.commit(chunk, fell_back, done)
                self.flush()
                return runner.summary
            except Forgotten as exc:
                self.flush()
                if attempt == RESENDS:
                    raise ClusterError(f"the Dask workers lost what this build sent them "
                                       f"{RESENDS + 1} times in layer {layer} ({exc}); every "
                                       "finished chunk is saved: run the same command to "
                                       "resume") from None
                if layer > 1:  # the tables are sent again by the next run
                    below = self.stored_summary(layer - 1, self.sizes[layer - 1])
        raise AssertionError("unreachable")

    def _solved(self, solve: Callable[[tuple[int, int]], tuple[Chunk, int]],
                ranges: list[tuple[int, int]]) -> Iterator[tuple[Chunk, int]]:
        if not self.run_on.parallel or len(ranges) <= 1:
            return map(solve, ranges)  # small layers never start the workers
        return ordered(self.run_on, solve, ranges)  # the workers get ``below`` once


def solve_range(source: LayerSource, layer: int, below: Any, paged: PageLayer | None,
                strategies: bool, bounds: tuple[int, int]) -> tuple[Chunk, int]:
    """Solve positions start..stop-1 of ``layer`` (key order); return them finished for
    the writer, and the kernel's fallbacks: pages of values under the layer's key map
    (``paged`` with a ``keymap``), one keyed page (``paged`` keyed), or rows, with their
    strategies where ``strategies``."""
    start, stop = bounds
    began = time.perf_counter()
    solution = solve_games(*source.games(layer, start, stop, below))
    if paged is not None and paged.keymap is not None:
        return _value_pages(layer, start, stop, paged, solution.values, solution.gaps,
                            began), solution.fallbacks
    keys = source.keys(layer, start, stop)
    row_actions, col_actions = source.actions(layer, start, stop) if strategies else (None, None)
    chunk: Chunk
    if paged is not None:
        rows = PageRows(keys, solution.values)
        if row_actions is not None and col_actions is not None:
            rows = PageRows(keys, solution.values, solution.gaps,
                            Sparse.of(solution.row_strategies, row_actions, MIN_PROB),
                            Sparse.of(solution.col_strategies, col_actions, MIN_PROB))
        chunk = ChunkPages.keyed(layer, rows, solution.gaps, time.perf_counter() - began)
    else:
        first = second = None
        if row_actions is not None and col_actions is not None:
            first = encode(solution.row_strategies, row_actions)
            second = encode(solution.col_strategies, col_actions)
        chunk = ChunkRows(layer, keys, solution.values, solution.gaps, first, second,
                          time.perf_counter() - began)
    return chunk, solution.fallbacks


def _value_pages(layer: int, start: int, stop: int, paged: PageLayer, values: Floats,
                 gaps: Floats, began: float) -> ChunkPages:
    """Cut the values of positions start..stop-1 (whole pages) into finished pages."""
    assert paged.keymap is not None, "a layer of values under a product of keys"
    size = paged.page_size
    firsts = np.arange(start, stop, size)
    blobs = [encode_page(values[i - start:i - start + size]) for i in firsts.tolist()]
    return ChunkPages(layer, start // size, paged.keymap.at(firsts).tolist(),
                      np.minimum(size, stop - firsts).tolist(), blobs, values,
                      float(gaps.max()) if len(values) else 0.0, time.perf_counter() - began)


@dataclass(frozen=True, slots=True, eq=False)
class Solved:
    """Positions start..stop-1 of one layer (key order), solved in memory."""

    layer: int
    start: int
    stop: int
    solution: BatchSolution
    summary: Floats
    """The layer's summary so far: complete at its last range (the root layer's: the
    value of the start, in games that begin with a chance draw)."""


def solved_in_memory(source: LayerSource, target: int) -> Iterator[Solved]:
    """Solve every layer of ``source`` in this process, in ranges of about ``target``
    positions, keeping only the summaries later layers read and writing nothing: the
    runner's arithmetic without a file (tests, comparisons and the solve benchmarks)."""
    summaries = _Summaries(source)
    for layer in summaries.order:
        below = source.below(layer, summaries.held)
        summary = np.zeros(source.summary_size(layer))
        for start, stop in source.chunks(layer, target):
            solution = solve_games(*source.games(layer, start, stop, below))
            source.accumulate(layer, start, stop, solution.values, summary)
            yield Solved(layer, start, stop, solution, summary)
        summaries.solved(layer, summary)


def stored_summary(source: LayerSource, writer: Writer, layer: int, done: int) -> Floats:
    """Return the summary of the first ``done`` positions (key order) of ``layer``,
    accumulated from the stored values as the build accumulated them (same doubles)."""
    summary = np.zeros(source.summary_size(layer))
    start = 0
    if done:
        step = source.chunks(layer, READ_CHUNK)[0][1]  # whole blocks
        for values in writer.sorted_values(layer, step):
            stop = start + len(values)
            if stop > done:
                break
            try:
                source.accumulate(layer, start, stop, values, summary)
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


__all__ = ["READ_CHUNK", "RunCounts", "Solved", "root_value", "run_layers", "solve_range",
           "solved_in_memory", "stored_summary"]
