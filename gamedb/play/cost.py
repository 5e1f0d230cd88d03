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

Each ``best-response:`` around an agent goes through the game once more. An
``equilibrium-vs:`` agent solves, in each seat it plays, a small LP (HiGHS) at every
decision position of the game as play meets it (*real* positions: the reference face
memoises on the state, which canonical keys do not merge, so 8-card Jujitsu has 98,000
of them for its 2,686 stored ones), and so does each ``equilibrium-vs:`` nested inside
it, in the other seat: ``VS_FIRST_SECONDS`` a real position for the outer level (it
reads the equilibrium's stage game there too), ``VS_NEXT_SECONDS`` for each level
inside. The real positions are walked (``decision_positions``), or extrapolated from
smaller sizes. Work estimated past ``LIMIT_SECONDS`` is refused in one line with the
estimate and what to do instead (``--force`` runs it anyway).

>>> from gamedb.games import load_game
>>> match_cost(load_game("jujitsu(num_cards=4)"), [("equilibrium", "random")]).solved
32
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gamedb.builder.estimate import COUNT_BUDGET, count_positions, duration, positions_of
from gamedb.games.base import Game, GameError
from gamedb.games.expansion import root_of

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
#: Moves (and draws) walked to count the real positions before extrapolating from
#: smaller sizes (~0.1 s a size).
REAL_BUDGET = 20_000
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
    passes = sum(name.count("best-response:") for name in names)  # a walk over the game each
    levels = {name: seats for name, seats in _seats(pairs).items()
              if name.count("equilibrium-vs:")}
    # exact matches behind an equilibrium walk about the whole game; the others are
    # counted only beside solving: what agents of their own reach is often a sliver of
    # the game (nim's highest against random), and counting every position of a big
    # game takes longer than that walk
    exact_walks = games is None and not closed_form
    behind = sum(any(map(_solves, pair)) for pair in pairs) if exact_walks else 0
    others = len(pairs) - behind if exact_walks and solving > 0 else 0
    positions, exact = (stored, True) if stored is not None else (0, True)
    if stored is None and (solving or passes or behind):
        positions, exact = _positions(game)
    solved = positions * solving
    visited = positions * (behind + others + passes)
    moves = (games or 0) * len(pairs) * _length(game)
    seconds = (solved / SOLVED_PER_SECOND + positions * (others + passes) / VISITED_PER_SECOND
               + positions * behind / EQUILIBRIUM_WALKED_PER_SECOND + moves * MOVE_SECONDS)
    real = decision_positions(game)[0] if levels else 0
    answered = sum(real * name.count("equilibrium-vs:") * seats for name, seats in levels.items())
    seconds += sum(real * seats * (VS_FIRST_SECONDS + (name.count("equilibrium-vs:") - 1)
                                   * VS_NEXT_SECONDS) for name, seats in levels.items())
    return Cost(positions, exact, solved, visited, moves, seconds, answered, real)


def decision_positions(game: Game[Any]) -> tuple[int, bool]:
    """Return (the game's real decision positions, exact): walked within ``REAL_BUDGET``
    positions, else extrapolated over its size parameter from smaller sizes, else (no
    such parameter) its canonical positions, a lower bound."""
    try:
        return count_positions(game, REAL_BUDGET, counter=_decisions_within)
    except GameError:
        return _positions(game)[0], False


def _decisions_within(game: Game[Any], budget: int) -> int | None:
    """Walk the positions of ``game`` as play meets them (its reference face, states
    not merged); return the decision positions, or None past ``budget`` moves."""
    todo = [s for _, s in game.initial()]
    seen, decisions, walked = set(todo), 0, 0
    while todo:
        state = todo.pop()
        if game.value(state) is not None:
            continue
        draws = game.chance(state)
        decisions += draws is None
        for child in _children(game, state, draws):
            walked += 1
            if walked > budget:
                return None
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return decisions


def _children(game: Game[Any], state: Any, draws: Any) -> Iterator[Any]:
    """The positions one draw or one joint move leads to (lazily: 1,000-coin Oshi-Zumo
    has a million joint moves at its start)."""
    if draws is not None:
        yield from (child for _, child in draws)
        return
    acts1, acts2 = game.actions(state)
    for a in acts1:
        for b in acts2:
            yield from (child for _, child in game.next(state, a, b))


def _seats(pairs: Sequence[tuple[str, str]]) -> dict[str, int]:
    """How many seats (1 or 2) each agent plays in ``pairs``."""
    seats: dict[str, set[int]] = {}
    for first, second in pairs:
        seats.setdefault(first, set()).add(1)
        seats.setdefault(second, set()).add(2)
    return {name: len(taken) for name, taken in seats.items()}


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


def _positions(game: Game[Any]) -> tuple[int, bool]:
    """The game's positions, counted or extrapolated (a lower bound past the count's
    budget when no size parameter extrapolates)."""
    try:
        return positions_of(game)
    except GameError:  # no size parameter to extrapolate over: more than the budget
        return COUNT_BUDGET, False


def _length(game: Game[Any]) -> int:
    """The most moves a game lasts: its start's layer (every move lowers the layer)."""
    return max(1, int(game.layer_of(root_of(game).keys).max()))
