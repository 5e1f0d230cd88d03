"""Seeded Monte Carlo simulation of agent against agent, with confidence intervals.

For agents or games too large to enumerate. The same seed gives the same games.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import Highest, Uniform
>>> result = simulate(load_game("jujitsu(num_cards=4)"), Highest(), Uniform(), 200, seed=1)
>>> result.games, result.win, result.draw, result.loss   # exact: 0.25, 0.5, 0.25
(200, 0.235, 0.55, 0.215)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from gamedb.games.base import Game
from gamedb.play.agents import Agent
from gamedb.play.evaluate import has_points, round_points
from gamedb.play.results import SimulationResult
from gamedb.types import Progress

T = TypeVar("T")

#: Two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054
#: Games played in step (their positions asked of the agents a round at a time).
BATCH = 10_000


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
    return _Games(game, agent1, agent2, [rng]).played()[0]


def simulate(game: Game[Any], agent1: Agent, agent2: Agent, games: int, *,
             seed: int | None = None,
             on_progress: Progress | None = None,
             batch: int = BATCH) -> SimulationResult:
    """Play ``games`` games of ``agent1`` (seat 1) against ``agent2``.

    Returns the mean payoff with a 95% normal confidence interval (1.96 standard errors),
    the win/draw/loss frequencies and mean points. ``on_progress(games played, games)``
    is called as the games advance.

    Game i draws from its own random stream (the i-th child of ``seed``'s
    ``SeedSequence``), so the games are the same whatever ``batch``: up to ``batch``
    games are played in step, one move of every game at a time, and an agent with a
    ``prefetch(states)`` method (the equilibrium of a file) is shown each round's
    positions at once (its file decodes each page of successor values once a round,
    not once a position).
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    root = np.random.SeedSequence(seed)  # its children, a batch at a time: the same ones
    rows: list[tuple[float, float, float]] = []
    said = [0]
    for start in range(0, games, batch):
        rngs = [np.random.default_rng(s) for s in root.spawn(min(batch, games - start))]

        def moved(share: float, before: int = start, size: int = len(rngs)) -> None:
            if on_progress is not None and before + int(share * size) > said[0]:
                said[0] = before + int(share * size)
                on_progress(said[0], games)
        rows.extend(_Games(game, agent1, agent2, rngs).played(moved))
    table = np.array(rows)
    payoffs = table[:, 0]
    half = Z95 * payoffs.std(ddof=1) / np.sqrt(games) if games > 1 else float("inf")
    points = has_points(game)
    return SimulationResult(
        agent1.name, agent2.name, games, seed, float(payoffs.mean()), float(half),
        float((payoffs > 0).mean()), float((payoffs == 0).mean()), float((payoffs < 0).mean()),
        float(table[:, 1].mean()) if points else None,
        float(table[:, 2].mean()) if points else None)


class _Games:
    """Games played in step, each with its own random stream."""

    def __init__(self, game: Game[Any], agent1: Agent, agent2: Agent,
                 rngs: Sequence[np.random.Generator]):
        self.game, self.agents, self.rngs = game, (agent1, agent2), rngs
        self.states = [sample(game.initial(), rng) for rng in rngs]
        self.points = np.zeros((len(rngs), 2))
        self.payoffs: list[float | None] = [None] * len(rngs)
        self.top = max((game.layer(s) for s in self.states), default=0)

    def played(self, on_move: Callable[[float], None] | None = None
               ) -> list[tuple[float, float, float]]:
        """Play every game to its end; return each one's payoff and both players' points.
        ``on_move(share)``: after each round, the share of the way (by layer) done."""
        live = list(range(len(self.rngs)))
        while live := [i for i in live if self._to_decision(i)]:
            states = [self.states[i] for i in live]
            for agent in self.agents:
                prefetch = getattr(agent, "prefetch", None)
                if prefetch is not None:
                    prefetch(states)
            for i in live:
                self._move(i)
            if on_move is not None and self.top:
                left = max(self.game.layer(self.states[i]) for i in live)
                on_move(1 - left / self.top)
        if on_move is not None:
            on_move(1.0)
        return [(float(cast(float, p)), float(a), float(b))
                for p, (a, b) in zip(self.payoffs, self.points)]  # every game has ended

    def _to_decision(self, i: int) -> bool:
        """Draw game i's chance moves; return False once it has ended."""
        game, state, rng = self.game, self.states[i], self.rngs[i]
        while (payoff := game.value(state)) is None:
            draws = game.chance(state)
            if draws is None:
                self.states[i] = state
                return True
            state = sample(draws, rng)
        self.states[i], self.payoffs[i] = state, payoff
        return False

    def _move(self, i: int) -> None:
        game, state, rng = self.game, self.states[i], self.rngs[i]
        a = sample([(p, x) for x, p in self.agents[0].policy(game, state, 1).items()], rng)
        b = sample([(p, x) for x, p in self.agents[1].policy(game, state, 2).items()], rng)
        self.points[i] += round_points(game, state, a, b)
        self.states[i] = sample(game.next(state, a, b), rng)


__all__ = ["Z95", "play_out", "sample", "simulate"]
