"""The layer source of every game without its own index: enumerated keys, ``expand``.

``EnumeratingSource`` holds every reachable canonical key of the game, layer by layer
(sorted), found by a forward walk (``solver.backward.enumerate_layers``; a layer of
several batches is expanded by the build's workers). A layer's summary is its values in
key order, and its stage games are the game's ``expand`` of a range of keys weighed
with the values of the layers below (a ``ValueTable``). It is the reference the indexed
sources (``Game.indexed_face``) are tested against: the same keys, the same stage games,
the same doubles.

>>> from gamedb.games import load_game
>>> source = enumerated(load_game("jujitsu(num_cards=4)"))
>>> [(layer, source.size(layer)) for layer in source.layers()]
[(1, 9), (2, 15), (3, 7), (4, 1)]
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from gamedb.builder.cluster import Executor, Local, Pool
from gamedb.games.base import Game
from gamedb.solver.backward import (
    ValueTable, batches, distinct_successors, enumerate_layers, stage_matrices,
)
from gamedb.types import Floats, Ints, Keys


class EnumeratingSource:
    """A game's layers as enumerated keys (``games.source.LayerSource``)."""

    def __init__(self, game: Game[Any], keys: Mapping[int, Keys]):
        self.game = game
        self._keys = dict(keys)
        self._labels: tuple[tuple[int, int, int], Ints, Ints] | None = None
        """The action labels of the last range ``games`` expanded (``actions`` asks for
        the same range next: one expansion serves both)."""
        costs = game.capabilities.build_costs
        self.strategy_disk = round(costs.disk) if costs is not None else 0

    def table_bytes(self) -> int:
        """The enumerated keys (8 bytes each)."""
        return sum(keys.nbytes for keys in self._keys.values())

    def layers(self) -> Sequence[int]:
        """Every layer, the lowest first."""
        return sorted(self._keys)

    def size(self, layer: int) -> int:
        return len(self._keys[layer])

    def needs(self, layer: int) -> Sequence[int]:
        """The lower layers a move from ``layer`` may reach (``Game.layer_span``)."""
        span = self.game.layer_span
        return [lower for lower in self.layers()
                if lower < layer and (span is None or lower >= layer - span)]

    def below(self, layer: int, summaries: Mapping[int, Floats]) -> ValueTable:
        """The values of the layers ``layer`` reaches, looked up by key."""
        table = ValueTable()
        for lower in self.needs(layer):
            table.add(lower, self._keys[lower], summaries[lower])
        return table

    def summary_size(self, layer: int) -> int:
        """A layer's summary is its values."""
        return self.size(layer)

    def chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        size, step = self.size(layer), max(1, target)
        return [(start, min(start + step, size)) for start in range(0, size, step)]

    def keys(self, layer: int, start: int, stop: int) -> Keys:
        return self._keys[layer][start:stop]

    def actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        if self._labels is not None and self._labels[0] == (layer, start, stop):
            return self._labels[1], self._labels[2]
        expansion = self.game.expand(self.keys(layer, start, stop))
        return expansion.row_actions, expansion.col_actions

    def games(self, layer: int, start: int, stop: int,
              below: ValueTable) -> tuple[Floats, Ints, Ints]:
        """Expand the keys in batches of bounded size (``solver.backward.MAX_ENTRIES``)
        and pad their stage games to one width."""
        keys = self.keys(layer, start, stop)
        per_state = int(np.prod(self.game.expand(keys[:1]).succ.shape[1:]))
        parts = [self.game.expand(batch) for batch in batches(keys, per_state)]
        rows = max(p.succ.shape[1] for p in parts)
        cols = max(p.succ.shape[2] for p in parts)
        payoffs = np.zeros((len(keys), rows, cols))
        row_actions = np.full((len(keys), rows), -1, np.int64)
        col_actions = np.full((len(keys), cols), -1, np.int64)
        at = 0
        for part in parts:
            b, r, c = part.succ.shape[:3]
            payoffs[at:at + b, :r, :c] = stage_matrices(part, below)
            row_actions[at:at + b, :r] = part.row_actions
            col_actions[at:at + b, :c] = part.col_actions
            at += b
        self._labels = ((layer, start, stop), row_actions, col_actions)
        return (payoffs, np.concatenate([p.n_rows for p in parts]),
                np.concatenate([p.n_cols for p in parts]))

    def accumulate(self, layer: int, start: int, stop: int, values: Floats,
                   summary: Floats) -> None:
        summary[start:stop] = values

    def key_factors(self, layer: int) -> None:
        """None: enumerated keys are no product."""
        return None


def enumerated(game: Game[Any], workers: int | Executor = 1) -> EnumeratingSource:
    """Enumerate ``game``'s keys; a layer of several batches is expanded by ``workers``
    processes or on a cluster (started at the first such layer: small games never fork)."""
    run_on = Local(workers) if isinstance(workers, int) else workers
    if not run_on.parallel:
        return EnumeratingSource(game, enumerate_layers(game))
    successors = functools.partial(distinct_successors, game)
    pools: list[Pool[Keys, Keys]] = []

    def map_batches(parts: list[Keys]) -> Iterator[Keys]:
        if len(parts) <= 1:
            return map(successors, parts)
        if not pools:
            pools.append(run_on.pool(successors))
        return pools[0].imap(parts)

    try:
        return EnumeratingSource(game, enumerate_layers(game, map_batches))
    finally:
        for pool in pools:
            pool.stop()


__all__ = ["EnumeratingSource", "enumerated"]
