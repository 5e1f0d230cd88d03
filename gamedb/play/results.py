"""What evaluations return: small frozen dataclasses, values from player 1's side."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Exact outcome of one game between two agents (player 1's side)."""

    player1: str
    """Name of the agent in seat 1."""
    player2: str
    """Name of the agent in seat 2."""
    payoff: float
    """Expected payoff to player 1 (the point difference in point-difference games)."""
    win: float
    """Probability that player 1's payoff is positive."""
    draw: float
    """Probability that it is zero."""
    loss: float
    """Probability that it is negative."""
    points_for: float | None = None
    """Expected points (prize points, tricks) player 1 takes; None where there are none."""
    points_against: float | None = None
    """Expected points player 2 takes."""


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Monte Carlo estimate of a match: means with 95% confidence intervals."""

    player1: str
    player2: str
    games: int
    """Number of simulated games."""
    seed: int | None
    """Seed of the ``numpy.random.Generator`` (same seed, same games)."""
    payoff: float
    """Mean payoff to player 1."""
    payoff_ci: float
    """Half-width of the 95% confidence interval of ``payoff`` (1.96 standard errors)."""
    win: float
    draw: float
    loss: float
    points_for: float | None = None
    """Mean points per game of player 1."""
    points_against: float | None = None

    def interval(self) -> tuple[float, float]:
        """Return the 95% confidence interval of the mean payoff."""
        return self.payoff - self.payoff_ci, self.payoff + self.payoff_ci


__all__ = ["MatchResult", "SimulationResult"]
