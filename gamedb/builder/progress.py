"""What a running build tells the world: one observer, and the committer that counts.

A build reports through one ``Observer``: the stage it is in (enumerating, re-reading
what a killed run stored, solving, finalising), the positions done of the total after
every chunk, and the seconds left. The command line's progress bar is one; ``Quiet``
is the default. ``Committer`` writes the solved chunks in transactions and keeps the
counts: the observer's numbers, and the ``BuildProgress`` each transaction stores for
a live ``gamedb info``.

The ETA is the work left over the run's rate of work, each layer's positions weighted
by their cost (``layer_weights``): a position count's ETA is too low while the cheap
endgame layers are solved first (13-card Goofspiel here: 387 k positions/s in layer 6,
304 k in 10).
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from gamedb.games.source import LayerSource
from gamedb.store.engine import BuildProgress
from gamedb.store.writer import Chunk, Writer
from gamedb.types import OpenProgress

#: The ETA's cost model of a position (``layer_weights``): storing it costs as much as
#: solving this many stage-game entries, and one with strategies this many without.
#: Fitted to the wall rate of each layer of the 13-card build when it wrote rows
#: (2.18 µs + 0.0111 µs per entry); page layers make the solver's share larger, so the
#: ETA errs high early in a build (docs/estimate.md).
ENTRIES_PER_ROW = 200.0
STRATEGY_ROW_COST = 2.0


class Observer(Protocol):
    """Told what a build is doing (``gamedb.builder.build``'s ``observer``)."""

    def __call__(self, done: int, total: int | None) -> None:
        """Positions stored of the total, after every chunk."""
        ...

    def stage(self, text: str) -> None:
        """A new phase: enumerating, re-reading stored values, solving, finalising."""
        ...

    def eta(self, seconds: float) -> None:
        """The seconds left (``layer_weights``), after every chunk."""
        ...


class Quiet:
    """An observer that ignores everything."""

    def __call__(self, done: int, total: int | None) -> None:
        pass

    def stage(self, text: str) -> None:
        pass

    def eta(self, seconds: float) -> None:
        pass


class Counting(Quiet):
    """An observer that calls ``count(done, total)`` after every chunk, and ignores
    the rest: ``build(spec, path, observer=Counting(print))``."""

    def __init__(self, count: OpenProgress):
        self._count = count

    def __call__(self, done: int, total: int | None) -> None:
        self._count(done, total)


class FirstReport:
    """An observer that says ``text`` as a stage once, just before the first count (the
    solver compiles during the first chunk: the stage says so until it is done)."""

    def __init__(self, observer: Observer, text: str):
        self._observer, self._pending = observer, [text]

    def __call__(self, done: int, total: int | None) -> None:
        while self._pending:
            self._observer.stage(self._pending.pop())
        self._observer(done, total)

    def stage(self, text: str) -> None:
        self._observer.stage(text)

    def eta(self, seconds: float) -> None:
        self._observer.eta(seconds)


def layer_weights(source: LayerSource, strategies_from: int) -> dict[int, float]:
    """Return the relative cost of a position of each layer, for the ETA: one position
    stored (``STRATEGY_ROW_COST`` with strategies) plus its stage game's entries, as
    the mean rows x columns of the layer's first positions."""
    weights = {}
    for layer in source.layers():
        if not source.size(layer):
            continue
        start, stop = source.chunks(layer, 256)[0]
        rows, cols = source.actions(layer, start, stop)
        entries = float(np.mean((rows >= 0).sum(axis=1) * (cols >= 0).sum(axis=1)))
        row = STRATEGY_ROW_COST if layer >= strategies_from else 1.0
        weights[layer] = row + entries / ENTRIES_PER_ROW
    return weights


class Committer:
    """Commit a build run's chunks as they are solved, counting its progress.

    Small chunks share a transaction (at least ``chunk_size`` positions each); every
    transaction carries the run's latest ``BuildProgress`` for a live ``gamedb info``;
    the observer hears the counts and the ETA after every chunk.
    """

    def __init__(self, writer: Writer, sizes: dict[int, int], chunk_size: int,
                 observer: Observer, weights: dict[int, float] | None = None):
        self.writer, self.sizes, self.chunk_size = writer, sizes, chunk_size
        self.observer = observer
        self.done = writer.done_counts()
        """Positions of each layer stored before this run."""
        self.total, self.finished = sum(sizes.values()), sum(self.done.values())
        self.solved = self.fallbacks = 0
        self.weights = weights or {}
        """Relative cost of a position of each layer (1 where not given)."""
        self._work_left = sum((size - self.done.get(layer, 0)) * self._weight(layer)
                              for layer, size in sizes.items())
        self._work_done = 0.0
        self._clock: tuple[float, float, int] | None = None
        """(time, work, positions) at the first commit: the rate counts from there, as
        the first chunk carries the start-up (compiling the solver: 10-20 s)."""
        self._start = time.perf_counter()
        self._pending: list[Chunk] = []
        self._progress: BuildProgress | None = None

    def commit(self, rows: Chunk, fell_back: int, layer_done: int) -> None:
        """Count ``rows`` (``layer_done``: positions of its layer stored with it) and
        write the pending chunks once they make a transaction."""
        self.solved += rows.size
        self.fallbacks += fell_back
        self._work_done += rows.size * self._weight(rows.layer)
        now = time.perf_counter()
        since, work, solved = self._clock or (self._start, 0.0, 0)
        if self._clock is None:
            self._clock = (now, self._work_done, self.solved)
        elapsed = max(now - since, 1e-9)
        rate = max(self._work_done - work, 1e-9) / elapsed
        eta = max(self._work_left - self._work_done, 0.0) / rate
        self._progress = BuildProgress(rows.layer, layer_done, self.sizes[rows.layer],
                                       round((self.solved - solved) / elapsed, 1), round(eta, 1),
                                       self.finished + self.solved, self.total, time.time())
        self._pending.append(rows)
        if sum(p.size for p in self._pending) >= self.chunk_size:
            self.flush()
        self.observer(self.finished + self.solved, self.total)
        self.observer.eta(eta)

    def _weight(self, layer: int) -> float:
        return self.weights.get(layer, 1.0)

    def flush(self) -> None:
        """Commit the pending rows with the latest progress."""
        if self._pending:
            self.writer.write_chunks(self._pending, self._progress)
            self._pending = []


__all__ = ["Committer", "Counting", "FirstReport", "Observer", "Quiet", "layer_weights"]
