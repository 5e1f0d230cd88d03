"""Backward induction over an indexed face (``games.indexed``): flat arrays, no keys.

Layers are solved in the face's order, each in chunks of consecutive indices. A chunk's
stage games come from the *summary* of the layer before (for Goofspiel, its chance
values: a few bytes per position), are solved and verified by ``solve_games`` (the
same compiled kernel, gap check and fallbacks as the generic builder), and the chunk's
part of its own layer's summary is computed at once. Values are handed to the caller
chunk by chunk and never held here: the memory is two layers' summaries plus one chunk
of games, whatever the size of the game.

>>> from gamedb.games import load_game
>>> face = load_game("goofspiel(num_cards=3,returns_type=point_difference)").indexed_face()
>>> [(c.layer, c.start, c.stop) for c in solve_indexed(face)]
[(1, 0, 6), (2, 0, 24), (3, 0, 3)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from gamedb.games.indexed import IndexedFace
from gamedb.types import Floats
from gamedb.solver.matrix_game import BatchSolution, solve_games

#: Positions per chunk: ~20 MB of 8 x 8 games, a few seconds of work.
CHUNK_SIZE = 50_000


@dataclass(frozen=True, slots=True, eq=False)
class SolvedChunk:
    """The solutions of indices start..stop-1 of one layer, and their summary part."""

    layer: int
    start: int
    solution: BatchSolution
    """Values, strategies (in the face's action order), gaps, fallbacks."""
    summary: Floats
    """This chunk's part of the layer's summary (``IndexedFace.summarize``)."""

    @property
    def stop(self) -> int:
        """One past the chunk's last index."""
        return self.start + len(self.solution.values)


def solve_indexed(face: IndexedFace, *, chunk_size: int = CHUNK_SIZE) -> Iterator[SolvedChunk]:
    """Solve every layer of ``face``; yield the chunks in index order, layer by layer.

    Args:
        face: a game's indexed face (``Game.indexed_face()``).
        chunk_size: target positions per chunk (the face cuts at its own boundaries).

    Yields:
        Each chunk once it is solved; the last chunk of the last layer completes the
        summary of the whole game (Goofspiel: the root value).
    """
    below: Floats | None = None
    for layer in face.layers():
        parts = []
        for chunk in solve_layer(face, layer, below, chunk_size=chunk_size):
            parts.append(chunk.summary)
            yield chunk
        below = np.concatenate(parts) if parts else np.zeros(0)


def solve_layer(face: IndexedFace, layer: int, below: Floats | None, *,
                chunk_size: int = CHUNK_SIZE) -> Iterator[SolvedChunk]:
    """Solve one layer from the summary ``below`` of the layer before it."""
    for start, stop in face.chunks(layer, chunk_size):
        yield solve_chunk(face, layer, start, stop, below)


def solve_chunk(face: IndexedFace, layer: int, start: int, stop: int,
                below: Floats | None) -> SolvedChunk:
    """Solve indices start..stop-1 of ``layer`` (one chunk of ``face.chunks``)."""
    payoffs, n_rows, n_cols = face.stage_games(layer, start, stop, below)
    solution = solve_games(payoffs, n_rows, n_cols)
    return SolvedChunk(layer, start, solution,
                       face.summarize(layer, start, stop, solution.values))


def solve_sorted(face: IndexedFace, layer: int, start: int, stop: int,
                 below: Floats | None) -> BatchSolution:
    """Solve positions start..stop-1 of ``layer`` in *key order* (``face.sorted_chunks``);
    the caller adds the values to the layer's summary with ``face.accumulate``."""
    payoffs, n_rows, n_cols = face.sorted_games(layer, start, stop, below)
    return solve_games(payoffs, n_rows, n_cols)


def indexed_values(face: IndexedFace, *, chunk_size: int = CHUNK_SIZE) -> dict[int, Floats]:
    """Return every layer's values in index order (holds the whole game: small games,
    tests and comparisons only)."""
    values: dict[int, list[Floats]] = {}
    for chunk in solve_indexed(face, chunk_size=chunk_size):
        values.setdefault(chunk.layer, []).append(chunk.solution.values)
    return {layer: np.concatenate(parts) for layer, parts in values.items()}


__all__ = ["CHUNK_SIZE", "SolvedChunk", "indexed_values", "solve_chunk", "solve_indexed",
           "solve_layer", "solve_sorted"]
