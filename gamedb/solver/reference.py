"""Reference path: one matrix game as one LP, solved by SciPy's HiGHS.

About 1 ms per game, so it is only used to check the kernel and to re-solve the few
games whose kernel solution fails verification.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gamedb.solver.solution import MatrixSolution, gap, normalize_strategy

# HiGHS' defaults (1e-7) are looser than the 1e-9 gap the product checks.
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def solve_lp(payoffs: npt.ArrayLike) -> MatrixSolution:
    """Solve a zero-sum matrix game with one HiGHS LP giving both strategies.

    Args:
        payoffs: (m, n) finite payoffs to the row player, who maximises.

    Returns:
        The value, the row player's strategy from the primal, the column player's
        from the duals, and the gap of that pair.

    Raises:
        ValueError: if `payoffs` is not a non-empty finite 2-D array.
        RuntimeError: if HiGHS does not report an optimal solution.

    >>> solution = solve_lp([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    >>> abs(solution.value) < 1e-12, solution.col_strategy.round(6).tolist()
    (True, [0.333333, 0.333333, 0.333333])
    """
    matrix = _as_matrix(payoffs)
    lo, hi = float(matrix.min()), float(matrix.max())
    scale = hi - lo if hi > lo else 1.0
    row_weights, col_weights, scaled_value = _solve_scaled((matrix - lo) / scale)
    row_strategy = normalize_strategy(row_weights)
    col_strategy = normalize_strategy(col_weights)
    return MatrixSolution(
        lo + scale * scaled_value, row_strategy, col_strategy,
        gap(matrix, row_strategy, col_strategy),
    )


# The LP, after OpenSpiel's lp_solver.solve_zero_sum_matrix_game, on the payoffs mapped
# onto [0, 1] (HiGHS' tolerances are absolute), A = (M - lo) / (hi - lo):
#
#     max  v
#     s.t. sum_i x_i A_ij >= v   for every column j    (dual y_j >= 0)
#          sum_i x_i       = 1                         (dual w, free)
#          x >= 0,  v free.
#
# Its dual is the column player's LP, min w s.t. sum_j A_ij y_j <= w for every row i,
# sum_j y_j = 1, y >= 0, so one solve gives both strategies. linprog minimises -v with
# the column constraints written as v - (x A)_j <= 0; HiGHS reports d(-v*)/d b_j as
# ineqlin.marginals, which is -y_j. The value of M is lo + (hi - lo) v*.
def _solve_scaled(
    scaled: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """Return (x, y, v) of the LP above; x and y are exact up to HiGHS' rounding."""
    from scipy.optimize import linprog  # lazy: only fallbacks need it (saves start-up)

    m, n = scaled.shape
    objective = np.zeros(m + 1)
    objective[-1] = -1.0
    result = linprog(
        objective,
        A_ub=np.hstack([-scaled.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.append(np.ones(m), 0.0)[np.newaxis],
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * m + [(None, None)],
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    if result.status != 0:
        raise RuntimeError(f"HiGHS failed on a {m}x{n} game: {result.message}")
    return result.x[:m], -result.ineqlin.marginals, float(result.x[-1])


def _as_matrix(payoffs: npt.ArrayLike) -> npt.NDArray[np.float64]:
    matrix = np.asarray(payoffs, dtype=np.float64)
    if matrix.ndim != 2 or matrix.size == 0:
        raise ValueError(f"payoffs must be a non-empty 2-D array, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("payoffs must be finite")
    return matrix
