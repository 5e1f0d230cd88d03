"""Tests for gamedb.solver.reference: HiGHS with one LP for both strategies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from gamedb.solver.exact import solve_exact
from gamedb.solver.reference import solve_lp

RPS = [[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]
BIASED_RPS = [[0.0, -0.25, 0.5], [0.25, 0.0, -0.05], [-0.5, 0.05, 0.0]]  # OpenSpiel


def test_rock_paper_scissors_has_value_zero_and_uniform_strategies() -> None:
    solution = solve_lp(RPS)
    assert solution.value == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(solution.row_strategy, [1 / 3] * 3, atol=1e-12)
    np.testing.assert_allclose(solution.col_strategy, [1 / 3] * 3, atol=1e-12)


def test_biased_rps_matches_published_strategy() -> None:
    solution = solve_lp(BIASED_RPS)
    assert solution.value == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(solution.row_strategy, [1 / 16, 10 / 16, 5 / 16], atol=1e-12)


def test_column_strategy_comes_from_the_duals() -> None:
    # No saddle point; x = (2/3, 1/3), y = (2/3, 1/3, 0), value 2/3.
    solution = solve_lp([[0.0, 2.0, 3.0], [2.0, -2.0, 4.0]])
    assert solution.value == pytest.approx(2 / 3, abs=1e-12)
    np.testing.assert_allclose(solution.row_strategy, [2 / 3, 1 / 3], atol=1e-12)
    np.testing.assert_allclose(solution.col_strategy, [2 / 3, 1 / 3, 0.0], atol=1e-12)
    assert solution.gap <= 1e-12


def test_asymmetric_pure_saddle_has_value_one() -> None:
    solution = solve_lp([[1.0, 2.0], [0.0, 3.0]])
    assert solution.value == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(solution.row_strategy, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(solution.col_strategy, [1.0, 0.0], atol=1e-12)


def test_constant_game_has_its_constant_as_value() -> None:
    solution = solve_lp(np.full((2, 3), -7.5))
    assert solution.value == -7.5
    assert solution.row_strategy.sum() == 1.0 and solution.col_strategy.sum() == 1.0


@pytest.mark.parametrize("payoffs", [[], [1.0, 2.0], [[1.0, np.inf]], [[np.nan]]])
def test_malformed_payoffs_are_rejected(payoffs: object) -> None:
    with pytest.raises(ValueError):
        solve_lp(payoffs)  # type: ignore[arg-type]


@settings(database=None, deadline=None, max_examples=150)
@given(
    st.tuples(st.integers(1, 5), st.integers(1, 5)).flatmap(
        lambda shape: arrays(np.int8, shape, elements=st.integers(-3, 3))
    )
)
def test_value_matches_the_exact_solver(matrix: np.ndarray) -> None:
    solution = solve_lp(matrix)
    exact = solve_exact(matrix)
    assert solution.value == pytest.approx(float(exact.value), abs=1e-9)
    assert solution.gap <= 1e-9
    assert solution.row_strategy.sum() == 1.0 and solution.col_strategy.sum() == 1.0
