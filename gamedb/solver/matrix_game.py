"""Verified solutions of zero-sum matrix games, one at a time or in batches.

Every game goes through the compiled kernel first. Each solution is then checked:
its gap max_i (M y)_i - min_j (x M)_j must be at most `tolerance` times
max(1, payoff range). A game that fails is re-solved by HiGHS (`solve_lp`) and, if
that fails too, in exact rational arithmetic (`solve_exact`), since floating-point
LPs are known to fail on these degenerate games.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gamedb.jit import njit
from gamedb.solver.exact import solve_exact
from gamedb.solver.kernel import game_gap, solve_checked
from gamedb.solver.reference import solve_lp
from gamedb.solver.solution import MatrixSolution, gap
from gamedb.types import Floats, Ints

__all__ = ["TOLERANCE", "BatchSolution", "MatrixSolution", "batch_gaps", "gap",
           "solve_games", "solve_matrix_game"]

TOLERANCE = 1e-9
"""Largest accepted gap, relative to max(1, payoff range of the game)."""




@dataclass(frozen=True, slots=True, eq=False)
class BatchSolution:
    """Verified solutions of a batch of padded matrix games (zeros in the padding)."""

    values: Floats
    """(B,) values to the row player."""
    row_strategies: Floats
    """(B, R) row players' strategies."""
    col_strategies: Floats
    """(B, C) column players' strategies."""
    gaps: Floats
    """(B,) gap of each final solution (see `gap`)."""
    fallbacks: int
    """How many games failed the kernel's check and went to the reference LP."""
    exact: int
    """How many of those also failed HiGHS' check and were solved in rationals."""


def solve_matrix_game(payoffs: npt.ArrayLike) -> MatrixSolution:
    """Solve one zero-sum matrix game (payoffs to the row player, who maximises).

    Args:
        payoffs: (m, n) finite payoffs, m, n >= 1.

    Returns:
        The value and an equilibrium, verified like every game of `solve_games`.

    Raises:
        ValueError: if `payoffs` is not a non-empty finite 2-D array.

    >>> solution = solve_matrix_game([[1.0, -1.0], [-1.0, 1.0]])  # matching pennies
    >>> solution.value, solution.row_strategy.tolist(), solution.col_strategy.tolist()
    (0.0, [0.5, 0.5], [0.5, 0.5])
    """
    matrix = np.asarray(payoffs, dtype=np.float64)
    if matrix.ndim != 2 or matrix.size == 0:
        raise ValueError(f"payoffs must be a non-empty 2-D array, got shape {matrix.shape}")
    m, n = matrix.shape
    batch = solve_games(matrix[np.newaxis], np.array([m]), np.array([n]))
    return MatrixSolution(
        float(batch.values[0]), batch.row_strategies[0], batch.col_strategies[0],
        float(batch.gaps[0]),
    )


def solve_games(
    payoffs: npt.ArrayLike,
    n_rows: npt.ArrayLike,
    n_cols: npt.ArrayLike,
    *,
    tolerance: float = TOLERANCE,
) -> BatchSolution:
    """Solve and verify a batch of padded zero-sum matrix games.

    Args:
        payoffs: (B, R, C) payoffs to the row player; only
            `payoffs[k, :n_rows[k], :n_cols[k]]` is read, the padding may hold anything.
        n_rows: (B,) integer row counts in [1, R].
        n_cols: (B,) integer column counts in [1, C].
        tolerance: largest accepted gap, relative to max(1, payoff range).

    Returns:
        Values, strategies (zeros in the padding), gaps and fallback counts.

    Raises:
        ValueError: if the shapes are inconsistent or a game has a non-finite payoff.
    """
    matrices = np.ascontiguousarray(payoffs, dtype=np.float64)
    rows, cols = np.asarray(n_rows, dtype=np.int64), np.asarray(n_cols, dtype=np.int64)
    values, row_strategies, col_strategies, gaps, ranges = solve_checked(matrices, rows, cols)
    bad = np.flatnonzero(~np.isfinite(ranges))
    if bad.size:
        raise ValueError(f"game {bad[0]} has a non-finite payoff or payoff range")
    limits = tolerance * np.maximum(1.0, ranges)
    # NaN gaps fail too, and so does a game the kernel gave up on (value NaN, strategies
    # zero: their gap is 0)
    failed = np.flatnonzero(~(gaps <= limits) | ~np.isfinite(values))
    batch = BatchSolution(values, row_strategies, col_strategies, gaps, len(failed), 0)
    exact = 0
    for k in failed:
        solution, used_exact = _fallback(matrices[k, : rows[k], : cols[k]], limits[k])
        _store(batch, int(k), solution)
        exact += used_exact
    return dataclasses.replace(batch, exact=exact)


