"""Seeded Monte Carlo simulation of agent against agent, with confidence intervals.

For agents or games too large to enumerate. The same seed gives the same games.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import Highest, Uniform
>>> result = simulate(load_game("jujitsu(num_cards=4)"), Highest(), Uniform(), 200, seed=1)
>>> result.games, result.win, result.draw, result.loss   # exact: 0.25, 0.5, 0.25
(200, 0.255, 0.49, 0.255)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from gamedb.games.base import Game
from gamedb.play.agents import Agent
from gamedb.play.evaluate import has_points, round_points
from gamedb.play.results import SimulationResult

T = TypeVar("T")

#: Two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054


def sample(items: Sequence[tuple[float, T]], rng: np.random.Generator) -> T:
    """Draw one item of a [(probability, item)] list."""
    u, acc = rng.random(), 0.0
    for prob, item in items:
        acc += prob
        if u < acc:
            return item
    return items[-1][1]  # rounding: the probabilities summed to slightly below 1


def play_out(game: Game[Any], agent1: Agent, agent2: Agent,
             rng: np.random.Generator) -> tuple[float, float, float]:
    """Play one game; return player 1's payoff and both players' points."""
    state = sample(game.initial(), rng)
    points1 = points2 = 0.0
    while (payoff := game.value(state)) is None:
        draws = game.chance(state)
        if draws is not None:
            state = sample(draws, rng)
            continue
        a = sample([(p, x) for x, p in agent1.policy(game, state, 1).items()], rng)
        b = sample([(p, x) for x, p in agent2.policy(game, state, 2).items()], rng)
        got1, got2 = round_points(game, state, a, b)
        points1, points2 = points1 + got1, points2 + got2
        state = sample(game.next(state, a, b), rng)
    return payoff, points1, points2


def simulate(game: Game[Any], agent1: Agent, agent2: Agent, games: int, *,
             seed: int | None = None,
             on_progress: Callable[[int, int], None] | None = None) -> SimulationResult:
    """Play ``games`` games of ``agent1`` (seat 1) against ``agent2``.

    Returns the mean payoff with a 95% normal confidence interval (1.96 standard errors),
    the win/draw/loss frequencies and mean points. ``on_progress(games played, games)``
    is called after every game.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    rng = np.random.default_rng(seed)
    rows = np.array([_played(game, agent1, agent2, rng, (i + 1, games), on_progress)
                     for i in range(games)])
    payoffs = rows[:, 0]
    half = Z95 * payoffs.std(ddof=1) / np.sqrt(games) if games > 1 else float("inf")
    points = has_points(game)
    return SimulationResult(
        agent1.name, agent2.name, games, seed, float(payoffs.mean()), float(half),
        float((payoffs > 0).mean()), float((payoffs == 0).mean()), float((payoffs < 0).mean()),
        float(rows[:, 1].mean()) if points else None, float(rows[:, 2].mean()) if points else None)


def _played(game: Game[Any], agent1: Agent, agent2: Agent, rng: np.random.Generator,
            done: tuple[int, int],
            on_progress: Callable[[int, int], None] | None) -> tuple[float, float, float]:
    row = play_out(game, agent1, agent2, rng)
    if on_progress is not None:
        on_progress(*done)
    return row


__all__ = ["Z95", "play_out", "sample", "simulate"]
