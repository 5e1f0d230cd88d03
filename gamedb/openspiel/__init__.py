"""A bridge to OpenSpiel: its states as gamedb positions, exact values, an equilibrium policy.

An optional part: it needs the ``openspiel`` extra (``pip install "gamedb[openspiel]"``,
which installs ``open_spiel``). ``pyspiel`` is imported only when a function here is
called, never by the rest of gamedb (``tests/test_layers.py``); without it the call
raises ``OpenSpielMissing`` with the install command.

* ``bridge``: ``Bridge`` over an open file: ``position(state)``, ``state(position)``,
  ``value(state)`` in OpenSpiel's units, ``strategy(state, player)``; ``spec_of`` and
  ``openspiel_game`` translate between OpenSpiel's games and gamedb's specs;
* ``policy``: ``EquilibriumPolicy``, an ``open_spiel.python.policy.Policy`` that plays
  the stored equilibrium (``PolicyBot``, ``evaluate_bots``, ``policy_value``).

Which OpenSpiel games map to which specs, and the units: ``gamedb.games.openspiel`` and
docs/openspiel.md.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gamedb.games.base import GameError

#: How to install OpenSpiel, for the one-line error.
INSTALL = 'pip install "gamedb[openspiel]" (or pip install open_spiel)'


class OpenSpielMissing(GameError):
    """OpenSpiel (``pyspiel``) is not installed."""


def require_openspiel() -> ModuleType:
    """Return the ``pyspiel`` module, or raise ``OpenSpielMissing`` saying how to install it."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        raise OpenSpielMissing(f"the OpenSpiel bridge needs OpenSpiel, which is not "
                               f"installed: {INSTALL}") from None


__all__ = ["INSTALL", "OpenSpielMissing", "require_openspiel"]
