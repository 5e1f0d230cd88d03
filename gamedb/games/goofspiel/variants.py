"""Which class plays a Goofspiel spec with options, and the combinations refused.

``Goofspiel.create`` hands every spec with ``dummy=true``, ``rounds=R < num_cards`` or
``committed=true`` here. Each option lives in its own module:

* ``goofspiel.rounds``: ``rounds=R`` alone (plain Goofspiel's keys, fewer rounds);
* ``goofspiel.dummy``: ``dummy=true``, with or without ``rounds=R``;
* ``goofspiel.committed``: ``committed=true``, one matrix game over bid orders.

Refused, one line each: ``rounds`` above ``num_cards``; ``dummy`` or ``rounds`` with a
fixed prize order; ``dummy`` with ``ties=carry``; ``committed`` with ``dummy`` or
``rounds``; ``committed`` beyond 6 cards and ``dummy`` beyond 9 (see their modules).
A variant's spec names the options it uses, so plain Goofspiel's specs are unchanged.

>>> from gamedb.games import load_game
>>> load_game("goofspiel(num_cards=5,rounds=2)").spec
'goofspiel(num_cards=5,points_order=random,returns_type=win_loss,rounds=2,ties=discard)'
>>> load_game("goofspiel(num_cards=5,rounds=5)").spec  # every round: plain Goofspiel
'goofspiel(num_cards=5,points_order=random,returns_type=win_loss,ties=discard)'
>>> load_game("goofspiel(committed=true,dummy=true)")
Traceback (most recent call last):
...
gamedb.games.base.GameError: committed=true does not combine with dummy=true or rounds=
"""

from __future__ import annotations

from typing import Any

from gamedb.games.base import Game, GameError


def variant(dummy: bool, rounds: int, committed: bool, params: dict[str, Any]) -> Game[Any]:
    """Return the variant game of the options, or raise ``GameError`` for a refused one.

    Args:
        dummy: ``dummy=true``.
        rounds: ``rounds=R`` (0: every card).
        committed: ``committed=true``.
        params: plain Goofspiel's parameters (``num_cards``, ``points_order``, ...).
    """
    n = params.get("num_cards", 4)
    if rounds > n:
        raise GameError(f"rounds={rounds} must be at most num_cards={n}")
    if committed:
        if dummy or rounds:
            raise GameError("committed=true does not combine with dummy=true or rounds=")
        from gamedb.games.goofspiel.committed import GoofspielCommitted
        return GoofspielCommitted(**params)
    if params.get("points_order", "random") != "random":
        option = "dummy=true" if dummy else f"rounds={rounds}"
        raise GameError(f"{option} needs points_order=random (all prizes are shuffled)")
    if dummy:
        from gamedb.games.goofspiel.dummy import GoofspielDummy
        return GoofspielDummy(rounds=rounds, **params)
    from gamedb.games.goofspiel.rounds import GoofspielRounds
    return GoofspielRounds(rounds=rounds, **params)


__all__ = ["variant"]
