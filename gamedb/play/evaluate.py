"""Exact evaluation of agent against agent, best responses and exploitability.

Everything recurses over the game's reference face (chance included) with memoisation
on the state: states are hashable frozen dataclasses and agents are Markov, so the value
of a state does not depend on how it was reached.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import Highest, Uniform
>>> game = load_game("jujitsu(num_cards=3)")
>>> result = evaluate(game, Highest(), Uniform())
>>> round(result.win, 4), round(result.draw, 4), round(result.loss, 4)
(0.3333, 0.3333, 0.3333)
>>> round(exploitability(game, Uniform()), 4) > 0
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from gamedb.games.base import Game, GameError
from gamedb.play.agents import Agent, Policy, pov
from gamedb.play.results import MatchResult
from gamedb.types import OpenProgress

# Layout of the vectors the recursion sums: payoff, P(win), P(draw), P(loss), points.
_PAYOFF, _WIN, _DRAW, _LOSS, _FOR, _AGAINST = range(6)

#: Positions evaluated between two progress reports.
REPORT_EVERY = 1000


class _Memo(dict[Any, np.ndarray]):
    """The recursion's memo; its size (positions evaluated) is the progress reported."""

    def __init__(self, on_progress: OpenProgress | None):
        super().__init__()
        self._on_progress = on_progress

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        if self._on_progress is not None and len(self) % REPORT_EVERY == 0:
            self._on_progress(len(self), None)


def round_points(game: Game[Any], state: Any, a: int, b: int) -> tuple[float, float]:
    """Return the points each player takes in one round (tricks, prize points).

    Games whose capabilities declare no ``round_points`` score (0, 0).
    """
    points = game.capabilities.round_points
    if points is None:
        return 0.0, 0.0
    stake = points(state)
    return (float(stake), 0.0) if a > b else (0.0, float(stake)) if b > a else (0.0, 0.0)


def has_points(game: Game[Any]) -> bool:
    """Return True for the games ``round_points`` scores."""
    return game.capabilities.round_points is not None


def joint(policy1: Policy, policy2: Policy) -> Iterator[tuple[float, int, int]]:
    """Yield (probability, a, b) of the product of two independent policies."""
    for a, p in policy1.items():
        for b, q in policy2.items():
            if p * q > 0.0:
                yield p * q, a, b


#: Positions of a game (as its file counts them) past which ``evaluate``'s recursion over
#: real positions takes minutes and gigabytes: 6-card Goofspiel (26,029 positions) walks
#: 251,365 real ones in 97 s; 7 cards (218,584) took 7.5 minutes and 2.8 GB.
EXACT_LIMIT = 30_000


class TooBigToEvaluate(GameError):
    """An exact evaluation refused before it starts: too many positions to walk."""


def check_exact(game: Game[Any], agent1: Agent, agent2: Agent, positions: int, *,
                instead: str, limit: int = EXACT_LIMIT) -> None:
    """Refuse (``TooBigToEvaluate``) an exact evaluation of a game of more than ``limit``
    ``positions``, naming ``instead`` (what to do); the closed forms always run.
    """
    from gamedb.play.level_k import applies  # the closed form imports this module

    if positions <= limit or applies(game, agent1, agent2):
        return
    raise TooBigToEvaluate(
        f"an exact match walks every position both agents reach: {game.spec} has "
        f"{positions:,} positions, and past {limit:,} that takes minutes and gigabytes "
        f"(218,584 positions took 7.5 minutes and 2.8 GB); {instead}")


def evaluate(game: Game[Any], agent1: Agent, agent2: Agent, *,
             on_progress: OpenProgress | None = None) -> MatchResult:
    """Return the exact expected outcome of ``agent1`` (seat 1) against ``agent2``.

    Goofspiel with random prize order between agents that bid by the prize alone (or
    uniformly) uses per-prize closed forms (`gamedb.play.level_k`), which stay exact
    for 13 cards where the recursion would not.

    ``on_progress(positions evaluated, None)`` is called every ``REPORT_EVERY``
    positions of the recursion (their number is not known in advance) and once at the end.
    """
    from gamedb.play.level_k import prize_match  # the closed form imports this module

    fast = prize_match(game, agent1, agent2)
    if fast is not None:
        return fast
    memo = _Memo(on_progress)
    with recursion_said(game):
        total = sum((p * _outcome(game, agent1, agent2, s, memo) for p, s in game.initial()),
                    np.zeros(6))
    if on_progress is not None:
        on_progress(len(memo), len(memo))
    points = has_points(game)
    return MatchResult(agent1.name, agent2.name, float(total[_PAYOFF]), float(total[_WIN]),
                       float(total[_DRAW]), float(total[_LOSS]),
                       float(total[_FOR]) if points else None,
                       float(total[_AGAINST]) if points else None)


