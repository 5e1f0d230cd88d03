"""The stored equilibrium, or any gamedb agent, as an OpenSpiel policy.

``EquilibriumPolicy`` is an ``open_spiel.python.policy.Policy`` for both players: at a
simultaneous node OpenSpiel asks each player apart (``action_probabilities(state,
player_id)``), and each gets its stored equilibrium strategy; at a chance node the
chance outcomes. So it plays with ``PolicyBot``, ``evaluate_bots`` and
``expected_game_score.policy_value`` (which needs the two players' policies in one).

``AgentPolicy`` does the same for any gamedb agent (``gamedb.play.names.make_agent``):
``equilibrium-vs:AGENT`` (the optimal strategy that earns most against AGENT),
``level-2``, ``nash-range``, ... It asks the agent at the OpenSpiel state's position
(``Bridge.position``), in real cards; where the outcome is already decided (win/loss)
it plays uniformly, as ``EquilibriumPolicy`` does.

Importing this module imports OpenSpiel (``gamedb.openspiel.require_openspiel`` says
how to install it when it is missing).
"""

from __future__ import annotations

from typing import Any

from gamedb.openspiel import require_openspiel
from gamedb.openspiel.bridge import Bridge
from gamedb.play.agents import Agent

require_openspiel()
from open_spiel.python import policy as _policy  # noqa: E402  (after the one-line check)


class _BothPlayers(_policy.Policy):  # type: ignore[misc]  # OpenSpiel is untyped
    """What both policies share: terminals, chance nodes, which player is asked."""

    def __init__(self, bridge: Bridge):
        super().__init__(bridge.openspiel_game, [0, 1])
        self.bridge = bridge

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """Return ``{action: probability}`` over the legal actions of ``player_id``
        (at a simultaneous node it must be given; elsewhere the player to move)."""
        if state.is_terminal():
            return {}
        if state.is_chance_node():
            return dict(state.chance_outcomes())
        if player_id is None:
            if state.is_simultaneous_node():
                raise ValueError("at a simultaneous node, name the player (player_id=0 or 1)")
            player_id = state.current_player()
        return self._decide(state, int(player_id))

    def _decide(self, state: Any, player: int) -> dict[int, float]:
        raise NotImplementedError


class EquilibriumPolicy(_BothPlayers):
    """Plays the equilibrium stored in a bridge's file, for OpenSpiel's players 0 and 1."""

    def _decide(self, state: Any, player: int) -> dict[int, float]:
        return self.bridge.strategy(state, player)


class AgentPolicy(_BothPlayers):
    """Plays a gamedb agent (either seat) in the OpenSpiel game of a bridge's file
    (``Bridge.policy("equilibrium-vs:random")`` makes one by name)."""

    def __init__(self, bridge: Bridge, agent: Agent):
        super().__init__(bridge)
        self.agent = agent

    def _decide(self, state: Any, player: int) -> dict[int, float]:
        legal = state.legal_actions(player)
        game, ours = self.bridge.game, self.bridge.position(state).state
        if game.value(ours) is not None:  # decided (win/loss): every bid is as good
            return {a: 1.0 / len(legal) for a in legal}
        chosen = self.agent.policy(game, ours, player + 1)
        probs = {self.bridge.translation.to_openspiel(a): p for a, p in chosen.items()}
        return {a: probs.get(a, 0.0) for a in legal}


__all__ = ["AgentPolicy", "EquilibriumPolicy"]
