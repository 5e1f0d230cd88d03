"""Agents by name, as the command line writes them.

>>> from gamedb.games import load_game
>>> make_agent("level-2", load_game("goofspiel(num_cards=5)")).name
'level-2'
>>> make_agent("best-response:random", load_game("jujitsu(num_cards=3)")).name
'best-response:random'
>>> make_agent("equilibrium-vs:highest", load_game("jujitsu(num_cards=3)")).name
'equilibrium-vs:highest'
"""

from __future__ import annotations

import re
from typing import Any

from gamedb.games.base import Game, GameError, shown
from gamedb.play.agents import Agent, BidRange, Highest, LevelK, Lowest, TwoElseOne, Uniform
from gamedb.play.equilibrium import Equilibrium, NashRange, SupportRandom
from gamedb.play.evaluate import BestResponse
from gamedb.store import GameDB



def make_agent(name: str, game: Game[Any], db: GameDB | None = None, *,
               equilibrium: Equilibrium | None = None) -> Agent:
    """Return the agent called ``name`` for ``game`` (listed by ``gamedb match --help``).

    ``equilibrium`` is the one the agents of a nested name share (solved or read once).

    Raises:
        GameError: an unknown name, or an agent that makes no sense in this game.
    """
    name = name.strip()
    prefix, colon, inner = name.partition(":")
    if colon and prefix in ("best-response", "equilibrium-vs") and not inner.strip():
        raise GameError(f"agent {name!r} needs the agent it answers after the colon, "
                        f"e.g. {prefix}:highest")
    eq = equilibrium if equilibrium is not None else Equilibrium(game, db)
    if name.startswith("best-response:"):
        return BestResponse(game, make_agent(inner, game, db, equilibrium=eq))
    if name.startswith("equilibrium-vs:"):
        from gamedb.play.exploiting import EquilibriumVs  # SciPy: on demand
        return EquilibriumVs(eq, make_agent(inner, game, db, equilibrium=eq))
    if name in ("equilibrium", "support-random", "nash-range"):
        wrapped: dict[str, Agent] = {"equilibrium": eq, "support-random": SupportRandom(eq),
                                     "nash-range": NashRange(eq)}
        return wrapped[name]
    simple: dict[str, Agent] = {"random": Uniform(), "highest": Highest(), "lowest": Lowest(),
                                "two-else-one": TwoElseOne()}
    if name in simple:
        return simple[name]
    level = re.fullmatch(r"level-(\d{1,9})", name)
    if name == "matching" or level:
        k = int(level.group(1)) if level else 1
        if k and game.capabilities.prize_field is None:
            raise GameError(f"agent {name!r} needs a revealed prize, which {game.name} has not")
        return LevelK(k)
    if ":" in name:  # module:callable, openspiel:module:attr
        from gamedb.play.external import load_external

        return load_external(name, game, db)
    if match := re.fullmatch(r"bid-range-(\d{1,9})-(\d{1,9})", name):
        low, high = int(match.group(1)), int(match.group(2))
        if low > high:
            raise GameError(f"agent {name!r}: empty range {low}..{high}")
        return BidRange(low, high)
    raise GameError(f"unknown agent {shown(name, 40)}; known: equilibrium, random, highest, lowest, "
                    "matching, level-K, bid-range-L-H, two-else-one, support-random, "
                    "nash-range, best-response:AGENT, equilibrium-vs:AGENT, module:callable, "
                    "openspiel:module:attr")


__all__ = ["make_agent"]
