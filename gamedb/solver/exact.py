"""Last-resort path: a matrix game solved in exact rational arithmetic.

Floating-point LPs are known to fail on the degenerate stage games of these products;
this solver cannot, since it pivots on `fractions.Fraction` with Bland's rule. It is
slow (milliseconds for a 6x6 game) and only runs on games that both the kernel and
HiGHS got wrong. The LP is the kernel's: with the shift M' = M - min(M) + 1 > 0,

    max 1.w  s.t.  M' w <= 1, w >= 0      (dual: min 1.u  s.t.  u M' >= 1, u >= 0)

and with z = 1.w = 1.u at the optimum, y = w / z, x = u / z, value = 1/z + min(M) - 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from gamedb.solver.solution import MatrixSolution, gap, normalize_strategy

_Tableau = list[list[Fraction]]


@dataclass(frozen=True, slots=True)
class ExactSolution:
    """An exact equilibrium of a zero-sum matrix game, from the row player's side."""

    value: Fraction
    """Exact value of the game to the row player (who maximises)."""
    row_strategy: tuple[Fraction, ...]
    """Row player's mixed strategy: >= 0, sums to exactly 1."""
    col_strategy: tuple[Fraction, ...]
    """Column player's mixed strategy: >= 0, sums to exactly 1."""
    payoffs: tuple[tuple[Fraction, ...], ...]
    """The game, exactly as it was solved."""

    def to_matrix_solution(self) -> MatrixSolution:
        """Round to floats: a `MatrixSolution` with its floating-point gap."""
        matrix = np.array([[float(a) for a in row] for row in self.payoffs])
        row_strategy = normalize_strategy([float(p) for p in self.row_strategy])
        col_strategy = normalize_strategy([float(p) for p in self.col_strategy])
        return MatrixSolution(
            float(self.value), row_strategy, col_strategy,
            gap(matrix, row_strategy, col_strategy),
        )


def solve_exact(payoffs: npt.ArrayLike | Sequence[Sequence[Rational]]) -> ExactSolution:
    """Solve a zero-sum matrix game exactly with a rational simplex (Bland's rule).

    Args:
        payoffs: (m, n) payoffs to the row player: a float array (each float is
            converted exactly, as `Fraction(float)` does) or nested sequences of
            ints, Fractions or floats.

    Returns:
        The exact value and strategies.

    Raises:
        ValueError: if `payoffs` is empty, ragged or holds a non-finite float.

    >>> solution = solve_exact([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    >>> solution.value, solution.row_strategy
    (Fraction(0, 1), (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)))
    """
    matrix = _as_fractions(payoffs)
    m, n = len(matrix), len(matrix[0])
    shift = 1 - min(min(row) for row in matrix)
    tableau = [[a + shift for a in row] + [Fraction(1)] for row in matrix]
    tableau.append([Fraction(-1)] * n + [Fraction(0)])
    basic, nonbasic = list(range(n, n + m)), list(range(n))
    _run_bland(tableau, basic, nonbasic)
    z = tableau[m][n]
    w, u = [Fraction(0)] * n, [Fraction(0)] * m
    for i, label in enumerate(basic):
        if label < n:
            w[label] = tableau[i][n]
    for j, label in enumerate(nonbasic):
        if label >= n:
            u[label - n] = tableau[m][j]
    return ExactSolution(
        value=1 / z - shift,
        row_strategy=tuple(p / z for p in u),
        col_strategy=tuple(p / z for p in w),
        payoffs=tuple(tuple(row) for row in matrix),
    )


def _as_fractions(payoffs: npt.ArrayLike | Sequence[Sequence[Rational]]) -> _Tableau:
    # Whatever the caller passed: Fraction() refuses an entry that is no number.
    rows = cast("Sequence[Sequence[Any]]",
                payoffs.tolist() if isinstance(payoffs, np.ndarray) else payoffs)
    try:
        matrix = [[Fraction(a) for a in row] for row in rows]
    except (OverflowError, TypeError) as error:
        raise ValueError(f"payoffs must be a 2-D table of finite numbers: {error}") from error
    if not matrix or not matrix[0] or any(len(row) != len(matrix[0]) for row in matrix):
        raise ValueError("payoffs must be a non-empty rectangular 2-D table")
    return matrix


def _run_bland(tableau: _Tableau, basic: list[int], nonbasic: list[int]) -> None:
    """Pivot a feasible Tucker tableau to optimality with Bland's rule."""
    m, n = len(basic), len(nonbasic)
    while True:
        entering = [j for j in range(n) if tableau[m][j] < 0]
        if not entering:
            return
        q = min(entering, key=lambda j: nonbasic[j])
        rows = [i for i in range(m) if tableau[i][q] > 0]  # never empty: M' > 0
        p = min(rows, key=lambda i: (tableau[i][n] / tableau[i][q], basic[i]))
        _pivot(tableau, p, q)
        basic[p], nonbasic[q] = nonbasic[q], basic[p]


def _pivot(tableau: _Tableau, p: int, q: int) -> None:
    """Exchange row p's basic variable with column q's nonbasic one (Tucker pivot)."""
    pivot = tableau[p][q]
    pivot_row = [a / pivot for a in tableau[p]]
    pivot_row[q] = 1 / pivot
    for i, row in enumerate(tableau):
        factor = row[q]
        if i == p or factor == 0:
            continue
        tableau[i] = [a - factor * b for a, b in zip(row, pivot_row)]
        tableau[i][q] = -factor / pivot
    tableau[p] = pivot_row
