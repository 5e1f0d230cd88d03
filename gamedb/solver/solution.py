"""The solution of one matrix game, its exploitability gap, and strategy clean-up.

These live apart from `matrix_game` so that the reference and exact solvers can build
`MatrixSolution` objects without importing the module that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

_GRID = 2.0**52  # same grid as the kernel's _normalize


@dataclass(frozen=True, slots=True, eq=False)
class MatrixSolution:
    """An equilibrium of a zero-sum matrix game, from the row player's point of view.

    Equality is identity (`eq=False`): the fields hold arrays, which do not compare
    to a single bool.
    """

    value: float
    """Value of the game to the row player (who maximises)."""
    row_strategy: npt.NDArray[np.float64]
    """Row player's mixed strategy: >= 0, sums to 1."""
    col_strategy: npt.NDArray[np.float64]
    """Column player's mixed strategy: >= 0, sums to 1."""
    gap: float
    """max_i (M y)_i - min_j (x M)_j: 0 at an exact equilibrium, >= 0 up to rounding."""


def gap(
    payoffs: npt.ArrayLike, row_strategy: npt.ArrayLike, col_strategy: npt.ArrayLike
) -> float:
    """Return the exploitability gap max_i (M y)_i - min_j (x M)_j of a strategy pair.

    It is the sum of what the two players gain by a best reply to the other's
    strategy, so it is 0 exactly at an equilibrium.

    Args:
        payoffs: (m, n) payoffs to the row player.
        row_strategy: (m,) mixed strategy x of the row player.
        col_strategy: (n,) mixed strategy y of the column player.

    Returns:
        The gap, >= 0 up to rounding for any pair of mixed strategies.

    >>> gap([[1.0, -1.0], [-1.0, 1.0]], [0.5, 0.5], [1.0, 0.0])
    1.0
    """
    matrix = np.asarray(payoffs, dtype=np.float64)
    best_reply_row = np.max(matrix @ np.asarray(col_strategy, dtype=np.float64))
    best_reply_col = np.min(np.asarray(row_strategy, dtype=np.float64) @ matrix)
    return float(best_reply_row - best_reply_col)


def normalize_strategy(probabilities: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Clip at 0 and rescale to a distribution that sums to exactly 1.0.

    Entries are rounded to multiples of 2**-52 and the largest one is set to 1 minus
    the rest, so every summation order gives exactly 1.0 (partial sums are exact).

    Args:
        probabilities: nonnegative weights, up to rounding, with a positive sum.

    Returns:
        A new float64 array.

    Raises:
        ValueError: if nothing positive is left after clipping.

    >>> normalize_strategy([1.0, 3.0, -1e-17]).tolist()
    [0.25, 0.75, 0.0]
    """
    weights = np.asarray(probabilities, dtype=np.float64)
    weights = np.where(weights > 0.0, weights, 0.0)  # also drops NaN
    total = weights.sum()
    if not total > 0.0:
        raise ValueError("a strategy needs a positive total weight")
    strategy: npt.NDArray[np.float64] = np.rint(weights / total * _GRID) / _GRID
    largest = int(np.argmax(strategy))
    strategy[largest] = 0.0
    strategy[largest] = 1.0 - strategy.sum()
    return strategy
