"""Zero-sum matrix games: a batched compiled kernel, verified, with HiGHS and exact fallbacks.

>>> from gamedb.solver import solve_matrix_game
>>> solve_matrix_game([[1.0, 2.0], [0.0, 3.0]]).value  # a pure saddle point
1.0
"""

from __future__ import annotations

from gamedb.solver.exact import ExactSolution, solve_exact
from gamedb.solver.kernel import solve_batch
from gamedb.solver.matrix_game import (
    TOLERANCE,
    BatchSolution,
    MatrixSolution,
    gap,
    solve_games,
    solve_matrix_game,
)
from gamedb.solver.reference import solve_lp

__all__ = [
    "TOLERANCE",
    "BatchSolution",
    "ExactSolution",
    "MatrixSolution",
    "gap",
    "solve_batch",
    "solve_exact",
    "solve_games",
    "solve_lp",
    "solve_matrix_game",
]
