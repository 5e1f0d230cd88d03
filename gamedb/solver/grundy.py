"""Sprague-Grundy values of impartial games (``Capabilities.impartial``: Nim, Hackenbush).

In an impartial game both players have the same moves, so a position's outcome under
normal play (who cannot move loses) is told by one number, its Grundy value: the
smallest non-negative integer that no move reaches (the *mex* of the successors'
values), 0 where no move is left. The mover wins exactly when it is nonzero, and a sum
of games (Nim's heaps, Hackenbush's separate pictures) has the xor of its parts' values
(Sprague 1935, Grundy 1939).

The values come from the layer face, as the builder's stage games do: a stored key's
moves are the actions of the player on move (the other passes), each leading to a
canonical successor key or to a finished game (value 0). A player swap does not change
a Grundy value, so the canonical keys carry them as they are.

>>> from gamedb.games import load_game
>>> from gamedb.solver.backward import enumerate_layers
>>> game = load_game("nim(heaps=1-2-3)")
>>> values = grundy_values(game, enumerate_layers(game))
>>> values[game.canonical(game.parse_position("heaps=1,2,2")).key]
1
>>> values[game.canonical(game.initial()[0][1]).key]
0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from gamedb.games.base import TERMINAL, Game
from gamedb.types import Keys


def mex(values: Iterable[int]) -> int:
    """Return the smallest non-negative integer not in ``values``.

    >>> mex([0, 1, 3]), mex([]), mex([1, 2])
    (2, 0, 0)
    """
    seen = set(values)
    value = 0
    while value in seen:
        value += 1
    return value


def grundy_layer(game: Game[Any], keys: Keys, known: Mapping[int, int]) -> npt.NDArray[np.int64]:
    """Return the Grundy value of every key of one layer.

    Args:
        game: an impartial game (``game.capabilities.impartial``).
        keys: canonical keys sharing one layer.
        known: the Grundy value of every key of the layers below.

    Raises:
        KeyError: a successor is missing from ``known`` (the layers below are incomplete).
    """
    exp = game.expand(np.asarray(keys, np.int64))
    out = np.zeros(len(keys), np.int64)
    for i in range(len(keys)):
        rows, cols = int(exp.n_rows[i]), int(exp.n_cols[i])
        moves = exp.succ[i, :rows, :cols].reshape(rows * cols, -1)
        out[i] = mex(_move_value(line, known) for line in moves.tolist())
    return out


def _move_value(outcomes: list[int], known: Mapping[int, int]) -> int:
    """The Grundy value a move leads to: its successor's, 0 for a finished game."""
    stored = [key for key in outcomes if key != TERMINAL]
    return known[stored[0]] if stored else 0


def grundy_values(game: Game[Any], layers: Mapping[int, Keys]) -> dict[int, int]:
    """Return the Grundy value of every key of ``layers`` (layer -> keys, every layer
    from the lowest up: the enumeration or a finished file's keys)."""
    known: dict[int, int] = {}
    for layer in sorted(layers):
        keys = layers[layer]
        known.update(zip(np.asarray(keys).tolist(), grundy_layer(game, keys, known).tolist()))
    return known


__all__ = ["grundy_layer", "grundy_values", "mex"]
