"""Agents written outside gamedb: ``module:callable`` and ``openspiel:module:attr``.

* ``module:callable`` names a Python function ``f(game, state, player) -> {action:
  probability}`` (gamedb's ``Agent.policy``: real actions of ``player``, 1 or 2), or an
  object with such a ``policy`` method. The module is imported from the current
  directory or ``sys.path``.
* ``openspiel:module:attr`` names an OpenSpiel policy (an
  ``open_spiel.python.policy.Policy``), or a function that takes the ``pyspiel.Game``
  and returns one; it is asked at an OpenSpiel state of each position
  (``gamedb.openspiel.agent``; needs a file and OpenSpiel).

Every answer is checked: a distribution over the player's legal actions, else a
one-line ``GameError`` naming the agent and the position.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gamedb.games.base import Game, GameError, shown
from gamedb.play.agents import Agent, Policy
from gamedb.store import GameDB

#: How far an agent's probabilities may sum from 1.
SUM_TOLERANCE = 1e-6


class CallableAgent:
    """An agent from a function ``f(game, state, player) -> {action: probability}``."""

    def __init__(self, name: str, function: Callable[[Game[Any], Any, int], Any]):
        self.name = name
        self.function = function

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        with agent_errors(self.name, f" at {game.format_position(state)} (player {player})"):
            answer = self.function(game, state, player)
        return checked_policy(self.name, game, state, player, answer)


@contextmanager
def agent_errors(name: str, where: str = "") -> Iterator[None]:
    """Turn an exception raised by an agent's own code into a one-line ``GameError``."""
    try:
        yield
    except GameError:
        raise
    except Exception as exc:
        raise GameError(f"agent {name} failed{where}: {type(exc).__name__}: "
                        f"{shown(str(exc), 80)}") from None


def checked_policy(name: str, game: Game[Any], state: Any, player: int, answer: Any) -> Policy:
    """Return an agent's answer as a policy, or raise ``GameError`` if it is not a
    distribution over ``player``'s legal actions at ``state``."""
    legal = set(game.actions(state)[player - 1])
    where = f"agent {name} at {game.format_position(state)} (player {player})"
    try:
        policy = {int(a): float(p) for a, p in dict(answer).items() if float(p) != 0.0}
    except (TypeError, ValueError):
        raise GameError(f"{where} returned {shown(repr(answer), 40)}, not a mapping "
                        "{action: probability}") from None
    if unknown := sorted(set(policy) - legal):
        raise GameError(f"{where} plays {unknown[0]}, not a legal action "
                        f"({', '.join(map(str, sorted(legal)))})")
    total = math.fsum(policy.values())
    if min(policy.values(), default=-1.0) < 0.0 or abs(total - 1.0) > SUM_TOLERANCE:
        raise GameError(f"{where} returned probabilities summing to {total:.6g} "
                        "(each must be >= 0, all summing to 1)")
    return policy


def load_external(name: str, game: Game[Any], db: GameDB | None) -> Agent:
    """Return the agent ``module:callable`` or ``openspiel:module:attr`` names.

    Raises:
        GameError: the module or attribute cannot be loaded, or is no agent.
    """
    if name.startswith("openspiel:"):
        if db is None:
            raise GameError(f"agent {name}: an OpenSpiel policy needs a database file "
                            "of the game (its states come from the file's spec)")
        from gamedb.openspiel import require_openspiel  # OpenSpiel: only here
        from gamedb.openspiel.agent import openspiel_agent

        require_openspiel()  # before the policy's module: say how to install OpenSpiel
        return openspiel_agent(name, load_attribute(name.partition(":")[2], name), db)
    found = load_attribute(name)
    if callable(getattr(found, "policy", None)):
        return CallableAgent(name, found.policy)
    if not callable(found):
        raise GameError(f"agent {name} is neither a function (game, state, player) -> "
                        "{action: probability} nor an object with such a policy method")
    return CallableAgent(name, found)


def load_attribute(path: str, agent: str | None = None) -> Any:
    """Return the attribute ``module:attr`` names (``attr`` may be dotted); errors name
    the ``agent`` as typed (``openspiel:module:attr``), ``path`` by default."""
    module_name, colon, attribute = path.partition(":")
    said = shown(agent or path, 60)
    if not colon or not module_name.strip() or not attribute.strip():
        raise GameError(f"agent {said}: expected module:callable")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` would: the user's own modules
    try:
        found: Any = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise GameError(f"agent {said}: cannot import {module_name!r}: {exc}") from None
    for part in attribute.strip().split("."):
        if not hasattr(found, part):
            raise GameError(f"agent {said}: {module_name} has no {attribute.strip()!r}")
        found = getattr(found, part)
    return found


__all__ = ["CallableAgent", "SUM_TOLERANCE", "agent_errors", "checked_policy", "load_attribute", "load_external"]
