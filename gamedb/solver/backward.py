"""Backward induction over layers, game-agnostic: it only calls the layer face.

``enumerate_layers`` walks forward from the start to find every reachable canonical key;
``solve_states`` builds the stage matrices of a batch from the solved values of lower
layers (``ValueTable``) and solves them all in one kernel call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import TERMINAL, Expansion, Game, root_of
from gamedb.types import Keys
from gamedb.solver.hashing import KeyIndex, unique_keys
from gamedb.solver.matrix_game import solve_games

#: Upper bound on successor entries (B x R x C x K) expanded at once (~16 B each).
MAX_ENTRIES = 2_000_000


class ValueTable:
    """Solved values of whole layers: sorted keys, looked up through a hash index."""

    def __init__(self) -> None:
        self.keys: Keys = np.empty(0, np.int64)
        self.values: npt.NDArray[np.float64] = np.empty(0, np.float64)
        self.layers: dict[int, int] = {}
        self._index: KeyIndex | None = None

    def add(self, layer: int, keys: Keys, values: npt.NDArray[np.float64]) -> None:
        """Add one layer's keys and values."""
        keys = np.concatenate([self.keys, keys])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.values = np.concatenate([self.values, values])[order]
        self.layers[layer] = len(values)
        self._index = None

    def keep(self, game: Game[Any], layers: set[int]) -> None:
        """Forget every layer not in ``layers`` (bounded memory over long builds)."""
        if set(self.layers) <= layers:
            return
        mask = np.isin(game.layer_of(self.keys), list(layers))
        self.keys, self.values = self.keys[mask], self.values[mask]
        self.layers = {k: v for k, v in self.layers.items() if k in layers}
        self._index = None

    def _ready_index(self) -> KeyIndex:
        if self._index is None:
            self._index = KeyIndex(self.keys)
        return self._index

    def weighted_sums(self, succ: Keys, weight: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Return ``sum_k weight * (value of succ, or 1 for TERMINAL)`` over the last axis."""
        shape = succ.shape
        if succ.size == 0:
            return np.zeros(shape[:-1], np.float64)
        sums, missing = self._ready_index().weighted_sums(
            self.values, succ.reshape(-1, shape[-1]), weight.reshape(-1, shape[-1]))
        if missing >= 0:
            raise LookupError(f"successor keys not solved yet: [{succ.ravel()[missing]}]")
        return sums.reshape(shape[:-1])

    def lookup(self, keys: Keys) -> npt.NDArray[np.float64]:
        """Return the values of ``keys`` (all must be present)."""
        if len(keys) == 0:
            return np.empty(0, np.float64)
        pos = self._ready_index().find(keys)
        if (pos < 0).any():
            raise LookupError(f"successor keys not solved yet: {keys[pos < 0][:5].tolist()}")
        return self.values[pos]


@dataclass(frozen=True, slots=True)
class SolvedStates:
    """Solutions of a batch of states, with their action labels."""

    expansion: Expansion
    values: npt.NDArray[np.float64]
    gaps: npt.NDArray[np.float64]
    row_strategies: npt.NDArray[np.float64]
    col_strategies: npt.NDArray[np.float64]
    fallbacks: int


def batches(keys: Keys, per_state: int, limit: int | None = None) -> list[Keys]:
    """Split ``keys`` so that each batch expands to at most ``limit`` entries."""
    size = max(1, (limit or MAX_ENTRIES) // max(1, per_state))
    return [keys[i:i + size] for i in range(0, len(keys), size)]


def stage_matrices(expansion: Expansion, table: ValueTable) -> npt.NDArray[np.float64]:
    """Return the stage games ``M[i, a, b]`` of an expansion (see ``Expansion``)."""
    return table.weighted_sums(expansion.succ, expansion.weight)


def solve_states(game: Game[Any], keys: Keys, table: ValueTable) -> SolvedStates:
    """Solve the stage games of ``keys`` (one layer) given the values of lower layers."""
    expansion = game.expand(keys)
    payoffs = stage_matrices(expansion, table)
    solution = solve_games(payoffs, expansion.n_rows, expansion.n_cols)
    return SolvedStates(expansion, solution.values, solution.gaps, solution.row_strategies,
                        solution.col_strategies, solution.fallbacks)


def enumerate_layers(game: Game[Any],
                     map_batches: Callable[[list[Keys]], Iterable[Keys]] | None = None,
                     ) -> dict[int, Keys]:
    """Return every reachable canonical key, grouped by layer (sorted arrays).

    A forward pass: the unique successors of a layer's states join lower layers, and a
    layer is complete once every higher layer has been expanded (layers strictly
    decrease along every move). ``map_batches`` maps a list of key batches to their
    ``distinct_successors`` (in any order): the builder passes a process pool's.
    """
    if map_batches is None:
        map_batches = functools.partial(map, functools.partial(distinct_successors, game))
    root = root_of(game).keys
    pending: dict[int, list[Keys]] = {}
    _file(game, unique_keys(root), pending)
    found: dict[int, Keys] = {}
    while pending:
        layer = max(pending)
        keys = unique_keys(np.concatenate(pending.pop(layer)))
        found[layer] = keys
        probe = game.expand(keys[:1])
        for distinct in map_batches(batches(keys, int(np.prod(probe.succ.shape[1:])))):
            _file(game, distinct, pending)
    return found


def distinct_successors(game: Game[Any], keys: Keys) -> Keys:
    """Return the distinct canonical successor keys of ``keys`` (sorted)."""
    succ = game.expand(keys).succ
    return unique_keys(succ[succ != TERMINAL])


def _file(game: Game[Any], keys: Keys, pending: dict[int, list[Keys]]) -> None:
    """File sorted ``keys`` under their layers: every key holds its layer in its high
    bits (``LAYER_SHIFT``), so each layer is a run of the sorted keys."""
    if len(keys) == 0:
        return
    layer_of = game.layer_of(keys)
    starts = [0, *(np.flatnonzero(layer_of[1:] != layer_of[:-1]) + 1).tolist()]
    for start, end in zip(starts, [*starts[1:], len(keys)]):
        pending.setdefault(int(layer_of[start]), []).append(keys[start:end])
