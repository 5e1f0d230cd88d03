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
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from gamedb.games.base import Game
from gamedb.play.agents import Agent
from gamedb.play.evaluate import evaluate
from gamedb.play.results import MatchResult, SimulationResult
from gamedb.play.simulate import simulate


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
    points_for: float
    points_against: float
    wins: float
    draws: float
    losses: float
    beat: tuple[str, ...]
    """Opponents it outscored (higher total payoff) in their series."""


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
                on_progress: Callable[[int, int], None] | None = None) -> list[Series]:
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
                      _scale(b.name, a.name, games, _mirror(per_game))]
        out.append(Series(games, not simulate_games, tuple(pairs), _standings(agents, pairs)))
    return out


_Row = tuple[float, float, float, float, float, float]  # payoff, for, against, w, d, l


def _counter(on_progress: Callable[[int, int], None] | None,
             total: int) -> Callable[[_Row], _Row]:
    """Return a pass-through that reports one more finished pairing of ``total``."""
    done = [0]

    def tick(row: _Row) -> _Row:
        done[0] += 1
        if on_progress is not None:
            on_progress(done[0], total)
        return row
    return tick


def _both_seats(first: MatchResult, second: MatchResult) -> _Row:
    """Average of a (seat 1) vs b and b (seat 1) vs a, from a's side."""
    one = (first.payoff, first.points_for or 0.0, first.points_against or 0.0,
           first.win, first.draw, first.loss)
    two = (-second.payoff, second.points_against or 0.0, second.points_for or 0.0,
           second.loss, second.draw, second.win)
    return tuple((x + y) / 2 for x, y in zip(one, two))  # type: ignore[return-value]


def _simulated(game: Game[Any], a: Agent, b: Agent, games: int, seed: int | None) -> _Row:
    first = simulate(game, a, b, (games + 1) // 2, seed=seed)
    rows = [_sim_row(first, games - games // 2)]
    if games // 2:
        second = simulate(game, b, a, games // 2, seed=None if seed is None else seed + 1)
        rows.append(_mirror(_sim_row(second, games // 2)))
    return tuple(sum(r[k] for r in rows) / games for k in range(6))  # type: ignore[return-value]


def _sim_row(r: SimulationResult, n: int) -> _Row:
    return (n * r.payoff, n * (r.points_for or 0.0), n * (r.points_against or 0.0),
            n * r.win, n * r.draw, n * r.loss)


def _mirror(row: _Row) -> _Row:
    payoff, pf, pa, w, d, l = row
    return (-payoff, pa, pf, l, d, w)


def _scale(agent: str, opponent: str, games: int, row: _Row) -> PairResult:
    return PairResult(agent, opponent, games, *(games * x for x in row))


def _standings(agents: Sequence[Agent], pairs: list[PairResult]) -> tuple[Standing, ...]:
    out = []
    for agent in agents:
        mine = [p for p in pairs if p.agent == agent.name]
        out.append(Standing(agent.name, *(sum(getattr(p, f) for p in mine) for f in
                                          ("points_for", "points_against", "wins", "draws",
                                           "losses")),
                            tuple(p.opponent for p in mine if p.payoff > 1e-9)))
    return tuple(out)




def play_match(game: Game[Any], agent1: Agent, agent2: Agent, *, games: int | None = None,
               seed: int | None = None,
               on_progress: Callable[[int, int | None], None] | None = None,
               ) -> MatchResult | SimulationResult:
    """Evaluate a match exactly, or simulate ``games`` games when given.

    ``on_progress(done, total)`` counts positions evaluated (``total`` None until the
    end) or games simulated.
    """
    if games is None:
        return evaluate(game, agent1, agent2, on_progress=on_progress)
    return simulate(game, agent1, agent2, games, seed=seed, on_progress=on_progress)


__all__ = ["PairResult", "Series", "Standing", "play_match", "round_robin"]