def batch_gaps(
    payoffs: Floats,
    n_rows: npt.NDArray[np.int64],
    n_cols: npt.NDArray[np.int64],
    row_strategies: Floats,
    col_strategies: Floats,
) -> tuple[Floats, Floats]:
    """Return the gap and the payoff range of every game of a padded batch.

    Compiled, over each game's own corner: the padding is never read, so garbage
    there cannot leak in. The gap is `kernel.game_gap`'s, so `solve_games` checks the
    kernel's solutions with the same doubles. ``_gaps_of_chunk`` is the NumPy reference.

    Args:
        payoffs: (B, R, C) padded payoffs.
        n_rows: (B,) row counts.
        n_cols: (B,) column counts.
        row_strategies: (B, R) strategies, zero in the padding.
        col_strategies: (B, C) strategies, zero in the padding.

    Returns:
        (gaps, ranges), both (B,). A range is NaN or inf if the game has a non-finite
        payoff.
    """
    gaps: Floats
    ranges: Floats
    gaps, ranges = _compiled_gaps(np.ascontiguousarray(payoffs, dtype=np.float64),
                                  np.asarray(n_rows, dtype=np.int64),
                                  np.asarray(n_cols, dtype=np.int64),
                                  np.ascontiguousarray(row_strategies, dtype=np.float64),
                                  np.ascontiguousarray(col_strategies, dtype=np.float64))
    return gaps, ranges


def _gaps_of_chunk(
    payoffs: Floats,
    n_rows: npt.NDArray[np.int64],
    n_cols: npt.NDArray[np.int64],
    row_strategies: Floats,
    col_strategies: Floats,
) -> tuple[Floats, Floats]:
    """Reference version of ``_compiled_gaps`` in NumPy (tests compare the two)."""
    _, max_rows, max_cols = payoffs.shape
    row_mask = np.arange(max_rows) < n_rows[:, np.newaxis]  # (b, R)
    col_mask = np.arange(max_cols) < n_cols[:, np.newaxis]  # (b, C)
    matrices = payoffs
    if not (row_mask.all() and col_mask.all()):
        # Overwrite the padding with each game's own first payoff: it then changes
        # neither the range nor, being multiplied by zero probabilities, M y and x M.
        mask = row_mask[:, :, np.newaxis] & col_mask[:, np.newaxis, :]
        matrices = np.where(mask, payoffs, payoffs[:, :1, :1])
    row_payoffs = np.matmul(matrices, col_strategies[:, :, np.newaxis])[:, :, 0]  # M y
    col_payoffs = np.matmul(row_strategies[:, np.newaxis, :], matrices)[:, 0, :]  # x M
    best_row = np.where(row_mask, row_payoffs, -np.inf).max(axis=1)
    best_col = np.where(col_mask, col_payoffs, np.inf).min(axis=1)
    ranges = matrices.max(axis=(1, 2)) - matrices.min(axis=(1, 2))
    return best_row - best_col, ranges


@njit(cache=True)
def _compiled_gaps(payoffs: Floats, n_rows: Ints, n_cols: Ints, row_strategies: Floats,
                   col_strategies: Floats) -> tuple[Floats, Floats]:  # pragma: no cover
    """Gap ``max_i (M y)_i - min_j (x M)_j`` and payoff range of each game, reading only
    its ``n_rows x n_cols`` corner; the range is NaN if a payoff is not finite."""
    batch = payoffs.shape[0]
    gaps, ranges = np.empty(batch), np.empty(batch)
    for k in range(batch):
        m, n = n_rows[k], n_cols[k]
        low, high, finite = np.inf, -np.inf, True
        for i in range(m):
            for j in range(n):
                v = payoffs[k, i, j]
                finite = finite and np.isfinite(v)
                low, high = min(low, v), max(high, v)
        gaps[k] = game_gap(payoffs[k], m, n, row_strategies[k], col_strategies[k]) \
            if finite else np.nan
        ranges[k] = high - low if finite else np.nan
    return gaps, ranges


def _fallback(matrix: Floats, limit: float) -> tuple[MatrixSolution, bool]:
    """Re-solve a game with HiGHS, else exactly; return it and whether exact was used."""
    try:
        solution = solve_lp(matrix)
    except RuntimeError:
        pass  # HiGHS gave up: the exact solver cannot
    else:
        if solution.gap <= limit:
            return solution, False
    return solve_exact(matrix).to_matrix_solution(), True


def _store(batch: BatchSolution, k: int, solution: MatrixSolution) -> None:
    m, n = len(solution.row_strategy), len(solution.col_strategy)
    batch.values[k], batch.gaps[k] = solution.value, solution.gap
    batch.row_strategies[k], batch.col_strategies[k] = 0.0, 0.0
    batch.row_strategies[k, :m] = solution.row_strategy
    batch.col_strategies[k, :n] = solution.col_strategy