@contextmanager
def recursion_said(game: Game[Any]) -> Iterator[None]:
    """Turn Python's ``RecursionError`` (exact evaluation and solving on the fly recurse
    once a move: ``oshi_zumo(coins=1000,size=100)`` lasts up to 2,000 moves) into a
    ``GameError`` that says what to do instead."""
    try:
        yield
    except RecursionError:
        raise GameError(f"{game.spec}: too long a game to follow move by move (past "
                        "Python's recursion limit); build a database for it, or choose "
                        "smaller parameters") from None


def _outcome(game: Game[Any], agent1: Agent, agent2: Agent, state: Any,
             memo: dict[Any, np.ndarray]) -> np.ndarray:
    if state in memo:
        return memo[state]
    payoff = game.value(state)
    draws = game.chance(state) if payoff is None else None
    if payoff is not None:
        out = np.array([payoff, payoff > 0, payoff == 0, payoff < 0, 0.0, 0.0], dtype=float)
    elif draws is not None:
        out = sum((p * _outcome(game, agent1, agent2, child, memo) for p, child in draws),
                  np.zeros(6))
    else:
        out = np.zeros(6)
        for prob, a, b in joint(agent1.policy(game, state, 1), agent2.policy(game, state, 2)):
            here = np.zeros(6)
            here[_FOR], here[_AGAINST] = round_points(game, state, a, b)
            for p, child in game.next(state, a, b):
                here += p * _outcome(game, agent1, agent2, child, memo)
            out += prob * here
    memo[state] = out
    return out


class BestResponse:
    """The deterministic best response to a fixed opponent, exact, for either seat.

    It maximises its expected payoff knowing the opponent's policy (chance included);
    ties go to the smallest action.
    """

    def __init__(self, game: Game[Any], opponent: Agent):
        self.game = game
        self.opponent = opponent
        self.name = f"best-response:{opponent.name}"
        self._memo: dict[tuple[Any, int], tuple[float, int | None]] = {}

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        action = self._solve(state, player)[1]
        assert action is not None, "policy asked at a terminal or chance state"
        return {action: 1.0}

    def value(self, state: Any, player: int) -> float:
        """Return the best response's expected payoff in seat ``player``, its own side."""
        return self._solve(state, player)[0]

    def _solve(self, state: Any, player: int) -> tuple[float, int | None]:
        key = (state, player)
        if key in self._memo:
            return self._memo[key]
        game = self.game
        payoff = game.value(state)
        draws = game.chance(state) if payoff is None else None
        if payoff is not None:
            result: tuple[float, int | None] = (pov(payoff, player), None)
        elif draws is not None:
            result = (sum(p * self.value(child, player) for p, child in draws), None)
        else:
            values = {a: self._action_value(state, player, a)
                      for a in game.actions(state)[player - 1]}
            best = max(values.values())
            result = (best, min(a for a, v in values.items() if v >= best - 1e-12))
        self._memo[key] = result
        return result

    def _action_value(self, state: Any, player: int, action: int) -> float:
        game, total = self.game, 0.0
        for b, q in self.opponent.policy(game, state, 3 - player).items():
            a1, a2 = (action, b) if player == 1 else (b, action)
            total += q * sum(p * self.value(child, player) for p, child in game.next(state, a1, a2))
        return total


def best_response_value(game: Game[Any], agent: Agent, seat: int) -> float:
    """Return what a best response gains against ``agent`` playing in ``seat``.

    The value is the responder's expected payoff, from the responder's side.
    """
    responder = BestResponse(game, agent)
    return sum(p * responder.value(s, 3 - seat) for p, s in game.initial())


def exploitability(game: Game[Any], agent: Agent) -> float:
    """Return the agent's exploitability: the mean over both seats of what a best
    response gains against it beyond the game's value (0 exactly at an equilibrium).

    The game value cancels: (BR as player 1 vs agent) + (BR as player 2 vs agent)
    = (v + gain1) + (-v + gain2). This is OpenSpiel's NashConv / 2.
    """
    return 0.5 * (best_response_value(game, agent, 1) + best_response_value(game, agent, 2))


__all__ = ["EXACT_LIMIT", "TooBigToEvaluate", "check_exact", "BestResponse", "best_response_value", "evaluate", "exploitability",
           "has_points", "joint", "round_points"]
