"""The stored equilibrium of a batch of positions, as arrays aligned with their stage games.

``equilibrium_arrays(db, keys, expansion)`` reads the values and both players'
strategies of sorted canonical ``keys`` (row or page layers alike, ``GameDB.rows_of``)
and spreads each strategy over the expansion's action labels: row ``i``, column ``j``
is the probability of ``expansion.row_actions[i, j]`` (``col_actions`` for player 2).
A position stored without strategies (a values-only layer) gets them from the file's
own on-demand solve (``GameDB.probe``), one position at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from gamedb.games.expansion import Expansion
from gamedb.store import GameDB
from gamedb.store.checked import STRATEGY_SUM_ROUNDING
from gamedb.store.codec import decode_batch
from gamedb.store.errors import DamagedFile, NotSolved
from gamedb.types import Floats, Ints, Keys


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """Stored values and strategies of a batch of positions."""

    values: Floats
    """Each position's value, player 1's side, shape (B,)."""
    row: Floats
    """Player 1's strategy over ``row_actions``, shape (B, R)."""
    col: Floats
    """Player 2's strategy over ``col_actions``, shape (B, C)."""


def equilibrium_arrays(db: GameDB, keys: Keys, expansion: Expansion) -> StoredBatch:
    """Return the stored values and strategies of ``keys`` (sorted, distinct, all
    stored) aligned with ``expansion`` (the game's ``expand`` of the same keys)."""
    rows = db.rows_of(keys)
    if len(rows.keys) != len(keys) or (rows.keys != keys).any():
        missing = np.setdiff1d(keys, rows.keys)
        first = int(missing[0])
        why = db.why_missing(db.game.decode(first))
        if why:  # an unfinished build, an opening book: said as ``show`` says it
            raise NotSolved(f"{len(missing):,} positions are not stored in {db.path.name}"
                            f"{why}")
        raise ValueError(f"{len(missing)} positions are not stored in {db.path.name} "
                         f"(key {first})")
    firsts, seconds = list(rows.strategy1), list(rows.strategy2)
    empty = [i for i, (a, b) in enumerate(zip(firsts, seconds)) if not a or not b]
    for i in empty:  # values-only: the file solves these itself
        entry = db.probe(db.game.decode(int(keys[i])))
        firsts[i], seconds[i] = (_text(entry.strategies.get(1, {})),
                                 _text(entry.strategies.get(2, {})))
    try:
        row, col = _spread(firsts, expansion.row_actions), _spread(seconds, expansion.col_actions)
    except ValueError:  # a strategy not JSON, or of an action the position lacks
        _name_the_damage(db, keys)
    if not (_sums_to_one(row) and _sums_to_one(col)):
        _name_the_damage(db, keys)
    return StoredBatch(rows.numbers(), row, col)


def _sums_to_one(strategies: Floats) -> bool:
    return bool((np.abs(strategies.sum(axis=1) - 1.0) <= STRATEGY_SUM_ROUNDING).all())


def _name_the_damage(db: GameDB, keys: Keys) -> NoReturn:
    """Raise the ``DamagedFile`` of the first of ``keys`` whose stored strategies do not
    fit its position (as ``show`` says it: the position, its key, what is wrong)."""
    for key in keys:
        db.probe(db.game.decode(int(key)))  # raises DamagedFile on a damaged row
    raise DamagedFile(db.path, f"a stored strategy of the keys {int(keys[0])}.."
                      f"{int(keys[-1])} does not fit its position")


def _text(strategy: dict[int, float]) -> str:
    return "{" + ",".join(f'"{a}":{p!r}' for a, p in sorted(strategy.items())) + "}"


def _spread(texts: list[str | None], labels: Ints) -> Floats:
    """Place each position's ``{label: prob}`` at the column of its label."""
    sizes, played, probs = decode_batch(texts)
    owner = np.repeat(np.arange(len(texts)), sizes)
    column = np.argmax(labels[owner] == played[:, None], axis=1)
    if len(owner) and not (labels[owner, column] == played).all():
        raise ValueError("a stored strategy plays an action the position does not have")
    out = np.zeros(labels.shape)
    out[owner, column] = probs
    return out


__all__ = ["StoredBatch", "equilibrium_arrays"]
