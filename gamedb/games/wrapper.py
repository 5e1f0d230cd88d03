"""A game that plays another game's rules: the base of ``Rooted`` and ``RawKeys``.

A wrapper changes one face of a game (``games.rooted``: where play starts;
``games.raw``: how positions are keyed) and must keep every other one. A base default
it inherited from ``Game`` would silently replace the family's own (a vectorized
``expand``, a compressed ``key``, a named action), so ``Wrapper`` forwards every method
a family may override, and a wrapper overrides only what it changes
(``tests/games/test_rooted.py`` checks both wrappers).

>>> from gamedb.games import load_game
>>> game = load_game("nim(heaps=1-2)")
>>> same = Wrapper(game)
>>> start = game.parse_position("start")
>>> same.spec == game.spec, same.heaps == game.heaps, same.actions(start) == game.actions(start)
(True, True, True)
"""

from __future__ import annotations

from typing import Any

from gamedb.games.base import Canonical, Distribution, Expansion, Game, S
from gamedb.types import Keys
from gamedb.games.source import LayerSource
from gamedb.games.layout import KeyLayout


class Wrapper(Game[S]):
    """``game`` itself: its identity, its rules and every overridable method forwarded."""

    def __init__(self, game: Game[S]):
        self.game = game
        self.name, self.params, self.spec = game.name, game.params, game.spec  # type: ignore[misc]
        self.layer_span, self.state_type = game.layer_span, game.state_type  # type: ignore[misc]
        self.layout, self.capabilities = game.layout, game.capabilities
        self.rules, self.canonical_keys = game.rules, game.canonical_keys  # type: ignore[misc]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)  # the family's parameters: num_cards, heaps, ...

    @property
    def raw_layout(self) -> KeyLayout:
        return self.game.raw_layout

    @property
    def key_layout(self) -> str:
        return self.game.key_layout

    def initial(self) -> Distribution[S]:
        return self.game.initial()

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

    def indexed_face(self) -> LayerSource | None:
        return self.game.indexed_face()


__all__ = ["Wrapper"]
