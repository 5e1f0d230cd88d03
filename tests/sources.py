"""Solve a layer source in memory, as the builder does but without a file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gamedb.builder.runner import solved_in_memory
from gamedb.builder.sources import EnumeratingSource
from gamedb.games import load_game
from gamedb.games.source import LayerSource
from gamedb.solver.backward import enumerate_layers


@dataclass
class Layer:
    """One layer of a source, solved: every array in key order."""

    keys: np.ndarray
    values: np.ndarray
    row_actions: np.ndarray
    col_actions: np.ndarray
    row_strategies: np.ndarray
    col_strategies: np.ndarray
    summary: np.ndarray


def enumerating(spec: str) -> EnumeratingSource:
    """The reference source of ``spec``: its keys enumerated."""
    game = load_game(spec)
    return EnumeratingSource(game, enumerate_layers(game))


def indexed(spec: str) -> Any:
    """The game's own index (``Game.indexed_face``); fails if it has none."""
    source = load_game(spec).indexed_face()
    assert source is not None, spec
    return source


def solve_source(source: LayerSource, target: int = 300) -> dict[int, Layer]:
    """Every layer of ``source`` solved in chunks of about ``target`` positions
    (``build.runner.solved_in_memory``), with keys and action labels."""
    parts: dict[int, list[tuple[np.ndarray, ...]]] = {}
    summaries: dict[int, np.ndarray] = {}
    for part in solved_in_memory(source, target):
        rows, cols = source.actions(part.layer, part.start, part.stop)
        parts.setdefault(part.layer, []).append((
            source.keys(part.layer, part.start, part.stop), part.solution.values, rows, cols,
            part.solution.row_strategies, part.solution.col_strategies))
        summaries[part.layer] = part.summary
    return {layer: Layer(*(_joined(p) for p in zip(*layer_parts)), summaries[layer])
            for layer, layer_parts in parts.items()}


def _joined(arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """Concatenate along the first axis, padding the second (actions) with -1 or 0."""
    if arrays[0].ndim == 1:
        return np.concatenate(arrays)
    width = max(a.shape[1] for a in arrays)
    fill = -1 if arrays[0].dtype.kind == "i" else 0
    return np.concatenate([np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=fill)
                           for a in arrays])
