"""The indexed face of a game: a perfect index per layer, stage games from flat arrays.

Some families can number the canonical positions of each layer 0..N-1 (a rank
function, the tablebase way) and build the stage games of any index range from a small
*summary* of the layer solved before it (point-difference Goofspiel: the values of the
chance nodes of the layer below, ``games.goofspiel.index``). The solver
(``gamedb.solver.indexed``) then holds no keys and no hash table, only one layer's
summary and one chunk of games: its memory is bounded by the working set, not by the
game. A family offers the face through ``Game.indexed_face()`` (None by default: the
builder enumerates keys and solves through ``expand``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from gamedb.types import Floats, Ints



class IndexedFace(Protocol):
    """Contracts of an indexed face (``tests/games/test_goofspiel_index.py`` checks
    Goofspiel's against the keys and values of the generic builder)."""

    strategy_disk: int
    """Bytes of a row's two strategy texts in a finished file (``gamedb.estimate``)."""

    def table_bytes(self) -> int:
        """Return the bytes of the face's own tables that a build holds besides two
        layers' summaries (``gamedb.estimate``; forked workers share them)."""
        ...

    def layers(self) -> Sequence[int]:
        """Return the layers in solving order; each reads only the summary of the
        layer before it in this order (the first reads none)."""
        ...

    def size(self, layer: int) -> int:
        """Return N, the number of canonical positions of ``layer`` (indices 0..N-1)."""
        ...

    def chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        """Split 0..N-1 into consecutive index ranges [start, stop) of about ``target``
        positions whose summaries are complete on their own; the ranges depend only on
        the game, ``layer`` and ``target`` (a resumed build cuts the same chunks)."""
        ...

    def keys(self, layer: int, start: int, stop: int) -> Ints:
        """Return the canonical keys of indices start..stop-1 (unrank)."""
        ...

    def rank(self, layer: int, keys: Ints) -> Ints:
        """Return the index of each canonical key of ``layer`` (inverse of ``keys``)."""
        ...

    def actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the stored action labels (B, R) and (B, C) of indices start..stop-1,
        in the order of the stage games' rows and columns (-1 in the padding), as
        ``Expansion.row_actions`` and ``col_actions`` label the generic builder's."""
        ...

    def stage_games(self, layer: int, start: int, stop: int,
                    below: Floats | None) -> tuple[Floats, Ints, Ints]:
        """Return the padded stage games (payoffs, n_rows, n_cols) of indices
        start..stop-1, from ``below``, the summary of the previous layer."""
        ...

    def summarize(self, layer: int, start: int, stop: int, values: Floats) -> Floats:
        """Return the part of ``layer``'s summary that the chunk's ``values`` determine;
        the parts of a layer's chunks, concatenated in order, are its summary."""
        ...

    # Key order: the same positions in increasing key, for a writer that appends.

    def summary_size(self, layer: int) -> int:
        """Return the number of entries of ``layer``'s summary."""
        ...

    def sorted_chunks(self, layer: int, target: int) -> list[tuple[int, int]]:
        """Split the layer's positions *in key order* (0 = the smallest key) into ranges
        of about ``target`` whose stage games can be built on their own; the ranges
        depend only on the game, ``layer`` and ``target``, and every range start of one
        target's cut is a valid start for any other's (whole blocks)."""
        ...

    def sorted_keys(self, layer: int, start: int, stop: int) -> Ints:
        """Return the keys of positions start..stop-1 in key order (increasing)."""
        ...

    def sorted_actions(self, layer: int, start: int, stop: int) -> tuple[Ints, Ints]:
        """Return the action labels of positions start..stop-1 in key order."""
        ...

    def sorted_games(self, layer: int, start: int, stop: int,
                     below: Floats | None) -> tuple[Floats, Ints, Ints]:
        """Return the stage games of positions start..stop-1 in key order."""
        ...

    def key_factors(self, layer: int) -> tuple[Ints, Ints, int] | None:
        """Return (heads, tails, tail_bits) when the layer's keys, in key order, are every
        ``head | tail`` of the sorted ``heads`` and ``tails`` (tails below
        ``2**tail_bits``, runs of ``len(tails)`` whole blocks of ``sorted_chunks``), so
        that the layer can be stored as pages (``gamedb.store.pages``); None if not."""
        ...

    def accumulate(self, layer: int, start: int, stop: int, values: Floats,
                   summary: Floats) -> None:
        """Add the values of positions start..stop-1 in key order to ``summary`` (zeros
        of ``summary_size`` at first); after all of the layer's ranges, in order, it is
        the layer's summary, equal to the concatenated ``summarize`` parts."""
        ...


#: Default first layer with stored strategies in games of more than ``SMALL_GAME``
#: layers (13-card Goofspiel: 1.9 M positions with 11 or more cards in hand, ~0.7 GB of
#: JSON; all of layer 10 would add ~17 GB): the others are stored values only.
BIG_STRATEGIES_FROM = 11
#: Games of at most this many layers store every strategy by default.
SMALL_GAME = 10


def strategy_split(face: IndexedFace | None, strategies_from: int | None) -> int:
    """Return the first layer that stores strategies, 0 for every layer.

    ``strategies_from`` None picks the default: every layer, except for an indexed face
    of more than ``SMALL_GAME`` layers, ``BIG_STRATEGIES_FROM`` and up. A split at or
    below the lowest layer is none (0).
    """
    layers = list(face.layers()) if face is not None else [1]
    if strategies_from is None:
        big = face is not None and len(layers) > SMALL_GAME
        strategies_from = BIG_STRATEGIES_FROM if big else 0
    return strategies_from if strategies_from > min(layers) else 0


def first_rich_layer(face: IndexedFace | None, split: int, values_only: bool) -> int:
    """Return the first layer that stores strategies: ``split`` (``strategy_split``),
    or past the top layer in a values-only build of a face."""
    return max(face.layers()) + 1 if values_only and face is not None else split


__all__ = ["BIG_STRATEGIES_FROM", "SMALL_GAME", "IndexedFace", "first_rich_layer",
           "strategy_split"]
