"""Round-robin tournaments with tables like the published Goofspiel competitions.

Every pair of agents plays a series of ``games`` games, half of them in each seat (Dror
and Kendall 2013 ran 10/20/30/50-game series of 13-card Goofspiel). Exact mode scales
the exact expected outcome of one game; simulation mode plays seeded games.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import LevelK
>>> game = load_game("goofspiel(num_cards=13,returns_type=point_difference)")
>>> series = round_robin(game, [LevelK(1), LevelK(2)], [10])[0]
>>> [(s.agent, s.points_for, s.points_against, s.beat) for s in series.standings]
[('level-1', 130.0, 780.0, ()), ('level-2', 780.0, 130.0, ('level-1',))]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass
from itertools import combinations
from typing import Any

from gamedb.games.base import Game
from gamedb.play.agents import Agent
from gamedb.play.evaluate import evaluate, recursion_said
from gamedb.play.results import MatchResult, SimulationResult
from gamedb.play.simulate import simulate
from gamedb.types import OpenProgress, Progress


@dataclass(frozen=True, slots=True)
class PairResult:
    """One agent's totals over its series against one opponent."""

    agent: str
    opponent: str
    games: int
    payoff: float
    """Sum of the agent's payoffs (its own side) over the series."""
    points_for: float
    points_against: float
    wins: float
    draws: float
    losses: float


@dataclass(frozen=True, slots=True)
class Standing:
    """One agent's totals over all its series of one length."""

    agent: str
    payoff: float
    """Sum of its payoffs (its own side) over all its series: what ``beat`` compares."""
    points_for: float
    points_against: float
    wins: float
    draws: float
    losses: float
    beat: tuple[str, ...]
    """Opponents over which its total payoff in their series is positive (the game's
    payoff: with win/loss returns a win counts 1 whatever the points)."""


@dataclass(frozen=True, slots=True)
class Series:
    """A full round robin at one series length."""

    games: int
    exact: bool
    """True for expected totals, False for simulated games."""
    pairs: tuple[PairResult, ...]
    """Both directions of every pairing."""
    standings: tuple[Standing, ...]


def round_robin(game: Game[Any], agents: Sequence[Agent], series_lengths: Sequence[int], *,
                seed: int | None = None, simulate_games: bool = False,
                on_progress: Progress | None = None) -> list[Series]:
    """Play every pair of agents at every series length; exact unless ``simulate_games``.

    ``on_progress(pairings played, pairings)`` is called after each pairing (both seats):
    once per pair when exact (the series lengths only scale it), once per pair and
    length when simulated.
    """
    pairings = len(agents) * (len(agents) - 1) // 2
    tick = _counter(on_progress, pairings * (len(series_lengths) if simulate_games else 1))
    exact = {} if simulate_games else {
        (a.name, b.name): tick(_both_seats(evaluate(game, a, b), evaluate(game, b, a)))
        for a, b in combinations(agents, 2)}
    out = []
    for index, games in enumerate(series_lengths):
        pairs: list[PairResult] = []
        for i, j in combinations(range(len(agents)), 2):
            a, b = agents[i], agents[j]
            if simulate_games:
                s = None if seed is None else seed + 1000 * index + 37 * i + j
                per_game = tick(_simulated(game, a, b, games, s))
            else:
                per_game = exact[a.name, b.name]
            pairs += [_scale(a.name, b.name, games, per_game),
                      _scale(b.name, a.name, games, per_game.mirrored())]
        out.append(Series(games, not simulate_games, tuple(pairs), _standings(agents, pairs)))
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """One agent's per-game outcome against one opponent, from the agent's side."""

    payoff: float
    """Expected (or mean simulated) payoff of one game."""
    points_for: float
    points_against: float
    win: float
    draw: float
    loss: float

    def mirrored(self) -> Outcome:
        """Return the same outcome from the opponent's side."""
        return Outcome(-self.payoff, self.points_against, self.points_for,
                       self.loss, self.draw, self.win)

    def scaled(self, factor: float) -> Outcome:
        """Return every field times ``factor``."""
        return Outcome(*(factor * x for x in astuple(self)))

    def per_game(self, games: int) -> Outcome:
        """Return every field divided by ``games`` (a series total to one game)."""
        return Outcome(*(x / games for x in astuple(self)))

    def plus(self, other: Outcome) -> Outcome:
        """Return the field-wise sum."""
        return Outcome(*(x + y for x, y in zip(astuple(self), astuple(other))))


def _counter(on_progress: Progress | None,
             total: int) -> Callable[[Outcome], Outcome]:
    """Return a pass-through that reports one more finished pairing of ``total``."""
    done = [0]

    def tick(outcome: Outcome) -> Outcome:
        done[0] += 1
        if on_progress is not None:
            on_progress(done[0], total)
        return outcome
    return tick


def _both_seats(first: MatchResult, second: MatchResult) -> Outcome:
    """Average of a (seat 1) vs b and b (seat 1) vs a, from a's side."""
    return _outcome(first).plus(_outcome(second).mirrored()).per_game(2)


def _simulated(game: Game[Any], a: Agent, b: Agent, games: int, seed: int | None) -> Outcome:
    with recursion_said(game):  # an equilibrium solved on the fly recurses
        first = simulate(game, a, b, (games + 1) // 2, seed=seed)
        total = _outcome(first).scaled(games - games // 2)
        if games // 2:
            second = simulate(game, b, a, games // 2, seed=None if seed is None else seed + 1)
            total = total.plus(_outcome(second).scaled(games // 2).mirrored())
    return total.per_game(games)


def _outcome(r: MatchResult | SimulationResult) -> Outcome:
    """Return a result's per-game outcome from its player 1's side."""
    return Outcome(r.payoff, r.points_for or 0.0, r.points_against or 0.0, r.win, r.draw, r.loss)


def _scale(agent: str, opponent: str, games: int, per_game: Outcome) -> PairResult:
    total = per_game.scaled(games)
    return PairResult(agent, opponent, games, total.payoff, total.points_for,
                      total.points_against, total.win, total.draw, total.loss)


def _standings(agents: Sequence[Agent], pairs: list[PairResult]) -> tuple[Standing, ...]:
    out = []
    for agent in agents:
        mine = [p for p in pairs if p.agent == agent.name]
        out.append(Standing(
            agent.name, sum(p.payoff for p in mine),
            sum(p.points_for for p in mine), sum(p.points_against for p in mine),
            sum(p.wins for p in mine), sum(p.draws for p in mine), sum(p.losses for p in mine),
            tuple(p.opponent for p in mine if p.payoff > 1e-9)))
    return tuple(out)


def play_match(game: Game[Any], agent1: Agent, agent2: Agent, *, games: int | None = None,
               seed: int | None = None,
               on_progress: OpenProgress | None = None,
               ) -> MatchResult | SimulationResult:
    """Evaluate a match exactly, or simulate ``games`` games when given.

    ``on_progress(done, total)`` counts positions evaluated (``total`` None until the
    end) or games simulated.
    """
    if games is None:
        return evaluate(game, agent1, agent2, on_progress=on_progress)
    with recursion_said(game):  # an equilibrium solved on the fly recurses
        return simulate(game, agent1, agent2, games, seed=seed, on_progress=on_progress)


__all__ = ["Outcome", "PairResult", "Series", "Standing", "play_match", "round_robin"]
