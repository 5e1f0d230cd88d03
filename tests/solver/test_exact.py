"""Tests for gamedb.solver.exact: the rational simplex with Bland's rule."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedb.solver.exact import ExactSolution, solve_exact
from gamedb.solver.reference import solve_lp

_SETTINGS = settings(database=None, deadline=None, max_examples=150)


def exact_gap(solution: ExactSolution) -> Fraction:
    """max_i (M y)_i - min_j (x M)_j in rationals."""
    matrix = solution.payoffs
    row_payoffs = [sum(a * q for a, q in zip(row, solution.col_strategy)) for row in matrix]
    col_payoffs = [
        sum(row[j] * p for row, p in zip(matrix, solution.row_strategy))
        for j in range(len(matrix[0]))
    ]
    return max(row_payoffs) - min(col_payoffs)


def test_rock_paper_scissors_is_exactly_one_third_each() -> None:
    solution = solve_exact([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    assert solution.value == 0
    assert solution.row_strategy == (Fraction(1, 3),) * 3
    assert solution.col_strategy == (Fraction(1, 3),) * 3


def test_biased_rps_matches_published_strategy_exactly() -> None:
    q, t = Fraction(1, 4), Fraction(1, 20)
    solution = solve_exact([[0, -q, 2 * q], [q, 0, -t], [-2 * q, t, 0]])
    assert solution.value == 0
    assert solution.row_strategy == (Fraction(1, 16), Fraction(10, 16), Fraction(5, 16))
    assert solution.col_strategy == (Fraction(1, 16), Fraction(10, 16), Fraction(5, 16))


def test_asymmetric_pure_saddle_has_value_one() -> None:
    solution = solve_exact([[1, 2], [0, 3]])
    assert solution.value == 1
    assert solution.row_strategy == (1, 0) and solution.col_strategy == (1, 0)


def test_floats_are_converted_exactly() -> None:
    solution = solve_exact(np.array([[0.1]]))
    assert solution.value == Fraction(0.1) != Fraction(1, 10)


def test_matrix_solution_has_float_strategies_summing_to_one() -> None:
    solution = solve_exact([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]).to_matrix_solution()
    assert solution.value == 0.0
    assert solution.row_strategy.sum() == 1.0 and solution.col_strategy.sum() == 1.0
    assert solution.gap == pytest.approx(0.0, abs=1e-15)


def test_highly_degenerate_game_terminates_with_zero_gap() -> None:
    # Every row and column repeated, entries in {-1, 0, 1}: Bland's rule cannot cycle.
    base = np.array([[1, -1, 0], [-1, 1, 0], [0, 0, 0]])
    solution = solve_exact(np.kron(base, np.ones((3, 3), dtype=int)))
    assert solution.value == 0
    assert exact_gap(solution) == 0


@pytest.mark.parametrize("payoffs", [[], [[]], [[1, 2], [3]], [[float("nan")]], [["x"]]])
def test_malformed_payoffs_are_rejected(payoffs: object) -> None:
    with pytest.raises(ValueError):
        solve_exact(payoffs)  # type: ignore[arg-type]


@_SETTINGS
@given(
    st.tuples(st.integers(1, 6), st.integers(1, 6)).flatmap(
        lambda shape: arrays(np.int8, shape, elements=st.integers(-2, 2))
    )
)
def test_small_integer_games_agree_with_highs(matrix: np.ndarray) -> None:
    solution = solve_exact(matrix.tolist())
    assert exact_gap(solution) == 0
    assert sum(solution.row_strategy) == 1 and sum(solution.col_strategy) == 1
    assert min(solution.row_strategy) >= 0 and min(solution.col_strategy) >= 0
    assert float(solution.value) == pytest.approx(solve_lp(matrix).value, abs=1e-9)


@_SETTINGS
@given(
    st.tuples(st.integers(1, 5), st.integers(1, 5)).flatmap(
        lambda shape: arrays(np.float64, shape, elements=st.floats(-1, 1, width=32))
    )
)
def test_small_float_games_agree_with_highs(matrix: np.ndarray) -> None:
    solution = solve_exact(matrix)
    assert exact_gap(solution) == 0
    assert float(solution.value) == pytest.approx(solve_lp(matrix).value, abs=1e-9)
    assert solution.to_matrix_solution().gap <= 1e-12
