"""The equilibrium agent: stored strategies, or strategies solved on the fly.

With a database the agent plays the strategies ``GameDB.probe`` returns (stored, or in a
values-only file solved on demand from the stored successor values). Where a file still
being built does not hold a position, and without a database, the stage game is solved
on the fly by memoised backward induction, which is fine for the small games used in
tests. A complete file holds every position play reaches: one it lacks is damage (its
spec changed, or rows removed), said as such, never solved around.

>>> from gamedb.games import load_game
>>> game = load_game("jujitsu(num_cards=3)")
>>> eq = Equilibrium.solve(game)
>>> start = game.initial()[0][1]
>>> round(eq.value(start), 12), {a: round(p, 3) for a, p in eq.policy(game, start, 1).items()}
(0.0, {1: 0.2, 2: 0.6, 3: 0.2})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gamedb.games.base import Game, GameError
from gamedb.play.agents import Policy, my_actions
from gamedb.solver.matrix_game import solve_matrix_game
from gamedb.store import GameDB, NotSolved
from gamedb.store.errors import DamagedFile

_Strategies = tuple[Policy, Policy]


class BeyondTheBook(GameError):
    """A position below an opening book: the book holds no strategy for it, and solving
    it here could take days."""


class Equilibrium:
    """Plays a stored (or freshly solved) equilibrium strategy in either seat."""

    name = "equilibrium"
    symmetric = True
    """It plays the stored strategies, alike at every position stored as one."""

    def __init__(self, game: Game[Any], db: GameDB | None = None):
        self.game = game
        self.db = db
        self._values: dict[Any, float] = {}
        self._strategies: dict[Any, _Strategies] = {}

    @classmethod
    def solve(cls, game: Game[Any]) -> Equilibrium:
        """Return an equilibrium agent that solves every position itself (small games)."""
        return cls(game)

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        return self.strategies(state)[player - 1]

    def strategies(self, state: Any) -> _Strategies:
        """Return both players' equilibrium strategies at a decision state."""
        if state not in self._strategies:
            entry = self.db.get(state) if self.db is not None else None
            if entry is not None and entry.strategies.get(1) and entry.strategies.get(2):
                self._values[state] = entry.value
                self._strategies[state] = (entry.strategies[1], entry.strategies[2])
            else:
                self._beyond_the_book(state)
                self._not_in_a_complete_file(state)
                self._solve_stage(state)
        return self._strategies[state]

    def prefetch(self, states: Sequence[Any]) -> None:
        """Solve at once (``GameDB.prefetch``) the decision ``states`` this agent has not
        met yet: a simulation shows it each round's positions of all its games."""
        if self.db is not None:
            self.db.prefetch([s for s in states if s not in self._strategies])

    def value(self, state: Any) -> float:
        """Return the equilibrium value of any state, from player 1's side."""
        if state in self._values:
            return self._values[state]
        game = self.game
        payoff = game.value(state)
        draws = game.chance(state) if payoff is None else None
        if payoff is not None:
            result = payoff
        elif draws is not None:
            result = sum(p * self.value(child) for p, child in draws)
        else:
            stored = self._stored_value(state)
            if stored is None:
                self._not_in_a_complete_file(state)
            result = self._solve_stage(state) if stored is None else stored
        self._values[state] = result
        return result

    def _beyond_the_book(self, state: Any) -> None:
        """Refuse a position below an opening book: solving it here could take days."""
        if self.db is None:
            return
        book = self.db.meta.get("book_from_layer")
        if book is not None and self.game.layer(state) < book:
            raise BeyondTheBook(f"{self.game.format_position(state)} is beyond the opening book "
                            f"{self.db.path.name} (layer {book} and up); play with the full "
                            "file of the game")

    def _not_in_a_complete_file(self, state: Any) -> None:
        """Refuse a decision position a complete file does not hold: the file is damaged
        (a changed spec: ``match`` answered for another game, silently)."""
        if self.db is None or self.db.meta.get("status") != "complete":
            return
        raise DamagedFile(self.db.path, f"position {self.game.format_position(state)} is not "
                          f"stored in this complete file of {self.game.spec}: its spec in "
                          "meta or its rows changed; gamedb verify says more")

    def _stored_value(self, state: Any) -> float | None:
        if self.db is None:
            return None
        try:
            return self.db.value(state)
        except NotSolved:
            return None

    def stage_matrix(self, state: Any) -> np.ndarray:
        """Return the stage game of a decision state: expected successor values."""
        acts1, acts2 = self.game.actions(state)
        return np.array([[sum(p * self.value(child) for p, child in self.game.next(state, a, b))
                          for b in acts2] for a in acts1])

    def _solve_stage(self, state: Any) -> float:
        acts1, acts2 = self.game.actions(state)
        solution = solve_matrix_game(self.stage_matrix(state))
        self._strategies[state] = (_as_policy(acts1, solution.row_strategy),
                                   _as_policy(acts2, solution.col_strategy))
        self._values[state] = solution.value
        return solution.value


class SupportRandom:
    """Plays uniformly among the actions the equilibrium plays with positive probability."""

    name = "support-random"

    def __init__(self, equilibrium: Equilibrium):
        self.equilibrium = equilibrium

    def prefetch(self, states: Sequence[Any]) -> None:
        self.equilibrium.prefetch(states)

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        support = [a for a, p in self.equilibrium.policy(game, state, player).items() if p > 1e-9]
        support = support or list(my_actions(game, state, player))
        return {a: 1.0 / len(support) for a in support}


class NashRange:
    """Buro's Nash-range player (2003): uniform over every legal action between the
    lowest and the highest action of the equilibrium's support, holes included.

    >>> from gamedb.games import load_game
    >>> game = load_game("oshi_zumo(coins=4,size=1)")
    >>> start = game.initial()[0][1]
    >>> eq = Equilibrium.solve(game)
    >>> support = sorted(a for a, p in eq.policy(game, start, 1).items() if p > 1e-9)
    >>> sorted(NashRange(eq).policy(game, start, 1)) == list(range(support[0], support[-1] + 1))
    True
    """

    name = "nash-range"

    def __init__(self, equilibrium: Equilibrium):
        self.equilibrium = equilibrium

    def prefetch(self, states: Sequence[Any]) -> None:
        self.equilibrium.prefetch(states)

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        support = [a for a, p in self.equilibrium.policy(game, state, player).items() if p > 1e-9]
        legal = my_actions(game, state, player)
        low, high = (min(support), max(support)) if support else (min(legal), max(legal))
        span = [a for a in legal if low <= a <= high]
        return {a: 1.0 / len(span) for a in span}


def _as_policy(actions: tuple[int, ...], probs: np.ndarray) -> Policy:
    return {a: float(p) for a, p in zip(actions, probs) if p > 0.0}


__all__ = ["BeyondTheBook", "Equilibrium", "NashRange", "SupportRandom"]
