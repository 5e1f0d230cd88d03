"""The raw (uncanonical) layout of any game: every real position keyed separately.

Tests build a game both ways and demand that the canonical file answers every real
position like the raw one (``tests/conftest.py``'s ``raw_and_canonical``). One wrapper
does it for every family, so no game carries a raw path of its own: a raw key is the
game's unreduced ``key`` in its ``raw_layout`` (the declared layout, unless the canonical
one compresses real positions, as Goofspiel's base-3 ranks do), a real action is its own
label, and the layer face comes from the reference face (raw builds are small).
A raw layout may leave out only what the canonical one leaves out and banks as
``Canonical.offset``.

>>> from gamedb.games import load_game
>>> game = load_game("jujitsu(num_cards=3)", canonical_keys=False)
>>> game.key_layout, game.canonical_keys, game.num_cards
('jujitsu-v1-raw', False, 3)
"""

from __future__ import annotations

from typing import Any

from gamedb.games.base import Canonical, Distribution, Expansion, Game, Keys, S, reference_expand


class RawKeys(Game[S]):
    """``game`` with every real position stored under its own key (no reduction)."""

    canonical_keys = False

    def __init__(self, game: Game[S]):
        self.game = game
        self.name, self.params, self.spec = game.name, game.params, game.spec  # type: ignore[misc]
        self.layer_span, self.state_type = game.layer_span, game.state_type  # type: ignore[misc]
        self.layout, self.capabilities = game.raw_layout, game.capabilities
        self.rules = game.rules  # type: ignore[misc]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)  # the family's parameters: num_cards, heaps, ...

    @property
    def key_layout(self) -> str:
        """The game's layout name with ``-raw``."""
        return self.layout.name + "-raw"

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
        """Encode ``s`` in the raw layout."""
        return self.game.key(s) if self.layout is self.game.layout else super().key(s)

    def decode(self, key: int) -> S:
        """Decode a raw key."""
        return self.game.decode(key) if self.layout is self.game.layout else super().decode(key)

    def canonical(self, s: S) -> Canonical:
        """Return the raw key of ``s``; every action is its own label.

        The payoff the game banks outside its keys (``Canonical.offset``, e.g. the score
        in a point-difference game) is banked here too: raw layouts leave it out as well.
        """
        acts1, acts2 = self.actions(s)
        offset = self.game.canonical(s).offset
        return Canonical(self.key(s), False, ({a: a for a in acts1}, {b: b for b in acts2}),
                         offset)

    def parse_position(self, text: str) -> S:
        return self.game.parse_position(text)

    def format_position(self, s: S) -> str:
        return self.game.format_position(s)

    def unreachable(self, s: S) -> str | None:
        return self.game.unreachable(s)

    def expand(self, keys: Keys) -> Expansion:
        """Return the successors from the reference face."""
        return reference_expand(self, keys)


__all__ = ["RawKeys"]
