"""What play reaches: the real positions and moves of a game as its reference face meets
them, counted before the work (``gamedb.play.cost``).

The agents that look ahead (``best-response:``, ``equilibrium-vs:``) recurse over the
reference face, memoised on the state, which canonical keys do not merge: 8-card Jujitsu
has ~100,000 real decision positions for its 2,686 stored ones. A walk counts them within
``REAL_BUDGET`` moves, else extrapolates from smaller sizes of the game
(``gamedb.builder.estimate.count_positions``), about 0.1 s a count.

A best response weighs, at each real decision position of its seat that it reaches,
each of its actions against each action in the support of the agent it answers, and
each outcome of the pair: ``best_response_reach`` counts those positions and moves,
following that agent's own policy when it is given (a rule of the position, such as
random or highest: the same policy in a smaller game), else every move.

>>> from gamedb.games import load_game
>>> from gamedb.play.agents import Highest
>>> game = load_game("jujitsu(num_cards=4)")
>>> decision_positions(game)  # the file stores 32 positions
(185, True)
>>> best_response_reach(game, None, 2)  # every move
Reach(decisions=185, moves=580, exact=True)
>>> best_response_reach(game, Highest(), 2)  # what answering highest walks
Reach(decisions=31, moves=53, exact=True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gamedb.builder.estimate import COUNT_BUDGET, count_positions, positions_of
from gamedb.games.base import Game, GameError
from gamedb.play.agents import Agent

#: Moves (and draws) walked to count the real positions before extrapolating from
#: smaller sizes (~0.1 s a size).
REAL_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Reach:
    """What a best response walks, counted or extrapolated."""

    decisions: int
    """Real decision positions it reaches (in its seat: every one reached)."""
    moves: int
    """Moves it weighs there: its actions against the answered agent's support (every
    action when no policy is given), each outcome, and each chance draw on the way."""
    exact: bool
    """Both counted (not extrapolated, nor a lower bound)."""


def decision_positions(game: Game[Any]) -> tuple[int, bool]:
    """Return (the game's real decision positions, exact): walked within ``REAL_BUDGET``
    positions, else extrapolated over its size parameter from smaller sizes, else (no
    such parameter) its canonical positions, a lower bound."""
    return _counted(game, lambda smaller, budget: _walked(smaller, budget, None), 0)


def best_response_reach(game: Game[Any], answered: Agent | None, seat: int) -> Reach:
    """Count what a best response to ``answered`` playing ``seat`` walks: following
    ``answered``'s policy (an agent whose policy is a rule of the position, the same in
    a smaller game of the family), or every move (None: an agent too costly to ask
    here, such as one that reads or solves an equilibrium)."""
    against = None if answered is None else (answered, seat)
    walks: dict[tuple[str, int], tuple[int, int] | None] = {}

    def walk(smaller: Game[Any], budget: int) -> tuple[int, int] | None:
        """Each size walked once for both counts."""
        key = (smaller.spec, budget)
        if key not in walks:
            walks[key] = _walked(smaller, budget, against)
        return walks[key]

    decisions, exact = _counted(game, walk, 0)
    moves, moves_exact = _counted(game, walk, 1)
    return Reach(decisions, moves, exact and moves_exact)


Walk = Callable[[Game[Any], int], "tuple[int, int] | None"]
"""A walk of a game within a budget of moves: (decision positions, moves), or None."""


def _counted(game: Game[Any], walk: Walk, which: int) -> tuple[int, bool]:
    """Count ``walk``'s decision positions (``which`` 0) or moves (1) within
    ``REAL_BUDGET``, else extrapolated, else a lower bound: the game's canonical
    positions (no size parameter to extrapolate over)."""
    def counter(smaller: Game[Any], budget: int) -> int | None:
        walked = walk(smaller, budget)
        return None if walked is None else walked[which]

    try:
        return count_positions(game, REAL_BUDGET, counter=counter)
    except GameError:
        try:
            return positions_of(game)[0], False
        except GameError:  # more than the count's budget
            return COUNT_BUDGET, False


def _walked(game: Game[Any], budget: int,
            against: tuple[Agent, int] | None) -> tuple[int, int] | None:
    """Walk the positions of ``game`` as play meets them (its reference face, states
    not merged), each joint move, or (``against``: an agent and its seat) only those in
    that agent's support; return (the decision positions, the moves and draws walked),
    or None past ``budget`` moves."""
    todo = [s for _, s in game.initial()]
    seen, decisions, walked = set(todo), 0, 0
    while todo:
        state = todo.pop()
        if game.value(state) is not None:
            continue
        draws = game.chance(state)
        decisions += draws is None
        for child in _children(game, state, draws, against):
            walked += 1
            if walked > budget:
                return None
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return decisions, walked


def _children(game: Game[Any], state: Any, draws: Any,
              against: tuple[Agent, int] | None) -> Iterator[Any]:
    """The positions one draw or one joint move leads to (lazily: 1,000-coin Oshi-Zumo
    has a million joint moves at its start); ``against``: only the moves in that agent's
    support, in its seat."""
    if draws is not None:
        yield from (child for _, child in draws)
        return
    acts1, acts2 = game.actions(state)
    if against is not None:
        agent, seat = against
        support = tuple(a for a, p in agent.policy(game, state, seat).items() if p > 0)
        acts1, acts2 = (support, acts2) if seat == 1 else (acts1, support)
    for a in acts1:
        for b in acts2:
            yield from (child for _, child in game.next(state, a, b))
