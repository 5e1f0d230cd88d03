"""Goofspiel (GOPS): the game, its key layout, its indexed faces and its variants.

* ``game``: the rules (``Goofspiel``, ``GoofspielState``), positions, canonical keys;
* ``keys``: the ``goofspiel-v1`` key layout and its compiled helpers;
* ``index``: the indexed face of point-difference Goofspiel (no enumeration);
* ``winloss``: the indexed face of win/loss Goofspiel (the score in the index);
* ``openspiel``: OpenSpiel's ``goofspiel`` in these terms (``gamedb.games.openspiel``);
* ``variants``: which spec options load which variant, ``rounds`` (fewer rounds than
  cards), ``dummy`` (a dummy prize deck), ``committed`` (committed bids).

What Goofspiel *is* lives here and nowhere else (docs/architecture.md).
"""

from gamedb.games.goofspiel.game import Goofspiel, GoofspielState

__all__ = ["Goofspiel", "GoofspielState"]
