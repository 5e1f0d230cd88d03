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

from typing import Any

from gamedb.games.base import Canonical, Distribution, Expansion, Game, Keys, S
from gamedb.games.indexed import IndexedFace
from gamedb.games.layout import KeyLayout


class Rooted(Game[S]):
    """``game`` started at ``start``: same rules, keys and spec; ``initial`` is ``start``."""

    def __init__(self, game: Game[S], start: S):
        self.game, self.start = game, start
        self.name, self.params, self.spec = game.name, game.params, game.spec  # type: ignore[misc]
        self.layer_span, self.state_type = game.layer_span, game.state_type  # type: ignore[misc]
        self.layout, self.capabilities = game.layout, game.capabilities
        self.rules, self.canonical_keys = game.rules, game.canonical_keys  # type: ignore[misc]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)  # the family's parameters: num_cards, heaps, ...

    def initial(self) -> Distribution[S]:
        """Return ``start`` (its draws if a chance draw is next), leaving out what is
        over: a finished ``start`` has nothing to solve."""
        draws = self.game.chance(self.start) or [(1.0, self.start)]
        return [(p, s) for p, s in draws if self.game.value(s) is None]

    def indexed_face(self) -> IndexedFace | None:
        """None: a perfect index covers the whole game; the subgame is enumerated."""
        return None

    @property
    def raw_layout(self) -> KeyLayout:
        return self.game.raw_layout

    @property
    def key_layout(self) -> str:
        return self.game.key_layout

    def chance(self, s: S) -> Distribution[S] | None:
        return self.game.chance(s)

    def actions(self, s: S) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return self.game.actions(s)

    def action_name(self, s: S, player: int, action: int) -> str:
        return self.game.action_name(s, player, action)

    def next(self, s: S, a: int, b: int) -> Distribution[S]:
        return self.game.next(s, a, b)

    def value(self, s: S) -> float | None:
        return self.game.value(s)

    def layer(self, s: S) -> int:
        return self.game.layer(s)

    def key(self, s: S) -> int:
        return self.game.key(s)

    def decode(self, key: int) -> S:
        return self.game.decode(key)

    def canonical(self, s: S) -> Canonical:
        return self.game.canonical(s)

    def parse_position(self, text: str) -> S:
        return self.game.parse_position(text)

    def format_position(self, s: S) -> str:
        return self.game.format_position(s)

    def layer_of(self, keys: Keys) -> Keys:
        return self.game.layer_of(keys)

    def expand(self, keys: Keys) -> Expansion:
        return self.game.expand(keys)

    def unreachable(self, s: S) -> str | None:
        return self.game.unreachable(s)


__all__ = ["Rooted"]
