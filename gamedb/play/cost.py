"""Cost before work: what a match or a tournament would do, refused up front past a bound.

Three kinds of work, each at a rate measured on this project's 2-core machine
(2026-11-26):

* an equilibrium without a file solves one small LP per position in Python:
  ~500 positions a second (``goofspiel(num_cards=6,returns_type=point_difference)``
  against random: 50 s; ``oshi_zumo(coins=60,size=3)``: 70 s);
* an exact match visits every position both agents reach: ~30,000 a second
  (``goofspiel(num_cards=7)`` random against highest: 127,542 positions in 4.3 s), often
  a sliver of the game; behind an equilibrium (its support is wide) about all of them,
  and each of its many real positions reads strategies: ~300 positions of the game a
  second (CPU: ``jujitsu(num_cards=8)`` equilibrium against random, 2,686 in 18 s;
  6-card Goofspiel, 26,029 in 48 s), with a file or without;
* a simulated game costs ~0.2 ms a move (``jujitsu(num_cards=8)``, 2,000 games in ~3 s
  once solved).

A ``best-response:`` agent walks, in each seat it plays, once, every real position the
agent it answers lets it reach, weighing its moves there (``gamedb.play.reach``); nested
inside another agent, once more in the other seat. Against a rule of the position
(random, highest, level-K, ...) those moves are counted with the rule's own policy, at
``BR_MOVE_SECONDS`` each; against an agent that reads an equilibrium, every move of the
game at ``BR_EQUILIBRIUM_MOVE_SECONDS`` and every real decision position at
``BR_READ_SECONDS`` (its strategies read there); against any other, every move at
``BR_MOVE_SECONDS``.

An ``equilibrium-vs:`` agent solves, in each seat it plays, a small LP (HiGHS) at every
real decision position of the game (8-card Jujitsu has ~100,000 for its 2,686 stored
ones), and so does each ``equilibrium-vs:`` nested inside
it, in the other seat: ``VS_FIRST_SECONDS`` a real position for the outer level (it
reads the equilibrium's stage game there too), ``VS_NEXT_SECONDS`` for each level
inside. Work estimated past ``LIMIT_SECONDS`` is refused in one line with the
estimate and what to do instead (``--force`` runs it anyway).

>>> from gamedb.games import load_game
>>> match_cost(load_game("jujitsu(num_cards=4)"), [("equilibrium", "random")]).solved
32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gamedb.builder.estimate import COUNT_BUDGET, duration, positions_of
from gamedb.games.base import Game, GameError
from gamedb.games.expansion import top_layer
from gamedb.play.agents import Agent
from gamedb.play.reach import Reach, best_response_reach, decision_positions

#: Positions an equilibrium solves a second without a file (one LP each, in Python).
SOLVED_PER_SECOND = 500
#: Positions an exact match visits a second.
VISITED_PER_SECOND = 30_000
#: Positions of the game an exact match walks a second when an agent follows an
#: equilibrium (it reaches about every position, each read in many real ones).
EQUILIBRIUM_WALKED_PER_SECOND = 300
#: Seconds a simulated move takes (both agents choose, the game moves on).
MOVE_SECONDS = 0.2e-3
#: CPU seconds an ``equilibrium-vs:`` agent spends at a real decision position, measured
#: (2026-11-26, with a file; one seat): 1.2-2.2 ms, 1.6 typical (5- and 6-card Jujitsu,
#: 4- and 5-card Goofspiel, Oshi-Zumo of 12 and 20 coins); 0.9 without a file.
VS_FIRST_SECONDS = 1.6e-3
#: The same for each ``equilibrium-vs:`` level nested inside: 0.2-1.2 ms, 0.6 typical.
VS_NEXT_SECONDS = 0.6e-3
#: CPU seconds a ``best-response:`` agent spends on a move it weighs, measured
#: (2026-11-26, one seat): 2.3-4.4 us (7-card Jujitsu, 5-card Goofspiel, Oshi-Zumo of 20
#: and 50 coins against random; 6- and 7-card Goofspiel against highest and lowest), and
#: 1.7 us on a faster machine (7-card Jujitsu against random, 2026-11-27): the geometric
#: middle of 1.7-4.4, so that both ends stay within a factor of two.
BR_MOVE_SECONDS = 2.7e-6
#: Against an agent that reads an equilibrium from a file, a best response's CPU
#: seconds are about these times the real decision positions and every move of the game
#: (its support is narrower; measured 2026-11-26: 5- and 6-card Goofspiel, 7- and 8-card
#: Jujitsu, 50-coin Oshi-Zumo: 2.3-43.6 s, within 1.4x of the sum).
BR_READ_SECONDS = 100e-6
BR_EQUILIBRIUM_MOVE_SECONDS = 1e-6
#: Work estimated past this is refused without ``--force``.
LIMIT_SECONDS = 300.0
#: Agents that solve the game themselves when no file gives its equilibrium.
_SOLVING = ("equilibrium", "support-random", "nash-range")
#: Prefixes that wrap an agent in one more pass over the game.
_WRAPPING = ("best-response:", "equilibrium-vs:")


class TooCostly(GameError):
    """A request whose estimated work is past ``LIMIT_SECONDS`` (``--force`` runs it)."""


@dataclass(frozen=True, slots=True)
class Cost:
    """The work a match or tournament would do, estimated before it starts."""

    positions: int
    """Positions of the game (counted, or extrapolated when ``exact`` is False)."""
    exact: bool
    solved: int
    """Positions solved on the fly (no file holds their equilibrium)."""
    visited: int
    """Positions visited by exact matches (and best responses)."""
    moves: int
    """Moves of simulated games (at most: games times the game's length)."""
    seconds: float
    answered: int = 0
    """LPs the ``equilibrium-vs:`` agents solve: real decision positions x levels x seats."""
    real: int = 0
    """Real decision positions of the game (counted or extrapolated), when asked for."""
    responses: int = 0
    """Moves the ``best-response:`` agents weigh (each level and seat)."""


def match_cost(game: Game[Any], pairs: Sequence[tuple[str, str]], *, has_file: bool = False,
               games: int | None = None, closed_form: bool = False,
               stored: int | None = None) -> Cost:
    """Estimate the work of a match (one pair of agents) or a tournament (each of its
    matches: a pairing in each seat).

    Args:
        game: the game.
        pairs: the agents of each match (player 1's, player 2's), as ``make_agent``
            reads them.
        has_file: a database gives the equilibrium (nothing is solved on the fly but
            ``equilibrium-vs:``'s LPs).
        games: games simulated per match (None: exact matches).
        closed_form: the exact matches have a closed form (``prize_match``).
        stored: the file's positions (the game's are counted otherwise).
    """
    names = {name for pair in pairs for name in pair}
    solving = 0 if has_file else sum(1 for name in names if _solves(name))
    levels = {name: len(seats) for name, seats in _seats(pairs).items()
              if name.count("equilibrium-vs:")}
    # exact matches behind an equilibrium walk about the whole game; the others are
    # counted only beside solving: what agents of their own reach is often a sliver of
    # the game (nim's highest against random), and counting every position of a big
    # game takes longer than that walk
    exact_walks = games is None and not closed_form
    behind = sum(any(map(_follows, pair)) for pair in pairs) if exact_walks else 0
    others = len(pairs) - behind if exact_walks and solving > 0 else 0
    positions, exact = (stored, True) if stored is not None else (0, True)
    if stored is None and (solving or behind):
        positions, exact = _positions(game)
    solved = positions * solving
    visited = positions * (behind + others)
    moves = (games or 0) * len(pairs) * _length(game)
    seconds = (solved / SOLVED_PER_SECOND + positions * others / VISITED_PER_SECOND
               + positions * behind / EQUILIBRIUM_WALKED_PER_SECOND + moves * MOVE_SECONDS)
    real = decision_positions(game)[0] if levels else 0
    answered = sum(real * name.count("equilibrium-vs:") * seats for name, seats in levels.items())
    seconds += sum(real * seats * (VS_FIRST_SECONDS + (name.count("equilibrium-vs:") - 1)
                                   * VS_NEXT_SECONDS) for name, seats in levels.items())
    weighed, seconds_of_responses = _responses_cost(game, pairs)
    return Cost(positions, exact, solved, visited, moves, seconds + seconds_of_responses,
                answered, real, weighed)


def _responses_cost(game: Game[Any], pairs: Sequence[tuple[str, str]]) -> tuple[int, float]:
    """The moves the ``best-response:`` agents of ``pairs`` weigh, and their seconds."""
    weighed, seconds = 0, 0.0
    reached: dict[tuple[str, int], Reach] = {}  # each count once
    for name, seat in _responses(pairs):
        if (name, seat) not in reached:
            reached[name, seat] = best_response_reach(game, _rule(name, game), seat)
        reach = reached[name, seat]
        weighed += reach.moves
        seconds += (reach.moves * BR_EQUILIBRIUM_MOVE_SECONDS + reach.decisions * BR_READ_SECONDS
                    if _follows(name) else reach.moves * BR_MOVE_SECONDS)
    return weighed, seconds


def _rule(name: str, game: Game[Any]) -> Agent | None:
    """The agent called ``name`` when its policy is a rule of the position (cheap to ask,
    the same in a smaller game); None for one that solves, wraps or is external."""
    if _solves(name) or name.startswith(_WRAPPING) or ":" in name:
        return None
    from gamedb.play.names import make_agent  # the agents' modules: only when asked

    return make_agent(name, game)


def _seats(pairs: Sequence[tuple[str, str]]) -> dict[str, set[int]]:
    """The seats (1, 2) each agent plays in ``pairs``."""
    seats: dict[str, set[int]] = {}
    for first, second in pairs:
        seats.setdefault(first, set()).add(1)
        seats.setdefault(second, set()).add(2)
    return seats


def _responses(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, int]]:
    """Each ``best-response:`` level of the agents in ``pairs``, in each seat it plays:
    (the agent it answers, that agent's seat). Levels nested in another agent play the
    other seat from it, as its opponent does."""
    found = []
    for name, taken in _seats(pairs).items():
        for seat in sorted(taken):
            inner = name.strip()
            while inner.startswith(_WRAPPING):
                prefix, _, inner = inner.partition(":")
                inner = inner.strip()
                if prefix == "best-response":
                    found.append((inner, 3 - seat))
                seat = 3 - seat
    return found


