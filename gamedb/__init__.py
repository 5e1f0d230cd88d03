"""gamedb: exact equilibria of simultaneous-move zero-sum games, kept in SQLite.

>>> from gamedb.games import load_game
>>> load_game("jujitsu(num_cards=4)").spec
'jujitsu(num_cards=4,ties=carry)'
"""

from __future__ import annotations

__version__ = "0.1.0"
