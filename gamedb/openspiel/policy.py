"""The stored equilibrium as an OpenSpiel policy.

``EquilibriumPolicy`` is an ``open_spiel.python.policy.Policy`` for both players: at a
simultaneous node OpenSpiel asks each player apart (``action_probabilities(state,
player_id)``), and each gets its stored equilibrium strategy; at a chance node the
chance outcomes. So it plays with ``PolicyBot``, ``evaluate_bots`` and
``expected_game_score.policy_value`` (which needs the two players' policies in one).

Importing this module imports OpenSpiel (``gamedb.openspiel.require_openspiel`` says
how to install it when it is missing).
"""

from __future__ import annotations

from typing import Any

from gamedb.openspiel import require_openspiel
from gamedb.openspiel.bridge import Bridge

require_openspiel()
from open_spiel.python import policy as _policy  # noqa: E402  (after the one-line check)


class EquilibriumPolicy(_policy.Policy):  # type: ignore[misc]  # OpenSpiel is untyped
    """Plays the equilibrium stored in a bridge's file, for OpenSpiel's players 0 and 1."""

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
        return self.bridge.strategy(state, int(player_id))


__all__ = ["EquilibriumPolicy"]
