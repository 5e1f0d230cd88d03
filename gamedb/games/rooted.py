"""Any game played from a given position instead of its start (``Game.subgame``).

``gamedb solve`` builds the positions below one position with the ordinary builder:
the builder starts its forward enumeration at ``initial`` (``games.expansion.root_of``),
so a game whose ``initial`` is that position is all it needs. Everything else — rules,
keys, canonical forms, spec — is the wrapped game's, so the file the builder writes
reads like a file of the whole game (``open_db`` loads the game from the spec) and
answers the position in real cards, players and points exactly as ``gamedb show``.

>>> from gamedb.games import load_game
>>> game = load_game("jujitsu(num_cards=5)")
>>> sub = game.subgame(game.parse_position("hand1=1,4 hand2=2,5 pot=1 diff=0"))
>>> sub.spec == game.spec, sub.key_layout == game.key_layout, sub.num_cards
(True, True, 5)
>>> [(p, game.format_position(s)) for p, s in sub.initial()]
[(1.0, 'hand1=1,4 hand2=2,5 pot=1 diff=0')]
>>> game.subgame(game.parse_position("hand1=- hand2=- pot=0 diff=1")).initial()
[]
"""

from __future__ import annotations

from gamedb.games.base import Distribution, Game, S
from gamedb.games.source import LayerSource
from gamedb.games.wrapper import Wrapper


class Rooted(Wrapper[S]):
    """``game`` started at ``start``: same rules, keys and spec; ``initial`` is ``start``."""

    def __init__(self, game: Game[S], start: S):
        super().__init__(game)
        self.start = start

    def initial(self) -> Distribution[S]:
        """Return ``start`` (its draws if a chance draw is next), leaving out what is
        over: a finished ``start`` has nothing to solve."""
        draws = self.game.chance(self.start) or [(1.0, self.start)]
        return [(p, s) for p, s in draws if self.game.value(s) is None]

    def indexed_face(self) -> LayerSource | None:
        """None: a perfect index covers the whole game; the subgame is enumerated."""
        return None


__all__ = ["Rooted"]