def check_cost(cost: Cost, what: str, instead: str) -> None:
    """Raise ``TooCostly`` when ``cost`` is past ``LIMIT_SECONDS``.

    Args:
        cost: the estimate.
        what: the request, for the message (``match of oshi_zumo(...)``).
        instead: what to do instead.
    """
    if cost.seconds <= LIMIT_SECONDS:
        return
    count = f"{cost.positions:,}" if cost.exact else f"about {cost.positions:.1e}"
    parts = [f"{count} positions" if cost.positions else "",
             f"{cost.solved:,} solved on the fly" if cost.solved else "",
             f"{cost.answered:,} optimal-face LPs of equilibrium-vs: (about {cost.real:,} "
             "real positions a level and seat)" if cost.answered else "",
             f"{cost.visited:,} visited" if cost.visited else "",
             f"{cost.responses:,} moves weighed by best-response:" if cost.responses else "",
             f"{cost.moves:,} moves simulated" if cost.moves else ""]
    raise TooCostly(f"{what} would take about {duration(cost.seconds)} "
                    f"({', '.join(p for p in parts if p)}); refused beyond "
                    f"{duration(LIMIT_SECONDS)}: {instead}, or add --force to run it anyway")


def _solves(name: str) -> bool:
    """True for an agent that solves the game when no file gives its equilibrium."""
    inner = name
    while inner.startswith(_WRAPPING):
        if inner.startswith("equilibrium-vs:"):
            return True
        inner = inner.partition(":")[2]
    return inner.strip() in _SOLVING


def _follows(name: str) -> bool:
    """True for an agent that follows an equilibrium (a wide support, its strategies
    read at every position); a best response plays one move."""
    name = name.strip()
    return name in _SOLVING or name.startswith("equilibrium-vs:")


def _positions(game: Game[Any]) -> tuple[int, bool]:
    """The game's positions, counted or extrapolated (a lower bound past the count's
    budget when no size parameter extrapolates)."""
    try:
        return positions_of(game)
    except GameError:  # no size parameter to extrapolate over: more than the budget
        return COUNT_BUDGET, False


def _length(game: Game[Any]) -> int:
    """The most moves a game lasts: its start's layer (every move lowers the layer)."""
    return max(1, top_layer(game))
