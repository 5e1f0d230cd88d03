"""An OpenSpiel policy as a gamedb agent, so gamedb can score it exactly.

At each gamedb position the policy is asked at one OpenSpiel state that reaches it
(``Bridge.state``: OpenSpiel's state also holds the order of past prizes and each
player's points, which the position leaves out). A policy that reads only the position
(a Markov policy) is scored exactly; one that reads the rest of OpenSpiel's state is
scored as if it always answered as at that state. Where a player has one move (the
last round of Goofspiel, which OpenSpiel plays by itself) it is played without asking.
"""

from __future__ import annotations

from typing import Any

from gamedb.games.base import Game, GameError
from gamedb.openspiel.bridge import Bridge
from gamedb.play.agents import Policy
from gamedb.play.external import agent_errors, checked_policy
from gamedb.store import GameDB


class OpenSpielAgent:
    """Plays an ``open_spiel.python.policy.Policy`` in a gamedb game (either seat)."""

    def __init__(self, name: str, policy: Any, bridge: Bridge):
        self.name = name
        self.openspiel_policy = policy
        self.bridge = bridge
        self._states: dict[Any, Any] = {}

    def policy(self, game: Game[Any], state: Any, player: int) -> Policy:
        actions = game.actions(state)[player - 1]
        if len(actions) == 1:
            return {actions[0]: 1.0}
        if state not in self._states:
            self._states[state] = self.bridge.state(state)
        with agent_errors(self.name, f" at {game.format_position(state)} (player {player})"):
            answer = self.openspiel_policy.action_probabilities(self._states[state], player - 1)
        real = {self.bridge.translation.from_openspiel(int(a)): p for a, p in answer.items()}
        return checked_policy(self.name, game, state, player, real)


def openspiel_agent(name: str, found: Any, db: GameDB) -> OpenSpielAgent:
    """Return the agent of an OpenSpiel policy, or of a function that makes one from the
    ``pyspiel.Game`` (``found``), playing the game of ``db``."""
    bridge = Bridge(db)
    policy = found
    if isinstance(found, type) or (  # a Policy class (UniformRandomPolicy) or a factory
            not callable(getattr(found, "action_probabilities", None)) and callable(found)):
        with agent_errors(name, f" making its policy for {bridge.openspiel_game}"):
            policy = found(bridge.openspiel_game)
    if not callable(getattr(policy, "action_probabilities", None)):
        raise GameError(f"agent {name} is not an OpenSpiel policy (action_probabilities"
                        "(state, player_id)) nor a function of the pyspiel game that returns one")
    return OpenSpielAgent(name, policy, bridge)


__all__ = ["OpenSpielAgent", "openspiel_agent"]
