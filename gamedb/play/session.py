"""A terminal game against the equilibrium, with explanations.

The session reads moves through ``read(prompt)`` (None at end of input) and writes
lines through ``write``, so a script or a test can drive it. After each round both
moves are revealed with the score; ``explain`` (or ``?``) prints the equilibrium's
mixed strategy at the current position and at the previous one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamedb.games.base import named_actions, shown
from gamedb.play.agents import pov
from gamedb.play.equilibrium import BeyondTheBook, Equilibrium
from gamedb.play.evaluate import has_points, round_points
from gamedb.play.simulate import sample
from gamedb.store import GameDB

Read = Callable[[str], "str | None"]
Write = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class SessionResult:
    """How an interactive game ended."""

    finished: bool
    """False when the human quit or input ran out."""
    payoff: float | None
    """The human's payoff, from the human's side (None if unfinished)."""
    rounds: int


def play_session(db: GameDB, read: Read, write: Write, *, seat: int = 1,
                 seed: int | None = None) -> SessionResult:
    """Play one game: the human in ``seat`` against the stored equilibrium."""
    game, rng = db.game, np.random.default_rng(seed)
    eq = Equilibrium(game, db)
    state, previous, rounds, score = sample(game.initial(), rng), None, 0, [0.0, 0.0]
    write(f"{game.spec}: you are player {seat}, the equilibrium is player {3 - seat}.")
    while (payoff := game.value(state)) is None:
        if (draws := game.chance(state)) is not None:
            state = sample(draws, rng)
            continue
        write(f"\nposition  {game.format_position(state)}")
        try:
            eq.strategies(state)
        except BeyondTheBook:
            write(_book_ends(db, rounds, score, seat))
            return SessionResult(False, None, rounds)
        mine = _ask(game, state, seat, read, write, eq, previous)
        if mine is None:
            write("Game abandoned.")
            return SessionResult(False, None, rounds)
        theirs = sample([(p, a) for a, p in eq.policy(game, state, 3 - seat).items()], rng)
        a, b = (mine, theirs) if seat == 1 else (theirs, mine)
        got = round_points(game, state, a, b)
        score = [score[0] + got[0], score[1] + got[1]]
        write(_round_text(game, state, seat, mine, theirs)
              + (f"; score you {score[seat - 1]:g}, equilibrium {score[2 - seat]:g}"
                 if has_points(game) else ""))
        previous, rounds = state, rounds + 1
        state = sample(game.next(state, a, b), rng)
    mine_payoff = pov(payoff, seat)
    verdict = "you win" if mine_payoff > 0 else "you lose" if mine_payoff < 0 else "a draw"
    write(f"\nGame over after {rounds} round{'s' * (rounds != 1)}: {verdict} "
          f"(payoff {mine_payoff:+g}).")
    return SessionResult(True, mine_payoff, rounds)


def _round_text(game: Any, state: Any, seat: int, mine: int, theirs: int) -> str:
    """What both players did: a pass is said as one (turn-based games)."""
    my_name = game.action_name(state, seat, mine)
    their_name = game.action_name(state, 3 - seat, theirs)
    if my_name == "pass":
        return f"you pass, the equilibrium played {their_name}"
    if their_name == "pass":
        return f"you played {my_name}, the equilibrium passes"
    return f"you played {my_name}, the equilibrium played {their_name}"


def _book_ends(db: GameDB, rounds: int, score: list[float], seat: int) -> str:
    """The last words of a game that reached the end of an opening book."""
    scored = (f"; score you {score[seat - 1]:g}, equilibrium {score[2 - seat]:g}"
              if has_points(db.game) else "")
    return (f"\nThe opening book ends here: {db.path.name} holds the first {rounds} "
            f"round{'s' * (rounds != 1)} (layer {db.meta.get('book_from_layer')} and up); "
            f"play on with the full file of the game{scored}.")


def _ask(game: Any, state: Any, seat: int, read: Read, write: Write, eq: Equilibrium,
         previous: Any) -> int | None:
    legal = named_actions(game, state)[seat]
    if len(legal) == 1:  # a pass, or a forced last card: nothing to ask
        (only, name), = legal.items()
        if name != "pass":
            write(f"your only {game.action_noun}: {name} (played for you)")
        return only
    # a name, or the number of a move named by words (a pass, a Tic-Toe cell) or by its
    # own number after the noun ("edge 3 (1-2)"); never the internal number of a move
    # named otherwise (committed Goofspiel's order 3-2-1 is not "5")
    typed = {str(a): a for a, name in legal.items()
             if not any(c.isdigit() for c in name)
             or name.startswith(f"{game.action_noun} {a} ")}
    typed |= {name: a for a, name in legal.items()}
    noun, names = game.action_noun, ", ".join(legal.values())
    while True:
        line = read(f"your {noun} ({names}; ? explains, quit ends)> ")
        if line is None or line.strip() in ("quit", "q", "exit"):
            return None
        text = line.strip()
        if text in ("?", "explain"):
            for label, where in (("now", state), ("previous position", previous)):
                if where is not None:
                    write(explain(eq, where, label))
        elif text in typed:
            return typed[text]
        else:
            write(f"{shown(text)} is not legal here; choose one of {names}")


def explain(eq: Equilibrium, state: Any, label: str = "now") -> str:
    """Describe both equilibrium strategies and the value at a decision state."""
    game = eq.game
    lines = [f"equilibrium at {label}: {game.format_position(state)}",
             f"  value for player 1: {round(eq.value(state), 4) + 0.0:+.4f}"]  # no -0.0000
    for player, strategy in zip((1, 2), eq.strategies(state)):
        mix = ", ".join(f"{game.action_name(state, player, a)}: {p:.3f}"
                        for a, p in sorted(strategy.items()))
        lines.append(f"  player {player} plays {mix}")
    return "\n".join(lines)


__all__ = ["SessionResult", "explain", "play_session"]
