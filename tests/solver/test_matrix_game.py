"""Tests for gamedb.solver.matrix_game: verified batches, fallbacks, padding."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from gamedb.solver import matrix_game
from gamedb.solver.kernel import solve_checked
from gamedb.solver.matrix_game import (
    TOLERANCE,
    batch_gaps,
    MatrixSolution,
    gap,
    solve_games,
    solve_matrix_game,
)
from gamedb.solver.reference import solve_lp

RPS = [[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]
BIASED_RPS = [[0.0, -0.25, 0.5], [0.25, 0.0, -0.05], [-0.5, 0.05, 0.0]]  # OpenSpiel


def random_batch(size: int, side: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random float, {-1, 0, 1} and duplicated-row/column games, NaN in the padding."""
    rng = np.random.default_rng(seed)
    n_rows, n_cols = rng.integers(1, side + 1, size), rng.integers(1, side + 1, size)
    payoffs = np.full((size, side, side), np.nan)
    for k in range(size):
        m, n = n_rows[k], n_cols[k]
        kind = k % 3
        if kind == 0:
            game = rng.uniform(-1.0, 1.0, (m, n))
        elif kind == 1:
            game = rng.integers(-1, 2, (m, n)).astype(float)
        else:
            base = rng.integers(-1, 2, (3, 3)).astype(float)
            game = base[np.ix_(rng.integers(0, 3, m), rng.integers(0, 3, n))]
        payoffs[k, :m, :n] = game
    return payoffs, n_rows, n_cols


def test_matching_pennies_is_half_half_with_value_zero() -> None:
    solution = solve_matrix_game([[1.0, -1.0], [-1.0, 1.0]])
    assert isinstance(solution, MatrixSolution)
    assert solution.value == 0.0 and solution.gap == 0.0
    assert solution.row_strategy.tolist() == [0.5, 0.5]


def test_rock_paper_scissors_has_value_zero_and_uniform_strategies() -> None:
    solution = solve_matrix_game(RPS)
    assert solution.value == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(solution.row_strategy, [1 / 3] * 3, atol=1e-15)


def test_biased_rps_matches_published_strategy() -> None:
    solution = solve_matrix_game(BIASED_RPS)
    np.testing.assert_allclose(solution.row_strategy, [1 / 16, 10 / 16, 5 / 16], atol=1e-15)
    assert solution.gap <= TOLERANCE


def test_asymmetric_pure_saddle_has_value_one() -> None:
    solution = solve_matrix_game([[1.0, 2.0], [0.0, 3.0]])
    assert solution.value == 1.0 and solution.gap == 0.0


def test_gap_is_zero_at_equilibrium_and_positive_off_it() -> None:
    assert gap(RPS, [1 / 3] * 3, [1 / 3] * 3) == pytest.approx(0.0, abs=1e-15)
    assert gap(RPS, [1.0, 0.0, 0.0], [1 / 3] * 3) == pytest.approx(1.0)


def test_random_batch_passes_verification_without_fallbacks() -> None:
    payoffs, n_rows, n_cols = random_batch(20_000, 13, seed=1)
    batch = solve_games(payoffs, n_rows, n_cols)
    assert batch.fallbacks == 0 and batch.exact == 0
    assert (batch.gaps <= TOLERANCE).all()
    assert (batch.row_strategies.sum(axis=1) == 1.0).all()
    assert (batch.col_strategies.sum(axis=1) == 1.0).all()
    assert (batch.row_strategies >= 0).all() and (batch.col_strategies >= 0).all()
    padded_rows = np.arange(13) >= n_rows[:, np.newaxis]
    assert (batch.row_strategies[padded_rows] == 0.0).all()


