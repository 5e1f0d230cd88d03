"""Strategies of positions stored without them, solved on demand from the stored values.

A values-only file, or the layers of a build below ``--strategies-from``, keep each
position's value but not its strategies. ``OnDemand`` rebuilds a position's stage game
from its successors' stored values and solves it with the build's own kernel (one small
LP), so the answer is the one a full file stores: the same doubles, the same text.
``gamedb show``, ``probe``, the equilibrium agent and ``gamedb book`` read strategies
through it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import TERMINAL, Game
from gamedb.store.codec import decode, encode
from gamedb.store.errors import NotSolved

#: Values, gaps and both players' strategy texts of solved positions.
Solved = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], list[str], list[str]]
_Strategies = tuple[dict[int, float], dict[int, float]]


class OnDemand:
    """Solve stored positions' stage games from ``stored_values(keys)`` (the stored
    values of sorted, distinct keys; raises ``NotSolved`` for a key not stored)."""

    def __init__(self, game: Game[Any],
                 stored_values: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.float64]]):
        self.game = game
        self._stored_values = stored_values
        # stage solutions per canonical key (many positions share one)
        self._one = functools.lru_cache(maxsize=1 << 14)(self._solved_one)
        self._prefetched: dict[int, _Strategies] = {}

    def solved(self, keys: npt.NDArray[np.int64]) -> Solved:
        """Solve the stage games of sorted ``keys`` of one layer, as the build does (same
        kernel, same labels, same rounding of the stored text): their values, gaps and
        both strategy texts."""
        from gamedb.solver.backward import ValueTable, solve_states  # LP kernels: on demand
        succ = np.unique(self.game.expand(keys).succ)
        succ = succ[succ != TERMINAL]
        table = ValueTable()
        table.add(0, succ, self._stored_values(succ))  # one pseudo-layer, never evicted
        solution = solve_states(self.game, keys, table)
        return (solution.values, solution.gaps,
                encode(solution.row_strategies, solution.expansion.row_actions),
                encode(solution.col_strategies, solution.expansion.col_actions))

    def strategies(self, key: int) -> _Strategies:
        """Both stored players' strategies at the stored position ``key``."""
        return self._prefetched.get(key) or self._one(key)

    def prefetch(self, batches: Sequence[npt.NDArray[np.int64]]) -> None:
        """Solve at once the positions of each batch (keys of one layer, any order), so
        that each page of successor values is decoded once for all of them, not once
        per position (a simulation of 10,000 games asks for 10,000 positions a round).
        Kept until the next call; a batch with a key or successor not stored is left to
        ``strategies`` to report."""
        self._prefetched = {}
        for batch in batches:
            keys = np.unique(batch)
            if len(keys) < 2:
                continue
            try:
                _, _, first, second = self.solved(keys)
            except NotSolved:  # below a book, an unfinished build
                continue
            self._prefetched.update((key, (decode(a), decode(b)))
                                    for key, a, b in zip(keys.tolist(), first, second))

    def _solved_one(self, key: int) -> _Strategies:
        _, _, first, second = self.solved(np.array([key], np.int64))
        return decode(first[0]), decode(second[0])


__all__ = ["OnDemand", "Solved"]
