"""Agents: small policies that play any seat of any game where they make sense.

An agent is a policy ``agent.policy(game, state, player) -> {action: prob}`` over the
real actions of ``player`` (1 or 2) at a decision state; deterministic agents put
probability 1 on one action. Policies depend on the state only (they are Markov), which
lets exact evaluation and best responses memoise on the state.

>>> from gamedb.games import load_game
>>> game = load_game("goofspiel(num_cards=5)")
>>> state = game.initial()[2][1]          # prize 3 on the table
>>> LevelK(2).policy(game, state, 1), Matching().policy(game, state, 2)
({4: 1.0}, {3: 1.0})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from gamedb.games.base import Game, GameError

Policy = dict[int, float]


class Agent(Protocol):
    """What every agent provides."""

    @property
    def name(self) -> str:
        """The agent's name in tables (as ``make_agent`` reads it)."""

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy: ...


def pov(value: float, player: int) -> float:
    """Turn a value from player 1's side into ``player``'s side (zero-sum).

    >>> pov(0.25, 1), pov(0.25, 2), pov(0.0, 2)
    (0.25, -0.25, 0.0)
    """
    return value if player == 1 else 0.0 - value  # not -value: a draw is 0.0, not -0.0


def my_actions(game: Game[Any], state: Any, player: int) -> tuple[int, ...]:
    """Return ``player``'s legal actions at ``state``."""
    return game.actions(state)[player - 1]


def revealed_prize(game: Game[Any], state: Any) -> int:
    """Return the prize on the table (games whose capabilities name a ``prize_field``).

    Raises:
        GameError: the game has no revealed prize.
    """
    where = game.capabilities.prize_field
    prize = getattr(state, where, None) if where else None
    if not prize:
        raise GameError(f"{game.name} has no revealed prize to match")
    return int(prize)


def _point(action: int) -> Policy:
    return {action: 1.0}


def _nearest(actions: tuple[int, ...], target: int) -> int:
    """The legal action closest to ``target`` (ties to the lower one)."""
    return min(actions, key=lambda a: (abs(a - target), a))


@dataclass(frozen=True, slots=True)
class Uniform:
    """Plays every legal action with the same probability."""

    symmetric: ClassVar[bool] = True
    """It plays alike at every position stored as one (``gamedb.play.sweep``)."""

    name: str = "random"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        acts = my_actions(game, state, player)
        return {a: 1.0 / len(acts) for a in acts}


@dataclass(frozen=True, slots=True)
class Highest:
    """Always plays its highest card (largest action)."""

    name: str = "highest"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        return _point(max(my_actions(game, state, player)))


@dataclass(frozen=True, slots=True)
class Lowest:
    """Always plays its lowest card (smallest action)."""

    name: str = "lowest"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        return _point(min(my_actions(game, state, player)))


@dataclass(frozen=True, slots=True)
class LevelK:
    """Level-k reasoning for Goofspiel (Dror & Kendall 2013).

    Level 0 is uniform random, level 1 bids the card equal to the prize (upcard
    matching), and level k + 1 is the deterministic best response to level k: for
    k >= 1 it bids ``((prize + k - 2) mod n) + 1``, so level 2 bids one above the prize
    and its ace on the king. Levels k and k + n coincide for k >= 1: with n cards there
    are n + 1 patterns (levels 0..n). A bid no longer in hand (only possible from a
    position the agent did not play itself) falls back to the nearest card.
    """

    k: int

    @property
    def name(self) -> str:
        return f"level-{self.k}"

    def bid(self, prize: int, n: int) -> int:
        """Return the bid for ``prize`` with ``n`` cards (k >= 1)."""
        return (prize + self.k - 2) % n + 1

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        if self.k == 0:
            return Uniform().policy(game, state, player)
        n = game.capabilities.cards
        acts = my_actions(game, state, player)
        return _point(_nearest(acts, self.bid(revealed_prize(game, state), n)))


def Matching() -> LevelK:  # noqa: N802  (reads as a class: an agent constructor)
    """Upcard matching: bid the card equal to the revealed prize (level 1)."""
    return LevelK(1)


@dataclass(frozen=True, slots=True)
class BidRange:
    """Oshi-Zumo heuristic: a uniform bid in ``low..min(high, coins)`` (legal bids only)."""

    low: int
    high: int

    @property
    def name(self) -> str:
        return f"bid-range-{self.low}-{self.high}"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        acts = my_actions(game, state, player)
        chosen = [a for a in acts if self.low <= a <= self.high] or [_nearest(acts, self.low)]
        return {a: 1.0 / len(chosen) for a in chosen}


@dataclass(frozen=True, slots=True)
class TwoElseOne:
    """Oshi-Zumo heuristic: bid 2 if you have 2 coins, else 1 (else whatever is legal)."""

    name: str = "two-else-one"

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        acts = my_actions(game, state, player)
        return _point(2 if 2 in acts else 1 if 1 in acts else min(acts))


__all__ = ["Agent", "BidRange", "Highest", "LevelK", "Lowest", "Matching", "Policy",
           "TwoElseOne", "Uniform", "my_actions", "pov", "revealed_prize"]