def test_random_batch_matches_highs_and_the_scalar_gap() -> None:
    payoffs, n_rows, n_cols = random_batch(20_000, 13, seed=2)
    batch = solve_games(payoffs, n_rows, n_cols)
    for k in range(0, 20_000, 67):  # 299 games of all three kinds
        game = payoffs[k, : n_rows[k], : n_cols[k]]
        x, y = batch.row_strategies[k, : n_rows[k]], batch.col_strategies[k, : n_cols[k]]
        assert batch.values[k] == pytest.approx(solve_lp(game).value, abs=1e-9)
        assert batch.gaps[k] == pytest.approx(gap(game, x, y), abs=1e-15)


def test_padding_garbage_does_not_leak() -> None:
    payoffs, n_rows, n_cols = random_batch(2_000, 9, seed=3)
    clean = np.where(np.isnan(payoffs), 0.0, payoffs)
    huge = np.where(np.isnan(payoffs), 1e300, payoffs)
    expected = solve_games(clean, n_rows, n_cols)
    for garbage in (payoffs, huge):
        batch = solve_games(garbage, n_rows, n_cols)
        np.testing.assert_array_equal(batch.values, expected.values)
        np.testing.assert_array_equal(batch.gaps, expected.gaps)
        np.testing.assert_array_equal(batch.row_strategies, expected.row_strategies)


def test_large_games_pass_verification() -> None:
    rng = np.random.default_rng(4)
    payoffs = np.concatenate(
        [rng.uniform(-1.0, 1.0, (20, 51, 51)), rng.integers(-1, 2, (20, 51, 51))]
    )
    batch = solve_games(payoffs, np.full(40, 51), np.full(40, 51))
    assert batch.fallbacks == 0 and (batch.gaps <= TOLERANCE).all()


def tamper_kernel(monkeypatch: pytest.MonkeyPatch,
                  change: Callable[[np.ndarray, np.ndarray, np.ndarray], None]) -> None:
    """Make the kernel's answers pass through ``change(values, rows, cols)`` (in place);
    the gaps it reports are those of the changed strategies."""

    def tampered(payoffs, n_rows, n_cols):  # type: ignore[no-untyped-def]
        values, rows, cols, _, ranges = solve_checked(payoffs, n_rows, n_cols)
        change(values, rows, cols)
        gaps, _ = batch_gaps(payoffs, n_rows, n_cols, rows, cols)
        return values, rows, cols, gaps, ranges

    monkeypatch.setattr(matrix_game, "solve_checked", tampered)


def corrupt_kernel(monkeypatch: pytest.MonkeyPatch, games: list[int]) -> None:
    """Make the kernel return the first pure strategies for `games`, which are wrong."""

    def wrong(values: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        for k in games:
            values[k], rows[k], cols[k] = 42.0, 0.0, 0.0
            rows[k, 0] = cols[k, 0] = 1.0

    tamper_kernel(monkeypatch, wrong)


def test_failed_kernel_solutions_are_fixed_by_highs_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payoffs = np.array([RPS, BIASED_RPS, [[1.0, 2.0, 9.0], [0.0, 3.0, 9.0], [9.0] * 3]])
    n_rows, n_cols = np.array([3, 3, 2]), np.array([3, 3, 2])
    corrupt_kernel(monkeypatch, [0, 1])
    batch = solve_games(payoffs, n_rows, n_cols)
    assert (batch.fallbacks, batch.exact) == (2, 0)
    np.testing.assert_allclose(batch.values, [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(batch.row_strategies[1], [1 / 16, 10 / 16, 5 / 16], atol=1e-9)
    assert (batch.gaps <= TOLERANCE).all()


def test_a_game_the_kernel_did_not_finish_goes_to_highs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel gives up with value NaN and zero strategies, whose gap is 0: the check
    must not accept them (a 720 x 720 committed Goofspiel game was stored as NULL)."""
    def unfinished(values: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        values[0], rows[0], cols[0] = np.nan, 0.0, 0.0

    tamper_kernel(monkeypatch, unfinished)
    batch = solve_games(np.array([BIASED_RPS]), np.array([3]), np.array([3]))
    assert batch.fallbacks == 1 and batch.values[0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(batch.row_strategies[0], [1 / 16, 10 / 16, 5 / 16], atol=1e-9)


def test_games_highs_also_fails_are_solved_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    corrupt_kernel(monkeypatch, [0])

    def wrong_lp(payoffs):  # type: ignore[no-untyped-def]
        return MatrixSolution(3.0, np.array([1.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), 2.0)

    monkeypatch.setattr(matrix_game, "solve_lp", wrong_lp)
    batch = solve_games(np.array([RPS]), np.array([3]), np.array([3]))
    assert (batch.fallbacks, batch.exact) == (1, 1)
    assert batch.values[0] == 0.0
    assert batch.row_strategies[0].tolist() == pytest.approx([1 / 3] * 3, abs=1e-15)
    assert batch.gaps[0] <= TOLERANCE


def test_highs_errors_fall_through_to_the_exact_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    corrupt_kernel(monkeypatch, [0])

    def failing_lp(payoffs):  # type: ignore[no-untyped-def]
        raise RuntimeError("HiGHS failed")

    monkeypatch.setattr(matrix_game, "solve_lp", failing_lp)
    batch = solve_games(np.array([BIASED_RPS]), np.array([3]), np.array([3]))
    assert (batch.fallbacks, batch.exact) == (1, 1)
    assert batch.row_strategies[0].tolist() == [1 / 16, 10 / 16, 5 / 16]


def test_tolerance_is_scaled_by_the_payoff_range(monkeypatch: pytest.MonkeyPatch) -> None:
    offsets = np.array([0.75e-6, 0.75e-6, 1.5e-6])  # row strategy (1/2 + d, 1/2 - d)

    def slightly_off(values: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> None:
        rows[:, 0], rows[:, 1] = 0.5 + offsets, 0.5 - offsets

    tamper_kernel(monkeypatch, slightly_off)
    pennies = np.array([[1.0, -1.0], [-1.0, 1.0]])
    payoffs = np.array([pennies, 1e3 * pennies, 1e3 * pennies])  # gap = d * range
    batch = solve_games(payoffs, np.full(3, 2), np.full(3, 2), tolerance=1e-6)
    assert batch.fallbacks == 1  # 1.5e-3 passes on a range of 2e3; 3e-3 does not
    assert batch.row_strategies[2].tolist() == [0.5, 0.5]
    assert batch.gaps[1] == pytest.approx(1.5e-3)


def test_non_finite_payoffs_are_rejected() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        solve_games(np.array([[[0.0, np.inf]]]), np.array([1]), np.array([2]))
    with pytest.raises(ValueError):
        solve_matrix_game([1.0, 2.0])


def test_compiled_gaps_agree_with_the_numpy_reference_and_never_read_the_padding() -> None:
    from gamedb.solver.matrix_game import _gaps_of_chunk, batch_gaps
    rng = np.random.default_rng(5)
    payoffs = rng.normal(size=(500, 7, 6))
    rows, cols = rng.integers(1, 8, 500), rng.integers(1, 7, 500)
    x, y = rng.random((500, 7)), rng.random((500, 6))
    x[np.arange(7) >= rows[:, None]] = 0.0
    y[np.arange(6) >= cols[:, None]] = 0.0
    garbage = payoffs.copy()
    garbage[(np.arange(7)[None, :, None] >= rows[:, None, None])
            | (np.arange(6)[None, None, :] >= cols[:, None, None])] = np.nan
    gaps, ranges = batch_gaps(garbage, rows, cols, x, y)
    want_gaps, want_ranges = _gaps_of_chunk(payoffs, rows, cols, x, y)
    np.testing.assert_allclose(gaps, want_gaps, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ranges, want_ranges, rtol=0, atol=1e-12)
    payoffs[3, 0, 0] = np.inf
    assert np.isnan(batch_gaps(payoffs, rows, cols, x, y)[1][3])
